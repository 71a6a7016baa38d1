#!/bin/sh
# scripts/pmpi.sh OUTDIR OBJ...: the MPI profiling interface (MPI 3.1
# chapter 14) for the objects of libmpi.a. Every global function MPI_X an
# object defines gets a second global name PMPI_X at the same address, and
# MPI_X becomes weak: a tool that defines its own MPI_X (and calls PMPI_X)
# replaces ours at link time. Objects that define MPI_ functions are
# rewritten (objcopy) to OUTDIR/<path with / as _>; the paths to archive are
# printed, one per line, in the order given.
set -eu
out=$1
shift
mkdir -p "$out"
for o in "$@"; do
    args=$(objdump -t "$o" | awk '$2 == "g" && $3 == "F" && $NF ~ /^MPI_[A-Za-z0-9_]+$/ {
        printf "--add-symbol P%s=%s:0x%s,global,function --weaken-symbol=%s ", $NF, $4, $1, $NF }')
    if [ -z "$args" ]; then
        echo "$o"
        continue
    fi
    t="$out/$(echo "$o" | tr / _)"
    # shellcheck disable=SC2086
    objcopy $args "$o" "$t"
    echo "$t"
done
