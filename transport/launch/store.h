/*
 * transport/launch/store.h: the key-value store that bin/mpirun serves to its
 * ranks (wire protocol: transport/boot_wire.h). Single-threaded, driven by
 * the launcher's poll() loop: the launcher asks for the descriptors to poll,
 * hands the poll results back, then drains the store's events (abort, a rank
 * that misbehaved or vanished, a fence that can never complete).
 */
#ifndef LAUNCH_STORE_H
#define LAUNCH_STORE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/boot_wire.h"

typedef struct store store_t;

typedef enum store_ev_type {
    STORE_EV_ABORT,       /* rank called boot_abort: code, msg */
    STORE_EV_PROTO,       /* rank sent a malformed / out-of-order message: msg = why */
    STORE_EV_CONN_LOST,   /* a connection of a joined rank closed before FINI */
    STORE_EV_FENCE_STUCK, /* rank waits in a fence that rank `other` can never join */
} store_ev_type_t;

typedef struct store_ev {
    store_ev_type_t type;
    int rank;
    int code;                         /* ABORT: the code */
    int other;                        /* FENCE_STUCK: the rank that cannot join */
    char msg[BOOT_WIRE_VAL_MAX + 1];  /* printable (control bytes replaced), NUL-terminated */
} store_ev_t;

/* Listens on bind_addr (dotted IPv4) with an ephemeral port; *port_p gets it.
 * secret: BOOT_WIRE_SECRET_HEX characters. */
int store_create(const char *bind_addr, int nranks, const char *secret, store_t **store_p, int *port_p);
void store_destroy(store_t *st);

/* Upper bound of the descriptors store_pollfds() fills. */
size_t store_max_fds(const store_t *st);
/* Fills fds[] (at most store_max_fds()) and returns how many; the same
 * array, after poll(), goes to store_process(). */
size_t store_pollfds(store_t *st, struct pollfd *fds, size_t max);
void store_process(store_t *st, const struct pollfd *fds, size_t n, int64_t now_ms);
/* Earliest time (ms, monotonic) at which store_process must run even without
 * poll events (to expire unauthenticated connections), or -1. */
int64_t store_next_deadline(const store_t *st);
/* Pops the next event; returns 0 when there is none. */
int store_next_event(store_t *st, store_ev_t *ev);

/* The launcher tells the store that a rank's process has exited. */
void store_rank_gone(store_t *st, int rank);
int store_rank_joined(const store_t *st, int rank);
int store_rank_finalized(const store_t *st, int rank);

#endif
