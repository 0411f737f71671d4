// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the N-queens problem, counted by backtracking over bit
 * masks: a fixed amount of CPU work (the cost suite's solver) whose
 * answer, checked against the known counts, proves the work was done.
 */
#include "cost/cost.h"

/* Solutions on the rows below, given the columns and diagonals taken. */
static unsigned long long place(unsigned int all, unsigned int cols, unsigned int left,
				unsigned int right)
{
	unsigned long long n = 0;
	unsigned int free;

	if (cols == all)
		return 1;
	free = all & ~(cols | left | right);
	while (free) {
		unsigned int bit = free & -free;

		free -= bit;
		n += place(all, cols | bit, (left | bit) << 1, (right | bit) >> 1);
	}
	return n;
}

/* The solutions of the n-queens problem, 1 <= n <= LS_QUEENS_MAX. */
unsigned long long ls_queens(unsigned int n)
{
	if (!n || n > LS_QUEENS_MAX)
		return 0;
	return place((1u << n) - 1, 0, 0, 0);
}

/* The known count for n (OEIS A000170), 0 past the table. */
unsigned long long ls_queens_known(unsigned int n)
{
	static const unsigned long long known[LS_QUEENS_MAX + 1] = {
		0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
		2279184, 14772512,
	};

	return n <= LS_QUEENS_MAX ? known[n] : 0;
}
