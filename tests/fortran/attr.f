! tests/fortran/attr.f: attribute caching from Fortran. Keyvals whose
! copy and delete callbacks are Fortran subroutines (called with the
! program's EXTRA_STATE, by reference, LOGICAL flag), the predefined
! callbacks MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN and
! the MPI-1 MPI_DUP_FN, values wider than an INTEGER
! (KIND=MPI_ADDRESS_KIND), MPI-1 MPI_ATTR_PUT/GET with a negative value,
! deletion callbacks on set, delete and free, and MPI_TAG_UB.
! Prints PASS.
      program attr
      implicit none
      include 'mpif.h'
      integer ierr, kcopy, kdup, knull, k1, ktype, dup, t, i
      integer ival
      integer (kind=MPI_ADDRESS_KIND) val, extra, big
      logical flag
      integer ncopy, ndel
      integer (kind=MPI_ADDRESS_KIND) lastdel
      common /cbcount/ ncopy, ndel, lastdel
      external mycopy, mydel

      call mpi_init(ierr)
      ncopy = 0
      ndel = 0
      big = 2_MPI_ADDRESS_KIND**40 + 7

c     ---- user callbacks ----
      extra = 1000
      call mpi_comm_create_keyval(mycopy, mydel, kcopy, extra, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Comm_create_keyval')
      call mpi_comm_get_attr(MPI_COMM_WORLD, kcopy, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. .not. flag, 'unset')
      call mpi_comm_set_attr(MPI_COMM_WORLD, kcopy, big, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Comm_set_attr')
      call mpi_comm_get_attr(MPI_COMM_WORLD, kcopy, val, flag, ierr)
      call check(flag .and. val .eq. big, 'get 2**40 + 7')
c     setting again deletes the old value first
      call mpi_comm_set_attr(MPI_COMM_WORLD, kcopy, big + 1, ierr)
      call check(ndel .eq. 1 .and. lastdel .eq. big, 'delete on set')
c     mycopy puts in + extra state (1000) on the copy
      call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
      call check(ncopy .eq. 1, 'copy callback called')
      call mpi_comm_get_attr(dup, kcopy, val, flag, ierr)
      call check(flag .and. val .eq. big + 1001, 'copied value')
      call mpi_comm_free(dup, ierr)
      call check(ndel .eq. 2 .and. lastdel .eq. big + 1001,
     &     'delete on Comm_free')
      call mpi_comm_delete_attr(MPI_COMM_WORLD, kcopy, ierr)
      call check(ndel .eq. 3 .and. lastdel .eq. big + 1,
     &     'delete on Comm_delete_attr')
      call mpi_comm_get_attr(MPI_COMM_WORLD, kcopy, val, flag, ierr)
      call check(.not. flag, 'deleted')
      call mpi_comm_free_keyval(kcopy, ierr)
      call check(kcopy .eq. MPI_KEYVAL_INVALID, 'free_keyval')

c     ---- predefined callbacks ----
      extra = 0
      call mpi_comm_create_keyval(MPI_COMM_DUP_FN,
     &     MPI_COMM_NULL_DELETE_FN, kdup, extra, ierr)
      call mpi_comm_create_keyval(MPI_COMM_NULL_COPY_FN,
     &     MPI_COMM_NULL_DELETE_FN, knull, extra, ierr)
      call mpi_comm_set_attr(MPI_COMM_WORLD, kdup, -big, ierr)
      call mpi_comm_set_attr(MPI_COMM_WORLD, knull, 5_MPI_ADDRESS_KIND,
     &     ierr)
      call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
      call mpi_comm_get_attr(dup, kdup, val, flag, ierr)
      call check(flag .and. val .eq. -big, 'MPI_COMM_DUP_FN')
      call mpi_comm_get_attr(dup, knull, val, flag, ierr)
      call check(.not. flag, 'MPI_COMM_NULL_COPY_FN')
      call mpi_comm_free(dup, ierr)
      call mpi_comm_free_keyval(kdup, ierr)
      call mpi_comm_free_keyval(knull, ierr)

c     ---- MPI-1: INTEGER values, MPI_DUP_FN ----
      call mpi_keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, k1, 0,
     &     ierr)
      call mpi_attr_put(MPI_COMM_WORLD, k1, -123456, ierr)
      call mpi_attr_get(MPI_COMM_WORLD, k1, ival, flag, ierr)
      call check(flag .and. ival .eq. -123456, 'Attr_get')
      call mpi_comm_get_attr(MPI_COMM_WORLD, k1, val, flag, ierr)
      call check(flag .and. val .eq. -123456, 'sign extended')
      call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
      ival = 0
      call mpi_attr_get(dup, k1, ival, flag, ierr)
      call check(flag .and. ival .eq. -123456, 'MPI_DUP_FN')
      call mpi_comm_free(dup, ierr)
      call mpi_attr_delete(MPI_COMM_WORLD, k1, ierr)
      call mpi_attr_get(MPI_COMM_WORLD, k1, ival, flag, ierr)
      call check(.not. flag, 'Attr_delete')
      call mpi_keyval_free(k1, ierr)

c     ---- datatypes ----
      extra = 0
      call mpi_type_create_keyval(MPI_TYPE_DUP_FN,
     &     MPI_TYPE_NULL_DELETE_FN, ktype, extra, ierr)
      call mpi_type_contiguous(3, MPI_INTEGER, t, ierr)
      call mpi_type_set_attr(t, ktype, big, ierr)
      call mpi_type_dup(t, i, ierr)
      call mpi_type_get_attr(i, ktype, val, flag, ierr)
      call check(flag .and. val .eq. big, 'MPI_TYPE_DUP_FN')
      call mpi_type_delete_attr(i, ktype, ierr)
      call mpi_type_get_attr(i, ktype, val, flag, ierr)
      call check(.not. flag, 'Type_delete_attr')
      call mpi_type_free(i, ierr)
      call mpi_type_free(t, ierr)
      call mpi_type_free_keyval(ktype, ierr)
      call check(ktype .eq. MPI_KEYVAL_INVALID, 'Type_free_keyval')

c     ---- predefined attribute ----
      call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag,
     &     ierr)
      call check(flag .and. val .ge. 32767, 'MPI_TAG_UB')
      call mpi_attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
      call check(flag .and. ival .eq. val, 'MPI_TAG_UB MPI-1')

      call mpi_comm_rank(MPI_COMM_WORLD, i, ierr)
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (i .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine mycopy(oldcomm, keyval, extra, valin, valout, flag,
     &     ierr)
      implicit none
      include 'mpif.h'
      integer oldcomm, keyval, ierr
      integer (kind=MPI_ADDRESS_KIND) extra, valin, valout
      logical flag
      integer ncopy, ndel
      integer (kind=MPI_ADDRESS_KIND) lastdel
      common /cbcount/ ncopy, ndel, lastdel
      call check(extra .eq. 1000, 'copy: extra state')
      call check(oldcomm .eq. MPI_COMM_WORLD, 'copy: old comm')
      ncopy = ncopy + 1
      valout = valin + extra
      flag = .true.
      ierr = MPI_SUCCESS
      end

      subroutine mydel(comm, keyval, val, extra, ierr)
      implicit none
      include 'mpif.h'
      integer comm, keyval, ierr
      integer (kind=MPI_ADDRESS_KIND) val, extra
      integer ncopy, ndel
      integer (kind=MPI_ADDRESS_KIND) lastdel
      common /cbcount/ ncopy, ndel, lastdel
      call check(extra .eq. 1000, 'delete: extra state')
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
         write (0, '(A,A)') 'FAIL attr: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
