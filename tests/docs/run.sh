#!/bin/bash
# The front door held (issue 45): README and `latscope --help` within
# their budgets, the --help pages aligned and named where they are
# listed (the man page, bash completion), their option rows and the man
# page's entries the very options of cli/options.c's table, an entry in
# the man page's OUTPUT for every kind of line the CLI prints, every
# relative link and #anchor of the documents found, docs/design/cli.md
# naming every userspace file, layers.md's figures as
# scripts/layers.py prints them, every `latscope ...` example of README,
# the guides, --help and the man page parsed by the CLI's own parser on
# the canonical GPIO wiring, and `make help` naming every target the
# documents name (tests/docs/check.py). Seconds, no root, no VM.
# --fix rewrites layers.md's generated figures.
# Ends with "docs: N passed, N failed"; non-zero on any failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make -s -C "$top/userspace" latscope liblatscope-cli.a
libs=$(make -s -C "$top/userspace" print-gpiod)
# shellcheck disable=SC2086 # the libraries are words
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -pthread -I"$top/userspace" \
	-I"$top/driver/include/uapi" "$top/tests/docs/parse.c" \
	"$top/userspace/liblatscope-cli.a" ${libs#* } -o "$work/parse"
python3 "$top/tests/docs/check.py" "$top" "$top/userspace/latscope" "$work/parse" "$@"
