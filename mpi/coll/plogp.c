/*
 * mpi/coll/plogp.c: loading and evaluating the pLogP parameter file (format
 * in plogp.h). The parser is strict: a file that would silently give a
 * wrong model (missing L, unsorted or negative values, garbage on a line)
 * is refused with the line number, and MPI_Init then fails.
 */
#include "plogp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "# mbmpi pLogP parameters v1"

static int fail(char *err, size_t errlen, int line, const char *msg)
{
    snprintf(err, errlen, "line %d: %s", line, msg);
    return -1;
}

/* Strict number: the whole token must parse, the value be finite and >= 0. */
static int number(const char *tok, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(tok, &end);
    if (end == tok || *end != '\0' || errno != 0 || !(v >= 0.0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

/*
 * A "ring" or "read" line (tok[0]): m_bytes then ncols more numbers,
 * appended to m[] and cols[k][] at *n, m strictly increasing. 0, or -1
 * with what is wrong in msg.
 */
static int extra_row(char **tok, int ntok, double *m, double *const *cols, int ncols, int *n, char *msg,
                     size_t msglen)
{
    int i = *n;

    if (ntok != ncols + 2) {
        snprintf(msg, msglen, "expected \"%s m_bytes os_us or_us g_us ow_us%s\"", tok[0],
                 ncols == 5 ? " xw_us" : "");
        return -1;
    }
    if (i == MPII_PLOGP_MAX_ROWS) {
        snprintf(msg, msglen, "too many %s lines", tok[0]);
        return -1;
    }
    for (int k = 0; k <= ncols; k++)
        if (number(tok[k + 1], k == 0 ? &m[i] : &cols[k - 1][i])) {
            snprintf(msg, msglen, "a field is not a non-negative number");
            return -1;
        }
    if (i > 0 && m[i] <= m[i - 1]) {
        snprintf(msg, msglen, "%s m_bytes must be strictly increasing", tok[0]);
        return -1;
    }
    (*n)++;
    return 0;
}

/* The field of a "<keyword> <number>" line, or NULL for another word. */
static double *keyword_field(mpii_plogp_t *p, const char *word)
{
    static const struct {
        const char *name;
        size_t off;
    } kw[] = {{"L", offsetof(mpii_plogp_t, L)},         {"contention", offsetof(mpii_plogp_t, contention)},
              {"gamma", offsetof(mpii_plogp_t, gamma)}, {"wake", offsetof(mpii_plogp_t, wake)},
              {"turn", offsetof(mpii_plogp_t, turn)},   {"xwait", offsetof(mpii_plogp_t, xwait)},
              {"late", offsetof(mpii_plogp_t, late)}};

    for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
        if (!strcmp(word, kw[i].name))
            return (double *)((char *)p + kw[i].off);
    return NULL;
}

/* The length of the value starting at v (after its leading blanks): up to
 * the end of the line, trailing blanks left out. */
static size_t value_len(const char *v)
{
    size_t n = strcspn(v, "\r\n");

    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    return n;
}

/* That value into buf (len bytes, truncated, terminated); returns its length. */
static size_t copy_value(const char *v, char *buf, size_t len)
{
    size_t n;

    v += strspn(v, " \t");
    n = value_len(v);
    if (n >= len)
        n = len - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return n;
}

int mpii_plogp_parse(const char *text, const char *origin, mpii_plogp_t *p, char *err, size_t errlen)
{
    const char *s = text;
    int lineno = 0;
    int have_l = 0;

    memset(p, 0, sizeof(*p));
    p->contention = 0.5;
    p->gamma = 0.0005;
    p->wake = MPII_PLOGP_WAKE_DEFAULT;
    p->turn = 1.0;
    p->xwait = 1.0;
    p->late = -1.0; /* none: the wake's */
    snprintf(p->origin, sizeof(p->origin), "%s", origin);
    while (*s != '\0') {
        char line[512];
        char *tok[8];
        int ntok = 0;
        size_t len = strcspn(s, "\n");

        lineno++;
        if (len >= sizeof(line))
            return fail(err, errlen, lineno, "line too long");
        memcpy(line, s, len);
        line[len] = '\0';
        s += len;
        if (*s == '\n')
            s++;
        if (lineno == 1) {
            if (strncmp(line, HEADER, strlen(HEADER)) != 0)
                return fail(err, errlen, lineno, "first line must be \"" HEADER "\"");
            continue;
        }
        if (line[strspn(line, " \t\r")] == '#')
            continue;
        if (!strncmp(line, "cpu", 3) && (line[3] == ' ' || line[3] == '\t')) {
            size_t n = value_len(line + 3 + strspn(line + 3, " \t"));
            if (n == 0 || n >= sizeof(p->cpu))
                return fail(err, errlen, lineno, "expected \"cpu <model name>\" (1 to 127 characters)");
            copy_value(line + 3, p->cpu, sizeof(p->cpu));
            continue;
        }
        for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t != NULL;
             t = strtok_r(NULL, " \t\r", &save)) {
            if (ntok == 8)
                return fail(err, errlen, lineno, "too many fields");
            tok[ntok++] = t;
        }
        if (ntok == 0)
            continue;
        if (!strcmp(tok[0], "membound")) {
            if (ntok != 3 || number(tok[1], &p->mem_lo) || number(tok[2], &p->mem_hi) || p->mem_lo < 1.0 ||
                p->mem_hi <= p->mem_lo)
                return fail(err, errlen, lineno,
                            "expected \"membound <lo_bytes> <hi_bytes>\" (1 <= lo < hi)");
            continue;
        }
        double *field = keyword_field(p, tok[0]);
        if (field != NULL) {
            double v;
            if (ntok != 2 || number(tok[1], &v) != 0)
                return fail(err, errlen, lineno, "expected \"<keyword> <non-negative number>\"");
            if (field == &p->contention && v > 1.0)
                return fail(err, errlen, lineno, "contention ratio must be in [0, 1]");
            *field = v;
            have_l |= field == &p->L;
            continue;
        }
        if (!strcmp(tok[0], "ring") || !strcmp(tok[0], "read")) {
            double *ring[] = {p->ring_os, p->ring_or, p->ring_g, p->ring_ow};
            double *read[] = {p->read_os, p->read_or, p->read_g, p->read_ow, p->read_xw};
            char msg[96];
            int rc = !strcmp(tok[0], "ring")
                         ? extra_row(tok, ntok, p->ring_m, ring, 4, &p->nring, msg, sizeof(msg))
                         : extra_row(tok, ntok, p->read_m, read, 5, &p->nread, msg, sizeof(msg));
            if (rc != 0)
                return fail(err, errlen, lineno, msg);
            continue;
        }
        if (ntok != 4 && ntok != 5 && ntok != 7)
            return fail(err, errlen, lineno,
                        "expected \"m_bytes os_us or_us g_us [rtt_us [ow_us xw_us]]\" (4, 5 or 7 numbers)");
        if (p->nrows == 0) {
            p->have_rtt = ntok >= 5;
            p->have_sync = ntok == 7;
        } else if (p->have_rtt != (ntok >= 5) || p->have_sync != (ntok == 7)) {
            return fail(err, errlen, lineno, "rtt_us (and ow_us xw_us) must be on every row or on none");
        }
        if (p->nrows == MPII_PLOGP_MAX_ROWS)
            return fail(err, errlen, lineno, "too many rows");
        {
            int i = p->nrows;
            if (number(tok[0], &p->m[i]) || number(tok[1], &p->os[i]) || number(tok[2], &p->or_[i]) ||
                number(tok[3], &p->g[i]) || (ntok >= 5 && number(tok[4], &p->rtt[i])) ||
                (ntok == 7 && (number(tok[5], &p->ow[i]) || number(tok[6], &p->xw[i]))))
                return fail(err, errlen, lineno, "a field is not a non-negative number");
            if (i > 0 && p->m[i] <= p->m[i - 1])
                return fail(err, errlen, lineno, "m_bytes must be strictly increasing");
            p->nrows++;
        }
    }
    if (lineno == 0)
        return fail(err, errlen, 1, "empty file");
    if (p->late < 0.0) /* no "late" line: the wake's */
        p->late = p->wake;
    if (!have_l)
        return fail(err, errlen, lineno, "no \"L <microseconds>\" line");
    if (p->nrows < 2)
        return fail(err, errlen, lineno, "need at least two \"m os or g\" rows");
    return 0;
}

int mpii_plogp_load_file(const char *path, mpii_plogp_t *p, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *text;
    long n;
    size_t got;
    int rc;

    if (f == NULL) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (1 << 20) || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "cannot read (or larger than 1 MiB)");
        return -1;
    }
    text = malloc((size_t)n + 1);
    if (text == NULL) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    got = fread(text, 1, (size_t)n, f);
    fclose(f);
    text[got] = '\0';
    if (strlen(text) != got) {
        free(text);
        snprintf(err, errlen, "contains a NUL byte (not a text file)");
        return -1;
    }
    rc = mpii_plogp_parse(text, path, p, err, errlen);
    free(text);
    return rc;
}

