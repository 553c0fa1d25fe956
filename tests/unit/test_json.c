/* SPDX-License-Identifier: MIT */
/* The JSON writer: escapes, and bytes that are not UTF-8 (paths and
 * arguments are bytes) as U+FFFD, so that every record parses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/json.h"

static const struct {
	const char *in;
	const char *out;
} cases[] = {
	{ "", "\"\"" },
	{ "plain /path", "\"plain /path\"" },
	{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
	{ "tab\tnl\n\x01\x7f", "\"tab\\u0009nl\\u000a\\u0001\\u007f\"" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },				/* é */
	{ "\xe2\x82\xac", "\"\xe2\x82\xac\"" },				/* € */
	{ "\xf0\x9f\x94\x92", "\"\xf0\x9f\x94\x92\"" },			/* a padlock */
	{ "\xff", "\"\\ufffd\"" },
	{ "a\x80z", "\"a\\ufffdz\"" },					/* a lone continuation */
	{ "\xc0\x80", "\"\\ufffd\\ufffd\"" },				/* overlong NUL */
	{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },		/* overlong '/' */
	{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },		/* a surrogate */
	{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* past U+10FFFF */
	{ "\xc3", "\"\\ufffd\"" },					/* cut short */
	{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },
};

Test(json, strings)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *buf = NULL;
		size_t len;
		FILE *out = open_memstream(&buf, &len);

		cr_assert_not_null(out);
		lr_json_str(out, cases[i].in);
		cr_assert_eq(fclose(out), 0);
		cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
		free(buf);
	}
}

Test(json, null_and_lists)
{
	char *const v[] = { "a", "b\"", NULL };
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	lr_json_str(out, NULL);
	fputc('[', out);
	lr_json_strv(out, v);
	fputc(']', out);
	lr_json_strn(out, "abc=secret", 3);
	cr_assert_eq(fclose(out), 0);
	cr_expect_str_eq(buf, "null[\"a\",\"b\\\"\"]\"abc\"");
	free(buf);
}
