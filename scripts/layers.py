#!/usr/bin/env python3
"""latscope layering check (docs/design/layers.md).

Userspace: the CLI's folders form layers, top first in LAYERS below; a
file may use its own folder and any folder below it, never one above it,
and no two files, nor two folders, may use each other in a circle.

Driver: the flat driver/*.c files may not use each other in a circle, and
no file but a KUnit one (*_kunit.c, *_kunit.h) may use a KUnit file.

"A uses B" is derived from the C text, with comments and string and char
literals stripped first:
  - A names a function or global variable that B defines non-static (and
    A does not define or declare static, nor declare locally, itself);
  - A #includes the header B (macros, types and inline functions of a
    header count through that include).
A header is a node of its own. For the circle check headers are
transparent: a .c file that calls a header's inline function or macro
uses whatever .c files that inline code calls.

Exit status: 0 clean, 1 a rule is broken, 2 the tree could not be read.
Python 3 standard library only.
"""

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

# ----------------------------------------------------------------------------
# The layers. Userspace folders, TOP FIRST: each may use itself and the ones
# below it. Add a layer by adding a row; a folder not listed here is an error.
LAYERS = [
    # folder    what it holds
    ("cli",     "option parsing, main; the only place that exits"),
    ("survey",  "the survey: a plan of phases, each a child latscope, then the profile"),
    ("cost",    "the cost suite: workloads timed, plain and while latscope measures"),
    ("serve",   "the exporter: a sink of the run's seconds, HTTP (libmicrohttpd), textfile"),
    ("latmon",  "latmon client and monitor, plugged into run by a link ops table"),
    ("run",     "engine: sessions, threads, logger and sinks, signals, stress, checkpoint"),
    ("output",  "small JSON writer, printers of a finished report to a FILE *"),
    ("setup",   "the setup verdict from /proc and /sys, --apply-setup and its undo journal"),
    ("core",    "types, statistics, timeline, CPU lists, sysinfo, GPIO spec, latmon protocol"),
]
USERSPACE = "userspace"
DRIVER = "driver"
# Headers anyone may include (they are no node of the graph).
ALLOWED_HEADERS = ["driver/include/uapi/linux/latscope.h"]
# Where #include looks after the including file's folder (-I of each build).
USERSPACE_INCLUDE = ["userspace", "driver/include/uapi"]
DRIVER_INCLUDE = ["driver", "driver/include"]
# Driver files that only KUnit may use.
KUNIT_FILE = re.compile(r"_kunit\.[ch]$")
# Folders never scanned (tests live outside userspace/, but just in case),
# and files that are generated rather than written.
SKIP_DIRS = {"tests", "test", "testdata", "build", "out"}
GENERATED_NAME = re.compile(r"(\.mod\.c|\.gen\.[ch]|_gen\.[ch])$")
GENERATED_MARK = re.compile(r"@generated|generated (file|by)|do not edit|automatically generated",
                            re.I)
# ----------------------------------------------------------------------------

LAYER_NAMES = [name for name, _ in LAYERS]
RANK = {name: i for i, name in enumerate(LAYER_NAMES)}   # 0 is the top

KEYWORDS = set("""
auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Alignas _Alignof
_Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
_Thread_local typeof __typeof__ __typeof asm __asm__ __asm __attribute__
__attribute __extension__ __inline __inline__ __restrict __restrict__
__volatile__ __const __thread __int128 __label__ __builtin_va_arg
__builtin_offsetof bool true false alignof alignas static_assert thread_local
""".split())
TYPE_WORDS = set("void char short int long float double signed unsigned _Bool bool "
                 "_Complex _Imaginary __int128".split())
SPECIFIERS = set("static extern typedef register auto inline const volatile restrict "
                 "_Noreturn _Thread_local __thread __inline __inline__ __restrict "
                 "__restrict__ __const __volatile__ __extension__ thread_local".split())
STORAGE = {"static", "extern", "typedef"}
# Top-level macros whose first plain-name argument is a variable they define.
DEFINING_MACRO = re.compile(r"^(DEFINE_\w+|LIST_HEAD|DECLARE_WAIT_QUEUE_HEAD|"
                            r"DECLARE_COMPLETION|DECLARE_BITMAP|DECLARE_RWSEM)$")
KERNEL_TYPE = re.compile(r"^__(u|s|le|be)\d+$|^__kernel_\w+$")


def is_id(t):
    return t[:1].isalpha() or t[:1] == "_"


