/*
 * mpi/group.c: process groups (MPI 3.1 sections 6.3 and 6.4.2).
 *
 * A group is an ordered list of distinct MPI_COMM_WORLD ranks: group rank i
 * is world rank ranks[i]. Handles are small ints: MPI_GROUP_NULL (0) is
 * never valid, MPI_GROUP_EMPTY (1) is the one empty group (every constructor
 * whose result has no member returns it), and user groups start at 2 and
 * index a growable table. Groups are immutable, so each handle owns its list.
 *
 * MPI_Comm_create is MPI_Comm_split over the parent: the members of a group
 * take the parent rank of the group's first member as their color (distinct
 * for the disjoint groups that different processes may pass, MPI 3.1
 * section 6.4.2) and their group rank as the key, so the group's order gives
 * the new ranks; everybody else passes MPI_UNDEFINED and gets MPI_COMM_NULL.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct group {
    int size;
    int *ranks; /* group rank -> MPI_COMM_WORLD rank */
} group_t;

static group_t empty_group;
static group_t **groups; /* groups[h] for handle h >= 2 */
static int ngroups;

static group_t *group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &empty_group;
    if (h < 2 || h >= ngroups)
        return NULL;
    return groups[h];
}

/* New group of the n world ranks in `ranks` (a malloc'd array that the group
 * takes over, freed here on failure). n == 0 gives MPI_GROUP_EMPTY. */
static int group_new(int n, int *ranks, MPI_Group *out)
{
    group_t *g;
    int h;
    if (n == 0) {
        free(ranks);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (h = 2; h < ngroups && groups[h]; h++)
        ;
    if (h >= ngroups) {
        int nn = ngroups ? 2 * ngroups : 16;
        group_t **t = realloc(groups, (size_t)nn * sizeof *t);
        if (!t) {
            free(ranks);
            return MPI_ERR_NO_MEM;
        }
        memset(t + ngroups, 0, (size_t)(nn - ngroups) * sizeof *t);
        groups = t;
        ngroups = nn;
    }
    g = malloc(sizeof *g);
    if (!g) {
        free(ranks);
        return MPI_ERR_NO_MEM;
    }
    g->size = n;
    g->ranks = ranks;
    groups[h] = g;
    *out = h;
    return MPI_SUCCESS;
}

static int *ranks_alloc(int n);

int mpii_group_from_ranks(int n, const int *world_ranks, MPI_Group *out)
{
    int *r = ranks_alloc(n);
    if (!r)
        return MPI_ERR_NO_MEM;
    memcpy(r, world_ranks, (size_t)n * sizeof(int));
    return group_new(n, r, out);
}

/* Size of MPI_COMM_WORLD (world ranks are 0 .. world_size() - 1). */
static int world_size(void)
{
    mpii_comm_t *w = mpii_comm_get(MPI_COMM_WORLD);
    return w ? w->size : 0;
}

/* world rank -> rank in g (-1 for non-members), or NULL when out of memory. */
static int *rank_map(const group_t *g)
{
    int ws = world_size();
    int *map = malloc((size_t)(ws ? ws : 1) * sizeof *map);
    if (!map)
        return NULL;
    for (int i = 0; i < ws; i++)
        map[i] = -1;
    for (int i = 0; i < g->size; i++)
        map[g->ranks[i]] = i;
    return map;
}

static int *ranks_alloc(int n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
}

#define GET_GROUP(fn, var, h)                                                                  \
    do {                                                                                       \
        (var) = group_get(h);                                                                  \
        if (!(var))                                                                            \
            return mpii_err(NULL, MPI_ERR_GROUP, fn, "invalid group %d", (int)(h));          \
    } while (0)
#define CHECK_PTR(fn, p, what)                                                                 \
    do {                                                                                       \
        if (!(p))                                                                              \
            return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", what);                        \
    } while (0)

/* ------------------------------------------------------------------ */
/* accessors                                                           */

int MPI_Group_size(MPI_Group group, int *size)
{
    static const char fn[] = "MPI_Group_size";
    group_t *g;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g, group);
    CHECK_PTR(fn, size, "size");
    *size = g->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    static const char fn[] = "MPI_Group_rank";
    group_t *g;
    int me;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g, group);
    CHECK_PTR(fn, rank, "rank");
    me = mpii_comm_get(MPI_COMM_WORLD)->rank;
    *rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->ranks[i] == me) {
            *rank = i;
            break;
        }
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    group_t *g1, *g2;
    int *map;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g1, group1);
    GET_GROUP(fn, g2, group2);
    if (n < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid n %d", n);
    if (n == 0)
        return MPI_SUCCESS;
    CHECK_PTR(fn, ranks1, "ranks1");
    CHECK_PTR(fn, ranks2, "ranks2");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return mpii_err(NULL, MPI_ERR_RANK, fn, "invalid rank %d at index %d (group size %d)", ranks1[i],
                            i, g1->size);
    map = rank_map(g2);
    if (!map)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int r = map[g1->ranks[ranks1[i]]];
            ranks2[i] = r < 0 ? MPI_UNDEFINED : r;
        }
    }
    free(map);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char fn[] = "MPI_Group_compare";
    group_t *g1, *g2;
    int *map;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g1, group1);
    GET_GROUP(fn, g2, group2);
    CHECK_PTR(fn, result, "result");
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (g1->size == 0 || !memcmp(g1->ranks, g2->ranks, (size_t)g1->size * sizeof(int))) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    map = rank_map(g2);
    if (!map)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *result = MPI_SIMILAR;
    for (int i = 0; i < g1->size; i++)
        if (map[g1->ranks[i]] < 0) {
            *result = MPI_UNEQUAL;
            break;
        }
    free(map);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* constructors                                                        */

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_group";
    mpii_comm_t *c;
    int *ranks, rc;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (!group)
        return mpii_err(c, MPI_ERR_ARG, fn, "group is NULL");
    ranks = ranks_alloc(c->size);
    if (!ranks)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(ranks, c->world_ranks, (size_t)c->size * sizeof(int));
    rc = group_new(c->size, ranks, group);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

