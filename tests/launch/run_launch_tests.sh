#!/usr/bin/env bash
# tests/launch/run_launch_tests.sh: tests of bin/mpirun and transport/boot_client.c.
# Run from the top of the tree after `make bin/mpirun` (or `make`):
#     bash tests/launch/run_launch_tests.sh
# Builds build/tests/launch/boot_probe (tests/launch/boot_probe.c + the boot
# client) and runs it through bin/mpirun in every scenario. Network: 127.0.0.1
# only. Prints `ok - name` / `not ok - name`, then `N passed, M failed`.
# LAUNCH_TEST_VALGRIND=1 also runs mpirun and the ranks under valgrind;
# MPIRUN=path and PROBE_CFLAGS=... (e.g. -fsanitize=address) test other builds.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
MPIRUN=${MPIRUN:-$top/bin/mpirun}     # override to test another build (e.g. ASan)
PROBE="$top/build/tests/launch/boot_probe"
CC=${CC:-cc}
CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -I$top -I$top/mpi/include ${PROBE_CFLAGS:-}"

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
notok() {
    echo "not ok - $1"
    failed=$((failed + 1))
    if [ -n "${2:-}" ] && [ -f "$2" ]; then sed 's/^/#   /' "$2" | head -20; fi
}

if [ ! -x "$MPIRUN" ]; then
    echo "bin/mpirun is missing: run 'make bin/mpirun' first" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
mkdir -p "$top/build/tests/launch"
if ! $CC $CFLAGS -pthread -o "$PROBE.tmp.$$" tests/launch/boot_probe.c transport/boot_client.c util/log.c util/status.c ||
    ! mv -f "$PROBE.tmp.$$" "$PROBE"; then
    echo "not ok - build boot_probe"
    echo "0 passed, 1 failed"
    exit 1
fi

# a clean environment for the ranks: no job variables from a surrounding job
for v in $(env | sed -n 's/^\(MBMPI_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

tmp=$(mktemp -d /tmp/launch_tests.XXXXXX)
bg_pid=
cleanup() {
    # only the mpirun this script started, by pid
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -KILL "$bg_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# alive PID: exists and is not a zombie (an orphan's zombie may linger
# when PID 1 does not reap)
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ]
}

# wait_for COND-COMMAND SECONDS: polls a condition until a deadline
wait_for() {
    local deadline=$((SECONDS + $2))
    while ! eval "$1"; do
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.05
    done
    return 0
}

# pids recorded by the ranks of the last run (in $dir)
rank_pids() { cat "$dir"/pid.* 2>/dev/null; }
none_alive() {
    local p
    for p in $(rank_pids); do alive "$p" && return 1; done
    return 0
}
all_ready() { [ "$(ls "$dir"/ready.* 2>/dev/null | wc -l)" -ge "$1" ]; }

newdir() {
    dir="$tmp/$1"
    mkdir -p "$dir"
    export PROBE_DIR="$dir"
}

# run NAME EXPECTED_RC GREP_PATTERN(or empty) mpirun-args...
# runs in the foreground (with a safety timeout), then checks the exit code,
# the stderr line and that no rank survived.
run() {
    local name=$1 want=$2 pat=$3 rc
    shift 3
    newdir "$name"
    timeout -k 5 30 "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    if [ "$rc" != "$want" ]; then
        notok "$name (exit $rc, want $want)" "$dir/err"
        return
    fi
    if [ -n "$pat" ] && ! grep -q -- "$pat" "$dir/err"; then
        notok "$name (no '$pat' on stderr)" "$dir/err"
        return
    fi
    if ! wait_for none_alive 5; then
        notok "$name (a rank process is still alive)"
        return
    fi
    ok "$name"
}

# ---------------------------------------------------------------- normal runs
run "ok -n 1" 0 "" "$MPIRUN" -n 1 "$PROBE" ok
run "ok -n 4" 0 "" "$MPIRUN" -n 4 "$PROBE" ok
run "ok -np 16" 0 "" "$MPIRUN" -np 16 "$PROBE" ok
run "4096-byte values, truncation, missing keys" 0 "" "$MPIRUN" -n 4 "$PROBE" big
run "--oversubscribe and --" 0 "" "$MPIRUN" --oversubscribe -n 2 -- "$PROBE" ok
ln -sf "$MPIRUN" "$tmp/mpiexec"
run "called as mpiexec" 0 "" "$tmp/mpiexec" -n 3 "$PROBE" ok
run "non-MPI program" 0 "" "$MPIRUN" -n 3 true

