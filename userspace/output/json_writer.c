// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the small JSON writer the document and each part's
 * printer share: strings escaped as RFC 8259 asks, one key at a time.
 */
#include "output/output.h"

/* @s as a JSON string, quotes included. */
void ls_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* @s as a JSON string, or null when it is empty. */
void ls_json_string_or_null(FILE *f, const char *s)
{
	if (s[0])
		ls_json_string(f, s);
	else
		fputs("null", f);
}

/* "key": "value" and @end, @value escaped. */
void ls_json_key_string(FILE *f, const char *indent, const char *key,
			const char *value, const char *end)
{
	fprintf(f, "%s\"%s\": ", indent, key);
	ls_json_string(f, value);
	fputs(end, f);
}
