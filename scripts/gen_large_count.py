#!/usr/bin/env python3
"""scripts/gen_large_count.py: write mpi/large_count.c, the large-count
calls of MPI 4.0 (MPI_Send_c ...) that mpi/include/mpi.h declares between
its "large counts" markers.

Each MPI_X_c calls MPI_X: the two prototypes (both in mpi.h) are compared
argument by argument, and every argument whose type differs is converted:
an MPI_Count or MPI_Aint value to the int MPI_X takes, after checking that
it fits (else MPI_ERR_COUNT, raised on the call's communicator), except a
count of a datatype (PAIRS), which above INT_MAX becomes one element of a
type of that many elements (mpi/large_count_extra.c: lc_count); an
MPI_Count or MPI_Aint result through an int or MPI_Aint of MPI_X; an array
element by element into a temporary one, whose length the RULES below give
(the communicator's size for the v-collectives, where the array is
significant). mbmpi's counts are int inside, so a count above INT_MAX is
refused, never truncated. The calls whose argument lists differ, and the
queries whose results may exceed an int (a type's size, a status's count,
answered by the 64-bit _x calls), are written by hand in
mpi/large_count_extra.c.

Run it after changing the markers' block of mpi.h; tests/suites/mpi3.sh
checks that the committed file is what this script writes (clang-format
formats it).
usage: scripts/gen_large_count.py [--check]
"""
import os
import re
import sys

from gen_util import c_prototypes, write_or_check

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "mpi", "large_count.c")
BEGIN = "/* ---- large counts (MPI 4.0): mbmpi's counts are int inside ---- */"
END = "/* ---- end of large counts ---- */"

# array argument -> (length expression, significance condition); the
# expressions see the _c call's arguments and `n` (lc_nprocs(comm)).
V_ROOT = ("n", "lc_at_root(comm, root)")
V_ALL = ("n", "1")
V_SEND = ("n", "sendbuf != MPI_IN_PLACE")
RULES = {
    "MPI_Gatherv_c": {"recvcounts": V_ROOT, "displs": V_ROOT},
    "MPI_Scatterv_c": {"sendcounts": V_ROOT, "displs": V_ROOT},
    "MPI_Allgatherv_c": {"recvcounts": V_ALL, "displs": V_ALL},
    "MPI_Alltoallv_c": {"sendcounts": V_SEND, "sdispls": V_SEND, "recvcounts": V_ALL, "rdispls": V_ALL},
    "MPI_Alltoallw_c": {"sendcounts": V_SEND, "sdispls": V_SEND, "recvcounts": V_ALL, "rdispls": V_ALL},
    "MPI_Reduce_scatter_c": {"recvcounts": ("lc_local_size(comm)", "1")},
    "MPI_Neighbor_allgatherv_c": {"recvcounts": ("lc_indegree(comm)", "1"), "displs": ("lc_indegree(comm)", "1")},
    "MPI_Neighbor_alltoallv_c": {
        "sendcounts": ("lc_outdegree(comm)", "1"),
        "sdispls": ("lc_outdegree(comm)", "1"),
        "recvcounts": ("lc_indegree(comm)", "1"),
        "rdispls": ("lc_indegree(comm)", "1"),
    },
    "MPI_Neighbor_alltoallw_c": {
        "sendcounts": ("lc_outdegree(comm)", "1"),
        "sdispls": ("lc_outdegree(comm)", "1"),
        "recvcounts": ("lc_indegree(comm)", "1"),
        "rdispls": ("lc_indegree(comm)", "1"),
    },
    "MPI_Type_indexed_c": {"*": ("count", "1")},
    "MPI_Type_create_hindexed_c": {"*": ("count", "1")},
    "MPI_Type_create_indexed_block_c": {"*": ("count", "1")},
    "MPI_Type_create_hindexed_block_c": {"*": ("count", "1")},
    "MPI_Type_create_struct_c": {"*": ("count", "1")},
    "MPI_Type_create_subarray_c": {"*": ("ndims", "1")},
    "MPI_Type_create_darray_c": {"*": ("ndims", "1")},
}
# the nonblocking (MPI_Ix_c) and persistent (MPI_X_init_c) forms read the
# arrays until the request goes: theirs are kept with it (lc_keep)
for _n in list(RULES):
    _b = _n[4:-2]
    RULES["MPI_I" + _b[0].lower() + _b[1:] + "_c"] = RULES[_n]
    RULES["MPI_" + _b + "_init_c"] = RULES[_n]

