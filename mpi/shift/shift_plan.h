/*
 * mpi/shift/shift_plan.h: the geometry of the Shift halo exchange, shared by
 * the MPI implementation (shift.c) and the max-plus time model (maxplus.c),
 * so that the model always describes exactly the messages the code sends.
 *
 * Offsets and slots. A rank with Cartesian coordinates c needs the box at
 * every offset (dx, dy, dz) with |dx|, |dy|, |dz| <= d. The receive buffer has
 * one slot per offset, dx varying fastest:
 *
 *     slot(dx, dy, dz) = ((dz + d) * W + (dy + d)) * W + (dx + d),   W = 2d + 1
 *
 * so a row (fixed dy, dz) is W consecutive slots and a plane (fixed dz) is
 * W * W consecutive slots.
 *
 * Steps. Axis a (0 = x, 1 = y, 2 = z) is done in 2d steps: direction +1
 * (data moves towards higher coordinates) for k = 1..d, then direction -1
 * for k = 1..d. In step (a, s, k) every rank sends to its neighbour c + s
 * the block it holds at offset -s (k - 1) along a (its own box, row or plane
 * for k = 1, what it received in step k - 1 otherwise: the daisy chain) and
 * receives from c - s the block at offset -s k. A block spans, along the
 * axes below a, the valid offsets [lo, hi] already gathered, and offset 0
 * along the axes above a.
 *
 * Open boundaries: an offset is valid when the box exists (always with a
 * periodic axis, where it wraps); invalid slots are never sent nor received,
 * so the sender and the receiver of a step agree without talking: the
 * receiver c + s wants its offset -s k, the box at c - s (k - 1), which is
 * the sender's offset -s (k - 1), valid for both or for neither.
 */
#ifndef MBMPI_SHIFT_PLAN_H
#define MBMPI_SHIFT_PLAN_H

#define SHIFT_NAXES 3

/* What one rank knows about the grid and itself. */
typedef struct shift_geom {
    int dims[SHIFT_NAXES];
    int periods[SHIFT_NAXES];
    int coords[SHIFT_NAXES];
    int depth;
    int width;            /* 2 depth + 1 */
    int lo[SHIFT_NAXES];  /* smallest valid offset along each axis */
    int hi[SHIFT_NAXES];  /* largest valid offset along each axis */
} shift_geom_t;

/* One step (axis, dir, k) as seen from one rank. The block is `rows` rows of
 * `row_len` slots, the first slots of consecutive rows `row_stride` slots
 * apart; the same shape is sent and received. */
typedef struct shift_step {
    int send;              /* 1: this rank sends in this step */
    int send_to[SHIFT_NAXES];
    int send_slot;         /* first slot of the block sent */
    int recv;              /* 1: this rank receives in this step */
    int recv_from[SHIFT_NAXES];
    int recv_slot;         /* first slot of the block received */
    int self;              /* periodic axis of length 1: the peer is this rank (copy locally) */
    int rows;
    int row_len;
    int row_stride;
    int nslots;            /* rows * row_len */
} shift_step_t;

void shift_geom_init(shift_geom_t *g, const int dims[SHIFT_NAXES], const int periods[SHIFT_NAXES],
                     const int coords[SHIFT_NAXES], int depth);

/* Slot index of offset (dx, dy, dz) for depth d; -1 when outside [-d, d]^3. */
int shift_slot(int depth, int dx, int dy, int dz);

/* 1 when the box at offset off along axis exists for this rank. */
int shift_offset_valid(const shift_geom_t *g, int axis, int off);

/* Fill *st for step (axis, dir = +1 or -1, k = 1..depth). */
void shift_plan_step(const shift_geom_t *g, int axis, int dir, int k, shift_step_t *st);

/* Row-major rank of coordinates (as MPI_Cart_rank: the last axis varies fastest). */
int shift_coords_rank(const int dims[SHIFT_NAXES], const int coords[SHIFT_NAXES]);
void shift_rank_coords(const int dims[SHIFT_NAXES], int rank, int coords[SHIFT_NAXES]);

#endif
