// SPDX-License-Identifier: GPL-2.0
/*
 * latscope event sources by uapi id (enum latscope_source_id): the one
 * table a new source is added to, and the module-wide set-up of each.
 */
#include <linux/kernel.h>
#include <linux/compiler.h>

#include "latscope.h"

/* KUnit lends a spare slot to a test-only source. */
static const struct latscope_source *latscope_sources[LATSCOPE_SOURCE_SLOTS] = {
	[LATSCOPE_SRC_TIMER] = &latscope_timer_source,
	[LATSCOPE_SRC_GPIO] = &latscope_gpio_source,
};

/* The source of uapi id @id, or NULL for none. */
const struct latscope_source *latscope_source_of(u32 id)
{
	if (id >= ARRAY_SIZE(latscope_sources))
		return NULL;
	return READ_ONCE(latscope_sources[id]);
}

#if IS_ENABLED(CONFIG_LATSCOPE_KUNIT_TEST)
/* Puts @src in slot @id for a test; returns what was there. */
const struct latscope_source *
latscope_source_swap(u32 id, const struct latscope_source *src)
{
	const struct latscope_source *old = latscope_sources[id];

	WRITE_ONCE(latscope_sources[id], src);
	return old;
}
#endif

static void latscope_sources_exit_from(unsigned int n)
{
	const struct latscope_source *src;

	while (n--) {
		src = latscope_sources[n];
		if (src && src->exit)
			src->exit();
	}
}

/* What each source needs module-wide; all or nothing. */
int latscope_sources_init(void)
{
	const struct latscope_source *src;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(latscope_sources); i++) {
		src = latscope_sources[i];
		if (!src || !src->init)
			continue;
		ret = src->init();
		if (ret) {
			latscope_sources_exit_from(i);
			return ret;
		}
	}
	return 0;
}

void latscope_sources_exit(void)
{
	latscope_sources_exit_from(ARRAY_SIZE(latscope_sources));
}
