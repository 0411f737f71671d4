// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO lines named at run time by chip label and offset: a
 * gpiolib lookup table for the session's device, put in place just for
 * the gpiod_get() calls, so the lines are requested like any driver's.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/machine.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "gpio-internal.h"

/* Serialises the lookup table that hands run-time lines to gpiod_get(). */
static DEFINE_MUTEX(latscope_gpio_lookup_lock);

/* A run-time line for gpiod_get(): chip label and offset under @con_id. */
static void latscope_gpio_lookup_fill(struct gpiod_lookup *p,
				      const struct latscope_gpio_line *line,
				      const char *con_id)
{
	p->key = line->chip;
	p->chip_hwnum = line->offset;
	p->con_id = con_id;
}

static struct gpio_desc *latscope_gpio_request(struct device *dev,
					       const char *con_id,
					       const char *label,
					       enum gpiod_flags flags)
{
	struct gpio_desc *desc = gpiod_get(dev, con_id, flags);

	if (IS_ERR(desc))
		return desc;
	gpiod_set_consumer_name(desc, label);
	return desc;
}

static int latscope_gpio_request_all(struct latscope_gpio_lines *lines,
				     const struct latscope_gpio_setup *gs,
				     struct device *dev)
{
	bool monitor = gs->mode == LATSCOPE_GPIO_MONITOR;
	enum gpiod_flags idle = latscope_gpio_out_idle(gs->mode, gs->edge, gs->flags) ?
				GPIOD_OUT_HIGH : GPIOD_OUT_LOW;
	enum gpiod_flags ack_idle = gs->flags & LATSCOPE_GPIO_ACK_PULSE ?
				    GPIOD_OUT_HIGH : GPIOD_OUT_LOW;

	lines->in = latscope_gpio_request(dev, "pulse-in",
					  monitor ? "latscope ack-in" : "latscope pulse-in",
					  GPIOD_IN);
	if (IS_ERR(lines->in))
		return PTR_ERR(lines->in);
	if (!monitor) {
		lines->ack = latscope_gpio_request(dev, "ack-out", "latscope ack-out",
						   ack_idle);
		if (IS_ERR(lines->ack))
			return PTR_ERR(lines->ack);
	}
	if (gs->mode == LATSCOPE_GPIO_REMOTE)
		return 0;
	lines->out = latscope_gpio_request(dev, "pulse-out", "latscope pulse-out",
					   idle);
	return PTR_ERR_OR_ZERO(lines->out);
}

/**
 * latscope_gpio_lines_put() - give back the lines of a session
 * @lines: the lines; safe on partly requested ones, all NULL on return
 *
 * Context: process, may sleep.
 */
void latscope_gpio_lines_put(struct latscope_gpio_lines *lines)
{
	if (!IS_ERR_OR_NULL(lines->out))
		gpiod_put(lines->out);
	if (!IS_ERR_OR_NULL(lines->ack))
		gpiod_put(lines->ack);
	if (!IS_ERR_OR_NULL(lines->in))
		gpiod_put(lines->in);
	lines->in = NULL;
	lines->ack = NULL;
	lines->out = NULL;
}

/**
 * latscope_gpio_lines_get() - request the lines a GPIO setup names
 * @lines: filled with pulse-in, and ack-out and pulse-out as the mode
 *	has them
 * @gs: the setup's GPIO part, checked: chip labels and offsets
 * @dev: the device the lines are requested for
 *
 * pulse-out and ack-out start at their idle levels.
 *
 * Context: process, may sleep.
 * Return: 0; -ENODEV if @dev is NULL or no chip has a label named;
 * -EINVAL for an offset past its chip; -EBUSY for a line in use;
 * -ENOMEM. On error nothing is held.
 */
int latscope_gpio_lines_get(struct latscope_gpio_lines *lines,
			    const struct latscope_gpio_setup *gs,
			    struct device *dev)
{
	struct gpiod_lookup_table *table;
	struct gpiod_lookup *p;
	int ret;

	if (!dev)
		return -ENODEV;
	table = kzalloc(struct_size(table, table, 4), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table->dev_id = dev_name(dev);
	p = table->table;
	latscope_gpio_lookup_fill(p++, &gs->pulse_in, "pulse-in");
	if (gs->mode != LATSCOPE_GPIO_MONITOR)
		latscope_gpio_lookup_fill(p++, &gs->ack_out, "ack-out");
	if (gs->mode != LATSCOPE_GPIO_REMOTE)
		latscope_gpio_lookup_fill(p, &gs->pulse_out, "pulse-out");

	mutex_lock(&latscope_gpio_lookup_lock);
	gpiod_add_lookup_table(table);
	ret = latscope_gpio_request_all(lines, gs, dev);
	gpiod_remove_lookup_table(table);
	mutex_unlock(&latscope_gpio_lookup_lock);
	kfree(table);
	if (ret)
		latscope_gpio_lines_put(lines);
	/* A chip that is not there is "deferred" to drivers, absent to us. */
	return ret == -EPROBE_DEFER ? -ENODEV : ret;
}
