/*
 * mpi/shift/shift.c: MPIX_Shift, the Shift halo exchange of particle codes
 * (seeds/001): over a 3-D Cartesian communicator every rank gathers the
 * payload of every box within `depth` boxes in 6 depth exchanges (x row with
 * daisy chaining, then the row along y, then the plane along z). Layered on
 * the public MPI API only (it is a library on top of mbmpi's point-to-point),
 * with the step plan shared with the max-plus model (shift_plan.c).
 *
 * Variants:
 *   SSEND        per step, even coordinates Ssend then Recv, odd ones Recv
 *                then Ssend: deadlock-free on open chains and on rings of
 *                any length (the seed's setting, every message a rendezvous)
 *   SEND         the same order with MPI_Send (eager below the eager limit)
 *   NONBLOCKING  every receive of the whole exchange posted first (they land
 *                in disjoint slots), each send issued as soon as the block it
 *                forwards has arrived (Waitany), both directions overlapped;
 *                with mbmpi a message whose REQ reached the sender before it
 *                sent goes by the write protocol (the others race their
 *                REQ: conflicts, eager or RTS)
 * The public contract (layout, errors) is in mpi.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "mpi/mpi_impl.h"
#include "mpi/shift/shift_plan.h"

/* One call's state. */
typedef struct shift_ctx {
    MPI_Comm comm;
    mpii_comm_t *c; /* comm's internals: the Shift's messages use its collective context */
    MPI_Datatype dt;
    int count;
    char *base;            /* recvbuf */
    size_t slot_bytes;     /* count * extent: distance between slots */
    int contig;            /* dt has no gaps and lb 0: local copies may use memcpy */
    int tsize;             /* MPI_Type_size(dt) */
    MPI_Datatype plane_t;  /* z-phase block when not contiguous (rows of a plane), or MPI_DATATYPE_NULL */
    shift_geom_t geo;
    int nbr[SHIFT_NAXES][2]; /* rank at c - 1 ([0]) and c + 1 ([1]) along each axis, or MPI_PROC_NULL */
} shift_ctx_t;

/* One tag per step: the non-blocking variant may forward step k + 1 of an
 * axis before it sent step 1 (its own block waits for the previous axis),
 * so (source, tag) order alone could not tell the steps apart. */
static int tag_of(int depth, int axis, int dir, int k)
{
    return MPIX_SHIFT_TAG + (axis * 2 + (dir < 0)) * depth + (k - 1);
}

static char *slot_ptr(const shift_ctx_t *x, int slot)
{
    return x->base + (size_t)slot * x->slot_bytes;
}

/* Copy n elements of dt from src to dst (distinct places of user memory).
 * A non-contiguous type goes through MPI_Pack / MPI_Unpack so that the gaps
 * of its type map are never written. */
static int copy_elems(const shift_ctx_t *x, void *dst, const void *src, int n)
{
    int rc, size, pos = 0;
    void *tmp;

    if (n == 0)
        return MPI_SUCCESS;
    if (x->contig) {
        memcpy(dst, src, (size_t)n * (size_t)x->tsize);
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Pack_size(n, x->dt, x->comm, &size)) != MPI_SUCCESS)
        return rc;
    if (!(tmp = malloc(size > 0 ? (size_t)size : 1)))
        return MPI_ERR_NO_MEM;
    rc = MPI_Pack(src, n, x->dt, tmp, size, &pos, x->comm);
    if (rc == MPI_SUCCESS) {
        pos = 0;
        rc = MPI_Unpack(tmp, size, &pos, dst, n, x->dt, x->comm);
    }
    free(tmp);
    return rc;
}

