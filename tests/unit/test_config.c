/* SPDX-License-Identifier: MIT */
/* Policy files: ${VAR} expansion, FILE:LINE errors, includes, precedence. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/confine/project.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/config.h"
#include "landrun/policy/policy.h"

struct expand_case {
	const char *in;
	const char *out; /* NULL: an error is expected */
};

static struct expand_case expand_cases[] = {
	{ "/usr", "/usr" },
	{ "${LRT_A}", "alpha" },
	{ "${LRT_A}/x", "alpha/x" },
	{ "x${LRT_A}y", "xalphay" },
	{ "${LRT_UNSET:-dflt}", "dflt" },
	{ "${LRT_EMPTY:-dflt}", "dflt" },
	{ "${LRT_A:-dflt}", "alpha" },
	{ "${LRT_UNSET:-${LRT_A}/share}/opencode", "alpha/share/opencode" },
	{ "${LRT_UNSET:-${LRT_UNSET2:-deep}}", "deep" },
	{ "${LRT_A:-${LRT_UNSET}}", "alpha" }, /* an unused default is not evaluated */
	{ "~", "/home/lrt" },
	{ "~/x", "/home/lrt/x" },
	{ "~/a,~/b", "/home/lrt/a,/home/lrt/b" },
	{ "a~b", "a~b" },
	{ "~user", "~user" },
	{ "$LRT_A", "$LRT_A" },
	{ "$(id)", "$(id)" },
	{ "`id`", "`id`" },
	{ "a$", "a$" },
	{ "${LRT_UNSET}", NULL },
	{ "${}", NULL },
	{ "${1X}", NULL },
	{ "${LRT_A", NULL },
	{ "${LRT_A-x}", NULL },
	{ "${LRT_UNSET:-x", NULL },
	{ "${LRT_UNSET:-${LRT_UNSET2}}", NULL },
};

/* Tables are walked inside one test: Criterion re-executes the binary for
 * each test, so parameters holding pointers would not survive. */
Test(config, expand)
{
	setenv("LRT_A", "alpha", 1);
	setenv("LRT_EMPTY", "", 1);
	setenv("HOME", "/home/lrt", 1);
	unsetenv("LRT_UNSET");
	unsetenv("LRT_UNSET2");
	for (size_t i = 0; i < sizeof(expand_cases) / sizeof(*expand_cases); i++) {
		const struct expand_case *c = &expand_cases[i];
		char err[256] = "", *out = NULL;
		int r = lr_config_expand(c->in, &out, err, sizeof(err));

		if (c->out) {
			cr_expect_eq(r, 0, "%s: %s", c->in, err);
			cr_expect(out && strcmp(out, c->out) == 0, "%s gave %s", c->in, out ? out : "?");
		} else {
			cr_expect_eq(r, -EINVAL, "%s expanded to %s", c->in, out ? out : "?");
			cr_expect_neq(err[0], '\0', "%s: no reason", c->in);
		}
		free(out);
	}
}

static char dir[] = "/tmp/lr-config-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chdir(dir), 0);
	setenv("XDG_CONFIG_HOME", dir, 1);
}

