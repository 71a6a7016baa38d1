/*
 * mpi/init.c: MPI_Init / MPI_Finalize and the environment calls.
 *
 * Init: bootstrap (rank, size, store), open the transport chosen by
 * MBMPI_PROVIDER (default shm when every rank is on this host, else
 * tcp;ofi_rxm), exchange addresses and provider name/version through the
 * store (a mismatch is refused), then build mbcf, proto and the predefined
 * communicators. A job of one rank needs no transport at all.
 */
#include "mpi/core.h"
#include "mpi/mpi3.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/model.h"
#include "util/config.h"
#include "util/log.h"
#include "util/status.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

mpii_global_t mpii_g;

static ut_cfg_entry_t mpi_cfg_entries[] = {
    {"PROVIDER", "auto",
     "mbshm (own shared-memory rings) or a libfabric provider: shm, tcp (tcp;ofi_rxm), sockets, verbs, udp; "
     "auto = mbshm on one host, else net where libfabric has it, else tcp;ofi_rxm",
     UT_CFG_STRING, &mpii_g.provider},
    {"LIBFABRIC", "libfabric.so.1",
     "the libfabric library, opened when a libfabric provider is first used (a path, or a file name the "
     "dynamic loader searches for); mbshm does not load it",
     UT_CFG_STRING, &tl_ofi_library},
    {"PROTOCOL", "auto",
     "auto (write protocol when the receive is first, eager FIFO otherwise) or eager (never REQ)",
     UT_CFG_STRING, &mpii_g.protocol},
    {"EAGER_LIMIT", "16384",
     "largest payload sent eagerly through the FIFO; larger sends use RTS "
     "(unset: 65536 over tcp;ofi_rxm's RMA rings)",
     UT_CFG_SIZE, &mpii_g.eager_limit},
    {"CREDITS", "262144",
     "eager bytes each peer may have unconsumed in this rank's FIFO (unset: 1048576 over tcp;ofi_rxm's RMA "
     "rings)",
     UT_CFG_SIZE, &mpii_g.credits},
    {"FIFO_BUF_SIZE", "1M", "bytes per FI_MULTI_RECV FIFO buffer", UT_CFG_SIZE, &mpii_g.fifo_buf_size},
    {"FIFO_BUFS", "16", "number of FIFO buffers (libfabric providers)", UT_CFG_INT, &mpii_g.fifo_bufs},
    {"FIFO_MODE", "auto",
     "multi (FI_MULTI_RECV buffers), single (one message per buffer), rma (a ring per peer written with RMA "
     "and polled in memory; needs ordered writes), auto (rma on tcp;ofi_rxm up to 64 ranks, single on "
     "sockets, else multi)",
     UT_CFG_STRING, &mpii_g.fifo_mode},
    {"REQ_MAX", "64", "write-protocol REQs outstanding per peer", UT_CFG_INT, &mpii_g.req_max},
    {"WIN_SHM", "1",
     "1: the windows of MPI_Win_allocate whose ranks all share this host's memory live in one shared "
     "segment, as those of MPI_Win_allocate_shared do, and puts and gets to them are plain copies by the "
     "origin; 0: private memory, every operation served by its target",
     UT_CFG_BOOL, &mpii_g.win_shm},
    {"RTS_READ", "1",
     "1: a send larger than the eager limit whose receive is not posted yet is read by its receiver "
     "(one copy, no CTS round trip) where the transport can (mbshm with process_vm_readv); 0: the "
     "receiver answers CTS and the sender writes",
     UT_CFG_BOOL, &mpii_g.rts_read},
    {"RTS_READ_MIN", "auto",
     "smallest rendezvous send read by its receiver (auto: the transport's, 32K on mbshm; with "
     "MBMPI_RTS_READ=1 where the transport can read)",
     UT_CFG_STRING, &mpii_g.rts_read_min_str},
    {"COLL_READ_MIN", "auto",
     "a collective's messages of this size or more from a Bcast's, a flat Scatter's or Gather's and an "
     "exchange's senders skip the eager copies: their receivers read them with one copy (auto: 8K on "
     "mbshm with MBMPI_RTS_READ=1, off elsewhere; off: never)",
     UT_CFG_STRING, &mpii_g.coll_read_min_str},
    {"REQ_MIN", "auto",
     "smallest receive buffer that issues a REQ (auto: the transport's smallest write that beats a FIFO "
     "message, 8K on mbshm, the largest ring record over tcp;ofi_rxm's rings, 0 on other libfabric "
     "providers)",
     UT_CFG_STRING, &mpii_g.req_min_str},
    {"WRITE_CHUNK", "0", "largest single remote write (0: provider maximum)", UT_CFG_SIZE,
     &mpii_g.write_chunk},
    {"STATS", "0", "print per-rank protocol counters at MPI_Finalize", UT_CFG_BOOL, &mpii_g.stats},
    {"SLEEP_AFTER", "0",
     "yields in a row after which a waiting rank sleeps MBMPI_SLEEP_US instead (0: never)", UT_CFG_INT,
     &mpii_g.sleep_after},
    {"SLEEP_US", "20", "microseconds of one such sleep (1..100000)", UT_CFG_INT, &mpii_g.sleep_us},
    {"BIND", "auto",
     "pin each rank to one CPU: core, none, or auto (core when this host runs 2 or more ranks and no more "
     "than "
     "its CPUs)",
     UT_CFG_STRING, &mpii_g.bind},
    {"REPORT_BINDINGS", "0",
     "1: each rank writes to stderr at MPI_Init the CPU it is bound to (mpirun --report-bindings)",
     UT_CFG_INT, &mpii_g.report_bindings},
    {"SPIN", "-1",
     "idle progress polls before a wait yields the CPU; -1: 200, or 0 when this host runs more ranks than it "
     "has CPUs",
     UT_CFG_INT, &mpii_g.spin},
    /* collectives (mpi/coll/model.c): pLogP parameters, forced algorithms */
    {"PLOGP_FILE", "", "pLogP parameter file of bench/plogp (empty: built-in shm or tcp set)", UT_CFG_STRING,
     &mpii_coll_cfg_plogp_file},
    {"COLL_VERBOSE", "0", "print each collective algorithm choice with predicted times (rank 0, stderr)",
     UT_CFG_BOOL, &mpii_coll_cfg_verbose},
    {"BARRIER_ALGO", "auto", "barrier algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_BARRIER]},
    {"BCAST_ALGO", "auto", "bcast algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_BCAST]},
    {"REDUCE_ALGO", "auto", "reduce algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_REDUCE]},
    {"ALLREDUCE_ALGO", "auto", "allreduce algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_ALLREDUCE]},
    {"SCATTER_ALGO", "auto", "scatter algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_SCATTER]},
    {"GATHER_ALGO", "auto", "gather algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_GATHER]},
    {"ALLGATHER_ALGO", "auto", "allgather algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_ALLGATHER]},
    {"ALLTOALL_ALGO", "auto", "alltoall algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_ALLTOALL]},
    {"SCATTERV_ALGO", "auto", "scatterv algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_SCATTERV]},
    {"GATHERV_ALGO", "auto", "gatherv algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_GATHERV]},
    {"ALLGATHERV_ALGO", "auto", "allgatherv algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_ALLGATHERV]},
    {"ALLTOALLV_ALGO", "auto", "alltoallv algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_ALLTOALLV]},
    {"REDUCE_SCATTER_ALGO", "auto", "reduce_scatter algorithm (auto: the pLogP model's choice)",
     UT_CFG_STRING, &mpii_coll_cfg_algo[MPII_COLL_REDUCE_SCATTER]},
    {"REDUCE_SCATTER_BLOCK_ALGO", "auto", "reduce_scatter_block algorithm (auto: the pLogP model's choice)",
     UT_CFG_STRING, &mpii_coll_cfg_algo[MPII_COLL_REDUCE_SCATTER_BLOCK]},
    {"SCAN_ALGO", "auto", "scan algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_SCAN]},
    {"EXSCAN_ALGO", "auto", "exscan algorithm (auto: the pLogP model's choice)", UT_CFG_STRING,
     &mpii_coll_cfg_algo[MPII_COLL_EXSCAN]},
    {NULL, NULL, NULL, UT_CFG_INT, NULL},
};

const ut_cfg_table_t mpii_cfg_table = {"mpi (runtime)", mpi_cfg_entries};

/* Variables set by the launcher or read by other layers, not in a table. */
static const char *const mpi_cfg_extra[] = {
    "MBMPI_RANK",
    "MBMPI_SIZE",
    "MBMPI_STORE",
    "MBMPI_SECRET",
    "MBMPI_LOCAL_RANK",
    "MBMPI_LOCAL_SIZE",
    "MBMPI_HOST",
    "MBMPI_ALL_LOCAL",
    "MBMPI_LOG",
    "MBMPI_TIMEOUT",
    "MBMPI_JOBID",
    "MBMPI_APPNUM",
    "MBMPI_SHM_CMA",
    "MBMPI_SHM_RING",
    "MBMPI_SHM_AHEAD",
    /* read by the compiler wrappers (bin/mpicc, bin/mpifort), not the library */
    "MBMPI_CC",
    "MBMPI_FC",
    "MBMPI_LIBDIR",
    NULL,
};

/* Ranks of this job on this host (MBMPI_LOCAL_SIZE, set by mpirun). */
/*
 * The collectives' model prices the waits of ranks that outnumber their
 * host's CPUs (mpi/coll/model.c), and every rank must choose the same
 * algorithm: so it takes the load of the job's most loaded host (the most
 * ranks per CPU; of those, the most ranks), which MPI_Init's exchange
 * gives every rank alike, not its own host's (with 3 ranks on one host and
 * 4 on another, the two hosts had chosen different Barriers and hung).
 */
static int load_ranks, load_cpus;

static void job_host_load(int ranks, int cpus)
{
    if (load_cpus == 0 || (long)ranks * load_cpus > (long)load_ranks * cpus ||
        ((long)ranks * load_cpus == (long)load_ranks * cpus && ranks > load_ranks)) {
        load_ranks = ranks;
        load_cpus = cpus;
    }
}

int mpii_job_host_ranks(void)
{
    return load_cpus ? load_ranks : mpii_host_ranks();
}

int mpii_job_host_cpus(void)
{
    return load_cpus ? load_cpus : mpii_host_cpus();
}

int mpii_job_size(void)
{
    return mpii_g.size;
}

int mpii_host_ranks(void)
{
    const char *ls = getenv("MBMPI_LOCAL_SIZE");

    return ls && atoi(ls) > 0 ? atoi(ls) : 1;
}

/* The CPUs this process could run on when it started (before bind_rank
 * narrowed them), read once. */
static cpu_set_t start_cpus;
static int start_ncpus;

static void read_start_cpus(void)
{
    if (start_ncpus)
        return;
    if (sched_getaffinity(0, sizeof(start_cpus), &start_cpus) == 0 && CPU_COUNT(&start_cpus) > 0) {
        start_ncpus = CPU_COUNT(&start_cpus);
    } else {
        CPU_ZERO(&start_cpus);
        start_ncpus = 1;
    }
}

/* CPUs this process may run on (as started: binding does not change it). */
int mpii_host_cpus(void)
{
    read_start_cpus();
    return start_ncpus;
}

/*
 * MBMPI_BIND: pin each rank to one CPU, the local rank's in the set the
 * rank started with (so an outer taskset still holds), round robin when the
 * ranks outnumber the CPUs. "auto" does it when this host runs 2 ranks or
 * more, as Open MPI binds to cores by default. Unbound, the scheduler now
 * and then puts both ranks of a 2-rank job on one CPU for a whole run:
 * every message then waits for a context switch (bench/coll allreduce 1 B
 * at P = 2: 6.7 and 11.4 us in 2 of 5 runs, against 1.0-1.2 in all 5 bound
 * runs). With more ranks than CPUs it leaves them unevenly spread for
 * seconds (its balancer sees every waiting rank busy: they yield, never
 * sleep), and a CPU with one rank more sets the pace of every collective:
 * 4 ranks on 2 CPUs (2026-12-04), Alltoall of 1-16 B 18-21 us with the
 * ranks pinned 2 + 2 in any pairing, 35-40 pinned 3 + 1; unbound, runs
 * took either time, switching within a run. Round robin keeps the CPUs'
 * shares within one rank of each other.
 */
static int bind_wanted(void)
{
    return strcmp(mpii_g.bind, "none") && (!strcmp(mpii_g.bind, "core") || mpii_host_ranks() >= 2);
}

/*
 * The collectives' trees place their ranks on the CPUs when the ranks, all
 * on this host, outnumber them (mpi/coll/tree_map.c): bind_rank puts world
 * rank w (its local rank then) on the CPU of class w % n of the n it
 * started with. placement_cpus is n there, else 0; cpu_classes is it once
 * every rank said the same at MPI_Init (a rank started with other CPUs or
 * another MBMPI_BIND turns it off for all: they must build the same trees).
 */
static int cpu_classes;

static int placement_cpus(void)
{
    read_start_cpus();
    if (!bind_wanted() || !boot_all_local(mpii_g.boot) || mpii_host_ranks() != mpii_g.size ||
        mpii_g.size <= start_ncpus)
        return 0;
    return start_ncpus;
}

int mpii_world_cpu_class(int w)
{
    return cpu_classes > 0 && w >= 0 && w < mpii_g.size ? w % cpu_classes : -1;
}

/* mpirun --report-bindings (MBMPI_REPORT_BINDINGS=1): one line per rank on
 * stderr, the CPU it is bound to (cpu >= 0) or the CPUs it may run on */
static void report_binding(int cpu)
{
    char host[256] = "?", cpus[256];
    cpu_set_t set;
    size_t n = 0;

    if (!mpii_g.report_bindings)
        return;
    gethostname(host, sizeof(host) - 1);
    if (cpu >= 0) {
        fprintf(stderr, "mbmpi: rank %d on %s bound to CPU %d\n", mpii_g.rank, host, cpu);
        return;
    }
    cpus[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && n + 8 < sizeof(cpus); c++)
            if (CPU_ISSET(c, &set))
                n += (size_t)snprintf(cpus + n, sizeof(cpus) - n, "%s%d", n ? "," : "", c);
    fprintf(stderr, "mbmpi: rank %d on %s not bound (CPUs %s)\n", mpii_g.rank, host, cpus);
}

static void bind_rank(void)
{
    const char *lr = getenv("MBMPI_LOCAL_RANK");
    int want, local = lr ? atoi(lr) : 0, k, cpu;
    cpu_set_t one;

    read_start_cpus();
    want = bind_wanted();
    if (!want || !CPU_COUNT(&start_cpus) || local < 0) {
        report_binding(-1);
        return;
    }
    k = local % start_ncpus;
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &start_cpus) && k-- == 0)
            break;
    if (cpu == CPU_SETSIZE) {
        report_binding(-1);
        return;
    }
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) {
        ut_warn("MPI_Init: could not bind to CPU %d: %s", cpu, strerror(errno));
        report_binding(-1);
    } else {
        ut_debug("bound to CPU %d", cpu);
        report_binding(cpu);
    }
}

int mpii_is_initialized(void)
{
    return mpii_running();
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void init_fail(const char *what, int rc)
{
    fprintf(stderr, "mbmpi: MPI_Init: %s: %s\n", what, ut_status_str(rc));
    if (mpii_g.boot)
        boot_abort(mpii_g.boot, 1, what);
    exit(1);
}

static int transport_open(void)
{
    tl_params_t tp = {0};
    tl_callbacks_t cb;
    mbcf_params_t mp = {0};
    char key[32], *addrs = NULL, name[256], info[128], mine[160], other[160], *bar;
    int same_cpus = 1;
    size_t len = sizeof(name), alen = 0, olen;
    const char *prov = mpii_g.provider;
    int rc, i;

    if (!strcmp(prov, "auto"))
        prov = boot_all_local(mpii_g.boot) ? "mbshm" : tl_ofi_network_default();
    /* Over RMA rings (tcp;ofi_rxm) messages of 16-64 KiB are cheaper eager
     * than by RTS: the FIFO copies nothing through the provider's buffers
     * there, and a rendezvous costs a round trip. Half round trip of 32 KiB
     * 12.3-13.2 us against 21-23, Allreduce of 64 KiB at P = 2 30-35 us
     * against 51-62 (Open MPI's tcp BTL, eager to 64 KiB: 32). */
    if (strcmp(prov, "mbshm") && tl_ofi_rings_expected(prov, mpii_g.fifo_mode, mpii_g.size)) {
        if (!getenv("MBMPI_EAGER_LIMIT"))
            mpii_g.eager_limit = 65536;
        /* and a sender may have 1 MiB of them unmatched there (the ring of
         * up to 17 ranks): streams of 8 KiB (bench/bw's window of 64)
         * 1.33-1.46 GB/s against 0.65-0.69 with 256 KiB (Open MPI 1.46) */
        if (!getenv("MBMPI_CREDITS"))
            mpii_g.credits = 1 << 20;
    }
    mp.rank = mpii_g.rank;
    mp.size = mpii_g.size;
    mp.credits = mpii_g.credits;
    mp.write_chunk = mpii_g.write_chunk;
    rc = mbcf_create(&mp, &mpii_g.m);
    if (rc != UT_OK)
        return rc;
    mbcf_tl_callbacks(mpii_g.m, &cb);
    tp.rank = mpii_g.rank;
    tp.size = mpii_g.size;
    tp.provider = prov;
    tp.fifo_buf_size = mpii_g.fifo_buf_size;
    tp.fifo_buf_count = (int)mpii_g.fifo_bufs;
    tp.min_fifo_free = mpii_g.eager_limit + 256;
    tp.fifo_mode = strcmp(mpii_g.fifo_mode, "auto") ? mpii_g.fifo_mode : NULL;
    tp.loopback = boot_all_local(mpii_g.boot);
    if (tp.fifo_buf_size < 4 * tp.min_fifo_free)
        tp.fifo_buf_size = 4 * tp.min_fifo_free;
    /* mbshm: mbmpi's own shared-memory transport; everything else is libfabric. */
    rc = (!strcmp(prov, "mbshm") ? &tl_shmem_ops : &tl_ofi_ops)->open(&tp, &cb, &mpii_g.tl);
    if (rc != UT_OK)
        return rc;
    mbcf_attach(mpii_g.m, mpii_g.tl);

    /* Address and provider exchange. */
    rc = tl_get_addr(mpii_g.tl, name, &len);
    if (rc != UT_OK)
        return rc;
    snprintf(key, sizeof(key), "addr.%d", mpii_g.rank);
    rc = boot_put(mpii_g.boot, key, name, len);
    if (rc != UT_OK)
        return rc;
    snprintf(info, sizeof(info), "%s %u.%u", mpii_g.tl->caps.name, mpii_g.tl->caps.version >> 16,
             mpii_g.tl->caps.version & 0xffff);
    ut_debug("transport %s (MBMPI_PROVIDER=%s)", info, mpii_g.provider);
    /* and after a '|', the CPU classes the trees would place ranks on
     * (placement_cpus): every rank must see the same; after a second '|',
     * this host's ranks and CPUs (job_host_load) */
    snprintf(key, sizeof(key), "prov.%d", mpii_g.rank);
    snprintf(mine, sizeof(mine), "%s|%d|%d,%d", info, placement_cpus(), mpii_host_ranks(), mpii_host_cpus());
    rc = boot_put(mpii_g.boot, key, mine, strlen(mine) + 1);
    if (rc == UT_OK)
        rc = boot_fence(mpii_g.boot);
    if (rc != UT_OK)
        return rc;
    for (i = 0; i < mpii_g.size; i++) {
        snprintf(key, sizeof(key), "prov.%d", i);
        rc = boot_get(mpii_g.boot, key, other, sizeof(other), &olen);
        if (rc != UT_OK)
            return rc;
        other[sizeof(other) - 1] = 0;
        bar = strchr(other, '|');
        if (bar) {
            char *load = strchr(bar + 1, '|');
            const char *mine_cls = strchr(mine, '|');
            int r = 0, c = 0;
            if (!load || (size_t)(load - bar) != (size_t)(strchr(mine_cls + 1, '|') - mine_cls) ||
                strncmp(bar, mine_cls, (size_t)(load - bar)))
                same_cpus = 0;
            if (load && sscanf(load + 1, "%d,%d", &r, &c) == 2 && r > 0 && c > 0)
                job_host_load(r, c);
            *bar = 0;
        } else {
            same_cpus = 0;
        }
        if (strcmp(other, info)) {
            fprintf(stderr,
                    "mbmpi: MPI_Init: rank %d uses provider \"%s\" but rank %d uses \"%s\"; all ranks must "
                    "use the same "
                    "provider and version (set MBMPI_PROVIDER or mpirun --provider)\n",
                    mpii_g.rank, info, i, other);
            return UT_ERR_UNSUPPORTED;
        }
        snprintf(key, sizeof(key), "addr.%d", i);
        if (!addrs) {
            alen = len;
            addrs = calloc((size_t)mpii_g.size, alen);
            if (!addrs)
                return UT_ERR_NO_MEMORY;
        }
        rc = boot_get(mpii_g.boot, key, addrs + (size_t)i * alen, alen, &olen);
        if (rc != UT_OK || olen != alen) {
            free(addrs);
            return rc != UT_OK ? rc : UT_ERR_PROTO;
        }
    }
    if (same_cpus)
        cpu_classes = placement_cpus();
    rc = tl_connect(mpii_g.tl, addrs, alen);
    free(addrs);
    return rc;
}

/* The world model (MPI_Init .. MPI_Finalize) and the sessions (MPI 4.0
 * 11.3) share the library: whichever comes first starts it, the last to
 * finish shuts it down. It does not start again after that. */
static int world_init, world_fin;

static int mpi_init_common(void)
{
    proto_params_t pp = {0};
    size_t rts_read_min = 0;
    int rc;

    if (mpii_g.finalized) {
        fprintf(stderr, "mbmpi: MPI_Init: the library has been finalized; it does not start again\n");
        return MPI_ERR_OTHER;
    }
    if (mpii_g.initialized)
        return MPI_SUCCESS; /* started by a session */
    ut_log_init();
    if (ut_cfg_load(&mpii_cfg_table) != UT_OK)
        return MPI_ERR_OTHER;
    {
        const ut_cfg_table_t *tabs[] = {&mpii_cfg_table};
        ut_cfg_check_unknown(tabs, 1, mpi_cfg_extra);
    }
    /* More ranks on this host than CPUs: a waiting rank that spins holds a
     * CPU that a rank with work needs (each spin of 200 polls costs tens of
     * microseconds per wait, measured with bench/coll at 4 ranks on 2 CPUs),
     * so waits yield at once, as Open MPI does when it detects
     * oversubscription. */
    if (strcmp(mpii_g.bind, "auto") && strcmp(mpii_g.bind, "core") && strcmp(mpii_g.bind, "none")) {
        fprintf(stderr, "mbmpi: MPI_Init: MBMPI_BIND must be auto, core or none, not \"%s\"\n", mpii_g.bind);
        return MPI_ERR_OTHER;
    }
    read_start_cpus();
    if (mpii_g.spin < 0)
        mpii_g.spin = mpii_host_ranks() > mpii_host_cpus() ? 0 : 200;
    if (mpii_g.sleep_us < 1 || mpii_g.sleep_us > 100000) {
        fprintf(stderr, "mbmpi: MPI_Init: MBMPI_SLEEP_US must be 1..100000, not %ld\n", mpii_g.sleep_us);
        return MPI_ERR_OTHER;
    }
    /* a sleep of sleep_us, not sleep_us + the default 50 us of timer slack */
    if (mpii_g.sleep_after > 0)
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    if (strcmp(mpii_g.protocol, "auto") && strcmp(mpii_g.protocol, "eager")) {
        fprintf(stderr, "mbmpi: MPI_Init: MBMPI_PROTOCOL must be auto or eager, not \"%s\"\n",
                mpii_g.protocol);
        return MPI_ERR_OTHER;
    }
    if (strcmp(mpii_g.req_min_str, "auto") &&
        ut_cfg_parse_size(mpii_g.req_min_str, &mpii_g.req_min) != UT_OK) {
        fprintf(stderr,
                "mbmpi: MPI_Init: MBMPI_REQ_MIN must be a size (e.g. 0, 512, 8K) or auto, not \"%s\"\n",
                mpii_g.req_min_str);
        return MPI_ERR_OTHER;
    }
    if (strcmp(mpii_g.rts_read_min_str, "auto") &&
        ut_cfg_parse_size(mpii_g.rts_read_min_str, &rts_read_min) != UT_OK) {
        fprintf(stderr,
                "mbmpi: MPI_Init: MBMPI_RTS_READ_MIN must be a size (e.g. 4K, 32K) or auto, not \"%s\"\n",
                mpii_g.rts_read_min_str);
        return MPI_ERR_OTHER;
    }
    if (strcmp(mpii_g.coll_read_min_str, "auto") && strcmp(mpii_g.coll_read_min_str, "off") &&
        ut_cfg_parse_size(mpii_g.coll_read_min_str, &mpii_g.coll_read_min) != UT_OK) {
        fprintf(stderr,
                "mbmpi: MPI_Init: MBMPI_COLL_READ_MIN must be a size (e.g. 8K), auto or off, not \"%s\"\n",
                mpii_g.coll_read_min_str);
        return MPI_ERR_OTHER;
    }
    mpii_g.t0 = now();
    rc = boot_init(&mpii_g.boot);
    if (rc != UT_OK)
        init_fail("bootstrap", rc);
    mpii_g.rank = boot_rank(mpii_g.boot);
    mpii_g.size = boot_size(mpii_g.boot);
    ut_log_rank = mpii_g.rank;
    /* A rank whose stdout is a file or a pipe holds its output in a full
     * stdio buffer, lost when a peer's MPI_Abort or crash ends the job (the
     * ranks are then killed) and written in pieces that cut other ranks'
     * lines. Line by line, as Open MPI's ranks write to their pseudo
     * terminal. (bin/mpirun sets GFORTRAN_UNBUFFERED_PRECONNECTED for
     * Fortran's units alike.) */
    if (mpii_g.size > 1 && !isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    if (mpii_g.size > 1) {
        rc = transport_open();
        if (rc != UT_OK)
            init_fail("opening the transport", rc);
    }
    pp.rank = mpii_g.rank;
    pp.size = mpii_g.size;
    pp.eager_only = !strcmp(mpii_g.protocol, "eager");
    pp.eager_limit = mpii_g.eager_limit;
    if (!strcmp(mpii_g.req_min_str, "auto"))
        mpii_g.req_min = mpii_g.tl != NULL ? mpii_g.tl->caps.write_min : 0;
    pp.req_min = mpii_g.req_min;
    pp.req_max = (int)mpii_g.req_max;
    pp.rts_read = mpii_g.rts_read != 0;
    /* 0 (auto): the transport's read_min; a size of 0 is every non-empty one */
    pp.read_min = rts_read_min ? rts_read_min : strcmp(mpii_g.rts_read_min_str, "auto") ? 1 : 0;
    /* Over mbshm a message of 8-16 KiB, eager by size, costs its two ring
     * copies one after the other (in, then out: 1.3 us each at 16 KiB on
     * the Xeon host); read by its receiver (an RTS, then process_vm_readv)
     * it costs one, and none moves between the CPUs' caches when the
     * source is as the sender left it (a Bcast root's, a Scatter's send
     * buffer). bench/coll --osu (Open MPI's and MPICH's side by side, P = 2,
     * 16 KiB, 2026-12-06): Bcast 2.81 -> 1.40 us (Open MPI 1.78), Scatter
     * 2.41 -> 1.43 (1.93), Alltoall 3.62 -> 2.76 (2.95). A user's
     * ping-pong, whose data moves between the caches every time, keeps the
     * rings (bench/rtt 16 KiB: 3.8 us, 4.2 read), so only collectives'
     * messages are offered (p2p.c). */
    if (!strcmp(mpii_g.coll_read_min_str, "auto"))
        mpii_g.coll_read_min = mpii_g.rts_read && mpii_g.tl != NULL &&
                                       !strcmp(mpii_g.tl->caps.name, "mbshm") && tl_can_read(mpii_g.tl)
                                   ? 8192
                                   : 0;
    else if (!strcmp(mpii_g.coll_read_min_str, "off"))
        mpii_g.coll_read_min = 0;
    else if (!mpii_g.coll_read_min)
        mpii_g.coll_read_min = 1;
    rc = proto_create(mpii_g.m, &pp, &mpii_g.p);
    if (rc != UT_OK)
        init_fail("protocol state", rc);
    if (mpii_datatype_init() != MPI_SUCCESS || mpii_op_init() != MPI_SUCCESS)
        init_fail("datatypes", UT_ERR_NO_MEMORY);
    if (mpii_coll_init(mpii_g.tl != NULL ? mpii_g.tl->caps.name : NULL, mpii_g.rank) != MPI_SUCCESS)
        init_fail("collectives (see above)", UT_ERR_INVALID_PARAM);
    /* last: everything above counted CPUs on the whole start set */
    bind_rank();
    mpii_g.initialized = 1;
    if (mpii_comm_world_init() != MPI_SUCCESS)
        init_fail("communicators", UT_ERR_NO_MEMORY);
    if (mpii_info_env_init() != MPI_SUCCESS)
        init_fail("MPI_INFO_ENV", UT_ERR_NO_MEMORY);
    /* more ranks than CPUs: rendezvous sends of any size are read by their
     * receivers (transport.h) */
    tl_shmem_set_read_all(mpii_g.tl, mpii_host_ranks() > mpii_host_cpus());
    if (mpii_shm_tune() != MPI_SUCCESS)
        init_fail("timing mbshm's copies", UT_ERR_IO);
    /* No reads at all (MBMPI_SHM_CMA=0, or the timing chose the rings for
     * one-way writes and exchanges alike): no collective message is read
     * either, and the model must not price one as read. Left at 8 KiB, the
     * model priced Bcasts of 8 KiB+ as reads that never happened. */
    if (!strcmp(mpii_g.coll_read_min_str, "auto") && mpii_g.tl != NULL && mpii_g.tl->caps.read_max == 0 &&
        mpii_g.tl->caps.read_max_xchg == 0)
        mpii_g.coll_read_min = 0;
    mpii_coll_set_fanout_reads(tl_shmem_fanout_reads(mpii_g.tl));
    /* with more ranks than CPUs mbshm's rendezvous sends are read whole by
     * their receivers (tl_shmem_set_read_all above) */
    if (mpii_g.rts_read && mpii_g.tl != NULL && tl_can_read(mpii_g.tl) &&
        mpii_g.tl->caps.read_max > (size_t)mpii_g.eager_limit && mpii_host_ranks() > mpii_host_cpus())
        mpii_coll_set_rendezvous_reads((double)mpii_g.eager_limit + 1.0);
    mpii_coll_set_collective_reads((double)mpii_g.coll_read_min);
    mpii_coll_set_eager_limit((double)mpii_g.eager_limit);
    mpii_g.xchg_noreq = mpii_g.rts_read && tl_shmem_fanout_reads(mpii_g.tl);
    return MPI_SUCCESS;
}

/* the thread that called MPI_Init(_thread): MPI_Is_thread_main */
static pthread_t main_thread;

/* Start for the world model (MPI_Init) or a session at thread level `level`
 * (a session that asks for more than the library runs at raises it). */
static int runtime_start(int level)
{
    if (!mpii_g.initialized) {
        mpii_g.thread_level = level;
        main_thread = pthread_self();
    } else if (level > mpii_g.thread_level) {
        mpii_g.thread_level = level;
    }
    mpii_mt_on = mpii_g.thread_level == MPI_THREAD_MULTIPLE;
    return mpi_init_common();
}

int mpii_runtime_start(int thread_level)
{
    return runtime_start(thread_level);
}

static int world_start(int level)
{
    int rc;

    /* an error of the program: MPI_COMM_WORLD's handler (fatal unless the
     * program set another), or the default one once finalized */
    if (world_init)
        return mpii_err(NULL, MPI_ERR_OTHER, "MPI_Init", "%s",
                        world_fin ? "called after MPI_Finalize (MPI can be initialized once per process)"
                                  : "called twice");
    rc = runtime_start(level);
    if (rc == MPI_SUCCESS)
        world_init = 1;
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return world_start(MPI_THREAD_SINGLE);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc;

    (void)argc;
    (void)argv;
    if (!provided)
        return MPI_ERR_ARG;
    /* Up to MPI_THREAD_SERIALIZED the library takes no lock and keeps no
     * state per thread (libfabric's domain is opened FI_THREAD_DOMAIN, which
     * allows any thread as long as the calls are serialized).
     * MPI_THREAD_MULTIPLE serializes them itself, with one lock around every
     * call (mpi/mt.h). */
    rc = world_start(required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                     : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                      : required);
    *provided = mpii_g.thread_level;
    return rc;
}

int MPI_Query_thread(int *provided)
{
    MPII_CHECK_INIT("MPI_Query_thread");
    if (!provided)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    *provided = mpii_g.thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    MPII_CHECK_INIT("MPI_Is_thread_main");
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}

/* (the world model's state: a session alone leaves both false) */
int MPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = world_init;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = world_fin;
    return MPI_SUCCESS;
}

static void print_stats(void)
{
    const proto_stats_t *s = proto_stats(mpii_g.p);
    const mbcf_stats_t *ms = mpii_g.m ? mbcf_stats(mpii_g.m) : NULL;

    fprintf(stderr,
            "mbmpi[%d] stats: eager %llu msgs %llu B | write %llu msgs %llu B | rts %llu msgs %llu B | self "
            "%llu | rts reads %llu | "
            "req sent %llu used %llu dropped %llu killed %llu | unexpected %llu msgs %llu B | cancel %llu | "
            "rejected %llu",
            mpii_g.rank, s->eager_msgs, s->eager_bytes, s->write_msgs, s->write_bytes, s->rts_msgs,
            s->rts_bytes, s->self_msgs, s->rts_reads, s->req_sent, s->req_used, s->req_dropped, s->req_killed,
            s->unexpected_msgs, s->unexpected_bytes, s->cancel_sent, s->rejected + (ms ? ms->rejected : 0));
    if (ms)
        fprintf(stderr, " | fifo sent %lu recv %lu credit msgs %lu retries %lu", ms->fifo_sent, ms->fifo_recv,
                ms->credit_msgs, ms->retries);
    fprintf(stderr, "\n");
}

int MPIX_Stat_get(const char *name, unsigned long long *value)
{
    const proto_stats_t *s;
    static const struct {
        const char *name;
        size_t off;
    } tab[] = {
        {"eager_msgs", offsetof(proto_stats_t, eager_msgs)},
        {"eager_bytes", offsetof(proto_stats_t, eager_bytes)},
        {"write_msgs", offsetof(proto_stats_t, write_msgs)},
        {"write_bytes", offsetof(proto_stats_t, write_bytes)},
        {"rts_msgs", offsetof(proto_stats_t, rts_msgs)},
        {"rts_bytes", offsetof(proto_stats_t, rts_bytes)},
        {"self_msgs", offsetof(proto_stats_t, self_msgs)},
        {"req_sent", offsetof(proto_stats_t, req_sent)},
        {"req_used", offsetof(proto_stats_t, req_used)},
        {"req_dropped", offsetof(proto_stats_t, req_dropped)},
        {"req_killed", offsetof(proto_stats_t, req_killed)},
        {"unexpected_msgs", offsetof(proto_stats_t, unexpected_msgs)},
        {"unexpected_bytes", offsetof(proto_stats_t, unexpected_bytes)},
        {"rejected", offsetof(proto_stats_t, rejected)},
        {"cancel_sent", offsetof(proto_stats_t, cancel_sent)},
        {"rts_reads", offsetof(proto_stats_t, rts_reads)},
    };
    size_t i;

    MPII_CHECK_INIT("MPIX_Stat_get");
    if (!name || !value)
        return mpii_err(NULL, MPI_ERR_ARG, "MPIX_Stat_get", "NULL argument");
    if (!strcmp(name, "req_min")) { /* a setting: receives smaller than this send no REQ */
        *value = mpii_g.req_min;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "coll_read_min")) { /* a setting: collective messages read from this size (0: none) */
        *value = mpii_g.coll_read_min;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "rts_read_min") || !strcmp(name, "rts_read_max")) {
        /* rendezvous sends of read_min .. read_max bytes are read by their receivers now */
        const tl_caps_t *caps = mpii_g.tl != NULL && mpii_g.rts_read ? &mpii_g.tl->caps : NULL;
        *value = caps == NULL || !tl_can_read(mpii_g.tl) ? 0
                 : !strcmp(name, "rts_read_min")         ? proto_read_min(mpii_g.p)
                                                         : caps->read_max;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "fifo_bytes")) { /* this rank's FIFO: multi-recv buffers or mbshm rings */
        *value = mpii_g.tl != NULL ? mpii_g.tl->caps.fifo_bytes : 0;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_pulled")) { /* transport/shmem.c: pieces read from peers */
        *value = tl_shmem_pulled(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_exchange_pulls")) { /* 1: exchanges of 64 KiB+ are read by their targets */
        *value = (unsigned long long)tl_shmem_exchange_pulls(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_cma_peers")) { /* peers reachable with process_vm_readv/writev */
        *value = (unsigned long long)tl_shmem_cma_peers(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_single_copies")) { /* writes this rank made with process_vm_writev */
        *value = tl_shmem_single_copies(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_recycled")) { /* restarts of this rank's outgoing rings at their start */
        *value = tl_shmem_recycled(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_ring_writes")) { /* writes this rank pushed through a ring */
        *value = tl_shmem_ring_writes(mpii_g.tl);
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "shm_cma_writes")) { /* 1: other writes of 32 KiB+ are single copies */
        *value = (unsigned long long)tl_shmem_cma_writes(mpii_g.tl);
        return MPI_SUCCESS;
    }
    s = proto_stats(mpii_g.p);
    for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (!strcmp(tab[i].name, name)) {
            *value = *(const unsigned long long *)((const char *)s + tab[i].off);
            return MPI_SUCCESS;
        }
    return mpii_err(NULL, MPI_ERR_ARG, "MPIX_Stat_get", "unknown counter \"%s\"", name);
}

/* Shut the library down: every process comes here once (its last
 * MPI_Finalize or MPI_Session_finalize), then keeps progressing until all
 * ranks are there (the store's fence), so no rank closes its endpoint while
 * a peer still needs it. */
static void runtime_stop(void)
{
    if (mpii_g.m) {
        int done = 0;
        if (boot_fence_begin(mpii_g.boot) == UT_OK) {
            while (!done) {
                mpii_progress();
                if (boot_fence_test(mpii_g.boot, &done) != UT_OK)
                    break;
            }
        }
    }
    if (mpii_g.stats)
        print_stats();
    mpii_win_finalize(); /* windows never freed: their private communicators go first */
    mpii_comm_finalize();
    mpii_requests_finalize();
    mpii_op_finalize();
    mpii_datatype_finalize();
    mpii_scratch_release();
    mpii_nbc_finalize();
    mpii_session_finalize();
    proto_destroy(mpii_g.p);
    mbcf_destroy(mpii_g.m);
    if (mpii_g.tl)
        tl_close(mpii_g.tl);
    boot_finalize(mpii_g.boot);
    mpii_g.p = NULL;
    mpii_g.m = NULL;
    mpii_g.tl = NULL;
    mpii_g.boot = NULL;
    mpii_g.finalized = 1;
}

void mpii_runtime_release(void)
{
    if (mpii_session_count() == 0 && (!world_init || world_fin))
        runtime_stop();
}

int MPI_Finalize(void)
{
    MPII_CHECK_INIT("MPI_Finalize");
    if (!world_init || world_fin)
        return mpii_err(NULL, MPI_ERR_OTHER, "MPI_Finalize", "%s",
                        world_fin ? "called twice"
                                  : "called without MPI_Init (sessions end with MPI_Session_finalize)");
    /* Attributes of MPI_COMM_SELF (then MPI_COMM_WORLD) are deleted before
     * anything else (MPI 3.1 8.7.1); buffered sends are delivered. */
    mpii_mpi3_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    world_fin = 1;
    mpii_runtime_release(); /* not while a session is open */
    return MPI_SUCCESS;
}

/* gfortran's FLUSH without a unit number flushes every unit; the reference
 * is weak, NULL unless the program links libgfortran (a Fortran program) */
extern void _gfortran_flush_i4(int *unit) __attribute__((weak));

void mpii_flush_output(void)
{
    fflush(NULL);
    if (_gfortran_flush_i4)
        _gfortran_flush_i4(NULL);
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];

    (void)comm;
    snprintf(msg, sizeof(msg), "MPI_Abort(comm %d, %d) called by rank %d", comm, errorcode, mpii_g.rank);
    mpii_flush_output();
    if (mpii_g.boot)
        boot_abort(mpii_g.boot, errorcode, msg);
    fprintf(stderr, "mbmpi: %s\n", msg);
    _exit(errorcode ? errorcode : 1);
}

double MPI_Wtime(void)
{
    return now() - mpii_g.t0;
}

double MPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "mbmpi %s (MPI/MBCF over libfabric)",
             MBMPI_VERSION_STRING);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
