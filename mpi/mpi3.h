/*
 * mpi/mpi3.h: internals shared by mpi/p2p.c, mpi/bsend.c, mpi/mprobe.c,
 * mpi/attr.c, mpi/comm.c and mpi/errhandler.c (buffered sends, matched
 * probes, attribute caching, user error handlers and classes).
 */
#ifndef MPI_MPI3_H
#define MPI_MPI3_H

#include "mpi/core.h"

/* ---- p2p.c: request plumbing for the files below ---- */
mpii_request_t *mpii_req_new(void);
void mpii_req_release(mpii_request_t *r);
/* r uses c until it is released (a deferred MPI_Comm_free waits for it). */
void mpii_req_hold_comm(mpii_request_t *r, mpii_comm_t *c);
/* Validate (comm, count, datatype, rank, tag) as every point-to-point call
 * does; `recv` allows the wildcards. */
int mpii_p2p_check(const char *fn, MPI_Comm comm, mpii_comm_t **c_p, const void *buf, int count,
                   MPI_Datatype datatype, mpii_datatype_t **dt_p, int rank, int tag, int recv);
/* Start receiving the message mprobed as msg into (buf, count, dt). */
int mpii_mrecv_start(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, mpii_comm_t *c,
                     proto_msg_t *msg);
/* A request that is already complete (MPI_Ibsend, MPI_PROC_NULL). */
void mpii_req_set_done(mpii_request_t *r, mpii_comm_t *c, int kind, int src);
/* Finish a done request (unpack, status, error class), release it unless
 * persistent, set *h to MPI_REQUEST_NULL when released. */
int mpii_req_complete(mpii_request_t *r, MPI_Request *h, MPI_Status *st);
const char *mpii_req_err_text(int err);

/* ---- bsend.c ---- */
/* Buffered send (MPI_Bsend, MPI_Ibsend, a started MPI_Bsend_init): pack into
 * the attached buffer and start a nonblocking send from there. Returns an
 * error class (not passed to a handler). */
int mpii_bsend(const void *buf, int count, mpii_datatype_t *dt, int dest, int tag, mpii_comm_t *c,
               MPI_Request *inner);
/* MPI_Cancel of an MPI_Ibsend (or a started MPI_Bsend_init): cancel the
 * send from the attached buffer, `inner` (mpii_bsend's), if it is still
 * there, and wait for the receiver's answer: *cancelled 1 when the message
 * will not be received. */
void mpii_bsend_cancel(MPI_Request inner, int *cancelled);
/* Wait until every buffered message has been delivered (MPI_Finalize). */
void mpii_bsend_flush(void);

/* ---- attr.c ---- */
/* Who sets or reads an attribute (MPI 3.1 17.2.7): C (address-valued),
 * Fortran INTEGER(KIND=MPI_ADDRESS_KIND) or Fortran INTEGER (MPI_ATTR_PUT). */
enum { MPII_ATTR_C = 0, MPII_ATTR_F_AINT = 1, MPII_ATTR_F_INT = 2 };
/* MPI_{Comm,Type,Win}_{set,get}_attr for a caller in lang (the Fortran
 * bindings: a value set from Fortran is an integer, C reads its address). */
int mpii_comm_set_attr_lang(MPI_Comm comm, int keyval, void *val, int lang);
int mpii_comm_get_attr_lang(MPI_Comm comm, int keyval, void *val, int *flag, int lang);
int mpii_type_set_attr_lang(MPI_Datatype dt, int keyval, void *val, int lang);
int mpii_type_get_attr_lang(MPI_Datatype dt, int keyval, void *val, int *flag, int lang);
int mpii_win_set_attr_lang(MPI_Win win, int keyval, void *val, int lang);
int mpii_win_get_attr_lang(MPI_Win win, int keyval, void *val, int *flag, int lang);
/* The keyval's callbacks are Fortran procedures: they get the integer. */
void mpii_keyval_set_fortran(int keyval);
/* Copy the attributes of old onto new (MPI_Comm_dup): copy callbacks. */
int mpii_attr_comm_dup(MPI_Comm old, MPI_Comm newc);
/* Delete every attribute of comm (MPI_Comm_free): delete callbacks, last
 * set first. Returns the first callback error. */
int mpii_attr_comm_free(MPI_Comm comm);
/* Datatype attributes: to be called by MPI_Type_dup (copy callbacks) and
 * MPI_Type_free (delete callbacks) in mpi/datatype.c. */
int mpii_attr_type_dup(MPI_Datatype old, MPI_Datatype newt);
int mpii_attr_type_free(MPI_Datatype dt);
/* MPI_Finalize, first thing: buffered sends, then the attributes of
 * MPI_COMM_SELF and MPI_COMM_WORLD are deleted (MPI 3.1 8.7.1). */
void mpii_mpi3_finalize(void);

/* ---- misc.c ---- */
/* Non-zero when h is a live info object (not MPI_INFO_NULL). */
int mpii_info_valid(MPI_Info h);
/* MPI_Init: the predefined MPI_INFO_ENV (the first info object). */
int mpii_info_env_init(void);

/* ---- errstr.c ---- */
/* Largest error code in use (MPI_LASTUSEDCODE). */
int mpii_err_lastused(void);

#endif
