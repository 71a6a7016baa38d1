/*
 * transport/launch/spawn.c: where the ranks go and how they start.
 *
 * Every rank is forked by mpirun and joins one process group (the first
 * rank's), so that mpirun can signal them all while staying in the
 * terminal's group itself. In the child, before exec: default signal
 * dispositions, PR_SET_PDEATHSIG(SIGKILL) and a getppid() check (mpirun may
 * have died just before), stdin from /dev/null except for rank 0 when
 * mpirun's stdin is not a terminal, then the MBMPI_* variables. A rank on a
 * --host entry other than localhost runs as
 *     AGENT-WORDS({host} replaced) env MBMPI_...=... [-x VAR=VAL...] prog args
 * with every word after the agent's first shell-quoted when the agent is
 * ssh or rsh (they hand one command line to the remote shell). An exec
 * failure comes back through a close-on-exec pipe, so mpirun can say so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "job.h"

/* ------------------------------------------------------------------ */
/* placement and addresses                                             */

static int host_is_local(const char *h)
{
    return !strcmp(h, "localhost") || !strncmp(h, "127.", 4);
}

/* --host entry of rank r. Each entry is a slot: with N <= H ranks, rank r
 * takes entry r (so "a,a,b,b" puts ranks 0,1 on a); with more ranks than
 * entries, by block: entry i gets ranks [i*N/H, (i+1)*N/H). */
static size_t host_entry(const job_t *job, int r)
{
    if ((size_t)job->n <= job->nhosts)
        return (size_t)r;
    return (size_t)((int64_t)r * (int64_t)job->nhosts / job->n);
}

/* a name by itself, then by position (job_host_canon's sort) */
typedef struct host_ix {
    const char *name;
    size_t i;
} host_ix_t;

