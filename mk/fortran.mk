# mk/fortran.mk: the Fortran 77 bindings (mpi/fortran/, mpi/include/mpif.h,
# bin/mpifort; issue 6 part 2). The bindings themselves are in lib/libmpi.a
# (the top Makefile compiles mpi/fortran/*.c).
#
#   make fortran-test   tests/suites/fortran.sh alone (mpif.h checks, the
#                       tests/fortran programs over shm and tcp;ofi_rxm)
#   make fortran-deps   install gfortran when it is missing (as root)
# npb/README-fortran.md: building the official NPB 3.4 MPI suite with
# npb/make.def.mbmpi.

TEST_BUILD += fortran-deps bin/mpifort bin/mpif77 bin/mpif90

bin/mpif77 bin/mpif90: bin/mpifort
	ln -sf mpifort $@

.PHONY: fortran-deps fortran-test
fortran-deps:
	@command -v $${MBMPI_FC:-gfortran} >/dev/null 2>&1 || { \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "fortran: installing gfortran"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y -q gfortran >/dev/null || \
	            { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q gfortran >/dev/null; }; \
	    else \
	        echo "fortran: gfortran is missing: run 'apt-get install gfortran' as root" >&2; \
	    fi; }

fortran-test: all fortran-deps
	bash tests/suites/fortran.sh
