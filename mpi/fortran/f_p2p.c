/*
 * mpi/fortran/f_p2p.c: Fortran 77 bindings of point-to-point communication,
 * completion (Wait/Test families), probes and persistent requests.
 *
 * A Fortran status is an INTEGER array of MPI_STATUS_SIZE holding the bytes
 * of the C MPI_Status; MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE are
 * recognised by address (fortran.h). Indices returned by Waitany, Testany,
 * Waitsome and Testsome are 1-based in Fortran. Also the buffered-send
 * buffer, the matched probes (Mprobe, Improbe, Mrecv, Imrecv), and the
 * generalized requests with their status setters.
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

/* ---- status arrays ---- */

/* C statuses for n requests: NULL (MPI_STATUSES_IGNORE) when the Fortran
 * array is the sentinel, else *st (a small local array) or malloc'd memory,
 * loaded with the Fortran statuses (fields a call does not set keep their
 * values, see mf_status_c). Returns MPI_ERR_NO_MEM when malloc fails. */
#define LOCAL_STATUSES 16
static int statuses_get(const MPI_Fint *fst, int n, MPI_Status local[LOCAL_STATUSES], MPI_Status **st)
{
    *st = NULL;
    if (mf_status_ignored(fst) || n <= 0)
        return MPI_SUCCESS;
    *st = n <= LOCAL_STATUSES ? local : malloc((size_t)n * sizeof(MPI_Status));
    if (!*st)
        return MPI_ERR_NO_MEM;
    memcpy(*st, fst, (size_t)n * sizeof(MPI_Status));
    return MPI_SUCCESS;
}

/* Copy the first n C statuses out to the Fortran array and release them. */
static void statuses_put(MPI_Status *st, const MPI_Status *local, MPI_Fint *fst, int n)
{
    if (!st)
        return;
    for (int k = 0; k < n; k++)
        memcpy(fst + (size_t)k * FSTATUS_SIZE, &st[k], sizeof(MPI_Status));
    if (st != local)
        free(st);
}

/* ---- blocking ---- */

void mpi_send_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Send(mf_buf(buf), *count, *datatype, *dest, *tag, *comm);
}

void mpi_ssend_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Ssend(mf_buf(buf), *count, *datatype, *dest, *tag, *comm);
}

void mpi_rsend_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Rsend(mf_buf(buf), *count, *datatype, *dest, *tag, *comm);
}

void mpi_bsend_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Bsend(mf_buf(buf), *count, *datatype, *dest, *tag, *comm);
}

void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    *ierr = MPI_Recv(mf_buf(buf), *count, *datatype, *source, *tag, *comm, mf_status_c(status, &st));
    if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE)
        mf_status_out(&st, status);
}

void mpi_sendrecv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest,
                   MPI_Fint *sendtag, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                   MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    *ierr = MPI_Sendrecv(mf_buf(sendbuf), *sendcount, *sendtype, *dest, *sendtag, mf_buf(recvbuf), *recvcount,
                         *recvtype, *source, *recvtag, *comm, mf_status_c(status, &st));
    if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE)
        mf_status_out(&st, status);
}

void mpi_isendrecv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest,
                    MPI_Fint *sendtag, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source,
                    MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Isendrecv(mf_buf(sendbuf), *sendcount, *sendtype, *dest, *sendtag, mf_buf(recvbuf), *recvcount,
                          *recvtype, *source, *recvtag, *comm, request);
}

void mpi_isendrecv_replace_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *sendtag,
                            MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Isendrecv_replace(mf_buf(buf), *count, *datatype, *dest, *sendtag, *source, *recvtag, *comm,
                                  request);
}

void mpi_sendrecv_replace_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *sendtag,
                           MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status,
                           MPI_Fint *ierr)
{
    MPI_Status st;
    *ierr = MPI_Sendrecv_replace(mf_buf(buf), *count, *datatype, *dest, *sendtag, *source, *recvtag, *comm,
                                 mf_status_c(status, &st));
    if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE)
        mf_status_out(&st, status);
}

/* ---- nonblocking ---- */

#define NONBLOCKING_SEND(fname, cname)                                                                   \
    void fname(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,    \
               MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)                                      \
    {                                                                                                  \
        MPI_Request r = MPI_REQUEST_NULL;                                                              \
        *ierr = cname(mf_buf(buf), *count, *datatype, *dest, *tag, *comm, &r);                         \
        *request = r;                                                                                  \
    }
