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
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "util/log.h"
#include "util/status.h"

#define KILL_GRACE_MS 2000    /* SIGTERM -> SIGKILL */
#define LOST_GRACE_MS 1000    /* store connection gone -> wait this long for the exit status */
#define MAX_RANKS 65536

typedef struct rank_proc {
    pid_t pid;                /* 0: not started */
    int reaped;
    int64_t lost_deadline;    /* connection lost: judge at this time (-1: no) */
    const char *host;         /* MBMPI_HOST */
    int via_agent;
    int local_rank;
    int local_size;
} rank_proc_t;

typedef enum job_state {
    JOB_RUNNING,
    JOB_ENDING,               /* SIGTERM sent, waiting for the ranks to go */
} job_state_t;

typedef struct job {
    /* options */
    int n;
    const char *provider;
    char **xvars;             /* -x arguments as given */
    size_t nx;
    char **hosts;             /* --host entries (NULL: all local) */
    size_t nhosts;
    const char *agent;
    double timeout_s;
    const char *store_addr;
    char **prog_argv;
    /* state */
    pid_t self;
    pid_t pgid;
    rank_proc_t *ranks;
    int nlive;                /* started and not reaped */
    int all_local;
    char hostname[256];
    char secret[BOOT_WIRE_SECRET_HEX + 1];
    char store_env[300];
    struct rlimit nofile;     /* as inherited: restored in the ranks */
    int hup_ignored;          /* started under nohup: keep ignoring SIGHUP */
    int nofile_raised;        /* nofile differs from mpirun's own limit */
    store_t *store;
    job_state_t state;
    int exit_code;
    int post_status;          /* status of a rank that failed after FINI */
    int64_t kill_deadline;    /* ENDING: SIGKILL at this time (-1: done) */
    int64_t timeout_deadline; /* -1: none */
} job_t;

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t rc = write(sig_pipe[1], &c, 1);

    (void)rc; /* pipe full: a byte is already pending, which is enough to wake up */
    errno = saved;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun [-n|-np N] [--provider NAME] [-x VAR[=VAL]]... [--host a,b,...]\n"
            "              [--launch-agent 'CMD {host}'] [--store-addr ADDR] [--timeout SEC]\n"
            "              [--oversubscribe] [--] prog [args...]\n"
            "  -n, -np N            number of ranks (default: number of --host entries, else 1)\n"
            "  --provider NAME      sets MBMPI_PROVIDER=NAME for the ranks\n"
            "  -x VAR[=VAL]         export VAR (from mpirun's environment, or set to VAL)\n"
            "  --host a,b,...       place ranks by block over these hosts; 'localhost' runs\n"
            "                       locally, others through the launch agent\n"
            "  --launch-agent CMD   default 'ssh {host}'; run as CMD env VAR=... prog args\n"
            "  --store-addr ADDR    address of this machine that the ranks connect to\n"
            "                       (default 127.0.0.1, or the first non-loopback IPv4\n"
            "                       address when some host is not local)\n"
            "  --timeout SEC        end the job after SEC seconds, exit 124 (env MBMPI_TIMEOUT)\n");
}

/* ------------------------------------------------------------------ */
/* options                                                             */

/* Matches "--name" and "--name=value" (also the one-dash spelling).
 * Returns 1 and sets *val_p (NULL when the value is the next argument). */
static int opt_match(const char *arg, const char *name, const char **val_p)
{
    size_t len;

    if (arg[0] != '-')
        return 0;
    arg += (arg[1] == '-') ? 2 : 1;
    len = strlen(name);
    if (strncmp(arg, name, len))
        return 0;
    if (arg[len] == '\0') {
        *val_p = NULL;
        return 1;
    }
    if (arg[len] == '=') {
        *val_p = arg + len + 1;
        return 1;
    }
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || v > 1e9)
        return 0;
    *out = v;
    return 1;
}

