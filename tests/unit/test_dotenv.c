/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/lib/util.h"
#include "landrun/policy/dotenv.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct ok_case {
	const char *name;
	const char *input;
	const char *key;
	const char *value;	/* NULL: KEY must be absent */
};

static const struct ok_case ok_cases[] = {
	{ "simple", "FOO=bar\n", "FOO", "bar" },
	{ "no final newline", "FOO=bar", "FOO", "bar" },
	{ "underscore key", "_A_1=x\n", "_A_1", "x" },
	{ "lowercase key", "foo=x\n", "foo", "x" },
	{ "export", "export FOO=bar\n", "FOO", "bar" },
	{ "export tab", "export\t\tFOO=bar\n", "FOO", "bar" },
	{ "key named export", "export=1\n", "export", "1" },
	{ "key starting with export", "exporter=1\n", "exporter", "1" },
	{ "leading blanks", "  \t FOO=bar\n", "FOO", "bar" },
	{ "leading blanks export", "   export FOO=bar\n", "FOO", "bar" },
	{ "spaces around =", "FOO = bar\n", "FOO", "bar" },
	{ "tabs around =", "FOO\t=\tbar\n", "FOO", "bar" },
	{ "trailing blanks trimmed", "FOO=bar  \t\n", "FOO", "bar" },
	{ "inner blanks kept", "FOO=a b  c\n", "FOO", "a b  c" },
	{ "empty value", "FOO=\n", "FOO", "" },
	{ "empty value at eof", "FOO=", "FOO", "" },
	{ "empty value blanks", "FOO=   \n", "FOO", "" },
	{ "inline comment", "FOO=abc # note\n", "FOO", "abc" },
	{ "inline comment tab", "FOO=abc\t#note\n", "FOO", "abc" },
	{ "hash inside", "FOO=a#b\n", "FOO", "a#b" },
	{ "hash first", "FOO=#abc\n", "FOO", "#abc" },
	{ "only comment after =", "FOO= # c\n", "FOO", "" },
	{ "comment line", "# FOO=no\nBAR=1\n", "FOO", NULL },
	{ "indented comment line", "   # FOO=no\n", "FOO", NULL },
	{ "blank lines", "\n\n  \t\nFOO=1\n\n", "FOO", "1" },
	{ "= in value", "FOO=a=b=c\n", "FOO", "a=b=c" },
	{ "unquoted backslashes", "FOO=a\\nb\\\\\n", "FOO", "a\\nb\\\\" },
	{ "quote inside unquoted", "FOO=it's\n", "FOO", "it's" },
	{ "dollar literal", "FOO=$HOME\n", "FOO", "$HOME" },
	{ "brace literal", "FOO=${HOME}\n", "FOO", "${HOME}" },
	{ "cmdsubst literal", "FOO=$(id)\n", "FOO", "$(id)" },
	{ "backtick literal", "FOO=`id`\n", "FOO", "`id`" },
	{ "single quoted", "FOO='bar baz'\n", "FOO", "bar baz" },
	{ "single keeps blanks", "FOO='  x  '\n", "FOO", "  x  " },
	{ "single literal dollar", "FOO='$HOME ${X} $(id) `id`'\n", "FOO",
	  "$HOME ${X} $(id) `id`" },
	{ "single literal backslash", "FOO='a\\nb\\\\c\\'\n", "FOO", "a\\nb\\\\c\\" },
	{ "single keeps hash", "FOO='a # b'\n", "FOO", "a # b" },
	{ "single empty", "FOO=''\n", "FOO", "" },
	{ "single comment after", "FOO='x' # c\n", "FOO", "x" },
	{ "single multiline", "FOO='line1\nline2\n'\nBAR=1\n", "FOO", "line1\nline2\n" },
	{ "single with double inside", "FOO='say \"hi\"'\n", "FOO", "say \"hi\"" },
	{ "double quoted", "FOO=\"bar baz\"\n", "FOO", "bar baz" },
	{ "double empty", "FOO=\"\"\n", "FOO", "" },
	{ "double escape n", "FOO=\"a\\nb\"\n", "FOO", "a\nb" },
	{ "double escape quote", "FOO=\"say \\\"hi\\\"\"\n", "FOO", "say \"hi\"" },
	{ "double escape backslash", "FOO=\"a\\\\b\"\n", "FOO", "a\\b" },
	{ "double no expansion", "FOO=\"$HOME ${X} $(id) `id`\"\n", "FOO",
	  "$HOME ${X} $(id) `id`" },
	{ "double keeps hash", "FOO=\"a # b\"\n", "FOO", "a # b" },
	{ "double single inside", "FOO=\"it's\"\n", "FOO", "it's" },
	{ "double comment after", "FOO=\"x\"\t# c\n", "FOO", "x" },
	{ "double multiline", "FOO=\"line1\nline2\"\nBAR=1\n", "FOO", "line1\nline2" },
	{ "export quoted", "export FOO = \"x\"\n", "FOO", "x" },
	{ "duplicate last wins", "FOO=1\nFOO=2\nFOO=3\n", "FOO", "3" },
	{ "duplicate export", "FOO=1\nexport FOO=2\n", "FOO", "2" },
	{ "crlf", "FOO=bar\r\nBAR=baz\r\n", "FOO", "bar" },
	{ "crlf second", "FOO=bar\r\nBAR=baz\r\n", "BAR", "baz" },
	{ "crlf inline comment", "FOO=bar # c\r\n", "FOO", "bar" },
	{ "crlf quoted", "FOO=\"bar\"\r\n", "FOO", "bar" },
	{ "crlf blank and comment", "\r\n# c\r\nFOO=1\r\n", "FOO", "1" },
	{ "crlf no final", "FOO=bar\r", "FOO", "bar" },
	{ "bom", "\xef\xbb\xbf" "FOO=bar\n", "FOO", "bar" },
	{ "bom export", "\xef\xbb\xbf" "export FOO=bar\n", "FOO", "bar" },
	{ "utf8 value", "FOO=h\xc3\xa9llo\n", "FOO", "h\xc3\xa9llo" },
};

