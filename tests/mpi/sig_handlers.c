/*
 * sig_handlers: MPI_Init leaves the program's signal dispositions alone,
 * whatever the provider loads. The program sets its own SIGINT and SIGTERM
 * handlers before MPI_Init and leaves SIGSEGV, SIGBUS, SIGILL, SIGFPE and
 * SIGABRT at their defaults; after MPI_Init every one must be as it was
 * (Debian's libfabric pulls in libinfinipath, whose constructor installs
 * handlers for six of them that write a <prog>.<n>s-<pid>,<host>.btr file
 * into the working directory and exit with status 1, so a crashing rank
 * was reported as "exited with status 1", not as killed by its signal).
 * Then the last rank raises SIGSEGV while the others wait in MPI_Recv for
 * a message that never comes: the job must end as killed by signal 11
 * (exit status 139 from bin/mpirun; the manifest expects exactly that).
 */
#define TEST_NAME "sig_handlers"
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define CHECK_RANK g_rank
#define CHECK_ABORT_IF (g_rank >= 0)
#include "check.h"

static int g_rank = -1;

static void user_handler(int sig)
{
    (void)sig;
}

static void expect(int sig, void (*want)(int), const char *what)
{
    struct sigaction sa;

    sigaction(sig, NULL, &sa);
    CHECK(!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == want,
          "%s (%d) handler changed by MPI_Init, want %s", strsignal(sig), sig, what);
}

int main(int argc, char **argv)
{
    static const int dfl[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    struct sigaction sa;
    int size, x = 0;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = user_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
        signal(dfl[i], SIG_DFL);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(SIGINT, user_handler, "the program's");
    expect(SIGTERM, user_handler, "the program's");
    for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
        expect(dfl[i], SIG_DFL, "SIG_DFL");
    /* mpirun ends the job with SIGTERM: the waiting ranks must go */
    signal(SIGTERM, SIG_DFL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == size - 1)
        raise(SIGSEGV);
    MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    FAIL("MPI_Recv returned although its sender crashed");
    return 1;
}
