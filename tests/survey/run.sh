#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# latscope --survey on this machine, with the fake /dev/latscope of
# tests/fakedev (real clocks: FAKEDEV_CLOCK=real), no VM: the plan
# (--survey-plan for 1 h and 10 min: its phases, the EVT run, the cost
# suite's scale); every bad value refused with exit 2 and one line
# naming it, an existing directory with exit 3 and left as it was; a
# short survey (the setup verdict and the three contexts quiet, 10 s
# each; the loads and the cost suite skipped: they run real programs for
# minutes) whose files, survey.txt and profile agree with its own JSON
# files (check_profile.py: the profile's phases, rows, summary and setup
# rows; its HTML page self-contained), the HTML page rendered by headless
# chromium (tests/report/browser.py: every image loaded, no error in the
# browser's log, a screenshot that is not blank); latscope-report given a
# survey and a file, two surveys of one name, a directory that is no
# survey's, a survey others can write or whose profile/ is a symlink
# (without -o): refused; a phase's JSON with a value of the wrong kind, a
# FIFO in place of one, one missing: left out and said, the profile made
# of the rest; and Ctrl-C during its second phase, the directory renamed and a
# symlink put in its place just before: that phase ends with its files
# written, the rest do not run, survey.txt says so, the profile of what
# was measured is made, and every file is in the renamed directory; then
# --resume there (a wrong -T or period, another kernel in its system.txt,
# a directory others can write and one without survey.txt refused):
# the done phase not run again, the interrupted one's files and the first
# profile set aside, the rest run, every phase done. A full disk (a 4 KiB
# tmpfs): every phase runs and fails, saying why, and what each measured
# (its JSON, survey.txt) is on standard output instead. Last, the short
# survey and the resumed one side by side (latscope-report DIR_A DIR_B):
# each phase's maximum its own JSON's, the page rendered as above. Root (the survey refuses nothing as a
# user, but the fake device is opened as the CLI would). Ends with
# "survey: N passed, N failed".
# shellcheck disable=SC2016 # the inner bash -c expands them
set -euo pipefail
umask 022
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/userspace/latscope
work=$(mktemp -d)
trap 'umount "$work/full" 2>/dev/null || true; rm -rf "$work"' EXIT

# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"

make -s -C "$top/userspace" latscope
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I"$top/driver/include/uapi" \
	-o "$work/fakedev.so" "$top/tests/fakedev/fakedev.c" -ldl
export FAKEDEV_CLOCK=real FAKEDEV_SECONDS=5 OPENBLAS_NUM_THREADS=1
fake() {
	LD_PRELOAD=$work/fakedev.so "$bin" "$@"
}
skip=grinder,neighbour,classic,cost

# ---- the plan ----
"$bin" --survey-plan -T 1h >"$work/plan1h"
check "plan, 1 h: 14 phases, setup first, the cost suite last" \
	bash -c '[ "$(grep -c "^  [0-9][0-9]-" "$1")" = 14 ] &&
		grep -q "^  01-setup " "$1" && grep -q "^  14-cost .*100 % of its work" "$1"' _ "$work/plan1h"
check "plan, 1 h: one 30-minute quiet user run for the EVT bound, first" \
	grep -Eq "^  02-user-quiet +user context, quiet, for the EVT bound, 30 min" "$work/plan1h"
"$bin" --survey-plan -T 10m >"$work/plan10m"
check "plan, 10 min: 12 runs of 50 s, no EVT bound said, the cost suite at 10 %" \
	bash -c '[ "$(grep -c ", 50 s$" "$1")" = 12 ] && grep -q "no EVT bound" "$1" &&
		grep -q "10 % of its work" "$1"' _ "$work/plan10m"

# ---- bad values: exit 2 (3 for the directory), one line naming the value ----
bad() { # bad STATUS WORD ARGS...: exits STATUS, one stderr line holding WORD
	local want=$1 word=$2 rc=0
	shift 2
	fake "$@" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
	[ "$rc" = "$want" ] && [ "$(wc -l <"$work/bad.err")" = 1 ] && grep -qF -- "$word" "$work/bad.err"
}
check "-T 1m: too short, said" bad 2 "-T 1 min" --survey "$work/x" -T 1m
check "-k with --survey: refused, named" bad 2 "--kernel" --survey "$work/x" -k
check "--json with --survey: refused, named" bad 2 "--json" --survey "$work/x" --json j
check "--survey-skip bogus: the word named" bad 2 "'bogus'" --survey-plan --survey-skip cost,bogus
check "--survey-skip leaving no timer run: said" bad 2 "no timer run" \
	--survey-plan --survey-skip user,kernel,irq
