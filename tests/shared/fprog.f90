! tests/shared/fprog.f90: a Fortran program (use mpi_f08) that calls a
! shared object (fplugin.f90) using MPI too.
program fprog
    use mpi_f08
    implicit none
    integer :: rank, nprocs, total, mine
    external :: fplugin_sum
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    call fplugin_sum(total)
    mine = rank
    call MPI_Allreduce(MPI_IN_PLACE, mine, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    if (total /= nprocs * (nprocs - 1) / 2 .or. mine /= nprocs - 1) then
        print *, 'fprog: rank', rank, 'got', total, mine
        call MPI_Abort(MPI_COMM_WORLD, 3)
    end if
    if (rank == 0) print '(a,i0,a)', 'fprog: ok ', nprocs, ' ranks'
    call MPI_Finalize()
end program fprog
