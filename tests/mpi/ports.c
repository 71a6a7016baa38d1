/*
 * ports: MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect between the two
 * halves of MPI_COMM_WORLD (the port name travels through
 * MPI_Publish_name / MPI_Lookup_name), the inter-communicator's sizes and
 * traffic, then merged and reduced over; MPI_Comm_join of ranks 0 and 1
 * over a TCP connection on 127.0.0.1; errors: a port that is not one
 * (MPI_ERR_PORT), a name no longer published (MPI_ERR_NAME), unpublishing
 * it twice (MPI_ERR_SERVICE).
 */
#define TEST_NAME "ports"
#include <mpi.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK_RANK rank
#include "check.h"

static int rank = -1, size;

static void accept_connect(void)
{
    int half = size / 2, server = rank < half, lrank, lsize, rsize, sum = 0;
    char port[MPI_MAX_PORT_NAME] = "", service[64];
    MPI_Comm local, inter, merged;

    snprintf(service, sizeof service, "ports-test-%d", size);
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, server, rank, &local));
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);
    if (server && lrank == 0) {
        MPI_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port));
    }
    MPI_Barrier(MPI_COMM_WORLD); /* published before anyone looks */
    if (!server && lrank == 0) {
        char found[MPI_MAX_PORT_NAME];
        MPI_CHECK(MPI_Lookup_name(service, MPI_INFO_NULL, found));
        strcpy(port, found);
    }
    if (server)
        MPI_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, local, &inter));
    else
        MPI_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, local, &inter));
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == (server ? size - half : half), "remote size %d", rsize);
    /* every rank sends its world rank to rank lrank % rsize of the other side */
    {
        int me = rank, got, n = 0;
        MPI_Request r;
        MPI_CHECK(MPI_Isend(&me, 1, MPI_INT, lrank % rsize, 9, inter, &r));
        for (int i = 0; i < rsize; i++)
            if (i % lsize == lrank)
                n++;
        for (int i = 0; i < n; i++) {
            MPI_Status st;
            MPI_CHECK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, inter, &st));
            CHECK(server ? got >= half : got < half, "message from world rank %d across the port", got);
        }
        MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(MPI_Intercomm_merge(inter, !server, &merged));
    MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == size * (size - 1) / 2, "merged allreduce %d", sum);
    MPI_Comm_free(&merged);
    MPI_CHECK(MPI_Comm_disconnect(&inter));
    MPI_Barrier(MPI_COMM_WORLD);
    if (server && lrank == 0) {
        char dummy[MPI_MAX_PORT_NAME];
        MPI_CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        ECLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
        ECLASS(MPI_Lookup_name(service, MPI_INFO_NULL, dummy), MPI_ERR_NAME);
        MPI_CHECK(MPI_Close_port(port));
    }
    MPI_Comm_free(&local);
}

static void join(void)
{
    int fd = -1, peer = 1 - rank, v = rank * 10, got = -1, rsize;
    MPI_Comm inter;

    if (rank == 0) {
        struct sockaddr_in a = {.sin_family = AF_INET};
        socklen_t len = sizeof a;
        int ls = socket(AF_INET, SOCK_STREAM, 0), port;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 1) == 0, "listen");
        getsockname(ls, (struct sockaddr *)&a, &len);
        port = ntohs(a.sin_port);
        MPI_CHECK(MPI_Send(&port, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
        MPI_Barrier(MPI_COMM_WORLD);
        /* a blocking accept() would stop this process's MPI progress (the
         * providers progress in MPI calls), which the port number or the
         * barrier may still need: poll, and call into MPI in between */
        fcntl(ls, F_SETFL, O_NONBLOCK);
        while ((fd = accept(ls, NULL, NULL)) < 0) {
            int flag;
            CHECK(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR, "accept");
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        fcntl(fd, F_SETFL, 0);
        close(ls);
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET};
        int port;
        MPI_CHECK(MPI_Recv(&port, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((unsigned short)port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect");
    }
    CHECK(fd >= 0, "socket");
    MPI_CHECK(MPI_Comm_join(fd, &inter));
    close(fd);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "join: remote size %d", rsize);
    MPI_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 4, &got, 1, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE));
    CHECK(got == peer * 10, "join: got %d", got);
    MPI_CHECK(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv)
{
    MPI_Comm self;
    MPI_Comm c = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &self));
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    ECLASS(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, self, &c), MPI_ERR_PORT);
    ECLASS(MPI_Comm_connect("mbmpi-port:0:0:0", MPI_INFO_NULL, 0, self, &c),
           MPI_ERR_PORT); /* another job's */
    CHECK(c == MPI_COMM_NULL, "failed connect left a communicator");
    MPI_Comm_free(&self);
    if (size >= 2)
        accept_connect();
    if (size >= 2 && rank < 2)
        join();
    else if (size >= 2)
        MPI_Barrier(MPI_COMM_WORLD); /* join()'s */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("%s: ok\n", TEST_NAME);
    return 0;
}
