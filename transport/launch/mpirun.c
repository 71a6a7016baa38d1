/*
 * transport/launch/mpirun.c: bin/mpirun (also run as mpiexec).
 *
 *   mpirun [-n|-np N] [--provider NAME] [-x VAR[=VAL]]... [--host a,b,...]
 *          [--launch-agent 'CMD {host}'] [--store-addr ADDR] [--timeout SEC]
 *          [--oversubscribe] [--] prog args...
 *
 * What it does, in order:
 *   1. a per-job secret (128 bits from /dev/urandom) and the key-value store
 *      (store.c) on 127.0.0.1, or on 0.0.0.0 when ranks run elsewhere;
 *   2. forks the N ranks, all in one new process group (mpirun stays in the
 *      terminal's group, so Ctrl-C reaches mpirun, which forwards it). A rank
 *      on a --host entry other than localhost runs through the launch agent:
 *      `AGENT-WORDS env MBMPI_...=... prog args`;
 *   3. one poll() loop over a self-pipe (SIGCHLD, SIGINT, SIGTERM, SIGHUP,
 *      SIGQUIT), the store's sockets and the next deadline.
 *
 * Ending rules (the first failure wins; later ones are not reported):
 *   - a rank killed by a signal, exiting non-zero, exiting 0 after joining
 *     the store but without FINI (i.e. before MPI_Finalize), dropping its
 *     store connection without FINI (and not exiting within LOST_GRACE_MS),
 *     sending a malformed message, or waiting in a fence that can never
 *     complete: one line on stderr, SIGTERM to every rank still running,
 *     SIGKILL KILL_GRACE_MS later, reap all, exit with the rank's status
 *     (128+signal for a signal, 1 when there is no status to pass on);
 *   - MPI_Abort (ABORT on the store): "mpirun: rank R called MPI_Abort(code):
 *     msg", same kill sequence, exit with code (low 8 bits; 1 if those are 0
 *     but the code is not);
 *   - SIGINT/SIGTERM/SIGHUP/SIGQUIT to mpirun: same, exit 128+signal; a second
 *     one sends SIGKILL at once;
 *   - --timeout SEC (or MBMPI_TIMEOUT): same, exit 124.
 *   A rank that exits non-zero or by a signal *after* FINI is reported and its
 *   status becomes mpirun's, but the others (finalized or independent of
 *   it) are left to finish. Exit 0 when every rank exited 0.
 * Ranks notice a dead mpirun through PR_SET_PDEATHSIG (local ranks) and the
 * watch connection (all ranks, see transport/boot_client.c).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job.h"
#include "store.h"
#include "util/log.h"
#include "util/status.h"

#define KILL_GRACE_MS 2000    /* SIGTERM -> SIGKILL */
#define LOST_GRACE_MS 1000    /* store connection gone -> wait this long for the exit status */

static int sig_pipe[2] = {-1, -1};

/*
 * The children in the order they ended, from SIGCHLD's si_pid: reap judges
 * them in this order before the rest. The first death is usually the cause
 * of the others (a rank crashes in libfabric when a killed peer's
 * connection breaks under it), and waitpid(-1) returns zombies in fork
 * order. SIGCHLDs that arrive while one is pending are merged by the
 * kernel, keeping the first one's pid: that is the one that matters.
 */
#define CHLD_ORDER_MAX 4096
static volatile pid_t chld_order[CHLD_ORDER_MAX];
static volatile sig_atomic_t chld_n;
static int chld_judged;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t rc;

    (void)uc;
    if (sig == SIGCHLD && si &&
        (si->si_code == CLD_EXITED || si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED) &&
        chld_n < CHLD_ORDER_MAX) {
        chld_order[chld_n] = si->si_pid;
        chld_n = chld_n + 1;
    }
    rc = write(sig_pipe[1], &c, 1);
    (void)rc; /* pipe full: a byte is already pending, which is enough to wake up */
    errno = saved;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ */
