/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the latscope KUnit files share. */
#ifndef LATSCOPE_KUNIT_H
#define LATSCOPE_KUNIT_H

#include <kunit/test.h>

#include "latscope.h"

#define NS_PER_US	1000ULL
#define NS_PER_MS	1000000ULL

/* Where synthetic timelines start. */
#define T0_NOW	(5 * NSEC_PER_SEC)

void latscope_kunit_destroy(void *s);
void latscope_kunit_kvfree(void *p);
struct latscope_setup latscope_base_setup(u32 context, u64 period_ns);
struct latscope_session *
latscope_kunit_session(struct kunit *test, const struct latscope_setup *setup);
struct latscope_result latscope_kunit_result(struct kunit *test,
					     struct latscope_session *s);
bool latscope_ring_pop(struct latscope_ring *ring, struct latscope_bulk *rec);
bool latscope_ring_pop_whole(struct latscope_ring *ring,
			     struct latscope_noise_bulk *rec);
u64 latscope_tail_sum(const u64 *tail);

#endif /* LATSCOPE_KUNIT_H */
