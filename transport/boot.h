/*
 * transport/boot.h: the small bootstrap interface (rank, size, put, fence,
 * get, abort, finalize). Back-end: the key-value store that bin/mpirun serves
 * on TCP (transport/boot_client.c talks to it; transport/boot_store.c serves
 * it). PMIx is a planned second back-end of the same interface.
 *
 * Environment given to each rank by bin/mpirun:
 *   MBMPI_RANK, MBMPI_SIZE       this rank and the job size
 *   MBMPI_STORE                  "host:port" of the store
 *   MBMPI_SECRET                 per-job random secret (hex); without it a
 *                                client cannot join
 *   MBMPI_LOCAL_RANK, MBMPI_LOCAL_SIZE, MBMPI_HOST  placement
 * Without MBMPI_STORE the process is a singleton (rank 0 of 1, no store).
 */
#ifndef TRANSPORT_BOOT_H
#define TRANSPORT_BOOT_H

#include <stddef.h>

typedef struct boot boot_t;

/* Connects to the store (or sets up a singleton). Status codes: util/status.h */
int boot_init(boot_t **boot_p);
int boot_rank(const boot_t *b);
int boot_size(const boot_t *b);
/* Non-zero when every rank of the job runs on this host. */
int boot_all_local(const boot_t *b);
/* Publish key=value (key <= 63 chars, value <= 4096 bytes). */
int boot_put(boot_t *b, const char *key, const void *val, size_t len);
/* Collective over all ranks: after it, every put made before it is visible. */
int boot_fence(boot_t *b);
/* The same fence in two steps, so the caller can keep progressing the
 * network while it waits: begin, then test until *done_p is 1. */
int boot_fence_begin(boot_t *b);
int boot_fence_test(boot_t *b, int *done_p);
/* Fetch a value; *len_p gets its length. UT_ERR_INVALID_PARAM if absent. */
int boot_get(boot_t *b, const char *key, void *val, size_t maxlen, size_t *len_p);
/* Ask the launcher to end the whole job with `code` (message printed by
 * mpirun). Does not return if the launcher is reachable. */
void boot_abort(boot_t *b, int code, const char *msg);
/* Clean shutdown: tells the launcher this rank finalized, closes, frees. */
void boot_finalize(boot_t *b);

#endif
