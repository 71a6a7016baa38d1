/*
 * errors3: error classes, codes and handlers of MPI 3.1 8.3-8.5 and small
 * MPI-3 calls. MPI_Add_error_class / _code / _string with MPI_Error_class
 * and MPI_Error_string on them and MPI_LASTUSEDCODE following; a user error
 * handler (MPI_Comm_create_errhandler) called by MPI_Comm_call_errhandler
 * with the communicator and the code, and by a failing MPI call with its
 * error class, which the call then returns; MPI_Comm_test_inter /
 * MPI_Comm_remote_size on intra-communicators; MPI_Comm_dup_with_info,
 * MPI_Comm_idup, MPI_Comm_set_info / get_info; MPI_Status_set_cancelled;
 * MPI_Aint_add / MPI_Aint_diff; MPI_Comm_create_group (collective over the
 * group only: the other ranks do not call it).
 */
#define TEST_NAME "errors3"
#include "mpi3_test.h"

static int rank, size;
static int eh_calls, eh_code;
static MPI_Comm eh_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_comm = *comm;
    eh_code = *code;
}

static void classes(void)
{
    int cls, cls2, code, code2, c, len, *last, flag;
    char s[MPI_MAX_ERROR_STRING];

    MPI_CHECK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "new class %d not above MPI_ERR_LASTCODE", cls);
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= cls, "MPI_LASTUSEDCODE %d below the new class %d", *last, cls);
    MPI_CHECK(MPI_Add_error_code(cls, &code));
    MPI_CHECK(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    MPI_CHECK(MPI_Add_error_class(&cls2));
    CHECK(code != cls && code2 != code && cls2 != cls && cls2 != code && cls2 != code2, "codes collide");
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(*last >= cls2 && *last >= code2, "MPI_LASTUSEDCODE not updated");
    MPI_CHECK(MPI_Error_class(code, &c));
    CHECK(c == cls, "class of the new code: %d, expected %d", c, cls);
    MPI_CHECK(MPI_Error_class(code2, &c));
    CHECK(c == MPI_ERR_ARG, "class of a code in MPI_ERR_ARG: %d", c);
    MPI_CHECK(MPI_Error_class(cls2, &c));
    CHECK(c == cls2, "a class is its own class");
    MPI_CHECK(MPI_Add_error_string(code, "the frobnicator jammed"));
    MPI_CHECK(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "the frobnicator jammed") && len == (int)strlen(s), "string '%s' (%d)", s, len);
    MPI_CHECK(MPI_Add_error_string(code, "replaced"));
    MPI_CHECK(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "replaced"), "string not replaced: '%s'", s);
    MPI_CHECK(MPI_Add_error_string(cls, "class string"));
    MPI_CHECK(MPI_Error_string(cls, s, &len));
    CHECK(!strcmp(s, "class string"), "class string '%s'", s);
    MPI_CHECK(MPI_Error_string(cls2, s, &len));
    CHECK(len == (int)strlen(s), "string of a class without one");

    /* (a string for a predefined code, a code in a class that is not one:
     * "erroneous" in MPI 3.1 8.5; mbmpi returns MPI_ERR_ARG, MPICH accepts
     * them; not tested) */

    /* user handler, called with the code by MPI_Comm_call_errhandler */
    {
        MPI_Errhandler eh, got;
        MPI_Comm dup;
        MPI_CHECK(MPI_Comm_create_errhandler(my_handler, &eh));
        MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MPI_CHECK(MPI_Comm_set_errhandler(dup, eh));
        MPI_CHECK(MPI_Comm_get_errhandler(dup, &got));
        CHECK(got == eh, "get_errhandler");
        MPI_CHECK(MPI_Errhandler_free(&got));
        MPI_CHECK(MPI_Errhandler_free(&eh)); /* dup keeps using it */
        CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");
        MPI_CHECK(MPI_Comm_call_errhandler(dup, code));
        CHECK(eh_calls == 1 && eh_comm == dup && eh_code == code, "handler: %d calls, code %d", eh_calls,
              eh_code);
        /* a real error: the handler gets the class, the call returns it */
        c = MPI_Send(&len, 1, MPI_INT, size + 3, 0, dup);
        CHECK(eh_calls == 2 && eh_code == c, "handler on an error: %d calls, code %d, returned %d", eh_calls,
              eh_code, c);
        MPI_CHECK(MPI_Error_class(c, &c));
        CHECK(c == MPI_ERR_RANK, "class %d of a send to a bad rank", c);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        EXPECT_CLASS(MPI_Comm_call_errhandler(MPI_COMM_NULL, code), MPI_ERR_COMM);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_CHECK(MPI_Comm_free(&dup));
    }
#if defined(MPI_ERRORS_ABORT) && !defined(MPICH) /* MPICH 4.0.2 asserts in Comm_set_errhandler */
    {
        MPI_Errhandler got;
        MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ABORT));
        MPI_CHECK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
        CHECK(got == MPI_ERRORS_ABORT, "MPI_ERRORS_ABORT not kept");
        MPI_CHECK(MPI_Errhandler_free(&got));
        MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    }
#endif
    /* MPI_ERRORS_RETURN: Comm_call_errhandler returns MPI_SUCCESS */
    {
        MPI_Comm dup;
        MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MPI_CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
        MPI_CHECK(MPI_Comm_call_errhandler(dup, cls));
        MPI_CHECK(MPI_Comm_free(&dup));
    }
}

