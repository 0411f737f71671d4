/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, output: what reads a finished struct ls_report and
 * writes it to a FILE *: latmus's console lines, the gnuplot file, the
 * JSON document, each source's and a latmon monitor's part of them, and
 * the files written whole. Below it only core/ (docs/design/layers.md).
 */
#ifndef LATSCOPE_OUTPUT_H
#define LATSCOPE_OUTPUT_H

#include <sys/types.h>

#include "core/core.h"

/* format.c: latmus's lines, exactly. Each returns the line's length. */
int ls_fmt_hhmmss(char *buf, size_t len, unsigned long long s);
int ls_fmt_rtt(char *buf, size_t len, unsigned long long elapsed_s,
	       const char *context, unsigned int period_us, int priority,
	       const char *cpus, bool isolated);
int ls_fmt_rth(char *buf, size_t len);
int ls_fmt_rtd(char *buf, size_t len, double min, double avg, double max,
	       unsigned long long overruns, double best, double worst);
int ls_fmt_rts(char *buf, size_t len, double min, double avg, double max,
	       unsigned long long overruns, unsigned long long duration_s,
	       unsigned long long timeout_s);
void ls_print_summary(FILE *f, const struct ls_report *r);

/* plot.c and json.c: the two files. */
int ls_write_plot(FILE *f, const struct ls_report *r);
int ls_write_json(FILE *f, const struct ls_report *r);

/* json_writer.c */
int ls_utf8_char(const unsigned char *s);
void ls_json_string(FILE *f, const char *s);
void ls_json_string_or_null(FILE *f, const char *s);
void ls_json_key_string(FILE *f, const char *indent, const char *key,
			const char *value, const char *end);

/* file.c: every file latscope creates, written whole (docs/design/cli.md). */
mode_t ls_read_umask(const char *status);
int ls_write_file(const char *path, int (*write)(FILE *f, const void *arg), const void *arg,
		  char *why, size_t whylen);
bool ls_shared_dir(const char *path, mode_t *mode);
void ls_warn_shared_dir(FILE *out, const char *what, const char *path);

/* output.c: the run's files, checked before it and written by ls_write_file(). */
int ls_check_output(const char *path, bool force, char *err, size_t errlen);
int ls_write_output(const char *path, int (*write)(FILE *, const struct ls_report *),
		    const struct ls_report *r, char *err, size_t errlen);
int ls_write_files(const struct ls_report *r, bool rescue);
/*
 * A file a front-end above writes with its own @write (the cost suite's
 * JSON): whole, "-" for stdout; _rescued prints it on standard output,
 * between marker lines, if it cannot be written, and returns -1.
 */
int ls_write_other(const char *path, int (*write)(FILE *f, const void *ctx),
		   const void *ctx, char *err, size_t errlen);
int ls_write_other_rescued(const char *path, int (*write)(FILE *f, const void *ctx),
			   const void *ctx);
int ls_write_other_rescued_as(const char *path, const char *shown,
			      int (*write)(FILE *f, const void *ctx), const void *ctx);

/**
 * struct ls_source_output - a source's own result block (parts.c)
 * @print_summary: its summary lines, after RTS| and PCT|
 * @write_plot: its lines of the plot file's header
 * @write_json: its object in the JSON document, a key and a value ending
 *	in ",\n"
 * @format_header: the header of its own line per second, instead of RTH|
 * @format_second: its own line of each second (the whole record, all
 *	CPUs summed), instead of RTD|; printed for every second that has a
 *	record, samples or not
 *
 * The output half of a struct ls_source, by the same id. Every hook may
 * be NULL.
 */
struct ls_source_output {
	void (*print_summary)(FILE *f, const struct ls_report *r);
	void (*write_plot)(FILE *f, const struct ls_report *r);
	void (*write_json)(FILE *f, const struct ls_report *r);
	void (*format_header)(char *buf, size_t len);
	void (*format_second)(char *buf, size_t len, const struct latscope_noise_bulk *w);
};

const struct ls_source_output *ls_source_output(unsigned int id);

/* gpio_print.c: what a GPIO run prints. */
const char *ls_gpio_edge_used(const struct ls_params *p,
			      const struct latscope_gpio_result *g);
void ls_gpio_describe(const struct ls_params *p, const struct latscope_gpio_result *g,
		      const char *lib, char *buf, size_t len);
void ls_gpio_paths(const struct ls_params *p, const struct ls_cpu_result *c,
		   char *buf, size_t len);
void ls_gpio_print_summary(FILE *f, const struct ls_report *r);
void ls_gpio_write_plot(FILE *f, const struct ls_report *r);
void ls_gpio_write_json(FILE *f, const struct ls_report *r);

/* noise_print.c: what a noise run prints. */
double ls_noise_available(__u64 runtime, __u64 noise);
void ls_noise_format_header(char *buf, size_t len);
void ls_noise_format_second(char *buf, size_t len, const struct latscope_noise_bulk *w);
void ls_noise_print_summary(FILE *f, const struct ls_report *r);
void ls_noise_write_plot(FILE *f, const struct ls_report *r);
void ls_noise_write_json(FILE *f, const struct ls_report *r);

/* heat_print.c: heat and clock over the run. */
void ls_heat_print_summary(FILE *f, const struct ls_report *r);
void ls_heat_write_plot(FILE *f, const struct ls_report *r);
void ls_heat_write_json(FILE *f, const struct ls_report *r);
void ls_heat_json_value(FILE *f, const struct ls_heat_src *src, const struct ls_heat_total *h,
			const char *in);

/* setup_print.c: the setup verdict (setup/setup.h), and the EVT estimate's line. */
struct ls_setup;
void ls_setup_print(FILE *f, const struct ls_setup *s);
void ls_setup_print_summary(FILE *f, const struct ls_report *r);
void ls_setup_write_plot(FILE *f, const struct ls_report *r);
void ls_setup_write_json(FILE *f, const struct ls_report *r);

/* why_print.c: the worst samples explained by the driver's recorder. */
const char *ls_policy_short(int policy);
void ls_why_line(char *buf, size_t len, const struct latscope_why *w, int cpu,
		 const struct ls_params *p);
void ls_why_print_summary(FILE *f, const struct ls_report *r);
const char *ls_why_kind_name(__u32 kind);
void ls_why_write_plot(FILE *f, const struct ls_report *r);
void ls_why_write_json(FILE *f, const struct ls_report *r);

/* json.c: what every JSON document of latscope's has. */
void ls_json_head(FILE *f, const char *kind, const struct ls_params *p, time_t started,
		  time_t ended, int exit_code);
void ls_json_sysinfo(FILE *f, const struct ls_sysinfo *si);
void ls_json_time(FILE *f, const char *key, time_t t);

/* latmon_print.c: what a run with a latmon monitor adds. */
void ls_latmon_print_summary(FILE *f, const struct ls_report *r);
void ls_latmon_write_plot(FILE *f, const struct ls_report *r);
void ls_latmon_write_json(FILE *f, const struct ls_report *r);

#endif /* LATSCOPE_OUTPUT_H */
