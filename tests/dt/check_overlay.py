#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks latscope-gpio.dtbo: its __overrides__ table, and the trees
fdtoverlay makes from it and Debian's Raspberry Pi base DTBs.

usage: check_overlay.py OVERLAY.dtbo LOOPBACK.dtbo BROADCOM_DTB_DIR WORKDIR

LOOPBACK.dtbo is the overlay as loopback_pin leaves it: the same source
with the live and dormant fragments swapped (tests/dt/run.sh makes it).
"""
import os
import subprocess
import sys

import libfdt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, summary  # noqa: E402  (tests/lib/checks.py)


def load(path):
    with open(path, "rb") as f:
        return libfdt.Fdt(f.read())


def cells(fdt, path, prop):
    raw = bytes(fdt.getprop(fdt.path_offset(path), prop))
    return [int.from_bytes(raw[i:i + 4], "big") for i in range(0, len(raw), 4)]


def walk(fdt, off=0, path=""):
    """Yields (path, offset) of every node."""
    yield path or "/", off
    child = fdt.first_subnode(off, [libfdt.FDT_ERR_NOTFOUND])
    while child >= 0:
        yield from walk(fdt, child, f"{path}/{fdt.get_name(child)}")
        child = fdt.next_subnode(child, [libfdt.FDT_ERR_NOTFOUND])


def phandles(fdt):
    out = {}
    for path, off in walk(fdt):
        ph = fdt.get_phandle(off)
        if ph:
            out[ph] = path
    return out


def props(fdt, path):
    """{name: bytes} of a node's properties."""
    out = {}
    off = fdt.first_property_offset(fdt.path_offset(path), [libfdt.FDT_ERR_NOTFOUND])
    while off >= 0:
        prop = fdt.get_property_by_offset(off)
        out[prop.name] = bytes(prop)
        off = fdt.next_property_offset(off, [libfdt.FDT_ERR_NOTFOUND])
    return out


def overrides(fdt):
    """{parameter: [(phandle, "text")]}: a phandle, then a NUL-ended string."""
    table = {}
    for name, raw in props(fdt, "/__overrides__").items():
        entries = []
        while raw:
            ph = int.from_bytes(raw[:4], "big")
            end = raw.index(b"\0", 4)
            entries.append((ph, raw[4:end].decode()))
            raw = raw[end + 1:]
        table[name] = entries
    return table


# What each parameter must change: (node label, property, cell index, the
# default it replaces); cell None: the whole property, a string. Fragment
# switches are written "+N".
LOOP = ["-0", "-1", "+2", "+3"]
EXPECTED = {
    "pulse_in_pin": [("latscope", "pulse-in-gpios", 1, 24),
                     ("latscope_pins", "brcm,pins", 0, 24),
                     ("latscope_loop", "pulse-in-gpios", 1, 24),
                     ("latscope_loop_pins", "brcm,pins", 0, 24)],
    "ack_out_pin": [("latscope", "ack-out-gpios", 1, 23),
                    ("latscope_pins", "brcm,pins", 1, 23),
                    ("latscope_loop", "ack-out-gpios", 1, 23),
                    ("latscope_loop_pins", "brcm,pins", 1, 23)],
    "loopback_pin": [LOOP,
                     ("latscope_loop", "pulse-out-gpios", 1, 25),
                     ("latscope_loop_pins", "brcm,pins", 2, 25)],
    "pull": [("latscope_pins", "brcm,pull", 0, 1),
             ("latscope_loop_pins", "brcm,pull", 0, 1)],
    "edge": [("latscope", "latscope,edge", None, "rising"),
             ("latscope_loop", "latscope,edge", None, "rising")],
}


def string(fdt, path, prop):
    """A one-string property's value, or None."""
    try:
        raw = bytes(fdt.getprop(fdt.path_offset(path), prop))
    except libfdt.FdtException:
        return None
    return raw[:-1].decode() if raw.endswith(b"\0") and raw.count(b"\0") == 1 else None


