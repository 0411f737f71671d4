// SPDX-License-Identifier: GPL-2.0
/*
 * The latscope ABI, frozen: every structure's size and every field's offset.
 * Built with -m64 and -m32 by scripts/check.sh, so 32-bit and 64-bit
 * userspace provably see one layout. A change here is an ABI change.
 */
#include <stddef.h>

#include <linux/latscope.h>

#define SIZE(s, n) _Static_assert(sizeof(struct s) == n, #s " size")
#define AT(s, f, n) _Static_assert(offsetof(struct s, f) == n, #s "." #f " offset")

SIZE(latscope_setup, 280);
AT(latscope_setup, size, 0);
AT(latscope_setup, context, 4);
AT(latscope_setup, period_ns, 8);
AT(latscope_setup, cpu, 16);
AT(latscope_setup, priority, 20);
AT(latscope_setup, hist_cells, 24);
AT(latscope_setup, hist_cell_ns, 28);
AT(latscope_setup, warmup_ns, 32);
AT(latscope_setup, trace_threshold_ns, 40);
AT(latscope_setup, flags, 48);
AT(latscope_setup, source, 52);
AT(latscope_setup, why_records, 56);
AT(latscope_setup, why_flags, 60);
AT(latscope_setup, __reserved, 64);
AT(latscope_setup, gpio, 88);
AT(latscope_setup, noise, 240);

SIZE(latscope_gpio_line, 40);
AT(latscope_gpio_line, chip, 0);
AT(latscope_gpio_line, offset, 32);
AT(latscope_gpio_line, __reserved, 36);

SIZE(latscope_noise_setup, 40);
AT(latscope_noise_setup, runtime_ns, 0);
AT(latscope_noise_setup, threshold_ns, 8);
AT(latscope_noise_setup, flags, 16);
AT(latscope_noise_setup, __reserved, 20);

SIZE(latscope_gpio_setup, 152);
AT(latscope_gpio_setup, mode, 0);
AT(latscope_gpio_setup, edge, 4);
AT(latscope_gpio_setup, flags, 8);
AT(latscope_gpio_setup, irq_thread_priority, 12);
AT(latscope_gpio_setup, pulse_in, 16);
AT(latscope_gpio_setup, ack_out, 56);
AT(latscope_gpio_setup, pulse_out, 96);
AT(latscope_gpio_setup, __reserved, 136);

SIZE(latscope_gpio_result, 72);
AT(latscope_gpio_result, acks, 0);
AT(latscope_gpio_result, lost, 8);
AT(latscope_gpio_result, spurious, 16);
AT(latscope_gpio_result, paths, 24);
AT(latscope_gpio_result, irq, 28);
AT(latscope_gpio_result, irq_thread_pid, 32);
AT(latscope_gpio_result, irq_thread_comm, 36);
AT(latscope_gpio_result, irq_thread_policy, 52);
AT(latscope_gpio_result, irq_thread_rtprio, 56);
AT(latscope_gpio_result, edge, 60);
AT(latscope_gpio_result, __reserved1, 64);

SIZE(latscope_stats, 72);
AT(latscope_stats, samples, 0);
AT(latscope_stats, min_ns, 8);
AT(latscope_stats, max_ns, 16);
AT(latscope_stats, sum_ns, 24);
AT(latscope_stats, sum_sq_lo, 32);
AT(latscope_stats, sum_sq_hi, 40);
AT(latscope_stats, peak_ns, 48);
AT(latscope_stats, underflow, 56);
AT(latscope_stats, overflow, 64);

SIZE(latscope_result, 536);
AT(latscope_result, size, 0);
AT(latscope_result, flags, 4);
AT(latscope_result, histogram, 8);
AT(latscope_result, histogram_size, 16);
AT(latscope_result, context, 24);
AT(latscope_result, cpu, 28);
AT(latscope_result, period_ns, 32);
AT(latscope_result, hist_cells, 40);
AT(latscope_result, hist_cell_ns, 44);
AT(latscope_result, hist_count, 48);
AT(latscope_result, priority, 52);
AT(latscope_result, warmup_ns, 56);
AT(latscope_result, start_ns, 64);
AT(latscope_result, events, 72);
AT(latscope_result, overruns, 80);
AT(latscope_result, bulk_dropped, 88);
AT(latscope_result, trace_sample_ns, 96);
AT(latscope_result, latency, 104);
AT(latscope_result, irq, 176);
AT(latscope_result, __reserved, 248);
AT(latscope_result, gpio, 280);
AT(latscope_result, tail, 352);
AT(latscope_result, tail_size, 360);
AT(latscope_result, tail_buckets, 368);
AT(latscope_result, tail_sub_bits, 372);
AT(latscope_result, __reserved2, 376);
AT(latscope_result, why, 400);
AT(latscope_result, why_size, 408);
AT(latscope_result, why_count, 416);
AT(latscope_result, why_record_size, 420);
AT(latscope_result, why_seen, 424);
AT(latscope_result, why_records, 428);
AT(latscope_result, noise, 432);
_Static_assert(LATSCOPE_RESULT_SIZE_VER0 == offsetof(struct latscope_result, tail),
	       "VER0 ends where the tail begins");
_Static_assert(LATSCOPE_RESULT_SIZE_VER1 == offsetof(struct latscope_result, why),
	       "VER1 ends where the recorder's records begin");
