# SPDX-License-Identifier: GPL-2.0
"""latscope-evt: an extreme-value bound of a latscope run's worst case.

usage: latscope-evt [--confidence 0.95] [--cli] FILE.json|-

Reads the JSON `latscope --json` wrote (or a checkpoint of it; "-" for
standard input) and estimates from its timeline's block maxima the latency
some sample of a minute, an hour and a day of the same load exceeds with
probability 1e-3, each with an upper confidence bound; or says why it
gives none (the run too short, its load not steady, its maxima not of one
extreme-value law) and what would help. How: evt.py's docstring.

Without --cli, prints the result as indented JSON. With --cli, prints two
lines for latscope itself: the "EVT| " line, then the result as one line
of JSON. Exits 0 with a result (a refusal is one), or when the reader of
its output went away (| head); 2 on bad input; 3 when numpy or scipy
cannot be loaded (a line names the Debian package to install).
"""

import argparse
import json
import os
import sys

from .debian import missing_module


def load_evt():
    """evt.py, or exits 3 naming the Debian package that brings the
    library it could not import (numpy, scipy). Loaded only once the
    input is read: bad input is said (exit 2) on a board without them."""
    try:
        from . import evt
    except ImportError as e:
        print(f"latscope-evt: {missing_module(e)}", file=sys.stderr)
        sys.exit(3)
    return evt


def fail(message):
    """Exits 2 with one line on standard error."""
    print(f"latscope-evt: {message}", file=sys.stderr)
    sys.exit(2)


def read_doc(path):
    """The JSON document at path ("-": standard input), or exits 2 with one
    line saying what is wrong with it."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"{path}: not text, not a latscope JSON file")
    name = "standard input" if path == "-" else path
    try:
        doc = json.loads(text)
    except ValueError as e:
        fail(f"{name}: not JSON ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("timeline"), dict) \
            or not isinstance(doc["timeline"].get("points"), list):
        fail(f"{name}: no timeline: not a latscope --json result")
    return doc


def main():
    """Parses the options, estimates, prints."""
    ap = argparse.ArgumentParser(
        prog="latscope-evt", description="An extreme-value bound of a latscope run's worst case.")
    ap.add_argument("--confidence", type=float, default=0.95,
                    help="of the upper bounds, between 0.5 and 1 (default 0.95)")
    ap.add_argument("--cli", action="store_true",
                    help="print the EVT| line and the result as one line of JSON")
    ap.add_argument("file", metavar="FILE.json|-")
    args = ap.parse_args()
    if not 0.5 < args.confidence < 1:
        fail("--confidence must be between 0.5 and 1")
    doc = read_doc(args.file)
    evt = load_evt()
    try:
        result = evt.estimate(doc, args.confidence)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        fail(f"{args.file}: a timeline point is malformed ({e!r})")
    if args.cli:
        print(evt.line(result))
        print(json.dumps(result, separators=(",", ":"), allow_nan=False))
    else:
        print(json.dumps(result, indent=1, allow_nan=False))


def run():
    """main(), and a reader that went away taken as the end of the job."""
    try:
        main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (| head): it had what it wanted. No
        # traceback, and status 0, as for any filter whose reader stopped.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
