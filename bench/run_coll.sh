#!/usr/bin/env bash
# bench/run_coll.sh: pLogP parameters and collective benchmarks (what `make
# bench-plogp`, `make bench-coll` and `make bench-coll-peers` run).
#
# usage: bench/run_coll.sh plogp | coll | peers
#
#   plogp  builds build/bench/plogp and measures the pLogP parameters between
#          2 local ranks over every provider of PLOGP_PROVIDERS (default
#          "mbshm tcp"), PLOGP_RUNS times each (separate jobs, providers
#          alternating), every value the median over the runs:
#          bench/out/plogp_<p>.plogp (the parameter file the library
#          loads: MBMPI_PLOGP_FILE, or mpi/coll/params/shm.plogp and tcp.plogp
#          embedded as the defaults by scripts/gen_plogp_defaults.sh; the
#          fitted "wake", "turn", "xwait", "late" and "membound" lines are carried over from those),
#          plogp_<p>.r<k>.plogp per run, plogp_<p>.csv and
#          plogp_<p>.png (o_s, o_r, g and RTT/2 against m, log-log, L as a
#          line). For mbshm each run also measures with MBMPI_SHM_CMA=0
#          (plogp_mbshm_ring.*): its rows from 32 KiB become the file's
#          "ring" lines, what one-way messages cost when ranks outnumber
#          CPUs (mpi/coll/plogp.h), and up to 32 KiB with the eager limit
#          and the RTS read threshold at 4 KiB and no REQs
#          (plogp_mbshm_read.*): its rows of 8-32 KiB become the "read"
#          lines, what a collective's messages read by their receivers
#          cost (MBMPI_COLL_READ_MIN). Then fits the all-to-all contention ratio c of each file
#          (the seed's network "signature"): times alltoall "rotated" forced
#          at P in PLOGP_FIT_NP with that file loaded, asks the model (bench/coll
#          --predict-only) for T0 and T1, its prediction with c = 0 and c = 1
#          (T(c) = T0 + c (T1 - T0)), takes c = the median over (P, m) of
#          (measured - T0) / (T1 - T0) clipped to [0, 1], and writes it into
#          the file as "contention <c>". Prints how to install the files as
#          the built-in defaults.
#   coll   builds build/bench/coll and, for every provider of COLL_PROVIDERS
#          x operation of COLL_OPS x P of COLL_NP, times every algorithm
#          (forced) and the automatic choice (one bin/mpirun job each), then
#          prints per job the share of sizes where the pick was the fastest
#          / within 10 % of the fastest and the median relative error of the
#          predictions, and plots bench/out/coll_<p>_<op>_P<P>.png like the
#          seed paper's figures: time against m per algorithm, measured as
#          points, predicted as lines, log axes. With COLL_CALIBRATE=1
#          each round first measures the model's parameters on each
#          provider (bench/plogp, 2 ranks, -r 3, up to the largest size;
#          contention, wake, turn, xwait, late and membound carried over from mpi/coll/params) and
#          runs that round's jobs with them (MBMPI_PLOGP_FILE): predictions
#          and picks then meet the machine in the state the timings do (on
#          a shared VM it drifts by 20 % and more within minutes), and each
#          round is scored alone (points = rounds x sizes). Between
#          calibrated rounds (COLL_FIT, default 1) the parameters bench/plogp
#          cannot measure, wake, turn and xwait (what a rank's turn on a
#          shared CPU costs, mpi/coll/model.c), are fitted to the round's jobs
#          of more ranks than CPUs (bench/coll --predict-only over a small
#          grid of scalings, the median error the measure) and used in the
#          next round: rounds 2 on are predicted out of sample.
#   peers  builds bench/coll with bin/mpicc, mpicc.openmpi and mpicc.mpich
#          (a missing one is skipped with a message) and runs, for every
#          operation x P, mbmpi (COLL_PEERS_PROVIDER, default mbshm: what
#          mpirun uses on one host; automatic choice), Open MPI and MPICH
#          alternately for COLL_ROUNDS rounds in OSU mode (--osu; timed
#          after a barrier as the OSU benchmarks do, or from synchronised
#          starts with COLL_PEERS_SYNC=window), then
#          prints per size the medians over the rounds of OSU's Avg
#          Latency (each rank's mean time per call, averaged over the
#          ranks), the ratios mbmpi / peer (< 1: mbmpi is faster), in how
#          many rounds mbmpi took more than 1.1x the peer's time (a round's
#          runs are adjacent in time: on a host whose speed drifts, a loss
#          in every round is a loss, one in a single round may be the
#          drift) and the ratios of the slowest rank's times (max/OMPI,
#          max/MPICH); coll_peers_<op>_P<P>.csv.
#
# One progress line per job on stderr; tables on stdout.
#
# Environment (default):
#   COLL_OPS ("bcast scatter alltoall allreduce"), COLL_NP ("4 8")
#   COLL_PROVIDERS (mbshm)       providers of `coll` (e.g. "mbshm tcp")
#   COLL_PEERS_PROVIDER (mbshm)  mbmpi's provider in `peers`; tcp (or another
#                                network provider): Open MPI and MPICH over TCP too
#   COLL_PEERS_SYNC (barrier)    `peers` timing: barrier (OSU) or window
#   COLL_SIZES (1:1M), COLL_FACTOR (4)   bench/coll -m and -f
#   COLL_REPS (5), COLL_ITERS (bench/coll's default)   -r, -i
#   COLL_RUN_BUDGET (25; peers 10)   bench/coll -t: no new size after this long
#   COLL_TIMEOUT (60)            seconds per job (mpirun --timeout + timeout)
#   COLL_BUDGET (270; peers 600) no job starts after this many seconds
#   COLL_CALIBRATE (0)           coll: 1 = parameters measured every round
#   COLL_FIT (1)                 coll, calibrated: wake, turn, xwait fitted
#                                between rounds (0: carried over) to the jobs
#   COLL_FIT_CPUS (nproc)        of more ranks than this
#   COLL_ROUNDS (peers 3, coll 1) peers: rounds of mbmpi, Open MPI, MPICH;
#                                coll: rounds of every job, each point the
#                                median over them (coll_<p>_<op>_P<P>_r<k>.csv)
#   PLOGP_PROVIDERS ("mbshm tcp"), PLOGP_RUNS (3), PLOGP_REPS (5),
#   PLOGP_SCALE (1.0), PLOGP_MAX (4M), PLOGP_TIMEOUT (120)
#   PLOGP_FIT_NP ("4 8"; empty: no contention fit), PLOGP_FIT_SIZES (1:1M)
#   MBMPI_PLOGP_FILE             passed on to the ranks: the model's parameters
#   BENCH_OUT (bench/out)
# With the defaults `coll` runs 8 jobs and ends within about 5 minutes on 2
# idle cores (P = 8 is oversubscribed), `plogp` takes well under a minute.
# Exit status: 1 when a build or a job failed (the tables are still printed).

set -u
cd "$(dirname "$0")/.." || exit 1
SECONDS=0