static int host_ix_cmp(const void *a, const void *b)
{
    const host_ix_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Sorts the names rather than comparing every pair: a hostfile of 100000
 * distinct lines did not start in 30 s that way. */
int job_host_canon(char *const *names, size_t n, size_t *canon)
{
    host_ix_t *ix = malloc((n + 1) * sizeof(*ix));
    size_t h;

    if (!ix)
        return 0;
    for (h = 0; h < n; h++) {
        ix[h].name = names[h];
        ix[h].i = h;
    }
    qsort(ix, n, sizeof(*ix), host_ix_cmp);
    for (h = 0; h < n; h++)
        canon[ix[h].i] = h > 0 && !strcmp(ix[h].name, ix[h - 1].name) ? canon[ix[h - 1].i] : ix[h].i;
    free(ix);
    return 1;
}

/* Fills host, via_agent, local rank and size of every rank. Entries with
 * the same name share local ranks. */
int job_place_ranks(job_t *job)
{
    size_t *canon = NULL;
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
    if (!canon || !count || !seen || !job_host_canon(job->hosts, job->nhosts, canon)) {
        free(canon);
        free(count);
        free(seen);
        return 0;
    }
    for (r = 0; r < job->n; r++) {
        size_t e = host_entry(job, r);
        job->ranks[r].host = job->hosts[e];
        job->ranks[r].via_agent = !host_is_local(job->hosts[e]);
        job->ranks[r].local_rank = count[canon[e]]++;
    }
    for (r = 0; r < job->n; r++) {
        size_t e = host_entry(job, r);
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

int job_first_ipv4(char *buf, size_t len)
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

int job_make_secret(char *out)
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

/* The app context rank r runs (its program, and its MPI_APPNUM) */
static int rank_app(const job_t *job, int r)
{
    int k = 0;

    while (k + 1 < job->napps && r >= job->apps[k].n) {
        r -= job->apps[k].n;
        k++;
    }
    return k;
}

/* The MBMPI_* variables of rank r, as "NAME=VALUE" strings. */
static size_t rank_env(const job_t *job, int r, char **env, size_t max)
{
    const rank_proc_t *p = &job->ranks[r];
    size_t n = 0;

    if (max < 15)
        return 0;
    env[n++] = xstrdup_printf("MBMPI_RANK=%d", r);
    env[n++] = xstrdup_printf("MBMPI_SIZE=%d", job->n);
    env[n++] = xstrdup_printf("MBMPI_STORE=%s", job->store_env);
    env[n++] = xstrdup_printf("MBMPI_SECRET=%s", job->secret);
    env[n++] = xstrdup_printf("MBMPI_LOCAL_RANK=%d", p->local_rank);
    env[n++] = xstrdup_printf("MBMPI_LOCAL_SIZE=%d", p->local_size);
    env[n++] = xstrdup_printf("MBMPI_HOST=%s", p->host);
    env[n++] = xstrdup_printf("MBMPI_ALL_LOCAL=%d", job->all_local);
    /* Names this job's files (transport/shmem.c segments, removed by mpirun at the end). */
    env[n++] = xstrdup_printf("MBMPI_JOBID=%s", job->jobid);
    env[n++] = xstrdup_printf("MBMPI_APPNUM=%d", rank_app(job, r));
    if (job->provider)
        env[n++] = xstrdup_printf("MBMPI_PROVIDER=%s", job->provider);
    if (job->bind)
        env[n++] = xstrdup_printf("MBMPI_BIND=%s", job->bind);
    if (job->report_bindings)
        env[n++] = xstrdup_printf("MBMPI_REPORT_BINDINGS=1");
    /* gfortran buffers stdout and stderr unless they are terminals: what a
     * rank had written was lost when the job ended it (a peer's MPI_Abort
     * or crash), and pieces of lines interleaved. Unbuffered, as under Open
     * MPI's pseudo terminals; the rank's own setting wins (MPI_Init makes C
     * stdout line buffered likewise). */
    if (!getenv("GFORTRAN_UNBUFFERED_PRECONNECTED"))
        env[n++] = xstrdup_printf("GFORTRAN_UNBUFFERED_PRECONNECTED=y");
    return n;
}

/* In the child, after fork: never returns. Reports an exec failure's errno
 * through errfd. */
static void child_exec(const job_t *job, int r, int errfd, const int out_fds[2])
{
    const rank_proc_t *p = &job->ranks[r];
    char **prog_argv = job->apps[rank_app(job, r)].argv;
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

    job_output_child(out_fds);
    nenv = rank_env(job, r, env, sizeof(env) / sizeof(env[0]));
    if (!p->via_agent) {
        if (job->wdir && chdir(job->wdir) < 0) {
            e = -errno; /* < 0: the working directory, not the program */
            if (write(errfd, &e, sizeof(e)) < 0)
                _exit(127);
            _exit(127);
        }
        for (i = 0; i < nenv; i++)
            putenv(env[i]);
        for (i = 0; i < job->nx; i++)
            if (strchr(job->xvars[i], '='))
                putenv(job->xvars[i]);
        execvp(prog_argv[0], prog_argv);
        if (errno == ENOENT && !strchr(prog_argv[0], '/')) {
            /* not on PATH: the working directory, as Open MPI's mpirun
             * looks there too ("mpirun -n 2 a.out") */
            char *here = xstrdup_printf("./%s", prog_argv[0]);
            if (access(here, F_OK) == 0)
                execv(here, prog_argv); /* sets errno (EACCES ...) */
            else
                errno = ENOENT;
        }
    } else {
        /* AGENT-WORDS env VAR=VAL... prog args */
        size_t nargs = 0, cap, nprog;
        char **argv, *agent = strdup(job->agent), *save = NULL, *w;
        int quote;

        for (nprog = 0; prog_argv[nprog]; nprog++)
            ;
        cap = strlen(job->agent) + 4 + nenv + job->nx + nprog + 1;
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
        if (job->wdir) { /* GNU env: the working directory at the host */
            argv[nargs++] = "-C";
            argv[nargs++] = (char *)job->wdir;
        }
        for (i = 0; i < nenv; i++)
            argv[nargs++] = env[i];
        for (i = 0; i < job->nx; i++) {
            if (strchr(job->xvars[i], '='))
                argv[nargs++] = job->xvars[i];
            else if (getenv(job->xvars[i]))
                argv[nargs++] = xstrdup_printf("%s=%s", job->xvars[i], getenv(job->xvars[i]));
        }
        for (i = 0; i < nprog; i++) {
            char *a = prog_argv[i];
            char cwd[4096];
            /* a relative path with a '/' means "from here": the agent may
             * start elsewhere (ssh: the home directory) */
            if (i == 0 && !job->wdir && a[0] != '/' && strchr(a, '/') && getcwd(cwd, sizeof(cwd)))
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

int job_launch_rank(job_t *job, int r)
{
    int pfd[2], out_fds[2], e = 0;
    ssize_t n;
    pid_t pid;

    if (pipe2(pfd, O_CLOEXEC) < 0) {
        fprintf(stderr, "mpirun: pipe: %s\n", strerror(errno));
        return 0;
    }
    if (!job_output_open(job, r, out_fds)) {
        close(pfd[0]);
        close(pfd[1]);
        return 0;
    }
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpirun: cannot fork rank %d: %s\n", r, strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        job_output_parent(out_fds);
        return 0;
    }
    if (pid == 0) {
        close(pfd[0]);
        child_exec(job, r, pfd[1], out_fds);
    }
    close(pfd[1]);
    job_output_parent(out_fds);
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
        if (e < 0)
            fprintf(stderr, "mpirun: cannot change rank %d to the working directory '%s': %s\n", r, job->wdir,
                    strerror(-e));
        else if (job->ranks[r].via_agent)
            fprintf(stderr, "mpirun: cannot execute the launch agent for rank %d ('%s'): %s\n", r, job->agent,
                    strerror(e));
        else
            fprintf(stderr, "mpirun: cannot execute '%s': %s\n", job->apps[rank_app(job, r)].argv[0],
                    strerror(e));
        return 0;
    }
    return 1;
}
