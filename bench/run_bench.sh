#!/usr/bin/env bash
# bench/run_bench.sh: the mbmpi benchmark sweep (what `make bench` runs).
#
# Builds build/bench/rtt and build/bench/bw with bin/mpicc, then runs each on
# 2 local ranks over the shm and tcp providers, with MBMPI_PROTOCOL=auto and
# eager (8 runs). One progress line per run goes to stderr, one table to
# stdout: per size, the median half round-trip time (us) and the median
# streaming bandwidth (MB/s = 10^6 B/s) of every provider x mode.
#
# Files in bench/out/ (BENCH_OUT):
#   rtt_<provider>_<mode>.csv, bw_<provider>_<mode>.csv   one per run (the
#       benchmark's own --csv; rebuilt from its stdout when the run failed)
#   rtt_*.txt, bw_*.txt, *.err                           raw output
#   latency.csv, bandwidth.csv   size + one column per provider_mode
#   latency.png, bandwidth.png   log-log plots (gnuplot; skipped with a
#                                message when gnuplot is not installed)
#
# Environment (default):
#   BENCH_SCALE (0.3)    -i: scales the iteration / window counts
#   BENCH_REPS (3)       -r: repetitions per size (medians are reported)
#   BENCH_TIMEOUT (20)   seconds per run (mpirun --timeout, plus `timeout`)
#   BENCH_BUDGET (150)   no run starts, nor runs, past this many seconds
#   BENCH_RTT_SIZES, BENCH_BW_SIZES   -s lists (see below)
#   BENCH_OUT (bench/out)
# Eight runs at the defaults take well under a minute on an idle 2-core
# machine; even if every run hung, the script ends in < 3 minutes (runs that
# would start after BENCH_BUDGET are skipped and count as failed).
#
# Exit status: 0 when the builds and all 8 runs succeeded, 1 otherwise (the
# table is still printed; cells of a failed run read "fail", and the exact
# command of every failed run is printed on stderr).

set -u
cd "$(dirname "$0")/.." || exit 1
SECONDS=0