check "--survey '': refused" bad 2 "--survey ''" --survey ''
check "--apply-setup with --survey-plan: refused" bad 2 "--apply-setup" --survey-plan --apply-setup
mkdir "$work/there"
touch "$work/there/keep"
rc=0
fake --survey "$work/there" -T 30s --survey-skip "$skip" >/dev/null 2>"$work/there.err" || rc=$?
check "an existing directory: exit 3 ($rc), one line, left as it was" \
	bash -c '[ "$1" = 3 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "a survey writes into a new directory" "$2" &&
		[ "$(ls "$3")" = keep ]' _ "$rc" "$work/there.err" "$work/there"
check "nothing made for a bad value" test ! -e "$work/x"

# ---- a short survey ----
rc=0
fake --survey "$work/s" -T 30s --survey-skip "$skip" >"$work/s.out" 2>&1 || rc=$?
check "short survey: exit 0 ($rc)" test "$rc" = 0
for f in system.txt 01-setup.txt 02-user-quiet.json 02-user-quiet.plot 02-user-quiet.txt \
	03-kernel-quiet.json 04-irq-quiet.json survey.txt profile/table.md profile/trust.md \
	profile/histogram.png profile/profile.txt; do
	check "short survey: $f written" test -s "$work/s/$f"
done
check "short survey: a progress line at each phase's start and end, not a terminal" \
	bash -c '[ "$(grep -c "^SURVEY| phase [1-4] of 4: " "$1")" = 8 ]' _ "$work/s.out"
check "short survey: its files mode 0644 and the directory 0755, umask 022" \
	bash -c '[ "$(stat -c %a "$1" "$1/02-user-quiet.json" "$1/survey.txt" | sort -u | tr "\n" " ")" = "644 755 " ]' \
	_ "$work/s"
check "short survey: survey.txt, every phase done, its maximum the JSON's; the profile's table the same" \
	/usr/bin/python3 - "$work/s" <<'EOF'
import json, re, sys
d = sys.argv[1]
outcome = open(f"{d}/survey.txt").read().split("Outcome:")[1]
rows = [l for l in open(f"{d}/profile/table.md") if l.startswith("| ") and not l.startswith("| run ")]
names = ["02-user-quiet", "03-kernel-quiet", "04-irq-quiet"]
assert re.search(r"01-setup +done", outcome), outcome
assert len(rows) == len(names), rows
for name, row in zip(names, rows):
    top = json.load(open(f"{d}/{name}.json"))["total"]["max"]
    said = re.search(name + r" +done, max ([0-9.]+) us", outcome)
    assert said and float(said.group(1)) == top, (name, said, top)
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert float(cells[10]) == top, (name, cells, top)
EOF

check "short survey: profile.md's phases, rows, summary and setup are its own files'" \
	/usr/bin/python3 "$top/tests/survey/check_profile.py" profile "$work/s"
check "short survey: profile.html rendered by headless chromium: every image, no error" \
	/usr/bin/python3 "$top/tests/report/browser.py" "$work/s/profile/profile.html" "$work/s.png"
rc=0
"$top/userspace/latscope-report" "$work/s" "$work/s/02-user-quiet.json" >/dev/null 2>"$work/mix.err" || rc=$?
check "latscope-report of a survey and a file: exit 2 ($rc), said" \
	bash -c '[ "$1" = 2 ] && grep -q "not a mix" "$2"' _ "$rc" "$work/mix.err"
rc=0
"$top/userspace/latscope-report" "$work/s" "$work/s" >/dev/null 2>"$work/same.err" || rc=$?
check "latscope-report of two surveys of one name: exit 2 ($rc), --label asked" \
	bash -c '[ "$1" = 2 ] && grep -q "two surveys named s: give each a --label" "$2"' _ "$rc" "$work/same.err"
mkdir "$work/notasurvey"
rc=0
"$top/userspace/latscope-report" "$work/notasurvey" >/dev/null 2>"$work/nots.err" || rc=$?
check "latscope-report of a directory without survey.txt: exit 2 ($rc), said" \
	bash -c '[ "$1" = 2 ] && grep -q "no survey.txt" "$2" && [ -z "$(ls "$3")" ]' \
	_ "$rc" "$work/nots.err" "$work/notasurvey"
cp -r "$work/s" "$work/shared-s"
rm -rf "$work/shared-s/profile"
chmod g+w "$work/shared-s"
rc=0
"$top/userspace/latscope-report" "$work/shared-s" >/dev/null 2>"$work/shared.err" || rc=$?
check "latscope-report of a survey others can write: exit 2 ($rc), no profile in it" \
	bash -c '[ "$1" = 2 ] && grep -q "writable by others (mode 0775): give -o DIR" "$2" &&
		[ ! -e "$3/profile" ]' _ "$rc" "$work/shared.err" "$work/shared-s"
