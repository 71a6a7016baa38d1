#!/bin/sh
# tests/fuzz/run.sh: builds the libFuzzer targets of tests/fuzz/ (clang,
# ASan + UBSan) and runs each for FUZZ_S seconds (default 60), one after the
# other, on a copy of its seed corpus (tests/fuzz/corpus/<target>/ is never
# grown). Crash inputs land in build/fuzz/crashes/. Prints executions and
# coverage per target and ends with "N passed, M failed" (a target passes
# when the fuzzer found nothing). Run from the top directory:
#   tests/fuzz/run.sh          or   make fuzz FUZZ_S=60
set -u
cd "$(dirname "$0")/../.." || exit 1

FUZZ_S=${FUZZ_S:-60}
CLANG=${CLANG:-clang}
OUT=build/fuzz
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -std=c11 -D_GNU_SOURCE -I. -Impi/include"

if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "fuzz: $CLANG not found (apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi
mkdir -p "$OUT/crashes"
# -fsanitize=fuzzer needs the compiler-rt runtime (libclang-rt-*-dev)
probe=$OUT/.probe
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe.c"
if ! $CLANG -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y libclang-rt-14-dev >/dev/null 2>&1 || true
    fi
    if ! $CLANG -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" 2>/dev/null; then
        echo "fuzz: $CLANG cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)" >&2
        exit 1
    fi
fi
rm -f "$probe" "$probe.c"

CORE="proto/proto.c mbcf/mbcf.c transport/self.c util/log.c util/status.c"
$CLANG $FLAGS tests/fuzz/fuzz_fifo.c $CORE -o $OUT/fuzz_fifo || exit 1
$CLANG $FLAGS tests/fuzz/fuzz_store.c util/log.c util/status.c -o $OUT/fuzz_store || exit 1

pass=0
fail=0
for t in fifo store; do
    work=$OUT/corpus-$t
    log=$OUT/fuzz_$t.log
    rm -rf "$work"
    mkdir -p "$work"
    cp tests/fuzz/corpus/$t/* "$work/"
    echo "fuzz_$t: ${FUZZ_S}s on $(ls "$work" | wc -l) seeds"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        $OUT/fuzz_$t -max_total_time="$FUZZ_S" -print_final_stats=1 -max_len=8192 -timeout=10 \
        -artifact_prefix="$OUT/crashes/${t}-" "$work" >"$log" 2>&1
    rc=$?
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    execs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    speed=$(grep -E 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
    cov=$(echo "$last" | grep -oE 'cov: [0-9]+')
    ft=$(echo "$last" | grep -oE 'ft: [0-9]+')
    corp=$(echo "$last" | grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*')
    echo "fuzz_$t: executions ${execs:-?} (${speed:-?}/s), ${cov:-cov: ?}, ${ft:-ft: ?}, ${corp:-corp: ?}"
    if [ $rc -eq 0 ] && ! grep -qE '^==[0-9]+==ERROR|SUMMARY: (Address|Undefined|Leak)Sanitizer|deadly signal|runtime error' "$log"; then
        echo "fuzz_$t: PASS"
        pass=$((pass + 1))
    else
        echo "fuzz_$t: FAIL (rc $rc; log $log)"
        grep -E 'ERROR|SUMMARY|runtime error|invariant|Test unit written' "$log" | head -5
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
