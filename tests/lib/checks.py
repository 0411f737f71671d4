# SPDX-License-Identifier: GPL-2.0
"""The "ok"/"not ok" lines of latscope's Python checks, and their count.

A script finds this module from its own directory:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "lib"))
    from checks import check, setup, summary

    setup(prefix="json: ", show_ok=False)   # once, before the first check
    check(ok, name, detail)                 # counts, prints
    sys.exit(summary("json"))               # "json: N passed, N failed"
"""

passed = failed = 0
_style = {"prefix": "", "show_ok": True, "sep": ": ", "always": False}


def setup(prefix="", show_ok=True, sep=": ", always=False):
    """How check() prints: PREFIX before each name, "ok - NAME" lines or
    none, and SEP between a failure's name and its detail, which is left
    out when it is empty (or 0, None...) unless ALWAYS."""
    _style.update(prefix=prefix, show_ok=show_ok, sep=sep, always=always)


def check(ok, name, detail=""):
    """Counts a check; prints "ok - NAME" or "not ok - NAME: DETAIL"."""
    global passed, failed
    if ok:
        passed += 1
        if _style["show_ok"]:
            print(f"ok - {_style['prefix']}{name}")
    else:
        failed += 1
        more = f"{_style['sep']}{detail}" if detail or _style["always"] else ""
        print(f"not ok - {_style['prefix']}{name}{more}")


def summary(what):
    """Prints "WHAT: N passed, N failed"; returns the exit status, 1 if any
    check failed."""
    print(f"{what}: {passed} passed, {failed} failed")
    return 1 if failed else 0
