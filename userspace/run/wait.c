// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the wait for a run's end. Every signal that ends a run is
 * blocked in every thread and taken here, in the main thread, by
 * sigwait(): Ctrl-C, SIGTERM, SIGHUP, SIGQUIT (an end as the others, so
 * --apply-setup's changes are set back), the -T alarm, and the SIGUSR1
 * the logger sends (-A, -b, weird figures, a session that ended by
 * itself, stdout closed).
 * Meanwhile, with --checkpoint, the files are rewritten on time.
 */
#include <errno.h>
#include <unistd.h>

#include "run/engine.h"

/*
 * Blocks the signals that end a run, for this thread and those it starts;
 * @old gets the mask from before, for ls_unblock_signals().
 */
void ls_block_signals(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGALRM);
	sigaddset(set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, set, old);
}

/*
 * Gives this thread its mask from before the run back. A signal of @set
 * still pending was for the run, which is over (a second Ctrl-C, an alarm
 * that fired at the stop, the logger's SIGUSR1 for the last partial
 * second): it is taken here, not delivered, so its default action cannot
 * end the program before the results are written.
 */
void ls_unblock_signals(const sigset_t *set, const sigset_t *old)
{
	const struct timespec now = { 0 };

	while (sigtimedwait(set, NULL, &now) > 0)
		;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * Waits for the end of the run, writing a checkpoint every checkpoint_s
 * seconds past the warm-up meanwhile. Returns the exit code the end asks
 * for: the logger's for SIGUSR1, else LS_EXIT_OK.
 */
int ls_wait_for_end(struct run *run, const struct ls_report *r)
{
	unsigned long long every = run->p->checkpoint_s, timeout_s = run->p->timeout_s;
	struct timespec next, now, left;
	int sig = 0;

	if (timeout_s)
		alarm((unsigned int)(timeout_s + ls_lead_s(run->p)));	/* + the warm-up */
	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += (time_t)every + 1;
	while (every) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = next.tv_sec - now.tv_sec;
		left.tv_nsec = next.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0) {
			left.tv_sec = 0;
			left.tv_nsec = 0;
		}
		sig = sigtimedwait(&run->signals, NULL, &left);
		if (sig > 0)
			break;
		if (errno == EAGAIN) {
			ls_checkpoint(run, r);
			next.tv_sec += (time_t)every;
		}
	}
	while (!every && sigwait(&run->signals, &sig))
		;
	alarm(0);
	return sig == SIGUSR1 ? atomic_load(&run->exit_code) : LS_EXIT_OK;
}
