/*
 * threads: serialized calls from a second thread. MPI_Init_thread provides
 * the level asked for (MULTIPLE by default, SERIALIZED with
 * THREADS_REQUIRE=serialized), MPI_Query_thread repeats it, MPI_Is_thread_main is true in the thread that
 * called MPI_Init_thread and false in another. Then a second thread does
 * all the communication while the main thread waits for it (pthread_join:
 * the calls are serialized): a ring exchange, an Allreduce, a nonblocking
 * collective started by the worker and completed by the main thread.
 * Prints "threads: ok"; a failed check aborts the job.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL threads (rank %d): ", rank);                                               \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

static MPI_Request ireq;
static int isum;

static void *worker(void *arg)
{
    int flag = 1, x, got = -1, sum = 0;
    (void)arg;
    MPI_Is_thread_main(&flag);
    CHECK(!flag, "MPI_Is_thread_main is true in another thread");
    x = rank * 10;
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT, (rank + size - 1) % size, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == (rank + size - 1) % size * 10, "ring exchange from the worker thread: got %d", got);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "Allreduce from the worker thread: %d", sum);
    MPI_Iallreduce(&rank, &isum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &ireq);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, flag = 0, q = -1;
    pthread_t t;
    const char *want = getenv("THREADS_REQUIRE");

    int required = want && !strcmp(want, "serialized") ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;

    MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == required, "provided %d, asked for %d", provided, required);
    MPI_Query_thread(&q);
    CHECK(q == provided, "MPI_Query_thread says %d", q);
    MPI_Is_thread_main(&flag);
    CHECK(flag, "MPI_Is_thread_main is false in the main thread");
    CHECK(pthread_create(&t, NULL, worker, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    MPI_Wait(&ireq, MPI_STATUS_IGNORE);
    CHECK(isum == size - 1, "Iallreduce started by the worker, completed by main: %d", isum);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: ok\n");
    MPI_Finalize();
    return 0;
}
