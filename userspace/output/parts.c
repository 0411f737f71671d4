// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: each event source's own result block, one row per
 * source (enum latscope_source_id), beside core/source.c's row of the
 * same source: its summary lines, its plot header lines, its JSON object.
 * A source with nothing of its own has no row, or NULL hooks.
 */
#include "output/output.h"

static const struct ls_source_output outputs[] = {
	[LATSCOPE_SRC_GPIO] = {
		.print_summary = ls_gpio_print_summary,
		.write_plot = ls_gpio_write_plot,
		.write_json = ls_gpio_write_json,
	},
	[LATSCOPE_SRC_NOISE] = {
		.print_summary = ls_noise_print_summary,
		.write_plot = ls_noise_write_plot,
		.write_json = ls_noise_write_json,
		.format_header = ls_noise_format_header,
		.format_second = ls_noise_format_second,
	},
};

static const struct ls_source_output none;

/* The result block of source @id (LATSCOPE_SRC_*): never NULL. */
const struct ls_source_output *ls_source_output(unsigned int id)
{
	return id < ARRAY_SIZE(outputs) ? &outputs[id] : &none;
}
