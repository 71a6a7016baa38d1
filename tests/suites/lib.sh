# tests/suites/lib.sh: what the shell suites share, sourced at their top
# (`. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"`): unset variables are
# errors, the working directory is the repository's top ($top), $tmp is a
# temporary directory removed at exit, and ok / notok print a result line
# and count it in $pass / $fail for the suite's final "N passed, M failed".
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }
