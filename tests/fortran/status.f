! tests/fortran/status.f: status handling from Fortran. Each rank sends
! to its right neighbour in a ring and receives with wildcards:
! STATUS(MPI_SOURCE), STATUS(MPI_TAG), MPI_GET_COUNT (INTEGER, BYTE and
! MPI_UNDEFINED for a partial element), status arrays of Waitall,
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (which must stay untouched),
! Probe, Iprobe, Test, Waitany (1-based index) and MPI_PROC_NULL; the
! MPI_ERROR field, which Probe, Recv and Wait leave as the caller set
! it (MPI 3.1 3.2.5: only multiple-completion calls return it).
! Prints PASS.
      program status
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, left, right, i, n, cnt, idx, k
      integer req(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
      integer sbuf(100), rbuf(100)
      logical flag, done(2)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      right = mod(rank + 1, p)
      left = mod(rank - 1 + p, p)
      n = rank + 3
      do i = 1, 100
         sbuf(i) = rank * 1000 + i
      enddo

c     ---- A: Waitall with a status array ----
      call mpi_irecv(rbuf, 100, MPI_INTEGER, MPI_ANY_SOURCE,
     &     MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 50 + rank,
     &     MPI_COMM_WORLD, req(2), ierr)
      call mpi_waitall(2, req, sts, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Waitall ierr')
      call check(req(1) .eq. MPI_REQUEST_NULL .and.
     &     req(2) .eq. MPI_REQUEST_NULL, 'Waitall frees requests')
      call check(sts(MPI_SOURCE, 1) .eq. left, 'Waitall source')
      call check(sts(MPI_TAG, 1) .eq. 50 + left, 'Waitall tag')
      call mpi_get_count(sts(1, 1), MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. left + 3, 'Get_count INTEGER')
      call mpi_get_count(sts(1, 1), MPI_BYTE, cnt, ierr)
      call check(cnt .eq. 4 * (left + 3), 'Get_count BYTE')
      call mpi_get_count(sts(1, 1), MPI_DOUBLE_PRECISION, cnt, ierr)
      if (mod(left + 3, 2) .eq. 0) then
         call check(cnt .eq. (left + 3) / 2, 'Get_count DP')
      else
         call check(cnt .eq. MPI_UNDEFINED, 'Get_count UNDEFINED')
      endif
      do i = 1, left + 3
         call check(rbuf(i) .eq. left * 1000 + i, 'A payload')
      enddo

c     ---- B: Probe, then Recv into MPI_STATUS_IGNORE ----
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 60 + rank,
     &     MPI_COMM_WORLD, req(2), ierr)
      call mpi_probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st,
     &     ierr)
      call check(st(MPI_SOURCE) .eq. left .and.
     &     st(MPI_TAG) .eq. 60 + left, 'Probe status')
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. left + 3, 'Probe count')
      call mpi_recv(rbuf, cnt, MPI_INTEGER, st(MPI_SOURCE),
     &     st(MPI_TAG), MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Recv STATUS_IGNORE')
      call mpi_wait(req(2), MPI_STATUS_IGNORE, ierr)
      do i = 1, MPI_STATUS_SIZE
         call check(MPI_STATUS_IGNORE(i) .eq. 0,
     &        'MPI_STATUS_IGNORE written')
      enddo

c     ---- C: Iprobe and Test loops ----
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 70,
     &     MPI_COMM_WORLD, req(2), ierr)
      flag = .false.
      do while (.not. flag)
         call mpi_iprobe(left, 70, MPI_COMM_WORLD, flag, st, ierr)
      enddo
      call check(st(MPI_SOURCE) .eq. left .and. st(MPI_TAG) .eq. 70,
     &     'Iprobe status')
      call mpi_irecv(rbuf, 100, MPI_INTEGER, left, 70,
     &     MPI_COMM_WORLD, req(1), ierr)
      flag = .false.
      do while (.not. flag)
         call mpi_test(req(1), flag, st, ierr)
      enddo
      call check(req(1) .eq. MPI_REQUEST_NULL, 'Test frees request')
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. left + 3, 'Test count')
      call mpi_wait(req(2), st, ierr)

c     ---- D: Waitany, then Waitall with MPI_STATUSES_IGNORE ----
      call mpi_irecv(rbuf, 100, MPI_INTEGER, left, 80,
     &     MPI_COMM_WORLD, req(1), ierr)
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 80,
     &     MPI_COMM_WORLD, req(2), ierr)
      done(1) = .false.
      done(2) = .false.
      do k = 1, 2
         call mpi_waitany(2, req, idx, st, ierr)
         call check(idx .eq. 1 .or. idx .eq. 2, 'Waitany index')
         call check(.not. done(idx), 'Waitany twice')
         done(idx) = .true.
         call check(req(idx) .eq. MPI_REQUEST_NULL, 'Waitany frees')
         if (idx .eq. 1) call check(st(MPI_SOURCE) .eq. left,
     &        'Waitany status')
      enddo
      call mpi_waitany(2, req, idx, st, ierr)
      call check(idx .eq. MPI_UNDEFINED, 'Waitany all NULL')
      call mpi_irecv(rbuf, 100, MPI_INTEGER, left, 90,
     &     MPI_COMM_WORLD, req(1), ierr)
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 90,
     &     MPI_COMM_WORLD, req(2), ierr)
      call mpi_waitall(2, req, MPI_STATUSES_IGNORE, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Waitall STATUSES_IGNORE')
      do i = 1, MPI_STATUS_SIZE
         call check(MPI_STATUSES_IGNORE(i, 1) .eq. 0,
     &        'MPI_STATUSES_IGNORE written')
      enddo

c     ---- E: MPI_PROC_NULL ----
      call mpi_recv(rbuf, 10, MPI_INTEGER, MPI_PROC_NULL, 5,
     &     MPI_COMM_WORLD, st, ierr)
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(st(MPI_SOURCE) .eq. MPI_PROC_NULL .and.
     &     st(MPI_TAG) .eq. MPI_ANY_TAG .and. cnt .eq. 0, 'PROC_NULL')

c     ---- F: MPI_ERROR is not written by single completions ----
      st(MPI_ERROR) = -777
      call mpi_isend(sbuf, n, MPI_INTEGER, right, 95,
     &     MPI_COMM_WORLD, req(2), ierr)
      call mpi_probe(left, 95, MPI_COMM_WORLD, st, ierr)
      call check(st(MPI_ERROR) .eq. -777, 'Probe wrote MPI_ERROR')
      call mpi_recv(rbuf, 100, MPI_INTEGER, left, 95,
     &     MPI_COMM_WORLD, st, ierr)
      call check(st(MPI_ERROR) .eq. -777, 'Recv wrote MPI_ERROR')
      call mpi_wait(req(2), st, ierr)
      call check(st(MPI_ERROR) .eq. -777, 'Wait wrote MPI_ERROR')

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
         write (0, '(A,A)') 'FAIL status: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
