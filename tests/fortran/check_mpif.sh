#!/usr/bin/env bash
# tests/fortran/check_mpif.sh: mechanical checks of mpi/include/mpif.h.
#   1. every PARAMETER of mpif.h equals the C value in mpi.h (a generated C
#      program compares them, so casts and aliases in mpi.h are resolved by
#      the compiler itself);
#   2. every integer constant MPI_* of mpi.h is in mpif.h (except the C-only
#      ones listed below): a warning only;
#   3. no line is longer than 72 columns and the header compiles both as
#      fixed-form (.f) and free-form (.f90) Fortran with warnings as errors.
# Prints "ok - ..." / "not ok - ..." lines; exit status 1 on any failure.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpih=$root/mpi/include/mpi.h
mpif=$root/mpi/include/mpif.h
fc=${MBMPI_FC:-gfortran}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
result() { # result OK? what
    if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fails=$((fails + 1)); fi
}

# ---- 1. values ----
# Fortran-only names and the C expression each must equal
declare -A special=(
    [MPI_STATUS_SIZE]='MPI_F_STATUS_SIZE'
    [MPI_SOURCE]='(offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint) + 1)'
    [MPI_TAG]='(offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint) + 1)'
    [MPI_ERROR]='(offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint) + 1)'
    [MPI_ADDRESS_KIND]='sizeof(MPI_Aint)'
    [MPI_OFFSET_KIND]='sizeof(MPI_Offset)'
    [MPI_COUNT_KIND]='sizeof(MPI_Count)'
    [MPI_INTEGER_KIND]='sizeof(MPI_Fint)'
)
# PARAMETER (NAME=VALUE), case-insensitive as Fortran is
params=$(grep -iE '^ {6}PARAMETER *\( *MPI_[A-Z0-9_]+ *= *-?[0-9]+ *\)' "$mpif" |
    sed -E 's/^ *[Pp][Aa][Rr][Aa][Mm][Ee][Tt][Ee][Rr] *\( *([A-Za-z0-9_]+) *= *(-?[0-9]+) *\).*/\1 \2/' |
    tr 'a-z' 'A-Z')
nparams=$(echo "$params" | grep -c .)
{
    echo '#include <mpi.h>'
    echo '#include <stddef.h>'
    echo '#include <stdio.h>'
    echo 'static int bad;'
    echo 'static void check(const char *name, long long f, long long c)'
    echo '{ if (f != c) { printf("FAIL mpif.h: %s = %lld but mpi.h has %lld\n", name, f, c); bad++; } }'
    echo 'int main(void) {'
    while read -r name val; do
        expr=${special[$name]:-$name}
        echo "    check(\"$name\", $val, (long long)($expr));"
    done <<<"$params"
    echo '    return bad != 0; }'
} >"$tmp/check.c"
if "${MBMPI_CC:-cc}" -I"$root/mpi/include" -o "$tmp/check" "$tmp/check.c" >"$tmp/cc.log" 2>&1; then
    "$tmp/check"
    result $? "mpif.h: $nparams PARAMETERs equal their mpi.h values"
else
    sed 's/^/#   /' "$tmp/cc.log" | grep -E 'error' | head -10
    result 1 "mpif.h: the comparison program builds (a name of mpif.h unknown to mpi.h?)"
fi

# ---- 2. completeness ----
# C-only integer constants (no Fortran meaning or an mbmpi extension)
c_only='^(MPI_TAG_UB_VALUE|MPI_F_STATUS_SIZE|MPI_T_[A-Z0-9_]+)$'
missing=""
for name in $(grep -E '^#define MPI_[A-Z0-9_]+ +(\(\([A-Za-z_]+\) *-?[0-9]+\)|\(-?[0-9]+\)|-?[0-9]+|MPI_[A-Z0-9_]+)$' "$mpih" |
    awk '{print $2}'); do
    [[ $name =~ $c_only ]] && continue
    echo "$params" | grep -q "^$name " || missing="$missing $name"
done
# Reported, not failed: a constant added to mpi.h by another change should
# reach mpif.h, but its absence breaks no Fortran program that works today.
if [ -n "$missing" ]; then
    echo "# warning: in mpi.h but not yet in mpif.h:$missing"
fi

# ---- 3. form ----
long=$(awk 'length > 72 { print FNR }' "$mpif" | head -5 | tr '\n' ' ')
[ -z "$long" ] || echo "# lines longer than 72 columns: $long"
result "$([ -z "$long" ] && echo 0 || echo 1)" "mpif.h: every line within 72 columns"
if command -v "$fc" >/dev/null; then
    printf '      program f\n      implicit none\n      include '"'"'mpif.h'"'"'\n      end\n' >"$tmp/f.f"
    printf 'program f\n  implicit none\n  include '"'"'mpif.h'"'"'\nend program f\n' >"$tmp/f90.f90"
    "$fc" -I"$root/mpi/include" -ffixed-form -std=legacy -Wall -Wline-truncation -Werror -c "$tmp/f.f" \
        -o "$tmp/f.o" >"$tmp/f.log" 2>&1
    rc=$?
    [ $rc = 0 ] || head -5 "$tmp/f.log" | sed 's/^/#   /'
    result $rc "mpif.h compiles as fixed-form Fortran 77 (.f)"
    "$fc" -I"$root/mpi/include" -ffree-form -std=f2008 -Wall -Werror -c "$tmp/f90.f90" -o "$tmp/f90.o" \
        >"$tmp/f90.log" 2>&1
    rc=$?
    [ $rc = 0 ] || head -5 "$tmp/f90.log" | sed 's/^/#   /'
    result $rc "mpif.h compiles as free-form Fortran 90 (.f90)"
else
    echo "# $fc not found: form checks skipped"
fi
[ $fails = 0 ]
