#!/usr/bin/env bash
# bench/run_bench.sh: the mbmpi benchmark sweep (what `make bench` runs).
#
# Builds build/bench/rtt and build/bench/bw with bin/mpicc, then runs each on
# 2 local ranks over mbshm (the default on one host), libfabric shm and tcp;ofi_rxm
# (BENCH_PROVIDERS), with MBMPI_PROTOCOL=auto and
# eager (12 runs). Then build/bench/mbcf_lat (the raw layers under MPI, built
# with cc against lib/libmpi.a) over each provider (3 runs): mbcf FIFO send and
# mbcf write + notify ping-pong, without the MPI layer. One progress line per
# run goes to stderr, one table to stdout: per size, the median half
# round-trip time (us) and the median streaming bandwidth (MB/s = 10^6 B/s)
# of every provider x mode, and the raw mbcf FIFO / write half round trip
# per provider (up to 64 KiB).
#
# usage: bench/run_bench.sh [--extra]
#   --extra   also build and run bench/bibw (bidirectional bandwidth, 2
#             ranks) and bench/msgrate (message rate, 2 pairs = 4 ranks) over
#             shm and tcp with MBMPI_PROTOCOL=auto (4 more runs) and print
#             their tables (files bibw_*.csv, msgrate_*.csv)
#
# Files in bench/out/ (BENCH_OUT):
#   rtt_<provider>_<mode>.csv, bw_<provider>_<mode>.csv   one per run (the
#       benchmark's own --csv; rebuilt from its stdout when the run failed)
#   rtt_*.txt, bw_*.txt, *.err                           raw output
#   mbcf_lat_<provider>.csv (+ .txt, .err)   raw layers: size, fifo, write,
#       tl-send, tl-write median half RTT (us), then their minima
#   latency.csv, bandwidth.csv   size + one column per provider_mode
#   latency.png, bandwidth.png   log-log plots (gnuplot; skipped with a
#                                message when gnuplot is not installed)
#
# Environment (default):
#   BENCH_SCALE (0.3)    -i: scales the iteration / window counts
#   BENCH_REPS (3)       -r: repetitions per size (medians are reported)
#   BENCH_TIMEOUT (20)   seconds per run (mpirun --timeout, plus `timeout`)
#   BENCH_BUDGET (150)   no run starts, nor runs, past this many seconds
#   BENCH_RTT_SIZES, BENCH_BW_SIZES, BENCH_RAW_SIZES   -s lists (see below)
#   BENCH_EXTRA (0)      1: as --extra
#   BENCH_OUT (bench/out)
# The ten runs at the defaults take about a minute on an idle 2-core
# machine; even if every run hung, the script ends in < 3 minutes (runs that
# would start after BENCH_BUDGET are skipped and count as failed).
#
# Exit status: 0 when the builds and all runs succeeded, 1 otherwise (the
# table is still printed; cells of a failed run read "fail", and the exact
# command of every failed run is printed on stderr).

set -u
cd "$(dirname "$0")/.." || exit 1
SECONDS=0

EXTRA=${BENCH_EXTRA:-0}
for arg in "$@"; do
    case $arg in
    --extra) EXTRA=1 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "run_bench: unknown argument '$arg' (usage: bench/run_bench.sh [--extra])" >&2; exit 2 ;;
    esac
done

