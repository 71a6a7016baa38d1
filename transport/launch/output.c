/*
 * transport/launch/output.c: bin/mpirun's tagged output (-l, --tag-output).
 * Without a tag the ranks write straight to mpirun's stdout and stderr.
 * With one, each rank's stdout and stderr are pipes that mpirun reads in
 * its poll loop and copies out line by line, each line prefixed with the
 * rank: "[3] text" (MPICH's -l) or "[1,3]<stdout>:text" (Open MPI's
 * --tag-output). A line without its newline is completed when the rank
 * closes the stream; one longer than OUT_LINE_MAX goes out in pieces. When
 * mpirun's stdout or stderr refuses a write (a closed pipe: mpirun -l ... |
 * head), the job ends as the ranks would have by SIGPIPE (exit 141).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job.h"

#define OUT_LINE_MAX 65536

int job_output_open(job_t *job, int r, int child_fds[2])
{
    int p[2][2], s;

    child_fds[0] = child_fds[1] = -1;
    if (!job->tag)
        return 1;
    for (s = 0; s < 2; s++) {
        if (pipe2(p[s], O_CLOEXEC) < 0) {
            fprintf(stderr, "mpirun: pipe: %s\n", strerror(errno));
            if (s == 1) {
                close(p[0][0]);
                close(p[0][1]);
            }
            return 0;
        }
    }
    for (s = 0; s < 2; s++) {
        rank_out_t *o = &job->ranks[r].out[s];
        fcntl(p[s][0], F_SETFL, fcntl(p[s][0], F_GETFL) | O_NONBLOCK);
        o->fd = p[s][0];
        o->open = 1;
        o->len = 0;
        child_fds[s] = p[s][1];
    }
    return 1;
}

void job_output_child(const int child_fds[2])
{
    if (child_fds[0] >= 0) {
        dup2(child_fds[0], STDOUT_FILENO);
        dup2(child_fds[1], STDERR_FILENO);
    }
}

void job_output_parent(const int child_fds[2])
{
    if (child_fds[0] >= 0) {
        close(child_fds[0]);
        close(child_fds[1]);
    }
}

/* Writes len bytes of stream s of rank r as one line (adds the newline);
 * nothing once mpirun's own stream refused a write */
static void emit(const job_t *job, int r, int s, const char *text, size_t len)
{
    FILE *f = s ? stderr : stdout;

    if (job->output_lost)
        return;
    if (job->tag == 1)
        fprintf(f, "[%d] ", r);
    else
        fprintf(f, "[1,%d]<%s>:", r, s ? "stderr" : "stdout");
    fwrite(text, 1, len, f);
    fputc('\n', f);
}

/* Reads what stream s of rank r has; copies out its whole lines. At end of
 * file (or error) the rest goes out as a line and the stream is closed. */
static void forward(job_t *job, int r, int s)
{
    rank_out_t *o = &job->ranks[r].out[s];
    char chunk[16384];
    ssize_t k;

    for (;;) {
        k = read(o->fd, chunk, sizeof(chunk));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (k <= 0) {
            if (o->len)
                emit(job, r, s, o->buf, o->len);
            o->len = 0;
            close(o->fd);
            o->open = 0;
            break;
        }
        for (ssize_t i = 0; i < k;) {
            char *nl = memchr(chunk + i, '\n', (size_t)(k - i));
            size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)(k - i);
            if (o->len + take > o->cap) {
                size_t cap = o->len + take < 256 ? 256 : (o->len + take) * 2;
                char *b = realloc(o->buf, cap);
                if (!b) { /* out of memory: the line goes out as it is */
                    emit(job, r, s, o->buf, o->len);
                    o->len = 0;
                    emit(job, r, s, chunk + i, take);
                    i += (ssize_t)take + (nl ? 1 : 0);
                    continue;
                }
                o->buf = b;
                o->cap = cap;
            }
            memcpy(o->buf + o->len, chunk + i, take);
            o->len += take;
            i += (ssize_t)take;
            if (nl) {
                emit(job, r, s, o->buf, o->len);
                o->len = 0;
                i++;
            } else if (o->len >= OUT_LINE_MAX) {
                emit(job, r, s, o->buf, o->len);
                o->len = 0;
            }
        }
    }
    if (!job->output_lost && (fflush(s ? stderr : stdout) != 0 || ferror(s ? stderr : stdout)))
        job->output_lost = 1; /* a closed pipe (mpirun ... | head): mpirun.c ends the job */
}

size_t job_output_pollfds(const job_t *job, struct pollfd *fds, size_t max)
{
    size_t n = 0;

    if (!job->tag)
        return 0;
    for (int r = 0; r < job->n; r++)
        for (int s = 0; s < 2; s++)
            if (job->ranks[r].out[s].open && n < max) {
                fds[n].fd = job->ranks[r].out[s].fd;
                fds[n].events = POLLIN;
                fds[n].revents = 0;
                n++;
            }
    return n;
}

void job_output_process(job_t *job, const struct pollfd *fds, size_t n)
{
    size_t k = 0;

    if (!job->tag)
        return;
    /* the streams in the order job_output_pollfds listed them */
    for (int r = 0; r < job->n && k < n; r++)
        for (int s = 0; s < 2 && k < n; s++)
            if (job->ranks[r].out[s].open && job->ranks[r].out[s].fd == fds[k].fd) {
                if (fds[k].revents)
                    forward(job, r, s);
                k++;
            }
}

void job_output_drain(job_t *job, int ms)
{
    struct timespec t0, t;
    struct pollfd *fds;
    size_t n;

    if (!job->tag || !(fds = calloc((size_t)job->n * 2, sizeof(*fds))))
        return;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while ((n = job_output_pollfds(job, fds, (size_t)job->n * 2)) > 0) {
        long left;
        clock_gettime(CLOCK_MONOTONIC, &t);
        left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0 || poll(fds, n, (int)left) <= 0)
            break; /* a process the rank left behind holds the pipe */
        job_output_process(job, fds, n);
    }
    free(fds);
    for (int r = 0; r < job->n; r++)
        for (int s = 0; s < 2; s++) {
            rank_out_t *o = &job->ranks[r].out[s];
            if (o->open) {
                if (o->len)
                    emit(job, r, s, o->buf, o->len);
                close(o->fd);
                o->open = 0;
            }
            free(o->buf);
            o->buf = NULL;
        }
    fflush(stdout);
    fflush(stderr);
}
