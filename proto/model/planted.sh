#!/bin/sh
# proto/model/planted.sh: the model with planted protocol bugs; spin must
# find a counterexample for each (exit 0 when every planted bug IS found).
#   PLANTED_ACCEPT_STALE_REQ  the sender arms a REQ whose base assumes a seq
#                             it already sent through the FIFO (base rule off)
#   PLANTED_NO_KILL           the receiver keeps its REQs >= q on FIFO msg q
#   PLANTED_NO_HOLD           FIFO messages ahead of rx_next are matched at once
set -u
here=$(cd "$(dirname "$0")" && pwd)
model="$here/proto.pml"
command -v spin >/dev/null 2>&1 || { echo "spin is missing: run proto/model/run.sh (installs it)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/protoplant.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
found=0
missed=0

plant() {
    bug=$1 defs="-D$1 $2"
    d="$work/$bug"
    mkdir -p "$d"
    (cd "$d" && spin -a $defs "$model" >spin.out 2>&1 && gcc -O0 -DSAFETY -o pan pan.c >cc.out 2>&1 &&
        timeout 60 ./pan -m500000 >pan.out 2>&1)
    if [ -f "$d/proto.pml.trail" ]; then
        echo "ok - $bug found ($defs): $(grep -m1 'assertion violated' "$d/pan.out" | sed 's/ *(at depth.*//')"
        echo "#   trail (spin -t -c: messages per process 0 init, 1 Receiver, 2 Sender S), then the violation:"
        (cd "$d" && cp "$model" proto.pml && spin -t -c $defs proto.pml >trail.txt 2>&1)
        sed -n '/^q\\p/,/trail ends/p' "$d/trail.txt" | grep -v '^ *$' | head -30 | sed 's/^/#   /'
        echo "#   (full step trace: spin -t -p $defs proto.pml)"
        found=$((found + 1))
    else
        echo "not ok - $bug NOT found ($defs)"
        tail -5 "$d/pan.out" "$d/spin.out" 2>/dev/null | sed 's/^/#   /'
        missed=$((missed + 1))
    fi
}

plant PLANTED_ACCEPT_STALE_REQ "-DNS=3 -DNR=3"
plant PLANTED_NO_KILL "-DNS=2 -DNR=2"
plant PLANTED_NO_HOLD "-DNS=2 -DNR=2"
echo "$found passed, $missed failed"
[ $missed -eq 0 ]
