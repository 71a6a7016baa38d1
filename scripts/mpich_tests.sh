#!/usr/bin/env bash
# scripts/mpich_tests.sh: build and run MPICH's own test suite (test/mpi of
# Debian's mpich source package, fetched with `apt-get source`) against mbmpi,
# as a check by programs nobody here wrote. Nothing of it is kept in this
# repository: the source is downloaded into the work directory.
#
# usage: scripts/mpich_tests.sh [DIR...]   (default: pt2pt coll comm group
#        datatype attr init errhan topo info)
#   Fortran directories (f77/pt2pt, f90/coll, f08/rma ...) are built with
#   bin/mpifort and MPICH's util/mtest_f77.f, mtest_f90.f90 or mtest_f08.f90; a test's sources are its
#   NAME_SOURCES line in the directory's Makefile.am, else NAME.f / NAME.f90
#   (a C-only program, NAME.c, is built as the C tests are).
# Environment: MPICH_TESTS_WORK (/tmp/mbmpi-mpich-tests), MPICH_TESTS_PROVIDER
#   (mbshm), MPICH_TESTS_TIMEOUT (30 s per test).
#
# Needs `make` done, and a deb-src line for Debian's archive (apt-get
# source); as root it adds one to /etc/apt/sources.list.d/ when missing.
# Per test: CFAIL (does not build: mostly calls mbmpi lacks, listed), FAIL
# (exit status or no "No Errors"), PASS; a summary per directory, and
# $WORK/res/<dir>.txt.
#
# Known differences kept on purpose: MPICH's oplxor and allred apply
# logical ops to floats and to MPI_AINT (MPICH extensions; MPI 3.1 5.9.2
# and Open MPI refuse them). MPI_CHAR reduces as C's char, as in Open MPI
# and MPICH. The testlist's timeLimit=, env= and resultTest= are honoured
# (init/exitst*, init/timeout, errhan/errfatal and the *_abort tests pass
# when mpirun's exit status is non-zero).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MPICH_TESTS_WORK:-/tmp/mbmpi-mpich-tests}
PROV=${MPICH_TESTS_PROVIDER:-mbshm}
TMO=${MPICH_TESTS_TIMEOUT:-30}
DIRS=${*:-pt2pt coll comm group datatype attr init errhan topo info}

