/*
 * pack_external: MPI_Pack_external / MPI_Unpack_external /
 * MPI_Pack_external_size in "external32" (MPI 3.1 4.3, 13.5.2), checked
 * byte by byte against the standard's representation (big-endian, IEEE,
 * MPI_LONG in 4 bytes, MPI_WCHAR in 2, MPI_LONG_DOUBLE as IEEE quadruple
 * precision), and unpacked back to the values: basic types, a complex, a
 * pair type, a struct with padding, a vector of a struct, and the errors.
 * (Open MPI 4.1 packs MPI_LONG in 8 bytes and MPICH 4.0 asserts on it: this
 * test follows the standard's table, so it fails under both.)
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define TEST_NAME "pack_external"
#define CHECK_LINE
#include "check.h"

static unsigned char buf[256];

/* pack count of dt from in; the bytes must be want[0..n); unpack into out */
static void roundtrip(const char *what, const void *in, int count, MPI_Datatype dt, const unsigned char *want,
                      int n, void *out)
{
    MPI_Aint pos = 0, size = -1;
    CHECK(MPI_Pack_external_size("external32", count, dt, &size) == MPI_SUCCESS && size == n,
          "%s: size %ld, want %d", what, (long)size, n);
    memset(buf, 0xee, sizeof buf);
    CHECK(MPI_Pack_external("external32", in, count, dt, buf, sizeof buf, &pos) == MPI_SUCCESS && pos == n,
          "%s: packed %ld bytes, want %d", what, (long)pos, n);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == want[i], "%s: byte %d is %02x, want %02x", what, i, buf[i], want[i]);
    CHECK(buf[n] == 0xee, "%s: wrote past the packed bytes", what);
    pos = 0;
    CHECK(MPI_Unpack_external("external32", buf, n, &pos, out, count, dt) == MPI_SUCCESS && pos == n,
          "%s: unpacked %ld bytes", what, (long)pos);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    {
        int v[2] = {0x01020304, -2}, o[2];
        unsigned char w[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
        roundtrip("MPI_INT", v, 2, MPI_INT, w, 8, o);
        CHECK(o[0] == v[0] && o[1] == v[1], "MPI_INT back: %x %d", o[0], o[1]);
    }
    {
        long v[2] = {-2, 0x11223344}, o[2];
        unsigned char w[] = {0xff, 0xff, 0xff, 0xfe, 0x11, 0x22, 0x33, 0x44};
        roundtrip("MPI_LONG", v, 2, MPI_LONG, w, 8, o);
        CHECK(o[0] == -2 && o[1] == 0x11223344, "MPI_LONG back: %ld %ld", o[0], o[1]);
    }
    {
        unsigned long v = 0xfffffffful, o;
        unsigned char w[] = {0xff, 0xff, 0xff, 0xff};
        roundtrip("MPI_UNSIGNED_LONG", &v, 1, MPI_UNSIGNED_LONG, w, 4, &o);
        CHECK(o == 0xfffffffful, "MPI_UNSIGNED_LONG back: %lx", o);
    }
    {
        wchar_t v = L'A', o;
        unsigned char w[] = {0, 0x41};
        roundtrip("MPI_WCHAR", &v, 1, MPI_WCHAR, w, 2, &o);
        CHECK(o == L'A', "MPI_WCHAR back");
    }
    {
        double v = 1.0, o;
        unsigned char w[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
        roundtrip("MPI_DOUBLE", &v, 1, MPI_DOUBLE, w, 8, &o);
        CHECK(o == 1.0, "MPI_DOUBLE back: %g", o);
    }
    {
        long double v = -1.5L, o;
        unsigned char w[16] = {0xbf, 0xff, 0x80}; /* sign, exponent 0x3fff, fraction .1 */
        roundtrip("MPI_LONG_DOUBLE", &v, 1, MPI_LONG_DOUBLE, w, 16, &o);
        CHECK(o == -1.5L, "MPI_LONG_DOUBLE back: %Lg", o);
    }
    {
        float v[2] = {1.0f, 2.0f}, o[2]; /* a float _Complex 1 + 2i */
        unsigned char w[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};
        roundtrip("MPI_C_FLOAT_COMPLEX", v, 1, MPI_C_FLOAT_COMPLEX, w, 8, o);
        CHECK(o[0] == 1.0f && o[1] == 2.0f, "MPI_C_FLOAT_COMPLEX back");
    }
    {
        struct {
            double d;
            int i;
        } v = {2.0, 7}, o;
        unsigned char w[] = {0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
        roundtrip("MPI_DOUBLE_INT", &v, 1, MPI_DOUBLE_INT, w, 12, &o);
        CHECK(o.d == 2.0 && o.i == 7, "MPI_DOUBLE_INT back");
    }
    {
        /* struct { char c; int i; short s; } with padding, then a vector of
         * two of them, every other one of an array of three */
        struct s {
            char c;
            int i;
            short s;
        } v[3] = {{'a', 1, -1}, {'b', 2, -2}, {'c', 3, -3}}, o[3];
        int bl[3] = {1, 1, 1};
        MPI_Aint d[3] = {offsetof(struct s, c), offsetof(struct s, i), offsetof(struct s, s)};
        MPI_Datatype ty[3] = {MPI_CHAR, MPI_INT, MPI_SHORT}, st, sr, vec;
        unsigned char w[] = {'a', 0, 0, 0, 1, 0xff, 0xff, 'c', 0, 0, 0, 3, 0xff, 0xfd};
        MPI_Type_create_struct(3, bl, d, ty, &st);
        MPI_Type_create_resized(st, 0, sizeof(struct s), &sr);
        MPI_Type_vector(2, 1, 2, sr, &vec);
        MPI_Type_commit(&vec);
        memset(o, 0, sizeof o);
        roundtrip("vector of a struct", v, 1, vec, w, 14, o);
        CHECK(o[0].c == 'a' && o[0].i == 1 && o[0].s == -1 && o[2].c == 'c' && o[2].i == 3 && o[2].s == -3 &&
                  o[1].c == 0,
              "vector of a struct back");
        MPI_Type_free(&vec);
        MPI_Type_free(&sr);
        MPI_Type_free(&st);
    }
    {
        int v = 5, cls;
        MPI_Aint pos = 0;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Pack_external("native", &v, 1, MPI_INT, buf, sizeof buf, &pos), &cls);
        CHECK(cls == MPI_ERR_ARG, "datarep \"native\": class %d", cls);
        MPI_Error_class(MPI_Pack_external("external32", &v, 1, MPI_INT, buf, 3, &pos), &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "4 bytes into 3: class %d", cls);
        MPI_Error_class(MPI_Unpack_external("external32", buf, 2, &pos, &v, 1, MPI_INT), &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "4 bytes from 2: class %d", cls);
        MPI_Error_class(MPI_Pack_external_size("external32", -1, MPI_INT, &pos), &cls);
        CHECK(cls == MPI_ERR_COUNT, "count -1: class %d", cls);
    }
    MPI_Finalize();
    printf("pack_external: ok\n");
    return 0;
}
