// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO lines from the device tree: a platform driver for the
 * device with compatible "latscope,gpio" and the properties
 * pulse-in-gpios, ack-out-gpios and, for loopback, pulse-out-gpios; or,
 * for a board that is the monitor of another (the monitor role),
 * pulse-out-gpios and ack-in-gpios.
 * Probing requests the lines, so gpioinfo shows them held by latscope from
 * boot; a GPIO session that asks for LATSCOPE_GPIO_FROM_DT borrows them
 * for its run.
 * The optional latscope,edge ("rising", "falling" or "both") is the edge
 * of a session that does not choose one: pulse-in's (rising without it),
 * or in the monitor role ack-in's (falling without it, as latmus answers).
 *
 * The lines live in a refcounted holder: unbinding the device while a
 * session has them leaves them with the session until it ends.
 */
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/kref.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "gpio-internal.h"

struct latscope_dt_lines {
	struct kref ref;
	/*
	 * in: pulse-in, or ack-in (monitor role); ack: none in the monitor
	 * role; out: none without pulse-out-gpios.
	 */
	struct latscope_gpio_lines lines;
	bool monitor;			/* ack-in-gpios: the monitor role */
	u32 edge;			/* enum latscope_gpio_edge */
	bool lent;			/* to a session, under latscope_dt_lock */
};

static DEFINE_MUTEX(latscope_dt_lock);
static struct latscope_dt_lines *latscope_dt;	/* the bound device's */

static void latscope_dt_free(struct kref *ref)
{
	struct latscope_dt_lines *d = container_of(ref, struct latscope_dt_lines, ref);

	latscope_gpio_lines_put(&d->lines);
	kfree(d);
}

/**
 * latscope_dt_borrow() - lend the device tree's lines to a session
 * @lines: filled with the lines: pulse-in, ack-out, and pulse-out but in
 *	remote mode (in the monitor role: ack-in as pulse-in, pulse-out)
 * @edge: set to the device's edge (its latscope,edge, or the default)
 * @mode: the session's enum latscope_gpio_mode
 *
 * One session at a time holds them, until latscope_dt_return().
 *
 * Context: process; takes latscope_dt_lock.
 * Return: what latscope_dt_return() takes back, or ERR_PTR(-ENODEV) if no
 * device is bound or not one for @mode (loopback needs pulse-out, monitor
 * mode the monitor role, the other modes the other role), or
 * ERR_PTR(-EBUSY) if another session has them.
 */
struct latscope_dt_lines *latscope_dt_borrow(struct latscope_gpio_lines *lines,
					     u32 *edge, u32 mode)
{
	bool loopback = mode == LATSCOPE_GPIO_LOOPBACK;
	bool monitor = mode == LATSCOPE_GPIO_MONITOR;
	struct latscope_dt_lines *d;
	int ret = 0;

	mutex_lock(&latscope_dt_lock);
	d = latscope_dt;
	if (!d || d->monitor != monitor || (loopback && !d->lines.out))
		ret = -ENODEV;
	else if (d->lent)
		ret = -EBUSY;
	if (!ret) {
		d->lent = true;
		kref_get(&d->ref);
		*lines = d->lines;
		if (mode == LATSCOPE_GPIO_REMOTE)
			lines->out = NULL;
		*edge = d->edge;
	}
	mutex_unlock(&latscope_dt_lock);
	return ret ? ERR_PTR(ret) : d;
}

/*
 * pulse-out at the device's idle level, raw as the GPIO source drives it
 * (an active-low specifier does not invert the electrical edge). A
 * monitor's polarity is its session's, which leaves it idle at the end.
 */
static void latscope_dt_idle(struct latscope_dt_lines *d)
{
	if (d->lines.out && !d->monitor)
		gpiod_set_raw_value_cansleep(d->lines.out, latscope_gpio_idle_level(d->edge));
}

/**
 * latscope_dt_return() - take back the lines latscope_dt_borrow() lent
 * @d: what it returned
 *
 * pulse-out goes back to the device's idle level, whatever edge the
 * session used; if the device was unbound meanwhile, this last holder
 * frees the lines.
 *
 * Context: process, may sleep.
 */
void latscope_dt_return(struct latscope_dt_lines *d)
{
	latscope_dt_idle(d);
	mutex_lock(&latscope_dt_lock);
	d->lent = false;
	mutex_unlock(&latscope_dt_lock);
	kref_put(&d->ref, latscope_dt_free);
}

/* latscope,edge's values, in enum latscope_gpio_edge order from 1. */
static const char *const latscope_edge_names[] = { "rising", "falling", "both" };

/**
 * latscope_dt_edge_parse() - the edge a latscope,edge value names
 * @name: the value: "rising", "falling" or "both"
 *
 * Return: its enum latscope_gpio_edge, or -EINVAL for any other string.
 */
int latscope_dt_edge_parse(const char *name)
{
	int i = match_string(latscope_edge_names, ARRAY_SIZE(latscope_edge_names), name);

	return i < 0 ? -EINVAL : i + LATSCOPE_EDGE_RISING;
}

/**
 * latscope_dt_edge_name() - the latscope,edge value of an edge
 * @edge: a valid enum latscope_gpio_edge (not 0)
 *
 * Return: "rising", "falling" or "both".
 */
const char *latscope_dt_edge_name(u32 edge)
{
	return latscope_edge_names[edge - LATSCOPE_EDGE_RISING];
}

/* latscope,edge, or @none without it. */
static int latscope_dt_edge(struct device *dev, int none)
{
	const char *name;
	int ret;

	if (device_property_read_string(dev, "latscope,edge", &name))
		return none;
	ret = latscope_dt_edge_parse(name);
	if (ret < 0)
		dev_err(dev, "latscope,edge \"%s\" is not rising, falling or both\n", name);
	return ret;
}