newdir singleton
if (cd "$dir" && "$PROBE" ok >"$dir/out" 2>"$dir/err"); then ok "singleton (no mpirun)"; else notok "singleton (no mpirun)" "$dir/err"; fi

# environment and placement
newdir env
if timeout 30 "$MPIRUN" -n 4 --provider tcp -x PROBE_X=hello "$PROBE" env >"$dir/out" 2>"$dir/err" &&
    [ "$(grep -c 'size=4 .*all_local=1 provider=tcp x=hello' "$dir/out")" = 4 ] &&
    grep -q 'rank=3 size=4 local_rank=3 local_size=4' "$dir/out"; then
    ok "environment: --provider, -x, local ranks, all_local"
else
    notok "environment: --provider, -x, local ranks, all_local" "$dir/out"
fi

newdir agent
if timeout 30 "$MPIRUN" -n 4 --host localhost,fakehost --launch-agent 'env PROBE_AGENT_HOST={host}' \
    --store-addr 127.0.0.1 -x PROBE_X "$PROBE" env >"$dir/out" 2>"$dir/err" &&
    grep -q 'rank=0 size=4 local_rank=0 local_size=2 host=localhost all_local=0 provider=- x=- agent=-' "$dir/out" &&
    grep -q 'rank=1 size=4 local_rank=1 local_size=2 host=localhost all_local=0' "$dir/out" &&
    grep -q 'rank=2 size=4 local_rank=0 local_size=2 host=fakehost all_local=0 .*agent=fakehost' "$dir/out" &&
    grep -q 'rank=3 size=4 local_rank=1 local_size=2 host=fakehost all_local=0 .*agent=fakehost' "$dir/out"; then
    ok "--host with a launch agent (block placement)"
else
    notok "--host with a launch agent (block placement)" "$dir/out"
fi
# MPMD: "a : -n 2 b : c" is one job of 4 ranks, each program with its own
# arguments, MPI_APPNUM the program's index (MPI 4.0 11.5.2)
newdir mpmd
mp="$top/build/tests/launch/mpmd"
if ! "$top/bin/mpicc" -O2 -o "$mp" tests/launch/mpmd.c 2>"$dir/err"; then
    notok "MPMD: build" "$dir/err"
elif timeout 60 "$MPIRUN" -n 1 "$mp" first : -n 2 "$mp" second : "$mp" >"$dir/out" 2>"$dir/err" &&
    [ "$(sort "$dir/out" | tr '\n' '|')" = "mpmd rank 0 size 4 appnum 0 arg first sum 6|mpmd rank 1 size 4 appnum 1 arg second sum 6|mpmd rank 2 size 4 appnum 1 arg second sum 6|mpmd rank 3 size 4 appnum 2 arg - sum 6|" ]; then
    ok "MPMD: a : -n 2 b : c runs one job of 4 ranks with MPI_APPNUM 0, 1, 1, 2"
else
    notok "MPMD: a : -n 2 b : c runs one job of 4 ranks with MPI_APPNUM 0, 1, 1, 2" "$dir/out"
    sed 's/^/#   /' "$dir/err"
fi
run "MPMD: nothing after ':'" 2 "no program to run after ':'" "$MPIRUN" -n 1 "$PROBE" ok :
# --report-bindings: one line per rank at MPI_Init (an MPI program: mpmd.c)
run "--report-bindings" 0 "" "$MPIRUN" --report-bindings -n 2 "$mp" x
if grep -q '^mbmpi: rank 0 on .* \(bound to CPU [0-9]*\|not bound (CPUs [0-9,]*)\)$' "$dir/err" &&
    grep -q '^mbmpi: rank 1 on ' "$dir/err"; then
    ok "--report-bindings: each rank says its CPU"
else
    notok "--report-bindings: each rank says its CPU" "$dir/err"
fi
run "--report-bindings --bind-to none" 0 "" "$MPIRUN" --report-bindings --bind-to none -n 2 "$mp" x
if [ "$(grep -c '^mbmpi: rank [01] on .* not bound (CPUs [0-9,]*)$' "$dir/err")" = 2 ]; then
    ok "--report-bindings --bind-to none: not bound"
else
    notok "--report-bindings --bind-to none: not bound" "$dir/err"
fi

# Open MPI's and MPICH's mpiexec options (command lines written for them run)
run "Open MPI options: --allow-run-as-root --oversubscribe --map-by --rank-by --bind-to hwthread -q" 0 "" \
    "$MPIRUN" --allow-run-as-root --oversubscribe --map-by core --rank-by slot --bind-to hwthread -q -np 2 "$PROBE" ok