SCALE=${BENCH_SCALE:-0.3}
REPS=${BENCH_REPS:-3}
TMO=${BENCH_TIMEOUT:-20}
BUDGET=${BENCH_BUDGET:-150}
OUT=${BENCH_OUT:-bench/out}
BUILD=build/bench
# table sizes plus a few more points for the plots
RTT_SIZES=${BENCH_RTT_SIZES:-0,8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
BW_SIZES=${BENCH_BW_SIZES:-8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
TABLE_SIZES="0 8 64 1024 8192 65536 262144 1048576 4194304"
PROVIDERS="shm tcp"
MODES="auto eager"

die() { echo "run_bench: $*" >&2; exit 1; }
label() { # bytes -> 0, 8, 1K, 4M
    local n=$1
    if [ "$n" -ge 1048576 ] && [ $((n % 1048576)) -eq 0 ]; then echo "$((n / 1048576))M"
    elif [ "$n" -ge 1024 ] && [ $((n % 1024)) -eq 0 ]; then echo "$((n / 1024))K"
    else echo "$n"; fi
}

# ---- build -----------------------------------------------------------------
if [ ! -f lib/libmpi.a ] || [ ! -x bin/mpirun ]; then
    echo "run_bench: lib/libmpi.a or bin/mpirun missing: running make" >&2
    make -s all >&2 || die "make failed"
fi
mkdir -p "$BUILD" "$OUT" || die "cannot create $BUILD or $OUT"
for b in rtt bw; do
    bin/mpicc -O2 -o "$BUILD/$b" "bench/$b.c" || die "building $BUILD/$b failed"
done

# ---- runs ------------------------------------------------------------------
total=$(( $(echo $PROVIDERS | wc -w) * $(echo $MODES | wc -w) * 2 ))
step=0
failed=()
declare -A status # tag -> ok | fail
for prov in $PROVIDERS; do
    for mode in $MODES; do
        for b in rtt bw; do
            step=$((step + 1))
            tag=${b}_${prov}_${mode}
            if [ $b = rtt ]; then sizes=$RTT_SIZES; else sizes=$BW_SIZES; fi
            printf '[%d/%d] %-3s %s %-5s ... ' $step $total $b "$prov" "$mode" >&2
            t=$((BUDGET - SECONDS))
            [ $t -gt "$TMO" ] && t=$TMO
            if [ $t -lt 3 ]; then
                status[$tag]=fail
                echo "SKIPPED (time budget of $BUDGET s spent)" >&2
                failed+=("[$step] $b $prov $mode: skipped, time budget spent")
                continue
            fi
            cmd=(env MBMPI_PROTOCOL=$mode bin/mpirun -n 2 --provider "$prov" --timeout "$t"
                 "$BUILD/$b" -i "$SCALE" -r "$REPS" -s "$sizes" --csv "$OUT/$tag.csv")
            rm -f "$OUT/$tag.csv"
            t0=$(date +%s.%N)
            timeout -k 2 $((t + 3)) "${cmd[@]}" >"$OUT/$tag.txt" 2>"$OUT/$tag.err"
            rc=$?
            dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            if [ $rc -eq 0 ] && [ -s "$OUT/$tag.csv" ]; then
                status[$tag]=ok
                [ -s "$OUT/$tag.err" ] || rm -f "$OUT/$tag.err"
                echo "ok (${dt} s)" >&2
            else
                status[$tag]=fail
                # keep what the run printed before it failed
                if [ $b = rtt ]; then
                    hdr=size,half_rtt_median_us,half_rtt_min_us,rtt_median_us
                else
                    hdr=size,bandwidth_median_mb_s,bandwidth_max_mb_s
                fi
                { echo "$hdr"; awk '!/^#/ && NF >= 3 && $1 ~ /^[0-9]+$/ { $1 = $1; gsub(/ /, ","); print }' \
                    "$OUT/$tag.txt"; } >"$OUT/$tag.csv"
                last=$(tail -n +2 "$OUT/$tag.csv" | tail -1 | cut -d, -f1)
                why="exit $rc"
                [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="exit $rc: no end after ${t} s (hang?)"
                echo "FAIL ($why; last size completed: ${last:-none}; ${dt} s)" >&2
                failed+=("[$step] ${cmd[*]}")
            fi
        done
    done
done

# ---- combined CSVs and table ---------------------------------------------------
# value <tag> <size>: column 2 (the median) of that run's CSV, empty if absent
value() { awk -F, -v s="$2" 'NR > 1 && $1 == s { print $2; exit }' "$OUT/$1.csv" 2>/dev/null; }

combine() { # combine rtt|bw sizes file
    local b=$1 sizes=$2 file=$3 hdr=size s row tag
    for prov in $PROVIDERS; do for mode in $MODES; do hdr="$hdr,${prov}_$mode"; done; done
    {
        echo "$hdr"
        for s in $(echo "$sizes" | tr , ' '); do
            s=$(echo "$s" | awk '{ v = $0 + 0; if ($0 ~ /[Kk]$/) v *= 1024; if ($0 ~ /[Mm]$/) v *= 1048576; print v }')
            row=$s
            for prov in $PROVIDERS; do for mode in $MODES; do
                row="$row,$(value ${b}_${prov}_$mode "$s")"
            done; done
            echo "$row"
        done
    } >"$file"
}
combine rtt "$RTT_SIZES" "$OUT/latency.csv"
combine bw "$BW_SIZES" "$OUT/bandwidth.csv"

cell() { # cell rtt|bw tag size
    local v
    if [ "$1" = bw ] && [ "$3" -eq 0 ]; then printf ' %9s' -; return; fi
    v=$(value "$2" "$3")
    if [ -n "$v" ]; then
        if [ "$1" = rtt ]; then printf ' %9.2f' "$v"; else printf ' %9.1f' "$v"; fi
    elif [ "${status[$2]}" = fail ]; then printf ' %9s' fail
    else printf ' %9s' n/a; fi
}

cols=""
for prov in $PROVIDERS; do for mode in $MODES; do cols="$cols $(printf '%9s' "$prov/$mode")"; done; done
echo "# mbmpi, 2 ranks on $(hostname), $(date '+%Y-%m-%d %H:%M %Z'); rtt/bw -i $SCALE -r $REPS; medians of the repetitions"
echo "#        | half round-trip time (us), lower is better | bandwidth (MB/s = 1e6 B/s), higher is better"
echo "# size   |$cols |$cols"
for s in $TABLE_SIZES; do
    printf '%-8s |' "$(label "$s")"
    for prov in $PROVIDERS; do for mode in $MODES; do cell rtt rtt_${prov}_$mode "$s"; done; done
    printf ' |'
    for prov in $PROVIDERS; do for mode in $MODES; do cell bw bw_${prov}_$mode "$s"; done; done
    printf '\n'
done

# ---- plots -------------------------------------------------------------------
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "run_bench: gnuplot not found: skipping the plots (apt-get install gnuplot-nox)" >&2
else
    if gnuplot -e 'set terminal' 2>&1 </dev/null | grep -q '^ *pngcairo '; then
        term="pngcairo size 900,600"
    else
        term="png size 900,600"
    fi
    curves() { # curves rtt|bw
        local sep="" prov mode
        for prov in $PROVIDERS; do for mode in $MODES; do
            printf "%s'%s/%s_%s_%s.csv' skip 1 using (\$1 > 0 ? \$1 : 1/0):2 with linespoints title '%s %s'" \
                "$sep" "$OUT" "$1" "$prov" "$mode" "$prov" "$mode"
            sep=", "
        done; done
    }
    common="set terminal $term; set datafile separator ','; set logscale xy; set grid; set key left top;
set xlabel 'message size (bytes)';
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '4M' 4194304)"
    if gnuplot -e "$common; set output '$OUT/latency.png';
set title 'mbmpi ping-pong latency, 2 ranks (median half round trip; size 0 not shown)';
set ylabel 'half round-trip time (us)'; plot $(curves rtt)" 2>"$OUT/gnuplot.err" &&
       gnuplot -e "$common; set output '$OUT/bandwidth.png';
set title 'mbmpi streaming bandwidth, 2 ranks (window of 64 messages, median)';
set ylabel 'bandwidth (MB/s)'; plot $(curves bw)" 2>>"$OUT/gnuplot.err"; then
        echo "run_bench: plots: $OUT/latency.png $OUT/bandwidth.png" >&2
    else
        echo "run_bench: gnuplot failed (see $OUT/gnuplot.err)" >&2
    fi
fi

echo "run_bench: CSVs in $OUT/ (latency.csv, bandwidth.csv, one per run)" >&2
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_bench: ${#failed[@]} of $total runs FAILED:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
exit 0
