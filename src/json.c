/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "landrun/json.h"

/* The length of the valid UTF-8 sequence at S (N bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void lr_json_strn(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		size_t n;

		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, out);
		} else if ((n = utf8_len(s + i, len - i))) {
			fwrite(s + i, 1, n, out);
			i += n - 1;
		} else {
			fputs("\\ufffd", out);
		}
	}
	fputc('"', out);
}

void lr_json_str(FILE *out, const char *s)
{
	if (s)
		lr_json_strn(out, s, strlen(s));
	else
		fputs("null", out);
}

void lr_json_strv(FILE *out, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++) {
		fputs(i ? "," : "", out);
		lr_json_str(out, v[i]);
	}
}
