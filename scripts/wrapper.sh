# scripts/wrapper.sh: what bin/mpicc (mpicxx) and bin/mpifort share; sourced
# by both after they set `prefix` (the mbmpi tree).
#
# Printing instead of compiling, as build systems ask the wrappers of other
# MPIs: MPICH's -show (the whole command), -compile-info, -link-info, and
# Open MPI's --showme (the whole command), --showme:compile (flags only),
# --showme:link, :command, :incdirs, :libdirs, :libs, :version, :help.

# show_opt ARG: 0 (and `query` set) when ARG is one of those options
show_opt() {
    case "$1" in
    -show | --show | -showme | --showme) query=all ;;
    -showme:* | --showme:*) query=${1#*:} ;;
    -compile-info | -compile_info) query=compile-info ;;
    -link-info | -link_info) query=link-info ;;
    *) return 1 ;;
    esac
}

# mpi_libs ARGS...: the library's link flags in `mpilibs`, its directory in
# `mpilibdir`: lib/shared/libmpi.so, found at run time by the path recorded
# in the program (as Open MPI's and MPICH's wrappers link libmpi.so), so a
# program and the shared objects it loads share one MPI library; with
# MBMPI_LINK=static or -static, lib/libmpi.a (then a program's own shared
# objects must not link MPI themselves).
mpi_libs() {
    _libdir=${MBMPI_LIBDIR:-$prefix/lib}
    _mode=${MBMPI_LINK:-shared}
    for _a in "$@"; do
        [ "$_a" = -static ] && _mode=static
    done
    if [ "$_mode" != static ] && [ -f "$_libdir/shared/libmpi.so" ]; then
        mpilibdir=$_libdir/shared
        mpilibs="-L$mpilibdir -Wl,-rpath,$mpilibdir -lmpi -lpthread -lm"
    else
        mpilibdir=$_libdir
        mpilibs="-L$mpilibdir -lmpi -lpthread -lm"
    fi
}

# show_command COMPILER FLAGS LIBS LINK ARGS...: print what `query` asks
# for (LIBS: every link flag; LINK: 1 when ARGS link) and exit
show_command() {
    _cc=$1 _flags=$2 _libs=$3 _link=$4
    shift 4
    case $query in
    all)
        if [ "$_link" = 1 ]; then echo "$_cc $_flags $* $_libs"; else echo "$_cc $_flags $*"; fi ;;
    compile) echo "$_flags" ;;
    link) echo "$_libs" ;;
    command) echo "$_cc" ;;
    incdirs)
        _dirs=""
        for _f in $_flags; do
            case $_f in -I*) _dirs="$_dirs${_dirs:+ }${_f#-I}" ;; esac
        done
        echo "$_dirs" ;;
    libdirs) echo "$mpilibdir" ;;
    libs) echo "mpi pthread m" ;;
    version)
        echo "mbmpi $(sed -n 's/^#define MBMPI_VERSION_STRING "\(.*\)"/\1/p' "$prefix/mpi/include/mpi.h")" ;;
    compile-info) echo "$_cc $_flags $*" ;;
    link-info) echo "$_cc $_flags $* $_libs" ;;
    help)
        echo "--showme[:compile|:link|:command|:incdirs|:libdirs|:libs|:version|:help], -show, -compile-info, -link-info" ;;
    *)
        echo "$(basename "$0"): unknown option --showme:$query (--showme:help lists them)" >&2
        exit 1 ;;
    esac
    exit 0
}
