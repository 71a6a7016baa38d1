/*
 * mpi/coll/model.c: the pLogP cost of every collective algorithm and the
 * model-based selection (model.h).
 *
 * Notation: P ranks, m bytes (per rank as MPIX_Coll_predict defines it: the
 * whole buffer for bcast/reduce/allreduce/scan, one rank's block for
 * scatter/gather/allgather/reduce_scatter, one destination's block for
 * alltoall), L latency, g(m), o_s(m), o_r(m) the pLogP functions, s the
 * segment size and k = ceil(m / s) the segment count, gamma the local cost
 * of combining one byte, c the all-to-all contention ratio. The formula of
 * each algorithm is repeated, with its derivation, at the top of its file.
 */
#include "model.h"
#include "coll_more.h"
#include "transport/transport.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

const char *mpii_coll_cfg_algo[MPII_COLL_OP_COUNT];
const char *mpii_coll_cfg_plogp_file;
long mpii_coll_cfg_verbose;

static mpii_plogp_t model;
static int forced[MPII_COLL_OP_COUNT];
/*
 * More ranks of this host than CPUs: a pipeline's stages cannot run at the
 * same time, and every segment costs each rank on the way a wake-up (a
 * scheduling round) that pLogP does not count. Measured with bench/coll at
 * P = 8 on 2 CPUs (mbshm, 1 MiB Bcast): chain 3108 us with 64 KiB segments
 * against 687-804 for flat, binomial and unsegmented trees. So when the
 * communicator's ranks outnumber the CPUs, segmented algorithms are
 * evaluated unsegmented only (s = m).
 */
static int host_ranks = 1, host_cpus = 1;
/* every rank of the job on one host (the most loaded host holds them all) */
static int single_host;
/*
 * Oversubscribed, a message is not received until its receiver's turn on
 * a CPU comes: the other ranks there each poll and yield first (the wait
 * policy of mpi/p2p.c), a scheduling round of W = wake x (ranks per CPU -
 * 1). A message arrives at a random point of its receiver's round, so one
 * receiver waits W / 2 on average, and the last of n receivers served at
 * once (a fan-out) about W n / (n + 1), the expected maximum of n uniform
 * waits. eval() prices algorithms with that (over_model.wait = W): a chain
 * pays W / 2 per hop, a flat tree W (P - 1) / P once, a binomial tree the
 * fan-out of every level on its critical path. Measured at P = 6 on 2
 * CPUs (mbshm, 1 B Bcast): flat 8 us, chain 15 (3 per hop), binomial 10.6;
 * pricing every hop at a whole W had predicted 35 for the chain and 21 for
 * the binomial tree.
 */
static mpii_plogp_t over_model;
/* over_model without the turns: the data-moving part of the CPU work */
static mpii_plogp_t over_data;
static int oversubscribed;
/* the transport is mbshm, whose rings the file's "ring" lines describe */
static int on_mbshm;
/*
 * Oversubscribed over mbshm, a Bcast's messages of TL_SHM_FANOUT_MIN bytes
 * or more are copied by their receivers alone (TL_SHM_FANOUT,
 * mpii_coll_set_fanout_reads): the sender only posts them, so a flat tree's
 * root is not the bottleneck it is through the rings. over_fanout prices
 * the Bcast algorithms (A_FANOUT) that way: o_s of posting, o_r of the
 * whole copy (the two ring copies' o_s + o_r together; the CPU-work bound
 * is unchanged). bench/coll at P = 8 on 2 CPUs (2026-12-04, synchronised):
 * Bcast of 512 KiB flat 298 us, binomial 401, bintree 423 (ring pricing
 * had chosen bintree, predicted 226 against flat's 228); window mode
 * (--osu --sync window): 1 MiB flat 371, binomial 574, bintree 684.
 */
static int fanout_reads;
/* mpii_coll_set_rendezvous_reads */
static double rendezvous_reads;
static mpii_plogp_t over_fanout, over_fanout_data;
/*
 * mpii_coll_set_collective_reads: a Bcast's, a flat Scatter's or Gather's
 * and an exchange's messages from coll_reads bytes on are read by their
 * receivers (MBMPI_COLL_READ_MIN, p2p.c), eager sizes included. The
 * algorithms made of such messages only (A_READ) are priced by the file's
 * "read" lines there: the *_rd copies of the parameter sets above.
 */
static double coll_reads;
/* mpii_coll_set_eager_limit (the library's default until told) */
static double eager_max = 16384.0;
static mpii_plogp_t model_rd, over_model_rd, over_data_rd, over_fanout_rd, over_fanout_data_rd;

static void set_over_model(void)
{
    double k = host_cpus > 0 ? (double)host_ranks / host_cpus : 1.0;

    oversubscribed = k > 1.0;
    over_model = model;
    if (oversubscribed) {
        /* mbshm then sends one-way writes through its rings (mpi/shm_tune.c):
         * their "ring" lines, 1.4-2.5x the single copies' costs from 256 KiB
         * to 1 MiB (2026-12-03); the same sweep's big messages at P = 4 and
         * 8 had been predicted 20 and 45 % short (median) */
        if (on_mbshm)
            mpii_plogp_apply_ring(&over_model);
        /* ... but a rendezvous message (above the eager limit) is read
         * whole by its receiver then (tl_shmem_set_read_all: one single
         * copy, MPIX_Stat_get("rts_reads")), so it is priced by the
         * lines without "ring", as pulled (2026-12-06, Xeon host, 8 ranks
         * on 2 CPUs: a binomial Bcast of 64 KiB measured 29-31 us, priced
         * 65 through the rings; the pick was scatter + allgather, 62-73
         * us, against Open MPI's 34). Re-predicting two sweeps (P = 2-8,
         * 176 points each), with the file's membound: within 10 % of the
         * fastest at 160 and 166 points against 160 and 160, median
         * error 13.2 and 12.5 % against 13.2 and 12.6. */
        if (on_mbshm)
            over_model.read_min = rendezvous_reads;
        over_model.wait = model.wake * (k - 1.0);
        over_model.msg_extra = model.turn;
    }
    /* one host over a network provider: the whole of a message's
     * one-way time is CPU work (msgw) */
    over_model.ow_work = oversubscribed && !on_mbshm && single_host;
    over_data = over_model;
    over_data.msg_extra = 0.0;
    over_fanout = over_model;
    over_fanout.pull_min = fanout_reads && oversubscribed && on_mbshm ? (double)TL_SHM_FANOUT_MIN : 0.0;
    over_fanout_data = over_fanout;
    over_fanout_data.msg_extra = 0.0;
    model_rd = model;
    over_model_rd = over_model;
    over_data_rd = over_data;
    over_fanout_rd = over_fanout;
    over_fanout_data_rd = over_fanout_data;
    model_rd.read_lo = over_model_rd.read_lo = over_data_rd.read_lo = over_fanout_rd.read_lo =
        over_fanout_data_rd.read_lo = on_mbshm ? coll_reads : 0.0;
}
/* bumped by every force: cached choices made before are stale */
static unsigned generation = 1;

/* ------------------------------------------------------------------ */
/* cost helpers                                                        */

#define G(x) mpii_plogp_g(pp, (x))
#define OS(x) mpii_plogp_os(pp, (x))
#define OR(x) mpii_plogp_or(pp, (x))
#define LAT (pp->L)
/*
 * An exchange step: every rank sends m to one partner and receives m from
 * another at the same time (MPI_Sendrecv), as in recursive doubling or
 * halving, rings, pairwise exchange, Bruck and dissemination. pLogP's g(m)
 * is the gap of a one-way stream, where the sender's CPU copies in and the
 * receiver's copies out; in an exchange each CPU does both, o_s(m) + o_r(m),
 * which is the larger of the two from 32 KiB on over shm (512 KiB: 92 us
 * against 49). A step costs L + x(m).
 */
#define XCH(x) xch(pp, (x))
/*
 * A message on the critical path costs HOP(m) = max(g(m) + L, RTT(m)/2)
 * (mpii_plogp_hop): pLogP's g(m) + L, unless the measured ping-pong says a
 * lone message takes longer, as it does over shm for small m (1 KiB: 0.95
 * us one way against g + L = 0.48); an exchange step costs XHOP(m) =
 * max(x(m) + L, HOP(m)). Where the parameter file has the ow_us and xw_us
 * columns (bench/plogp since 2026-12-02), HOP(m) = OW(m) and XHOP(m) =
 * XW(m), the times of one message and of one exchange from a synchronised
 * start, which is how a collective's ranks enter: re-predicting the same
 * bench/coll sweep (P = 2..8, 3 rounds) with them took the median error
 * from 33 % to 16 % over tcp;ofi_rxm and from 33 % to 25 % over mbshm.
 * Messages that follow one another from the same sender add g(m) each.
 */
