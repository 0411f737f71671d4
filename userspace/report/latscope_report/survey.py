# SPDX-License-Identifier: GPL-2.0
"""A survey's directory as `latscope --survey DIR` leaves it
(docs/guide/survey.md), read: its command and plan and each phase's
outcome (survey.txt), the board (system.txt), the setup verdict (the
setup phase's SET| lines) and the JSON files of the phases that ran.
Nothing here writes."""

import os
import re

from .runs import BadRun

# A phase's name: its number and its words ("02-user-quiet", "14-cost").
PHASE = re.compile(r"^  (\d\d-[a-z-]+) +(.*)$")
# The outcomes survey.txt says of a phase that made files.
RAN = ("done", "failed", "interrupted")


def read_text(top, name, limit=1 << 20):
    """The text of @top/@name, a regular file (a symlink is not followed),
    at most @limit bytes; None when it is not there."""
    try:
        fd = os.open(os.path.join(top, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise BadRun(f"{os.path.join(top, name)}: {e.strerror}") from e
    with os.fdopen(fd, "rb") as f:
        if not os.path.isfile(f"/proc/self/fd/{f.fileno()}"):
            raise BadRun(f"{os.path.join(top, name)}: not a regular file")
        return f.read(limit).decode("utf-8", errors="replace")


def is_survey(path):
    """Whether @path is a survey's directory: one holding survey.txt."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, "survey.txt"))


def outcome_word(outcome):
    """"done", "failed", "interrupted" or "not run" of an outcome's text."""
    for word in RAN + ("not run",):
        if outcome.startswith(word):
            return word
    return "?"


def parse_survey_txt(path, text):
    """survey.txt's parts: the command, the settings line, the plan's lines
    and the phases' outcomes [(name, outcome text)], in order."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("latscope survey, "):
        raise BadRun(f"{path}: not a survey's survey.txt (its first line is not "
                     "\"latscope survey, ...\")")
    command = lines[0][len("latscope survey, "):]
    settings = next((l[len("settings: "):] for l in lines if l.startswith("settings: ")), "")
    if "Outcome:" not in lines:
        raise BadRun(f"{path}: no \"Outcome:\" line: not a survey's survey.txt")
    at = lines.index("Outcome:")
    plan = [l for l in lines[2:at] if l.strip()]
    outcomes = []
    for l in lines[at + 1:]:
        m = PHASE.match(l)
        if m:
            outcomes.append((m.group(1), m.group(2)))
    if not outcomes:
        raise BadRun(f"{path}: no phase under \"Outcome:\"")
    return command, settings, plan, outcomes


def parse_system(text):
    """system.txt's "key: value" lines, in order."""
    out = []
    for line in (text or "").splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            out.append((key, value))
    return out


def parse_setup(text):
    """The setup phase's SET| lines: [(verdict, factor, this board, fix)],
    and its summary lines (the count of factors that cost latency)."""
    rows, summary = [], []
    for line in (text or "").splitlines():
        if not line.startswith("SET| "):
            continue
        verdict = line[5:18].strip()
        if verdict in ("ok", "costs latency", "unknown") and len(line) > 59:
            rest = line[19:]
            factor, value = rest[:39].strip(), rest[39:].strip()
            value, _, fix = value.partition(" | fix: ")
            rows.append((verdict, factor, value, fix))
        else:
            summary.append(line[5:])
    return rows, summary


class Survey:
    """One survey's directory, read (the module's docstring): .path, .name
    (its directory's name), .command, .settings, .plan (lines), .outcomes
    [(phase, outcome)], .system [(key, value)], .setup (rows) and
    .setup_summary, .files: the JSON files of the phases that ran, as
    (phase, path), the cost suite's apart (.cost_files)."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(os.path.abspath(path))
        text = read_text(path, "survey.txt")
        if text is None:
            raise BadRun(f"{path}: no survey.txt: not a survey's directory "
                         "(latscope --survey DIR writes one)")
        self.command, self.settings, self.plan, self.outcomes = \
            parse_survey_txt(os.path.join(path, "survey.txt"), text)
        self.system = parse_system(read_text(path, "system.txt"))
        setup = next((p for p, _ in self.outcomes if p.endswith("-setup")), None)
        self.setup, self.setup_summary = parse_setup(
            read_text(path, f"{setup}.txt") if setup else None)
        self.setup_phase = setup
        self.files, self.cost_files = [], []
        for phase, outcome in self.outcomes:
            name = os.path.join(path, f"{phase}.json")
            if outcome_word(outcome) not in RAN or not os.path.isfile(name) or \
                    os.path.islink(name):
                continue
            (self.cost_files if phase.endswith("-cost") else self.files).append((phase, name))

    def not_ours(self):
        """Why the profile may not go into this survey's profile/: the
        directory is another user's or others can write it (its profile/
        could be their symlink to anywhere), or profile/ is a symlink;
        None when it may."""
        st = os.lstat(self.path)
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            return (f"not this user's, or writable by others (mode "
                    f"{st.st_mode & 0o7777:04o})")
        if os.path.islink(os.path.join(self.path, "profile")):
            return "its profile is a symlink"
        return None

    def system_value(self, key):
        """system.txt's value of @key, or "unknown"."""
        return next((v for k, v in self.system if k == key), "unknown")

    def outcome_of(self, phase):
        """survey.txt's outcome of @phase, or None."""
        return next((o for p, o in self.outcomes if p == phase), None)
