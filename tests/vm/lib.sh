# shellcheck shell=dash
# Helpers the in-VM test scripts share (busybox sh): "ok"/"not ok" lines,
# and files dumped between markers for the host to parse. Checked as dash:
# busybox's sh is an ash, which has local as dash does.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
expect_rc() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "exit $2, want $3"; fi
}
has() { # name, file, pattern
	if grep -q "$3" "$2"; then ok "$1"; else nok "$1" "no '$3' in $(cat "$2")"; fi
}
dump() { echo "LATSCOPE-FILE-BEGIN $1"; cat "$2"; echo "LATSCOPE-FILE-END"; }
# A survey's directory DIR dumped as NAME/FILE, for the host's profile.
dump_survey() { # name, dir
	for f in "$2"/*; do
		[ -f "$f" ] && dump "$1/${f##*/}" "$f"
	done
}
# The survey in DIR says N phases done, as survey.txt's Outcome has them.
survey_done() { # name, dir, n
	if [ "$(sed -n '/^Outcome:/,$p' "$2/survey.txt" | grep -c "  done")" = "$3" ]; then
		ok "$1"
	else
		nok "$1" "$(sed -n '/^Outcome:/,$p' "$2/survey.txt")"
	fi
}
# Makes latscope the module @1: new, /latscope.ko (loaded at boot); old,
# /latscope-old.ko (LATSCOPE_VM_OLD_DRIVER): the comparisons of two builds
# in one boot. A module already loaded stays, where it is in memory.
vm_module=new
use_module() {
	[ "$vm_module" = "$1" ] && return 0
	rmmod latscope || return 1
	if [ "$1" = old ]; then insmod /latscope-old.ko; else insmod /latscope.ko; fi || return 1
	vm_module=$1
}
# Runs COMMAND every 0.1 s until it succeeds, for SECONDS at most: a
# condition, not a guess at how long a loaded host takes. Returns 1 if it
# never did.
wait_until() { # seconds, command...
	local tries=$(($1 * 10))

	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -lt 0 ] && return 1
		usleep 100000
	done
}
# Waits up to SECONDS for PATTERN in FILE.
wait_for() { # file, pattern, seconds
	wait_until "$3" grep -q "$2" "$1" 2>/dev/null
}

# Every data row, "-1" (below 0) and "N+" (past the histogram) included,
# and every CPU's column, add up to the sample count.
plot_adds_up() { # name, plot file
	if awk '/^# sample count:/ { n = $4 }
		/^-?[0-9]/ { for (i = 2; i <= NF; i++) s += $i }
		END { exit !(n == s && n > 0) }' "$2"; then
		ok "$1"
	else
		nok "$1" "rows do not add up"
	fi
}


# No latscope process is left (the static CLI or the sanitized one) but
# PID if given (a monitor that stays), and no GPIO line is held by one.
nothing_left() { # name, [pid]
	left=$(pidof latscope latscope-asan | tr ' ' '\n' | grep -vx "${2:-none}")
	if [ -n "$left" ]; then nok "$1: no latscope left" "$left"; else ok "$1: no latscope left"; fi
	if grep -q "latscope" /sys/kernel/debug/gpio 2>/dev/null; then
		nok "$1: lines released" "$(grep latscope /sys/kernel/debug/gpio)"
	else
		ok "$1: lines released"
	fi
}

# Makes gpio-sim chip NAME of 8 lines through configfs: sets cfg (its
# configfs directory), chip (gpiochipN) and sim (its sysfs directory,
# with each line's pull and value). Returns 1 if it cannot.
sim_chip() { # name
	mount -t configfs none /sys/kernel/config 2>/dev/null
	cfg=/sys/kernel/config/gpio-sim/$1
	mkdir "$cfg" && mkdir "$cfg/bank0" && echo 8 >"$cfg/bank0/num_lines" &&
		echo 1 >"$cfg/live" || return 1
	chip=$(cat "$cfg/bank0/chip_name")
	# shellcheck disable=SC2034 # for the scripts that source this one
	sim=/sys/devices/platform/$(cat "$cfg/dev_name")/$chip
}
