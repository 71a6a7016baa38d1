#!/usr/bin/env bash
# tests/suites/shift.sh: the MPIX_Shift tests (issue 7), run by
# scripts/run_tests.sh (suite "extra"): tests/shift/*.c through
# tests/mpi/run.sh, the lines of tests/shift/manifest over shm and those of
# tests/shift/manifest.tcp over tcp;ofi_rxm. The max-plus unit test
# (build/unit/test_maxplus) runs in the unit suite. Ends with one line
# "N passed, M failed"; exit status 1 when M > 0. About a minute on 2 cores.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0

# run.sh's own summary line is folded into this script's single final one
run() {
    local what=$1 p
    shift
    tests/mpi/run.sh --src tests/shift --timeout 150 "$@" >"$log" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$log"
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 |
        sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
    if [ -z "$p" ]; then
        echo "not ok - tests/mpi/run.sh ($what) printed no summary"
        fail=$((fail + 1))
        return
    fi
    pass=$((pass + ${p% *}))
    fail=$((fail + ${p#* }))
}

run shm --manifest tests/shift/manifest --providers shm
run tcp --manifest tests/shift/manifest.tcp --providers tcp
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
