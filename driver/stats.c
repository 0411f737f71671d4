// SPDX-License-Identifier: GPL-2.0
/*
 * latscope statistics: running min/max/sum/sum of squares, a histogram
 * of linear cells with underflow and overflow counts, a logarithmic tail
 * for the samples past the last cell, and the ring that carries the 1 Hz
 * bulk records to the logger. Everything here is O(1) per sample, never
 * allocates and never sleeps: it runs on the measurement path.
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "latscope.h"

/**
 * latscope_acc_init() - clear an accumulator and hand it its counters
 * @acc: the accumulator
 * @cells: its histogram, @nr_cells cells, or NULL for none
 * @nr_cells: cells in @cells, 0 for none
 * @cell_ns: the width of a cell, in ns
 * @tail: its LATSCOPE_TAIL_BUCKETS tail buckets, which every accumulator
 *	has: every sample past the cells goes there
 *
 * The counters are cleared too. Nobody may add to @acc meanwhile.
 */
void latscope_acc_init(struct latscope_acc *acc, u64 *cells, u32 nr_cells,
		       u32 cell_ns, u64 *tail)
{
	memset(acc, 0, sizeof(*acc));
	seqcount_init(&acc->seq);
	acc->min = S64_MAX;
	acc->max = S64_MIN;
	acc->cells = cells;
	acc->nr_cells = nr_cells;
	acc->cell_ns = cell_ns;
	acc->span = (u64)nr_cells * cell_ns;
	acc->tail = tail;
	if (cells)
		memset(cells, 0, nr_cells * sizeof(*cells));
	memset(tail, 0, LATSCOPE_TAIL_BUCKETS * sizeof(*tail));
}

/* Adds v * v to the 128-bit sum (hi:lo) without a 128-bit type. */
static void latscope_add_square(u64 *lo, u64 *hi, u64 v)
{
	u64 vl = lower_32_bits(v), vh = upper_32_bits(v);
	u64 sq_lo, sq_hi, mid;

	if (!vh) {
		sq_lo = vl * vl;
		sq_hi = 0;
	} else {
		/* v^2 = vh^2 << 64 + 2 * vh * vl << 32 + vl^2 */
		mid = vh * vl;
		sq_lo = vl * vl + (mid << 33);
		sq_hi = vh * vh + (mid >> 31) + (sq_lo < (mid << 33));
	}
	*lo += sq_lo;
	*hi += sq_hi + (*lo < sq_lo);
}

/**
 * latscope_acc_add() - add one sample to an accumulator
 * @acc: the accumulator
 * @lat: the sample's latency, in ns; negative ones go to the underflow
 * @ideal: the ideal time of its event, kept if it is the new maximum
 *
 * O(1), never sleeps. One writer at a time; latscope_acc_snapshot() may
 * read meanwhile.
 *
 * Context: any, hard irq included.
 */
void latscope_acc_add(struct latscope_acc *acc, s64 lat, u64 ideal)
{
	u64 mag = lat < 0 ? -(u64)lat : (u64)lat;

	/* raw_: the kernel and user responders write with preemption on. */
	raw_write_seqcount_begin(&acc->seq);
	acc->samples++;
	acc->sum += lat;
	latscope_add_square(&acc->sum_sq_lo, &acc->sum_sq_hi, mag);
	if (lat < acc->min)
		acc->min = lat;
	if (lat > acc->max) {
		acc->max = lat;
		acc->peak = ideal;
	}
	if (lat < 0) {
		acc->underflow++;
	} else if ((u64)lat >= acc->span) {
		acc->overflow++;
		acc->tail[latscope_tail_index(lat)]++;
	} else {
		acc->cells[div_u64((u64)lat, acc->cell_ns)]++;
	}
	raw_write_seqcount_end(&acc->seq);
}

/**
 * latscope_acc_export() - copy an accumulator's statistics to the uapi form
 * @acc: the accumulator, not written to meanwhile
 * @out: where they go; all zero but the count if there is no sample
 */
void latscope_acc_export(const struct latscope_acc *acc,
			 struct latscope_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->samples = acc->samples;
	if (!acc->samples)
		return;
	out->min_ns = acc->min;
	out->max_ns = acc->max;
	out->sum_ns = acc->sum;
	out->sum_sq_lo = acc->sum_sq_lo;
	out->sum_sq_hi = acc->sum_sq_hi;
	out->peak_ns = acc->peak;
	out->underflow = acc->underflow;
	out->overflow = acc->overflow;
}

/* Attempts at a snapshot before giving up on a writer that is too busy. */
#define LATSCOPE_SNAPSHOT_TRIES	64

/**
 * latscope_acc_snapshot() - copy an accumulator its writer may be adding to
 * @acc: the accumulator
 * @out: its statistics
 * @cells: a copy of its histogram (@acc->nr_cells cells), or NULL
 * @tail: a copy of its tail (LATSCOPE_TAIL_BUCKETS buckets), or NULL
 *
 * Retried until no sample landed during the copy, so @out, @cells and
 * @tail agree with one another.
 *
 * Return: 0, or -EAGAIN if every attempt was overtaken by a sample (a
 * histogram too big to copy between two of them).
 */
