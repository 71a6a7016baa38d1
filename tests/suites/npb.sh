#!/usr/bin/env bash
# tests/suites/npb.sh: the NPB kernels of npb/ (built by `make test` through
# TEST_BUILD into build/npb/<k>): class S of every present kernel at NP = 1,
# 2 and 4 over shm and NP = 2 over tcp;ofi_rxm must exit 0 and print
# "Verification = SUCCESSFUL"; IS at NP = 3 must exit 2 with its message.
# Ends with "N passed, M failed"; exit 1 when something failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
TMO=${NPB_TEST_TIMEOUT:-60}

ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }

check() { # kernel np provider
    local k=$1 n=$2 prov=$3 rc
    if [ ! -x "build/npb/$k" ]; then
        not_ok "npb $k S np=$n $prov: build/npb/$k missing"
        return
    fi
    timeout -k 5 $((TMO + 10)) bin/mpirun -n "$n" --provider "$prov" --timeout "$TMO" "build/npb/$k" S \
        >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -qE 'Verification += +SUCCESSFUL' "$log"; then
        ok "npb $k S np=$n $prov ($(awk -F= '/Time in seconds/ { gsub(/ /, "", $2); print $2 }' "$log") s)"
    else
        not_ok "npb $k S np=$n $prov: exit $rc"
        tail -n 15 "$log" | sed 's/^/#   /'
    fi
}

for k in ep is cg mg ft; do
    [ -f "npb/$k.c" ] || continue
    for n in 1 2 4; do check "$k" "$n" shm; done
    check "$k" 2 'tcp;ofi_rxm'
done

# an invalid process count: IS needs a power of two
if [ -x build/npb/is ]; then
    timeout -k 5 $((TMO + 10)) bin/mpirun -n 3 --provider shm --timeout "$TMO" build/npb/is S >"$log" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q 'invalid number of processes 3' "$log"; then
        ok "npb is S np=3 refused (exit 2)"
    else
        not_ok "npb is S np=3: exit $rc, expected 2 and 'invalid number of processes 3'"
        tail -n 5 "$log" | sed 's/^/#   /'
    fi
else
    not_ok "npb is S np=3: build/npb/is missing"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
