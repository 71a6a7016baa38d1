/*
 * mpi/bsend.c: buffered mode (MPI 3.1 3.6): MPI_Buffer_attach / detach,
 * MPI_Bsend, MPI_Ibsend (MPI_Bsend_init starts through mpii_bsend).
 *
 * The attached buffer is managed as the standard describes: each message
 * takes MPI_BSEND_OVERHEAD + its packed size of it (first fit between the
 * blocks in use, kept sorted by offset), is packed there and sent with an
 * ordinary nonblocking send from that copy, so the Bsend returns at once
 * whatever the receiver does. A block is reclaimed when its send completes
 * (checked at every Bsend and at detach). MPI_ERR_BUFFER when the message
 * does not fit even after reclaiming (and progressing briefly);
 * MPI_Buffer_detach waits for every buffered message to be delivered.
 */
#include "mpi/mpi3.h"
#include "util/status.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define BS_WAIT 0.5 /* seconds a Bsend waits for space before MPI_ERR_BUFFER */

typedef struct bs_block {
    size_t off;              /* offset in the attached buffer */
    size_t size;             /* MPI_BSEND_OVERHEAD + packed bytes */
    MPI_Request req;         /* the send from this block */
} bs_block_t;

static char *bs_buf;         /* attached buffer, NULL when none */
static size_t bs_size;
static bs_block_t *bs_blocks; /* blocks in use, sorted by off */
static int bs_n;
static int bs_cap;

/* Release the blocks whose sends completed. */
static void bs_reclaim(void)
{
    int i, j = 0;

    for (i = 0; i < bs_n; i++) {
        mpii_request_t *r = mpii_request_get(bs_blocks[i].req);
        if (!r || r->pr.done) {
            if (r)
                mpii_req_complete(r, &bs_blocks[i].req, NULL);
            continue;
        }
        bs_blocks[j++] = bs_blocks[i];
    }
    bs_n = j;
}

/* First fit: offset of a free run of `size` bytes, or -1. Sets *at_p to the
 * index the new block takes in the sorted array. */
static long bs_find(size_t size, int *at_p)
{
    size_t start = 0;
    int i;

    for (i = 0; i <= bs_n; i++) {
        size_t end = i < bs_n ? bs_blocks[i].off : bs_size;
        if (end >= start && end - start >= size) {
            *at_p = i;
            return (long)start;
        }
        if (i < bs_n)
            start = bs_blocks[i].off + bs_blocks[i].size;
    }
    return -1;
}

int mpii_bsend(const void *buf, int count, mpii_datatype_t *dt, int dest, int tag, mpii_comm_t *c,
               MPI_Request *inner)
{
    size_t len = (size_t)count * dt->size, need = len + MPI_BSEND_OVERHEAD;
    double t0 = -1;
    long off;
    int at, rc, tries;
    char *data;

    if (len > INT_MAX)
        return MPI_ERR_COUNT;
    bs_reclaim();
    off = bs_buf ? bs_find(need, &at) : -1;
    /* Sends still in flight may just be waiting for the network to report
     * them done (an eager message over tcp on a loaded host): progress for
     * up to BS_WAIT seconds before calling the buffer full. A message that
     * waits for its receive (rendezvous) may not complete at all, so the
     * wait is bounded: Bsend stays a local operation. */
    for (tries = 0; off < 0 && bs_buf && bs_n; tries++) {
        if (tries % 64 == 63) {
            if (t0 < 0)
                t0 = MPI_Wtime();
            else if (MPI_Wtime() - t0 > BS_WAIT)
                break;
            mpii_mt_yield();
            sched_yield();
        }
        mpii_progress();
        bs_reclaim();
        off = bs_find(need, &at);
    }
    if (off < 0)
        return MPI_ERR_BUFFER;
    if (bs_n == bs_cap) {
        int nc = bs_cap ? bs_cap * 2 : 16;
        bs_block_t *t = realloc(bs_blocks, (size_t)nc * sizeof(*t));
        if (!t)
            return MPI_ERR_NO_MEM;
        bs_blocks = t;
        bs_cap = nc;
    }
    data = bs_buf + off + MPI_BSEND_OVERHEAD;
    if (len) {
        if (dt->contig)
            memcpy(data, (const char *)buf + dt->true_lb, len);
        else
            mpii_datatype_pack(buf, (size_t)count, dt, data);
    }
    memmove(&bs_blocks[at + 1], &bs_blocks[at], (size_t)(bs_n - at) * sizeof(*bs_blocks));
    bs_blocks[at].off = (size_t)off;
    bs_blocks[at].size = need;
    bs_blocks[at].req = MPI_REQUEST_NULL;
    bs_n++;
    rc = mpii_isend_ctx(data, (int)len, MPI_BYTE, dest, tag, c, 0, &bs_blocks[at].req);
    if (rc != MPI_SUCCESS) {
        memmove(&bs_blocks[at], &bs_blocks[at + 1], (size_t)(bs_n - at - 1) * sizeof(*bs_blocks));
        bs_n--;
    } else if (inner) {
        *inner = bs_blocks[at].req;
    }
    return rc;
}

