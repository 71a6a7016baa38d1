"""scripts/gen_util.py: what the generators of committed files share
(scripts/gen_f08.py, scripts/gen_large_count.py): reading mpi.h's
prototypes, writing or checking the output."""
import re
import sys


def c_prototypes(text, rettypes="int"):
    """Yield (name, [(type, param, is_array)]) for each MPI_ prototype of C
    text returning one of rettypes (a regex alternation), comments dropped:
    type as written (spaces normalised), an array's [] taken off ([][3]
    counts as one [])."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    for m in re.finditer(r"\b(?:%s)\s+(MPI_\w+)\s*\(([^)]*)\)\s*;" % rettypes, text):
        params = []
        for p in m.group(2).split(","):
            p = " ".join(p.split()).replace("[][3]", "[]")
            if p in ("", "void", "..."):
                continue
            arr = p.endswith("[]")
            p = p[:-2].strip() if arr else p
            mm = re.match(r"(.*?)(\w+)$", p)
            if not mm:
                raise SystemExit("cannot read parameter %r of %s" % (p, m.group(1)))
            params.append((mm.group(1).strip(), mm.group(2), arr))
        yield m.group(1), params


def write_or_check(out, text, name):
    """With --check on the command line: 1 (and a message) when `out` does
    not hold `text`; else write it. Returns the exit status."""
    if sys.argv[1:] == ["--check"]:
        with open(out) as f:
            if f.read() != text:
                print("%s: %s is out of date: run scripts/%s.py" % (name, out, name), file=sys.stderr)
                return 1
        return 0
    with open(out, "w") as f:
        f.write(text)
    return 0
