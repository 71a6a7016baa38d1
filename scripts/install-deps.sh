#!/bin/sh
# scripts/install-deps.sh: install what building and testing mbmpi needs on
# Debian 12. As root it runs apt-get; otherwise it prints the command.
#   scripts/install-deps.sh [--bench]   (--bench adds gnuplot and the peer MPIs)
set -e
pkgs="build-essential gfortran libfabric-dev libfabric-bin libcmocka-dev valgrind"
if [ "${1:-}" = "--bench" ]; then
    pkgs="$pkgs gnuplot-nox openmpi-bin libopenmpi-dev mpich libmpich-dev"
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "mbmpi needs:$missing" >&2
    echo "install them with: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq $missing >/dev/null
