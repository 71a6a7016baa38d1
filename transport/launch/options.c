/*
 * transport/launch/options.c: bin/mpirun's command line (see usage()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

#ifndef MBMPI_VERSION
#define MBMPI_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: mpirun [-n|-np N] [--provider NAME] [-x VAR[=VAL]]... [--host a,b,...]\n"
               "              [--launch-agent 'CMD {host}'] [--store-addr ADDR] [--timeout SEC]\n"
               "              [--bind-to core|none] [--oversubscribe] [--] prog [args...]\n"
               "              [: [-n N] [--] prog2 [args...]]...\n"
               "  -V, --version        print mpirun's (mbmpi's) version\n"
               "  -n, -np N            number of ranks (default: number of --host entries, else 1)\n"
               "  --provider NAME      sets MBMPI_PROVIDER=NAME for the ranks: mbshm (one host,\n"
               "                       the default there), net (between hosts, the default\n"
               "                       there where libfabric has it), shm, tcp (tcp;ofi_rxm),\n"
               "                       sockets, verbs, udp\n"
               "  -x VAR[=VAL]         export VAR (from mpirun's environment, or set to VAL)\n"
               "  --host a,b,...       one slot per entry, in order; more ranks than entries:\n"
               "                       by block. 'localhost' runs locally, others through\n"
               "                       the launch agent\n"
               "  --launch-agent CMD   default 'ssh {host}'; run as CMD env VAR=... prog args\n"
               "  --store-addr ADDR    address of this machine that the ranks connect to\n"
               "                       (default 127.0.0.1, or the first non-loopback IPv4\n"
               "                       address when some host is not local)\n"
               "  --timeout SEC        end the job after SEC seconds, exit 124 (env MBMPI_TIMEOUT)\n"
               "  --bind-to core|none  pin each rank to one CPU, or not (sets MBMPI_BIND; default:\n"
               "                       core, round robin, when a host runs 2 or more ranks)\n"
               "  --report-bindings    each rank says at MPI_Init the CPU it is bound to\n"
               "  -l, --tag-output     each output line prefixed with its rank: '[3] text' (also\n"
               "                       -prepend-rank), '[1,3]<stdout>:text' (--tag-output)\n"
               "  : ...                another program in the same job (MPMD): its -n ranks follow\n"
               "                       the ranks before it; MPI_APPNUM numbers the programs\n"
               "Also taken, as Open MPI's and MPICH's mpiexec take them:\n"
               "  -c N, --host a:2,b:2 (2 slots each; also -hosts), --hostfile FILE (also\n"
               "  -machinefile, -f: lines 'host', 'host slots=N' or 'host:N'; with --host, the\n"
               "  hostfile's lines of the hosts --host names), -ppn N (also\n"
               "  -perhost, --npernode, -N: N ranks per host of the list), -wdir DIR (also\n"
               "  --wdir, -wd: the ranks' working directory), -genv VAR VAL / -env VAR VAL\n"
               "  (as -x VAR=VAL), -genvlist / -envlist a,b (as -x a -x b), --bind-to\n"
               "  hwthread (as core) or socket|numa|package|board|l1cache|l2cache|l3cache (as\n"
               "  none); accepted and ignored: --allow-run-as-root, --nooversubscribe, -q,\n"
               "  --quiet, -genvall, --use-hwthread-cpus, --map-by X, --rank-by X, --prefix DIR;\n"
               "  --mca NAME VALUE (also -mca, --gmca) is ignored with a note: mbmpi's\n"
               "  settings are MBMPI_* variables (bin/mbmpi_info)\n");
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

/* Appends host name (len bytes) `slots` times to a host list (--host's
 * or the hostfile's) */
static int add_host(char ***list, size_t *n, const char *name, size_t len, long slots)
{
    for (long k = 0; k < slots; k++) {
        char **h = realloc(*list, (*n + 1) * sizeof(*h));
        if (!h)
            return 0;
        *list = h;
        h[*n] = strndup(name, len);
        if (!h[*n])
            return 0;
        (*n)++;
    }
    return 1;
}

/* A host entry: "name", or "name:N" with N slots (Open MPI's --host and
 * MPICH's -hosts; a name with more than one ':' is an IPv6 address). 0:
 * out of memory, -1: bad slot count. */
static int add_host_entry(char ***list, size_t *n, const char *tok, long slots)
{
    const char *colon = strchr(tok, ':');

    if (colon && !strchr(colon + 1, ':')) {
        if (!parse_int(colon + 1, 1, MAX_RANKS, &slots))
            return -1;
        return add_host(list, n, tok, (size_t)(colon - tok), slots);
    }
    return add_host(list, n, tok, strlen(tok), slots);
}

