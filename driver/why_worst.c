// SPDX-License-Identifier: GPL-2.0
/*
 * latscope worst-sample recorder: the K worst samples of a session, one
 * record each (built by why_walk.c), kept under a seqcount so that a
 * snapshot copies them while the run goes on, and handed out with their
 * pointers symbolised.
 */
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "why.h"

/**
 * latscope_worst_reset() - forget every record of a set
 * @set: the set, its run not going
 */
void latscope_worst_reset(struct latscope_worst_set *set)
{
	seqcount_init(&set->seq);
	set->nr = 0;
	set->floor = S64_MIN;
	set->floor_slot = 0;
}

/**
 * latscope_worst_claim() - the slot for a sample, if it is among the worst
 * @set: the session's set
 * @lat: the sample
 * @force: take the smallest record's slot even if @lat is not larger
 *
 * A free slot while fewer than K are kept, else the smallest record's if
 * @lat is larger (or @force). The set reads as being written until
 * latscope_worst_done().
 *
 * Context: the session's measuring context.
 * Return: the slot to build the record in, or NULL.
 */
struct latscope_worst *latscope_worst_claim(struct latscope_worst_set *set,
					    s64 lat, bool force)
{
	u32 i;

	if (set->nr < set->k)
		i = set->nr;
	else if (lat > set->floor || force)
		i = set->floor_slot;
	else
		return NULL;
	/* raw_: the kernel and user responders write with preemption on. */
	raw_write_seqcount_begin(&set->seq);
	if (i == set->nr)
		set->nr++;
	return &set->slot[i];
}

/**
 * latscope_worst_done() - end the write latscope_worst_claim() began
 * @set: the set
 */
void latscope_worst_done(struct latscope_worst_set *set)
{
	u32 i;

	if (set->nr == set->k) {
		set->floor = S64_MAX;
		for (i = 0; i < set->nr; i++) {
			if (set->slot[i].why.latency_ns < set->floor) {
				set->floor = set->slot[i].why.latency_ns;
				set->floor_slot = i;
			}
		}
	}
	raw_write_seqcount_end(&set->seq);
}

/**
 * latscope_worst_fill() - put a built record in its slot
 * @set: the set, @set->lock held
 * @slot: the slot it was claimed for
 * @rec: the record; goes in only if the slot still holds its claim
 */
void latscope_worst_fill(struct latscope_worst_set *set, u32 slot,
			 const struct latscope_worst *rec)
{
	if (slot >= set->nr || set->slot[slot].gen != rec->gen)
		return;
	raw_write_seqcount_begin(&set->seq);
	set->slot[slot] = *rec;
	raw_write_seqcount_end(&set->seq);
}

static int latscope_worst_cmp(const void *a, const void *b)
{
	const struct latscope_worst *x = a, *y = b;

	if (x->why.latency_ns != y->why.latency_ns)
		return x->why.latency_ns < y->why.latency_ns ? 1 : -1;
	return x->why.ideal_ns < y->why.ideal_ns ? -1 : 1;
}

#define LATSCOPE_WORST_TRIES	16

/*
 * The name of the code at @addr into @name (@len bytes): "fn+0x1a/0x40
 * [module]" with @offset, else "fn [module]", the module's name dropped
 * first when room is short, as the function's says most. "?" when no
 * symbol resolves (an unloaded module, a BPF program gone, no kallsyms):
 * sprint_symbol() then prints the address itself, and no address leaves
 * the kernel. A symbol never begins with a digit; an address does.
 * @buf: KSYM_SYMBOL_LEN bytes to work in.
 */
static void latscope_worst_symbol(char *name, size_t len, u64 addr,
				  bool offset, char *buf)
{
	char *mod;

	if (offset)
		sprint_symbol(buf, (unsigned long)addr);
	else
		sprint_symbol_no_offset(buf, (unsigned long)addr);
	if (!buf[0] || isdigit(buf[0])) {
		strscpy(name, "?", len);
		return;
	}
	mod = strstr(buf, " [");
	if (mod && strlen(buf) >= len)
		*mod = '\0';
	strscpy(name, buf, len);
}

/**
 * latscope_worst_export() - a set's records, the worst first, as the ABI has them
 * @set: the set; its writer may be running (a snapshot)
 * @tmp: room for @set->k struct latscope_worst; on success it holds
 *	the records as struct latscope_why, back to back
 *
 * Pointers are symbolised here, in process context: a name, or "?".
 *
 * Context: process, may sleep.
 * Return: the records, -EAGAIN if the writer never let a copy be taken
 * whole, or -ENOMEM.
 */
int latscope_worst_export(struct latscope_worst_set *set,
			  struct latscope_worst *tmp)
{
	struct latscope_why *why = (struct latscope_why *)tmp;
	unsigned int seq;
	u32 nr = 0, i, j;
	char *buf;
	int tries;

	for (tries = 0; tries < LATSCOPE_WORST_TRIES; tries++) {
		seq = raw_read_seqcount(&set->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		nr = READ_ONCE(set->nr);
		memcpy(tmp, set->slot, nr * sizeof(*tmp));
		if (!read_seqcount_retry(&set->seq, seq))
			break;
	}
	if (tries == LATSCOPE_WORST_TRIES)
		return -EAGAIN;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	sort(tmp, nr, sizeof(*tmp), latscope_worst_cmp, NULL);
	for (i = 0; i < nr; i++) {
		struct latscope_worst *w = &tmp[i];

		if (w->where)
			latscope_worst_symbol(w->why.where, sizeof(w->why.where),
					      w->where, true, buf);
		for (j = 0; j < w->why.nr_items; j++)
			if (w->fn[j])
				latscope_worst_symbol(w->why.item[j].name,
						      sizeof(w->why.item[j].name),
						      w->fn[j], false, buf);
		/* Packed forward: record i never lies past worst i. */
		memmove(&why[i], &w->why, sizeof(*why));
	}
	kfree(buf);
	return nr;
}
