/*
 * transport/launch/options.c: bin/mpirun's command line (see usage()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: mpirun [-n|-np N] [--provider NAME] [-x VAR[=VAL]]... [--host a,b,...]\n"
               "              [--launch-agent 'CMD {host}'] [--store-addr ADDR] [--timeout SEC]\n"
               "              [--bind-to core|none] [--oversubscribe] [--] prog [args...]\n"
               "              [: [-n N] [--] prog2 [args...]]...\n"
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
               "  : ...                another program in the same job (MPMD): its -n ranks follow\n"
               "                       the ranks before it; MPI_APPNUM numbers the programs\n");
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

/* The options of one app context, from argv[*ip] up to its program. *n_p:
 * its -n (0: not given). Returns 0, or a usage error's exit code. */
static int parse_opts(job_t *job, int argc, char **argv, int *ip, long *n_p)
{
    static const char *const names[] = {"np", "n", "provider", "x", "host", "H", "launch-agent", "timeout",
                                        "store-addr", "bind-to"};
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
        } else if (!strcmp(name, "bind-to")) {
            if (strcmp(val, "core") && strcmp(val, "none")) {
                fprintf(stderr, "mpirun: bad --bind-to '%s' (core or none)\n", val);
                return 2;
            }
            job->bind = val;
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
    if (job->hosts && job->nhosts == 0) {
        fprintf(stderr, "mpirun: empty --host list\n");
        return 2;
    }
    if (job->napps == 1) {
        job->n = n ? (int)n : (job->nhosts ? (int)job->nhosts : 1);
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