static int split_hosts(job_t *job, const char *list)
{
    char *copy = strdup(list), *save = NULL, *tok;

    if (!copy)
        return 0;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **h = realloc(job->hosts, (job->nhosts + 1) * sizeof(*h));
        if (!h) {
            free(copy);
            return 0;
        }
        job->hosts = h;
        job->hosts[job->nhosts] = strdup(tok);
        if (!job->hosts[job->nhosts]) {
            free(copy);
            return 0;
        }
        job->nhosts++;
    }
    free(copy);
    return 1;
}

/* Returns 0 on success, else the exit code for a usage error. */
static int parse_args(job_t *job, int argc, char **argv)
{
    int i;
    long n = 0;
    const char *val, *env;

    static const char *const names[] = {"np", "n", "provider", "x", "host", "H", "launch-agent", "timeout",
                                        "store-addr"};
    size_t k, nnames = sizeof(names) / sizeof(names[0]);

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *name = NULL;

        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--oversubscribe") || !strcmp(a, "-oversubscribe"))
            continue;
        for (k = 0; k < nnames && !name; k++)
            if (opt_match(a, names[k], &val))
                name = names[k];
        if (!name) {
            /* -n4 / -np4 */
            if (!strncmp(a, "-np", 3) && parse_int(a + 3, 1, MAX_RANKS, &n))
                continue;
            if (!strncmp(a, "-n", 2) && parse_int(a + 2, 1, MAX_RANKS, &n))
                continue;
            fprintf(stderr, "mpirun: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (!val) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mpirun: option '%s' needs a value\n", a);
                return 2;
            }
            val = argv[++i];
        }
        if (!strcmp(name, "np") || !strcmp(name, "n")) {
            if (!parse_int(val, 1, MAX_RANKS, &n)) {
                fprintf(stderr, "mpirun: bad number of ranks '%s' (1..%d)\n", val, MAX_RANKS);
                return 2;
            }
        } else if (!strcmp(name, "provider")) {
            job->provider = val;
        } else if (!strcmp(name, "x")) {
            char **x = realloc(job->xvars, (job->nx + 1) * sizeof(*x));
            if (!x)
                return 1;
            job->xvars = x;
            job->xvars[job->nx++] = (char *)val;
            if (val[0] == '=' || val[0] == '\0') {
                fprintf(stderr, "mpirun: bad -x '%s'\n", val);
                return 2;
            }
        } else if (!strcmp(name, "host") || !strcmp(name, "H")) {
            if (!split_hosts(job, val))
                return 1;
        } else if (!strcmp(name, "launch-agent")) {
            job->agent = val;
        } else if (!strcmp(name, "timeout")) {
            if (!parse_seconds(val, &job->timeout_s)) {
                fprintf(stderr, "mpirun: bad --timeout '%s'\n", val);
                return 2;
            }
        } else {
            job->store_addr = val;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "mpirun: no program to run\n");
        usage(stderr);
        return 2;
    }
    job->prog_argv = argv + i;
    if (job->hosts && job->nhosts == 0) {
        fprintf(stderr, "mpirun: empty --host list\n");
        return 2;
    }
    job->n = n ? (int)n : (job->nhosts ? (int)job->nhosts : 1);
    if (!job->agent)
        job->agent = "ssh {host}";
    if (job->timeout_s == 0 && (env = getenv("MBMPI_TIMEOUT")) && *env) {
        if (!parse_seconds(env, &job->timeout_s)) {
            fprintf(stderr, "mpirun: bad MBMPI_TIMEOUT '%s'\n", env);
            return 2;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* placement and addresses                                             */

static int host_is_local(const char *h)
{
    return !strcmp(h, "localhost") || !strncmp(h, "127.", 4);
}

/* Block placement over the --host entries: entry i gets ranks
 * [i*N/H, (i+1)*N/H). Entries with the same name share local ranks. */
static int place_ranks(job_t *job)
{
    size_t h, *canon = NULL;
    int r, *count = NULL, *seen = NULL, ndistinct = 0;

    if (gethostname(job->hostname, sizeof(job->hostname) - 1) < 0)
        strcpy(job->hostname, "localhost");
    if (!job->hosts) {
        for (r = 0; r < job->n; r++) {
            job->ranks[r].host = job->hostname;
            job->ranks[r].local_rank = r;
            job->ranks[r].local_size = job->n;
        }
        job->all_local = 1;
        return 1;
    }
    canon = calloc(job->nhosts, sizeof(*canon));
    count = calloc(job->nhosts, sizeof(*count));
    seen = calloc(job->nhosts, sizeof(*seen));
    if (!canon || !count || !seen) {
        free(canon);
        free(count);
        free(seen);
        return 0;
    }
    for (h = 0; h < job->nhosts; h++) {
        size_t k;
        canon[h] = h;
        for (k = 0; k < h; k++)
            if (!strcmp(job->hosts[k], job->hosts[h])) {
                canon[h] = k;
                break;
            }
    }
    for (r = 0; r < job->n; r++) {
        size_t e = (size_t)((int64_t)r * (int64_t)job->nhosts / job->n);
        job->ranks[r].host = job->hosts[e];
        job->ranks[r].via_agent = !host_is_local(job->hosts[e]);
        job->ranks[r].local_rank = count[canon[e]]++;
    }
    for (r = 0; r < job->n; r++) {
        size_t e = (size_t)((int64_t)r * (int64_t)job->nhosts / job->n);
        job->ranks[r].local_size = count[canon[e]];
        if (!seen[canon[e]]) {
            seen[canon[e]] = 1;
            ndistinct++;
        }
    }
    job->all_local = ndistinct == 1;
    free(canon);
    free(count);
    free(seen);
    return 1;
}

static int first_ipv4(char *buf, size_t len)
{
    struct ifaddrs *ifs, *i;
    int found = 0;

    if (getifaddrs(&ifs) < 0)
        return 0;
    for (i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        found = inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, (socklen_t)len) != NULL;
    }
    freeifaddrs(ifs);
    return found;
}

static int make_secret(char *out)
{
    unsigned char raw[16];
    size_t got = 0, i;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    while (got < sizeof(raw)) {
        ssize_t n = read(fd, raw + got, sizeof(raw) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return 0;
        }
        got += (size_t)n;
    }
    close(fd);
    for (i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 1;
}

/* ------------------------------------------------------------------ */
/* launching                                                           */

static int is_shell_agent(const char *word)
{
    const char *base = strrchr(word, '/');

    base = base ? base + 1 : word;
    return !strcmp(base, "ssh") || !strcmp(base, "rsh");
}

/* 'word' quoted for a POSIX shell (ssh joins its arguments into a command
 * line for the remote shell). */
static char *shell_quote(const char *w)
{
    size_t n = 3, i, o = 0;
    char *q;

    for (i = 0; w[i]; i++)
        n += (w[i] == '\'') ? 4 : 1;
    q = malloc(n);
    if (!q)
        return NULL;
    q[o++] = '\'';
    for (i = 0; w[i]; i++) {
        if (w[i] == '\'') {
            memcpy(q + o, "'\\''", 4);
            o += 4;
        } else {
            q[o++] = w[i];
        }
    }
    q[o++] = '\'';
    q[o] = '\0';
    return q;
}

static char *xstrdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xstrdup_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        /* only reached in the child before exec, or at start-up */
        fprintf(stderr, "mpirun: out of memory\n");
        _exit(127);
    }
    return s;
}

