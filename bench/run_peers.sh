#!/usr/bin/env bash
# bench/run_peers.sh: mbmpi against Open MPI and MPICH (what `make bench-peers`
# runs).
#
# Builds bench/rtt.c and bench/bw.c with bin/mpicc (build/bench/rtt, bw),
# mpicc.openmpi (build/bench/rtt.openmpi, ...) and mpicc.mpich (.mpich); an
# MPI that is not installed is skipped with a message. Then, on 2 local
# ranks, runs mbmpi (shm provider, MBMPI_PROTOCOL=auto), Open MPI and MPICH
# alternately, A B C A B C A B C (3 rounds), first rtt then bw in every
# round, so that slow drifts of the machine's load hit all three alike.
# Printed per size: the median over the rounds (of each run's median over
# its repetitions) for each MPI, and the ratios mbmpi/Open MPI and
# mbmpi/MPICH. Latency ratio < 1 means mbmpi is faster; bandwidth ratio > 1
# means mbmpi is faster.
#
# Then fi_pingpong (libfabric-bin; endpoint type rdm, server and client on
# 127.0.0.1) over the shm and tcp providers gives the raw-fabric floor: one
# small size with -I 10000 and one large size (1 MiB by default) with fewer
# iterations (10000 round trips of 1 MiB are ~20 GB through tcp, over a
# minute on a 2-core machine). fi_pingpong's usec/xfer is the time per
# one-way transfer, i.e. comparable to the half round-trip time; its MB/s
# is ping-pong (not streaming) bandwidth.
#
# Files in bench/out/: peers_<mpi>_<rtt|bw>_r<round>.csv (+ .txt, .err) per
# run, peers_latency.csv, peers_bandwidth.csv, peers_fi_pingpong.csv,
# peers_commands.txt (every command run), peers_latency.png,
# peers_bandwidth.png. The commands are also printed at the end.
#
# Environment (default):
#   PEERS_SCALE (0.3), PEERS_REPS (3)    -i and -r of rtt and bw
#   PEERS_ROUNDS (3)                      rounds of A B C
#   PEERS_TIMEOUT (45)                    seconds per MPI run
#   PEERS_BUDGET (540)                    seconds after which no new run starts,
#                                         and that no run's timeout passes
#   PEERS_FI_SMALL (8), PEERS_FI_LARGE (1048576)   fi_pingpong -S sizes
#   PEERS_FI_ITERS (10000), PEERS_FI_LARGE_ITERS (1000)   their -I
#   PEERS_FI_PORT                         fi_pingpong control port
#   PEERS_RTT_SIZES, PEERS_BW_SIZES       -s lists;  BENCH_OUT (bench/out)
# Exit status: 1 when a build or run failed (the tables are still printed).

set -u
cd "$(dirname "$0")/.." || exit 1

