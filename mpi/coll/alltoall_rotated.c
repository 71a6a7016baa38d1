/*
 * mpi/coll/alltoall_rotated.c: MPI_Alltoall by rotated direct exchange
 * (the order of LAM 7.0.4 and MPICH 1.2.5).
 *
 * Algorithm:
 *   Copy the own block locally; rank r posts its receives from r - 1,
 *   r - 2, .., r - (P-1) and its sends to r + 1, r + 2, .., r + (P-1) (mod
 *   P), all at once, then waits for all. Because each rank starts with a
 *   different destination, the i-th messages of all ranks go to P distinct
 *   receivers: no receiver is the target of everyone at the same moment.
 *   The posting code is shared with alltoall_direct.c.
 *
 * Cost (pLogP: L, g, o_s, o_r; P ranks, m bytes per block, c the fitted
 * contention ratio in [0, 1], the network's "signature" in the seed):
 *   lower = (P - 1) (o_s(m) + o_r(m)) + L    sends overlap fully
 *   upper = (P - 1) g(m) + L                 the link serialises them
 *   T = max(lower + c (upper - lower), X(m)) + gamma m
 *   X(m) one exchange step (every rank sends and receives at once; P = 2
 *   is exactly one), gamma m the own block's copy, done while the
 *   messages travel (alltoall_direct.c).
 *
 * Limits:
 *   Any P. sendbuf is never MPI_IN_PLACE here (coll_more.c copies the input
 *   aside first). 2 (P - 1) requests in flight (one allocation).
 */
#include "coll_more.h"

int mpii_alltoall_rotated(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    return mpii_alltoall_post_all(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 1);
}
