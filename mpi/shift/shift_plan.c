/*
 * mpi/shift/shift_plan.c: the geometry of the Shift (which block goes where
 * in each step), used by both the MPI implementation and the time model.
 * Pure C, no MPI calls; see shift_plan.h for the slot layout and the steps.
 */
#include "mpi/shift/shift_plan.h"

static int wrap(int c, int n)
{
    int r = c % n;
    return r < 0 ? r + n : r;
}

void shift_geom_init(shift_geom_t *g, const int dims[SHIFT_NAXES], const int periods[SHIFT_NAXES],
                     const int coords[SHIFT_NAXES], int depth)
{
    g->depth = depth;
    g->width = 2 * depth + 1;
    for (int a = 0; a < SHIFT_NAXES; a++) {
        g->dims[a] = dims[a];
        g->periods[a] = periods[a] != 0;
        g->coords[a] = coords[a];
        if (g->periods[a]) {
            g->lo[a] = -depth;
            g->hi[a] = depth;
        } else {
            g->lo[a] = -coords[a] > -depth ? -coords[a] : -depth;
            g->hi[a] = dims[a] - 1 - coords[a] < depth ? dims[a] - 1 - coords[a] : depth;
        }
    }
}

int shift_slot(int depth, int dx, int dy, int dz)
{
    int w = 2 * depth + 1;
    if (depth < 0 || dx < -depth || dx > depth || dy < -depth || dy > depth || dz < -depth || dz > depth)
        return -1;
    return ((dz + depth) * w + (dy + depth)) * w + (dx + depth);
}

int shift_offset_valid(const shift_geom_t *g, int axis, int off)
{
    return off >= g->lo[axis] && off <= g->hi[axis];
}

/* 1 when the neighbour at c + s along axis exists (with wrapping when periodic). */
static int neighbour_exists(const shift_geom_t *g, int axis, int s)
{
    int c = g->coords[axis] + s;
    return g->periods[axis] || (c >= 0 && c < g->dims[axis]);
}

/* Slot of the block whose offset along `axis` is off: the lowest valid
 * offset along the axes below, offset 0 along the axes above. */
static int block_first_slot(const shift_geom_t *g, int axis, int off)
{
    int o[SHIFT_NAXES];
    for (int b = 0; b < SHIFT_NAXES; b++)
        o[b] = b < axis ? g->lo[b] : b == axis ? off : 0;
    return shift_slot(g->depth, o[0], o[1], o[2]);
}

void shift_plan_step(const shift_geom_t *g, int axis, int dir, int k, shift_step_t *st)
{
    int send_off = -dir * (k - 1), recv_off = -dir * k;

    st->self = g->periods[axis] && g->dims[axis] == 1;
    st->send = neighbour_exists(g, axis, dir) && shift_offset_valid(g, axis, send_off);
    st->recv = neighbour_exists(g, axis, -dir) && shift_offset_valid(g, axis, recv_off);
    for (int b = 0; b < SHIFT_NAXES; b++) {
        st->send_to[b] = g->coords[b];
        st->recv_from[b] = g->coords[b];
    }
    st->send_to[axis] = wrap(g->coords[axis] + dir, g->dims[axis]);
    st->recv_from[axis] = wrap(g->coords[axis] - dir, g->dims[axis]);
    st->send_slot = block_first_slot(g, axis, send_off);
    st->recv_slot = block_first_slot(g, axis, recv_off);

    /* x: one slot; y: the valid part of the own row; z: the valid rows of the own plane */
    st->rows = 1;
    st->row_len = 1;
    st->row_stride = g->width;
    if (axis >= 1)
        st->row_len = g->hi[0] - g->lo[0] + 1;
    if (axis == 2) {
        st->rows = g->hi[1] - g->lo[1] + 1;
        if (st->row_len == g->width) { /* whole rows: one contiguous run */
            st->row_len *= st->rows;
            st->rows = 1;
        }
    }
    st->nslots = st->rows * st->row_len;
}

int shift_coords_rank(const int dims[SHIFT_NAXES], const int coords[SHIFT_NAXES])
{
    return (coords[0] * dims[1] + coords[1]) * dims[2] + coords[2];
}

void shift_rank_coords(const int dims[SHIFT_NAXES], int rank, int coords[SHIFT_NAXES])
{
    coords[2] = rank % dims[2];
    coords[1] = (rank / dims[2]) % dims[1];
    coords[0] = rank / (dims[2] * dims[1]);
}