#define HOP(x) (mpii_plogp_hop(pp, (x)) + waits(pp, 1))
#define XHOP(x) xhop(pp, (x))

/* oversubscribed: the expected wait of the last of n receivers (see
 * set_over_model); 0 otherwise */
static double waits(const mpii_plogp_t *pp, int n)
{
    return n > 0 ? pp->wait * n / (n + 1.0) : 0.0;
}

/* The same for an exchange step's waits: the file's xwait times a one-way
 * message's. Fitted: in the calibrated sweep of 2026-12-04 19:07 UTC (P =
 * 4..8 on 2 CPUs, 1 B-16 KiB) exchange algorithms (recursive doubling,
 * Rabenseifner, ring, pairwise, Bruck) were predicted 1.3-1.6x their
 * measured time over mbshm and one-way trees 0.7-0.9x (the partner of an
 * exchange is often already running, waiting in its own step), while over
 * tcp;ofi_rxm exchanges were short (Alltoall at P = 6 and 8: 0.5-0.8x).
 * With membound (timed), xwait 0.7 (mbshm) and 1.3 (tcp;ofi_rxm) took
 * that sweep's median error from 18.3 to 16.0 %, and an earlier one's
 * (18:04 UTC) from 18.7 to 16.6 %; the pick within 10 % of the fastest at
 * 87.9 and 89.1 % of the points against 88.7 and 88.9 %. */
static double waits_x(const mpii_plogp_t *pp, int n)
{
    return pp->xwait * waits(pp, n);
}

static double xch(const mpii_plogp_t *pp, double m)
{
    double g = G(m), cpu = OS(m) + OR(m);
    return g > cpu ? g : cpu;
}

/* oversubscribed, an exchange step waits twice: for the partner's turn
 * (its message), and for its own next turn once that message is there */
/* xhop with its waits scaled by f (xhop: the file's xwait) */
static double xhop_f(const mpii_plogp_t *pp, double m, double f)
{
    double xw = mpii_plogp_xw(pp, m), x, h;
    if (xw >= 0.0) /* measured (the file's xw_us column) */
        return xw + 2.0 * f * waits(pp, 1);
    x = XCH(m) + LAT;
    h = mpii_plogp_hop(pp, m);
    return (x > h ? x : h) + 2.0 * f * waits(pp, 1);
}

static double xhop(const mpii_plogp_t *pp, double m)
{
    return xhop_f(pp, m, pp->xwait);
}

/*
 * An exchange step whose start waits for n ranks (oversubscribed): where
 * the partner changes every step (recursive doubling, Bruck,
 * dissemination), step j's partner is only ready once the 2^j ranks whose
 * data it carries by then have had their turns, so the step waits for the
 * last of n = 2^j ranks (waits(n), n at most P), not of one; pairwise exchanges and
 * rings meet the same neighbours every step and fall into lockstep. The
 * 2026-12-03 sweeps (P = 2..8 on 2 CPUs) had recursive doubling 15-38 %
 * short over tcp;ofi_rxm at P = 8 and Bruck 24-34 %, pairwise and rotated
 * 5-18 %; re-scoring four sweeps, the pick was within 10 % of the fastest
 * at 91.5, 91.2, 93.6, 92.0 % of the points against 90.1, 89.8, 92.4,
 * 89.8, median error unchanged (11.5-14.1 %). Applied to Rabenseifner's
 * halving and doubling as well, it scored 0-1 point lower: left out there.
 */
static double xhop_dep_f(const mpii_plogp_t *pp, double m, int n, int P, double f)
{
    return xhop_f(pp, m, f) + f * (waits(pp, n < P ? n : P) - waits(pp, 1));
}

static double xhop_dep(const mpii_plogp_t *pp, double m, int n, int P)
{
    return xhop_dep_f(pp, m, n, P, pp->xwait);
}

/*
 * The gap between back-to-back sends of m to different receivers (flat
 * and binomial fan-outs): pLogP's g(m) is measured by a stream to one
 * receiver, which over shared memory paces the sender by that receiver's
 * copy-out; receivers that differ copy out on their own, and the sender
 * is held by its own o_s(m) only. Oversubscribed mbshm sends through its
 * rings, where o_s(64 KiB) = 8.8 us against g = 12.5: a flat 64 KiB-1 MiB
 * Bcast at P = 4 was predicted 13-60 % above the measured time (and lost
 * to binomial trees that were 10-20 % slower). With min(o_s, g), the same
 * four sweeps scored 93.5, 92.3, 94.7, 93.2 % (median error 11.4-13.8 %).
 */
static double spread(const mpii_plogp_t *pp, double m)
{
    double g = G(m), o = OS(m);
    return o < g ? o : g;
}

/*
 * Oversubscribed, the waits of a fan-out's receivers: message j (of n,
 * sent s apart) arrives (n - 1 - j) s before the last, and its receiver
 * then waits for its own turn, uniform over the round W (set_over_model).
 * What the last receiver to finish adds to the last arrival is the
 * expected maximum over j of W U_j - (n - 1 - j) s, U_j uniform in [0, 1]:
 * integral over u in [0, W] of 1 - prod_i min(1, (u + i s) / W). With s =
 * 0 it is the expected maximum of n waits, W n / (n + 1) (what every fan
 * was priced with before); once s reaches W, the last receiver's own W /
 * 2. The turns of the first receivers pass while the sender still sends:
 * bench/coll over tcp;ofi_rxm on 2 CPUs (2026-12-06), a flat Bcast of 1
 * B-16 KiB at P = 4 / 6 / 8 measured 12-16 / 21-30 / 27-44 us and was
 * predicted 18-34 / 34-52 / 42-78 with W n / (n + 1), while the binomial
 * trees (where each node sends to few) were predicted within 10 %.
 */
static double fan_waits(const mpii_plogp_t *pp, int n, double s)
{
    double w = pp->wait, sum = 0.0;
    const int steps = 256; /* Simpson's rule on [0, W] (the kinks: error < 1e-3 W) */

    if (n <= 0 || w <= 0.0)
        return 0.0;
    if (s <= 0.0)
        return waits(pp, n);
    for (int k = 0; k <= steps; k++) {
        double u = w * k / steps, prod = 1.0;
        for (int i = 0; i < n && i * s < w; i++)
            prod *= (u + i * s) / w < 1.0 ? (u + i * s) / w : 1.0;
        sum += (k == 0 || k == steps ? 1.0 : k % 2 ? 4.0 : 2.0) * (1.0 - prod);
    }
    return sum * w / (3.0 * steps);
}

/* n messages of m bytes from one sender to n receivers, back to back: the
 * last arrives after (n - 1) spread(m) + HOP(m) (oversubscribed: plus the
 * receivers' waits, fan_waits) */
static double fan(const mpii_plogp_t *pp, int n, double m)
{
    double s = spread(pp, m);
    return n > 0 ? (n - 1) * s + mpii_plogp_hop(pp, m) + fan_waits(pp, n, s) : 0.0;
}

/*
 * The critical path of the binomial tree of bcast_binomial.c,
 * scatter_binomial.c and reduce_binomial.c (gather the same mirrored)
 * below node v (relative rank), whose children are v + 2^j for 2^j < span
 * (span: v's lowest set bit, P rounded up to a power of two at the root),
 * largest subtree first, sent back to back. The message to a child carries
 * m bytes, or with `blocks` m per rank of the child's subtree; `extra` is
 * added per edge (the combining of a reduction). For P a power of two this
 * is ceil(log2 P) hops; for other P the subtrees are uneven and the
 * critical path shorter (P = 6: g + 2 hops, not 3 hops).
 */
static double binomial_below(const mpii_plogp_t *pp, int P, int v, int span, double m, int blocks, double extra)
{
    double sent = 0.0, worst = 0.0;
    int n = 0;

    for (int j = span >> 1; j >= 1; j >>= 1) {
        int c = v + j;
        if (c >= P)
            continue;
        int size = P - c < j ? P - c : j;
        double b = blocks ? m * size : m;
        double t = sent + mpii_plogp_hop(pp, b) + extra + binomial_below(pp, P, c, j, m, blocks, extra);
        sent += spread(pp, b);
        if (t > worst)
            worst = t;
        n++;
    }
    return n > 0 ? worst + waits(pp, n) : 0.0;
}

static double binomial_tree(const mpii_plogp_t *pp, int P, double m, int blocks, double extra)
{
    int span = 1;
    while (span < P)
        span <<= 1;
    return binomial_below(pp, P, 0, span, m, blocks, extra);
}

static int ceil_log2(int p)
{
    int n = 0;

    while ((1 << n) < p)
        n++;
    return n;
}

static int floor_log2(int p)
{
    int n = 0;

    while ((2 << n) <= p)
        n++;
    return n;
}

typedef double (*cost_fn_t)(const mpii_plogp_t *pp, int P, double m, double s);