static void small_calls(void)
{
    MPI_Status st;
    int flag, c;
    double arr[10];
    MPI_Aint a0, a5, d;

    MPI_CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "MPI_COMM_WORLD is an inter-communicator?");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* erroneous on an intra-communicator (MPI 3.1 6.6.1): mbmpi says
     * MPI_ERR_COMM, MPICH answers; if it fails, the class must be right */
    c = MPI_Comm_remote_size(MPI_COMM_WORLD, &flag);
    if (c != MPI_SUCCESS) {
        MPI_Error_class(c, &c);
        CHECK(c == MPI_ERR_COMM, "Comm_remote_size on an intra-communicator: class %d", c);
    }
    EXPECT_CLASS(MPI_Comm_remote_size(MPI_COMM_NULL, &c), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* dup variants of MPI 3.0; info hints are accepted */
    {
        MPI_Comm d1, d2;
        MPI_Request r;
        MPI_Info info, used;
        int sum, nk;
        MPI_CHECK(MPI_Info_create(&info));
        MPI_CHECK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
        MPI_CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d1));
        MPI_CHECK(MPI_Comm_idup(d1, &d2, &r));
        MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(r == MPI_REQUEST_NULL, "idup request");
        MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d2));
        CHECK(sum == size * (size - 1) / 2, "allreduce on the idup'ed communicator");
        MPI_CHECK(MPI_Comm_compare(d1, d2, &c));
        CHECK(c == MPI_CONGRUENT, "idup is not congruent");
        MPI_CHECK(MPI_Comm_set_info(d2, info));
        MPI_CHECK(MPI_Comm_get_info(d2, &used));
        MPI_CHECK(MPI_Info_get_nkeys(used, &nk));
        CHECK(nk >= 0, "get_info");
        MPI_CHECK(MPI_Info_free(&used));
        MPI_CHECK(MPI_Info_free(&info));
        MPI_CHECK(MPI_Comm_free(&d2));
        MPI_CHECK(MPI_Comm_free(&d1));
    }

    MPI_CHECK(MPI_Status_set_cancelled(&st, 1));
    MPI_CHECK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "Status_set_cancelled(1)");
    MPI_CHECK(MPI_Status_set_cancelled(&st, 0));
    MPI_CHECK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "Status_set_cancelled(0)");

    MPI_CHECK(MPI_Get_address(&arr[0], &a0));
    MPI_CHECK(MPI_Get_address(&arr[5], &a5));
    d = MPI_Aint_diff(a5, a0);
    CHECK(d == 5 * (MPI_Aint)sizeof(double), "Aint_diff %ld", (long)d);
    CHECK(MPI_Aint_add(a0, d) == a5, "Aint_add");
    CHECK(MPI_Aint_diff(a0, a5) == -d, "negative Aint_diff");
}

/* The even ranks make a communicator with MPI_Comm_create_group; the odd
 * ranks meanwhile exchange messages among themselves. */
static void create_group(void)
{
    MPI_Group world, evens;
    MPI_Comm ec = MPI_COMM_NULL, ec2 = MPI_COMM_NULL;
    int n = (size + 1) / 2, *ranks = malloc((size_t)n * sizeof(int)), i, r, s, sum;

    for (i = 0; i < n; i++)
        ranks[i] = 2 * (n - 1 - i); /* reversed: group rank order is not comm order */
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_CHECK(MPI_Group_incl(world, n, ranks, &evens));
    if (rank % 2 == 0) {
        MPI_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 17, &ec));
        CHECK(ec != MPI_COMM_NULL, "member got MPI_COMM_NULL");
        MPI_CHECK(MPI_Comm_rank(ec, &r));
        MPI_CHECK(MPI_Comm_size(ec, &s));
        CHECK(s == n && r == n - 1 - rank / 2, "create_group rank %d size %d", r, s);
        MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ec));
        CHECK(sum == n * (n - 1), "sum over the new communicator %d", sum);
        /* a second one with another tag, from the new communicator */
        MPI_Group g2;
        MPI_CHECK(MPI_Comm_group(ec, &g2));
        MPI_CHECK(MPI_Comm_create_group(ec, g2, 5, &ec2));
        MPI_CHECK(MPI_Barrier(ec2));
        MPI_CHECK(MPI_Group_free(&g2));
        MPI_CHECK(MPI_Comm_free(&ec2));
        MPI_CHECK(MPI_Comm_free(&ec));
    } else {
        /* not a member, but calling it anyway is local and gives COMM_NULL */
        MPI_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 17, &ec));
        CHECK(ec == MPI_COMM_NULL, "non-member got a communicator");
        /* odd ranks 1, 3, 5, 7 ... pair up as (1, 3), (5, 7), ... */
        int j = rank / 2, peer = 2 * (j ^ 1) + 1, v = rank, w = -1;
        if (peer < size) {
            MPI_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 3, &w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            CHECK(w == peer, "odd-rank exchange got %d from %d", w, peer);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 1, &ec), MPI_ERR_GROUP);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, evens, -1, &ec), MPI_ERR_TAG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_CHECK(MPI_Group_free(&evens));
    MPI_CHECK(MPI_Group_free(&world));
    free(ranks);
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    if (getenv("ERRORS3_CALL_FATAL")) {
        /* the default handler ends the job; its message gives the string the
         * program added for its own code */
        int cls, code;
        MPI_Add_error_class(&cls);
        MPI_Add_error_code(cls, &code);
        MPI_Add_error_string(code, "errors3-own-code-string");
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
        fprintf(stderr, "FAIL errors3: MPI_Comm_call_errhandler returned under MPI_ERRORS_ARE_FATAL\n");
        return 1;
    }
    classes();
    small_calls();
    create_group();
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