Test(dotenv, ok_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct lr_kvlist kv = { 0 };
		struct lr_dotenv_error err = { 99, "sentinel" };
		const char *got;
		int r;

		r = lr_dotenv_parse(c->input, strlen(c->input), &kv, &err);
		cr_expect_eq(r, 0, "%s: returned %d (line %u: %s)", c->name, r, err.line,
			     err.reason ? err.reason : "(null)");
		cr_expect_eq(err.line, 0, "%s: err.line %u", c->name, err.line);
		cr_expect_null(err.reason, "%s: err.reason set", c->name);
		got = lr_kvlist_get(&kv, c->key);
		if (c->value)
			cr_expect(got && strcmp(got, c->value) == 0,
				  "%s: %s is [%s], expected [%s]", c->name, c->key,
				  got ? got : "(absent)", c->value);
		else
			cr_expect_null(got, "%s: %s should be absent", c->name, c->key);
		lr_kvlist_free(&kv);
	}
}

struct bad_case {
	const char *name;
	const char *input;
	size_t len;		/* 0: strlen(input) */
	unsigned line;
	const char *reason;
};

static const struct bad_case bad_cases[] = {
	{ "digit first", "1ABC=x\n", 0, 1, "invalid variable name" },
	{ "space in key", "FOO BAR=1\n", 0, 1, "invalid variable name" },
	{ "dash in key", "OK=1\nFOO-BAR=1\n", 0, 2, "invalid variable name" },
	{ "dot in key", "FOO.BAR=1\n", 0, 1, "invalid variable name" },
	{ "empty key", "=value\n", 0, 1, "invalid variable name" },
	{ "export empty key", "export =value\n", 0, 1, "invalid variable name" },
	{ "export two words", "export FOO BAR=1\n", 0, 1, "invalid variable name" },
	{ "dollar key", "$FOO=1\n", 0, 1, "invalid variable name" },
	{ "utf8 key", "\xc3\xa9=1\n", 0, 1, "invalid variable name" },
	{ "missing =", "A=1\n\nFOO\n", 0, 3, "missing '='" },
	{ "missing = two words", "FOO BAR\n", 0, 1, "missing '='" },
	{ "missing = with comment", "FOO # x\n", 0, 1, "missing '='" },
	{ "export no =", "export FOO\n", 0, 1, "missing '='" },
	{ "export alone", "A=1\nexport\n", 0, 2, "missing '='" },
	{ "export alone eof", "export", 0, 1, "missing '='" },
	{ "export blanks", "export   \n", 0, 1, "missing '='" },
	{ "shell command", "rm -rf /\n", 0, 1, "missing '='" },
	{ "unterminated single line 3 of 5", "A=1\nB=2\nC='abc\nD=4\nE=5\n", 0, 3,
	  "unterminated single quote" },
	{ "unterminated single eof", "A='", 0, 1, "unterminated single quote" },
	{ "unterminated double line 3 of 5", "A=1\nB=2\nC=\"abc\nD=4\nE=5\n", 0, 3,
	  "unterminated double quote" },
	{ "unterminated double escaped quote", "A=\"abc\\\"\n", 0, 1,
	  "unterminated double quote" },
	{ "unterminated double trailing backslash", "A=\"abc\\", 0, 1,
	  "unterminated double quote" },
	{ "junk after double", "A=1\nB=\"x\"y\n", 0, 2,
	  "unexpected characters after closing quote" },
	{ "junk after single", "A='x' y\n", 0, 1, "unexpected characters after closing quote" },
	{ "two quoted parts", "A='x''y'\n", 0, 1, "unexpected characters after closing quote" },
	{ "junk after multiline", "A=1\nB='x\ny'z\n", 0, 2,
	  "unexpected characters after closing quote" },
	{ "bad escape dollar", "A=1\nB=2\nC=\"\\$HOME\"\n", 0, 3,
	  "invalid escape in double quotes" },
	{ "bad escape t", "A=\"\\t\"\n", 0, 1, "invalid escape in double quotes" },
	{ "bad escape x", "A=\"\\x41\"\n", 0, 1, "invalid escape in double quotes" },
	{ "bad escape newline", "A=\"a\\\nb\"\n", 0, 1, "invalid escape in double quotes" },
	{ "nul in value", "A=1\nB=x\0y\nC=3\n", 14, 2, "NUL byte" },
	{ "nul in key", "A\0=1\n", 5, 1, "NUL byte" },
	{ "nul in multiline", "A=1\nB='x\n\0'\n", 12, 3, "NUL byte" },
	{ "nul alone", "\0", 1, 1, "NUL byte" },
	{ "bom not at start", "A=1\n\xef\xbb\xbf" "B=1\n", 0, 2, "invalid variable name" },
	{ "crlf line count", "A=1\r\nB=2\r\n1C=3\r\n", 0, 3, "invalid variable name" },
	{ "after multiline line count", "A='x\ny\nz'\nB\n", 0, 4, "missing '='" },
	{ "after multiline double line count", "A=\"x\ny\"\n\n1B=2\n", 0, 4,
	  "invalid variable name" },
};

