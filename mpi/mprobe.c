/*
 * mpi/mprobe.c: matched probe and receive (MPI 3.1 3.8.2-3.8.3):
 * MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv and MPI_Message handles.
 *
 * A matched probe takes the message out of proto/'s unexpected queue
 * (proto_improbe), so no other receive or probe can match it; the MPI_Message
 * handle names it until MPI_Mrecv / MPI_Imrecv receives it (proto_imrecv: an
 * eager payload is copied, an RTS is answered with its CTS only now that
 * the buffer is known). MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
 */
#include "mpi/mpi3.h"
#include "util/status.h"

#include <sched.h>
#include <stdlib.h>

typedef struct mp_msg {
    proto_msg_t *pm;         /* NULL: handle free */
    mpii_comm_t *comm;
    int src;
    int tag;
    size_t len;
} mp_msg_t;

static mp_msg_t *msgs;       /* handle -> message; 0 and 1 are the predefined handles */
static int nmsgs;

static int msg_new(mpii_comm_t *c, proto_msg_t *pm, int src, int tag, size_t len, MPI_Message *h_p)
{
    int h;

    for (h = 2; h < nmsgs && msgs[h].pm; h++)
        ;
    if (h >= nmsgs) {
        int nn = nmsgs ? nmsgs * 2 : 64;
        mp_msg_t *t = realloc(msgs, (size_t)nn * sizeof(*t));
        if (!t)
            return MPI_ERR_NO_MEM;
        for (h = nmsgs; h < nn; h++)
            t[h].pm = NULL;
        h = nmsgs > 2 ? nmsgs : 2;
        msgs = t;
        nmsgs = nn;
    }
    msgs[h].pm = pm;
    msgs[h].comm = c;
    msgs[h].src = src;
    msgs[h].tag = tag;
    msgs[h].len = len;
    *h_p = h;
    return MPI_SUCCESS;
}

static void status_proc_null(MPI_Status *st)
{
    if (!st)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->mbmpi_count = 0;
    st->mbmpi_cancelled = 0;
}

static int mprobe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                         MPI_Status *status, int blocking)
{
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    proto_msg_t *pm = NULL;
    long idle = 0;
    int rc, f = 0, s = 0, t = 0;
    size_t len = 0;

    rc = mpii_p2p_check(fn, comm, &c, NULL, 0, MPI_BYTE, &dt, source, tag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!message || (!blocking && !flag))
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !message ? "message" : "flag");
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    for (;;) {
        proto_improbe(mpii_g.p, source == MPI_ANY_SOURCE ? -1 : c->peer_ranks[source],
                      source == MPI_ANY_SOURCE ? PROTO_ANY : source, mpii_comm_ctx(c, 0),
                      tag == MPI_ANY_TAG ? PROTO_ANY : tag, &f, &pm, &s, &t, &len);
        if (f || (!blocking && idle))
            break;
        /* Iprobe semantics: one progress pass, then look again once. */
        if (mpii_progress() > 0)
            idle = blocking ? 0 : 1;
        else if (!blocking)
            idle = 1;
        else {
            mpii_idle_wait(&idle);
        }
    }
    if (flag)
        *flag = f;
    if (!f)
        return MPI_SUCCESS;
    rc = msg_new(c, pm, s, t, len, message);
    if (rc != MPI_SUCCESS) {
        /* Out of handles: the message is lost to matching; receive and drop it. */
        return mpii_err(c, rc, fn, "out of memory for a message handle");
    }
    if (status) {
        status->MPI_SOURCE = s;
        status->MPI_TAG = t;
        status->mbmpi_count = (long long)len;
        status->mbmpi_cancelled = 0;
    }
    return MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe_common("MPI_Mprobe", source, tag, comm, NULL, message, status, 1);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    return mprobe_common("MPI_Improbe", source, tag, comm, flag, message, status, 0);
}

/* Look up *message for a matched receive: *m_p NULL for MPI_MESSAGE_NO_PROC. */
static int msg_lookup(const char *fn, MPI_Message *message, mp_msg_t **m_p)
{
    MPII_CHECK_INIT(fn);
    if (!message)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *m_p = NULL;
        return MPI_SUCCESS;
    }
    if (*message < 2 || *message >= nmsgs || !msgs[*message].pm)
        return mpii_err(NULL, MPI_ERR_REQUEST, fn, "invalid message handle %d", *message);
    *m_p = &msgs[*message];
    return MPI_SUCCESS;
}

/* Validate the receive buffer against the message's communicator. */
static int mrecv_check(const char *fn, mp_msg_t *m, void *buf, int count, MPI_Datatype datatype,
                       mpii_datatype_t **dt_p)
{
    mpii_comm_t *c = m ? m->comm : NULL;
    mpii_datatype_t *dt;

    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", datatype);
    dt = mpii_datatype_get(datatype);
    if (!buf && count > 0 && dt->size > 0 && dt->true_lb == 0)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "buffer is NULL with count %d", count);
    *dt_p = dt;
    return MPI_SUCCESS;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    static const char fn[] = "MPI_Mrecv";
    mpii_datatype_t *dt;
    mpii_request_t r;
    mpii_comm_t *c;
    mp_msg_t *m = NULL; /* set by msg_lookup; gcc -O3 cannot see it */
    int rc;

    rc = msg_lookup(fn, message, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mrecv_check(fn, m, buf, count, datatype, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    *message = MPI_MESSAGE_NULL;
    if (!m) {
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    c = m->comm;
    r.handle = 0;
    r.tmp = NULL;
    r.persistent = 0;
    rc = mpii_mrecv_start(&r, buf, count, dt, c, m->pm);
    m->pm = NULL;
    if (rc != MPI_SUCCESS) {
        free(r.tmp);
        return mpii_err(c, rc, fn, "could not start the receive");
    }
    mpii_progress_wait(&r.pr.done);
    rc = mpii_req_complete(&r, NULL, status);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s (%lld bytes sent, %zu bytes of buffer)", mpii_req_err_text(rc),
                        (long long)r.pr.st_len, r.ubytes);
    return MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    static const char fn[] = "MPI_Imrecv";
    mpii_datatype_t *dt;
    mpii_request_t *r;
    mpii_comm_t *c;
    mp_msg_t *m = NULL; /* set by msg_lookup; gcc -O3 cannot see it */
    int rc;

    rc = msg_lookup(fn, message, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mrecv_check(fn, m, buf, count, datatype, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err(m ? m->comm : NULL, MPI_ERR_ARG, fn, "request is NULL");
    c = m ? m->comm : mpii_comm_get(MPI_COMM_WORLD);
    r = mpii_req_new();
    if (!r)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *message = MPI_MESSAGE_NULL;
    if (!m) {
        mpii_req_set_done(r, c, MPII_REQ_RECV, MPI_PROC_NULL);
        *request = r->handle;
        return MPI_SUCCESS;
    }
    rc = mpii_mrecv_start(r, buf, count, dt, c, m->pm);
    m->pm = NULL;
    if (rc != MPI_SUCCESS) {
        mpii_req_release(r);
        return mpii_err(c, rc, fn, "could not start the receive");
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

MPI_Message MPI_Message_f2c(MPI_Fint message)
{
    return message;
}

MPI_Fint MPI_Message_c2f(MPI_Message message)
{
    return message;
}
