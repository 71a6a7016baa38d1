/*
 * mpi/fortran/f_comm.c: Fortran 77 bindings of communicators, groups and
 * Cartesian topologies. Handles are the C handles; LOGICAL arguments
 * (periods, reorder, remain_dims, flags) are converted to and from C truth
 * values, since any non-zero LOGICAL is true.
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

/* ---- communicators ---- */

void mpi_comm_rank_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierr)
{
    int r = MPI_UNDEFINED;
    *ierr = MPI_Comm_rank(*comm, &r);
    *rank = r;
}

void mpi_comm_size_(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr)
{
    int s = 0;
    *ierr = MPI_Comm_size(*comm, &s);
    *size = s;
}

/* newcomm is written when the request completes: MPI_Comm and MPI_Fint are
 * both int, so the Fortran variable itself is passed */
void mpi_comm_idup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_idup(*comm, newcomm, request);
}

void mpi_comm_dup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_dup(*comm, &c);
    *newcomm = c;
}

void mpi_comm_idup_with_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *request,
                              MPI_Fint *ierr)
{
    *ierr = MPI_Comm_idup_with_info(*comm, *info, newcomm, request);
}

void mpi_comm_dup_with_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_dup_with_info(*comm, *info, &c);
    *newcomm = c;
}

void mpi_comm_set_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_set_info(*comm, *info);
}

void mpi_comm_get_info_(MPI_Fint *comm, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Comm_get_info(*comm, &i);
    *info_used = i;
}

void mpi_comm_split_(MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_split(*comm, *color, *key, &c);
    *newcomm = c;
}

void mpi_comm_split_type_(MPI_Fint *comm, MPI_Fint *split_type, MPI_Fint *key, MPI_Fint *info,
                          MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_split_type(*comm, *split_type, *key, *info, &c);
    *newcomm = c;
}

void mpi_comm_create_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_create(*comm, *group, &c);
    *newcomm = c;
}

void mpi_comm_create_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *tag, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_create_group(*comm, *group, *tag, &c);
    *newcomm = c;
}

void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = *comm;
    *ierr = MPI_Comm_free(&c);
    *comm = c;
}

void mpi_comm_disconnect_(MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = *comm;
    *ierr = MPI_Comm_disconnect(&c);
    *comm = c;
}

void mpi_comm_get_parent_(MPI_Fint *parent, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_get_parent(&c);
    *parent = c;
}

void mpi_comm_compare_(MPI_Fint *comm1, MPI_Fint *comm2, MPI_Fint *result, MPI_Fint *ierr)
{
    int r = MPI_UNEQUAL;
    *ierr = MPI_Comm_compare(*comm1, *comm2, &r);
    *result = r;
}

void mpi_comm_test_inter_(MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Comm_test_inter(*comm, &f);
    *flag = mf_logical(f);
}

void mpi_comm_remote_size_(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr)
{
    int n = 0;
    *ierr = MPI_Comm_remote_size(*comm, &n);
    *size = n;
}

void mpi_comm_remote_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Comm_remote_group(*comm, &g);
    *group = g;
}

void mpi_intercomm_create_(MPI_Fint *local_comm, MPI_Fint *local_leader, MPI_Fint *peer_comm,
                           MPI_Fint *remote_leader, MPI_Fint *tag, MPI_Fint *newintercomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Intercomm_create(*local_comm, *local_leader, *peer_comm, *remote_leader, *tag, &c);
    *newintercomm = c;
}

void mpi_intercomm_merge_(MPI_Fint *intercomm, MPI_Fint *high, MPI_Fint *newintracomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Intercomm_merge(*intercomm, *high != 0, &c);
    *newintracomm = c;
}

void mpi_comm_set_name_(MPI_Fint *comm, const char *name, MPI_Fint *ierr, size_t name_len)
{
    char *s = mf_cstring(name, name_len);
    *ierr = s ? MPI_Comm_set_name(*comm, s) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_comm_get_name_(MPI_Fint *comm, char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
    char buf[MPI_MAX_OBJECT_NAME + 1];
    int len = 0;
    *ierr = MPI_Comm_get_name(*comm, buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_OBJECT_NAME] = '\0';
    *resultlen = mf_fstring(buf, name, name_len);
}

/* ---- groups ---- */

void mpi_comm_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Comm_group(*comm, &g);
    *group = g;
}

void mpi_group_size_(MPI_Fint *group, MPI_Fint *size, MPI_Fint *ierr)
{
    int s = 0;
    *ierr = MPI_Group_size(*group, &s);
    *size = s;
}