Test(dotenv, bad_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct lr_kvlist kv = { 0 };
		struct lr_dotenv_error err = { 0, NULL };
		size_t len = c->len ? c->len : strlen(c->input);
		int r;

		r = lr_dotenv_parse(c->input, len, &kv, &err);
		cr_expect_eq(r, -EINVAL, "%s: returned %d, expected -EINVAL", c->name, r);
		cr_expect_eq(err.line, c->line, "%s: line %u, expected %u", c->name, err.line,
			     c->line);
		cr_expect(err.reason && strcmp(err.reason, c->reason) == 0,
			  "%s: reason [%s], expected [%s]", c->name,
			  err.reason ? err.reason : "(null)", c->reason);
		lr_kvlist_free(&kv);
	}
}

Test(dotenv, many_keys_in_order)
{
	static const char in[] = "# header\n"
				 "export A=1\n"
				 "B = two words # comment\n"
				 "\n"
				 "C='single'\n"
				 "D=\"dou\\nble\"\n"
				 "A=again\n";
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	cr_assert_eq(lr_dotenv_parse(in, strlen(in), &kv, &err), 0);
	cr_assert_eq(kv.n, 4);
	cr_expect_str_eq(kv.items[0].key, "A");
	cr_expect_str_eq(kv.items[0].value, "again");
	cr_expect_str_eq(kv.items[1].key, "B");
	cr_expect_str_eq(kv.items[1].value, "two words");
	cr_expect_str_eq(kv.items[2].key, "C");
	cr_expect_str_eq(kv.items[2].value, "single");
	cr_expect_str_eq(kv.items[3].key, "D");
	cr_expect_str_eq(kv.items[3].value, "dou\nble");
	lr_kvlist_free(&kv);
}

