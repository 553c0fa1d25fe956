/* SPDX-License-Identifier: MIT */
/* The JSON writer: escapes, and bytes that are not UTF-8 (paths and
 * arguments are bytes) as U+FFFD, so that every record parses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/lib/json.h"
#include "landrun/lib/util.h"

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
	/* what a terminal acts on when the log is shown: escaped too */
	{ "a\xc2\x9b" "31m", "\"a\\u009b31m\"" },			/* a C1 CSI */
	{ "\xc2\xa0", "\"\xc2\xa0\"" },				/* no-break space: kept */
	{ "a\xe2\x80\xae" "b", "\"a\\u202eb\"" },		/* right-to-left override */
	{ "\xe2\x81\xa6", "\"\\u2066\"" },				/* left-to-right isolate */
	{ "\xe2\x80\xa9", "\"\xe2\x80\xa9\"" },			/* paragraph separator: kept */
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

/* lr_escape: what the terminal, the logs and --learn's comments show. */
Test(json, escape)
{
	static const struct {
		const char *in;
		bool backslash;
		const char *out;
	} esc[] = {
		{ "plain /path", true, "plain /path" },
		{ "a\x1b]0;t\x07" "b", true, "a\\x1b]0;t\\x07b" },
		{ "nl\ncr\rtab\t", false, "nl\\x0acr\\x0dtab\\x09" },
		{ "a\\b", true, "a\\\\b" },
		{ "a\\b", false, "a\\b" },
		{ "\x7f", true, "\\x7f" },
		{ "caf\xc3\xa9", true, "caf\xc3\xa9" },
		{ "\xff\xc3", true, "\\xff\\xc3" },
		{ "\xc2\x9b" "31m", true, "\\xc2\\x9b31m" },
		{ "\xe2\x80\xae", true, "\\xe2\\x80\\xae" },
	};

	for (size_t i = 0; i < sizeof(esc) / sizeof(*esc); i++) {
		char out[64];
		size_t need = lr_escape(out, sizeof(out), esc[i].in, strlen(esc[i].in),
					esc[i].backslash);

		cr_expect_str_eq(out, esc[i].out, "case %zu", i);
		cr_expect_eq(need, strlen(esc[i].out), "case %zu: %zu", i, need);
	}
	/* cut short: never inside an escape, always terminated */
	{
		char out[6];
		size_t need = lr_escape(out, sizeof(out), "ab\x1b", 3, true);

		cr_expect_str_eq(out, "ab");
		cr_expect_eq(need, 6);
	}
}