SCALE=${BENCH_SCALE:-0.3}
REPS=${BENCH_REPS:-3}
TMO=${BENCH_TIMEOUT:-20}
BUDGET=${BENCH_BUDGET:-150}
OUT=${BENCH_OUT:-bench/out}
BUILD=build/bench
# table sizes plus a few more points for the plots
RTT_SIZES=${BENCH_RTT_SIZES:-0,8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
BW_SIZES=${BENCH_BW_SIZES:-8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
RAW_SIZES=${BENCH_RAW_SIZES:-0,8,64,512,1K,4K,8K,32K,64K}
TABLE_SIZES="0 8 64 1024 8192 65536 262144 1048576 4194304"
PROVIDERS=${BENCH_PROVIDERS:-"mbshm shm tcp"}
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
MPI_BENCHES="rtt bw"
[ "$EXTRA" = 1 ] && MPI_BENCHES="rtt bw bibw msgrate"
for b in $MPI_BENCHES; do
    bin/mpicc -O2 -o "$BUILD/$b" "bench/$b.c" || die "building $BUILD/$b failed"
done
# the raw layers: internal headers, linked against the library directly
cc -O2 -I. -Impi/include -o "$BUILD/mbcf_lat" bench/mbcf_lat.c -Llib -lmpi -lpthread -lm ||
    die "building $BUILD/mbcf_lat failed"

# ---- runs ------------------------------------------------------------------
nprov=$(echo $PROVIDERS | wc -w)
total=$((nprov * $(echo $MODES | wc -w) * 2 + nprov))
[ "$EXTRA" = 1 ] && total=$((total + 2 * nprov))
step=0
failed=()
declare -A status # tag -> ok | fail

# one_run tag label np provider mode hdr binary args...: one bin/mpirun job
# with a --csv file $OUT/<tag>.csv; hdr is the CSV header used to rebuild
# the CSV from stdout when the run fails
one_run() {
    local tag=$1 label=$2 np=$3 prov=$4 mode=$5 hdr=$6 t t0 rc dt last why
    shift 6
    step=$((step + 1))
    printf '[%d/%d] %-22s ... ' $step $total "$label" >&2
    t=$((BUDGET - SECONDS))
    [ $t -gt "$TMO" ] && t=$TMO
    if [ $t -lt 3 ]; then
        status[$tag]=fail
        echo "SKIPPED (time budget of $BUDGET s spent)" >&2
        failed+=("[$step] $label: skipped, time budget spent")
        return
    fi
    local cmd=(env "MBMPI_PROTOCOL=$mode" bin/mpirun -n "$np" --provider "$prov" --timeout "$t"
               "$@" --csv "$OUT/$tag.csv")
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
        { echo "$hdr"; awk '!/^#/ && NF >= 3 && $1 ~ /^[0-9]+$/ { $1 = $1; gsub(/ /, ","); print }' \
            "$OUT/$tag.txt"; } >"$OUT/$tag.csv"
        last=$(tail -n +2 "$OUT/$tag.csv" | tail -1 | cut -d, -f1)
        why="exit $rc"
        [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="exit $rc: no end after ${t} s (hang?)"
        echo "FAIL ($why; last size completed: ${last:-none}; ${dt} s)" >&2
        failed+=("[$step] ${cmd[*]}")
    fi
}

RTT_HDR=size,half_rtt_median_us,half_rtt_min_us,rtt_median_us
BW_HDR=size,bandwidth_median_mb_s,bandwidth_max_mb_s
RAW_HDR=size,fifo_half_rtt_us,write_half_rtt_us,tl_send_half_rtt_us,tl_write_half_rtt_us
for prov in $PROVIDERS; do
    for mode in $MODES; do
        one_run "rtt_${prov}_$mode" "rtt $prov $mode" 2 "$prov" "$mode" "$RTT_HDR" \
            "$BUILD/rtt" -i "$SCALE" -r "$REPS" -s "$RTT_SIZES"
        one_run "bw_${prov}_$mode" "bw  $prov $mode" 2 "$prov" "$mode" "$BW_HDR" \
            "$BUILD/bw" -i "$SCALE" -r "$REPS" -s "$BW_SIZES"
    done
done
# the raw layers: no MPI, so no protocol mode
for prov in $PROVIDERS; do
    one_run "mbcf_lat_$prov" "mbcf_lat $prov (raw)" 2 "$prov" auto "$RAW_HDR" \
        "$BUILD/mbcf_lat" -i "$SCALE" -r "$REPS" -s "$RAW_SIZES"
done
if [ "$EXTRA" = 1 ]; then
    for prov in $PROVIDERS; do
        one_run "bibw_${prov}_auto" "bibw $prov auto" 2 "$prov" auto "$BW_HDR" \
            "$BUILD/bibw" -i "$SCALE" -r "$REPS" -s "$BW_SIZES"
        one_run "msgrate_${prov}_auto" "msgrate $prov auto (4)" 4 "$prov" auto \
            size,pairs,mb_s_median,msgs_s_median,msgs_s_max \
            "$BUILD/msgrate" -i "$SCALE" -r "$REPS"
    done
fi

# ---- combined CSVs and table ---------------------------------------------------
# value <tag> <size> [column]: a column (default 2: the median) of that run's
# CSV, empty if absent
value() { awk -F, -v s="$2" -v c="${3:-2}" 'NR > 1 && $1 == s { print $c; exit }' "$OUT/$1.csv" 2>/dev/null; }

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

cell() { # cell rtt|bw|raw tag size [column]
    local v
    if [ "$1" = bw ] && [ "$3" -eq 0 ]; then printf ' %9s' -; return; fi
    v=$(value "$2" "$3" "${4:-2}")
    if [ -n "$v" ]; then
        if [ "$1" = bw ]; then printf ' %9.1f' "$v"; else printf ' %9.2f' "$v"; fi
    elif [ "${status[$2]:-}" = fail ]; then printf ' %9s' fail
    elif [ "$1" = raw ]; then printf ' %9s' -
    else printf ' %9s' n/a; fi
}

cols=""
for prov in $PROVIDERS; do for mode in $MODES; do cols="$cols $(printf '%9s' "$prov/$mode")"; done; done
rawcols=""
for prov in $PROVIDERS; do rawcols="$rawcols $(printf '%9s %9s' "$prov/fifo" "$prov/write")"; done
echo "# mbmpi, 2 ranks on $(hostname), $(date '+%Y-%m-%d %H:%M %Z'), load average $(cut -d' ' -f1-3 /proc/loadavg); rtt/bw/mbcf_lat -i $SCALE -r $REPS; medians of the repetitions"
echo "#        | half round-trip time (us), lower is better | bandwidth (MB/s = 1e6 B/s), higher is better | raw mbcf fifo/write half-RTT (us, no MPI)"
echo "# size   |$cols |$cols |$rawcols"
for s in $TABLE_SIZES; do
    printf '%-8s |' "$(label "$s")"
    for prov in $PROVIDERS; do for mode in $MODES; do cell rtt rtt_${prov}_$mode "$s"; done; done
    printf ' |'
    for prov in $PROVIDERS; do for mode in $MODES; do cell bw bw_${prov}_$mode "$s"; done; done
    printf ' |'
    for prov in $PROVIDERS; do cell raw mbcf_lat_$prov "$s" 2; cell raw mbcf_lat_$prov "$s" 3; done
    printf '\n'
done

if [ "$EXTRA" = 1 ]; then
    echo "#"
    echo "# bibw (2 ranks, both directions at once) MB/s and msgrate (2 pairs, 4 ranks) messages/s, MBMPI_PROTOCOL=auto"
    hdr=""
    for prov in $PROVIDERS; do hdr="$hdr $(printf '%10s' "bibw/$prov")"; done
    for prov in $PROVIDERS; do hdr="$hdr $(printf '%12s' "msgs/$prov")"; done
    echo "# size   |$hdr"
    for s in 1 8 64 1024 4096 65536 1048576 4194304; do
        printf '%-8s |' "$(label "$s")"
        for prov in $PROVIDERS; do
            v=$(value "bibw_${prov}_auto" "$s")
            if [ -n "$v" ]; then printf ' %10.1f' "$v"; else printf ' %10s' -; fi
        done
        for prov in $PROVIDERS; do
            v=$(value "msgrate_${prov}_auto" "$s" 4)
            if [ -n "$v" ]; then printf ' %12.0f' "$v"; else printf ' %12s' -; fi
        done
        printf '\n'
    done
fi

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
    rawcurves() { # the raw mbcf FIFO / write curves, dashed
        local prov
        for prov in $PROVIDERS; do
            [ -s "$OUT/mbcf_lat_$prov.csv" ] || continue
            printf ", '%s/mbcf_lat_%s.csv' skip 1 using (\$1 > 0 ? \$1 : 1/0):2 with linespoints dashtype 2 title 'raw mbcf fifo %s'" \
                "$OUT" "$prov" "$prov"
            printf ", '%s/mbcf_lat_%s.csv' skip 1 using (\$1 > 0 ? \$1 : 1/0):3 with linespoints dashtype 3 title 'raw mbcf write %s'" \
                "$OUT" "$prov" "$prov"
        done
    }
    common="set terminal $term; set datafile separator ','; set logscale xy; set grid; set key left top;
set xlabel 'message size (bytes)';
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '4M' 4194304)"
    if gnuplot -e "$common; set output '$OUT/latency.png';
set title 'mbmpi ping-pong latency, 2 ranks (median half round trip; size 0 not shown)';
set ylabel 'half round-trip time (us)'; plot $(curves rtt)$(rawcurves)" 2>"$OUT/gnuplot.err" &&
       gnuplot -e "$common; set output '$OUT/bandwidth.png';
set title 'mbmpi streaming bandwidth, 2 ranks (window of 64 messages, median)';
set ylabel 'bandwidth (MB/s)'; plot $(curves bw)" 2>>"$OUT/gnuplot.err"; then
        echo "run_bench: plots: $OUT/latency.png $OUT/bandwidth.png" >&2
    else
        echo "run_bench: gnuplot failed (see $OUT/gnuplot.err)" >&2
    fi
fi

echo "run_bench: CSVs in $OUT/ (latency.csv, bandwidth.csv, mbcf_lat_*.csv, one per run)" >&2
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_bench: ${#failed[@]} of $total runs FAILED:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
exit 0