def check_overrides(ov):
    symbols = {k: v[:-1].decode() for k, v in props(ov, "/__symbols__").items()}
    by_phandle = phandles(ov)
    table = overrides(ov)
    check(sorted(table) == sorted(EXPECTED),
          "overrides: exactly the documented parameters", f"{sorted(table)}")
    for param, want in EXPECTED.items():
        got = table.get(param, [])
        if want and isinstance(want[0], list):
            check(got[:1] == [(0, "".join(want[0]))],
                  f"{param}: enables the loopback fragments instead", f"{got[:1]}")
            want, got = want[1:], got[1:]
        check(len(got) == len(want), f"{param}: {len(want)} targets", f"{got}")
        for (label, prop, cell, default), (ph, text) in zip(want, got):
            node = by_phandle.get(ph)
            name = f"{param} -> {label} {prop}" + ("" if cell is None else f"[{cell}]")
            check(node == symbols.get(label), f"{name}: right node",
                  f"phandle {ph} is {node}, {label} is {symbols.get(label)}")
            # No ":offset" suffix: dtoverlay writes the parameter as a string.
            where = prop if cell is None else f"{prop}:{4 * cell}"
            check(text == where, f"{name}: right property and cell", f"'{text}'")
            if node is None:
                continue
            if cell is None:
                value = string(ov, node, prop)
            else:
                try:
                    value = cells(ov, node, prop)[cell]
                except (libfdt.FdtException, IndexError):
                    value = None
            check(value == default, f"{name}: default there is {default}", f"{value}")


def merge(base, dtbo, out):
    run = subprocess.run(["fdtoverlay", "-i", base, "-o", out, dtbo],
                         capture_output=True, text=True)
    return run.returncode == 0, run.stderr.strip()


def check_merged(model, merged, loopback):
    fdt = load(merged)
    gpio = bytes(fdt.getprop(fdt.path_offset("/__symbols__"), "gpio"))[:-1].decode()
    gpio_ph = fdt.get_phandle(fdt.path_offset(gpio))
    try:
        off = fdt.path_offset("/latscope")
    except libfdt.FdtException:
        check(False, f"{model}: /latscope node", "missing")
        return
    compat = bytes(fdt.getprop(off, "compatible"))[:-1].decode()
    check(compat == "latscope,gpio", f"{model}: compatible", compat)
    check(cells(fdt, "/latscope", "pulse-in-gpios") == [gpio_ph, 24, 0],
          f"{model}: pulse-in is GPIO24 of {gpio}")
    check(cells(fdt, "/latscope", "ack-out-gpios") == [gpio_ph, 23, 0],
          f"{model}: ack-out is GPIO23 of {gpio}")
    edge = string(fdt, "/latscope", "latscope,edge")
    check(edge == "rising", f"{model}: latscope,edge is rising", f"{edge}")
    has_out = fdt.getprop(off, "pulse-out-gpios", [libfdt.FDT_ERR_NOTFOUND])
    if loopback:
        check(cells(fdt, "/latscope", "pulse-out-gpios") == [gpio_ph, 25, 0],
              f"{model}: pulse-out is GPIO25 of {gpio}")
    else:
        check(has_out == -libfdt.FDT_ERR_NOTFOUND,
              f"{model}: no pulse-out without loopback_pin")
    pins = phandles(fdt).get(cells(fdt, "/latscope", "pinctrl-0")[0], "")
    check(pins.startswith(gpio + "/"), f"{model}: pinctrl group under {gpio}", pins)
    if pins.startswith(gpio + "/"):
        want = ([24, 23, 25], [0, 1, 1], [1, 0, 0]) if loopback else ([24, 23], [0, 1], [1, 0])
        got = tuple(cells(fdt, pins, p) for p in ("brcm,pins", "brcm,function", "brcm,pull"))
        check(got == want, f"{model}: pins in, out{', out' if loopback else ''}, "
              "pulse-in pulled down", f"{got}")


def main():
    dtbo, loop_dtbo, dtb_dir, work = sys.argv[1:5]
    check_overrides(load(dtbo))
    for model in ("bcm2837-rpi-3-b", "bcm2837-rpi-3-b-plus", "bcm2711-rpi-4-b"):
        base = os.path.join(dtb_dir, model + ".dtb")
        for loopback, overlay in ((False, dtbo), (True, loop_dtbo)):
            name = model + (" loopback" if loopback else "")
            merged = os.path.join(work, name.replace(" ", "-") + ".dtb")
            ok, err = merge(base, overlay, merged)
            check(ok, f"{name}: fdtoverlay applies", err)
            if ok:
                check_merged(name, merged, loopback)
    # Debian's Pi 5 tree has no RP1, so no header GPIO controller: the
    # overlay must refuse it rather than land on the SoC's own GPIOs.
    pi5 = os.path.join(dtb_dir, "bcm2712-rpi-5-b.dtb")
    if os.path.exists(pi5):
        ok, _ = merge(pi5, dtbo, os.path.join(work, "pi5.dtb"))
        check(not ok, "bcm2712-rpi-5-b (no RP1): the overlay does not apply")
    return summary("dt")


if __name__ == "__main__":
    sys.exit(main())