int latscope_acc_snapshot(struct latscope_acc *acc, struct latscope_stats *out,
			  u64 *cells, u64 *tail)
{
	unsigned int seq;
	int i;

	for (i = 0; i < LATSCOPE_SNAPSHOT_TRIES; i++) {
		seq = raw_read_seqcount(&acc->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		latscope_acc_export(acc, out);
		if (cells)
			memcpy(cells, acc->cells, acc->nr_cells * sizeof(*cells));
		if (tail)
			memcpy(tail, acc->tail, LATSCOPE_TAIL_BUCKETS * sizeof(*tail));
		if (!read_seqcount_retry(&acc->seq, seq))
			return 0;
	}
	return -EAGAIN;
}

/**
 * latscope_ring_init() - set up an empty ring of bulk records
 * @ring: the ring
 */
void latscope_ring_init(struct latscope_ring *ring)
{
	mutex_init(&ring->lock);
	latscope_ring_reset(ring, sizeof(struct latscope_bulk));
}

/**
 * latscope_ring_reset() - empty a ring and clear its drop count
 * @ring: the ring; its producer is not running
 * @size: the bytes read() hands out of each record it will hold
 *
 * A consumer's peek from before the reset takes nothing
 * (latscope_ring_consume()).
 *
 * Context: process; takes @ring->lock.
 */
void latscope_ring_reset(struct latscope_ring *ring, size_t size)
{
	mutex_lock(&ring->lock);
	ring->head = 0;
	ring->tail = 0;
	ring->dropped = 0;
	ring->gen++;
	ring->size = size;
	mutex_unlock(&ring->lock);
}

/**
 * latscope_ring_push() - queue a bulk record, or count it dropped
 * @ring: the ring
 * @rec: the record, copied
 *
 * The producer's side: never waits. A full ring counts the record in
 * @ring->dropped.
 *
 * Context: any, hard irq included; one producer at a time.
 * Return: true if @rec was queued, false if it was dropped.
 */
bool latscope_ring_push(struct latscope_ring *ring,
			const struct latscope_noise_bulk *rec)
{
	u32 head = ring->head;

	/* Acquire: the consumer is done with the slot it freed. */
	if (head - smp_load_acquire(&ring->tail) >= LATSCOPE_BULK_SLOTS) {
		ring->dropped++;
		return false;
	}
	ring->slot[head % LATSCOPE_BULK_SLOTS] = *rec;
	/* Release: publish the slot before the index that makes it readable. */
	smp_store_release(&ring->head, head + 1);
	return true;
}

/**
 * latscope_ring_empty() - whether a ring has no record to read
 * @ring: the ring
 *
 * Return: true if no record is queued.
 */
bool latscope_ring_empty(struct latscope_ring *ring)
{
	/* Acquire: pairs with the release in latscope_ring_push(). */
	return smp_load_acquire(&ring->head) == READ_ONCE(ring->tail);
}

/**
 * latscope_ring_peek() - copy the oldest records without taking them
 * @ring: the ring
 * @recs: where the copies go, room for @max
 * @max: the most records to copy
 * @pos: where the copies start, for latscope_ring_consume()
 *
 * Context: process; takes @ring->lock, not held on return.
 * Return: how many records were copied, 0 if the ring is empty.
 */
u32 latscope_ring_peek(struct latscope_ring *ring,
		       struct latscope_noise_bulk *recs, u32 max,
		       struct latscope_ring_pos *pos)
{
	u32 i, n;

	mutex_lock(&ring->lock);
	pos->gen = ring->gen;
	pos->tail = ring->tail;
	pos->size = ring->size;
	/* Acquire: the slots' content is read after the index. */
	n = min(smp_load_acquire(&ring->head) - pos->tail, max);
	for (i = 0; i < n; i++)
		recs[i] = ring->slot[(pos->tail + i) % LATSCOPE_BULK_SLOTS];
	mutex_unlock(&ring->lock);
	return n;
}

/**
 * latscope_ring_consume() - take the records a peek copied
 * @ring: the ring
 * @pos: where the peek started
 * @n: how many of its records to take, no more than it copied
 *
 * Nothing is taken if another consumer or a reset came since the peek;
 * the caller peeks again.
 *
 * Context: process; takes @ring->lock.
 * Return: true if the records were taken.
 */
bool latscope_ring_consume(struct latscope_ring *ring,
			   const struct latscope_ring_pos *pos, u32 n)
{
	bool taken;

	mutex_lock(&ring->lock);
	taken = ring->gen == pos->gen && ring->tail == pos->tail;
	if (taken) {
		/* Release: the slots were copied out before the producer reuses them. */
		smp_store_release(&ring->tail, pos->tail + n);
	}
	mutex_unlock(&ring->lock);
	return taken;
}
