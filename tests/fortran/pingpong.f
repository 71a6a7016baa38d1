! tests/fortran/pingpong.f: point-to-point from Fortran. Ranks pair up
! (0-1, 2-3, ...; an odd last rank only checks PROC_NULL) and bounce
! DOUBLE PRECISION arrays of growing size (eager and rendezvous paths)
! with Send/Recv, Isend/Irecv/Wait, Ssend and Sendrecv. Prints PASS.
      program pingpong
      implicit none
      include 'mpif.h'
      integer nmax
      parameter (nmax=40000)
      double precision a(nmax), b(nmax)
      integer rank, nprocs, peer, ierr, n, i, it, req(2)
      integer status(MPI_STATUS_SIZE)
      logical ok

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
      if (mod(rank, 2) .eq. 0) then
         peer = rank + 1
      else
         peer = rank - 1
      endif
      if (peer .ge. nprocs) peer = MPI_PROC_NULL

      n = 1
      do while (n .le. nmax)
         do it = 1, 4
            do i = 1, n
               a(i) = dble(rank) * 1.0d6 + dble(i) + 0.5d0 * it
               b(i) = -1.0d0
            enddo
            if (peer .eq. MPI_PROC_NULL) then
               call mpi_recv(b, n, MPI_DOUBLE_PRECISION, peer, 3,
     &              MPI_COMM_WORLD, status, ierr)
               call check(status(MPI_SOURCE) .eq. MPI_PROC_NULL,
     &              'PROC_NULL source')
               call check(status(MPI_TAG) .eq. MPI_ANY_TAG,
     &              'PROC_NULL tag')
               goto 10
            endif
            if (it .eq. 1) then
c              blocking, lower rank sends first
               if (rank .lt. peer) then
                  call mpi_send(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, ierr)
                  call mpi_recv(b, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, status, ierr)
               else
                  call mpi_recv(b, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, status, ierr)
                  call mpi_send(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, ierr)
               endif
            else if (it .eq. 2) then
               call mpi_irecv(b, n, MPI_DOUBLE_PRECISION, peer, it,
     &              MPI_COMM_WORLD, req(1), ierr)
               call mpi_isend(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &              MPI_COMM_WORLD, req(2), ierr)
               call mpi_wait(req(2), MPI_STATUS_IGNORE, ierr)
               call check(req(2) .eq. MPI_REQUEST_NULL, 'req freed')
               call mpi_wait(req(1), status, ierr)
            else if (it .eq. 3) then
               if (rank .lt. peer) then
                  call mpi_ssend(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, ierr)
                  call mpi_recv(b, n, MPI_DOUBLE_PRECISION,
     &                 MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &                 status, ierr)
               else
                  call mpi_recv(b, n, MPI_DOUBLE_PRECISION,
     &                 MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &                 status, ierr)
                  call mpi_ssend(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &                 MPI_COMM_WORLD, ierr)
               endif
            else
               call mpi_sendrecv(a, n, MPI_DOUBLE_PRECISION, peer, it,
     &              b, n, MPI_DOUBLE_PRECISION, peer, it,
     &              MPI_COMM_WORLD, status, ierr)
            endif
            call check(ierr .eq. MPI_SUCCESS, 'ierr')
            call check(status(MPI_SOURCE) .eq. peer, 'status source')
            call check(status(MPI_TAG) .eq. it, 'status tag')
            ok = .true.
            do i = 1, n
               if (b(i) .ne. dble(peer) * 1.0d6 + dble(i) + 0.5d0 * it)
     &              ok = .false.
            enddo
            call check(ok, 'payload')
 10         continue
         enddo
         n = n * 3
      enddo

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
         write (0, '(A,A)') 'FAIL pingpong: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
