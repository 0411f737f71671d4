#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The profile of a survey, or the comparison of two, checked against the
survey's own files: every figure the page shows is its JSON files', every
phase its survey.txt's, every factor its setup phase's; and the HTML page
is self-contained (no script, every image a data: URI, nothing fetched).
Raises (exit 1, the assertion's message) at the first that is not.

usage: check_profile.py profile DIR
       check_profile.py compare OUT DIR_A DIR_B"""

import html.parser
import json
import os
import re
import sys


def table(md, heading):
    """The first table under "## HEADING" of @md: its rows, a dict per row."""
    part = md.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [l for l in part.splitlines() if l.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip().replace("\\|", "|") for c in l.strip("|").split(" | "))))
            for l in lines[1:]]


def outcomes(d):
    """survey.txt's phases and their outcomes."""
    text = open(f"{d}/survey.txt", encoding="utf-8").read().split("\nOutcome:\n")[1]
    return [tuple(re.split(r"  +", l.strip(), maxsplit=1)) for l in text.splitlines() if l.strip()]


def runs(d):
    """The survey's timer runs' JSON documents that ran, by phase."""
    out = {}
    for phase, outcome in outcomes(d):
        path = f"{d}/{phase}.json"
        if not phase.endswith(("-setup", "-cost")) and os.path.isfile(path):
            out[phase] = json.load(open(path, encoding="utf-8"))
    return out


def load_of(doc):
    return "quiet" if doc.get("stress", {}).get("name", "none") == "none" else doc["stress"]["name"]


class Page(html.parser.HTMLParser):
    """What the HTML page holds that could fetch or run something."""

    def __init__(self):
        super().__init__()
        self.images, self.scripts, self.outside = [], 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "img":
            self.images.append(a.get("src", ""))
        for k in ("src", "href"):
            v = a.get(k) or ""
            if v and not v.startswith(("data:image/png;base64,", "#")):
                self.outside.append(v[:80])


def check_html(path, md):
    """The HTML page is whole and self-contained, an image per Markdown image."""
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    assert p.scripts == 0, f"{path}: a script"
    assert not p.outside, f"{path}: refers outside itself: {p.outside}"
    assert len(p.images) == md.count("\n![") and p.images, (path, len(p.images))


def check_profile(d):
    md = open(f"{d}/profile/profile.md", encoding="utf-8").read()
    docs = runs(d)
    assert docs, "no run"
    # The survey's phases and outcomes, as survey.txt says them.
    said = [(r["phase"], r["outcome"]) for r in table(md, "The survey")]
    assert said == outcomes(d), (said, outcomes(d))
    # Each run's row: its JSON's figures.
    rows = table(md, "How late")
    assert [r["run"] for r in rows] == list(docs), (rows, list(docs))
    for r in rows:
        t = docs[r["run"]]["total"]
        assert int(r["samples"]) == t["samples"], r
        for k in ("min", "avg", "max"):
            assert r[k] == f"{t[k]:.3f}", (r, k, t[k])
        assert r["context"] == docs[r["run"]]["settings"]["context"], r
        assert r["load"] == load_of(docs[r["run"]]), r
    # The summary: the worst of all, and each context under each load.
    phase, top = max(((p, d["total"]["max"]) for p, d in docs.items()), key=lambda x: x[1])
    assert f"**{top:.3f} µs**, in {phase} " in md, ("worst", phase, top)
    for r in table(md, "Summary"):
        for load, cell in r.items():
            if load == "context" or cell == "-":
                continue
            doc = next(x for p, x in docs.items() if p.split("-", 1)[1] == f'{r["context"]}-{load}')
            assert cell.split(" ")[0] == f'{doc["total"]["max"]:.3f}', (r, load)
    # The setup verdict: a row per factor of the setup phase's SET| lines.
    phase = next((p for p, _ in outcomes(d) if p.endswith("-setup")), None)
    if phase:
        setup = [l for l in open(f"{d}/{phase}.txt", encoding="utf-8") if
                 re.match(r"SET\| (ok|costs latency|unknown) ", l)]
        assert len(table(md, "The setup verdict")) == len(setup), "setup rows"
    else:
        assert "The setup phase did not run: no verdict." in md, "no setup phase, said"
    check_html(f"{d}/profile/profile.html", md)


def check_compare(out, a, b):
    md = open(f"{out}/compare.md", encoding="utf-8").read()
    da, db = runs(a), runs(b)
    na, nb = os.path.basename(a), os.path.basename(b)
    rows = table(md, "How late")
    words = {p.split("-", 1)[1] for p in list(da) + list(db)}
    assert {r["phase"] for r in rows} == words, (rows, words)
    for r in rows:
        for name, docs in ((na, da), (nb, db)):
            doc = next((x for p, x in docs.items() if p.split("-", 1)[1] == r["phase"]), None)
            want = "-" if doc is None else f'{doc["total"]["max"]:.3f}'
            assert r[f"max {name}"] == want, (r, name, want)
    boards = table(md, "The boards")
    assert [k for k in boards[0] if k] == [na, nb], boards[0]
    check_html(f"{out}/compare.html", md)


if __name__ == "__main__":
    if sys.argv[1:2] == ["profile"] and len(sys.argv) == 3:
        check_profile(sys.argv[2])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 5:
        check_compare(*sys.argv[2:])
    else:
        sys.exit(__doc__.split("usage: ")[1])