/* ending                                                              */

static void signal_ranks(job_t *job, int sig)
{
    int r, any = 0;

    for (r = 0; r < job->n; r++) {
        if (job->ranks[r].pid > 0 && !job->ranks[r].reaped) {
            kill(job->ranks[r].pid, sig);
            any = 1;
        }
    }
    /* the group also holds what the ranks forked; it cannot have been
     * recycled while one of its members is unreaped */
    if (any && job->pgid > 0)
        killpg(job->pgid, sig);
}

static void end_job(job_t *job, int code)
{
    if (job->state != JOB_RUNNING)
        return;
    job->state = JOB_ENDING;
    job->exit_code = code;
    job->timeout_deadline = -1;
    signal_ranks(job, SIGTERM);
    job->kill_deadline = now_ms() + KILL_GRACE_MS;
}

static void fail(job_t *job, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(job_t *job, int code, const char *fmt, ...)
{
    char line[BOOT_WIRE_VAL_MAX + 256];
    va_list ap;

    if (job->state != JOB_RUNNING)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpirun: %s\n", line);
    end_job(job, code);
}

static int abort_status(int code)
{
    if (code == 0)
        return 0;
    return (code & 0xff) ? (code & 0xff) : 1;
}

static int rank_of_pid(const job_t *job, pid_t pid)
{
    int r;

    for (r = 0; r < job->n; r++)
        if (job->ranks[r].pid == pid)
            return r;
    return -1;
}

static void judge_exit(job_t *job, int r, int status)
{
    rank_proc_t *p = &job->ranks[r];
    int joined = job->store ? store_rank_joined(job->store, r) : 0;
    int fini = job->store ? store_rank_finalized(job->store, r) : 0;

    if (job->state != JOB_RUNNING)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (fini) {
            fprintf(stderr, "mpirun: rank %d (pid %d) killed by signal %d (%s) after MPI_Finalize\n", r,
                    (int)p->pid, sig, strsignal(sig));
            if (!job->post_status)
                job->post_status = 128 + sig;
            return;
        }
        fail(job, 128 + sig, "rank %d (pid %d) killed by signal %d (%s)%s; ending the job", r, (int)p->pid, sig,
             strsignal(sig), WCOREDUMP(status) ? " (core dumped)" : "");
        return;
    }
    if (!WIFEXITED(status))
        return;
    if (WEXITSTATUS(status) != 0) {
        int code = WEXITSTATUS(status);
        if (fini) {
            fprintf(stderr, "mpirun: rank %d exited with status %d after MPI_Finalize\n", r, code);
            if (!job->post_status)
                job->post_status = code;
            return;
        }
        fail(job, code, "rank %d exited with status %d%s; ending the job", r, code,
             joined ? " before MPI_Finalize" : "");
        return;
    }
    if (joined && !fini)
        fail(job, 1, "rank %d exited with status 0 before MPI_Finalize; ending the job", r);
}

static void reap_one(job_t *job, pid_t pid, int status)
{
    int r = rank_of_pid(job, pid);

    if (r < 0 || job->ranks[r].reaped)
        return;
    job->ranks[r].reaped = 1;
    job->ranks[r].lost_deadline = -1;
    job->nlive--;
    judge_exit(job, r, status);
    if (job->store)
        store_rank_gone(job->store, r);
}

static void reap(job_t *job)
{
    int status;
    pid_t pid;

    /* first those whose SIGCHLD came, in that order (chld_order) */
    while (chld_judged < chld_n) {
        pid_t want = chld_order[chld_judged++];
        if (want > 0 && waitpid(want, &status, WNOHANG) == want)
            reap_one(job, want, status);
    }
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        reap_one(job, pid, status);
}

