#!/usr/bin/env bash
# tests/mpi/run.sh: build the MPI test programs (tests/mpi/*.c) and run every
# line of tests/mpi/manifest once per provider.
#
#   tests/mpi/run.sh [--mpicc CMD] [--mpirun CMD] [--providers "shm tcp sockets"]
#                    [--filter REGEX] [--exclude REGEX] [--timeout SECONDS] [--keep-going-build]
#                    [--src DIR] [--manifest FILE] [--ldflags "FLAGS"]
#
# --src DIR takes the programs from DIR/*.c (and DIR/*.f, built with the
# Fortran wrapper bin/mpifort) and --manifest FILE the run list (default:
# this directory and its manifest); binaries then go to build/tests/<DIR's
# name>/. --ldflags adds link flags (e.g. an object with shared helpers).
#
# Defaults: --mpicc bin/mpicc, --mpirun bin/mpirun, --providers "shm tcp sockets".
# Binaries go to build/tests/mpi/ (another --mpicc: build/tests/mpi/<name>/),
# logs of every run to <that>/logs/.
# Provider words: shm, tcp (passed as "tcp;ofi_rxm"), sockets, net, or none (no
# --provider flag). With another MPI's launcher (Open MPI's or MPICH's
# mpirun) the providers are ignored and each line runs once ("none"); the
# launcher's own flags are added here (Open MPI: --oversubscribe,
# --allow-run-as-root as root, -x VAR for the manifest's variables). Where
# Open MPI's shared-memory single copy (CMA) is not permitted, set
# OMPI_MCA_btl_vader_single_copy_mechanism=none in the environment.
# --filter REGEX selects manifest lines whose "name np=N" matches;
# --exclude REGEX drops those that match it.
# CFLAGS (environment) overrides the compile flags (default -O2 -g).
# MBMPI_TEST_JOBS (environment): programs built and lines run at once
# (default: one per CPU; 1 when the only provider is mbshm).
#
# Output: one line per run, "ok - name np=N provider" or
# "not ok - name np=N provider (exit X, last stderr lines)", then exactly one
# "N passed, M failed" line. Exit status 1 when M > 0.
#
# Manifest lines: name np expect [stderr:WORD] [VAR=VAL ...]
#   expect: ok (exit 0) | fail (non-zero exit) | exit:N (exactly N)
#   stderr:WORD requires WORD somewhere in the job's stderr (or stdout);
#   nostderr:WORD requires it nowhere.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

mpicc="$root/bin/mpicc"
mpirun="$root/bin/mpirun"
providers="shm tcp sockets"
filter=""
exclude=""
tmo=60
srcdir=""
manifest=""
ldflags=""
while [ $# -gt 0 ]; do
    case "$1" in
    --mpicc) mpicc="$2"; shift 2 ;;
    --mpirun) mpirun="$2"; shift 2 ;;
    --providers) providers="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --exclude) exclude="$2"; shift 2 ;;
    --timeout) tmo="$2"; shift 2 ;;
    --src) srcdir=$(cd "$2" && pwd); shift 2 ;;
    --manifest) manifest=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --ldflags) ldflags="$2"; shift 2 ;;
    -h | --help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done

# a relative path to the launcher must survive the cd into the log directory
case "$mpirun" in
/*) ;;
*/*) mpirun="$PWD/$mpirun" ;;
esac
case "$mpicc" in
/*) ;;
*/*) mpicc="$PWD/$mpicc" ;;
esac

[ -n "$manifest" ] || manifest="$here/manifest"
[ -n "$srcdir" ] || srcdir="$here"
# bin/mpicc builds into build/tests/mpi/; any other compiler into its own
# subdirectory (build/tests/mpi/mpicc.mpich/ ...), so that a validation run
# with another MPI never replaces the binaries of a run against mbmpi.
if [ "$srcdir" = "$here" ]; then
    build="${MBMPI_TEST_BUILD:-$root/build/tests/mpi}"
else
    build="${MBMPI_TEST_BUILD:-$root/build/tests}/$(basename "$srcdir")"
fi
if [ "$mpicc" != "$root/bin/mpicc" ] && [ "$mpicc" != bin/mpicc ]; then
    build="$build/$(basename "${mpicc%% *}" | tr -c 'A-Za-z0-9._\n-' '_')"
fi
logs="$build/logs"
mkdir -p "$build" "$logs"
cflags="${CFLAGS:--O2 -g}"

# ---- which launcher is this? ----
flavor=mbmpi
ver=$($mpirun --version 2>&1 </dev/null | head -5 || true)
case "$ver" in
*"Open MPI"* | *OpenRTE* | *"Open RTE"*) flavor=ompi ;;
*HYDRA* | *Hydra* | *hydra*) flavor=mpich ;;
esac
if [ "$flavor" != mbmpi ] && [ "$providers" != none ]; then
    echo "# $mpirun is not mbmpi's launcher ($flavor): running once per line, no provider"
    providers=none
