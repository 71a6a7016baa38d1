! tests/fortran/greq.f: generalized requests from Fortran. Query, free
! and cancel callbacks written in Fortran get the program's EXTRA_STATE
! variable (updates are seen), the query fills the status through
! MPI_STATUS_SET_ELEMENTS / MPI_STATUS_SET_CANCELLED, cancel gets a
! LOGICAL COMPLETE; MPI_TEST before MPI_GREQUEST_COMPLETE is false.
! Prints PASS.
      program greq
      implicit none
      include 'mpif.h'
      integer ierr, req, rank, cnt
      integer st(MPI_STATUS_SIZE)
      integer (kind=MPI_ADDRESS_KIND) extra
      logical flag
      external qfn, ffn, cfn
      integer ncancel
      logical lastcomplete
      common /greqcb/ ncancel, lastcomplete

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      ncancel = 0

c     ---- complete, then wait: query fills the status ----
      extra = 10
      call mpi_grequest_start(qfn, ffn, cfn, extra, req, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'Grequest_start')
      call mpi_test(req, flag, st, ierr)
      call check(.not. flag, 'Test before complete')
      call mpi_grequest_complete(req, ierr)
      call mpi_wait(req, st, ierr)
      call check(ierr .eq. MPI_SUCCESS .and.
     &     req .eq. MPI_REQUEST_NULL, 'Wait')
      call check(st(MPI_SOURCE) .eq. 11 .and. st(MPI_TAG) .eq. 12,
     &     'query status fields')
      call mpi_get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 7, 'Status_set_elements')
      call mpi_test_cancelled(st, flag, ierr)
      call check(.not. flag, 'Status_set_cancelled false')
      call check(extra .eq. 9, 'free updated EXTRA_STATE')

c     ---- cancel while pending ----
      extra = 20
      call mpi_grequest_start(qfn, ffn, cfn, extra, req, ierr)
      call mpi_cancel(req, ierr)
      call check(ncancel .eq. 1 .and. .not. lastcomplete,
     &     'cancel COMPLETE false')
      call mpi_grequest_complete(req, ierr)
      call mpi_wait(req, st, ierr)
      call mpi_test_cancelled(st, flag, ierr)
      call check(flag, 'Status_set_cancelled true')
      call check(extra .eq. 19, 'free after cancel')

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine qfn(extra, st, ierr)
      implicit none
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      integer st(MPI_STATUS_SIZE), ierr
      st(MPI_SOURCE) = int(extra) + 1
      st(MPI_TAG) = int(extra) + 2
      call mpi_status_set_elements(st, MPI_INTEGER, 7, ierr)
      call mpi_status_set_cancelled(st, extra .eq. 20, ierr)
      ierr = MPI_SUCCESS
      end

      subroutine ffn(extra, ierr)
      implicit none
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      integer ierr
      extra = extra - 1
      ierr = MPI_SUCCESS
      end

      subroutine cfn(extra, complete, ierr)
      implicit none
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      logical complete
      integer ierr
      integer ncancel
      logical lastcomplete
      common /greqcb/ ncancel, lastcomplete
      call check(extra .eq. 20, 'cancel EXTRA_STATE')
      ncancel = ncancel + 1
      lastcomplete = complete
      ierr = MPI_SUCCESS
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL greq: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
