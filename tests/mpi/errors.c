/*
 * errors: error classes under MPI_ERRORS_RETURN. Invalid rank, tag, count,
 * datatype, communicator and root each return the right class (checked
 * through MPI_Error_class), first on a duplicate communicator while
 * MPI_COMM_WORLD keeps the fatal handler, then on MPI_COMM_WORLD itself.
 * MPI_Error_string gives non-empty strings; MPI_Comm_get_errhandler returns
 * what was set (and a duplicate inherits it). After all the errors, normal
 * communication still works.
 */
#define TEST_NAME "errors"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;

static int cls(int rc)
{
    int c = -1;
    int r2 = MPI_Error_class(rc, &c);
    CHECK(r2 == MPI_SUCCESS, "MPI_Error_class(%d) failed with %d", rc, r2);
    return c;
}

#define EXPECT(call, klass)                                                                                  \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        CHECK(rc_ != MPI_SUCCESS, "%s succeeded, expected %s", #call, #klass);                               \
        CHECK(cls(rc_) == (klass), "%s returned class %d, expected %s (%d)", #call, cls(rc_), #klass,        \
              klass);                                                                                        \
    } while (0)

static void p2p_errors(MPI_Comm comm)
{
    int buf[4] = {0}, tag_ub_ok;
    MPI_Request rq = MPI_REQUEST_NULL;
    (void)tag_ub_ok;
    /* ranks */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, comm), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, comm), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, size + 3, 0, comm), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, size, 0, comm, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size, 0, comm, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -5, 0, comm, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm), MPI_ERR_RANK);
    /* tags */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -7, comm), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, comm), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, -7, comm, &rq), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, -7, comm, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    /* counts */
    EXPECT(MPI_Send(buf, -1, MPI_INT, 0, 0, comm), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -3, MPI_INT, 0, 0, comm, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -1, MPI_INT, 0, 0, comm, &rq), MPI_ERR_COUNT);
    /* datatypes */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, comm), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, comm, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    /* a derived type that was never committed */
    {
        MPI_Datatype t;
        MPI_CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
        EXPECT(MPI_Send(buf, 1, t, 0, 0, comm), MPI_ERR_TYPE);
        MPI_CHECK(MPI_Type_free(&t));
    }
    /* roots */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, comm), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, size, comm), MPI_ERR_ROOT);
    /* ops */
    EXPECT(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
    CHECK(rq == MPI_REQUEST_NULL, "a failed Isend/Irecv produced a request");
}

static void world_only_errors(void)
{
    int buf[2] = {0};
    MPI_Datatype t = MPI_INT;
    int r;
    /* invalid communicator: raised on MPI_COMM_WORLD's handler */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_STATUS_IGNORE), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    /* freeing a predefined datatype */
    EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK(t == MPI_INT, "failed Type_free changed the handle");
    /* Type_contiguous with a negative count */
    {
        MPI_Datatype nt;
        EXPECT(MPI_Type_contiguous(-1, MPI_INT, &nt), MPI_ERR_COUNT);
    }
}

static void error_strings(void)
{
    static const int classes[] = {
        MPI_SUCCESS,      MPI_ERR_BUFFER,   MPI_ERR_COUNT,   MPI_ERR_TYPE,      MPI_ERR_TAG,
        MPI_ERR_COMM,     MPI_ERR_RANK,     MPI_ERR_REQUEST, MPI_ERR_ROOT,      MPI_ERR_GROUP,
        MPI_ERR_OP,       MPI_ERR_TOPOLOGY, MPI_ERR_DIMS,    MPI_ERR_ARG,       MPI_ERR_UNKNOWN,
        MPI_ERR_TRUNCATE, MPI_ERR_OTHER,    MPI_ERR_INTERN,  MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
        MPI_ERR_NO_MEM,   MPI_ERR_INFO,     MPI_ERR_KEYVAL,  MPI_ERR_NOT_SAME,  MPI_ERR_UNSUPPORTED_OPERATION,
    };
    int n = (int)(sizeof classes / sizeof classes[0]);
    for (int i = 0; i < n; i++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1;
        memset(s, 0x7f, sizeof s);
        MPI_CHECK(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "Error_string(%d): length %d", classes[i], len);
        CHECK(memchr(s, 0, sizeof s) != NULL && (int)strlen(s) == len,
              "Error_string(%d): length %d does not match the string", classes[i], len);
        CHECK(cls(classes[i]) == classes[i], "Error_class(%d) is %d: a class is its own class", classes[i],
              cls(classes[i]));
    }
    /* the string of a code returned by a failing call is non-empty too */
    int buf = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_CHECK(MPI_Error_string(rc, s, &len));
    CHECK(len > 0 && (int)strlen(s) == len, "Error_string of a returned code: length %d", len);
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm dup, dup2;
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;

    /* the default is MPI_ERRORS_ARE_FATAL */
    MPI_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler of MPI_COMM_WORLD is not MPI_ERRORS_ARE_FATAL");
    MPI_CHECK(MPI_Errhandler_free(&eh));

    /* errors on a duplicate with ERRORS_RETURN; MPI_COMM_WORLD stays fatal */
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler(dup) does not return MPI_ERRORS_RETURN");
    MPI_CHECK(MPI_Errhandler_free(&eh));
    p2p_errors(dup);
    /* a duplicate inherits the handler */
    MPI_CHECK(MPI_Comm_dup(dup, &dup2));
    MPI_CHECK(MPI_Comm_get_errhandler(dup2, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "a duplicate did not inherit MPI_ERRORS_RETURN");
    MPI_CHECK(MPI_Errhandler_free(&eh));
    {
        int one = 1;
        EXPECT(MPI_Send(&one, 1, MPI_INT, size, 0, dup2), MPI_ERR_RANK);
    }
    MPI_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "setting a handler on a duplicate changed MPI_COMM_WORLD's");
    MPI_CHECK(MPI_Errhandler_free(&eh));

    /* now on MPI_COMM_WORLD */
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler(MPI_COMM_WORLD) does not return MPI_ERRORS_RETURN");
    MPI_CHECK(MPI_Errhandler_free(&eh));
    p2p_errors(MPI_COMM_WORLD);
    world_only_errors();
    error_strings();

    /* communication still works after all that */
    {
        int out = rank, in = -1, sum = -1;
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, dup, MPI_STATUS_IGNORE));
        CHECK(in == left, "ring after errors: got %d", in);
        MPI_CHECK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == size * (size - 1) / 2, "Allreduce after errors: %d", sum);
    }
    /* back to fatal, and it reads back */
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_ERRORS_ARE_FATAL did not read back");
    MPI_CHECK(MPI_Errhandler_free(&eh));
    MPI_CHECK(MPI_Comm_free(&dup2));
    MPI_CHECK(MPI_Comm_free(&dup));
    MPI_CHECK(MPI_Finalize());
    return 0;
}
