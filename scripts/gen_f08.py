#!/usr/bin/env python3
"""scripts/gen_f08.py: write mpi/fortran/mpi_f08.f90, the `use mpi_f08`
module of mbmpi (MPI 3.1 17.1.3), from three sources of the tree:

- mpi/include/mpif.h: every constant; those whose C counterpart in mpi.h is
  a handle (`#define MPI_COMM_WORLD ((MPI_Comm)1)`) become parameters of
  the handle's derived type (TYPE(MPI_Comm) ...), the others stay INTEGER;
- mpi/fortran/*.c: the Fortran 77 bindings (mpi_send_ ...), whose argument
  lists (C names, MPI_Fint / MPI_Aint / char / void) say how each argument
  is passed;
- mpi/include/mpi.h: the C prototypes, which say which INTEGER of a binding
  is which handle type, and which arguments are arrays (`[]`).

Each MPI_X of the bindings becomes a generic MPI_X with one specific,
MPI_X_f08, that takes the typed handles and an OPTIONAL ierror and calls the
binding through an explicit interface (module mbmpi_f08_f77, renamed on
use, so the generic names stay free). A handle type is a SEQUENCE type of
one INTEGER, MPI_VAL, and TYPE(MPI_Status) has MPI_STATUS_SIZE INTEGERs with
MPI_SOURCE, MPI_TAG and MPI_ERROR first: both have the memory layout of the
INTEGERs the bindings take, so they are passed as they are. Choice buffers
are TYPE(*), DIMENSION(*) with gfortran's NO_ARG_CHECK (any type, kind and
rank, scalars too), as Open MPI's mpi_f08 does for gfortran.

Run it after a binding, mpif.h or mpi.h changes; tests/suites/fortran.sh
checks that the committed file is what this script writes.
usage: scripts/gen_f08.py [--check]
"""
import os
import re
import sys

from gen_util import c_prototypes, write_or_check

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "mpi", "fortran", "mpi_f08.f90")

HANDLES = ["Comm", "Datatype", "Group", "Request", "Op", "Errhandler", "Info", "Win", "File", "Message", "Session"]
# INTEGER arguments that are LOGICAL in Fortran (the bindings convert them)
LOGICALS = {"flag", "periods", "reorder", "remain_dims", "commute", "high", "weighted"}
# addresses the standard gives as TYPE(C_PTR) in mpi_f08
CPTRS = {"baseptr"}
# in module mbmpi_f08_types, which the others use
KINDS = ("MPI_STATUS_SIZE", "MPI_ADDRESS_KIND", "MPI_OFFSET_KIND", "MPI_COUNT_KIND")


# the callbacks' interfaces (MPI 3.1 A.3.1, mpi_f08); the library calls
# them with every argument by reference, as the Fortran 77 ones, so a
# TYPE(C_PTR), VALUE buffer receives the buffer's address
ABSTRACT = """
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function
"""
for _obj in ("Comm", "Type", "Win"):
    _t = "Datatype" if _obj == "Type" else _obj
    ABSTRACT += """    subroutine MPI_%(o)s_copy_attr_function(old%(l)s, %(l)s_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import :: MPI_%(t)s, MPI_ADDRESS_KIND
      type(MPI_%(t)s) :: old%(l)s
      integer :: %(l)s_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_%(o)s_copy_attr_function
    subroutine MPI_%(o)s_delete_attr_function(%(l)s, %(l)s_keyval, attribute_val, extra_state, ierror)
      import :: MPI_%(t)s, MPI_ADDRESS_KIND
      type(MPI_%(t)s) :: %(l)s
      integer :: %(l)s_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_%(o)s_delete_attr_function
""" % {"o": _obj, "t": _t, "l": _obj.lower()}
for _obj, _a in (("Comm", "comm"), ("Win", "win"), ("File", "file"), ("Session", "session")):
    ABSTRACT += """    subroutine MPI_%(o)s_errhandler_function(%(a)s, error_code)
      import :: MPI_%(o)s
      type(MPI_%(o)s) :: %(a)s
      integer :: error_code
    end subroutine MPI_%(o)s_errhandler_function
""" % {"o": _obj, "a": _a}
ABSTRACT += """    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import :: MPI_Status, MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
      integer :: ierror
    end subroutine MPI_Datarep_extent_function
    subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, position, &
        extra_state, ierror)
      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer :: count, ierror
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
    end subroutine MPI_Datarep_conversion_function
  end interface
"""