/* Piecewise-linear interpolation of y over the n sizes x at m. */
static double interp_n(const double *x, int n, const double *y, double m)
{
    int i;
    double v;

    if (n == 1 || m <= x[0])
        return y[0];
    if (m >= x[n - 1])
        i = n - 2; /* extend the last segment's slope */
    else
        for (i = 0; i < n - 2 && m > x[i + 1]; i++)
            ;
    v = y[i] + (y[i + 1] - y[i]) * (m - x[i]) / (x[i + 1] - x[i]);
    return v > 0.0 ? v : 0.0;
}

static double interp(const mpii_plogp_t *p, const double *y, double m)
{
    return interp_n(p->m, p->nrows, y, m);
}

void mpii_plogp_apply_ring(mpii_plogp_t *p)
{
    p->use_ring = p->nring > 0;
}

/* m is priced by the ring lines */
static int on_ring(const mpii_plogp_t *p, double m)
{
    return p->use_ring && m >= p->ring_m[0] && !(p->read_min > 0.0 && m >= p->read_min);
}

static double os_copy(const mpii_plogp_t *p, double m)
{
    return on_ring(p, m) ? interp_n(p->ring_m, p->nring, p->ring_os, m) : interp(p, p->os, m);
}

static double or_copy(const mpii_plogp_t *p, double m)
{
    return on_ring(p, m) ? interp_n(p->ring_m, p->nring, p->ring_or, m) : interp(p, p->or_, m);
}

