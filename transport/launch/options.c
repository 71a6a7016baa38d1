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
               "                       core, round robin, when a host runs 2 or more ranks)\n");
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

int job_parse_args(job_t *job, int argc, char **argv)
{
    int i;
    long n = 0;
    const char *val, *env;

    static const char *const names[] = {"np", "n", "provider", "x", "host", "H", "launch-agent", "timeout",
                                        "store-addr", "bind-to"};
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