/* The board under test's lines: pulse-in, ack-out, optional pulse-out. */
static int latscope_dt_get_sut(struct latscope_dt_lines *d, struct device *dev)
{
	d->lines.in = gpiod_get(dev, "pulse-in", GPIOD_IN);
	if (IS_ERR(d->lines.in))
		return dev_err_probe(dev, PTR_ERR(d->lines.in), "pulse-in-gpios\n");
	d->lines.ack = gpiod_get(dev, "ack-out", GPIOD_OUT_LOW);
	if (IS_ERR(d->lines.ack))
		return dev_err_probe(dev, PTR_ERR(d->lines.ack), "ack-out-gpios\n");
	d->lines.out = gpiod_get_optional(dev, "pulse-out",
					  latscope_gpio_idle_level(d->edge) ?
					  GPIOD_OUT_HIGH : GPIOD_OUT_LOW);
	if (IS_ERR(d->lines.out))
		return dev_err_probe(dev, PTR_ERR(d->lines.out), "pulse-out-gpios\n");
	gpiod_set_consumer_name(d->lines.in, "latscope pulse-in");
	gpiod_set_consumer_name(d->lines.ack, "latscope ack-out");
	if (d->lines.out)
		gpiod_set_consumer_name(d->lines.out, "latscope pulse-out");
	return 0;
}

/* The monitor role's lines: pulse-out to the other board, ack-in from it. */
static int latscope_dt_get_monitor(struct latscope_dt_lines *d, struct device *dev)
{
	d->lines.in = gpiod_get(dev, "ack-in", GPIOD_IN);
	if (IS_ERR(d->lines.in))
		return dev_err_probe(dev, PTR_ERR(d->lines.in), "ack-in-gpios\n");
	d->lines.out = gpiod_get(dev, "pulse-out", GPIOD_OUT_LOW);
	if (IS_ERR(d->lines.out))
		return dev_err_probe(dev, PTR_ERR(d->lines.out), "pulse-out-gpios\n");
	gpiod_set_consumer_name(d->lines.in, "latscope ack-in");
	gpiod_set_consumer_name(d->lines.out, "latscope pulse-out");
	return 0;
}

static int latscope_dt_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	bool monitor = device_property_present(dev, "ack-in-gpios");
	struct latscope_dt_lines *d;
	int ret;

	ret = latscope_dt_edge(dev, monitor ? LATSCOPE_EDGE_FALLING : LATSCOPE_EDGE_RISING);
	if (ret < 0)
		return ret;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	kref_init(&d->ref);
	d->edge = ret;
	d->monitor = monitor;
	ret = monitor ? latscope_dt_get_monitor(d, dev) : latscope_dt_get_sut(d, dev);
	if (ret)
		goto put;
	latscope_dt_idle(d);
	ret = gpiod_to_irq(d->lines.in);
	if (ret < 0) {
		dev_err(dev, "%s line cannot interrupt: %d\n",
			monitor ? "ack-in" : "pulse-in", ret);
		goto put;
	}

	mutex_lock(&latscope_dt_lock);
	if (latscope_dt) {
		mutex_unlock(&latscope_dt_lock);
		dev_err(dev, "another latscope device is bound already\n");
		ret = -EBUSY;
		goto put;
	}
	latscope_dt = d;
	mutex_unlock(&latscope_dt_lock);
	platform_set_drvdata(pdev, d);
	if (monitor)
		dev_info(dev, "monitor role: ack-in irq %d, %s edge, pulse-out present\n", ret,
			 latscope_dt_edge_name(d->edge));
	else
		dev_info(dev, "pulse-in irq %d, %s edge, %s\n", ret,
			 latscope_dt_edge_name(d->edge),
			 d->lines.out ? "loopback pulse-out present" :
					"no pulse-out (remote only)");
	return 0;

put:
	latscope_gpio_lines_put(&d->lines);
	kfree(d);
	return ret;
}

static void latscope_dt_remove(struct platform_device *pdev)
{
	struct latscope_dt_lines *d = platform_get_drvdata(pdev);

	mutex_lock(&latscope_dt_lock);
	latscope_dt = NULL;
	mutex_unlock(&latscope_dt_lock);
	kref_put(&d->ref, latscope_dt_free);
}

#ifdef LATSCOPE_PLATFORM_INT_REMOVE
/* Before 6.3 the hook returned int, which can only be 0 (compat.h). */
static int latscope_dt_remove_hook(struct platform_device *pdev)
{
	latscope_dt_remove(pdev);
	return 0;
}
#else
#define latscope_dt_remove_hook	latscope_dt_remove
#endif

static const struct of_device_id latscope_dt_ids[] = {
	{ .compatible = "latscope,gpio" },
	{ }
};
MODULE_DEVICE_TABLE(of, latscope_dt_ids);

static struct platform_driver latscope_dt_driver = {
	.probe = latscope_dt_probe,
	.LATSCOPE_PLATFORM_REMOVE = latscope_dt_remove_hook,
	.driver = {
		.name = "latscope-gpio",
		.of_match_table = latscope_dt_ids,
	},
};

/**
 * latscope_dt_init() - register the "latscope,gpio" platform driver
 *
 * The GPIO source's &latscope_source.init.
 *
 * Context: module init.
 * Return: 0, or the error of platform_driver_register().
 */
int latscope_dt_init(void)
{
	return platform_driver_register(&latscope_dt_driver);
}

/**
 * latscope_dt_exit() - unregister the "latscope,gpio" platform driver
 *
 * The GPIO source's &latscope_source.exit; no session holds its lines.
 *
 * Context: module exit.
 */
void latscope_dt_exit(void)
{
	platform_driver_unregister(&latscope_dt_driver);
}
