/* SPDX-License-Identifier: MIT */
/*
 * The broker's judgement of a path (lr_broker_judge), without a kernel: the
 * protected names at any depth, a secret's name as the last component, the
 * holes found at start, the stricter of them, and the allowances.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/trace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct lr_hole hole_v[] = {
	{ .path = (char *)"/p/.vscode", .kind = LR_HOLE_PROTECTED, .why = (char *)"an editor" },
	{ .path = (char *)"/p/config/prod.vars", .kind = LR_HOLE_SECRET, .why = (char *)"the --env-file" },
	{ .path = (char *)"/p/tools/hooks", .kind = LR_HOLE_PROTECTED, .why = (char *)"git (core.hooksPath)" },
};
static struct lr_holes holes = { hole_v, ARRAY_SIZE(hole_v), 0 };

static const struct {
	const char *path;
	enum lr_broker_verdict want;
} cases[] = {
	{ "/p/src/a.c", LR_BROKER_OK },
	{ "/p/NOTES.md", LR_BROKER_OK },
	{ "/p/node_modules/x/index.js", LR_BROKER_OK },
	{ "/p/.env.example", LR_BROKER_OK },
	{ "/p/.claude", LR_BROKER_PROTECTED },
	{ "/p/.claude/settings.json", LR_BROKER_PROTECTED },
	{ "/p/src/deep/.git", LR_BROKER_PROTECTED },
	{ "/p/src/deep/.git/hooks/pre-commit", LR_BROKER_PROTECTED },
	{ "/p/made/.mcp.json", LR_BROKER_PROTECTED },
	{ "/p/tools/hooks/pre-commit", LR_BROKER_PROTECTED },
	{ "/p/.env", LR_BROKER_SECRET },
	{ "/p/src/.env.local", LR_BROKER_SECRET },
	{ "/p/.envrc", LR_BROKER_SECRET },
	{ "/p/config/prod.vars", LR_BROKER_SECRET },
	/* credential files by their well-known names */
	{ "/p/.npmrc", LR_BROKER_SECRET },
	{ "/p/deploy/id_ed25519", LR_BROKER_SECRET },
	{ "/p/.aws/credentials", LR_BROKER_SECRET },
	{ "/p/credentials", LR_BROKER_OK },
	/* a secret in a protected directory is a secret */
	{ "/p/.vscode/.env", LR_BROKER_SECRET },
	{ "/p/.git/.env", LR_BROKER_SECRET },
	{ "/p/.vscode/tasks.json", LR_BROKER_PROTECTED },
	/* not beneath the root: never the broker's to allow */
	{ "/q/a", LR_BROKER_PROTECTED },
	/* allowed */
	{ "/p/sub/.git/config", LR_BROKER_OK },
	{ "/p/keys/.env", LR_BROKER_OK },
};

Test(broker, judge)
{
	struct lr_broker b = { .holes = &holes };
	const char *why;

	cr_assert_eq(lr_strlist_add(&b.allowed_protected, "/p/sub/.git"), 0);
	cr_assert_eq(lr_strlist_add(&b.allowed_secret, "/p/keys"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum lr_broker_verdict v = lr_broker_judge(&b, "/p", cases[i].path, &why);

		cr_expect_eq(v, cases[i].want, "%s: %d, want %d", cases[i].path, v, cases[i].want);
		cr_expect(v == LR_BROKER_OK || why, "%s: no reason given", cases[i].path);
	}
	lr_strlist_free(&b.allowed_protected);
	lr_strlist_free(&b.allowed_secret);
}

Test(broker, judge_at_slash)
{
	struct lr_broker b = { .holes = NULL };
	const char *why;

	cr_expect_eq(lr_broker_judge(&b, "/", "/x/.git", &why), LR_BROKER_PROTECTED);
	cr_expect_eq(lr_broker_judge(&b, "/", "/x/y", &why), LR_BROKER_OK);
}

/* What the broker tells the supervisor (lr_broker_told), read back by the
 * tracer (lr_trace_told): a denial as the tracer would have it, or nothing
 * for what is not one. */
static size_t told(char *buf, int op, const char *path,
		   int32_t pid)
{
	struct lr_broker_told t = { .op = op, .err = EACCES, .pid = pid, .when = 7, .dir = 1 };
	size_t at = offsetof(struct lr_broker_told, path);

	strcpy(t.comm, "mkdir");
	memcpy(buf, &t, at);
	strcpy(buf + at, path);
	return at + strlen(path) + 1;
}

Test(broker, told)
{
	_Alignas(struct lr_broker_told) char buf[512];
	struct lr_tracer t = { .child = 42 };
	size_t n;

	n = told(buf, LR_DENIED_CREATE, "/home/u/.cache", 42);
	cr_assert_eq(lr_trace_told(&t, buf, n), 0);
	cr_assert_eq(t.denials.n, 1);
	cr_expect_eq(t.denials.v[0].op, LR_DENIED_CREATE);
	cr_expect_str_eq(t.denials.v[0].path, "/home/u/.cache");
	cr_expect(t.denials.v[0].dir && t.denials.v[0].main);
	cr_expect_eq(t.denials.v[0].last, 7);
	cr_expect_str_eq(t.denials.v[0].comm, "mkdir");
	/* a call: no path */
	n = told(buf, LR_DENIED_CALL, "", 43);
	((struct lr_broker_told *)buf)->nr = SYS_fchmodat;
	cr_assert_eq(lr_trace_told(&t, buf, n), 0);
	cr_expect_eq(t.denials.v[1].nr, SYS_fchmodat);
	cr_expect(!t.denials.v[1].main);
	/* not one: cut short, no NUL, a relative path, a path for a call, no
	 * pid, an op the broker never tells */
	n = told(buf, LR_DENIED_READ, "/srv/a", 42);
	cr_expect_eq(lr_trace_told(&t, buf, offsetof(struct lr_broker_told, path)), -EINVAL);
	cr_expect_eq(lr_trace_told(&t, buf, n - 1), -EINVAL);
	n = told(buf, LR_DENIED_READ, "srv/a", 42);
	cr_expect_eq(lr_trace_told(&t, buf, n), -EINVAL);
	n = told(buf, LR_DENIED_CALL, "/srv/a", 42);
	cr_expect_eq(lr_trace_told(&t, buf, n), -EINVAL);
	n = told(buf, LR_DENIED_READ, "/srv/a", 0);
	cr_expect_eq(lr_trace_told(&t, buf, n), -EINVAL);
	n = told(buf, LR_DENIED_CONNECT_TCP, "/srv/a", 42);
	cr_expect_eq(lr_trace_told(&t, buf, n), -EINVAL);
	n = told(buf, 999, "/srv/a", 42);
	cr_expect_eq(lr_trace_told(&t, buf, n), -EINVAL);
	cr_expect_eq(t.denials.n, 2);
	lr_trace_free(&t);
}