run "--mca NAME VALUE is ignored with a note" 0 "ignoring --mca btl self,vader" "$MPIRUN" --mca btl self,vader \
    -n 2 "$PROBE" ok
run "-mca without its value" 2 "needs a name and a value" "$MPIRUN" -n 2 -mca btl
run "-c N" 0 "" "$MPIRUN" -c 3 "$PROBE" env
if [ "$(grep -c 'size=3 ' "$dir/out")" = 3 ]; then ok "-c 3 runs 3 ranks"; else notok "-c 3 runs 3 ranks" "$dir/out"; fi
run "-genv / -env VAR VALUE" 0 "" "$MPIRUN" -genv PROBE_X genv -n 2 "$PROBE" env
if [ "$(grep -c 'x=genv ' "$dir/out")" = 2 ]; then ok "-genv sets the variable"; else notok "-genv sets the variable" "$dir/out"; fi
run "-env VAR VALUE through the agent" 0 "" "$MPIRUN" -n 1 --host fakehost \
    --launch-agent 'env PROBE_AGENT_HOST={host}' --store-addr 127.0.0.1 -env PROBE_X envval "$PROBE" env
if grep -q 'x=envval agent=fakehost' "$dir/out"; then ok "-env value seen by the agent-launched rank"; else notok "-env value seen by the agent-launched rank" "$dir/out"; fi
run "-genvlist a,b through the agent" 0 "" env PROBE_X=listed "$MPIRUN" -n 1 --host fakehost \
    --launch-agent 'env PROBE_AGENT_HOST={host}' --store-addr 127.0.0.1 -genvlist MBMPI_NOTHING,PROBE_X "$PROBE" env
if grep -q 'x=listed agent=fakehost' "$dir/out"; then ok "-genvlist value seen by the agent-launched rank"; else notok "-genvlist value seen by the agent-launched rank" "$dir/out"; fi
mkdir -p "$tmp/wd"
run "-wdir DIR" 0 "" "$MPIRUN" -wdir "$tmp/wd" -n 2 pwd
if [ "$(sort -u "$dir/out")" = "$tmp/wd" ]; then ok "-wdir: the ranks start in DIR"; else notok "-wdir: the ranks start in DIR" "$dir/out"; fi
run "--wdir DIR through the agent" 0 "" "$MPIRUN" --wdir "$tmp/wd" -n 1 --host fakehost \
    --launch-agent 'env PROBE_AGENT_HOST={host}' pwd
if [ "$(cat "$dir/out")" = "$tmp/wd" ]; then ok "--wdir: the agent-launched rank starts in DIR"; else notok "--wdir: the agent-launched rank starts in DIR" "$dir/out"; fi
run "-wdir that does not exist" 127 "cannot change rank 0 to the working directory" "$MPIRUN" -wdir "$tmp/none" -n 2 pwd
# slots: host:N (--host, -hosts), hostfile lines, -ppn: ranks 0-1 here, 2-3 at fakehost
slots_ok() {
    grep -q 'rank=1 size=4 local_rank=1 local_size=2 host=localhost' "$dir/out" &&
        grep -q 'rank=2 size=4 local_rank=0 local_size=2 host=fakehost .*agent=fakehost' "$dir/out" &&
        grep -q 'rank=3 size=4 local_rank=1 local_size=2 host=fakehost .*agent=fakehost' "$dir/out"
}
agent_args=(--launch-agent 'env PROBE_AGENT_HOST={host}' --store-addr 127.0.0.1)
run "--host a:2,b:2" 0 "" "$MPIRUN" --host localhost:2,fakehost:2 "${agent_args[@]}" "$PROBE" env
if slots_ok; then ok "--host a:2,b:2 places 2 ranks on each (4 ranks without -n)"; else notok "--host a:2,b:2 places 2 ranks on each" "$dir/out"; fi
printf 'localhost slots=2 max_slots=4  # here\n\n# and there\nfakehost:2\n' >"$tmp/hostfile"
run "--hostfile" 0 "" "$MPIRUN" -n 4 --hostfile "$tmp/hostfile" "${agent_args[@]}" "$PROBE" env
if slots_ok; then ok "--hostfile: 'host slots=N' and 'host:N' lines"; else notok "--hostfile: 'host slots=N' and 'host:N' lines" "$dir/out"; fi
# --hostfile and --host together (Open MPI's orte_hosts): the hostfile's
# lines of the hosts --host names, with the hostfile's slots
printf 'otherhost slots=3\nlocalhost slots=2\nfakehost:2\n' >"$tmp/hostfile3"
run "--hostfile with --host" 0 "" "$MPIRUN" -n 4 --host localhost,fakehost --hostfile "$tmp/hostfile3" \
    "${agent_args[@]}" "$PROBE" env