/* Check n distinct valid ranks of g; fills mark[] (g->size entries, zeroed
 * by the caller) with 1 for each of them. */
static int check_rank_list(const char *fn, const group_t *g, int n, const int ranks[], char *mark)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mpii_err(NULL, MPI_ERR_RANK, fn, "invalid rank %d at index %d (group size %d)", r, i,
                            g->size);
        if (mark[r])
            return mpii_err(NULL, MPI_ERR_RANK, fn, "rank %d appears twice", r);
        mark[r] = 1;
    }
    return MPI_SUCCESS;
}

/* Expand n (first, last, stride) triplets into the group ranks they name,
 * in order, into out[] (at most g->size: they must be distinct); mark[] as
 * for check_rank_list. */
static int expand_ranges(const char *fn, const group_t *g, int n, int ranges[][3], char *mark, int *out,
                         int *nout)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        long long first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "stride 0 in range %d", i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return mpii_err(NULL, MPI_ERR_ARG, fn, "range %d (%lld, %lld, %lld) runs the wrong way", i, first,
                            last, stride);
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (r < 0 || r >= g->size)
                return mpii_err(NULL, MPI_ERR_RANK, fn, "range %d names rank %lld (group size %d)", i, r,
                                g->size);
            if (mark[r])
                return mpii_err(NULL, MPI_ERR_RANK, fn, "rank %lld named twice (range %d)", r, i);
            mark[r] = 1;
            out[k++] = (int)r;
        }
    }
    *nout = k;
    return MPI_SUCCESS;
}

/* Common tail of the four subset constructors. With `incl` the result is
 * g's ranks sel[0..nsel-1] in that order; else every rank of g not marked,
 * in g's order. */
static int subset_new(const char *fn, const group_t *g, int incl, const int *sel, int nsel, const char *mark,
                      MPI_Group *newgroup)
{
    int n = 0, rc;
    int *ranks = ranks_alloc(g->size);
    if (!ranks)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    if (incl) {
        for (int i = 0; i < nsel; i++)
            ranks[n++] = g->ranks[sel[i]];
    } else {
        for (int i = 0; i < g->size; i++)
            if (!mark[i])
                ranks[n++] = g->ranks[i];
    }
    rc = group_new(n, ranks, newgroup);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

static int incl_excl(const char *fn, MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, int incl)
{
    group_t *g;
    char *mark;
    int rc;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g, group);
    if (n < 0 || n > g->size)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid n %d (group size %d)", n, g->size);
    if (n > 0)
        CHECK_PTR(fn, ranks, "ranks");
    CHECK_PTR(fn, newgroup, "newgroup");
    mark = calloc((size_t)(g->size ? g->size : 1), 1);
    if (!mark)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = check_rank_list(fn, g, n, ranks, mark);
    if (rc == MPI_SUCCESS)
        rc = subset_new(fn, g, incl, ranks, n, mark, newgroup);
    free(mark);
    return rc;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_incl", group, n, ranks, newgroup, 1);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_excl", group, n, ranks, newgroup, 0);
}