static enum lr_opt_result parse(struct lr_policy *p, struct lr_opt_error *err, const char *a1,
				const char *a2, const char *a3, const char *a4, const char *a5)
{
	char *argv[] = { "landrun", (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, NULL };
	int argc = 1;

	while (argv[argc])
		argc++;
	lr_policy_init(p);
	return lr_cli_parse(argc, argv, p, err);
}

struct error_case {
	const char *text;
	const char *message; /* expected in the error: parts separated by '|' */
};

static struct error_case error_cases[] = {
	{ "ro = /usr\nbogus = 1\n", "a.conf:2: unknown setting 'bogus'" },
	{ "\n\nenv = 1X\n", "a.conf:3: --env: '1X' is not a valid variable name" },
	{ "ro /usr\n", "a.conf:1: expected 'name = value'" },
	{ "[section]\nro = /usr\n", "a.conf:2: sections are not used" },
	{ "add-exec = maybe\n", "a.conf:1: add-exec: 'maybe' is not one of true, false" },
	{ "rw = ${LRT_NOT_SET}/x\n", "a.conf:1: rw: ${LRT_NOT_SET} is not set" },
	{ "include = no-such-profile\n",
	  "a.conf:1: profile 'no-such-profile': not found|(available: " },
	{ "explain = true\n", "a.conf:1: 'explain' is not a policy setting" },
	{ "on-unsupported = sometimes\n", "a.conf:1: --on-unsupported: 'sometimes'" },
	{ "connect-tcp = 70000\n", "a.conf:1: --connect-tcp: '70000' is not a valid value" },
	{ "include = ./b.conf\n", "/b.conf:2: |/a.conf is already being read (an include cycle)" },
	{ "include = ./c.conf\n", "/c.conf:1: unknown setting 'nope'" },
};

static bool contains_all(const char *msg, const char *parts)
{
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", parts);
	for (char *part = strtok_r(copy, "|", &save); part; part = strtok_r(NULL, "|", &save))
		if (!strstr(msg, part))
			return false;
	return true;
}

Test(config, errors, .init = setup)
{
	write_file("b.conf", "ro = /usr\ninclude = ./a.conf\n");
	write_file("c.conf", "nope = 1\n");
	for (size_t i = 0; i < sizeof(error_cases) / sizeof(*error_cases); i++) {
		const struct error_case *c = &error_cases[i];
		struct lr_opt_error err;
		struct lr_policy p;

		write_file("a.conf", c->text);
		cr_expect_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_ERROR,
			     "accepted: %s", c->text);
		cr_expect(contains_all(err.msg, c->message), "want: %s\ngot: %s", c->message,
			  err.msg);
		lr_policy_free(&p);
	}
}

