#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fake roots for latscope --check-setup (LATSCOPE_ROOT), and the checks of
what it prints about them.

A board is a dict (good_board(): every factor ok for a run on CPU1 of a
two-CPU board); a variant changes one thing of it (VARIANTS); write_root()
writes it, one function per factor, under a directory.

    fakeroot.py build ROOT VARIANT[+VARIANT...]
        writes the board under ROOT
    fakeroot.py case NAME VARIANT ARGS SPEC...
        builds the board under $SETUP_WORK, runs $LATSCOPE_BIN --check-setup
        ARGS on it, checks SPEC, prints one "ok: NAME" or "FAIL: NAME: ..."
        line; exit status 0 or 1
    fakeroot.py verify NAME OUTFILE ERRFILE RC SPEC...
        the same checks on the output of a run made elsewhere (RC "-": one
        still running, its exit status not checked)

SPEC words:
    FACTOR=ok|costs|unknown   its verdict
    FACTOR:TEXT               its value holds TEXT
    FACTOR~TEXT               its fix holds TEXT
    FACTOR!TEXT               its value does not hold TEXT
    rc=N                      the exit status (else 6 if a factor costs, else 0)
    save-base                 keep this run as the good board's ($SETUP_WORK/base.json)
A factor no word names must have the verdict, value and fix it has on the
good board; the last line must count the verdicts as expected.
"""
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys

# The factors, in the order --check-setup prints them, with their titles.
FACTORS = [
    ("preemption", "preemption model"),
    ("debug", "kernel debug options"),
    ("tracing", "tracers"),
    ("isolation", "isolated CPUs"),
    ("nohz_full", "tickless CPUs (nohz_full)"),
    ("rcu_nocbs", "RCU callbacks (rcu_nocbs)"),
    ("irqs", "IRQs on the measured CPUs"),
    ("rt_threads", "RT threads at the responder's priority"),
    ("governor", "cpufreq governor"),
    ("smt", "SMT siblings"),
    ("rt_runtime", "RT throttling"),
    ("timer_migration", "timer migration"),
    ("thp", "transparent huge pages"),
    ("watchdog", "lockup watchdogs"),
    ("console", "console output"),
    ("clock", "clocksource"),
    ("gpu", "GPU driver"),
    ("throttling", "firmware throttling"),
]
NAMES = [n for n, _ in FACTORS]
VERDICTS = {"ok": "ok", "costs": "costs latency", "unknown": "unknown"}
RELEASE = "6.6.0-rt"
SCHED_OTHER, SCHED_FIFO, SCHED_RR = 0, 1, 2
# Fake pids above any pid_max (2^22): never latscope's own.
PID = 5000000


def thread(pid, comm, policy=SCHED_OTHER, prio=0, cpus="0-1", tid=None):
    return {"pid": pid, "tid": tid or pid, "comm": comm, "policy": policy,
            "prio": prio, "cpus": cpus}


def irq(n, actions, smp, eff=None):
    return {"irq": n, "actions": actions, "smp": smp, "eff": eff}


def good_board():
    """PREEMPT_RT, CPU1 isolated, tickless and without RCU callbacks (the
    command line's isolcpus, nohz_full, rcu_nocbs), no IRQ on it,
    performance, no sibling, no RT throttling, no timer migration, THP on
    madvise, no watchdog, no serial console, the TSC, no GPU driver, no
    firmware flags."""
    return {
        "kernel": "rt",             # rt, dynamic, voluntary, full, none
        "version": None,            # /proc/sys/kernel/version; None: the kernel's
        "realtime": None,           # /sys/kernel/realtime
        "preempt_debugfs": None,    # /sys/kernel/debug/sched/preempt
        "config_at": "boot",        # boot, gz, both, gzbad, none
        "config": ["CONFIG_NO_HZ_FULL=y"],
        "boot_extra": [],           # lines only /boot's config has
        "cmdline": ["BOOT_IMAGE=/vmlinuz-" + RELEASE, "root=/dev/mmcblk0p2", "ro",
                    "console=tty1", "isolcpus=1", "nohz_full=1", "rcu_nocbs=1",
                    "rootwait"],
        "tracefs": "/sys/kernel/tracing",   # None: not mounted
        "tracer": "nop",
        "set_event": "",
        "online": "0-1",
        "possible": "0-1",
        "isolated": "1",
        "nohz_full": "1",
        "governor": {0: "performance", 1: "performance"},
        "siblings": {0: "0", 1: "1"},
        "irqs": [
            irq(1, ["i8042"], "0", "0"),
            irq(14, ["ata_piix"], "0", "0"),
            irq(30, ["eth0"], "0", "0"),
        ],
        "threads": [
            thread(1, "systemd"),
            thread(PID + 1, "ksoftirqd/1", cpus="1"),
            thread(PID + 2, "rcuc/1", SCHED_FIFO, 1, "1"),
            thread(PID + 3, "irq/30-eth0", SCHED_FIFO, 50, "0-1"),
            thread(PID + 4, "migration/0", SCHED_FIFO, 99, "0"),
        ],
        "rt_runtime": "-1",
        "rt_period": "1000000",
        "sysctl": {"timer_migration": "0", "watchdog": "0", "soft_watchdog": "0",
                   "nmi_watchdog": "0"},
        "thp": "always [madvise] never",
        "printk": "4\t4\t1\t7",
        "clocksource": "tsc",
        "modules": ["snd_bcm2835 24576 0 - Live 0x0000000000000000",
                    "brcmfmac 331776 0 - Live 0x0000000000000000"],
        "drm": {},                  # card number: driver
        "throttled": None,          # get_throttled's text
    }


def put(root, path, text, mode=None):
    """@text into ROOT/@path; "@link:TARGET" makes it a symbolic link."""
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if isinstance(text, str) and text.startswith("@link:"):
        os.symlink(text[len("@link:"):], full)
        return
    with open(full, "wb") as f:
        f.write(text if isinstance(text, bytes) else (text + "\n").encode())
    if mode is not None:
        os.chmod(full, mode)


# One writer per factor: each writes the files its check reads.

KERNELS = {
    "rt": (["CONFIG_PREEMPT_BUILD=y", "# CONFIG_PREEMPT_NONE is not set",
            "# CONFIG_PREEMPT_VOLUNTARY is not set", "# CONFIG_PREEMPT is not set",
            "CONFIG_PREEMPT_RT=y", "CONFIG_HAVE_PREEMPT_DYNAMIC=y",
            "# CONFIG_PREEMPT_DYNAMIC is not set"],
           "#1 SMP PREEMPT_RT Debian 6.6.0-rt (2024-01-01)"),
    "dynamic": (["CONFIG_PREEMPT_BUILD=y", "# CONFIG_PREEMPT_NONE is not set",
                 "CONFIG_PREEMPT_VOLUNTARY=y", "# CONFIG_PREEMPT is not set",
                 "# CONFIG_PREEMPT_RT is not set", "CONFIG_HAVE_PREEMPT_DYNAMIC=y",
                 "CONFIG_PREEMPT_DYNAMIC=y"],
                "#1 SMP PREEMPT_DYNAMIC Debian 6.6.0 (2024-01-01)"),
    "voluntary": (["# CONFIG_PREEMPT_NONE is not set", "CONFIG_PREEMPT_VOLUNTARY=y",
                   "# CONFIG_PREEMPT is not set", "# CONFIG_PREEMPT_RT is not set"],
                  "#1 SMP Debian 6.6.0 (2024-01-01)"),
    "full": (["CONFIG_PREEMPT_BUILD=y", "# CONFIG_PREEMPT_NONE is not set",
              "# CONFIG_PREEMPT_VOLUNTARY is not set", "CONFIG_PREEMPT=y",
              "# CONFIG_PREEMPT_RT is not set"],
             "#1 SMP PREEMPT Debian 6.6.0 (2024-01-01)"),
    "none": (["CONFIG_PREEMPT_NONE=y", "# CONFIG_PREEMPT_VOLUNTARY is not set",
              "# CONFIG_PREEMPT is not set", "# CONFIG_PREEMPT_RT is not set"],
             "#1 SMP Debian 6.6.0 (2024-01-01)"),
}


def config_text(b, extra=()):
    lines = ["#", "# Automatically generated file; DO NOT EDIT.",
             "# Linux/arm64 6.6.0 Kernel Configuration", "#",
             "CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"",
             "CONFIG_DEBUG_KERNEL=y", "CONFIG_HAVE_ARCH_KASAN=y",
             "# CONFIG_KASAN is not set", "# CONFIG_PROVE_LOCKING is not set",
             "CONFIG_FTRACE=y", "CONFIG_FUNCTION_TRACER=y",
             "# CONFIG_IRQSOFF_TRACER is not set", "# CONFIG_PREEMPT_TRACER is not set"]
    lines += KERNELS[b["kernel"]][0] + b["config"] + list(extra)
    return "\n".join(lines)


def write_preemption(root, b):
    version = b["version"] or KERNELS[b["kernel"]][1]
    put(root, "/proc/sys/kernel/version", version)
    put(root, "/proc/sys/kernel/osrelease", RELEASE)
    if b["realtime"] is not None:
        put(root, "/sys/kernel/realtime", b["realtime"])
    if b["preempt_debugfs"] is not None:
        put(root, "/sys/kernel/debug/sched/preempt", b["preempt_debugfs"])


def write_config(root, b):
    at = b["config_at"]
    if at in ("gz", "both"):
        put(root, "/proc/config.gz", gzip.compress((config_text(b) + "\n").encode()))
    if at == "gzbad":
        put(root, "/proc/config.gz", b"not gzip data\n")
    if at in ("boot", "both", "gzbad"):
        put(root, "/boot/config-" + RELEASE, config_text(b, b["boot_extra"]))


def write_cmdline(root, b):
    put(root, "/proc/cmdline", " ".join(b["cmdline"]))


def write_tracing(root, b):
    if b["tracefs"]:
        put(root, b["tracefs"] + "/current_tracer", b["tracer"])
        put(root, b["tracefs"] + "/set_event", b["set_event"])
        put(root, b["tracefs"] + "/available_tracers", "function_graph function nop")


def write_cpus(root, b):
    """isolation, nohz_full, rcu_nocbs (with the command line), smt."""
    cpu = "/sys/devices/system/cpu/"
    put(root, cpu + "online", b["online"])
    put(root, cpu + "possible", b["possible"])
    put(root, cpu + "isolated", b["isolated"])
    put(root, cpu + "nohz_full", b["nohz_full"])
    for n, sib in b["siblings"].items():
        put(root, cpu + "cpu%d/topology/thread_siblings_list" % n, sib)
        put(root, cpu + "cpu%d/topology/core_id" % n, str(n))


def write_governor(root, b):
    for n, gov in b["governor"].items():
        base = "/sys/devices/system/cpu/cpu%d/cpufreq/" % n
        put(root, base + "scaling_governor", gov)
        put(root, base + "scaling_available_governors",
            "conservative ondemand userspace powersave performance schedutil")
        put(root, base + "scaling_cur_freq", "1500000")


def write_irqs(root, b):
    put(root, "/proc/irq/default_smp_affinity", "3")
    for i in b["irqs"]:
        base = "/proc/irq/%d/" % i["irq"]
        os.makedirs(os.path.join(root, base.lstrip("/")), exist_ok=True)
        for a in i["actions"]:
            os.makedirs(os.path.join(root, (base + a).lstrip("/")), exist_ok=True)
        put(root, base + "smp_affinity_list", i["smp"])
        if i["eff"] is not None:
            put(root, base + "effective_affinity_list", i["eff"])
        put(root, base + "node", "0")


def stat_line(t):
    """/proc/PID/task/TID/stat: 52 fields, rt_priority the 40th, policy the 41st."""
    prio = -(t["prio"] + 1) if t["policy"] in (SCHED_FIFO, SCHED_RR) else 20
    f = [str(t["tid"]), "(%s)" % t["comm"], "S", "2", "0", "0", "0", "-1", "4194624",
         "0", "0", "0", "0", "0", "12", "0", "0", str(prio),
         "0", "1", "0", "17", "0", "0",
         "18446744073709551615", "0", "0", "0", "0", "0", "0", "0", "2147483647", "0",
         "0", "0", "0", "17", "1", str(t["prio"]), str(t["policy"]), "0", "0", "0",
         "0", "0", "0", "0", "0", "0", "0", "0"]
    assert len(f) == 52 and f[39] == str(t["prio"]) and f[40] == str(t["policy"])
    return " ".join(f)


def write_threads(root, b):
    for t in b["threads"]:
        base = "/proc/%d/task/%d/" % (t["pid"], t["tid"])
        put(root, base + "stat", stat_line(t))
        put(root, base + "status", "Name:\t%s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n"
            "Cpus_allowed:\t3\nCpus_allowed_list:\t%s\nvoluntary_ctxt_switches:\t9"
            % (t["comm"][:15], t["pid"], t["tid"], t["cpus"]))
        put(root, "/proc/%d/comm" % t["pid"], t["comm"])


def write_sysctls(root, b):
    """rt_runtime, timer_migration, watchdog."""
    put(root, "/proc/sys/kernel/sched_rt_runtime_us", b["rt_runtime"])
    put(root, "/proc/sys/kernel/sched_rt_period_us", b["rt_period"])
    for k, v in b["sysctl"].items():
        if v is not None:
            put(root, "/proc/sys/kernel/" + k, v)


def write_thp(root, b):
    if b["thp"] is not None:
        put(root, "/sys/kernel/mm/transparent_hugepage/enabled", b["thp"])


def write_console(root, b):
    if b["printk"] is not None:
        put(root, "/proc/sys/kernel/printk", b["printk"])


def write_clock(root, b):
    base = "/sys/devices/system/clocksource/clocksource0/"
    put(root, base + "current_clocksource", b["clocksource"])
    put(root, base + "available_clocksource", "tsc hpet acpi_pm")


def write_gpu(root, b):
    put(root, "/proc/modules", "\n".join(b["modules"]))
    for card, driver in b["drm"].items():
        put(root, "/sys/class/drm/card%d/device/driver" % card,
            "@link:../../../../bus/platform/drivers/" + driver)


def write_throttling(root, b):
    if b["throttled"] is not None:
        put(root, "/sys/devices/platform/soc/soc:firmware/get_throttled", b["throttled"])


WRITERS = [write_preemption, write_config, write_cmdline, write_tracing, write_cpus,
           write_governor, write_irqs, write_threads, write_sysctls, write_thp,
           write_console, write_clock, write_gpu, write_throttling]


def write_root(root, b):
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    for w in WRITERS:
        w(root, b)


# The variants: each changes the good board in one way.

def cmdline_without(b, *keys):
    b["cmdline"] = [a for a in b["cmdline"] if a.split("=")[0] not in keys]


def v_dynamic(b):
    b["kernel"] = "dynamic"


def v_preempt_full_cmdline(b):
    v_dynamic(b)
    b["cmdline"].append("preempt=full")


def v_preempt_debugfs(b):
    v_dynamic(b)
    b["preempt_debugfs"] = "none voluntary (full) lazy"


def v_preempt_debugfs_none(b):
    # Booted preempt=full, switched to none at run time: the running mode counts.
    v_preempt_full_cmdline(b)
    b["preempt_debugfs"] = "(none) voluntary full lazy"


def v_realtime_sysfs(b):
    b["config_at"] = "none"
    b["version"] = "#1 SMP Debian 6.6.0 (2024-01-01)"
    b["realtime"] = "1"


def v_none_noconfig(b):
    b["config_at"] = "none"
    b["version"] = "#1 SMP Debian 6.6.0 (2024-01-01)"


def v_debug(b):
    b["config"] += ["CONFIG_KASAN=y", "CONFIG_KASAN_GENERIC=y", "CONFIG_PROVE_LOCKING=y"]


def v_big_config(b):
    # Past read_all()'s first 256 KiB: the option at the very end.
    b["config"] += ["CONFIG_FILLER_%05d_XXXXXXXXXXXXXXXX=y" % n for n in range(10000)]
    b["config"] += ["CONFIG_KASAN=y"]


def v_debug_gz(b):
    b["config_at"] = "gz"
    b["config"] += ["CONFIG_KASAN=y"]


def v_both(b):
    b["config_at"] = "both"
    b["boot_extra"] = ["CONFIG_KASAN=y"]


def v_tracer(b):
    b["tracer"] = "function"


def v_set_event(b):
    b["set_event"] = "sched:sched_switch"


def v_irqsoff(b):
    b["config"] += ["CONFIG_IRQSOFF_TRACER=y"]


def v_debugfs_tracer(b):
    b["tracefs"] = "/sys/kernel/debug/tracing"
    b["tracer"] = "function"


def v_no_isolation(b):
    cmdline_without(b, "isolcpus")
    b["isolated"] = ""


def v_no_nohz(b):
    cmdline_without(b, "nohz_full")
    b["nohz_full"] = "(null)"


def v_no_rcu(b):
    v_no_nohz(b)
    cmdline_without(b, "rcu_nocbs")


def v_rcu_via_nohz(b):
    cmdline_without(b, "rcu_nocbs")


def v_rcu_bare(b):
    v_no_nohz(b)
    cmdline_without(b, "rcu_nocbs")
    b["cmdline"].append("rcu_nocbs")


def add_irq(b, *args):
    b["irqs"].append(irq(*args))


def v_irq_effective(b):
    add_irq(b, 40, ["mmc0"], "0-1", "1")


def v_irq_effective_other(b):
    add_irq(b, 40, ["mmc0"], "0-1", "0")


def v_irq_smp(b):
    add_irq(b, 40, ["mmc0", "mmc1"], "1")


def v_irq_moving(b):
    # Moved off CPU1, still landing there until its next interrupt (x86's IO-APIC).
    add_irq(b, 40, ["mmc0"], "0", "1")


def v_irq_unhandled(b):
    add_irq(b, 9, [], "1", "1")


def v_irq_arch_timer(b):
    add_irq(b, 11, ["arch_timer"], "0-1", "1")


def v_irq_many(b):
    for n in range(50, 56):
        add_irq(b, n, ["dev%d" % n], "1", "1")


def add_thread(b, *args, **kw):
    b["threads"].append(thread(*args, **kw))


def v_rt95(b):
    # A process whose second thread is at FIFO 95.
    add_thread(b, PID + 30, "hogd")
    add_thread(b, PID + 30, "hog-worker", SCHED_FIFO, 95, "0-1", tid=PID + 31)


def v_rt95_cpu0(b):
    add_thread(b, PID + 30, "hogd")
    add_thread(b, PID + 30, "hog-worker", SCHED_FIFO, 95, "0", tid=PID + 31)


def v_migration(b):
    add_thread(b, PID + 40, "migration/1", SCHED_FIFO, 99, "1")


def v_rt_comm(b):
    add_thread(b, PID + 50, "my) app (x", SCHED_FIFO, 95, "1")


def v_rr90(b):
    add_thread(b, PID + 60, "rr-loop", SCHED_RR, 90, "1")


def v_schedutil(b):
    b["governor"][1] = "schedutil"


def v_cpu0_powersave(b):
    b["governor"][0] = "powersave"


def v_no_cpufreq(b):
    b["governor"] = {}


def v_smt_online(b):
    b["siblings"] = {0: "0,2", 1: "1,3", 2: "0,2", 3: "1,3"}
    b["online"] = b["possible"] = "0-3"


def v_smt_offline(b):
    v_smt_online(b)
    b["online"] = "0-2"


def v_rt_runtime(b):
    b["rt_runtime"] = "950000"


def v_timer_migration(b):
    b["sysctl"]["timer_migration"] = "1"


def v_thp_always(b):
    b["thp"] = "[always] madvise never"


def v_thp_never(b):
    b["thp"] = "always madvise [never]"


def v_watchdog(b):
    b["sysctl"].update(watchdog="1", soft_watchdog="1", nmi_watchdog="0")


def v_watchdog_parts_off(b):
    # nosoftlockup nmi_watchdog=0: kernel.watchdog stays 1, nothing runs.
    b["sysctl"].update(watchdog="1", soft_watchdog="0", nmi_watchdog="0")
    b["cmdline"] += ["nosoftlockup", "nmi_watchdog=0"]


def v_serial(b):
    b["cmdline"] = [a for a in b["cmdline"] if not a.startswith("console=")]
    b["cmdline"] += ["console=ttyS0,115200", "console=tty1"]


def v_serial7(b):
    v_serial(b)
    b["printk"] = "7\t4\t1\t7"


def v_serial3(b):
    v_serial(b)
    b["printk"] = "3\t4\t1\t7"


def v_netconsole(b):
    b["cmdline"].append("netconsole=6666@10.0.0.2/eth0,6666@10.0.0.1/")
    b["printk"] = "7\t4\t1\t7"


def v_hpet(b):
    b["clocksource"] = "hpet"


def v_vc4(b):
    b["modules"].append("vc4 290816 4 - Live 0x0000000000000000")


def v_i915(b):
    b["drm"] = {0: "i915"}


def v_throttled(b):
    b["throttled"] = "50005"


def v_not_throttled(b):
    b["throttled"] = "0"


# --apply-setup: what it changes costs (governor, an IRQ on CPU1, RT throttling).
def v_apply(b):
    b["governor"][1] = "schedutil"
    b["rt_runtime"] = "950000"
    add_irq(b, 40, ["mmc0"], "1")


def v_apply_allowed(b):
    # Besides IRQ 40: 42 lands on CPU1 (allowed on both), 43 only may (lands on CPU0).
    v_apply(b)
    add_irq(b, 42, ["rtc0"], "0-1", "1")
    add_irq(b, 43, ["i8042-aux"], "0-1", "0")


def v_apply_two(b):
    # For two runs, -c 0 and -c 1: an IRQ either would move, CPU0's governor too.
    v_apply(b)
    b["governor"][0] = "powersave"
    add_irq(b, 43, ["i8042-aux"], "0-1", "0")


def v_apply_fail(b):
    # Writing /dev/full fails (ENOSPC), root or not: RT throttling cannot be turned off.
    v_apply(b)
    b["rt_runtime"] = "@link:/dev/full"


def v_apply_stuck(b):
    # An IRQ the kernel keeps on CPU1 (its write fails), beside one it moves.
    v_apply(b)
    add_irq(b, 41, ["timer-local"], "@link:/dev/full", "1")


VARIANTS = {
    "good": lambda b: None,
    "dynamic": v_dynamic, "preempt_full_cmdline": v_preempt_full_cmdline,
    "preempt_debugfs": v_preempt_debugfs, "preempt_debugfs_none": v_preempt_debugfs_none,
    "voluntary": lambda b: b.update(kernel="voluntary"),
    "full": lambda b: b.update(kernel="full"),
    "realtime_sysfs": v_realtime_sysfs, "none_noconfig": v_none_noconfig,
    "debug": v_debug, "debug_gz": v_debug_gz, "big_config": v_big_config,
    "config_gz": lambda b: b.update(config_at="gz"),
    "config_both": v_both, "config_gzbad": lambda b: b.update(config_at="gzbad"),
    "config_none": lambda b: b.update(config_at="none"),
    "tracer": v_tracer, "set_event": v_set_event, "irqsoff": v_irqsoff,
    "debugfs_tracer": v_debugfs_tracer,
    "no_tracefs": lambda b: b.update(tracefs=None),
    "no_isolation": v_no_isolation, "no_nohz": v_no_nohz,
    "no_nohz_config": lambda b: (v_no_nohz(b), b["config"].remove("CONFIG_NO_HZ_FULL=y"),
                                 b["config"].append("# CONFIG_NO_HZ_FULL is not set")),
    "no_rcu": v_no_rcu, "rcu_via_nohz": v_rcu_via_nohz, "rcu_bare": v_rcu_bare,
    "irq_effective": v_irq_effective, "irq_effective_other": v_irq_effective_other,
    "irq_smp": v_irq_smp, "irq_moving": v_irq_moving, "irq_unhandled": v_irq_unhandled,
    "irq_arch_timer": v_irq_arch_timer, "irq_many": v_irq_many,
    "rt95": v_rt95, "rt95_cpu0": v_rt95_cpu0, "migration": v_migration,
    "rt_comm": v_rt_comm, "rr90": v_rr90,
    "schedutil": v_schedutil, "cpu0_powersave": v_cpu0_powersave,
    "no_cpufreq": v_no_cpufreq,
    "smt_online": v_smt_online, "smt_offline": v_smt_offline,
    "rt_runtime": v_rt_runtime, "timer_migration": v_timer_migration,
    "thp_always": v_thp_always, "thp_never": v_thp_never,
    "watchdog": v_watchdog, "watchdog_parts_off": v_watchdog_parts_off,
    "serial7": v_serial7, "serial3": v_serial3,
    "serial_noprintk": lambda b: (v_serial(b), b.update(printk=None)),
    "netconsole": v_netconsole,
    "hpet": v_hpet, "vc4": v_vc4, "i915": v_i915,
    "throttled": v_throttled, "not_throttled": v_not_throttled,
    "apply": v_apply, "apply_fail": v_apply_fail, "apply_stuck": v_apply_stuck,
    "apply_allowed": v_apply_allowed, "apply_two": v_apply_two,
}


def board_of(spec):
    b = good_board()
    for name in spec.split("+"):
        VARIANTS[name](b)
    return b


# What --check-setup printed.

def parse(out):
    """The factor lines as {name: (verdict, value, fix)} in order, the count
    line, and the lines that are neither; a list of problems."""
    factors, problems, others, count = [], [], [], None
    titles = {t: n for n, t in FACTORS}
    for line in out.splitlines():
        if not line.startswith("SET| "):
            others.append(line)
            continue
        verdict, title = line[5:18].rstrip(), line[19:58].rstrip()
        if verdict in VERDICTS.values() and title in titles and line[18] == " ":
            rest = line[59:]
            value, _, fix = rest.partition(" | fix: ")
            factors.append((titles[title], verdict, value, fix))
        elif " factors cost latency" in line:
            if count is not None:
                problems.append("two count lines")
            count = line
        else:
            others.append(line)
    names = [f[0] for f in factors]
    if names != NAMES:
        problems.append("factors %s, not the %d in order" % (names, len(NAMES)))
    if factors and count is None:
        problems.append("no count line")
    return {f[0]: f[1:] for f in factors}, count, others, problems


def count_line(verdicts):
    costs = [n for n in NAMES if verdicts[n] == "costs latency"]
    unknown = [n for n in NAMES if verdicts[n] == "unknown"]
    line = "SET| %d of %d factors cost latency%s" % (
        len(costs), len(NAMES), (": " + ", ".join(costs)) if costs else "")
    if unknown:
        line += "; %d unknown: %s" % (len(unknown), ", ".join(unknown))
    return line


def check(out, err, rc, specs, base, extra_ok=()):
    """The problems with one run's output, as a list of strings."""
    got, count, others, problems = parse(out)
    if problems:
        return problems
    want_rc = None
    named, verdicts = set(), {n: got[n][0] for n in NAMES}
    for s in specs:
        if s.startswith("rc="):
            want_rc = int(s[3:])
            continue
        if s == "save-base":
            continue
        at = min((s.find(c) for c in "=:~!" if s.find(c) > 0), default=-1)
        name, op, arg = s[:at], s[at], s[at + 1:]
        if name not in got:
            problems.append("bad spec %r" % s)
            continue
        named.add(name)
        verdict, value, fix = got[name]
        if op == "=" and verdict != VERDICTS[arg]:
            problems.append("%s: expected %s, seen %s (%s | %s)"
                            % (name, VERDICTS[arg], verdict, value, fix))
        elif op == ":" and arg not in value:
            problems.append("%s: value %r does not hold %r" % (name, value, arg))
        elif op == "!" and arg in value:
            problems.append("%s: value %r holds %r" % (name, value, arg))
        elif op == "~" and arg not in fix:
            problems.append("%s: fix %r does not hold %r" % (name, fix, arg))
    for n in NAMES:
        if n in named or base is None:
            continue
        if tuple(got[n]) != tuple(base[n]):
            problems.append("%s changed: expected %s, seen %s" % (n, list(base[n]), got[n]))
    expected_count = count_line(verdicts)
    if count != expected_count:
        problems.append("count line %r, expected %r" % (count, expected_count))
    if want_rc is None:
        want_rc = 6 if any(v == "costs latency" for v in verdicts.values()) else 0
    if rc is not None and rc != want_rc:
        problems.append("exit %d, expected %d" % (rc, want_rc))
    others = [o for o in others if not any(o.startswith(e) for e in extra_ok)]
    if others:
        problems.append("other lines: %s" % others)
    if err.strip():
        problems.append("stderr: %r" % err.strip())
    return problems


def base_path():
    return os.path.join(os.environ["SETUP_WORK"], "base.json")


def load_base():
    try:
        with open(base_path()) as f:
            return json.load(f)
    except OSError:
        return None


def report(name, problems):
    if problems:
        print("FAIL: %s: %s" % (name, "; ".join(problems)))
        return 1
    print("ok: %s" % name)
    return 0


def run_case(name, variant, args, specs):
    work = os.environ["SETUP_WORK"]
    root = os.path.join(work, "r%d" % os.getpid())
    write_root(root, board_of(variant))
    env = dict(os.environ, LATSCOPE_ROOT=root)
    env.pop("LATSCOPE_SYSFS", None)
    try:
        p = subprocess.run([os.environ["LATSCOPE_BIN"], "--check-setup"] + shlex.split(args),
                           env=env, capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return report(name, ["latscope did not end in 10 s"])
    shutil.rmtree(root, ignore_errors=True)
    if p.returncode < 0:
        return report(name, ["killed by signal %d" % -p.returncode])
    base = None if "save-base" in specs else load_base()
    if base is None and "save-base" not in specs:
        return report(name, ["no good board's output to compare with"])
    problems = check(p.stdout, p.stderr, p.returncode, specs, base)
    if "save-base" in specs and not problems:
        with open(base_path(), "w") as f:
            json.dump(parse(p.stdout)[0], f)
    return report(name, problems)


def main(argv):
    if len(argv) >= 3 and argv[0] == "build":
        write_root(argv[1], board_of(argv[2]))
        return 0
    if len(argv) >= 4 and argv[0] == "case":
        return run_case(argv[1], argv[2], argv[3], argv[4:])
    if len(argv) >= 5 and argv[0] == "verify":
        with open(argv[2]) as f:
            out = f.read()
        with open(argv[3]) as f:
            err = f.read()
        rc = None if argv[4] == "-" else int(argv[4])
        problems = check(out, err, rc, argv[5:], load_base(),
                         extra_ok=("SET| applied for the run: ", "SET| held until",
                                   "SET| set back"))
        return report(argv[1], problems)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
