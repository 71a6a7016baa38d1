#!/usr/bin/env bash
# tests/suites/shared.sh: the shared library. bin/mpicc links programs with
# lib/shared/libmpi.so (MBMPI_LINK=static or -static: lib/libmpi.a); a
# shared object built with `bin/mpicc -shared` uses MPI from a program that
# links it (one library, initialized once) and from a program without MPI
# that dlopens it (as Python loads an MPI module); the same in Fortran
# (`bin/mpifort -shared`, MPI_IN_PLACE from both sides). And the wrappers'
# queries of the flags (--showme:compile ..., -compile-info, -link-info).
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# run NAME EXPECTED-OUTPUT mpirun-args...
run() {
    local name=$1 want=$2 out
    shift 2
    out=$(timeout 60 bin/mpirun --timeout 50 "$@" 2>&1)
    case $out in
    *"$want"*) ok "$name" ;;
    *) notok "$name: $(echo "$out" | head -5 | tr '\n' ' ')" ;;
    esac
}
needed() { readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*\[libmpi\.so\]'; }

case $(bin/mpicc -show x.c) in
*"-L$top/lib/shared -Wl,-rpath,$top/lib/shared -lmpi"*) ok "bin/mpicc -show links lib/shared/libmpi.so" ;;
*) notok "bin/mpicc -show: $(bin/mpicc -show x.c)" ;;
esac
for how in "MBMPI_LINK=static" "-static"; do
    if [ "$how" = -static ]; then s=$(bin/mpicc -show -static x.c); else s=$(env "$how" bin/mpicc -show x.c); fi
    case $s in
    *lib/shared*) notok "bin/mpicc -show with $how: $s" ;;
    *"-L$top/lib -lmpi"*) ok "bin/mpicc -show with $how links lib/libmpi.a" ;;
    *) notok "bin/mpicc -show with $how: $s" ;;
    esac
done

# the queries build systems make of Open MPI's and MPICH's wrappers
q() { MBMPI_CC=cc bin/mpicc "$@" 2>&1; }
[ "$(q --showme:compile)" = "-I$top/mpi/include" ] && ok "--showme:compile" || notok "--showme:compile: $(q --showme:compile)"
[ "$(q --showme:link)" = "-L$top/lib/shared -Wl,-rpath,$top/lib/shared -lmpi -lpthread -lm" ] && ok "--showme:link" ||
    notok "--showme:link: $(q --showme:link)"
[ "$(q --showme:incdirs)" = "$top/mpi/include" ] && [ "$(q --showme:libdirs)" = "$top/lib/shared" ] &&
    [ "$(q --showme:libs)" = "mpi pthread m" ] && [ "$(q --showme:command)" = cc ] && ok "--showme:incdirs, libdirs, libs, command" ||
    notok "--showme:incdirs/libdirs/libs/command: $(q --showme:incdirs) | $(q --showme:libdirs) | $(q --showme:libs) | $(q --showme:command)"
case $(q --showme:version) in "mbmpi "[0-9]*) ok "--showme:version" ;; *) notok "--showme:version: $(q --showme:version)" ;; esac
[ "$(q -compile-info x.c)" = "cc -I$top/mpi/include x.c" ] && [ "$(q -link-info x.c)" = "$(q -show x.c)" ] &&
    ok "-compile-info, -link-info" || notok "-compile-info / -link-info: $(q -compile-info x.c) | $(q -link-info x.c)"
if q --showme:nonsense >/dev/null; then notok "--showme:nonsense accepted"; else ok "--showme:nonsense refused"; fi
# shellcheck disable=SC2046
if cc $(q --showme:compile) -o "$tmp/flags" tests/shared/prog.c tests/shared/plugin.c $(q --showme:link) >"$tmp/cc" 2>&1; then
    run "cc \$(mpicc --showme:compile) ... \$(mpicc --showme:link) np=2" "prog: ok 2 ranks" -n 2 "$tmp/flags"
else
    notok "cc with --showme:compile / --showme:link: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi

if bin/mpicc -O2 -o "$tmp/hello" tests/shared/prog.c tests/shared/plugin.c >"$tmp/cc" 2>&1 &&
    needed "$tmp/hello"; then
    ok "a program needs libmpi.so"
else
    notok "a program needs libmpi.so: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi
if MBMPI_LINK=static bin/mpicc -O2 -o "$tmp/hello_static" tests/shared/prog.c tests/shared/plugin.c \
    >"$tmp/cc" 2>&1 && ! needed "$tmp/hello_static"; then
    ok "MBMPI_LINK=static: a program without libmpi.so"
    run "MBMPI_LINK=static program np=2" "prog: ok 2 ranks" -n 2 "$tmp/hello_static"
else
    notok "MBMPI_LINK=static: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi

if bin/mpicc -O2 -fPIC -shared -o "$tmp/libplugin.so" tests/shared/plugin.c >"$tmp/cc" 2>&1; then
    ok "bin/mpicc -shared builds a shared object"
else
    notok "bin/mpicc -shared: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi
if bin/mpicc -O2 -o "$tmp/prog" tests/shared/prog.c -L"$tmp" -Wl,-rpath,"$tmp" -lplugin >"$tmp/cc" 2>&1; then
    for np in 1 3; do run "program + MPI shared object np=$np" "prog: ok $np ranks" -n $np "$tmp/prog"; done
    run "program + MPI shared object np=2 over tcp;ofi_rxm" "prog: ok 2 ranks" -n 2 --provider tcp "$tmp/prog"
else
    notok "prog.c with libplugin.so: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi
if ${CC:-cc} -O2 -o "$tmp/host" tests/shared/host.c -ldl >"$tmp/cc" 2>&1; then
    for np in 1 3; do run "program without MPI dlopens an MPI shared object np=$np" "plugin: ok $np ranks" \
        -n $np "$tmp/host" "$tmp/libplugin.so"; done
else
    notok "host.c: $(head -3 "$tmp/cc" | tr '\n' ' ')"
fi

if command -v "${MBMPI_FC:-gfortran}" >/dev/null 2>&1; then
    if bin/mpifort -O2 -fPIC -shared -o "$tmp/libfplugin.so" tests/shared/fplugin.f90 >"$tmp/fc" 2>&1 &&
        bin/mpifort -O2 -o "$tmp/fprog" tests/shared/fprog.f90 -L"$tmp" -Wl,-rpath,"$tmp" -lfplugin \
            >>"$tmp/fc" 2>&1; then
        ok "bin/mpifort -shared builds a Fortran shared object"
        for np in 1 3; do run "Fortran program + MPI shared object np=$np" "fprog: ok $np ranks" -n $np "$tmp/fprog"; done
    else
        notok "bin/mpifort -shared: $(head -5 "$tmp/fc" | tr '\n' ' ')"
    fi
else
    echo "# ${MBMPI_FC:-gfortran} not found: Fortran shared objects not tried"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
