# mk/mpi3.mk: MPI-3 completeness (mpi/bsend.c, mpi/mprobe.c, mpi/attr.c,
# user error classes and handlers). The library sources are picked up by
# the top Makefile; the test programs (tests/mpi3/*.c) are built by
# tests/mpi/run.sh, so nothing is added to TEST_BUILD.
#
#   make test-mpi3    tests/suites/mpi3.sh (shm, plus a few over tcp and sockets)

.PHONY: test-mpi3
test-mpi3: all
	bash tests/suites/mpi3.sh
