/*
 * bench/mbcf_lat.c: ping-pong latency of the layers under MPI (the idea of
 * UCX's perftest): the same round trip as bench/rtt, but through mbcf/ and
 * transport/ directly, so the cost of each layer is visible.
 *
 * Four tests between ranks 0 and 1 (launched by bin/mpirun), for every size
 * (0 and the powers of two up to 64 KiB by default):
 *   fifo     mbcf_fifo_send() of the payload (16-byte mbcf header + n bytes,
 *            FIFO credits, per-peer sequence numbers); the receive handler
 *            copies the payload out of the FIFO, as the eager protocol does;
 *   write    mbcf_write() of n bytes into the buffer the peer exposed
 *            (mbcf_expose(), descriptors exchanged through the store), with
 *            a notify word; the peer's notify handler sees it land: the
 *            write protocol's data path without REQ and matching;
 *   tl-send  the transport's send (tl_ofi_ops: fi_inject / fi_sendv into
 *            the peer's FI_MULTI_RECV FIFO) with no mbcf header, credits or
 *            ordering; the receiver copies the payload out. Not at 0 B: the
 *            transport does not deliver empty FIFO messages;
 *   tl-write the transport's write with notification (fi_inject_writedata /
 *            fi_writedata), no mbcf bookkeeping.
 * A round trip: rank 0 sends n bytes, rank 1 waits for them and sends n
 * bytes back; both poll progress (mbcf_progress, or the transport's
 * progress for tl-*); after MBMPI_SPIN (200) idle polls in a row a rank
 * yields the CPU, as the runtime does (a negative value never yields). A
 * rank waits for its own send to complete locally before the next one (the
 * op is reused), as MPI_Send would. After a warm-up, `iters` round trips
 * are timed, `reps` times; reported: the median half round trip in
 * microseconds (the CSV also has the minimum).
 *
 * At the end of each test and size both ranks check the received bytes (and
 * the FIFO message length) against the peer's fill pattern, which changes
 * with test and size, and end the job on a mismatch; any error from the
 * layers ends the job too (boot_abort: mpirun reports it).
 *
 * Provider: MBMPI_PROVIDER (set by mpirun --provider): mbshm, shm, tcp, sockets,
 * ...; auto or unset = mbshm when both ranks are on this host, else
 * tcp;ofi_rxm (as MPI_Init chooses).
 *
 * build: cc -O2 -I. -Impi/include bench/mbcf_lat.c -Llib -lmpi -lpthread -lm
 * usage: mpirun -n 2 [--provider P] mbcf_lat [-i SCALE] [-r REPS] [-m MAX] [-s LIST]
 *                                            [-t TESTS] [--csv FILE]
 *   -i SCALE  multiply the iteration counts (default 1.0; 10000 round trips
 *             up to 8 KiB, then fewer, at least 20)
 *   -r REPS   repetitions per size (default 5)
 *   -m MAX    largest size in bytes (default 64K; K and M suffixes allowed;
 *             at most 1M)
 *   -s LIST   explicit sizes, comma separated (e.g. 0,8,1K,64K)
 *   -t TESTS  tests to run, comma separated (default fifo,write,tl-send,tl-write)
 *   --csv F   also write the table to F as CSV
 */
#define _POSIX_C_SOURCE 200809L
#include "mbcf/mbcf.h"
#include "transport/boot.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define MAX_SIZES 64
#define LAT_TYPE 1 /* mbcf handler type of the ping-pong messages */

enum { T_FIFO, T_WRITE, T_TLSEND, T_TLWRITE, NTESTS };
static const char *const test_names[NTESTS] = {"fifo", "write", "tl-send", "tl-write"};

/* ---------------------------------------------------------------- state */

static boot_t *boot;
static mbcf_t *mbcf;
static tl_t *tl;
static tl_callbacks_t mbcf_cb; /* mbcf's own transport callbacks */
static int rank, peer;
static int raw_mode;           /* tl-* tests: transport callbacks come to us */

static char *rbuf;             /* exposed receive buffer (also the FIFO copy-out target) */
static char *sbuf;
static tl_rkey_t peer_desc;    /* the peer's rbuf */

static volatile unsigned long got;   /* messages / notifications received in this test */
static size_t got_len;               /* length of the last FIFO message */
static int send_busy;                /* our op is still in flight */
static int send_status = UT_OK;
static mbcf_op_t op;                 /* mbcf op (fifo, write) */
static _Alignas(TL_OP_CTX_ALIGN) char raw_ctx[TL_OP_CTX_SIZE]; /* transport op context (tl-*) */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "mbcf_lat: rank %d: %s\n", rank, msg);
    if (boot)
        boot_abort(boot, 1, msg);
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ callbacks */

