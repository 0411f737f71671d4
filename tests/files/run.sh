#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The files latscope creates, with another user in the directory: the
# real CLI (root, the fake /dev/latscope of tests/fakedev/fakedev.c, so
# no module is needed) writes into a directory of mode 0777, not sticky,
# while an unprivileged user (nobody, through setpriv) attacks a
# root-owned 0600 victim file elsewhere:
#  - the textfile: a symlink to the victim waits at each name latscope
#    used to write first (PATH.<pid>.tmp, the PID known before exec);
#  - -g and --json, then --textfile: racer.c swaps each temporary file
#    for a symlink to the victim as soon as inotify shows it, and gate.c
#    (LD_PRELOAD) holds the writer's fsync() until the swap is done, so
#    the window is certain, not lucky.
# Each time the victim's content and mode must be unchanged, what was
# measured is either in the file or on stdout, and latscope never calls
# umask() (gate.c logs it). Then the files' modes under umask 027, the
# one-line warning for a shared directory (none for a private or a
# sticky one), and no overwrite without --force.
# Ends with "files: N passed, N failed".
# LATSCOPE_BIN: another build to check (main's, to see these fail).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LATSCOPE_BIN:-$top/userspace/latscope}

if [[ $(id -u) != 0 ]]; then
	echo "files: run as root (latscope writes as root; setpriv makes the other user)"
	exit 1
fi
if [[ -z ${LATSCOPE_BIN:-} ]]; then
	make -s -C "$top/userspace" latscope
fi