/* m is copied by its receiver alone (pull_min) */
static int pulled(const mpii_plogp_t *p, double m)
{
    return (p->pull_min > 0.0 && m >= p->pull_min) || (p->read_min > 0.0 && m >= p->read_min);
}

/* m is read by its receiver within the read lines' range (read_lo) */
static int on_read(const mpii_plogp_t *p, double m)
{
    return p->read_lo > 0.0 && p->nread > 0 && m >= p->read_lo && m <= p->read_m[p->nread - 1];
}

double mpii_plogp_os(const mpii_plogp_t *p, double m)
{
    return pulled(p, m) || on_read(p, m) ? p->os[0] : os_copy(p, m);
}

double mpii_plogp_or(const mpii_plogp_t *p, double m)
{
    if (on_read(p, m))
        return interp_n(p->read_m, p->nread, p->read_or, m);
    return pulled(p, m) ? os_copy(p, m) + or_copy(p, m) : or_copy(p, m);
}

double mpii_plogp_g(const mpii_plogp_t *p, double m)
{
    if (on_read(p, m))
        return interp_n(p->read_m, p->nread, p->read_g, m);
    return on_ring(p, m) ? interp_n(p->ring_m, p->nring, p->ring_g, m) : interp(p, p->g, m);
}

double mpii_plogp_hop(const mpii_plogp_t *p, double m)
{
    double h, half;

    if (on_read(p, m))
        return interp_n(p->read_m, p->nread, p->read_ow, m);
    if (on_ring(p, m))
        return interp_n(p->ring_m, p->nring, p->ring_ow, m);
    h = interp(p, p->g, m) + p->L;
    if (p->have_sync)
        return interp(p, p->ow, m);
    if (!p->have_rtt)
        return h;
    half = interp(p, p->rtt, m) / 2.0;
    return half > h ? half : h;
}

double mpii_plogp_xw(const mpii_plogp_t *p, double m)
{
    if (p->have_sync && on_read(p, m))
        return interp_n(p->read_m, p->nread, p->read_xw, m);
    return p->have_sync ? interp(p, p->xw, m) : -1.0;
}

void mpii_plogp_host_cpu(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");

    buf[0] = '\0';
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *v;
        if (strncmp(line, "model name", 10) != 0 || (v = strchr(line, ':')) == NULL)
            continue;
        copy_value(v + 1, buf, len);
        break;
    }
    fclose(f);
}

/* the value of text's "cpu" line (at the start of a line), into buf */
static void builtin_cpu(const char *text, char *buf, size_t len)
{
    const char *s = text;

    buf[0] = '\0';
    while (s != NULL && *s != '\0') {
        if (!strncmp(s, "cpu", 3) && (s[3] == ' ' || s[3] == '\t')) {
            copy_value(s + 3, buf, len);
            return;
        }
        s = strchr(s, '\n');
        if (s != NULL)
            s++;
    }
}

const mpii_plogp_builtin_t *mpii_plogp_builtin_for(const char *kind, const char *cpu_model)
{
    const mpii_plogp_builtin_t *fallback = NULL;

    for (const mpii_plogp_builtin_t *b = mpii_plogp_builtins; b->kind != NULL; b++) {
        char cpu[128];
        if (strcmp(b->kind, kind) != 0)
            continue;
        builtin_cpu(b->text, cpu, sizeof(cpu));
        if (cpu[0] == '\0') {
            if (fallback == NULL)
                fallback = b;
        } else if (cpu_model != NULL && !strcmp(cpu, cpu_model)) {
            return b;
        }
    }
    return fallback;
}
