#!/usr/bin/env bash
# tests/suites/shmem.sh: mbmpi's own shared-memory transport (mbshm,
# transport/shmem.c), run by scripts/run_tests.sh (suite "extra"):
#   1. the whole MPI manifest (tests/mpi/manifest) over --provider mbshm;
#   2. a few point-to-point lines again with MBMPI_SHM_CMA=0 (every write
#      goes through the rings, pipelined) and a small ring (MBMPI_SHM_RING);
#   3. a short stress run (build/stress, 4 ranks, 3 s) over mbshm;
#   4. a rank SIGKILLs itself: no /dev/shm/mbshm-<job>-* file of that job
#      may survive mpirun (it removes what killed ranks left).
# The unit test build/unit/test_shmem runs in the unit suite. Ends with one
# line "N passed, M failed"; exit status 1 when M > 0. About 2 minutes on 2
# loaded cores.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }

# run.sh's own summary line is folded into this script's single final one
run() {
    local what=$1 p
    shift
    tests/mpi/run.sh --timeout 150 "$@" >"$tmp/log" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/log"
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/log" | tail -1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
    if [ -z "$p" ]; then
        notok "tests/mpi/run.sh ($what) printed no summary"
        return
    fi
    pass=$((pass + ${p% *}))
    fail=$((fail + ${p#* }))
}

# 1. the manifest over mbshm
run manifest --providers mbshm

# 2. writes through the rings only, and a ring smaller than the default
{
    for l in "p2p_basic 4" "p2p_order 3" "p2p_basic 16"; do
        echo "$l ok MBMPI_SHM_CMA=0"
    done
    echo "p2p_basic 3 ok MBMPI_SHM_CMA=0 MBMPI_SHM_RING=64K"
    echo "p2p_order 2 ok MBMPI_SHM_RING=64K"
} >"$tmp/manifest"
if grep -q -E '^p2p_basic ' tests/mpi/manifest && grep -q -E '^p2p_order ' tests/mpi/manifest; then
    run ring-only --manifest "$tmp/manifest" --providers mbshm
else
    notok "tests/mpi/manifest has no p2p_basic / p2p_order lines any more"
fi

# 3. a short stress run
if [ -x build/stress ] || make -s build/stress >/dev/null 2>&1; then
    if bin/mpirun -n 4 --provider mbshm --timeout 60 build/stress -t 3 >"$tmp/stress" 2>&1; then
        ok "stress -n 4 -t 3 over mbshm"
    else
        notok "stress -n 4 -t 3 over mbshm: $(tail -3 "$tmp/stress" | tr '\n' ' ')"
    fi
else
    notok "build/stress could not be built"
fi

# 4. a SIGKILLed rank leaves no segment behind
cat >"$tmp/killed.c" <<'EOF'
/* Rank 0 checks its own segment exists, then rank 1 SIGKILLs itself. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, x = 0;
    char path[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof(path), "/dev/shm/mbshm-%s-%d", getenv("MBMPI_JOBID") ? getenv("MBMPI_JOBID") : "?", rank);
    if (rank == 0)
        printf("segment %s\n", access(path, F_OK) == 0 ? "present" : "missing");
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        raise(SIGKILL);
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never comes */
    MPI_Finalize();
    return 0;
}
EOF
if bin/mpicc -o "$tmp/killed" "$tmp/killed.c" >"$tmp/cc" 2>&1; then
    bin/mpirun -n 3 --provider mbshm --timeout 60 "$tmp/killed" >"$tmp/killed.out" 2>&1 &
    job=$!
    wait $job
    st=$?
    left=$(ls /dev/shm 2>/dev/null | grep -c -E "^mbshm-$job-")
    if ! grep -q "segment present" "$tmp/killed.out"; then
        notok "SIGKILL cleanup: rank 0 did not see its segment ($(tr '\n' ' ' <"$tmp/killed.out"))"
    elif [ "$st" = 0 ]; then
        notok "SIGKILL cleanup: mpirun exited 0 although a rank was killed"
    elif [ "$left" != 0 ]; then
        notok "SIGKILL cleanup: $left /dev/shm/mbshm-$job-* files survived the job"
        rm -f /dev/shm/mbshm-"$job"-*
    else
        ok "SIGKILL cleanup: no /dev/shm file of the job survives (mpirun exit $st)"
    fi
else
    notok "SIGKILL cleanup: cannot build the test program: $(tail -3 "$tmp/cc" | tr '\n' ' ')"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