if slots_ok && ! grep -q otherhost "$dir/out"; then
    ok "--hostfile with --host: --host picks the hostfile's lines, their slots kept"
else
    notok "--hostfile with --host: --host picks the hostfile's lines" "$dir/out"
fi
run "--host not in the hostfile" 2 "nothere: not a host of the hostfile" "$MPIRUN" -n 2 --hostfile "$tmp/hostfile3" \
    --host nothere "$PROBE" ok
# a hostfile of 200000 distinct lines places its ranks at once (with every
# pair of names compared, 100000 lines had not started in 30 s)
{ echo localhost; seq -f 'h%.0f' 1 200000; } >"$tmp/bighostfile"
run "hostfile of 200000 hosts" 0 "" "$MPIRUN" -n 1 --hostfile "$tmp/bighostfile" "$PROBE" ok
# and so does -ppn over it (it compared every pair of names too)
run "-ppn 1 over a hostfile of 200000 hosts" 0 "" "$MPIRUN" -n 1 --hostfile "$tmp/bighostfile" -ppn 1 "$PROBE" ok
run "-ppn 2" 0 "" "$MPIRUN" -n 4 -hosts localhost,fakehost,localhost -ppn 2 "${agent_args[@]}" "$PROBE" env
if slots_ok; then ok "-ppn 2 over -hosts a,b,a: 2 ranks on each host"; else notok "-ppn 2 over -hosts a,b,a: 2 ranks on each host" "$dir/out"; fi
# hosts with different numbers of ranks: every rank must pick the same
# collective algorithms (they priced their own host's load and hung)
un="$top/build/tests/launch/uneven_hosts"
if ! "$top/bin/mpicc" -O2 -o "$un" tests/launch/uneven_hosts.c 2>"$tmp/uneven.err"; then
    notok "uneven hosts: build" "$tmp/uneven.err"
else
    for layout in a:3,b:4 a:2,b:3,c:1,d:1 localhost:1,b:5; do
        run "collectives with hosts of uneven load ($layout)" 0 "" "$MPIRUN" --timeout 25 --host "$layout" \
            "${agent_args[@]}" "$un"
        if ! grep -q '^uneven_hosts ok' "$dir/out"; then notok "uneven hosts ($layout): no 'ok'" "$dir/out"; fi
    done
fi
run "-N 2 without a host list" 0 "" "$MPIRUN" -N 2 "$PROBE" env
if [ "$(grep -c 'size=2 ' "$dir/out")" = 2 ]; then ok "-N 2 alone runs 2 ranks here"; else notok "-N 2 alone runs 2 ranks here" "$dir/out"; fi
python3 -c "print('h' * 5000)" >"$tmp/longhostfile" 2>/dev/null || printf '%05000d\n' 0 >"$tmp/longhostfile"
run "hostfile line too long" 2 "line longer than" "$MPIRUN" --hostfile "$tmp/longhostfile" -n 1 "$PROBE" ok
run "bad --host slots" 2 "bad host entry" "$MPIRUN" --host localhost:0 -n 1 "$PROBE" ok
printf 'localhost slot=2\n' >"$tmp/badhostfile"
run "bad hostfile line" 2 "badhostfile:1: not 'host'" "$MPIRUN" -f "$tmp/badhostfile" -n 1 "$PROBE" ok
run "missing hostfile" 2 "cannot read hostfile" "$MPIRUN" -machinefile "$tmp/nohostfile" -n 1 "$PROBE" ok
run "bad --bind-to" 2 "bad --bind-to" "$MPIRUN" --bind-to frob -n 1 "$PROBE" ok
ver=$(grep '^#define MBMPI_VERSION_STRING' mpi/include/mpi.h | sed 's/.*"\(.*\)"/\1/')
if [ "$("$MPIRUN" --version 2>&1)" = "mpirun (mbmpi) $ver" ] && [ "$("$MPIRUN" -V 2>&1)" = "mpirun (mbmpi) $ver" ]; then
    ok "--version, -V: mpirun (mbmpi) $ver"
else
    notok "--version: $("$MPIRUN" --version 2>&1 | head -2)"
