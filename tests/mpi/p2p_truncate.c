/*
 * p2p_truncate: a message longer than the receive buffer. With
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD the receive must report an error of
 * class MPI_ERR_TRUNCATE (returned by MPI_Recv or MPI_Wait / MPI_Test
 * directly; MPI_ERR_IN_STATUS from MPI_Waitall with the class in that
 * request's status.MPI_ERROR), and must not write a single byte past the
 * receive buffer (guard bytes), for small and large (1 MiB) messages, with
 * the receive posted before and after the message was sent. Afterwards the
 * pair must still communicate normally. Pairs (2k sends, 2k+1 receives),
 * then the roles swap; a rank without a partner sends to itself.
 */
#define TEST_NAME "p2p_truncate"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#define GUARD 4096
#define GB 0x5A

static int rank, size;
static unsigned char *sbuf, *area; /* area = GUARD | buffer | GUARD */

static unsigned char val(int src, int n, int i)
{
    return (unsigned char)(src * 17 + n * 3 + i * 7 + (i >> 11));
}

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static unsigned char *prep_area(int cap)
{
    memset(area, GB, (size_t)cap + 2 * GUARD);
    return area + GUARD;
}

static void check_guards(int cap, const char *what)
{
    for (int i = 0; i < GUARD; i++) {
        if (area[i] != GB)
            FAIL("%s: guard byte %d before the %d-byte buffer overwritten", what, GUARD - i, cap);
        if (area[GUARD + cap + i] != GB)
            FAIL("%s: byte %d past the end of the %d-byte receive buffer overwritten", what, i, cap);
    }
}

enum { T_DATA = 1, T_READY = 2, T_SENT = 3, T_AFTER = 4 };

/* one case, both roles; mode: 0 Recv posted first, 1 Recv after the send,
 * 2 Irecv+Wait posted first, 3 Irecv+Wait after, 4 Waitall [ok, truncated],
 * 5 Irecv + Test loop, 6 ANY_SOURCE Recv after */
