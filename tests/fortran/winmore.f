! tests/fortran/winmore.f: the one-sided calls win.f leaves out.
! MPI_WIN_ALLOCATE_SHARED with MPI_WIN_SHARED_QUERY (BASEPTR of another
! rank, read through C_F_POINTER); MPI_WIN_CREATE_DYNAMIC with
! MPI_WIN_ATTACH / MPI_WIN_DETACH and a put at the address that
! MPI_GET_ADDRESS gave; MPI_COMPARE_AND_SWAP, MPI_GET_ACCUMULATE,
! MPI_RPUT, MPI_RACCUMULATE, MPI_RGET_ACCUMULATE with
! MPI_WIN_FLUSH_LOCAL(_ALL) and MPI_WIN_FLUSH_ALL; post / start /
! complete / wait and MPI_WIN_TEST; MPI_WIN_SYNC; MPI_WIN_SET_INFO /
! MPI_WIN_GET_INFO. Every rank works on its right neighbour. Window
! memory and RMA result buffers are VOLATILE (MPI 3.1 17.1.16).
! Prints PASS.
      program winmore
      use, intrinsic :: iso_c_binding
      implicit none
      include 'mpif.h'
      integer ierr, rank, np, right, left, isz, w, i, n, du
      integer ival, reqs(3), wgrp, grp, g1, info, info2
      integer buf(0:7), gval, gval2, res(2), cmp
      volatile buf, gval, gval2, res
      integer two(2)
      integer (kind=MPI_ADDRESS_KIND) disp, val, baseptr, qbase, qsize
      logical flag
      type(c_ptr) cp
      integer, pointer :: arr(:)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
      right = mod(rank + 1, np)
      left = mod(rank + np - 1, np)
      call mpi_type_size(MPI_INTEGER, isz, ierr)

