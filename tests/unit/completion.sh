#!/bin/bash
# The bash completion (userspace/latscope.bash-completion): its option
# list is the CLI's table (userspace/cli/options.c), same names, same
# order; and, loaded into bash-completion, it completes an option, a
# value and a file. Ends with "completion: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
comp=$top/userspace/latscope.bash-completion
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
is() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi
}

table=$(grep -o '^	{ "[a-z-]*", ' "$top/userspace/cli/options.c" | sed 's/^	{ "/--/; s/", $//' | tr '\n' ' ')
listed=$(sed -n "/local opts='/,/'\$/p" "$comp" | tr -d "'" | sed 's/local opts=//' | tr -s ' \t\n' ' ' | sed 's/^ //')
if [ "$table" = "$listed" ]; then
	ok "the completion's options are the CLI's table ($(echo "$table" | wc -w))"
else
	nok "the completion's options are the CLI's table" "table: $table; completion: $listed"
fi

# Asks the completion what it offers for a command line; the word under
# the cursor is the last one.
complete_words() {
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")
		"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$comp" "$@"
}
if [ ! -f /usr/share/bash-completion/bash_completion ]; then
	nok "bash-completion" "not installed (scripts/install-deps.sh)"
else
	got=$(complete_words latscope --ser | tr '\n' ' ')
	is "latscope --ser: --serve" "$got" "--serve "
	got=$(complete_words latscope --help "" | tr '\n' ' ')
	is "latscope --help: the pages" "$got" "gpio gpiod latmon monitor noise survey cost serve setup report all "
	got=$(complete_words latscope --stress g | tr '\n' ' ')
	is "latscope --stress g: grinder" "$got" "grinder "
	dir=$(mktemp -d)
	touch "$dir/run.json" "$dir/notes.txt"
	got=$(cd "$dir" && complete_words latscope-report r | tr '\n' ' ')
	is "latscope-report r: the JSON file" "$got" "run.json "
	got=$(cd "$dir" && complete_words latscope --json r | tr '\n' ' ')
	is "latscope --json r: a file" "$got" "run.json "
	rm -rf "$dir"
fi
echo "completion: $pass passed, $fail failed"
[ "$fail" = 0 ]
