#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes compile_commands.json for clangd: every userspace/ source as
userspace/Makefile compiles it (from `make -n -B`), and every driver/
object Kbuild has built (from its .*.o.cmd files: run `make module`
first, else the driver is left out and said so on stderr).

Usage: scripts/compile-commands.py [OUT]   (OUT: compile_commands.json)
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def userspace():
    """The cc lines make would run for the CLI and its library."""
    us = os.path.join(TOP, "userspace")
    out = subprocess.run(["make", "-s", "-n", "-B", "-C", us, "latscope"],
                         capture_output=True, text=True, check=True).stdout
    entries = []
    for line in out.splitlines():
        args = shlex.split(line)
        if "-c" not in args or not args[-1].endswith(".c"):
            continue
        entries.append({"directory": us, "arguments": args,
                        "file": os.path.join(us, args[-1])})
    return entries


def driver():
    """Kbuild's saved command of each driver object it built."""
    entries = []
    for cmd in sorted(glob.glob(os.path.join(TOP, "driver", "**", ".*.o.cmd"),
                                recursive=True)):
        with open(cmd) as f:
            m = re.search(r"^(?:saved)?cmd_\S+ := (.*)$", f.read(), re.M)
        if not m:
            continue
        args = shlex.split(m.group(1).split(";")[0])
        src = [a for a in args if a.endswith(".c")]
        kdir = next((a[len("-I"):].rsplit("/arch/", 1)[0] for a in args
                     if a.startswith("-I") and "/arch/" in a), TOP)
        if src and args and args[0] != ":":
            entries.append({"directory": kdir, "arguments": args,
                            "file": os.path.normpath(os.path.join(kdir, src[-1]))})
    if not entries:
        print("compile-commands: no driver object built yet (make module): "
              "the driver is left out", file=sys.stderr)
    return entries


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "compile_commands.json")
    entries = userspace() + driver()
    with open(out, "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    print(f"compile-commands: {len(entries)} entries in {out}")


if __name__ == "__main__":
    main()
