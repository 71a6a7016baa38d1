# mk/mpi3.mk: MPI-3 completeness (mpi/bsend.c, mpi/mprobe.c, mpi/attr.c,
# user error classes and handlers). The library sources are picked up by
# the top Makefile; the test programs (tests/mpi3/*.c) are built by
# tests/mpi/run.sh, so nothing is added to TEST_BUILD.
#
#   make test-mpi3    tests/suites/mpi3.sh (shm, plus a few over tcp and sockets)

.PHONY: test-mpi3
test-mpi3: all
	bash tests/suites/mpi3.sh

# Unit test of the matched-probe hook of proto/ (run with the other
# build/unit/test_* binaries by scripts/run_tests.sh, under valgrind).
MPI3_UNIT_SRCS := proto/proto.c mbcf/mbcf.c transport/self.c util/log.c util/status.c
TEST_BUILD += build/unit/test_mprobe
build/unit/test_mprobe: tests/unit/test_mprobe.c $(MPI3_UNIT_SRCS)
	@mkdir -p $(dir $@)
	$(CC) -O0 -g $(WFLAGS) $(CPPFLAGS) $^ -lcmocka -o $@
