#!/usr/bin/env bash
# scripts/run_tests.sh: what `make test` runs after building. Every suite
# prints its own results; this adds them up and ends with one line
# "N passed, M failed". Exit status 1 when anything failed. Each part ends
# with "# <part>: <seconds> s" (CI must stay under 15 minutes on 2 cores).
#   scripts/run_tests.sh [unit] [launch] [mpi] [extra] [stress] [kill] [asan] (default: all;
#   asan needs `make asan-build` first)
#   MBMPI_TEST_PROVIDERS="shm tcp sockets" selects the providers of the MPI
#   suite (default: shm every line, tcp the lines of 1-9 ranks, sockets
#   of 1-4).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
suites=${*:-unit launch mpi extra stress kill asan}
total_pass=0
total_fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# Add up "N passed, M failed" (our scripts) and CMocka's summary lines.
count() {
    local f=$1 p f2
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" | tail -1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
    if [ -n "$p" ]; then
        total_pass=$((total_pass + ${p% *}))
        total_fail=$((total_fail + ${p#* }))
        return
    fi
    p=$(awk '/^\[  PASSED  \] [0-9]+ test/ { n += $4 } END { print n + 0 }' "$f")
    f2=$(awk '/^\[  FAILED  \] [0-9]+ test/ { n += $4 } END { print n + 0 }' "$f")
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f2:-0}))
}

# Run one CMocka program (the rest of the line: its command) into $log/u,
# print and count its results; an exit without a CMocka failure line counts
# as a failure (99: valgrind's errors). $1 names it in that message.
# build_check NAME WHAT MAKE-VARS...: the library builds in build-NAME/ with
# those make variables (one ok / not ok line)
build_check() {
    local name=$1 what=$2
    shift 2
    if make -s -j2 BUILD="build-$name" LIBDIR="build-$name/lib" "$@" "build-$name/lib/libmpi.a" \
        >"$log/$name" 2>&1; then
        echo "ok - the library builds with $what"
        total_pass=$((total_pass + 1))
    else
        grep -E 'error' "$log/$name" | head -n 10
        echo "not ok - the library does not build with $what"
        total_fail=$((total_fail + 1))
    fi
}

cmocka_run() {
    local what=$1 rc
    shift
    "$@" >"$log/u" 2>&1
    rc=$?
    cmocka_report "$what" "$log/u" $rc
}

# cmocka_report WHAT FILE STATUS: print, count and check one finished run.
cmocka_report() {
    local what=$1 rc=$3
    cat "$2"
    count "$2"
    if [ "$rc" = 99 ]; then
        echo "not ok - $what: valgrind reported errors"
        total_fail=$((total_fail + 1))
    elif [ "$rc" != 0 ] && ! grep -q '^\[  FAILED  \]' "$2"; then
        echo "not ok - $what exited with status $rc"
        total_fail=$((total_fail + 1))
    fi
}