NONBLOCKING_SEND(mpi_isend_, MPI_Isend)
NONBLOCKING_SEND(mpi_issend_, MPI_Issend)
NONBLOCKING_SEND(mpi_irsend_, MPI_Irsend)
NONBLOCKING_SEND(mpi_ibsend_, MPI_Ibsend)
NONBLOCKING_SEND(mpi_send_init_, MPI_Send_init)
NONBLOCKING_SEND(mpi_ssend_init_, MPI_Ssend_init)
NONBLOCKING_SEND(mpi_rsend_init_, MPI_Rsend_init)
NONBLOCKING_SEND(mpi_bsend_init_, MPI_Bsend_init)

void mpi_irecv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Irecv(mf_buf(buf), *count, *datatype, *source, *tag, *comm, &r);
    *request = r;
}

void mpi_recv_init_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source, MPI_Fint *tag,
                    MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Recv_init(mf_buf(buf), *count, *datatype, *source, *tag, *comm, &r);
    *request = r;
}

void mpi_start_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = *request;
    *ierr = MPI_Start(&r);
    *request = r;
}

void mpi_startall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    *ierr = MPI_Startall(*count, requests);
}

/* ---- partitioned (MPI 4.0; partitions are numbered from 0 in Fortran too) ---- */

void mpi_psend_init_(const void *buf, MPI_Fint *partitions, MPI_Count *count, MPI_Fint *datatype,
                     MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                     MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Psend_init(mf_buf(buf), *partitions, *count, *datatype, *dest, *tag, *comm, *info, &r);
    *request = r;
}

void mpi_precv_init_(void *buf, MPI_Fint *partitions, MPI_Count *count, MPI_Fint *datatype, MPI_Fint *source,
                     MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Precv_init(mf_buf(buf), *partitions, *count, *datatype, *source, *tag, *comm, *info, &r);
    *request = r;
}

void mpi_pready_(MPI_Fint *partition, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Pready(*partition, *request);
}

void mpi_pready_range_(MPI_Fint *partition_low, MPI_Fint *partition_high, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Pready_range(*partition_low, *partition_high, *request);
}

void mpi_pready_list_(MPI_Fint *length, MPI_Fint *array_of_partitions, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Pready_list(*length, array_of_partitions, *request);
}

void mpi_parrived_(MPI_Fint *request, MPI_Fint *partition, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Parrived(*request, *partition, &f);
    *flag = mf_logical(f);
}

/* ---- completion ---- */

void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request r = *request;
    MPI_Status st;
    *ierr = MPI_Wait(&r, mf_status_c(status, &st));
    *request = r;
    if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE)
        mf_status_out(&st, status);
}

void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request r = *request;
    MPI_Status st;
    int f = 0;
    *ierr = MPI_Test(&r, &f, mf_status_c(status, &st));
    *request = r;
    *flag = mf_logical(f);
    if (f && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE))
        mf_status_out(&st, status);
}

/* MPI_Request is MPI_Fint, so the Fortran request array is used in place. */
_Static_assert(sizeof(MPI_Request) == sizeof(MPI_Fint), "requests are INTEGERs");

void mpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status local[LOCAL_STATUSES], *st;
    *ierr = statuses_get(statuses, *count, local, &st);
    if (*ierr != MPI_SUCCESS)
        return;
    *ierr = MPI_Waitall(*count, requests, st);
    statuses_put(st, local, statuses, *count);
}

void mpi_testall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status local[LOCAL_STATUSES], *st;
    int f = 0;
    *ierr = statuses_get(statuses, *count, local, &st);
    if (*ierr != MPI_SUCCESS)
        return;
    *ierr = MPI_Testall(*count, requests, &f, st);
    *flag = mf_logical(f);
    statuses_put(st, local, statuses, f ? *count : 0);
}

void mpi_waitany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    int i = MPI_UNDEFINED;
    *ierr = MPI_Waitany(*count, requests, &i, mf_status_c(status, &st));
    *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    if (i != MPI_UNDEFINED && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE))
        mf_status_out(&st, status);
}

