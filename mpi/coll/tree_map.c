/*
 * mpi/coll/tree_map.c: how a binomial tree's ranks sit on an oversubscribed
 * host.
 *
 * When the ranks, all on this host, outnumber its CPUs, mpi/init.c pins
 * them round robin: world rank w shares CPU class w % n with the other
 * ranks of that class. A message to a rank on the sender's own CPU is
 * received only once the sender has given the CPU up; one to another CPU
 * is received while the sender goes on. With the plain numbering v = (rank
 * - root) mod P on 2 CPUs, every edge of a binomial tree but the last of
 * each node stays on one CPU (0 -> 2 -> ...), and the first and largest
 * subtree's relay (v = P / 2) waits for the root's remaining sends and its
 * return to a wait before it can forward anything.
 *
 * So the trees number their ranks in blocks of CPU classes: v = 0 is the
 * root, the root's class takes the first v's, the next class the next, and
 * so on, each class's ranks in rank order after the root. A binomial
 * subtree is a range of v, so the root's largest subtree goes to another
 * CPU at once and then stays there, and the CPUs work side by side.
 * Measured (bench/coll -c bcast, P = 4 on 2 CPUs over tcp;ofi_rxm,
 * 2026-12-06): the binomial tree of 256 B-4 KiB took 21-28 us numbered v =
 * rank - root, 17-18 with the ranks pinned in blocks (the same tree as this
 * numbering); the binary tree, whose relay (v = 1) sits on the other CPU,
 * 15-20.
 *
 * Every rank computes the same numbering (the classes are agreed at
 * MPI_Init). Where the classes are unknown (not oversubscribed, ranks on
 * several hosts or not pinned, members of another job) it is the rotation
 * v = (rank - root) mod P, computed on the fly.
 *
 * Cost: O(P + classes) integer steps when oversubscribed and the root
 * differs from the last call's on the communicator, none otherwise (the
 * numbering is kept for that root), no message; the scratch (2 P + classes
 * ints) is allocated once per communicator. The numbering lives in that
 * scratch only until a collective with another root starts on the
 * communicator: a nonblocking collective runs on a coroutine that may give
 * way to another at every wait, so callers take what they need from it
 * before their first wait (or ask again after it).
 */
#include "coll.h"

#include <stdlib.h>

int mpii_coll_tree_map(mpii_comm_t *comm, int root, mpii_tree_map_t *tm)
{
    int p = comm->size, classes = 0;

    tm->rank_of = NULL;
    tm->root = root;
    tm->p = p;
    tm->me = (comm->rank - root + p) % p;
    if (p < 3 || comm->is_inter)
        return MPI_SUCCESS;
    if (comm->tree_scratch && comm->tree_root == root + 1) { /* built for this root already */
        tm->rank_of = comm->tree_scratch;
        tm->me = comm->tree_scratch[p + comm->rank];
        return MPI_SUCCESS;
    }
    for (int r = 0; r < p; r++) {
        int c = mpii_world_cpu_class(comm->world_ranks[r]);
        if (c < 0)
            return MPI_SUCCESS;
        if (c >= classes)
            classes = c + 1;
    }
    if (classes < 2)
        return MPI_SUCCESS;
    if (!comm->tree_scratch) {
        /* classes is at most the host's CPU count: room for all of them */
        int n = mpii_host_cpus() > classes ? mpii_host_cpus() : classes;
        comm->tree_scratch = malloc(((size_t)2 * (size_t)p + (size_t)n) * sizeof(int));
        if (!comm->tree_scratch)
            return MPI_ERR_NO_MEM;
    }
    int *rank_of = comm->tree_scratch, *v_of = rank_of + p, *next = v_of + p;
    int croot = mpii_world_cpu_class(comm->world_ranks[root]), at = 0;

    for (int c = 0; c < classes; c++)
        next[c] = 0;
    for (int r = 0; r < p; r++)
        next[mpii_world_cpu_class(comm->world_ranks[r])]++;
    /* next[c]: the first v of class c, the classes in order from the root's */
    for (int k = 0; k < classes; k++) {
        int c = (croot + k) % classes, n = next[c];
        next[c] = at;
        at += n;
    }
    for (int i = 0; i < p; i++) {
        int r = (root + i) % p, v = next[mpii_world_cpu_class(comm->world_ranks[r])]++;
        rank_of[v] = r;
        v_of[r] = v;
    }
    tm->rank_of = rank_of;
    tm->me = v_of[comm->rank];
    comm->tree_root = root + 1;
    return MPI_SUCCESS;
}