MODE=${1:-}
OPS=${COLL_OPS:-bcast scatter alltoall allreduce}
NPS=${COLL_NP:-4 8}
PROVIDERS=${COLL_PROVIDERS:-mbshm}
SIZES=${COLL_SIZES:-1:1M}
FACTOR=${COLL_FACTOR:-4}
REPS=${COLL_REPS:-5}
ITERS=${COLL_ITERS:-}
if [ "$MODE" = peers ]; then
    RUN_BUDGET=${COLL_RUN_BUDGET:-10}
    BUDGET=${COLL_BUDGET:-600}
else
    RUN_BUDGET=${COLL_RUN_BUDGET:-25}
    BUDGET=${COLL_BUDGET:-270}
fi
TMO=${COLL_TIMEOUT:-60}
ROUNDS=${COLL_ROUNDS:-3}
OUT=${BENCH_OUT:-bench/out}
BUILD=build/bench
rc_all=0
failed=()

note() { echo "run_coll: $*" >&2; }
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; }
case $MODE in
plogp | coll | peers) ;;
-h | --help) usage; exit 0 ;;
*) note "usage: bench/run_coll.sh plogp | coll | peers"; exit 2 ;;
esac

# timeout for the next job: TMO cut to what is left of the budget (fails
# when the budget is spent)
run_timeout() {
    local left=$((BUDGET - SECONDS))
    [ $left -ge 5 ] || return 1
    [ $left -lt "$TMO" ] && echo $left || echo "$TMO"
}
label() { # bytes -> 1, 8, 1K, 4M
    local n=$1
    if [ "$n" -ge 1048576 ] && [ $((n % 1048576)) -eq 0 ]; then echo "$((n / 1048576))M"
    elif [ "$n" -ge 1024 ] && [ $((n % 1024)) -eq 0 ]; then echo "$((n / 1024))K"
    else echo "$n"; fi
}
provname() { [ "$1" = tcp ] && echo "tcp;ofi_rxm" || echo "$1"; }

gnuplot_term() {
    if gnuplot -e 'set terminal' 2>&1 </dev/null | grep -q '^ *pngcairo '; then
        echo "pngcairo size 1000,600"
    else
        echo "png size 1000,600"
    fi
}
# med(s): the median of the numbers in the space-separated string s (awk)
AWK_MED='
    function med(s,    a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }'
have_gnuplot() {
    command -v gnuplot >/dev/null 2>&1 && return 0
    note "gnuplot not found: skipping the plots (apt-get install gnuplot-nox)"
    return 1
}

# ---- build -----------------------------------------------------------------
if [ ! -f lib/libmpi.a ] || [ ! -x bin/mpirun ]; then
    note "lib/libmpi.a or bin/mpirun missing: running make"
    make -s all >&2 || { note "make failed"; exit 1; }
fi
mkdir -p "$BUILD" "$OUT" || exit 1
WFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra"
build() { # build <mpicc> <source> <binary>
    if ! "$1" -O2 $WFLAGS -o "$3" "$2" 2>"$OUT/coll_build.err"; then
        note "building $3 with $1 failed:"
        cat "$OUT/coll_build.err" >&2
        return 1
    fi
}