work=$(mktemp -d /tmp/lsfiles.XXXXXX)
racer_pid=
cleanup() {
	if [[ -n $racer_pid ]] && kill -0 "$racer_pid" 2>/dev/null; then
		kill "$racer_pid" 2>/dev/null || true
		wait "$racer_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
# nobody runs the racer from here and writes into shared/; root/ is root's.
chmod 755 "$work"
mkdir -m 755 "$work/bin"
mkdir -m 700 "$work/root"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I"$top/driver/include/uapi" \
	-o "$work/bin/fakedev.so" "$top/tests/fakedev/fakedev.c" -ldl
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -o "$work/bin/gate.so" \
	"$top/tests/files/gate.c" -ldl
cc -std=c11 -Wall -Wextra -Werror -o "$work/bin/racer" "$top/tests/files/racer.c"
victim=$work/root/victim
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

passed=0
failed=0
ok() {
	passed=$((passed + 1))
}
not_ok() {
	echo "not ok - $1"
	failed=$((failed + 1))
}
check() { # name, then a command
	local name=$1
	shift
	if "$@"; then ok; else not_ok "$name"; fi
}

# A fresh victim and a fresh shared directory for each case.
fresh() {
	printf 'root only\n' >"$victim"
	chmod 600 "$victim"
	rm -rf "$work/shared" "$work/out"
	mkdir -m 777 "$work/shared"
	mkdir "$work/out"
}
# The victim as it was; if not, what it became on stderr.
victim_intact() {
	[[ $(cat "$victim") == "root only" && $(stat -c %a "$victim") == 600 ]] && return
	echo "#   the victim is now mode $(stat -c %a "$victim"): $(head -c 60 "$victim" | head -1)"
	return 1
}
names_in() {
	find "$1" -mindepth 1 -maxdepth 1 | wc -l
}
mode_of() {
	stat -c %a "$1"
}
no_umask_call() {
	! grep -q '^mask set' "$work/out/gate.log" 2>/dev/null
}
stderr_has() {
	grep -q -- "$1" "$work/out/stderr"
}
warnings() {
	grep -c 'writable by others' "$work/out/stderr" || true
}

# latscope ARGS... as root under umask 027, with the fake device and the
# gate (holding fsync() in $gate_dir, if set); its rc, stdout and stderr
# in $work/out.
gate_dir=
preload="$work/bin/fakedev.so $work/bin/gate.so"
latscope() {
	(umask 027
	 set +e
	 LD_PRELOAD=$preload GATE_LOG=$work/out/gate.log GATE_DIR=$gate_dir \
		timeout 30 "$bin" -T 1 "$@" >"$work/out/stdout" 2>"$work/out/stderr" </dev/null
	 echo $? >"$work/out/rc")
}
# The content print_instead() gave for FILE on stdout parses as JSON.
rescued_json() {
	sed -n "\|^=== latscope: $1 could not be written|,\|^=== latscope: end of $1 ===|p" \
		"$work/out/stdout" | sed '1d;$d' |
		python3 -c 'import json, sys; assert "file_version" in json.load(sys.stdin)' 2>/dev/null
}
rc() {
	cat "$work/out/rc"
}

# Starts the racer as nobody on $work/shared; returns once it watches.
start_racer() { # max swaps
	"${as_nobody[@]}" "$work/bin/racer" "$work/shared" "$victim" "$1" 30 \
		>"$work/out/racer" 2>&1 &
	racer_pid=$!
	for _ in $(seq 500); do
		grep -qx ready "$work/out/racer" 2>/dev/null && return 0
		kill -0 "$racer_pid" 2>/dev/null || break
		sleep 0.01
	done
	not_ok "racer: not watching: $(cat "$work/out/racer")"
	return 1
}
# Waits for the racer's end: its swaps made, or its 30 s over.
stop_racer() {
	wait "$racer_pid" || true
	racer_pid=
}

# --- the textfile: symlinks waiting at the names latscope writes first.
# bash execs latscope under its own PID: PATH.<pid>.tmp is known before.
fresh
prom=$work/shared/m.prom
(umask 027
 set +e
 # shellcheck disable=SC2016 # the inner bash expands them
 LD_PRELOAD=$preload GATE_LOG=$work/out/gate.log timeout 30 bash -c 'for name in "$2.$$.tmp" "$2.tmp"; do
		setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$1" "$name" || exit
	done
	exec "$3" -T 1 --textfile "$2"' _ "$victim" "$prom" "$bin" \
	>"$work/out/stdout" 2>"$work/out/stderr" </dev/null
 echo $? >"$work/out/rc")
check "textfile: latscope ran (exit $(rc): $(tail -1 "$work/out/stderr"))" [ "$(rc)" = 0 ]
check "textfile: the victim (root, 0600) unchanged by the symlinks at its temporary names" \
	victim_intact
check "textfile: the .prom file is latscope's, a regular file" \
	bash -c "[ -f '$prom' ] && [ ! -L '$prom' ] && grep -q '^latscope_measuring' '$prom'"
check "textfile: mode 0640 under umask 027 (got $(mode_of "$prom" 2>/dev/null))" \
	[ "$(mode_of "$prom" 2>/dev/null)" = 640 ]
check "textfile: one warning for its shared directory (got $(warnings))" [ "$(warnings)" = 1 ]
check "textfile: the other user's symlinks left as they were" \
	test -L "$prom.tmp" -a "$(names_in "$work/shared")" = 3
check "textfile: umask() never called" no_umask_call

# --- -g and --json: each temporary swapped for a symlink to the victim.
fresh
if start_racer 2; then
	gate_dir=$work/shared
	latscope -g "$work/shared/r.plot" --json "$work/shared/r.json"
	gate_dir=
	stop_racer
	check "race: the racer swapped both temporaries ($(tail -1 "$work/out/racer"))" \
		grep -qx 'swaps 2' "$work/out/racer"
	check "race: the gate saw each swap before the writer went on" \
		[ "$(grep -c '^swapped' "$work/out/gate.log")" = 2 ]
	check "race: the victim (root, 0600) unchanged: content and mode" victim_intact
	for f in r.plot r.json; do
		check "race: $f: said, its content on stdout instead" bash -c \
			"grep -q '^=== latscope: $work/shared/$f could not be written' '$work/out/stdout' &&
			 grep -q 'cannot write $work/shared/$f: another user replaced its temporary file' \
				'$work/out/stderr'"
		check "race: $f: not left as a symlink to the victim" \
			[ ! -L "$work/shared/$f" ]
	done
	check "race: the JSON rescued whole (it parses)" rescued_json "$work/shared/r.json"
	check "race: umask() never called" no_umask_call
fi

# --- the textfile's temporary swapped too: its first write fails, said.
fresh
if start_racer 1; then
	gate_dir=$work/shared
	latscope --textfile "$work/shared/m.prom"
	gate_dir=
	stop_racer
	check "textfile race: the racer swapped its temporary ($(tail -1 "$work/out/racer"))" \
		grep -qx 'swaps 1' "$work/out/racer"
	check "textfile race: the victim (root, 0600) unchanged" victim_intact
	check "textfile race: refused at its start, said (exit $(rc))" bash -c "[ $(rc) = 3 ] &&
		grep -q 'cannot write it: another user replaced its temporary file' '$work/out/stderr'"
	check "textfile race: no .prom file made" [ ! -e "$work/shared/m.prom" ]
fi

# --- no racer: modes, warnings, the umask untouched.
fresh
latscope -g "$work/shared/a.plot" --json "$work/shared/a.json"
check "shared: latscope ran (exit $(rc))" [ "$(rc)" = 0 ]
for f in a.plot a.json; do
	check "shared: $f mode 0640 under umask 027 (got $(mode_of "$work/shared/$f"))" \
		[ "$(mode_of "$work/shared/$f")" = 640 ]
done
check "shared: a warning per file in a directory others can write (got $(warnings))" \
	[ "$(warnings)" = 2 ]
check "shared: the warning names the file and the mode" \
	stderr_has "output file $work/shared/a.plot: its directory is writable by others (mode 0777"
check "shared: umask() never called" no_umask_call
check "shared: no temporary left" [ "$(names_in "$work/shared")" = 2 ]

for m in 755 1777; do
	fresh
	chmod "$m" "$work/shared"
	latscope -g "$work/shared/a.plot" --textfile "$work/shared/a.prom"
	check "mode $m: latscope ran (exit $(rc))" [ "$(rc)" = 0 ]
	check "mode $m: no warning (got $(warnings))" [ "$(warnings)" = 0 ]
	check "mode $m: files 0640" \
		[ "$(mode_of "$work/shared/a.plot") $(mode_of "$work/shared/a.prom")" = "640 640" ]
done

# ls_check_output as before: no overwrite without --force, then with it.
fresh
chmod 755 "$work/shared"
echo keep >"$work/shared/a.plot"
latscope -g "$work/shared/a.plot"
check "exists: refused without --force (exit $(rc))" bash -c \
	"[ $(rc) = 3 ] && grep -qx keep '$work/shared/a.plot'"
latscope -g "$work/shared/a.plot" --force
check "exists: replaced with --force (exit $(rc))" bash -c \
	"[ $(rc) = 0 ] && grep -q '^# ' '$work/shared/a.plot'"

echo "files: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
