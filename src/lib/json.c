/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "landrun/lib/json.h"
#include "landrun/lib/util.h"

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
		} else if ((n = lr_utf8_len(s + i, len - i)) && lr_utf8_hidden(s + i, n)) {
			/* a C1 control, a bidirectional override: escaped */
			unsigned cp = n == 2 ? s[i + 1]
					     : ((s[i] & 0x0fu) << 12) | ((s[i + 1] & 0x3fu) << 6) |
						       (s[i + 2] & 0x3fu);

			fprintf(out, "\\u%04x", cp);
			i += n - 1;
		} else if (n) {
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