/* A step whose peer is this rank (periodic axis of length 1): copy the block. */
static int copy_block(const shift_ctx_t *x, const shift_step_t *st)
{
    int rc;
    for (int r = 0; r < st->rows; r++) {
        char *dst = slot_ptr(x, st->recv_slot + r * st->row_stride);
        const char *src = slot_ptr(x, st->send_slot + r * st->row_stride);
        if ((rc = copy_elems(x, dst, src, st->row_len * x->count)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The (buffer, count, type) triple of a block of the plan. */
static void block_msg(const shift_ctx_t *x, const shift_step_t *st, int slot, char **buf, int *n,
                      MPI_Datatype *t)
{
    *buf = slot_ptr(x, slot);
    if (st->rows == 1) {
        *n = st->row_len * x->count;
        *t = x->dt;
    } else {
        *n = 1;
        *t = x->plane_t;
    }
}

static int peer(const shift_ctx_t *x, int axis, int dir)
{
    return x->nbr[axis][dir > 0];
}

static int do_send(const shift_ctx_t *x, const shift_step_t *st, int axis, int dir, int k, int variant)
{
    char *buf;
    int n;
    MPI_Datatype t;
    block_msg(x, st, st->send_slot, &buf, &n, &t);
    return mpii_send_ctx_sync(buf, n, t, peer(x, axis, dir), tag_of(x->geo.depth, axis, dir, k), x->c, 1,
                              variant == MPIX_SHIFT_SSEND);
}

static int do_recv(const shift_ctx_t *x, const shift_step_t *st, int axis, int dir, int k)
{
    char *buf;
    int n;
    MPI_Datatype t;
    block_msg(x, st, st->recv_slot, &buf, &n, &t);
    return mpii_recv_ctx(buf, n, t, peer(x, axis, -dir), tag_of(x->geo.depth, axis, dir, k), x->c, 1,
                         MPI_STATUS_IGNORE);
}

/* Blocking variants: steps in the plan's order; within a step the parity of
 * the coordinate along the axis decides who sends first, which breaks every
 * wait-for cycle (an odd rank always receives before it sends). */
static int shift_blocking(const shift_ctx_t *x, int variant)
{
    int rc, d = x->geo.depth;
    for (int a = 0; a < SHIFT_NAXES; a++)
        for (int dir = 1; dir >= -1; dir -= 2)
            for (int k = 1; k <= d; k++) {
                shift_step_t st;
                shift_plan_step(&x->geo, a, dir, k, &st);
                if (st.self) {
                    if ((rc = copy_block(x, &st)) != MPI_SUCCESS)
                        return rc;
                    continue;
                }
                int send_first = x->geo.coords[a] % 2 == 0;
                if (send_first && st.send && (rc = do_send(x, &st, a, dir, k, variant)) != MPI_SUCCESS)
                    return rc;
                if (st.recv && (rc = do_recv(x, &st, a, dir, k)) != MPI_SUCCESS)
                    return rc;
                if (!send_first && st.send && (rc = do_send(x, &st, a, dir, k, variant)) != MPI_SUCCESS)
                    return rc;
            }
    return MPI_SUCCESS;
}

/* Request slot of (axis, dir, k, receive or send). */
static int req_index(int depth, int axis, int dir, int k, int is_send)
{
    return (((axis * 2 + (dir < 0)) * depth) + (k - 1)) * 2 + is_send;
}

static int nb_isend(const shift_ctx_t *x, int axis, int dir, int k, MPI_Request *reqs)
{
    shift_step_t st;
    char *buf;
    int n;
    MPI_Datatype t;
    shift_plan_step(&x->geo, axis, dir, k, &st);
    if (!st.send)
        return MPI_SUCCESS;
    block_msg(x, &st, st.send_slot, &buf, &n, &t);
    return mpii_isend_ctx(buf, n, t, peer(x, axis, dir), tag_of(x->geo.depth, axis, dir, k), x->c, 1,
                          &reqs[req_index(x->geo.depth, axis, dir, k, 1)]);
}

/* Step 1 of both directions of an axis: the own block (box, row or plane) is
 * complete. A periodic axis of length 1 is all local copies, in step order. */
static int nb_start_axis(const shift_ctx_t *x, int axis, MPI_Request *reqs)
{
    int rc;
    for (int dir = 1; dir >= -1; dir -= 2) {
        shift_step_t st;
        shift_plan_step(&x->geo, axis, dir, 1, &st);
        if (st.self) {
            for (int k = 1; k <= x->geo.depth; k++) {
                shift_plan_step(&x->geo, axis, dir, k, &st);
                if ((rc = copy_block(x, &st)) != MPI_SUCCESS)
                    return rc;
            }
            continue;
        }
        if ((rc = nb_isend(x, axis, dir, 1, reqs)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int shift_nonblocking(const shift_ctx_t *x)
{
    int d = x->geo.depth, nreq = SHIFT_NAXES * 2 * d * 2, rc = MPI_SUCCESS;
    int pending[SHIFT_NAXES] = {0, 0, 0}, next_axis = 0;
    MPI_Request *reqs = malloc((size_t)nreq * sizeof(*reqs));

    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < nreq; i++)
        reqs[i] = MPI_REQUEST_NULL;
    /* every receive now: each has its own slots, and a receive posted before
     * its message is what mbmpi's write protocol needs. Step-major order, the
     * order in which a peer that is both left and right neighbour (an axis of
     * length 2) sends: a REQ names the sequence number it expects, so
     * receives posted in the sender's order are the ones it can use */
    for (int a = 0; a < SHIFT_NAXES; a++)
        for (int k = 1; k <= d; k++)
            for (int dir = 1; dir >= -1; dir -= 2) {
                shift_step_t st;
                char *buf;
                int n;
                MPI_Datatype t;
                shift_plan_step(&x->geo, a, dir, k, &st);
                if (st.self || !st.recv)
                    continue;
                block_msg(x, &st, st.recv_slot, &buf, &n, &t);
                rc = mpii_irecv_ctx(buf, n, t, peer(x, a, -dir), tag_of(d, a, dir, k), x->c, 1,
                                    &reqs[req_index(d, a, dir, k, 0)]);
                if (rc != MPI_SUCCESS)
                    goto out_free;
                pending[a]++;
            }
    for (;;) {
        int idx;
        /* an axis starts when every receive of the axes before it has landed */
        while (next_axis < SHIFT_NAXES && (next_axis == 0 || pending[next_axis - 1] == 0)) {
            /* (pending[] of earlier axes are 0 already: this one started after them) */
            if ((rc = nb_start_axis(x, next_axis, reqs)) != MPI_SUCCESS)
                goto out_free;
            next_axis++;
        }
        if ((rc = MPI_Waitany(nreq, reqs, &idx, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            goto out_free;
        if (idx == MPI_UNDEFINED) {
            if (next_axis == SHIFT_NAXES)
                break;
            continue; /* nothing active: the next axis can start */
        }
        if (idx % 2 == 1)
            continue; /* a send completed */
        int k = (idx / 2) % d + 1, ad = idx / 2 / d, a = ad / 2, dir = ad % 2 ? -1 : 1;
        pending[a]--;
        if (k < d && (rc = nb_isend(x, a, dir, k + 1, reqs)) != MPI_SUCCESS)
            goto out_free;
    }
out_free:
    /* After an error no request may outlive the call: a receive left posted
     * would take a later Shift's message into this call's buffers. Cancel
     * the receives, then free every request (a send completes by itself). */
    if (rc != MPI_SUCCESS)
        for (int i = 0; i < nreq; i++)
            if (reqs[i] != MPI_REQUEST_NULL) {
                if (i % 2 == 0)
                    MPI_Cancel(&reqs[i]);
                MPI_Request_free(&reqs[i]);
            }
    free(reqs);
    return rc;
}

static int check_args(const void *sendbuf, int count, MPI_Datatype dt, const void *recvbuf, int depth,
                      int variant, MPI_Comm comm)
{
    int kind, ndims, size;
    if (comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return MPI_ERR_COMM;
    if (kind != MPI_CART)
        return MPI_ERR_TOPOLOGY;
    if (MPI_Cartdim_get(comm, &ndims) != MPI_SUCCESS)
        return MPI_ERR_TOPOLOGY;
    if (ndims != 3)
        return MPI_ERR_DIMS;
    if (depth < 1 || (long long)(2 * (long long)depth + 1) * (2 * (long long)depth + 1) > INT_MAX)
        return MPI_ERR_ARG;
    if (variant != MPIX_SHIFT_SSEND && variant != MPIX_SHIFT_SEND && variant != MPIX_SHIFT_NONBLOCKING)
        return MPI_ERR_ARG;
    if (count < 0)
        return MPI_ERR_COUNT;
    long long w = 2 * (long long)depth + 1;
    if (w * w * count > INT_MAX)
        return MPI_ERR_COUNT;
    if (dt == MPI_DATATYPE_NULL || MPI_Type_size(dt, &size) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (count > 0 && (!sendbuf || !recvbuf))
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

int MPIX_Shift(const void *sendbuf, int count, MPI_Datatype dt, void *recvbuf, int depth, int variant,
               MPI_Comm cart3d)
{
    shift_ctx_t x;
    int rc, dims[3], periods[3], coords[3];
    MPI_Aint lb, extent, true_lb, true_extent;

    if ((rc = check_args(sendbuf, count, dt, recvbuf, depth, variant, cart3d)) != MPI_SUCCESS)
        return rc;
    if (count == 0)
        return MPI_SUCCESS; /* every slot is empty: nothing to move */
    if ((rc = MPI_Cart_get(cart3d, 3, dims, periods, coords)) != MPI_SUCCESS)
        return rc;
    memset(&x, 0, sizeof(x));
    x.comm = cart3d;
    x.c = mpii_comm_get(cart3d);
    if (!x.c)
        return MPI_ERR_COMM;
    x.dt = dt;
    x.count = count;
    x.base = recvbuf;
    x.plane_t = MPI_DATATYPE_NULL;
    if ((rc = MPI_Type_size(dt, &x.tsize)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_get_extent(dt, &lb, &extent)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_get_true_extent(dt, &true_lb, &true_extent)) != MPI_SUCCESS)
        return rc;
    x.slot_bytes = (size_t)count * (size_t)extent;
    x.contig = lb == 0 && true_lb == 0 && extent == x.tsize && true_extent == x.tsize;
    shift_geom_init(&x.geo, dims, periods, coords, depth);
    for (int a = 0; a < SHIFT_NAXES; a++)
        if ((rc = MPI_Cart_shift(cart3d, a, 1, &x.nbr[a][0], &x.nbr[a][1])) != MPI_SUCCESS)
            return rc;

    /* the own box in the centre slot */
    if (sendbuf != MPI_IN_PLACE &&
        (rc = copy_elems(&x, slot_ptr(&x, shift_slot(depth, 0, 0, 0)), sendbuf, count)) != MPI_SUCCESS)
        return rc;

    /* the z phase sends the valid rows of the own plane; when they are not
     * whole rows they are strided: one vector type serves every z step */
    shift_step_t zst;
    shift_plan_step(&x.geo, 2, 1, 1, &zst);
    if (zst.rows > 1) {
        rc = MPI_Type_vector(zst.rows, zst.row_len * count, zst.row_stride * count, dt, &x.plane_t);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_commit(&x.plane_t);
        if (rc != MPI_SUCCESS)
            return rc;
    }

    rc = variant == MPIX_SHIFT_NONBLOCKING ? shift_nonblocking(&x) : shift_blocking(&x, variant);

    if (x.plane_t != MPI_DATATYPE_NULL)
        MPI_Type_free(&x.plane_t);
    return rc;
}

int MPIX_Shift_slot(int depth, int dx, int dy, int dz)
{
    return shift_slot(depth, dx, dy, dz);
}

int MPIX_Shift_source(MPI_Comm cart3d, int dx, int dy, int dz, int *rank)
{
    int rc, dims[3], periods[3], coords[3], off[3] = {dx, dy, dz};
    if (!rank)
        return MPI_ERR_ARG;
    if ((rc = check_args(NULL, 0, MPI_BYTE, NULL, 1, MPIX_SHIFT_SSEND, cart3d)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Cart_get(cart3d, 3, dims, periods, coords)) != MPI_SUCCESS)
        return rc;
    for (int a = 0; a < 3; a++) {
        int c = coords[a] + off[a];
        if (!periods[a] && (c < 0 || c >= dims[a])) {
            *rank = MPI_PROC_NULL;
            return MPI_SUCCESS;
        }
        coords[a] = ((c % dims[a]) + dims[a]) % dims[a];
    }
    return MPI_Cart_rank(cart3d, coords, rank);
}
