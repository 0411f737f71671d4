# SPDX-License-Identifier: GPL-2.0
"""A survey's directory as `latscope --survey DIR` leaves it
(docs/guide/survey.md), read: its command and plan and each phase's
outcome (survey.txt), the board (system.txt), the setup verdict (the
setup phase's SET| lines) and the JSON files of the phases that ran.
Nothing here writes."""

import errno
import os
import re
import stat

from .runs import BadRun

# A phase's name: its number and its words ("02-user-quiet", "14-cost").
PHASE = re.compile(r"^  (\d\d-[a-z-]+) +(.*)$")
# The outcomes survey.txt says of a phase that made files.
RAN = ("done", "failed", "interrupted")


def read_bytes(path, limit, follow=False):
    """The bytes of the regular file at @path, at most @limit of them, or
    None when it is not there; a symlink (unless @follow), a FIFO, a
    directory or a larger file is refused (BadRun): opened once, without
    blocking, and checked on its descriptor."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise BadRun(f"{path}: {e.strerror}") from e
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadRun(f"{path}: not a regular file")
        if st.st_size > limit:
            raise BadRun(f"{path}: {st.st_size} bytes, more than the {limit} a survey's file has")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise BadRun(f"{path}: more than the {limit} bytes a survey's file has")
    return data


def read_text(top, name, limit=1 << 20):
    """The text of @top/@name, a regular file (read_bytes()), as UTF-8;
    None when it is not there."""
    data = read_bytes(os.path.join(top, name), limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def printable(name):
    """A name from the command line or a directory, as text that can be
    written: bytes that are not UTF-8 as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
            if any(p == m.group(1) for p, _ in outcomes):
                raise BadRun(f"{path}: phase {m.group(1)} twice under \"Outcome:\"")
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
        self.name = printable(os.path.basename(os.path.abspath(path)))
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
        self.files, self.cost_files, self.missing = [], [], []
        for phase, outcome in self.outcomes:
            name = os.path.join(path, f"{phase}.json")
            if outcome_word(outcome) not in RAN or phase == setup:
                continue
            if not os.path.isfile(name) or os.path.islink(name):
                self.missing.append(f"{self.name}: {phase} left out: survey.txt says "
                                    f"\"{outcome_word(outcome)}\" but {phase}.json is not "
                                    "there, or not a regular file")
                continue
            (self.cost_files if phase.endswith("-cost") else self.files).append((phase, name))

    def open_profile(self):
        """The survey's profile/ directory, opened (O_PATH), made if it is
        not there, for the profile to be written into through it: the
        survey's directory must be this user's and writable by no one else
        (its profile/ could otherwise be someone else's symlink to
        anywhere), and so must profile/; checked on the descriptors, so
        that a directory renamed or replaced meanwhile leads nowhere else.
        BadRun when it may not."""
        flags = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            top = os.open(self.path, flags)
        except OSError as e:
            raise BadRun(f"{self.path}: {e.strerror}") from e
        try:
            self.check_ours(top, self.path)
            try:
                os.mkdir("profile", 0o755, dir_fd=top)
            except FileExistsError:
                pass
            try:
                fd = os.open("profile", flags, dir_fd=top)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise BadRun(f"{self.path}: its profile is a symlink or not a directory: "
                                 "give -o DIR for the profile") from e
                raise BadRun(f"{self.path}/profile: {e.strerror}") from e
            try:
                self.check_ours(fd, f"{self.path}/profile")
            except BadRun:
                os.close(fd)
                raise
            return fd
        except OSError as e:
            raise BadRun(f"{self.path}/profile: {e.strerror}") from e
        finally:
            os.close(top)

    @staticmethod
    def check_ours(fd, path):
        """BadRun unless the directory @fd is this user's and writable by
        no one else."""
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise BadRun(f"{path}: not this user's, or writable by others (mode "
                         f"{st.st_mode & 0o7777:04o}): give -o DIR for the profile")

    def system_value(self, key):
        """system.txt's value of @key, or "unknown"."""
        return next((v for k, v in self.system if k == key), "unknown")

    def outcome_of(self, phase):
        """survey.txt's outcome of @phase, or None."""
        return next((o for p, o in self.outcomes if p == phase), None)