static void handle_store_events(job_t *job)
{
    store_ev_t ev;
    int64_t t = now_ms();

    while (store_next_event(job->store, &ev)) {
        rank_proc_t *p = &job->ranks[ev.rank];
        switch (ev.type) {
        case STORE_EV_ABORT:
            /* a rank often aborts because another died (its connection
             * broke): report that death, the cause, if it is known yet */
            reap(job);
            if (job->state == JOB_RUNNING) {
                fprintf(stderr, "mpirun: rank %d called MPI_Abort(%d): %s\n", ev.rank, ev.code, ev.msg);
                end_job(job, abort_status(ev.code));
            }
            break;
        case STORE_EV_PROTO:
            fail(job, 1, "rank %d (pid %d) sent a malformed message to the store (%s); ending the job", ev.rank,
                 (int)p->pid, ev.msg);
            break;
        case STORE_EV_CONN_LOST:
            /* its exit status, if it comes soon, says more */
            if (!p->reaped)
                p->lost_deadline = t + LOST_GRACE_MS;
            break;
        case STORE_EV_FENCE_STUCK:
            fail(job, 1,
                 "rank %d waits in a fence that rank %d can never join (it %s); ending the job", ev.rank,
                 ev.other, store_rank_finalized(job->store, ev.other) ? "has finalized" : "has exited");
            break;
        }
    }
}

static void handle_signal(job_t *job, int sig)
{
    if (sig == SIGCHLD)
        return; /* reaped below */
    if (job->state == JOB_RUNNING) {
        fprintf(stderr, "mpirun: caught signal %d (%s); ending the job\n", sig, strsignal(sig));
        end_job(job, 128 + sig);
    } else if (job->kill_deadline >= 0) {
        /* asked twice: no more grace */
        signal_ranks(job, SIGKILL);
        job->kill_deadline = -1;
    }
}

static void check_deadlines(job_t *job)
{
    int64_t t = now_ms();
    int r;

    if (job->state == JOB_RUNNING && job->timeout_deadline >= 0 && t >= job->timeout_deadline)
        fail(job, 124, "the job exceeded its time limit of %g s (--timeout); ending the job", job->timeout_s);
    for (r = 0; r < job->n && job->state == JOB_RUNNING; r++) {
        rank_proc_t *p = &job->ranks[r];
        if (p->lost_deadline >= 0 && t >= p->lost_deadline && !p->reaped) {
            p->lost_deadline = -1;
            fail(job, 1, "rank %d (pid %d) closed its store connection before MPI_Finalize; ending the job", r,
                 (int)p->pid);
        }
    }
    if (job->state == JOB_ENDING && job->kill_deadline >= 0 && t >= job->kill_deadline) {
        signal_ranks(job, SIGKILL);
        job->kill_deadline = -1;
    }
}

static int next_timeout(const job_t *job)
{
    int64_t d = -1, t = now_ms(), s;
    int r;

#define EARLIER(x) \
    do { \
        if ((x) >= 0 && (d < 0 || (x) < d)) \
            d = (x); \
    } while (0)
    EARLIER(job->timeout_deadline);
    if (job->state == JOB_ENDING)
        EARLIER(job->kill_deadline);
    for (r = 0; r < job->n; r++)
        EARLIER(job->ranks[r].lost_deadline);
    if (job->store) {
        s = store_next_deadline(job->store);
        EARLIER(s);
    }
#undef EARLIER
    if (d < 0)
        return -1;
    return d <= t ? 0 : (int)(d - t > 60000 ? 60000 : d - t);
}

/* ------------------------------------------------------------------ */
/* main                                                                */

static int setup_signals(job_t *job)
{
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa, old;
    size_t i;

    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        job->hup_ignored = 1;

    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigs[i] != SIGHUP || !job->hup_ignored)
            sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return 1;
}

/* Shared-memory files of this job in /dev/shm: the segments of mbmpi's own
 * transport (transport/shmem.c), /dev/shm/mbshm-<MBMPI_JOBID>-<rank>, and
 * the regions of libfabric's shm provider, whose endpoints transport/ofi.c
 * names mbmpi_<MBMPI_JOBID>_<rank>. A rank removes its own at close; this
 * removes what killed ranks left. */