void mpi_testany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    MPI_Status st;
    int i = MPI_UNDEFINED, f = 0;
    *ierr = MPI_Testany(*count, requests, &i, &f, mf_status_c(status, &st));
    *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    *flag = mf_logical(f);
    if (f && i != MPI_UNDEFINED && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE))
        mf_status_out(&st, status);
}

/* Waitsome / Testsome: C fills statuses[k] for k < outcount (MPI 3.1 3.7.5),
 * indices 0-based; Fortran gets 1-based indices. */
static void some_out(int outcount, MPI_Fint *indices, MPI_Status *st, const MPI_Status *local,
                     MPI_Fint *statuses)
{
    statuses_put(st, local, statuses, outcount);
    for (int k = 0; k < outcount; k++)
        indices[k] += 1;
}

void mpi_waitsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status local[LOCAL_STATUSES], *st;
    int n = MPI_UNDEFINED;
    *ierr = statuses_get(statuses, *incount, local, &st);
    if (*ierr != MPI_SUCCESS)
        return;
    *ierr = MPI_Waitsome(*incount, requests, &n, indices, st);
    *outcount = n;
    some_out(n == MPI_UNDEFINED ? 0 : n, indices, st, local, statuses);
}

void mpi_testsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status local[LOCAL_STATUSES], *st;
    int n = MPI_UNDEFINED;
    *ierr = statuses_get(statuses, *incount, local, &st);
    if (*ierr != MPI_SUCCESS)
        return;
    *ierr = MPI_Testsome(*incount, requests, &n, indices, st);
    *outcount = n;
    some_out(n == MPI_UNDEFINED ? 0 : n, indices, st, local, statuses);
}

void mpi_request_free_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = *request;
    *ierr = MPI_Request_free(&r);
    *request = r;
}

void mpi_request_get_status_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    int f = 0;
    *ierr = MPI_Request_get_status(*request, &f, mf_status_c(status, &st));
    *flag = mf_logical(f);
    if (f && *ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_cancel_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = *request;
    *ierr = MPI_Cancel(&r);
}

void mpi_test_cancelled_(MPI_Fint *status, MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Status st;
    int f = 0;
    mf_status_in(status, &st);
    *ierr = MPI_Test_cancelled(&st, &f);
    *flag = mf_logical(f);
}

/* ---- probes and status queries ---- */

void mpi_probe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    *ierr = MPI_Probe(*source, *tag, *comm, mf_status_c(status, &st));
    if (*ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_iprobe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *status,
                 MPI_Fint *ierr)
{
    MPI_Status st;
    int f = 0;
    *ierr = MPI_Iprobe(*source, *tag, *comm, &f, mf_status_c(status, &st));
    *flag = mf_logical(f);
    if (f && *ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_get_count_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count, MPI_Fint *ierr)
{
    MPI_Status st;
    int c = 0;
    mf_status_in(status, &st);
    *ierr = MPI_Get_count(&st, *datatype, &c);
    *count = c;
}

void mpi_get_elements_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count, MPI_Fint *ierr)
{
    MPI_Status st;
    int c = 0;
    mf_status_in(status, &st);
    *ierr = MPI_Get_elements(&st, *datatype, &c);
    *count = c;
}

void mpi_get_elements_x_(MPI_Fint *status, MPI_Fint *datatype, MPI_Count *count, MPI_Fint *ierr)
{
    MPI_Status st;
    mf_status_in(status, &st);
    *ierr = MPI_Get_elements_x(&st, *datatype, count);
}

/* ---- buffered-send buffer ---- */

void mpi_buffer_attach_(void *buffer, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Buffer_attach(buffer, *size);
}

/* Fortran cannot use the address C returns (MPI 3.1 3.6.1: BUFFER_ADDR is
 * a choice argument that is not assigned), so it is dropped. */
void mpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
    void *addr = NULL;
    int sz = 0;
    (void)buffer_addr;
    *ierr = MPI_Buffer_detach(&addr, &sz);
    *size = sz;
}

/* ---- matched probes (message handles are INTEGERs like the others) ---- */

_Static_assert(sizeof(MPI_Message) == sizeof(MPI_Fint), "messages are INTEGERs");