c     ---- shared memory window: each rank reads its right neighbour's
c     part directly ----
      n = 2
      val = n * isz
      call mpi_win_allocate_shared(val, isz, MPI_INFO_NULL,
     &     MPI_COMM_WORLD, baseptr, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_allocate_shared')
      cp = transfer(baseptr, cp)
      call c_f_pointer(cp, arr, (/ n /))
      call mpi_win_lock_all(MPI_MODE_NOCHECK, w, ierr)
      call setarr(arr, n, 500 + rank)
      call mpi_win_sync(w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_sync')
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call mpi_win_sync(w, ierr)
      call mpi_win_shared_query(w, right, qsize, du, qbase, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. qsize .eq. n * isz .and.
     &     du .eq. isz, 'Win_shared_query size and disp_unit')
      cp = transfer(qbase, cp)
      call c_f_pointer(cp, arr, (/ n /))
      call chkarr(arr, n, 500 + right, 'shared_query: neighbour data')
      call mpi_win_unlock_all(w, ierr)
      call mpi_win_get_attr(w, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
      call check(flag .and. val .eq. MPI_WIN_FLAVOR_SHARED,
     &     'shared: MPI_WIN_CREATE_FLAVOR')
      call mpi_win_free(w, ierr)

c     ---- dynamic window ----
      do i = 0, 7
         buf(i) = -1
      end do
      call mpi_win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, w,
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_create_dynamic')
      val = 8 * isz
      call mpi_win_attach(w, buf, val, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_attach')
      call mpi_get_address(buf(3), disp, ierr)
c     the neighbour's address of its buf(3)
      call mpi_sendrecv(disp, 1, MPI_AINT, left, 0, qbase, 1,
     &     MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      ival = 700 + rank
      call mpi_win_lock(MPI_LOCK_SHARED, right, 0, w, ierr)
      call mpi_put(ival, 1, MPI_INTEGER, right, qbase, 1, MPI_INTEGER,
     &     w, ierr)
      call mpi_win_unlock(right, w, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call mpi_win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w, ierr)
      call check(buf(3) .eq. 700 + left .and. buf(2) .eq. -1 .and.
     &     buf(4) .eq. -1, 'dynamic: put at an attached address')
      call mpi_win_unlock(rank, w, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call mpi_win_detach(w, buf, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_detach')
      call mpi_win_free(w, ierr)

c     ---- atomics and request-based calls on an MPI_WIN_CREATE window:
c     buf(0) compare-and-swap, buf(1) get-accumulate, buf(2) rput,
c     buf(3:4) raccumulate, buf(5) rget-accumulate ----
      do i = 0, 7
         buf(i) = 10 * rank
      end do
      val = 8 * isz
      call mpi_win_create(buf, val, isz, MPI_INFO_NULL,
     &     MPI_COMM_WORLD, w, ierr)
      call mpi_info_create(info, ierr)
      call mpi_info_set(info, 'no_locks', 'false', ierr)
      call mpi_win_set_info(w, info, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_set_info')
      call mpi_info_free(info, ierr)
      call mpi_win_get_info(w, info2, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. info2 .ne. MPI_INFO_NULL,
     &     'Win_get_info')
      call mpi_info_free(info2, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)

      call mpi_win_lock_all(0, w, ierr)
c     swap in 900 + rank where the neighbour's initial value is
      cmp = 10 * right
      ival = 900 + rank
      gval = -1
      disp = 0
      call mpi_compare_and_swap(ival, cmp, gval, MPI_INTEGER, right,
     &     disp, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Compare_and_swap')
      call mpi_win_flush(right, w, ierr)
      call check(gval .eq. 10 * right, 'Compare_and_swap: old value')
c     a second one does not match any more
      cmp = 10 * right
      ival = -5
      gval = -1
      call mpi_compare_and_swap(ival, cmp, gval, MPI_INTEGER, right,
     &     disp, w, ierr)
      call mpi_win_flush(right, w, ierr)
      call check(gval .eq. 900 + rank, 'Compare_and_swap: no match')

      ival = 3
      gval2 = -1
      disp = 1
      call mpi_get_accumulate(ival, 1, MPI_INTEGER, gval2, 1,
     &     MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_SUM, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Get_accumulate')
      call mpi_win_flush_local(right, w, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. gval2 .eq. 10 * right,
     &     'Get_accumulate: old value')

      ival = 800 + rank
      disp = 2
      call mpi_rput(ival, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, reqs(1), ierr)
      two(1) = 1
      two(2) = 2
      disp = 3
      call mpi_raccumulate(two, 2, MPI_INTEGER, right, disp, 2,
     &     MPI_INTEGER, MPI_SUM, w, reqs(2), ierr)
      res(1) = -1
      res(2) = -1
      disp = 5
      call mpi_rget_accumulate(ival, 1, MPI_INTEGER, res, 1,
     &     MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_REPLACE, w,
     &     reqs(3), ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Rput Raccumulate Rget_acc')
      call mpi_waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
      call check(res(1) .eq. 10 * right, 'Rget_accumulate: old value')
      call mpi_win_flush_local_all(w, ierr)
      call mpi_win_flush_all(w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_flush_all')
      call mpi_win_unlock_all(w, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call mpi_win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w, ierr)
      call check(buf(0) .eq. 900 + left, 'Compare_and_swap: result')
      call check(buf(1) .eq. 10 * rank + 3, 'Get_accumulate: result')
      call check(buf(2) .eq. 800 + left, 'Rput: result')
      call check(buf(3) .eq. 10 * rank + 1 .and.
     &     buf(4) .eq. 10 * rank + 2, 'Raccumulate: result')
      call check(buf(5) .eq. 800 + left, 'Rget_accumulate: result')
      call mpi_win_unlock(rank, w, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)

c     ---- post / start / complete / wait: everybody exposes its window
c     to its left neighbour and accesses its right one ----
      call mpi_win_get_group(w, wgrp, ierr)
      call mpi_group_incl(wgrp, 1, left, grp, ierr)
      call mpi_group_incl(wgrp, 1, right, g1, ierr)
      call mpi_win_post(grp, 0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_post')
      call mpi_win_start(g1, 0, w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_start')
      ival = 1100 + rank
      disp = 6
      call mpi_put(ival, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, ierr)
      call mpi_win_complete(w, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Win_complete')
      flag = .false.
      do while (.not. flag)
         call mpi_win_test(w, flag, ierr)
         call check(ierr .eq. MPI_SUCCESS, 'Win_test')
      end do
      call check(buf(6) .eq. 1100 + left, 'PSCW put')
c     and once more, ended by MPI_WIN_WAIT
      call mpi_win_post(grp, 0, w, ierr)
      call mpi_win_start(g1, 0, w, ierr)
      ival = 1200 + rank
      disp = 7
      call mpi_put(ival, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER,
     &     w, ierr)
      call mpi_win_complete(w, ierr)
      call mpi_win_wait(w, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. buf(7) .eq. 1200 + left,
     &     'Win_wait')
      call mpi_group_free(grp, ierr)
      call mpi_group_free(g1, ierr)
      call mpi_group_free(wgrp, ierr)
      call mpi_win_free(w, ierr)

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

      subroutine chkarr(a, n, v, what)
      implicit none
      integer n, v, a(n), i
      character*(*) what
      do i = 1, n
         call check(a(i) .eq. v, what)
      end do
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL winmore: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
