/*
 * tests/launch/boot_probe.c: a rank for tests/launch/run_launch_tests.sh.
 * Plain C on transport/boot.h (no MPI): boot_init, put "k<rank>", fence,
 * get every rank's key and check it, then behave as the mode says.
 *
 *   boot_probe MODE
 *     ok          a split fence (begin, get, test...) and a fence, finalize, exit 0
 *     big         also puts/gets a 4096-byte value per rank, checks truncation
 *     segv        rank 1 raises SIGSEGV after the fence
 *     exit2       rank 1 exits 2 before finalize
 *     exit0early  rank 1 exits 0 without finalize
 *     abort       rank 0 calls boot_abort(b, 7, "test"); the others sleep
 *     hang        every rank sleeps forever after the fence
 *     orphan      like hang, but without PR_SET_PDEATHSIG (only the watch
 *                 connection can tell the rank that mpirun is gone)
 *     finifence   rank 0 finalizes, the others fence again (never completes)
 *     nompi       rank 1 exits 0 without boot_init, the others fence
 *     env         prints rank size local_rank local_size host all_local
 *     closefd     rank 1 closes its main store socket and keeps running
 *     garbage     rank 1 writes a malformed header on its main store socket
 *     stubborn    like hang, but every rank ignores SIGTERM
 *     exit3after  every rank finalizes; rank 1 then exits 3
 *   Environment: PROBE_DIR (optional): each rank writes its pid to
 *   PROBE_DIR/pid.<rank>; rank 0 writes MBMPI_STORE to PROBE_DIR/store and
 *   creates PROBE_DIR/ready.<rank> once past the fence.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/boot.h"
#include "util/status.h"

static void write_file(const char *name, const char *text)
{
    const char *dir = getenv("PROBE_DIR");
    char path[4096], tmp[4200];
    FILE *f;

    if (!dir)
        return;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    rename(tmp, path); /* readers never see half a file */
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

/* The lowest-numbered socket connected to the store's port: the main
 * connection (boot_client opens it before the watch connection). */
static int find_store_socket(void)
{
    const char *store = getenv("MBMPI_STORE"), *colon = store ? strrchr(store, ':') : NULL;
    int port = colon ? atoi(colon + 1) : -1, fd;

    for (fd = 3; fd < 256; fd++) {
        struct sockaddr_in sa;
        socklen_t len = sizeof(sa);
        if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin_family == AF_INET &&
            ntohs(sa.sin_port) == port)
            return fd;
    }
    return -1;
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "boot_probe: %s failed: %s\n", what, ut_status_str(rc));
    return 3;
}

