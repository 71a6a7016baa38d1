/*
 * tests/unit/mpi_stubs.c: stand-ins for the core (mpi/init.c, comm.c,
 * errhandler.c) so that datatype.c, op.c, errstr.c and topo.c can be unit
 * tested without the full library. Link it only with unit tests that do NOT
 * link lib/libmpi.a (the symbols would clash).
 *
 * Communicators: a small fixed table; MPI_COMM_WORLD (1) and MPI_COMM_SELF
 * (2) exist after stub_reset(). MPI_Comm_split cannot know what the other
 * (imaginary) processes chose, so the rank and size of the communicator it
 * makes are taken from stub_split_rank / stub_split_size when >= 0, else
 * copied from the parent.
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "mpi/mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_stubs.h"

int stub_initialized = 1;
int stub_last_err = MPI_SUCCESS;
char stub_last_fn[64];
char stub_last_msg[256];
int stub_world_rank = 0;
int stub_world_size = 1;
int stub_split_rank = -1;
int stub_split_size = -1;

#define STUB_NCOMMS 64
static mpii_comm_t comms[STUB_NCOMMS];

int mpii_err(mpii_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    (void)comm;
    stub_last_err = errclass;
    snprintf(stub_last_fn, sizeof stub_last_fn, "%s", fn);
    va_start(ap, fmt);
    vsnprintf(stub_last_msg, sizeof stub_last_msg, fmt, ap);
    va_end(ap);
    return errclass;
}

int mpii_is_initialized(void)
{
    return stub_initialized;
}

static void comm_clear(mpii_comm_t *c)
{
    free(c->dims);
    free(c->periods);
    memset(c, 0, sizeof *c);
}

void stub_reset(void)
{
    for (int i = 0; i < STUB_NCOMMS; i++)
        comm_clear(&comms[i]);
    comms[MPI_COMM_WORLD].in_use = 1;
    comms[MPI_COMM_WORLD].handle = MPI_COMM_WORLD;
    comms[MPI_COMM_WORLD].rank = stub_world_rank;
    comms[MPI_COMM_WORLD].size = stub_world_size;
    comms[MPI_COMM_SELF].in_use = 1;
    comms[MPI_COMM_SELF].handle = MPI_COMM_SELF;
    comms[MPI_COMM_SELF].rank = 0;
    comms[MPI_COMM_SELF].size = 1;
    stub_split_rank = stub_split_size = -1;
    stub_last_err = MPI_SUCCESS;
    stub_last_fn[0] = stub_last_msg[0] = '\0';
}

mpii_comm_t *mpii_comm_get(MPI_Comm comm)
{
    if (!comms[MPI_COMM_WORLD].in_use)
        stub_reset();
    if (comm <= 0 || comm >= STUB_NCOMMS || !comms[comm].in_use)
        return NULL;
    return &comms[comm];
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    mpii_comm_t *parent = mpii_comm_get(comm);
    (void)key;
    if (!parent)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_split", "invalid communicator");
    if (color == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    for (int i = 3; i < STUB_NCOMMS; i++) {
        if (!comms[i].in_use) {
            comms[i].in_use = 1;
            comms[i].handle = i;
            comms[i].rank = stub_split_rank >= 0 ? stub_split_rank : parent->rank;
            comms[i].size = stub_split_size >= 0 ? stub_split_size : parent->size;
            *newcomm = i;
            return MPI_SUCCESS;
        }
    }
    return mpii_err(NULL, MPI_ERR_INTERN, "MPI_Comm_split", "stub communicator table full");
}

int MPI_Comm_free(MPI_Comm *comm)
{
    mpii_comm_t *c = comm ? mpii_comm_get(*comm) : NULL;
    if (!c || *comm <= MPI_COMM_SELF)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator");
    comm_clear(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

void stub_cleanup(void)
{
    for (int i = 0; i < STUB_NCOMMS; i++)
        comm_clear(&comms[i]);
}

/* mpi/attr.c: datatype attributes (MPI_Type_dup / MPI_Type_free hooks);
 * the unit tests use no attributes. */
int mpii_attr_type_dup(MPI_Datatype old, MPI_Datatype newt)
{
    (void)old;
    (void)newt;
    return MPI_SUCCESS;
}

int mpii_attr_type_free(MPI_Datatype dt)
{
    (void)dt;
    return MPI_SUCCESS;
}

/* mpi/coll/nbc.c: the unit tests run no collective */
int mpii_nbc_in_coroutine(void)
{
    return 0;
}
