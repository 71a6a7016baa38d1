! mpi/fortran/mpi_mod.f90: the Fortran 90 module `mpi` (use mpi) of mbmpi.
! It is mpif.h (the same constants, sentinel common blocks and
! MPI_WTIME/MPI_WTICK declarations, no explicit interfaces for the
! routines, so calls are checked as with mpif.h) plus the generic
! MPI_SIZEOF (MPI 3.1 17.1.9), which needs one: each intrinsic type and
! kind has its specific procedure, implemented in C (mpi/fortran/f_type.c)
! with the size as a constant; X is assumed-rank, so scalars and arrays of
! any rank match. IERROR is OPTIONAL (as in mpi_f08, which uses this
! generic). bin/mpifort compiles this file on first use into
! build/fortran/<compiler>-<version>/mpi.mod, because a .mod file is only
! readable by the gfortran version that wrote it.
module mpi
  implicit none
  include 'mpif.h'
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_AINT_ADD, MPI_AINT_DIFF

  interface MPI_SIZEOF
    subroutine mpi_sizeof_integer1(x, size, ierror)
      integer(kind=1), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_integer1
    subroutine mpi_sizeof_integer2(x, size, ierror)
      integer(kind=2), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_integer2
    subroutine mpi_sizeof_integer4(x, size, ierror)
      integer(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_integer4
    subroutine mpi_sizeof_integer8(x, size, ierror)
      integer(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_integer8
    subroutine mpi_sizeof_integer16(x, size, ierror)
      integer(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_integer16
    subroutine mpi_sizeof_real4(x, size, ierror)
      real(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_real4
    subroutine mpi_sizeof_real8(x, size, ierror)
      real(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_real8
    subroutine mpi_sizeof_real16(x, size, ierror)
      real(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_real16
    subroutine mpi_sizeof_complex4(x, size, ierror)
      complex(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_complex4
    subroutine mpi_sizeof_complex8(x, size, ierror)
      complex(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_complex8
    subroutine mpi_sizeof_complex16(x, size, ierror)
      complex(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_complex16
    subroutine mpi_sizeof_logical1(x, size, ierror)
      logical(kind=1), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_logical1
    subroutine mpi_sizeof_logical2(x, size, ierror)
      logical(kind=2), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_logical2
    subroutine mpi_sizeof_logical4(x, size, ierror)
      logical(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_logical4
    subroutine mpi_sizeof_logical8(x, size, ierror)
      logical(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_logical8
    subroutine mpi_sizeof_character(x, size, ierror)
      character(len=*), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, intent(out), optional :: ierror
    end subroutine mpi_sizeof_character
  end interface MPI_SIZEOF
end module mpi