chmod g-w "$work/shared-s"
mkdir "$work/elsewhere-p"
ln -s "$work/elsewhere-p" "$work/shared-s/profile"
rc=0
"$top/userspace/latscope-report" "$work/shared-s" >/dev/null 2>"$work/link.err" || rc=$?
check "latscope-report of a survey whose profile is a symlink: exit 2 ($rc), nothing written there" \
	bash -c '[ "$1" = 2 ] && grep -q "its profile is a symlink or not a directory" "$2" &&
		[ -z "$(ls "$3")" ]' \
	_ "$rc" "$work/link.err" "$work/elsewhere-p"
rm "$work/shared-s/profile"
/usr/bin/python3 - "$work/shared-s/03-kernel-quiet.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["total"]["avg"] = "x"
json.dump(doc, open(sys.argv[1], "w"))
EOF
rm "$work/shared-s/04-irq-quiet.json"
mkfifo "$work/shared-s/04-irq-quiet.json"
rc=0
timeout 120 "$top/userspace/latscope-report" "$work/shared-s" >/dev/null 2>"$work/bad.err" || rc=$?
check "a survey with a JSON value of the wrong kind and a FIFO for a JSON file: exit 0 ($rc), both left out and said" \
	bash -c '[ "$1" = 0 ] && grep -q "03-kernel-quiet left out: a value of an unexpected kind" "$2" &&
		grep -q "04-irq-quiet left out: .*not a regular file" "$2" &&
		grep -q "03-kernel-quiet left out" "$3/profile/profile.md" &&
		[ "$(grep -c "^| 0[2-4]-" "$3/profile/table.md")" = 1 ]' _ "$rc" "$work/bad.err" "$work/shared-s"
rm "$work/shared-s/02-user-quiet.json"
rc=0
timeout 120 "$top/userspace/latscope-report" "$work/shared-s" >/dev/null 2>"$work/gone.err" || rc=$?
check "a survey whose done phase has no JSON file: said, not silently dropped ($rc)" \
	grep -q "02-user-quiet left out: survey.txt says \"done\" but 02-user-quiet.json is not there" \
	"$work/gone.err"

# ---- Ctrl-C in the second phase, the directory swapped for a symlink before ----
LD_PRELOAD=$work/fakedev.so "$bin" --survey "$work/i" -T 30s --survey-skip "$skip" \
	>"$work/i.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
	grep -q "^SURVEY| phase 2 of 4: 02-user-quiet: user" "$work/i.out" && break
	sleep 0.1
done
mkdir "$work/elsewhere"
mv "$work/i" "$work/i.moved"
ln -s "$work/elsewhere" "$work/i"
sleep 1	# the child is measuring: it printed its first line
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
d=$work/i.moved
check "Ctrl-C: exit 0 ($rc), said" \
	bash -c '[ "$1" = 0 ] && grep -q "ended by a signal: 2 of 4 phases ran" "$2"' _ "$rc" "$work/i.out"
check "Ctrl-C: the phase ended with its files, the rest not run" \
	bash -c 'grep -Eq "02-user-quiet +interrupted" "$1/survey.txt" &&
		grep -Eq "03-kernel-quiet +not run" "$1/survey.txt" &&
		grep -Eq "04-irq-quiet +not run" "$1/survey.txt" &&
		test -s "$1/02-user-quiet.json" && test ! -e "$1/03-kernel-quiet.json"' _ "$d"
check "Ctrl-C: the profile of what was measured" test -s "$d/profile/table.md"
check "Ctrl-C: the interrupted run's JSON is whole" \
	/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$d/02-user-quiet.json"
cp "$d/02-user-quiet.json" "$work/i-02.json" 2>/dev/null || true
check "the directory renamed and a symlink put in its place: every file stayed in it" \
	bash -c '[ -z "$(ls -A "$1")" ] && [ -s "$2/02-user-quiet.txt" ] && [ -s "$2/01-setup.txt" ]' \
	_ "$work/elsewhere" "$d"

# ---- a full disk: every phase runs, what it measured on standard output ----
mkdir "$work/full"
if mount -t tmpfs -o size=4k tmpfs "$work/full"; then
	rc=0
	fake --survey "$work/full/s" -T 30s --survey-skip "$skip,setup" >"$work/full.out" \
		2>"$work/full.err" || rc=$?
	umount "$work/full"
	check "full disk: exit 1 ($rc), each of the 3 phases ran, failed, said why" \
		bash -c '[ "$1" = 1 ] &&
			[ "$(grep -c "^SURVEY| phase [1-3] of 3: .*failed, exit 1: a file not written" "$2")" = 3 ]' \
		_ "$rc" "$work/full.out"
	check "full disk: each phase's JSON on standard output, whole; survey.txt there once" \
		/usr/bin/python3 - "$work/full.out" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read()
