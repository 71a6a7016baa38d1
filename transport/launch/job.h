/*
 * transport/launch/job.h: bin/mpirun's job description, shared by
 * mpirun.c (the poll loop and the ending rules), options.c (the command
 * line) and spawn.c (placement and fork/exec of the ranks).
 */
#ifndef LAUNCH_JOB_H
#define LAUNCH_JOB_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "store.h"

#define MAX_RANKS 65536

/* A rank's stdout (0) or stderr (1) read through a pipe (tagged output) */
typedef struct rank_out {
    int fd;
    int open;
    char *buf; /* the line so far */
    size_t len, cap;
} rank_out_t;

typedef struct rank_proc {
    pid_t pid;                /* 0: not started */
    int reaped;
    int64_t lost_deadline;    /* connection lost: judge at this time (-1: no) */
    const char *host;         /* MBMPI_HOST */
    int via_agent;
    int local_rank;
    int local_size;
    rank_out_t out[2];
} rank_proc_t;

/* One app context of the command line (MPMD: "prog1 : -n 2 prog2") */
typedef struct job_app {
    int n;       /* its ranks, after those of the contexts before it */
    char **argv; /* its program and arguments, NULL-terminated */
} job_app_t;

typedef enum job_state {
    JOB_RUNNING,
    JOB_ENDING,               /* SIGTERM sent, waiting for the ranks to go */
} job_state_t;

typedef struct job {
    /* options */
    int n;
    const char *provider;
    const char *bind; /* --bind-to: MBMPI_BIND for the ranks, or NULL */
    char **xvars;             /* -x arguments as given */
    size_t nx;
    char **hosts;             /* --host entries (NULL: all local) */
    size_t nhosts;
    char **hf_hosts; /* --hostfile entries while parsing (job_parse_args merges them) */
    size_t nhf;
    int hostfile; /* a hostfile was given */
    const char *agent;
    double timeout_s;
    const char *store_addr;
    long ppn;         /* -ppn: ranks per host of the list (0: as listed) */
    const char *wdir; /* -wdir: the ranks' working directory (NULL: mpirun's) */
    int tag;          /* output lines prefixed: 0 no, 1 "[r] " (-l), 2 "[1,r]<stdout>:" (--tag-output) */
    int report_bindings; /* --report-bindings: each rank says its CPU at MPI_Init */
    int output_lost;     /* tagged output: mpirun's stdout or stderr refused a write (closed pipe) */
    job_app_t *apps; /* the program(s): one app context or several */
    int napps;
    /* state */
    pid_t self;
    pid_t pgid;
    rank_proc_t *ranks;
    int nlive;                /* started and not reaped */
    int all_local;
    char hostname[256];
    char secret[BOOT_WIRE_SECRET_HEX + 1];
    char store_env[300];
    char jobid[40];           /* MBMPI_JOBID: "<pid>-<random>", names /dev/shm/mbshm-<jobid>-* */
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

/* options.c: parses argv into job (options and apps; it cuts argv at each ':'). Returns 0, or the
 * exit code of a usage error (message printed). */
int job_parse_args(job_t *job, int argc, char **argv);

/* spawn.c */
/* canon[i]: the first index of names[] that holds the same name as
 * names[i] (i itself for a name's first entry). Returns 0 when out of
 * memory. */
int job_host_canon(char *const *names, size_t n, size_t *canon);
/* Fills host, via_agent, local_rank and local_size of every rank, and
 * all_local. Returns 0 when out of memory. */
int job_place_ranks(job_t *job);
/* The first non-loopback IPv4 address of this machine, dotted. */
int job_first_ipv4(char *buf, size_t len);
/* 128 random bits from /dev/urandom as BOOT_WIRE_SECRET_HEX hex digits. */
int job_make_secret(char *out);
/* Forks and execs rank r (directly, or through the launch agent). Returns
 * 1, or 0 when it could not be started (reported on stderr). */
int job_launch_rank(job_t *job, int r);

/* output.c (tagged output; each a no-op without a tag) */
/* Before fork: pipes for rank r's stdout and stderr; the child's ends in
 * child_fds (-1 without a tag). Returns 0 when they cannot be made. */
int job_output_open(job_t *job, int r, int child_fds[2]);
void job_output_child(const int child_fds[2]);  /* in the child: dup2 them to 1 and 2 */
void job_output_parent(const int child_fds[2]); /* in mpirun: close them */
/* The open output pipes, for poll(); then copies out what they have. */
size_t job_output_pollfds(const job_t *job, struct pollfd *fds, size_t max);
void job_output_process(job_t *job, const struct pollfd *fds, size_t n);
/* After the last rank ended: what is left in the pipes, for up to ms */
void job_output_drain(job_t *job, int ms);

#endif
