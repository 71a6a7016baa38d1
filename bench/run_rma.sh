#!/usr/bin/env bash
# bench/run_rma.sh: one-sided figures of mbmpi, Open MPI and MPICH side by
# side (bench/rma.c on 2 local ranks; what `make bench-rma` runs).
# Builds bench/rma.c with bin/mpicc, mpicc.openmpi and mpicc.mpich (an MPI
# that is not installed is skipped), runs them alternately A B C for
# RMA_ROUNDS rounds (3) so the machine's drifts hit all alike, and prints
# per measure the median over the rounds for each MPI and the ratio
# mbmpi / peer (latency: < 1 means mbmpi is faster; MB/s: > 1 does).
# Open MPI runs with its defaults (osc/sm on one host); 4.1.4 crashes in
# MPI_Compare_and_swap on MPI_LONG, so its later measures are missing ("-").
# Every command run
# is printed. Environment: RMA_ROUNDS (3), RMA_ARGS (passed to rma).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mkdir -p build/bench
ROUNDS=${RMA_ROUNDS:-3}
ARGS=${RMA_ARGS:-}
declare -A CC=([mbmpi]=bin/mpicc [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A RUN=([mbmpi]="bin/mpirun -n 2" [openmpi]="mpirun.openmpi -n 2" [mpich]="mpirun.mpich -n 2")
[ "$(id -u)" = 0 ] && RUN[openmpi]="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --allow-run-as-root -n 2"
mpis=""
for m in mbmpi openmpi mpich; do
    if ! command -v "${CC[$m]%% *}" >/dev/null 2>&1 && [ ! -x "${CC[$m]}" ]; then
        echo "run_rma: ${CC[$m]} not found; $m skipped"
        continue
    fi
    exe=build/bench/rma.$m
    echo "+ ${CC[$m]} -O2 -o $exe bench/rma.c"
    ${CC[$m]} -O2 -o "$exe" bench/rma.c || { echo "run_rma: $m build failed"; continue; }
    mpis="$mpis $m"
done
out=$(mktemp -d)
for r in $(seq "$ROUNDS"); do
    for m in $mpis; do
        echo "+ ${RUN[$m]} build/bench/rma.$m $ARGS   (round $r)"
        # shellcheck disable=SC2086
        timeout 120 ${RUN[$m]} "build/bench/rma.$m" $ARGS >"$out/$m.$r" 2>&1 || echo "run_rma: $m round $r failed"
    done
done
printf '%-24s' measure
for m in $mpis; do printf '%14s' "$m"; done
for m in $mpis; do [ "$m" = mbmpi ] || printf '%16s' "mbmpi/$m"; done
echo
for name in $(awk '{print $1}' "$out/mbmpi.1" 2>/dev/null); do
    printf '%-24s' "$name"
    declare -A med=()
    for m in $mpis; do
        med[$m]=$(cat "$out/$m".* 2>/dev/null | awk -v n="$name" '$1 == n {print $2}' | sort -g |
            awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}')
        printf '%14s' "${med[$m]}"
    done
    for m in $mpis; do
        [ "$m" = mbmpi ] && continue
        printf '%16s' "$(awk -v a="${med[mbmpi]}" -v b="${med[$m]}" 'BEGIN {if (b + 0 > 0) printf "%.2f", a / b; else print "-"}')"
    done
    echo "   ($(awk -v n="$name" '$1 == n {print $3; exit}' "$out/mbmpi.1"))"
done
rm -rf "$out"