/* --- barrier --- */
/* Priced without the fitted xwait (taken as 1): that was fitted on the
 * four operations of point 3, whose exchanges carry data; a barrier's
 * empty steps were measured as before (bench/coll -c barrier at P = 8 on 2
 * CPUs, 2026-12-04: dissemination 96-112 us, release 95-121), and with
 * xwait 0.7 dissemination replaced release at P = 8, which made the
 * collectives timed after a barrier slower (OSU-style Scatter of 64 KiB /
 * 256 KiB at P = 8: 106-107 / 231-251 us against 71-82 / 119-122 with
 * release; Open MPI 86 / 180). The price: dissemination at P = 8 is
 * predicted 149 us, above what it measures (107.8 with xwait 0.7). */
static double c_barrier_dissemination(const mpii_plogp_t *pp, int P, double m, double s)
{
    double t = 0.0;
    (void)m;
    (void)s;
    for (int j = 0; (1 << j) < P; j++)
        t += xhop_dep_f(pp, 1, 2 << j, P, 1.0);
    return t;
}

/* binomial fan-in to rank 0 and binomial release: the tree of 1 B twice */
static double c_barrier_tree(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)m;
    (void)s;
    return 2.0 * binomial_tree(pp, P, 1, 0, 0.0);
}

/* the same fan-in, then rank 0 releases everyone */
static double c_barrier_release(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)m;
    (void)s;
    return binomial_tree(pp, P, 1, 0, 0.0) + fan(pp, P - 1, 1);
}

/* --- bcast --- */
static double c_bcast_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_tree(pp, P, m, 0, 0.0);
}

static double c_bcast_flat(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return fan(pp, P - 1, m);
}

/* The pipeline's steady-state step per segment at an inner rank that
 * forwards to d children: its link needs d g(s), its CPU o_r(s) + d o_s(s)
 * (the two differ on shm, where the CPU does the copies). */
static double pipe_step(const mpii_plogp_t *pp, double s, int d)
{
    double link = d * G(s), cpu = OR(s) + d * OS(s);
    return link > cpu ? link : cpu;
}

static double c_bcast_chain(const mpii_plogp_t *pp, int P, double m, double s)
{
    double k = m > s && s > 0 ? ceil(m / s) : 1.0;
    return (P - 1) * HOP(s) + (k - 1) * (P > 2 ? pipe_step(pp, s, 1) : G(s));
}

/* The first segment's way below node v of bcast_bintree.c's tree (children
 * 2v + 1 and 2v + 2, sent in that order). Walked node by node: where the
 * tree is not full the critical path is shorter than depth x (g + hop), as
 * at P = 4 (0 -> 1 -> 3: two hops, not 2 g + 2 hops; predicted 1.7x the
 * measured time over tcp;ofi_rxm at 64 KiB-1 MiB, 2026-12-03). */
static double bintree_below(const mpii_plogp_t *pp, int P, int v, double s)
{
    double worst = 0.0;
    int n = 0;

    for (int j = 0; j < 2 && 2 * v + 1 + j < P; j++, n++) {
        double t = j * spread(pp, s) + mpii_plogp_hop(pp, s) + bintree_below(pp, P, 2 * v + 1 + j, s);
        if (t > worst)
            worst = t;
    }
    return n > 0 ? worst + waits(pp, n) : 0.0;
}

static double c_bcast_bintree(const mpii_plogp_t *pp, int P, double m, double s)
{
    double k = m > s && s > 0 ? ceil(m / s) : 1.0;
    int d = P > 2 ? 2 : 1; /* children per inner node */
    return bintree_below(pp, P, 0, s) + (k - 1) * (P > 3 ? pipe_step(pp, s, d) : d * G(s));
}

/* binomial scatter of blocks of `block` bytes: each message carries the
 * blocks of the receiver's subtree */
static double binomial_scatter(const mpii_plogp_t *pp, int P, double block)
{
    return binomial_tree(pp, P, block, 1, 0.0);
}

static double c_bcast_scatter_allgather(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_scatter(pp, P, m / P) + (P - 1) * XHOP(m / P);
}

/* --- reduce / allreduce --- */
static double c_reduce_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_tree(pp, P, m, 0, pp->gamma * m);
}

static double c_reduce_linear(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return fan(pp, P - 1, m) + (P - 1) * pp->gamma * m;
}

/* fold-in (and, for allreduce, fold-out) of the P - P' extra ranks */
static double fold(const mpii_plogp_t *pp, int P, double m, int both)
{
    if (mpii_coll_pof2_floor(P) == P)
        return 0.0;
    return (both ? 2 : 1) * HOP(m) + pp->gamma * m;
}

/* The allreduce algorithms first copy the input to recvbuf (a program
 * that is not in place): priced as combining, as out of cache the two cost
 * the same (1 MiB: 0.098 against 0.099 ns per byte, 2026-12-03). Without
 * it a 1 MiB Allreduce at P = 2 over mbshm was predicted at 150-213 us
 * against 445-620 measured. */
#define COPY(x) (pp->gamma * (x))

/* recursive halving over P' ranks: round j moves m / 2^j, both ways
 * (exchange) or one way (the gather of Rabenseifner's Reduce) */
static double halving(const mpii_plogp_t *pp, int P, double m, int combine, int exchange)
{
    int pof2 = mpii_coll_pof2_floor(P);
    double t = 0.0;
    for (int j = 1; (1 << j) <= pof2; j++) {
        double b = m / (1 << j);
        t += (exchange ? XHOP(b) : HOP(b)) + (combine ? pp->gamma * b : 0.0);
    }
    return t;
}

/* reduce_rabenseifner.c copies its input into an accumulator first, and at
 * the end the owner of the result (new rank 0) copies it into the root's
 * recvbuf, or sends it there: two passes over the vector that the model
 * had not counted (1 MiB at P = 2 was predicted 150 us, measured 455-634,
 * and picked over the binomial tree, 330-350) */
static double c_reduce_rabenseifner(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    double last = mpii_coll_pof2_floor(P) == P ? COPY(m) : HOP(m); /* root 0 owns it or not */
    return COPY(m) + fold(pp, P, m, 0) + halving(pp, P, m, 1, 1) + halving(pp, P, m, 0, 0) + last;
}

static double c_allreduce_recursive_doubling(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    double t = 0.0;
    for (int j = 1; j <= floor_log2(P); j++)
        t += xhop_dep(pp, m, 1 << j, P) + pp->gamma * m;
    return t + fold(pp, P, m, 1) + COPY(m);
}

static double c_allreduce_reduce_bcast(const mpii_plogp_t *pp, int P, double m, double s)
{
    /* non-commutative ops (the only reason to pick it) reduce in rank order:
     * linearly or along the ordered binomial tree, whichever is cheaper */
    double lin = c_reduce_linear(pp, P, m, s), tree = c_reduce_binomial(pp, P, m, s);
    /* the Bcast is the one the model picks for (P, m) (coll.c asks for it):
     * the cheapest unsegmented one */
    double b = c_bcast_binomial(pp, P, m, s), f = c_bcast_flat(pp, P, m, s), t = c_bcast_bintree(pp, P, m, m);
    b = f < b ? f : b;
    b = t < b ? t : b;
    return (lin < tree ? lin : tree) + b;
}

static double c_allreduce_rabenseifner(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return fold(pp, P, m, 1) + halving(pp, P, m, 1, 1) + halving(pp, P, m, 0, 1) + COPY(m);
}

static double c_allreduce_ring(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return 2 * (P - 1) * XHOP(m / P) + (P - 1) * pp->gamma * m / P + COPY(m);
}

/* --- scatter / gather (m = one block) --- */
static double c_scatter_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_scatter(pp, P, m);
}

static double c_scatter_flat(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return fan(pp, P - 1, m);
}

/* --- allgather (m = one block) --- */
static double c_allgather_ring(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * XHOP(m);
}

static double c_allgather_recursive_doubling(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    double t = 0.0;
    for (int j = 0; j < ceil_log2(P); j++)
        t += xhop_dep(pp, (double)(1 << j) * m, 2 << j, P);
    return t;
}

static double c_allgather_bruck(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    double t = 0.0;
    for (int j = 0; (1 << j) < P; j++) {
        int blocks = (1 << j) < P - (1 << j) ? (1 << j) : P - (1 << j);
        t += xhop_dep(pp, blocks * m, 2 << j, P);
    }
    /* the final rotation copies every block once more */
    return t + P * m * pp->gamma;
}

/* --- alltoall (m = one destination's block) --- */
static double a2a_lower(const mpii_plogp_t *pp, int P, double m)
{
    return (P - 1) * (OS(m) + OR(m)) + LAT + waits(pp, P - 1);
}

static double a2a_upper(const mpii_plogp_t *pp, int P, double m)
{
    return fan(pp, P - 1, m);
}

