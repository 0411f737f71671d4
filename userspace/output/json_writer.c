// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the small JSON writer the document and each part's
 * printer share: strings escaped as RFC 8259 asks, one key at a time.
 */
#include "output/output.h"

/*
 * How many bytes at @s make one well-formed UTF-8 character (Unicode's
 * table 3-7: no overlong form, no surrogate, nothing past U+10FFFF), or,
 * as a negative number, how many make the longest start of one that
 * breaks off (at least one byte: "maximal subpart", as Python's and a
 * browser's decoders count them). @s ends with a NUL, which no sequence
 * continues with. The JSON writer and the Prometheus labels both use it.
 */
int ls_utf8_char(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return -1;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

/*
 * @s as a JSON string, quotes included: valid UTF-8 whatever @s holds
 * (a task names itself with any bytes, a 16-byte name may cut a
 * character): each ill-formed part becomes U+FFFD, written \ufffd, as
 * Python's errors="replace" decodes it; control characters as \u00XX.
 */
void ls_json_string(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*u) {
		n = ls_utf8_char(u);
		if (n < 0) {
			fputs("\\ufffd", f);
			u += -n;
		} else if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u++);
		} else if (*u < 0x20) {
			fprintf(f, "\\u%04x", *u++);
		} else {
			fwrite(u, 1, (size_t)n, f);
			u += n;
		}
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
	fputs(indent, f);
	ls_json_string(f, key);
	fputs(": ", f);
	ls_json_string(f, value);
	fputs(end, f);
}