static int split_hosts(job_t *job, const char *list)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int rc = 1;

    if (!copy)
        return 0;
    for (tok = strtok_r(copy, ",", &save); tok && rc == 1; tok = strtok_r(NULL, ",", &save))
        rc = add_host_entry(&job->hosts, &job->nhosts, tok, 1);
    if (rc < 0)
        fprintf(stderr, "mpirun: bad host entry in '%s' (name or name:slots)\n", list);
    free(copy);
    return rc;
}

/* A hostfile (Open MPI's --hostfile, MPICH's -f): one host per line,
 * "host", "host slots=N" (max_slots= ignored) or "host:N"; '#' starts a
 * comment; its entries go to job->hf_hosts (hosts_from_file merges them).
 * Returns 1, 0 (out of memory) or -1 (message printed). */
static int read_hostfile(job_t *job, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int rc = 1, lineno = 0;

    if (!f) {
        fprintf(stderr, "mpirun: cannot read hostfile '%s': %s\n", path, strerror(errno));
        return -1;
    }
    while (rc == 1 && fgets(line, sizeof(line), f)) {
        char *save = NULL, *host, *w, *hash = strchr(line, '#');
        long slots = 1;

        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "mpirun: %s:%d: line longer than %zu characters\n", path, lineno,
                    sizeof(line) - 2);
            rc = -1;
            break;
        }
        if (hash)
            *hash = '\0';
        host = strtok_r(line, " \t\r\n", &save);
        if (!host)
            continue;
        while ((w = strtok_r(NULL, " \t\r\n", &save))) {
            if (!strncmp(w, "slots=", 6)) {
                if (!parse_int(w + 6, 1, MAX_RANKS, &slots))
                    rc = -1;
            } else if (strncmp(w, "max_slots=", 10) && strncmp(w, "max-slots=", 10)) {
                rc = -1;
            }
        }
        if (rc == 1)
            rc = add_host_entry(&job->hf_hosts, &job->nhf, host, slots);
        if (rc < 0)
            fprintf(stderr, "mpirun: %s:%d: not 'host', 'host slots=N' or 'host:N'\n", path, lineno);
    }
    fclose(f);
    return rc;
}

/* The hosts of the job from a hostfile and --host, as Open MPI's orte_hosts
 * describes them: the hostfile alone is the list; with --host too, the
 * hostfile's entries of the hosts --host names (their slots the
 * hostfile's), and a --host name the hostfile lacks is an error. Returns 1,
 * 0 (out of memory) or -1 (message printed). */
static int hosts_from_file(job_t *job)
{
    size_t nh = job->nhosts, n = nh + job->nhf, nkeep = 0, i;
    char **all = NULL, **keep = NULL;
    size_t *canon = NULL;
    unsigned char *in_file = NULL;
    int rc = 1;

    if (!job->hostfile)
        return 1;
    if (!job->hosts) {
        job->hosts = job->hf_hosts;
        job->nhosts = job->nhf;
        job->hf_hosts = NULL;
        job->nhf = 0;
        return 1;
    }
    /* --host's names first, then the hostfile's: a hostfile entry whose
     * name --host gives has its canon below nh */
    all = malloc((n + 1) * sizeof(*all));
    canon = malloc((n + 1) * sizeof(*canon));
    in_file = calloc(nh + 1, 1);
    keep = malloc((job->nhf + 1) * sizeof(*keep));
    if (!all || !canon || !in_file || !keep) {
        rc = 0;
        goto out;
    }
    memcpy(all, job->hosts, nh * sizeof(*all));
    memcpy(all + nh, job->hf_hosts, job->nhf * sizeof(*all));
    if (!job_host_canon(all, n, canon)) {
        rc = 0;
        goto out;
    }
    for (i = nh; i < n; i++)
        if (canon[i] < nh) {
            in_file[canon[i]] = 1;
            keep[nkeep++] = all[i];
            job->hf_hosts[i - nh] = NULL;
        }
    for (i = 0; i < nh && rc == 1; i++)
        if (!in_file[canon[i]]) {
            fprintf(stderr,
                    "mpirun: --host %s: not a host of the hostfile (with both, --host picks from it)\n",
                    job->hosts[i]);
            rc = -1;
        }
out:
    for (i = 0; i < nh; i++)
        free(job->hosts[i]);
    free(job->hosts);
    job->hosts = keep;
    job->nhosts = nkeep;
    if (rc != 1) {
        for (i = 0; i < nkeep; i++)
            free(keep[i]);
        free(keep);
        job->hosts = NULL;
        job->nhosts = 0;
    }
    free(all);
    free(canon);
    free(in_file);
    return rc;
}

