! tests/fortran/usef08.f90: the `use mpi_f08` module. Typed handles
! (TYPE(MPI_Comm) ...) and their == / /=, TYPE(MPI_Status) fields, ierror
! left out and given by keyword, choice buffers of several types, kinds and
! ranks (scalars, array elements, CHARACTER), MPI_IN_PLACE,
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, nonblocking calls with an array
! of TYPE(MPI_Request), Comm_split and names (CHARACTER arguments),
! LOGICAL arguments (Cart_create periods, Iprobe flag), a derived datatype,
! MPI_Pack_external_size (its datarep is one CHARACTER string), MPI_SIZEOF,
! a user reduction op written in the mpi_f08 style (TYPE(C_PTR) by value),
! MPI_Alloc_mem into a TYPE(C_PTR), a window with Put and fences,
! MPI_Info, MPI_Wtime, partitioned communication (MPI_Psend_init with an
! INTEGER(KIND=MPI_COUNT_KIND) count, MPI_Pready, MPI_Parrived), and an
! error class returned under MPI_ERRORS_RETURN.
! Prints PASS.
module f08_ops
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
contains
  subroutine imax_op(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    integer :: i
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    do i = 1, len
      b(i) = max(a(i), b(i))
    end do
  end subroutine imax_op
end module f08_ops

program usef08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use f08_ops
  ! (external: a call that no generic of the module matches does not compile)
  implicit none (type, external)
  integer :: rank, p, ierr, i, n, right, left, cnt, dims(1), outer
  type(MPI_Comm) :: dup, half, cart
  type(MPI_Status) :: st
  type(MPI_Status) :: sts(4)
  integer :: fst(MPI_STATUS_SIZE)
  type(MPI_Request) :: reqs(4)
  type(MPI_Datatype) :: vec
  type(MPI_Op) :: op
  type(MPI_Info) :: info
  type(MPI_Win) :: win
  type(c_ptr) :: mem
  integer, pointer :: wbuf(:)
  double precision :: d(4), e(4), t0
  integer(kind=8) :: i8, j8
  integer :: m2(3, 2), got(3, 2), iv(6), ov(6)
  character(len=8) :: txt, rtxt
  character(len=MPI_MAX_OBJECT_NAME) :: nm
  character(len=MPI_MAX_INFO_VAL) :: val
  logical :: flag, periods(1)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer(kind=MPI_COUNT_KIND) :: pcount
  type(MPI_Request) :: preq(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierror=ierr)
  call check(ierr == MPI_SUCCESS, 'Comm_size ierror=')
  t0 = MPI_Wtime()
  right = mod(rank + 1, p)
  left = mod(rank + p - 1, p)

  ! handles compare with == and /=
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_NULL .and. .not. (dup == MPI_COMM_WORLD), 'handle compare')
  call MPI_Comm_set_name(dup, 'f08dup')
  call MPI_Comm_get_name(dup, nm, n)
  call check(nm(1:n) == 'f08dup' .and. n == 6, 'Comm_get_name')

  ! ring: a double precision array, an integer(8) scalar, a CHARACTER, a 2-D
  ! array section start, with typed statuses and requests
  d = [(dble(rank * 10 + i), i = 1, 4)]
  i8 = int(rank, 8) * 1000000000_8
  write (txt, '(a,i4.4)') 'rank', rank
  m2 = rank
  call MPI_Irecv(e, 4, MPI_DOUBLE_PRECISION, left, 1, dup, reqs(1))
  call MPI_Irecv(j8, 1, MPI_INTEGER8, left, 2, dup, reqs(2))
  call MPI_Irecv(rtxt, 8, MPI_CHARACTER, left, 3, dup, reqs(3))
  call MPI_Irecv(got, 6, MPI_INTEGER, left, 4, dup, reqs(4))
  call MPI_Send(d, 4, MPI_DOUBLE_PRECISION, right, 1, dup)
  call MPI_Send(i8, 1, MPI_INTEGER8, right, 2, dup)
  call MPI_Send(txt, 8, MPI_CHARACTER, right, 3, dup)
  call MPI_Send(m2(1, 1), 6, MPI_INTEGER, right, 4, dup)
  call MPI_Waitall(4, reqs, sts)
  call check(all(reqs == MPI_REQUEST_NULL), 'Waitall freed the requests')
  call check(sts(1)%MPI_SOURCE == left .and. sts(1)%MPI_TAG == 1, 'status fields')
  call MPI_Status_f082f(sts(1), fst)
  call check(fst(MPI_SOURCE) == left .and. fst(MPI_TAG) == 1, 'MPI_Status_f082f')
  call MPI_Status_f2f08(fst, st)
  call check(st%MPI_SOURCE == left .and. st%MPI_TAG == 1, 'MPI_Status_f2f08')
  call MPI_Get_count(sts(3), MPI_CHARACTER, cnt)
  call check(cnt == 8, 'Get_count')
  call check(all(e == [(dble(left * 10 + i), i = 1, 4)]), 'double array')
  call check(j8 == int(left, 8) * 1000000000_8, 'integer(8) scalar')
  write (txt, '(a,i4.4)') 'rank', left
  call check(rtxt == txt, 'CHARACTER buffer')
  call check(all(got == left), '2-D array')

  ! blocking pair with MPI_STATUS_IGNORE, Sendrecv with a status
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 5, n, 1, MPI_INTEGER, left, 5, dup, st)
  call check(n == left .and. st%MPI_SOURCE == left, 'Sendrecv')
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 6, dup, reqs(1))
  call MPI_Recv(n, 1, MPI_INTEGER, left, 6, dup, MPI_STATUS_IGNORE)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(n == left, 'Recv with MPI_STATUS_IGNORE')
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 7, dup, reqs(1))
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 7, dup, flag, st)
  end do
  call MPI_Recv(n, 1, MPI_INTEGER, st%MPI_SOURCE, st%MPI_TAG, dup, MPI_STATUS_IGNORE)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE)
  call check(n == left, 'Iprobe flag (LOGICAL)')

  ! collectives, MPI_IN_PLACE, a user op
  n = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(n == p * (p + 1) / 2, 'Allreduce IN_PLACE')
  call MPI_Op_create(imax_op, .true., op)
  iv = [(rank * i, i = 1, 6)]
  call MPI_Allreduce(iv, ov, 6, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(ov == [((p - 1) * i, i = 1, 6)]), 'user op (mpi_f08 style)')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'Op_free')
  n = -1
  if (rank == 0) n = 42
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(n == 42, 'Bcast')

  ! a vector type: every other element of 6
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  iv = [(rank * 100 + i, i = 1, 6)]
  ov = -1
  call MPI_Sendrecv(iv, 1, vec, right, 8, ov, 3, MPI_INTEGER, left, 8, MPI_COMM_WORLD, st)
  call check(all(ov(1:3) == [left * 100 + 1, left * 100 + 3, left * 100 + 5]), 'vector type')
  call MPI_Type_free(vec)
  ! MPI_SIZEOF comes with mpi_f08 too
  call MPI_Sizeof(d, n)
  call check(n == 8, 'MPI_Sizeof of a DOUBLE PRECISION array element')
  call MPI_Sizeof(i8, n)
  call check(n == 8, 'MPI_Sizeof of an INTEGER(8)')
  ! a CHARACTER argument that is one string (datarep), not an array of them
  call MPI_Pack_external_size('external32', 3, MPI_INTEGER, wsize)
  call check(wsize == 12, 'Pack_external_size of 3 INTEGERs')

  ! split, Cartesian (LOGICAL periods), info
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, n)
  call check(n == (p + 1 - mod(rank, 2)) / 2, 'Comm_split')
  dims(1) = p
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart)
  call MPI_Cart_shift(cart, 0, 1, left, right)
  call check(right == mod(rank + 1, p), 'Cart_shift (periodic)')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'mbmpi_key', 'some value')
  call MPI_Info_get(info, 'mbmpi_key', MPI_MAX_INFO_VAL, val, flag)
  call check(flag .and. val == 'some value', 'Info_get')
  call MPI_Info_free(info)
  call check(info == MPI_INFO_NULL, 'Info_free')

  ! memory from MPI_Alloc_mem (TYPE(C_PTR)) as a window
  wsize = 4 * p
  call MPI_Alloc_mem(wsize, MPI_INFO_NULL, mem)
  call c_f_pointer(mem, wbuf, [p])
  wbuf = -1
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(wbuf(left + 1) == left, 'Put into an Alloc_mem window')
  call MPI_Win_free(win)
  call MPI_Free_mem(wbuf)

  ! partitioned: 3 partitions of 2 integers around the ring
  pcount = 2
  iv = [(rank * 10 + i, i = 1, 6)]
  ov = -1
  call MPI_Precv_init(ov, 3, pcount, MPI_INTEGER, left, 11, MPI_COMM_WORLD, MPI_INFO_NULL, preq(1))
  call MPI_Psend_init(iv, 3, pcount, MPI_INTEGER, right, 11, MPI_COMM_WORLD, MPI_INFO_NULL, preq(2))
  call MPI_Startall(2, preq)
  do i = 2, 0, -1
    call MPI_Pready(i, preq(2))
  end do
  flag = .false.
  do while (.not. flag)
    call MPI_Parrived(preq(1), 1, flag)
  end do
  call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE)
  call check(all(ov == [(left * 10 + i, i = 1, 6)]), 'partitioned ring')
  call MPI_Request_free(preq(1))
  call MPI_Request_free(preq(2))

  ! errors come back through ierror under MPI_ERRORS_RETURN
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(n, 1, MPI_INTEGER, p + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, outer)
  call check(outer == MPI_ERR_RANK, 'MPI_ERR_RANK through ierror')

  call MPI_Comm_free(half)
  call MPI_Comm_free(cart)
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'Comm_free')
  call check(MPI_Wtime() >= t0, 'Wtime')
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  if (rank == 0) print '(a)', 'PASS'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL usef08 rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program usef08
