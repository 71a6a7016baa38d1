! tests/fortran/errors.f: error returns and the environment from
! Fortran. Under MPI_ERRORS_RETURN a bad rank, datatype, root and a
! truncated receive come back in IERROR with the right class;
! MPI_ERROR_STRING, MPI_GET_PROCESSOR_NAME and MPI_COMM_GET_NAME fill
! CHARACTER arguments blank-padded; Initialized, Get_version, Wtime,
! Wtick, MPI_TAG_UB through Comm_get_attr, an error handler written in
! Fortran, error classes, codes and strings of the program's own, and
! the sizes of the Fortran datatypes. Prints PASS.
      program errors
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, cls, len, eh, sz, req, i
      integer buf(10)
      logical flag
      character*(MPI_MAX_ERROR_STRING) msg
      character*10 short
      character*(MPI_MAX_PROCESSOR_NAME) host
      character*(MPI_MAX_OBJECT_NAME) name
      double precision t0, t1
      integer*8 lb, ext
      integer(kind=MPI_ADDRESS_KIND) tagub
      integer dup
      external fhandler
      integer hcalls, hcomm, hcode
      common /hstate/ hcalls, hcomm, hcode

      call mpi_initialized(flag, ierr)
      call check(.not. flag .and. ierr .eq. MPI_SUCCESS,
     &     'Initialized before Init')
      call mpi_init(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Init')
      call mpi_initialized(flag, ierr)
      call check(flag, 'Initialized after Init')
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)

      call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     ierr)
      call mpi_comm_get_errhandler(MPI_COMM_WORLD, eh, ierr)
      call check(eh .eq. MPI_ERRORS_RETURN, 'Comm_get_errhandler')

c     bad rank
      call mpi_send(buf, 1, MPI_INTEGER, p + 5, 0, MPI_COMM_WORLD, ierr)
      call check(ierr .ne. MPI_SUCCESS, 'Send to a bad rank succeeded')
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_RANK, 'bad rank class')
c     bad datatype
      call mpi_send(buf, 1, 12345, 0, 0, MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_TYPE, 'bad datatype class')
c     bad root
      call mpi_bcast(buf, 1, MPI_INTEGER, -7, MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_ROOT, 'bad root class')
c     truncation: 10 INTEGERs into room for 5
      do i = 1, 10
         buf(i) = i
      enddo
      call mpi_isend(buf, 10, MPI_INTEGER, rank, 3, MPI_COMM_WORLD,
     &     req, ierr)
      call mpi_recv(buf, 5, MPI_INTEGER, rank, 3, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call mpi_error_class(ierr, cls, i)
      call check(cls .eq. MPI_ERR_TRUNCATE, 'truncation class')
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)

c     error strings: blank-padded, truncated to a short CHARACTER
      call mpi_error_string(MPI_ERR_OTHER, msg, len, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. len .gt. 0 .and.
     &     len .lt. MPI_MAX_ERROR_STRING, 'Error_string length')
      call check(msg(1:len) .ne. ' ' .and. msg(len+1:) .eq. ' ',
     &     'Error_string padding')
      call mpi_error_string(MPI_ERR_TRUNCATE, short, len, ierr)
      call check(len .ge. 1 .and. len .le. 10, 'Error_string short')

      call mpi_get_processor_name(host, len, ierr)
      call check(len .gt. 0 .and. host(1:len) .ne. ' ' .and.
     &     host(len+1:) .eq. ' ', 'Get_processor_name')
      call mpi_comm_set_name(MPI_COMM_WORLD, 'fortran world   ', ierr)
      call mpi_comm_get_name(MPI_COMM_WORLD, name, len, ierr)
      call check(len .eq. 13 .and. name .eq. 'fortran world',
     &     'Comm_set_name / Comm_get_name')

      call mpi_get_version(i, len, ierr)
      call check(i .eq. MPI_VERSION .and. len .eq. MPI_SUBVERSION,
     &     'Get_version')
      t0 = mpi_wtime()
      t1 = mpi_wtime()
      call check(t1 .ge. t0 .and. t0 .gt. 0.0d0, 'Wtime')
      call check(mpi_wtick() .gt. 0.0d0 .and. mpi_wtick() .lt. 1.0d0,
     &     'Wtick')

c     an error handler written in Fortran, on a duplicate of WORLD
      call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
      call mpi_comm_create_errhandler(fhandler, eh, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Comm_create_errhandler')
      call mpi_comm_set_errhandler(dup, eh, ierr)
      hcalls = 0
      call mpi_send(buf, 1, MPI_INTEGER, p + 9, 0, dup, ierr)
      call check(hcalls .eq. 1 .and. hcomm .eq. dup .and.
     &     hcode .eq. MPI_ERR_RANK, 'Fortran handler called')
c     our own class, code and string, raised through the handler
      call mpi_add_error_class(cls, ierr)
      call mpi_add_error_code(cls, i, ierr)
      call mpi_add_error_string(i, 'my own error   ', ierr)
      call mpi_error_string(i, msg, len, ierr)
      call check(msg(1:len) .eq. 'my own error', 'Add_error_string')
      call mpi_comm_call_errhandler(dup, i, ierr)
      call check(hcalls .eq. 2 .and. hcode .eq. i,
     &     'Comm_call_errhandler')
      call mpi_errhandler_free(eh, ierr)
      call mpi_comm_free(dup, ierr)

c     predefined attribute, value returned in an ADDRESS_KIND INTEGER
      call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag,
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS .and. flag .and.
     &     tagub .ge. 32767, 'Comm_get_attr TAG_UB')

c     sizes and extents of the Fortran types
      call tsize(MPI_INTEGER, 4)
      call tsize(MPI_REAL, 4)
      call tsize(MPI_DOUBLE_PRECISION, 8)
      call tsize(MPI_COMPLEX, 8)
      call tsize(MPI_DOUBLE_COMPLEX, 16)
      call tsize(MPI_LOGICAL, 4)
      call tsize(MPI_CHARACTER, 1)
      call tsize(MPI_BYTE, 1)
      call tsize(MPI_2INTEGER, 8)
      call tsize(MPI_2DOUBLE_PRECISION, 16)
      call tsize(MPI_INTEGER8, 8)
      call mpi_type_get_extent(MPI_DOUBLE_COMPLEX, lb, ext, ierr)
      call check(lb .eq. 0 .and. ext .eq. 16, 'Type_get_extent')
      call mpi_type_size(MPI_DATATYPE_NULL, sz, ierr)
      call check(ierr .ne. MPI_SUCCESS, 'Type_size of NULL')

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Finalize')
      end

c     the error handler: counts its calls and keeps its arguments
      subroutine fhandler(comm, code)
      implicit none
      integer comm, code
      integer hcalls, hcomm, hcode
      common /hstate/ hcalls, hcomm, hcode
      hcalls = hcalls + 1
      hcomm = comm
      hcode = code
      end

      subroutine tsize(t, want)
      implicit none
      include 'mpif.h'
      integer t, want, sz, ierr
      call mpi_type_size(t, sz, ierr)
      if (sz .ne. want .or. ierr .ne. MPI_SUCCESS) then
         write (0, '(A,I4,A,I4)') 'FAIL errors: Type_size of', t,
     &        ' is', sz
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL errors: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
