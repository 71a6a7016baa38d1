! tests/fortran/p2pmore.f: the rest of point-to-point from Fortran,
! around a ring: MPI_BSEND with an attached buffer (MPI_BUFFER_ATTACH /
! DETACH, MPI_BSEND_OVERHEAD), MPI_IBSEND, MPI_ISSEND, matched probes
! (MPI_MPROBE + MPI_MRECV, MPI_IMPROBE + MPI_IMRECV), MPI_WAITSOME
! and MPI_SENDRECV_REPLACE. Prints PASS.
      program p2pmore
      implicit none
      include 'mpif.h'
      integer n
      parameter (n=100)
      integer rank, p, ierr, left, right, i, cnt, msg, req, sz
      integer sbuf(n), rbuf(n), st(MPI_STATUS_SIZE)
      integer reqs(2), idx(2), sts(MPI_STATUS_SIZE, 2), outc, ndone
      integer bsbuf(4 * (n + MPI_BSEND_OVERHEAD))
      logical flag

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      right = mod(rank + 1, p)
      left = mod(rank - 1 + p, p)
      do i = 1, n
         sbuf(i) = rank * 1000 + i
      enddo

c     ---- Bsend / Ibsend through an attached buffer ----
      call mpi_buffer_attach(bsbuf, 4 * 4 * (n + MPI_BSEND_OVERHEAD),
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Buffer_attach')
      call mpi_bsend(sbuf, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD,
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Bsend')
      call mpi_ibsend(sbuf, n / 2, MPI_INTEGER, right, 2,
     &     MPI_COMM_WORLD, req, ierr)
      call mpi_recv(rbuf, n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st,
     &     ierr)
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. n .and. rbuf(n) .eq. left * 1000 + n,
     &     'Bsend payload')
      call mpi_recv(rbuf, n, MPI_INTEGER, left, 2, MPI_COMM_WORLD, st,
     &     ierr)
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. n / 2, 'Ibsend count')
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call mpi_buffer_detach(bsbuf, sz, ierr)
      call check(ierr .eq. MPI_SUCCESS .and.
     &     sz .eq. 4 * 4 * (n + MPI_BSEND_OVERHEAD), 'Buffer_detach')

c     ---- Mprobe + Mrecv ----
      call mpi_issend(sbuf, 7, MPI_INTEGER, right, 3, MPI_COMM_WORLD,
     &     req, ierr)
      call mpi_mprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, msg, st, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. msg .ne. MPI_MESSAGE_NULL,
     &     'Mprobe')
      call check(st(MPI_SOURCE) .eq. left, 'Mprobe source')
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 7, 'Mprobe count')
      call mpi_mrecv(rbuf, cnt, MPI_INTEGER, msg, st, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. msg .eq. MPI_MESSAGE_NULL
     &     .and. rbuf(7) .eq. left * 1000 + 7, 'Mrecv')
      flag = .false.
      do while (.not. flag)
         call mpi_test(req, flag, MPI_STATUS_IGNORE, ierr)
      enddo

c     ---- Improbe + Imrecv ----
      call mpi_isend(sbuf, 5, MPI_INTEGER, right, 4, MPI_COMM_WORLD,
     &     req, ierr)
      flag = .false.
      do while (.not. flag)
         call mpi_improbe(left, 4, MPI_COMM_WORLD, flag, msg, st, ierr)
      enddo
      call mpi_imrecv(rbuf, n, MPI_INTEGER, msg, i, ierr)
      call check(msg .eq. MPI_MESSAGE_NULL, 'Imrecv handle')
      call mpi_wait(i, st, ierr)
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 5 .and. rbuf(5) .eq. left * 1000 + 5,
     &     'Imrecv')
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)

c     ---- Waitsome: 1-based indices, statuses in completion order ----
      call mpi_irecv(rbuf, n, MPI_INTEGER, left, 6, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call mpi_isend(sbuf, 3, MPI_INTEGER, right, 6, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      ndone = 0
      do while (ndone .lt. 2)
         call mpi_waitsome(2, reqs, outc, idx, sts, ierr)
         call check(outc .ge. 1 .and. outc .le. 2 - ndone,
     &        'Waitsome outcount')
         do i = 1, outc
            call check(idx(i) .eq. 1 .or. idx(i) .eq. 2,
     &           'Waitsome index')
            if (idx(i) .eq. 1) then
               call mpi_get_count(sts(1, i), MPI_INTEGER, cnt, ierr)
               call check(cnt .eq. 3 .and.
     &              sts(MPI_SOURCE, i) .eq. left, 'Waitsome status')
            endif
         enddo
         ndone = ndone + outc
      enddo
      call mpi_waitsome(2, reqs, outc, idx, sts, ierr)
      call check(outc .eq. MPI_UNDEFINED, 'Waitsome all NULL')

c     ---- Sendrecv_replace ----
      do i = 1, n
         rbuf(i) = rank
      enddo
      call mpi_sendrecv_replace(rbuf, n, MPI_INTEGER, right, 5, left,
     &     5, MPI_COMM_WORLD, st, ierr)
      call check(rbuf(1) .eq. left .and. rbuf(n) .eq. left .and.
     &     st(MPI_SOURCE) .eq. left, 'Sendrecv_replace')

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL p2pmore: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