void mpi_group_rank_(MPI_Fint *group, MPI_Fint *rank, MPI_Fint *ierr)
{
    int r = MPI_UNDEFINED;
    *ierr = MPI_Group_rank(*group, &r);
    *rank = r;
}

void mpi_group_incl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_incl(*group, *n, ranks, &g);
    *newgroup = g;
}

void mpi_group_excl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_excl(*group, *n, ranks, &g);
    *newgroup = g;
}

/* RANGES(3, N) is laid out as C's int ranges[n][3] */
void mpi_group_range_incl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranges, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_range_incl(*group, *n, (int(*)[3])ranges, &g);
    *newgroup = g;
}

void mpi_group_range_excl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranges, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_range_excl(*group, *n, (int(*)[3])ranges, &g);
    *newgroup = g;
}

void mpi_group_translate_ranks_(MPI_Fint *group1, MPI_Fint *n, MPI_Fint *ranks1, MPI_Fint *group2,
                                MPI_Fint *ranks2, MPI_Fint *ierr)
{
    *ierr = MPI_Group_translate_ranks(*group1, *n, ranks1, *group2, ranks2);
}

void mpi_group_compare_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *result, MPI_Fint *ierr)
{
    int r = MPI_UNEQUAL;
    *ierr = MPI_Group_compare(*group1, *group2, &r);
    *result = r;
}

void mpi_group_union_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_union(*group1, *group2, &g);
    *newgroup = g;
}

void mpi_group_intersection_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_intersection(*group1, *group2, &g);
    *newgroup = g;
}

void mpi_group_difference_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *newgroup, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Group_difference(*group1, *group2, &g);
    *newgroup = g;
}

void mpi_group_free_(MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = *group;
    *ierr = MPI_Group_free(&g);
    *group = g;
}

/* ---- Cartesian topologies ---- */

void mpi_dims_create_(MPI_Fint *nnodes, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *ierr)
{
    *ierr = MPI_Dims_create(*nnodes, *ndims, dims);
}

/* LOGICAL array -> C truth values in a malloc'd array (NULL: out of memory). */
static int *logicals_in(const MPI_Fint *l, int n)
{
    int *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (c)
        for (int i = 0; i < n; i++)
            c[i] = l[i] != 0;
    return c;
}

void mpi_cart_create_(MPI_Fint *comm_old, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                      MPI_Fint *reorder, MPI_Fint *comm_cart, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int *p = logicals_in(periods, *ndims);
    if (!p) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Cart_create(*comm_old, *ndims, dims, p, *reorder != 0, &c);
    free(p);
    *comm_cart = c;
}

void mpi_cart_coords_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *maxdims, MPI_Fint *coords, MPI_Fint *ierr)
{
    *ierr = MPI_Cart_coords(*comm, *rank, *maxdims, coords);
}

void mpi_cart_rank_(MPI_Fint *comm, MPI_Fint *coords, MPI_Fint *rank, MPI_Fint *ierr)
{
    int r = MPI_PROC_NULL;
    *ierr = MPI_Cart_rank(*comm, coords, &r);
    *rank = r;
}

void mpi_cart_shift_(MPI_Fint *comm, MPI_Fint *direction, MPI_Fint *disp, MPI_Fint *rank_source,
                     MPI_Fint *rank_dest, MPI_Fint *ierr)
{
    int s = MPI_PROC_NULL, d = MPI_PROC_NULL;
    *ierr = MPI_Cart_shift(*comm, *direction, *disp, &s, &d);
    *rank_source = s;
    *rank_dest = d;
}

void mpi_cart_get_(MPI_Fint *comm, MPI_Fint *maxdims, MPI_Fint *dims, MPI_Fint *periods, MPI_Fint *coords,
                   MPI_Fint *ierr)
{
    *ierr = MPI_Cart_get(*comm, *maxdims, dims, periods, coords);
    if (*ierr == MPI_SUCCESS)
        for (int i = 0; i < *maxdims; i++)
            periods[i] = mf_logical(periods[i]);
}

void mpi_cartdim_get_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *ierr)
{
    int n = 0;
    *ierr = MPI_Cartdim_get(*comm, &n);
    *ndims = n;
}

void mpi_cart_sub_(MPI_Fint *comm, MPI_Fint *remain_dims, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int nd = 0;
    *ierr = MPI_Cartdim_get(*comm, &nd);
    if (*ierr != MPI_SUCCESS)
        return;
    int *r = logicals_in(remain_dims, nd);
    if (!r) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Cart_sub(*comm, r, &c);
    free(r);
    *newcomm = c;
}

void mpi_topo_test_(MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    int s = MPI_UNDEFINED;
    *ierr = MPI_Topo_test(*comm, &s);
    *status = s;
}