fi
# tagged output: every line of every rank, prefixed, none lost or merged
run "-l" 0 "" "$MPIRUN" -l -n 3 sh -c 'echo out; echo err >&2; printf part'
if [ "$(sort "$dir/out" | tr '\n' '|')" = "[0] out|[0] part|[1] out|[1] part|[2] out|[2] part|" ] &&
    [ "$(grep -c '^\[[012]\] err$' "$dir/err")" = 3 ]; then
    ok "-l: '[rank] ' before each line of stdout and stderr, a last line without newline completed"
else
    notok "-l: '[rank] ' before each line of stdout and stderr" "$dir/out"
    sed 's/^/#   /' "$dir/err"
fi
run "--tag-output" 0 "" "$MPIRUN" --tag-output -n 2 sh -c 'echo out; echo err >&2'
if [ "$(sort "$dir/out" | tr '\n' '|')" = "[1,0]<stdout>:out|[1,1]<stdout>:out|" ] &&
    [ "$(grep -c '^\[1,[01]\]<stderr>:err$' "$dir/err")" = 2 ]; then
    ok "--tag-output: Open MPI's '[1,rank]<stdout>:' prefix"
else
    notok "--tag-output: Open MPI's '[1,rank]<stdout>:' prefix" "$dir/out"
fi
run "-l with much output" 0 "" "$MPIRUN" -prepend-rank -n 3 sh -c 'seq 1 30000'
if [ "$(sed 's/ .*//' "$dir/out" | sort | uniq -c | awk '{printf "%s %s|", $1, $2}')" = "30000 [0]|30000 [1]|30000 [2]|" ] &&
    [ "$(grep -c '^\[1\] [0-9]*$' "$dir/out")" = 30000 ] && grep -q '^\[2\] 30000$' "$dir/out"; then
    ok "-l: 3 x 30000 lines, each whole"
else
    notok "-l: 3 x 30000 lines, each whole" "$dir/err"
fi
# -l and mpirun's stdout closed (mpirun -l ... | head): the job ends as by
# SIGPIPE (141) with a message, not running on with its output thrown away
newdir lclosed
timeout -k 5 30 "$MPIRUN" -l -n 2 sh -c 'while :; do echo x; done' >&- 2>"$dir/err"
rc=$?
if [ "$rc" = 141 ] && grep -q 'cannot write the ranks' "$dir/err"; then
    ok "-l with stdout closed ends the job (141)"
else
    notok "-l with stdout closed ends the job (exit $rc, want 141)" "$dir/err"
fi
timeout -k 5 30 "$MPIRUN" -l -n 2 yes 2>"$dir/err" | head -1 >"$dir/out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 141 ] && { [ "$(cat "$dir/out")" = "[0] y" ] || [ "$(cat "$dir/out")" = "[1] y" ]; }; then
    ok "-l | head -1 ends the job (141)"
else
    notok "-l | head -1 ends the job (exit $rc, want 141)" "$dir/err"
fi
run "-l: a rank's output before it crashes" 139 "killed by signal 11" "$MPIRUN" -l -n 2 sh -c 'echo before; kill -SEGV $$'
if grep -q '^\[[01]\] before$' "$dir/out"; then ok "-l: output before a crash is kept"; else notok "-l: output before a crash is kept" "$dir/out"; fi

# MBMPI_PROVIDER=auto with ranks on two hosts (a launch agent that runs
# locally) opens the network default: net where this libfabric has it
# (bin/mbmpi_info lists it), else tcp;ofi_rxm.
newdir autonet
want_prov='tcp;ofi_rxm'
if "$top/bin/mbmpi_info" 2>/dev/null | grep -q '^net  *available'; then want_prov=net; fi
if ! "$top/bin/mpicc" -O2 -o "$top/build/tests/launch/auto_provider" tests/launch/auto_provider.c 2>"$dir/err"; then
    notok "auto provider off-host: build" "$dir/err"
elif timeout 60 "$MPIRUN" -n 4 --host localhost,fakehost --launch-agent 'env PROBE_AGENT_HOST={host}' \
    -x MBMPI_LOG=debug "$top/build/tests/launch/auto_provider" >"$dir/out" 2>"$dir/err" &&
    grep -q '^auto_provider ok' "$dir/out" &&
    [ "$(grep -c "debug: transport $want_prov [0-9]" "$dir/err")" = 4 ]; then
    ok "auto provider off-host: $want_prov on all 4 ranks"
else
    notok "auto provider off-host: want $want_prov on all 4 ranks" "$dir/err"
