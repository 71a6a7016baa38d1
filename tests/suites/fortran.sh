#!/usr/bin/env bash
# tests/suites/fortran.sh: the Fortran bindings' suite (part of `make test`).
#   1. tests/fortran/check_mpif.sh: mpif.h values equal mpi.h's, form checks;
#      mpi/fortran/mpi_f08.f90 is what scripts/gen_f08.py writes;
#   2. bin/mpifort -show prints a gfortran line that links libmpi;
#   3. every line of tests/fortran/manifest over shm, and the point-to-point
#      and reduction lines at 2-3 ranks over tcp;ofi_rxm.
# Ends with "N passed, M failed"; exit status 1 when M > 0. About a minute
# on two loaded cores.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
fc=${MBMPI_FC:-gfortran}
passed=0
failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

add_counts() { # the "N passed, M failed" line of a run.sh log
    local l
    l=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
    if [ -z "$l" ]; then
        echo "not ok - $2 printed no summary"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + $(echo "$l" | awk '{print $1}')))
    failed=$((failed + $(echo "$l" | awk '{print $3}')))
}

if ! command -v "$fc" >/dev/null; then
    echo "not ok - $fc is not installed (apt-get install gfortran)"
    echo "$passed passed, 1 failed"
    exit 1
fi

bash tests/fortran/check_mpif.sh >"$log/h" 2>&1
cat "$log/h"
passed=$((passed + $(grep -c '^ok - ' "$log/h")))
failed=$((failed + $(grep -c '^not ok - ' "$log/h")))

show=$(bin/mpifort -show -O2 prog.f -o prog 2>&1)
case "$show" in
*"$fc"*"-I$root/mpi/include"*prog.f*-lmpi*)
    echo "ok - bin/mpifort -show: $show"
    passed=$((passed + 1))
    ;;
*)
    echo "not ok - bin/mpifort -show printed: $show"
    failed=$((failed + 1))
    ;;
esac

# an `mpi` module that does not build is reported (it used to leave the
# previous module in place without a word): a copy of the tree's layout
# with an mpif.h that is not Fortran
mkdir -p "$log/p/bin" "$log/p/mpi/include" "$log/p/mpi/fortran" "$log/p/scripts"
cp bin/mpifort "$log/p/bin/" && cp scripts/wrapper.sh "$log/p/scripts/"
cp mpi/fortran/mpi_mod.f90 mpi/fortran/mpi_f08.f90 "$log/p/mpi/fortran/"
echo '      THIS IS NOT FORTRAN' >"$log/p/mpi/include/mpif.h"
err=$("$log/p/bin/mpifort" -show prog.f 2>&1 >/dev/null)
case "$err" in
*"mpi / mpi_f08 modules do not build"*)
    echo "ok - bin/mpifort reports an mpi module that does not build"
    passed=$((passed + 1))
    ;;
*)
    echo "not ok - bin/mpifort said nothing of a broken mpi module: $err"
    failed=$((failed + 1))
    ;;
esac

# mpi/fortran/mpi_f08.f90 is generated: it must be what scripts/gen_f08.py
# writes from the bindings, mpif.h and mpi.h of this tree
if command -v python3 >/dev/null; then
    if python3 scripts/gen_f08.py --check >"$log/g" 2>&1; then
        echo "ok - mpi/fortran/mpi_f08.f90 is up to date with scripts/gen_f08.py"
        passed=$((passed + 1))
    else
        echo "not ok - $(cat "$log/g")"
        failed=$((failed + 1))
    fi
fi

tests/mpi/run.sh --src tests/fortran --manifest tests/fortran/manifest --providers shm 2>&1 | tee "$log/shm"
add_counts "$log/shm" "run.sh (shm)"
tests/mpi/run.sh --src tests/fortran --manifest tests/fortran/manifest --providers tcp \
    --filter '^(pingpong|reduce|status|alltoallv|p2pmore|usef08|ports) np=[23]$' 2>&1 | tee "$log/tcp"
add_counts "$log/tcp" "run.sh (tcp)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