/* c of the way from the smaller bound to the larger (with shm the CPU
 * copies, so o_s + o_r may exceed g: the "lower" bound is then the larger) */
static double between(double lo, double hi, double c)
{
    return hi > lo ? lo + c * (hi - lo) : hi + c * (lo - hi);
}

/* Every rank of a direct exchange sends and receives at once, which the
 * one-way bounds above do not count: at least one exchange step. P = 2 is
 * exactly one (bench/coll over mbshm, 2026-12-03: direct and rotated 35 %
 * above the one-way bound at every size, pairwise, priced as an exchange,
 * within 6-10 %). Then the own block's copy, priced as combining: out of
 * cache the two cost the same (1 MiB: 0.098 against 0.099 ns per byte). */
static double a2a_direct_floor(const mpii_plogp_t *pp, int P, double t, double m)
{
    /* the step's own time with the bounds' wait for the last of P - 1
     * senders (oversubscribed), not an exchange step's two waits */
    double x = XHOP(m) - 2.0 * waits_x(pp, 1) + waits(pp, P - 1);
    return (t > x ? t : x) + COPY(m);
}

static double c_alltoall_rotated(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return a2a_direct_floor(pp, P, between(a2a_lower(pp, P, m), a2a_upper(pp, P, m), pp->contention), m);
}

static double c_alltoall_direct(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    /* the same order everywhere makes all ranks hit one receiver at a time:
     * it gets its P - 1 blocks in a burst and takes them one after the
     * other, while the next receivers wait for their own burst */
    double c = 2 * pp->contention < 1.0 ? 2 * pp->contention : 1.0;
    return a2a_direct_floor(pp, P, between(a2a_lower(pp, P, m), a2a_upper(pp, P, m), c) + (P - 2) * OR(m), m);
}

/* the own block is copied first */
static double c_alltoall_pairwise(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * XHOP(m) + COPY(m);
}

static double c_alltoall_bruck(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    double t = 0.0;
    for (int j = 0; (1 << j) < P; j++) {
        int blocks = 0; /* blocks whose index has bit j set */
        for (int i = 0; i < P; i++)
            blocks += (i >> j) & 1;
        t += xhop_dep(pp, blocks * m, 2 << j, P) + 2 * blocks * m * pp->gamma;
    }
    /* two local rotations of all P blocks */
    return t + 2 * P * m * pp->gamma;
}

/* --- the v variants, reduce-scatter, scans (one algorithm each) --- */
static double c_reduce_scatter_basic(const mpii_plogp_t *pp, int P, double m, double s)
{
    return c_reduce_linear(pp, P, m * P, s) + c_scatter_flat(pp, P, m, s);
}

static double c_scan_linear(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * (HOP(m) + pp->gamma * m);
}

/* ------------------------------------------------------------------ */
/* the tables                                                          */

#define A_COMM 1u   /* needs a commutative op */
#define A_POF2 2u   /* P must be a power of two */
#define A_CNT_P 4u  /* count >= P */
#define A_CNT_P2 8u /* count >= P' (largest power of two <= P) */
#define A_SEG 16u   /* segmented: search s = m / 2^i */
#define A_BULK 32u  /* sends P blocks in one message: P * m must fit an int */
#define A_FANOUT 64u /* a Bcast's sends (TL_SHM_FANOUT): priced by over_fanout */
#define A_READ 128u  /* all its messages are offered reads (coll_reads): the *_rd parameters */

/* ------------------------------------------------------------------ */
/* CPU work: the sum over all ranks of o_s + o_r of every message (plus  */
/* gamma per combined byte). With more ranks than CPUs the ranks share    */
/* the CPUs, so no algorithm ends before work / CPUs (timed). Measured at */
/* P = 8 on 2 CPUs (mbshm, Alltoall of 1 MiB blocks): 11.4 ms, against    */
/* 0.7-1.2 ms from the pLogP formulas alone (they assume a CPU per rank)  */
/* and 4.8 ms from this bound. Each message received also costs its       */
/* receiver a scheduling turn then (the file's "turn", msg_extra): short  */
/* Alltoalls at P = 4..8 on 2 CPUs took 2-3x their pLogP time without it. */

/*
 * Over a network provider on one host (loopback) a message's one-way time
 * is CPU work from end to end: the sender's system calls, the kernel's
 * copies and protocol processing, the receiver's system calls and copy out
 * of the ring. bench/plogp's o_r holds only what the receiver spends after
 * the data is in, its receive calls falling in the time it waits, so o_s +
 * o_r undercounts: tcp;ofi_rxm, 64 KiB, o_s + o_r 14.4 us against a
 * one-way time of 22.9 (2026-12-07); the Alltoalls of 256 B-1 MiB at P =
 * 6-8 on 2 CPUs were predicted at 0.4-0.7 of their time in every round.
 */
static double msgw(const mpii_plogp_t *pp, double m)
{
    double w = OS(m) + OR(m), ow;

    if (pp->ow_work && (ow = mpii_plogp_hop(pp, m)) > w)
        w = ow;
    return w + pp->msg_extra;
}
#define MSGW(x) msgw(pp, (x))

/* k messages of s to each of the P - 1 non-roots (unsegmented when
 * oversubscribed, see eval) */
static double w_bcast_tree(const mpii_plogp_t *pp, int P, double m, double s)
{
    double k = m > s && s > 0 ? ceil(m / s) : 1.0;
    return (P - 1) * k * MSGW(m > s && s > 0 ? s : m);
}

/* binomial scatter of P blocks of b: step j has 2^j senders of P / 2^(j+1) blocks */
static double w_scatter_binomial_blocks(const mpii_plogp_t *pp, int P, double b)
{
    double w = 0.0;
    int L = ceil_log2(P);
    for (int j = 0; j < L; j++)
        w += (double)(1 << j) * MSGW(b * ceil((double)P / (double)(2 << j)));
    return w;
}

static double w_bcast_scatter_allgather(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return w_scatter_binomial_blocks(pp, P, m / P) + (double)P * (P - 1) * MSGW(m / P);
}

static double w_scatter_flat(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * MSGW(m);
}

static double w_scatter_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return w_scatter_binomial_blocks(pp, P, m);
}

static double w_alltoall_pairs(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (double)P * (P - 1) * MSGW(m);
}

/* each rank also copies: it packs and unpacks the blocks of every step and
 * rotates all P blocks twice (the copies c_alltoall_bruck charges at gamma
 * per byte); without them bigger messages make Bruck look cheap (measured
 * over tcp at P = 6..8 on 2 CPUs, 64 KiB blocks: 1.3-1.6x slower than
 * rotated, predicted 10-20 % faster) */
static double w_alltoall_bruck(const mpii_plogp_t *pp, int P, double m, double s)
{
    double copied = 2.0 * P * m;
    (void)s;
    for (int j = 0; (1 << j) < P; j++) {
        int blocks = 0;
        for (int i = 0; i < P; i++)
            blocks += (i >> j) & 1;
        copied += 2.0 * blocks * m;
    }
    return (double)P * (ceil_log2(P) * MSGW(m * ceil(P / 2.0)) + copied * pp->gamma);
}

static double w_reduce_tree(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * (MSGW(m) + pp->gamma * m);
}

/* reduce-scatter by halving (and allgather by doubling: both), every rank */
static double w_halving(const mpii_plogp_t *pp, int P, double m, int both)
{
    double w = 0.0;
    for (int k = 1; k <= ceil_log2(P); k++)
        w += (both ? 2.0 : 1.0) * MSGW(m / (double)(1 << k));
    return P * (w + pp->gamma * m);
}

static double w_reduce_rabenseifner(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return w_halving(pp, P, m, 0) + (P - 1) * MSGW(m / P);
}

static double w_allreduce_recursive_doubling(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (double)P * ceil_log2(P) * (MSGW(m) + pp->gamma * m);
}

static double w_allreduce_reduce_bcast(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * (2.0 * MSGW(m) + pp->gamma * m);
}

static double w_allreduce_rabenseifner(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return w_halving(pp, P, m, 1);
}

static double w_allreduce_ring(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (double)P * (2.0 * (P - 1) * MSGW(m / P) + pp->gamma * m);
}

static double w_allgather_ring(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (double)P * (P - 1) * MSGW(m);
}

static double w_allgather_doubling(const mpii_plogp_t *pp, int P, double m, double s)
{
    double w = 0.0;
    (void)s;
    for (int k = 0; k < ceil_log2(P); k++)
        w += MSGW(m * (double)(1 << k));
    return P * w;
}

static double w_barrier(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)m;
    (void)s;
    return (double)P * ceil_log2(P) * MSGW(1.0);
}

static double w_barrier_tree(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)m;
    (void)s;
    return 2.0 * (P - 1) * MSGW(1.0);
}

typedef int (*stages_fn_t)(int P);

