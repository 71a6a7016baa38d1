! tests/fortran/sessions.f90: the Sessions model of MPI 4.0 from Fortran,
! with `use mpi_f08` (TYPE(MPI_Session)) and no MPI_Init: MPI_Session_init,
! the process sets (number, names with a length query), the world set's
! group, MPI_Comm_create_from_group, an Allreduce over the communicator,
! an unknown set under MPI_ERRORS_RETURN (MPI_ERR_ARG), MPI_Session_finalize.
! Prints PASS.
program sessions
  use mpi_f08
  implicit none (type, external)
  type(MPI_Session) :: s
  type(MPI_Group) :: g
  type(MPI_Comm) :: c
  integer :: n, len, rank, size, total, ierr, cls
  logical :: flag
  character(len=MPI_MAX_PSET_NAME_LEN) :: name

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s)
  call check(s /= MPI_SESSION_NULL, 'Session_init')
  call MPI_Initialized(flag)
  call check(.not. flag, 'MPI_Initialized is false with a session only')
  call MPI_Session_get_num_psets(s, MPI_INFO_NULL, n)
  call check(n >= 2, 'two process sets')
  len = 0
  call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, len, name)
  call check(len == len_trim('mpi://WORLD'), 'length query')
  len = MPI_MAX_PSET_NAME_LEN
  call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, len, name)
  call check(name == 'mpi://WORLD', 'set 0 is mpi://WORLD')
  call MPI_Group_from_session_pset(s, 'mpi://WORLD', g)
  call MPI_Comm_create_from_group(g, 'org.mbmpi.test.fortran', MPI_INFO_NULL, MPI_ERRORS_RETURN, c)
  call MPI_Group_free(g)
  call MPI_Comm_rank(c, rank)
  call MPI_Comm_size(c, size)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, c)
  call check(total == size * (size + 1) / 2, 'Allreduce over the session communicator')
  call MPI_Group_from_session_pset(s, 'mpi://NOWHERE', g, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_ARG, 'unknown set: MPI_ERR_ARG')
  call MPI_Comm_free(c)
  call MPI_Session_finalize(s)
  call check(s == MPI_SESSION_NULL, 'Session_finalize')
  if (rank == 0) print '(a)', 'PASS'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(3a)', 'FAIL sessions: ', what
      stop 1
    end if
  end subroutine check
end program sessions
