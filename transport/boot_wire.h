/*
 * transport/boot_wire.h: wire protocol between a rank (transport/boot_client.c)
 * and the key-value store that bin/mpirun serves (transport/launch/store.c).
 * Header only; shared by both sides.
 *
 * Transport: TCP, one byte stream per connection. Every message, both
 * directions, is one 8-byte header followed by `klen` key bytes and `vlen`
 * value bytes (no terminating NUL, no padding):
 *
 *    0        1        2        3        4        5        6        7
 *   +--------+--------+--------+--------+--------+--------+--------+--------+
 *   | version| type   | klen (u16, BE)  | vlen (u32, big-endian)            |
 *   +--------+--------+--------+--------+--------+--------+--------+--------+
 *   | key: klen bytes (<= 63)  | value: vlen bytes (<= 4096)  ...
 *   +--------------------------+------------------------------
 *
 * Each rank opens two connections, in this order:
 *   main   HELLO{key=secret, val=rank,size}   <- OK
 *          then requests: PUT, GET, FENCE, FINI (ABORT also accepted)
 *   watch  WATCH{key=secret, val=rank,size}   <- OK
 *          then idle; the rank's monitor thread blocks reading it: EOF means
 *          mpirun is gone. boot_abort() sends its ABORT here (so it never
 *          interleaves with a half-written request on the main connection).
 *
 *   rank -> store                              store -> rank
 *   HELLO  key=secret(32 hex) val=rank,size    OK              (or close)
 *   WATCH  key=secret(32 hex) val=rank,size    OK              (or close)
 *   PUT    key, val (0..4096 bytes)            (no reply; TCP keeps order,
 *                                               so a later FENCE/GET sees it)
 *   GET    key                                 VALUE val | NOTFOUND
 *   FENCE  (empty)                             FENCE_DONE once all ranks
 *                                              have sent FENCE for this epoch
 *   ABORT  val = code (i32 BE) + message       (none: mpirun ends the job)
 *   FINI   (empty)                             OK; then the rank closes both
 *
 * Rules enforced by the store:
 *   - the first message of a connection must be HELLO or WATCH with the
 *     job's secret, a rank in range, the job's size, and a rank that has
 *     not joined yet; otherwise the connection is closed without a reply.
 *     Unauthenticated connections are bounded in number (the rest wait in
 *     the listen backlog) and in time (10 s to send HELLO/WATCH).
 *   - every header is checked before any payload is read: version, type,
 *     klen/vlen per type (below). Anything else from an authenticated rank
 *     is a protocol error: the rank is treated as failed and the job ends.
 *   - one request at a time per connection: a client waits for the reply of
 *     GET / FENCE / FINI before sending more (PUTs may be pipelined).
 * Integers are big-endian; rank and size in HELLO/WATCH are u32.
 */
#ifndef TRANSPORT_BOOT_WIRE_H
#define TRANSPORT_BOOT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define BOOT_WIRE_VERSION 1
#define BOOT_WIRE_KEY_MAX 63          /* bytes of a key */
#define BOOT_WIRE_VAL_MAX 4096        /* bytes of a value */
#define BOOT_WIRE_SECRET_HEX 32       /* 128-bit secret as lowercase hex */
#define BOOT_WIRE_HDR_SIZE 8
#define BOOT_WIRE_MSG_MAX (BOOT_WIRE_HDR_SIZE + BOOT_WIRE_KEY_MAX + BOOT_WIRE_VAL_MAX)

typedef enum boot_wire_type {
    /* rank -> store */
    BOOT_MSG_HELLO = 1,
    BOOT_MSG_WATCH = 2,
    BOOT_MSG_PUT = 3,
    BOOT_MSG_GET = 4,
    BOOT_MSG_FENCE = 5,
    BOOT_MSG_ABORT = 6,
    BOOT_MSG_FINI = 7,
    /* store -> rank */
    BOOT_MSG_OK = 16,
    BOOT_MSG_VALUE = 17,
    BOOT_MSG_NOTFOUND = 18,
    BOOT_MSG_FENCE_DONE = 19,
} boot_wire_type_t;

/* The header as it sits on the wire (all fields byte arrays: no padding,
 * no alignment or byte-order surprises). */
typedef struct boot_wire_hdr {
    uint8_t version;
    uint8_t type;
    uint8_t klen[2];
    uint8_t vlen[4];
} boot_wire_hdr_t;

_Static_assert(sizeof(boot_wire_hdr_t) == BOOT_WIRE_HDR_SIZE, "boot wire header is 8 bytes");

static inline void boot_wire_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t boot_wire_get_u32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void boot_wire_hdr_pack(boot_wire_hdr_t *h, int type, size_t klen, size_t vlen)
{
    h->version = BOOT_WIRE_VERSION;
    h->type = (uint8_t)type;
    h->klen[0] = (uint8_t)(klen >> 8);
    h->klen[1] = (uint8_t)klen;
    boot_wire_put_u32(h->vlen, (uint32_t)vlen);
}

static inline size_t boot_wire_hdr_klen(const boot_wire_hdr_t *h)
{
    return ((size_t)h->klen[0] << 8) | h->klen[1];
}

static inline size_t boot_wire_hdr_vlen(const boot_wire_hdr_t *h)
{
    return boot_wire_get_u32(h->vlen);
}

/* Checks a header received by the store (rank -> store direction).
 * Returns 1 if version, type and both lengths are acceptable, else 0. */
static inline int boot_wire_request_ok(const boot_wire_hdr_t *h)
{
    size_t klen = boot_wire_hdr_klen(h), vlen = boot_wire_hdr_vlen(h);

    if (h->version != BOOT_WIRE_VERSION)
        return 0;
    switch (h->type) {
    case BOOT_MSG_HELLO:
    case BOOT_MSG_WATCH:
        return klen == BOOT_WIRE_SECRET_HEX && vlen == 8;
    case BOOT_MSG_PUT:
        return klen >= 1 && klen <= BOOT_WIRE_KEY_MAX && vlen <= BOOT_WIRE_VAL_MAX;
    case BOOT_MSG_GET:
        return klen >= 1 && klen <= BOOT_WIRE_KEY_MAX && vlen == 0;
    case BOOT_MSG_FENCE:
    case BOOT_MSG_FINI:
        return klen == 0 && vlen == 0;
    case BOOT_MSG_ABORT:
        return klen == 0 && vlen >= 4 && vlen <= BOOT_WIRE_VAL_MAX;
    default:
        return 0;
    }
}

/* Checks a header received by a rank (store -> rank direction). */
static inline int boot_wire_reply_ok(const boot_wire_hdr_t *h)
{
    size_t klen = boot_wire_hdr_klen(h), vlen = boot_wire_hdr_vlen(h);

    if (h->version != BOOT_WIRE_VERSION || klen != 0)
        return 0;
    switch (h->type) {
    case BOOT_MSG_OK:
    case BOOT_MSG_NOTFOUND:
    case BOOT_MSG_FENCE_DONE:
        return vlen == 0;
    case BOOT_MSG_VALUE:
        return vlen <= BOOT_WIRE_VAL_MAX;
    default:
        return 0;
    }
}

#endif