typedef struct algo_info {
    const char *name;
    unsigned flags;
    cost_fn_t cost;
    cost_fn_t work;     /* CPU time summed over the ranks (NULL: not modelled) */
    cost_fn_t path;     /* the part of it on the critical path (NULL: none counted) */
    stages_fn_t stages; /* steps that wait on one another (NULL: not counted) */
} algo_info_t;

/*
 * Stages: the steps in a row in which a rank waits for a message before
 * it can go on (a tree's depth, an exchange algorithm's rounds). A rank
 * that starts late delays every stage after its own, so of two algorithms
 * predicted alike the one with fewer stages depends less on when each
 * rank arrives: choose() takes it within NEAR_TIE of the cheapest. bench/coll
 * --osu (a barrier before each call: the ranks leave it in a different
 * order each time), P = 4 over tcp;ofi_rxm, 16 KiB Bcast: binomial 23 us,
 * flat 16 (Open MPI 10.7); from synchronised starts 18.7 and 19.4, and
 * predicted 21.74 and 21.78.
 */
static int s_one(int P)
{
    (void)P;
    return 1;
}
static int s_log(int P)
{
    return ceil_log2(P);
}
static int s_log1(int P)
{
    return ceil_log2(P) + 1;
}
static int s_2log(int P)
{
    return 2 * ceil_log2(P);
}
static int s_line(int P)
{
    return P - 1;
}
static int s_2line(int P)
{
    return 2 * (P - 1);
}
static int s_bintree(int P)
{
    return floor_log2(P);
}
static int s_scatter_allgather(int P)
{
    return ceil_log2(P) + P - 1;
}

typedef struct op_info {
    const char *name;
    int nalgos;
    const algo_info_t *algos;
} op_info_t;

/*
 * The CPU work a rooted tree does on its own critical path (ranks
 * outnumbering CPUs: unsegmented, s = m): the sends of the root and of
 * each forwarder on the way to the last receiver, one after the other, or
 * for a gather the root's receives. timed() takes it off the work that
 * can hold the path up (OVERLAP_MISS): a root copying its messages out is
 * the path itself, not another rank taking the path's CPU. Eager messages
 * only: a rendezvous send waits for its receiver's turn, and the root's
 * copies then do interleave with the receivers'.
 */
/* flat trees: the root's P - 1 sends; chains: each of the P - 1 senders'
 * one, every one on the way to the last rank */
static double p_fan(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * OS(m);
}

static double p_fan_in(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return (P - 1) * OR(m);
}

/* binomial Bcast: each node sends to its children largest subtree first;
 * ceil(log2 P) sends lie on the way to the last receiver */
static double p_bcast_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return ceil_log2(P) * OS(m);
}

/* binary tree below v: its j-th child's message follows its first j sends */
static double bintree_sends(int P, int v)
{
    double worst = 0.0;

    for (int j = 0; j < 2 && 2 * v + 1 + j < P; j++) {
        double n = (j + 1) + bintree_sends(P, 2 * v + 1 + j);
        if (n > worst)
            worst = n;
    }
    return worst;
}

static double p_bcast_bintree(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return bintree_sends(P, 0) * OS(m);
}

/* binomial Scatter: the root's sends of its subtrees' blocks, all before
 * the last (a single block to rank 1); a Gather's root receives them */
static double binomial_root_blocks(const mpii_plogp_t *pp, int P, double m, int recv)
{
    double w = 0.0;
    int span = 1;

    while (span < P)
        span <<= 1;
    for (int j = span >> 1; j >= 1; j >>= 1)
        if (j < P) {
            double b = m * (P - j < j ? P - j : j);
            w += recv ? OR(b) : OS(b);
        }
    return w;
}

static double p_scatter_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_root_blocks(pp, P, m, 0);
}

static double p_gather_binomial(const mpii_plogp_t *pp, int P, double m, double s)
{
    (void)s;
    return binomial_root_blocks(pp, P, m, 1);
}

static const algo_info_t barrier_info[MPII_BARRIER_ALGO_COUNT] = {
    [MPII_BARRIER_DISSEMINATION] = {"dissemination", 0, c_barrier_dissemination, w_barrier, NULL, s_log},
    [MPII_BARRIER_TREE] = {"tree", 0, c_barrier_tree, w_barrier_tree, NULL, s_2log},
    [MPII_BARRIER_RELEASE] = {"release", 0, c_barrier_release, w_barrier_tree, NULL, s_log1},
};
static const algo_info_t bcast_info[MPII_BCAST_ALGO_COUNT] = {
    [MPII_BCAST_BINOMIAL] = {"binomial", A_FANOUT | A_READ, c_bcast_binomial, w_bcast_tree, p_bcast_binomial,
                             s_log},
    [MPII_BCAST_FLAT] = {"flat", A_FANOUT | A_READ, c_bcast_flat, w_bcast_tree, p_fan, s_one},
    [MPII_BCAST_CHAIN] = {"chain", A_SEG | A_FANOUT | A_READ, c_bcast_chain, w_bcast_tree, p_fan, s_line},
    [MPII_BCAST_BINTREE] = {"bintree", A_SEG | A_FANOUT | A_READ, c_bcast_bintree, w_bcast_tree,
                            p_bcast_bintree, s_bintree},
    [MPII_BCAST_SCATTER_ALLGATHER] = {"scatter_allgather", A_CNT_P, c_bcast_scatter_allgather,
                                      w_bcast_scatter_allgather, NULL, s_scatter_allgather},
};
static const algo_info_t reduce_info[MPII_REDUCE_ALGO_COUNT] = {
    [MPII_REDUCE_BINOMIAL] = {"binomial", A_COMM, c_reduce_binomial, w_reduce_tree, NULL, NULL},
    [MPII_REDUCE_LINEAR] = {"linear", 0, c_reduce_linear, w_reduce_tree, NULL, NULL},
    [MPII_REDUCE_RABENSEIFNER] = {"rabenseifner", A_COMM | A_CNT_P2, c_reduce_rabenseifner,
                                  w_reduce_rabenseifner, NULL, NULL},
    [MPII_REDUCE_BINOMIAL_ORDERED] = {"binomial_ordered", 0, c_reduce_binomial, w_reduce_tree, NULL, NULL},
};
static const algo_info_t allreduce_info[MPII_ALLREDUCE_ALGO_COUNT] = {
    [MPII_ALLREDUCE_RECURSIVE_DOUBLING] = {"recursive_doubling", A_COMM, c_allreduce_recursive_doubling,
                                           w_allreduce_recursive_doubling, NULL, s_log},
    [MPII_ALLREDUCE_REDUCE_BCAST] = {"reduce_bcast", 0, c_allreduce_reduce_bcast, w_allreduce_reduce_bcast,
                                     NULL, s_2log},
    [MPII_ALLREDUCE_RABENSEIFNER] = {"rabenseifner", A_COMM | A_CNT_P2, c_allreduce_rabenseifner,
                                     w_allreduce_rabenseifner, NULL, s_2log},
    [MPII_ALLREDUCE_RING] = {"ring", A_COMM | A_CNT_P, c_allreduce_ring, w_allreduce_ring, NULL, s_2line},
};
static const algo_info_t scatter_info[MPII_SCATTER_ALGO_COUNT] = {
    [MPII_SCATTER_BINOMIAL] = {"binomial", A_BULK, c_scatter_binomial, w_scatter_binomial, p_scatter_binomial,
                               s_log},
    [MPII_SCATTER_LINEAR] = {"flat", A_READ, c_scatter_flat, w_scatter_flat, p_fan, s_one},
};
static const algo_info_t gather_info[MPII_GATHER_ALGO_COUNT] = {
    [MPII_GATHER_BINOMIAL] = {"binomial", A_BULK, c_scatter_binomial, w_scatter_binomial, p_gather_binomial,
                              s_log},
    [MPII_GATHER_LINEAR] = {"flat", A_READ, c_scatter_flat, w_scatter_flat, p_fan_in, s_one},
};
static const algo_info_t allgather_info[MPII_ALLGATHER_ALGO_COUNT] = {
    [MPII_ALLGATHER_RING] = {"ring", A_READ, c_allgather_ring, w_allgather_ring, NULL, NULL},
    [MPII_ALLGATHER_RECURSIVE_DOUBLING] = {"recursive_doubling", A_POF2 | A_READ,
                                           c_allgather_recursive_doubling, w_allgather_doubling, NULL, NULL},
    [MPII_ALLGATHER_BRUCK] = {"bruck", A_BULK | A_READ, c_allgather_bruck, w_allgather_doubling, NULL, NULL},
};
static const algo_info_t alltoall_info[MPII_ALLTOALL_ALGO_COUNT] = {
    [MPII_ALLTOALL_PAIRWISE] = {"pairwise", A_READ, c_alltoall_pairwise, w_alltoall_pairs, NULL, s_line},
    [MPII_ALLTOALL_DIRECT] = {"direct", A_READ, c_alltoall_direct, w_alltoall_pairs, NULL, s_one},
    [MPII_ALLTOALL_ROTATED] = {"rotated", A_READ, c_alltoall_rotated, w_alltoall_pairs, NULL, s_one},
    [MPII_ALLTOALL_BRUCK] = {"bruck", A_BULK | A_READ, c_alltoall_bruck, w_alltoall_bruck, NULL, s_log},
};
static const algo_info_t scatterv_info[] = {{"flat", A_READ, c_scatter_flat, w_scatter_flat, p_fan, NULL}};
static const algo_info_t gatherv_info[] = {{"flat", A_READ, c_scatter_flat, w_scatter_flat, p_fan_in, NULL}};
static const algo_info_t allgatherv_info[] = {
    {"ring", A_READ, c_allgather_ring, w_allgather_ring, NULL, NULL}};
