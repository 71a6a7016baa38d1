/* tests/unit/mpi_stubs.h: controls of the core stand-ins in mpi_stubs.c. */
#ifndef MPI_STUBS_H
#define MPI_STUBS_H

extern int stub_initialized;   /* what mpii_is_initialized() returns (default 1) */
extern int stub_last_err;      /* class of the last mpii_err() call */
extern char stub_last_fn[64];  /* its function name */
extern char stub_last_msg[256];
extern int stub_world_rank, stub_world_size; /* MPI_COMM_WORLD after stub_reset() */
extern int stub_split_rank, stub_split_size; /* of the next MPI_Comm_split results; -1: parent's */

void stub_reset(void);   /* fresh WORLD and SELF, no other communicator */
void stub_cleanup(void); /* free everything (for valgrind) */

#endif
