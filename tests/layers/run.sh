#!/bin/bash
# Self-test of scripts/layers.py (docs/design/layers.md) on small trees
# made here in a temporary folder: a clean layered tree passes, and each
# broken rule fails with exit 1 and a message naming the offending files.
# Each assertion prints "ok: ..." or "FAIL: ..."; ends with
# "layers: N passed, N failed" and exits non-zero on any FAIL.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
tree=
out=

ok() {
	echo "ok: $1"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL: $1"
	printf '%s\n' "$out" | sed 's/^/    | /'
	failed=$((failed + 1))
}

# put FILE: FILE of the current tree gets standard input.
put() {
	mkdir -p "$(dirname "$tree/$1")"
	cat >"$tree/$1"
}

# tree NAME: a copy of the clean tree to break.
tree() {
	tree=$work/$1
	cp -r "$work/clean" "$tree"
}

# check NAME RC [ARGS...]: runs the check on the current tree; its exit
# status must be RC. Its output (both streams) is kept in $out.
check() {
	local name=$1 want=$2 rc=0
	shift 2
	out=$(python3 "$top/scripts/layers.py" --root "$tree" "$@" 2>&1) || rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$name: exit $rc"
	else
		fail "$name: exit $rc, expected $want"
	fi
}

# says NAME TEXT: the last output has the line fragment TEXT.
says() {
	if grep -qF -- "$2" <<<"$out"; then
		ok "$1: says '$2'"
	else
		fail "$1: does not say '$2'"
	fi
}

# lacks NAME TEXT: the last output does not have TEXT.
lacks() {
	if grep -qF -- "$2" <<<"$out"; then
		fail "$1: says '$2'"
	else
		ok "$1: does not say '$2'"
	fi
}

# ---- the clean tree: each layer calls the one below, the driver is a
# line with a KUnit file on top of it.
tree=$work/clean
put userspace/core/core.h <<'EOF'
#ifndef CORE_H
#define CORE_H
#include <stdint.h>
#include <linux/latscope.h>
#define LS_MAX 8
struct ls_stats { uint64_t n; };
void ls_stats_add(struct ls_stats *s, int v);
static inline int ls_twice(int v) { return 2 * v; }
#endif
EOF
put userspace/core/stats.c <<'EOF'
#include "core.h"
int ls_samples;			/* a global of core */
void ls_stats_add(struct ls_stats *s, int v)
{
	s->n += (uint64_t)ls_twice(v);
	ls_samples++;
}
EOF
put userspace/output/output.h <<'EOF'
#include "core/core.h"
void ls_print(const struct ls_stats *s);
EOF
put userspace/output/print.c <<'EOF'
#include <stdio.h>
#include "output.h"
void ls_print(const struct ls_stats *s)
{
	printf("%llu %d\n", (unsigned long long)s->n, ls_samples);
}
EOF
put userspace/run/run.h <<'EOF'
#include "output/output.h"
struct ls_link_ops { int (*open)(void *ctx); };
int ls_run_start(const struct ls_link_ops *ops, void *ctx);
EOF
put userspace/run/engine.c <<'EOF'
#include "run.h"
static struct ls_stats stats;
int ls_run_start(const struct ls_link_ops *ops, void *ctx)
{
	ls_stats_add(&stats, 3);
	ls_print(&stats);
	return ops ? ops->open(ctx) : 0;
}
EOF
put userspace/latmon/latmon.h <<'EOF'
#include "../run/run.h"
extern const struct ls_link_ops ls_client_ops;
EOF
put userspace/latmon/client.c <<'EOF'
#include "latmon.h"
static int client_open(void *ctx) { (void)ctx; return ls_twice(1); }
const struct ls_link_ops ls_client_ops = { .open = client_open };
EOF
put userspace/cli/main.c <<'EOF'
#include <stdlib.h>
#include "latmon/latmon.h"
int main(void)
{
	exit(ls_run_start(&ls_client_ops, NULL));
}
EOF
put driver/latscope.h <<'EOF'
#include <linux/types.h>
#include <uapi/linux/latscope.h>
void latscope_stats_add(u64 v);
int latscope_core_open(void);
EOF
put driver/latscope_kunit.h <<'EOF'
#include "latscope.h"
u64 latscope_kunit_sum(void);
EOF
put driver/stats.c <<'EOF'
#include "latscope.h"
static u64 total;
void latscope_stats_add(u64 v) { total += v; }
EOF
put driver/core.c <<'EOF'
#include "latscope.h"
int latscope_core_open(void)
{
	latscope_stats_add(1);
	return 0;
}
EOF
put driver/stats_kunit.c <<'EOF'
#include "latscope_kunit.h"
u64 latscope_kunit_sum(void) { latscope_stats_add(2); return latscope_core_open(); }
EOF

check "clean tree" 0
says "clean tree" "layers: ok"
says "clean tree" "cli      1 files  uses latmon (2), run (1)"
says "clean tree" "run      2 files  uses output (2), core (1)"
says "clean tree" "core     2 files  uses nothing"
says "clean tree" "driver: 5 files (3 .c, 2 .h; 2 KUnit)"
check "clean tree, --dot" 0 --dot
says "clean tree, --dot" "digraph layers {"
says "clean tree, --dot" '"userspace/cli/main.c" -> "userspace/run/engine.c"'

# ---- core calls into run: an upward link.
tree core-calls-run
put userspace/core/stats.c <<'EOF'
#include "core.h"
int ls_run_start(const void *ops, void *ctx);
int ls_samples;
void ls_stats_add(struct ls_stats *s, int v)
{
	s->n += (uint64_t)v;
	ls_samples = ls_run_start(0, 0);
}
EOF
check "core calls run" 1 --userspace-only
says "core calls run" "userspace/core/stats.c -> userspace/run/engine.c (ls_run_start)"
says "core calls run" "circle: core -> run -> core"
says "core calls run" "layers: FAILED"