# one_job <tag> <label> <timeout> <command...>: runs the command with its
# output in $OUT/<tag>.txt / .err, one progress line; status as the command
step=0
total=0
one_job() {
    local tag=$1 what=$2 t=$3 rc t0
    shift 3
    step=$((step + 1))
    printf '[%d/%d] %-34s ... ' $step $total "$what" >&2
    t0=$SECONDS
    timeout -k 3 $((t + 3)) "$@" >"$OUT/$tag.txt" 2>"$OUT/$tag.err"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "ok ($((SECONDS - t0)) s)" >&2
        [ -s "$OUT/$tag.err" ] || rm -f "$OUT/$tag.err"
    else
        echo "FAIL (exit $rc$( [ $rc -eq 124 ] && echo ": no end after $t s, hang?"); see $OUT/$tag.err)" >&2
        failed+=("[$step] $*   (exit $rc)")
        rc_all=1
    fi
    return $rc
}
skip_job() {
    step=$((step + 1))
    printf '[%d/%d] %-34s ... SKIPPED (time budget of %d s spent)\n' $step $total "$1" "$BUDGET" >&2
    failed+=("[$step] $1: skipped, time budget spent")
    rc_all=1
}
finish() {
    note "total time $SECONDS s"
    if [ ${#failed[@]} -gt 0 ]; then
        note "${#failed[@]} failures:"
        printf '  %s\n' "${failed[@]}" >&2
    fi
    exit $rc_all
}

# carry_lines <provider>: the lines bench/plogp does not measure (contention,
# wake, turn: fitted on bench/coll sweeps), from the built-in file, with a
# comment saying so
carry_lines() {
    local d f lines cpu
    case $1 in *shm*) d=shm ;; net*) d=net ;; *) d=tcp ;; esac
    cpu=$(host_cpu)
    # the built-in file measured on this CPU model (its "cpu" line), else
    # <d>.plogp (net has none: tcp's then)
    f=$d.plogp
    [ -f "mpi/coll/params/$f" ] || f=tcp.plogp
    for g in mpi/coll/params/$d-*.plogp; do
        [ -f "$g" ] && [ -n "$cpu" ] && [ "$(sed -n 's/^cpu[[:space:]]*//p' "$g" | head -1)" = "$cpu" ] && f=${g##*/}
    done
    if [ "$f" = tcp.plogp ] && [ "$d" = net ]; then
        for g in mpi/coll/params/tcp-*.plogp; do
            [ -f "$g" ] && [ -n "$cpu" ] && [ "$(sed -n 's/^cpu[[:space:]]*//p' "$g" | head -1)" = "$cpu" ] && f=${g##*/}
        done
    fi
    lines=$(grep -E '^(contention|wake|turn|xwait|late|membound) ' "mpi/coll/params/$f")
    [ -n "$cpu" ] && echo "cpu $cpu"
    [ -n "$lines" ] && printf '# contention, wake, turn, xwait, late, membound: not measured by bench/plogp; from mpi/coll/params/%s\n%s\n' \
        "$f" "$lines"
}

# host_cpu: /proc/cpuinfo's model name (what a file's "cpu" line holds and
# the library matches to pick its built-in file, mpi/coll/plogp.c)
host_cpu() {
    sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1 | sed 's/[[:space:]]*$//'
}

# ring_lines <file>: the rows of 32 KiB and more (mbshm's SHM_CMA_MIN) of a
# file measured under MBMPI_SHM_CMA=0, as the "ring m os or g ow" lines the
# model uses for one-way messages when ranks outnumber CPUs (plogp.h)
ring_lines() {
    echo "# one-way through the rings (bench/plogp with MBMPI_SHM_CMA=0): ring m_bytes os_us or_us g_us ow_us"
    awk '$1 ~ /^[0-9]+$/ && $1 >= 32768 && NF == 7 { print "ring", $1, $2, $3, $4, $6 }' "$1"
}
# the pseudo-provider of those runs
RING=mbshm_ring
# read_lines <file>: the rows of 8-32 KiB of a file measured with every
# message of 8 KiB or more read by its receiver (READ_ENV), as the "read m
# os or g ow xw" lines the library prices a collective's read messages by
# (mpi/coll/plogp.h)
read_lines() {
    echo "# read by the receiver (bench/plogp with $READ_ENV): read m_bytes os_us or_us g_us ow_us xw_us"
    awk '$1 ~ /^[0-9]+$/ && $1 >= 8192 && $1 <= 32768 && NF == 7 { print "read", $1, $2, $3, $4, $6, $7 }' "$1"
}
READ=mbshm_read
READ_ENV="MBMPI_EAGER_LIMIT=4096 MBMPI_RTS_READ_MIN=4096 MBMPI_REQ_MIN=1G"

# ==== plogp =================================================================
if [ "$MODE" = plogp ]; then
    PPROVS=${PLOGP_PROVIDERS:-mbshm tcp}
    PRUNS=${PLOGP_RUNS:-3}
    build bin/mpicc bench/plogp.c "$BUILD/plogp" || exit 1
    MPROVS=$PPROVS
    case " $PPROVS " in *" mbshm "*) MPROVS="$PPROVS $RING $READ" ;; esac
    total=$(($(echo $MPROVS | wc -w) * PRUNS))
    BUDGET=100000
    TMO=${PLOGP_TIMEOUT:-120}
    # runs outermost: a change of the machine's speed falls on every provider
    for run in $(seq 1 "$PRUNS"); do for p in $MPROVS; do
        rm -f "$OUT/plogp_$p.r$run.plogp" "$OUT/plogp_$p.r$run.csv"
        cma=
        q=$p
        max=${PLOGP_MAX:-4M}
        [ "$p" = $RING ] && cma=MBMPI_SHM_CMA=0 q=mbshm
        [ "$p" = $READ ] && cma=$READ_ENV q=mbshm max=32K
        one_job "plogp_${p}_r$run" "plogp $(provname "$p") run $run" "$TMO" \
            env $cma bin/mpirun -n 2 --provider "$q" --timeout "$TMO" "$BUILD/plogp" -p "$(provname "$p")" \
            -r "${PLOGP_REPS:-5}" -i "${PLOGP_SCALE:-1.0}" -m "$max" \
            -o "$OUT/plogp_$p.r$run.plogp" --csv "$OUT/plogp_$p.r$run.csv"
    done; done
    # merge: every value (L, gamma, each row's columns) the median over the runs
    for p in $MPROVS; do
        runs=()
        for run in $(seq 1 "$PRUNS"); do
            [ -s "$OUT/plogp_$p.r$run.plogp" ] && [ -s "$OUT/plogp_$p.r$run.csv" ] && runs+=("$run")
        done
        rm -f "$OUT/plogp_$p.plogp" "$OUT/plogp_$p.csv"
        [ ${#runs[@]} -gt 0 ] || continue
        merge=$AWK_MED'
            FNR == 1 { nf++ }
            csv && FNR == 1 { if (nf == 1) head = $0; next }
            !csv && /^# m_bytes/ { next }
            !csv && /^#/ { if (nf == 1) { com[++nc] = $0; if (nc == 2) com[++nc] = "# each value: the median over " runs " runs (bench/run_coll.sh plogp)" } next }
            !csv && $1 !~ /^[0-9]/ { if (!($1 in kv)) order[++nk] = $1; kv[$1] = kv[$1] " " $2; next }
            { if (!($1 in row)) { ord[++nr] = $1; cols = NF } for (i = 2; i <= NF; i++) v[$1, i] = v[$1, i] " " $i; row[$1] = 1 }
            END {
                if (csv) print head
                for (i = 1; i <= nc; i++) print com[i]
                for (i = 1; i <= nk; i++) printf "%s %.6f\n", order[i], med(kv[order[i]])
                if (!csv && ENVIRON["PLOGP_CARRY"] != "") print ENVIRON["PLOGP_CARRY"]
                if (!csv) print "# m_bytes  os_us  or_us  g_us  rtt_us  ow_us  xw_us"
                for (r = 1; r <= nr; r++) {
                    printf "%s", ord[r]
                    for (i = 2; i <= cols; i++) printf (csv ? ",%.3f" : " %.3f"), med(v[ord[r], i])
                    printf "\n"
                }
            }'
        # wake, turn, xwait, membound (oversubscription, model.c) are fitted on bench/coll
        # sweeps, not measured here: carry them over from the built-in file,
        # and its contention ratio until the fit below replaces it (that fit
        # needs P <= CPUs at P = 4 or 8, where the CPU-work bound does not
        # decide the prediction)
        PLOGP_CARRY=$(carry_lines "$p") awk -v runs=${#runs[@]} "$merge" $(printf "$OUT/plogp_$p.r%s.plogp " "${runs[@]}") \
            >"$OUT/plogp_$p.plogp"
        awk -F, -v csv=1 -v runs=${#runs[@]} "$merge" $(printf "$OUT/plogp_$p.r%s.csv " "${runs[@]}") >"$OUT/plogp_$p.csv"
        note "$(provname "$p"): $OUT/plogp_$p.plogp, the median of ${#runs[@]} runs"
    done
    if [ -s "$OUT/plogp_$RING.plogp" ] && [ -s "$OUT/plogp_mbshm.plogp" ]; then
        ring_lines "$OUT/plogp_$RING.plogp" >>"$OUT/plogp_mbshm.plogp"
        note "mbshm: ring lines from $OUT/plogp_$RING.plogp appended to $OUT/plogp_mbshm.plogp"
    fi
    if [ -s "$OUT/plogp_$READ.plogp" ] && [ -s "$OUT/plogp_mbshm.plogp" ]; then
        read_lines "$OUT/plogp_$READ.plogp" >>"$OUT/plogp_mbshm.plogp"
        note "mbshm: read lines from $OUT/plogp_$READ.plogp appended to $OUT/plogp_mbshm.plogp"
    fi
    # ---- the all-to-all contention ratio of each file
    FIT_NP=${PLOGP_FIT_NP-4 8}
    if [ -n "$FIT_NP" ] && ! grep -q MBMPI_HAVE_COLL_EXT mpi/include/mpi.h; then
        note "mpi.h has no MBMPI_HAVE_COLL_EXT: no contention fit"
        FIT_NP=""
    fi
    if [ -n "$FIT_NP" ] && build bin/mpicc bench/coll.c "$BUILD/coll"; then
        total=$((total + $(echo $PPROVS | wc -w) * $(echo $FIT_NP | wc -w)))
        for p in $PPROVS; do
            f=$OUT/plogp_$p.plogp
            [ -s "$f" ] || continue
            # the file with c = 0 and c = 1 (any contention line replaced)
            for c in 0 1; do
                awk -v c=$c '$1 == "contention" { next } { print } $1 == "L" { print "contention " c }' "$f" \
                    >"$OUT/plogp_${p}_c$c.plogp"
            done
            for np in $FIT_NP; do
                tag=plogp_fit_${p}_P$np
                rm -f "$OUT/$tag".*.csv
                one_job "$tag" "fit contention $(provname "$p") P=$np" "$TMO" \
                    env MBMPI_PLOGP_FILE="$f" bin/mpirun -n "$np" --provider "$p" --timeout "$TMO" "$BUILD/coll" \
                    -c alltoall -a rotated -m "${PLOGP_FIT_SIZES:-1:1M}" -f 4 -r 3 -t 40 --csv "$OUT/$tag.meas.csv" ||
                    continue
                for c in 0 1; do
                    env MBMPI_PLOGP_FILE="$OUT/plogp_${p}_c$c.plogp" bin/mpirun -n "$np" --provider "$p" --timeout 30 \
                        "$BUILD/coll" -c alltoall -a rotated -m "${PLOGP_FIT_SIZES:-1:1M}" -f 4 --predict-only \
                        --csv "$OUT/$tag.c$c.csv" >/dev/null 2>>"$OUT/$tag.err"
                done
                [ -s "$OUT/$tag.err" ] || rm -f "$OUT/$tag.err"
            done
            # c per point, then the median; rows: op,P,m,algo,measured,predicted,chosen
            c=$(for np in $FIT_NP; do
                    tag=plogp_fit_${p}_P$np
                    [ -s "$OUT/$tag.meas.csv" ] && [ -s "$OUT/$tag.c0.csv" ] && [ -s "$OUT/$tag.c1.csv" ] || continue
                    awk -F, 'FNR == 1 { n++; next } $4 != "rotated" { next }
                        n == 1 { t0[$3] = $6 } n == 2 { t1[$3] = $6 } n == 3 && $5 > 0 { meas[$3] = $5 }
                        END { for (m in meas) if (m in t0 && m in t1 && t1[m] - t0[m] > 1e-9 * t1[m]) {
                                  c = (meas[m] - t0[m]) / (t1[m] - t0[m]); print (c < 0 ? 0 : c > 1 ? 1 : c) } }' \
                        "$OUT/$tag.c0.csv" "$OUT/$tag.c1.csv" "$OUT/$tag.meas.csv"
                done | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f %d", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, NR }')
            rm -f "$OUT/plogp_${p}_c0.plogp" "$OUT/plogp_${p}_c1.plogp"
            if [ -n "$c" ]; then
                set -- $c
                awk -v c="$1" '$1 == "contention" { next } { print } $1 == "L" { print "contention " c }' "$f" >"$f.tmp" &&
                    mv "$f.tmp" "$f"
                note "$(provname "$p"): all-to-all contention ratio $1 (median of $2 points), written to $f"
            else
                note "$(provname "$p"): no point to fit the contention ratio on (the model's default stays)"
            fi
        done
    fi

    for p in $PPROVS; do
        [ -s "$OUT/plogp_$p.plogp" ] || continue
        echo "# $OUT/plogp_$p.plogp: $(grep -E '^(L|gamma|contention) ' "$OUT/plogp_$p.plogp" | tr '\n' ' ')"
        printf '# %-8s %9s %9s %9s %9s %9s %9s\n' m os_us or_us g_us rtt/2_us ow_us xw_us
        awk -F, 'NR > 1 && ($1 <= 1 || $1 == 64 || $1 == 1024 || $1 == 16384 || $1 == 65536 || $1 == 1048576 || $1 == 4194304) {
            printf "  %-8s %9.3f %9.3f %9.3f %9.3f %9s %9s\n", $1, $2, $3, $4, $5 / 2, $6, $7 }' "$OUT/plogp_$p.csv"
    done
    if have_gnuplot; then
        for p in $PPROVS; do
            [ -s "$OUT/plogp_$p.csv" ] || continue
            L=$(awk '$1 == "L" { print $2 }' "$OUT/plogp_$p.plogp")
            if gnuplot -e "set terminal $(gnuplot_term) noenhanced; set output '$OUT/plogp_$p.png';
set datafile separator ','; set logscale xy; set grid; set key left top;
set title 'pLogP parameters, $(provname "$p"), 2 ranks (bench/plogp, median of ${PLOGP_REPS:-5})';
set xlabel 'message size m (bytes)'; set ylabel 'time (us)';
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '4M' 4194304);
plot '$OUT/plogp_$p.csv' skip 1 using (\$1 > 0 ? \$1 : 1/0):2 with linespoints title 'o_s(m)',
     '' skip 1 using (\$1 > 0 ? \$1 : 1/0):3 with linespoints title 'o_r(m)',
     '' skip 1 using (\$1 > 0 ? \$1 : 1/0):4 with linespoints title 'g(m)',
     '' skip 1 using (\$1 > 0 ? \$1 : 1/0):(\$5 / 2) with lines dashtype 2 title 'RTT(m)/2',
     '' skip 1 using (\$1 > 0 ? \$1 : 1/0):6 with lines lw 2 title 'OW(m), synchronised start',
     '' skip 1 using (\$1 > 0 ? \$1 : 1/0):7 with lines lw 2 title 'XW(m), exchange',
     ${L:-1} with lines dashtype 3 lw 2 lc rgb 'black' title 'L = ${L:-?} us'" 2>"$OUT/plogp_gnuplot.err"; then
                note "plot: $OUT/plogp_$p.png"
            else
                note "gnuplot failed (see $OUT/plogp_gnuplot.err)"
            fi
        done
    fi
    echo "#"
    echo "# To use a file for one run: MBMPI_PLOGP_FILE=$OUT/plogp_mbshm.plogp bin/mpirun ..."
    echo "# To install the measured files as the built-in defaults of this CPU model ($(host_cpu)),"
    echo "# picked by its \"cpu\" line (mpi/coll/params/<shm|tcp>.plogp: hosts no file names):"
    slug=$(host_cpu | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
    for p in $PPROVS; do
        case $p in *shm*) d=shm ;; net*) d=net ;; *) d=tcp ;; esac
        [ -s "$OUT/plogp_$p.plogp" ] && echo "#   cp $OUT/plogp_$p.plogp mpi/coll/params/$d-${slug:-cpu}.plogp"
    done
    echo "#   scripts/gen_plogp_defaults.sh && make -s all"
    finish
fi

# ==== coll ==================================================================
coll_args() { # the sweep options shared by coll and peers
    echo "-m $SIZES -f $FACTOR -r $REPS -t $RUN_BUDGET${ITERS:+ -i $ITERS}"
}

mul() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a * b }'; } # a x b, 3 decimals
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }          # a < b (decimals)