def read(path):
    with open(os.path.join(TOP, path)) as f:
        return f.read()


def c_protos():
    """MPI_X -> [(ctype, name, is_array)] from mpi.h."""
    return {
        name.lower(): (name, [(t.replace(" ", ""), p, arr) for t, p, arr in params])
        for name, params in c_prototypes(read("mpi/include/mpi.h"), "int|double|MPI_Aint")
    }


def split_params(plist):
    params = []
    for p in plist.split(","):
        p = " ".join(p.split())
        if p in ("", "void"):
            continue
        mm = re.match(r"(.*?)(\w+)$", p)
        params.append((mm.group(1).replace(" ", ""), mm.group(2)))
    return params


def bindings():
    """[(fortran name, [(ctype, name)])] of the void mpi_x_ bindings, in file
    order: functions, and functions a macro defines (NONBLOCKING_SEND(mpi_isend_,
    MPI_Isend) with `void fname(...)` in its body)."""
    out, seen = [], set()
    for fn in sorted(os.listdir(os.path.join(TOP, "mpi", "fortran"))):
        if not fn.endswith(".c"):
            continue
        text = re.sub(r"/\*.*?\*/", " ", read("mpi/fortran/" + fn), flags=re.S)
        text = text.replace("\\\n", " ")
        macros = {}
        for m in re.finditer(r"^#define\s+(\w+)\(([^)]*)\)(.*)$", text, flags=re.M):
            args = [a.strip() for a in m.group(2).split(",")]
            mm = re.search(r"\bvoid\s+(\w+)\s*\(([^)]*)\)", m.group(3))
            if mm and mm.group(1) in args:
                macros[m.group(1)] = (args, mm.group(1), mm.group(2))
        found = []
        for m in re.finditer(r"^void\s+(mpi_\w+)_\s*\(([^)]*)\)\s*\{", text, flags=re.M):
            found.append((m.start(), m.group(1), split_params(m.group(2))))
        for m in re.finditer(r"^(\w+)\(([^)]*)\)\s*$", text, flags=re.M):
            if m.group(1) not in macros:
                continue
            margs, fparam, plist = macros[m.group(1)]
            vals = dict(zip(margs, [a.strip() for a in m.group(2).split(",")]))
            name = vals[fparam]
            plist = re.sub(r"\b(\w+)\b", lambda x: vals.get(x.group(1), x.group(1)), plist)
            found.append((m.start(), name[:-1], split_params(plist)))
        for _, name, params in sorted(found):
            if name in seen or name.startswith("mpi_sizeof_") or name.endswith("_fn"):
                continue
            seen.add(name)
            out.append((name, params))
    return out


def handle_consts():
    """Constant name -> handle type, from mpi.h's casts and aliases."""
    text = read("mpi/include/mpi.h")
    cls = {}
    for m in re.finditer(r"#define\s+(MPI_\w+)\s+\(\(MPI_(\w+)\)", text):
        if m.group(2) in HANDLES:
            cls[m.group(1)] = m.group(2)
    for _ in range(3):
        for m in re.finditer(r"#define\s+(MPI_\w+)\s+(MPI_\w+)\s*$", text, flags=re.M):
            if m.group(2) in cls:
                cls[m.group(1)] = cls[m.group(2)]
    return cls