static void write_bytes(const char *name, const char *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* A file that would show one thing and mean another is refused at its line. */
Test(config, what_it_shows, .init = setup)
{
	static const struct {
		const char *text;
		size_t len;
		const char *message; /* NULL: accepted, with the grant WANT */
		const char *want;
	} cases[] = {
#define T(s) s, sizeof(s) - 1
		{ T("ro = /usr\nro = /a/b\0/proj\n"), "a.conf:2: a NUL byte at column 10", NULL },
		{ T("# x\0\nro = /usr\n"), "a.conf:1: a NUL byte", NULL },
		{ T("ro = /a\rb\n"), "a.conf:1: a control byte (\\x0d) at column 8", NULL },
		{ T("ro = /a\x1b[2Kb\n"), "a.conf:1: a control byte (\\x1b)", NULL },
		{ T("ro = /a\x7f\n"), "a.conf:1: a control byte (\\x7f)", NULL },
		{ T("ro = /a\xe2\x80\xae" "b\n"), "a.conf:1: a control character or a "
						"bidirectional override", NULL },
		{ T("ro = /a\xc2\x9b\n"), "a.conf:1: a control character", NULL },
		/* the positive controls */
		{ T("ro = /usr\r\n"), NULL, "/usr" },
		{ T("ro =\t/usr\t# a tab\n"), NULL, "/usr" },
		{ T("\xef\xbb\xbfro = /usr\n"), NULL, "/usr" },
		{ T("ro = /caf\xc3\xa9\n"), NULL, "/caf\xc3\xa9" },
		{ T("ro = /usr"), NULL, "/usr" },
#undef T
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct lr_opt_error err;
		struct lr_policy p;
		enum lr_opt_result r;

		write_bytes("a.conf", cases[i].text, cases[i].len);
		r = parse(&p, &err, "--config", "a.conf", "true", NULL, NULL);
		if (cases[i].message) {
			cr_expect_eq(r, LR_OPT_ERROR, "case %zu accepted", i);
			cr_expect(strstr(err.msg, cases[i].message), "case %zu: want %s, got %s", i,
				  cases[i].message, err.msg);
			cr_expect_eq(p.n_grants, i == 0 ? 1 : 0, "case %zu: %zu grants", i,
				     p.n_grants);
		} else {
			cr_expect_eq(r, LR_OPT_RUN, "case %zu: %s", i, err.msg);
			cr_expect(p.n_grants == 1 && strcmp(p.grants[0].path, cases[i].want) == 0,
				  "case %zu: want one grant of %s", i, cases[i].want);
		}
		lr_policy_free(&p);
	}
}

/* A comment line of 64 KiB used to be cut by the reader, its tail applied. */
Test(config, long_lines, .init = setup)
{
	static const size_t lens[] = { LR_CONFIG_MAX_LINE, LR_CONFIG_MAX_LINE + 1, 64 * 1024,
				       64 * 1024 + 1, 200 * 1024 };
	const char tail[] = "ro = /etc";

	for (size_t i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		size_t n = lens[i];
		char *text = malloc(n + 32);
		struct lr_opt_error err;
		struct lr_policy p;
		enum lr_opt_result r;

		cr_assert_not_null(text);
		memset(text, ' ', n);
		text[0] = '#';
		memcpy(text + n - strlen(tail), tail, strlen(tail));
		memcpy(text + n, "\nro = /usr\n", 11);
		write_bytes("a.conf", text, n + 11);
		r = parse(&p, &err, "--config", "a.conf", "true", NULL, NULL);
		if (n <= LR_CONFIG_MAX_LINE) {
			cr_expect_eq(r, LR_OPT_RUN, "%zu bytes: %s", n, err.msg);
			cr_expect(p.n_grants == 1 && strcmp(p.grants[0].path, "/usr") == 0,
				  "%zu bytes: the comment's tail was applied", n);
		} else {
			cr_expect_eq(r, LR_OPT_ERROR, "%zu bytes: accepted", n);
			cr_expect(strstr(err.msg, "a.conf:1: a line longer than"), "%zu bytes: %s", n,
				  err.msg);
			cr_expect_eq(p.n_grants, 0, "%zu bytes: %zu grants", n, p.n_grants);
		}
		lr_policy_free(&p);
		free(text);
	}
}

Test(config, parse_line)
{
	static const struct {
		const char *line;
		int r;
		const char *name, *value;
	} cases[] = {
		{ "rw = /a", 1, "rw", "/a" },
		{ "  rw=/a  ", 1, "rw", "/a" },
		{ "rw: /a", 1, "rw", "/a" },
		{ "rw = /a ;/b", 1, "rw", "/a" },
		{ "rw = /a #b", 1, "rw", "/a" },
		{ "rw = /a;b", 1, "rw", "/a;b" },
		{ "rw = ~", 1, "rw", "~" },
		{ "rw = ", 1, "rw", "" },
		{ "# rw = /a", 0, NULL, NULL },
		{ "; rw = /a", 0, NULL, NULL },
		{ "", 0, NULL, NULL },
		{ "rw /a", -1, NULL, NULL },
		{ "[s]", -1, NULL, NULL },
		{ "rw = /a\nrw = /b", -1, NULL, NULL },
		{ "rw = /a\x1b", -1, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *name, *value;
		int r = lr_config_parse_line(cases[i].line, &name, &value);

		cr_expect_eq(r, cases[i].r, "'%s': %d", cases[i].line, r);
		if (r == 1 && cases[i].r == 1) {
			cr_expect_str_eq(name, cases[i].name, "'%s'", cases[i].line);
			cr_expect_str_eq(value, cases[i].value, "'%s'", cases[i].line);
		}
		free(name);
		free(value);
	}
}

Test(config, settings_and_precedence, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_eq(mkdir("landrun", 0755), 0);
	cr_assert_eq(mkdir("landrun/profiles", 0755), 0);
	write_file("landrun/profiles/inner.conf", "rox = /usr\nenv-prefix = OPENAI_\n");
	write_file("a.conf", "include = inner   # a profile by name\n"
			     "ro = src,/etc\n"
			     "on-unsupported = error\n"
			     "ldd = yes\n"
			     "add-exec = false\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--ro", "/opt", "true"), LR_OPT_RUN,
		     "%s", err.msg);
	/* the file first, in order, then the command line */
	cr_assert_eq(p.n_grants, 4);
	cr_assert_str_eq(p.grants[0].path, "/usr");
	cr_assert_eq(p.grants[0].access, LR_ACCESS_RO | LR_ACCESS_X);
	cr_assert_str_eq(strrchr(p.grants[1].path, '/'), "/src"); /* relative to the file */
	cr_assert_eq(p.grants[1].path[0], '/');
	cr_assert_str_eq(p.grants[2].path, "/etc");
	cr_assert_str_eq(p.grants[3].path, "/opt");
	cr_assert_eq(p.on_unsupported, LR_UNSUPPORTED_ERROR);
	cr_assert(p.ldd);
	cr_assert(!p.add_exec);
	cr_assert_eq(p.n_env, 1);
	cr_assert_str_eq(p.env[0].name, "OPENAI_");
	lr_policy_free(&p);

	/* the command line's mode wins over the file's without a conflict */
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--best-effort", "true", NULL), LR_OPT_RUN,
		     "%s", err.msg);
	cr_assert_eq(p.on_unsupported, LR_UNSUPPORTED_WARN);
	lr_policy_free(&p);

	/* a profile is a name, not a path */
	cr_assert_eq(parse(&p, &err, "--profile", "../a", "true", NULL, NULL), LR_OPT_ERROR);
	cr_assert_not_null(strstr(err.msg, "not a valid name"), "%s", err.msg);
	lr_policy_free(&p);
	cr_assert_eq(parse(&p, &err, "--config", "missing.conf", "true", NULL, NULL), LR_OPT_ERROR);
	cr_assert_str_eq(err.msg, "--config missing.conf: No such file or directory");
	lr_policy_free(&p);
}