# fit_err <provider> <file> <csv...>: the median |predicted - measured| /
# measured over the forced algorithms' rows of the CSVs (bench/coll's, one
# op and P each) with the model's parameters from <file> (bench/coll
# --predict-only at each CSV's op and P); prints nothing when no row compares
fit_err() {
    local p=$1 file=$2 csv op np
    shift 2
    : >"$OUT/fit_$p.err"
    for csv in "$@"; do
        read -r op np < <(awk -F, 'NR == 2 { print $1, $2; exit }' "$csv")
        [ -n "${np:-}" ] || continue
        env MBMPI_PLOGP_FILE="$file" timeout -k 3 33 bin/mpirun -n "$np" --provider "$p" --timeout 30 \
            "$BUILD/coll" -c "$op" --predict-only $(coll_args) --csv "$OUT/fit_$p.pred" >/dev/null 2>&1 || continue
        awk -F, 'NR == FNR { if (FNR > 1) pr[$3 FS $4] = $6; next }
            FNR > 1 && $4 != "auto" && $5 > 0 && pr[$3 FS $4] > 0 { e = (pr[$3 FS $4] - $5) / $5; print e < 0 ? -e : e }' \
            "$OUT/fit_$p.pred" "$csv" >>"$OUT/fit_$p.err"
    done
    sort -g "$OUT/fit_$p.err" | awk '{ a[++n] = $1 } END { if (n) printf "%.4f\n", n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
    rm -f "$OUT/fit_$p.err" "$OUT/fit_$p.pred"
}

