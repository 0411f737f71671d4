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

failures = 0
passes = 0


def check(name, cond, detail=""):
    global failures, passes
    if cond:
        passes += 1
        print(f"ok - {name}")
    else:
        failures += 1
        print(f"not ok - {name}" + (f": {detail}" if detail else ""))


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
    check("overrides: exactly the documented parameters",
          sorted(table) == sorted(EXPECTED), f"{sorted(table)}")
    for param, want in EXPECTED.items():
        got = table.get(param, [])
        if want and isinstance(want[0], list):
            check(f"{param}: enables the loopback fragments instead",
                  got[:1] == [(0, "".join(want[0]))], f"{got[:1]}")
            want, got = want[1:], got[1:]
        check(f"{param}: {len(want)} targets", len(got) == len(want), f"{got}")
        for (label, prop, cell, default), (ph, text) in zip(want, got):
            node = by_phandle.get(ph)
            name = f"{param} -> {label} {prop}" + ("" if cell is None else f"[{cell}]")
            check(f"{name}: right node", node == symbols.get(label),
                  f"phandle {ph} is {node}, {label} is {symbols.get(label)}")
            # No ":offset" suffix: dtoverlay writes the parameter as a string.
            where = prop if cell is None else f"{prop}:{4 * cell}"
            check(f"{name}: right property and cell", text == where, f"'{text}'")
            if node is None:
                continue
            if cell is None:
                value = string(ov, node, prop)
            else:
                try:
                    value = cells(ov, node, prop)[cell]
                except (libfdt.FdtException, IndexError):
                    value = None
            check(f"{name}: default there is {default}", value == default, f"{value}")


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
        check(f"{model}: /latscope node", False, "missing")
        return
    compat = bytes(fdt.getprop(off, "compatible"))[:-1].decode()
    check(f"{model}: compatible", compat == "latscope,gpio", compat)
    check(f"{model}: pulse-in is GPIO24 of {gpio}",
          cells(fdt, "/latscope", "pulse-in-gpios") == [gpio_ph, 24, 0])
    check(f"{model}: ack-out is GPIO23 of {gpio}",
          cells(fdt, "/latscope", "ack-out-gpios") == [gpio_ph, 23, 0])
    edge = string(fdt, "/latscope", "latscope,edge")
    check(f"{model}: latscope,edge is rising", edge == "rising", f"{edge}")
    has_out = fdt.getprop(off, "pulse-out-gpios", [libfdt.FDT_ERR_NOTFOUND])
    if loopback:
        check(f"{model}: pulse-out is GPIO25 of {gpio}",
              cells(fdt, "/latscope", "pulse-out-gpios") == [gpio_ph, 25, 0])
    else:
        check(f"{model}: no pulse-out without loopback_pin", has_out == -libfdt.FDT_ERR_NOTFOUND)
    pins = phandles(fdt).get(cells(fdt, "/latscope", "pinctrl-0")[0], "")
    check(f"{model}: pinctrl group under {gpio}", pins.startswith(gpio + "/"), pins)
    if pins.startswith(gpio + "/"):
        want = ([24, 23, 25], [0, 1, 1], [1, 0, 0]) if loopback else ([24, 23], [0, 1], [1, 0])
        got = tuple(cells(fdt, pins, p) for p in ("brcm,pins", "brcm,function", "brcm,pull"))
        check(f"{model}: pins in, out{', out' if loopback else ''}, pulse-in pulled down",
              got == want, f"{got}")


def main():
    dtbo, loop_dtbo, dtb_dir, work = sys.argv[1:5]
    check_overrides(load(dtbo))
    for model in ("bcm2837-rpi-3-b", "bcm2837-rpi-3-b-plus", "bcm2711-rpi-4-b"):
        base = os.path.join(dtb_dir, model + ".dtb")
        for loopback, overlay in ((False, dtbo), (True, loop_dtbo)):
            name = model + (" loopback" if loopback else "")
            merged = os.path.join(work, name.replace(" ", "-") + ".dtb")
            ok, err = merge(base, overlay, merged)
            check(f"{name}: fdtoverlay applies", ok, err)
            if ok:
                check_merged(name, merged, loopback)
    # Debian's Pi 5 tree has no RP1, so no header GPIO controller: the
    # overlay must refuse it rather than land on the SoC's own GPIOs.
    pi5 = os.path.join(dtb_dir, "bcm2712-rpi-5-b.dtb")
    if os.path.exists(pi5):
        ok, _ = merge(pi5, dtbo, os.path.join(work, "pi5.dtb"))
        check("bcm2712-rpi-5-b (no RP1): the overlay does not apply", not ok)
    print(f"dt: {passes} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
