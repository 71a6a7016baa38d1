/*
 * mpi/coll/plogp.h: the pLogP parameters of the network (not installed).
 *
 * pLogP (Kielmann et al.) describes a network by the latency L and, as
 * functions of the message size m, the send overhead o_s(m), the receive
 * overhead o_r(m) and the gap g(m) (the minimum time between two messages
 * of m bytes on one link, i.e. the inverse of the throughput). The values
 * come from a small text file written by bench/plogp:
 *
 *     # mbmpi pLogP parameters v1
 *     # provider <name>, measured <date> by bench/plogp
 *     L <microseconds>
 *     # m_bytes  os_us  or_us  g_us  [rtt_us]
 *     1 0.30 0.35 0.50 [1.2]
 *     ...                          (m strictly increasing)
 *
 * The optional fifth column, on every row or on none, is the measured
 * ping-pong round trip RTT(m): model.c takes a message's latency as the
 * larger of g(m) + L and RTT(m) / 2 (over shm a lone 1 KiB message takes
 * 0.95 us one way, while a stream of them leaves one every g = 0.26 us).
 * Two more optional columns (with the fifth, on every row or on none) are
 * what a collective's steps cost from a synchronised start, timed by
 * bench/plogp as bench/coll times collectives: OW(m), one message from
 * rank 0 to rank 1 (start to the receiver's completion), and XW(m), an
 * exchange (MPI_Sendrecv of m both ways; start to the later completion).
 * When present, model.c takes OW(m) as a message's latency and XW(m) as an
 * exchange step: a ping-pong's RTT / 2 is not what a hop costs when both
 * ranks start together (mbshm, 2026-12-02: 1 B 0.49-0.55 us against RTT /
 * 2 = 0.2; tcp;ofi_rxm, 1 MiB: 168 us against 618).
 *
 * Optional keyword lines may follow L (mbmpi extensions, defaults in
 * brackets): "contention <ratio>" [0.5], where all-to-all lies between its
 * lower (overlapped) and upper (serialised) bound (the seed's network
 * "signature"), "gamma <us per byte>" [0.0005], the local cost of
 * combining one byte in a reduction, "wake <us>" [3.3], what a hop
 * costs more per extra rank per CPU when the host runs more ranks than CPUs
 * (model.c), and "turn <us>" [1.0], the CPU time a received message costs
 * beyond o_r in that case; "xwait <factor>" [1.0], what an exchange step
 * waits for turns then, relative to a one-way message; "late <us>" [the
 * wake's], how late the last rank enters a collective then, per unit of
 * the share of ranks not on a CPU (model.c timed); and "membound <lo>
 * <hi>" [none], the message sizes (bytes) over which copies become bound
 * by the memory the CPUs share in that case (model.c timed). "cpu <model
 * name>" (the rest of the line) names the CPU the file was measured on:
 * the library picks the built-in file whose cpu line matches the host
 * (mpii_plogp_builtin_for). Lines starting with '#' are comments.
 * Between rows the functions are interpolated linearly, below the first row
 * the first row holds, above the last the last slope is extended.
 *
 * Optional "ring <m_bytes> <os_us> <or_us> <g_us> <ow_us>" lines (m
 * strictly increasing among them) give the one-way costs of large messages
 * sent through mbshm's rings (bench/plogp under MBMPI_SHM_CMA=0). With more
 * ranks than CPUs, mbshm keeps one-way writes on the rings (mpi/shm_tune.c),
 * while the main rows were measured with whatever two ranks chose, often
 * single copies; model.c then takes o_s, o_r, g and OW from these lines
 * from their first size on (mpii_plogp_apply_ring), interpolated among
 * them. Exchanges keep the main rows' XW: they are pulled either way.
 *
 * Optional "read <m_bytes> <os_us> <or_us> <g_us> <ow_us> <xw_us>" lines
 * give what a message costs that its receiver reads with one copy
 * although it would fit the eager limit: a collective's messages over
 * mbshm from MBMPI_COLL_READ_MIN on (bench/plogp with the eager limit and
 * the RTS read threshold below those sizes and no REQs). model.c prices
 * such messages by them (mpii_plogp_t.read_lo) up to their last size: o_s
 * is the main rows' o_s(0), posting the RTS; o_r, g, OW and XW come from
 * these lines.
 */
#ifndef MPI_COLL_PLOGP_H
#define MPI_COLL_PLOGP_H

#include <stddef.h>

#define MPII_PLOGP_MAX_ROWS 64

/* Default of the "wake" line: fitted from bench/coll (mbshm, 2 CPUs): a
 * Bcast of 1 B at P = 8 (4 ranks per CPU) takes 30 us binomially (3 hops)
 * against 1.4 predicted without it, i.e. about 10 us per hop = 3 x 3.3. */
#define MPII_PLOGP_WAKE_DEFAULT 3.3