for s in $suites; do
    t0=$SECONDS
    case $s in
    unit)
        echo "== unit tests (CMocka, valgrind when available)"
        # one program per CPU at a time (valgrind runs one thread), the
        # results printed in order
        units=()
        for t in "${MBMPI_UNIT_DIR:-build/unit}"/test_*; do
            [ -x "$t" ] || continue
            i=${#units[@]}
            units+=("$t")
            while [ "$(jobs -rp | wc -l)" -ge "$(nproc 2>/dev/null || echo 2)" ]; do wait -n; done
            if command -v valgrind >/dev/null && [ "${MBMPI_TEST_VALGRIND:-1}" = 1 ]; then
                # test_proto's random traffic: 3 seeds under valgrind (12
                # took 45 s there), all 12 natively below
                (env MBMPI_TEST_SEEDS="${MBMPI_TEST_SEEDS:-3}" \
                    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 "$t" \
                    >"$log/u$i" 2>&1
                    echo $? >"$log/u$i.rc") &
            else
                ("$t" >"$log/u$i" 2>&1
                    echo $? >"$log/u$i.rc") &
            fi
        done
        wait
        for i in "${!units[@]}"; do
            cmocka_report "${units[$i]}" "$log/u$i" "$(cat "$log/u$i.rc" 2>/dev/null || echo 98)"
        done
        if [ -x "${MBMPI_UNIT_DIR:-build/unit}/test_proto" ] && command -v valgrind >/dev/null &&
            [ "${MBMPI_TEST_VALGRIND:-1}" = 1 ]; then
            cmocka_run "test_proto test_random" env MBMPI_TEST_FILTER=test_random \
                "${MBMPI_UNIT_DIR:-build/unit}/test_proto"
        fi
        # the library also builds at -O3, where gcc warns about more
        # (maybe-uninitialized) and -Werror turns that into a failed build
        build_check o3 "CFLAGS=-O3" CFLAGS="-O3"
        # and with clang, where installed (its -Wextra has checks gcc's lacks,
        # e.g. missing field initializers in designated initializers)
        if command -v clang >/dev/null; then
            build_check clang "CC=clang" CC=clang
        fi
        ;;
    launch)
        echo "== launcher tests"
        # with mpirun and the ranks under valgrind too where it is installed
        # (install-deps.sh installs it): a few seconds
        LAUNCH_TEST_VALGRIND=1 bash tests/launch/run_launch_tests.sh 2>&1 | tee "$log/l"
        count "$log/l"
        ;;
    mpi)
        echo "== MPI tests through bin/mpirun"
        if [ -n "${MBMPI_TEST_PROVIDERS:-}" ]; then
            tests/mpi/run.sh --providers "$MBMPI_TEST_PROVIDERS" 2>&1 | tee "$log/m"
            count "$log/m"
        else
            # shm (libfabric's) runs the lines of 1-4 ranks and two of 7 and
            # 16 (every line, of any size, runs over mbshm in the shmem
            # suite; each rank of a libfabric job pays 0.3 s to load it)
            tests/mpi/run.sh --providers shm \
                --filter 'np=[1-4]$|^(p2p_basic|coll_basic) np=(7|16)$' 2>&1 | tee "$log/m"
            count "$log/m"
            # The network providers skip the programs that test the
            # library's own logic (argument checks, topologies, groups,
            # attributes, type constructors, CPU binding, spawn refusal,
            # MPI_T, MPI-IO's file logic, ports, large counts): shm and mbshm run them
            lib_only='^(cart|groups|env|bind|misc|type_f90|attr_lang|rma_attr|rma_errors|errors|dynamic|comm_idup|type_free_pending|mpit|io|ports|large_count) '
            # (sockets and net also leave the threads, sessions and the many
            # outstanding Gets to shm, mbshm and tcp;ofi_rxm)
            lib_only2='^(cart|groups|env|bind|misc|type_f90|attr_lang|rma_attr|rma_errors|errors|dynamic|comm_idup|type_free_pending|mpit|io|ports|thread_multiple|rma_manyget|large_count|session) '
            # A job of one rank opens no transport (a singleton's messages
            # stay in the process): the lines of 1 rank run over shm only.
            # tcp;ofi_rxm runs the lines of 2-4 ranks (each rank pays 0.3 s
            # for loading libfabric and 0.25 s for ofi_rxm's buffer pools: a
            # 7-rank line takes 2 s); the lines of more ranks test the
            # library's logic, which shm and mbshm cover
            tests/mpi/run.sh --providers tcp --filter 'np=[2-4]$' --exclude "$lib_only" 2>&1 | tee "$log/m1"
            count "$log/m1"
            # sockets, the slowest provider (84 s for the whole list), runs
            # the lines of 2 ranks: the others test the library's logic,
            # which shm and tcp;ofi_rxm already cover (make test had grown
            # to 14.8 minutes of its 15)
            tests/mpi/run.sh --providers sockets --filter 'np=2$' --exclude "$lib_only2" 2>&1 | tee "$log/m2"
            count "$log/m2"
            # net (libfabric 1.17's native-RDM tcp, the default when ranks
            # are on more than one host) where libfabric has it: the lines
            # of 2 ranks
            if bin/mbmpi_info 2>/dev/null | grep -q '^net  *available'; then
                tests/mpi/run.sh --providers net --filter 'np=2$' --exclude "$lib_only2" 2>&1 | tee "$log/m3"
                count "$log/m3"
            fi
        fi
        ;;
    extra)
        # one script per feature (tests/suites/*.sh), each ending with its
        # own "N passed, M failed" line
        for t in tests/suites/*.sh; do
            [ -f "$t" ] || continue
            [ "$(basename "$t")" = lib.sh ] && continue # sourced by the suites
            echo "== $(basename "$t" .sh) (tests/suites)"
            t1=$SECONDS
            bash "$t" 2>&1 | tee "$log/x"
            rc=${PIPESTATUS[0]}
            echo "# $(basename "$t" .sh): $((SECONDS - t1)) s"
            count "$log/x"
            if [ "$rc" != 0 ] && ! grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' "$log/x"; then
                echo "not ok - $t exited with status $rc"
                total_fail=$((total_fail + 1))
            fi
        done
        ;;
    stress)
        echo "== stress: random traffic with checksums (tests/stress)"
        for p in shm tcp sockets; do
            seed=$((RANDOM + 1))
            if bin/mpirun -n 4 --provider "$p" --timeout 120 build/stress -t 6 -s $seed >"$log/s" 2>&1; then
                echo "ok - stress np=4 $p seed=$seed: $(tail -1 "$log/s")"
                total_pass=$((total_pass + 1))
            else
                echo "not ok - stress np=4 $p seed=$seed"
                tail -5 "$log/s" | sed 's/^/#   /'
                total_fail=$((total_fail + 1))
            fi
        done
        ;;
    kill)
        echo "== SIGKILL a random rank at a random moment (tests/stress/kill.sh)"
        tests/stress/kill.sh "${MBMPI_KILL_RUNS:-5}" 2>&1 | tee "$log/k"
        count "$log/k"
        ;;
    asan)
        echo "== ASan + UBSan: unit tests and an MPI smoke run (build-asan/)"
        asan="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
        for t in build-asan/unit/test_*; do
            [ -x "$t" ] || continue
            cmocka_run "$t (sanitizer)" env UBSAN_OPTIONS=halt_on_error=1 "$t"
        done
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/mpi" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 \
            tests/mpi/run.sh --providers shm \
            --filter 'p2p_(basic|order|cancel|nonblocking|truncate) np=(2|4)|proto_paths np=2|coll_basic np=3|comm np=3|type_free_pending np=2|coll_all np=3|groups np=3|comm_free_pending np=(2|4)|p2p_cancel_send np=(2|3)|comm_idup np=5|isendrecv np=3|alltoallw np=3|persistent np=2|rma_(fence|lock|atomics|dynamic|shared|pscw|forged) np=2' \
            2>&1 | tee "$log/am"
        count "$log/am"
        # transport/ofi.c over tcp;ofi_rxm (a rank there costs 0.6 s to start)
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/mpi" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 \
            tests/mpi/run.sh --providers tcp \
            --filter 'p2p_(basic|order|truncate) np=2|proto_paths np=2|p2p_cancel_send np=2|rma_(fence|forged|dynamic) np=2' \
            2>&1 | tee "$log/at"
        count "$log/at"
        # mbshm's single copies and reads (process_vm_*) across processes
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/mpi" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 MBMPI_SHM_CMA=1 \
            tests/mpi/run.sh --providers mbshm \
            --filter 'rts_read np=(2|3)|p2p_(basic|cancel) np=4|sendrecv_exchange np=2' 2>&1 | tee "$log/as"
        count "$log/as"
        # mbshm's rings (a large write that fills the ring goes on from
        # progress, its state in the caller's op context), one-sided
        # operations into shared windows, attributes set from Fortran,
        # MPI_THREAD_MULTIPLE, MPI-IO, MPI_T, partitioned communication, sessions
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/mpi" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 \
            tests/mpi/run.sh --providers mbshm \
            --filter 'rma_(fence|direct|atomics|shared) np=2|attr_lang np=2|(thread_multiple|io|mpit|partitioned|large_count) np=2|session np=3' \
            2>&1 | tee "$log/ar"
        count "$log/ar"
        # the nonblocking collectives switch stacks (coroutines): under ASan too
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/coll" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 \
            tests/mpi/run.sh --src tests/coll --manifest tests/coll/manifest --providers "shm tcp" \
            --filter '(nbc|pcoll|neighbor) np=(3|4)' 2>&1 | tee "$log/an"
        count "$log/an"
        # the profiling names, threads, info objects before MPI_Init
        MBMPI_CC="cc $asan" MBMPI_LIBDIR="$top/build-asan/lib" MBMPI_TEST_BUILD="$top/build-asan/tests/mpi3" \
            CFLAGS="-O1 -g" UBSAN_OPTIONS=halt_on_error=1 \
            tests/mpi/run.sh --src tests/mpi3 --manifest tests/mpi3/manifest --providers shm \
            --filter '(pmpi|threads) np=3|info_noinit np=2' 2>&1 | tee "$log/a3"
        count "$log/a3"
        ;;
    esac
    echo "# $s: $((SECONDS - t0)) s"
done
echo "== total"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
