/* SPDX-License-Identifier: MIT */
/*
 * lr_cli_parse: valid, invalid and conflicting command lines, as tables.
 * Each table runs in one process, so one case's getopt state carries into
 * the next: that is on purpose (the parser must reset it itself).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "landrun/policy/cli.h"
#include "landrun/policy/policy.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ARGS 24

#define RO (LR_ACCESS_RO)
#define ROX (LR_ACCESS_RO | LR_ACCESS_X)
#define RW (LR_ACCESS_RO | LR_ACCESS_RW)
#define RWX (LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X)

/* argv as getopt wants it: writable copies, NULL-terminated. */
struct args {
	int argc;
	char *argv[MAX_ARGS + 1];
	char *owned[MAX_ARGS];	/* what to free: getopt may reorder argv */
};

static void args_init(struct args *a, const char *const *src)
{
	memset(a, 0, sizeof(*a));
	a->argv[a->argc] = strdup("landrun");
	cr_assert_not_null(a->argv[a->argc]);
	a->owned[a->argc] = a->argv[a->argc];
	a->argc++;
	for (; *src; src++) {
		cr_assert_lt(a->argc, MAX_ARGS, "test table: too many arguments");
		a->argv[a->argc] = strdup(*src);
		cr_assert_not_null(a->argv[a->argc]);
		a->owned[a->argc] = a->argv[a->argc];
		a->argc++;
	}
	a->argv[a->argc] = NULL;
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->owned[i]);
}

static const char *result_name(enum lr_opt_result r)
{
	switch (r) {
	case LR_OPT_ERROR:
		return "ERROR";
	case LR_OPT_RUN:
		return "RUN";
	case LR_OPT_SHOW_HELP:
		return "HELP";
	case LR_OPT_SHOW_VERSION:
		return "VERSION";
	}
	return "?";
}

/* ------------------------------------------------------------------------ */
/* Valid command lines */

struct grant_exp {
	const char *path;
	unsigned access;
	const char *flag;
};

struct env_exp {
	enum lr_env_kind kind;
	const char *name;
	const char *value;
};

struct valid_case {
	const char *name;
	const char *args[MAX_ARGS];	/* after "landrun", NULL-terminated */
	enum lr_opt_result result;
	const char *cmd[MAX_ARGS];	/* expected policy.argv (RUN only) */
	struct grant_exp grants[8];	/* path NULL ends */
	struct env_exp env[8];		/* name NULL ends */
	/* Checks the rest; NULL: everything else must be at its default. */
	void (*check)(const char *name, const struct lr_policy *p);
};

/* Everything the checks below do not name must stay at its default. */
struct scalars {
	enum lr_on_unsupported on_unsupported;
	bool on_unsupported_set;
	enum lr_log_level log_level;
	enum lr_explain explain;
	bool unrestricted_fs, add_exec, ldd, ignore_missing;
	bool unrestricted_net, unrestricted_scoped, deny_subprocess, allow_sysv_ipc;
};

static const struct scalars defaults = {
	.on_unsupported = LR_UNSUPPORTED_WARN,
	.on_unsupported_set = false,
	.log_level = LR_LOG_NOTICE,
	.explain = LR_EXPLAIN_NONE,
};

static void expect_scalars(const char *name, const struct lr_policy *p, const struct scalars *s)
{
	cr_expect_eq(p->on_unsupported, s->on_unsupported, "%s: on_unsupported %d, want %d", name,
		     p->on_unsupported, s->on_unsupported);
	cr_expect_eq(p->on_unsupported_set, s->on_unsupported_set, "%s: on_unsupported_set", name);
	cr_expect_eq(p->log_level, s->log_level, "%s: log_level %d, want %d", name, p->log_level,
		     s->log_level);
	cr_expect_eq(p->explain, s->explain, "%s: explain %d, want %d", name, p->explain,
		     s->explain);
	cr_expect_eq(p->unrestricted_fs, s->unrestricted_fs, "%s: unrestricted_fs", name);
	cr_expect_eq(p->add_exec, s->add_exec, "%s: add_exec", name);
	cr_expect_eq(p->ldd, s->ldd, "%s: ldd", name);
	cr_expect_eq(p->ignore_missing, s->ignore_missing, "%s: ignore_missing", name);
	cr_expect_eq(p->unrestricted_net, s->unrestricted_net, "%s: unrestricted_net", name);
	cr_expect_eq(p->unrestricted_scoped, s->unrestricted_scoped, "%s: unrestricted_scoped",
		     name);
	cr_expect_eq(p->deny_subprocess, s->deny_subprocess, "%s: deny_subprocess", name);
	cr_expect_eq(p->allow_sysv_ipc, s->allow_sysv_ipc, "%s: allow_sysv_ipc", name);
}

static void expect_no_lists(const char *name, const struct lr_policy *p)
{
	cr_expect_null(p->env_file, "%s: env_file set", name);
	cr_expect_eq(p->n_keep_fds, 0, "%s: %zu keep_fds", name, p->n_keep_fds);
	cr_expect_eq(p->n_allow_dotenv, 0, "%s: %zu allow_dotenv", name, p->n_allow_dotenv);
	cr_expect_eq(p->n_connect_tcp, 0, "%s: connect_tcp", name);
	cr_expect_eq(p->n_bind_tcp, 0, "%s: bind_tcp", name);
	cr_expect_eq(p->n_unix_paths, 0, "%s: unix_paths", name);
}

static void check_defaults(const char *name, const struct lr_policy *p)
{
	expect_scalars(name, p, &defaults);
	expect_no_lists(name, p);
}

#define SCALARS_CHECK(fn, ...)                                            \
	static void fn(const char *name, const struct lr_policy *p)       \
	{                                                                 \
		struct scalars s = defaults;                              \
		__VA_ARGS__;                                              \
		expect_scalars(name, p, &s);                              \
		expect_no_lists(name, p);                                 \
	}

SCALARS_CHECK(check_best_effort, s.on_unsupported = LR_UNSUPPORTED_WARN, s.on_unsupported_set = true)
SCALARS_CHECK(check_unrestricted_fs, s.unrestricted_fs = true)
SCALARS_CHECK(check_add_exec, s.add_exec = true)
SCALARS_CHECK(check_ldd, s.ldd = true)
SCALARS_CHECK(check_ignore_missing, s.ignore_missing = true)
SCALARS_CHECK(check_log_error, s.log_level = LR_LOG_ERROR)
SCALARS_CHECK(check_log_info, s.log_level = LR_LOG_INFO)
SCALARS_CHECK(check_log_debug, s.log_level = LR_LOG_DEBUG)
SCALARS_CHECK(check_ou_error, s.on_unsupported = LR_UNSUPPORTED_ERROR, s.on_unsupported_set = true)
SCALARS_CHECK(check_ou_warn, s.on_unsupported = LR_UNSUPPORTED_WARN, s.on_unsupported_set = true)
SCALARS_CHECK(check_ou_ignore, s.on_unsupported = LR_UNSUPPORTED_IGNORE, s.on_unsupported_set = true)
SCALARS_CHECK(check_explain_text, s.explain = LR_EXPLAIN_TEXT)
SCALARS_CHECK(check_explain_json, s.explain = LR_EXPLAIN_JSON)
SCALARS_CHECK(check_unrestricted_net, s.unrestricted_net = true)
SCALARS_CHECK(check_unrestricted_scoped, s.unrestricted_scoped = true)
SCALARS_CHECK(check_deny_subprocess, s.deny_subprocess = true)
SCALARS_CHECK(check_allow_sysv_ipc, s.allow_sysv_ipc = true)
SCALARS_CHECK(check_many_flags, s.add_exec = true, s.ldd = true, s.ignore_missing = true,
	      s.log_level = LR_LOG_INFO, s.on_unsupported = LR_UNSUPPORTED_IGNORE,
	      s.on_unsupported_set = true)

