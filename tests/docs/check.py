#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The front door's checks (tests/docs/run.sh runs them): README and
--help within their budgets, the --help pages aligned and listed where
they are named, every relative link and #anchor of the documents found,
docs/design/cli.md naming every userspace folder and file, layers.md's
figures what scripts/layers.py prints, every `latscope ...` example of
README, the guides, the --help pages and the man page parsed by the
CLI's own parser with the canonical GPIO wiring (docs/guide/gpio.md,
"The wiring", itself checked against the overlays), and `make help`
listing every make target the documents name.

usage: check.py TOP LATSCOPE PARSE [--fix]
  LATSCOPE  the built CLI (for its --help pages)
  PARSE     tests/docs/parse.c built against the CLI's library
  --fix     rewrite layers.md's generated block instead of failing on it
Prints one "ok"/"not ok" line per check, ends "docs: N passed, N failed".
"""
import contextlib
import glob
import io
import os
import re
import shlex
import subprocess
import sys

README_MAX = 350
HELP_MAX = 45
WIDTH = 79
DESC_COL = 26            # where --help's descriptions start
# Targets of a kernel tree's Makefile that the documents name (make -C ...).
KERNEL_TARGETS = {"dt_binding_check", "modules_prepare", "modules", "modules_install",
                  "olddefconfig", "defconfig", "menuconfig", "M"}

passed = failed = 0


def result(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"not ok - {name}")
        for line in str(detail).splitlines()[:40]:
            print(f"#   {line}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


# ---- the documents ----

def markdown_files(top):
    files = [os.path.join(top, "README.md"), os.path.join(top, "dts-overlays/README.md")]
    files += sorted(glob.glob(os.path.join(top, "docs/**/*.md"), recursive=True))
    return files


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"`", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        names = set()
        in_fence = False
        for line in read(path).splitlines():
            if line.startswith("```"):
                in_fence = not in_fence
            if in_fence:
                continue
            m = re.match(r"#{1,6} (.*)", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                names.add(base if n == 0 else f"{base}-{n}")
        cache[path] = names
    return cache[path]


def code_texts(text, inline=r"`(sudo [^`]+)`"):
    """The document's code: fenced and indented blocks (a line each,
    continuations joined) and inline code spans."""
    out = []
    in_fence = False
    pending = ""
    for line in text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        block = in_fence or re.match(r"( {4,}|\t)\S", line)
        if block:
            body = line.strip()
            if body.endswith("\\"):
                pending += body[:-1] + " "
                continue
            out.append(pending + body)
            pending = ""
            continue
        pending = ""
        # inline code that is a whole command (sudo ...: a mode's name in
        # prose, `latscope --monitor`, is no example); a table's \| is a |
        for span in re.findall(inline, line):
            out.append(span.replace("\\|", "|"))
    return out


def latscope_commands(texts, program="latscope"):
    """`latscope ...` (@program's) command lines among code texts, as argv
    lists."""
    cmds = []
    for t in texts:
        t = t.strip()
        t = re.sub(r"^(\$|#) ", "", t)
        for part in re.split(r"\s(?:&&|\|\||;|\|)\s", t):
            part = part.strip()
            part = re.sub(r"^sudo (-\w+ )*", "", part)
            if not re.match(re.escape(program) + r"( |$)", part):
                continue
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                continue
            # a redirection, or & (in the background), ends the command
            for i, w in enumerate(words):
                if re.match(r"^\d?[<>]", w) or w == "&":
                    words = words[:i]
                    break
            cmds.append(words)
    return cmds


def help_commands(text):
    """The example lines of --help's pages: '  latscope ...', a trailing
    backslash continues on the next line."""
    cmds, pending = [], None
    for line in text.splitlines():
        s = line.strip()
        if pending is not None:
            pending += " " + s.rstrip("\\").strip()
            if not s.endswith("\\"):
                cmds.append(pending)
                pending = None
            continue
        if re.match(r"  latscope( |$)", line):
            s = re.sub(r"\s{2,}\(.*\)$", "", s)     # "   (on each kernel)"
            if s.endswith("\\"):
                pending = s[:-1].strip()
            else:
                cmds.append(s)
    out = []
    for c in cmds:
        try:
            out.append(shlex.split(c))
        except ValueError:
            out.append(["latscope", "--unparsable-example", c])
    return out


def man_commands(text):
    """The man page's `.B latscope ...` lines, roff escapes undone."""
    cmds = []
    text = text.split('.SH EXAMPLES', 1)[-1].split('\n.SH ', 1)[0]
    for line in text.splitlines():
        if not line.startswith(".B latscope ") and line != ".B latscope":
            continue
        s = line[3:]
        s = s.replace("\\%", "").replace("\\ ", " ").replace("\\-", "-")
        s = re.sub(r"\\f[BIRP]", "", s)
        cmds.append(shlex.split(s))
    return cmds


# ---- the wiring ----

def overlay_roles(top):
    """{(board, option): gpio} from the overlays' *-gpios properties."""
    roles = {}
    props = {"pulse-in-gpios": "-I", "ack-out-gpios": "-O",
             "pulse-out-gpios": "--pulse-out", "ack-in-gpios": "--ack-in"}
    for name, board in (("latscope-gpio-overlay.dts", "under test"),
                        ("latscope-monitor-overlay.dts", "monitor")):
        for prop, n in re.findall(r"([a-z-]+-gpios) = <&gpio (\d+) ",
                                  read(os.path.join(top, "dts-overlays", name))):
            if prop in props:
                roles[(board, props[prop])] = int(n)
    return roles


def wiring_table(top):
    """{(board, option): gpio} and the overlay each row names, from gpio.md."""
    rows = {}
    text = read(os.path.join(top, "docs/guide/gpio.md"))
    if "## The wiring" not in text:
        return rows
    sect = text.split("## The wiring", 1)[1].split("\n## ", 1)[0]
    for line in sect.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[3].isdigit():
            rows[(cells[0], cells[2].strip("`"))] = (int(cells[3]), cells[5])
    return rows


def gpio_lines(argv):
    """[(option, chip, offset)] that a command gives."""
    out = []
    names = {"-I": "-I", "--gpio-in": "-I", "-O": "-O", "--gpio-out": "-O",
             "--pulse-out": "--pulse-out", "--ack-in": "--ack-in"}
    i = 0
    while i < len(argv):
        w = argv[i]
        opt, val = w, None
        if w.startswith("--") and "=" in w:
            opt, val = w.split("=", 1)
        elif opt in names and i + 1 < len(argv):
            val = argv[i + 1]
            i += 1
        if opt in names and val:
            parts = val.split(",")
            if len(parts) >= 2 and parts[1].isdigit():
                out.append((names[opt], parts[0], int(parts[1])))
        i += 1
    return out


def main():
    top, latscope, parse = sys.argv[1:4]
    fix = "--fix" in sys.argv[4:]
    readme = os.path.join(top, "README.md")
    man = read(os.path.join(top, "userspace/latscope.1"))

    # ---- budgets ----
    n = len(read(readme).splitlines())
    result(n <= README_MAX, f"README.md: {n} lines, at most {README_MAX}")
    main_page = run([latscope, "--help"]).stdout
    n = len(main_page.splitlines())
    result(n <= HELP_MAX, f"latscope --help: {n} lines, at most {HELP_MAX}")

    # ---- the --help pages ----
    pages = re.findall(r"^  --help=(\w+) ", main_page, re.M)
    result(len(pages) >= 7, "latscope --help: one line per mode page", pages)
    texts = {"--help": main_page}
    for p in pages + ["all"]:
        r = run([latscope, f"--help={p}"])
        result(r.returncode == 0 and r.stdout, f"latscope --help={p}: exit 0, a page",
               r.stderr)
        texts[f"--help={p}"] = r.stdout
    r = run([latscope, "--help=bogus"])
    missing = [p for p in pages + ["all"] if not re.search(rf"\b{p}\b", r.stderr)]
    result(r.returncode == 2 and not missing,
           "latscope --help=bogus: exit 2, naming every page",
           f"exit {r.returncode}; missing {missing}: {r.stderr}")
    comp = read(os.path.join(top, "userspace/latscope.bash-completion"))
    m = re.search(r"\t--help\)\n[^\n]*compgen -W '([^']*)'", comp)
    words = m.group(1).split() if m else []
    result(words == pages + ["all"], "bash completion: --help= completes every page",
           f"completion {words}, --help {pages + ['all']}")
    entry = man.split(".BR \\-\\-help [=", 1)[1].split(".TP", 1)[0]
    missing = [p for p in pages + ["all"] if not re.search(rf"^\.BR? {p}\b", entry, re.M)]
    result(not missing, "latscope.1: the --help entry names every page", missing)
    # --help's option rows and the man page's entries against the parser's table
    table = set(re.findall(r'^\t\{ "([a-z-]+)", ', read(os.path.join(
        top, "userspace/cli/options.c")), re.M))
    rows, mentioned = set(), set()
    for text in texts.values():
        rows |= set(re.findall(r"^  (?:-\w[ ,] ?|   |)--([a-z][\w-]*)", text, re.M))
        mentioned |= set(re.findall(r"--([a-z][a-z-]*[a-z])", text))
    unknown = sorted(r for r in rows if r not in table and not r.startswith("help"))
    result(table and not unknown, "--help pages: every option row is an option of "
           "cli/options.c's table", unknown)
    missing = sorted(table - mentioned)
    result(not missing, "--help pages: every option of cli/options.c's table is shown",
           missing)
    entries = set()
    for entry in re.findall(r"^\.TP\n(\.B[RI]? \\-.*)$", man, re.M):
        entries |= set(re.findall(r"\\-\\-((?:[a-z]|\\-)+)", entry))
    entries = {e.replace("\\-", "-").rstrip("-") for e in entries}
    result(not (entries - table) and not (table - entries),
           "latscope.1: an entry for every option of cli/options.c's table, and no other",
           f"not in the table: {sorted(entries - table)}; no entry: {sorted(table - entries)}")

    too_long, misaligned = [], []
    for name, text in texts.items():
        in_options = False      # the line before was an option's, or its continuation
        for line in text.splitlines():
            if len(line) > WIDTH:
                too_long.append(f"{name}: {len(line)}: {line}")
            opt = re.match(r"^  (-\w[ ,] ?|   |)--[\w-]+\S*( +)(\S)", line)
            if opt and opt.end(2) != DESC_COL:
                misaligned.append(f"{name}: column {opt.end(2) + 1}: {line}")
            cont = re.match(r"^( {6,})(\S)", line)
            if cont and in_options and len(cont.group(1)) != DESC_COL:
                misaligned.append(f"{name}: column {len(cont.group(1)) + 1}: {line}")
            in_options = bool(re.match(r"^  (-\w[ ,] ?|   |)--[\w-]", line)) or \
                bool(in_options and cont)
    result(not too_long, f"--help pages: every line at most {WIDTH} columns",
           "\n".join(too_long))
    result(not misaligned, f"--help pages: descriptions at column {DESC_COL + 1}",
           "\n".join(misaligned))

    # ---- every kind of line the CLI prints has its OUTPUT entry ----
    kinds = set()
    for c in glob.glob(os.path.join(top, "userspace/**/*.c"), recursive=True):
        kinds |= set(re.findall(r'"([A-Z]{3,4}|---)\|', read(c)))
    output = man.split(".SH OUTPUT", 1)[-1].split("\n.SH ", 1)[0]
    listed = set()
    for line in re.findall(r"^\.BR? .*$", output, re.M):
        listed |= set(re.findall(r"([A-Z]{3,4}|---)\|", line))
    result(len(kinds) >= 10 and not (kinds - listed),
           "latscope.1: an OUTPUT entry for every kind of line the CLI prints",
           f"printed {sorted(kinds)}; no entry: {sorted(kinds - listed)}")

    # ---- links and anchors ----
    broken = []
    for md in markdown_files(top):
        text = read(md)
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            rel = os.path.relpath(md, top)
            if not os.path.exists(dest):
                broken.append(f"{rel}: {target}: no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                broken.append(f"{rel}: {target}: no such heading")
    result(not broken, "README, docs/, dts-overlays/README.md: every relative link and "
           "#anchor found", "\n".join(broken))

    # ---- cli.md names every userspace folder and file ----
    cli_md = read(os.path.join(top, "docs/design/cli.md"))
    named = set(re.findall(r"`([\w./\[\]-]+)`", cli_md))
    expanded = set()
    for w in named:
        w = w.rstrip("/").split("/")[-1] if "/" in w.rstrip("/") else w
        if w.endswith(".[ch]"):
            expanded |= {w[:-4] + "c", w[:-4] + "h"}
        expanded.add(w)
    missing = []
    for d in sorted(os.listdir(os.path.join(top, "userspace"))):
        full = os.path.join(top, "userspace", d)
        if not os.path.isdir(full) or d.startswith("."):
            continue
        if f"{d}/" not in named:
            missing.append(f"folder {d}/")
        for f in sorted(os.listdir(full)):
            if re.search(r"\.(c|h|py)$", f) and f not in expanded:
                missing.append(f"{d}/{f}")
    result(not missing, "docs/design/cli.md: names every userspace folder and file",
           "\n".join(missing))

    # ---- layers.md's figures are what layers.py prints ----
    layers_md = os.path.join(top, "docs/design/layers.md")
    out = run([sys.executable, os.path.join(top, "scripts/layers.py"), "--root", top]).stdout
    text = read(layers_md)
    begin, end = "<!-- generated: python3 scripts/layers.py -->", "<!-- end generated -->"
    want = f"{begin}\n```\n$ python3 scripts/layers.py\n{out}```\n{end}"
    m = re.search(re.escape(begin) + r".*?" + re.escape(end), text, re.S)
    if fix and m:
        with open(layers_md, "w", encoding="utf-8") as f:
            f.write(text[:m.start()] + want + text[m.end():])
        m = re.search(re.escape(begin) + r".*?" + re.escape(end), read(layers_md), re.S)
        text = read(layers_md)
    result(m is not None and m.group(0) == want,
           "docs/design/layers.md: its figures are what scripts/layers.py prints "
           "(tests/docs/run.sh --fix writes them)",
           "no generated block" if not m else f"layers.py prints:\n{out}")

    # ---- the wiring table against the overlays ----
    overlays = overlay_roles(top)
    table = wiring_table(top)
    wrong = []
    for key, gpio in overlays.items():
        if key not in table or table[key][0] != gpio:
            wrong.append(f"{key}: overlay {gpio}, gpio.md {table.get(key)}")
    for key, (gpio, by) in table.items():
        if "overlay" in by and not by.startswith("no") and overlays.get(key) != gpio:
            wrong.append(f"{key}: gpio.md {gpio} ({by}), overlays {overlays.get(key)}")
    result(len(table) >= 6 and not wrong,
           "docs/guide/gpio.md's wiring: every overlay pin, in its role", "\n".join(wrong))

    # ---- every example parsed, on the canonical wiring ----
    examples = []      # (where, argv)
    for md in [readme] + sorted(glob.glob(os.path.join(top, "docs/guide/*.md"))):
        for argv in latscope_commands(code_texts(read(md))):
            examples.append((os.path.relpath(md, top), argv))
    # Parsed too, but records of runs on the test VMs' gpio-sim lines, not
    # on the canonical wiring.
    records = set()
    for md in markdown_files(top):
        rel = os.path.relpath(md, top)
        if rel == "README.md" or rel.startswith("docs/guide/"):
            continue
        for argv in latscope_commands(code_texts(read(md))):
            examples.append((rel, argv))
            records.add(len(examples) - 1)
    for name, text in texts.items():
        if name != "--help=all":
            for argv in help_commands(text):
                examples.append((f"latscope {name}", argv))
    for argv in man_commands(man):
        examples.append(("latscope.1", argv))
    feed = "".join("\t".join(argv) + "\n" for _, argv in examples)
    r = subprocess.run([parse], input=feed, capture_output=True, text=True)
    answers = r.stdout.splitlines()
    bad, pins = [], []
    for i, (where, argv) in enumerate(examples):
        answer = answers[i] if i < len(answers) else "no answer"
        if answer != "ok":
            bad.append(f"{where}: {shlex.join(argv)}\n  {answer}")
        if i in records:
            continue
        board = "monitor" if "--monitor" in argv else "under test"
        for opt, chip, off in gpio_lines(argv):
            want_pin = table.get((board, opt), (None,))[0]
            if chip == "gpiochip0" and off != want_pin:
                pins.append(f"{where}: {shlex.join(argv)}\n  {opt} {chip},{off}: "
                            f"the {board} board's {opt} is GPIO{want_pin}")
    counts = {}
    for where, _ in examples:
        counts[where] = counts.get(where, 0) + 1
    print("# examples: " + ", ".join(f"{w} {c}" for w, c in counts.items()))
    result(not bad, f"every example parsed by the CLI's parser ({len(examples)} command lines)",
           "\n".join(bad))
    result(not pins, "every example's GPIO lines on the wiring of docs/guide/gpio.md",
           "\n".join(pins))

    # ---- every latscope-report example parsed by its own parser ----
    sys.path.insert(0, os.path.join(top, "userspace", "report"))
    sys.dont_write_bytecode = True
    from latscope_report.report_main import parser as report_parser
    bad, n = [], 0
    for md in [readme] + markdown_files(top):
        for argv in latscope_commands(code_texts(read(md)), "latscope-report"):
            n += 1
            try:
                with contextlib.redirect_stderr(io.StringIO()) as err:
                    report_parser().parse_args(argv[1:])
            except SystemExit:
                bad.append(f"{os.path.relpath(md, top)}: {shlex.join(argv)}\n  "
                           f"{err.getvalue().strip()}")
    result(n > 0 and not bad, f"every latscope-report example parsed by its parser ({n})",
           "\n".join(bad))

    # ---- the peers' options the guide says latscope refuses are refused ----
    guide = read(os.path.join(top, "docs/guide/latmus-and-cyclictest.md"))
    said = ""
    m = re.search(r"latscope refuses, naming its own way, (.*?)for\s+example:", guide, re.S)
    said += m.group(1) if m else ""
    m = re.search(r"Other options it does not have \((.*?)\)\s+are refused", guide, re.S)
    said += m.group(1) if m else ""
    refused = re.findall(r"`(--?[A-Za-z][\w-]*)`", said)
    feed = "".join(f"latscope\t{o}\n" for o in refused)
    answers = subprocess.run([parse], input=feed, capture_output=True, text=True).stdout
    taken = [f"{o}: {a}" for o, a in zip(refused, answers.splitlines())
             if not a.startswith("error: option") or "is unknown" not in a]
    result(len(refused) >= 10 and not taken,
           f"latmus-and-cyclictest.md: the {len(refused)} options it says latscope refuses "
           "are refused as unknown", "\n".join(taken) or refused)

    # ---- make without kernel headers: the CLI first, then how to get the module ----
    r = run(["make", "-C", top, "KDIR=/nonexistent/kernel/build"])
    out = r.stdout + r.stderr
    result(r.returncode != 0 and "No kernel build tree at /nonexistent/kernel/build" in out
           and "make cli" in out and out.find("userspace") < out.find("No kernel build tree"),
           "make without kernel headers: builds the CLI first, then names make cli", out[-600:])

    # ---- make help lists every target the documents name ----
    make_help = run(["make", "-s", "-C", top, "help"]).stdout
    listed = set(re.findall(r"[a-z][\w-]*", make_help))
    named = {}
    for md in markdown_files(top):
        for t in code_texts(read(md), r"`([^`]+)`"):
            for word in re.findall(r"(?:^|[\s(])make ([a-z][\w-]*)", t):
                if word not in KERNEL_TARGETS:
                    named.setdefault(word, os.path.relpath(md, top))
    missing = [f"make {t} ({where})" for t, where in sorted(named.items()) if t not in listed]
    result(not missing, f"make help: lists every make target the documents name "
           f"({len(named)})", "\n".join(missing))

    # ---- README names every --help page ----
    modes = read(readme).split("\n## Modes", 1)[-1].split("\n## ", 1)[0]
    missing = [p for p in pages + ["all"] if f"`{p}`" not in modes]
    result(not missing, "README.md: its Modes section names every --help page", missing)

    # ---- README's Contents line names every section ----
    text = read(readme)
    contents = text.split("\nContents:", 1)[1].split("\n\n", 1)[0] if "\nContents:" in text else ""
    listed = set(re.findall(r"\]\(#([\w-]+)\)", contents))
    sections = [slug(h) for h in re.findall(r"^## (.*)$", text, re.M)]
    missing = [h for h in sections if h not in listed]
    result(contents and not missing, "README.md: its Contents line names every section", missing)

    # ---- README's exit statuses ----
    codes = re.findall(r"LS_EXIT_\w+\s*= (\d+)", read(os.path.join(top, "userspace/core/core.h")))
    for doc in ("README.md", "docs/guide/reading-the-output.md"):
        table_codes = set(re.findall(r"^\| (\d+) \|", read(os.path.join(top, doc)), re.M))
        missing = [c for c in codes if c not in table_codes]
        result(codes and not missing, f"{doc}: every exit status in its table", missing)
    status = man.split('.SH "EXIT STATUS"', 1)[-1].split("\n.SH ", 1)[0]
    missing = [c for c in codes if not re.search(rf"^\.B {c}$", status, re.M)]
    result(codes and not missing, "latscope.1: every exit status in EXIT STATUS", missing)

    print(f"docs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
