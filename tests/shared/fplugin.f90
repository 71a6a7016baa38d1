! tests/shared/fplugin.f90: a Fortran shared object that uses MPI (built
! with `bin/mpifort -shared`), called by fprog.f90 after its MPI_Init.
! MPI_IN_PLACE is a common block of the library: the program's and the
! shared object's must be the one the library compares with.
subroutine fplugin_sum(total)
    use mpi
    implicit none
    integer, intent(out) :: total
    integer :: rank, ierr
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    total = rank
    call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) total = -1
end subroutine fplugin_sum
