# mk/shift.mk: the Shift halo exchange (mpi/shift/, issue 7): its max-plus
# unit test, the bench program and `make bench-shift`. The library objects
# come from the top Makefile (every mpi/shift/*.c goes into lib/libmpi.a);
# the MPI tests (tests/shift/) are built by tests/suites/shift.sh through
# tests/mpi/run.sh.

SHIFT_MODEL_SRCS := mpi/shift/maxplus.c mpi/shift/shift_plan.c

$(BUILD)/unit/test_maxplus: tests/unit/test_maxplus.c $(SHIFT_MODEL_SRCS) \
                            mpi/shift/maxplus.h mpi/shift/shift_plan.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) tests/unit/test_maxplus.c $(SHIFT_MODEL_SRCS) $(CMOCKA_LIBS) -lm -o $@

build/bench/shift: bench/shift.c bench/bench_util.h $(LIBDIR)/libmpi.a bin/mpicc mpi/shift/maxplus.h
	@mkdir -p $(dir $@)
	bin/mpicc -O2 -g $(WFLAGS) -I. $< -o $@

TEST_BUILD += $(BUILD)/unit/test_maxplus

.PHONY: bench-shift
# SHIFT_BENCH_ARGS passes options to bench/run_shift.sh (e.g. --quick).
bench-shift: deps
	@scripts/install-deps.sh --bench
	$(MAKE) all build/bench/shift
	bash bench/run_shift.sh $(SHIFT_BENCH_ARGS)
