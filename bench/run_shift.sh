#!/usr/bin/env bash
# bench/run_shift.sh: the MPIX_Shift benchmark (what `make bench-shift` runs).
#
# Runs build/bench/shift (bench/shift.c) on SHIFT_NP ranks (default 8, a
# 2x2x2 periodic grid) over mbshm and tcp;ofi_rxm: d = 1..3, payloads 10 B,
# 1 KB, 100 KB, the three variants; per point the measured median and std,
# the max-plus and simple predictions from ping-pong times measured in the
# same run, their errors, the protocol shares (write / eager / rts), then the
# non-blocking variant's speed-up. About 1 to 2 minutes per provider.
#
# usage: bench/run_shift.sh [--quick] [extra options for bench/shift]
#   --quick   shorter: 0.1 s per point, at most 50 repetitions
# Environment: SHIFT_NP (8), SHIFT_PROVIDERS ("mbshm tcp"), BENCH_OUT (bench/out)
#
# Files in bench/out/:
#   shift_<provider>.txt   the table (stdout of bench/shift)
#   shift_<provider>.dat   bytes d variant median std maxplus simple write eager rts reps oneport
#                          (times in us, protocol counts per call)
#   shift_<provider>.err   stderr of the run
#   shift_<provider>.png   time against d per payload: measured (median +- std),
#                          max-plus (solid), simple (dashed) and, non-blocking,
#                          1-port (dotted) predictions, one colour per variant
#                          (gnuplot; skipped without it)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
out=${BENCH_OUT:-bench/out}
np=${SHIFT_NP:-8}
providers=${SHIFT_PROVIDERS:-mbshm tcp}
bin=build/bench/shift
args=()
for a in "$@"; do
    case "$a" in
    --quick) args+=(--budget 0.1 --max-reps 50) ;;
    *) args+=("$a") ;;
    esac
done
mkdir -p "$out"
if [ ! -x "$bin" ] || [ bench/shift.c -nt "$bin" ] || [ lib/libmpi.a -nt "$bin" ]; then
    make -s build/bench/shift || exit 1
fi

status=0
for p in $providers; do
    case "$p" in
    tcp) prov="tcp;ofi_rxm" ;;
    *) prov=$p ;;
    esac
    echo "== bench/shift: $np ranks, $prov" >&2
    if ! bin/mpirun -n "$np" --provider "$prov" --timeout 400 "$bin" --label "$prov" \
        --dat "$out/shift_$p.dat" "${args[@]}" >"$out/shift_$p.txt" 2>"$out/shift_$p.err"; then
        echo "bench/shift over $prov failed (see $out/shift_$p.err)" >&2
        tail -5 "$out/shift_$p.err" >&2
        status=1
    fi
    cat "$out/shift_$p.txt"
    echo
done

if ! command -v gnuplot >/dev/null; then
    echo "gnuplot not installed: no plots" >&2
    exit $status
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=(ssend send nonblock)
for p in $providers; do
    dat="$out/shift_$p.dat"
    [ -s "$dat" ] || continue
    sizes=$(awk '{print $1}' "$dat" | sort -n -u)
    n=$(echo "$sizes" | wc -w)
    {
        echo "set terminal pngcairo size $((500 * n)),480 noenhanced"
        echo "set output '$out/shift_$p.png'"
        echo "set multiplot layout 1,$n title 'MPIX_Shift over $p, $np ranks:" \
            "measured (median +- std, points), max-plus (solid), simple (dashed), 1-port (dotted)'"
        echo "set logscale y; set xtics 1; set offsets 0.5, 0.5, 0, 0"
        echo "set xlabel 'depth d'; set ylabel 'time (us)'"
        echo "set key top left font ',8'"
        for s in $sizes; do
            plots=()
            for v in 0 1 2; do
                f="$tmp/$p.$s.$v"
                awk -v s="$s" -v v="$v" '$1 == s && $3 == v' "$dat" >"$f"
                [ -s "$f" ] || continue
                e="'$f' using (\$2+0.05*($v-1)):4:5 with yerrorbars lc $((v + 1)) pt 7"
                plots+=("$e title '${names[$v]} measured'")
                plots+=("'$f' using 2:6 with lines lc $((v + 1)) dt 1 title '${names[$v]} max-plus'")
                plots+=("'$f' using 2:7 with lines lc $((v + 1)) dt 2 title '${names[$v]} simple'")
                [ "$v" = 2 ] && plots+=("'$f' using 2:12 with lines lc 3 dt 3 title 'nonblock 1-port'")
            done
            echo "set title '$s B per rank'"
            (IFS=,; echo "plot ${plots[*]}")
        done
        echo "unset multiplot"
    } >"$tmp/$p.gp"
    if gnuplot "$tmp/$p.gp" 2>"$tmp/$p.gperr"; then
        echo "plot: $out/shift_$p.png" >&2
    else
        echo "gnuplot failed for $p:" >&2
        cat "$tmp/$p.gperr" >&2
    fi
done
exit $status