for name in ("01-user-quiet", "02-kernel-quiet", "03-irq-quiet"):
    m = re.search(r"=== latscope: %s.json could not be written, its content follows ===\n(.*?)"
                  r"=== latscope: end of %s.json ===" % (name, name), text, re.S)
    assert m, name
    assert json.loads(m.group(1))["total"]["max"] > 0, name
assert text.count("survey.txt could not be written") == 1, "survey.txt rescued once, at the end"
EOF
else
	check "full disk: a tmpfs mounted (root)" false
fi

# ---- --resume ----
rc=0
fake --survey "$d" --resume -T 40s --survey-skip "$skip" >"$work/r.out" 2>"$work/r.err" || rc=$?
check "--resume with another -T: exit 3 ($rc), the plan named, nothing moved" \
	bash -c '[ "$1" = 3 ] && grep -q "holds another plan" "$2" && [ ! -e "$3/profile.old1" ]' \
	_ "$rc" "$work/r.err" "$d"
rc=0
fake --survey "$work/elsewhere" --resume -T 30s --survey-skip "$skip" >"$work/r.out" 2>"$work/r.err" || rc=$?
check "--resume of a directory without survey.txt: exit 3 ($rc), said" \
	bash -c '[ "$1" = 3 ] && grep -q "survey.txt: No such file" "$2"' _ "$rc" "$work/r.err"
rc=0
fake --survey "$d" --resume -T 30s -p 500 --survey-skip "$skip" >"$work/r.out" 2>"$work/r.err" || rc=$?
check "--resume with another period: exit 3 ($rc), the settings named" \
	bash -c '[ "$1" = 3 ] && grep -q "other settings than CPUs .*period 500 us" "$2"' _ "$rc" "$work/r.err"
chmod g+w "$d"
rc=0
fake --survey "$d" --resume -T 30s --survey-skip "$skip" >"$work/r.out" 2>"$work/r.err" || rc=$?
chmod g-w "$d"
check "--resume in a directory others can write: exit 3 ($rc), refused" \
	bash -c '[ "$1" = 3 ] && grep -q "writable by others (mode 0775)" "$2" && [ ! -e "$3/profile.old1" ]' \
	_ "$rc" "$work/r.err" "$d"
cp "$d/system.txt" "$work/system.txt"
sed -i 's/^kernel: .*/kernel: 4.19.0-other #1 SMP x86_64/' "$d/system.txt"
rc=0
fake --survey "$d" --resume -T 30s --survey-skip "$skip" >"$work/r.out" 2>"$work/r.err" || rc=$?
check "--resume on another kernel: exit 3 ($rc), both named" \
	bash -c '[ "$1" = 3 ] && grep -q "the survey ran on 4.19.0-other #1 SMP x86_64; this is $(uname -r)" "$2"' \
	_ "$rc" "$work/r.err"
cp "$work/system.txt" "$d/system.txt"
rc=0
fake --survey "$d" --resume -T 30s --survey-skip "$skip" >"$work/r.out" 2>&1 || rc=$?
check "--resume: exit 0 ($rc), the setup verdict not run again, the rest run" \
	bash -c '[ "$1" = 0 ] && grep -q "^SURVEY| phase 1 of 4: 01-setup: done before" "$2" &&
		[ "$(grep -c "^SURVEY| phase [2-4] of 4: .*: done, max" "$2")" = 3 ]' _ "$rc" "$work/r.out"
check "--resume: survey.txt says every phase done" \
	bash -c '[ "$(sed -n "/^Outcome:/,\$p" "$1/survey.txt" | grep -c " done")" = 4 ]' _ "$d"
check "--resume: the interrupted phase's files and the first profile set aside, not overwritten" \
	bash -c 'cmp -s "$2" "$1/02-user-quiet.json.old1" && test -s "$1/02-user-quiet.json" &&
		test -s "$1/profile.old1/table.md" && test -s "$1/profile/table.md" &&
		[ "$(grep "^| " "$1/profile/table.md" | grep -vc "^| run ")" = 3 ]' _ "$d" "$work/i-02.json"


# ---- two surveys side by side ----
rc=0
"$top/userspace/latscope-report" -o "$work/cmp" "$work/s" "$d" >"$work/cmp.out" 2>&1 || rc=$?
check "latscope-report DIR_A DIR_B: exit 0 ($rc), compare.md and compare.html" \
	bash -c '[ "$1" = 0 ] && test -s "$2/compare.md" && test -s "$2/compare.html"' _ "$rc" "$work/cmp"
check "the comparison: each phase's maximum its survey's JSON's, the boards side by side" \
	/usr/bin/python3 "$top/tests/survey/check_profile.py" compare "$work/cmp" "$work/s" "$d"
check "compare.html rendered by headless chromium: every image, no error" \
	/usr/bin/python3 "$top/tests/report/browser.py" "$work/cmp/compare.html" "$work/cmp.png"

echo "survey: $passed passed, $failed failed"
[ "$failed" = 0 ]
