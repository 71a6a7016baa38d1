/*
 * session: the Sessions model of MPI 4.0. Without MPI_Init: MPI_Session_init starts the library
 * (MPI_Initialized stays false), the process sets (their number, names through a length query, info
 * mpi_size), a communicator of the world set made with MPI_Comm_create_from_group (rank, size, point to
 * point, Allreduce), one of the even ranks under another string tag, an inter-communicator of the even and
 * odd ranks (MPI_Intercomm_create_from_groups) with traffic between the leaders, MPI_COMM_SELF's set, two
 * sessions open at once, MPI_Session_get_info's thread level, and errors through the session's handler:
 * MPI_ERRORS_RETURN (an unknown set: MPI_ERR_ARG), then a handler of MPI_Session_create_errhandler that
 * counts its calls (also through MPI_Session_call_errhandler); an invalid session gives MPI_ERR_SESSION. The
 * last MPI_Session_finalize shuts the library down: the job ends cleanly. In mixed mode: MPI_Init first, a
 * session beside it, MPI_Finalize while the session is open (its communicators still work), then
 * MPI_Session_finalize; MPI_Initialized and MPI_Finalized follow the world model.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "session"
static int rank = -1;
#define CHECK_RANK rank
#include "check.h"

static int handler_calls, handler_code;

static void count_errors(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    handler_code = *code;
}

/* communicators of the world set of session s: the whole, the even ranks,
 * and an inter-communicator of the even and odd ranks */
static void use_session(MPI_Session s)
{
    MPI_Group world, even, odd;
    MPI_Comm c, ce, inter;
    int size, n, sum, v, range[1][3];

    MPI_CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MPI_CHECK(
        MPI_Comm_create_from_group(world, "org.mbmpi.test.world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_CHECK(MPI_Comm_rank(c, &rank));
    MPI_CHECK(MPI_Comm_size(c, &size));
    MPI_CHECK(MPI_Group_size(world, &n));
    CHECK(n == size, "world set has %d processes, its communicator %d", n, size);
    MPI_CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &v, 1, MPI_INT, (rank + size - 1) % size,
                           0, c, MPI_STATUS_IGNORE));
    CHECK(v == (rank + size - 1) % size, "ring got %d", v);
    MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "Allreduce gave %d", sum);

    /* the even ranks only: the odd ones do not call */
    range[0][0] = 0, range[0][1] = size - 1, range[0][2] = 2;
    MPI_CHECK(MPI_Group_range_incl(world, 1, range, &even));
    MPI_CHECK(MPI_Group_difference(world, even, &odd));
    if (rank % 2 == 0) {
        MPI_CHECK(
            MPI_Comm_create_from_group(even, "org.mbmpi.test.even", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ce));
        MPI_CHECK(MPI_Comm_size(ce, &n));
        CHECK(n == (size + 1) / 2, "even communicator of %d", n);
        MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, ce));
        CHECK(sum == (size - 1) / 2 * 2, "even Allreduce gave %d", sum);
        MPI_CHECK(MPI_Comm_free(&ce));
    }
    if (size > 1) {
        MPI_CHECK(MPI_Intercomm_create_from_groups(rank % 2 ? odd : even, 0, rank % 2 ? even : odd, 0,
                                                   "org.mbmpi.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                   &inter));
        MPI_CHECK(MPI_Comm_remote_size(inter, &n));
        CHECK(n == (rank % 2 ? (size + 1) / 2 : size / 2), "remote size %d", n);
        if (rank < 2) { /* world ranks 0 and 1 are the leaders */
            MPI_CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 3, &v, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE));
            CHECK(v == 1 - rank, "leaders' exchange got %d", v);
        }
        MPI_CHECK(MPI_Comm_free(&inter));
    }
    MPI_CHECK(MPI_Group_free(&even));
    MPI_CHECK(MPI_Group_free(&odd));
    MPI_CHECK(MPI_Group_free(&world));
    MPI_CHECK(MPI_Comm_free(&c));
}