static const algo_info_t alltoallv_info[] = {
    {"pairwise", A_READ, c_alltoall_pairwise, w_alltoall_pairs, NULL, NULL}};
static const algo_info_t reduce_scatter_info[] = {{"basic", 0, c_reduce_scatter_basic, NULL, NULL, NULL}};
static const algo_info_t scan_info[] = {{"linear", 0, c_scan_linear, NULL, NULL, NULL}};

/* clang-format off */
#define OPI(n, t) {n, (int)(sizeof(t) / sizeof(t[0])), t}
/* clang-format on */
static const op_info_t ops[MPII_COLL_OP_COUNT] = {
    [MPII_COLL_BARRIER] = OPI("barrier", barrier_info),
    [MPII_COLL_BCAST] = OPI("bcast", bcast_info),
    [MPII_COLL_REDUCE] = OPI("reduce", reduce_info),
    [MPII_COLL_ALLREDUCE] = OPI("allreduce", allreduce_info),
    [MPII_COLL_SCATTER] = OPI("scatter", scatter_info),
    [MPII_COLL_GATHER] = OPI("gather", gather_info),
    [MPII_COLL_ALLGATHER] = OPI("allgather", allgather_info),
    [MPII_COLL_ALLTOALL] = OPI("alltoall", alltoall_info),
    [MPII_COLL_SCATTERV] = OPI("scatterv", scatterv_info),
    [MPII_COLL_GATHERV] = OPI("gatherv", gatherv_info),
    [MPII_COLL_ALLGATHERV] = OPI("allgatherv", allgatherv_info),
    [MPII_COLL_ALLTOALLV] = OPI("alltoallv", alltoallv_info),
    [MPII_COLL_REDUCE_SCATTER] = OPI("reduce_scatter", reduce_scatter_info),
    [MPII_COLL_REDUCE_SCATTER_BLOCK] = OPI("reduce_scatter_block", reduce_scatter_info),
    [MPII_COLL_SCAN] = OPI("scan", scan_info),
    [MPII_COLL_EXSCAN] = OPI("exscan", scan_info),
};

/* ------------------------------------------------------------------ */
/* evaluation                                                          */

static int applies(const algo_info_t *a, int P, double m, long count, int commutative)
{
    if ((a->flags & A_COMM) && !commutative)
        return 0;
    if ((a->flags & A_POF2) && mpii_coll_pof2_floor(P) != P)
        return 0;
    if ((a->flags & A_CNT_P) && count < P)
        return 0;
    if ((a->flags & A_CNT_P2) && count < mpii_coll_pof2_floor(P))
        return 0;
    if ((a->flags & A_BULK) && m * P > (double)INT_MAX)
        return 0;
    return 1;
}

/* The model's time: the pLogP formula, and with more ranks on this host
 * than CPUs at least the CPU work shared by the CPUs.
 *
 * Oversubscribed, the ranks also do not start together: when the call is
 * due everywhere, the CPUs are running other ranks, and the last rank to
 * get one enters about a scheduling turn (wake) late. That adds one wake to
 * every algorithm alike (no choice changes), and the predictions were
 * short by about that: bench/coll sweep at P = 4, 6, 8 on 2 CPUs,
 * 2026-12-02, 1 B-1 KiB Bcast and Scatter over mbshm measured 3.4-5.7 us
 * above the model for flat and binomial trees and chains alike (wake 3.3);
 * re-scoring the sweep with one wake added took the median error at P >= 4
 * from 29 to 15 % over mbshm and from 19 to 17 % over tcp;ofi_rxm.
 * Scaled by the share of ranks not on a CPU when the call is due, 1 - 1/k
 * for k ranks per CPU (none late at k = 1): fitted per k on the sweep of
 * 2026-12-03 (P = 4, 6, 8), the best wake at k = 2 was 0.75x the best at
 * k = 3..4 for both providers (mbshm 2.5 against 3.0-3.3 us, tcp 12-14
 * against 18); with the factor the median error of that sweep went from
 * 15.3 to 13.4 %, and of an earlier, independent one from 13.6 to 13.1 %.
 * The file's "late" line, when given, replaces the wake here (and only
 * here): once the fan-out waits were priced (fan_waits), tcp;ofi_rxm's
 * one-way trees at P = 4..8 measured 0.7-0.85x their prediction in four
 * sweeps of 2026-12-06, and a grid over late (0-3 us) and wake (4-8) put
 * late at 0 there (median error 13.7 -> 11.5 %), while mbshm's best late
 * stayed its wake (1.5: 12.5 %; 0: 16.0 %, 3: 13.9 %). */
/*
 * The two do not overlap perfectly either: while the critical path runs,
 * the other ranks' copies take its CPUs now and then, and while the CPUs
 * are busy copying, the path waits. A third of the smaller of the critical
 * path and the work's data-moving part (without the turns) is added:
 * re-scoring three sweeps of 2026-12-03 (P = 2..8, mbshm and tcp;ofi_rxm)
 * it put the pick within 10 % of the fastest at 90.1, 89.8 and 92.4 % of
 * the points against 88.6, 88.6 and 90.9 % with the bound alone (it
 * penalises what both moves much data and has a long path: Allreduce by
 * reduce + bcast at 256 KiB-1 MiB, measured 15-25 % slower than ring or
 * Rabenseifner), median error 13.8, 11.9, 11.7 % against 13.4, 13.1,
 * 12.3; adding half instead: 90.6, 90.5, 93.6 % and 14.7, 11.9, 12.3 %.
 * The work the path itself does (a rooted tree's eager sends, algo_info_t
 * path) is not counted there: over tcp;ofi_rxm flat Bcasts and Scatters
 * at P = 4..8 on 2 CPUs measured 0.71-0.87x their prediction in seven
 * sweeps of 2026-12-06 (binomial trees 0.77-0.90x), the flat Scatter of
 * 256 B at P = 4 lost its pick to binomial (11.5 against 13.9 us), and a
 * flat Scatter of 1 B at P = 4 measured 9.4 us where even without any
 * scheduling waits 10.2 was predicted. Re-predicting those sweeps: within
 * 10 % of the fastest at 165 of 176 points against 164, median error 10.2
 * against 11.7 % (mbshm, seven sweeps: 166 and 166, 11.9 against 11.8 %).
 * With the rendezvous sizes too, flat won Bcasts of 256 KiB-1 MiB at P =
 * 6..8 that it takes 1.4-1.8x the best tree for.
 */
#define OVERLAP_MISS (1.0 / 3.0)

/* Oversubscribed, the share of the CPUs' copies of an m-byte collective
 * that no longer run side by side: 0 below the file's membound lo, 1 from
 * hi on, log-linear between. Big copies are bound by the memory the CPUs
 * share: at P = 4 on 2 CPUs over mbshm (2026-12-04), a flat Bcast of 1 MiB
 * took 265 us, what its 3 messages' o_s + o_r (261 us) take on one CPU,
 * not the 131 of two (predicted 160), and an Alltoall of 1 MiB blocks
 * 1.1-1.3 ms against its 12 messages' 1.0 ms of work; predictions at 256
 * KiB-1 MiB were 0.45-0.6x the measured times at P = 4..8 for all four
 * operations. membound 32 KiB 512 KiB (mbshm only: over tcp;ofi_rxm the
 * same made big messages 50-67 % long) took the sweep's median error from
 * 19.6 to 18.3 % (big messages at P > 2: 48.6 to 25.0 %), and the 18:04
 * sweep's from 20.0 to 18.7 %, picks unchanged. */
static double mem_bound(double m)
{
    if (model.mem_hi <= model.mem_lo || m <= model.mem_lo)
        return 0.0;
    if (m >= model.mem_hi)
        return 1.0;
    return log(m / model.mem_lo) / log(model.mem_hi / model.mem_lo);
}

