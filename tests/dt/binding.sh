#!/bin/bash
# The "latscope,gpio" binding checked the way the kernel's
# make dt_binding_check does, with dtschema from PyPI (in a venv in the
# cache): the schema against the meta-schemas, its example against the
# schema, then the Raspberry Pi trees with the overlay applied (MERGED.dtb
# ...) against it and Linux 6.12's own bindings.
# usage: tests/dt/binding.sh WORKDIR MERGED.dtb...
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

DTSCHEMA=2026.9
work=$1
shift
venv=$(latscope_cache)/dtschema-$DTSCHEMA
if [ ! -x "$venv/bin/dt-validate" ]; then
	rm -rf "$venv"
	/usr/bin/python3 -m venv "$venv"
	"$venv/bin/pip" install -q "dtschema==$DTSCHEMA"
fi
export PATH=$venv/bin:$PATH

status=0
bindings=$top/driver/bindings
schema=$bindings/latscope,gpio.yaml
if dt-doc-validate -u "$bindings" "$schema" 2>&1 | tee "$work/doc.err" | grep -q .; then
	echo "not ok - binding: dt-doc-validate"
	cat "$work/doc.err"
	status=1
else
	echo "ok - binding: dt-doc-validate (meta-schemas)"
fi

# Linux 6.12's bindings plus ours, processed once per dtschema, binding
# and kernel source. "latscope" is not in the kernel's vendor-prefixes.yaml,
# so a latscope,edge property would match no vendor: the copy processed
# here gets the entry that a submission of the binding would add.
src=$(latscope_linux_source)
prefix='  "^latscope,.*":\n    description: latscope latency benchmark'
key=$( (echo "$DTSCHEMA"; echo "$prefix"; cat "$schema" "$(latscope_cache)/linux-source-6.12.stamp") |
	sha256sum | cut -c1-12)
processed=$(latscope_cache)/dt-processed-schema-$key.json
if [ ! -s "$processed" ]; then
	find "$(latscope_cache)" -maxdepth 1 -name 'dt-processed-schema-*.json' -delete
	cp -r "$src/Documentation/devicetree/bindings" "$work/kernel-bindings"
	sed -i "/^  \"^lattice,\.\*\":/i\\$prefix" "$work/kernel-bindings/vendor-prefixes.yaml"
	grep -q '"^latscope,' "$work/kernel-bindings/vendor-prefixes.yaml"
	dt-mk-schema -j -u "$bindings" "$work/kernel-bindings" \
		>"$processed.tmp" 2>"$work/mk.err"
	mv "$processed.tmp" "$processed"
fi

dt-extract-example "$schema" >"$work/example.dts"
dtc -q -I dts -O dtb -o "$work/example.dtb" "$work/example.dts"
if dt-validate -s "$processed" "$work/example.dtb" 2>&1 | grep -q .; then
	echo "not ok - binding: its example validates"
	dt-validate -s "$processed" "$work/example.dtb"
	status=1
else
	echo "ok - binding: its example validates"
fi

# A node of both roles, or of neither, is refused.
for bad in "pulse-in-gpios = <&g 24 0>; ack-out-gpios = <&g 23 0>; ack-in-gpios = <&g 22 0>;" \
	"pulse-out-gpios = <&g 25 0>;"; do
	printf '/dts-v1/;\n/ { g: gpio { gpio-controller; #gpio-cells = <2>; };\n  latscope { compatible = "latscope,gpio"; %s };\n};\n' \
		"$bad" >"$work/bad.dts"
	dtc -q -I dts -O dtb -o "$work/bad.dtb" "$work/bad.dts"
	if dt-validate -s "$processed" "$work/bad.dtb" 2>&1 | grep -q "latscope (latscope,gpio): 'oneOf' conditional failed"; then
		echo "ok - binding: refuses a node with $bad"
	else
		echo "not ok - binding: refuses a node with $bad"
		dt-validate -s "$processed" "$work/bad.dtb" 2>&1 | head -5
		status=1
	fi
done

# The base trees have messages of their own; ours are those about our two
# nodes. BCM2835's pin groups have no schema in 6.12 (a text binding), so
# brcm,pins/function/pull are untyped there, as in every group of the base
# tree: that one message is expected, anything else fails.
for dtb in "$@"; do
	name=$(basename "$dtb" .dtb)
	dt-validate -s "$processed" "$dtb" >"$work/validate.out" 2>&1 || true
	grep -E "^[^:]*: latscope(_mon)?(_pins)? ?[:(]" "$work/validate.out" |
		grep -vE "^[^:]*: latscope(_mon)?_pins: brcm,(pins|function|pull): .* is not of type" \
		>"$work/ours.out" || true
	if [ -s "$work/ours.out" ]; then
		echo "not ok - binding: $name validates"
		cut -c1-300 "$work/ours.out"
		status=1
	else
		echo "ok - binding: $name validates"
	fi
done
exit $status
