! tests/fortran/win.f: one-sided communication from Fortran. A window
! over an INTEGER array (MPI_WIN_CREATE): its attributes (MPI_WIN_BASE
! is the array's address, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
! MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL), fence epochs with MPI_PUT to
! the right neighbour, MPI_GET from it and MPI_ACCUMULATE (MPI_SUM)
! into rank 0; an exclusive MPI_WIN_LOCK protecting a read-modify-write
! counter (MPI_GET, MPI_WIN_FLUSH, MPI_PUT); MPI_FETCH_AND_OP under a
! shared lock; MPI_RGET under MPI_WIN_LOCK_ALL; a window error handler
! written in Fortran, the window's name and group; a window keyval with
! a Fortran delete callback and the predefined MPI_WIN_NULL_COPY_FN,
! MPI_WIN_DUP_FN and MPI_WIN_NULL_DELETE_FN; MPI_WIN_FREE. Then
! MPI_WIN_ALLOCATE: BASEPTR (an INTEGER(KIND=MPI_ADDRESS_KIND)) used
! through C_F_POINTER, equal to MPI_WIN_BASE, and the other attributes.
! Window memory and RMA result buffers are VOLATILE (MPI 3.1 17.1.16),
! so that no value is kept in a register across a synchronization call.
! Prints PASS.
      program win
      use, intrinsic :: iso_c_binding
      implicit none
      include 'mpif.h'
      integer ierr, rank, np, right, left, isz, w, w2, i, k, n
      integer ival, one, req, eh, eh2, grp, gsize, kv, kv2, rlen
      integer buf(0:9), gval, gval2, old
      volatile buf, gval, gval2, old
      integer olds(0:63)
      integer (kind=MPI_ADDRESS_KIND) disp, val, addr, baseptr, big
      integer (kind=MPI_ADDRESS_KIND) extra, extra0
      character*(MPI_MAX_OBJECT_NAME) wname
      logical flag
      type(c_ptr) cp
      integer, pointer :: arr(:)
      integer ehwin, ehcode, ehcalls
      common /ehc/ ehwin, ehcode, ehcalls
      integer ndel
      integer (kind=MPI_ADDRESS_KIND) lastdel
      common /delc/ lastdel, ndel
      external myeh, mydel

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
      call check(np .le. 64, 'at most 64 ranks')
      right = mod(rank + 1, np)
      left = mod(rank + np - 1, np)
      call mpi_type_size(MPI_INTEGER, isz, ierr)
      ehcalls = 0
      ndel = 0
      big = 2_MPI_ADDRESS_KIND**40 + 3

c     buf(0): put target, buf(1): get source, buf(2): accumulate
c     target, buf(3): lock counter, buf(4): fetch-and-op counter
      do i = 0, 9
         buf(i) = 0
      end do
      buf(0) = -1
      buf(1) = 100 + rank
      val = 10 * isz
      call mpi_win_create(buf, val, isz, MPI_INFO_NULL,
     &     MPI_COMM_WORLD, w, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. w .ne. MPI_WIN_NULL,
     &     'Win_create')