static void fill(unsigned char *buf, size_t len, int rank)
{
    size_t i;

    for (i = 0; i < len; i++)
        buf[i] = (unsigned char)(i * 7 + (size_t)rank);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    const char *rank_env = getenv("MBMPI_RANK");
    char name[64], text[256], val[64], key[64];
    unsigned char big[4096], got[4096];
    size_t len;
    boot_t *b;
    int rc, rank, size, r;

    snprintf(text, sizeof(text), "%d\n", (int)getpid());
    snprintf(name, sizeof(name), "pid.%s", rank_env ? rank_env : "0");
    write_file(name, text);

    if (!strcmp(mode, "nompi") && rank_env && !strcmp(rank_env, "1"))
        return 0;
    rc = boot_init(&b);
    if (rc != UT_OK)
        return fail("boot_init", rc);
    rank = boot_rank(b);
    size = boot_size(b);
    if (!strcmp(mode, "orphan"))
        prctl(PR_SET_PDEATHSIG, 0);
    if (rank == 0 && getenv("MBMPI_STORE")) {
        snprintf(text, sizeof(text), "%s\n", getenv("MBMPI_STORE"));
        write_file("store", text);
    }

    snprintf(key, sizeof(key), "k%d", rank);
    snprintf(val, sizeof(val), "value of rank %d", rank);
    rc = boot_put(b, key, val, strlen(val) + 1);
    if (rc != UT_OK)
        return fail("boot_put", rc);
    if (!strcmp(mode, "big")) {
        fill(big, sizeof(big), rank);
        snprintf(key, sizeof(key), "big%d", rank);
        rc = boot_put(b, key, big, sizeof(big));
        if (rc != UT_OK)
            return fail("boot_put big", rc);
        if (boot_put(b, key, big, sizeof(big) + 1) != UT_ERR_INVALID_PARAM)
            return fail("boot_put of 4097 bytes (must be refused)", UT_OK);
    }
    rc = boot_fence(b);
    if (rc != UT_OK)
        return fail("boot_fence", rc);
    for (r = 0; r < size; r++) {
        char expect[64];
        snprintf(key, sizeof(key), "k%d", r);
        snprintf(expect, sizeof(expect), "value of rank %d", r);
        rc = boot_get(b, key, val, sizeof(val), &len);
        if (rc != UT_OK)
            return fail("boot_get", rc);
        if (len != strlen(expect) + 1 || strcmp(val, expect)) {
            fprintf(stderr, "boot_probe: rank %d: key %s has the wrong value\n", rank, key);
            return 4;
        }
        if (!strcmp(mode, "big")) {
            snprintf(key, sizeof(key), "big%d", r);
            rc = boot_get(b, key, got, sizeof(got), &len);
            fill(big, sizeof(big), r);
            if (rc != UT_OK || len != sizeof(big) || memcmp(got, big, sizeof(big))) {
                fprintf(stderr, "boot_probe: rank %d: big value of %d is wrong\n", rank, r);
                return 4;
            }
            rc = boot_get(b, key, got, 100, &len);
            if (rc != UT_ERR_TRUNCATED || len != sizeof(big) || memcmp(got, big, 100))
                return fail("truncated boot_get", rc);
        }
    }
    if (boot_get(b, "no-such-key", val, sizeof(val), &len) != UT_ERR_INVALID_PARAM)
        return fail("boot_get of a missing key", UT_OK);
    if (!strcmp(mode, "ok") || !strcmp(mode, "big") || !strcmp(mode, "env")) {
        /* a split fence with a get while it is open */
        int done = 0;
        rc = boot_fence_begin(b);
        if (rc != UT_OK)
            return fail("boot_fence_begin", rc);
        snprintf(key, sizeof(key), "k%d", (rank + 1) % size);
        rc = boot_get(b, key, val, sizeof(val), &len);
        if (rc != UT_OK)
            return fail("boot_get during a fence", rc);
        while (!done) {
            rc = boot_fence_test(b, &done);
            if (rc != UT_OK)
                return fail("boot_fence_test", rc);
            if (!done)
                poll(NULL, 0, 1);
        }
        rc = boot_fence(b);
        if (rc != UT_OK)
            return fail("boot_fence after a split fence", rc);
    }
    snprintf(name, sizeof(name), "ready.%d", rank);
    write_file(name, "1\n");

    if (!strcmp(mode, "env")) {
        printf("env rank=%d size=%d local_rank=%s local_size=%s host=%s all_local=%d provider=%s x=%s "
               "agent=%s\n",
               rank, size, getenv("MBMPI_LOCAL_RANK"), getenv("MBMPI_LOCAL_SIZE"), getenv("MBMPI_HOST"),
               boot_all_local(b), getenv("MBMPI_PROVIDER") ? getenv("MBMPI_PROVIDER") : "-",
               getenv("PROBE_X") ? getenv("PROBE_X") : "-",
               getenv("PROBE_AGENT_HOST") ? getenv("PROBE_AGENT_HOST") : "-");
        fflush(stdout);
    } else if (!strcmp(mode, "segv") && rank == 1) {
        raise(SIGSEGV);
    } else if (!strcmp(mode, "exit2") && rank == 1) {
        exit(2);
    } else if (!strcmp(mode, "exit0early") && rank == 1) {
        exit(0);
    } else if (!strcmp(mode, "abort")) {
        if (rank == 0)
            boot_abort(b, 7, "test");
        sleep_forever();
    } else if (!strcmp(mode, "hang") || !strcmp(mode, "orphan")) {
        sleep_forever();
    } else if (!strcmp(mode, "stubborn")) {
        signal(SIGTERM, SIG_IGN);
        snprintf(name, sizeof(name), "stubborn.%d", rank);
        write_file(name, "1\n");
        sleep_forever();
    } else if (!strcmp(mode, "exit3after")) {
        boot_finalize(b);
        return rank == 1 ? 3 : 0;
    } else if (!strcmp(mode, "finifence")) {
        if (rank != 0) {
            rc = boot_fence(b);
            return fail("boot_fence (should never complete)", rc);
        }
    } else if (!strcmp(mode, "nompi")) {
        rc = boot_fence(b);
        return fail("boot_fence (should never complete)", rc);
    } else if (!strcmp(mode, "closefd") && rank == 1) {
        int fd = find_store_socket();
        if (fd < 0 || close(fd) < 0)
            return fail("closing the store socket", UT_ERR_IO);
        sleep_forever();
    } else if (!strcmp(mode, "garbage") && rank == 1) {
        static const unsigned char junk[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        int fd = find_store_socket();
        if (fd < 0 || write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
            return fail("writing garbage", UT_ERR_IO);
        sleep_forever();
    } else if (strcmp(mode, "ok") && strcmp(mode, "big") && strcmp(mode, "segv") && strcmp(mode, "exit2") &&
               strcmp(mode, "exit0early") && strcmp(mode, "closefd") && strcmp(mode, "garbage") && strcmp(mode, "exit3after")) {
        fprintf(stderr, "boot_probe: unknown mode '%s'\n", mode);
        return 5;
    }
    if (rank == 0 && (!strcmp(mode, "segv") || !strcmp(mode, "exit2") || !strcmp(mode, "exit0early") ||
                      !strcmp(mode, "closefd") || !strcmp(mode, "garbage")))
        sleep_forever(); /* stays running: mpirun must end it */
    boot_finalize(b);
    return 0;
}