# in-out pointers (read before the call); the other pointers are results
INOUT = {"position"}
# a count and the datatype it counts: above INT_MAX the call gets one
# element of a type of that many (lc_count)
PAIRS = {
    "count": "datatype",
    "sendcount": "sendtype",
    "recvcount": "recvtype",
    "origin_count": "origin_datatype",
    "target_count": "target_datatype",
    "result_count": "result_datatype",
    "incount": "datatype",
    "outcount": "datatype",
}
# before the conversions: block lengths above INT_MAX (mpi/large_count_extra.c)
FIRST = {
    "MPI_Type_indexed_c": "lc_blocks(fn, count, array_of_blocklengths, array_of_displacements, 1, NULL, oldtype, newtype)",
    "MPI_Type_create_hindexed_c": "lc_blocks(fn, count, array_of_blocklengths, array_of_displacements, 0, NULL, oldtype, "
    "newtype)",
    "MPI_Type_create_struct_c": "lc_blocks(fn, count, array_of_blocklengths, array_of_displacements, 0, array_of_types, "
    "MPI_DATATYPE_NULL, newtype)",
}
# written by hand (mpi/large_count_extra.c)
HAND = {"MPI_Type_get_envelope_c", "MPI_Type_get_contents_c", "MPI_Op_create_c", "MPI_Type_contiguous_c",
        "MPI_Type_size_c",
        "MPI_Type_get_extent_c", "MPI_Type_get_true_extent_c", "MPI_Get_count_c", "MPI_Get_elements_c"}


def protos(text):
    out = {}
    for name, raw in c_prototypes(text):
        params = []
        for t, pname, arr in raw:
            const = t.startswith("const ")
            t = t[6:] if const else t
            if arr and t == "char":  # const char datarep[] is const char *datarep
                t, arr = "char*", False
            params.append({"type": t.replace(" ", ""), "name": pname, "arr": arr, "const": const})
        out[name] = params
    return out


def comm_arg(params):
    for p in params:
        if p["type"] == "MPI_Comm" and not p["arr"]:
            return p["name"]
    return None