/* mbcf handler of LAT_TYPE: copy the payload out, as the eager path does */
static void on_fifo(void *arg, int src, const void *msg, size_t len)
{
    (void)arg;
    (void)src;
    memcpy(rbuf, msg, len);
    got_len = len;
    got++;
}

static void on_notify(void *arg, uint32_t data)
{
    (void)arg;
    (void)data;
    got++;
}

static void on_op_done(mbcf_op_t *o, int status)
{
    (void)o;
    send_busy = 0;
    send_status = status;
}

/* The transport's callbacks go through here: in raw mode, our messages and
 * notifications are ours; anything that is an mbcf message (a CREDIT
 * header still in flight from the mbcf tests: raw payloads never start with
 * MBCF_VERSION) and every completion of an mbcf op goes to mbcf. */
static void wrap_recv(void *arg, const void *buf, size_t len)
{
    (void)arg;
    if (raw_mode && (len < sizeof(mbcf_hdr_t) || ((const unsigned char *)buf)[0] != MBCF_VERSION)) {
        memcpy(rbuf, buf, len);
        got_len = len;
        got++;
        return;
    }
    mbcf_cb.recv(mbcf_cb.arg, buf, len);
}

static void wrap_notify(void *arg, uint32_t data)
{
    (void)arg;
    if (raw_mode) {
        got++;
        return;
    }
    mbcf_cb.notify(mbcf_cb.arg, data);
}

static void wrap_tx_done(void *arg, void *op_ctx, int status)
{
    (void)arg;
    if (op_ctx == raw_ctx) {
        send_busy = 0;
        send_status = status;
        return;
    }
    mbcf_cb.tx_done(mbcf_cb.arg, op_ctx, status);
}

/* ------------------------------------------------------------- helpers */

/* A job-wide fence that keeps the network moving while it waits. */
static void fence(void)
{
    int done = 0, rc = boot_fence_begin(boot);

    while (rc == UT_OK && !done) {
        mbcf_progress(mbcf);
        rc = boot_fence_test(boot, &done);
    }
    if (rc != UT_OK)
        die("fence: %s", ut_status_str(rc));
}

/* Fill byte of `r`'s sends in test t at the k-th size: never 0 nor
 * MBCF_VERSION (1), so a raw message never looks like an mbcf header. */
static unsigned char pattern(int k, int t, int r)
{
    return (unsigned char)(2 + ((k * NTESTS + t) * 2 + r) % 250);
}

static void send_one(int t, size_t n, unsigned long i)
{
    int rc;

    if (send_busy)
        die("internal: send while the previous one is in flight");
    for (;;) {
        send_busy = 1;
        switch (t) {
        case T_FIFO:
            rc = mbcf_fifo_send(mbcf, peer, LAT_TYPE, NULL, 0, sbuf, n, &op);
            break;
        case T_WRITE:
            rc = mbcf_write(mbcf, peer, sbuf, n, &peer_desc, 0, 0, 1, (uint32_t)i, &op);
            break;
        case T_TLSEND: {
            struct iovec iov = {.iov_base = sbuf, .iov_len = n};
            rc = tl_send(tl, peer, &iov, 1, raw_ctx);
            break;
        }
        default:
            rc = tl_write(tl, peer, sbuf, n, &peer_desc, 0, 1, (uint32_t)i, raw_ctx);
            break;
        }
        if (rc == UT_OK)
            send_busy = 0;
        if (rc != UT_ERR_NO_RESOURCE)
            break;
        /* only the transport calls return this (mbcf queues the op):
         * the first send to a peer may, until the peer progresses */
        send_busy = 0;
        tl_progress(tl);
    }
    if (rc != UT_OK && rc != UT_INPROGRESS)
        die("%s of %zu bytes: %s", test_names[t], n, ut_status_str(rc));
}

/* Progress until `target` messages arrived and our own send completed;
 * after `spin` polls in a row that found nothing, yield the CPU (as the
 * runtime does, MBMPI_SPIN), so that on a busy or oversubscribed host a
 * spinning rank does not keep its peer (or the kernel's network work) off
 * the CPU for a whole time slice. */
static long spin = 200;

