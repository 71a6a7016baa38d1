/*
 * tests/shift/shift_check.c: MPIX_Shift moves every neighbour's payload to
 * its slot. Each rank fills its payload with a pattern of (rank, index) and
 * the receive buffer with a sentinel; after the Shift every slot must hold
 * the pattern of the rank at that offset (computed here independently of
 * the library, wrapping on periodic axes) or, across an open boundary, still
 * the sentinel. Loops over boundary kinds (periodic, open, mixed), depths,
 * the three variants and several payloads: 0 elements, 1 byte, 7 ints, 4099
 * ints (16396 B per slot: every message above the 16384 B eager limit), a
 * non-contiguous vector type whose gaps must stay untouched, MPI_IN_PLACE.
 *
 * Environment: SHIFT_DIMS=px,py,pz (default MPI_Dims_create), SHIFT_DEPTHS
 * (default 1,2,3), SHIFT_LARGE_MAXD (largest depth for the big payload,
 * default 3), SHIFT_VARIANTS (default 0,1,2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5

static int wrank;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL shift_check (rank %d, line %d): ", wrank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

static int parse_list(const char *env, const char *def, int *out, int max)
{
    const char *s = getenv(env);
    char buf[128], *tok;
    int n = 0;
    snprintf(buf, sizeof(buf), "%s", s && *s ? s : def);
    for (tok = strtok(buf, ",x "); tok && n < max; tok = strtok(NULL, ",x "))
        out[n++] = atoi(tok);
    return n;
}

/* Payload kinds. The element at index i of rank r's payload, as bytes of
 * the type's data (the gaps of the vector type are not part of it). */
enum { P_EMPTY, P_BYTE1, P_INT7, P_INT_LARGE, P_VECTOR, P_INPLACE, P_KINDS };
static const char *pname[P_KINDS] = {"count0", "byte1", "int7", "int4099", "vector5", "inplace7"};

static int pattern(int rank, int i)
{
    return rank * 100003 + i * 7 + 1;
}

typedef struct payload {
    MPI_Datatype dt;
    int count;
    int ints_per_elem;  /* data ints in one element (0: byte payload) */
    int extent_ints;    /* extent of one element in ints */
    int in_place;
} payload_t;

static void payload_make(int kind, payload_t *p, MPI_Datatype vec)
{
    memset(p, 0, sizeof(*p));
    p->dt = MPI_INT;
    p->ints_per_elem = 1;
    p->extent_ints = 1;
    switch (kind) {
    case P_EMPTY: p->count = 0; break;
    case P_BYTE1: p->dt = MPI_BYTE; p->count = 1; p->ints_per_elem = 0; break;
    case P_INT7: p->count = 7; break;
    case P_INT_LARGE: p->count = 4099; break;
    case P_VECTOR: p->dt = vec; p->count = 5; p->ints_per_elem = 2; p->extent_ints = 4; break;
    case P_INPLACE: p->count = 7; p->in_place = 1; break;
    }
}

/* Slot bytes = count * extent. Fill a slot image of `rank` (sentinel in the gaps). */
static void fill_slot(const payload_t *p, int rank, unsigned char *slot)
{
    if (p->ints_per_elem == 0) {
        for (int i = 0; i < p->count; i++)
            slot[i] = (unsigned char)(pattern(rank, i) & 0xff);
        return;
    }
    int *v = (int *)slot;
    memset(slot, SENTINEL, (size_t)p->count * p->extent_ints * sizeof(int));
    for (int e = 0, i = 0; e < p->count; e++)
        for (int j = 0; j < p->ints_per_elem; j++, i++)
            v[e * p->extent_ints + (p->extent_ints == 1 ? 0 : 3 * j)] = pattern(rank, i);
}

static size_t slot_bytes(const payload_t *p)
{
    return p->ints_per_elem == 0 ? (size_t)p->count : (size_t)p->count * p->extent_ints * sizeof(int);
}

typedef struct grid {
    MPI_Comm cart;
    int dims[3];
    int periods[3];
    int coords[3];
    int me;
} grid_t;

/* Rank at offset off from the caller, computed here (not by the library). */
static int origin(const grid_t *g, const int off[3])
{
    int c[3], r;
    for (int a = 0; a < 3; a++) {
        c[a] = g->coords[a] + off[a];
        if (g->periods[a])
            c[a] = ((c[a] % g->dims[a]) + g->dims[a]) % g->dims[a];
        else if (c[a] < 0 || c[a] >= g->dims[a])
            return MPI_PROC_NULL;
    }
    MPI_Cart_rank(g->cart, c, &r);
    return r;
}

/* One MPIX_Shift call, then every slot checked; returns the slots beyond
 * open boundaries (still holding the sentinel). */
