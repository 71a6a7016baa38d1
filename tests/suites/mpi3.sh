#!/usr/bin/env bash
# tests/suites/mpi3.sh: the MPI-3 completeness tests of tests/mpi3 (buffered
# sends, matched probes, attribute caching, error classes and handlers,
# MPI_Comm_create_group): every line of tests/mpi3/manifest over shm, the
# lines of tests/mpi3/manifest.net over tcp;ofi_rxm and sockets. About a
# minute on 2 cores. Ends with "N passed, M failed"; exit 1 when M > 0.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
run() {
    tests/mpi/run.sh --src tests/mpi3 --timeout 60 "$@" 2>&1 | tee "$tmp/out"
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/out" | tail -1)
    if [ -z "$line" ]; then
        fail=$((fail + 1))
        echo "not ok - tests/mpi/run.sh $* gave no summary"
        return
    fi
    pass=$((pass + ${line%% passed*}))
    line=${line#*passed, }
    fail=$((fail + ${line%% failed*}))
}
# the PMPI_ prototypes (mpi/include/mpi_pmpi.h) are generated from mpi.h
if sh scripts/gen_pmpi_h.sh --check; then
    echo "ok - mpi/include/mpi_pmpi.h matches mpi.h"
    pass=$((pass + 1))
else
    echo "not ok - mpi/include/mpi_pmpi.h is stale: run scripts/gen_pmpi_h.sh"
    fail=$((fail + 1))
fi
# mpi/large_count.c is generated from mpi.h's large-count block
if command -v python3 >/dev/null && command -v clang-format >/dev/null; then
    if python3 scripts/gen_large_count.py --check; then
        echo "ok - mpi/large_count.c matches mpi.h (scripts/gen_large_count.py)"
        pass=$((pass + 1))
    else
        echo "not ok - mpi/large_count.c is stale: run scripts/gen_large_count.py"
        fail=$((fail + 1))
    fi
fi
run --manifest tests/mpi3/manifest --providers shm
run --manifest tests/mpi3/manifest.net --providers "tcp sockets"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