def gen():
    h = open(os.path.join(TOP, "mpi", "include", "mpi.h")).read()
    block = h[h.index(BEGIN) : h.index(END)]
    large = protos(block)
    base = protos(h[: h.index(BEGIN)] + h[h.index(END) :])
    L = []
    w = L.append
    w("/*")
    w(" * mpi/large_count.c: GENERATED by scripts/gen_large_count.py from the")
    w(" * \"large counts\" block of mpi/include/mpi.h: do not edit, run the script.")
    w(" * Each MPI_X_c converts its MPI_Count / MPI_Aint arguments for MPI_X (mbmpi's")
    w(" * counts are int inside: a value that does not fit is MPI_ERR_COUNT).")
    w(" */")
    w('#include "mpi/large_count.h"')
    w("")
    for name, cp in large.items():
        if name in HAND:
            continue
        bname = name[:-2]
        bp = base.get(bname)
        if bp is None or len(bp) != len(cp):
            raise SystemExit("gen_large_count: %s has no matching %s" % (name, bname))
        comm = comm_arg(cp)
        cexpr = comm if comm else "MPI_COMM_NULL"
        rules = RULES.get(name, {})
        sig = ", ".join(
            ("const " if p["const"] else "") + p["type"] + " " + p["name"] + ("[]" if p["arr"] else "") for p in cp
        )
        w("int %s(%s)" % (name, sig))
        w("{")
        decls, pre, post, args, frees = [], [], [], [], []
        retype = {}
        uses_n = False
        for p, q in zip(cp, bp):
            n = p["name"]
            if p["type"] == q["type"] and p["arr"] == q["arr"]:
                args.append(n)
                continue
            ct, bt = p["type"], q["type"]
            if p["arr"]:
                rule = rules.get(n) or rules.get("*")
                if rule is None:
                    raise SystemExit("gen_large_count: no length rule for %s of %s" % (n, name))
                length, cond = rule
                uses_n = uses_n or length == "n"
                decls.append("%s *%s_ = NULL;" % (bt, n))
                pre.append(
                    "if (rc == MPI_SUCCESS && (%s))\n        rc = lc_array_%s(fn, %s, %s, (MPI_Count)(%s), &%s_);"
                    % (cond, "int" if bt == "int" else "aint", cexpr, n, length, n)
                )
                args.append(n + "_")
                frees.append("free(%s_);" % n)
                continue
            if ct.endswith("*"):  # a result (or in-out) through a pointer
                bt0 = bt.rstrip("*")
                decls.append("%s %s_ = 0;" % (bt0, n))
                if n in INOUT:
                    pre.append(
                        "if (rc == MPI_SUCCESS && %s)\n        rc = lc_%s(fn, %s, \"%s\", *%s, &%s_);"
                        % (n, "int" if bt0 == "int" else "aint", cexpr, n, n, n)
                    )
                args.append("%s ? &%s_ : NULL" % (n, n))
                post.append("if (rc == MPI_SUCCESS && %s)\n        *%s = %s_;" % (n, n, n))
                continue
            # a value
            names = [x["name"] for x in cp]
            if bt == "int" and PAIRS.get(n) in names and ct == "MPI_Count":
                t = PAIRS[n]
                decls.append("int %s_ = 0;" % n)
                decls.append("MPI_Datatype %s_t_ = MPI_DATATYPE_NULL;" % n)
                pre.append(
                    "if (rc == MPI_SUCCESS)\n        rc = lc_count(fn, %s, %s, %s, &%s_, &%s_t_);" % (cexpr, n, t, n, n)
                )
                args.append(n + "_")
                retype[t] = "%s_t_ != MPI_DATATYPE_NULL ? %s_t_ : %s" % (n, n, t)
                frees.append("lc_type_free(&%s_t_);" % n)
                continue
            if bt == "int":
                decls.append("int %s_ = 0;" % n)
                pre.append(
                    "if (rc == MPI_SUCCESS)\n        rc = lc_int(fn, %s, \"%s\", %s, &%s_);" % (cexpr, n, n, n)
                )
                args.append(n + "_")
            else:  # MPI_Aint from MPI_Count: the same 64 bits
                args.append("(%s)%s" % (bt, n))
        if uses_n:
            decls.insert(0, "int n = lc_nprocs(%s);" % cexpr)
        if pre:
            w('    static const char fn[] = "%s";' % name)
        w("    int rc = MPI_SUCCESS;")
        for d in decls:
            w("    " + d)
        w("")
        if name in FIRST:
            w("    if (lc_any_big(array_of_blocklengths, count))")
            w("        return %s;" % FIRST[name])
        for s in pre:
            w("    " + s)
        args = [retype.get(a, a) for a in args]
        call = "    if (rc == MPI_SUCCESS)\n        rc = %s(%s);" % (bname, ", ".join(args))
        w(call)
        for s in post:
            w("    " + s)
        arrays = [f[len("free(") : -2] for f in frees if f.startswith("free(")]
        if arrays and "request" in [x["name"] for x in cp]:
            if len(arrays) > 4:
                raise SystemExit("gen_large_count: %s keeps more than 4 arrays" % name)
            w("    lc_keep(rc, request, %s);" % ", ".join(arrays + ["NULL"] * (4 - len(arrays))))
            frees = [f for f in frees if not f.startswith("free(")]
        for s in frees:
            w("    " + s)
        w("    return rc;")
        w("}")
        w("")
    return "\n".join(L)


def formatted(text):
    """The text as clang-format (the repository's .clang-format) writes it."""
    import subprocess

    r = subprocess.run(
        ["clang-format", "--assume-filename=" + OUT], input=text, capture_output=True, text=True, cwd=TOP
    )
    if r.returncode != 0:
        raise SystemExit("gen_large_count: clang-format failed: " + r.stderr)
    return r.stdout


def main():
    return write_or_check(OUT, formatted(gen()), "gen_large_count")


if __name__ == "__main__":
    sys.exit(main())
