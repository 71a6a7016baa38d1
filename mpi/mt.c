/*
 * mpi/mt.c: the library lock of MPI_THREAD_MULTIPLE (see mpi/mt.h).
 *
 * A pthread mutex, a per-thread depth (recursion), and a count of the
 * threads blocked on the mutex. A holder that waits for the network hands
 * the lock over only when that count is non-zero, and then waits until
 * another thread has actually taken it (the generation changed) before it
 * competes again: glibc's mutex is not fair, and a holder that unlocked and
 * relocked at once would keep it from a thread the kernel is still waking.
 */
#include "mpi/mt.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

int mpii_mt_on;

static pthread_mutex_t mt_mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int mt_waiting; /* threads blocked in acquire() */
static atomic_uint mt_gen;    /* incremented by every acquisition */
static _Thread_local int mt_depth;

static void acquire(void)
{
    if (pthread_mutex_trylock(&mt_mutex) != 0) {
        atomic_fetch_add(&mt_waiting, 1);
        pthread_mutex_lock(&mt_mutex);
        atomic_fetch_sub(&mt_waiting, 1);
    }
    atomic_fetch_add_explicit(&mt_gen, 1, memory_order_relaxed);
}

void mpii_mt_lock(void)
{
    if (mt_depth++ == 0)
        acquire();
}

void mpii_mt_unlock(void)
{
    if (--mt_depth == 0)
        pthread_mutex_unlock(&mt_mutex);
}

void mpii_mt_yield(void)
{
    unsigned gen;

    if (!mpii_mt_on || mt_depth == 0 || atomic_load_explicit(&mt_waiting, memory_order_relaxed) == 0)
        return;
    gen = atomic_load_explicit(&mt_gen, memory_order_relaxed);
    pthread_mutex_unlock(&mt_mutex);
    while (atomic_load_explicit(&mt_gen, memory_order_relaxed) == gen &&
           atomic_load_explicit(&mt_waiting, memory_order_relaxed) > 0)
        sched_yield();
    acquire();
}

int mpii_mt_release(void)
{
    int depth = mt_depth;

    if (depth > 0) {
        mt_depth = 0;
        pthread_mutex_unlock(&mt_mutex);
    }
    return depth;
}

void mpii_mt_reacquire(int depth)
{
    if (depth > 0) {
        acquire();
        mt_depth = depth;
    }
}