fi
run "-x VAR passes the value through the agent" 0 "" env PROBE_X=viaagent "$MPIRUN" -n 1 --host fakehost \
    --launch-agent 'env PROBE_AGENT_HOST={host}' --store-addr 127.0.0.1 -x PROBE_X "$PROBE" env
if grep -q 'x=viaagent agent=fakehost' "$dir/out"; then ok "-x VAR value seen by the agent-launched rank"; else notok "-x VAR value seen by the agent-launched rank" "$dir/out"; fi

# an agent named ssh gets shell-quoted words: a fake ssh that, like the real
# one, joins its arguments into one command line for a shell
newdir fakessh
printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >"$dir/ssh"
chmod +x "$dir/ssh"
if timeout 30 "$MPIRUN" -n 2 --host h1,h2 --launch-agent "$dir/ssh {host}" --store-addr 127.0.0.1 \
    -x "PROBE_X=it's a \$HOME \"test\"" "$PROBE" env >"$dir/out" 2>"$dir/err" &&
    [ "$(grep -c "x=it's a \$HOME \"test\" agent=-" "$dir/out")" = 2 ] &&
    grep -q 'rank=1 size=2 local_rank=0 local_size=1 host=h2 all_local=0' "$dir/out"; then
    ok "ssh-style agent: words are shell-quoted"
else
    notok "ssh-style agent: words are shell-quoted" "$dir/out"
    sed 's/^/#   /' "$dir/err"
fi

# ---------------------------------------------------------------- failures
run "rank killed by SIGSEGV" 139 "mpirun: rank 1 (pid [0-9]*) killed by signal 11 (Segmentation fault); ending the job" \
    "$MPIRUN" -n 4 "$PROBE" segv
run "rank exits 2 before finalize" 2 "mpirun: rank 1 exited with status 2 before MPI_Finalize; ending the job" \
    "$MPIRUN" -n 4 "$PROBE" exit2
run "rank exits 0 before finalize" 1 "mpirun: rank 1 exited with status 0 before MPI_Finalize; ending the job" \
    "$MPIRUN" -n 4 "$PROBE" exit0early
run "abort" 7 "mpirun: rank 0 called MPI_Abort(7): test" "$MPIRUN" -n 4 "$PROBE" abort
run "abort -n 16" 7 "mpirun: rank 0 called MPI_Abort(7): test" "$MPIRUN" -n 16 "$PROBE" abort
run "rank drops its store connection" 1 "rank 1 (pid [0-9]*) closed its store connection before MPI_Finalize" \
    "$MPIRUN" -n 4 "$PROBE" closefd
run "rank sends garbage to the store" 1 "rank 1 (pid [0-9]*) sent a malformed message to the store" \
    "$MPIRUN" -n 4 "$PROBE" garbage
run "fence after a rank finalized" 1 "can never join (it has finalized)" "$MPIRUN" -n 3 "$PROBE" finifence
run "fence after a rank exited without joining" 1 "can never join (it has exited)" "$MPIRUN" -n 4 "$PROBE" nompi
run "rank exits 3 after finalize" 3 "mpirun: rank 1 exited with status 3 after MPI_Finalize" \
    "$MPIRUN" -n 4 "$PROBE" exit3after
if grep -q "ending the job" "$dir/err"; then notok "exit after finalize does not end the job" "$dir/err"; else ok "exit after finalize does not end the job"; fi
run "non-MPI program fails" 1 "rank [01] exited with status 1; ending the job" "$MPIRUN" -n 2 false
run "program not found" 127 "cannot execute '/nonexistent/prog'" "$MPIRUN" -n 2 /nonexistent/prog
# a program named without a '/' that is not on PATH: the working directory
# (as Open MPI's mpirun); not there either, or not executable: a clear error
mkdir -p "$tmp/cwdprog"
cp "$PROBE" "$tmp/cwdprog/probe_here"
printf '#!/bin/sh\n' >"$tmp/cwdprog/not_exec"
newdir cwdprog
if (cd "$tmp/cwdprog" && timeout 30 "$MPIRUN" -n 2 probe_here ok >"$dir/out" 2>"$dir/err"); then
    ok "a program in the working directory, named without ./"
else
    notok "a program in the working directory, named without ./" "$dir/err"
fi
run "named program found nowhere" 127 "cannot execute 'mbmpi_no_such_prog': No such file" "$MPIRUN" -n 1 mbmpi_no_such_prog
run "not executable" 127 "cannot execute 'not_exec': Permission denied" "$MPIRUN" -wdir "$tmp/cwdprog" -n 1 not_exec
run "--timeout" 124 "time limit of 1 s" "$MPIRUN" -n 2 --timeout 1 "$PROBE" hang
run "MBMPI_TIMEOUT" 124 "time limit" env MBMPI_TIMEOUT=0.5 "$MPIRUN" -n 2 "$PROBE" hang
run "bad option" 2 "unknown option" "$MPIRUN" --frobnicate -n 2 "$PROBE" ok

# ---------------------------------------------------------------- signals to mpirun
# start_hang NAME N [MODE]: mpirun in the background, ranks past the fence
start_hang() {
    newdir "$1"
    "$MPIRUN" -n "$2" "$PROBE" "${3:-hang}" >"$dir/out" 2>"$dir/err" &
    bg_pid=$!
    wait_for "all_ready $2" 10
}

# signal_test NAME SIGNAL WANT_RC
signal_test() {
    local rc
    if ! start_hang "$1" 4; then
        notok "$1 (ranks did not start)" "$dir/err"
        return
    fi
    kill "-$2" "$bg_pid"
    wait "$bg_pid"
    rc=$?
    bg_pid=
    if [ "$rc" != "$3" ]; then notok "$1 (exit $rc, want $3)" "$dir/err"; return; fi
    if ! wait_for none_alive 5; then notok "$1 (a rank survived)"; return; fi
    ok "$1"
}
signal_test "SIGINT to mpirun ends the job" INT 130
signal_test "SIGTERM to mpirun ends the job" TERM 143

# ranks that ignore SIGTERM get SIGKILL 2 s later
if start_hang "SIGKILL after the grace period" 3 stubborn && wait_for "[ \$(ls \"\$dir\"/stubborn.* 2>/dev/null | wc -l) -ge 3 ]" 10; then
    t0=$SECONDS
    kill -INT "$bg_pid"
    wait "$bg_pid"
    rc=$?
    bg_pid=
    if [ "$rc" != 130 ]; then notok "SIGKILL after the grace period (exit $rc)" "$dir/err"
    elif ! wait_for none_alive 5; then notok "SIGKILL after the grace period (a rank survived)"
    elif [ $((SECONDS - t0)) -gt 6 ]; then notok "SIGKILL after the grace period (took $((SECONDS - t0)) s)"
    else ok "SIGKILL after the grace period"; fi
else
    notok "SIGKILL after the grace period (ranks did not start)" "$dir/err"
fi

# Two ranks end while mpirun cannot reap them (stopped): rank 2 killed
# first, then rank 0 crashes (as a rank does when its peer's connection
# breaks under it). waitpid(-1) returns zombies in fork order, rank 0 first;
# mpirun must report the death that came first, the cause.
if start_hang "the first of two deaths is reported" 4; then
    p0=$(cat "$dir/pid.0")
    p2=$(cat "$dir/pid.2")
    kill -STOP "$bg_pid"
    kill -KILL "$p2"
    wait_for "! alive $p2" 5
    kill -SEGV "$p0"
    wait_for "! alive $p0" 5
    kill -CONT "$bg_pid"
    wait "$bg_pid"
    rc=$?
    bg_pid=
    if [ "$rc" = 137 ] && grep -q "rank 2 (pid $p2) killed by signal 9 (Killed); ending the job" "$dir/err" &&
        ! grep -q "killed by signal 11" "$dir/err" && wait_for none_alive 5; then
        ok "the first of two deaths is reported"
    else
        notok "the first of two deaths is reported (exit $rc)" "$dir/err"
    fi
else
    notok "the first of two deaths is reported (ranks did not start)" "$dir/err"
fi

# kill_test NAME MODE: SIGKILL mpirun, the ranks must go within 10 s
kill_test() {
    if ! start_hang "$1" 4 "$2"; then
        notok "$1 (ranks did not start)" "$dir/err"
        return
    fi
    kill -KILL "$bg_pid"
    wait "$bg_pid" 2>/dev/null
    bg_pid=
    if ! wait_for none_alive 10; then notok "$1 (ranks still alive 10 s after)"; return; fi
    if [ "$2" = orphan ] && ! grep -q "launcher (mpirun) is gone; exiting" "$dir/err"; then
        notok "$1 (no 'launcher is gone' message)" "$dir/err"
        return
    fi
    ok "$1"
}
kill_test "SIGKILL to mpirun: ranks die (PDEATHSIG)" hang
kill_test "SIGKILL to mpirun: ranks without PDEATHSIG exit (watch connection)" orphan

# ---------------------------------------------------------------- store security
# raw_client HOST PORT DATA-PRINTF-FORMAT: connects, sends, and succeeds if
# the store closes the connection (EOF) within 5 s.
raw_client() {
    local host=$1 port=$2 fmt=$3
    timeout 5 bash -c '
        exec 3<>"/dev/tcp/$0/$1" || exit 3
        printf "$2" >&3 2>/dev/null
        cat <&3 >/dev/null 2>&1   # returns at EOF (or reset)
        exit 0
    ' "$host" "$port" "$fmt"
}

if start_hang "store refuses strangers" 2; then
    addr=$(cat "$dir/store")
    host=${addr%:*}
    port=${addr##*:}
    bad=""
    case "$host" in 127.*) ;; *) bad="store is not on loopback ($addr)" ;; esac
    [ -z "$bad" ] && ! raw_client "$host" "$port" 'garbage!garbage!' && bad="garbage not refused"
    # a HELLO with a wrong secret: version 1, type 1, klen 32, vlen 8, rank 0, size 2
    [ -z "$bad" ] && ! raw_client "$host" "$port" \
        '\001\001\000\040\000\000\000\01000000000000000000000000000000000\000\000\000\000\000\000\000\002' &&
        bad="wrong secret not refused"
    # an oversized header (value length 4 GiB)
    [ -z "$bad" ] && ! raw_client "$host" "$port" '\001\003\000\001\377\377\377\377k' && bad="huge length not refused"
    if [ -z "$bad" ]; then
        # the job is not disturbed
        for p in $(rank_pids); do alive "$p" || bad="a rank died"; done
        kill -0 "$bg_pid" 2>/dev/null || bad="mpirun died"
    fi
    kill -TERM "$bg_pid"
    wait "$bg_pid"
    rc=$?
    bg_pid=
    [ -z "$bad" ] && [ "$rc" != 143 ] && bad="exit $rc after SIGTERM, want 143"
    [ -z "$bad" ] && ! wait_for none_alive 5 && bad="a rank survived"
    [ -z "$bad" ] && grep "ending the job" "$dir/err" | grep -qv "caught signal 15" && bad="job was disturbed"
    if [ -z "$bad" ]; then ok "store refuses strangers, the job goes on"; else notok "store refuses strangers ($bad)" "$dir/err"; fi