void mpii_bsend_cancel(MPI_Request inner, int *cancelled)
{
    mpii_request_t *r;
    int i;

    *cancelled = 0;
    /* (a block reclaimed since: the message went; its handle may be another
     * request's by now, so only a block still holding it counts) */
    for (i = 0; i < bs_n && bs_blocks[i].req != inner; i++)
        ;
    if (i == bs_n || !(r = mpii_request_get(inner)))
        return;
    proto_cancel(mpii_g.p, &r->pr);
    mpii_progress_wait(&r->pr.done);
    *cancelled = r->pr.cancelled != 0;
}

void mpii_bsend_flush(void)
{
    long idle = 0;

    bs_reclaim();
    while (bs_n) {
        if (mpii_progress() > 0) {
            idle = 0;
        } else {
            mpii_idle_wait(&idle);
        }
        bs_reclaim();
    }
}

int MPI_Buffer_attach(void *buffer, int size)
{
    static const char fn[] = "MPI_Buffer_attach";

    MPII_CHECK_INIT(fn);
    if (size < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "negative size %d", size);
    if (!buffer && size > 0)
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "buffer is NULL with size %d", size);
    if (bs_buf)
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "a buffer is already attached (detach it first)");
    bs_buf = buffer ? buffer : (char *)&bs_size; /* a zero-size buffer is still attached */
    bs_size = (size_t)size;
    bs_n = 0;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char fn[] = "MPI_Buffer_detach";

    MPII_CHECK_INIT(fn);
    if (!buffer_addr || !size)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", !buffer_addr ? "buffer_addr" : "size");
    if (!bs_buf) {
        /* Nothing attached: MPI leaves this unspecified; report an empty buffer. */
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    mpii_bsend_flush();
    *(void **)buffer_addr = bs_buf == (char *)&bs_size ? NULL : bs_buf;
    *size = (int)bs_size;
    bs_buf = NULL;
    bs_size = 0;
    free(bs_blocks);
    bs_blocks = NULL;
    bs_cap = 0;
    return MPI_SUCCESS;
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bsend";
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = mpii_p2p_check(fn, comm, &c, buf, count, datatype, &dt, dest, tag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rc = mpii_bsend(buf, count, dt, dest, tag, c, NULL);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s", rc == MPI_ERR_BUFFER ? "the attached buffer has no room for the message"
                                                                : "could not start the send");
    return MPI_SUCCESS;
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    static const char fn[] = "MPI_Ibsend";
    mpii_request_t *r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc;

    rc = mpii_p2p_check(fn, comm, &c, buf, count, datatype, &dt, dest, tag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err(c, MPI_ERR_ARG, fn, "request is NULL");
    if (dest != MPI_PROC_NULL) {
        rc = mpii_bsend(buf, count, dt, dest, tag, c, &inner);
        if (rc != MPI_SUCCESS)
            return mpii_err(c, rc, fn, "%s",
                            rc == MPI_ERR_BUFFER ? "the attached buffer has no room for the message"
                                                 : "could not start the send");
    }
    /* The data is in the attached buffer: the request is complete (and
     * names the send from there, for MPI_Cancel). */
    r = mpii_req_new();
    if (!r)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpii_req_set_done(r, c, MPII_REQ_SEND, MPI_PROC_NULL);
    r->bs_inner = inner;
    *request = r->handle;
    return MPI_SUCCESS;
}