static void remove_shm_files(const job_t *job)
{
    char prefix[2][64], path[512];
    struct dirent *e;
    DIR *d;
    int i;

    if (!job->jobid[0])
        return;
    d = opendir("/dev/shm");
    if (!d)
        return;
    snprintf(prefix[0], sizeof(prefix[0]), "mbshm-%s-", job->jobid);
    snprintf(prefix[1], sizeof(prefix[1]), "mbmpi_%s_", job->jobid);
    while ((e = readdir(d)))
        for (i = 0; i < 2; i++)
            if (!strncmp(e->d_name, prefix[i], strlen(prefix[i]))) {
                snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
                unlink(path);
            }
    closedir(d);
}

static void job_free(job_t *job)
{
    size_t i;

    store_destroy(job->store);
    for (i = 0; i < job->nhosts; i++)
        free(job->hosts[i]);
    free(job->hosts);
    for (i = 0; i < job->nhf; i++)
        free(job->hf_hosts[i]);
    free(job->hf_hosts);
    for (i = 0; i < job->nx; i++)
        free(job->xvars[i]);
    free(job->xvars);
    free(job->apps);
    free(job->ranks);
}

int main(int argc, char **argv)
{
    job_t job;
    struct pollfd *fds;
    size_t nfds, i;
    int rc, port, r;
    char addr_buf[64];
    const char *bind_addr;
    struct in_addr a4;

    ut_log_init();
    memset(&job, 0, sizeof(job));
    job.timeout_deadline = -1;
    job.kill_deadline = -1;
    rc = job_parse_args(&job, argc, argv);
    if (rc) {
        job_free(&job);
        return rc;
    }
    for (i = 0; i < job.nx; i++)
        if (!strchr(job.xvars[i], '=') && !getenv(job.xvars[i]))
            fprintf(stderr, "mpirun: warning: -x %s: not set in mpirun's environment\n", job.xvars[i]);
    job.self = getpid();
    job.ranks = calloc((size_t)job.n, sizeof(*job.ranks));
    if (!job.ranks || !job_place_ranks(&job)) {
        fprintf(stderr, "mpirun: out of memory\n");
        job_free(&job);
        return 1;
    }
    for (r = 0; r < job.n; r++)
        job.ranks[r].lost_deadline = -1;

    /* the store address the ranks use, and where to listen */
    if (!job.store_addr) {
        int remote = 0;
        for (r = 0; r < job.n; r++)
            remote |= job.ranks[r].via_agent;
        if (!remote) {
            job.store_addr = "127.0.0.1";
        } else if (job_first_ipv4(addr_buf, sizeof(addr_buf))) {
            job.store_addr = addr_buf;
        } else {
            fprintf(stderr, "mpirun: no non-loopback IPv4 address found for the store; use --store-addr\n");
            job_free(&job);
            return 1;
        }
    }
    bind_addr = (inet_pton(AF_INET, job.store_addr, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127)
                    ? job.store_addr
                    : "0.0.0.0";
    /* two store connections per rank, plus a few: raise the soft limit
     * (the ranks get the inherited one back) */
    if (getrlimit(RLIMIT_NOFILE, &job.nofile) == 0) {
        struct rlimit raised = job.nofile;
        rlim_t want = 2 * (rlim_t)job.n + 300, need = 2 * (rlim_t)job.n + 16;
        if (raised.rlim_cur != RLIM_INFINITY && raised.rlim_cur < want) {
            raised.rlim_cur = (raised.rlim_max == RLIM_INFINITY || raised.rlim_max > want) ? want : raised.rlim_max;
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
                job.nofile_raised = 1;
            else
                raised.rlim_cur = job.nofile.rlim_cur;
            if (raised.rlim_cur < need) {
                fprintf(stderr, "mpirun: %d ranks need %lu file descriptors in mpirun, the limit is %lu (ulimit -n)\n",
                        job.n, (unsigned long)need, (unsigned long)raised.rlim_cur);
                job_free(&job);
                return 1;
            }
        }
    }
    if (!job_make_secret(job.secret)) {
        fprintf(stderr, "mpirun: cannot read /dev/urandom: %s\n", strerror(errno));
        job_free(&job);
        return 1;
    }
    {
        /* Unique on this host even across pid namespaces sharing /dev/shm. */
        uint32_t rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
            rnd = (uint32_t)now_ms();
        snprintf(job.jobid, sizeof(job.jobid), "%ld-%08x", (long)job.self, rnd);
    }
    if (store_create(bind_addr, job.n, job.secret, &job.store, &port) != UT_OK) {
        job_free(&job);
        return 1;
    }
    snprintf(job.store_env, sizeof(job.store_env), "%s:%d", job.store_addr, port);
    if (!setup_signals(&job)) {
        fprintf(stderr, "mpirun: pipe: %s\n", strerror(errno));
        job_free(&job);
        return 1;
    }
    if (job.timeout_s > 0)
        job.timeout_deadline = now_ms() + (int64_t)(job.timeout_s * 1000.0);

    for (r = 0; r < job.n; r++) {
        if (!job_launch_rank(&job, r)) {
            fprintf(stderr, "mpirun: ending the job\n");
            end_job(&job, 127);
            break;
        }
    }

    nfds = 1 + store_max_fds(job.store) + (job.tag ? 2 * (size_t)job.n : 0);
    fds = calloc(nfds, sizeof(*fds));
    if (!fds) {
        fprintf(stderr, "mpirun: out of memory\n");
        end_job(&job, 1);
        /* still reap below, without the store */
        while (job.nlive > 0) {
            int st;
            pid_t pid = waitpid(-1, &st, 0);
            if (pid < 0 && errno != EINTR)
                break;
            if (pid > 0 && rank_of_pid(&job, pid) >= 0)
                job.nlive--;
        }
        remove_shm_files(&job);
        job_free(&job);
        return 1;
    }

    while (job.nlive > 0) {
        size_t nst, nout;
        int n;

        fds[0].fd = sig_pipe[0];
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        nst = store_pollfds(job.store, fds + 1, nfds - 1);
        nout = job_output_pollfds(&job, fds + 1 + nst, nfds - 1 - nst);
        n = poll(fds, 1 + nst + nout, next_timeout(&job));
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "mpirun: poll: %s\n", strerror(errno));
            end_job(&job, 1);
            continue;
        }
        if (n > 0 && (fds[0].revents & POLLIN)) {
            unsigned char sigs[64];
            ssize_t k;
            while ((k = read(sig_pipe[0], sigs, sizeof(sigs))) > 0)
                for (i = 0; i < (size_t)k; i++)
                    handle_signal(&job, sigs[i]);
        }
        if (n > 0)
            job_output_process(&job, fds + 1 + nst, nout);
        if (job.output_lost && job.state == JOB_RUNNING) {
            fprintf(stderr, "mpirun: cannot write the ranks' output (closed pipe or file); ending the job\n");
            end_job(&job, 128 + SIGPIPE);
        }
        store_process(job.store, fds + 1, nst, now_ms());
        handle_store_events(&job);
        reap(&job);
        handle_store_events(&job); /* fence-stuck after an exit */
        check_deadlines(&job);
    }

    free(fds);
    job_output_drain(&job, 2000);
    remove_shm_files(&job);
    rc = job.state == JOB_RUNNING ? job.post_status : job.exit_code;
    if (job.output_lost && rc == 0)
        rc = 128 + SIGPIPE; /* the ranks ended first, but their output was lost */
    job_free(&job);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    return rc;
}