typedef struct mpii_plogp {
    double L;
    double contention;
    double gamma;
    /* us per message hop and per extra rank per CPU when the host runs more
     * ranks than CPUs (model.c: oversubscription) */
    double wake;
    /* us of CPU time per message received, beyond o_r, when the host runs
     * more ranks than CPUs ("turn" line): the receiver's scheduling turn
     * (and for tcp the kernel's receive path). model.c adds it to every
     * message of its CPU-work bound, through msg_extra. */
    double turn;
    /* oversubscribed, what an exchange step waits for turns, as a multiple
     * of a one-way message's waits ("xwait" line, model.c xhop) */
    double xwait;
    /* oversubscribed, the late start of a collective, us per unit of the
     * share of ranks off a CPU ("late" line; without one, the wake) */
    double late;
    /* oversubscribed, messages from mem_lo bytes on are copies bound by the
     * memory the CPUs share: their CPU work spreads over fewer CPUs, over
     * one from mem_hi on ("membound <lo> <hi>" line; 0 0: none, model.c) */
    double mem_lo, mem_hi;
    double msg_extra; /* set by model.c (0 from the parser) */
    /* set by model.c (0 from the parser): a message's CPU work is at least
     * its synchronised one-way time (model.c msgw) */
    int ow_work;
    /* what a receiver waits, oversubscribed, for its turn: up to a whole
     * scheduling round (set by model.c from wake; 0 from the parser) */
    double wait;
    int nrows;
    double m[MPII_PLOGP_MAX_ROWS];
    double os[MPII_PLOGP_MAX_ROWS];
    double or_[MPII_PLOGP_MAX_ROWS];
    double g[MPII_PLOGP_MAX_ROWS];
    double rtt[MPII_PLOGP_MAX_ROWS]; /* when have_rtt */
    double ow[MPII_PLOGP_MAX_ROWS];  /* when have_sync */
    double xw[MPII_PLOGP_MAX_ROWS];
    int have_rtt;
    int have_sync;
    /* messages of pull_min bytes or more are copied by their receivers
     * alone (set by model.c, 0 from the parser: none): the sender's o_s is
     * that of posting one (1 B), the receiver's o_r the whole copy, priced
     * as o_s + o_r of the two copies it replaces */
    double pull_min;
    /* messages of read_min bytes or more are read whole by their
     * receivers with a single copy (set by model.c, 0: none): pulled, and
     * priced by the lines without "ring" */
    double read_min;
    int nring;    /* "ring" lines */
    int use_ring; /* price one-way messages by them (mpii_plogp_apply_ring) */
    double ring_m[MPII_PLOGP_MAX_ROWS];
    double ring_os[MPII_PLOGP_MAX_ROWS];
    double ring_or[MPII_PLOGP_MAX_ROWS];
    double ring_g[MPII_PLOGP_MAX_ROWS];
    double ring_ow[MPII_PLOGP_MAX_ROWS];
    int nread; /* "read" lines */
    double read_m[MPII_PLOGP_MAX_ROWS];
    double read_os[MPII_PLOGP_MAX_ROWS];
    double read_or[MPII_PLOGP_MAX_ROWS];
    double read_g[MPII_PLOGP_MAX_ROWS];
    double read_ow[MPII_PLOGP_MAX_ROWS];
    double read_xw[MPII_PLOGP_MAX_ROWS];
    /* messages from read_lo bytes up to the last read line are read by
     * their receivers and priced by those lines (set by model.c, 0 from
     * the parser: none) */
    double read_lo;
    char origin[256]; /* file name or "built-in shm" */
    char cpu[128];    /* "cpu" line: the CPU model it was measured on, or "" */
} mpii_plogp_t;

/* Parse the text of a parameter file. 0 on success; -1 with a message
 * ("line N: ...") in err otherwise. `origin` names the source in p. */
int mpii_plogp_parse(const char *text, const char *origin, mpii_plogp_t *p, char *err, size_t errlen);

/* Read and parse a file; 0 or -1 with a message in err. */
int mpii_plogp_load_file(const char *path, mpii_plogp_t *p, char *err, size_t errlen);

/* o_s(m), o_r(m), g(m) in microseconds for m bytes (m >= 0). */
double mpii_plogp_os(const mpii_plogp_t *p, double m);
double mpii_plogp_or(const mpii_plogp_t *p, double m);
double mpii_plogp_g(const mpii_plogp_t *p, double m);
/* One m-byte message's latency: OW(m) when the file has the ow_us column,
 * else max(g(m) + L, RTT(m) / 2), or g(m) + L without rtt_us. */
double mpii_plogp_hop(const mpii_plogp_t *p, double m);
/* XW(m), the measured exchange step (ow_us xw_us columns), or -1 without. */
double mpii_plogp_xw(const mpii_plogp_t *p, double m);

/* From now on o_s, o_r, g and the hop of m from the first "ring" size on
 * come from the ring lines (nothing changes without ring lines). */
void mpii_plogp_apply_ring(mpii_plogp_t *p);

/* The built-in parameter files (mpi/coll/plogp_defaults.c, generated from
 * mpi/coll/params/<kind>[-<cpu>].plogp), ended by {NULL, NULL, NULL}. */
typedef struct mpii_plogp_builtin {
    const char *kind; /* "shm" or "tcp" */
    const char *name; /* the file's name under mpi/coll/params */
    const char *text;
} mpii_plogp_builtin_t;
extern const mpii_plogp_builtin_t mpii_plogp_builtins[];

/* The built-in file of `kind` measured on this host's CPU model (its
 * "cpu" line equals /proc/cpuinfo's "model name"), else the first one of
 * that kind without a "cpu" line; NULL if there is none. */
const mpii_plogp_builtin_t *mpii_plogp_builtin_for(const char *kind, const char *cpu_model);
/* This host's CPU model name ("" where /proc/cpuinfo does not tell). */
void mpii_plogp_host_cpu(char *buf, size_t len);

#endif
