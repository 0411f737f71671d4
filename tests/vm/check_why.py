#!/usr/bin/env python3
"""Checks what the worst-sample recorder said under known noise.

Reads the why-*.json files (and rtla.out) that tests/vm/why_test.sh
wrote in the VM: latscope_noise.ko spun SPIN us on CPU1, in a kthread
(lsnoise/1, preemption off, in latscope_noise_spin) or in an irq handler
("lsnoise"). The worst samples must name that thread or irq, with a time
between half the spin and the longest spin the module timed (noise-*.txt:
under emulation a spin takes longer than set); a run with the noise on another CPU
must not; the recorder must not change the figures grossly; and rtla's
timerlat auto-analysis, where it ran, must name the same blocking thread.

Usage: check_why.py FILES_DIR. Ends with "why: N passed, N failed".
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)

setup(prefix="why: ", always=True)
THREAD = "lsnoise/1"
IRQ = "lsnoise"
SPIN_US = 20000
# How far a time in a record may pass the longest spin the module timed:
# the record's window and the module's clock reads are not the same
# instants.
SLACK_US = 1000


def load(files, name):
    path = os.path.join(files, f"why-{name}.json")
    if not os.path.exists(path):
        check(False, f"{name}: file written", path)
        return None
    with open(path) as f:
        return json.load(f)


def names(record):
    """Every name a record gives: its items' and the interrupted task's."""
    out = [it["name"] for it in record["items"]]
    if record["interrupted"]:
        out.append(record["interrupted"]["comm"])
    return out


def item(record, kind, name):
    for it in record["items"]:
        if it["kind"] == kind and it["name"] == name:
            return it
    return None


def spun(files, kind):
    """The longest spin of KIND (thread, irq) as the noise module timed it,
    in us, or None: under emulation a spin takes longer than it was set."""
    path = os.path.join(files, f"noise-{kind}.txt")
    if not os.path.exists(path):
        check(False, f"noise-{kind}.txt written", path)
        return None
    with open(path) as f:
        return int(f.read().split()[1])


def near(us, spun_us):
    """A time that a spin explains: at least half of what it was set to (a
    window may start mid-spin), at most the longest the module timed."""
    return SPIN_US / 2 <= us <= (spun_us or SPIN_US) + SLACK_US


def stalled(record):
    """A record whose longest item is the CPU idle for longer than a spin:
    the emulator's, not the board's. Its host thread did not run (QEMU's
    single TCG thread shares the host with another VM in make check's
    lanes) while the guest's clock went on; an idle CPU does not hold a
    timer's interrupt for milliseconds."""
    items = record["items"]
    return bool(items) and items[0]["kind"] == "idle" and \
        items[0]["duration_ns"] / 1000 > SPIN_US / 2


def check_blamed(doc, name, kind, who, spin):
    """The worst sample names WHO as what took its time, about the spin
    (SPIN: the longest the module timed); emulator stalls aside."""
    worst = doc["worst"]
    check(doc["why"]["recorder"] and worst, f"{name}: worst samples recorded",
          doc.get("why"))
    if not worst:
        return None
    # A record whose window the flight record lost says so ("cut"): a
    # loaded host delays the recorder; it names nothing.
    board = [r for r in worst if not stalled(r) and "cut" not in r["flags"]]
    for r in worst:
        if stalled(r):
            print(f"# {name}: an emulator stall, not the board's: {r['line']}")
        elif "cut" in r["flags"]:
            print(f"# {name}: a cut record: {r['line']}")
    top = board[0] if board else worst[0]
    it = item(top, kind, who)
    check(it is not None and top["items"][0] is it,
          f"{name}: the worst sample's longest item is {kind} {who}",
          top["line"])
    if it is not None:
        us = it["duration_ns"] / 1000
        check(near(us, spin), f"{name}: {who} took about the spin",
              f"{us:.1f} us, spins {SPIN_US} us set, {spin} us the longest: {top['line']}")
    return top


def check_quiet(doc, name):
    """Noise on CPU0 only: CPU1's records never name it."""
    blamed = [r["line"] for r in doc["worst"]
              if any(n.startswith(IRQ) for n in names(r))]
    check(doc["why"]["recorder"] and doc["worst"] and not blamed,
          f"{name}: noise on another CPU is not named", blamed or doc.get("why"))


def check_cost(files):
    """The recorder does not change what it explains: the average with it
    and without it, interleaved rounds, within a factor of 2 (a gross
    difference; the cost itself is measured by scripts/why-cost.sh)."""
    for r in (1, 2):
        on, off = load(files, f"cost-on-kernel-{r}"), load(files, f"cost-off-kernel-{r}")
        if not on or not off:
            continue
        a, b = on["total"]["avg"], off["total"]["avg"]
        check(on["worst"] and not off["worst"] and not off["why"]["recorder"],
              f"cost round {r}: records with the recorder, none without", "")
        check(b > 0 and 0.5 <= a / b <= 2, f"cost round {r}: average with/without "
              f"within a factor of 2", f"{a:.3f} / {b:.3f} us")


def rtla_blocking(files):
    """The thread rtla's timerlat auto-analysis names as blocking, or None
    if rtla did not run here."""
    path = os.path.join(files, "rtla.out")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    m = re.search(r"Blocking thread:.*\n\s+(\S+):(\d+)", text)
    check(m is not None, "rtla: auto-analysis names a blocking thread", text[-2000:])
    return m.group(1) if m else ""


def main():
    files = sys.argv[1]
    doc = load(files, "quiet-kernel")
    if doc:
        check_quiet(doc, "quiet-kernel")
    check_cost(files)
    thread = spun(files, "thread")
    for ctx in ("kernel", "user"):
        doc = load(files, f"thread-{ctx}")
        if not doc:
            continue
        top = check_blamed(doc, f"thread-{ctx}", "task", THREAD, thread)
        if top is None:
            continue
        it = item(top, "task", THREAD)
        parts = top["parts"]
        # Where the wait shows, in the irq part or the sched part, is the
        # emulator's: under TCG a spinning vCPU may take the timer late.
        check(it is not None and near(it["blocking_ns"] / 1000, thread) and
              parts["irq_ns"] is not None and parts["sched_ns"] is not None and
              near((parts["irq_ns"] + parts["sched_ns"]) / 1000, thread + SLACK_US),
              f"thread-{ctx}: the answer waited for it, about the spin",
              top["line"])
        where = [r["interrupted"]["where"] or "" for r in doc["worst"]
                 if r["interrupted"] and r["interrupted"]["comm"] == THREAD]
        check(any(w.startswith("latscope_noise_spin+") for w in where),
              f"thread-{ctx}: the event interrupted lsnoise/1 in latscope_noise_spin",
              where or top["line"])
    irq = spun(files, "irq")
    for ctx in ("irq", "kernel"):
        doc = load(files, f"irq-{ctx}")
        if doc:
            check_blamed(doc, f"irq-{ctx}", "irq", IRQ, irq)
    blocking = rtla_blocking(files)
    if blocking is not None:
        doc = load(files, "thread-kernel")
        ours = doc["worst"][0]["items"][0]["name"] if doc and doc["worst"] and \
            doc["worst"][0]["items"] else None
        check(blocking == THREAD and ours == THREAD,
              "rtla and latscope name the same blocking thread",
              f"rtla {blocking}, latscope {ours}")
    else:
        print("# why: no rtla output (no timerlat tracer): not compared")
    return summary("why")


if __name__ == "__main__":
    sys.exit(main())