Test(dotenv, empty_inputs)
{
	static const char *const in[] = { "", "\n", "# only\n", "\xef\xbb\xbf", "  \r\n\t\n" };
	struct lr_dotenv_error err;

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct lr_kvlist kv = { 0 };

		cr_expect_eq(lr_dotenv_parse(in[i], strlen(in[i]), &kv, &err), 0, "input %zu", i);
		cr_expect_eq(kv.n, 0, "input %zu", i);
		lr_kvlist_free(&kv);
	}
}

Test(dotenv, length_is_respected)
{
	/* only the first 5 bytes count: "A=123" */
	static const char in[] = "A=12345\nB=1\n";
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	cr_assert_eq(lr_dotenv_parse(in, 5, &kv, &err), 0);
	cr_expect_str_eq(lr_kvlist_get(&kv, "A"), "123");
	cr_expect_null(lr_kvlist_get(&kv, "B"));
	lr_kvlist_free(&kv);
}

Test(dotenv, reason_never_contains_secret)
{
	static const char *const in[] = {
		"TOKEN='hunter2secret\n",
		"TOKEN=\"hunter2secret\n",
		"TOKEN=\"hunter2secret\\q\"\n",
		"TOKEN=\"hunter2secret\"hunter2secret\n",
		"TOKEN='hunter2secret'hunter2secret\n",
		"hunter2secret\n",
		"1hunter2secret=hunter2secret\n",
	};
	struct lr_dotenv_error err;

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct lr_kvlist kv = { 0 };

		cr_expect_eq(lr_dotenv_parse(in[i], strlen(in[i]), &kv, &err), -EINVAL,
			     "input %zu", i);
		cr_assert_not_null(err.reason, "input %zu", i);
		cr_expect_null(strstr(err.reason, "hunter2"), "input %zu leaks: %s", i,
			       err.reason);
		cr_expect_null(lr_kvlist_get(&kv, "TOKEN"), "input %zu", i);
		lr_kvlist_free(&kv);
	}
}

Test(dotenv, null_err_is_tolerated)
{
	struct lr_kvlist kv = { 0 };

	cr_expect_eq(lr_dotenv_parse("A='x", 4, &kv, NULL), -EINVAL);
	cr_expect_eq(lr_dotenv_parse("A=x", 3, &kv, NULL), 0);
	cr_expect_str_eq(lr_kvlist_get(&kv, "A"), "x");
	lr_kvlist_free(&kv);
}

/*
 * A file near the 1 MiB limit: 48,000 lines over 16,000 keys, each key set
 * three times in every form the grammar has.  A later key replaces an earlier
 * one and keeps its place: each key ends with its last value, in the order of
 * first appearance.
 */
Test(dotenv, large_file_later_key_wins)
{
	enum { KEYS = 16000, LINES = 3 * KEYS };
	struct lr_buf in = { 0 };
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	unsigned *last = calloc(KEYS, sizeof(*last));
	unsigned *first_seen = calloc(KEYS, sizeof(*first_seen));
	unsigned order = 0;

	cr_assert(last && first_seen);
	for (unsigned j = 0; j < LINES; j++) {
		unsigned k = (j * 7919u) % KEYS; /* 7919 is prime: every key, three times */
		char line[64];
		int n;

		switch (j % 4) {
		case 0:
			n = snprintf(line, sizeof(line), "K%u=v%u\n", k, j);
			break;
		case 1:
			n = snprintf(line, sizeof(line), "export K%u=v%u # c\n", k, j);
			break;
		case 2:
			n = snprintf(line, sizeof(line), "K%u = 'v%u'\n", k, j);
			break;
		default:
			n = snprintf(line, sizeof(line), "K%u=\"v%u\"\r\n", k, j);
		}

		cr_assert_eq(lr_buf_add(&in, line, (size_t)n), 0);
		if (!first_seen[k])
			first_seen[k] = ++order;
		last[k] = j;
	}
	cr_assert_lt(in.len, (size_t)LR_DOTENV_MAX_SIZE);

	cr_assert_eq(lr_dotenv_parse(in.s, in.len, &kv, &err), 0, "line %u: %s", err.line,
		     err.reason ? err.reason : "?");
	cr_expect_eq(kv.n, KEYS);
	for (unsigned k = 0; k < KEYS; k++) {
		char key[16], value[16];

		snprintf(key, sizeof(key), "K%u", k);
		snprintf(value, sizeof(value), "v%u", last[k]);
		cr_assert_str_eq(lr_kvlist_get(&kv, key) ? lr_kvlist_get(&kv, key) : "(absent)",
				 value, "%s", key);
		cr_assert_str_eq(kv.items[first_seen[k] - 1].key, key, "place of %s", key);
	}
	cr_expect_null(lr_kvlist_get(&kv, "K16000"));
	lr_kvlist_free(&kv);
	free(in.s);
	free(last);
	free(first_seen);
}