else
    notok "store refuses strangers (ranks did not start)" "$dir/err"
fi

# a rank with the wrong secret cannot join
if start_hang wrongsecret 2; then
    addr=$(cat "$dir/store")
    if MBMPI_STORE=$addr MBMPI_RANK=1 MBMPI_SIZE=2 MBMPI_SECRET=0123456789abcdef0123456789abcdef \
        timeout 10 env -u PROBE_DIR "$PROBE" ok >"$dir/intruder.out" 2>"$dir/intruder.err"; then
        bad="intruder joined"
    elif ! grep -q "refused rank 1" "$dir/intruder.err"; then
        bad="no refusal message"
    else
        bad=""
    fi
    kill -0 "$bg_pid" 2>/dev/null || bad="mpirun died"
    kill -TERM "$bg_pid"
    wait "$bg_pid"
    bg_pid=
    if [ -z "$bad" ]; then ok "a process with a wrong MBMPI_SECRET is refused"; else notok "wrong MBMPI_SECRET ($bad)" "$dir/intruder.err"; fi
else
    notok "wrong MBMPI_SECRET (ranks did not start)" "$dir/err"
fi

# ---------------------------------------------------------------- valgrind (optional, slow)
if [ "${LAUNCH_TEST_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
    VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
    run "valgrind: mpirun ok" 0 "" $VG "$MPIRUN" -n 4 "$PROBE" big
    run "valgrind: ranks ok" 0 "" "$MPIRUN" -n 4 $VG "$PROBE" big
    run "valgrind: mpirun segv" 139 "killed by signal 11" $VG "$MPIRUN" -n 4 "$PROBE" segv
    run "valgrind: mpirun abort" 7 "MPI_Abort(7)" $VG "$MPIRUN" -n 4 "$PROBE" abort
    # the options that allocate (-genv, -genvlist, host slots, MPMD contexts) and the output pipes
    run "valgrind: mpirun -l, -genv, slots, MPMD" 0 "" $VG "$MPIRUN" -l --mca btl self -genv PROBE_X v \
        -genvlist PROBE_Y -x PROBE_Z=1 --host localhost:2 -n 1 "$PROBE" ok : -n 1 "$PROBE" env
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