SCALE=${PEERS_SCALE:-0.3}
REPS=${PEERS_REPS:-3}
ROUNDS=${PEERS_ROUNDS:-3}
TMO=${PEERS_TIMEOUT:-45}
BUDGET=${PEERS_BUDGET:-540}
OUT=${BENCH_OUT:-bench/out}
BUILD=build/bench
RTT_SIZES=${PEERS_RTT_SIZES:-0,8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
BW_SIZES=${PEERS_BW_SIZES:-8,64,512,1K,4K,8K,32K,64K,256K,1M,4M}
TABLE_SIZES="0 8 64 1024 8192 65536 262144 1048576 4194304"
FI_SMALL=${PEERS_FI_SMALL:-8}
FI_LARGE=${PEERS_FI_LARGE:-1048576}
FI_ITERS=${PEERS_FI_ITERS:-10000}
FI_LARGE_ITERS=${PEERS_FI_LARGE_ITERS:-1000}
FI_PORT=${PEERS_FI_PORT:-$((40000 + $$ % 10000))}

SECONDS=0
rc_all=0
commands=()
failed=()

note() { echo "run_peers: $*" >&2; }
label() {
    local n=$1
    if [ "$n" -ge 1048576 ] && [ $((n % 1048576)) -eq 0 ]; then echo "$((n / 1048576))M"
    elif [ "$n" -ge 1024 ] && [ $((n % 1024)) -eq 0 ]; then echo "$((n / 1024))K"
    else echo "$n"; fi
}
bytes() { echo "$1" | awk '{ v = $0 + 0; if ($0 ~ /[Kk]$/) v *= 1024; if ($0 ~ /[Mm]$/) v *= 1048576; print v }'; }
# timeout for the next run: PEERS_TIMEOUT, cut to what is left of the budget
# (prints nothing when the budget is spent)
run_timeout() {
    local left=$((BUDGET - SECONDS))
    [ $left -ge 5 ] || return 1
    [ $left -lt "$TMO" ] && echo $left || echo "$TMO"
}

# ---- build -----------------------------------------------------------------
if [ ! -f lib/libmpi.a ] || [ ! -x bin/mpirun ]; then
    note "lib/libmpi.a or bin/mpirun missing: running make"
    make -s all >&2 || { note "make failed"; exit 1; }
fi
mkdir -p "$BUILD" "$OUT" || exit 1

IMPLS=""
declare -A NAME=([mbmpi]=mbmpi [openmpi]="Open MPI" [mpich]=MPICH)
declare -A EXE_SUFFIX=([mbmpi]="" [openmpi]=.openmpi [mpich]=.mpich)
declare -A CC=([mbmpi]=bin/mpicc [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A RUN=([mbmpi]=bin/mpirun [openmpi]=mpirun.openmpi [mpich]=mpirun.mpich)
for impl in mbmpi openmpi mpich; do
    if ! command -v "${CC[$impl]}" >/dev/null 2>&1 || ! command -v "${RUN[$impl]}" >/dev/null 2>&1; then
        note "${CC[$impl]} or ${RUN[$impl]} not found: skipping ${NAME[$impl]}"
        continue
    fi
    ok=1
    for b in rtt bw; do
        # (MPICH's mpi.h makes gcc warn about MPI_STATUSES_IGNORE: harmless)
        if ! "${CC[$impl]}" -O2 -o "$BUILD/$b${EXE_SUFFIX[$impl]}" "bench/$b.c" 2>"$OUT/peers_build_$impl.err"; then
            note "building $BUILD/$b${EXE_SUFFIX[$impl]} with ${CC[$impl]} failed:"
            cat "$OUT/peers_build_$impl.err" >&2
            ok=0
        fi
    done
    if [ $ok = 1 ]; then IMPLS="$IMPLS $impl"; else rc_all=1; failed+=("build with ${CC[$impl]}"); fi
done
[ -n "$IMPLS" ] || { note "nothing to run"; exit 1; }

# launcher words per MPI (the rank program and its arguments follow)
declare -A LAUNCH
LAUNCH[mbmpi]="env MBMPI_PROTOCOL=auto bin/mpirun -n 2 --provider ${PEERS_MBMPI_PROVIDER:-mbshm}"
OMPI_FLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && OMPI_FLAGS="--allow-run-as-root $OMPI_FLAGS"
LAUNCH[openmpi]="mpirun.openmpi $OMPI_FLAGS -np 2"
LAUNCH[mpich]="mpirun.mpich -n 2"

# Open MPI's vader BTL uses CMA (process_vm_readv) for large messages; where
# ptrace rules refuse it, fall back to copy-in/copy-out.
if [[ " $IMPLS " == *" openmpi "* ]]; then
    probe="${LAUNCH[openmpi]} $BUILD/bw.openmpi -i 0.02 -r 1 -s 1M"
    if ! timeout -k 3 60 $probe >"$OUT/peers_probe.txt" 2>"$OUT/peers_probe.err" ||
        grep -qiE 'single.copy|cma|process_vm|ptrace' "$OUT/peers_probe.err"; then
        LAUNCH[openmpi]="env OMPI_MCA_btl_vader_single_copy_mechanism=none ${LAUNCH[openmpi]}"
        if timeout -k 3 60 ${LAUNCH[openmpi]} $BUILD/bw.openmpi -i 0.02 -r 1 -s 1M \
            >"$OUT/peers_probe.txt" 2>"$OUT/peers_probe.err"; then
            note "Open MPI: default single-copy (CMA) failed; using OMPI_MCA_btl_vader_single_copy_mechanism=none"
        else
            note "Open MPI: probe run fails even without single copy (see $OUT/peers_probe.err); trying anyway"
        fi
    else
        note "Open MPI: default settings work (CMA single copy allowed)"
    fi
fi

# ---- MPI runs ------------------------------------------------------------------
n_impl=$(echo $IMPLS | wc -w)
total=$((ROUNDS * 2 * n_impl))
step=0
for round in $(seq 1 "$ROUNDS"); do
    for b in rtt bw; do
        if [ $b = rtt ]; then sizes=$RTT_SIZES; else sizes=$BW_SIZES; fi
        for impl in $IMPLS; do
            step=$((step + 1))
            tag=peers_${impl}_${b}_r$round
            rm -f "$OUT/$tag.csv"
            printf '[%d/%d] round %d %-3s %-8s ... ' $step $total "$round" $b "${NAME[$impl]}" >&2
            if ! t=$(run_timeout); then
                echo "SKIPPED (time budget of $BUDGET s spent)" >&2
                failed+=("[$step] $tag: skipped, time budget spent")
                rc_all=1
                continue
            fi
            # mbmpi's own --timeout ends its job cleanly; timeout(1) backs up all three
            launch=${LAUNCH[$impl]}
            [ "$impl" = mbmpi ] && launch="$launch --timeout $t"
            cmd="$launch $BUILD/$b${EXE_SUFFIX[$impl]} -i $SCALE -r $REPS -s $sizes --csv $OUT/$tag.csv"
            commands+=("$cmd")
            t0=$SECONDS
            timeout -k 3 $((t + 3)) $cmd >"$OUT/$tag.txt" 2>"$OUT/$tag.err"
            rc=$?
            if [ $rc -eq 0 ] && [ -s "$OUT/$tag.csv" ]; then
                echo "ok ($((SECONDS - t0)) s)" >&2
                [ -s "$OUT/$tag.err" ] || rm -f "$OUT/$tag.err"
            else
                rm -f "$OUT/$tag.csv" # a partial run does not count
                last=$(awk '!/^#/ && $1 ~ /^[0-9]+$/ { s = $1 } END { print s }' "$OUT/$tag.txt")
                echo "FAIL (exit $rc$( [ $rc -eq 124 ] && echo ": no end after $t s, hang?"); last size completed: ${last:-none})" >&2
                failed+=("[$step] $cmd   (exit $rc; stderr: $OUT/$tag.err)")
                rc_all=1
            fi
        done
    done
done

# ---- fi_pingpong ---------------------------------------------------------------
FI_CSV=$OUT/peers_fi_pingpong.csv
echo "provider,size,iterations,usec_per_xfer,mb_s" >"$FI_CSV"
if ! command -v fi_pingpong >/dev/null 2>&1; then
    note "fi_pingpong not found (apt-get install libfabric-bin): skipping the raw-fabric floor"
else
    for prov in shm tcp; do
        for size in $FI_SMALL $FI_LARGE; do
            iters=$FI_ITERS
            [ "$size" = "$FI_LARGE" ] && iters=$FI_LARGE_ITERS
            printf '[fi] fi_pingpong %s %s B x %s ... ' $prov $size $iters >&2
            if ! t=$(run_timeout); then
                echo "SKIPPED (time budget spent)" >&2
                rc_all=1; failed+=("fi_pingpong $prov $size: skipped, time budget spent")
                continue
            fi
            port=$FI_PORT
            FI_PORT=$((FI_PORT + 1))
            srv="fi_pingpong -p $prov -e rdm -I $iters -S $size -B $port"
            cli="fi_pingpong -p $prov -e rdm -I $iters -S $size -P $port 127.0.0.1"
            commands+=("$srv &" "$cli")
            log=$OUT/peers_fi_${prov}_$size
            timeout -k 3 "$t" $srv >"$log.server.txt" 2>&1 &
            spid=$!
            sleep 1
            timeout -k 3 "$t" $cli >"$log.txt" 2>&1
            rc=$?
            wait $spid
            src=$?
            line=$(awk '$1 ~ /^[0-9]/ && NF >= 8 { print; exit }' "$log.txt")
            if [ $rc -eq 0 ] && [ $src -eq 0 ] && [ -n "$line" ]; then
                set -- $line
                echo "$prov,$size,$iters,$7,$6" >>"$FI_CSV"
                echo "ok ($7 us/xfer, $6 MB/s)" >&2
            else
                echo "FAIL (client exit $rc, server exit $src; see $log.txt)" >&2
                failed+=("$srv & $cli   (exit $rc/$src)")
                rc_all=1
            fi
        done
    done
fi

# ---- medians, CSVs, tables -------------------------------------------------------
# median_of <impl> <rtt|bw> <size>: median over the rounds' CSVs (column 2)
median_of() {
    local f vals=""
    for f in "$OUT"/peers_$1_$2_r*.csv; do
        [ -f "$f" ] || continue
        vals="$vals $(awk -F, -v s="$3" 'NR > 1 && $1 == s { print $2; exit }' "$f")"
    done
    echo $vals | tr ' ' '\n' | grep . | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'; }

declare -A MED
summarize() { # summarize rtt|bw sizes csvfile
    local b=$1 s impl
    echo "size,mbmpi,openmpi,mpich,mbmpi_over_openmpi,mbmpi_over_mpich" >"$3"
    for s in $(echo "$2" | tr , ' '); do
        s=$(bytes "$s")
        for impl in mbmpi openmpi mpich; do MED[$b,$impl,$s]=$(median_of $impl $b "$s"); done
        echo "$s,${MED[$b,mbmpi,$s]},${MED[$b,openmpi,$s]},${MED[$b,mpich,$s]},$(ratio "${MED[$b,mbmpi,$s]}" "${MED[$b,openmpi,$s]}"),$(ratio "${MED[$b,mbmpi,$s]}" "${MED[$b,mpich,$s]}")" >>"$3"
    done
}
summarize rtt "$RTT_SIZES" "$OUT/peers_latency.csv"
summarize bw "$BW_SIZES" "$OUT/peers_bandwidth.csv"

fmt() { if [ -n "$2" ]; then printf " %10.$1f" "$2"; else printf ' %10s' -; fi; }
table() { # table rtt|bw
    local b=$1 s m o p
    for s in $TABLE_SIZES; do
        [ $b = bw ] && [ "$s" -eq 0 ] && continue
        m=${MED[$b,mbmpi,$s]-} o=${MED[$b,openmpi,$s]-} p=${MED[$b,mpich,$s]-}
        printf '%-6s' "$(label "$s")"
        if [ $b = rtt ]; then fmt 2 "$m"; fmt 2 "$o"; fmt 2 "$p"; else fmt 1 "$m"; fmt 1 "$o"; fmt 1 "$p"; fi
        fmt 2 "$(ratio "$m" "$o")"; fmt 2 "$(ratio "$m" "$p")"
        printf '\n'
    done
}
libver() { # the "MPI: ..." of the first run's header
    local f
    for f in "$OUT"/peers_$1_rtt_r*.txt "$OUT"/peers_$1_bw_r*.txt; do
        [ -f "$f" ] && sed -n '1s/^# mbmpi [a-z]* (MPI: \(.*\))$/\1/p' "$f" | grep . && return
    done
    echo "not run"
}

echo "# mbmpi vs Open MPI vs MPICH: 2 ranks on $(hostname), $(date '+%Y-%m-%d %H:%M %Z')"
echo "# rtt/bw -i $SCALE -r $REPS, $ROUNDS rounds run alternately; each value = median over the rounds of the run's median"
for impl in mbmpi openmpi mpich; do echo "#   ${NAME[$impl]}: $(libver $impl)"; done
echo "#"
echo "# Latency: half round-trip time (us). Ratio = mbmpi / other: < 1 means mbmpi is faster."
printf '# %-4s %10s %10s %10s %10s %10s\n' size mbmpi OpenMPI MPICH mbmpi/OMPI mbmpi/MPICH
table rtt
echo "#"
echo "# Bandwidth (MB/s = 1e6 B/s, window of 64 messages). Ratio = mbmpi / other: > 1 means mbmpi is faster."
printf '# %-4s %10s %10s %10s %10s %10s\n' size mbmpi OpenMPI MPICH mbmpi/OMPI mbmpi/MPICH
table bw
echo "#"
echo "# libfabric fi_pingpong -e rdm on 127.0.0.1 (raw fabric, no MPI): usec/xfer ~ half round trip; MB/s is ping-pong bandwidth"
printf '# %-8s %8s %10s %10s %10s\n' provider size iters usec/xfer MB/s
tail -n +2 "$FI_CSV" | while IFS=, read -r prov size iters us mbs; do
    printf '  %-8s %8s %10s %10s %10s\n' "$prov" "$(label "$size")" "$iters" "$us" "$mbs"
done

# ---- plots ---------------------------------------------------------------------
if ! command -v gnuplot >/dev/null 2>&1; then
    note "gnuplot not found: skipping the plots (apt-get install gnuplot-nox)"
else
    if gnuplot -e 'set terminal' 2>&1 </dev/null | grep -q '^ *pngcairo '; then
        term="pngcairo size 900,600"
    else
        term="png size 900,600"
    fi
    common="set terminal $term; set datafile separator ','; set logscale xy; set grid; set key left top;
set xlabel 'message size (bytes)';
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '4M' 4194304)"
    mpi_curves() { # file
        printf "'%s' skip 1 using (\$1 > 0 ? \$1 : 1/0):2 with linespoints title 'mbmpi (shm)', " "$1"
        printf "'' skip 1 using (\$1 > 0 ? \$1 : 1/0):3 with linespoints title 'Open MPI', "
        printf "'' skip 1 using (\$1 > 0 ? \$1 : 1/0):4 with linespoints title 'MPICH'"
    }
    fi_points() { # column of peers_fi_pingpong.csv
        if [ "$(wc -l <"$FI_CSV")" -gt 1 ]; then
            printf ", '%s' skip 1 using (strcol(1) eq 'shm' ? \$2 : 1/0):%d with points pt 7 ps 1.5 title 'fi\\\\_pingpong shm'" "$FI_CSV" "$1"
            printf ", '' skip 1 using (strcol(1) eq 'tcp' ? \$2 : 1/0):%d with points pt 5 ps 1.5 title 'fi\\\\_pingpong tcp'" "$1"
        fi
    }
    if gnuplot -e "$common; set output '$OUT/peers_latency.png';
set title 'half round-trip time, 2 ranks, median of $ROUNDS rounds (size 0 not shown)';
set ylabel 'half round-trip time (us)'; plot $(mpi_curves "$OUT/peers_latency.csv")$(fi_points 4)" 2>"$OUT/peers_gnuplot.err" &&
       gnuplot -e "$common; set output '$OUT/peers_bandwidth.png';
set title 'streaming bandwidth, 2 ranks, median of $ROUNDS rounds (fi\\_pingpong: ping-pong)';
set ylabel 'bandwidth (MB/s)'; plot $(mpi_curves "$OUT/peers_bandwidth.csv")$(fi_points 5)" 2>>"$OUT/peers_gnuplot.err"; then
        note "plots: $OUT/peers_latency.png $OUT/peers_bandwidth.png"
    else
        note "gnuplot failed (see $OUT/peers_gnuplot.err)"
    fi
fi

# ---- commands ------------------------------------------------------------------
printf '%s\n' "${commands[@]}" >"$OUT/peers_commands.txt"
{
    echo "run_peers: commands of round 1 (rounds 2..$ROUNDS differ only in _r<round> in the CSV name; all in $OUT/peers_commands.txt):"
    printf '  %s\n' "${commands[@]}" | grep -v -- '_r[2-9][0-9]*\.csv$'
    echo "  (every MPI run is wrapped in timeout -k 3 SEC+3, fi_pingpong in timeout -k 3 SEC)"
} >&2
note "total time $SECONDS s"
if [ ${#failed[@]} -gt 0 ]; then
    note "${#failed[@]} failures:"
    printf '  %s\n' "${failed[@]}" >&2
fi
exit $rc_all
