/*
 * mpi/dynamic.c: the calls of MPI 4.0 chapter 11 (process creation and
 * management) that make sense for a job whose processes all start together.
 *
 * MPI_Comm_get_parent gives MPI_COMM_NULL: no process was spawned.
 * MPI_Comm_spawn and MPI_Comm_spawn_multiple are collective over comm and
 * fail at every member with MPI_ERR_SPAWN (11.8.1: an implementation may be
 * unable to start processes), each errcode set to it. MPI_Comm_disconnect
 * (11.10.4) waits for the communicator's requests in flight, synchronises
 * its members (intra- or inter-communicator) and frees it.
 *
 * Ports (10.4) connect processes of this job: MPI_Open_port names the
 * world rank that opened it, MPI_Comm_connect's root sends its world rank
 * there on MPI_COMM_WORLD's collective context, and both sides build the
 * inter-communicator over that context (mpii_intercomm_create). A port of
 * another job (its key, a hash of the job's secret, differs) is refused.
 * MPI_Comm_join swaps the world ranks over the socket. Published names
 * are files in /tmp/mbmpi-names-<job key>/.
 */
#include "mpi/core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int MPI_Comm_get_parent(MPI_Comm *parent)
{
    MPII_CHECK_INIT("MPI_Comm_get_parent");
    if (!parent)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    if (!comm)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "comm is NULL");
    c = mpii_comm_get(*comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", *comm);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return mpii_err(c, MPI_ERR_COMM, fn, "cannot disconnect a predefined communicator");
    mpii_comm_drain(c);
    rc = MPI_Barrier(*comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Comm_free(comm);
}

static int spawn_fail(const char *fn, int nprocs, int root, MPI_Comm comm, MPI_Comm *intercomm,
                      int errcodes[])
{
    mpii_comm_t *c = mpii_comm_get(comm);
    int rc;

    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "comm is an inter-communicator");
    if (root < 0 || root >= c->size)
        return mpii_err(c, MPI_ERR_ROOT, fn, "invalid root %d (communicator has %d ranks)", root, c->size);
    if (!intercomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "intercomm is NULL");
    /* collective: the members return together, as after a real attempt */
    rc = MPI_Barrier(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *intercomm = MPI_COMM_NULL;
    if (errcodes && c->rank == root) /* nprocs is the root's */
        for (int i = 0; i < nprocs; i++)
            errcodes[i] = MPI_ERR_SPAWN;
    return mpii_err(c, MPI_ERR_SPAWN, fn, "mbmpi cannot start processes after MPI_Init");
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)command;
    (void)argv;
    (void)info;
    MPII_CHECK_INIT("MPI_Comm_spawn");
    return spawn_fail("MPI_Comm_spawn", maxprocs > 0 ? maxprocs : 0, root, comm, intercomm,
                      array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    int n = 0;

    (void)array_of_commands;
    (void)array_of_argv;
    (void)array_of_info;
    MPII_CHECK_INIT("MPI_Comm_spawn_multiple");
    /* the maxprocs are significant at the root only */
    if (array_of_maxprocs && count > 0)
        for (int i = 0; i < count; i++)
            n += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
    return spawn_fail("MPI_Comm_spawn_multiple", n, root, comm, intercomm, array_of_errcodes);
}

/* ------------------------------------------------------------ ports, names */

/* This job's key: ports and names of other jobs are refused */
static unsigned job_key(void)
{
    const char *s = getenv("MBMPI_SECRET");
    unsigned h = 2166136261u;
    char pid[32];

    if (!s) { /* a singleton: its own job */
        snprintf(pid, sizeof pid, "pid %d", (int)getpid());
        s = pid;
    }
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

#define PORT_TAG(seq) (0x7ff00000 + 2 * ((seq)&0x7ffff))
#define JOIN_TAG 0x7fe00000

static int port_seq;

/* "mbmpi-port:<job>:<world rank>:<seq>" -> its world rank and seq, or -1 */
static int port_parse(const char *port, int *seq)
{
    unsigned job;
    int rank, n = 0;
    if (!port || sscanf(port, "mbmpi-port:%x:%d:%d%n", &job, &rank, seq, &n) != 3 || port[n] != '\0' ||
        job != job_key() || rank < 0 || rank >= mpii_comm_get(MPI_COMM_WORLD)->size)
        return -1;
    return rank;
}

int MPI_Open_port(MPI_Info info, char *port_name)
{
    (void)info;
    MPII_CHECK_INIT("MPI_Open_port");
    if (!port_name)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Open_port", "port_name is NULL");
    snprintf(port_name, MPI_MAX_PORT_NAME, "mbmpi-port:%x:%d:%d", job_key(), mpii_g.rank, port_seq++);
    return MPI_SUCCESS;
}

int MPI_Close_port(const char *port_name)
{
    int seq;
    MPII_CHECK_INIT("MPI_Close_port");
    if (port_parse(port_name, &seq) != mpii_g.rank)
        return mpii_err(NULL, MPI_ERR_PORT, "MPI_Close_port", "\"%s\" is not a port this process opened",
                        port_name ? port_name : "(null)");
    return MPI_SUCCESS;
}

/* accept (connect = 0) or connect: the roots agree on the other root's
 * world rank, then an inter-communicator over MPI_COMM_WORLD's collective
 * context */
static int accept_connect(const char *fn, int connect, const char *port_name, int root, MPI_Comm comm,
                          MPI_Comm *newcomm)
{
    mpii_comm_t *c = mpii_comm_get(comm), *world = mpii_comm_get(MPI_COMM_WORLD);
    int v[2] = {MPI_SUCCESS, -1}, seq = 0, rc;

    if (!c || c->is_inter)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d (an intra-communicator is needed)",
                        comm);
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (root < 0 || root >= c->size)
        return mpii_err(c, MPI_ERR_ROOT, fn, "invalid root %d", root);
    *newcomm = MPI_COMM_NULL;
    /* port_name is significant at the root only */
    if (c->rank == root) {
        int owner = port_parse(port_name, &seq);
        if (owner < 0 || (!connect && owner != mpii_g.rank)) {
            v[0] = MPI_ERR_PORT;
        } else if (connect) {
            v[1] = owner;
            v[0] = mpii_send_ctx(&mpii_g.rank, 1, MPI_INT, owner, PORT_TAG(seq), world, 1);
        } else {
            v[0] =
                mpii_recv_ctx(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, PORT_TAG(seq), world, 1, MPI_STATUS_IGNORE);
        }
        v[1] = v[0] == MPI_SUCCESS ? v[1] : -1;
    }
    rc = MPI_Bcast(v, 2, MPI_INT, root, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(&seq, 1, MPI_INT, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (v[0] != MPI_SUCCESS)
        return mpii_err(c, v[0], fn, "invalid port \"%s\" at the root (not opened in this job%s)",
                        c->rank == root && port_name ? port_name : "",
                        connect ? "" : ", or by another process");
    return mpii_intercomm_create(fn, comm, root, MPI_COMM_WORLD, v[1], PORT_TAG(seq) + 1, 1, newcomm);
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    MPII_CHECK_INIT("MPI_Comm_accept");
    return accept_connect("MPI_Comm_accept", 0, port_name, root, comm, newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    MPII_CHECK_INIT("MPI_Comm_connect");
    return accept_connect("MPI_Comm_connect", 1, port_name, root, comm, newcomm);
}

/* whole writes and reads of the join handshake (and of published names);
 * `progress`: while the socket is not ready, the library progresses (the
 * other end may wait for a message of ours before it joins) */
static int fd_xfer(int fd, int wr, void *buf, size_t len, int progress)
{
    long idle = 0;
    for (size_t done = 0; done < len;) {
        ssize_t n;
        if (progress) {
            struct pollfd p = {.fd = fd, .events = wr ? POLLOUT : POLLIN};
            int r = poll(&p, 1, 0);
            if (r == 0) {
                if (mpii_progress() > 0)
                    idle = 0;
                else
                    mpii_idle_wait(&idle);
                continue;
            }
        }
        n = wr ? write(fd, (char *)buf + done, len - done) : read(fd, (char *)buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    unsigned mine[3] = {0x6d626a6fu, job_key(), 0}, theirs[3];

    MPII_CHECK_INIT(fn);
    if (!intercomm)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "intercomm is NULL");
    *intercomm = MPI_COMM_NULL;
    mine[2] = (unsigned)mpii_g.rank;
    if (fd_xfer(fd, 1, mine, sizeof mine, 1) || fd_xfer(fd, 0, theirs, sizeof theirs, 1))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "fd %d: the handshake failed (%s)", fd, strerror(errno));
    if (theirs[0] != mine[0] || theirs[1] != mine[1] || (int)theirs[2] >= mpii_comm_get(MPI_COMM_WORLD)->size)
        return mpii_err(NULL, MPI_ERR_PORT, fn, "the process at the other end of fd %d is not of this job",
                        fd);
    if ((int)theirs[2] == mpii_g.rank)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "both ends of fd %d are this process", fd);
    return mpii_intercomm_create(fn, MPI_COMM_SELF, 0, MPI_COMM_WORLD, (int)theirs[2], JOIN_TAG, 1,
                                 intercomm);
}

/* the published names: /tmp/mbmpi-names-<job>/<service, hex-escaped> */
static int name_path(const char *service, char *path, size_t n, int mkdir_too)
{
    int k = snprintf(path, n, "/tmp/mbmpi-names-%x", job_key());
    if (mkdir_too && mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    path[k++] = '/';
    for (const unsigned char *s = (const unsigned char *)service; *s; s++) {
        if ((size_t)k + 4 >= n)
            return -1;
        k += isalnum(*s) || *s == '_' || *s == '-' ? snprintf(path + k, n - (size_t)k, "%c", *s)
                                                   : snprintf(path + k, n - (size_t)k, "%%%02x", *s);
    }
    return 0;
}

int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    char path[512];
    int fd, ok;

    (void)info;
    MPII_CHECK_INIT(fn);
    if (!service_name || !port_name || !*service_name)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "NULL or empty argument");
    if (name_path(service_name, path, sizeof path, 1) != 0)
        return mpii_err(NULL, MPI_ERR_SERVICE, fn, "cannot publish \"%s\"", service_name);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return mpii_err(NULL, MPI_ERR_SERVICE, fn, "\"%s\": %s", service_name,
                        errno == EEXIST ? "already published" : strerror(errno));
    ok = fd_xfer(fd, 1, (void *)port_name, strlen(port_name), 0) == 0;
    close(fd);
    if (!ok) {
        unlink(path);
        return mpii_err(NULL, MPI_ERR_SERVICE, fn, "cannot publish \"%s\"", service_name);
    }
    return MPI_SUCCESS;
}

int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    char path[512];

    (void)info;
    (void)port_name;
    MPII_CHECK_INIT(fn);
    if (!service_name || name_path(service_name, path, sizeof path, 0) != 0 || unlink(path) != 0)
        return mpii_err(NULL, MPI_ERR_SERVICE, fn, "\"%s\" is not published",
                        service_name ? service_name : "");
    *strrchr(path, '/') = '\0';
    rmdir(path); /* the last name gone: the directory too */
    return MPI_SUCCESS;
}

int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    char path[512];
    ssize_t n;
    int fd;

    (void)info;
    MPII_CHECK_INIT(fn);
    if (!service_name || !port_name)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (name_path(service_name, path, sizeof path, 0) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return mpii_err(NULL, MPI_ERR_NAME, fn, "\"%s\" is not published", service_name);
    n = read(fd, port_name, MPI_MAX_PORT_NAME - 1);
    close(fd);
    port_name[n > 0 ? n : 0] = '\0';
    return n > 0 ? MPI_SUCCESS : mpii_err(NULL, MPI_ERR_NAME, fn, "\"%s\" is not published", service_name);
}