# fit_over <provider> <file> <csv...>: fits the oversubscription lines wake,
# turn and xwait of <file> (mpi/coll/model.c: what a rank's turn on a shared
# CPU costs; bench/plogp measures 2 ranks, which never wait for one) to the
# CSVs, jobs of more ranks than CPUs: all three scaled together by 0.5-2,
# then each alone by 0.67-1.5, keeping whatever lowers the median error
# (fit_err). Writes the fitted lines into <file> with a comment; prints
# "<before> <after>" (the median errors).
fit_over() {
    local p=$1 file=$2 w t x e0 e best s f k v bw bt bx
    shift 2
    w=$(awk '$1 == "wake" { print $2 }' "$file"); t=$(awk '$1 == "turn" { print $2 }' "$file")
    x=$(awk '$1 == "xwait" { print $2 }' "$file")
    [ -n "$w" ] && [ -n "$t" ] && [ -n "$x" ] || return 1
    # with <wake> <turn> <xwait>: <file> with those lines, as $OUT/fit_<p>.try
    with() {
        awk -v w="$1" -v t="$2" -v x="$3" '$1 == "wake" { $0 = "wake " w } $1 == "turn" { $0 = "turn " t }
            $1 == "xwait" { $0 = "xwait " x } { print }' "$file" >"$OUT/fit_$p.try"
    }
    e0=$(fit_err "$p" "$file" "$@")
    [ -n "$e0" ] || return 1
    best=$e0 bw=$w bt=$t bx=$x
    for s in 0.5 0.67 0.8 1.25 1.5 2; do
        with "$(mul "$w" $s)" "$(mul "$t" $s)" "$(mul "$x" $s)"
        e=$(fit_err "$p" "$OUT/fit_$p.try" "$@")
        if [ -n "$e" ] && lt "$e" "$best"; then best=$e bw=$(mul "$w" $s) bt=$(mul "$t" $s) bx=$(mul "$x" $s); fi
    done
    for k in wake turn xwait; do
        for f in 0.67 0.8 1.25 1.5; do
            case $k in
            wake) v=$(mul "$bw" $f); with "$v" "$bt" "$bx" ;;
            turn) v=$(mul "$bt" $f); with "$bw" "$v" "$bx" ;;
            xwait) v=$(mul "$bx" $f); with "$bw" "$bt" "$v" ;;
            esac
            e=$(fit_err "$p" "$OUT/fit_$p.try" "$@")
            if [ -n "$e" ] && lt "$e" "$best"; then
                best=$e
                case $k in wake) bw=$v ;; turn) bt=$v ;; xwait) bx=$v ;; esac
            fi
        done
    done
    with "$bw" "$bt" "$bx"
    awk -v c="# wake, turn, xwait: fitted $(date -u '+%Y-%m-%d %H:%M UTC') by bench/run_coll.sh to $# bench/coll jobs of more ranks than CPUs (median error $e0 -> $best)" \
        '$1 == "wake" && !done { print c; done = 1 } { print }' "$OUT/fit_$p.try" >"$file"
    rm -f "$OUT/fit_$p.try"
    echo "$e0 $best"
}