def is_attr(t):
    """A __word that is an attribute or annotation, not a type."""
    return (t.startswith("__") and t not in KEYWORDS and not KERNEL_TYPE.match(t)) \
        or t in ("__attribute__", "__attribute")


def is_name(t):
    """An identifier that may name a function, variable or type."""
    return is_id(t) and t not in KEYWORDS and not is_attr(t)


# ---------------------------------------------------------------- lexing ---

def strip(text):
    """Returns (code, nocomment): both with comments blanked; code also with
    string literals as "" and char literals as ''. Line breaks are kept, so
    line N of one is line N of the other and of the file."""
    code, plain = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank = " " + "\n" * text.count("\n", i, j)
            code.append(blank)
            plain.append(blank)
            i = j
        elif c == "/" and text.startswith("//", i):
            j = i + 2
            while j < n and text[j] != "\n":
                j += 2 if text.startswith("\\\n", j) else 1
            blank = " " + "\\\n" * text.count("\n", i, j)
            code.append(blank)
            plain.append(blank)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            lit = text[i:j + 1] if j < n and text[j] == c else text[i:j]
            code.append(c + c + "\n" * lit.count("\n"))
            plain.append(lit)
            i += len(lit)
        else:
            j = i
            while j < n and text[j] not in "/\"'":
                j += 1
            if j == i:
                j = i + 1
            code.append(text[i:j])
            plain.append(text[i:j])
            i = j
    return "".join(code), "".join(plain)


def logical_lines(text):
    """(first line number, line) with backslash-newlines joined."""
    out, cur, start = [], [], 1
    for no, line in enumerate(text.split("\n"), 1):
        if not cur:
            start = no
        if line.endswith("\\"):
            cur.append(line[:-1])
            continue
        cur.append(line)
        out.append((start, " ".join(cur)))
        cur = []
    if cur:
        out.append((start, " ".join(cur)))
    return out


TOKEN = re.compile(r"""
    [A-Za-z_]\w*
  | \.?\d(?:[eEpP][+-]|[\w.])*
  | ""|''
  | ->|\.\.\.|<<=|>>=|\+\+|--|&&|\|\||[-+*/%&|^!=<>]=|<<|>>|\#\#
  | [^\s\w]
""", re.X)
DIRECTIVE = re.compile(r"\s*#\s*(\w*)")
INCLUDE = re.compile(r'\s*#\s*include\s*([<"])([^>"]+)[>"]')
DEFINE = re.compile(r"\s*#\s*define\s+(\w+)(\([^)]*\))?(.*)$")
IF_ZERO = re.compile(r"\s*#\s*(if\s+0\b|ifdef\s+__cplusplus\b|if\s+defined\s*\(?\s*__cplusplus\b)")


class Tok:
    __slots__ = ("t", "line")

    def __init__(self, t, line):
        self.t = t
        self.line = line

    def __repr__(self):
        return "%s@%d" % (self.t, self.line)


class Unit:
    """One source file: what it defines, declares, uses and includes."""

    def __init__(self, path):
        self.path = path                 # relative to the root, with /
        self.defs = {}                   # non-static: name -> function|variable
        self.own = set()                 # every file-scope name of its own
        self.uses = defaultdict(set)     # name -> owners (top-level entity or None)
        self.includes = []               # (quote, target, line)
        self.entities = set()            # inline functions and macros (headers)


def lex(unit, text):
    """Tokens of the code, directives folded into ('#if', '#else',
    '#endif') tokens; #define bodies and #includes go straight to unit."""
    code, plain = strip(text)
    plain_lines = plain.split("\n")
    toks = []
    skip = 0                             # depth inside #if 0 / __cplusplus
    for no, line in logical_lines(code):
        m = DIRECTIVE.match(line)
        if not m:
            if not skip:
                toks.extend(Tok(t, no) for t in TOKEN.findall(line))
            continue
        d = m.group(1)
        if skip:
            if d in ("if", "ifdef", "ifndef"):
                skip += 1
            elif d == "endif":
                skip -= 1
                if not skip:
                    toks.append(Tok("#endif", no))
            elif d in ("else", "elif") and skip == 1:
                skip = 0
                toks.append(Tok("#else", no))
            continue
        if d in ("if", "ifdef", "ifndef"):
            toks.append(Tok("#if", no))
            if IF_ZERO.match(line):
                skip = 1
        elif d in ("else", "elif"):
            toks.append(Tok("#else", no))
        elif d == "endif":
            toks.append(Tok("#endif", no))
        elif d == "include":
            m = INCLUDE.match(plain_lines[no - 1]) if no <= len(plain_lines) else None
            if m:
                unit.includes.append((m.group(1), m.group(2).strip(), no))
        elif d == "define":
            define(unit, line)
    return toks