/* -ppn N: the hosts of the list, in order of first appearance, N slots each */
static int hosts_per_node(job_t *job, long ppn)
{
    char **old = job->hosts;
    size_t nold = job->nhosts, i;
    size_t *canon = malloc((nold + 1) * sizeof(*canon));
    int rc = canon && job_host_canon(old, nold, canon);

    job->hosts = NULL;
    job->nhosts = 0;
    for (i = 0; i < nold && rc; i++)
        if (canon[i] == i)
            rc = add_host(&job->hosts, &job->nhosts, old[i], strlen(old[i]), ppn);
    for (i = 0; i < nold; i++)
        free(old[i]);
    free(old);
    free(canon);
    return rc;
}

/* Appends an -x argument (VAR or VAR=VAL, allocated: job_free frees it) */
static int add_xvar(job_t *job, char *v)
{
    char **x = v ? realloc(job->xvars, (job->nx + 1) * sizeof(*x)) : NULL;

    if (!x) {
        free(v);
        return 0;
    }
    job->xvars = x;
    job->xvars[job->nx++] = v;
    return 1;
}

/* Open MPI's and MPICH's bind-to levels: what pins one rank to one CPU is
 * "core", anything wider "none" (mbmpi binds to a CPU or not at all) */
static const char *bind_level(const char *v)
{
    static const char *const wide[] = {"none",  "socket",  "numa",    "package",
                                       "board", "l1cache", "l2cache", "l3cache"};

    if (!strcmp(v, "core") || !strcmp(v, "hwthread"))
        return "core";
    for (size_t k = 0; k < sizeof(wide) / sizeof(wide[0]); k++)
        if (!strcmp(v, wide[k]))
            return "none";
    return NULL;
}

/* The options of one app context, from argv[*ip] up to its program. *n_p:
 * its -n (0: not given). Returns 0, or a usage error's exit code. */
