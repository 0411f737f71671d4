// SPDX-License-Identifier: GPL-2.0
/*
 * What the latscope KUnit files share: sessions made and destroyed for a
 * test, their results, and memory freed when a test ends.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/mm.h>

#include "latscope.h"
#include "latscope_kunit.h"

/**
 * latscope_kunit_destroy() - destroy a session, as a KUnit deferred action
 * @s: the session (struct latscope_session *)
 */
void latscope_kunit_destroy(void *s)
{
	latscope_session_destroy(s);
}

/**
 * latscope_kunit_kvfree() - kvfree(), as a KUnit deferred action
 * @p: what kvmalloc() and its kin gave, or NULL
 *
 * For memory the driver allocates and hands to its caller (the result's
 * copy, a flight record), which kunit_kzalloc() cannot take over.
 */
void latscope_kunit_kvfree(void *p)
{
	kvfree(p);
}

/**
 * latscope_base_setup() - a valid timer setup for a test to start from
 * @context: its enum latscope_context
 * @period_ns: its period
 *
 * On the first online CPU, with no warm-up, the other fields defaults.
 *
 * Return: the setup.
 */
struct latscope_setup latscope_base_setup(u32 context, u64 period_ns)
{
	struct latscope_setup setup = {
		.size = sizeof(setup),
		.context = context,
		.period_ns = period_ns,
		.cpu = cpumask_first(cpu_online_mask),
		.flags = LATSCOPE_SETUP_NO_WARMUP,
	};

	return setup;
}

/**
 * latscope_kunit_session() - a session set up for a test
 * @test: the test; it fails if the session cannot be made or set up
 * @setup: the setup
 *
 * Destroyed when the test ends.
 *
 * Return: the session, set up and not started.
 */
struct latscope_session *
latscope_kunit_session(struct kunit *test, const struct latscope_setup *setup)
{
	struct latscope_session *s = latscope_session_create(NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, setup, true), 0);
	return s;
}

/**
 * latscope_kunit_result() - the result of a session that is not running
 * @test: the test; a failed GET_RESULT fails it
 * @s: the session
 *
 * Return: the result, without histograms.
 */
struct latscope_result latscope_kunit_result(struct kunit *test,
					     struct latscope_session *s)
{
	struct latscope_result res = {};

	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), 0);
	return res;
}

/**
 * latscope_ring_pop() - take the oldest record, as a read() of one would
 * @ring: the ring
 * @rec: the record taken
 *
 * Return: true if a record was taken, false if the ring was empty.
 */
bool latscope_ring_pop(struct latscope_ring *ring, struct latscope_bulk *rec)
{
	struct latscope_noise_bulk whole;

	if (!latscope_ring_pop_whole(ring, &whole))
		return false;
	*rec = whole.bulk;
	return true;
}

/**
 * latscope_ring_pop_whole() - take the oldest record, a noise session's whole
 * @ring: the ring
 * @rec: the record taken
 *
 * Return: true if a record was taken, false if the ring was empty.
 */
bool latscope_ring_pop_whole(struct latscope_ring *ring,
			     struct latscope_noise_bulk *rec)
{
	struct latscope_ring_pos pos;

	return latscope_ring_peek(ring, rec, 1, &pos) &&
	       latscope_ring_consume(ring, &pos, 1);
}

/**
 * latscope_tail_sum() - the samples in a tail
 * @tail: its LATSCOPE_TAIL_BUCKETS buckets
 *
 * Return: the sum of its buckets.
 */
u64 latscope_tail_sum(const u64 *tail)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++)
		sum += tail[i];
	return sum;
}