void mpi_mprobe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *message, MPI_Fint *status,
                 MPI_Fint *ierr)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    *ierr = MPI_Mprobe(*source, *tag, *comm, &m, mf_status_c(status, &st));
    *message = m;
    if (*ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_improbe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *message,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    int f = 0;
    *ierr = MPI_Improbe(*source, *tag, *comm, &f, &m, mf_status_c(status, &st));
    *flag = mf_logical(f);
    if (f) {
        *message = m;
        if (*ierr == MPI_SUCCESS)
            mf_status_out(&st, status);
    }
}

void mpi_mrecv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *message, MPI_Fint *status,
                MPI_Fint *ierr)
{
    MPI_Status st;
    MPI_Message m = *message;
    *ierr = MPI_Mrecv(mf_buf(buf), *count, *datatype, &m, mf_status_c(status, &st));
    *message = m;
    if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_TRUNCATE)
        mf_status_out(&st, status);
}

void mpi_imrecv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *message, MPI_Fint *request,
                 MPI_Fint *ierr)
{
    MPI_Message m = *message;
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Imrecv(mf_buf(buf), *count, *datatype, &m, &r);
    *message = m;
    *request = r;
}

/* ---- status setters (for generalized requests, MPI 3.1 12.3) ---- */

void mpi_status_set_elements_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count, MPI_Fint *ierr)
{
    MPI_Status st;
    mf_status_in(status, &st);
    *ierr = MPI_Status_set_elements(&st, *datatype, *count);
    if (*ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_status_set_elements_x_(MPI_Fint *status, MPI_Fint *datatype, MPI_Count *count, MPI_Fint *ierr)
{
    MPI_Status st;
    mf_status_in(status, &st);
    *ierr = MPI_Status_set_elements_x(&st, *datatype, *count);
    if (*ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

void mpi_status_set_cancelled_(MPI_Fint *status, MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Status st;
    mf_status_in(status, &st);
    *ierr = MPI_Status_set_cancelled(&st, *flag != 0);
    if (*ierr == MPI_SUCCESS)
        mf_status_out(&st, status);
}

/* ---- generalized requests ----
 * The Fortran callbacks QUERY_FN(EXTRA_STATE, STATUS, IERROR),
 * FREE_FN(EXTRA_STATE, IERROR) and CANCEL_FN(EXTRA_STATE, COMPLETE, IERROR)
 * are called through C trampolines from an fgreq_t, which the library's
 * single call of free_fn releases. EXTRA_STATE is passed as the program's
 * own INTEGER(KIND=MPI_ADDRESS_KIND) variable (as MPICH and Open MPI do),
 * so a callback's update of it is seen by the program; the variable must
 * outlive the request. A C MPI_Status is a Fortran status (fortran.h), so
 * QUERY_FN fills the library's status in place. */
typedef void(fgreq_query_fn)(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierr);
typedef void(fgreq_free_fn)(MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void(fgreq_cancel_fn)(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierr);

typedef struct fgreq {
    fgreq_query_fn *query;
    fgreq_free_fn *free;
    fgreq_cancel_fn *cancel;
    MPI_Aint *extra_state;
} fgreq_t;

static int fgreq_query(void *extra, MPI_Status *status)
{
    fgreq_t *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(g->extra_state, (MPI_Fint *)status, &ierr);
    return ierr;
}

static int fgreq_free(void *extra)
{
    fgreq_t *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra_state, &ierr);
    free(g);
    return ierr;
}

static int fgreq_cancel(void *extra, int complete)
{
    fgreq_t *g = extra;
    MPI_Fint ierr = MPI_SUCCESS, c = mf_logical(complete);
    g->cancel(g->extra_state, &c, &ierr);
    return ierr;
}

void mpi_grequest_start_(fgreq_query_fn *query_fn, fgreq_free_fn *free_fn, fgreq_cancel_fn *cancel_fn,
                         MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    fgreq_t *g = malloc(sizeof(*g));
    if (!g) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    g->query = query_fn;
    g->free = free_fn;
    g->cancel = cancel_fn;
    g->extra_state = extra_state;
    *ierr = MPI_Grequest_start(fgreq_query, fgreq_free, fgreq_cancel, g, &r);
    if (*ierr != MPI_SUCCESS)
        free(g);
    *request = r;
}

void mpi_grequest_complete_(MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Grequest_complete(*request);
}