static int parse_opts(job_t *job, int argc, char **argv, int *ip, long *n_p)
{
    static const char *const names[] = {
        "np",           "n",        "c",          "provider", "x",        "host",        "H",       "hosts",
        "launch-agent", "timeout",  "store-addr", "bind-to",  "hostfile", "machinefile", "f",       "ppn",
        "perhost",      "npernode", "N",          "wdir",     "wd",       "genvlist",    "envlist", "map-by",
        "rank-by",      "prefix",   "mca",        "gmca",     "genv",     "env"};
    /* options without a value that mean nothing here */
    static const char *const tags[] = {"l", "prepend-rank", "tag-output"};
    static const char *const noops[] = {
        "oversubscribe",     "nooversubscribe", "allow-run-as-root", "q", "quiet",
        "use-hwthread-cpus", "genvall"};
    size_t k, nnames = sizeof(names) / sizeof(names[0]);
    const char *val;
    long n = 0;
    int i;

    for (i = *ip; i < argc; i++) {
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
        if (!strcmp(a, "-V") || !strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("mpirun (mbmpi) %s\n", MBMPI_VERSION);
            exit(0);
        }
        for (k = 0; k < sizeof(tags) / sizeof(tags[0]) && !name; k++)
            if (opt_match(a, tags[k], &val) && !val) {
                name = tags[k];
                job->tag = k < 2 ? 1 : 2;
            }
        if (opt_match(a, "report-bindings", &val) && !val) {
            job->report_bindings = 1;
            continue;
        }
        for (k = 0; k < sizeof(noops) / sizeof(noops[0]) && !name; k++)
            if (opt_match(a, noops[k], &val) && !val)
                name = noops[k];
        if (name)
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
        if (!strcmp(name, "mca") || !strcmp(name, "gmca") || !strcmp(name, "genv") || !strcmp(name, "env")) {
            /* NAME VALUE: two words */
            if (i + 1 >= argc || strchr(a, '=')) {
                fprintf(stderr, "mpirun: option '%s' needs a name and a value\n", a);
                return 2;
            }
            const char *v2 = argv[++i];
            if (!strcmp(name, "mca") || !strcmp(name, "gmca")) {
                fprintf(stderr,
                        "mpirun: ignoring %s %s %s: Open MPI's MCA parameters do not apply to mbmpi "
                        "(its settings are MBMPI_* variables: bin/mbmpi_info)\n",
                        a, val, v2);
                continue;
            }
            if (val[0] == '\0' || strchr(val, '=')) {
                fprintf(stderr, "mpirun: bad variable name '%s' for %s\n", val, a);
                return 2;
            }
            char *kv;
            if (asprintf(&kv, "%s=%s", val, v2) < 0 || !add_xvar(job, kv))
                return 1;
            continue;
        }
        if (!strcmp(name, "np") || !strcmp(name, "n") || !strcmp(name, "c")) {
            if (!parse_int(val, 1, MAX_RANKS, &n)) {
                fprintf(stderr, "mpirun: bad number of ranks '%s' (1..%d)\n", val, MAX_RANKS);
                return 2;
            }
        } else if (!strcmp(name, "provider")) {
            job->provider = val;
        } else if (!strcmp(name, "bind-to")) {
            job->bind = bind_level(val);
            if (!job->bind) {
                fprintf(stderr,
                        "mpirun: bad --bind-to '%s' (core or none; also hwthread, socket, numa, ...)\n", val);
                return 2;
            }
        } else if (!strcmp(name, "hostfile") || !strcmp(name, "machinefile") || !strcmp(name, "f")) {
            int hrc = read_hostfile(job, val);

            job->hostfile = 1;
            if (hrc <= 0)
                return hrc < 0 ? 2 : 1;
        } else if (!strcmp(name, "ppn") || !strcmp(name, "perhost") || !strcmp(name, "npernode") ||
                   !strcmp(name, "N")) {
            if (!parse_int(val, 1, MAX_RANKS, &job->ppn)) {
                fprintf(stderr, "mpirun: bad ranks per host '%s'\n", val);
                return 2;
            }
        } else if (!strcmp(name, "wdir") || !strcmp(name, "wd")) {
            job->wdir = val;
        } else if (!strcmp(name, "genvlist") || !strcmp(name, "envlist")) {
            char *copy = strdup(val), *save = NULL, *tok;
            if (!copy)
                return 1;
            for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                if (!add_xvar(job, strdup(tok))) {
                    free(copy);
                    return 1;
                }
            free(copy);
        } else if (!strcmp(name, "map-by") || !strcmp(name, "rank-by") || !strcmp(name, "prefix")) {
            /* Open MPI's mapping and install prefix: ranks are placed by
             * block over --host and bound round robin here */
        } else if (!strcmp(name, "x")) {
            if (val[0] == '=' || val[0] == '\0') {
                fprintf(stderr, "mpirun: bad -x '%s'\n", val);
                return 2;
            }
            if (!add_xvar(job, strdup(val)))
                return 1;
        } else if (!strcmp(name, "host") || !strcmp(name, "H") || !strcmp(name, "hosts")) {
            int hrc = split_hosts(job, val);
            if (hrc <= 0)
                return hrc < 0 ? 2 : 1;
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
    *ip = i;
    *n_p = n;
    return 0;
}

/*
 * Several programs in one job (MPMD, MPI 4.0 11.5.2's mpiexec form):
 * "mpirun -n 1 ./a : -n 3 ./b args" runs ranks 0 of a and 1..3 of b in one
 * MPI_COMM_WORLD; each rank's MPI_APPNUM is its app context's index. The
 * options of every context apply to the whole job, except -n (default 1
 * in a job of several contexts). A ':' alone ends a context's arguments.
 */
int job_parse_args(job_t *job, int argc, char **argv)
{
    int i = 1, rc;
    long n = 0, total = 0;
    const char *env;

    for (;;) {
        int start;
        job_app_t *apps;

        rc = parse_opts(job, argc, argv, &i, &n);
        if (rc)
            return rc;
        if (i >= argc || !strcmp(argv[i], ":")) {
            fprintf(stderr, "mpirun: no program to run%s\n", job->napps ? " after ':'" : "");
            usage(stderr);
            return 2;
        }
        start = i;
        while (i < argc && strcmp(argv[i], ":"))
            i++;
        apps = realloc(job->apps, (job->napps + 1) * sizeof(*apps));
        if (!apps)
            return 1;
        job->apps = apps;
        job->apps[job->napps].n = (int)n;
        job->apps[job->napps].argv = argv + start;
        job->napps++;
        total += n ? n : 1;
        if (total > MAX_RANKS) {
            fprintf(stderr, "mpirun: more than %d ranks\n", MAX_RANKS);
            return 2;
        }
        if (i >= argc)
            break;
        argv[i++] = NULL; /* the ':' ends this context's argv */
    }
    rc = hosts_from_file(job);
    if (rc <= 0)
        return rc < 0 ? 2 : 1;
    if (job->hosts && job->nhosts == 0) {
        fprintf(stderr, "mpirun: empty --host list\n");
        return 2;
    }
    if (job->ppn && job->hosts && !hosts_per_node(job, job->ppn))
        return 1;
    if (job->napps == 1) {
        /* -ppn N alone (one host): N ranks, as Open MPI's -N and MPICH's -ppn */
        job->n = n ? (int)n : job->nhosts ? (int)job->nhosts : job->ppn ? (int)job->ppn : 1;
        job->apps[0].n = job->n;
    } else {
        for (int k = 0; k < job->napps; k++)
            if (job->apps[k].n == 0)
                job->apps[k].n = 1;
        job->n = (int)total;
    }
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
