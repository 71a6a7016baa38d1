#!/usr/bin/env bash
# tests/suites/loopback.sh: on one host, jobs over the network providers
# (tcp;ofi_rxm, sockets, and net and udp;ofi_rxd where libfabric has them)
# bind and connect only to loopback addresses: every process of the job
# (mpirun and the ranks) runs under tests/tools/loopback_guard.c, an
# LD_PRELOAD library that ends a process binding or connecting elsewhere.
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! cc -shared -fPIC -O2 -o "$tmp/guard.so" tests/tools/loopback_guard.c -ldl >"$tmp/cc" 2>&1 ||
    ! bin/mpicc -O2 -o "$tmp/prog" tests/mpi/p2p_basic.c >>"$tmp/cc" 2>&1; then
    notok "loopback: cannot build: $(tail -3 "$tmp/cc" | tr '\n' ' ')"
    echo "$pass passed, $fail failed"
    exit 1
fi
# the guard itself: connecting a UDP socket (which sends nothing) to a
# non-loopback address is caught
cat >"$tmp/probe.c" <<'C'
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
int main(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
    return connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0;
}
C
cc -O2 -o "$tmp/probe" "$tmp/probe.c"
if LD_PRELOAD="$tmp/guard.so" "$tmp/probe" 2>"$tmp/self"; then
    notok "loopback_guard let a connection to 192.0.2.1 through"
elif grep -q 'loopback_guard: connect to 192.0.2.1' "$tmp/self"; then
    ok "loopback_guard stops a connection to 192.0.2.1"
else
    notok "loopback_guard did not report a connection to 192.0.2.1: $(tr '\n' ' ' <"$tmp/self")"
fi
provs="tcp sockets"
for p in net "udp;ofi_rxd"; do
    bin/mbmpi_info 2>/dev/null | grep -q "^${p%%;*}.* available" && provs="$provs ${p%%;*}"
done
for p in $provs; do
    for n in 2 3; do
        LD_PRELOAD="$tmp/guard.so" timeout -k 5 90 bin/mpirun -n $n --provider "$p" --timeout 60 "$tmp/prog" \
            >"$tmp/out" 2>&1
        st=$?
        if [ $st = 0 ]; then
            ok "p2p_basic np=$n over $p binds and connects to loopback only"
        else
            notok "p2p_basic np=$n over $p: exit $st: $(grep -m 2 -E 'loopback_guard|error' "$tmp/out" | tr '\n' ' ')"
        fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
