/*
 * bench/tcp_goodput.c: a link's raw TCP goodput (payload bytes per second
 * through one TCP connection), for bench/ethernet100.
 *
 *   tcp_goodput recv BIND_ADDR PORT [LIMIT_S]
 *       listens on BIND_ADDR:PORT, accepts one connection, reads until EOF
 *       and prints one line:
 *         goodput <MB/s> bytes <N> seconds <T>
 *       (MB/s = 10^6 B/s, measured from the first byte to EOF), then closes.
 *   tcp_goodput send ADDR PORT SECONDS [LIMIT_S]
 *       connects (retrying for up to 5 s while the receiver starts), writes
 *       64 KiB blocks for SECONDS, shuts down its side and waits for the
 *       receiver to close.
 * Both end themselves after LIMIT_S seconds (default 30) whatever happens
 * (SIGALRM), so a caller is never left waiting. IPv4 only. Exit status 0 on
 * success, 1 on an error, 2 on bad usage.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (64 * 1024)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(void)
{
    fprintf(stderr, "usage: tcp_goodput recv BIND_ADDR PORT [LIMIT_S]\n"
                    "       tcp_goodput send ADDR PORT SECONDS [LIMIT_S]\n");
    return 2;
}

static int make_addr(const char *ip, const char *port, struct sockaddr_in *sa)
{
    char *end;
    long p = strtol(port, &end, 10);

    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    if (*end || p < 1 || p > 65535 || inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
        return -1;
    sa->sin_port = htons((unsigned short)p);
    return 0;
}

static int do_recv(const struct sockaddr_in *sa)
{
    static char buf[BLOCK];
    int one = 1, ls, fd;
    long long total = 0;
    double t0 = 0, t1;
    ssize_t n;

    ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(ls, (const struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(ls, 1) < 0) {
        perror("tcp_goodput recv: listen");
        return 1;
    }
    fd = accept(ls, NULL, NULL);
    if (fd < 0) {
        perror("tcp_goodput recv: accept");
        return 1;
    }
    close(ls);
    for (;;) {
        n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("tcp_goodput recv: read");
            return 1;
        }
        if (n == 0)
            break;
        if (total == 0)
            t0 = now();
        total += n;
    }
    t1 = now();
    close(fd);
    if (total < BLOCK || t1 <= t0) {
        fprintf(stderr, "tcp_goodput recv: only %lld bytes arrived\n", total);
        return 1;
    }
    printf("goodput %.3f bytes %lld seconds %.3f\n", (double)total / (t1 - t0) / 1e6, total, t1 - t0);
    return 0;
}

static int do_send(const struct sockaddr_in *sa, double seconds)
{
    static char buf[BLOCK];
    double start = now(), t0;
    int fd = -1;
    ssize_t n;

    memset(buf, 'g', sizeof(buf));
    for (;;) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) {
            perror("tcp_goodput send: socket");
            return 1;
        }
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
            break;
        close(fd);
        if ((errno != ECONNREFUSED && errno != EINTR) || now() - start > 5.0) {
            perror("tcp_goodput send: connect");
            return 1;
        }
        usleep(20000);
    }
    t0 = now();
    while (now() - t0 < seconds) {
        n = write(fd, buf, sizeof(buf));
        if (n < 0 && errno != EINTR) {
            perror("tcp_goodput send: write");
            return 1;
        }
    }
    shutdown(fd, SHUT_WR);
    while ((n = read(fd, buf, sizeof(buf))) != 0)
        if (n < 0 && errno != EINTR)
            break;
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa;
    int limit = 30;

    if (argc < 4 || make_addr(argv[2], argv[3], &sa) < 0)
        return usage();
    if (!strcmp(argv[1], "recv") && argc <= 5) {
        if (argc == 5)
            limit = atoi(argv[4]);
        if (limit < 1)
            return usage();
        alarm((unsigned)limit);
        return do_recv(&sa);
    }
    if (!strcmp(argv[1], "send") && (argc == 5 || argc == 6)) {
        double seconds = atof(argv[4]);
        if (argc == 6)
            limit = atoi(argv[5]);
        if (seconds <= 0 || limit < 1 || seconds >= limit)
            return usage();
        alarm((unsigned)limit);
        return do_send(&sa, seconds);
    }
    return usage();
}
