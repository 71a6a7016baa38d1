#!/usr/bin/env bash
# tests/suites/shmem.sh: mbmpi's own shared-memory transport (mbshm,
# transport/shmem.c), run by scripts/run_tests.sh (suite "extra"):
#   1. the whole MPI manifest (tests/mpi/manifest) over --provider mbshm;
#   2. a few point-to-point lines again with single-copy writes
#      (MBMPI_SHM_CMA=1 and =single: process_vm_writev, shared pulls; the
#      default, auto, picks rings or single copies by timing both at
#      MPI_Init, the same choice at every rank) and a small ring
#      (MBMPI_SHM_RING);
#   3. a short stress run (build/stress, 4 ranks, 3 s) over mbshm, and 3
#      runs of tests/stress/kill.sh (a rank SIGKILLed mid-traffic);
#   4. segment files: a rank's segment loses its name once every peer has
#      mapped it, and when a rank is SIGKILLed before that, no
#      /dev/shm/mbshm-<job>-* file survives mpirun (it removes them);
#   5. programs do not need libfabric unless they use one of its providers.
# The unit test build/unit/test_shmem runs in the unit suite. Ends with one
# line "N passed, M failed"; exit status 1 when M > 0. About 2 minutes on 2
# loaded cores.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run.sh's own summary line is folded into this script's single final one
run() {
    local what=$1 p
    shift
    tests/mpi/run.sh --timeout 150 "$@" >"$tmp/log" 2>&1
    grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/log"
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/log" | tail -1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
    if [ -z "$p" ]; then
        notok "tests/mpi/run.sh ($what) printed no summary"
        return
    fi
    pass=$((pass + ${p% *}))
    fail=$((fail + ${p#* }))
}

# 1. the manifest over mbshm
run manifest --providers mbshm

# 2. single-copy writes, and a ring smaller than the default
{
    for l in "p2p_basic 4" "p2p_order 3" "p2p_basic 16" "proto_paths 2"; do
        echo "$l ok MBMPI_SHM_CMA=1"
    done
    echo "p2p_basic 3 ok MBMPI_SHM_CMA=single"
    for l in "p2p_basic 4" "p2p_basic 16" "proto_paths 2"; do
        echo "$l ok MBMPI_SHM_CMA=pull"
    done
    echo "p2p_basic 3 ok MBMPI_SHM_CMA=1 MBMPI_SHM_RING=64K"
    # exchanges of 64 KiB or more are read by the receiver (MBMPI_SHM_CMA=exchange;
    # auto: where MPI_Init timed that faster than the rings, and then only)
    echo "sendrecv_exchange 2 ok EXCHANGE_EXPECT_PULL=1 MBMPI_SHM_CMA=exchange"
    echo "sendrecv_exchange 4 ok EXCHANGE_EXPECT_PULL=1 MBMPI_SHM_CMA=exchange"
    echo "sendrecv_exchange 2 ok EXCHANGE_EXPECT_PULL=auto"
    echo "sendrecv_exchange 5 ok EXCHANGE_EXPECT_PULL=auto"
    echo "sendrecv_exchange 3 ok EXCHANGE_EXPECT_PULL=0 MBMPI_SHM_CMA=0"
    # an unknown value fails MPI_Init with a message naming the setting
    echo "sendrecv_exchange 2 fail stderr:MBMPI_SHM_CMA MBMPI_SHM_CMA=banana"
    echo "p2p_order 2 ok MBMPI_SHM_RING=64K"
    # without the prefetch of the next message's ring lines (shm_send_ahead)
    echo "p2p_order 3 ok MBMPI_SHM_AHEAD=0"
    # mbshm sends no REQ below 8 KiB by default: the write protocol for
    # small messages, conflicts included, with every receive issuing one
    for l in "p2p_order 3" "p2p_wildcard 4" "p2p_nonblocking 4" "proto_paths 3"; do
        echo "$l ok MBMPI_REQ_MIN=0"
    done
    # a Reduce operand's hint (the root reads it) is not taken by a user's
    # send whose write is issued while the operand's send waits
    echo "hint_scope 2 ok MBMPI_SHM_CMA=1 MBMPI_REDUCE_ALGO=linear"
    echo "hint_scope 2 ok MBMPI_SHM_CMA=1 MBMPI_REDUCE_ALGO=binomial"
    # the blocks of flat Scatter(v) / Gather(v) are single copies where other
    # one-way writes keep to the rings (auto with more ranks than CPUs)
    for n in 2 3 5; do
        echo "flat_single $n ok MBMPI_SHM_CMA=flat MBMPI_SCATTER_ALGO=flat MBMPI_GATHER_ALGO=flat"
    done
    echo "flat_single 3 ok FLAT_EXPECT=0 MBMPI_SHM_CMA=0 MBMPI_SCATTER_ALGO=flat MBMPI_GATHER_ALGO=flat"
    # with more ranks than CPUs a Bcast's messages of 256 KiB+ are read by
    # their receivers, not pushed through the rings (through them without
    # single copies)
    for n in 2 3 5; do
        echo "bcast_fanout $n ok MBMPI_SHM_CMA=exchange"
    done
    echo "bcast_fanout 3 ok FANOUT_EXPECT=ring MBMPI_SHM_CMA=0"
    # a direct or rotated Alltoall's blocks are exchanges:
    # read by their receivers where exchanges pull
    for n in 2 3 5; do
        echo "alltoall_exchange $n ok MBMPI_SHM_CMA=exchange"
    done
    echo "alltoall_exchange 3 ok A2A_EXPECT=ring MBMPI_SHM_CMA=0"
    # with more ranks than CPUs, a collective's exchange receives send no
    # REQ (their messages come eagerly or as RTS reads); user receives do
    for n in 2 3 4; do
        echo "xchg_noreq $n ok MBMPI_SHM_CMA=exchange"
    done
    echo "xchg_noreq 3 ok XCHG_EXPECT=req MBMPI_SHM_CMA=exchange MBMPI_RTS_READ=0"
    # a collective's messages of 8 KiB or more (Bcast, flat Scatter and
    # Gather, exchanges) are read by their receivers, not eager; a user's
    # send is not (REQs off: every such message is an RTS)
    # (MBMPI_SHM_CMA=flat: reads on whatever MPI_Init's timing would choose)
    for n in 2 3 4; do
        echo "coll_read $n ok MBMPI_REQ_MIN=1G MBMPI_COLL_READ_MIN=8K MBMPI_SHM_CMA=flat"
    done
    # left at auto, MPI_Init times reads against the rings (mpi/shm_tune.c)
    # and every rank reads from the size chosen (at 3 and 4 ranks on 2
    # CPUs: the default 8 KiB, untimed)
    for n in 2 3 4; do
        echo "coll_read $n ok MBMPI_REQ_MIN=1G COLL_READ_MIN_EXPECT=tuned"
    done
    echo "coll_read 3 ok COLL_READ_EXPECT=0 MBMPI_REQ_MIN=1G MBMPI_COLL_READ_MIN=off"
    echo "coll_read 2 ok COLL_READ_EXPECT=0 MBMPI_REQ_MIN=1G MBMPI_RTS_READ=0"
    # no single copies, so no reads: coll_read_min says so (the model prices
    # collectives by it; it stayed 8 KiB)
    echo "coll_read 2 ok COLL_READ_EXPECT=0 MBMPI_REQ_MIN=1G MBMPI_SHM_CMA=0"
    echo "coll_read 2 fail stderr:MBMPI_COLL_READ_MIN MBMPI_COLL_READ_MIN=banana"
    # a rendezvous send is read by its receiver wherever single copies are
    # in use, else written after a CTS (MBMPI_RTS_READ=0 or MBMPI_SHM_CMA=0)
    echo "rts_read 2 ok READ_EXPECT=1 MBMPI_SHM_CMA=1"
    echo "rts_read 4 ok READ_EXPECT=1 MBMPI_SHM_CMA=flat"
    echo "rts_read 3 ok READ_EXPECT=0 MBMPI_SHM_CMA=1 MBMPI_RTS_READ=0"
    echo "rts_read 2 ok READ_EXPECT=0 MBMPI_SHM_CMA=0"
    # MBMPI_RTS_READ_MIN moves the threshold (16385 and 20000 bytes read)
    echo "rts_read 2 ok READ_EXPECT=1 READ_MIN_EXPECT=16384 MBMPI_SHM_CMA=1 MBMPI_RTS_READ_MIN=16K"
    echo "rts_read 2 fail stderr:MBMPI_RTS_READ_MIN MBMPI_RTS_READ_MIN=banana"
} >"$tmp/manifest"
if grep -q -E '^p2p_basic ' tests/mpi/manifest && grep -q -E '^p2p_order ' tests/mpi/manifest &&
    grep -q -E '^proto_paths ' tests/mpi/manifest; then
    run single-copy --manifest "$tmp/manifest" --providers mbshm
else
    notok "tests/mpi/manifest has no p2p_basic / p2p_order lines any more"
fi

# 3. a short stress run
if [ -x build/stress ] || make -s build/stress >/dev/null 2>&1; then
    if bin/mpirun -n 4 --provider mbshm --timeout 60 build/stress -t 3 >"$tmp/stress" 2>&1; then
        ok "stress -n 4 -t 3 over mbshm"
    else
        notok "stress -n 4 -t 3 over mbshm: $(tail -3 "$tmp/stress" | tr '\n' ' ')"
    fi
else
    notok "build/stress could not be built"
fi

# 3b. a random rank SIGKILLed mid-traffic: the job still ends by itself
if [ -x tests/stress/kill.sh ] && [ -x build/stress ]; then
    KILL_PROVIDERS=mbshm tests/stress/kill.sh 3 >"$tmp/kill" 2>&1
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/kill" | tail -1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
    grep -E '^(not )?ok' "$tmp/kill"
    if [ -n "$p" ]; then
        pass=$((pass + ${p% *}))
        fail=$((fail + ${p#* }))
    else
        notok "tests/stress/kill.sh over mbshm printed no summary"
    fi
fi

# 4. segment files: a rank unlinks its own once every peer mapped it; when
#    a rank dies before that, mpirun removes what the job left
cat >"$tmp/seg.c" <<'EOF'
/* "early": rank 1 SIGKILLs itself before MPI_Init while the others wait in
 * it (their segments exist). Otherwise rank 0 hears from every peer (so all
 * have mapped its segment) and reports whether its file is gone. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    const char *job = getenv("MBMPI_JOBID"), *r = getenv("MBMPI_RANK");
    int rank, size, x = 0, i;
    char path[256];

    if (argc > 1 && !strcmp(argv[1], "early") && r && !strcmp(r, "1")) {
        sleep(2);
        raise(SIGKILL);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof(path), "/dev/shm/mbshm-%s-%d", job ? job : "?", rank);
    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Recv(&x, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("segment %s\n", access(path, F_OK) == 0 ? "still named" : "unlinked");
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
EOF
if bin/mpicc -o "$tmp/seg" "$tmp/seg.c" >"$tmp/cc" 2>&1; then
    out=$(bin/mpirun -n 3 --provider mbshm --timeout 60 "$tmp/seg" 2>&1)
    if [ $? = 0 ] && echo "$out" | grep -q "segment unlinked"; then
        ok "a rank's segment loses its name once every peer mapped it"
    else
        notok "segment unlink after connect: $(echo "$out" | tr '\n' ' ')"
    fi
    bin/mpirun -n 3 --provider mbshm --timeout 60 "$tmp/seg" early >"$tmp/seg.out" 2>&1 &
    job=$!
    seen=0
    for _ in $(seq 1 40); do
        if ls /dev/shm 2>/dev/null | grep -q -E "^mbshm-$job-"; then
            seen=1
            break
        fi
        sleep 0.1
    done
    wait $job
    st=$?
    left=$(ls /dev/shm 2>/dev/null | grep -c -E "^mbshm-$job-")
    if [ "$seen" != 1 ]; then
        notok "SIGKILL cleanup: the job's segments never appeared in /dev/shm"
    elif [ "$st" = 0 ]; then
        notok "SIGKILL cleanup: mpirun exited 0 although a rank was killed"
    elif [ "$left" != 0 ]; then
        notok "SIGKILL cleanup: $left /dev/shm/mbshm-$job-* files survived the job"
        rm -f /dev/shm/mbshm-"$job"-*
    else
        ok "SIGKILL cleanup: no /dev/shm file of the job survives (mpirun exit $st)"
    fi
else
    notok "segment files: cannot build the test program: $(tail -3 "$tmp/cc" | tr '\n' ' ')"
fi

# 5. libfabric is opened at first use, not linked (transport/ofi.c): a
#    program built by bin/mpicc does not need it, runs on mbshm where it
#    cannot be loaded, and a libfabric provider then fails MPI_Init saying so
if bin/mpicc -O2 -o "$tmp/lf" tests/mpi/p2p_basic.c >"$tmp/lf.cc" 2>&1; then
    if readelf -d "$tmp/lf" | grep -q 'NEEDED.*libfabric'; then
        notok "a program built by bin/mpicc lists libfabric as needed (readelf -d)"
    else
        ok "a program built by bin/mpicc does not need libfabric"
    fi
    if MBMPI_LIBFABRIC=/nonexistent/libfabric.so.1 bin/mpirun -n 2 --provider mbshm --timeout 60 "$tmp/lf" \
        >"$tmp/lf.out" 2>&1; then
        ok "mbshm runs where libfabric cannot be loaded"
    else
        notok "mbshm does not run where libfabric cannot be loaded: $(tail -2 "$tmp/lf.out" | tr '\n' ' ')"
    fi
    MBMPI_LIBFABRIC=/nonexistent/libfabric.so.1 bin/mpirun -n 2 --provider tcp --timeout 60 "$tmp/lf" \
        >"$tmp/lf.out" 2>&1
    st=$?
    if [ "$st" != 0 ] && grep -q 'cannot load libfabric' "$tmp/lf.out"; then
        ok "tcp where libfabric cannot be loaded: MPI_Init fails saying so (exit $st)"
    else
        notok "tcp where libfabric cannot be loaded: exit $st, $(tail -2 "$tmp/lf.out" | tr '\n' ' ')"
    fi
else
    notok "libfabric loading: cannot build the test program: $(tail -3 "$tmp/lf.cc" | tr '\n' ' ')"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
