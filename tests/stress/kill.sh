#!/usr/bin/env bash
# tests/stress/kill.sh [N]: N times (default 50) per provider (KILL_PROVIDERS,
# default "mbshm tcp"), start a 4-rank job of
# tests/stress (random traffic), SIGKILL one random rank at a random moment,
# and check that the job ends by itself with a clear message and a non-zero
# status, within a bound, leaving no process behind. Counts the outcomes and
# ends with "N passed, M failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
n=${1:-50}
prov=${KILL_PROVIDERS:-"mbshm tcp"}
pass=0
fail=0
[ -x build/stress ] || { echo "build/stress missing: make build/stress"; echo "0 passed, 1 failed"; exit 1; }
for i in $(seq 1 "$n"); do
    for p in $prov; do
        out=$(mktemp)
        bin/mpirun -n 4 --provider "$p" --timeout 60 build/stress -t 30 -s "$i" >"$out" 2>&1 &
        mp=$!
        # wait (bounded) until the 4 ranks exist
        ranks=""
        for _ in $(seq 1 200); do
            ranks=$(pgrep -P "$mp" | tr '\n' ' ')
            [ "$(echo $ranks | wc -w)" -ge 4 ] && break
            sleep 0.02
        done
        victim=$(echo $ranks | tr ' ' '\n' | shuf -n 1)
        # a random point in the run: the delay only picks the moment
        sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
        kill -KILL "$victim" 2>/dev/null
        ended=0
        for _ in $(seq 1 150); do
            if ! kill -0 "$mp" 2>/dev/null; then ended=1; break; fi
            sleep 0.1
        done
        if [ $ended = 0 ]; then
            kill -KILL "$mp" 2>/dev/null
            for r in $ranks; do kill -KILL "$r" 2>/dev/null; done
        fi
        wait "$mp"
        rc=$?
        left=""
        for r in $ranks; do kill -0 "$r" 2>/dev/null && left="$left $r"; done
        # shared-memory files of the job (named after its id, which starts
        # with mpirun's pid) must be gone too: mpirun removes what the killed
        # rank could not
        shm_left=$(ls /dev/shm 2>/dev/null | grep -E "^(mbmpi_|mbshm-)$mp-" | tr '\n' ' ')
        [ -n "$shm_left" ] && left="$left /dev/shm: $shm_left"
        if [ $ended = 1 ] && [ "$rc" != 0 ] && [ -z "$left" ] && grep -q "killed by signal 9" "$out"; then
            pass=$((pass + 1))
            echo "ok - kill $i $p (exit $rc)"
        else
            # the job runs 30 s and the kill comes within 1 s: a job that
            # still exits 0 did not notice the death of a rank
            fail=$((fail + 1))
            echo "not ok - kill $i $p (ended=$ended exit=$rc left:${left:- none})"
            tail -3 "$out" | sed 's/^/#   /'
        fi
        rm -f "$out"
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
