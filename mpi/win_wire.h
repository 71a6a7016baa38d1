/*
 * mpi/win_wire.h: what the one-sided messages of mpi/win.c carry: the tags
 * on a window's private communicator, the header kinds and the header.
 * Shared with tests/mpi/rma_forged.c, which sends malformed headers.
 */
#ifndef MBMPI_WIN_WIRE_H
#define MBMPI_WIN_WIRE_H

#include <stdint.h>

enum { TAG_HDR = 1, TAG_DATA = 2, TAG_REPLY = 3, TAG_TYPE = 4 };

/* header kinds: data operations, then synchronization served in order,
 * then replies handled as they arrive */
enum {
    K_PUT = 1,
    K_GET,
    K_ACC,
    K_GACC, /* also MPI_Fetch_and_op */
    K_CAS,
    K_LOCK,
    K_UNLOCK,
    K_FLUSH,
    K_COMPLETE,
    K_GRANT,
    K_ACK,
    K_POST,
    K_LAST = K_POST
};

typedef struct rma_hdr {
    int32_t kind;
    int32_t epoch; /* fences the origin had completed */
    int64_t disp;  /* target_disp (an address in a dynamic window) */
    int32_t count; /* target_count */
    int32_t dt;    /* target type if predefined, else MPI_DATATYPE_NULL: its map follows on TAG_TYPE */
    int32_t op;
    int32_t lock_type;
    int64_t nblocks; /* derived target type: blocks of its map, its extent and basic type */
    int64_t extent;
    int32_t basic;
    int32_t inl; /* bytes of data that follow the header in its message (K_UNLOCK: an ack is wanted) */
} rma_hdr_t;

/* Data up to this size travels in the header's message. */
#define INLINE_MAX 256

/* For tests: send len bytes to target as a header (TAG_HDR) on the
 * window's private communicator. MPI error class. */
int mpii_win_send_raw(int win, int target, const void *msg, int len);

#endif