static void run_case(int sender, int receiver, int n, int cap, int mode)
{
    char what[96];
    snprintf(what, sizeof what, "%d-byte message into %d-byte buffer, mode %d", n, cap, mode);
    int before = (mode == 0 || mode == 2 || mode == 4 || mode == 5);
    int one = 1, rc;
    MPI_Status st;
    MPI_Request sr = MPI_REQUEST_NULL, ok_sr = MPI_REQUEST_NULL;
    int self = sender == receiver;

    if (rank == sender) {
        for (int i = 0; i < n; i++)
            sbuf[i] = val(rank, n, i);
    }
    /* ---- receiver posts first, then releases the sender ---- */
    MPI_Request rr = MPI_REQUEST_NULL, rrs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int okv = -1, okout = 77;
    unsigned char *rb = NULL;
    if (rank == receiver) {
        rb = prep_area(cap);
        if (mode == 4)
            MPI_CHECK(MPI_Irecv(&okv, 1, MPI_INT, sender, T_DATA, MPI_COMM_WORLD, &rrs[0]));
        if (mode == 2 || mode == 5)
            MPI_CHECK(MPI_Irecv(rb, cap, MPI_BYTE, sender, T_DATA, MPI_COMM_WORLD, &rr));
        if (mode == 4)
            MPI_CHECK(MPI_Irecv(rb, cap, MPI_BYTE, sender, T_DATA, MPI_COMM_WORLD, &rrs[1]));
        if (before && !self)
            MPI_CHECK(MPI_Send(&one, 1, MPI_INT, sender, T_READY, MPI_COMM_WORLD));
    }
    if (rank == sender) {
        if (before && !self)
            MPI_CHECK(MPI_Recv(&one, 1, MPI_INT, receiver, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (mode == 4)
            MPI_CHECK(MPI_Isend(&okout, 1, MPI_INT, receiver, T_DATA, MPI_COMM_WORLD, &ok_sr));
        MPI_CHECK(MPI_Isend(sbuf, n, MPI_BYTE, receiver, T_DATA, MPI_COMM_WORLD, &sr));
        if (!before && !self)
            MPI_CHECK(MPI_Send(&one, 1, MPI_INT, receiver, T_SENT, MPI_COMM_WORLD));
    }
    if (rank == receiver) {
        if (!before && !self)
            MPI_CHECK(MPI_Recv(&one, 1, MPI_INT, sender, T_SENT, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        switch (mode) {
        case 0:
        case 1:
        case 6:
            rc =
                MPI_Recv(rb, cap, MPI_BYTE, mode == 6 ? MPI_ANY_SOURCE : sender, T_DATA, MPI_COMM_WORLD, &st);
            CHECK(err_class(rc) == MPI_ERR_TRUNCATE,
                  "%s: MPI_Recv returned class %d, expected MPI_ERR_TRUNCATE", what, err_class(rc));
            break;
        case 3:
            MPI_CHECK(MPI_Irecv(rb, cap, MPI_BYTE, sender, T_DATA, MPI_COMM_WORLD, &rr));
            /* fall through */
        case 2:
            rc = MPI_Wait(&rr, &st);
            CHECK(err_class(rc) == MPI_ERR_TRUNCATE,
                  "%s: MPI_Wait returned class %d, expected MPI_ERR_TRUNCATE", what, err_class(rc));
            break;
        case 5: {
            int flag = 0;
            do
                rc = MPI_Test(&rr, &flag, &st);
            while (rc == MPI_SUCCESS && !flag);
            CHECK(err_class(rc) == MPI_ERR_TRUNCATE,
                  "%s: MPI_Test returned class %d, expected MPI_ERR_TRUNCATE", what, err_class(rc));
            break;
        }
        case 4: {
            MPI_Status sts[2];
            rc = MPI_Waitall(2, rrs, sts);
            CHECK(rc == MPI_ERR_IN_STATUS || err_class(rc) == MPI_ERR_IN_STATUS,
                  "%s: MPI_Waitall returned %d (class %d), expected MPI_ERR_IN_STATUS", what, rc,
                  err_class(rc));
            if (sts[0].MPI_ERROR == MPI_ERR_PENDING) /* legal: not yet complete */
                MPI_CHECK(MPI_Wait(&rrs[0], &sts[0]));
            else
                CHECK(sts[0].MPI_ERROR == MPI_SUCCESS,
                      "%s: Waitall status[0].MPI_ERROR %d, expected MPI_SUCCESS", what, sts[0].MPI_ERROR);
            CHECK(okv == 77, "%s: the good message of the Waitall is %d", what, okv);
            CHECK(err_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                  "%s: Waitall status[1].MPI_ERROR class %d, expected MPI_ERR_TRUNCATE", what,
                  err_class(sts[1].MPI_ERROR));
            break;
        }
        }
        check_guards(cap, what);
    }
    if (rank == sender) {
        /* the send side completes normally */
        MPI_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        MPI_CHECK(MPI_Wait(&ok_sr, MPI_STATUS_IGNORE));
    }
    /* the pair still works: a normal message of the same size, same tag */
    if (rank == sender && !self) {
        for (int i = 0; i < n; i++)
            sbuf[i] = val(rank, n + 1, i);
        MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, receiver, T_AFTER, MPI_COMM_WORLD));
    }
    if (rank == receiver) {
        unsigned char *b = prep_area(n);
        if (self) {
            for (int i = 0; i < n; i++)
                sbuf[i] = val(rank, n + 1, i);
            MPI_CHECK(MPI_Sendrecv(sbuf, n, MPI_BYTE, rank, T_AFTER, b, n, MPI_BYTE, rank, T_AFTER,
                                   MPI_COMM_WORLD, &st));
        } else {
            MPI_CHECK(MPI_Recv(b, n, MPI_BYTE, sender, T_AFTER, MPI_COMM_WORLD, &st));
        }
        for (int i = 0; i < n; i++)
            if (b[i] != val(sender, n + 1, i))
                FAIL("%s: the message after the truncation is wrong at byte %d", what, i);
        check_guards(n, "message after truncation");
    }
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int big = 1 << 20;
    sbuf = malloc(big);
    area = malloc(big + 2 * GUARD);
    CHECK(sbuf && area, "out of memory");

    static const int cases[][2] = {{100, 64}, {9, 1}, {1, 0}, {big, big - 1000}, {big, 4096}, {big, 16}};
    int peer = rank ^ 1;
    for (int swap = 0; swap < 2; swap++) {
        int s, r;
        if (peer >= size) {
            s = r = rank;
        } else {
            s = (rank & ~1) + swap;
            r = (rank & ~1) + 1 - swap;
        }
        for (int c = 0; c < 6; c++)
            for (int mode = 0; mode < 7; mode++)
                run_case(s, r, cases[c][0], cases[c][1], mode);
    }
    free(sbuf);
    free(area);
    MPI_CHECK(MPI_Finalize());
    return 0;
}
