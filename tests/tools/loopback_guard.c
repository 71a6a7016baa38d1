/*
 * tests/tools/loopback_guard.c: an LD_PRELOAD library that ends the process
 * (exit status 97, a message on stderr) when it binds or connects an IPv4
 * socket to an address outside 127.0.0.0/8 (0.0.0.0 is allowed for bind),
 * or an IPv6 one to anything but ::1 / ::. tests/suites/loopback.sh runs
 * jobs of the network providers under it: on one host every rank must stay
 * on the loopback interface.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void check(const struct sockaddr *a, socklen_t len, const char *what, int any_ok)
{
    char s[INET6_ADDRSTRLEN] = "?";

    if (!a)
        return;
    if (a->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in in;
        memcpy(&in, a, sizeof(in));
        uint32_t ip = ntohl(in.sin_addr.s_addr);
        if ((ip >> 24) == 127 || (any_ok && ip == 0))
            return;
        inet_ntop(AF_INET, &in.sin_addr, s, sizeof(s));
    } else if (a->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 in6;
        memcpy(&in6, a, sizeof(in6));
        if (IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr) || (any_ok && IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr)))
            return;
        inet_ntop(AF_INET6, &in6.sin6_addr, s, sizeof(s));
    } else {
        return;
    }
    fprintf(stderr, "loopback_guard: %s to %s, not a loopback address (pid %d)\n", what, s, (int)getpid());
    _exit(97);
}

int bind(int fd, const struct sockaddr *a, socklen_t len)
{
    int (*real)(int, const struct sockaddr *, socklen_t) =
        (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
    check(a, len, "bind", 1);
    return real(fd, a, len);
}

int connect(int fd, const struct sockaddr *a, socklen_t len)
{
    int (*real)(int, const struct sockaddr *, socklen_t) =
        (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
    check(a, len, "connect", 0);
    return real(fd, a, len);
}
