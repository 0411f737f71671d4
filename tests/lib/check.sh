# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The PASS/FAIL lines the host's shell tests print, and their counts:
# sourced by tests/evt/run.sh, tests/survey/run.sh and
# tests/survey/compare_vms.sh, which end with "NAME: $passed passed,
# $failed failed".
passed=0
failed=0

check() { # check WHAT COMMAND...: one PASS or FAIL line
	local what=$1
	shift
	if "$@"; then
		echo "PASS $what"
		passed=$((passed + 1))
	else
		echo "FAIL $what"
		failed=$((failed + 1))
	fi
}
