#!/bin/sh
# proto/model/run.sh: check the Promela model of the point-to-point protocol
# (proto/model/proto.pml) with spin: exhaustive for small configurations,
# bit-state for a larger one.  Prints one TAP-like line per configuration
# and "N passed, M failed"; exits non-zero on any failure.
#   MODEL_TIME=seconds   time bound per configuration (default 60)
set -u
here=$(cd "$(dirname "$0")" && pwd)
model="$here/proto.pml"
tmax=${MODEL_TIME:-40}

ensure_spin() {
    command -v spin >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        if ! apt-cache show spin >/dev/null 2>&1; then
            apt-get update -qq >/dev/null 2>&1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spin >/dev/null 2>&1
    fi
    command -v spin >/dev/null 2>&1 && return 0
    echo "spin is missing: run 'apt-get update && apt-get install -y spin' (as root)" >&2
    return 1
}
ensure_spin || exit 2
command -v gcc >/dev/null 2>&1 || { echo "gcc is missing" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/protomodel.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
pass=0
fail=0

# check NAME "SPIN -D DEFINES" "EXTRA CC FLAGS" "PAN FLAGS"
check() {
    name=$1 defs=$2 ccx=$3 panx=$4
    d="$work/$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)"
    mkdir -p "$d"
    if ! (cd "$d" && spin -a $defs "$model" >spin.out 2>&1 && \
          gcc -O0 -DSAFETY $ccx -o pan pan.c >cc.out 2>&1); then
        echo "not ok - $name (model did not build)"
        sed -n 1,5p "$d/spin.out" "$d/cc.out" | sed 's/^/#   /'
        fail=$((fail + 1))
        return
    fi
    (cd "$d" && timeout "$tmax" ./pan -m500000 $panx >pan.out 2>&1)
    rc=$?
    states=$(sed -n 's/^ *\([0-9][0-9.e+]*\) states, stored.*/\1/p' "$d/pan.out")
    depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$d/pan.out")
    if [ $rc -eq 124 ]; then
        echo "not ok - $name (timed out after ${tmax}s)"
        fail=$((fail + 1))
    elif grep -q 'errors: 0' "$d/pan.out" && ! grep -q 'max search depth too small' "$d/pan.out"; then
        echo "ok - $name ($states states, depth $depth)"
        pass=$((pass + 1))
    else
        echo "not ok - $name ($states states, depth $depth)"
        grep -E 'assertion violated|errors:|invalid end|depth too small' "$d/pan.out" | sed 's/^/#   /'
        if [ -f "$d/proto.pml.trail" ]; then
            (cd "$d" && spin -t -p $defs "$model" 2>&1 | grep -vE '^ *$' | tail -25 | sed 's/^/#   /')
        fi
        fail=$((fail + 1))
    fi
}

# exhaustive: S sends NS, R posts NR (tags {0,1}, posting early or late,
# eager/RTS/REQ chosen by the run), REQ chain up to REQ_MAX armed
check "2 msgs, 2 recvs"                         "-DNS=2 -DNR=2" "" ""
check "3 msgs, 3 recvs"                         "-DNS=3 -DNR=3" "" ""
check "2 msgs, 3 recvs (one never matched)"     "-DNS=2 -DNR=3" "" ""
check "3 msgs, 2 recvs (one stays unexpected)"  "-DNS=3 -DNR=2" "" ""
check "3 msgs, 3 recvs, REQ_MAX=1, no credits"  "-DNS=3 -DNR=3 -DREQ_MAX=1 -DCREDITS=0" "" ""
check "3 msgs, 3 recvs, one tag, REQ_MAX=3"     "-DNS=3 -DNR=3 -DNTAGS=1 -DREQ_MAX=3" "" ""
check "2 msgs, 2 recvs, cancel"                 "-DNS=2 -DNR=2 -DCANCEL=1" "" ""
check "3 msgs, 3 recvs, cancel, one tag"        "-DNS=3 -DNR=3 -DCANCEL=1 -DNTAGS=1" "" ""
check "ANY_SOURCE: S 2 + T 1 msgs, 2 recvs"     "-DNS=2 -DNT=1 -DNR=2 -DANYSRC=1" "" ""
check "ANY_SOURCE + named T: 2+1 msgs, 3 recvs, one tag" "-DNS=2 -DNT=1 -DNR=3 -DANYSRC=1 -DNAMED_T=1 -DNTAGS=1" "" ""
check "ANY_SOURCE + cancel: 2+1 msgs, 2 recvs, one tag" "-DNS=2 -DNT=1 -DNR=2 -DANYSRC=1 -DCANCEL=1 -DNTAGS=1" "" ""
# bit-state (partial coverage, hash-compact bits) for a larger one
check "bitstate: 4 msgs, 4 recvs, cancel, one tag, REQ_MAX=3" "-DNS=4 -DNR=4 -DCANCEL=1 -DNTAGS=1 -DREQ_MAX=3" "-DBITSTATE" "-w24"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
