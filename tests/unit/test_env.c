/* SPDX-License-Identifier: MIT */
/*
 * lr_env_build: the command's environment is built from nothing, a variable
 * passes only when a rule selects it.  Sources, weakest first: the caller,
 * the --env-file, then --env NAME=VALUE.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/lib/util.h"
#include "landrun/policy/env.h"
#include "landrun/policy/policy.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX 12

struct rule {
	enum lr_env_kind kind;
	const char *name;
	const char *value;
};

struct kv {
	const char *key;
	const char *value;
};

struct build_case {
	const char *name;
	struct rule rules[MAX];		/* name NULL ends */
	const char *caller[MAX];	/* NULL ends */
	bool has_file;
	struct kv file[MAX];		/* key NULL ends */
	const char *want[MAX];		/* exactly these "NAME=VALUE", any order */
};

/* Callers that look like a real shell's environment. */
#define SHELL_ENV "PATH=/usr/bin:/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", \
		  "LC_ALL=C", "LC_TIME=en_GB", "AWS_SECRET_ACCESS_KEY=s3cr3t"

static const struct build_case build_cases[] = {
	{ "empty policy, empty caller", { { 0 } }, { NULL }, false, { { 0 } }, { NULL } },
	{ "empty policy drops everything", { { 0 } }, { SHELL_ENV, NULL }, false, { { 0 } },
	  { NULL } },
	{ "empty policy, file given", { { 0 } }, { SHELL_ENV, NULL }, true,
	  { { "DB_PASSWORD", "x" }, { "PATH", "/evil" } }, { NULL } },
	{ "NAME copies from caller", { { LR_ENV_NAME, "HOME", NULL } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { "HOME=/home/u", NULL } },
	{ "NAME missing from caller is absent", { { LR_ENV_NAME, "NOPE", NULL } }, { SHELL_ENV, NULL },
	  false, { { 0 } }, { NULL } },
	{ "NAME is not a prefix", { { LR_ENV_NAME, "LC", NULL } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { NULL } },
	{ "NAME does not match a longer or shorter name", { { LR_ENV_NAME, "USERS", NULL } },
	  { "USER=u", "USERNAME=v", NULL }, false, { { 0 } }, { NULL } },
	{ "NAME with empty value", { { LR_ENV_NAME, "E", NULL } }, { "E=", NULL }, false, { { 0 } },
	  { "E=", NULL } },
	{ "NAME whose value holds =", { { LR_ENV_NAME, "Q", NULL } }, { "Q=a=b=", NULL }, false,
	  { { 0 } }, { "Q=a=b=", NULL } },
	{ "NAME is case-sensitive", { { LR_ENV_NAME, "home", NULL } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { NULL } },
	{ "NAME=VALUE sets", { { LR_ENV_SET, "FOO", "bar" } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { "FOO=bar", NULL } },
	{ "NAME=VALUE empty value", { { LR_ENV_SET, "FOO", "" } }, { NULL }, false, { { 0 } },
	  { "FOO=", NULL } },
	{ "NAME=VALUE overrides caller", { { LR_ENV_SET, "HOME", "/sandbox" } },
	  { SHELL_ENV, NULL }, false, { { 0 } }, { "HOME=/sandbox", NULL } },
	{ "NAME=VALUE does not select the caller's others",
	  { { LR_ENV_SET, "HOME", "/x" } }, { SHELL_ENV, NULL }, false, { { 0 } },
	  { "HOME=/x", NULL } },
	{ "NAME=VALUE twice: the last wins",
	  { { LR_ENV_SET, "A", "1" }, { LR_ENV_SET, "A", "2" } }, { NULL }, false, { { 0 } },
	  { "A=2", NULL } },
	{ "prefix copies all matching and not others", { { LR_ENV_PREFIX, "LC_", NULL } },
	  { SHELL_ENV, NULL }, false, { { 0 } }, { "LC_ALL=C", "LC_TIME=en_GB", NULL } },
	{ "prefix equal to a full name matches", { { LR_ENV_PREFIX, "LANG", NULL } },
	  { SHELL_ENV, NULL }, false, { { 0 } }, { "LANG=C.UTF-8", NULL } },
	{ "prefix longer than a name does not match", { { LR_ENV_PREFIX, "USERNAME", NULL } },
	  { SHELL_ENV, NULL }, false, { { 0 } }, { NULL } },
	{ "prefix does not match in the middle", { { LR_ENV_PREFIX, "ALL", NULL } },
	  { SHELL_ENV, NULL }, false, { { 0 } }, { NULL } },
	{ "prefix from file too", { { LR_ENV_PREFIX, "APP_", NULL } }, { "APP_A=caller", NULL }, true,
	  { { "APP_B", "file" }, { "OTHER", "no" } }, { "APP_A=caller", "APP_B=file", NULL } },
	{ "file wins over caller", { { LR_ENV_NAME, "TOKEN", NULL } }, { "TOKEN=caller", NULL }, true,
	  { { "TOKEN", "file" } }, { "TOKEN=file", NULL } },
	{ "file wins over caller through a prefix", { { LR_ENV_PREFIX, "TOK", NULL } },
	  { "TOKEN=caller", NULL }, true, { { "TOKEN", "file" } }, { "TOKEN=file", NULL } },
	{ "file alone supplies NAME", { { LR_ENV_NAME, "DB_URL", NULL } }, { SHELL_ENV, NULL }, true,
	  { { "DB_URL", "pg://x" } }, { "DB_URL=pg://x", NULL } },
	{ "file with empty value still wins", { { LR_ENV_NAME, "HOME", NULL } }, { SHELL_ENV, NULL },
	  true, { { "HOME", "" } }, { "HOME=", NULL } },
	{ "SET wins over file", { { LR_ENV_SET, "TOKEN", "cli" }, { LR_ENV_NAME, "TOKEN", NULL } },
	  { "TOKEN=caller", NULL }, true, { { "TOKEN", "file" } }, { "TOKEN=cli", NULL } },
	{ "SET wins over file, rule order reversed",
	  { { LR_ENV_NAME, "TOKEN", NULL }, { LR_ENV_SET, "TOKEN", "cli" } }, { "TOKEN=caller", NULL },
	  true, { { "TOKEN", "file" } }, { "TOKEN=cli", NULL } },
	{ "SET wins over file without NAME", { { LR_ENV_SET, "TOKEN", "cli" } }, { NULL }, true,
	  { { "TOKEN", "file" } }, { "TOKEN=cli", NULL } },
	{ "file keys not selected never pass", { { LR_ENV_NAME, "A", NULL } }, { NULL }, true,
	  { { "A", "1" }, { "SECRET", "2" }, { "PATH", "/evil" }, { "AB", "3" } },
	  { "A=1", NULL } },
	{ "caller entry without = is ignored", { { LR_ENV_NAME, "BARE", NULL }, { LR_ENV_PREFIX, "B", NULL } },
	  { "BARE", "B", "BX=1", NULL }, false, { { 0 } }, { "BX=1", NULL } },
	{ "caller entry with empty name is ignored", { { LR_ENV_PREFIX, "A", NULL } },
	  { "=x", "A=1", NULL }, false, { { 0 } }, { "A=1", NULL } },
	{ "PATH not passed unless asked", { { LR_ENV_NAME, "HOME", NULL }, { LR_ENV_PREFIX, "LC_", NULL } },
	  { SHELL_ENV, NULL }, false, { { 0 } },
	  { "HOME=/home/u", "LC_ALL=C", "LC_TIME=en_GB", NULL } },
	{ "PATH passed when asked", { { LR_ENV_NAME, "PATH", NULL } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { "PATH=/usr/bin:/bin", NULL } },
	{ "PATH set when asked", { { LR_ENV_SET, "PATH", "/sbin" } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { "PATH=/sbin", NULL } },
	{ "NAME and prefix overlap: no duplicate", { { LR_ENV_NAME, "LC_ALL", NULL },
	  { LR_ENV_PREFIX, "LC_", NULL }, { LR_ENV_PREFIX, "LC_A", NULL } }, { SHELL_ENV, NULL }, false,
	  { { 0 } }, { "LC_ALL=C", "LC_TIME=en_GB", NULL } },
	{ "NULL caller", { { LR_ENV_NAME, "A", NULL }, { LR_ENV_SET, "B", "2" } }, { NULL }, false,
	  { { 0 } }, { "B=2", NULL } },
};

static void run_build(const struct build_case *c, bool null_caller)
{
	struct lr_policy p;
	struct lr_kvlist file = { 0 };
	struct lr_strlist out = { 0 };
	char *caller[MAX];
	size_t n_want = 0, i;
	int r;

	lr_policy_init(&p);
	for (i = 0; c->rules[i].name; i++)
		cr_assert_eq(lr_policy_add_env(&p, c->rules[i].kind, c->rules[i].name,
					       c->rules[i].value), 0);
	for (i = 0; c->caller[i]; i++) {
		caller[i] = strdup(c->caller[i]);
		cr_assert_not_null(caller[i]);
	}
	caller[i] = NULL;
	for (i = 0; c->has_file && c->file[i].key; i++)
		cr_assert_eq(lr_kvlist_set(&file, c->file[i].key, strlen(c->file[i].key),
					   c->file[i].value, strlen(c->file[i].value)), 0);

	r = lr_env_build(&p, null_caller ? NULL : caller, c->has_file ? &file : NULL, &out);
	cr_expect_eq(r, 0, "%s: returned %d", c->name, r);

	cr_expect_not_null(out.v, "%s: out.v is NULL (an empty environment is still an array)",
			   c->name);
	for (n_want = 0; c->want[n_want]; n_want++)
		;
	cr_expect_eq(out.n, n_want, "%s: %zu variables, want %zu", c->name, out.n, n_want);
	if (out.v)
		cr_expect_null(out.v[out.n], "%s: not NULL-terminated", c->name);
	for (i = 0; i < n_want; i++)
		cr_expect(lr_strlist_contains(&out, c->want[i]), "%s: '%s' missing", c->name,
			  c->want[i]);
	for (i = 0; i < out.n; i++) {
		bool wanted = false;

		for (size_t j = 0; j < n_want; j++)
			wanted |= strcmp(out.v[i], c->want[j]) == 0;
		cr_expect(wanted, "%s: unexpected '%s'", c->name, out.v[i]);
		for (size_t j = i + 1; j < out.n; j++)
			cr_expect_str_neq(out.v[i], out.v[j], "%s: '%s' twice", c->name,
					  out.v[i]);
	}

	lr_strlist_free(&out);
	lr_kvlist_free(&file);
	for (i = 0; caller[i]; i++)
		free(caller[i]);
	lr_policy_free(&p);
}

Test(env_build, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(build_cases); i++)
		run_build(&build_cases[i], false);
}

Test(env_build, null_caller)
{
	for (size_t i = 0; i < ARRAY_SIZE(build_cases); i++)
		if (!build_cases[i].caller[0])
			run_build(&build_cases[i], true);
}

Test(env_build, empty_is_an_array)
{
	struct lr_policy p;
	struct lr_strlist out = { 0 };

	lr_policy_init(&p);
	cr_assert_eq(lr_env_build(&p, NULL, NULL, &out), 0);
	cr_assert_not_null(out.v);
	cr_expect_eq(out.n, 0);
	cr_expect_null(out.v[0]);
	lr_strlist_free(&out);
	lr_policy_free(&p);
}

/* The real environment of the test process, as landrun would see it. */
Test(env_build, real_environ)
{
	extern char **environ;
	struct lr_policy p;
	struct lr_strlist out = { 0 };

	cr_assert_eq(setenv("LR_TEST_PASS", "yes", 1), 0);
	cr_assert_eq(setenv("LR_TEST_DROP", "no", 1), 0);
	cr_assert_eq(setenv("PATH", "/usr/bin", 1), 0);
	lr_policy_init(&p);
	cr_assert_eq(lr_policy_add_env(&p, LR_ENV_NAME, "LR_TEST_PASS", NULL), 0);
	cr_assert_eq(lr_env_build(&p, environ, NULL, &out), 0);
	cr_expect_eq(out.n, 1);
	cr_expect(lr_strlist_contains(&out, "LR_TEST_PASS=yes"));
	lr_strlist_free(&out);
	lr_policy_free(&p);
}

/* ------------------------------------------------------------------------ */

/*
 * Large inputs: tens of thousands of variables, keys and rules, built with a
 * known answer for every name, checked name by name and in order.  (The order
 * is today's: the caller's variables in its order, then the file's new keys,
 * then the new --env NAME=VALUE.)
 */
#define BIG 20000

static __attribute__((format(printf, 1, 2))) char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, f);
	r = vasprintf(&s, f, ap);
	va_end(ap);
	cr_assert_geq(r, 0);
	return s;
}

/* Is V<i> selected: --env V<i> for every third i, or --env-prefix V1 (and V12, covered). */
static bool big_v_selected(int i)
{
	char digits[16];

	snprintf(digits, sizeof(digits), "%d", i);
	return i % 3 == 0 || digits[0] == '1';
}

Test(env_build, large_inputs_keep_precedence_and_order)
{
	struct lr_policy p;
	struct lr_kvlist file = { 0 };
	struct lr_strlist out = { 0 }, want = { 0 };
	char **caller = calloc(3 * BIG + 1, sizeof(*caller));
	size_t nc = 0;

	cr_assert_not_null(caller);
	lr_policy_init(&p);
	cr_assert_eq(lr_policy_add_env(&p, LR_ENV_PREFIX, "V12", NULL), 0);
	cr_assert_eq(lr_policy_add_env(&p, LR_ENV_PREFIX, "U5", NULL), 0);
	for (int i = 0; i < BIG; i++) {
		_cleanup_free_ char *v = fmt("V%d", i), *sv = fmt("s%d", i);

		if (i % 3 == 0)
			cr_assert_eq(lr_policy_add_env(&p, LR_ENV_NAME, v, NULL), 0);
		if (i % 11 == 0)
			cr_assert_eq(lr_policy_add_env(&p, LR_ENV_SET, v, sv), 0);
		if (i < 1000) {
			_cleanup_free_ char *s = fmt("S%d", i), *t = fmt("t%d", i);
			_cleanup_free_ char *w = fmt("W%d", i);

			cr_assert_eq(lr_policy_add_env(&p, LR_ENV_SET, s, t), 0);
			cr_assert_eq(lr_policy_add_env(&p, LR_ENV_NAME, w, NULL), 0);
		}
		if (i % 13 == 0) {
			_cleanup_free_ char *f = fmt("F%d", i);

			cr_assert_eq(lr_policy_add_env(&p, LR_ENV_NAME, f, NULL), 0);
		}
	}
	cr_assert_eq(lr_policy_add_env(&p, LR_ENV_PREFIX, "V1", NULL), 0);

	/* the caller: every V<i>, then a second V<i> for every seventh i, then U<i> */
	for (int i = 0; i < BIG; i++)
		caller[nc++] = fmt("V%d=c%d", i, i);
	for (int i = 0; i < BIG; i += 7)
		caller[nc++] = fmt("V%d=dup", i);
	for (int i = 0; i < BIG; i++)
		caller[nc++] = fmt("U%d=u", i);
	/* the file: V<i> for every fifth i, and F<i> */
	for (int i = 0; i < BIG; i++) {
		_cleanup_free_ char *k = fmt("V%d", i), *v = fmt("f%d", i);
		_cleanup_free_ char *fk = fmt("F%d", i), *fv = fmt("g%d", i);

		if (i % 5 == 0)
			cr_assert_eq(lr_kvlist_set(&file, k, strlen(k), v, strlen(v)), 0);
		cr_assert_eq(lr_kvlist_set(&file, fk, strlen(fk), fv, strlen(fv)), 0);
	}

	/* the answer, in order: the caller's selected names first ... */
	for (int i = 0; i < BIG; i++) {
		if (!big_v_selected(i))
			continue;
		if (i % 11 == 0)
			cr_assert_eq(lr_strlist_take(&want, fmt("V%d=s%d", i, i)), 0);
		else if (i % 5 == 0)
			cr_assert_eq(lr_strlist_take(&want, fmt("V%d=f%d", i, i)), 0);
		else
			cr_assert_eq(lr_strlist_take(&want, fmt("V%d=c%d", i, i)), 0);
	}
	for (int i = 0; i < BIG; i++) {
		char digits[16];

		snprintf(digits, sizeof(digits), "%d", i);
		if (digits[0] == '5')
			cr_assert_eq(lr_strlist_take(&want, fmt("U%d=u", i)), 0);
	}
	/* ... then the file's keys the caller did not have ... */
	for (int i = 0; i < BIG; i += 13) {
		char *s;

		cr_assert_geq(asprintf(&s, "F%d=g%d", i, i), 0);
		cr_assert_eq(lr_strlist_take(&want, s), 0);
	}
	/* ... then the rest of --env NAME=VALUE, in the rules' order */
	for (int i = 0; i < BIG; i++) {
		if (i % 11 == 0 && !big_v_selected(i))
			cr_assert_eq(lr_strlist_take(&want, fmt("V%d=s%d", i, i)), 0);
		if (i < 1000)
			cr_assert_eq(lr_strlist_take(&want, fmt("S%d=t%d", i, i)), 0);
	}

	cr_assert_eq(lr_env_build(&p, caller, &file, &out), 0);
	cr_expect_eq(out.n, want.n, "%zu variables, want %zu", out.n, want.n);
	for (size_t i = 0; i < out.n && i < want.n; i++)
		if (strcmp(out.v[i], want.v[i]) != 0) {
			cr_expect_str_eq(out.v[i], want.v[i], "variable %zu", i);
			break;
		}
	cr_expect_null(out.v[out.n]);

	lr_strlist_free(&out);
	lr_strlist_free(&want);
	lr_kvlist_free(&file);
	for (size_t i = 0; i < nc; i++)
		free(caller[i]);
	free(caller);
	lr_policy_free(&p);
}

/* A small deterministic generator (no libc rand(): its sequence is not portable). */
static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

static char *random_name(uint32_t *state, size_t max)
{
	static const char alphabet[] = "AB_C";
	size_t len = 1 + next_random(state) % max;
	char *s = malloc(len + 1);

	cr_assert_not_null(s);
	for (size_t i = 0; i < len; i++)
		s[i] = alphabet[next_random(state) % 4];
	s[len] = '\0';
	return s;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Thousands of overlapping names and prefixes over a four-letter alphabet
 * (prefixes of each other, equal to names, repeated): every name is selected
 * exactly when the rules' plain definition says so, checked here the slow way.
 */
Test(env_build, many_overlapping_rules_match_by_definition)
{
	enum { N_NAMES = 3000, N_RULES = 2000 };
	struct lr_policy p;
	struct lr_strlist out = { 0 };
	char **caller = calloc(N_NAMES + 1, sizeof(*caller));
	char **names = calloc(N_NAMES, sizeof(*names));
	char *rules[N_RULES];
	bool is_prefix[N_RULES];
	uint32_t state = 42;
	size_t n_want = 0;

	cr_assert(caller && names);
	lr_policy_init(&p);
	for (int i = 0; i < N_RULES; i++) {
		is_prefix[i] = next_random(&state) % 2;
		rules[i] = random_name(&state, is_prefix[i] ? 5 : 7);
		cr_assert_eq(lr_policy_add_env(&p, is_prefix[i] ? LR_ENV_PREFIX : LR_ENV_NAME,
					       rules[i], NULL),
			     0);
	}
	for (int i = 0; i < N_NAMES; i++) {
		bool sel = false;

		names[i] = random_name(&state, 9);
		cr_assert_geq(asprintf(&caller[i], "%s=1", names[i]), 0);
		for (int j = 0; j < N_RULES && !sel; j++) {
			size_t rlen = strlen(rules[j]);

			sel = is_prefix[j] ? strncmp(names[i], rules[j], rlen) == 0
					   : strcmp(names[i], rules[j]) == 0;
		}
		if (!sel) {
			free(names[i]);
			names[i] = NULL;
		}
	}

	cr_assert_eq(lr_env_build(&p, caller, NULL, &out), 0);

	/* the wanted names, each once (the caller may hold one twice: the first counts) */
	for (int i = 0; i < N_NAMES; i++)
		if (names[i])
			names[n_want++] = names[i];
	qsort(names, n_want, sizeof(*names), cmp_strp);
	{
		size_t u = 0;

		for (size_t i = 0; i < n_want; i++) {
			if (u && strcmp(names[u - 1], names[i]) == 0)
				free(names[i]);
			else
				names[u++] = names[i];
		}
		n_want = u;
	}
	cr_expect_gt(n_want, N_NAMES / 10, "the generator selects too few to prove much");
	cr_expect_lt(n_want, N_NAMES * 9 / 10, "the generator selects too many to prove much");
	qsort(out.v, out.n, sizeof(*out.v), cmp_strp);
	cr_expect_eq(out.n, n_want, "%zu variables, want %zu", out.n, n_want);
	for (size_t i = 0; i < out.n && i < n_want; i++) {
		size_t len = strlen(names[i]);

		if (strncmp(out.v[i], names[i], len) != 0 || strcmp(out.v[i] + len, "=1") != 0) {
			cr_expect_fail("variable %zu is '%s', want '%s=1'", i, out.v[i], names[i]);
			break;
		}
	}

	for (size_t i = 0; i < n_want; i++)
		free(names[i]);
	for (int i = 0; i < N_RULES; i++)
		free(rules[i]);
	for (int i = 0; i < N_NAMES; i++)
		free(caller[i]);
	free(caller);
	free(names);
	lr_strlist_free(&out);
	lr_policy_free(&p);
}

/* ------------------------------------------------------------------------ */

Test(env_lookup, table)
{
	static char *const envp[] = {
		"FOO=1", "FOOBAR=2", "EMPTY=", "EQ=a=b", "BARE", "=nameless", "DUP=first",
		"DUP=second", NULL,
	};
	static const struct {
		const char *name;
		const char *want;	/* NULL: absent */
	} cases[] = {
		{ "FOO", "1" },
		{ "FOOBAR", "2" },
		{ "FO", NULL },
		{ "FOOB", NULL },
		{ "FOOBARX", NULL },
		{ "foo", NULL },
		{ "EMPTY", "" },
		{ "EQ", "a=b" },
		{ "BARE", NULL },
		{ "MISSING", NULL },
		{ "DUP", "first" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = lr_env_lookup(envp, cases[i].name);

		if (cases[i].want)
			cr_expect_str_eq(got ? got : "(null)", cases[i].want, "%s: '%s', want '%s'",
					 cases[i].name, got ? got : "(null)", cases[i].want);
		else
			cr_expect_null(got, "%s: '%s', want absent", cases[i].name, got);
	}
	cr_expect_null(lr_env_lookup(NULL, "FOO"), "NULL envp");
	{
		static char *const none[] = { NULL };

		cr_expect_null(lr_env_lookup(none, "FOO"), "empty envp");
	}
}

/* ------------------------------------------------------------------------ */

Test(env_name_valid, table)
{
	static const struct {
		const char *s;
		size_t len;	/* (size_t)-1: strlen */
		bool valid;
	} cases[] = {
		{ "A", (size_t)-1, true },
		{ "_", (size_t)-1, true },
		{ "a", (size_t)-1, true },
		{ "_1", (size_t)-1, true },
		{ "HOME", (size_t)-1, true },
		{ "LC_ALL", (size_t)-1, true },
		{ "a1_B2", (size_t)-1, true },
		{ "X9", (size_t)-1, true },
		{ "", (size_t)-1, false },
		{ "1X", (size_t)-1, false },
		{ "9", (size_t)-1, false },
		{ "A-B", (size_t)-1, false },
		{ "A.B", (size_t)-1, false },
		{ "A B", (size_t)-1, false },
		{ " A", (size_t)-1, false },
		{ "A ", (size_t)-1, false },
		{ "A=B", (size_t)-1, false },
		{ "=", (size_t)-1, false },
		{ "A\tB", (size_t)-1, false },
		{ "\xc3\x89T\xc3\x89", (size_t)-1, false },
		{ "A$", (size_t)-1, false },
		{ "A/B", (size_t)-1, false },
		/* LEN bounds the name: the rest is not looked at */
		{ "FOO=bar", 3, true },
		{ "FOO=bar", 4, false },
		{ "FOO", 0, false },
		{ "1FOO", 1, false },
		{ "F-OO", 1, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len == (size_t)-1 ? strlen(cases[i].s) : cases[i].len;

		cr_expect_eq(lr_env_name_valid(cases[i].s, len), cases[i].valid,
			     "'%s' (len %zu): want %s", cases[i].s, len,
			     cases[i].valid ? "valid" : "invalid");
	}
}
