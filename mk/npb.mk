# mk/npb.mk: the NAS Parallel Benchmark kernels in C (npb/, issue 6).
#
#   make npb CLASS=S NP=4 [PROVIDER='tcp;ofi_rxm']   build and run every kernel, one table
#   make npb-peers CLASS=A NP=2                       the same sources with Open MPI and MPICH
#   make npb-speedup CLASS=A                          NP = 1, 2, 4, 8: time and [speed-up]
#
# build/npb/<k> comes from npb/<k>.c and npb/common/npb.c for each kernel
# whose source is present (ep is cg mg ft). npb/run_npb.sh runs them.

NPB_ALL_KERNELS := ep is cg mg ft
NPB_KERNELS := $(foreach k,$(NPB_ALL_KERNELS),$(if $(wildcard npb/$(k).c),$(k)))
NPB_BINS := $(addprefix build/npb/,$(NPB_KERNELS))
NPB_CFLAGS := -O3 $(WFLAGS) -Inpb -Inpb/common
# command-line settings of the npb targets, with their defaults
NPB_CLASS = $(or $(CLASS),S)
NPB_NP = $(or $(NP),4)
NPB_PROVIDER = $(or $(PROVIDER),mbshm)

TEST_BUILD += $(NPB_BINS)

build/npb/%: npb/%.c npb/common/npb.c npb/common/npb.h $(LIBDIR)/libmpi.a bin/mpicc
	@mkdir -p build/npb
	bin/mpicc $(NPB_CFLAGS) $< npb/common/npb.c -o $@ -lm

.PHONY: npb npb-build npb-peers npb-speedup
npb-build: all $(NPB_BINS)

npb: npb-build
	bash npb/run_npb.sh run --class '$(NPB_CLASS)' --np '$(NPB_NP)' --provider '$(NPB_PROVIDER)'

npb-peers: deps npb-build
	@scripts/install-deps.sh --bench || echo "npb-peers: could not install the peer MPIs; skipping those missing"
	bash npb/run_npb.sh peers --class '$(NPB_CLASS)' --np '$(or $(NP),2)' --provider '$(NPB_PROVIDER)'

npb-speedup: npb-build
	bash npb/run_npb.sh speedup --class '$(NPB_CLASS)' --provider '$(NPB_PROVIDER)'
