# mk/bench_coll.mk: the pLogP and collective benchmarks (bench/plogp.c,
# bench/coll.c, bench/run_coll.sh; issue 5).
#
#   make bench-plogp        measure the pLogP parameter files of shm and tcp;ofi_rxm
#                           into bench/out/ (plogp_<p>.plogp, .csv, .png)
#   make bench-coll         bcast, scatter, alltoall, allreduce at P = 4 and 8 over mbshm:
#                           every algorithm forced + auto, measured vs predicted, plots
#   make bench-coll-peers   the same operations: mbmpi (mbshm, auto) vs Open MPI vs MPICH
# Settings: the environment variables listed at the top of bench/run_coll.sh
# (COLL_OPS, COLL_NP, COLL_PROVIDERS, COLL_SIZES, PLOGP_PROVIDERS, ...).

BENCH_COLL_BINS := build/bench/plogp build/bench/coll

TEST_BUILD += $(BENCH_COLL_BINS)

build/bench/plogp: bench/plogp.c $(LIBDIR)/libmpi.a bin/mpicc
	@mkdir -p build/bench
	bin/mpicc -O2 $(WFLAGS) $< -o $@

build/bench/coll: bench/coll.c mpi/include/mpi.h $(LIBDIR)/libmpi.a bin/mpicc
	@mkdir -p build/bench
	bin/mpicc -O2 $(WFLAGS) $< -o $@

.PHONY: bench-plogp bench-coll bench-coll-peers
bench-plogp: deps
	@scripts/install-deps.sh --bench || echo "bench-plogp: gnuplot missing: no plots"
	$(MAKE) all $(BENCH_COLL_BINS)
	bash bench/run_coll.sh plogp

bench-coll: deps
	@scripts/install-deps.sh --bench || echo "bench-coll: gnuplot missing: no plots"
	$(MAKE) all $(BENCH_COLL_BINS)
	bash bench/run_coll.sh coll

bench-coll-peers: deps
	@scripts/install-deps.sh --bench || echo "bench-coll-peers: could not install the peer MPIs; skipping those missing"
	$(MAKE) all $(BENCH_COLL_BINS)
	bash bench/run_coll.sh peers
