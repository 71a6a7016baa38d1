! tests/fortran/abort.f: MPI_ABORT from Fortran. The last rank aborts
! with code 7 while the others wait in a barrier; the manifest expects
! the job's exit status to be 7.
      program abort
      implicit none
      include 'mpif.h'
      integer rank, p, ierr
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      if (rank .eq. p - 1) call mpi_abort(MPI_COMM_WORLD, 7, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      write (0, '(A)') 'FAIL abort: the barrier completed'
      call mpi_finalize(ierr)
      end
