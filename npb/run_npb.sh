#!/usr/bin/env bash
# npb/run_npb.sh: run the NPB kernels of npb/ (what `make npb`, `make
# npb-peers` and `make npb-speedup` run).
#
#   npb/run_npb.sh run     [--class S] [--np 4] [--provider mbshm] [--kernels "ep is cg mg ft"]
#       every present kernel once with mbmpi; one table: kernel, class, NP,
#       time, Mop/s, verification.
#   npb/run_npb.sh peers   [--class S] [--np 2] [--provider mbshm] [--rounds 3]
#       builds the same sources with mpicc.openmpi and mpicc.mpich (each
#       skipped with a message when not installed) into build/npb/<k>.openmpi
#       and .mpich; runs mbmpi and each peer alternately per kernel (A B C A B
#       C ..., --rounds rounds), then prints per kernel the median time of
#       each MPI and the ratios mbmpi/peer (< 1: mbmpi faster).
#   npb/run_npb.sh speedup [--class S] [--nps "1 2 4 8"] [--provider mbshm]
#       every kernel at each NP with mbmpi; the MPI/MBCF paper's format:
#       time and [speed-up over NP=1] per kernel and NP.
#
# The kernels are build/npb/<k> (make npb-build). Runs are bounded by
# NPB_TIMEOUT seconds (default 900). Output of every run: NPB_OUT (default
# build/npb/out)/<mode>_<kernel>_<mpi>_np<N>[_r<round>].txt.
# Exit status 1 when a run failed or did not verify (the table is printed).

set -u
cd "$(dirname "$0")/.." || exit 1

mode=${1:-run}
[ $# -gt 0 ] && shift
case $mode in -h | --help) sed -n '2,21p' "$0"; exit 0 ;; esac
CLASS=S
NP=4
PROVIDER=mbshm
ROUNDS=3
NPS="1 2 4 8"
KERNELS=""
while [ $# -gt 0 ]; do
    case $1 in
    --class) CLASS=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --provider) PROVIDER=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --nps) NPS=$2; shift 2 ;;
    --kernels) KERNELS=$2; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run_npb: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
TMO=${NPB_TIMEOUT:-900}
OUT=${NPB_OUT:-build/npb/out}
mkdir -p "$OUT" || exit 1

note() { echo "run_npb: $*" >&2; }

if [ -z "$KERNELS" ]; then
    for k in ep is cg mg ft; do [ -f "npb/$k.c" ] && KERNELS="$KERNELS $k"; done
fi
for k in $KERNELS; do
    if [ ! -x "build/npb/$k" ]; then
        note "build/npb/$k missing: run 'make npb-build' first"
        exit 1
    fi
done

rc_all=0

# run_one <logfile> <command...>: run it; print "time mops verification exit"
run_one() {
    local log=$1
    shift
    timeout -k 5 $((TMO + 10)) "$@" >"$log" 2>&1
    local rc=$?
    local t m v
    # ep, is, cg print a " Precise time" line (6 decimals); else the report's 2
    t=$(awk -F= '/Precise time/ { gsub(/[ s]/, "", $2); print $2 }' "$log" | tail -1)
    [ -n "$t" ] || t=$(awk -F= '/Time in seconds/ { gsub(/ /, "", $2); print $2 }' "$log" | tail -1)
    m=$(awk -F= '/Mop\/s total/ { gsub(/ /, "", $2); print $2 }' "$log" | tail -1)
    v=$(awk -F= '/Verification/ { gsub(/ /, "", $2); print $2 }' "$log" | tail -1)
    [ -n "$v" ] || v=NONE
    echo "${t:--} ${m:--} $v $rc"
}

mbmpi_cmd() { # np kernel-binary
    echo "bin/mpirun -n $1 --provider $PROVIDER --timeout $TMO $2 $CLASS"
}

median() { # values...
    printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g |
        awk '{ v[NR] = $1 }
             END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'; }

case $mode in
run)
    printf '# NPB kernels with mbmpi (provider %s), class %s, %s processes\n' "$PROVIDER" "$CLASS" "$NP"
    printf '%-6s %-5s %4s %10s %12s  %s\n' kernel class NP time/s Mop/s verification
    for k in $KERNELS; do
        log=$OUT/run_${k}_mbmpi_np$NP.txt
        # shellcheck disable=SC2046
        set -- $(run_one "$log" $(mbmpi_cmd "$NP" "build/npb/$k"))
        t=$1 m=$2 v=$3 rc=$4
        if [ "$rc" = 2 ]; then
            v="INVALID ($(grep -m1 'invalid' "$log" | cut -c1-90))"
        elif [ "$rc" != 0 ] || [ "$v" != SUCCESSFUL ]; then
            v="$v (exit $rc, see $log)"
        fi
        [ "$rc" = 0 ] && [ "$3" = SUCCESSFUL ] || rc_all=1
        printf '%-6s %-5s %4s %10s %12s  %s\n' "$k" "$CLASS" "$NP" "$t" "$m" "$v"
    done
    ;;

