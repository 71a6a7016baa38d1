! tests/fortran/nbc.f: the nonblocking collectives from Fortran:
! MPI_IALLREDUCE (and with MPI_IN_PLACE), MPI_IBCAST from the last rank,
! MPI_IALLTOALL, all three in flight and completed by one MPI_WAITALL,
! then MPI_IBARRIER completed by an MPI_TEST loop. Prints PASS.
      program nbc
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, i, q
      integer ia(4), ib(4), ic(4), bc(3)
      integer sa(64), ra(64)
      integer reqs(3), req
      logical flag

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      do i = 1, 4
         ia(i) = rank + i
         ic(i) = 10 * rank + i
      enddo
      do i = 1, 3
         bc(i) = 0
         if (rank .eq. p - 1) bc(i) = 100 + i
      enddo
      do q = 0, p - 1
         sa(q + 1) = 1000 * rank + q
      enddo
      call mpi_iallreduce(ia, ib, 4, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      call mpi_ibcast(bc, 3, MPI_INTEGER, p - 1, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      call mpi_ialltoall(sa, 1, MPI_INTEGER, ra, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, reqs(3), ierr)
      call mpi_waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
      if (ierr .ne. MPI_SUCCESS) call fail('waitall', ierr)
      do i = 1, 4
         if (ib(i) .ne. p * (p - 1) / 2 + p * i)
     &        call fail('iallreduce', ib(i))
      enddo
      do i = 1, 3
         if (bc(i) .ne. 100 + i) call fail('ibcast', bc(i))
      enddo
      do q = 0, p - 1
         if (ra(q + 1) .ne. 1000 * q + rank)
     &        call fail('ialltoall', ra(q + 1))
      enddo
      do i = 1, 3
         if (reqs(i) .ne. MPI_REQUEST_NULL) call fail('request', i)
      enddo
      call mpi_iallreduce(MPI_IN_PLACE, ic, 4, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, req, ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      do i = 1, 4
         if (ic(i) .ne. 10 * (p - 1) + i)
     &        call fail('iallreduce in place', ic(i))
      enddo
      call mpi_ibarrier(MPI_COMM_WORLD, req, ierr)
      flag = .false.
      do while (.not. flag)
         call mpi_test(req, flag, MPI_STATUS_IGNORE, ierr)
      enddo
      call mpi_finalize(ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      end

      subroutine fail(what, v)
      implicit none
      include 'mpif.h'
      character*(*) what
      integer v, ierr
      write (0, '(A,A,A,I12)') 'FAIL nbc: ', what, ' value ', v
      call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      end