[ -x "$top/bin/mpicc" ] && [ -x "$top/bin/mpirun" ] || { echo "mpich_tests: run make first" >&2; exit 1; }
mkdir -p "$WORK" && cd "$WORK" || exit 1
if [ ! -d src ]; then
    if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        if [ "$(id -u)" = 0 ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
            sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
                >/etc/apt/sources.list.d/mbmpi-deb-src.sources
            apt-get update -qq >/dev/null 2>&1
        else
            echo "mpich_tests: apt-get source needs a deb-src line for Debian's archive" >&2
            exit 1
        fi
    fi
    mkdir -p dl && (cd dl && apt-get source -qq --download-only mpich >/dev/null 2>&1) || {
        echo "mpich_tests: apt-get source mpich failed" >&2
        exit 1
    }
    mkdir -p src && tar -C src -xf dl/mpich_*.orig.tar.* --wildcards '*/test/mpi/*' || exit 1
fi
T=$(echo "$WORK"/src/mpich-*/test/mpi)
[ -d "$T" ] || { echo "mpich_tests: no test/mpi in $WORK/src" >&2; exit 1; }

# the configure-made header, and MPICH's mtest.c
cat >mpitestconf.h <<'EOF'
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_MPI_INTEGER16 1
#define HAVE_STRDUP 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_STDARG_H 1
#define STDC_HEADERS 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define POINTERINT_t int64_t
#define HAVE_PTHREAD_H 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
EOF
cp "$T/util/mtest.c" mtest_h.c
# (#include "mpitestconf.h" from $T/include/ finds the copy there first)
cp mpitestconf.h "$T/include/mpitestconf.h"
# MPICH's datatype pool library (dtpools) for the tests that loop over
# many types (coll/allred, coll/reduce, pt2pt/sendself, ...): its
# configure-made header, then an archive the tests link against
cat >"$T/dtpools/dtpoolsconf.h" <<'EOF'
#ifndef DTPOOLSCONF_H_INCLUDED
#define DTPOOLSCONF_H_INCLUDED
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_MEMSET 1
#define HAVE_STRDUP 1
#endif
EOF
CC="$top/bin/mpicc -O1 -w -I$WORK -I$T/include -I$T/dtpools/include"
for f in mtest_h.c "$T/util/mtest_common.c" "$T/util/mtest_single.c" "$T/util/mtest_thread.c"; do
    $CC -c "$f" -o "$(basename "${f%.c}").o" || { echo "mpich_tests: $f does not build" >&2; exit 1; }
done
rm -f libdtp.a
for f in "$T"/dtpools/src/*.c "$T/util/dtypes.c"; do
    $CC -c "$f" -o "dtp_$(basename "${f%.c}").o" || { echo "mpich_tests: $f does not build" >&2; exit 1; }
done
ar rcs libdtp.a dtp_*.o

# Fortran: MPICH's Fortran test utilities, and the headers its configure
# makes from *.h.in (f77/*/ only), here for 64-bit Linux with gfortran:
# INTEGER*8 addresses and offsets. The C helpers of Fortran tests include
# "../../include/mpitestconf.h" and name their Fortran-callable functions
# after F77_NAME_LOWER_USCORE (gfortran's convention).
FC="$top/bin/mpifort -O1 -w"
case " $DIRS " in
*" f77/"* | *" f90/"* | *" f08/"*)
    for f in mtest_f77.f mtest_f90.f90 mtest_f08.f90; do
        $FC -c "$T/util/$f" -o "${f%.*}.o" || { echo "mpich_tests: util/$f does not build" >&2; exit 1; }
    done
    for f in "$T"/f77/*/*.h.in; do
        mkdir -p "finc/$(basename "$(dirname "$f")")"
        sed 's/@F77_MPI_ADDRESS@/INTEGER*8/; s/@F77_MPI_OFFSET@/INTEGER*8/' "$f" \
            >"finc/$(basename "$(dirname "$f")")/$(basename "${f%.in}")"
    done
    ;;
esac

# sources D NAME: the source files of test NAME of directory D, relative to
# it: NAME.c for a C directory; for a Fortran one (f77/..., f90/...) its
# NAME_SOURCES line in Makefile.am, else NAME.f, NAME.f90 or NAME.c.
sources() {
    local d=$1 name=$2 s
    case $d in
    f77/* | f90/* | f08/*) sed -n "s/^${name}_SOURCES *= *//p" "$T/$d/Makefile.am" 2>/dev/null | grep . && return ;;
    *)
        sed -n "s/^${name}_SOURCES *= *//p" "$T/$d/Makefile.am" 2>/dev/null | grep . && return
        [ -f "$T/$d/$name.c" ] && echo "$name.c"
        return
        ;;
    esac
    for s in "$name.f" "$name.f90" "$name.c"; do
        [ -f "$T/$d/$s" ] && echo "$s" && return
    done
}

# cppflags D NAME: the NAME_CPPFLAGS of a C test (MPICH builds variants
# of one source so: rma/mutex_bench_shm ...)
cppflags() {
    sed -n "s/^${2}_CPPFLAGS *= *//p" "$T/$1/Makefile.am" 2>/dev/null | sed 's/\$(AM_CPPFLAGS)//'
}