static void check_env_file(const char *name, const struct lr_policy *p)
{
	expect_scalars(name, p, &defaults);
	cr_expect_str_eq(p->env_file ? p->env_file : "(null)", "/srv/app/.env",
			 "%s: env_file", name);
	cr_expect_eq(p->n_keep_fds, 0, "%s: keep_fds", name);
	cr_expect_eq(p->n_allow_dotenv, 0, "%s: allow_dotenv", name);
}

static void check_keep_fds(const char *name, const struct lr_policy *p)
{
	static const int want[] = { 3, 0, 7, 2147483647 };

	expect_scalars(name, p, &defaults);
	cr_assert_eq(p->n_keep_fds, ARRAY_SIZE(want), "%s: %zu keep_fds, want %zu", name,
		     p->n_keep_fds, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_expect_eq(p->keep_fds[i], want[i], "%s: keep_fds[%zu] = %d, want %d", name, i,
			     p->keep_fds[i], want[i]);
}

/* --user: the last one wins (the command line over a profile), resolved later */
static void check_user(const char *name, const struct lr_policy *p)
{
	expect_scalars(name, p, &defaults);
	cr_expect_str_eq(p->user ? p->user : "(null)", "bob:staff", "%s: user", name);
	cr_expect_not(p->run_as.set, "%s: resolved by the parser", name);
}

static void check_allow_dotenv(const char *name, const struct lr_policy *p)
{
	static const char *const want[] = { "/p/.env", "/q/.env.local" };

	expect_scalars(name, p, &defaults);
	cr_assert_eq(p->n_allow_dotenv, ARRAY_SIZE(want), "%s: %zu allow_dotenv", name,
		     p->n_allow_dotenv);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_expect_str_eq(p->allow_dotenv[i], want[i], "%s: allow_dotenv[%zu]", name, i);
}

static void expect_ranges(const char *name, const char *what, const struct lr_port_range *got,
			  size_t n, const struct lr_port_range *want, size_t n_want)
{
	cr_assert_eq(n, n_want, "%s: %zu %s ranges, want %zu", name, n, what, n_want);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(got[i].first, want[i].first, "%s: %s[%zu].first %u", name, what, i,
			     got[i].first);
		cr_expect_eq(got[i].last, want[i].last, "%s: %s[%zu].last %u", name, what, i,
			     got[i].last);
	}
}

static void check_connect_tcp(const char *name, const struct lr_policy *p)
{
	static const struct lr_port_range want[] = { { 80, 80 }, { 443, 443 }, { 8000, 8100 } };

	expect_scalars(name, p, &defaults);
	expect_ranges(name, "connect_tcp", p->connect_tcp, p->n_connect_tcp, want,
		      ARRAY_SIZE(want));
	cr_expect_eq(p->n_bind_tcp, 0, "%s: bind_tcp", name);
	cr_expect_eq(p->n_unix_paths, 0, "%s: unix_paths", name);
}

static void check_bind_tcp(const char *name, const struct lr_policy *p)
{
	static const struct lr_port_range want[] = { { 8080, 8080 } };

	expect_scalars(name, p, &defaults);
	expect_ranges(name, "bind_tcp", p->bind_tcp, p->n_bind_tcp, want, ARRAY_SIZE(want));
	cr_expect_eq(p->n_connect_tcp, 0, "%s: connect_tcp", name);
}

static void check_unix(const char *name, const struct lr_policy *p)
{
	expect_scalars(name, p, &defaults);
	cr_expect_eq(p->n_unix_paths, 2, "%s: %zu unix paths", name, p->n_unix_paths);
	cr_expect_eq(p->n_connect_tcp + p->n_bind_tcp, 0, "%s: tcp", name);
}

static void check_ufs_unix(const char *name, const struct lr_policy *p)
{
	struct scalars s = defaults;

	s.unrestricted_fs = true;
	expect_scalars(name, p, &s);
	cr_expect_eq(p->n_unix_paths, 1, "%s: %zu unix paths", name, p->n_unix_paths);
}

