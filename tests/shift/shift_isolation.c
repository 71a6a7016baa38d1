/*
 * tests/shift/shift_isolation.c: MPIX_Shift's messages never match user
 * receives on the same communicator. Every rank posts an ANY_SOURCE /
 * ANY_TAG receive on the Cartesian communicator, runs the Shift in each
 * variant (d = 1 and 2, every slot checked against its origin), and only
 * then sends the user message that receive is for: the receive must get
 * that message (tag 7, the left neighbour's value), not a Shift block.
 * Before the Shift used the communicator's collective context, the pending
 * receive took the first Shift block that arrived (the test then hangs in
 * the Shift and ends by the runner's timeout).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int wrank, failures;

#define EXPECT(cond, ...)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL shift_isolation (rank %d, line %d): ", wrank, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int size, dims[3] = {0, 0, 0}, per[3] = {1, 1, 1}, tot = 0;
    MPI_Comm cart;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &cart);

    for (int d = 1; d <= 2; d++) {
        int w = 2 * d + 1, nslots = w * w * w;
        int *rbuf = malloc(sizeof(int) * (size_t)nslots);
        for (int v = 0; v < 3; v++) {
            static const int variants[3] = {MPIX_SHIFT_SSEND, MPIX_SHIFT_SEND, MPIX_SHIFT_NONBLOCKING};
            int u = -1, mine = 100 * wrank + 10 * d + v;
            MPI_Request req;
            MPI_Status st;

            for (int i = 0; i < nslots; i++)
                rbuf[i] = -1;
            MPI_Irecv(&u, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, cart, &req);
            EXPECT(MPIX_Shift(&mine, 1, MPI_INT, rbuf, d, variants[v], cart) == MPI_SUCCESS,
                   "MPIX_Shift failed");
            for (int dz = -d; dz <= d; dz++)
                for (int dy = -d; dy <= d; dy++)
                    for (int dx = -d; dx <= d; dx++) {
                        int src, slot = MPIX_Shift_slot(d, dx, dy, dz);
                        MPIX_Shift_source(cart, dx, dy, dz, &src);
                        EXPECT(rbuf[slot] == 100 * src + 10 * d + v,
                               "d=%d variant %d slot (%d,%d,%d): %d, want %d", d, v, dx, dy, dz, rbuf[slot],
                               100 * src + 10 * d + v);
                    }
            /* now the user message the ANY_TAG receive was posted for */
            int val = 1000 + wrank, to = (wrank + 1) % size, from = (wrank + size - 1) % size;
            MPI_Send(&val, 1, MPI_INT, to, 7, cart);
            MPI_Wait(&req, &st);
            EXPECT(st.MPI_TAG == 7 && st.MPI_SOURCE == from && u == 1000 + from,
                   "d=%d variant %d: the ANY_TAG receive got tag %d from %d value %d, want tag 7 from %d "
                   "value %d",
                   d, v, st.MPI_TAG, st.MPI_SOURCE, u, from, 1000 + from);
            MPI_Barrier(cart);
        }
        free(rbuf);
    }
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("shift_isolation: %s\n", tot ? "FAILED" : "ok");
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return tot ? 1 : 0;
}