static long long shift_one(const grid_t *g, int d, int variant, int kind, MPI_Datatype vec)
{
    payload_t p;
    int w = 2 * d + 1, nslots = w * w * w;
    long long open = 0;

    payload_make(kind, &p, vec);
    size_t sb = slot_bytes(&p);
    unsigned char *send = malloc(sb + 1), *recv = malloc(sb * nslots + 1), *expect = malloc(sb + 1);
    CHECK(send && recv && expect, "malloc");
    fill_slot(&p, g->me, send);
    memset(recv, SENTINEL, sb * nslots + 1);
    int centre = MPIX_Shift_slot(d, 0, 0, 0);
    CHECK(centre == (nslots - 1) / 2, "centre slot %d", centre);
    if (p.in_place)
        memcpy(recv + (size_t)centre * sb, send, sb);
    int rc = MPIX_Shift(p.in_place ? MPI_IN_PLACE : send, p.count, p.dt, recv, d, variant, g->cart);
    CHECK(rc == MPI_SUCCESS, "MPIX_Shift rc %d", rc);
    for (int dz = -d; dz <= d; dz++)
        for (int dy = -d; dy <= d; dy++)
            for (int dx = -d; dx <= d; dx++) {
                int off[3] = {dx, dy, dz}, src = origin(g, off), lib_src;
                CHECK(MPIX_Shift_source(g->cart, dx, dy, dz, &lib_src) == MPI_SUCCESS, "source");
                CHECK(lib_src == src, "MPIX_Shift_source(%d,%d,%d) = %d, want %d", dx, dy, dz, lib_src, src);
                int s = MPIX_Shift_slot(d, dx, dy, dz);
                CHECK(s == ((dz + d) * w + (dy + d)) * w + (dx + d), "slot index");
                if (src == MPI_PROC_NULL || p.count == 0)
                    memset(expect, SENTINEL, sb);
                else
                    fill_slot(&p, src, expect);
                const unsigned char *got = recv + (size_t)s * sb;
                if (memcmp(got, expect, sb) != 0) {
                    size_t j = 0;
                    while (got[j] == expect[j])
                        j++;
                    CHECK(0,
                          "dims %dx%dx%d periods %d%d%d d=%d variant %d payload %s: slot (%d,%d,%d) "
                          "from rank %d wrong at byte %zu (0x%02x, want 0x%02x)",
                          g->dims[0], g->dims[1], g->dims[2], g->periods[0], g->periods[1], g->periods[2], d,
                          variant, pname[kind], dx, dy, dz, src, j, got[j], expect[j]);
                }
                open += src == MPI_PROC_NULL;
            }
    CHECK(recv[sb * nslots] == SENTINEL, "byte past the buffer written");
    free(expect);
    free(recv);
    free(send);
    return open;
}

int main(int argc, char **argv)
{
    int size, dims[3] = {0, 0, 0}, depths[8], variants[3];
    int periodic_sets[3][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 1}};
    int ndepth, nvar, large_maxd[1] = {3}, calls = 0;
    long long slots_checked = 0, slots_open = 0;
    MPI_Datatype vec;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_list("SHIFT_DIMS", "0,0,0", dims, 3) != 3)
        dims[0] = dims[1] = dims[2] = 0;
    CHECK(MPI_Dims_create(size, 3, dims) == MPI_SUCCESS, "dims_create");
    ndepth = parse_list("SHIFT_DEPTHS", "1,2,3", depths, 8);
    nvar = parse_list("SHIFT_VARIANTS", "0,1,2", variants, 3);
    parse_list("SHIFT_LARGE_MAXD", "3", large_maxd, 1);
    /* two ints out of every four (extent 4 ints): 1 0 0 1 */
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    for (int ps = 0; ps < 3; ps++) {
        grid_t g;
        for (int a = 0; a < 3; a++) {
            g.dims[a] = dims[a];
            g.periods[a] = periodic_sets[ps][a];
        }
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, 3, g.dims, g.periods, 0, &g.cart) == MPI_SUCCESS, "cart");
        MPI_Comm_rank(g.cart, &g.me);
        MPI_Cart_coords(g.cart, g.me, 3, g.coords);
        for (int di = 0; di < ndepth; di++)
            for (int vi = 0; vi < nvar; vi++)
                for (int kind = 0; kind < P_KINDS; kind++) {
                    int d = depths[di], w = 2 * d + 1;
                    if (kind == P_INT_LARGE && d > large_maxd[0])
                        continue;
                    slots_open += shift_one(&g, d, variants[vi], kind, vec);
                    slots_checked += w * w * w;
                    calls++;
                }
        MPI_Comm_free(&g.cart);
    }
    long long tot[2] = {slots_checked, slots_open}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("shift_check %dx%dx%d: %d calls per rank, %lld slots verified (%lld beyond open boundaries)\n",
               dims[0], dims[1], dims[2], calls, sum[0], sum[1]);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
