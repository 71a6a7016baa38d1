# mbmpi: plain Makefile. `make` builds the library, wrappers and tools;
# `make test` builds and runs every test; `make bench` runs the benchmarks.
CC      ?= cc
CFLAGS  ?= -O2 -g
WFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
CPPFLAGS := -I. -Impi/include
BUILD   := build
LIBDIR  := lib
PREFIX  := $(CURDIR)

LIB_DIRS := util transport mbcf proto mpi mpi/coll mpi/fortran mpi/shift
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS)) $(BUILD)/gen/mt_wrap.o
LAUNCH_SRCS := $(wildcard transport/launch/*.c) util/log.c util/status.c
LAUNCH_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LAUNCH_SRCS))

all: $(LIBDIR)/libmpi.a $(LIBDIR)/shared/libmpi.so bin/mpirun bin/mpicc bin/mbmpi_info bin/mpiexec

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PICFLAGS) $(WFLAGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

# The library's objects are position-independent, so that the same objects
# make lib/libmpi.a and lib/shared/libmpi.so. Without semantic interposition
# gcc still inlines the library's global functions into each other, as it
# did for -fPIE code; libmpi.so binds its functions to themselves
# (-Bsymbolic-functions), which is what that assumes.
$(LIB_OBJS): PICFLAGS := -fPIC -fno-semantic-interposition
# ... and are compiled again when the flags change (a tree built before they
# were position-independent cannot link the shared library)
LIB_FLAGS := $(CC) $(CFLAGS) -fPIC -fno-semantic-interposition $(WFLAGS)
$(BUILD)/lib_flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(LIB_FLAGS)' | cmp -s - $@ || echo '$(LIB_FLAGS)' >$@
$(LIB_OBJS): $(BUILD)/lib_flags
.PHONY: FORCE

# MPI_THREAD_MULTIPLE (mpi/mt.h): scripts/gen_mt.sh writes from mpi.h the
# renames MPI_X -> MPII_X that every object of the library but the Fortran
# bindings is compiled with, and the MPI_X entry points that take the lock.
MT_GEN := $(BUILD)/gen/mt_names.h $(BUILD)/gen/mt_wrap.c
$(MT_GEN) &: mpi/include/mpi.h scripts/gen_mt.sh
	sh scripts/gen_mt.sh $(BUILD)/gen
MT_RENAMED := $(filter-out $(BUILD)/mpi/fortran/% $(BUILD)/gen/%,$(LIB_OBJS))
$(MT_RENAMED): CPPFLAGS += -include $(BUILD)/gen/mt_names.h
$(MT_RENAMED): $(BUILD)/gen/mt_names.h
$(BUILD)/gen/mt_wrap.o: $(BUILD)/gen/mt_wrap.c mpi/mt.h
	$(CC) $(CFLAGS) $(PICFLAGS) $(WFLAGS) $(CPPFLAGS) -c $< -o $@

# The reduction kernels are plain loops over arrays: -O3 vectorizes them
# (gcc 12 at -O2 vectorizes 13 of the loops of mpi/op.c, at -O3 all of
# them). MPI_Reduce_local of 1 MiB of floats: 150-215 us at -O2, 56-70 us at
# -O3 (2026-12-02; memcpy of 1 MiB: 42-79 us).
$(BUILD)/mpi/op.o: CFLAGS += -O3

# The profiling interface (MPI 3.1 chapter 14): scripts/pmpi.sh gives every
# MPI_X a PMPI_X and makes MPI_X weak; mpi/include/mpi_pmpi.h (made by
# scripts/gen_pmpi_h.sh from mpi.h) declares them.
$(LIBDIR)/libmpi.a: $(LIB_OBJS) scripts/pmpi.sh
	@mkdir -p $(LIBDIR)
	rm -f $@
	ar rcs $@ $$(sh scripts/pmpi.sh $(BUILD)/pmpi $(LIB_OBJS))

# The same library as a shared object: bin/mpicc links programs with it (as
# Open MPI's and MPICH's wrappers do), so that a program and the shared
# objects it loads (its own libraries, a Python module built with
# `bin/mpicc -shared`) share one MPI library; MBMPI_LINK=static links
# lib/libmpi.a instead. Its functions bind to themselves (no PLT call from
# one MPI function to another); its variables stay interposable, so a
# Fortran program's copy of a common block the library defines is the one
# both use.
$(LIBDIR)/shared/libmpi.so: $(LIBDIR)/libmpi.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libmpi.so -Wl,-Bsymbolic-functions -Wl,-z,defs -o $@ \
	    -Wl,--whole-archive $< -Wl,--no-whole-archive -lpthread -lm

# mpirun --version: the library's version, as mpi.h gives it
MBMPI_VERSION := $(shell sed -n 's/^\#define MBMPI_VERSION_STRING "\(.*\)"/\1/p' mpi/include/mpi.h)
$(BUILD)/transport/launch/options.o: CPPFLAGS += -DMBMPI_VERSION='"$(MBMPI_VERSION)"'
$(BUILD)/transport/launch/options.o: mpi/include/mpi.h

bin/mpirun: $(LAUNCH_OBJS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $^ -o $@

bin/mpiexec: bin/mpirun
	ln -sf mpirun $@

bin/mbmpi_info: $(BUILD)/mpi/tools/mbmpi_info.o $(LIBDIR)/libmpi.a
	$(CC) $(CFLAGS) $< -o $@ -L$(LIBDIR) -lmpi -lpthread -lm

-include $(LIB_OBJS:.o=.d) $(LAUNCH_OBJS:.o=.d)

# Feature fragments (mk/*.mk): each adds its own targets and appends to
# TEST_BUILD what `make test` must build; its test suite is a script in
# tests/suites/ that scripts/run_tests.sh runs (suite "extra").
TEST_BUILD :=
include $(sort $(wildcard mk/*.mk))

.PHONY: all clean
clean:
	rm -rf $(BUILD) lib bin/mpirun bin/mbmpi_info

# ---------------------------------------------------------------- tests
CMOCKA_LIBS := -lcmocka
UNIT_CFLAGS := -O0 -g $(WFLAGS) $(CPPFLAGS)
UNIT_TESTS := $(BUILD)/unit/test_datatype $(BUILD)/unit/test_datatype_more $(BUILD)/unit/test_op $(BUILD)/unit/test_topo_dims \
              $(if $(wildcard tests/unit/test_proto.c),$(BUILD)/unit/test_proto) \
              $(if $(wildcard tests/unit/test_mbcf.c),$(BUILD)/unit/test_mbcf)
CORE_SRCS := proto/proto.c mbcf/mbcf.c transport/self.c util/log.c util/status.c

$(BUILD)/unit/test_datatype: tests/unit/test_datatype.c mpi/datatype.c tests/unit/mpi_stubs.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@
$(BUILD)/unit/test_datatype_more: tests/unit/test_datatype_more.c mpi/datatype.c tests/unit/mpi_stubs.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@
$(BUILD)/unit/test_op: tests/unit/test_op.c mpi/op.c mpi/datatype.c mpi/errstr.c tests/unit/mpi_stubs.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@
$(BUILD)/unit/test_topo_dims: tests/unit/test_topo_dims.c mpi/topo.c tests/unit/mpi_stubs.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@
$(BUILD)/unit/test_proto: tests/unit/test_proto.c $(CORE_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@
$(BUILD)/unit/test_mbcf: tests/unit/test_mbcf.c $(CORE_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $^ $(CMOCKA_LIBS) -o $@

clean-all: clean
	rm -rf build-asan

kill-test: all build/stress
	MBMPI_KILL_RUNS=50 scripts/run_tests.sh kill


.PHONY: tsan
.PHONY: bench-extra bench-rma bench-ethernet100 verify fuzz test-mpich kill-test stress asan-build asan-units deps test test-unit test-launch test-mpi check-layers asan bench bench-peers format
deps:
	@scripts/install-deps.sh

# the builds use every CPU (serially they took 5 of the 17 minutes of a CI
# run on 2 cores)
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(MAKE) -j$(NPROC) all $(UNIT_TESTS) build/stress $(TEST_BUILD)
	$(MAKE) -j$(NPROC) asan-build
	scripts/run_tests.sh

# every unit test binary, the modules' (mk/*.mk) too: the suite runs all
# of build/unit/, and a stale one would pass for its old source
test-unit: all $(UNIT_TESTS) $(filter $(BUILD)/unit/% build/unit/%,$(TEST_BUILD))
	scripts/run_tests.sh unit
test-launch: all
	scripts/run_tests.sh launch
test-mpi: all
	scripts/run_tests.sh mpi

# Layers call only downwards: util <- transport <- mbcf <- proto <- mpi.
check-layers:
	@bad=0; \
	for pair in "util:transport mbcf proto mpi" "transport:mbcf proto mpi" "mbcf:proto mpi" "proto:mpi"; do \
	    dir=$${pair%%:*}; for up in $${pair#*:}; do \
	        if grep -rn "#include \"$$up/" $$dir --include=*.c --include=*.h; then bad=1; fi; \
	    done; \
	done; \
	if [ $$bad = 0 ]; then echo "layers ok"; else echo "layer violation(s) above"; exit 1; fi

# Sanitizer build (ASan + UBSan) in its own tree (build-asan/): the unit
# tests and a multi-process smoke run (scripts/run_tests.sh asan). Part of
# `make test`.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
asan-build:
	$(MAKE) BUILD=build-asan LIBDIR=build-asan/lib CFLAGS="$(ASAN_FLAGS)" \
	    UNIT_CFLAGS="$(ASAN_FLAGS) $(WFLAGS) $(CPPFLAGS)" build-asan/lib/libmpi.a asan-units
asan-units: $(UNIT_TESTS)
asan: deps all asan-build
	scripts/run_tests.sh asan

# ThreadSanitizer over MPI_THREAD_MULTIPLE (not part of `make test`: its
# own build of the library takes a minute): tests/mpi/thread_multiple over
# mbshm and tcp;ofi_rxm. gcc refuses -fsanitize=thread on the fences of
# mpi/win.c unless told they are known (-Wno-error=tsan).
TSAN_FLAGS := -O1 -g -fsanitize=thread -Wno-error=tsan
tsan: deps all
	$(MAKE) BUILD=build-tsan LIBDIR=build-tsan/lib CFLAGS="$(TSAN_FLAGS)" build-tsan/lib/libmpi.a
	MBMPI_LIBDIR=$(CURDIR)/build-tsan/lib bin/mpicc $(TSAN_FLAGS) tests/mpi/thread_multiple.c \
	    -o build-tsan/thread_multiple
	TSAN_OPTIONS=halt_on_error=1 bin/mpirun -n 2 build-tsan/thread_multiple
	TSAN_OPTIONS=halt_on_error=1 MBMPI_WIN_SHM=0 bin/mpirun -n 3 build-tsan/thread_multiple
	TSAN_OPTIONS=halt_on_error=1 bin/mpirun --provider tcp -n 2 build-tsan/thread_multiple

# Random traffic with checksums (tests/stress/stress.c); a short run is part
# of `make test`, `make stress STRESS_S=600 STRESS_NP=8` runs long.
STRESS_S ?= 60
STRESS_NP ?= 8
build/stress: tests/stress/stress.c $(LIBDIR)/libmpi.a bin/mpicc
	@mkdir -p build
	bin/mpicc -O2 -g $(WFLAGS) $< -o $@
stress: deps all build/stress
	@for p in shm tcp; do \
	    echo "== stress: $(STRESS_NP) ranks, $$p, $(STRESS_S) s"; \
	    bin/mpirun -n $(STRESS_NP) --provider $$p --timeout $$(( $(STRESS_S) + 120 )) build/stress -t $(STRESS_S) -s $$$$ || exit 1; \
	done

# The Promela model of the point-to-point protocol (proto/model/), checked
# with spin, and the planted-bug run that must produce a counterexample.
verify:
	bash proto/model/run.sh
	bash proto/model/planted.sh

# libFuzzer targets (FIFO messages, bootstrap store), FUZZ_S seconds each.
FUZZ_S ?= 60
# MPICH's own test suite against mbmpi (fetched with apt-get source; see the script)
test-mpich: all
	bash scripts/mpich_tests.sh

fuzz:
	FUZZ_S=$(FUZZ_S) bash tests/fuzz/run.sh

bench: deps
	@scripts/install-deps.sh --bench
	$(MAKE) all
	bash bench/run_bench.sh

bench-extra: deps
	@scripts/install-deps.sh --bench
	$(MAKE) all
	bash bench/run_bench.sh --extra

# 100 Mbit/s link between two network namespaces (needs root; skips otherwise)
bench-rma: all
	bash bench/run_rma.sh

bench-ethernet100: all
	bash bench/ethernet100

bench-peers: deps
	@scripts/install-deps.sh --bench
	$(MAKE) all
	bash bench/run_peers.sh

# mpi/include/mpif.h is Fortran (fixed form): never through clang-format
format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^mpi/include/mpif.h$$')