/* The MBMPI_* variables of rank r, as "NAME=VALUE" strings. */
static size_t rank_env(const job_t *job, int r, char **env, size_t max)
{
    const rank_proc_t *p = &job->ranks[r];
    size_t n = 0;

    if (max < 10)
        return 0;
    env[n++] = xstrdup_printf("MBMPI_RANK=%d", r);
    env[n++] = xstrdup_printf("MBMPI_SIZE=%d", job->n);
    env[n++] = xstrdup_printf("MBMPI_STORE=%s", job->store_env);
    env[n++] = xstrdup_printf("MBMPI_SECRET=%s", job->secret);
    env[n++] = xstrdup_printf("MBMPI_LOCAL_RANK=%d", p->local_rank);
    env[n++] = xstrdup_printf("MBMPI_LOCAL_SIZE=%d", p->local_size);
    env[n++] = xstrdup_printf("MBMPI_HOST=%s", p->host);
    env[n++] = xstrdup_printf("MBMPI_ALL_LOCAL=%d", job->all_local);
    if (job->provider)
        env[n++] = xstrdup_printf("MBMPI_PROVIDER=%s", job->provider);
    return n;
}

/* In the child, after fork: never returns. Reports an exec failure's errno
 * through errfd. */
static void child_exec(const job_t *job, int r, int errfd)
{
    const rank_proc_t *p = &job->ranks[r];
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    sigset_t none;
    size_t i, nenv;
    char *env[16];
    int e, fd;

    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigs[i] != SIGHUP || !job->hup_ignored)
            signal(sigs[i], SIG_DFL);
    if (job->nofile_raised)
        setrlimit(RLIMIT_NOFILE, &job->nofile);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setpgid(0, job->pgid) < 0 && job->pgid != 0)
        setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != job->self)
        _exit(127); /* mpirun died between fork and here */

    /* stdin: rank 0 keeps a pipe or file; a terminal would stop a rank
     * outside the foreground group (SIGTTIN), so everyone else reads /dev/null */
    if (r != 0 || isatty(STDIN_FILENO)) {
        fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != STDIN_FILENO) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
    }

    nenv = rank_env(job, r, env, sizeof(env) / sizeof(env[0]));
    if (!p->via_agent) {
        for (i = 0; i < nenv; i++)
            putenv(env[i]);
        for (i = 0; i < job->nx; i++)
            if (strchr(job->xvars[i], '='))
                putenv(job->xvars[i]);
        execvp(job->prog_argv[0], job->prog_argv);
    } else {
        /* AGENT-WORDS env VAR=VAL... prog args */
        size_t nargs = 0, cap, nprog;
        char **argv, *agent = strdup(job->agent), *save = NULL, *w;
        int quote;

        for (nprog = 0; job->prog_argv[nprog]; nprog++)
            ;
        cap = strlen(job->agent) + 2 + nenv + job->nx + nprog + 1;
        argv = calloc(cap, sizeof(*argv));
        if (!agent || !argv)
            _exit(127);
        for (w = strtok_r(agent, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
            /* substitute every {host} */
            char *out = strdup(""), *at;
            while ((at = strstr(w, "{host}"))) {
                char *t = xstrdup_printf("%s%.*s%s", out, (int)(at - w), w, p->host);
                free(out);
                out = t;
                w = at + 6;
            }
            argv[nargs] = xstrdup_printf("%s%s", out, w);
            free(out);
            nargs++;
        }
        if (nargs == 0)
            _exit(127);
        quote = is_shell_agent(argv[0]);
        argv[nargs++] = "env";
        for (i = 0; i < nenv; i++)
            argv[nargs++] = env[i];
        for (i = 0; i < job->nx; i++) {
            if (strchr(job->xvars[i], '='))
                argv[nargs++] = job->xvars[i];
            else if (getenv(job->xvars[i]))
                argv[nargs++] = xstrdup_printf("%s=%s", job->xvars[i], getenv(job->xvars[i]));
        }
        for (i = 0; i < nprog; i++) {
            char *a = job->prog_argv[i];
            char cwd[4096];
            /* a relative path with a '/' means "from here": the agent may
             * start elsewhere (ssh: the home directory) */
            if (i == 0 && a[0] != '/' && strchr(a, '/') && getcwd(cwd, sizeof(cwd)))
                a = xstrdup_printf("%s/%s", cwd, a);
            argv[nargs++] = a;
        }
        argv[nargs] = NULL;
        if (quote) {
            size_t k;
            for (k = 1; k < nargs; k++)
                argv[k] = shell_quote(argv[k]);
        }
        execvp(argv[0], argv);
    }
    e = errno;
    if (write(errfd, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

/* Forks rank r. Returns 1, or 0 when its program could not be executed
 * (reported). */
static int launch_rank(job_t *job, int r)
{
    int pfd[2], e = 0;
    ssize_t n;
    pid_t pid;

    if (pipe2(pfd, O_CLOEXEC) < 0) {
        fprintf(stderr, "mpirun: pipe: %s\n", strerror(errno));
        return 0;
    }
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpirun: cannot fork rank %d: %s\n", r, strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return 0;
    }
    if (pid == 0) {
        close(pfd[0]);
        child_exec(job, r, pfd[1]);
    }
    close(pfd[1]);
    if (job->pgid == 0)
        job->pgid = pid;
    setpgid(pid, job->pgid); /* also done by the child; whichever runs first */
    job->ranks[r].pid = pid;
    job->nlive++;
    do
        n = read(pfd[0], &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    if (n == (ssize_t)sizeof(e)) {
        if (job->ranks[r].via_agent)
            fprintf(stderr, "mpirun: cannot execute the launch agent for rank %d ('%s'): %s\n", r, job->agent,
                    strerror(e));
        else
            fprintf(stderr, "mpirun: cannot execute '%s': %s\n", job->prog_argv[0], strerror(e));
        return 0;
    }
    return 1;
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

static void reap(job_t *job)
{
    for (;;) {
        int status, r;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        r = rank_of_pid(job, pid);
        if (r < 0 || job->ranks[r].reaped)
            continue;
        job->ranks[r].reaped = 1;
        job->ranks[r].lost_deadline = -1;
        job->nlive--;
        judge_exit(job, r, status);
        if (job->store)
            store_rank_gone(job->store, r);
    }
}

static void handle_store_events(job_t *job)
{
    store_ev_t ev;
    int64_t t = now_ms();

    while (store_next_event(job->store, &ev)) {
        rank_proc_t *p = &job->ranks[ev.rank];
        switch (ev.type) {
        case STORE_EV_ABORT:
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
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigs[i] != SIGHUP || !job->hup_ignored)
            sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return 1;
}

static void job_free(job_t *job)
{
    size_t i;

    store_destroy(job->store);
    for (i = 0; i < job->nhosts; i++)
        free(job->hosts[i]);
    free(job->hosts);
    free(job->xvars);
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
    rc = parse_args(&job, argc, argv);
    if (rc) {
        job_free(&job);
        return rc;
    }
    for (i = 0; i < job.nx; i++)
        if (!strchr(job.xvars[i], '=') && !getenv(job.xvars[i]))
            fprintf(stderr, "mpirun: warning: -x %s: not set in mpirun's environment\n", job.xvars[i]);
    job.self = getpid();
    job.ranks = calloc((size_t)job.n, sizeof(*job.ranks));
    if (!job.ranks || !place_ranks(&job)) {
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
        } else if (first_ipv4(addr_buf, sizeof(addr_buf))) {
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
    if (!make_secret(job.secret)) {
        fprintf(stderr, "mpirun: cannot read /dev/urandom: %s\n", strerror(errno));
        job_free(&job);
        return 1;
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
        if (!launch_rank(&job, r)) {
            fprintf(stderr, "mpirun: ending the job\n");
            end_job(&job, 127);
            break;
        }
    }

    nfds = 1 + store_max_fds(job.store);
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
        job_free(&job);
        return 1;
    }

    while (job.nlive > 0) {
        size_t nst;
        int n;

        fds[0].fd = sig_pipe[0];
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        nst = store_pollfds(job.store, fds + 1, nfds - 1);
        n = poll(fds, 1 + nst, next_timeout(&job));
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
        store_process(job.store, fds + 1, nst, now_ms());
        handle_store_events(&job);
        reap(&job);
        handle_store_events(&job); /* fence-stuck after an exit */
        check_deadlines(&job);
    }

    free(fds);
    rc = job.state == JOB_RUNNING ? job.post_status : job.exit_code;
    job_free(&job);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    return rc;
}