/* the parameters of pm without the turns (oversubscribed) */
static const mpii_plogp_t *data_of(const mpii_plogp_t *pm)
{
    if (pm == &over_fanout)
        return &over_fanout_data;
    if (pm == &over_fanout_rd)
        return &over_fanout_data_rd;
    return pm == &over_model_rd ? &over_data_rd : &over_data;
}

static double timed(const algo_info_t *a, const mpii_plogp_t *pm, int P, double m, double s)
{
    double t = a->cost(pm, P, m, s);
    if (oversubscribed && a->work) {
        /* from work / CPUs to the whole work on one CPU as the copies
         * become bound by the shared memory (mem_bound) */
        double w = a->work(pm, P, m, s) * (1.0 + (host_cpus - 1) * mem_bound(m)) / host_cpus;
        /* pm is over_model or over_fanout here: the same without the turns;
         * the work on the critical path itself (a->path) does not hold it up */
        const mpii_plogp_t *pd = data_of(pm);
        double wd = a->work(pd, P, m, s) - (a->path && m <= eager_max ? a->path(pd, P, m, s) : 0.0);
        wd = (wd > 0.0 ? wd : 0.0) / host_cpus;
        t = (w > t ? w : t) + OVERLAP_MISS * (wd < t ? wd : t);
    }
    return oversubscribed ? t + pm->late * (1.0 - (double)host_cpus / host_ranks) : t;
}

/* the parameters algorithm a is priced with */
static const mpii_plogp_t *model_for(const algo_info_t *a)
{
    if (a->flags & A_READ)
        return !oversubscribed ? &model_rd : a->flags & A_FANOUT ? &over_fanout_rd : &over_model_rd;
    return !oversubscribed ? &model : a->flags & A_FANOUT ? &over_fanout : &over_model;
}

/* Cost of one algorithm; for segmented ones the best s = m / 2^i (s >= 1)
 * is stored in *seg. */
static double eval(const algo_info_t *a, int P, double m, double *seg)
{
    double best, s;
    const mpii_plogp_t *pm = model_for(a);

    *seg = m;
    if (P <= 1)
        return 0.0;
    best = timed(a, pm, P, m, m);
    /* At P = 2 a segmented chain or tree is the root sending its segments
     * to one rank: no stage runs beside another (the transport already
     * pipelines a long message), and each segment adds its own costs. The
     * stream gap g(s) still made short segments look cheaper: bench/coll,
     * P = 2, 1 MiB Bcast (2026-12-02): the chain with the model's segments
     * 128 us against 106 unsegmented over mbshm, 462 against 403 over
     * tcp;ofi_rxm. */
    if ((a->flags & A_SEG) && P > 2 && (P < host_ranks ? P : host_ranks) <= host_cpus) {
        for (s = floor(m / 2); s >= 1.0; s = floor(s / 2)) {
            double t = timed(a, pm, P, m, s);
            if (t < best) {
                best = t;
                *seg = s;
            }
        }
    }
    return best;
}

typedef struct choice {
    int algo, second;
    double t, t2, seg;
} choice_t;

#define NEAR_TIE 0.03
#define MAX_ALGOS 8
_Static_assert(MPII_BCAST_ALGO_COUNT <= MAX_ALGOS && MPII_ALLTOALL_ALGO_COUNT <= MAX_ALGOS &&
                   MPII_ALLREDUCE_ALGO_COUNT <= MAX_ALGOS && MPII_REDUCE_ALGO_COUNT <= MAX_ALGOS &&
                   MPII_ALLGATHER_ALGO_COUNT <= MAX_ALGOS && MPII_BARRIER_ALGO_COUNT <= MAX_ALGOS,
               "choose() keeps one time per algorithm");

static void choose(mpii_coll_op_t op, int P, double m, long count, int commutative, choice_t *ch)
{
    const op_info_t *o = &ops[op];
    double crit = INFINITY, ts[MAX_ALGOS], segs[MAX_ALGOS];

    ch->algo = ch->second = -1;
    ch->t = ch->t2 = INFINITY;
    ch->seg = m;
    for (int i = 0; i < o->nalgos; i++) {
        double seg, t, c;
        ts[i] = INFINITY;
        if (!applies(&o->algos[i], P, m, count, commutative))
            continue;
        t = eval(&o->algos[i], P, m, &seg);
        /* A tie (within 0.1 %) happens when the CPU-work bound decides
         * (oversubscribed, long messages: every exchange algorithm moves
         * the same bytes); the shorter critical path then wins, the one
         * whose ranks wait least for one particular partner (measured at
         * P = 3..8 on 2 CPUs, Alltoall of 1 MiB blocks: rotated 10-20 %
         * faster than pairwise, both at the bound). */
        c = o->algos[i].cost(model_for(&o->algos[i]), P, m, seg);
        if (t < ch->t * (1.0 - 1e-3) || (t <= ch->t * (1.0 + 1e-3) && c < crit)) {
            crit = c;
            ch->second = ch->algo;
            ch->t2 = ch->t;
            ch->algo = i;
            ch->t = t;
            ch->seg = seg;
        } else if (t < ch->t2) {
            ch->second = i;
            ch->t2 = t;
        }
        ts[i] = t;
        segs[i] = seg;
    }
    /* of the algorithms predicted within NEAR_TIE, the one with fewest stages */
    if (ch->algo >= 0 && o->algos[ch->algo].stages) {
        int pick = ch->algo;
        for (int i = 0; i < o->nalgos; i++)
            if (i != pick && o->algos[i].stages && ts[i] <= ch->t * (1.0 + NEAR_TIE) &&
                o->algos[i].stages(P) < o->algos[pick].stages(P))
                pick = i;
        if (pick != ch->algo) {
            ch->second = ch->algo;
            ch->t2 = ch->t;
            ch->algo = pick;
            ch->t = ts[pick];
            ch->seg = segs[pick];
        }
    }
}

/* ------------------------------------------------------------------ */
/* selection with a cache                                              */

#define CACHE_WAYS 64

typedef struct cache_entry {
    unsigned gen; /* 0: empty */
    uint32_t ctx;
    int P, commutative;
    size_t bytes;
    long count;
    int algo;
    size_t seg;
} cache_entry_t;

static cache_entry_t cache[MPII_COLL_OP_COUNT][CACHE_WAYS];

static void verbose_line(mpii_coll_op_t op, int P, size_t bytes, const choice_t *ch, int forced_algo)
{
    const op_info_t *o = &ops[op];
    char seg[48] = "";

    if (ch->algo >= 0 && (o->algos[ch->algo].flags & A_SEG))
        snprintf(seg, sizeof(seg), " (segment %.0f B)", ch->seg);
    if (forced_algo >= 0) {
        fprintf(stderr, "mbmpi coll: %s P=%d m=%zu B: %s%s forced (predicted %.2f us)\n", o->name, P, bytes,
                o->algos[forced_algo].name, seg, ch->t);
        return;
    }
    if (ch->second >= 0) {
        const algo_info_t *a = &o->algos[ch->algo], *b = &o->algos[ch->second];
        char why[96] = "";

        /* taken over a cheaper prediction (choose): by the near-tie rule,
         * or as a tie within 0.1 % with the shorter critical path */
        if (ch->t > ch->t2 && a->stages && b->stages && a->stages(P) < b->stages(P))
            snprintf(why, sizeof(why), " (within %.0f %% of it, fewer stages in a row: %d against %d)",
                     NEAR_TIE * 100.0, a->stages(P), b->stages(P));
        else if (ch->t > ch->t2)
            snprintf(why, sizeof(why), " (a tie within 0.1 %%: the shorter critical path)");
        fprintf(stderr, "mbmpi coll: %s P=%d m=%zu B: chose %s%s predicted %.2f us, runner-up %s %.2f us%s\n",
                o->name, P, bytes, a->name, seg, ch->t, b->name, ch->t2, why);
    } else
        fprintf(stderr, "mbmpi coll: %s P=%d m=%zu B: chose %s%s predicted %.2f us (only one applies)\n",
                o->name, P, bytes, o->algos[ch->algo].name, seg, ch->t);
}