fi

# ---- build ----
# A stamp records which compiler built build/tests/mpi; a different one
# forces a full rebuild. A binary is also stale when older than its source,
# the compiler wrapper, or (for a wrapper inside this tree) lib/libmpi.a and
# mpi/include/mpi.h, and than a header of the test directory (check.h, ...).
mpicc_path=$(command -v "${mpicc%% *}" 2>/dev/null || echo "$mpicc")
stamp="$build/.mpicc"
want_stamp="$mpicc|$mpicc_path|$cflags|$ldflags"
force=0
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want_stamp" ]; then
    force=1
fi
deps=()
[ -f "$mpicc_path" ] && deps+=("$mpicc_path")
case "$mpicc_path" in
"$root"/*)
    lib="${MBMPI_LIBDIR:-$root/lib}/libmpi.a" # (bin/mpicc links that one)
    [ -f "$lib" ] && deps+=("$lib")
    [ -f "$root/mpi/include/mpi.h" ] && deps+=("$root/mpi/include/mpi.h")
    ;;
esac
for h in "$srcdir"/*.h; do
    [ -f "$h" ] && deps+=("$h")
done

# with --filter, only the programs of the lines selected (a sanitizer
# build of a whole directory took most of its run's time)
declare -A needed
while read -r name np _; do
    case "$name" in '' | '#'*) continue ;; esac
    if { [ -z "$filter" ] || [[ "$name np=$np" =~ $filter ]]; } &&
        { [ -z "$exclude" ] || ! [[ "$name np=$np" =~ $exclude ]]; }; then
        needed[$name]=1
    fi
done <"$manifest"

# Stale programs build in parallel, MBMPI_TEST_JOBS at a time (default:
# one per CPU): serially the first run of a fresh clone spent a minute
# compiling. Each build leaves its verdict in $logs/<name>.built.
jobs_max=${MBMPI_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
build_one() {
    local name=$1 cc=$2 src=$3 bin=$4
    # shellcheck disable=SC2086
    if $cc $cflags -o "$bin" "$src" $ldflags >"$logs/$name.build" 2>&1; then
        echo 1 >"$logs/$name.built"
    else
        rm -f "$bin"
        echo 0 >"$logs/$name.built"
    fi
}
declare -A built
building=()
for src in "$srcdir"/*.c "$srcdir"/*.f "$srcdir"/*.f90; do
    [ -f "$src" ] || continue
    name=$(basename "$src"); name=${name%.*}
    if [ -z "${needed[$name]:-}" ]; then
        # another compiler's binary must not survive a change of stamp
        [ "$force" = 1 ] && rm -f "$build/$name"
        continue
    fi
    cc=$mpicc
    # Fortran modules a test defines go to the build directory, not the cwd
    case "$src" in *.f | *.f90) cc="$root/bin/mpifort -J $build" ;; esac
    bin="$build/$name"
    stale=$force
    if [ "$stale" = 0 ]; then
        if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
            stale=1
        else
            for d in "${deps[@]}"; do
                if [ "$d" -nt "$bin" ]; then stale=1; break; fi
            done
        fi
    fi
    if [ "$stale" = 1 ]; then
        rm -f "$logs/$name.built"
        # Fortran programs one at a time: those that define modules write
        # them into the build directory
        case "$src" in
        *.f | *.f90) build_one "$name" "$cc" "$src" "$bin" ;;
        *)
            while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
            build_one "$name" "$cc" "$src" "$bin" &
            ;;
        esac
        building+=("$name")
    else
        built[$name]=1
    fi
done
wait
for name in "${building[@]}"; do
    if [ "$(cat "$logs/$name.built" 2>/dev/null)" = 1 ]; then
        built[$name]=1
    else
        built[$name]=0
        echo "# build of $name failed:"
        sed 's/^/#   /' "$logs/$name.build" | tail -n 15
    fi
done
echo "$want_stamp" >"$stamp"

# ---- run ----
passed=0
failed=0

run_line() {
    local name=$1 np=$2 expect=$3 prov=$4 idx=$5
    shift 5
    local want_word="" no_word="" vars=() xflags=() t
    for t in "$@"; do
        case "$t" in
        stderr:*) want_word="${t#stderr:}" ;;
        nostderr:*) no_word="${t#nostderr:}" ;;
        *=*) vars+=("$t"); xflags+=(-x "${t%%=*}") ;;
        esac
    done
    local id="$name np=$np $prov"
    # (the line's number too: a program may have several lines, and lines
    # run side by side)
    local base="$logs/$name.np$np.${prov//;/_}.$idx"
    mkdir -p "$logs"
    if [ "${built[$name]:-0}" != 1 ] || [ ! -x "$build/$name" ]; then
        echo "not ok - $id (not built: see $logs/$name.build)"
        failed=$((failed + 1))
        return
    fi
    local cmd=("$mpirun")
    case "$flavor" in
    ompi)
        cmd+=(--oversubscribe)
        [ "$(id -u)" = 0 ] && cmd+=(--allow-run-as-root)
        cmd+=("${xflags[@]}" -n "$np")
        ;;
    mpich) cmd+=(-n "$np") ;;
    *)
        cmd+=(-n "$np")
        case "$prov" in
        none) ;;
        tcp) cmd+=(--provider "tcp;ofi_rxm") ;;
        *) cmd+=(--provider "$prov") ;;
        esac
        ;;
    esac
    cmd+=("$build/$name")
    # run inside the log directory: whatever a crashing job leaves in its
    # working directory (core files, backtraces) stays out of the tree
    (cd "$logs" && env "${vars[@]}" timeout -k 5 "$tmo" "${cmd[@]}" >"$base.out" 2>"$base.err" </dev/null)
    local rc=$?
    local ok=0
    case "$expect" in
    ok) [ $rc = 0 ] && ok=1 ;;
    fail) [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] && ok=1 ;;
    exit:*) [ $rc = "${expect#exit:}" ] && ok=1 ;;
    *) echo "# manifest: bad expectation '$expect' for $name" ;;
    esac
    local why=""
    if [ $ok = 1 ] && [ -n "$want_word" ] && ! grep -qF -- "$want_word" "$base.err" "$base.out"; then
        ok=0
        why="no '$want_word' in the output, "
    fi
    if [ $ok = 1 ] && [ -n "$no_word" ] && grep -qF -- "$no_word" "$base.err" "$base.out"; then
        ok=0
        why="'$no_word' in the output, "
    fi
    if [ $ok = 1 ]; then
        echo "ok - $id"
        passed=$((passed + 1))
    else
        [ $rc = 124 ] || [ $rc = 137 ] && why="${why}timeout after ${tmo}s, "
        # the test's own FAIL line if there is one, else the last lines
        local tail_lines
        tail_lines=$(grep -m 1 '^FAIL ' "$base.err")
        [ -z "$tail_lines" ] &&
            tail_lines=$(grep -v '^[[:space:]]*$' "$base.err" | tail -n 3 | tr '\n' '|' | sed 's/|$//; s/|/ | /g')
        echo "not ok - $id (${why}exit $rc, expected $expect: $tail_lines)"
        failed=$((failed + 1))
    fi
}

# The lines run MBMPI_TEST_JOBS at a time too (independent jobs; much of a
# libfabric job's time is waiting: loading it sleeps 0.2 s per rank; MPI
# tests over shm, tcp and sockets: 255 -> 193 s on 2 CPUs); their results
# are printed in the manifest's order. Jobs over mbshm alone never wait
# (no library to load): two of them at once on 2 CPUs only compete (the
# shmem suite: 41 -> 61 s), so they run one at a time unless told.
if [ -z "${MBMPI_TEST_JOBS:-}" ] && [[ "$providers" =~ ^[[:space:]]*mbshm[[:space:]]*$ ]]; then
    jobs_max=1
fi
results=$(mktemp -d "$logs/.results.XXXXXX") # (two runs of one directory at once keep theirs apart)
n=0
while read -r name np expect rest; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ -n "$filter" ] && ! [[ "$name np=$np" =~ $filter ]]; then
        continue
    fi
    if [ -n "$exclude" ] && [[ "$name np=$np" =~ $exclude ]]; then
        continue
    fi
    # shellcheck disable=SC2086
    for prov in $providers; do
        n=$((n + 1))
        if [ "$jobs_max" -le 1 ]; then
            run_line "$name" "$np" "$expect" "$prov" "$n" $rest
            continue
        fi
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
        run_line "$name" "$np" "$expect" "$prov" "$n" $rest >"$results/$n" </dev/null &
    done
done <"$manifest"
wait
if [ "$jobs_max" -gt 1 ]; then
    for ((i = 1; i <= n; i++)); do
        [ -f "$results/$i" ] || { echo "not ok - line $i left no result"; failed=$((failed + 1)); continue; }
        cat "$results/$i"
        passed=$((passed + $(grep -c '^ok - ' "$results/$i")))
        failed=$((failed + $(grep -c '^not ok - ' "$results/$i")))
    done
fi
rm -rf "$results"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
