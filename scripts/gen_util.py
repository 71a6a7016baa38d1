"""scripts/gen_util.py: what the generators of committed files share
(scripts/gen_f08.py, scripts/gen_large_count.py)."""
import sys


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