def mpif_consts():
    """[(fortran type, name, value)] of mpif.h's PARAMETERs, in order."""
    decl, out = {}, []
    for line in read("mpi/include/mpif.h").splitlines():
        m = re.match(r"\s+(INTEGER(?:\(KIND=\d+\))?)\s+(MPI_\w+)\s*$", line)
        if m:
            decl[m.group(2)] = m.group(1)
            continue
        m = re.match(r"\s+PARAMETER\s*\((MPI_\w+)=(.*)\)\s*$", line)
        if m:
            out.append((decl.get(m.group(1), "INTEGER"), m.group(1), m.group(2)))
    return out


def wrap(line, indent):
    """Free-form continuation lines of at most 100 characters."""
    out = []
    while len(line) > 100:
        cut = line.rfind(", ", 0, 96)
        if cut < 0:
            break
        out.append(line[: cut + 1] + " &")
        line = " " * (indent + 4) + line[cut + 2 :]
    out.append(line)
    return out


def arg_decl(ctype, cname, name, proto):
    """Fortran declaration of one binding argument; proto = (ctype, name, arr) of mpi.h or None."""
    arr = proto[2] if proto else False
    arr = arr or name.startswith("array_of_")
    dim = ", dimension(*)" if arr else ""
    if ctype in ("constvoid*", "void*"):
        return ["!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + name, "type(*), dimension(*) :: " + name]
    if ctype in ("constchar*", "char*"):
        # an array of strings (char *argv[]) is an array; char datarep[] is one string
        strings = proto is not None and proto[2] and proto[0].replace("const", "") == "char*"
        return ["character(len=*)" + (", dimension(*)" if strings else "") + " :: " + name]
    if ctype.endswith("_fn*") or ctype.endswith("_function*") or ctype.endswith("Function*"):
        return ["external :: " + name]
    if ctype in ("MPI_Aint*", "constMPI_Aint*"):
        if name in CPTRS:
            return ["type(c_ptr) :: " + name]
        return ["integer(kind=MPI_ADDRESS_KIND)" + dim + " :: " + name]
    if ctype in ("MPI_Offset*", "constMPI_Offset*"):
        return ["integer(kind=MPI_OFFSET_KIND)" + dim + " :: " + name]
    if ctype in ("MPI_Count*", "constMPI_Count*"):
        return ["integer(kind=MPI_COUNT_KIND)" + dim + " :: " + name]
    if ctype in ("MPI_Fint*", "constMPI_Fint*"):
        pt = proto[0].replace("const", "").rstrip("*") if proto else "int"
        if pt in ("MPI_Status", "MPI_F08_status"):
            return ["type(MPI_Status)" + dim + " :: " + name]
        if pt.startswith("MPI_") and pt[4:] in HANDLES:
            return ["type(" + pt + ")" + dim + " :: " + name]
        if name in LOGICALS or cname in LOGICALS:
            return ["logical" + dim + " :: " + name]
        return ["integer" + dim + " :: " + name]
    raise SystemExit("gen_f08: no Fortran type for %s %s" % (ctype, cname))


def gen():
    protos = c_protos()
    consts = handle_consts()
    binds = []
    for fname, params in bindings():
        cname = "MPI_" + fname[4:]
        while params and params[-1][0] == "size_t":  # CHARACTER lengths, after ierr
            params = params[:-1]
        if not params or params[-1][1] != "ierr":
            continue
        args = params[:-1]
        if cname.lower() not in protos:
            print("gen_f08: %s has no prototype in mpi.h: left out" % fname, file=sys.stderr)
            continue
        cname, proto = protos[cname.lower()]
        if len(proto) == len(args):
            pmap = list(proto)
        else:
            byname = {p[1]: p for p in proto}
            pmap = [byname.get(a[1]) for a in args]
        names = []
        for (ct, an), pr in zip(args, pmap):
            n = pr[1] if pr and len(proto) == len(args) else an
            if n.lower() in ("ierror", "ierr"):
                n = n + "_"
            names.append(n)
        decls = []
        for (ct, an), pr, n in zip(args, pmap, names):
            decls.append(arg_decl(ct, an, n, pr))
        binds.append((cname, fname, names, decls))

    L = []
    w = L.append
    w("! mpi/fortran/mpi_f08.f90: the Fortran 2008 module `mpi_f08` of mbmpi.")
    w("! GENERATED by scripts/gen_f08.py from mpif.h, mpi.h and the Fortran 77")
    w("! bindings (mpi/fortran/*.c): do not edit, run the script.")
    w("!")
    w("! Handles are derived types (TYPE(MPI_Comm) ... with one INTEGER, MPI_VAL),")
    w("! statuses TYPE(MPI_Status) (MPI_SOURCE, MPI_TAG, MPI_ERROR), ierror is")
    w("! OPTIONAL, and every routine is a generic MPI_X with the specific MPI_X_f08")
    w("! calling the Fortran 77 binding mpi_x_. bin/mpifort compiles this file on")
    w("! first use (mpi_f08.mod, mbmpi_f08_*.mod and libmpi_f08.a in build/fortran/).")
    w("")
    w("module mbmpi_f08_types")
    w("  implicit none")
    for ftype, name, val in mpif_consts():
        if name in KINDS:
            w("  %s, parameter :: %s = %s" % (ftype.lower(), name, val))
    for h in HANDLES:
        w("  type :: MPI_%s" % h)
        w("    sequence")
        w("    integer :: MPI_VAL")
        w("  end type MPI_%s" % h)
    w("  type :: MPI_Status")
    w("    sequence")
    w("    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR")
    w("    integer :: mbmpi_private(MPI_STATUS_SIZE - 3)")
    w("  end type MPI_Status")
    w("end module mbmpi_f08_types")
    w("")
    w("module mbmpi_f08_f77")
    w("  use, intrinsic :: iso_c_binding, only: c_ptr")
    w("  use mbmpi_f08_types, only: MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND, MPI_Status, &")
    w("      " + ", ".join("MPI_" + h for h in HANDLES))
    w("  implicit none")
    w("  interface")
    for cname, fname, names, decls in binds:
        for ln in wrap("    subroutine %s(%s)" % (fname, ", ".join(names + ["ierror"])), 4):
            w(ln)
        w("      import")
        for d in decls:
            for x in d:
                w("      " + x)
        w("      integer :: ierror")
        w("    end subroutine %s" % fname)
    w("  end interface")
    w("end module mbmpi_f08_f77")
    w("")
    w("module mpi_f08")
    w("  use, intrinsic :: iso_c_binding, only: c_ptr")
    w("  use mpi, only: MPI_SIZEOF  ! (the mpi module's generic: bin/mpifort builds both)")
    w("  use mbmpi_f08_types")
    w("  use mbmpi_f08_f77, only: &")
    rn = ["f77_%s => %s" % (f[4:], f) for _, f, _, _ in binds]
    for i, r in enumerate(rn):
        w("      " + r + (", &" if i + 1 < len(rn) else ""))
    w("  implicit none")
    names = ["f77_" + f[4:] for _, f, _, _ in binds]
    while names:  # (lines of at most 100 characters)
        line = "  private :: " + names.pop(0)
        while names and len(line) + 2 + len(names[0]) <= 100:
            line += ", " + names.pop(0)
        w(line)
    w("")
    w("  ! constants of mpif.h; handles typed")
    for ftype, name, val in mpif_consts():
        h = consts.get(name)
        if name in KINDS:
            continue
        if h:
            w("  type(MPI_%s), parameter :: %s = MPI_%s(%s)" % (h, name, h, val))
        else:
            w("  %s, parameter :: %s = %s" % (ftype.lower(), name, val))
    w("")
    w("  ! the sentinels, the common blocks of mpif.h (mpi/fortran/f_env.c)")
    w("  integer :: MPI_BOTTOM, MPI_IN_PLACE")
    w("  integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1), MPI_ERRCODES_IGNORE(1)")
    w("  character(len=1) :: MPI_ARGV_NULL(1)")
    w("  type(MPI_Status) :: MPI_STATUS_IGNORE")
    w("  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)")
    w("  common /MBMPI_FBOTTOM/ MPI_BOTTOM")
    w("  common /MBMPI_FINPLACE/ MPI_IN_PLACE")
    w("  common /MBMPI_FSTIGN/ MPI_STATUS_IGNORE")
    w("  common /MBMPI_FSTSIGN/ MPI_STATUSES_IGNORE")
    w("  common /MBMPI_FUNWEIGHTED/ MPI_UNWEIGHTED")
    w("  common /MBMPI_FWEMPTY/ MPI_WEIGHTS_EMPTY")
    w("  common /MBMPI_FERRCODES/ MPI_ERRCODES_IGNORE")
    w("  common /MBMPI_FARGVNULL/ MPI_ARGV_NULL")
    w("")
    w("  ! choice buffers are TYPE(*), DIMENSION(*): a non-contiguous section is")
    w("  ! passed as a contiguous copy (MPI 3.1 17.1.12), so not to nonblocking calls")
    w("  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.")
    w("  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.")
    w("")
    w("  double precision, external :: MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK")
    w("  integer(kind=MPI_ADDRESS_KIND), external :: MPI_AINT_ADD, MPI_AINT_DIFF")
    w("  external :: MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN")
    w("  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN")
    w("  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN")
    w("  external :: MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, MPI_WIN_DUP_FN")
    w("  external :: MPI_CONVERSION_FN_NULL")
    w("")
    for ln in ABSTRACT.strip("\n").splitlines():
        w(ln)
    w("")
    w("  interface operator(==)")
    for h in HANDLES:
        w("    module procedure mbmpi_eq_%s" % h.lower())
    w("  end interface")
    w("  interface operator(/=)")
    for h in HANDLES:
        w("    module procedure mbmpi_ne_%s" % h.lower())
    w("  end interface")
    for op in ("eq", "ne"):
        for i in range(0, len(HANDLES), 5):
            w("  private :: " + ", ".join("mbmpi_%s_%s" % (op, h.lower()) for h in HANDLES[i : i + 5]))
    w("")

    for cname, fname, names, decls in binds:
        w("  interface %s" % cname)
        w("    module procedure %s_f08" % cname)
        w("  end interface %s" % cname)
    w("")
    w("contains")
    w("")
    for h in HANDLES:
        for op, sym in (("eq", "=="), ("ne", "/=")):
            w("  elemental logical function mbmpi_%s_%s(a, b)" % (op, h.lower()))
            w("    type(MPI_%s), intent(in) :: a, b" % h)
            w("    mbmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL" % (op, h.lower(), sym))
            w("  end function mbmpi_%s_%s" % (op, h.lower()))
    w("")
    for cname, fname, names, decls in binds:
        for ln in wrap("  subroutine %s_f08(%s)" % (cname, ", ".join(names + ["ierror"])), 2):
            w(ln)
        for d in decls:
            for x in d:
                w("    " + x)
        w("    integer, optional, intent(out) :: ierror")
        w("    integer :: mbmpi_ierr")
        for ln in wrap("    call f77_%s(%s)" % (fname[4:], ", ".join(names + ["mbmpi_ierr"])), 4):
            w(ln)
        w("    if (present(ierror)) ierror = mbmpi_ierr")
        w("  end subroutine %s_f08" % cname)
    w("")
    w("end module mpi_f08")
    return "\n".join(L) + "\n"


def main():
    return write_or_check(OUT, gen(), "gen_f08")


if __name__ == "__main__":
    sys.exit(main())