static void wait_for(int t, unsigned long target)
{
    long idle = 0;
    int raw = t == T_TLSEND || t == T_TLWRITE;

    while (got < target || send_busy) {
        int n = raw ? tl_progress(tl) : mbcf_progress(mbcf);
        if (n > 0) {
            idle = 0;
        } else if (spin >= 0 && ++idle > spin) {
            sched_yield();
            idle = 0;
        }
    }
    if (send_status != UT_OK)
        die("%s: send completed with %s", test_names[t], ut_status_str(send_status));
}

static long iterations(long size, double scale)
{
    long it = size <= 8192 ? 10000 : (long)(10000.0 * 8192.0 / (double)size);
    if (it < 20)
        it = 20;
    it = (long)(it * scale);
    return it < 1 ? 1 : it;
}

static void usage(void)
{
    fprintf(stderr, "usage: mbcf_lat [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [-t fifo,write,tl-send,tl-write] "
                    "[--csv FILE]\n");
}

/* ------------------------------------------------- transport and mbcf */

/* The address exchange of mpi/init.c transport_open(). */
static void open_layers(size_t maxn)
{
    tl_params_t tp = {0};
    tl_callbacks_t cb;
    mbcf_params_t mp = {0};
    char key[32], *addrs = NULL, name[256], info[128], other[128];
    size_t len = sizeof(name), alen = 0, olen;
    const char *prov = getenv("MBMPI_PROVIDER"), *fifo_mode = getenv("MBMPI_FIFO_MODE");
    int rc, i, size = boot_size(boot);

    if (!prov || !*prov || !strcmp(prov, "auto"))
        prov = boot_all_local(boot) ? "mbshm" : "tcp;ofi_rxm";
    mp.rank = rank;
    mp.size = size;
    mp.credits = 262144;
    rc = mbcf_create(&mp, &mbcf);
    if (rc != UT_OK)
        die("mbcf_create: %s", ut_status_str(rc));
    mbcf_tl_callbacks(mbcf, &mbcf_cb);
    cb.recv = wrap_recv;
    cb.notify = wrap_notify;
    cb.tx_done = wrap_tx_done;
    cb.arg = NULL;
    tp.rank = rank;
    tp.size = size;
    tp.provider = prov;
    tp.min_fifo_free = maxn + 256; /* the largest FIFO message: 16-byte header + maxn */
    tp.fifo_buf_size = 1 << 20;
    if (tp.fifo_buf_size < 4 * tp.min_fifo_free)
        tp.fifo_buf_size = 4 * tp.min_fifo_free;
    tp.fifo_buf_count = 8;
    tp.fifo_mode = fifo_mode && *fifo_mode && strcmp(fifo_mode, "auto") ? fifo_mode : NULL;
    /* mbshm is mbmpi's own shared-memory transport; the rest is libfabric */
    rc = (strcmp(prov, "mbshm") ? &tl_ofi_ops : &tl_shmem_ops)->open(&tp, &cb, &tl);
    if (rc != UT_OK)
        die("opening the transport (provider %s): %s", prov, ut_status_str(rc));
    mbcf_attach(mbcf, tl);

    rc = tl_get_addr(tl, name, &len);
    if (rc != UT_OK)
        die("get_addr: %s", ut_status_str(rc));
    snprintf(key, sizeof(key), "addr.%d", rank);
    rc = boot_put(boot, key, name, len);
    if (rc != UT_OK)
        die("boot_put: %s", ut_status_str(rc));
    snprintf(info, sizeof(info), "%s %u.%u", tl->caps.name, tl->caps.version >> 16, tl->caps.version & 0xffff);
    snprintf(key, sizeof(key), "prov.%d", rank);
    rc = boot_put(boot, key, info, strlen(info) + 1);
    if (rc == UT_OK)
        rc = boot_fence(boot);
    if (rc != UT_OK)
        die("boot_put/fence: %s", ut_status_str(rc));
    for (i = 0; i < size; i++) {
        snprintf(key, sizeof(key), "prov.%d", i);
        rc = boot_get(boot, key, other, sizeof(other), &olen);
        if (rc != UT_OK)
            die("boot_get(%s): %s", key, ut_status_str(rc));
        other[sizeof(other) - 1] = 0;
        if (strcmp(other, info))
            die("rank %d uses provider \"%s\", rank %d \"%s\"", rank, info, i, other);
        snprintf(key, sizeof(key), "addr.%d", i);
        if (!addrs) {
            alen = len;
            addrs = calloc((size_t)size, alen);
            if (!addrs)
                die("out of memory");
        }
        rc = boot_get(boot, key, addrs + (size_t)i * alen, alen, &olen);
        if (rc != UT_OK || olen != alen)
            die("boot_get(%s): %s", key, rc != UT_OK ? ut_status_str(rc) : "address length differs");
    }
    rc = tl_connect(tl, addrs, alen);
    free(addrs);
    if (rc != UT_OK)
        die("connect: %s", ut_status_str(rc));
    mbcf_set_handler(mbcf, LAT_TYPE, on_fifo, NULL);
    mbcf_set_notify_handler(mbcf, on_notify, NULL);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    double scale = 1.0;
    int reps = 5, rc;
    long maxsize = 64 * 1024;
    long sizes[MAX_SIZES];
    int nsizes = 0, explicit_sizes = 0, bad = 0, want[NTESTS] = {1, 1, 1, 1};
    const char *csv = NULL;

    ut_log_init();
    if (getenv("MBMPI_SPIN") && *getenv("MBMPI_SPIN"))
        spin = atol(getenv("MBMPI_SPIN"));
    for (int a = 1; a < argc && !bad; a++) {
        if (!strcmp(argv[a], "-i") && a + 1 < argc) {
            scale = atof(argv[++a]);
            bad = scale <= 0;
        } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
            reps = atoi(argv[++a]);
            bad = reps < 1 || reps > 1000;
        } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
            maxsize = parse_size(argv[++a]);
            bad = maxsize < 0 || maxsize > (1L << 20);
        } else if (!strcmp(argv[a], "-s") && a + 1 < argc) {
            char *list = strdup(argv[++a]), *save = NULL;
            explicit_sizes = 1;
            for (char *t = strtok_r(list, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                long v = parse_size(t);
                if (v < 0 || v > (1L << 20) || nsizes == MAX_SIZES)
                    bad = 1;
                else
                    sizes[nsizes++] = v;
            }
            free(list);
        } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
            char *list = strdup(argv[++a]), *save = NULL;
            memset(want, 0, sizeof(want));
            for (char *t = strtok_r(list, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                int k;
                for (k = 0; k < NTESTS && strcmp(t, test_names[k]); k++)
                    ;
                if (k == NTESTS)
                    bad = 1;
                else
                    want[k] = 1;
            }
            free(list);
        } else if (!strcmp(argv[a], "--csv") && a + 1 < argc) {
            csv = argv[++a];
        } else {
            bad = 1;
        }
    }

    rc = boot_init(&boot);
    if (rc != UT_OK) {
        fprintf(stderr, "mbcf_lat: bootstrap: %s (start it with bin/mpirun -n 2)\n", ut_status_str(rc));
        return 1;
    }
    rank = boot_rank(boot);
    if (bad || boot_size(boot) != 2) {
        if (rank == 0) {
            if (boot_size(boot) != 2)
                fprintf(stderr, "mbcf_lat: needs exactly 2 ranks (bin/mpirun -n 2)\n");
            usage();
        }
        boot_finalize(boot);
        return 2;
    }
    peer = 1 - rank;
    if (!explicit_sizes) {
        sizes[nsizes++] = 0;
        for (long s = 1; s <= maxsize && nsizes < MAX_SIZES; s *= 2)
            sizes[nsizes++] = s;
    }
    size_t maxn = 64;
    for (int k = 0; k < nsizes; k++)
        if ((size_t)sizes[k] > maxn)
            maxn = (size_t)sizes[k];
    if (posix_memalign((void **)&rbuf, 4096, maxn) || posix_memalign((void **)&sbuf, 4096, maxn))
        die("cannot allocate 2 x %zu bytes", maxn);
    memset(rbuf, 0, maxn);
    memset(sbuf, 0, maxn);

    open_layers(maxn);
    if (maxn > mbcf_fifo_max(mbcf))
        die("largest FIFO message of %s is %zu bytes, below %zu", tl->caps.name, mbcf_fifo_max(mbcf), maxn);

    /* expose rbuf and swap descriptors through the store */
    mbcf_region_t region = {0};
    char key[32];
    size_t olen;
    rc = mbcf_expose(mbcf, rbuf, maxn, &region);
    if (rc != UT_OK)
        die("mbcf_expose: %s", ut_status_str(rc));
    snprintf(key, sizeof(key), "lat.desc.%d", rank);
    rc = boot_put(boot, key, &region.desc, sizeof(region.desc));
    if (rc == UT_OK)
        rc = boot_fence(boot);
    snprintf(key, sizeof(key), "lat.desc.%d", peer);
    if (rc == UT_OK)
        rc = boot_get(boot, key, &peer_desc, sizeof(peer_desc), &olen);
    if (rc != UT_OK || olen != sizeof(peer_desc))
        die("descriptor exchange: %s", rc != UT_OK ? ut_status_str(rc) : "bad length");
    op.cb = on_op_done;

    FILE *cf = NULL;
    if (rank == 0) {
        printf("# mbmpi mbcf_lat: raw layers under MPI, provider %s %u.%u, 2 ranks, ping-pong\n", tl->caps.name,
               tl->caps.version >> 16, tl->caps.version & 0xffff);
        printf("# fifo = mbcf_fifo_send (16 B header + payload), write = mbcf_write + notify,\n"
               "# tl-send / tl-write = the transport's send / write+notify without mbcf; "
               "median half round trip over %d reps\n",
               reps);
        printf("# Size  fifo-half-rtt(us)  write-half-rtt(us)  tl-send-half-rtt(us)  tl-write-half-rtt(us)\n");
        fflush(stdout);
        if (csv) {
            cf = fopen(csv, "w");
            if (!cf)
                die("cannot open %s", csv);
            fprintf(cf, "size,fifo_half_rtt_us,write_half_rtt_us,tl_send_half_rtt_us,tl_write_half_rtt_us,"
                        "fifo_min_us,write_min_us,tl_send_min_us,tl_write_min_us\n");
        }
    }

    double *half = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < nsizes; k++) {
        size_t n = (size_t)sizes[k];
        long iters = iterations((long)n, scale), warm = iters / 10 > 2 ? iters / 10 : 2;
        double med[NTESTS], mn[NTESTS];
        int ran[NTESTS] = {0};

        for (int t = 0; t < NTESTS; t++) {
            if (!want[t] || (t == T_TLSEND && n == 0))
                continue;
            raw_mode = t == T_TLSEND || t == T_TLWRITE;
            memset(sbuf, pattern(k, t, rank), n);
            got = 0;
            got_len = (size_t)-1;
            fence(); /* the peer has reset its counters too */
            unsigned long cnt = 0;
            for (int r = 0; r < reps; r++) {
                double t0 = 0;
                for (long i = 0; i < warm + iters; i++) {
                    if (i == warm)
                        t0 = now();
                    if (rank == 0) {
                        send_one(t, n, cnt);
                        wait_for(t, ++cnt);
                    } else {
                        wait_for(t, ++cnt);
                        send_one(t, n, cnt);
                    }
                }
                wait_for(t, cnt); /* our last send completed */
                half[r] = (now() - t0) / (double)iters / 2.0 * 1e6;
            }
            fence(); /* nothing of this test is in flight to us any more */
            /* check what arrived last */
            unsigned char pat = pattern(k, t, peer);
            if (got != cnt)
                die("%s, %zu bytes: %lu messages arrived, %lu expected", test_names[t], n, got, cnt);
            if ((t == T_FIFO || t == T_TLSEND) && got_len != n)
                die("%s: DATA ERROR: a message of %zu bytes arrived, %zu expected", test_names[t], got_len, n);
            for (size_t b = 0; b < n; b++)
                if ((unsigned char)rbuf[b] != pat)
                    die("%s, %zu bytes: DATA ERROR at byte %zu: %u, expected %u", test_names[t], n, b,
                        (unsigned char)rbuf[b], pat);
            raw_mode = 0;
            mn[t] = half[0];
            for (int r = 1; r < reps; r++)
                mn[t] = half[r] < mn[t] ? half[r] : mn[t];
            med[t] = median(half, reps);
            ran[t] = 1;
        }
        if (rank == 0) {
            printf("%-10zu", n);
            for (int t = 0; t < NTESTS; t++)
                if (ran[t])
                    printf(" %14.2f", med[t]);
                else
                    printf(" %14s", "-");
            printf("\n");
            fflush(stdout);
            if (cf) {
                fprintf(cf, "%zu", n);
                for (int t = 0; t < NTESTS; t++)
                    ran[t] ? fprintf(cf, ",%.3f", med[t]) : fprintf(cf, ",");
                for (int t = 0; t < NTESTS; t++)
                    ran[t] ? fprintf(cf, ",%.3f", mn[t]) : fprintf(cf, ",");
                fprintf(cf, "\n");
            }
        }
    }
    if (cf)
        fclose(cf);
    free(half);

    /* as MPI_Finalize: nobody closes while the peer may still need it */
    fence();
    mbcf_revoke(mbcf, &region);
    mbcf_destroy(mbcf);
    tl_close(tl);
    boot_finalize(boot);
    free(rbuf);
    free(sbuf);
    return 0;
}
