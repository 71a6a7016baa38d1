#!/usr/bin/env bash
# tests/suites/bench_coll.sh: smoke test of bench/plogp and bench/coll (part
# of `make test`, about 20 s on 2 cores). Checks that plogp writes a
# well-formed parameter file that the library accepts (MBMPI_PLOGP_FILE),
# that bench/coll runs every operation with every algorithm (forced) and the
# automatic choice at P = 3 and finds every result correct (its own check),
# and that the OSU-style output works over tcp. Timing values are not checked.
# Ends with "N passed, M failed"; exit status 1 when M > 0.
set -u
cd "$(dirname "$0")/../.." || exit 2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok - $1"; }
nok() { fail=$((fail + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && sed 's/^/#   /' "$2" | tail -15; }

for b in plogp coll; do
    if [ ! -x build/bench/$b ]; then
        make -s build/bench/$b >"$tmp/make.txt" 2>&1 || { nok "build build/bench/$b" "$tmp/make.txt"; }
    fi
done

# ---- plogp: file format --------------------------------------------------------
f=$tmp/p.plogp
if timeout -k 3 70 bin/mpirun -n 2 --provider shm --timeout 60 build/bench/plogp -m 64K -r 1 -i 0.05 \
    -o "$f" --csv "$tmp/p.csv" >"$tmp/plogp.txt" 2>&1; then
    if head -1 "$f" | grep -qx '# mbmpi pLogP parameters v1' &&
        awk '$1 == "L" && $2 + 0 > 0 { l++ }
             /^[0-9]/ { if (NF != 7) bad++; for (i = 2; i <= NF; i++) if ($i + 0 <= 0) bad++; n++ }
             END { exit !(l == 1 && n == 17 && !bad) }' "$f" &&
        [ "$(wc -l <"$tmp/p.csv")" = 19 ] && head -1 "$tmp/p.csv" | grep -qx 'm,os_us,or_us,g_us,rtt_us,ow_us,xw_us'; then
        ok "plogp -m 64K writes L and 17 rows m os or g rtt ow xw (1 .. 64K) and the CSV"
    else
        nok "plogp parameter file malformed" "$f"
    fi
else
    nok "plogp run (shm, 2 ranks)" "$tmp/plogp.txt"
fi

# ---- coll: every operation x algorithm, results checked -----------------------
for op in bcast scatter gather alltoall allreduce reduce allgather barrier; do
    out=$tmp/coll_$op.txt
    if timeout -k 3 70 bin/mpirun -n 3 --provider shm --timeout 60 build/bench/coll -c "$op" -m 1:4K -f 16 -r 1 -i 1 \
        --csv "$tmp/coll_$op.csv" >"$out" 2>&1; then
        if ! grep -q MBMPI_HAVE_COLL_EXT mpi/include/mpi.h || grep -q '^[0-9]* *auto(' "$out"; then
            ok "coll -c $op, P=3: every algorithm and auto ran with correct results"
        else
            nok "coll -c $op printed no auto line" "$out"
        fi
    else
        nok "coll -c $op, P=3 (exit status, wrong result or failed call)" "$out"
    fi
done

# ---- the barrier timing (OSU's) besides the default synchronised starts --------
out=$tmp/coll_sync.txt
if timeout -k 3 70 bin/mpirun -n 3 --timeout 60 build/bench/coll -c bcast -m 1:4K -f 64 -r 1 -i 2 --sync barrier \
    >"$out" 2>&1 && grep -q 'after a barrier' "$out" && [ "$(grep -c '^[0-9]* *auto(' "$out")" = 3 ]; then
    ok "coll --sync barrier times after a barrier (3 sizes, results correct)"
else
    nok "coll --sync barrier" "$out"
fi

# ---- --nonblocking: the I-variants, every algorithm forced, results checked ----
out=$tmp/coll_nb.txt
if timeout -k 3 70 bin/mpirun -n 3 --timeout 60 build/bench/coll -c allreduce -m 4:4K -f 32 -r 1 -i 2 --nonblocking \
    >"$out" 2>&1 && [ "$(grep -c '^[0-9]* *auto(' "$out")" = 3 ] && ! grep -q 'WRONG' "$out"; then
    ok "coll --nonblocking: MPI_Iallreduce with every algorithm forced (3 sizes, results correct)"
else
    nok "coll --nonblocking" "$out"
fi

# ---- OSU format over tcp, and a measured parameter file loaded ----------------
out=$tmp/osu.txt
if timeout -k 3 70 bin/mpirun -n 2 --provider tcp --timeout 60 build/bench/coll -c allreduce --osu -m 4:1K -f 16 -r 1 -i 2 \
    >"$out" 2>&1 && grep -q '^# Size  *Avg Latency(us)' "$out" && [ "$(grep -c '^[0-9]' "$out")" = 3 ]; then
    ok "coll --osu over tcp prints the OSU-style table"
else
    nok "coll --osu over tcp" "$out"
fi
# OSU's full format: Avg (the mean over the ranks), Min and Max (the fastest
# and the slowest rank's mean), Iterations; the CSV the same three times
out=$tmp/osu3.txt
if timeout -k 3 70 bin/mpirun -n 3 --timeout 60 build/bench/coll -c bcast --osu -m 8:8K -f 32 -r 2 -i 3 --csv $tmp/osu3.csv \
    >"$out" 2>&1 && grep -q '^# Size  *Avg Latency(us)  *Min Latency(us)  *Max Latency(us)  *Iterations$' "$out" &&
    [ "$(awk '/^[0-9]/ && NF == 5 && $3 <= $2 && $2 <= $4 && $3 > 0 && $5 == 6' "$out" | wc -l)" = 3 ] &&
    [ "$(awk -F, 'NR == 1 && $0 == "size,avg_latency_us,min_latency_us,max_latency_us" { h = 1 }
                 NR > 1 && NF == 4 && $3 <= $2 && $2 <= $4 { n++ } END { print h + 0, n + 0 }' $tmp/osu3.csv)" = "1 3" ]; then
    ok "coll --osu: Avg, Min and Max over the ranks (Min <= Avg <= Max), CSV alike"
else
    nok "coll --osu Avg / Min / Max" "$out"
fi
out=$tmp/file.txt
if [ -s "$f" ]; then
    if MBMPI_PLOGP_FILE=$f timeout -k 3 70 bin/mpirun -n 4 --provider shm --timeout 60 build/bench/coll -c bcast \
        -m 8:64K -f 8 -r 1 -i 1 >"$out" 2>&1 && ! grep -qi 'warn\|error' "$out"; then
        ok "coll with MBMPI_PLOGP_FILE set to the file plogp wrote"
    else
        nok "coll with MBMPI_PLOGP_FILE=<plogp output>" "$out"
    fi
fi

# ---- run_coll.sh coll with COLL_CALIBRATE=1: parameters measured per round ----
# (and wake, turn, xwait fitted between rounds: P = 3 counts as more ranks
# than CPUs with COLL_FIT_CPUS=2, whatever the machine)
out=$tmp/cal.txt
mkdir -p "$tmp/cal"
# a round 3 left by an earlier run of more rounds must not join the medians
printf 'op,P,m,algo,measured_us,predicted_us,chosen\nbcast,3,1024,flat,5.0,5.0,\nbcast,3,1024,auto,5.0,5.0,flat\nbcast,3,4096,flat,5.0,5.0,\nbcast,3,4096,auto,5.0,5.0,flat\n' \
    >"$tmp/cal/coll_mbshm_bcast_P3_r3.csv"
if BENCH_OUT=$tmp/cal COLL_OPS=bcast COLL_NP=3 COLL_SIZES=1:64 COLL_FACTOR=8 COLL_REPS=1 COLL_ROUNDS=2 \
    COLL_PROVIDERS=mbshm COLL_CALIBRATE=1 COLL_FIT_CPUS=2 timeout -k 3 180 bash bench/run_coll.sh coll >"$out" 2>&1; then
    good=1
    for r in 1 2; do
        c=$tmp/cal/calibrate_mbshm_r$r.plogp
        [ -s "$c" ] && grep -q '^wake ' "$c" && grep -q '^turn ' "$c" && grep -q '^xwait ' "$c" &&
            [ "$(grep -c '^[0-9]' "$c")" = 7 ] || good=0 # m = 1 .. 64
    done
    # each round scored alone: up to 2 rounds x 3 sizes, more than one
    # round's 3 (a point whose pick was not timed is not scored)
    if [ $good = 1 ] && awk -F, '$1 == "mbshm" && $4 > 3 && $4 <= 6 { f = 1 } END { exit !f }' "$tmp/cal/coll_summary.csv" &&
        awk -F, '$1 == "round1" { a = 1 } $1 == "round2" { b = 1 } END { exit !(a && b) }' "$tmp/cal/coll_summary.csv"; then
        ok "run_coll.sh coll, COLL_CALIBRATE=1: a parameter file per round, rounds scored alone, no stale round"
    else
        nok "run_coll.sh coll, COLL_CALIBRATE=1: files or summary" "$out"
    fi
    # round 2's file has the wake, turn, xwait fitted on round 1, and they load
    c=$tmp/cal/calibrate_mbshm_r2.plogp
    if grep -q '^# wake, turn, xwait: fitted .* to 1 bench/coll jobs' "$c" &&
        ! grep -q '^# wake, turn, xwait: fitted' "$tmp/cal/calibrate_mbshm_r1.plogp" &&
        [ "$(grep -c '^wake ' "$c")" = 1 ] && grep -q 'round 1 mbshm: wake, turn, xwait fitted on 1 jobs' "$out" &&
        MBMPI_PLOGP_FILE=$c timeout -k 3 30 bin/mpirun -n 3 build/bench/coll -c bcast --predict-only -m 1:64 -f 8 \
            >"$tmp/fitload.txt" 2>&1; then
        ok "run_coll.sh coll, COLL_CALIBRATE=1: wake, turn, xwait fitted on round 1 carried into round 2's file"
    else
        nok "run_coll.sh coll: fitted lines in round 2's file" "$out"
    fi
else
    nok "run_coll.sh coll, COLL_CALIBRATE=1 (exit status)" "$out"
fi

# ---- run_coll.sh plogp: mbshm's ring lines (one-way through the rings) ----
out=$tmp/rp.txt
if BENCH_OUT=$tmp/rp PLOGP_PROVIDERS=mbshm PLOGP_RUNS=1 PLOGP_MAX=64K PLOGP_SCALE=0.05 PLOGP_REPS=1 PLOGP_FIT_NP= \
    timeout -k 3 120 bash bench/run_coll.sh plogp >"$out" 2>&1; then
    f=$tmp/rp/plogp_mbshm.plogp
    # rows 1 .. 64K, and ring lines at 32K and 64K (5 numbers each) that
    # MPI_Init accepts
    if [ "$(grep -c '^[0-9]' "$f")" = 17 ] &&
        [ "$(awk '$1 == "ring" && NF == 6 && ($2 == 32768 || $2 == 65536)' "$f" | wc -l)" = 2 ] &&
        MBMPI_PLOGP_FILE=$f timeout -k 3 60 bin/mpirun -n 2 --timeout 60 build/bench/coll -c bcast -m 64K:64K \
            --predict-only >>"$out" 2>&1; then
        ok "run_coll.sh plogp: mbshm's file gets ring lines from 32 KiB (MBMPI_SHM_CMA=0 runs) and loads"
    else
        nok "run_coll.sh plogp: ring lines" "$f"
    fi
else
    nok "run_coll.sh plogp (exit status)" "$out"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
