/*
 * mpi/session.c: the Sessions model of MPI 4.0 (11.3). MPI_Session_init
 * starts the library when neither MPI_Init nor another session has (it is
 * local: opening the transport needs no other rank), and the last of the
 * world model and the sessions to finish shuts it down (mpi/init.c). A
 * session offers two process sets, "mpi://WORLD" and "mpi://SELF" (every
 * process of the job starts with it, so there are no others); groups come
 * from them, and MPI_Comm_create_from_group / MPI_Intercomm_create_from_groups
 * make communicators of groups with no parent communicator.
 *
 * Those two are collective over the group only. They run over a hidden
 * communicator of all processes, made by every process alone at start-up
 * with a context id of its own (mpi/comm.c), so nothing of theirs can meet
 * MPI_COMM_WORLD's traffic: the context id is agreed as MPI_Comm_create_group
 * does, under a tag hashed from the string tag (MPI 4.0 11.3.1: concurrent
 * calls of one process use distinct string tags).
 *
 * A session's errors go to its error handler (the one given to
 * MPI_Session_init, MPI_Session_set_errhandler), as a window's do.
 */
#include "mpi/mpi3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PSET_WORLD "mpi://WORLD"
#define PSET_SELF "mpi://SELF"

typedef struct session {
    int in_use;
    MPI_Errhandler eh;
    int thread_level;
} session_t;

/* handle h is sessions[h - 1] */
static session_t *sessions;
static int nsessions_tab, nsessions_open;

int mpii_session_count(void)
{
    return nsessions_open;
}

static session_t *session_get(MPI_Session h)
{
    if (h < 1 || h > nsessions_tab || !sessions[h - 1].in_use)
        return NULL;
    return &sessions[h - 1];
}

MPI_Errhandler *mpii_session_errhandler(MPI_Session session)
{
    session_t *s = session_get(session);
    return s ? &s->eh : NULL;
}

#define SERR(h, s, cls, fn, ...)                                                                             \
    mpii_err_win((s) ? (s)->eh : MPI_ERRORS_ARE_FATAL, (h), (cls), (fn), __VA_ARGS__)

static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                          "MPI_THREAD_MULTIPLE"};

/* the level info key "thread_level" asks for (MPI 4.0 11.3.1), or -1 */
static int info_thread_level(MPI_Info info)
{
    char v[64];
    int flag = 0;

    if (info == MPI_INFO_NULL ||
        MPI_Info_get(info, "thread_level", (int)sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag)
        return -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, level_names[i]))
            return i;
    return -1;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    int level, rc, i;

    if (!mpii_errhandler_valid(errhandler))
        return mpii_err_win(MPI_ERRORS_ARE_FATAL, MPI_SESSION_NULL, MPI_ERR_ARG, fn,
                            "invalid error handler %d", errhandler);
    if (!session)
        return mpii_err_win(errhandler, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "session is NULL");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err_win(errhandler, MPI_SESSION_NULL, MPI_ERR_INFO, fn, "invalid info %d", info);
    level = info_thread_level(info);
    rc = mpii_runtime_start(level < 0 ? MPI_THREAD_SINGLE : level);
    if (rc != MPI_SUCCESS)
        return mpii_err_win(errhandler, MPI_SESSION_NULL, rc, fn,
                            "the library cannot start again once finished");
    for (i = 0; i < nsessions_tab && sessions[i].in_use; i++)
        ;
    if (i == nsessions_tab) {
        session_t *t = realloc(sessions, (size_t)(nsessions_tab + 8) * sizeof(*t));
        if (!t)
            return mpii_err_win(errhandler, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        memset(t + nsessions_tab, 0, 8 * sizeof(*t));
        sessions = t;
        nsessions_tab += 8;
    }
    sessions[i].in_use = 1;
    sessions[i].eh = errhandler;
    sessions[i].thread_level = mpii_g.thread_level;
    nsessions_open++;
    *session = i + 1;
    return MPI_SUCCESS;
}

