! mpi/fortran/mpi_mod.f90: the Fortran 90 module `mpi` (use mpi) of mbmpi.
! It is mpif.h and nothing more: the same constants, sentinel common blocks
! and MPI_WTIME/MPI_WTICK declarations, without explicit interfaces for the
! routines (so calls are checked as with mpif.h). bin/mpifort compiles it
! on first use into build/fortran/<compiler>-<version>/mpi.mod, because a
! .mod file is only readable by the gfortran version that wrote it.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
