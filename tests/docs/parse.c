// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's own option parser on the documents' examples: each line of
 * standard input is one command line, its words separated by a tab
 * (tests/docs/check.py splits them as the shell would), "latscope"
 * first. Prints "ok" or "error: <the parser's message>" per line, and
 * with -v the parsed context and lines, so a checker can compare them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_WORDS	64

int main(void)
{
	static char line[8192];
	char *argv[MAX_WORDS + 1];
	struct ls_options o;
	char err[512];
	int argc, bad = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *w;

		line[strcspn(line, "\n")] = '\0';
		argc = 0;
		for (w = strtok_r(line, "\t", &save); w && argc < MAX_WORDS;
		     w = strtok_r(NULL, "\t", &save))
			argv[argc++] = w;
		argv[argc] = NULL;
		ls_options_init(&o);
		err[0] = '\0';
		if (argc && ls_parse_args(argc, argv, &o, err, sizeof(err)) == LS_PARSE_ERROR) {
			printf("error: %s\n", err);
			bad++;
		} else {
			printf("ok\n");
		}
		fflush(stdout);
	}
	return bad ? 1 : 0;
}