def define(unit, line):
    m = DEFINE.match(line)
    if not m:
        return
    name, params, body = m.groups()
    unit.own.add(name)
    unit.entities.add(name)
    local = set()
    if params:
        local = {p.strip() for p in params[1:-1].split(",")}
        local.add("__VA_ARGS__")
    toks = TOKEN.findall(body)
    for i, t in enumerate(toks):
        if not is_name(t) or t in local or t == name:
            continue
        prev = toks[i - 1] if i else ""
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if prev in (".", "->", "#", "##") or nxt == "##":
            continue
        unit.uses[t].add(name)


# --------------------------------------------------------------- parsing ---

def group_end(toks, i):
    """Index of the bracket closing toks[i] ('(' or '[')."""
    pairs = {"(": ")", "[": "]"}
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].t
        if t in pairs:
            depth += 1
        elif t in (")", "]"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def split_top(toks, sep):
    """Splits toks at sep outside () and []."""
    parts, cur, depth = [], [], 0
    for tk in toks:
        if tk.t in "([":
            depth += 1
        elif tk.t in ")]":
            depth -= 1
        if tk.t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(tk)
    parts.append(cur)
    return parts


def skip_attrs(toks, i):
    """Past specifiers and attributes from i."""
    while i < len(toks):
        t = toks[i].t
        if t in SPECIFIERS or (t == "_Atomic" and (i + 1 >= len(toks) or toks[i + 1].t != "(")):
            i += 1
        elif is_attr(t):
            i += 1
            if i < len(toks) and toks[i].t == "(":
                i = group_end(toks, i) + 1
        else:
            break
    return i


def decl_specs(toks):
    """If toks start like a declaration: (storage flags, index of the
    first declarator). Else None."""
    i = skip_attrs(toks, 0)
    flags = {tk.t for tk in toks[:i] if tk.t in STORAGE}
    if i >= len(toks):
        return None
    t = toks[i].t
    if t in TYPE_WORDS:
        while i < len(toks) and (toks[i].t in TYPE_WORDS or toks[i].t in SPECIFIERS
                                 or is_attr(toks[i].t)):
            i = skip_attrs(toks, i) if toks[i].t not in TYPE_WORDS else i + 1
    elif t in ("struct", "union", "enum"):
        i = skip_attrs(toks, i + 1)
        if i >= len(toks) or not is_name(toks[i].t):
            return None
        i += 1
    elif t in ("typeof", "__typeof__", "__typeof", "_Atomic"):
        if i + 1 >= len(toks) or toks[i + 1].t != "(":
            return None
        i = group_end(toks, i + 1) + 1
    elif is_name(t) or KERNEL_TYPE.match(t):          # a typedef name
        nxt = toks[i + 1].t if i + 1 < len(toks) else ""
        if nxt == "(":
            # T (*name)(...) or T (*name)[...]; not a call f(*p);
            if not (i + 3 < len(toks) and toks[i + 2].t == "*" and is_name(toks[i + 3].t)):
                return None
            end = group_end(toks, i + 1)
            if end + 1 >= len(toks) or toks[end + 1].t not in ("(", "["):
                return None
        elif not (nxt == "*" or is_name(nxt) or nxt in SPECIFIERS or is_attr(nxt)):
            return None
        i += 1
    else:
        return None
    return flags, skip_attrs(toks, i)


def declarator_name(toks):
    """(name, is a function, index of the name) of one declarator."""
    depth = 0
    i = 0
    while i < len(toks):
        t = toks[i].t
        if is_attr(t):
            i += 1
            if i < len(toks) and toks[i].t == "(":
                i = group_end(toks, i) + 1
            continue
        if t in ("(", "["):
            if t == "[":
                i = group_end(toks, i) + 1
                continue
            depth += 1
        elif t == ")":
            depth -= 1
        elif is_name(t):
            func = depth == 0 and i + 1 < len(toks) and toks[i + 1].t == "("
            return t, func, i
        i += 1
    return None, False, -1


class Parser:
    """Walks one file's tokens: brace contexts, statements, declarations."""

    def __init__(self, unit):
        self.u = unit
        self.stack = []      # frames: {kind: func|block|aggr|init, locals, owner, cont}
        self.buf = []        # the statement being read (top, func, block)
        self.pdepth = 0
        self.cont = None     # declarators after a closed aggregate/initializer
        self.pp = []         # saved states per #if
        self.prev = ""

    # -- helpers --
    def kind(self):
        return self.stack[-1]["kind"] if self.stack else "top"

    def owner(self):
        for f in reversed(self.stack):
            if f.get("owner") is not None:
                return f["owner"]
        return None

    def locals(self):
        s = set()
        for f in self.stack:
            s |= f["locals"]
        return s

    def use(self, name, owner):
        self.u.uses[name].add(owner)

    def uses(self, toks, local=frozenset(), owner=None):
        if owner is None:
            owner = self.owner()
        visible = self.locals() | set(local)
        prev = ""
        for tk in toks:
            t = tk.t
            if is_name(t) and t not in visible and \
                    prev not in (".", "->", "goto", "struct", "union", "enum"):
                self.use(t, owner)
            prev = t

    def push(self, kind, locals_=(), owner=None, cont=None):
        self.stack.append({"kind": kind, "locals": set(locals_), "owner": owner,
                           "cont": cont})

    # -- the walk --
    def run(self, toks):
        for tk in toks:
            t = tk.t
            if t[0] == "#" and len(t) > 2:
                self.directive(t)
                continue
            k = self.kind()
            if k == "aggr":
                if t == "{":
                    self.push("aggr")
                elif t == "}":
                    self.close()
            elif k == "init":
                if t == "{":
                    self.push("init")
                elif t == "}":
                    self.close()
                elif is_name(t) and self.prev not in (".", "->") and t not in self.locals():
                    self.use(t, self.owner())
            elif t == "{":
                self.open_brace()
            elif t == "}":
                self.flush()
                self.close()
            elif t == ";" and self.pdepth == 0:
                self.flush()
            else:
                if k == "top" and self.macro_call_ended(tk):
                    self.flush()
                self.buf.append(tk)
                if t in "([":
                    self.pdepth += 1
                elif t in ")]":
                    self.pdepth = max(0, self.pdepth - 1)
            self.prev = t
        self.flush()

    def directive(self, t):
        if t == "#if":
            self.pp.append([list(self.stack), len(self.buf), self.pdepth, None])
        elif t == "#else" and self.pp:
            st = self.pp[-1]
            if st[3] is None:
                st[3] = (list(self.stack), list(self.buf), self.pdepth)
            self.stack = list(st[0])
            del self.buf[st[1]:]
            self.pdepth = st[2]
        elif t == "#endif" and self.pp:
            st = self.pp.pop()
            if st[3] is not None:
                self.stack, self.buf, self.pdepth = list(st[3][0]), st[3][1], st[3][2]

    def macro_call_ended(self, tk):
        """A top-level NAME(...) ending a line with no ';' (a macro that
        expands to definitions), followed by another line."""
        buf = self.buf
        if not buf or self.pdepth or buf[-1].t != ")" or tk.line <= buf[-1].line:
            return False
        if tk.t in (";", "{", ",", "=", "(", "[", ")") or is_attr(tk.t):
            return False
        j = skip_attrs(buf, 0)
        while j < len(buf) and buf[j].t in STORAGE:
            j += 1
        return (j + 1 < len(buf) and is_name(buf[j].t) and buf[j + 1].t == "("
                and group_end(buf, j + 1) == len(buf) - 1)

    def close(self):
        if self.stack:
            f = self.stack.pop()
            if f["cont"] is not None:
                self.cont = f["cont"]

    def open_brace(self):
        buf, k = self.buf, self.kind()
        self.buf, cont, self.cont = [], self.cont, None
        if self.pdepth:              # ({ ... }) or a compound literal in a call
            self.pdepth = 0
            self.uses(buf)
            self.push("block" if k != "top" else "init", owner=self.owner())
            return
        # struct/union/enum [tag] {
        for i, tk in enumerate(buf):
            if tk.t in ("struct", "union", "enum"):
                j = skip_attrs(buf, i + 1)
                if j < len(buf) and is_name(buf[j].t):
                    j = skip_attrs(buf, j + 1)
                if j == len(buf):
                    flags = {x.t for x in buf[:i] if x.t in STORAGE}
                    self.push("aggr", cont=("aggr", flags))
                    return
        if self.top_eq(buf):
            names = self.statement(buf, cont)
            owner = names[-1] if (k == "top" and names) else self.owner()
            flags = {x.t for x in buf if x.t in STORAGE}
            self.push("init", owner=owner, cont=("init", flags))
            return
        if k == "top":
            self.function(buf)
            return
        local = set()
        if len(buf) > 1 and buf[0].t == "for" and buf[1].t == "(":
            local = self.for_locals(buf)
        self.uses(buf, local)
        self.push("block", local)

    @staticmethod
    def top_eq(buf):
        depth = 0
        for tk in buf:
            if tk.t in "([":
                depth += 1
            elif tk.t in ")]":
                depth -= 1
            elif tk.t == "=" and depth == 0:
                return True
        return False

    def flush(self):
        buf, cont = self.buf, self.cont
        self.buf, self.cont, self.pdepth = [], None, 0
        if buf or cont:
            self.statement(buf, cont)

    def function(self, buf):
        """A function definition's head; pushes its body."""
        name_at = -1
        i = 0
        while i < len(buf):
            t = buf[i].t
            if is_attr(t):
                i += 1
                if i < len(buf) and buf[i].t == "(":
                    i = group_end(buf, i) + 1
                continue
            if is_name(t) and i + 1 < len(buf) and buf[i + 1].t == "(":
                name_at = i
                break
            i += 1
        if name_at < 0:
            self.uses(buf)
            self.push("func")
            return
        name = buf[name_at].t
        end = group_end(buf, name_at + 1)
        params = {tk.t for tk in buf[name_at + 2:end] if is_id(tk.t)}
        head = [tk.t for tk in buf[:name_at]]
        typed = any(t not in SPECIFIERS and not is_attr(t) and t not in STORAGE
                    and t not in "()," and not t.isdigit() for t in head)
        if typed:
            self.u.own.add(name)
            if "static" in head:
                self.u.entities.add(name)
            else:
                self.u.defs[name] = "function"
        else:                         # NAME(args) { : a macro defines it
            self.use(name, None)
        self.push("func", params, owner=name)

    def for_locals(self, buf):
        inner = buf[2:group_end(buf, 1)]
        first = split_top(inner, ";")[0]
        d = decl_specs(first)
        if not d:
            return set()
        return {n for n in self.declarators(first[d[1]:], d[0], declare=False) if n}

    def statement(self, buf, cont):
        """One statement (or declaration) ended by ';', '{' or '}'.
        Returns the names it declares."""
        top = self.kind() == "top"
        if cont is not None:
            kind, flags = cont
            if kind == "aggr":
                return self.declarators(buf, flags, top=top)
            if buf and buf[0].t == ",":
                return self.declarators(buf[1:], flags, top=top)
            self.uses(buf)
            return []
        if not buf:
            return []
        if not top:                   # labels
            while len(buf) >= 2 and is_name(buf[0].t) and buf[1].t == ":":
                buf = buf[2:]
        d = decl_specs(buf)
        if d:
            return self.declarators(buf[d[1]:], d[0], top=top)
        j = skip_attrs(buf, 0)
        while j < len(buf) and buf[j].t in STORAGE:
            j += 1
        if top and j + 1 < len(buf) and is_name(buf[j].t) and buf[j + 1].t == "(":
            return self.macro_statement(buf, j)
        local = set()
        if not top and len(buf) > 1 and buf[0].t == "for" and buf[1].t == "(":
            local = self.for_locals(buf)
        self.uses(buf, local)
        return []

    def macro_statement(self, buf, j):
        """NAME(args); at file scope: module_init(f); DEFINE_MUTEX(m); ..."""
        name = buf[j].t
        static = any(tk.t == "static" for tk in buf[:j])
        self.use(name, None)
        args = buf[j + 2:group_end(buf, j + 1)]
        defined = None
        if DEFINING_MACRO.match(name):
            for arg in split_top(args, ","):
                if len(arg) == 1 and is_name(arg[0].t):
                    defined = arg[0].t
                    break
        if defined:
            self.u.own.add(defined)
            if not static:
                self.u.defs[defined] = "variable"
        self.uses([tk for tk in args if tk.t != defined], owner=defined)
        return [defined] if defined else []

    def declarators(self, toks, flags, top=None, declare=True):
        if top is None:
            top = self.kind() == "top"
        names = []
        for decl in split_top(toks, ","):
            if not decl:
                continue
            parts = split_top(decl, "=")
            lhs, rhs = parts[0], [tk for p in parts[1:] for tk in p]
            name, func, _ = declarator_name(lhs)
            names.append(name)
            sizes = []
            depth = 0
            for tk in lhs:           # array sizes: [N]
                if tk.t == "[":
                    depth += 1
                elif tk.t == "]":
                    depth -= 1
                elif depth:
                    sizes.append(tk)
            if not declare:
                continue
            if top:
                if name and "typedef" not in flags:
                    if func:
                        if "static" in flags:
                            self.u.own.add(name)
                    elif "extern" not in flags:
                        self.u.own.add(name)
                        if "static" not in flags:
                            self.u.defs[name] = "variable"
                self.uses(sizes + rhs, owner=name)
            else:
                if name and not func and "extern" not in flags and self.stack:
                    self.stack[-1]["locals"].add(name)
                self.uses(sizes + rhs)
        return names


def parse(path, rel):
    unit = Unit(rel)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    Parser(unit).run(lex(unit, text))
    return unit


# ----------------------------------------------------------------- graph ---

class Graph:
    def __init__(self, root):
        self.root = root
        self.units = {}                                   # rel path -> Unit
        self.edges = defaultdict(lambda: defaultdict(set))  # a -> b -> labels
        self.problems = []                                # (section, line)

    def problem(self, section, line):
        self.problems.append((section, line))

    def add(self, rel):
        self.units[rel] = parse(os.path.join(self.root, rel), rel)

    def link(self, include_paths):
        """Symbol and include edges between the files read."""
        index = defaultdict(list)
        for u in self.units.values():
            for name in u.defs:
                index[name].append(u.path)
        self.index = index
        allowed = set(ALLOWED_HEADERS)
        for u in self.units.values():
            for name in u.uses:
                if name in u.own:
                    continue
                for other in index.get(name, ()):
                    if other != u.path:
                        self.edges[u.path][other].add(name)
            for quote, target, line in u.includes:
                dest = self.resolve(u.path, quote, target, include_paths)
                if dest is None or dest in allowed:
                    continue
                if dest in self.units:
                    if dest != u.path:
                        self.edges[u.path][dest].add('#include %s' % (
                            '"%s"' % target if quote == '"' else "<%s>" % target))
                else:
                    self.problem("includes from outside the checked files",
                                 "%s:%d: #include %s%s%s -> %s" % (
                                     u.path, line, quote, target,
                                     '"' if quote == '"' else ">", dest))

    def resolve(self, frm, quote, target, include_paths):
        dirs = ([os.path.dirname(frm)] if quote == '"' else []) + include_paths
        for d in dirs:
            rel = os.path.normpath(os.path.join(d, target)).replace(os.sep, "/")
            if rel in self.units:
                return rel
            if os.path.isfile(os.path.join(self.root, rel)) and not rel.startswith(".."):
                return rel
        return None

    def headers_of(self, path):
        """Headers path includes, directly or through other headers."""
        seen, todo = set(), [path]
        while todo:
            p = todo.pop()
            for dest in self.edges.get(p, {}):
                if dest.endswith(".h") and dest not in seen:
                    seen.add(dest)
                    todo.append(dest)
        return seen

    def source_graph(self):
        """.c -> .c with headers transparent: A uses B directly, or calls
        an inline function or macro of a header it includes whose code
        (transitively) uses B."""
        memo = {}
        entity_home = {}
        for u in self.units.values():
            if u.path.endswith(".h"):
                for e in u.entities:
                    entity_home.setdefault(e, u.path)

        def reach(entity, trail):
            if entity in memo:
                return memo[entity]
            if entity in trail:
                return set()
            trail = trail | {entity}
            h = self.units[entity_home[entity]]
            out = set()
            for name, owners in h.uses.items():
                if entity not in owners or name in h.own and name not in h.entities:
                    continue
                for other in self.index.get(name, ()):
                    if other.endswith(".c"):
                        out.add((other, "%s via %s" % (name, entity)))
                if name in entity_home and name != entity:
                    out |= reach(name, trail)
            memo[entity] = out
            return out

        g = defaultdict(lambda: defaultdict(set))
        for u in self.units.values():
            if not u.path.endswith(".c"):
                continue
            for dest, labels in self.edges.get(u.path, {}).items():
                if dest.endswith(".c"):
                    g[u.path][dest] |= labels
            headers = self.headers_of(u.path)
            for name in u.uses:
                home = entity_home.get(name)
                if home in headers and name not in u.own:
                    for dest, label in reach(name, frozenset()):
                        if dest != u.path:
                            g[u.path][dest].add(label)
            for h in headers:            # a header's own file-scope uses
                for name, owners in self.units[h].uses.items():
                    if None in owners:
                        for dest in self.index.get(name, ()):
                            if dest.endswith(".c") and dest != u.path:
                                g[u.path][dest].add("%s via %s" % (name, h))
        return g

    def links(self):
        return sum(len(d) for d in self.edges.values())


def sccs(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def a_cycle(comp, edges):
    """One circle through the first node of comp, as a node list."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(edges.get(v, {})):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return comp + [start]


def label(labels, limit=6):
    names = sorted(labels)
    text = ", ".join(names[:limit])
    if len(names) > limit:
        text += ", +%d more" % (len(names) - limit)
    return text


def report_circles(g, edges, nodes, section):
    for comp in sccs(nodes, edges):
        g.problem(section, "circle: " + " -> ".join(a_cycle(comp, edges)))
        for a in comp:
            for b in sorted(edges.get(a, {})):
                if b in comp:
                    g.problem(section, "    %s -> %s (%s)" % (a, b, label(edges[a][b])))


# ------------------------------------------------------------ the checks ---

def ignored_by_git(root, top):
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--others", "--ignored",
             "--exclude-standard", "--", top],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return set()
    return {p for p in out.decode("utf-8", "replace").split("\0") if p}


def generated(path):
    if GENERATED_NAME.search(path):
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(1024)
    except OSError:
        return True
    return bool(GENERATED_MARK.search(head))


def sources(root, top, recurse, skipped):
    base = os.path.join(root, top)
    ignored = ignored_by_git(root, top)
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if not recurse:
            dirnames[:] = []
        else:
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith((".c", ".h")):
                continue
            rel = rel_dir + "/" + name
            if rel in ignored or generated(os.path.join(dirpath, name)):
                skipped.append(rel)
                continue
            found.append(rel)
    return found


def folder_of(rel):
    """The layer folder of a userspace file, or None."""
    parts = rel.split("/")
    if len(parts) < 3 or parts[1] not in RANK:
        return None
    return parts[1]


def check_userspace(root, skipped):
    g = Graph(root)
    for rel in sources(root, USERSPACE, True, skipped):
        g.add(rel)
    g.link(USERSPACE_INCLUDE)
    sec_folder = "userspace: files not in a layer folder (%s)" % ", ".join(
        USERSPACE + "/" + n + "/" for n in LAYER_NAMES)
    for rel in sorted(g.units):
        if folder_of(rel) is None:
            g.problem(sec_folder, "%s: not in a layer folder" % rel)
    fedges = defaultdict(lambda: defaultdict(set))
    for a in sorted(g.edges):
        for b in sorted(g.edges[a]):
            fa, fb = folder_of(a), folder_of(b)
            if fa is None or fb is None or fa == fb:
                continue
            fedges[fa][fb].add((a, b))
            if RANK[fb] < RANK[fa]:
                g.problem("userspace: upward links (a layer uses one above it)",
                          "%s -> %s (%s)" % (a, b, label(g.edges[a][b])))
    folder_labels = {a: {b: {"%d links" % len(v)} for b, v in d.items()}
                     for a, d in fedges.items()}
    report_circles(g, folder_labels, list(fedges), "userspace: circle between folders")
    sg = g.source_graph()
    report_circles(g, sg, [u for u in g.units if u.endswith(".c")],
                   "userspace: circle between files")
    hg = {a: {b: v for b, v in d.items() if b.endswith(".h")}
          for a, d in g.edges.items() if a.endswith(".h")}
    report_circles(g, hg, list(hg), "userspace: circle between headers")

    lines = []
    present = [n for n in LAYER_NAMES if any(folder_of(u) == n for u in g.units)]
    inside = sum(1 for a in g.edges for b in g.edges[a]
                 if folder_of(a) and folder_of(a) == folder_of(b))
    lines.append("userspace: %d files, %d layer folders, %d file-to-file links (%d inside a folder)"
                 % (len(g.units), len(present), g.links(), inside))
    width = max([len(n) for n in LAYER_NAMES] + [1])
    for n in LAYER_NAMES:
        count = sum(1 for u in g.units if folder_of(u) == n)
        used = ", ".join("%s (%d)" % (b, len(fedges[n][b]))
                         for b in LAYER_NAMES if b in fedges.get(n, {}))
        lines.append("  %-*s %3d files  uses %s" % (width, n, count, used or "nothing"))
    stray = sum(1 for u in g.units if folder_of(u) is None)
    if stray:
        lines.append("  %-*s %3d files  (not in a layer folder)" % (width, "-", stray))
    return g, lines


def check_driver(root, skipped):
    g = Graph(root)
    for rel in sources(root, DRIVER, False, skipped):
        g.add(rel)
    g.link(DRIVER_INCLUDE)
    kunit = {u for u in g.units if KUNIT_FILE.search(u)}
    for a in sorted(g.edges):
        if a in kunit:
            continue
        for b in sorted(g.edges[a]):
            if b in kunit:
                g.problem("driver: a non-KUnit file uses a KUnit file",
                          "%s -> %s (%s)" % (a, b, label(g.edges[a][b])))
    sg = g.source_graph()
    report_circles(g, sg, [u for u in g.units if u.endswith(".c")],
                   "driver: circle between files")
    hg = {a: {b: v for b, v in d.items() if b.endswith(".h")}
          for a, d in g.edges.items() if a.endswith(".h")}
    report_circles(g, hg, list(hg), "driver: circle between headers")
    nc = sum(1 for u in g.units if u.endswith(".c"))
    lines = ["driver: %d files (%d .c, %d .h; %d KUnit), %d file-to-file links, %d between .c files"
             % (len(g.units), nc, len(g.units) - nc, len(kunit), g.links(),
                sum(len(d) for d in sg.values()))]
    return g, lines


def dot(graphs, bad):
    out = ["digraph layers {", "  rankdir=TB;", "  compound=true;",
           '  node [shape=box, fontname="monospace", fontsize=10];',
           '  edge [fontsize=8, color="#555555"];']
    for part, g in graphs:
        groups = defaultdict(list)
        for u in sorted(g.units):
            groups[folder_of(u) if part == "userspace" else None].append(u)
        order = ([n for n in LAYER_NAMES if n in groups] + ([None] if None in groups else [])) \
            if part == "userspace" else [None]
        for n in order:
            name = "%s/%s" % (part, n) if n else part
            out.append('  subgraph "cluster_%s" {' % name)
            out.append('    label="%s";' % name)
            for u in groups.get(n, []):
                style = ', style=dashed' if part == "driver" and KUNIT_FILE.search(u) else ""
                out.append('    "%s" [label="%s"%s];' % (u, u.rsplit("/", 1)[1], style))
            out.append("  }")
        for a in sorted(g.edges):
            for b in sorted(g.edges[a]):
                attrs = 'tooltip="%s"' % label(g.edges[a][b]).replace('"', "'")
                if (a, b) in bad:
                    attrs += ", color=red, penwidth=2"
                out.append('  "%s" -> "%s" [%s];' % (a, b, attrs))
    out.append("}")
    return "\n".join(out)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="latscope layering check (docs/design/layers.md)")
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="tree to check (default: this checkout)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--driver-only", action="store_true", help="check driver/ only")
    which.add_argument("--userspace-only", action="store_true", help="check userspace/ only")
    ap.add_argument("--dot", action="store_true",
                    help="print the file graph in Graphviz dot (problems go to stderr)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also list skipped files and each file's definitions and links")
    args = ap.parse_args(argv)

    root = os.path.abspath(args.root)
    parts = []
    if not args.driver_only:
        parts.append((USERSPACE, check_userspace))
    if not args.userspace_only:
        parts.append((DRIVER, check_driver))
    for part, _ in parts:
        if not os.path.isdir(os.path.join(root, part)):
            print("layers: no %s/ under %s" % (part, root), file=sys.stderr)
            return 2

    graphs, summary, problems, skipped = [], [], [], []
    for part, check in parts:
        g, lines = check(root, skipped)
        graphs.append((part, g))
        summary += lines
        problems += g.problems

    out = sys.stderr if args.dot else sys.stdout
    if args.verbose:
        for s in skipped:
            print("skipped: %s" % s, file=out)
        for _, g in graphs:
            for u in sorted(g.units):
                print("%s: defines %s" % (u, ", ".join(sorted(g.units[u].defs)) or "-"), file=out)
                for b in sorted(g.edges.get(u, {})):
                    print("  -> %s (%s)" % (b, label(g.edges[u][b], 99)), file=out)
    section = None
    for sec, line in problems:
        if sec != section:
            print("%s:" % sec, file=out)
            section = sec
        print("  " + line, file=out)
    if args.dot:
        bad = set()
        for _, line in problems:
            m = re.match(r"\s*(\S+) -> (\S+) \(", line)
            if m:
                bad.add((m.group(1), m.group(2)))
        print(dot(graphs, bad))
    for line in summary:
        print(line, file=out)
    count = sum(1 for _, line in problems if not line.startswith("    "))
    if count:
        print("layers: FAILED, %d problem%s" % (count, "" if count == 1 else "s"), file=out)
        return 1
    print("layers: ok", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
