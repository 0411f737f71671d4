/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check of the VM test programs (abi_test.c, fuzz.c): counts it in a
 * tally and prints "ok - NAME", or "not ok - NAME: " and the printf-style
 * reason. Each program ends with its tally's "N passed, N failed".
 */
#ifndef LATSCOPE_TESTS_VM_CHECK_H
#define LATSCOPE_TESTS_VM_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct tally {
	int passed;
	int failed;
};

__attribute__((format(printf, 4, 5)))
static inline void check(struct tally *t, bool ok, const char *name,
			 const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		t->passed++;
		printf("ok - %s\n", name);
		return;
	}
	t->failed++;
	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#endif