Test(config, ignore_missing_covers_its_own_source, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	write_file("inner.conf", "ro = /inner-a\nignore-missing = true\n");
	write_file("a.conf", "ro = /outer-a\ninclude = ./inner.conf\nro = /outer-b\nmkdir = made,/abs\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--ro", "/cli", "true"), LR_OPT_RUN,
		     "%s", err.msg);
	cr_assert_eq(p.n_grants, 4);
	cr_expect(!p.grants[0].optional, "%s", p.grants[0].path);	/* outer file */
	cr_expect(p.grants[1].optional, "%s", p.grants[1].path);	/* inner file */
	cr_expect(!p.grants[2].optional, "%s", p.grants[2].path);	/* outer, after the include */
	cr_expect(!p.grants[3].optional, "%s", p.grants[3].path);	/* command line */
	cr_expect(!p.ignore_missing);
	cr_assert_eq(p.n_mkdirs, 2);
	cr_expect_eq(p.mkdirs[0][0], '/', "%s: relative to the file", p.mkdirs[0]);
	cr_expect_str_eq(p.mkdirs[1], "/abs");
	lr_policy_free(&p);

	/* on the command line, it covers the command line's grants only */
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--ignore-missing", "true", NULL),
		     LR_OPT_RUN, "%s", err.msg);
	cr_expect(!p.grants[0].optional);
	cr_expect(p.ignore_missing);
	lr_policy_free(&p);
	cr_assert_eq(parse(&p, &err, "--ro", "/x", "--ignore-missing", "true", NULL), LR_OPT_RUN);
	cr_expect(p.grants[0].optional);
	lr_policy_free(&p);
}

/* A value from ${VAR} is one item, whatever it holds: TMPDIR=/x,/ must not
 * grant / (the list is split before expansion). */
