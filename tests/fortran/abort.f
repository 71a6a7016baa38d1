! tests/fortran/abort.f: MPI_ABORT from Fortran. Every rank first writes
! a line to standard output (abort-line-of-rank-<r>), then after a barrier
! the last rank aborts with code 7 while the others wait in a barrier; the
! manifest expects the job's exit status to be 7 and every rank's line in
! the output, which run.sh sends to a file, where gfortran buffers it: the
! aborting rank's line was lost at MPI_ABORT's exit, the others' when the
! job was ended.
      program abort
      implicit none
      include 'mpif.h'
      integer rank, p, ierr
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      write (*, '(A,I0)') 'abort-line-of-rank-', rank
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. p - 1) call mpi_abort(MPI_COMM_WORLD, 7, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      write (0, '(A)') 'FAIL abort: the barrier completed'
      call mpi_finalize(ierr)
      end