_Static_assert(LATSCOPE_RESULT_SIZE_VER2 == offsetof(struct latscope_result, noise),
	       "VER2 ends where the noise figures begin");
_Static_assert(LATSCOPE_RESULT_SIZE_VER3 == sizeof(struct latscope_result),
	       "VER3 is the whole result");

SIZE(latscope_noise_result, 104);
AT(latscope_noise_result, runtime_ns, 0);
AT(latscope_noise_result, noise_ns, 8);
AT(latscope_noise_result, gaps, 16);
AT(latscope_noise_result, threshold_ns, 64);
AT(latscope_noise_result, runtime_per_period_ns, 72);
AT(latscope_noise_result, flags, 80);
AT(latscope_noise_result, seen, 84);
AT(latscope_noise_result, __reserved, 88);

SIZE(latscope_why_item, 72);
AT(latscope_why_item, kind, 0);
AT(latscope_why_item, id, 4);
AT(latscope_why_item, count, 8);
AT(latscope_why_item, flags, 12);
AT(latscope_why_item, duration_ns, 16);
AT(latscope_why_item, blocking_ns, 24);
AT(latscope_why_item, policy, 32);
AT(latscope_why_item, prio, 36);
AT(latscope_why_item, name, 40);

SIZE(latscope_why, 768);
AT(latscope_why, latency_ns, 0);
AT(latscope_why, ideal_ns, 8);
AT(latscope_why, realtime_ns, 16);
AT(latscope_why, irq_ns, 24);
AT(latscope_why, wake_ns, 32);
AT(latscope_why, sched_ns, 40);
AT(latscope_why, run_ns, 48);
AT(latscope_why, window_ns, 56);
AT(latscope_why, flags, 64);
AT(latscope_why, idle_state, 68);
AT(latscope_why, pid, 72);
AT(latscope_why, policy, 76);
AT(latscope_why, prio, 80);
AT(latscope_why, __reserved, 84);
AT(latscope_why, comm, 88);
AT(latscope_why, where, 104);
AT(latscope_why, nr_items, 168);
AT(latscope_why, more_items, 172);
AT(latscope_why, more_ns, 176);
AT(latscope_why, unknown_ns, 184);
AT(latscope_why, item, 192);

SIZE(latscope_pulse, 16);
AT(latscope_pulse, stamp_ns, 0);
AT(latscope_pulse, ideal_ns, 8);

SIZE(latscope_bulk, 48);
AT(latscope_bulk, second, 0);
AT(latscope_bulk, samples, 8);
AT(latscope_bulk, overruns, 16);
AT(latscope_bulk, min_ns, 24);
AT(latscope_bulk, avg_ns, 32);
AT(latscope_bulk, max_ns, 40);

SIZE(latscope_noise_bulk, 112);
AT(latscope_noise_bulk, bulk, 0);
AT(latscope_noise_bulk, runtime_ns, 48);
AT(latscope_noise_bulk, noise_ns, 56);
AT(latscope_noise_bulk, gaps, 64);

SIZE(latscope_noise_gap, 16);
AT(latscope_noise_gap, start_ns, 0);
AT(latscope_noise_gap, end_ns, 8);

SIZE(latscope_noise_report, 32);
AT(latscope_noise_report, gaps, 0);
AT(latscope_noise_report, count, 8);
AT(latscope_noise_report, flags, 12);
AT(latscope_noise_report, from_ns, 16);
AT(latscope_noise_report, to_ns, 24);

SIZE(latscope_info, 88);
AT(latscope_info, abi_version, 0);
AT(latscope_info, setup_size, 4);
AT(latscope_info, result_size, 8);
AT(latscope_info, max_hist_cells, 12);
AT(latscope_info, version, 16);
AT(latscope_info, timer_resolution_ns, 48);
AT(latscope_info, __reserved0, 52);
AT(latscope_info, __reserved, 56);

int main(void)
{
	return LATSCOPE_SETUP_SIZE_VER2 == sizeof(struct latscope_setup) &&
	       LATSCOPE_SETUP_SIZE_VER1 == offsetof(struct latscope_setup, noise) &&
	       LATSCOPE_SETUP_SIZE_VER0 == offsetof(struct latscope_setup, gpio) ? 0 : 1;
}

/*
 * The ioctl numbers are frozen: a structure that grows must not change
 * them (x86's encoding, as the generic one; -m64 and -m32 alike).
 */
#if defined(__x86_64__) || defined(__i386__)
_Static_assert(LATSCOPE_IOC_GET_INFO == 0x8058ba00, "GET_INFO number");
_Static_assert(LATSCOPE_IOC_SETUP == 0x40f0ba01, "SETUP number");
_Static_assert(LATSCOPE_IOC_START == 0xba02, "START number");
_Static_assert(LATSCOPE_IOC_STOP == 0xba03, "STOP number");
_Static_assert(LATSCOPE_IOC_GET_RESULT == 0xc160ba04, "GET_RESULT number");
_Static_assert(LATSCOPE_IOC_PULSE == 0xc010ba05, "PULSE number");
_Static_assert(LATSCOPE_IOC_SNAPSHOT == 0xc160ba06, "SNAPSHOT number");
_Static_assert(LATSCOPE_IOC_NOISE == 0x4020ba07, "NOISE number");
#endif