Test(config, expanded_value_is_one_item, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	setenv("LRT_TMP", "/x,/", 1);
	setenv("LRT_TWO", "a,~", 1);
	write_file("a.conf", "rw = ${LRT_TMP:-/dev/null}\n"
			     "ro = ${LRT_TWO},/b\n"
			     "connect-tcp = 1,${LRT_PORTS:-2}\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_assert_eq(p.n_grants, 3);
	cr_expect_str_eq(p.grants[0].path, "/x,/");
	cr_expect_eq(p.grants[0].access, LR_ACCESS_RO | LR_ACCESS_RW);
	cr_expect_str_eq(strrchr(p.grants[1].path, '/'), "/a,~"); /* relative to the file */
	cr_expect_str_eq(p.grants[2].path, "/b");
	cr_expect_eq(p.n_connect_tcp, 2);
	lr_policy_free(&p);

	/* a port list from a variable is one item too: not a valid port */
	setenv("LRT_PORTS", "2,3", 1);
	cr_expect_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_ERROR);
	cr_expect_not_null(strstr(err.msg, "'2,3' is not a valid value"), "%s", err.msg);
	lr_policy_free(&p);

	/* an empty item in the file's own list is a typo */
	write_file("a.conf", "ro = /a,,/b\n");
	cr_expect_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_ERROR);
	cr_expect_not_null(strstr(err.msg, "a.conf:1: ro: '/a,,/b' has an empty item"), "%s",
			   err.msg);
	lr_policy_free(&p);
}

/* Lifetime and limits from a policy file; the command line wins. */
Test(config, lifetime_and_limits, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	write_file("a.conf", "timeout = 10m\n"
			     "die-with-parent = true\n"
			     "audit-log = logs/a.jsonl\n"
			     "rlimit-nproc = 50\n"
			     "rlimit-fsize = 1g\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--timeout", "5", "true"), LR_OPT_RUN,
		     "%s", err.msg);
	cr_expect_eq(p.timeout_ms, 5000);
	cr_expect(p.die_with_parent);
	cr_expect(!p.init);
	cr_expect_eq(p.audit_log[0], '/', "%s", p.audit_log); /* relative to the file */
	cr_expect_str_eq(strrchr(p.audit_log, '/'), "/a.jsonl");
	cr_expect_eq(p.limits[LR_LIMIT_NPROC].value, 50);
	cr_expect_eq(p.limits[LR_LIMIT_FSIZE].value, 1ULL << 30);
	lr_policy_free(&p);

	write_file("a.conf", "\nrlimit-cpu = 1m\n");
	cr_expect_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_ERROR);
	cr_expect_not_null(strstr(err.msg, "a.conf:2"), "%s", err.msg);
	cr_expect_not_null(strstr(err.msg, "rlimit-cpu"), "%s", err.msg);
	lr_policy_free(&p);
}

/* Finding what to grant, from a policy file: --learn's FILE is the file's. */
Test(config, denials, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	write_file("a.conf", "learn = learned.conf\nlandlock-audit = true\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_expect(p.report_denials);
	cr_expect(p.landlock_audit);
	cr_expect_eq(p.learn[0], '/', "%s", p.learn);
	cr_expect_str_eq(strrchr(p.learn, '/'), "/learned.conf");
	lr_policy_free(&p);

	write_file("a.conf", "report-denials = true\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_expect(p.report_denials);
	cr_expect_null(p.learn);
	lr_policy_free(&p);
}

/* A setting from a file is named by its FILE:LINE when it is at fault, and
 * every grant keeps where it came from. */
Test(config, origins, .init = setup)
{
	struct lr_opt_error err;
	struct lr_policy p;

	write_file("a.conf", "# a comment\n\nrox = /usr\n  ro = /etc,/opt\n");
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--ro", "/srv", "true"), LR_OPT_RUN,
		     "%s", err.msg);
	cr_assert_eq(p.n_grants, 4);
	cr_expect_not_null(strstr(p.grants[0].origin, "a.conf:3"), "%s", p.grants[0].origin);
	cr_expect_not_null(strstr(p.grants[1].origin, "a.conf:4"), "%s", p.grants[1].origin);
	cr_expect_not_null(strstr(p.grants[2].origin, "a.conf:4"), "%s", p.grants[2].origin);
	cr_expect_null(p.grants[3].origin);
	cr_expect_str_eq(p.grants[3].name, "--ro /srv");
	lr_policy_free(&p);

	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "--unrestricted-filesystem", "true",
			   NULL),
		     LR_OPT_ERROR);
	cr_expect_not_null(strstr(err.msg, "a.conf:3: rox = /usr conflicts with "
					   "--unrestricted-filesystem"),
			   "%s", err.msg);
	lr_policy_free(&p);
}

