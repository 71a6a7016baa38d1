! tests/fortran/usempi.f90: the `use mpi` module (free form), a user
! reduction op written in Fortran (MPI_OP_CREATE: the library calls the
! Fortran subroutine with every argument by reference), Scan, Exscan,
! Gatherv, Scatterv, Allgatherv, a persistent send/receive pair, the
! generic MPI_SIZEOF (scalars and arrays of several types and kinds,
! checked against MPI_TYPE_SIZE), PMPI_WTIME / PMPI_WTICK and the
! functions MPI_AINT_ADD / MPI_AINT_DIFF.
! Prints PASS.
module absmax_op
contains
  ! inoutvec(i) = the one of the two with the larger magnitude
  subroutine absmax(invec, inoutvec, n, datatype)
    implicit none
    integer :: n, datatype, i
    double precision :: invec(n), inoutvec(n)
    if (datatype < 0) return
    do i = 1, n
      if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
    end do
  end subroutine absmax
end module absmax_op

program usempi
  use mpi
  use absmax_op
  implicit none
  integer :: rank, p, ierr, op, i, s, ex, right, left
  integer :: req(2)
  integer(kind=MPI_ADDRESS_KIND) :: a1, a3
  double precision :: x(3), y(3)
  ! buffers of persistent requests change behind the compiler's back (the
  ! classic Fortran MPI hazard): without VOLATILE, -O2 keeps stale values
  double precision, volatile :: px(3), py(3)
  integer, allocatable :: cnt(:), dsp(:), gat(:), mine(:)
  integer :: total, sz, tsz, i2d(2, 3)
  integer(kind=8) :: i8
  real :: r(4)
  complex(kind=8) :: z
  logical :: l
  character(len=7) :: ch
  double precision :: t0

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, p, ierr)

  ! user op: the largest magnitude is -(p-1) (odd ranks negative)
  call mpi_op_create(absmax, .true., op, ierr)
  call check(ierr == MPI_SUCCESS .and. op /= MPI_OP_NULL, 'Op_create')
  do i = 1, 3
    x(i) = dble(rank + i)
    if (mod(rank, 2) == 1) x(i) = -x(i)
  end do
  call mpi_allreduce(x, y, 3, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  do i = 1, 3
    if (mod(p - 1, 2) == 1) then
      call check(y(i) == -dble(p - 1 + i), 'user op value')
    else
      call check(y(i) == dble(p - 1 + i), 'user op value')
    end if
  end do
  call mpi_op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'Op_free')

  ! Scan and Exscan of rank+1
  call mpi_scan(rank + 1, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(s == (rank + 1) * (rank + 2) / 2, 'Scan')
  ex = -5
  call mpi_exscan(rank + 1, ex, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0) call check(ex == rank * (rank + 1) / 2, 'Exscan')

  ! Gatherv / Scatterv / Allgatherv: rank r contributes r+1 values r
  allocate (cnt(p), dsp(p), mine(rank + 1))
  total = 0
  do i = 1, p
    cnt(i) = i
    dsp(i) = total
    total = total + i
  end do
  allocate (gat(total))
  mine = rank
  gat = -1
  call mpi_gatherv(mine, rank + 1, MPI_INTEGER, gat, cnt, dsp, MPI_INTEGER, p - 1, &
                   MPI_COMM_WORLD, ierr)
  if (rank == p - 1) then
    do i = 1, p
      call check(gat(dsp(i) + 1) == i - 1 .and. gat(dsp(i) + cnt(i)) == i - 1, 'Gatherv')
    end do
  end if
  mine = -1
  call mpi_scatterv(gat, cnt, dsp, MPI_INTEGER, mine, rank + 1, MPI_INTEGER, p - 1, &
                    MPI_COMM_WORLD, ierr)
  call check(all_equal(mine, rank + 1, rank), 'Scatterv')
  gat = -1
  mine = rank
  call mpi_allgatherv(mine, rank + 1, MPI_INTEGER, gat, cnt, dsp, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  do i = 1, p
    call check(gat(dsp(i) + cnt(i)) == i - 1, 'Allgatherv')
  end do

  ! persistent requests around a ring, three rounds
  right = mod(rank + 1, p)
  left = mod(rank - 1 + p, p)
  call mpi_send_init(px, 3, MPI_DOUBLE_PRECISION, right, 9, MPI_COMM_WORLD, req(1), ierr)
  call mpi_recv_init(py, 3, MPI_DOUBLE_PRECISION, left, 9, MPI_COMM_WORLD, req(2), ierr)
  do s = 1, 3
    px = dble(rank * 10 + s)
    call mpi_startall(2, req, ierr)
    call mpi_waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call check(all(py == dble(left * 10 + s)), 'persistent')
  end do
  call mpi_request_free(req(1), ierr)
  call mpi_request_free(req(2), ierr)

  ! MPI_SIZEOF: the size of one element, whatever the rank
  call mpi_sizeof(i2d, sz, ierr)
  call mpi_type_size(MPI_INTEGER, tsz, ierr)
  call check(ierr == MPI_SUCCESS .and. sz == tsz, 'MPI_SIZEOF INTEGER array')
  call mpi_sizeof(i8, sz, ierr)
  call check(sz == 8, 'MPI_SIZEOF INTEGER(8)')
  call mpi_sizeof(r, sz, ierr)
  call mpi_type_size(MPI_REAL, tsz, ierr)
  call check(sz == tsz, 'MPI_SIZEOF REAL array')
  call mpi_sizeof(x(1), sz, ierr)
  call mpi_type_size(MPI_DOUBLE_PRECISION, tsz, ierr)
  call check(sz == tsz, 'MPI_SIZEOF DOUBLE PRECISION')
  call mpi_sizeof(z, sz, ierr)
  call mpi_type_size(MPI_DOUBLE_COMPLEX, tsz, ierr)
  call check(sz == tsz, 'MPI_SIZEOF COMPLEX(8)')
  call mpi_sizeof(l, sz, ierr)
  call mpi_type_size(MPI_LOGICAL, tsz, ierr)
  call check(sz == tsz, 'MPI_SIZEOF LOGICAL')
  call mpi_sizeof(ch, sz, ierr)
  call check(sz == 7, 'MPI_SIZEOF CHARACTER(7)')

  t0 = pmpi_wtime()
  call check(t0 > 0d0 .and. mpi_wtime() >= t0 .and. pmpi_wtick() > 0d0, 'PMPI_WTIME')

  ! MPI_AINT_ADD / MPI_AINT_DIFF: functions the module declares
  call mpi_get_address(x(1), a1, ierr)
  call mpi_get_address(x(3), a3, ierr)
  call check(mpi_aint_add(a1, 16_MPI_ADDRESS_KIND) == a3, 'MPI_AINT_ADD')
  call check(mpi_aint_diff(a3, a1) == 16, 'MPI_AINT_DIFF')

  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A)', 'PASS'
  call mpi_finalize(ierr)

contains

  logical function all_equal(v, n, val)
    integer :: n, v(n), val
    all_equal = all(v == val)
  end function all_equal

  subroutine check(cond, what)
    logical :: cond
    character(len=*) :: what
    integer :: e
    if (.not. cond) then
      write (0, '(A,A)') 'FAIL usempi: ', what
      call mpi_abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program usempi