static void psets_and_errors(MPI_Session s)
{
    MPI_Info info;
    MPI_Group self;
    MPI_Comm cs;
    MPI_Errhandler eh, got;
    char name[MPI_MAX_PSET_NAME_LEN], v[64];
    int n, len, flag, size;

    MPI_CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    len = 0;
    MPI_CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    CHECK(len == (int)strlen("mpi://WORLD") + 1, "length query gave %d", len);
    MPI_CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(!strcmp(name, "mpi://WORLD"), "set 0 is \"%s\"", name);
    len = sizeof name;
    MPI_CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
    CHECK(!strcmp(name, "mpi://SELF"), "set 1 is \"%s\"", name);
    MPI_CHECK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    MPI_CHECK(MPI_Info_get(info, "mpi_size", (int)sizeof v - 1, v, &flag));
    MPI_CHECK(MPI_Group_from_session_pset(s, "mpi://world", &self)); /* (names in any case) */
    MPI_CHECK(MPI_Group_size(self, &size));
    MPI_CHECK(MPI_Group_free(&self));
    CHECK(flag && atoi(v) == size, "mpi_size is %s", flag ? v : "(unset)");
    MPI_CHECK(MPI_Info_free(&info));
    MPI_CHECK(MPI_Session_get_info(s, &info));
    MPI_CHECK(MPI_Info_get(info, "thread_level", (int)sizeof v - 1, v, &flag));
    CHECK(flag && !strcmp(v, "MPI_THREAD_SERIALIZED"), "thread_level is %s", flag ? v : "(unset)");
    MPI_CHECK(MPI_Info_free(&info));

    /* the SELF set */
    MPI_CHECK(MPI_Group_from_session_pset(s, "mpi://SELF", &self));
    MPI_CHECK(MPI_Comm_create_from_group(self, "org.mbmpi.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cs));
    MPI_CHECK(MPI_Comm_size(cs, &n));
    CHECK(n == 1, "self communicator of %d", n);
    MPI_CHECK(MPI_Comm_free(&cs));
    MPI_CHECK(MPI_Group_free(&self));

    /* errors: MPI_ERRORS_RETURN from MPI_Session_init, then a handler of ours */
    ECLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &self), MPI_ERR_ARG);
    ECLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 7, &len, name), MPI_ERR_ARG);
    MPI_CHECK(MPI_Session_create_errhandler(count_errors, &eh));
    MPI_CHECK(MPI_Session_set_errhandler(s, eh));
    MPI_CHECK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "get_errhandler gave %d, not %d", got, eh);
    MPI_CHECK(MPI_Errhandler_free(&got));
    ECLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &self), MPI_ERR_ARG);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_ARG, "handler called %d times, code %d",
          handler_calls, handler_code);
    MPI_CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d",
          handler_calls, handler_code);
    MPI_CHECK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    const char *mode = getenv("SESSION_MODE");
    int mixed = mode && !strcmp(mode, "mixed"), flag = -1;
    MPI_Session s1, s2;
    MPI_Info info;

    if (mixed)
        MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Info_create(&info));
    MPI_CHECK(MPI_Info_set(info, "thread_level", "MPI_THREAD_SERIALIZED"));
    MPI_CHECK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1));
    MPI_CHECK(MPI_Info_free(&info));
    MPI_CHECK(MPI_Initialized(&flag));
    CHECK(flag == mixed, "MPI_Initialized gave %d", flag);
    MPI_CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    CHECK(s1 != s2 && s1 != MPI_SESSION_NULL, "sessions %d and %d", s1, s2);
    use_session(s1);
    psets_and_errors(s1);
    MPI_CHECK(MPI_Session_finalize(&s1));
    CHECK(s1 == MPI_SESSION_NULL, "finalized session is %d", s1);
    if (mixed) {
        MPI_CHECK(MPI_Finalize());
        MPI_CHECK(MPI_Finalized(&flag));
        CHECK(flag == 1, "MPI_Finalized gave %d", flag);
    }
    use_session(s2); /* still open (after MPI_Finalize in the mixed run) */
    MPI_CHECK(MPI_Finalized(&flag));
    CHECK(flag == mixed, "MPI_Finalized gave %d with a session open", flag);
    MPI_CHECK(MPI_Session_finalize(&s2));
    if (rank == 0)
        printf("PASS %s%s\n", TEST_NAME, mixed ? " mixed" : "");
    return 0;
}
