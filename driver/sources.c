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
	[LATSCOPE_SRC_NOISE] = &latscope_noise_source,
};

/**
 * latscope_source_of() - the source of a uapi source id
 * @id: an enum latscope_source_id, unchecked
 *
 * Return: the source, or NULL if no source has @id.
 */
const struct latscope_source *latscope_source_of(u32 id)
{
	if (id >= ARRAY_SIZE(latscope_sources))
		return NULL;
	return READ_ONCE(latscope_sources[id]);
}

#if IS_ENABLED(CONFIG_LATSCOPE_KUNIT_TEST)
/**
 * latscope_source_swap() - put a test's source in a slot of the table
 * @id: the slot, below LATSCOPE_SOURCE_SLOTS
 * @src: the source, or what a previous swap returned to put it back
 *
 * KUnit only: a test plugs in a source of its own through the same table
 * the uapi ids reach.
 *
 * Return: what was in the slot, NULL if nothing.
 */
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

/**
 * latscope_sources_init() - what each source needs module-wide
 *
 * Calls each source's &latscope_source.init; all or nothing.
 *
 * Context: module init.
 * Return: 0, or the first error, with the sources before it undone.
 */
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

/**
 * latscope_sources_exit() - undo latscope_sources_init()
 *
 * Calls each source's &latscope_source.exit, last first.
 *
 * Context: module exit, or a failed init.
 */
void latscope_sources_exit(void)
{
	latscope_sources_exit_from(ARRAY_SIZE(latscope_sources));
}