if [ "$MODE" = coll ]; then
    build bin/mpicc bench/coll.c "$BUILD/coll" || exit 1
    if ! grep -q MBMPI_HAVE_COLL_EXT mpi/include/mpi.h; then
        note "mpi.h has no MBMPI_HAVE_COLL_EXT: only the automatic choice can be timed"
    fi
    CROUNDS=${COLL_ROUNDS:-1}
    CAL=${COLL_CALIBRATE:-0}
    FIT=${COLL_FIT:-1}
    FIT_CPUS=${COLL_FIT_CPUS:-$(nproc)}
    rm -f "$OUT"/fit_*.lines
    if [ "$CAL" = 1 ]; then
        build bin/mpicc bench/plogp.c "$BUILD/plogp" || exit 1
        ncal=$(($(echo $PROVIDERS | wc -w) * CROUNDS))
        case " $PROVIDERS " in *" mbshm "*) ncal=$((ncal + CROUNDS)) ;; esac
    else
        ncal=0
    fi
    total=$(($(echo $PROVIDERS | wc -w) * $(echo $OPS | wc -w) * $(echo $NPS | wc -w) * CROUNDS + ncal))
    jobs=()
    # rounds outermost: the machine's speed drifts (on a shared VM by 2x and
    # more between minutes), and each round meets it at every job alike
    for round in $(seq 1 "$CROUNDS"); do for p in $PROVIDERS; do
        unset cal_file
        if [ "$CAL" = 1 ]; then
            # the model's parameters measured now, for this round's jobs on
            # p (the fitted contention, wake, turn, xwait, late and membound lines carried over)
            cal=$OUT/calibrate_${p}_r$round.plogp
            if t=$(run_timeout) && one_job "calibrate_${p}_r$round" "plogp $(provname "$p") r$round" "$t" \
                bin/mpirun -n 2 --provider "$p" --timeout "$t" "$BUILD/plogp" -p "$(provname "$p")" \
                -r 3 -m "${SIZES#*:}" -o "$cal.tmp"; then
                CARRY=$(carry_lines "$p") awk '/^# m_bytes/ { print ENVIRON["CARRY"] } { print }' "$cal.tmp" >"$cal" &&
                    cal_file=$cal
                # the oversubscription lines fitted on the round before
                if [ -n "${cal_file:-}" ] && [ -s "$OUT/fit_$p.lines" ]; then
                    FIT=$(cat "$OUT/fit_$p.lines") awk '$1 == "wake" { print ENVIRON["FIT"] } $1 ~ /^(wake|turn|xwait)$/ { next } { print }' \
                        "$cal" >"$cal.fit" && mv "$cal.fit" "$cal"
                fi
            fi
            # and mbshm's one-way costs through the rings
            if [ "$p" = mbshm ] && [ -n "${cal_file:-}" ] && t=$(run_timeout) &&
                one_job "calibrate_${RING}_r$round" "plogp $RING r$round" "$t" \
                    env MBMPI_SHM_CMA=0 bin/mpirun -n 2 --provider mbshm --timeout "$t" "$BUILD/plogp" \
                    -p $RING -r 3 -m "${SIZES#*:}" -o "$cal.ring"; then
                ring_lines "$cal.ring" >>"$cal"
            fi
            # and what its collective messages read by their receivers cost
            if [ "$p" = mbshm ] && [ -n "${cal_file:-}" ] && t=$(run_timeout) &&
                one_job "calibrate_${READ}_r$round" "plogp $READ r$round" "$t" \
                    env $READ_ENV bin/mpirun -n 2 --provider mbshm --timeout "$t" "$BUILD/plogp" \
                    -p $READ -r 3 -m 32K -o "$cal.read"; then
                read_lines "$cal.read" >>"$cal"
            fi
            rm -f "$cal.tmp" "$cal.ring" "$cal.read"
        fi
        for op in $OPS; do for np in $NPS; do
            tag=coll_${p}_${op}_P$np
            [ "$CROUNDS" -gt 1 ] && tag=${tag}_r$round
            if ! t=$(run_timeout); then skip_job "coll $op P=$np $p${round:+ round $round}"; continue; fi
            rm -f "$OUT/$tag.csv"
            # no round of an earlier run with more rounds joins the medians
            [ "$round" = 1 ] && rm -f "$OUT/coll_${p}_${op}_P${np}"_r*.csv
            one_job "$tag" "coll $op P=$np $(provname "$p")$([ "$CROUNDS" -gt 1 ] && echo " r$round")" "$t" \
                env ${cal_file:+MBMPI_PLOGP_FILE=$cal_file} \
                bin/mpirun -n "$np" --provider "$p" --timeout "$t" "$BUILD/coll" -c "$op" $(coll_args) \
                --csv "$OUT/$tag.csv"
            [ "$round" = 1 ] && [ -s "$OUT/$tag.csv" ] && jobs+=("${tag%_r1}")
        done; done
        # fit the next round's wake, turn and xwait to this round's jobs of
        # more ranks than CPUs (COLL_FIT): each round is then predicted with
        # values fitted on timings it did not take part in
        if [ "$CAL" = 1 ] && [ "$FIT" = 1 ] && [ "$round" -lt "$CROUNDS" ] && [ -n "${cal_file:-}" ]; then
            fit_csvs=()
            for op in $OPS; do for np in $NPS; do
                c=$OUT/coll_${p}_${op}_P${np}_r$round.csv
                [ "$np" -gt "$FIT_CPUS" ] && [ -s "$c" ] && fit_csvs+=("$c")
            done; done
            if [ ${#fit_csvs[@]} -gt 0 ]; then
                cp "$cal_file" "$OUT/fit_$p.plogp"
                if r=$(fit_over "$p" "$OUT/fit_$p.plogp" "${fit_csvs[@]}"); then
                    grep -E '^(# wake, turn, xwait: fitted|wake|turn|xwait) ' "$OUT/fit_$p.plogp" >"$OUT/fit_$p.lines"
                    note "round $round $(provname "$p"): wake, turn, xwait fitted on ${#fit_csvs[@]} jobs: median error ${r% *} -> ${r#* } ($(grep -E '^(wake|turn|xwait) ' "$OUT/fit_$p.lines" | tr '\n' ' '))"
                fi
            fi
        fi
    done; done

    if [ "$CROUNDS" -gt 1 ]; then
        # one CSV per job: every (m, algorithm) measured = the median over the
        # rounds that timed it, and so the prediction (the same in every
        # round unless COLL_CALIBRATE); the picks are round 1's
        for tag in "${jobs[@]}"; do
            awk -F, "$AWK_MED"'
                FNR == 1 { if (NR == 1) print; next }
                { k = $1 FS $2 FS $3 FS $4; if (!(k in ch)) { ord[++n] = k; ch[k] = $7 }
                  if ($5 > 0) v[k] = v[k] " " $5
                  if ($6 > 0) pr[k] = pr[k] " " $6 }
                END { for (i = 1; i <= n; i++) { k = ord[i]; printf "%s,%s,%s,%s\n", k, (v[k] != "" ? sprintf("%.3f", med(v[k])) : ""), (pr[k] != "" ? sprintf("%.3f", med(pr[k])) : "-1"), ch[k] } }' \
                "$OUT/${tag}"_r*.csv >"$OUT/$tag.csv"
        done
        # the per-algorithm tables of the medians
        for tag in "${jobs[@]}"; do
            echo "#"
            awk -F, -v r="$CROUNDS" 'NR == 1 { next }
                !h++ { printf "# %s P=%s: median of %d rounds\n# %-10s %-24s %12s %12s %8s\n", $1, $2, r, "size", "algorithm", "measured_us", "predicted_us", "pred/meas" }
                { printf "  %-10s %-24s %12s %12s %8s\n", $3, ($4 == "auto" ? "auto(" $7 ")" : $4), $5, $6, ($5 > 0 && $6 > 0 ? sprintf("%.2f", $6 / $5) : "-") }' \
                "$OUT/$tag.csv"
        done
    else
        # the per-algorithm tables as bench/coll printed them
        for tag in "${jobs[@]}"; do
            echo "#"
            grep -v '^# measured' "$OUT/$tag.txt"
        done
    fi
    # summary: share of sizes where the pick is the fastest / within 10 %,
    # median relative error |predicted - measured| / measured
    summary=$OUT/coll_summary.csv
    echo "provider,op,P,sizes,pick_fastest,pick_within_10pct,median_rel_err_pct,median_rel_err_auto_pct" >"$summary"
    # one awk program for a job's CSV or for all of them (points keyed by file and size)
    score='
        function med(a, n,    i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : -1
        }
        FNR == 1 { next }
        { op = op == "" || op == $1 ? $1 : "all"; P = P == "" || P == $2 ? $2 : "all"; k = FILENAME SUBSEP $3 }
        $5 > 0 && $6 > 0 {
            e = ($6 - $5) / $5; if (e < 0) e = -e
            if ($4 == "auto") ea[++na] = e; else er[++ne] = e
        }
        $5 > 0 && $4 != "auto" { t[k, $4] = $5; if (!(k in best) || $5 < best[k]) best[k] = $5 }
        $4 == "auto" { pick[k] = $7 }
        END {
            for (k in pick) if ((k SUBSEP pick[k]) in t && k in best) {
                n++; r = t[k, pick[k]] / best[k]
                if (r <= 1.0000001) f++
                if (r <= 1.10) w++
            }
            printf "%s,%s,%s,%d,%d,%d,%s,%s\n", prov, op, P, n, f, w,
                ne ? sprintf("%.1f", 100 * med(er, ne)) : "", na ? sprintf("%.1f", 100 * med(ea, na)) : ""
        }'
    # calibrated every round, each round is scored alone against its own
    # parameters and picks (points = rounds x sizes)
    all=()
    for tag in "${jobs[@]}"; do
        p=${tag#coll_}; p=${p%%_*}
        if [ "$CAL" = 1 ] && [ "$CROUNDS" -gt 1 ]; then files=("$OUT/${tag}"_r*.csv); else files=("$OUT/$tag.csv"); fi
        awk -F, -v prov="$p" "$score" "${files[@]}" >>"$summary"
        all+=("${files[@]}")
    done
    [ ${#all[@]} -gt 1 ] && awk -F, -v prov=all "$score" "${all[@]}" >>"$summary"
    # and each calibrated round alone (from round 2 on, predicted with the
    # wake, turn and xwait fitted on the round before)
    if [ "$CAL" = 1 ] && [ "$CROUNDS" -gt 1 ]; then
        for round in $(seq 1 "$CROUNDS"); do
            rf=()
            for f in "${all[@]}"; do case $f in *_r$round.csv) rf+=("$f") ;; esac; done
            [ ${#rf[@]} -gt 0 ] && awk -F, -v prov="round$round" "$score" "${rf[@]}" >>"$summary"
        done
    fi
    echo "#"
    echo "# summary ($(date '+%Y-%m-%d %H:%M %Z'), load average $(cut -d' ' -f1-3 /proc/loadavg)): sizes $SIZES x$FACTOR, -r $REPS"
    echo "# pick fastest / within 10 %: sizes where the automatic pick (timed forced) was the fastest forced"
    echo "# algorithm / within 10 % of it; error: median |predicted - measured| / measured over algorithms x sizes"
    printf '# %-12s %-10s %3s %6s %13s %13s %10s %10s\n' provider op P sizes pick_fastest within_10% err_all err_auto
    tail -n +2 "$summary" | while IFS=, read -r p op np n f w e ea; do
        pct() { [ "$1" -gt 0 ] && awk -v a="$2" -v b="$1" 'BEGIN { printf "%d (%.0f%%)", a, 100 * a / b }' || echo -; }
        printf '  %-12s %-10s %3s %6s %13s %13s %10s %10s\n' "$(provname "$p")" "$op" "$np" "$n" "$(pct "$n" "$f")" \
            "$(pct "$n" "$w")" "${e:+$e%}" "${ea:+$ea%}"
    done

    # plots: one per job, per algorithm a data file (m, measured, predicted)
    if have_gnuplot && [ ${#jobs[@]} -gt 0 ]; then
        term=$(gnuplot_term)
        mkdir -p "$OUT/coll_data"
        for tag in "${jobs[@]}"; do
            rm -f "$OUT/coll_data/$tag".*.dat
            awk -F, -v d="$OUT/coll_data/$tag" 'NR > 1 { f = d "." $4 ".dat"; printf "%s %s %s\n", $3, ($5 > 0 ? $5 : "NaN"), ($6 > 0 ? $6 : "NaN") > f }' \
                "$OUT/$tag.csv"
            plot="" i=0
            for f in "$OUT/coll_data/$tag".*.dat; do
                [ -f "$f" ] || continue
                a=${f#"$OUT/coll_data/$tag."}; a=${a%.dat}
                [ "$a" = auto ] && continue
                i=$((i + 1))
                plot="$plot${plot:+, }'$f' using 1:2 with points pt $((i + 4)) ps 1.3 lc $i title '$a measured', '$f' using 1:3 with lines lw 2 lc $i title '$a predicted'"
            done
            f="$OUT/coll_data/$tag.auto.dat"
            [ -f "$f" ] && plot="$plot, '$f' using 1:2 with points pt 6 ps 2.5 lc rgb 'black' title 'auto (model pick) measured'"
            set -- $(echo "$tag" | tr _ ' ') # coll prov op P<np>
            if gnuplot -e "set terminal $term noenhanced; set output '$OUT/$tag.png'; set logscale xy; set grid;
set key outside right top; set xrange [0.7:*];
set title '$3, P=${4#P}, $(provname "$2"): measured (points) vs pLogP predicted (lines)';
set xlabel 'message size m (bytes per rank)'; set ylabel 'time (us)';
set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576);
plot $plot" 2>"$OUT/coll_gnuplot.err"; then
                note "plot: $OUT/$tag.png"
            else
                note "gnuplot failed for $tag (see $OUT/coll_gnuplot.err)"
            fi
        done
    fi
    finish
fi

# ==== peers =================================================================
declare -A NAME=([mbmpi]=mbmpi [openmpi]="Open MPI" [mpich]=MPICH)
declare -A CC=([mbmpi]=bin/mpicc [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A RUN=([mbmpi]=bin/mpirun [openmpi]=mpirun.openmpi [mpich]=mpirun.mpich)
declare -A SUFFIX=([mbmpi]="" [openmpi]=.openmpi [mpich]=.mpich)
IMPLS=""
for impl in mbmpi openmpi mpich; do
    if ! command -v "${CC[$impl]}" >/dev/null 2>&1 || ! command -v "${RUN[$impl]}" >/dev/null 2>&1; then
        note "${CC[$impl]} or ${RUN[$impl]} not found: skipping ${NAME[$impl]}"
        continue
    fi
    if build "${CC[$impl]}" bench/coll.c "$BUILD/coll${SUFFIX[$impl]}"; then
        IMPLS="$IMPLS $impl"
    else
        rc_all=1
        failed+=("build bench/coll with ${CC[$impl]}")
    fi
done
[ -n "$IMPLS" ] || { note "nothing to run"; exit 1; }

OMPI_FLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && OMPI_FLAGS="--allow-run-as-root $OMPI_FLAGS"
OMPI_ENV=""
# Open MPI's vader BTL uses CMA (process_vm_readv) for large messages; where
# ptrace rules refuse it, fall back to copy-in/copy-out (as run_peers.sh).
if [[ " $IMPLS " == *" openmpi "* ]]; then
    probe="mpirun.openmpi $OMPI_FLAGS -np 2 $BUILD/coll.openmpi -c bcast -m 1M:1M -r 1 -i 1"
    if ! timeout -k 3 60 $probe >"$OUT/coll_peers_probe.txt" 2>"$OUT/coll_peers_probe.err" ||
        grep -qiE 'single.copy|cma|process_vm|ptrace' "$OUT/coll_peers_probe.err"; then
        OMPI_ENV="OMPI_MCA_btl_vader_single_copy_mechanism=none"
        note "Open MPI: default single-copy (CMA) failed; using $OMPI_ENV"
    fi
fi
PEERS_PROV=${COLL_PEERS_PROVIDER:-mbshm}
PEERS_SYNC=${COLL_PEERS_SYNC:-barrier}
# Over a network provider the peers take their TCP transports too, between
# ranks of this host: Open MPI's tcp BTL, MPICH (ch4:ucx) with every rank
# treated as remote and UCX on tcp.
PEERS_NET=""
PEERS_OMPI_NET=""
PEERS_MPICH_NET=""
case $PEERS_PROV in
tcp | net | sockets | udp | verbs | *ofi_rxm* | net\;*)
    PEERS_NET=" over TCP (Open MPI --mca btl tcp,self; MPICH MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self)"
    PEERS_OMPI_NET="--mca btl tcp,self"
    PEERS_MPICH_NET="MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"
    ;;
esac
launch() { # launch <impl> <np> <timeout>: the launcher words
    case $1 in
    mbmpi) echo "bin/mpirun -n $2 --provider $PEERS_PROV --timeout $3" ;;
    openmpi) echo "env $OMPI_ENV mpirun.openmpi $OMPI_FLAGS $PEERS_OMPI_NET -np $2" ;;
    mpich) echo "env $PEERS_MPICH_NET mpirun.mpich -n $2" ;;
    esac
}

total=$(($(echo $OPS | wc -w) * $(echo $NPS | wc -w) * ROUNDS * $(echo $IMPLS | wc -w)))
commands=()
# rounds outermost: when the budget runs out, it is the last rounds that are lost
for round in $(seq 1 "$ROUNDS"); do for op in $OPS; do for np in $NPS; do for impl in $IMPLS; do
    tag=coll_peers_${impl}_${op}_P${np}_r$round
    rm -f "$OUT/$tag.csv"
    if ! t=$(run_timeout); then skip_job "round $round $op P=$np ${NAME[$impl]}"; continue; fi
    cmd="$(launch $impl "$np" "$t") $BUILD/coll${SUFFIX[$impl]} -c $op --osu --sync $PEERS_SYNC $(coll_args) --csv $OUT/$tag.csv"
    commands+=("$cmd")
    one_job "$tag" "round $round $op P=$np ${NAME[$impl]}" "$t" $cmd || rm -f "$OUT/$tag.csv"
done; done; done; done

# median over the rounds of impl's time at size s: median_of <impl> <op> <np> <s> [column]
# (column 2: OSU's Avg Latency, the mean over the ranks; 4: the slowest rank's)
median_of() {
    local f vals=""
    for f in "$OUT"/coll_peers_$1_$2_P$3_r*.csv; do
        [ -f "$f" ] || continue
        vals="$vals $(awk -F, -v s="$4" -v c="${5:-2}" 'NR > 1 && $1 == s { print $c; exit }' "$f")"
    done
    echo $vals | tr ' ' '\n' | grep . | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# rounds in which mbmpi was slower than 1.1x the peer, of the rounds both
# ran (a round's runs are adjacent in time, so a drift of the host's speed
# falls on both): slower_rounds <peer> <op> <np> <s> -> "k/n", or nothing
slower_rounds() {
    local r a b k=0 n=0
    for r in $(seq 1 "$ROUNDS"); do
        a=$(awk -F, -v s="$4" 'NR > 1 && $1 == s { print $2; exit }' "$OUT/coll_peers_mbmpi_$2_P$3_r$r.csv" 2>/dev/null)
        b=$(awk -F, -v s="$4" 'NR > 1 && $1 == s { print $2; exit }' "$OUT/coll_peers_$1_$2_P$3_r$r.csv" 2>/dev/null)
        [ -n "$a" ] && [ -n "$b" ] || continue
        n=$((n + 1))
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a > 1.1 * b) }' && k=$((k + 1))
    done
    [ "$n" -gt 0 ] && echo "$k/$n"
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'; }
fmt() { if [ -n "$2" ]; then printf " %10.$1f" "$2"; else printf ' %10s' -; fi; }

echo "# bench/coll --osu --sync $PEERS_SYNC: mbmpi ($PEERS_PROV, automatic choice) vs Open MPI vs MPICH$PEERS_NET, $(hostname), $(date '+%Y-%m-%d %H:%M %Z')"
echo "# $ROUNDS rounds run alternately; value = median over the rounds of the run's median (us); ratio < 1: mbmpi faster"
echo "# >1.1x OMPI / MPICH: the rounds in which mbmpi took more than 1.1x the peer's time, of the rounds both ran"
for impl in mbmpi openmpi mpich; do
    f=$(ls "$OUT"/coll_peers_${impl}_*_r1.txt 2>/dev/null | head -1)
    echo "#   ${NAME[$impl]}: $([ -n "$f" ] && sed -n '1s/^.*(MPI: \(.*\))$/\1/p' "$f" || echo "not run")"
done
for op in $OPS; do for np in $NPS; do
    csv=$OUT/coll_peers_${op}_P$np.csv
    echo "size,mbmpi,openmpi,mpich,mbmpi_over_openmpi,mbmpi_over_mpich,rounds_slower_openmpi,rounds_slower_mpich,max_mbmpi_over_openmpi,max_mbmpi_over_mpich" >"$csv"
    sizes=$(cat "$OUT"/coll_peers_*_${op}_P${np}_r*.csv 2>/dev/null | awk -F, '$1 ~ /^[0-9]+$/ { print $1 }' | sort -n -u)
    echo "#"
    echo "# $op, P=$np"
    printf '# %-6s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n' size mbmpi OpenMPI MPICH mbmpi/OMPI mbmpi/MPICH \
        ">1.1x OMPI" ">1.1x MPICH" "max/OMPI" "max/MPICH"
    for s in $sizes; do
        m=$(median_of mbmpi "$op" "$np" "$s") o=$(median_of openmpi "$op" "$np" "$s") p=$(median_of mpich "$op" "$np" "$s")
        mx=$(median_of mbmpi "$op" "$np" "$s" 4) ox=$(median_of openmpi "$op" "$np" "$s" 4)
        px=$(median_of mpich "$op" "$np" "$s" 4)
        so=$(slower_rounds openmpi "$op" "$np" "$s") sp=$(slower_rounds mpich "$op" "$np" "$s")
        echo "$s,$m,$o,$p,$(ratio "$m" "$o"),$(ratio "$m" "$p"),$so,$sp,$(ratio "$mx" "$ox"),$(ratio "$mx" "$px")" >>"$csv"
        printf '  %-6s' "$(label "$s")"
        fmt 2 "$m"; fmt 2 "$o"; fmt 2 "$p"; fmt 2 "$(ratio "$m" "$o")"; fmt 2 "$(ratio "$m" "$p")"
        printf ' %10s %10s' "${so:--}" "${sp:--}"
        fmt 2 "$(ratio "$mx" "$ox")"; fmt 2 "$(ratio "$mx" "$px")"
        echo
    done
    # the issue's targets: no size slower than 1.1x, most faster; a size
    # slower by the median is counted again when it was so in every round
    awk -F, 'NR > 1 { for (k = 5; k <= 6; k++) if ($k != "") { n[k]++; if ($k < 1) f[k]++; if ($k > w[k]) w[k] = $k
                          if ($k > 1.1) { s[k]++; split($(k + 2), r, "/"); if (r[2] > 0 && r[1] == r[2]) a[k]++ } }
                  for (k = 9; k <= 10; k++) if ($k != "") { n[k]++; if ($k < 1) f[k]++; if ($k > w[k]) w[k] = $k; if ($k > 1.1) s[k]++ } }
        END { printf "# mbmpi faster than Open MPI at %d of %d sizes (%d slower than 1.1x, %d of them in every round, worst %.2fx), than MPICH at %d of %d (%d, %d, worst %.2fx)\n",
              f[5], n[5], s[5], a[5], w[5], f[6], n[6], s[6], a[6], w[6]
              if (n[9] + n[10]) printf "# by the slowest rank'"'"'s time (max): faster than Open MPI at %d of %d (%d slower than 1.1x, worst %.2fx), than MPICH at %d of %d (%d, worst %.2fx)\n",
              f[9], n[9], s[9], w[9], f[10], n[10], s[10], w[10] }' "$csv"
done; done
printf '%s\n' "${commands[@]}" >"$OUT/coll_peers_commands.txt"
note "commands: $OUT/coll_peers_commands.txt"
finish
