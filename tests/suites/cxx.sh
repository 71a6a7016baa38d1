#!/usr/bin/env bash
# tests/suites/cxx.sh: C++ programs. bin/mpicxx (and bin/mpic++) compile
# with c++; mpi.h compiles as C++11 and C++17 with -Wall -Wextra -Werror
# -pedantic; tests/cxx/cxx_basic.cpp runs at 1 and 3 ranks.
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for w in mpicxx mpic++; do
    case $(MBMPI_CXX= bin/$w -show x.cpp 2>&1) in
    "c++ "*-lmpi*) ok "bin/$w -show uses c++" ;;
    *) notok "bin/$w -show: $(bin/$w -show x.cpp 2>&1)" ;;
    esac
done
for std in c++11 c++17; do
    if bin/mpicxx -std=$std -Wall -Wextra -Werror -pedantic -O2 -o "$tmp/prog" tests/cxx/cxx_basic.cpp \
        >"$tmp/cc" 2>&1; then
        ok "tests/cxx/cxx_basic.cpp builds as $std"
    else
        notok "tests/cxx/cxx_basic.cpp as $std: $(head -3 "$tmp/cc" | tr '\n' ' ')"
    fi
done
for np in 1 3; do
    out=$(timeout 60 bin/mpirun -n $np "$tmp/prog" 2>&1)
    case $out in
    *"cxx: ok"*) ok "cxx_basic np=$np" ;;
    *) notok "cxx_basic np=$np: $out" ;;
    esac
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