int MPI_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    session_t *s;

    MPII_CHECK_INIT(fn);
    if (!session)
        return mpii_err_win(MPI_ERRORS_ARE_FATAL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "session is NULL");
    s = session_get(*session);
    if (!s)
        return mpii_err_win(MPI_ERRORS_ARE_FATAL, *session, MPI_ERR_SESSION, fn, "invalid session %d",
                            *session);
    s->in_use = 0;
    nsessions_open--;
    *session = MPI_SESSION_NULL;
    mpii_runtime_release();
    return MPI_SUCCESS;
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char fn[] = "MPI_Session_get_num_psets";
    session_t *s;

    MPII_CHECK_INIT(fn);
    (void)info;
    s = session_get(session);
    if (!s)
        return SERR(session, s, MPI_ERR_SESSION, fn, "invalid session %d", session);
    if (!npset_names)
        return SERR(session, s, MPI_ERR_ARG, fn, "npset_names is NULL");
    *npset_names = 2;
    return MPI_SUCCESS;
}

int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    session_t *s;
    const char *name;
    int len;

    MPII_CHECK_INIT(fn);
    (void)info;
    s = session_get(session);
    if (!s)
        return SERR(session, s, MPI_ERR_SESSION, fn, "invalid session %d", session);
    if (n < 0 || n > 1)
        return SERR(session, s, MPI_ERR_ARG, fn, "there are 2 process sets, not a number %d", n);
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return SERR(session, s, MPI_ERR_ARG, fn, "invalid pset_len or pset_name");
    name = n == 0 ? PSET_WORLD : PSET_SELF;
    len = (int)strlen(name) + 1;
    if (*pset_len == 0) { /* the length it takes, the terminating null included */
        *pset_len = len;
        return MPI_SUCCESS;
    }
    snprintf(pset_name, (size_t)*pset_len, "%s", name);
    *pset_len = len;
    return MPI_SUCCESS;
}

/* 1 for WORLD, 0 for SELF, -1 for another name (in any case, as MPICH
 * reads them: "mpi://self" too) */
static int pset_which(const char *name)
{
    if (!strcasecmp(name, PSET_WORLD))
        return 1;
    if (!strcasecmp(name, PSET_SELF))
        return 0;
    return -1;
}

int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    session_t *s;
    char v[32];
    int w, rc;

    MPII_CHECK_INIT(fn);
    s = session_get(session);
    if (!s)
        return SERR(session, s, MPI_ERR_SESSION, fn, "invalid session %d", session);
    if (!pset_name || !info)
        return SERR(session, s, MPI_ERR_ARG, fn, "NULL argument");
    w = pset_which(pset_name);
    if (w < 0)
        return SERR(session, s, MPI_ERR_ARG, fn, "no process set \"%s\"", pset_name);
    snprintf(v, sizeof v, "%d", w ? mpii_g.size : 1);
    rc = MPI_Info_create(info);
    if (rc == MPI_SUCCESS)
        rc = MPI_Info_set(*info, "mpi_size", v);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : SERR(session, s, rc, fn, "could not make the info");
}

int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Session_get_info";
    session_t *s;
    int rc;

    MPII_CHECK_INIT(fn);
    s = session_get(session);
    if (!s)
        return SERR(session, s, MPI_ERR_SESSION, fn, "invalid session %d", session);
    if (!info_used)
        return SERR(session, s, MPI_ERR_ARG, fn, "info_used is NULL");
    rc = MPI_Info_create(info_used);
    if (rc == MPI_SUCCESS)
        rc = MPI_Info_set(*info_used, "thread_level", level_names[s->thread_level]);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : SERR(session, s, rc, fn, "could not make the info");
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    session_t *s;
    int w;

    MPII_CHECK_INIT(fn);
    s = session_get(session);
    if (!s)
        return SERR(session, s, MPI_ERR_SESSION, fn, "invalid session %d", session);
    if (!pset_name || !newgroup)
        return SERR(session, s, MPI_ERR_ARG, fn, "NULL argument");
    w = pset_which(pset_name);
    if (w < 0)
        return SERR(session, s, MPI_ERR_ARG, fn, "no process set \"%s\"", pset_name);
    return MPI_Comm_group(w ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup);
}

