! tests/fortran/ports.f90: the Fortran bindings of mpi/fortran/f_dynamic.c.
! MPI_OPEN_PORT / MPI_COMM_ACCEPT / MPI_COMM_CONNECT between the two halves
! of MPI_COMM_WORLD, the port name passed through MPI_PUBLISH_NAME /
! MPI_LOOKUP_NAME (CHARACTER arguments, blank-padded results), traffic on
! the inter-communicator, MPI_UNPUBLISH_NAME, MPI_CLOSE_PORT;
! MPI_COMM_SPAWN with MPI_ARGV_NULL and MPI_ERRCODES_IGNORE (mbmpi starts
! no processes: MPI_ERR_SPAWN); MPI_REGISTER_DATAREP with a Fortran extent
! function, which a file view of that representation calls, and a second
! registration of the name (MPI_ERR_DUP_DATAREP). Needs 2 or more ranks.
! (getpid: a GNU extension, for a file name of this run)
! Prints PASS.
module ports_extent
  implicit none
  integer :: ncalls = 0
contains
  ! the file extent of a type: its extent in memory, as "native"
  subroutine same_extent(datatype, extent, extra_state, ierror)
    use mpi
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state, lb
    call mpi_type_get_extent(datatype, lb, extent, ierror)
    if (extra_state /= 77) ierror = MPI_ERR_ARG
    ncalls = ncalls + 1
  end subroutine same_extent
end module ports_extent

program ports
  use mpi
  use ports_extent
  implicit none
  integer :: rank, p, ierr, local, inter, lrank, rsize, v, cls, fh, k
  logical :: server
  character(len=MPI_MAX_PORT_NAME) :: port, found
  character(len=32) :: service
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer(kind=MPI_OFFSET_KIND) :: disp
  integer :: buf(4), back(4)
  character(len=64) :: fname

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
  call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  server = rank < p / 2
  write (service, '(a,i0)') 'f-ports-test-', p

  call mpi_comm_split(MPI_COMM_WORLD, merge(0, 1, server), rank, local, ierr)
  call mpi_comm_rank(local, lrank, ierr)
  port = ' '
  if (server .and. lrank == 0) then
    call mpi_open_port(MPI_INFO_NULL, port, ierr)
    call check(ierr == MPI_SUCCESS .and. len_trim(port) > 0, 'Open_port')
    call mpi_publish_name(service, MPI_INFO_NULL, port, ierr)
    call check(ierr == MPI_SUCCESS, 'Publish_name')
  end if
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (server) then
    call mpi_comm_accept(port, MPI_INFO_NULL, 0, local, inter, ierr)
    call check(ierr == MPI_SUCCESS, 'Comm_accept')
  else
    if (lrank == 0) then
      found = 'x'
      call mpi_lookup_name(service, MPI_INFO_NULL, found, ierr)
      call check(ierr == MPI_SUCCESS .and. len_trim(found) > 0, 'Lookup_name')
    end if
    call mpi_comm_connect(found, MPI_INFO_NULL, 0, local, inter, ierr)
    call check(ierr == MPI_SUCCESS, 'Comm_connect')
  end if
  call mpi_comm_remote_size(inter, rsize, ierr)
  call check(rsize == merge(p - p / 2, p / 2, server), 'remote size')
  ! rank 0 of each side sends its world rank to the other side's rank 0
  if (lrank == 0) then
    call mpi_sendrecv(rank, 1, MPI_INTEGER, 0, 5, v, 1, MPI_INTEGER, 0, 5, inter, &
                      MPI_STATUS_IGNORE, ierr)
    call check(v == merge(p / 2, 0, server), 'inter-communicator traffic')
  end if
  call mpi_comm_disconnect(inter, ierr)
  call check(ierr == MPI_SUCCESS .and. inter == MPI_COMM_NULL, 'Comm_disconnect')
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (server .and. lrank == 0) then
    call mpi_unpublish_name(service, MPI_INFO_NULL, port, ierr)
    call check(ierr == MPI_SUCCESS, 'Unpublish_name')
    call mpi_close_port(port, ierr)
    call check(ierr == MPI_SUCCESS, 'Close_port')
  end if
  call mpi_comm_free(local, ierr)

  ! no processes are started
  call mpi_comm_spawn('true', MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                      MPI_ERRCODES_IGNORE, ierr)
  call mpi_error_class(ierr, cls, k)
  call check(cls == MPI_ERR_SPAWN .and. inter == MPI_COMM_NULL, 'Comm_spawn: MPI_ERR_SPAWN')

  ! a data representation with a Fortran extent function
  extra = 77
  call mpi_register_datarep('ftest_rep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            same_extent, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'Register_datarep')
  call mpi_register_datarep('ftest_rep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            same_extent, extra, ierr)
  call mpi_error_class(ierr, cls, k)
  call check(cls == MPI_ERR_DUP_DATAREP, 'Register_datarep twice: MPI_ERR_DUP_DATAREP')
  if (rank == 0) then
    write (fname, '(a,i0,a)') '/tmp/mbmpi-fports-', getpid(), '.dat'
  end if
  call mpi_bcast(fname, 64, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  call mpi_file_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  disp = 0
  call mpi_file_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ftest_rep', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS .and. ncalls > 0, 'set_view calls the Fortran extent function')
  buf = [(rank * 10 + k, k = 1, 4)]
  disp = 4 * rank
  call mpi_file_write_at_all(fh, disp, buf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'write_at_all through the representation')
  back = -1
  call mpi_file_read_at_all(fh, disp, back, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. all(back == buf), 'read back')
  call mpi_file_close(fh, ierr)

  call mpi_finalize(ierr)
  if (rank == 0) print '(a)', 'PASS'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a,a,i0)', 'FAIL ports rank ', rank, ': ', what, ' ierr=', ierr
      call mpi_abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end program ports
