! tests/fortran/newcalls.f: MPI_ISENDRECV and MPI_ISENDRECV_REPLACE around
! the ring, MPI_COMM_IDUP (an MPI_ALLREDUCE on the dup), MPI_ALLTOALLW and
! MPI_IALLTOALLW with MPI_INTEGER blocks and byte displacements, and the
! MPI_INFO_ENV constant. Prints PASS.
      program newcalls
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, i, right, left, x, y, req, dup, s
      integer sc(64), sd(64), st(64), rc(64), rd(64), rt(64)
      integer sa(64), ra(64), nk
      integer status(MPI_STATUS_SIZE)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      right = mod(rank + 1, p)
      left = mod(rank + p - 1, p)
      x = 100 + rank
      y = -1
      call mpi_isendrecv(x, 1, MPI_INTEGER, right, 7, y, 1,
     &     MPI_INTEGER, left, 7, MPI_COMM_WORLD, req, ierr)
      call mpi_wait(req, status, ierr)
      if (y .ne. 100 + left) call fail('isendrecv', y)
      if (status(MPI_SOURCE) .ne. left) call fail('source',
     &     status(MPI_SOURCE))
      call mpi_isendrecv_replace(x, 1, MPI_INTEGER, right, 8, left, 8,
     &     MPI_COMM_WORLD, req, ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      if (x .ne. 100 + left) call fail('isendrecv_replace', x)

      call mpi_comm_idup(MPI_COMM_WORLD, dup, req, ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call mpi_allreduce(1, s, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
      if (s .ne. p) call fail('allreduce on the idup', s)
      call mpi_comm_free(dup, ierr)

      do i = 1, p
         sc(i) = 1
         rc(i) = 1
         st(i) = MPI_INTEGER
         rt(i) = MPI_INTEGER
         sd(i) = 4 * (i - 1)
         rd(i) = 4 * (p - i)
         sa(i) = 1000 * rank + i - 1
         ra(i) = -1
      enddo
      call mpi_alltoallw(sa, sc, sd, st, ra, rc, rd, rt,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, p
         if (ra(p - i + 1) .ne. 1000 * (i - 1) + rank)
     &        call fail('alltoallw', ra(p - i + 1))
         ra(p - i + 1) = -1
      enddo
      call mpi_ialltoallw(sa, sc, sd, st, ra, rc, rd, rt,
     &     MPI_COMM_WORLD, req, ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      do i = 1, p
         if (ra(p - i + 1) .ne. 1000 * (i - 1) + rank)
     &        call fail('ialltoallw', ra(p - i + 1))
      enddo
      call mpi_info_get_nkeys(MPI_INFO_ENV, nk, ierr)
      if (ierr .ne. MPI_SUCCESS) call fail('MPI_INFO_ENV', ierr)
      call mpi_finalize(ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      end

      subroutine fail(what, v)
      implicit none
      include 'mpif.h'
      character*(*) what
      integer v, ierr
      write (0, '(A,A,A,I12)') 'FAIL newcalls: ', what, ' value ', v
      call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      end