/* the tag of a string tag: a hash in [0, MPI_TAG_UB] */
static int string_tag(const char *t)
{
    uint32_t h = 2166136261u;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 16777619u;
    return (int)(h & 0x7fffffffu);
}

int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    int me = MPI_UNDEFINED, rc;

    MPII_CHECK_INIT(fn);
    if (!mpii_errhandler_valid(errhandler))
        return mpii_err_win(MPI_ERRORS_ARE_FATAL, MPI_COMM_NULL, MPI_ERR_ARG, fn, "invalid error handler %d",
                            errhandler);
    if (!stringtag || !newcomm)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_INFO, fn, "invalid info %d", info);
    if (group == MPI_GROUP_NULL || MPI_Group_rank(group, &me) != MPI_SUCCESS)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_GROUP, fn, "invalid group %d", group);
    if (me == MPI_UNDEFINED)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_GROUP, fn,
                            "the calling process is not in the group");
    rc = MPI_Comm_create_group(mpii_session_world(), group, string_tag(stringtag), newcomm);
    if (rc != MPI_SUCCESS)
        return mpii_err_win(errhandler, MPI_COMM_NULL, rc, fn, "could not make the communicator");
    return MPI_Comm_set_errhandler(*newcomm, errhandler);
}

int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                     int remote_leader, const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    MPI_Group wg;
    MPI_Comm local;
    int me = MPI_UNDEFINED, n = 0, wleader = MPI_UNDEFINED, rc, tag;

    MPII_CHECK_INIT(fn);
    if (!mpii_errhandler_valid(errhandler))
        return mpii_err_win(MPI_ERRORS_ARE_FATAL, MPI_COMM_NULL, MPI_ERR_ARG, fn, "invalid error handler %d",
                            errhandler);
    if (!stringtag || !newintercomm)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_INFO, fn, "invalid info %d", info);
    if (local_group == MPI_GROUP_NULL || MPI_Group_rank(local_group, &me) != MPI_SUCCESS ||
        me == MPI_UNDEFINED)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_GROUP, fn,
                            "invalid local group, or the calling process is not in it");
    if (remote_group == MPI_GROUP_NULL || MPI_Group_size(remote_group, &n) != MPI_SUCCESS)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_GROUP, fn, "invalid remote group %d",
                            remote_group);
    if (remote_leader < 0 || remote_leader >= n)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_RANK, fn, "invalid remote leader %d",
                            remote_leader);
    /* the remote leader's rank in the hidden all-process communicator is its world rank */
    rc = MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_translate_ranks(remote_group, 1, &remote_leader, wg, &wleader);
        MPI_Group_free(&wg);
    }
    if (rc != MPI_SUCCESS || wleader == MPI_UNDEFINED)
        return mpii_err_win(errhandler, MPI_COMM_NULL, MPI_ERR_GROUP, fn, "invalid remote group");
    /* the local side first (its own context, agreed within the local group),
     * then the leaders meet in the hidden communicator's collective context */
    tag = string_tag(stringtag);
    rc = MPI_Comm_create_group(mpii_session_world(), local_group, tag, &local);
    if (rc == MPI_SUCCESS) {
        rc = mpii_intercomm_create(fn, local, local_leader, mpii_session_world(), wleader, tag, 1,
                                   newintercomm);
        MPI_Comm_free(&local);
    }
    if (rc != MPI_SUCCESS)
        return mpii_err_win(errhandler, MPI_COMM_NULL, rc, fn, "could not make the inter-communicator");
    return MPI_Comm_set_errhandler(*newintercomm, errhandler);
}

int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    /* one table: the handler is called with a pointer to the session's handle */
    return mpii_session_create_errhandler((MPI_Comm_errhandler_function *)session_errhandler_fn, errhandler);
}

MPI_Fint MPI_Session_c2f(MPI_Session session)
{
    return (MPI_Fint)session;
}

MPI_Session MPI_Session_f2c(MPI_Fint session)
{
    return (MPI_Session)session;
}

void mpii_session_finalize(void)
{
    free(sessions);
    sessions = NULL;
    nsessions_tab = nsessions_open = 0;
}
