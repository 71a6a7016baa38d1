/*
 * mpi/fortran/f_coll.c: Fortran 77 bindings of the collective operations and
 * of user-defined reduction ops. Every buffer goes through mf_buf so that
 * MPI_IN_PLACE and MPI_BOTTOM from mpif.h reach the C library as its own
 * sentinels. Count and displacement arrays are INTEGER arrays, used as they
 * are.
 */
#include "mpi/fortran/fortran.h"

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Barrier(*comm);
}

void mpi_bcast_(void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,
                MPI_Fint *ierr)
{
    *ierr = MPI_Bcast(mf_buf(buffer), *count, *datatype, *root, *comm);
}

void mpi_reduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *root, *comm);
}

void mpi_allreduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                    MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allreduce(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm);
}

void mpi_reduce_scatter_block_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype,
                               MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter_block(mf_buf(sendbuf), mf_buf(recvbuf), *recvcount, *datatype, *op, *comm);
}

void mpi_reduce_scatter_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype,
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter(mf_buf(sendbuf), mf_buf(recvbuf), recvcounts, *datatype, *op, *comm);
}

void mpi_scan_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
               MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Scan(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm);
}

void mpi_exscan_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                 MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Exscan(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm);
}

void mpi_reduce_local_(const void *inbuf, void *inoutbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                       MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_local(mf_buf(inbuf), mf_buf(inoutbuf), *count, *datatype, *op);
}

void mpi_scatter_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                  MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Scatter(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype, *root,
                        *comm);
}

void mpi_scatterv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
                   void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                   MPI_Fint *ierr)
{
    *ierr = MPI_Scatterv(mf_buf(sendbuf), sendcounts, displs, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                         *root, *comm);
}

void mpi_gather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Gather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype, *root,
                       *comm);
}

void mpi_gatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                  MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                  MPI_Fint *ierr)
{
    *ierr = MPI_Gatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs, *recvtype,
                        *root, *comm);
}

void mpi_allgather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allgather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                          *comm);
}

void mpi_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allgatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs,
                           *recvtype, *comm);
}

void mpi_alltoall_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                   MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoall(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                         *comm);
}

void mpi_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                    void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                    MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallv(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf), recvcounts,
                          rdispls, *recvtype, *comm);
}

/* ---- user-defined ops ----
 * A Fortran user function SUBROUTINE F(INVEC, INOUTVEC, LEN, TYPE) receives
 * every argument by reference, which is exactly MPI_User_function's C
 * signature, so the library calls it directly. */

void mpi_op_create_(MPI_User_function *function, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op o = MPI_OP_NULL;
    *ierr = MPI_Op_create(function, *commute != 0, &o);
    *op = o;
}

void mpi_op_free_(MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op o = *op;
    *ierr = MPI_Op_free(&o);
    *op = o;
}

void mpi_op_commutative_(MPI_Fint *op, MPI_Fint *commute, MPI_Fint *ierr)
{
    int c = 0;
    *ierr = MPI_Op_commutative(*op, &c);
    *commute = mf_logical(c);
}

/* ---- nonblocking collectives (request: an INTEGER handle, as in C) ---- */

void mpi_ibarrier_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ibarrier(*comm, request);
}

void mpi_ibcast_(void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,
                 MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ibcast(mf_buf(buffer), *count, *datatype, *root, *comm, request);
}

void mpi_ireduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ireduce(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *root, *comm, request);
}

void mpi_iallreduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iallreduce(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, request);
}

void mpi_iscatter_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                   MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                   MPI_Fint *ierr)
{
    *ierr = MPI_Iscatter(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype, *root,
                         *comm, request);
}

void mpi_iscatterv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
                    void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                    MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iscatterv(mf_buf(sendbuf), sendcounts, displs, *sendtype, mf_buf(recvbuf), *recvcount,
                          *recvtype, *root, *comm, request);
}

void mpi_igather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                  MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                  MPI_Fint *ierr)
{
    *ierr = MPI_Igather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype, *root,
                        *comm, request);
}

void mpi_igatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                   MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                   MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Igatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs,
                         *recvtype, *root, *comm, request);
}

void mpi_iallgather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iallgather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                           *comm, request);
}

void mpi_iallgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                      MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                      MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iallgatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs,
                            *recvtype, *comm, request);
}

void mpi_ialltoall_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ialltoall(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                          *comm, request);
}

/* MPI_Datatype and MPI_Fint are both int: the type arrays pass as they are */
void mpi_alltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
                    void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                    MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallw(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf), recvcounts, rdispls,
                          recvtypes, *comm);
}

void mpi_ialltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
                     void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ialltoallw(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf), recvcounts, rdispls,
                           recvtypes, *comm, request);
}

void mpi_ialltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                     void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ialltoallv(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf), recvcounts,
                           rdispls, *recvtype, *comm, request);
}

void mpi_ireduce_scatter_block_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype,
                                MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ireduce_scatter_block(mf_buf(sendbuf), mf_buf(recvbuf), *recvcount, *datatype, *op, *comm,
                                      request);
}

void mpi_ireduce_scatter_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype,
                          MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ireduce_scatter(mf_buf(sendbuf), mf_buf(recvbuf), recvcounts, *datatype, *op, *comm, request);
}

void mpi_iscan_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iscan(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, request);
}

void mpi_iexscan_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                  MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Iexscan(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, request);
}