# build D EXE SOURCES...: build a test of directory D into EXE, compiler
# messages in EXE.cerr. With a Fortran source, C sources become objects
# linked into the Fortran program with MPICH's Fortran utilities.
build() {
    local d=$1 exe=$2 s fsrcs="" csrcs="" cobjs="" mod
    shift 2
    for s in "$@"; do
        case $s in
        *.h) ;;
        *.c)
            # (f08/ext and f08/io copy some C helpers from f90/ or f77/ at make time)
            if [ -f "$T/$d/$s" ]; then
                csrcs="$csrcs $T/$d/$s"
            else
                csrcs="$csrcs $(ls "$T/f90/${d#*/}/$s" "$T/f77/${d#*/}/$s" 2>/dev/null | head -1)"
            fi
            ;;
        *) fsrcs="$fsrcs $T/$d/$s" ;;
        esac
    done
    # shellcheck disable=SC2086
    if [ -z "$fsrcs" ]; then
        # (threads/ tests start their threads through MTest_Start_thread)
        local th=mtest_single.o
        case $d in threads/*) th=mtest_thread.o ;; esac
        $CC $(cppflags "$d" "${exe#bin/"${d//\//_}"_}") -o "$exe" $csrcs mtest_h.o mtest_common.o $th libdtp.a -lm >"$exe.cerr" 2>&1
        return
    fi
    : >"$exe.cerr"
    for s in $csrcs; do
        $CC -DF77_NAME_LOWER_USCORE -c "$s" -o "$exe.$(basename "${s%.c}").o" >>"$exe.cerr" 2>&1 || return 1
        cobjs="$cobjs $exe.$(basename "${s%.c}").o"
    done
    mod=fmod/${d//\//_} # (modules a test defines)
    mkdir -p "$mod"
    # (its directory's headers first; f77/rma includes f77/attr's attraints.h)
    # shellcheck disable=SC2086
    $FC -I"$WORK/finc/${d##*/}" $(printf -- "-I$WORK/%s " finc/*) -J"$mod" -o "$exe" $fsrcs $cobjs "mtest_${d%%/*}.o" >>"$exe.cerr" 2>&1
}

mkdir -p bin res
pass_all=0 fail_all=0 cfail_all=0
for d in $DIRS; do
    dn=${d//\//_} # (a nested directory, e.g. errors/coll)
    out=res/$dn.txt
    : >"$out"
    cat "$T/$d/testlist.in" "$T/$d/testlist" 2>/dev/null | grep -v '^#' | grep -v '^@' | grep -v '^ *$' |
        while read -r name np rest; do
            srcs=$(sources "$d" "$name")
            [ -n "$srcs" ] || continue
            args=$(echo "$rest" | grep -o 'arg=[^ ]*' | sed 's/arg=//' | tr '\n' ' ')
            exe=bin/${dn}_$name
            # (re)built when older than the library: it is linked statically
            # shellcheck disable=SC2086
            if ! [ "$exe" -nt "$top/lib/libmpi.a" ] && ! build "$d" "$exe" $srcs; then
                echo "CFAIL $d/$name: $(grep -o "undefined reference to \`[A-Za-z_0-9]*'" "$exe.cerr" | sort -u |
                    sed "s/undefined reference to //" | tr '\n' ' ' | head -c 300)$(grep -m1 -E 'error:|Error:' "$exe.cerr" |
                    head -c 200)" >>"$out"
                continue
            fi
            # the testlist's options, as MPICH's runtests reads them:
            # timeLimit=S replaces the time limit; resultTest=TestStatus /
            # TestErrFatal pass on a non-zero exit (the test checks
            # mpiexec's exit code), TestStatusNoErrors also needs "No
            # Errors"; env=VAR=VALUE is set for the run
            tmo=$(echo "$rest" | grep -o 'timeLimit=[0-9]*' | sed 's/timeLimit=//')
            how=$(echo "$rest" | grep -o 'resultTest=[A-Za-z]*' | sed 's/resultTest=//')
            envs=$(echo "$rest" | grep -o 'env=[^ ]*' | sed 's/env=//' | tr '\n' ' ')
            # shellcheck disable=SC2086
            o=$(env $envs timeout $((${tmo:-$TMO} + 15)) "$top/bin/mpirun" -n "$np" --provider "$PROV" \
                --timeout "${tmo:-$TMO}" "$exe" $args 2>&1)
            rc=$?
            case $how in
            TestStatus | TestErrFatal) ok=$([ $rc -ne 0 ] && echo 1) ;;
            TestStatusNoErrors) ok=$([ $rc -ne 0 ] && echo "$o" | grep -qi 'No Errors' && echo 1) ;;
            *) ok=$([ $rc -eq 0 ] && echo "$o" | grep -qi 'No Errors' && echo 1) ;;
            esac
            if [ -n "$ok" ]; then
                echo "PASS $d/$name $np $args${how:+ ($how: exit $rc)}" >>"$out"
            else
                echo "FAIL $d/$name $np $args${how:+ ($how)} (exit $rc): $(echo "$o" | grep -v '^$' | head -3 | tr '\n' '|' | head -c 300)" >>"$out"
            fi
        done
    p=$(grep -c '^PASS' "$out") f=$(grep -c '^FAIL' "$out") c=$(grep -c '^CFAIL' "$out")
    echo "$d: $p passed, $f failed, $c do not build"
    pass_all=$((pass_all + p)) fail_all=$((fail_all + f)) cfail_all=$((cfail_all + c))
done
echo "MPICH test suite over $PROV: $pass_all passed, $fail_all failed, $cfail_all do not build (details: $WORK/res/)"