int mpii_coll_select(mpii_coll_op_t op, mpii_comm_t *comm, size_t bytes, long count, int commutative,
                     size_t *seg_bytes)
{
    const op_info_t *o = &ops[op];
    size_t h = (bytes * 2654435761u) ^ ((size_t)comm->ctx * 40503u) ^ (size_t)count ^ (size_t)commutative;
    cache_entry_t *e = &cache[op][(h ^ (h >> 7)) % CACHE_WAYS];
    int P = comm->size;
    double m = (double)bytes;
    choice_t ch;
    int f = forced[op];

    if (e->gen == generation && e->ctx == comm->ctx && e->P == P && e->bytes == bytes && e->count == count &&
        e->commutative == commutative) {
        *seg_bytes = e->seg;
        return e->algo;
    }
    if (f >= 0 && applies(&o->algos[f], P, m, count, commutative)) {
        ch.t = eval(&o->algos[f], P, m, &ch.seg);
        ch.algo = f;
        ch.second = -1;
    } else {
        if (f >= 0 && mpii_coll_cfg_verbose && comm->rank == 0)
            fprintf(stderr,
                    "mbmpi coll: %s P=%d m=%zu B: forced %s does not apply (count %ld, %scommutative op)\n",
                    o->name, P, bytes, o->algos[f].name, count, commutative ? "" : "non-");
        choose(op, P, m, count, commutative, &ch);
        if (ch.algo < 0) { /* cannot happen: every op has one unconditional algorithm */
            ch.algo = 0;
            ch.seg = m;
        }
        f = -1;
    }
    if (mpii_coll_cfg_verbose && comm->rank == 0)
        verbose_line(op, P, bytes, &ch, f);
    e->gen = generation;
    e->ctx = comm->ctx;
    e->P = P;
    e->commutative = commutative;
    e->bytes = bytes;
    e->count = count;
    e->algo = ch.algo;
    e->seg = ch.seg >= 1.0 ? (size_t)ch.seg : 1;
    *seg_bytes = e->seg;
    return ch.algo;
}

int mpii_coll_seg_elems(size_t seg_bytes, size_t elem_size)
{
    size_t n = elem_size > 0 ? seg_bytes / elem_size : seg_bytes;
    if (n < 1)
        n = 1;
    if (n > INT_MAX)
        n = INT_MAX;
    return (int)n;
}

/* ------------------------------------------------------------------ */
/* names, forcing, prediction                                          */

int mpii_coll_op_by_name(const char *name)
{
    for (int i = 0; name != NULL && i < MPII_COLL_OP_COUNT; i++)
        if (!strcmp(ops[i].name, name))
            return i;
    return -1;
}

int mpii_coll_algo_count(mpii_coll_op_t op)
{
    return ops[op].nalgos;
}

const char *mpii_coll_algo_name(mpii_coll_op_t op, int algo)
{
    return algo >= 0 && algo < ops[op].nalgos ? ops[op].algos[algo].name : "?";
}

int mpii_coll_algo_by_name(mpii_coll_op_t op, const char *name)
{
    for (int i = 0; i < ops[op].nalgos; i++)
        if (!strcmp(ops[op].algos[i].name, name))
            return i;
    return -1;
}

void mpii_coll_force(mpii_coll_op_t op, int algo)
{
    forced[op] = algo;
    generation++;
    if (generation == 0)
        generation = 1;
}

double mpii_coll_predict(mpii_coll_op_t op, int algo, int P, double m, int *chosen)
{
    long count = m > (double)LONG_MAX ? LONG_MAX : (long)m;
    double seg;

    /* Only m is known, not the type: the conditions on the element count
     * ("count >= P") assume bytes for data movement and 4-byte elements (int,
     * float) for the reductions from m = 4 on, as bench/coll calls them. */
    if ((op == MPII_COLL_REDUCE || op == MPII_COLL_ALLREDUCE || op == MPII_COLL_REDUCE_SCATTER ||
         op == MPII_COLL_REDUCE_SCATTER_BLOCK || op == MPII_COLL_SCAN || op == MPII_COLL_EXSCAN) &&
        count >= 4)
        count /= 4;

    if (algo < 0) {
        choice_t ch;
        if (P <= 1) {
            *chosen = 0;
            return 0.0;
        }
        choose(op, P, m, count, 1, &ch);
        *chosen = ch.algo;
        return ch.algo >= 0 ? ch.t : -1.0;
    }
    if (!applies(&ops[op].algos[algo], P, m, count, 1))
        return -1.0;
    return eval(&ops[op].algos[algo], P, m, &seg);
}

void mpii_coll_set_fanout_reads(int on)
{
    if (fanout_reads == (on != 0))
        return;
    fanout_reads = on != 0;
    set_over_model();
    generation++; /* cached choices were priced the other way */
}

/* a size threshold of the model (reads, the eager limit) changes: the
 * parameter sets and every cached choice with it */
static void set_threshold(double *var, double min)
{
    if (*var == min)
        return;
    *var = min;
    set_over_model();
    generation++;
}

void mpii_coll_set_collective_reads(double min)
{
    set_threshold(&coll_reads, min);
}

void mpii_coll_set_rendezvous_reads(double min)
{
    set_threshold(&rendezvous_reads, min);
}

void mpii_coll_set_eager_limit(double bytes)
{
    set_threshold(&eager_max, bytes);
}

/* ------------------------------------------------------------------ */
/* init                                                                */

static int loaded(int rank)
{
    set_over_model();
    if (mpii_coll_cfg_verbose && rank == 0) {
        fprintf(stderr,
                "mbmpi coll: pLogP parameters from %s: L %.2f us, g(1 B) %.3f us, g(1 MiB) %.1f us, "
                "contention %.2f, gamma %.5f us/B\n",
                model.origin, model.L, mpii_plogp_g(&model, 1.0), mpii_plogp_g(&model, 1048576.0),
                model.contention, model.gamma);
        if (oversubscribed)
            fprintf(stderr,
                    "mbmpi coll: %d ranks on %d CPUs: a receiver waits for its turn, up to a scheduling "
                    "round of %.2f us (wake %.2f us x %.2f extra ranks per CPU): half of it per hop\n",
                    host_ranks, host_cpus, over_model.wait, model.wake, (double)host_ranks / host_cpus - 1.0);
    }
    return MPI_SUCCESS;
}

int mpii_coll_init(const char *provider, int rank)
{
    char err[300];
    int bad = 0;

    for (int i = 0; i < MPII_COLL_OP_COUNT; i++) {
        const char *want = mpii_coll_cfg_algo[i];
        forced[i] = -1;
        if (want == NULL || want[0] == '\0' || !strcmp(want, "auto"))
            continue;
        forced[i] = mpii_coll_algo_by_name(i, want);
        if (forced[i] < 0) {
            char upper[32];
            size_t j;
            for (j = 0; ops[i].name[j] != '\0' && j < sizeof(upper) - 1; j++)
                upper[j] = (char)(ops[i].name[j] - ('a' <= ops[i].name[j] && ops[i].name[j] <= 'z' ? 32 : 0));
            upper[j] = '\0';
            fprintf(stderr,
                    "mbmpi: MPI_Init: MBMPI_%s_ALGO=\"%s\" is not an algorithm of %s; valid names: auto",
                    upper, want, ops[i].name);
            for (int a = 0; a < ops[i].nalgos; a++)
                fprintf(stderr, ", %s", ops[i].algos[a].name);
            fprintf(stderr, "\n");
            bad = 1;
        }
    }
    if (bad)
        return MPI_ERR_OTHER;
    generation++;
    host_ranks = mpii_job_host_ranks();
    host_cpus = mpii_job_host_cpus();
    single_host = host_ranks >= mpii_job_size();
    on_mbshm = provider != NULL && !strcmp(provider, "mbshm");

    if (mpii_coll_cfg_plogp_file != NULL && mpii_coll_cfg_plogp_file[0] != '\0') {
        if (mpii_plogp_load_file(mpii_coll_cfg_plogp_file, &model, err, sizeof(err)) != 0) {
            fprintf(stderr, "mbmpi: MPI_Init: MBMPI_PLOGP_FILE=%s: %s\n", mpii_coll_cfg_plogp_file, err);
            return MPI_ERR_OTHER;
        }
        return loaded(rank);
    }
    {
        /* the built-in file measured on this CPU model, else the first one */
        const char *kind = provider == NULL || strstr(provider, "shm") != NULL ? "shm" : "tcp";
        const mpii_plogp_builtin_t *b;
        char cpu[128], origin[160];

        mpii_plogp_host_cpu(cpu, sizeof(cpu));
        /* net (libfabric 1.17's native-RDM tcp) has files measured on some
         * CPU models only; elsewhere tcp;ofi_rxm's stand in */
        b = NULL;
        if (provider != NULL && !strncmp(provider, "net", 3)) {
            b = mpii_plogp_builtin_for("net", cpu);
            if (b != NULL)
                kind = "net";
        }
        if (b == NULL)
            b = mpii_plogp_builtin_for(kind, cpu);
        if (b == NULL) {
            fprintf(stderr, "mbmpi: MPI_Init: no built-in %s pLogP parameters\n", kind);
            return MPI_ERR_OTHER;
        }
        snprintf(origin, sizeof(origin), "built-in %s (%s)", kind, b->name);
        if (mpii_plogp_parse(b->text, origin, &model, err, sizeof(err)) != 0) {
            fprintf(stderr, "mbmpi: MPI_Init: built-in pLogP parameters %s: %s\n", b->name, err);
            return MPI_ERR_OTHER;
        }
    }
    return loaded(rank);
}