/* The list the parser fills, on its own: set, add, get over many keys. */
Test(kvlist, many_keys)
{
	enum { KEYS = 50000 };
	struct lr_kvlist kv = { 0 };
	char key[32], value[32];

	for (unsigned i = 0; i < KEYS; i++) {
		/* keys that share prefixes and differ in length: K, K0, K00 ... */
		int n = snprintf(key, sizeof(key), "K%u", i);

		cr_assert_eq(lr_kvlist_set(&kv, key, (size_t)n, "a", 1), 0);
	}
	for (unsigned i = 0; i < KEYS; i += 3) {
		int n = snprintf(key, sizeof(key), "K%u", i);
		int m = snprintf(value, sizeof(value), "set%u", i);

		cr_assert_eq(lr_kvlist_set(&kv, key, (size_t)n, value, (size_t)m), 0);
	}
	for (unsigned i = 0; i < KEYS; i += 5) {
		int n = snprintf(key, sizeof(key), "K%u", i);

		cr_assert_eq(lr_kvlist_add(&kv, key, (size_t)n, "added", 5), 0);
	}
	/* _add of new keys appends them; KEYLEN bounds the key */
	cr_assert_eq(lr_kvlist_add(&kv, "NEWxyz", 3, "n", 1), 0);
	cr_assert_eq(lr_kvlist_add(&kv, "NEW", 3, "again", 5), 0);

	cr_expect_eq(kv.n, KEYS + 1);
	for (unsigned i = 0; i < KEYS; i++) {
		const char *got;

		snprintf(key, sizeof(key), "K%u", i);
		if (i % 3 == 0)
			snprintf(value, sizeof(value), "set%u", i);
		else
			strcpy(value, "a");
		got = lr_kvlist_get(&kv, key);
		cr_assert_str_eq(got ? got : "(absent)", value, "%s", key);
		cr_assert_str_eq(kv.items[i].key, key, "place %u", i);
	}
	cr_expect_str_eq(kv.items[KEYS].key, "NEW");
	cr_expect_str_eq(lr_kvlist_get(&kv, "NEW"), "n");
	cr_expect_null(lr_kvlist_get(&kv, "NEWxyz"));
	cr_expect_null(lr_kvlist_get(&kv, "K"));
	cr_expect_null(lr_kvlist_get(&kv, "K50000"));
	cr_expect_null(lr_kvlist_get(&kv, ""));
	lr_kvlist_free(&kv);
	cr_expect_eq(kv.n, 0);
	cr_expect_null(lr_kvlist_get(&kv, "K1"));
	/* a freed list is an empty one, ready again */
	cr_expect_eq(lr_kvlist_set(&kv, "K1", 2, "b", 1), 0);
	cr_expect_str_eq(lr_kvlist_get(&kv, "K1"), "b");
	lr_kvlist_free(&kv);
}

/* --- lr_dotenv_load --- */

static char tmp_path[64];
static char tmp_dir[64];

static void tmp_cleanup(void)
{
	if (tmp_path[0])
		unlink(tmp_path);
	if (tmp_dir[0])
		rmdir(tmp_dir);
	tmp_path[0] = '\0';
	tmp_dir[0] = '\0';
}

/* Create a temp file holding LEN bytes of DATA; returns its fd. */
static int make_tmp(const char *data, size_t len)
{
	int fd;

	strcpy(tmp_path, "/tmp/lr-dotenv-XXXXXX");
	fd = mkstemp(tmp_path);
	cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	return fd;
}

