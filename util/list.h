/* util/list.h: intrusive doubly linked circular list (Linux list.h idea).
 * Elements embed a ut_list_t; queueing never allocates. */
#ifndef UT_LIST_H
#define UT_LIST_H

#include <stddef.h>

typedef struct ut_list {
    struct ut_list *next;
    struct ut_list *prev;
} ut_list_t;

#define ut_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static inline void ut_list_init(ut_list_t *h)
{
    h->next = h;
    h->prev = h;
}

static inline int ut_list_empty(const ut_list_t *h)
{
    return h->next == h;
}

static inline void ut_list_insert_between(ut_list_t *e, ut_list_t *prev, ut_list_t *next)
{
    e->next = next;
    e->prev = prev;
    prev->next = e;
    next->prev = e;
}

static inline void ut_list_push_back(ut_list_t *h, ut_list_t *e)
{
    ut_list_insert_between(e, h->prev, h);
}

static inline void ut_list_push_front(ut_list_t *h, ut_list_t *e)
{
    ut_list_insert_between(e, h, h->next);
}

static inline void ut_list_del(ut_list_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e;
    e->prev = e;
}

static inline ut_list_t *ut_list_pop_front(ut_list_t *h)
{
    ut_list_t *e;
    if (ut_list_empty(h))
        return NULL;
    e = h->next;
    ut_list_del(e);
    return e;
}

#define ut_list_for_each_safe(pos, tmp, head) \
    for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); (pos) = (tmp), (tmp) = (pos)->next)

#endif