/* The drop-in default: no files granted on the command line gives the
 * command's profile and the current directory; a directory that is not a
 * project is refused. */
Test(config, project_defaults, .init = setup)
{
	static const char *const refused[] = {
		"/", "/tmp", "/var/tmp", "/dev/shm", "/usr", "/usr/bin", "/etc", "/etc/ssl", "/proc",
		"/home", "/var", "/var/lib/x", "/home/lrt", "/lib",
	};
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_eq(mkdir("landrun", 0755), 0);
	cr_assert_eq(mkdir("landrun/profiles", 0755), 0);
	write_file("landrun/profiles/claude-code.conf", "env = CC\n");
	write_file("landrun/profiles/mytool.conf", "env = MT\n");
	write_file("landrun/profiles/base.conf", "env = BASE\n");

	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		lr_policy_init(&p);
		cr_expect_eq(lr_project_defaults(&p, "ls", refused[i], "/home/lrt", &err), LR_OPT_ERROR,
			     "%s accepted as a project", refused[i]);
		cr_expect_not_null(strstr(err.msg, refused[i]), "%s", err.msg);
		lr_policy_free(&p);
	}

	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "/some/bin/claude", dir, "/home/lrt", &err), LR_OPT_RUN,
		     "%s", err.msg);
	cr_expect_str_eq(p.profile, "claude-code");
	cr_expect_str_eq(p.project, dir);
	cr_assert_eq(p.n_grants, 1);
	cr_expect_str_eq(p.grants[0].path, dir);
	cr_expect_eq(p.grants[0].access, LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X);
	cr_expect_str_eq(p.grants[0].origin, LR_PROJECT_ORIGIN);
	cr_assert_eq(p.n_env, 1);
	cr_expect_str_eq(p.env[0].name, "CC");
	lr_policy_free(&p);

	/* a profile of the command's own name; else base */
	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "mytool", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.profile, "mytool");
	lr_policy_free(&p);
	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "../x/ls", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.profile, "base");
	lr_policy_free(&p);

	/* grants of the command line add to the profile; where the current
	 * directory may not be a project, there is then none (no refusal) */
	lr_policy_init(&p);
	p.cli_grants = true;
	cr_assert_eq(lr_policy_add_grant(&p, dir, LR_ACCESS_RO, "--ro"), 0);
	cr_assert_eq(lr_project_defaults(&p, "ls", "/", NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.profile, "base");
	cr_expect_null(p.project);
	cr_expect_eq(p.n_grants, 1);
	cr_expect_eq(p.n_env, 1);
	cr_expect_not_null(strstr(p.project_note, "no project: / "), "%s", p.project_note);
	lr_policy_free(&p);
	/* a profile or a file named: no default profile, the project still */
	lr_policy_init(&p);
	p.cli_files = true;
	cr_assert_eq(lr_project_defaults(&p, "claude", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_null(p.profile);
	cr_expect_eq(p.n_grants, 1);
	cr_expect_eq(p.n_env, 0);
	lr_policy_free(&p);
	/* --no-project */
	lr_policy_init(&p);
	p.no_project = true;
	cr_assert_eq(lr_project_defaults(&p, "ls", "/", NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.profile, "base");
	cr_expect_null(p.project);
	cr_expect_eq(p.n_grants, 0);
	lr_policy_free(&p);
}

/* A command line that grants the system (/usr, /bin, /lib*, /), as the Go
 * landrun's do, says everything: no profile, no project; anywhere else, a
 * grant adds.  Policy files' grants of the system do not count. */
Test(config, go_landrun_command_lines, .init = setup)
{
	static const char *const outright[] = {
		"/usr", "/usr/", "/usr/bin", "/usr/bin/touch", "/bin", "/lib", "/lib64", "/", "//",
		"/usr/local",
	};
	static const char *const adding[] = {
		"/etc/hostname", "/proc", "/opt/x", "/usr/src/app", "/usr/local/src/x", "/usrx", "lib",
	};
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_eq(mkdir("landrun", 0755), 0);
	cr_assert_eq(mkdir("landrun/profiles", 0755), 0);
	write_file("landrun/profiles/base.conf", "env = BASE\n");
	for (size_t i = 0; i < sizeof(outright) / sizeof(*outright); i++) {
		lr_policy_init(&p);
		p.cli_grants = true;
		cr_assert_eq(lr_policy_add_grant(&p, outright[i], LR_ACCESS_RO | LR_ACCESS_X, "--rox"),
			     0);
		cr_assert_eq(lr_project_defaults(&p, "ls", dir, NULL, &err), LR_OPT_RUN, "%s",
			     err.msg);
		cr_expect_not_null(p.outright, "--rox %s added the defaults", outright[i]);
		cr_expect_null(p.profile, "--rox %s", outright[i]);
		cr_expect_null(p.project, "--rox %s", outright[i]);
		cr_expect_eq(p.n_grants, 1);
		lr_policy_free(&p);
	}
	for (size_t i = 0; i < sizeof(adding) / sizeof(*adding); i++) {
		lr_policy_init(&p);
		p.cli_grants = true;
		cr_assert_eq(lr_policy_add_grant(&p, adding[i], LR_ACCESS_RO, "--ro"), 0);
		cr_assert_eq(lr_project_defaults(&p, "ls", dir, NULL, &err), LR_OPT_RUN, "%s",
			     err.msg);
		cr_expect_null(p.outright, "--ro %s took the defaults away", adding[i]);
		cr_expect_str_eq(p.profile, "base");
		cr_expect_str_eq(p.project, dir);
		cr_expect_eq(p.n_grants, 2);
		lr_policy_free(&p);
	}
	/* the same grant from a policy file adds */
	write_file("sys.conf", "rox = /usr\n");
	cr_assert_eq(parse(&p, &err, "--config", "sys.conf", "ls", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_assert_eq(lr_project_defaults(&p, "ls", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_null(p.outright);
	cr_expect_str_eq(p.project, dir);
	lr_policy_free(&p);
	/* --unrestricted-filesystem: nothing added either */
	cr_assert_eq(parse(&p, &err, "--unrestricted-filesystem", "ls", NULL, NULL, NULL), LR_OPT_RUN,
		     "%s", err.msg);
	cr_assert_eq(lr_project_defaults(&p, "ls", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_null(p.profile);
	cr_expect_eq(p.n_grants, 0);
	lr_policy_free(&p);
	/* --profile none: no profile at all, the project still */
	cr_assert_eq(parse(&p, &err, "--profile", "none", "ls", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_assert_eq(lr_project_defaults(&p, "ls", dir, NULL, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_null(p.profile);
	cr_expect_eq(p.n_env, 0);
	cr_expect_str_eq(p.project, dir);
	lr_policy_free(&p);
}

/* The project is the top of the git work tree holding the current
 * directory, unless that may not be a project (a HOME under git); a
 * command-line grant holding the current directory says how it is granted. */
Test(config, project_is_the_repository, .init = setup)
{
	char home[PATH_MAX], repo[PATH_MAX], sub[PATH_MAX], hsub[PATH_MAX], wt[PATH_MAX];
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_eq(mkdir("landrun", 0755), 0);
	cr_assert_eq(mkdir("landrun/profiles", 0755), 0);
	write_file("landrun/profiles/base.conf", "env = BASE\n");
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(repo, sizeof(repo), "%s/home/repo", dir);
	snprintf(sub, sizeof(sub), "%s/home/repo/packages/a", dir);
	snprintf(hsub, sizeof(hsub), "%s/home/notes", dir);
	snprintf(wt, sizeof(wt), "%s/home/wt", dir);
	cr_assert_eq(system("mkdir -p home/.git home/notes home/repo/.git home/repo/packages/a "
			    "home/wt && echo 'gitdir: /elsewhere' > home/wt/.git"),
		     0);

	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "ls", sub, home, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.project, repo);
	cr_assert_eq(p.n_grants, 1);
	cr_expect_str_eq(p.grants[0].path, repo);
	cr_expect_str_eq(p.grants[0].origin, LR_PROJECT_ORIGIN_REPO);
	cr_expect_not_null(strstr(p.project_note, "the git repository"), "%s", p.project_note);
	lr_policy_free(&p);
	/* a linked worktree's .git is a file */
	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "ls", wt, home, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.project, wt);
	lr_policy_free(&p);
	/* the home under git is not a project: the current directory is */
	lr_policy_init(&p);
	cr_assert_eq(lr_project_defaults(&p, "ls", hsub, home, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_str_eq(p.project, hsub);
	cr_expect_str_eq(p.grants[0].origin, LR_PROJECT_ORIGIN);
	lr_policy_free(&p);
	/* the home itself is still refused */
	lr_policy_init(&p);
	cr_expect_eq(lr_project_defaults(&p, "ls", home, home, &err), LR_OPT_ERROR);
	cr_expect_not_null(strstr(err.msg, "--no-project"), "%s", err.msg);
	lr_policy_free(&p);
	/* --ro of the current directory: the project is not granted read-write */
	lr_policy_init(&p);
	p.cli_grants = true;
	cr_assert_eq(lr_policy_add_grant(&p, sub, LR_ACCESS_RO, "--ro"), 0);
	cr_assert_eq(lr_project_defaults(&p, "ls", sub, home, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_eq(p.n_grants, 1);
	cr_expect_eq(p.grants[0].access, LR_ACCESS_RO);
	cr_expect_not_null(strstr(p.project_note, "not granted"), "%s", p.project_note);
	lr_policy_free(&p);
	/* the control: --ro of another directory adds */
	lr_policy_init(&p);
	p.cli_grants = true;
	cr_assert_eq(lr_policy_add_grant(&p, hsub, LR_ACCESS_RO, "--ro"), 0);
	cr_assert_eq(lr_project_defaults(&p, "ls", sub, home, &err), LR_OPT_RUN, "%s", err.msg);
	cr_expect_eq(p.n_grants, 2);
	lr_policy_free(&p);
}

/*
 * Policy files are read only if they are regular files: an include of a FIFO
 * would wait for a writer forever, one of /dev/zero would never end.  The
 * alarm turns a hang into a failure, well before Criterion's own timeout.
 */
Test(config, only_regular_files_are_read, .init = setup, .timeout = 30)
{
	static const char *const cases[][2] = {
		{ "include = ./fifo.conf\n", "fifo.conf: not a regular file" },
		{ "config = /dev/zero\n", "/dev/zero: not a regular file" },
		{ "include = ./zero.conf\n", "zero.conf: not a regular file" },
		{ "config = sub\n", "sub: Is a directory" },
	};
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_eq(mkfifo("fifo.conf", 0644), 0);
	cr_assert_eq(symlink("/dev/zero", "zero.conf"), 0);
	cr_assert_eq(mkdir("sub", 0755), 0);
	alarm(10);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		write_file("a.conf", cases[i][0]);
		cr_expect_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_ERROR,
			     "accepted: %s", cases[i][0]);
		cr_expect(strstr(err.msg, cases[i][1]), "want: %s\ngot: %s", cases[i][1], err.msg);
		lr_policy_free(&p);
	}
	cr_assert_eq(parse(&p, &err, "--config", "fifo.conf", "true", NULL, NULL), LR_OPT_ERROR);
	cr_assert_str_eq(err.msg, "--config fifo.conf: not a regular file");
	lr_policy_free(&p);

	/* the control: the same include of a regular file is read */
	cr_assert_eq(unlink("fifo.conf"), 0);
	write_file("fifo.conf", "ro = /usr\n");
	write_file("a.conf", cases[0][0]);
	cr_assert_eq(parse(&p, &err, "--config", "a.conf", "true", NULL, NULL), LR_OPT_RUN, "%s",
		     err.msg);
	cr_assert_eq(p.n_grants, 1);
	lr_policy_free(&p);
}
