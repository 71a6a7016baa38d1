! tests/fortran/hello.f90: mpif.h included from free-form Fortran 90:
! rank, size, an in-place Allreduce, Wtime, a processor name. Prints PASS.
program hello
  implicit none
  include 'mpif.h'
  integer :: rank, nprocs, ierr, total, namelen
  double precision :: t
  character(len=MPI_MAX_PROCESSOR_NAME) :: host

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  total = rank + 1
  call mpi_allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= nprocs * (nprocs + 1) / 2) then
    write (0, '(A,I0)') 'FAIL hello: in-place Allreduce gave ', total
    call mpi_abort(MPI_COMM_WORLD, 1, ierr)
  end if
  t = mpi_wtime()
  call mpi_get_processor_name(host, namelen, ierr)
  if (namelen < 1 .or. t <= 0.0d0) then
    write (0, '(A)') 'FAIL hello: processor name or Wtime'
    call mpi_abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print '(A)', 'PASS'
  call mpi_finalize(ierr)
end program hello