Test(dotenv_load, ok_file, .fini = tmp_cleanup)
{
	static const char in[] = "\xef\xbb\xbf# secrets\r\nexport A=1\r\nB='multi\nline'\n";
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	int fd = make_tmp(in, strlen(in));

	cr_assert_eq(close(fd), 0);
	cr_assert_eq(lr_dotenv_load(tmp_path, &kv, &err), 0);
	cr_expect_str_eq(lr_kvlist_get(&kv, "A"), "1");
	cr_expect_str_eq(lr_kvlist_get(&kv, "B"), "multi\nline");
	lr_kvlist_free(&kv);
}

Test(dotenv_load, empty_file, .fini = tmp_cleanup)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	int fd = make_tmp("", 0);

	cr_assert_eq(close(fd), 0);
	cr_expect_eq(lr_dotenv_load(tmp_path, &kv, &err), 0);
	cr_expect_eq(kv.n, 0);
	lr_kvlist_free(&kv);
}

Test(dotenv_load, malformed_file_reports_line, .fini = tmp_cleanup)
{
	static const char in[] = "A=1\nB=2\nC=\"oops\nD=4\n";
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	int fd = make_tmp(in, strlen(in));

	cr_assert_eq(close(fd), 0);
	cr_expect_eq(lr_dotenv_load(tmp_path, &kv, &err), -EINVAL);
	cr_expect_eq(err.line, 3);
	cr_expect_str_eq(err.reason, "unterminated double quote");
	lr_kvlist_free(&kv);
}

Test(dotenv_load, missing_file)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	cr_expect_eq(lr_dotenv_load("/tmp/lr-dotenv-does-not-exist/.env", &kv, &err), -ENOENT);
	cr_expect_eq(kv.n, 0);
}

Test(dotenv_load, directory_rejected)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	cr_expect_eq(lr_dotenv_load("/tmp", &kv, &err), -EINVAL);
	cr_expect_eq(err.line, 0);
	cr_expect_str_eq(err.reason, "not a regular file");
}

Test(dotenv_load, fifo_rejected_without_blocking, .timeout = 10, .fini = tmp_cleanup)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	strcpy(tmp_dir, "/tmp/lr-dotenv-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp_dir), "mkdtemp: %s", strerror(errno));
	cr_assert_lt(snprintf(tmp_path, sizeof(tmp_path), "%s/fifo", tmp_dir),
		     (int)sizeof(tmp_path));
	cr_assert_eq(mkfifo(tmp_path, 0600), 0, "mkfifo: %s", strerror(errno));
	/* no writer: a blocking open would hang here */
	cr_expect_eq(lr_dotenv_load(tmp_path, &kv, &err), -EINVAL);
	cr_expect_str_eq(err.reason, "not a regular file");
}

Test(dotenv_load, dev_zero_rejected, .timeout = 10)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;

	cr_expect_eq(lr_dotenv_load("/dev/zero", &kv, &err), -EINVAL);
	cr_expect_str_eq(err.reason, "not a regular file");
}

Test(dotenv_load, oversize_rejected, .fini = tmp_cleanup)
{
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	int fd = make_tmp("A=1\n", 4);

	cr_assert_eq(ftruncate(fd, LR_DOTENV_MAX_SIZE + 1), 0);
	cr_assert_eq(close(fd), 0);
	cr_expect_eq(lr_dotenv_load(tmp_path, &kv, &err), -EFBIG);
	cr_expect_eq(kv.n, 0);
}

Test(dotenv_load, max_size_accepted, .fini = tmp_cleanup)
{
	/* exactly the limit: a value padded with trailing blanks */
	struct lr_kvlist kv = { 0 };
	struct lr_dotenv_error err;
	char *buf = malloc(LR_DOTENV_MAX_SIZE);
	int fd;

	cr_assert_not_null(buf);
	memset(buf, ' ', LR_DOTENV_MAX_SIZE);
	memcpy(buf, "A=1", 3);
	fd = make_tmp(buf, LR_DOTENV_MAX_SIZE);
	free(buf);
	cr_assert_eq(close(fd), 0);
	cr_expect_eq(lr_dotenv_load(tmp_path, &kv, &err), 0);
	cr_expect_str_eq(lr_kvlist_get(&kv, "A"), "1");
	lr_kvlist_free(&kv);
}