peers)
    declare -A NAME=([mbmpi]=mbmpi [openmpi]="Open MPI" [mpich]=MPICH)
    declare -A CC=([openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
    declare -A RUN=([openmpi]=mpirun.openmpi [mpich]=mpirun.mpich)
    IMPLS=mbmpi
    for impl in openmpi mpich; do
        if ! command -v "${CC[$impl]}" >/dev/null 2>&1 || ! command -v "${RUN[$impl]}" >/dev/null 2>&1; then
            note "${CC[$impl]} or ${RUN[$impl]} not found: skipping ${NAME[$impl]}" \
                "(scripts/install-deps.sh --bench installs it)"
            continue
        fi
        ok=1
        for k in $KERNELS; do
            # no -Werror: the peers' mpi.h may warn (MPICH: MPI_STATUSES_IGNORE)
            if ! "${CC[$impl]}" -O3 -std=c11 -D_GNU_SOURCE -Inpb -Inpb/common -o "build/npb/$k.$impl" \
                "npb/$k.c" npb/common/npb.c -lm 2>"$OUT/peers_build_$impl.err"; then
                note "building build/npb/$k.$impl with ${CC[$impl]} failed:"
                cat "$OUT/peers_build_$impl.err" >&2
                ok=0
            fi
        done
        if [ $ok = 1 ]; then IMPLS="$IMPLS $impl"; else rc_all=1; fi
    done
    declare -A LAUNCH
    OMPI_FLAGS="--oversubscribe"
    [ "$(id -u)" = 0 ] && OMPI_FLAGS="--allow-run-as-root $OMPI_FLAGS"
    LAUNCH[openmpi]="mpirun.openmpi $OMPI_FLAGS -np $NP"
    LAUNCH[mpich]="mpirun.mpich -n $NP"
    # Open MPI's vader BTL uses CMA (process_vm_readv) for large messages;
    # where ptrace rules refuse it, fall back to copy-in/copy-out (as
    # bench/run_peers.sh does). The probe: IS class S, which sends large
    # Alltoallv blocks.
    if [[ " $IMPLS " == *" openmpi "* ]] && [ -x build/npb/is.openmpi ]; then
        if ! timeout -k 3 120 ${LAUNCH[openmpi]} build/npb/is.openmpi S >"$OUT/peers_probe.txt" 2>&1 ||
            grep -qiE 'single.copy|cma|process_vm|ptrace' "$OUT/peers_probe.txt"; then
            LAUNCH[openmpi]="env OMPI_MCA_btl_vader_single_copy_mechanism=none ${LAUNCH[openmpi]}"
            note "Open MPI: default single copy (CMA) failed;" \
                "using OMPI_MCA_btl_vader_single_copy_mechanism=none"
        fi
    fi
    declare -A T
    for round in $(seq 1 "$ROUNDS"); do
        for k in $KERNELS; do
            for impl in $IMPLS; do
                if [ "$impl" = mbmpi ]; then
                    cmd=$(mbmpi_cmd "$NP" "build/npb/$k")
                else
                    cmd="${LAUNCH[$impl]} build/npb/$k.$impl $CLASS"
                fi
                log=$OUT/peers_${k}_${impl}_np${NP}_r$round.txt
                printf '[round %d] %-3s %-9s ... ' "$round" "$k" "${NAME[$impl]}" >&2
                # shellcheck disable=SC2086
                set -- $(run_one "$log" $cmd)
                if [ "$4" = 0 ] && [ "$3" = SUCCESSFUL ]; then
                    T[$k,$impl]="${T[$k,$impl]-} $1"
                    echo "$1 s" >&2
                else
                    echo "FAILED (exit $4, verification $3; see $log)" >&2
                    rc_all=1
                fi
            done
        done
    done
    echo "# NPB class $CLASS, $NP processes: median time (s) of $ROUNDS alternating rounds;" \
        "ratio = mbmpi / other (< 1: mbmpi faster)"
    echo "# mbmpi provider $PROVIDER; peers with their default transports"
    printf '%-6s %10s %10s %10s %12s %12s\n' kernel mbmpi OpenMPI MPICH mbmpi/OMPI mbmpi/MPICH
    for k in $KERNELS; do
        # shellcheck disable=SC2086
        m=$(median ${T[$k,mbmpi]-}) o=$(median ${T[$k,openmpi]-}) p=$(median ${T[$k,mpich]-})
        r1=$(ratio "$m" "$o") r2=$(ratio "$m" "$p")
        printf '%-6s %10s %10s %10s %12s %12s\n' "$k" "${m:--}" "${o:--}" "${p:--}" "${r1:--}" "${r2:--}"
    done
    ;;

speedup)
    echo "# NPB class $CLASS with mbmpi (provider $PROVIDER): time in seconds and [speed-up over 1 process]"
    printf '%-6s' kernel
    for n in $NPS; do printf ' %18s' "NP=$n"; done
    printf '\n'
    for k in $KERNELS; do
        printf '%-6s' "$k"
        base=""
        for n in $NPS; do
            log=$OUT/speedup_${k}_mbmpi_np$n.txt
            # shellcheck disable=SC2046
            set -- $(run_one "$log" $(mbmpi_cmd "$n" "build/npb/$k"))
            if [ "$4" = 0 ] && [ "$3" = SUCCESSFUL ]; then
                [ -n "$base" ] || base=$1
                s=$(awk -v a="$base" -v b="$1" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
                printf ' %18s' "$(awk -v t="$1" 'BEGIN { printf "%.3f", t }') [$s]"
            elif [ "$4" = 2 ]; then
                printf ' %18s' "invalid NP"
            else
                printf ' %18s' "FAILED"
                note "$k NP=$n: exit $4, verification $3 (see $log)"
                rc_all=1
            fi
        done
        printf '\n'
    done
    echo "# (speed-up against the first NP that ran, normally NP=1)"
    ;;

*)
    echo "run_npb: unknown mode '$mode' (run, peers, speedup)" >&2
    exit 2
    ;;
esac
exit $rc_all