static int range_incl_excl(const char *fn, MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup,
                           int incl)
{
    group_t *g;
    char *mark;
    int *sel, nsel = 0, rc;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g, group);
    if (n < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid n %d", n);
    if (n > 0)
        CHECK_PTR(fn, ranges, "ranges");
    CHECK_PTR(fn, newgroup, "newgroup");
    mark = calloc((size_t)(g->size ? g->size : 1), 1);
    sel = ranks_alloc(g->size);
    if (!mark || !sel) {
        free(mark);
        free(sel);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rc = expand_ranges(fn, g, n, ranges, mark, sel, &nsel);
    if (rc == MPI_SUCCESS)
        rc = subset_new(fn, g, incl, sel, nsel, mark, newgroup);
    free(mark);
    free(sel);
    return rc;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_incl", group, n, ranges, newgroup, 1);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_excl", group, n, ranges, newgroup, 0);
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* MPI 3.1 section 6.3.2: union is group1 then the members of group2 not in
 * group1 (group2's order); intersection and difference keep group1's order. */
static int set_op(const char *fn, MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, int op)
{
    group_t *g1, *g2;
    int *map, *ranks, n = 0, rc;
    MPII_CHECK_INIT(fn);
    GET_GROUP(fn, g1, group1);
    GET_GROUP(fn, g2, group2);
    CHECK_PTR(fn, newgroup, "newgroup");
    map = rank_map(op == SET_UNION ? g1 : g2);
    ranks = ranks_alloc(g1->size + (op == SET_UNION ? g2->size : 0));
    if (!map || !ranks) {
        free(map);
        free(ranks);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if (op == SET_UNION) {
        for (int i = 0; i < g1->size; i++)
            ranks[n++] = g1->ranks[i];
        for (int i = 0; i < g2->size; i++)
            if (map[g2->ranks[i]] < 0)
                ranks[n++] = g2->ranks[i];
    } else {
        for (int i = 0; i < g1->size; i++)
            if ((map[g1->ranks[i]] >= 0) == (op == SET_INTERSECTION))
                ranks[n++] = g1->ranks[i];
    }
    free(map);
    rc = group_new(n, ranks, newgroup);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", group1, group2, newgroup, SET_UNION);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", group1, group2, newgroup, SET_INTERSECTION);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", group1, group2, newgroup, SET_DIFFERENCE);
}

/* ------------------------------------------------------------------ */
/* destructor                                                          */

int MPI_Group_free(MPI_Group *group)
{
    static const char fn[] = "MPI_Group_free";
    group_t *g;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, group, "group");
    GET_GROUP(fn, g, *group);
    /* MPI_GROUP_EMPTY comes back from constructors like any group, so
     * freeing it is accepted (and does nothing) */
    if (g != &empty_group) {
        groups[*group] = NULL;
        free(g->ranks);
        free(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* communicators from groups                                           */

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    mpii_comm_t *c;
    group_t *g;
    int *cmap, me, color = MPI_UNDEFINED, key = 0;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    g = group_get(group);
    if (!g)
        return mpii_err(c, MPI_ERR_GROUP, fn, "invalid group %d", (int)group);
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    /* world rank -> rank in comm */
    {
        group_t cg = {c->size, c->world_ranks};
        cmap = rank_map(&cg);
    }
    if (!cmap)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < g->size; i++)
        if (cmap[g->ranks[i]] < 0) {
            int w = g->ranks[i];
            free(cmap);
            return mpii_err(c, MPI_ERR_GROUP, fn,
                            "group rank %d (world rank %d) is not in the communicator", i, w);
        }
    me = c->world_ranks[c->rank];
    for (int i = 0; i < g->size; i++)
        if (g->ranks[i] == me) {
            /* (an inter-communicator: one group per side, MPI 4.0 7.4.2) */
            color = c->is_inter ? 0 : cmap[g->ranks[0]];
            key = i;
            break;
        }
    free(cmap);
    return MPI_Comm_split(comm, color, key, newcomm);
}