static const struct valid_case valid_cases[] = {
	/* filesystem grants */
	{ "ro", { "--ro", "/usr", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { "/usr", RO, "--ro" } }, { { 0 } }, NULL },
	{ "ro=", { "--ro=/usr", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { "/usr", RO, "--ro" } }, { { 0 } }, NULL },
	{ "rox", { "--rox", "/usr", "ls", "-la", NULL }, LR_OPT_RUN, { "ls", "-la" },
	  { { "/usr", ROX, "--rox" } }, { { 0 } }, NULL },
	{ "rw", { "--rw", "/tmp", "sh", NULL }, LR_OPT_RUN, { "sh" },
	  { { "/tmp", RW, "--rw" } }, { { 0 } }, NULL },
	{ "rwx", { "--rwx", "/opt/x", "sh", NULL }, LR_OPT_RUN, { "sh" },
	  { { "/opt/x", RWX, "--rwx" } }, { { 0 } }, NULL },
	{ "ro repeated and comma-separated",
	  { "--ro", "/usr,/lib", "--ro", "/etc", "cat", NULL }, LR_OPT_RUN, { "cat" },
	  { { "/usr", RO, "--ro" }, { "/lib", RO, "--ro" }, { "/etc", RO, "--ro" } }, { { 0 } },
	  NULL },
	{ "rox comma-separated", { "--rox", "/usr/bin,/bin", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { "/usr/bin", ROX, "--rox" }, { "/bin", ROX, "--rox" } }, { { 0 } }, NULL },
	{ "rw repeated", { "--rw", "/tmp,/var/tmp", "--rw=/run/x", "sh", NULL }, LR_OPT_RUN,
	  { "sh" },
	  { { "/tmp", RW, "--rw" }, { "/var/tmp", RW, "--rw" }, { "/run/x", RW, "--rw" } },
	  { { 0 } }, NULL },
	{ "rwx repeated", { "--rwx", "/a", "--rwx", "/b,/c", "sh", NULL }, LR_OPT_RUN, { "sh" },
	  { { "/a", RWX, "--rwx" }, { "/b", RWX, "--rwx" }, { "/c", RWX, "--rwx" } }, { { 0 } },
	  NULL },
	{ "all four mixed, in order",
	  { "--rw", "/w", "--ro", "/r", "--rwx", "/wx", "--rox", "/rx", "cmd", NULL }, LR_OPT_RUN,
	  { "cmd" },
	  { { "/w", RW, "--rw" }, { "/r", RO, "--ro" }, { "/wx", RWX, "--rwx" },
	    { "/rx", ROX, "--rox" } },
	  { { 0 } }, NULL },
	{ "relative and spaced path", { "--ro", "a dir/f", "cmd", NULL }, LR_OPT_RUN, { "cmd" },
	  { { "a dir/f", RO, "--ro" } }, { { 0 } }, NULL },

	/* environment */
	{ "env NAME", { "--env", "HOME", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { LR_ENV_NAME, "HOME", NULL } }, NULL },
	{ "env NAME=VALUE", { "--env", "FOO=bar", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { LR_ENV_SET, "FOO", "bar" } }, NULL },
	{ "env NAME= (empty value)", { "--env", "FOO=", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { LR_ENV_SET, "FOO", "" } }, NULL },
	{ "env value with =", { "--env=FOO=a=b", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { LR_ENV_SET, "FOO", "a=b" } }, NULL },
	{ "env-prefix", { "--env-prefix", "LC_", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { LR_ENV_PREFIX, "LC_", NULL } }, NULL },
	{ "env mixed, in order",
	  { "--env", "_A1", "--env-prefix", "XDG_", "--env", "B=2", "ls", NULL }, LR_OPT_RUN,
	  { "ls" }, { { 0 } },
	  { { LR_ENV_NAME, "_A1", NULL }, { LR_ENV_PREFIX, "XDG_", NULL },
	    { LR_ENV_SET, "B", "2" } },
	  NULL },
	{ "env-file", { "--env-file", "/srv/app/.env", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_env_file },

	/* network */
	{ "connect-tcp repeated", { "--connect-tcp", "80,443", "--connect-tcp=8000-8100", "curl",
	  NULL }, LR_OPT_RUN, { "curl" }, { { 0 } }, { { 0 } }, check_connect_tcp },
	{ "bind-tcp", { "--bind-tcp", "8080", "srv", NULL }, LR_OPT_RUN, { "srv" }, { { 0 } },
	  { { 0 } }, check_bind_tcp },
	{ "unix repeated", { "--unix", "/run/a.sock", "--unix=/run/b.sock", "cmd", NULL },
	  LR_OPT_RUN, { "cmd" },
	  { { "/run/a.sock", LR_ACCESS_UNIX, "--unix" }, { "/run/b.sock", LR_ACCESS_UNIX, "--unix" } },
	  { { 0 } }, check_unix },
	{ "unix with unrestricted-filesystem",
	  { "--unrestricted-filesystem", "--unix", "/run/a.sock", "cmd", NULL }, LR_OPT_RUN,
	  { "cmd" }, { { "/run/a.sock", LR_ACCESS_UNIX, "--unix" } }, { { 0 } }, check_ufs_unix },
	{ "unrestricted-network", { "--unrestricted-network", "cmd", NULL }, LR_OPT_RUN, { "cmd" },
	  { { 0 } }, { { 0 } }, check_unrestricted_net },
	{ "unrestricted-scoped", { "--unrestricted-scoped", "cmd", NULL }, LR_OPT_RUN, { "cmd" },
	  { { 0 } }, { { 0 } }, check_unrestricted_scoped },
	{ "deny-subprocess", { "--deny-subprocess", "cmd", NULL }, LR_OPT_RUN, { "cmd" },
	  { { 0 } }, { { 0 } }, check_deny_subprocess },
	{ "allow-sysv-ipc", { "--allow-sysv-ipc", "cmd", NULL }, LR_OPT_RUN, { "cmd" },
	  { { 0 } }, { { 0 } }, check_allow_sysv_ipc },
	{ "user, the last wins", { "--user", "alice", "--user=bob:staff", "cmd", NULL }, LR_OPT_RUN,
	  { "cmd" }, { { 0 } }, { { 0 } }, check_user },

	/* switches */
	{ "no options", { "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } }, { { 0 } },
	  check_defaults },
	{ "best-effort", { "--best-effort", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_best_effort },
	{ "best-effort with on-unsupported=warn",
	  { "--best-effort", "--on-unsupported=warn", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_best_effort },
	{ "on-unsupported=warn with best-effort",
	  { "--on-unsupported=warn", "--best-effort", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_best_effort },
	{ "unrestricted-filesystem", { "--unrestricted-filesystem", "ls", NULL }, LR_OPT_RUN,
	  { "ls" }, { { 0 } }, { { 0 } }, check_unrestricted_fs },
	{ "add-exec", { "--add-exec", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } }, { { 0 } },
	  check_add_exec },
	{ "ldd", { "--ldd", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } }, { { 0 } }, check_ldd },
	{ "ignore-missing", { "--ignore-missing", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_ignore_missing },
	{ "log-level error", { "--log-level", "error", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_log_error },
	{ "log-level info", { "--log-level", "info", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_log_info },
	{ "log-level debug", { "--log-level", "debug", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_log_debug },
	{ "log-level=debug", { "--log-level=debug", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_log_debug },
	{ "keep-fd repeated", { "--keep-fd", "3", "--keep-fd", "0", "--keep-fd=7", "--keep-fd",
	  "2147483647", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } }, { { 0 } }, check_keep_fds },
	{ "on-unsupported=error", { "--on-unsupported=error", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_ou_error },
	{ "on-unsupported warn", { "--on-unsupported", "warn", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_ou_warn },
	{ "on-unsupported=ignore", { "--on-unsupported=ignore", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_ou_ignore },
	{ "on-unsupported last wins",
	  { "--on-unsupported=warn", "--on-unsupported=error", "ls", NULL }, LR_OPT_RUN, { "ls" },
	  { { 0 } }, { { 0 } }, check_ou_error },
	{ "explain, no command", { "--explain", NULL }, LR_OPT_RUN, { NULL }, { { 0 } }, { { 0 } },
	  check_explain_text },
	{ "explain=json, no command", { "--explain=json", NULL }, LR_OPT_RUN, { NULL }, { { 0 } },
	  { { 0 } }, check_explain_json },
	{ "explain with a command", { "--explain", "ls", NULL }, LR_OPT_RUN, { "ls" }, { { 0 } },
	  { { 0 } }, check_explain_text },
	{ "allow-dotenv repeated",
	  { "--allow-dotenv", "/p/.env", "--allow-dotenv=/q/.env.local", "ls", NULL }, LR_OPT_RUN,
	  { "ls" }, { { 0 } }, { { 0 } }, check_allow_dotenv },
	{ "many switches",
	  { "--add-exec", "--ldd", "--ignore-missing", "--log-level", "info",
	    "--on-unsupported=ignore", "--rox", "/usr", "ls", NULL },
	  LR_OPT_RUN, { "ls" }, { { "/usr", ROX, "--rox" } }, { { 0 } }, check_many_flags },

	/* where options stop */
	{ "stop at first non-option", { "--rox", "/usr", "ls", "-la", "--ro", "/x", NULL },
	  LR_OPT_RUN, { "ls", "-la", "--ro", "/x" }, { { "/usr", ROX, "--rox" } }, { { 0 } },
	  NULL },
	{ "-- then options as args", { "--", "cmd", "--ro", "x", NULL }, LR_OPT_RUN,
	  { "cmd", "--ro", "x" }, { { 0 } }, { { 0 } }, check_defaults },
	{ "options, --, command", { "--ro", "/usr", "--", "ls", "--rw", "/", NULL }, LR_OPT_RUN,
	  { "ls", "--rw", "/" }, { { "/usr", RO, "--ro" } }, { { 0 } }, NULL },
	{ "-- then a command named like an option", { "--", "--ro", NULL }, LR_OPT_RUN,
	  { "--ro" }, { { 0 } }, { { 0 } }, check_defaults },
	{ "command's --help is the command's", { "ls", "--help", NULL }, LR_OPT_RUN,
	  { "ls", "--help" }, { { 0 } }, { { 0 } }, check_defaults },
	{ "command's --version is the command's", { "--ro", "/", "ls", "--version", NULL },
	  LR_OPT_RUN, { "ls", "--version" }, { { "/", RO, "--ro" } }, { { 0 } }, NULL },

	/* help and version */
	{ "--help", { "--help", NULL }, LR_OPT_SHOW_HELP, { NULL }, { { 0 } }, { { 0 } }, NULL },
	{ "-h", { "-h", NULL }, LR_OPT_SHOW_HELP, { NULL }, { { 0 } }, { { 0 } }, NULL },
	{ "--help after options", { "--ro", "/usr", "--help", "ls", NULL }, LR_OPT_SHOW_HELP, { NULL },
	  { { 0 } }, { { 0 } }, NULL },
	{ "--version", { "--version", NULL }, LR_OPT_SHOW_VERSION, { NULL }, { { 0 } }, { { 0 } },
	  NULL },
	{ "--version with a command", { "--version", "ls", NULL }, LR_OPT_SHOW_VERSION, { NULL },
	  { { 0 } }, { { 0 } }, NULL },
};

static void check_valid(const struct valid_case *c)
{
	struct lr_policy p;
	struct lr_opt_error err;
	struct args a;
	enum lr_opt_result r;
	size_t n;

	lr_policy_init(&p);
	args_init(&a, c->args);
	r = lr_cli_parse(a.argc, a.argv, &p, &err);
	cr_expect_eq(r, c->result, "%s: result %s, want %s (msg: %s)", c->name, result_name(r),
		     result_name(c->result), err.msg);
	if (r != c->result || r != LR_OPT_RUN)
		goto out;

	cr_expect_str_empty(err.msg, "%s: message on success: %s", c->name, err.msg);

	/* the command */
	cr_assert_not_null(p.argv, "%s: policy.argv is NULL", c->name);
	for (n = 0; c->cmd[n]; n++) {
		cr_expect_not_null(p.argv[n], "%s: argv[%zu] missing, want '%s'", c->name, n,
				   c->cmd[n]);
		if (!p.argv[n])
			break;
		cr_expect_str_eq(p.argv[n], c->cmd[n], "%s: argv[%zu] = '%s', want '%s'", c->name,
				 n, p.argv[n], c->cmd[n]);
	}
	if (!c->cmd[n])
		cr_expect_null(p.argv[n], "%s: extra argv[%zu] = '%s'", c->name, n, p.argv[n]);

	/* the grants */
	for (n = 0; c->grants[n].path; n++)
		;
	cr_expect_eq(p.n_grants, n, "%s: %zu grants, want %zu", c->name, p.n_grants, n);
	for (size_t i = 0; i < n && i < p.n_grants; i++) {
		const struct grant_exp *g = &c->grants[i];

		cr_expect_str_eq(p.grants[i].path, g->path, "%s: grant %zu path '%s', want '%s'",
				 c->name, i, p.grants[i].path, g->path);
		cr_expect_eq(p.grants[i].access, g->access, "%s: grant %zu access %#x, want %#x",
			     c->name, i, p.grants[i].access, g->access);
		cr_expect_str_eq(p.grants[i].flag ? p.grants[i].flag : "(null)", g->flag,
				 "%s: grant %zu flag '%s', want '%s'", c->name, i,
				 p.grants[i].flag ? p.grants[i].flag : "(null)", g->flag);
	}

	/* the environment rules */
	for (n = 0; c->env[n].name; n++)
		;
	cr_expect_eq(p.n_env, n, "%s: %zu env rules, want %zu", c->name, p.n_env, n);
	for (size_t i = 0; i < n && i < p.n_env; i++) {
		const struct env_exp *e = &c->env[i];

		cr_expect_eq(p.env[i].kind, e->kind, "%s: env %zu kind %d, want %d", c->name, i,
			     p.env[i].kind, e->kind);
		cr_expect_str_eq(p.env[i].name, e->name, "%s: env %zu name '%s', want '%s'",
				 c->name, i, p.env[i].name, e->name);
		if (e->value)
			cr_expect_str_eq(p.env[i].value ? p.env[i].value : "(null)", e->value,
					 "%s: env %zu value", c->name, i);
		else
			cr_expect_null(p.env[i].value, "%s: env %zu has a value", c->name, i);
	}

	(c->check ? c->check : check_defaults)(c->name, &p);
out:
	lr_policy_free(&p);
	args_free(&a);
}

Test(cli_valid, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(valid_cases); i++)
		check_valid(&valid_cases[i]);
}

/* The same table backwards: no case may depend on the one before it. */
Test(cli_valid, table_reversed)
{
	for (size_t i = ARRAY_SIZE(valid_cases); i-- > 0;)
		check_valid(&valid_cases[i]);
}

/* ------------------------------------------------------------------------ */
/* Invalid and conflicting command lines */

struct error_case {
	const char *name;
	const char *args[MAX_ARGS];
	const char *needles[3];	/* each must appear in the message */
};

static const struct error_case error_cases[] = {
	/* unknown options */
	{ "unknown long option", { "--frobnicate", "ls", NULL }, { "--frobnicate" } },
	{ "unknown long option with value", { "--frob=1", "ls", NULL }, { "--frob" } },
	{ "unknown short option", { "-x", "ls", NULL }, { "-x" } },
	{ "ambiguous abbreviation", { "--r", "/usr", "ls", NULL }, { "--r" } },

	/* missing values */
	{ "--ro at the end", { "--ro", NULL }, { "--ro" } },
	{ "--rox at the end", { "--rox", NULL }, { "--rox" } },
	{ "--rw at the end", { "--rw", NULL }, { "--rw" } },
	{ "--rwx at the end", { "--rwx", NULL }, { "--rwx" } },
	{ "--env at the end", { "--env", NULL }, { "--env" } },
	{ "--env-file at the end", { "--env-file", NULL }, { "--env-file" } },
	{ "--keep-fd at the end", { "--keep-fd", NULL }, { "--keep-fd" } },
	{ "--log-level at the end", { "--log-level", NULL }, { "--log-level" } },
	{ "--on-unsupported at the end", { "--on-unsupported", NULL }, { "--on-unsupported" } },

	/* empty values */
	{ "--ro ''", { "--ro", "", "ls", NULL }, { "--ro" } },
	{ "--ro=", { "--ro=", "ls", NULL }, { "--ro" } },
	{ "--rw ,", { "--rw", ",", "ls", NULL }, { "--rw" } },
	{ "--env-file ''", { "--env-file", "", "ls", NULL }, { "--env-file" } },
	{ "--allow-dotenv ''", { "--allow-dotenv", "", "ls", NULL }, { "--allow-dotenv" } },

	/* bad --env */
	{ "--env 1X", { "--env", "1X", "ls", NULL }, { "--env", "1X" } },
	{ "--env =v", { "--env", "=v", "ls", NULL }, { "--env" } },
	{ "--env ''", { "--env", "", "ls", NULL }, { "--env" } },
	{ "--env A-B", { "--env", "A-B", "ls", NULL }, { "--env", "A-B" } },
	{ "--env 1X=v", { "--env", "1X=v", "ls", NULL }, { "--env", "1X" } },
	{ "--env A.B=v", { "--env=A.B=v", "ls", NULL }, { "--env", "A.B" } },

	/* bad --env-prefix */
	{ "--env-prefix 1X", { "--env-prefix", "1X", "ls", NULL }, { "--env-prefix", "1X" } },
	{ "--env-prefix ''", { "--env-prefix", "", "ls", NULL }, { "--env-prefix" } },
	{ "--env-prefix A-", { "--env-prefix", "A-", "ls", NULL }, { "--env-prefix", "A-" } },
	{ "--env-prefix with =", { "--env-prefix", "A=", "ls", NULL }, { "--env-prefix" } },

	/* bad --keep-fd */
	{ "--keep-fd x", { "--keep-fd", "x", "ls", NULL }, { "--keep-fd", "x" } },
	{ "--keep-fd -1", { "--keep-fd", "-1", "ls", NULL }, { "--keep-fd", "-1" } },
	{ "--keep-fd ''", { "--keep-fd", "", "ls", NULL }, { "--keep-fd" } },
	{ "--keep-fd 3x", { "--keep-fd", "3x", "ls", NULL }, { "--keep-fd", "3x" } },
	{ "--keep-fd too big", { "--keep-fd", "2147483648", "ls", NULL }, { "--keep-fd" } },

	/* bad enumerations */
	{ "--on-unsupported=maybe", { "--on-unsupported=maybe", "ls", NULL },
	  { "--on-unsupported", "maybe" } },
	{ "--on-unsupported=ERROR", { "--on-unsupported=ERROR", "ls", NULL },
	  { "--on-unsupported" } },
	{ "--on-unsupported ''", { "--on-unsupported", "", "ls", NULL }, { "--on-unsupported" } },
	{ "--log-level trace", { "--log-level", "trace", "ls", NULL }, { "--log-level", "trace" } },
	{ "--log-level warn", { "--log-level=warn", "ls", NULL }, { "--log-level", "warn" } },
	{ "--explain=xml", { "--explain=xml", NULL }, { "--explain", "xml" } },
	{ "--explain=", { "--explain=", NULL }, { "--explain" } },

	/* values given to switches */
	{ "--best-effort=1", { "--best-effort=1", "ls", NULL }, { "--best-effort" } },
	{ "--add-exec=yes", { "--add-exec=yes", "ls", NULL }, { "--add-exec" } },
	{ "--unrestricted-filesystem=1", { "--unrestricted-filesystem=1", "ls", NULL },
	  { "--unrestricted-filesystem" } },

	/* network */
	{ "--connect-tcp 65536", { "--connect-tcp", "65536", "curl", NULL }, { "--connect-tcp" } },
	{ "--connect-tcp 10-5", { "--connect-tcp", "10-5", "curl", NULL }, { "--connect-tcp" } },
	{ "--connect-tcp ''", { "--connect-tcp", "", "curl", NULL }, { "--connect-tcp" } },
	{ "--connect-tcp at the end", { "--connect-tcp", NULL }, { "--connect-tcp" } },
	{ "--bind-tcp a", { "--bind-tcp", "a", "srv", NULL }, { "--bind-tcp" } },
	{ "--bind-tcp 1,", { "--bind-tcp=1,", "srv", NULL }, { "--bind-tcp" } },
	{ "--unix ''", { "--unix", "", "cmd", NULL }, { "--unix" } },
	{ "--deny-subprocess=1", { "--deny-subprocess=1", "cmd", NULL }, { "--deny-subprocess" } },
	{ "--user ''", { "--user", "", "cmd", NULL }, { "--user" } },
	{ "--user at the end", { "--user", NULL }, { "--user" } },

	/* the command */
	{ "nothing at all", { NULL }, { "COMMAND" } },
	{ "missing COMMAND", { "--ro", "/usr", NULL }, { "COMMAND" } },
	{ "missing COMMAND after --", { "--ro", "/usr", "--", NULL }, { "COMMAND" } },

	/* given twice */
	{ "--env-file twice", { "--env-file", "a", "--env-file", "b", "ls", NULL },
	  { "--env-file" } },

	/* conflicts: both flags named */
	{ "best-effort then on-unsupported=error",
	  { "--best-effort", "--on-unsupported=error", "ls", NULL },
	  { "--best-effort", "--on-unsupported" } },
	{ "on-unsupported=error then best-effort",
	  { "--on-unsupported=error", "--best-effort", "ls", NULL },
	  { "--best-effort", "--on-unsupported" } },
	{ "best-effort then on-unsupported ignore",
	  { "--best-effort", "--on-unsupported", "ignore", "ls", NULL },
	  { "--best-effort", "--on-unsupported" } },
	{ "on-unsupported=ignore then best-effort",
	  { "--on-unsupported=ignore", "--best-effort", "ls", NULL },
	  { "--best-effort", "--on-unsupported" } },
	{ "best-effort conflict even with --explain",
	  { "--explain", "--best-effort", "--on-unsupported=error", NULL },
	  { "--best-effort", "--on-unsupported" } },
	{ "unrestricted-filesystem then ro",
	  { "--unrestricted-filesystem", "--ro", "/usr", "ls", NULL },
	  { "--unrestricted-filesystem", "--ro" } },
	{ "ro then unrestricted-filesystem",
	  { "--ro", "/usr", "--unrestricted-filesystem", "ls", NULL },
	  { "--unrestricted-filesystem", "--ro" } },
	{ "unrestricted-filesystem with rwx",
	  { "--unrestricted-filesystem", "--rwx", "/tmp", "ls", NULL },
	  { "--unrestricted-filesystem", "--rwx" } },
	{ "unrestricted-filesystem then add-exec",
	  { "--unrestricted-filesystem", "--add-exec", "ls", NULL },
	  { "--unrestricted-filesystem", "--add-exec" } },
	{ "add-exec then unrestricted-filesystem",
	  { "--add-exec", "--unrestricted-filesystem", "ls", NULL },
	  { "--unrestricted-filesystem", "--add-exec" } },
	{ "unrestricted-network then connect-tcp",
	  { "--unrestricted-network", "--connect-tcp", "80", "curl", NULL },
	  { "--unrestricted-network", "--connect-tcp" } },
	{ "bind-tcp then unrestricted-network",
	  { "--bind-tcp", "80", "--unrestricted-network", "srv", NULL },
	  { "--unrestricted-network", "--bind-tcp" } },
	{ "allow-domain then unrestricted-network",
	  { "--allow-domain", "api.example.com", "--unrestricted-network", "cmd", NULL },
	  { "--unrestricted-network", "--allow-domain" } },
	{ "allow-domain: a space", { "--allow-domain", "a b.com", "cmd", NULL },
	  { "--allow-domain", "a b.com" } },
	{ "allow-domain: port 0", { "--allow-domain", "a.com:0", "cmd", NULL },
	  { "--allow-domain", "a.com:0" } },
	{ "allow-domain: port too large", { "--allow-domain", "a.com:65536", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: too many ports forwarded",
	  { "--allow-domain", "a.com", "--connect-tcp", "1000-2000", "cmd", NULL },
	  { "--connect-tcp", "--allow-domain", "1001" } },
	{ "allow-domain: a bare wildcard", { "--allow-domain", "*", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: a wildcard inside", { "--allow-domain", "api.*.com", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: a wildcard address", { "--allow-domain", "*.10.0.0.1", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: IPv4 in brackets", { "--allow-domain", "[10.0.0.1]:80", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: an empty item", { "--allow-domain", "a.com,,b.com", "cmd", NULL },
	  { "--allow-domain" } },
	{ "allow-domain: a URL", { "--allow-domain", "https://a.com", "cmd", NULL },
	  { "--allow-domain" } },
	{ "unix then unrestricted-network",
	  { "--unix", "/run/a.sock", "--unrestricted-network", "cmd", NULL },
	  { "--unrestricted-network", "--unix" } },
	{ "unrestricted-filesystem with unix and ro",
	  { "--unrestricted-filesystem", "--unix", "/run/a.sock", "--ro", "/usr", "cmd", NULL },
	  { "--unrestricted-filesystem", "--ro" } },
	{ "unrestricted-filesystem with ldd",
	  { "--unrestricted-filesystem", "--ldd", "ls", NULL },
	  { "--unrestricted-filesystem", "--ldd" } },
};

static void check_error(const struct error_case *c)
{
	struct lr_policy p;
	struct lr_opt_error err;
	struct args a;
	enum lr_opt_result r;

	lr_policy_init(&p);
	args_init(&a, c->args);
	memset(err.msg, 'Z', sizeof(err.msg) - 1);
	err.msg[sizeof(err.msg) - 1] = '\0';
	r = lr_cli_parse(a.argc, a.argv, &p, &err);
	cr_expect_eq(r, LR_OPT_ERROR, "%s: result %s, want ERROR", c->name, result_name(r));
	if (r == LR_OPT_ERROR) {
		cr_expect_str_not_empty(err.msg, "%s: no message", c->name);
		cr_expect_null(strchr(err.msg, '\n'), "%s: message is not one line: %s", c->name,
			       err.msg);
		cr_expect_neq(err.msg[0], 'Z', "%s: message not written", c->name);
		for (size_t i = 0; i < ARRAY_SIZE(c->needles) && c->needles[i]; i++)
			cr_expect_not_null(strstr(err.msg, c->needles[i]),
					   "%s: message '%s' does not name '%s'", c->name, err.msg,
					   c->needles[i]);
	}
	lr_policy_free(&p);
	args_free(&a);
}

Test(cli_invalid, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++)
		check_error(&error_cases[i]);
}

/* getopt keeps global state: an error in the middle of a line (or in the
 * middle of a cluster of short options) must not leak into the next parse. */
Test(cli_invalid, state_does_not_leak)
{
	static const char *const bad[][MAX_ARGS] = {
		{ "--ro", NULL },
		{ "-hx", NULL },
		{ "--ro", "/a", "--frobnicate", "--ro", "/b", "ls", NULL },
		{ "--best-effort", "--on-unsupported=error", "ls", NULL },
	};
	static const char *const good[] = { "--rox", "/usr", "ls", "-la", NULL };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct lr_policy p;
		struct lr_opt_error err;
		struct args a;

		lr_policy_init(&p);
		args_init(&a, bad[i]);
		(void)lr_cli_parse(a.argc, a.argv, &p, &err);
		lr_policy_free(&p);
		args_free(&a);

		lr_policy_init(&p);
		args_init(&a, good);
		cr_expect_eq(lr_cli_parse(a.argc, a.argv, &p, &err), LR_OPT_RUN,
			     "after bad line %zu: %s", i, err.msg);
		cr_expect_eq(p.n_grants, 1, "after bad line %zu: %zu grants", i, p.n_grants);
		cr_expect_eq(p.on_unsupported_set, false, "after bad line %zu", i);
		if (p.argv) {
			cr_expect_str_eq(p.argv[0] ? p.argv[0] : "(null)", "ls", "after bad line %zu",
					 i);
			cr_expect_str_eq(p.argv[1] ? p.argv[1] : "(null)", "-la",
					 "after bad line %zu", i);
		}
		lr_policy_free(&p);
		args_free(&a);
	}
}

/*
 * Does the usage line at LINE (just after "  --NAME") show the argument the
 * way the table takes it: nothing for a flag, " ARG" or "=ARG" for a value,
 * "[=ARG]" for an optional one, then two blanks and the help (or the end of
 * the line)?
 */
static bool entry_fits(const char *after, enum lr_opt_arg arg)
{
	size_t n;

	switch (arg) {
	case LR_ARG_NONE:
		break;
	case LR_ARG_REQUIRED:
		if ((*after != ' ' && *after != '=') || after[1] == ' ' || after[1] == '\n')
			return false;
		after += 1 + strcspn(after + 1, " \n");
		break;
	case LR_ARG_OPTIONAL:
		if (strncmp(after, "[=", 2) != 0)
			return false;
		n = strcspn(after, " \n");
		if (n < 4 || after[n - 1] != ']')
			return false;
		after += n;
		break;
	}
	return *after == '\n' || strncmp(after, "  ", 2) == 0;
}

/* Every option of the table has an entry of its own in the usage, a line
 * "  --name ARG   help", with the argument the table says it takes: a new
 * option cannot be added without documenting it, and doc/from-help.py builds
 * the man page's OPTIONS and the shell completions from these lines. */
Test(cli_usage, entry_for_every_option)
{
	for (const struct lr_option *o = lr_options; o->name; o++) {
		char want[64];
		const char *at = lr_cli_usage;
		bool found = false;

		snprintf(want, sizeof(want), "\n  --%s", o->name);
		for (; !found && (at = strstr(at, want)); at++)
			found = entry_fits(at + strlen(want), o->arg);
		cr_expect(found, "usage lacks a line '  --%s%s  ...'", o->name,
			  o->arg == LR_ARG_NONE	      ? ""
			  : o->arg == LR_ARG_REQUIRED ? " VALUE"
						      : "[=VALUE]");
	}
}

/* ------------------------------------------------------------------------ */
/* lr_option_parse_on_unsupported */

Test(cli_on_unsupported, table)
{
	static const struct {
		const char *s;
		int ret;
		enum lr_on_unsupported mode;
	} cases[] = {
		{ "error", 0, LR_UNSUPPORTED_ERROR },
		{ "warn", 0, LR_UNSUPPORTED_WARN },
		{ "ignore", 0, LR_UNSUPPORTED_IGNORE },
		{ "", -EINVAL, 0 },
		{ "Error", -EINVAL, 0 },
		{ "warn ", -EINVAL, 0 },
		{ "ignored", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum lr_on_unsupported mode = (enum lr_on_unsupported)42;
		int r = lr_option_parse_on_unsupported(cases[i].s, &mode);

		cr_expect_eq(r, cases[i].ret, "'%s': %d, want %d", cases[i].s, r, cases[i].ret);
		if (cases[i].ret == 0)
			cr_expect_eq(mode, cases[i].mode, "'%s': mode %d", cases[i].s, mode);
	}
}

/* ------------------------------------------------------------------------ */
/* lr_option_parse_ports, after lr_option_split (as both drivers do) */

static int parse_port_list(const char *s, struct lr_port_range **ranges, size_t *n)
{
	struct lr_strlist items = { 0 };
	int r = lr_option_split(s, &items);

	for (size_t i = 0; r == 0 && i < items.n; i++)
		r = lr_option_parse_ports(items.v[i], ranges, n);
	lr_strlist_free(&items);
	return r;
}

struct ports_case {
	const char *s;
	int ret;
	struct lr_port_range want[4];
	size_t n;
};

static const struct ports_case ports_cases[] = {
	{ "80", 0, { { 80, 80 } }, 1 },
	{ "80,443", 0, { { 80, 80 }, { 443, 443 } }, 2 },
	{ "8000-8100", 0, { { 8000, 8100 } }, 1 },
	{ "0", 0, { { 0, 0 } }, 1 },
	{ "65535", 0, { { 65535, 65535 } }, 1 },
	{ "0-65535", 0, { { 0, 65535 } }, 1 },
	{ "22,8000-8100,443", 0, { { 22, 22 }, { 8000, 8100 }, { 443, 443 } }, 3 },
	{ "5-5", 0, { { 5, 5 } }, 1 },
	{ "00080", 0, { { 80, 80 } }, 1 },

	{ "", -EINVAL, { { 0 } }, 0 },
	{ "65536", -EINVAL, { { 0 } }, 0 },
	{ "99999", -EINVAL, { { 0 } }, 0 },
	{ "100000", -EINVAL, { { 0 } }, 0 },
	{ "a", -EINVAL, { { 0 } }, 0 },
	{ "80a", -EINVAL, { { 0 } }, 0 },
	{ "10-5", -EINVAL, { { 0 } }, 0 },
	{ "1,", -EINVAL, { { 0 } }, 0 },
	{ ",1", -EINVAL, { { 0 } }, 0 },
	{ "1,,2", -EINVAL, { { 0 } }, 0 },
	{ "-5", -EINVAL, { { 0 } }, 0 },
	{ "5-", -EINVAL, { { 0 } }, 0 },
	{ "1-2-3", -EINVAL, { { 0 } }, 0 },
	{ " 80", -EINVAL, { { 0 } }, 0 },
	{ "80 ", -EINVAL, { { 0 } }, 0 },
	{ "+80", -EINVAL, { { 0 } }, 0 },
	{ "1-65536", -EINVAL, { { 0 } }, 0 },
};

Test(cli_ports, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(ports_cases); i++) {
		const struct ports_case *c = &ports_cases[i];
		struct lr_port_range *ranges = NULL;
		size_t n = 0;
		int r = parse_port_list(c->s, &ranges, &n);

		cr_expect_eq(r, c->ret, "'%s': %d, want %d", c->s, r, c->ret);
		if (c->ret == 0 && r == 0) {
			cr_expect_eq(n, c->n, "'%s': %zu ranges, want %zu", c->s, n, c->n);
			for (size_t j = 0; j < c->n && j < n; j++) {
				cr_expect_eq(ranges[j].first, c->want[j].first,
					     "'%s': range %zu first %u, want %u", c->s, j,
					     ranges[j].first, c->want[j].first);
				cr_expect_eq(ranges[j].last, c->want[j].last,
					     "'%s': range %zu last %u, want %u", c->s, j,
					     ranges[j].last, c->want[j].last);
			}
		}
		free(ranges);
	}
}

/* Ranges append to what is already there. */
Test(cli_ports, appends)
{
	struct lr_port_range *ranges = NULL;
	size_t n = 0;

	cr_assert_eq(lr_option_parse_ports("22", &ranges, &n), 0);
	cr_assert_eq(lr_option_parse_ports("80-81", &ranges, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_eq(ranges[0].first, 22);
	cr_expect_eq(ranges[1].first, 80);
	cr_expect_eq(ranges[1].last, 81);
	free(ranges);
}

/* ------------------------------------------------------------------------ */
/* --timeout, --timeout-grace: durations as timeout(1) takes them */

static const struct {
	const char *s;
	int ret;
	unsigned long long ms;
} duration_cases[] = {
	{ "0", 0, 0 },
	{ "30", 0, 30000 },
	{ "30s", 0, 30000 },
	{ "1.5", 0, 1500 },
	{ "1.5m", 0, 90000 },
	{ "2h", 0, 7200000 },
	{ "1d", 0, 86400000 },
	{ "0.5", 0, 500 },
	{ "0.0001", 0, 1 },		/* rounded up: not "no timeout" */
	{ "0.0000000001", 0, 0 },	/* past nine decimals: nothing */
	{ "1.25h", 0, 4500000 },
	{ "007", 0, 7000 },
	{ "", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ ".5", -EINVAL, 0 },
	{ "5.", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1ms", -EINVAL, 0 },
	{ "1w", -EINVAL, 0 },
	{ "1.2.3", -EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },
	{ "999999999999999999d", -EINVAL, 0 },
};

Test(cli_duration, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(duration_cases); i++) {
		unsigned long long ms = 12345;
		int r = lr_option_parse_duration(duration_cases[i].s, &ms);

		cr_expect_eq(r, duration_cases[i].ret, "'%s': %d, want %d", duration_cases[i].s, r,
			     duration_cases[i].ret);
		if (r == 0)
			cr_expect_eq(ms, duration_cases[i].ms, "'%s': %llu ms, want %llu",
				     duration_cases[i].s, ms, duration_cases[i].ms);
	}
}

/* --rlimit-*: sizes with a unit, counts without, "unlimited" */
static const struct {
	const char *s;
	bool size;
	int ret;
	unsigned long long value;
} limit_cases[] = {
	{ "0", false, 0, 0 },
	{ "1024", false, 0, 1024 },
	{ "unlimited", false, 0, RLIM_INFINITY },
	{ "unlimited", true, 0, RLIM_INFINITY },
	{ "4k", true, 0, 4096 },
	{ "4K", true, 0, 4096 },
	{ "2m", true, 0, 2ULL << 20 },
	{ "3g", true, 0, 3ULL << 30 },
	{ "1t", true, 0, 1ULL << 40 },
	{ "4k", false, -EINVAL, 0 },	/* a count has no unit */
	{ "4kb", true, -EINVAL, 0 },
	{ "", true, -EINVAL, 0 },
	{ "k", true, -EINVAL, 0 },
	{ "-1", false, -EINVAL, 0 },
	{ "1.5g", true, -EINVAL, 0 },
	{ "Unlimited", false, -EINVAL, 0 },
	{ "infinity", false, -EINVAL, 0 },
	{ "18446744073709551615", false, -EINVAL, 0 }, /* RLIM_INFINITY itself: say unlimited */
	{ "99999999999t", true, -EINVAL, 0 },
};

Test(cli_limit, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(limit_cases); i++) {
		unsigned long long v = 12345;
		int r = lr_option_parse_limit(limit_cases[i].s, limit_cases[i].size, &v);

		cr_expect_eq(r, limit_cases[i].ret, "'%s' (size %d): %d, want %d", limit_cases[i].s,
			     limit_cases[i].size, r, limit_cases[i].ret);
		if (r == 0)
			cr_expect_eq(v, limit_cases[i].value, "'%s': %llu, want %llu",
				     limit_cases[i].s, v, limit_cases[i].value);
	}
}

/* The lifetime and limit options on the command line: the last one wins. */
Test(cli_lifetime, options)
{
	static const char *const line[] = { "--init", "--timeout", "1m", "--timeout-grace=2",
					    "--die-with-parent", "--audit-log", "/var/log/a.jsonl",
					    "--rlimit-nofile", "64", "--rlimit-as", "4g",
					    "--rlimit-core", "unlimited", "--timeout", "0", "sh", NULL };
	struct lr_opt_error err;
	struct lr_policy p;
	struct args a;

	lr_policy_init(&p);
	cr_expect_eq(p.timeout_grace_ms, LR_TIMEOUT_GRACE_DEFAULT_MS);
	args_init(&a, line);
	cr_assert_eq(lr_cli_parse(a.argc, a.argv, &p, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect(p.init);
	cr_expect(p.die_with_parent);
	cr_expect_eq(p.timeout_ms, 0);
	cr_expect_eq(p.timeout_grace_ms, 2000);
	cr_expect_str_eq(p.audit_log, "/var/log/a.jsonl");
	cr_expect(p.limits[LR_LIMIT_NOFILE].set);
	cr_expect_eq(p.limits[LR_LIMIT_NOFILE].value, 64);
	cr_expect_eq(p.limits[LR_LIMIT_AS].value, 4ULL << 30);
	cr_expect_eq(p.limits[LR_LIMIT_CORE].value, RLIM_INFINITY);
	cr_expect(!p.limits[LR_LIMIT_NPROC].set);
	lr_policy_free(&p);
	args_free(&a);
}

static const struct error_case lifetime_errors[] = {
	{ "--timeout x", { "--timeout", "x", "sh", NULL }, { "--timeout", "'x'", "duration" } },
	{ "--timeout-grace -1", { "--timeout-grace", "-1", "sh", NULL }, { "--timeout-grace" } },
	{ "--init=1", { "--init=1", "sh", NULL }, { "--init" } },
	{ "--audit-log ''", { "--audit-log", "", "sh", NULL }, { "--audit-log" } },
	{ "--rlimit-nofile 1k", { "--rlimit-nofile", "1k", "sh", NULL },
	  { "--rlimit-nofile", "'1k'", "a number" } },
	{ "--rlimit-fsize 1x", { "--rlimit-fsize", "1x", "sh", NULL }, { "--rlimit-fsize", "a size" } },
};

Test(cli_lifetime, errors)
{
	for (size_t i = 0; i < ARRAY_SIZE(lifetime_errors); i++)
		check_error(&lifetime_errors[i]);
}

/* Finding what to grant: --learn reports the denials too; the last --learn wins. */
Test(cli_denials, options)
{
	static const char *const plain[] = { "--landlock-audit", "sh", NULL };
	static const char *const report[] = { "--report-denials", "sh", NULL };
	static const char *const learn[] = { "--learn", "a.conf", "--learn=b.conf", "sh", NULL };
	struct lr_opt_error err;
	struct lr_policy p;
	struct args a;

	lr_policy_init(&p);
	args_init(&a, plain);
	cr_assert_eq(lr_cli_parse(a.argc, a.argv, &p, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect(p.landlock_audit);
	cr_expect_not(p.report_denials);
	cr_expect_null(p.learn);
	lr_policy_free(&p);
	args_free(&a);

	lr_policy_init(&p);
	args_init(&a, report);
	cr_assert_eq(lr_cli_parse(a.argc, a.argv, &p, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect(p.report_denials);
	cr_expect_null(p.learn);
	cr_expect_not(p.landlock_audit);
	lr_policy_free(&p);
	args_free(&a);

	lr_policy_init(&p);
	args_init(&a, learn);
	cr_assert_eq(lr_cli_parse(a.argc, a.argv, &p, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect(p.report_denials);
	cr_expect_str_eq(p.learn, "b.conf");
	lr_policy_free(&p);
	args_free(&a);
}

static const struct error_case denials_errors[] = {
	{ "--learn ''", { "--learn", "", "sh", NULL }, { "--learn", "empty" } },
	{ "--learn without a file", { "--learn" }, { "--learn", "missing value" } },
	{ "--report-denials=yes", { "--report-denials=yes", "sh", NULL }, { "--report-denials" } },
	{ "--report (abbreviated)", { "--report", "sh", NULL }, { "--report", "unknown option" } },
};

Test(cli_denials, errors)
{
	for (size_t i = 0; i < ARRAY_SIZE(denials_errors); i++)
		check_error(&denials_errors[i]);
}