# ---- output includes run's header: an upward include.
tree output-includes-run
put userspace/output/print.c <<'EOF'
#include <stdio.h>
#include "output.h"
#include "../run/run.h"
void ls_print(const struct ls_stats *s) { printf("%d\n", (int)s->n); }
EOF
check "upward #include" 1 --userspace-only
says "upward #include" 'userspace/output/print.c -> userspace/run/run.h (#include "../run/run.h")'

# ---- two files of one folder call each other.
tree circle-in-folder
put userspace/run/a.c <<'EOF'
int ls_b(int n);
int ls_a(int n) { return n ? ls_b(n - 1) : 0; }
EOF
put userspace/run/b.c <<'EOF'
int ls_a(int n);
int ls_b(int n) { return n ? ls_a(n - 1) : 1; }
EOF
check "circle in one folder" 1 --userspace-only
says "circle in one folder" "circle: userspace/run/a.c -> userspace/run/b.c -> userspace/run/a.c"
says "circle in one folder" "userspace/run/a.c -> userspace/run/b.c (ls_b)"
says "circle in one folder" "userspace/run/b.c -> userspace/run/a.c (ls_a)"

# ---- the same circle, one half through a header's inline function.
tree circle-via-inline
put userspace/run/a.c <<'EOF'
#include "run.h"
int ls_a(int n) { return ls_b_twice(n); }
EOF
put userspace/run/b.c <<'EOF'
int ls_a(int n);
int ls_b(int n) { return ls_a(n); }
EOF
cat >>"$tree/userspace/run/run.h" <<'EOF'
int ls_b(int n);
static inline int ls_b_twice(int n) { return 2 * ls_b(n); }
EOF
check "circle through an inline function" 1 --userspace-only
says "circle through an inline function" "userspace/run/a.c -> userspace/run/b.c (ls_b via ls_b_twice)"

# ---- names in comments, strings and char literals, a local and a
# parameter of the same name, a member of that name and a static function
# of that name: none of them is a use of run's ls_run_start.
tree not-links
put userspace/core/stats.c <<'EOF'
#include <stdio.h>
#include "core.h"
/* ls_run_start() is run's, not ours: ls_run_start(&ops, ctx); */
// ls_run_start(0, 0);
struct holder { int ls_run_start; };
int ls_samples;
static int ls_print(void) { return puts("ls_run_start() \" ls_print"); }
static int shadow(int ls_run_start) { return ls_run_start + 1; }
void ls_stats_add(struct ls_stats *s, int v)
{
	struct holder h = { .ls_run_start = v };
	struct holder *p = &h;
	int ls_run_start = p->ls_run_start + h.ls_run_start;
	char c = '"';

	s->n += (uint64_t)(ls_run_start + shadow(c) + ls_print());
	ls_samples = 0;
}
#define NOTE "ls_run_start"
#if 0
void f(void) { ls_run_start(0, 0); }
#endif
EOF
check "comments, strings, locals" 0 --userspace-only
lacks "comments, strings, locals" "ls_run_start"
lacks "comments, strings, locals" "ls_print"

# ---- a file outside the layer folders; test folders and generated files
# are not read at all.
tree stray
put userspace/foo.c <<'EOF'
int ls_foo(void) { return 0; }
EOF
put userspace/core/tests/upward.c <<'EOF'
int ls_run_start(const void *ops, void *ctx);
int t(void) { return ls_run_start(0, 0); }
EOF
put userspace/core/table.c <<'EOF'
/* Generated by mktable.py: do not edit. */
int ls_run_start(const void *ops, void *ctx);
int ls_table(void) { return ls_run_start(0, 0); }
EOF
check "not in a layer folder" 1 --userspace-only
says "not in a layer folder" "userspace/foo.c: not in a layer folder"
lacks "not in a layer folder" "upward.c"
lacks "not in a layer folder" "table.c"

# ---- the driver: stats.c calls back into core.c.
tree driver-circle
put driver/stats.c <<'EOF'
#include "latscope.h"
static u64 total;
void latscope_stats_add(u64 v)
{
	total += v;
	if (!total)
		latscope_core_open();
}
EOF
check "driver circle" 1 --driver-only
says "driver circle" "circle: driver/core.c -> driver/stats.c -> driver/core.c"
says "driver circle" "driver/core.c -> driver/stats.c (latscope_stats_add)"
says "driver circle" "driver/stats.c -> driver/core.c (latscope_core_open)"

# ---- the driver: core.c calls a KUnit helper.
tree driver-kunit
put driver/core.c <<'EOF'
#include "latscope.h"
u64 latscope_kunit_sum(void);
int latscope_core_open(void)
{
	latscope_stats_add(1);
	return (int)latscope_kunit_sum();
}
EOF
check "driver uses KUnit" 1 --driver-only
says "driver uses KUnit" "driver/core.c -> driver/stats_kunit.c (latscope_kunit_sum)"

# ---- the driver: stats.c includes the KUnit header.
tree driver-kunit-header
put driver/stats.c <<'EOF'
#include "latscope_kunit.h"
static u64 total;
void latscope_stats_add(u64 v) { total += v; }
EOF
check "driver includes a KUnit header" 1 --driver-only
says "driver includes a KUnit header" 'driver/stats.c -> driver/latscope_kunit.h (#include "latscope_kunit.h")'

echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
