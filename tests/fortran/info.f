! tests/fortran/info.f: info objects from Fortran. CHARACTER keys and
! values with their hidden lengths: blanks around a key or value are
! stripped on input, outputs are blank-padded (MPI_INFO_GET,
! MPI_INFO_GET_NTHKEY, MPI_INFO_GET_STRING), VALUELEN truncates, BUFLEN
! returns the value's length and 0 leaves VALUE alone, LOGICAL flags,
! MPI_INFO_DELETE, MPI_INFO_DUP, MPI_INFO_CREATE_ENV. Prints PASS.
      program info
      implicit none
      include 'mpif.h'
      integer ierr, inf, dup, n, vlen, rank, i
      logical flag
      character*(MPI_MAX_INFO_KEY) key
      character*32 val
      character*4 short

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_info_create(inf, ierr)
      call mpi_info_set(inf, '  color ', ' dark blue  ', ierr)
      call mpi_info_set(inf, 'size', '123456789', ierr)
      call mpi_info_get_nkeys(inf, n, ierr)
      call check(n .eq. 2, 'nkeys')

      val = 'xxxxxxxx'
      call mpi_info_get(inf, 'color', 32, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. flag, 'get flag')
      call check(val .eq. 'dark blue', 'get value stripped, padded')
      do i = 10, 32
         call check(val(i:i) .eq. ' ', 'get blank padding')
      enddo
      call mpi_info_get(inf, 'size', 4, val, flag, ierr)
      call check(flag .and. val .eq. '1234', 'get VALUELEN truncates')
      call mpi_info_get(inf, 'size', 9, short, flag, ierr)
      call check(flag .and. short .eq. '1234', 'get CHARACTER*4')
      val = 'untouched'
      call mpi_info_get(inf, 'nokey', 32, val, flag, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. .not. flag .and.
     &     val .eq. 'untouched', 'get missing key')

      call mpi_info_get_valuelen(inf, 'color', vlen, flag, ierr)
      call check(flag .and. vlen .eq. 9, 'get_valuelen')
      call mpi_info_get_valuelen(inf, 'nokey', vlen, flag, ierr)
      call check(.not. flag, 'get_valuelen missing key')

      key = 'garbage'
      call mpi_info_get_nthkey(inf, 0, key, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. key .eq. 'color',
     &     'get_nthkey 0')
      call mpi_info_get_nthkey(inf, 1, key, ierr)
      call check(key .eq. 'size', 'get_nthkey 1')

      vlen = 0
      val = 'untouched'
      call mpi_info_get_string(inf, 'size', vlen, val, flag, ierr)
      call check(flag .and. vlen .eq. 9 .and. val .eq. 'untouched',
     &     'get_string BUFLEN 0')
      vlen = 3
      call mpi_info_get_string(inf, 'size', vlen, val, flag, ierr)
      call check(flag .and. vlen .eq. 9 .and. val .eq. '123',
     &     'get_string BUFLEN 3')
      vlen = 32
      call mpi_info_get_string(inf, 'color', vlen, val, flag, ierr)
      call check(flag .and. vlen .eq. 9 .and. val .eq. 'dark blue',
     &     'get_string')

      call mpi_info_dup(inf, dup, ierr)
      call mpi_info_delete(inf, 'color ', ierr)
      call check(ierr .eq. MPI_SUCCESS, 'delete')
      call mpi_info_get_nkeys(inf, n, ierr)
      call check(n .eq. 1, 'nkeys after delete')
      call mpi_info_get(dup, 'color', 32, val, flag, ierr)
      call check(flag .and. val .eq. 'dark blue', 'dup kept the key')
      call mpi_info_free(dup, ierr)
      call mpi_info_free(inf, ierr)
      call check(inf .eq. MPI_INFO_NULL, 'free')

      call mpi_info_create_env(inf, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. inf .ne. MPI_INFO_NULL,
     &     'create_env')
      call mpi_info_free(inf, ierr)

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
         write (0, '(A,A)') 'FAIL info: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
