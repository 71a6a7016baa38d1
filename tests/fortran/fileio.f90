! tests/fortran/fileio.f90: MPI-IO from Fortran (use mpi). Every rank
! writes its block of a shared file through a view (displacement
! rank * n INTEGERs, INTEGER(KIND=MPI_OFFSET_KIND) as the standard says),
! collectively; the file is reopened read-only and each rank reads its right
! neighbour's block at an explicit offset, then the file's size, the file
! pointer after MPI_FILE_READ, the view back (MPI_FILE_GET_VIEW's datarep
! CHARACTER) and MPI_FILE_DELETE of a file that is gone (an error class,
! since files return errors by default). Prints PASS.
program fileio
  use mpi
  implicit none
  integer, parameter :: n = 100
  integer :: rank, p, ierr, fh, i, right, cls, etype, ftype
  integer :: buf(n), status(MPI_STATUS_SIZE), cnt
  integer(kind=MPI_OFFSET_KIND) :: disp, sz, pos
  character(len=64) :: fname
  character(len=MPI_MAX_DATAREP_STRING) :: rep

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
  if (rank == 0) write (fname, '(a,i0)') '/tmp/mbmpi-fileio-', getpid()
  call mpi_bcast(fname, len(fname), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)

  do i = 1, n
    buf(i) = rank * 1000 + i
  end do
  call mpi_file_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'open for writing')
  disp = int(rank, MPI_OFFSET_KIND) * n * 4
  call mpi_file_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'set_view')
  call mpi_file_get_view(fh, pos, etype, ftype, rep, ierr)
  call check(pos == disp .and. etype == MPI_INTEGER .and. rep == 'native', 'get_view')
  call mpi_file_write_all(fh, buf, n, MPI_INTEGER, status, ierr)
  call mpi_get_count(status, MPI_INTEGER, cnt, ierr)
  call check(ierr == MPI_SUCCESS .and. cnt == n, 'write_all')
  call mpi_file_close(fh, ierr)
  call check(fh == MPI_FILE_NULL, 'close')

  call mpi_file_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  right = mod(rank + 1, p)
  buf = -1
  disp = int(right, MPI_OFFSET_KIND) * n * 4
  call mpi_file_read_at(fh, disp, buf, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    call check(buf(i) == right * 1000 + i, 'read_at of the neighbour block')
  end do
  call mpi_file_get_size(fh, sz, ierr)
  call check(sz == int(p, MPI_OFFSET_KIND) * n * 4, 'get_size')
  call mpi_file_read(fh, buf, 3, MPI_INTEGER, status, ierr)
  call mpi_file_get_position(fh, pos, ierr)
  call check(pos == 12 .and. buf(1) == 1, 'read moves the file pointer (bytes)')
  call mpi_file_close(fh, ierr)

  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call mpi_file_delete(fname, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'delete')
    call mpi_file_delete(fname, MPI_INFO_NULL, ierr)
    call mpi_error_class(ierr, cls, ierr)
    call check(cls == MPI_ERR_NO_SUCH_FILE, 'delete of a missing file')
  end if
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'PASS'
  call mpi_finalize(ierr)

contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print *, 'FAIL fileio: ', what
      call mpi_abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program fileio