c     ---- attributes ----
      call mpi_get_address(buf, addr, ierr)
      call mpi_win_get_attr(w, MPI_WIN_BASE, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. flag .and. val .eq. addr,
     &     'MPI_WIN_BASE is the address of the array')
      call mpi_win_get_attr(w, MPI_WIN_SIZE, val, flag, ierr)
      call check(flag .and. val .eq. 10 * isz, 'MPI_WIN_SIZE')
      call mpi_win_get_attr(w, MPI_WIN_DISP_UNIT, val, flag, ierr)
      call check(flag .and. val .eq. isz, 'MPI_WIN_DISP_UNIT')
      call mpi_win_get_attr(w, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
      call check(flag .and. val .eq. MPI_WIN_FLAVOR_CREATE,
     &     'MPI_WIN_CREATE_FLAVOR')
      call mpi_win_get_attr(w, MPI_WIN_MODEL, val, flag, ierr)
      call check(flag .and. (val .eq. MPI_WIN_SEPARATE .or.
     &     val .eq. MPI_WIN_UNIFIED), 'MPI_WIN_MODEL')

c     ---- fence: put to the right neighbour ----
      call mpi_win_fence(MPI_MODE_NOPRECEDE, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_fence')
      ival = 1000 + rank
      disp = 0
      call mpi_put(ival, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Put')
      call mpi_win_fence(0, w, ierr)
      call check(buf(0) .eq. 1000 + left, 'Put from the left')

c     ---- get from the right neighbour ----
      gval = -1
      disp = 1
      call mpi_get(gval, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Get')
      call mpi_win_fence(0, w, ierr)
      call check(gval .eq. 100 + right, 'Get from the right')

c     ---- accumulate into rank 0 ----
      ival = rank + 1
      disp = 2
      call mpi_accumulate(ival, 1, MPI_INTEGER, 0, disp, 1,
     &     MPI_INTEGER, MPI_SUM, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Accumulate')
      call mpi_win_fence(MPI_MODE_NOSUCCEED, w, ierr)
      if (rank .eq. 0) then
         call check(buf(2) .eq. np * (np + 1) / 2, 'Accumulate MPI_SUM')
      end if

c     ---- exclusive lock: a read-modify-write counter on rank 0 ----
      call mpi_win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_lock exclusive')
      disp = 3
      gval = -1
      call mpi_get(gval, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, w,
     &     ierr)
      call mpi_win_flush(0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. gval .ge. 0 .and.
     &     gval .lt. np, 'Get and Win_flush under the lock')
      ival = gval + 1
      call mpi_put(ival, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, w,
     &     ierr)
      call mpi_win_unlock(0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_unlock')

c     ---- fetch and op under a shared lock ----
      one = 1
      old = -1
      disp = 4
      call mpi_win_lock(MPI_LOCK_SHARED, 0, 0, w, ierr)
      call mpi_fetch_and_op(one, old, MPI_INTEGER, 0, disp, MPI_SUM,
     &     w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Fetch_and_op')
      call mpi_win_unlock(0, w, ierr)
      ival = old
      call mpi_allgather(ival, 1, MPI_INTEGER, olds, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      do i = 0, np - 1
         call check(olds(i) .ge. 0 .and. olds(i) .lt. np,
     &        'Fetch_and_op: old value in range')
         do k = 0, i - 1
            call check(olds(i) .ne. olds(k),
     &           'Fetch_and_op: old values distinct')
         end do
      end do
c     everybody's operations are done: both counters are np
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      gval = -1
      gval2 = -1
      call mpi_win_lock(MPI_LOCK_SHARED, 0, 0, w, ierr)
      disp = 3
      call mpi_get(gval, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, w,
     &     ierr)
      disp = 4
      call mpi_get(gval2, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, w,
     &     ierr)
      call mpi_win_unlock(0, w, ierr)
      call check(gval .eq. np, 'counter under the exclusive lock')
      call check(gval2 .eq. np, 'Fetch_and_op counter')

c     ---- request-based get under lock_all ----
      call mpi_win_lock_all(0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_lock_all')
      gval = -1
      disp = 1
      call mpi_rget(gval, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, req, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Rget')
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call check(req .eq. MPI_REQUEST_NULL .and. gval .eq. 100 + right,
     &     'Rget from the right')
      call mpi_win_unlock_all(w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_unlock_all')

c     ---- error handler written in Fortran ----
      call mpi_win_create_errhandler(myeh, eh, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_create_errhandler')
      call mpi_win_set_errhandler(w, eh, ierr)
      call mpi_win_call_errhandler(w, MPI_ERR_OTHER, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. ehcalls .eq. 1 .and.
     &     ehwin .eq. w .and. ehcode .eq. MPI_ERR_OTHER,
     &     'Fortran window error handler called')
      call mpi_win_get_errhandler(w, eh2, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. eh2 .eq. eh,
     &     'Win_get_errhandler')
      call mpi_errhandler_free(eh2, ierr)
      call mpi_win_set_errhandler(w, MPI_ERRORS_ARE_FATAL, ierr)
      call mpi_errhandler_free(eh, ierr)

c     ---- name and group ----
      call mpi_win_set_name(w, 'fortran window', ierr)
      call mpi_win_get_name(w, wname, rlen, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. rlen .eq. 14 .and.
     &     wname .eq. 'fortran window', 'Win_get_name')
      call mpi_win_get_group(w, grp, ierr)
      call mpi_group_size(grp, gsize, ierr)
      call check(gsize .eq. np, 'Win_get_group')
      call mpi_group_free(grp, ierr)

c     ---- keyvals ----
c     (EXTRA_STATE is left alone afterwards: MPICH passes the callback
c     the variable itself, not the value it had at the creation)
      extra = 42
      call mpi_win_create_keyval(MPI_WIN_NULL_COPY_FN, mydel, kv,
     &     extra, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_create_keyval')
      call mpi_win_get_attr(w, kv, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. .not. flag, 'unset')
      call mpi_win_set_attr(w, kv, big, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_set_attr')
      call mpi_win_get_attr(w, kv, val, flag, ierr)
      call check(flag .and. val .eq. big, 'Win_get_attr 2**40 + 3')
      extra0 = 0
      call mpi_win_create_keyval(MPI_WIN_DUP_FN,
     &     MPI_WIN_NULL_DELETE_FN, kv2, extra0, ierr)
      call mpi_win_set_attr(w, kv2, -big, ierr)
      call mpi_win_get_attr(w, kv2, val, flag, ierr)
      call check(flag .and. val .eq. -big, 'MPI_WIN_DUP_FN keyval')
      call mpi_win_delete_attr(w, kv2, ierr)
      call mpi_win_get_attr(w, kv2, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. .not. flag,
     &     'Win_delete_attr')
      call mpi_win_free_keyval(kv2, ierr)
      call check(kv2 .eq. MPI_KEYVAL_INVALID, 'Win_free_keyval')

c     ---- free: the delete callback runs ----
      call mpi_win_free(w, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. w .eq. MPI_WIN_NULL,
     &     'Win_free')
      call check(ndel .eq. 1 .and. lastdel .eq. big,
     &     'delete callback on Win_free')
      call mpi_win_free_keyval(kv, ierr)

c     ---- MPI_WIN_ALLOCATE ----
      n = 4
      val = n * isz
      call mpi_win_allocate(val, isz, MPI_INFO_NULL, MPI_COMM_WORLD,
     &     baseptr, w2, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. w2 .ne. MPI_WIN_NULL,
     &     'Win_allocate')
      cp = transfer(baseptr, cp)
      call c_f_pointer(cp, arr, (/ n /))
      call setarr(arr, n, -1)
      call mpi_win_get_attr(w2, MPI_WIN_BASE, val, flag, ierr)
      call check(flag .and. val .eq. baseptr, 'allocate: MPI_WIN_BASE')
      call mpi_win_get_attr(w2, MPI_WIN_SIZE, val, flag, ierr)
      call check(flag .and. val .eq. n * isz, 'allocate: MPI_WIN_SIZE')
      call mpi_win_get_attr(w2, MPI_WIN_DISP_UNIT, val, flag, ierr)
      call check(flag .and. val .eq. isz, 'allocate: MPI_WIN_DISP_UNIT')
      call mpi_win_get_attr(w2, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
      call check(flag .and. val .eq. MPI_WIN_FLAVOR_ALLOCATE,
     &     'allocate: MPI_WIN_CREATE_FLAVOR')
      call mpi_win_fence(0, w2, ierr)
      ival = 2000 + rank
      disp = n - 1
      call mpi_put(ival, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w2, ierr)
      call mpi_win_fence(0, w2, ierr)
      call chkarr(arr, n, 2000 + left)
      call mpi_win_free(w2, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. w2 .eq. MPI_WIN_NULL,
     &     'allocate: Win_free')

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine setarr(a, n, v)
      implicit none
      integer n, v, a(n), i
      do i = 1, n
         a(i) = v
      end do
      end

c     a(n) was put by the left neighbour, the others are untouched
      subroutine chkarr(a, n, v)
      implicit none
      integer n, v, a(n), i
      do i = 1, n - 1
         call check(a(i) .eq. -1, 'allocate: untouched')
      end do
      call check(a(n) .eq. v, 'allocate: Put from the left')
      end

      subroutine myeh(win, code)
      implicit none
      integer win, code
      integer ehwin, ehcode, ehcalls
      common /ehc/ ehwin, ehcode, ehcalls
      ehwin = win
      ehcode = code
      ehcalls = ehcalls + 1
      end

      subroutine mydel(win, keyval, val, extra, ierr)
      implicit none
      include 'mpif.h'
      integer win, keyval, ierr
      integer (kind=MPI_ADDRESS_KIND) val, extra
      integer ndel
      integer (kind=MPI_ADDRESS_KIND) lastdel
      common /delc/ lastdel, ndel
      call check(extra .eq. 42, 'delete: extra state')
      ndel = ndel + 1
      lastdel = val
      ierr = MPI_SUCCESS
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL win: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
