/* SPDX-License-Identifier: MIT */
/*
 * What a denial means (learn.c): the setting that would allow it, or why
 * none should; the report's lines; the --learn file, merged and widened.
 * The denials are made up here, as the tracer would record them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/policy/config.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/supervisor/learn.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct lr_known_grant known[] = {
	{ "/usr", LR_ACCESS_RO | LR_ACCESS_X, true, "--rox /usr" },
	{ "/home/u/proj", LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, true, "--rwx /home/u/proj" },
	{ "/opt/tool/bin/tool", LR_ACCESS_RO | LR_ACCESS_X, false, "--rox /opt/tool/bin/tool" },
	{ "/proc/self/stat", LR_ACCESS_RO, false, "--ro /proc/self/stat" },
};
static const struct lr_port_range port_443[] = { { 443, 443 } };
static const struct lr_port_range port_80[] = { { 80, 80 } };

static struct lr_learn_context ctx = {
	.home = "/home/u",
	.env_file = "/home/u/secrets/prod.vars",
	.grants = known,
	.n_grants = ARRAY_SIZE(known),
	.connect_tcp = port_443,
	.n_connect_tcp = 1,
	.bind_tcp = port_80,
	.n_bind_tcp = 1,
	.abi = 7,
	.unprivileged_port = 1024,
	.profile = "base",
};

static struct lr_denial fs(enum lr_denied_op op, const char *asked, const char *path)
{
	struct lr_denial d = { .op = op, .err = EACCES, .pid = 4242, .count = 1 };

	d.asked = asked ? strdup(asked) : NULL;
	d.path = path ? strdup(path) : NULL;
	strcpy(d.comm, "git");
	return d;
}

static struct lr_denial call(long nr, uint64_t a0, uint64_t a1, int err)
{
	struct lr_denial d = { .op = LR_DENIED_CALL, .nr = nr, .err = err, .pid = 7, .count = 1 };

	d.args[0] = a0;
	d.args[1] = a1;
	strcpy(d.comm, "tool");
	return d;
}

/* The advice for D, and its report line, checked against WANT_LINE. */
static void expect_line(struct lr_denial *d, const char *want)
{
	struct lr_advice a;
	char *line;

	cr_assert_eq(lr_learn_advise(d, &ctx, &a), 0);
	line = lr_learn_report_line(d, &a);
	cr_assert_not_null(line);
	cr_expect_str_eq(line, want);
	free(line);
	lr_advice_free(&a);
	lr_denial_free(d);
}

/* Only a note, and one that says KEYWORD (and no setting to learn). */
static void expect_note(struct lr_denial *d, const char *keyword)
{
	struct lr_advice a;

	cr_assert_eq(lr_learn_advise(d, &ctx, &a), 0);
	cr_expect_eq(a.kind, LR_ADVICE_NOTE, "%s: %s = %s", d->path ? d->path : "?",
		     a.key ? a.key : "", a.value ? a.value : "");
	cr_expect(a.note && strstr(a.note, keyword), "note '%s', want '%s' in it",
		  a.note ? a.note : "(none)", keyword);
	lr_advice_free(&a);
	lr_denial_free(d);
}

static void expect_grant(struct lr_denial *d, const char *key, const char *value)
{
	struct lr_advice a;

	cr_assert_eq(lr_learn_advise(d, &ctx, &a), 0);
	cr_expect_eq(a.kind, LR_ADVICE_GRANT, "%s: a note: %s", d->path ? d->path : "?",
		     a.note ? a.note : "");
	if (a.kind == LR_ADVICE_GRANT) {
		cr_expect_str_eq(a.key, key);
		cr_expect_str_eq(a.value, value);
	}
	lr_advice_free(&a);
	lr_denial_free(d);
}

Test(learn_advise, lines)
{
	struct lr_denial d = fs(LR_DENIED_READ, "/etc/gitconfig", "/etc/gitconfig");

	expect_line(&d, "denied read /etc/gitconfig (by git, pid 4242) -> --ro /etc/gitconfig");
	d = fs(LR_DENIED_READ, "cfg/x.ini", "/srv/app/cfg/x.ini");
	d.count = 12;
	expect_line(&d, "denied read cfg/x.ini (/srv/app/cfg/x.ini, by git, pid 4242, 12 times) "
			"-> --ro /srv/app/cfg/x.ini");
	d = fs(LR_DENIED_CREATE, "out/r", "/srv/app/out/r");
	expect_line(&d, "denied create out/r (/srv/app/out/r, by git, pid 4242) -> --rw "
			"/srv/app/out");
	d = fs(LR_DENIED_EXECUTE, "/opt/x/helper", "/opt/x/helper");
	expect_line(&d, "denied execute /opt/x/helper (by git, pid 4242) -> --rox /opt/x/helper");
	d = (struct lr_denial){ .op = LR_DENIED_CONNECT_TCP, .port = 8080, .pid = 9, .count = 1 };
	strcpy(d.comm, "curl");
	expect_line(&d, "denied connect to TCP port 8080 (by curl, pid 9) -> --connect-tcp 8080");
	d = call(SYS_mount, 0, 0, EPERM);
	expect_line(&d, "denied mount (by tool, pid 7): kernel.surface: no flag allows it");
}

Test(learn_advise, files)
{
	struct lr_denial d;

	d = fs(LR_DENIED_LIST, "/srv/data", "/srv/data");
	expect_grant(&d, "ro", "/srv/data");
	d = fs(LR_DENIED_WRITE, "/srv/data/f", "/srv/data/f");
	expect_grant(&d, "rw", "/srv/data/f");
	d = fs(LR_DENIED_REMOVE, "/srv/data/f", "/srv/data/f");
	expect_grant(&d, "rw", "/srv/data");
	/* the command's own /proc entries are /proc/self to landrun */
	d = fs(LR_DENIED_READ, "/proc/self/environ", "/proc/4242/environ");
	d.main = true;
	expect_grant(&d, "ro", "/proc/self/environ");
	d = fs(LR_DENIED_READ, "/proc/self/environ", "/proc/4243/environ");
	d.pid = 4243;
	expect_note(&d, "--ro /proc would allow it");
	/* granted, and denied all the same */
	d = fs(LR_DENIED_READ, "/proc/self/stat", "/proc/4242/stat");
	d.main = true;
	expect_note(&d, "granted by --ro /proc/self/stat already");
	/* a policy file cannot hold every name */
	d = fs(LR_DENIED_READ, "/srv/a,b", "/srv/a,b");
	expect_note(&d, "cannot hold that name");
	d = fs(LR_DENIED_READ, "/srv/${X}", "/srv/${X}");
	expect_note(&d, "cannot hold that name");
	/* what no human would grant whole */
	d = fs(LR_DENIED_LIST, "/home/u", "/home/u");
	expect_note(&d, "is the home directory");
	d = fs(LR_DENIED_LIST, "/", "/");
	expect_note(&d, "shared");
	d = fs(LR_DENIED_LIST, "/var", "/var");
	expect_note(&d, "a top directory: --ro /var would grant every file");
	d = fs(LR_DENIED_LIST, "/etc/ssl", "/etc/ssl");
	expect_grant(&d, "ro", "/etc/ssl");
	d = fs(LR_DENIED_CREATE, "/tmp/x.1", "/tmp/x.1");
	expect_note(&d, "--private-tmp");
	d = fs(LR_DENIED_CREATE, "/home/u/.toolrc", "/home/u/.toolrc");
	expect_note(&d, "is the home directory");
}

/* Secrets are kept out on purpose: never a setting, only a warning. */
Test(learn_advise, secrets_and_protected)
{
	struct lr_denial d;

	d = fs(LR_DENIED_READ, ".env", "/home/u/proj/.env");
	expect_note(&d, "--allow-dotenv /home/u/proj/.env");
	d = fs(LR_DENIED_READ, "config/prod.env", "/srv/app/config/prod.env");
	expect_note(&d, "kept out on purpose");
	d = fs(LR_DENIED_READ, ".envrc/x", "/srv/app/.envrc/x");
	expect_note(&d, "--allow-dotenv /srv/app/.envrc ");
	/* a symlink with a secret's name makes its target a secret */
	d = fs(LR_DENIED_READ, "/srv/app/.env", "/srv/vault/settings");
	expect_note(&d, "kept out on purpose");
	d = fs(LR_DENIED_READ, "/home/u/secrets/prod.vars", "/home/u/secrets/prod.vars");
	expect_note(&d, "--env-file");
	d = fs(LR_DENIED_WRITE, ".git/config", "/home/u/proj/.git/config");
	expect_note(&d, "--allow-protected /home/u/proj/.git ");
	d = fs(LR_DENIED_CREATE, ".git/hooks/pre-commit", "/srv/app/.git/hooks/pre-commit");
	expect_note(&d, "git runs what is there");
	d = fs(LR_DENIED_CREATE, "/srv/app/.bashrc", "/srv/app/.bashrc");
	expect_note(&d, "the shell");
	/* reading a protected path is fine */
	d = fs(LR_DENIED_READ, "/srv/app/.git/config", "/srv/app/.git/config");
	expect_grant(&d, "ro", "/srv/app/.git/config");
	/* a new entry directly in a carved directory */
	d = fs(LR_DENIED_CREATE, "newfile", "/home/u/proj/newfile");
	expect_note(&d, "carved");
}

Test(learn_advise, exec)
{
	struct lr_denial d;

	/* granted already: its interpreter is what is missing */
	d = fs(LR_DENIED_EXECUTE, "/opt/tool/bin/tool", "/opt/tool/bin/tool");
	lr_strlist_add(&d.interps, "/opt/tool/lib/ld.so");
	expect_grant(&d, "rox", "/opt/tool/lib/ld.so");
	d = fs(LR_DENIED_EXECUTE, "/opt/tool/bin/tool", "/opt/tool/bin/tool");
	lr_strlist_add(&d.interps, "/usr/lib/ld.so");
	expect_note(&d, "executable by --rox /opt/tool/bin/tool already");
	/* PREFIX/bin/PROGRAM: its installation; never a shared or top one */
	d = fs(LR_DENIED_EXECUTE, "/home/u/.rustup/toolchains/t/bin/cargo",
	       "/home/u/.rustup/toolchains/t/bin/cargo");
	expect_grant(&d, "rox", "/home/u/.rustup/toolchains/t");
	d = fs(LR_DENIED_EXECUTE, "/home/u/.local/bin/tool", "/home/u/.local/bin/tool");
	expect_grant(&d, "rox", "/home/u/.local/bin/tool");
	d = fs(LR_DENIED_EXECUTE, "/home/u/bin/tool", "/home/u/bin/tool");
	expect_grant(&d, "rox", "/home/u/bin/tool");
	d = fs(LR_DENIED_EXECUTE, "/opt/bin/tool", "/opt/bin/tool");
	expect_grant(&d, "rox", "/opt/bin/tool");
	d = fs(LR_DENIED_EXECUTE, "/srv/app/tool", "/srv/app/tool");
	expect_grant(&d, "rox", "/srv/app/tool");
}

Test(learn_advise, network)
{
	struct lr_denial d = { .op = LR_DENIED_BIND_TCP, .port = 8080, .count = 1 };

	expect_grant(&d, "bind-tcp", "8080");
	d = (struct lr_denial){ .op = LR_DENIED_BIND_TCP, .port = 80, .count = 1 };
	expect_note(&d, "CAP_NET_BIND_SERVICE");
	d = (struct lr_denial){ .op = LR_DENIED_BIND_TCP, .port = 81, .count = 1 };
	expect_grant(&d, "bind-tcp", "81");
	d = (struct lr_denial){ .op = LR_DENIED_CONNECT_TCP, .port = 443, .count = 1 };
	expect_note(&d, "granted already");
	d = fs(LR_DENIED_CONNECT_UNIX, "/run/x.sock", "/run/x.sock");
	expect_grant(&d, "unix", "/run/x.sock");
	d = (struct lr_denial){ .op = LR_DENIED_CONNECT_UNIX, .abstract = true, .count = 1 };
	d.asked = strdup("bus");
	expect_note(&d, "--unrestricted-scoped");
	d = call(SYS_socket, AF_INET6, SOCK_DGRAM, EPROTONOSUPPORT);
	expect_note(&d, "net.udp");
	d = call(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, EAFNOSUPPORT);
	expect_note(&d, "--connect-tcp PORT");
	d = call(SYS_socket, AF_UNIX, SOCK_STREAM, EAFNOSUPPORT);
	expect_note(&d, "--unix PATH");
	d = call(SYS_socket, AF_PACKET, SOCK_RAW, EAFNOSUPPORT);
	expect_note(&d, "--unrestricted-network");
	d = call(SYS_listen, 3, 0, EPERM);
	expect_note(&d, "--bind-tcp");
}

Test(learn_advise, calls)
{
	struct lr_denial d;
	char *what;

	d = call(SYS_unshare, 0, 0, EPERM);
	expect_note(&d, "kernel.surface");
	d = call(SYS_chmod, 0, 0, EPERM);
	expect_note(&d, "--user USER");
	d = call(SYS_setsid, 0, 0, EPERM);
	expect_note(&d, "tty.foreground");
	d = call(SYS_fork, 0, 0, EPERM);
	expect_note(&d, "--deny-subprocess");
	d = call(SYS_socket, AF_INET6, SOCK_DGRAM, EPROTONOSUPPORT);
	what = lr_denial_what(&d);
	cr_expect_str_eq(what, "socket AF_INET6 SOCK_DGRAM");
	free(what);
	lr_denial_free(&d);
}

/* The same thing denied twice is one denial, counted twice; past the
 * limit, denials are counted only. */
Test(learn_denials, counted_once)
{
	struct lr_denials l = { 0 };
	struct lr_denial d;

	d = fs(LR_DENIED_READ, "a", "/srv/a");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_expect_null(d.path); /* taken over */
	d = fs(LR_DENIED_READ, "./a", "/srv/a");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = fs(LR_DENIED_WRITE, "a", "/srv/a");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = call(SYS_mount, 1, 2, EPERM);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = call(SYS_mount, 3, 4, EPERM);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_expect_eq(l.n, 3);
	cr_expect_eq(l.v[0].count, 2);
	cr_expect_eq(l.v[2].count, 2);
	for (int i = 0; i < LR_DENIALS_MAX + 5; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/srv/f%d", i);
		d = fs(LR_DENIED_READ, path, path);
		cr_assert_eq(lr_denials_add(&l, &d), 0);
	}
	cr_expect_eq(l.n, LR_DENIALS_MAX);
	cr_expect_eq(l.dropped, 8);
	lr_denials_free(&l);
}

/* ------------------------------------------------------------ the file */

static void learn(struct lr_learned *l, struct lr_denial d)
{
	struct lr_advice a;

	cr_assert_eq(lr_learn_advise(&d, &ctx, &a), 0);
	cr_assert_eq(lr_learned_add(l, &d, &a), 0);
	lr_advice_free(&a);
	lr_denial_free(&d);
}

static char *render(struct lr_learned *l)
{
	char *text;

	cr_assert_eq(lr_learned_widen(l, &ctx), 0);
	text = lr_learned_render(l, ctx.profile);
	cr_assert_not_null(text);
	return text;
}

Test(learn_file, widened_grouped_and_commented)
{
	struct lr_learned l = { 0 };
	struct lr_denial d;
	char *text;

	d = fs(LR_DENIED_READ, "/etc/ssl/openssl.cnf", "/etc/ssl/openssl.cnf");
	d.count = 2;
	learn(&l, d);
	d = fs(LR_DENIED_READ, "/etc/ssl/certs/ca.pem", "/etc/ssl/certs/ca.pem");
	d.count = 10;
	learn(&l, d);
	/* /etc/ssl and /etc/gitconfig do not make /etc */
	learn(&l, fs(LR_DENIED_READ, "/etc/gitconfig", "/etc/gitconfig"));
	/* two beneath a directory of the home, not the home itself */
	learn(&l, fs(LR_DENIED_READ, "/home/u/.config/t/a", "/home/u/.config/t/a"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/.config/t/b", "/home/u/.config/t/b"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/.inputrc", "/home/u/.inputrc"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/.gitconfig", "/home/u/.gitconfig"));
	/* nothing widened in /proc */
	d = fs(LR_DENIED_READ, "/proc/self/environ", "/proc/4242/environ");
	d.main = true;
	learn(&l, d);
	d = fs(LR_DENIED_READ, "/proc/self/status", "/proc/4242/status");
	d.main = true;
	learn(&l, d);
	learn(&l, fs(LR_DENIED_EXECUTE, "/opt/x/bin/a", "/opt/x/bin/a"));
	learn(&l, fs(LR_DENIED_CREATE, "/srv/out/a", "/srv/out/a"));
	learn(&l, fs(LR_DENIED_CREATE, "/srv/out/b", "/srv/out/b"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/proj/.env", "/home/u/proj/.env"));
	learn(&l, (struct lr_denial){ .op = LR_DENIED_CONNECT_TCP, .port = 8080, .count = 3 });
	learn(&l, (struct lr_denial){ .op = LR_DENIED_CONNECT_TCP, .port = 53, .count = 1 });
	text = render(&l);
	cr_expect_str_eq(text,
		"# landrun --learn: what would have allowed what the command was denied.\n"
		"# Review every line; then: landrun --config FILE [the same options] -- COMMAND\n"
		"# (a line without \"# denied\" just above it is yours: kept as it is)\n"
		"include = base\n"
		"\n"
		"# denied 1 time: execute under /opt/x\n"
		"rox = /opt/x\n"
		"\n"
		"# denied 1 time: read /etc/gitconfig\n"
		"ro = /etc/gitconfig\n"
		"\n"
		"# denied 12 times: read under /etc/ssl\n"
		"ro = /etc/ssl\n"
		"\n"
		"# denied 2 times: read under /home/u/.config/t\n"
		"ro = /home/u/.config/t\n"
		"\n"
		"# denied 1 time: read /home/u/.gitconfig\n"
		"ro = /home/u/.gitconfig\n"
		"\n"
		"# denied 1 time: read /home/u/.inputrc\n"
		"ro = /home/u/.inputrc\n"
		"\n"
		"# denied 1 time: read /proc/self/environ\n"
		"ro = /proc/self/environ\n"
		"\n"
		"# denied 1 time: read /proc/self/status\n"
		"ro = /proc/self/status\n"
		"\n"
		"# denied 2 times: create in /srv/out\n"
		"rw = /srv/out\n"
		"\n"
		"# denied 1 time: connect to TCP port 53\n"
		"connect-tcp = 53\n"
		"\n"
		"# denied 3 times: connect to TCP port 8080\n"
		"connect-tcp = 8080\n"
		"\n"
		"# Not learned (nothing below is granted):\n"
		"# denied 1 time: read /home/u/proj/.env: a secret file, kept out on purpose; "
		"--allow-dotenv /home/u/proj/.env would let the command read it (think twice: it "
		"holds keys)\n");
	free(text);
	lr_learned_free(&l);
}

/* Run after run: counts add up, what the user wrote stays, the widening
 * takes in what was learned before. */
Test(learn_file, merged)
{
	static const char before[] =
		"# landrun --learn: what would have allowed what the command was denied.\n"
		"include = base\n"
		"# my own: the test database\n"
		"connect-tcp = 5432\n"
		"\n"
		"# denied 4 times: read /srv/app/cfg/a.ini\n"
		"ro = /srv/app/cfg/a.ini\n"
		"# denied 2 times: connect to TCP port 8080\n"
		"connect-tcp = 8080\n"
		"# denied 1 time: mount: kernel.surface: no flag allows it\n";
	struct lr_learned l;
	char *text;

	cr_assert_eq(lr_learned_parse(before, strlen(before), &l), 0);
	cr_expect_eq(lr_learned_count(&l), 2);
	learn(&l, fs(LR_DENIED_READ, "/srv/app/cfg/b.ini", "/srv/app/cfg/b.ini"));
	learn(&l, (struct lr_denial){ .op = LR_DENIED_CONNECT_TCP, .port = 8080, .count = 1 });
	learn(&l, call(SYS_mount, 0, 0, EPERM));
	text = render(&l);
	cr_expect_str_eq(text,
		"# landrun --learn: what would have allowed what the command was denied.\n"
		"# Review every line; then: landrun --config FILE [the same options] -- COMMAND\n"
		"# (a line without \"# denied\" just above it is yours: kept as it is)\n"
		"include = base\n"
		"# my own: the test database\n"
		"connect-tcp = 5432\n"
		"\n"
		"# denied 5 times: read under /srv/app/cfg\n"
		"ro = /srv/app/cfg\n"
		"\n"
		"# denied 3 times: connect to TCP port 8080\n"
		"connect-tcp = 8080\n"
		"\n"
		"# Not learned (nothing below is granted):\n"
		"# denied 2 times: mount: kernel.surface: no flag allows it\n");
	/* and it reads back the same */
	lr_learned_free(&l);
	cr_assert_eq(lr_learned_parse(text, strlen(text), &l), 0);
	cr_expect_eq(lr_learned_count(&l), 2);
	{
		char *again = render(&l);

		cr_expect_str_eq(again, text);
		free(again);
	}
	free(text);
	lr_learned_free(&l);
}

/* What the file holds is never a secret's name, whatever was denied. */
Test(learn_file, never_a_secret)
{
	static const char *const secrets[] = { ".env", ".env.local", ".envrc", "prod.env",
					       ".env.bak", "#.env#" };
	struct lr_learned l = { 0 };
	char *text;

	for (size_t i = 0; i < ARRAY_SIZE(secrets); i++) {
		char path[128];

		snprintf(path, sizeof(path), "/srv/app/%s", secrets[i]);
		learn(&l, fs(LR_DENIED_READ, path, path));
		snprintf(path, sizeof(path), "/srv/app/sub/%s", secrets[i]);
		learn(&l, fs(LR_DENIED_WRITE, path, path));
	}
	learn(&l, fs(LR_DENIED_READ, "/srv/app/.env.example", "/srv/app/.env.example"));
	learn(&l, fs(LR_DENIED_READ, "/srv/app/README", "/srv/app/README"));
	text = render(&l);
	cr_expect_eq(lr_learned_count(&l), 1, "%s", text);
	cr_expect(strstr(text, "\nro = /srv/app\n"), "%s", text);
	free(text);
	lr_learned_free(&l);
}

/* The settings a policy file holds (config.c's reading of each line). */
static size_t settings_in(const char *text, const char *key, const char *value)
{
	size_t n = 0;
	char *copy = strdup(text), *save = NULL;

	cr_assert_not_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *k, *v;

		if (lr_config_parse_line(line, &k, &v) == 1) {
			n += (!key || strcmp(k, key) == 0) && (!value || strcmp(v, value) == 0);
			free(k);
			free(v);
		}
	}
	free(copy);
	return n;
}

/* Names the command chose never add a setting, and never break a comment. */
Test(learn_file, names_the_command_chose)
{
	static const char *const names[] = {
		"/tmp/x\nrw = ~\nunrestricted-network = true",
		"/tmp/s\nrw = /opt/x/victim ;",
		"/tmp/a ;/b",
		"/tmp/a #b",
		"/tmp/a\tb",
		"/tmp/a\rrw = /etc",
		"/tmp/\x1b]0;title\x07\x1b[31m",
		"/tmp/\xc2\x9b" "31m",
		"/tmp/a,b",
		"/tmp/${HOME}",
		"/tmp/x ",
	};
	struct lr_learned l = { 0 };
	char *text;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		learn(&l, fs(LR_DENIED_READ, names[i], names[i]));
		learn(&l, fs(LR_DENIED_EXECUTE, names[i], names[i]));
		learn(&l, fs(LR_DENIED_CREATE, names[i], names[i]));
		{
			struct lr_denial d = fs(LR_DENIED_CONNECT_UNIX, names[i], names[i]);

			d.op = LR_DENIED_CONNECT_UNIX;
			learn(&l, d);
		}
	}
	text = render(&l);
	/* no setting but the profile's include: /tmp is shared, so not even its parent */
	cr_expect_eq(settings_in(text, NULL, NULL), 1, "%s", text);
	cr_expect_eq(settings_in(text, "include", "base"), 1, "%s", text);
	cr_expect_null(strchr(text, '\x1b'), "%s", text);
	cr_expect_null(strchr(text, '\r'), "%s", text);
	cr_expect_null(strchr(text, '\t'), "%s", text);
	cr_expect_null(strstr(text, "\xc2\x9b"), "%s", text);
	cr_expect(strstr(text, "read /tmp/x\\x0arw = ~\\x0aunrestricted-network = true: "), "%s",
		  text);
	/* every line is a comment, a blank, or the include */
	{
		char *copy = strdup(text), *save = NULL;

		for (char *line = strtok_r(copy, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *k, *v;
			int r = lr_config_parse_line(line, &k, &v);

			cr_expect(r == 0 || r == 1, "line '%s': %d", line, r);
			if (r == 1) {
				free(k);
				free(v);
			}
		}
		free(copy);
	}
	/* merged again, the same */
	lr_learned_free(&l);
	cr_assert_eq(lr_learned_parse(text, strlen(text), &l), 0);
	{
		char *again = render(&l);

		cr_expect_str_eq(again, text);
		free(again);
	}
	free(text);
	lr_learned_free(&l);
}

/* The merge reads lines as the policy reader does: what it cannot take as
 * a learned setting stays the user's, as it is. */
Test(learn_file, merge_reads_as_the_reader)
{
	static const char before[] = "# denied 1 time: read /x\n"
				     "rw = /opt/x/victim ;/: a comment\n"
				     "# denied 1 time: read /y\n"
				     "rw = ~/y\n";
	static const char nul[] = "ro = /a/b\0/proj\n";
	static const char cr[] = "ro = /a\rro = /b\n";
	struct lr_learned l;
	char *text;

	/* the first is read as the reader reads it, the second kept as it is */
	cr_assert_eq(lr_learned_parse(before, strlen(before), &l), 0);
	cr_expect_eq(lr_learned_count(&l), 1);
	text = render(&l);
	cr_expect(strstr(text, "\nrw = /opt/x/victim\n"), "%s", text);
	cr_expect(strstr(text, "\nrw = ~/y\n"), "%s", text);
	cr_expect_eq(settings_in(text, "rw", "/opt/x/victim"), 1, "%s", text);
	cr_expect_eq(settings_in(text, "rw", NULL), 2, "%s", text);
	free(text);
	lr_learned_free(&l);

	cr_expect_eq(lr_learned_parse(nul, sizeof(nul) - 1, &l), -EINVAL);
	cr_expect_eq(l.bad_line, 1);
	cr_expect(strstr(l.bad, "NUL"), "%s", l.bad);
	cr_expect_eq(lr_learned_parse(cr, sizeof(cr) - 1, &l), -EINVAL);
}

/* Nothing denied: nothing to sort (qsort(NULL, 0) is undefined). */
Test(learn_file, nothing_denied)
{
	struct lr_learned l = { 0 };
	char *text = render(&l);

	cr_expect(strstr(text, "include = base\n"), "%s", text);
	free(text);
	lr_learned_free(&l);
}

/* Report lines show what the command chose escaped. */
Test(learn_advise, escaped)
{
	struct lr_denial d = fs(LR_DENIED_READ, "/srv/\x1b]0;pwned\x07", "/srv/\x1b]0;pwned\x07");

	strcpy(d.comm, "\x1b[31mgit");
	expect_line(&d, "denied read /srv/\\x1b]0;pwned\\x07 (by \\x1b[31mgit, pid 4242): --ro "
			"/srv/\\x1b]0;pwned\\x07 would allow it, but a policy file cannot hold "
			"that name: grant it on the command line");
}

Test(learn_file, update_through_the_descriptor)
{
	struct lr_denials l = { 0 };
	struct lr_denial d = fs(LR_DENIED_READ, "/srv/a", "/srv/a");
	size_t settings = 0;
	char buf[4096];
	ssize_t n;
	int fd = memfd_create("learn", MFD_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "# mine\n", 7), 7);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_assert_eq(lr_learn_file_update(fd, &l, &ctx, &settings), 0);
	cr_expect_eq(settings, 1);
	cr_assert_eq(lr_learn_file_update(fd, &l, &ctx, &settings), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	cr_expect(strstr(buf, "include = base\n# mine\n\n"
			      "# denied 2 times: read /srv/a\nro = /srv/a\n"),
		  "%s", buf);
	close(fd);
	lr_denials_free(&l);
}

/* ---------------------------------------------- probes, terminals, the home */

static struct lr_denial made(const char *path)
{
	struct lr_denial d = fs(LR_DENIED_CREATE, path, path);

	d.dir = true;
	return d;
}

static bool probe_of(struct lr_denial d)
{
	struct lr_advice a;
	bool probe;

	cr_assert_eq(lr_learn_advise(&d, &ctx, &a), 0);
	probe = a.probe && a.kind == LR_ADVICE_NOTE && a.note && strstr(a.note, "do without");
	lr_advice_free(&a);
	lr_denial_free(&d);
	return probe;
}

/* What programs try and do without is a probe, told apart and never a
 * setting; what they need is not. */
Test(learn_advise, probes)
{
	struct lr_denial d;

	cr_expect(probe_of(fs(LR_DENIED_READ, "/proc/filesystems", "/proc/filesystems")));
	cr_expect(probe_of(fs(LR_DENIED_READ, "/proc/self/mounts", "/proc/4243/mounts")));
	cr_expect(probe_of(fs(LR_DENIED_READ, "/proc/self/maps", "/proc/4242/task/4250/maps")));
	cr_expect(probe_of(fs(LR_DENIED_READ, "/etc/ld.so.cache", "/etc/ld.so.cache")));
	cr_expect(probe_of(fs(LR_DENIED_LIST, "/etc", "/etc")));
	cr_expect(probe_of(fs(LR_DENIED_LIST, "/usr/lib/x86_64-linux-gnu/glibc-hwcaps",
			      "/usr/lib/x86_64-linux-gnu/glibc-hwcaps")));
	cr_expect(probe_of(fs(LR_DENIED_READ, "/usr/lib/locale/C.UTF-8/LC_CTYPE",
			      "/usr/lib/locale/C.UTF-8/LC_CTYPE")));
	cr_expect(probe_of(fs(LR_DENIED_READ, "/sys/fs/cgroup/memory.max",
			      "/sys/fs/cgroup/memory.max")));
	/* the command's own: --ro /proc/self/... would allow it */
	d = fs(LR_DENIED_READ, "/proc/self/mountinfo", "/proc/4242/mountinfo");
	d.main = true;
	expect_note(&d, "--ro /proc/self/mountinfo would allow it");
	/* controls: written, or needed, or only named alike */
	cr_expect(!probe_of(fs(LR_DENIED_WRITE, "/proc/self/maps", "/proc/4242/maps")));
	cr_expect(!probe_of(fs(LR_DENIED_READ, "/proc/self/status", "/proc/4242/status")));
	cr_expect(!probe_of(fs(LR_DENIED_READ, "/proc/filesystems2", "/proc/filesystems2")));
	cr_expect(!probe_of(fs(LR_DENIED_READ, "/usr/lib/x86_64-linux-gnu/libssl.so.3",
			       "/usr/lib/x86_64-linux-gnu/libssl.so.3")));
	cr_expect(!probe_of(fs(LR_DENIED_READ, "/srv/tls/key.pem", "/srv/tls/key.pem")));
	/* clang's search of /opt for ROCm and CUDA (clangd) */
	cr_expect(probe_of(fs(LR_DENIED_LIST, "/opt", "/opt")));
	cr_expect(!probe_of(fs(LR_DENIED_LIST, "/opt/tool", "/opt/tool")));
}

/* A terminal is never granted by name. */
Test(learn_advise, terminals)
{
	static const char *const ttys[] = { "/dev/pts/0", "/dev/tty", "/dev/tty1", "/dev/console",
					    "/dev/ptmx", "/dev/pts/12" };
	struct lr_denial d;

	for (size_t i = 0; i < ARRAY_SIZE(ttys); i++) {
		d = fs(LR_DENIED_WRITE, ttys[i], ttys[i]);
		expect_note(&d, "a terminal: landrun grants none by name");
		d = fs(LR_DENIED_READ, ttys[i], ttys[i]);
		expect_note(&d, "a terminal");
	}
	/* controls */
	d = fs(LR_DENIED_WRITE, "/dev/null", "/dev/null");
	expect_grant(&d, "rw", "/dev/null");
	d = fs(LR_DENIED_READ, "/dev/ttyrc", "/dev/ttyrc/x");
	expect_grant(&d, "ro", "/dev/ttyrc/x");
}

/* The directories every tool of the home shares are never granted: what a
 * tool makes in one is its own, made and granted (--mkdir, --rw). */
Test(learn_advise, the_tools_own_directory)
{
	struct lr_advice a;
	struct lr_denial d;
	char *line;

	cr_expect_not_null(lr_learn_tools_dir("/home/u/.cache", "/home/u"));
	cr_expect_not_null(lr_learn_tools_dir("/home/u/.local/share", "/home/u"));
	cr_expect_null(lr_learn_tools_dir("/home/u/.cache/t", "/home/u"));
	cr_expect_null(lr_learn_tools_dir("/home/uu/.cache", "/home/u"));
	cr_expect_null(lr_learn_tools_dir("/home/u/.cache", NULL));

	d = made("/home/u/.cache/mytool");
	cr_assert_eq(lr_learn_advise(&d, &ctx, &a), 0);
	cr_expect_eq(a.kind, LR_ADVICE_GRANT);
	cr_expect_str_eq(a.key, "rw");
	cr_expect_str_eq(a.value, "/home/u/.cache/mytool");
	cr_expect(a.mkdir);
	line = lr_learn_report_line(&d, &a);
	cr_expect_str_eq(line, "denied create /home/u/.cache/mytool (by git, pid 4242) -> "
			       "--mkdir /home/u/.cache/mytool --rw /home/u/.cache/mytool");
	free(line);
	lr_advice_free(&a);
	lr_denial_free(&d);
	/* ~/.cache itself: made, granted to none */
	d = made("/home/u/.cache");
	expect_grant(&d, "mkdir", "/home/u/.cache");
	d = made("/home/u/.local/share");
	expect_grant(&d, "mkdir", "/home/u/.local/share");
	/* a directory of its own in the home */
	d = made("/home/u/.mytool");
	expect_grant(&d, "rw", "/home/u/.mytool");
	/* ... but never a secret's */
	d = made("/home/u/.ssh");
	expect_note(&d, "credentials");
	d = made("/home/u/.gnupg");
	expect_note(&d, "credentials");
	/* a file in one: a note, not the directory of every tool */
	d = fs(LR_DENIED_CREATE, "/home/u/.cache/t.json", "/home/u/.cache/t.json");
	expect_note(&d, "shared by every tool of the home");
	d = fs(LR_DENIED_LIST, "/home/u/.config", "/home/u/.config");
	expect_note(&d, "shared by every tool of the home");
	/* beneath a carved grant (the project): a directory is made first */
	d = made("/home/u/proj/build");
	expect_grant(&d, "mkdir", "/home/u/proj/build");
	d = fs(LR_DENIED_CREATE, "/home/u/proj/out.txt", "/home/u/proj/out.txt");
	expect_note(&d, "--mkdir");
	/* controls: elsewhere, the directory it is made in */
	d = made("/srv/out/new");
	expect_grant(&d, "rw", "/srv/out");
	d = made("/tmp/x");
	expect_note(&d, "--private-tmp");
}

Test(learn_file, made_and_granted)
{
	struct lr_learned l = { 0 }, again;
	char *text, *text2;

	/* mkdir -p ~/.cache/mytool/x, three runs: ~/.cache, then the tool's */
	learn(&l, made("/home/u/.cache"));
	learn(&l, made("/home/u/.cache/mytool"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/.cache/other/a", "/home/u/.cache/other/a"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/.cache/third/b", "/home/u/.cache/third/b"));
	learn(&l, fs(LR_DENIED_READ, "/proc/filesystems", "/proc/filesystems"));
	text = render(&l);
	cr_expect_str_eq(text,
		"# landrun --learn: what would have allowed what the command was denied.\n"
		"# Review every line; then: landrun --config FILE [the same options] -- COMMAND\n"
		"# (a line without \"# denied\" just above it is yours: kept as it is)\n"
		"include = base\n"
		"\n"
		"# denied 1 time: read /home/u/.cache/other/a\n"
		"ro = /home/u/.cache/other/a\n"
		"\n"
		"# denied 1 time: read /home/u/.cache/third/b\n"
		"ro = /home/u/.cache/third/b\n"
		"\n"
		"# denied 2 times: make the directory /home/u/.cache/mytool\n"
		"mkdir = /home/u/.cache/mytool\n"
		"rw = /home/u/.cache/mytool\n"
		"\n"
		"# Not learned (nothing below is granted):\n"
		"# denied 1 time: read /proc/filesystems: a probe that programs do without: not "
		"needed (--ro /proc/filesystems would allow it)\n");
	/* read back: the same */
	cr_assert_eq(lr_learned_parse(text, strlen(text), &again), 0);
	cr_expect_eq(lr_learned_count(&again), 3);
	text2 = render(&again);
	cr_expect_str_eq(text2, text);
	free(text2);
	lr_learned_free(&again);
	free(text);
	lr_learned_free(&l);
	/* a lone mkdir stays, and reads back as one */
	learn(&l, made("/home/u/.cache"));
	text = render(&l);
	cr_expect(strstr(text, "\nmkdir = /home/u/.cache\n"), "%s", text);
	cr_assert_eq(lr_learned_parse(text, strlen(text), &again), 0);
	cr_expect_eq(lr_learned_count(&again), 1);
	cr_expect_str_eq(again.v[0].key, "mkdir");
	cr_expect(!again.v[0].mkdir);
	lr_learned_free(&again);
	free(text);
	lr_learned_free(&l);
}

/* The likeliest cause first when the command failed; the probes last. */
Test(learn_denials, report_order)
{
	struct lr_denials l = { 0 };
	struct lr_denial d;
	bool probe[4] = { false, true, false, false };
	size_t order[4];

	d = fs(LR_DENIED_READ, "/srv/a", "/srv/a");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = fs(LR_DENIED_READ, "/proc/filesystems", "/proc/filesystems");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = fs(LR_DENIED_READ, "/srv/b", "/srv/b");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = fs(LR_DENIED_READ, "/srv/c", "/srv/c");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	/* /srv/a again: the last now */
	d = fs(LR_DENIED_READ, "/srv/a", "/srv/a");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_expect_eq(l.n, 4);
	cr_expect_eq(l.v[0].last, 5);
	cr_expect_eq(l.v[3].last, 4);

	cr_expect_eq(lr_learn_report_order(&l, probe, true, order), 3);
	cr_expect(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1);
	cr_expect_eq(lr_learn_report_order(&l, probe, false, order), 3);
	cr_expect(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1);
	/* the last is another */
	d = fs(LR_DENIED_READ, "/srv/c", "/srv/c");
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_expect_eq(lr_learn_report_order(&l, probe, true, order), 3);
	cr_expect(order[0] == 3 && order[1] == 0 && order[2] == 2 && order[3] == 1);
	/* only probes */
	for (int i = 0; i < 4; i++)
		probe[i] = true;
	cr_expect_eq(lr_learn_report_order(&l, probe, true, order), 0);
	cr_expect(order[0] == 0 && order[3] == 3);
	lr_denials_free(&l);
}

/* What the command looked for in its private HOME, and found nothing. */
Test(learn_advise, private_home)
{
	char *missing[] = { "~/.npmrc", "~/.config/git/config", "~/.x\x1b[31m", "~/.a", "~/.b" };
	bool none[5] = { false }, some[5] = { false, true, false, false, false };
	char *line;

	line = lr_learn_home_line(missing, 2, 2, some, "/home/u");
	cr_expect_str_eq(line, "HOME is a new, empty directory (private-home): the command looked "
			       "there for ~/.config/git/config, ~/.npmrc, and found nothing; your "
			       "HOME has it: --env HOME --ro /home/u/.config/git/config gives it "
			       "yours (or --env HOME=DIR --rw DIR, a HOME of its own that stays)");
	free(line);
	line = lr_learn_home_line(missing, 5, 9, none, "/home/u");
	cr_expect_str_eq(line, "HOME is a new, empty directory (private-home): the command looked "
			       "there for ~/.npmrc, ~/.config/git/config, ~/.x\\x1b[31m and 6 more, "
			       "and found nothing (nor would it in yours; --env HOME=DIR --rw DIR "
			       "gives it a HOME of its own that stays)");
	free(line);
}

/* A host name's lookup (npm looks one up even offline): the nameservers'
 * file, and the sockets the same process asked for, are one thing, summed
 * up and never learned; a socket alone is not a lookup. */
Test(learn_advise, name_lookups)
{
	struct lr_denials l = { 0 };
	struct lr_advice a[6];
	struct lr_denial d;
	const int nonblock = SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC;

	d = fs(LR_DENIED_READ, "/etc/resolv.conf", "/etc/resolv.conf");
	d.pid = 7;
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = call(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, EAFNOSUPPORT);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = call(SYS_socket, AF_UNIX, nonblock, EAFNOSUPPORT); /* nscd's */
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	/* control: UDP of another process */
	d = call(SYS_socket, AF_INET6, SOCK_DGRAM, EAFNOSUPPORT);
	d.pid = 8;
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_assert_eq(l.n, 4);
	for (size_t i = 0; i < l.n; i++)
		cr_assert_eq(lr_learn_advise(&l.v[i], &ctx, &a[i]), 0);
	cr_expect(a[0].lookup && a[0].probe && a[0].kind == LR_ADVICE_NOTE);
	cr_expect(strstr(a[0].note, "--unrestricted-network --ro /etc/resolv.conf"));
	cr_expect(strstr(a[0].note, "--allow-domain NAME"));
	cr_expect(!a[1].lookup && !a[2].lookup, "a socket is no lookup by itself");
	lr_learn_mark_lookups(&l, a);
	cr_expect(a[1].lookup && a[1].probe, "UDP, by the process that read resolv.conf");
	cr_expect(a[2].lookup && a[2].probe, "nscd's socket, by the same");
	cr_expect(!a[3].lookup && !a[3].probe, "control: UDP of another process");
	for (size_t i = 0; i < l.n; i++)
		lr_advice_free(&a[i]);
	lr_denials_free(&l);
	/* control: a blocking AF_UNIX socket is not nscd's */
	d = fs(LR_DENIED_READ, "/etc/resolv.conf", "/etc/resolv.conf");
	d.pid = 7;
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	d = call(SYS_socket, AF_UNIX, SOCK_STREAM, EAFNOSUPPORT);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_assert_eq(l.n, 2);
	for (size_t i = 0; i < l.n; i++)
		cr_assert_eq(lr_learn_advise(&l.v[i], &ctx, &a[i]), 0);
	lr_learn_mark_lookups(&l, a);
	cr_expect(a[0].lookup && !a[1].lookup && !a[1].probe);
	for (size_t i = 0; i < l.n; i++)
		lr_advice_free(&a[i]);
	lr_denials_free(&l);
	/* and without the nameservers' file, UDP is what it was */
	d = call(SYS_socket, AF_INET, SOCK_DGRAM, EAFNOSUPPORT);
	cr_assert_eq(lr_denials_add(&l, &d), 0);
	cr_assert_eq(lr_learn_advise(&l.v[0], &ctx, &a[0]), 0);
	lr_learn_mark_lookups(&l, a);
	cr_expect(!a[0].lookup && !a[0].probe && strstr(a[0].note, "net.udp"));
	lr_advice_free(&a[0]);
	lr_denials_free(&l);
}

/* --env HOME=DIR: the command's HOME is DIR, where it makes its own
 * directory; the caller's stays a home that nothing is widened to. */
Test(learn_context, the_commands_home)
{
	char base[] = "/tmp/lr-learn-home.XXXXXX", mine[64], theirs[64];
	struct lr_env_rule env[] = { { LR_ENV_SET, "HOME", mine } };
	struct lr_policy policy = { 0 };
	struct lr_learn_context c;
	struct lr_advice a;
	struct lr_denial d;

	cr_assert_not_null(mkdtemp(base));
	snprintf(mine, sizeof(mine), "%s/mine", base);
	snprintf(theirs, sizeof(theirs), "%s/theirs", base);
	cr_assert_eq(mkdir(mine, 0700), 0);
	cr_assert_eq(mkdir(theirs, 0700), 0);
	policy.env = env;
	policy.n_env = 1;
	cr_assert_eq(lr_learn_context_init(&c, &policy, theirs, 7), 0);
	cr_expect_str_eq(c.home, mine);
	cr_expect_str_eq(c.caller_home, theirs);
	/* cargo makes ~/.cargo: made and granted, not the HOME */
	d = fs(LR_DENIED_CREATE, "/x/.cargo", NULL);
	cr_assert(asprintf(&d.path, "%s/.cargo", mine) > 0);
	d.dir = true;
	cr_assert_eq(lr_learn_advise(&d, &c, &a), 0);
	cr_expect(a.kind == LR_ADVICE_GRANT && a.mkdir && strcmp(a.key, "rw") == 0 &&
		  strcmp(a.value, d.path) == 0, "%s = %s", a.key ? a.key : "note",
		  a.value ? a.value : a.note);
	lr_advice_free(&a);
	lr_denial_free(&d);
	/* a file made in the caller's home is not a grant of it */
	d = fs(LR_DENIED_CREATE, "/x/f", NULL);
	cr_assert(asprintf(&d.path, "%s/f", theirs) > 0);
	cr_assert_eq(lr_learn_advise(&d, &c, &a), 0);
	cr_expect_eq(a.kind, LR_ADVICE_NOTE, "%s = %s", a.key ? a.key : "", a.value ? a.value : "");
	lr_advice_free(&a);
	lr_denial_free(&d);
	lr_learn_context_free(&c);
	/* a HOME not made yet is the command's all the same */
	snprintf(mine, sizeof(mine), "%s/later", base);
	cr_assert_eq(lr_learn_context_init(&c, &policy, theirs, 7), 0);
	cr_expect_str_eq(c.home, mine);
	lr_learn_context_free(&c);
	/* control: without --env HOME=DIR, the caller's is the command's */
	policy.n_env = 0;
	cr_assert_eq(lr_learn_context_init(&c, &policy, theirs, 7), 0);
	cr_expect_str_eq(c.home, theirs);
	lr_learn_context_free(&c);
	snprintf(mine, sizeof(mine), "%s/mine", base);
	cr_expect_eq(rmdir(mine), 0);
	cr_expect_eq(rmdir(theirs), 0);
	cr_expect_eq(rmdir(base), 0);
}

/* The directory that holds the project (make lists ../ for an include of
 * ../common.mk): its listing is a probe, and nothing is widened to it,
 * which would grant the other checkouts beside the project. */
Test(learn_file, never_beside_the_project)
{
	static struct lr_known_grant project[] = {
		{ "/home/u/src/app", LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, true, "--rwx /home/u/src/app" },
	};
	struct lr_learned l = { 0 };
	struct lr_denial d;
	char *text;

	ctx.grants = project; /* Criterion forks each test: ctx is this test's */
	ctx.n_grants = ARRAY_SIZE(project);
	cr_expect(probe_of(fs(LR_DENIED_LIST, "..", "/home/u/src")));
	/* controls: a directory beside it, and one in it */
	d = fs(LR_DENIED_LIST, "/home/u/lib", "/home/u/lib");
	expect_grant(&d, "ro", "/home/u/lib");
	d = fs(LR_DENIED_LIST, "/home/u/src/app/x", "/home/u/src/app/x");
	expect_note(&d, "granted by --rwx /home/u/src/app already");
	learn(&l, fs(LR_DENIED_READ, "../common.mk", "/home/u/src/common.mk"));
	learn(&l, fs(LR_DENIED_READ, "../rules.mk", "/home/u/src/rules.mk"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/lib/a", "/home/u/lib/a"));
	learn(&l, fs(LR_DENIED_READ, "/home/u/lib/b", "/home/u/lib/b"));
	text = render(&l);
	cr_expect(strstr(text, "\nro = /home/u/src/common.mk\n") &&
		  strstr(text, "\nro = /home/u/src/rules.mk\n"), "%s", text);
	cr_expect(!strstr(text, "ro = /home/u/src\n"), "%s", text);
	cr_expect(strstr(text, "\nro = /home/u/lib\n"), "control: widened beside it: %s", text);
	free(text);
	lr_learned_free(&l);
}

/* What a tool writes in an installation that holds bin/ (~/.cargo: its lock
 * files) is never widened to the installation: its programs run outside. */
Test(learn_file, never_an_installation_for_writing)
{
	char base[] = "/tmp/lr-learn-prefix.XXXXXX", path[128], want[160];
	struct lr_learned l = { 0 };
	struct lr_denial d;
	char *text;

	cr_assert_not_null(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/bin", base);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.package-cache", base);
	d = fs(LR_DENIED_WRITE, path, path);
	learn(&l, d);
	snprintf(path, sizeof(path), "%s/.global-cache", base);
	d = fs(LR_DENIED_WRITE, path, path);
	learn(&l, d);
	text = render(&l);
	snprintf(want, sizeof(want), "\nrw = %s\n", base);
	cr_expect(!strstr(text, want), "%s", text);
	snprintf(want, sizeof(want), "\nrw = %s/.global-cache\n", base);
	cr_expect(strstr(text, want), "%s", text);
	free(text);
	lr_learned_free(&l);
	/* control: without bin/, the two are its directory */
	snprintf(path, sizeof(path), "%s/bin", base);
	cr_assert_eq(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/.package-cache", base);
	d = fs(LR_DENIED_WRITE, path, path);
	learn(&l, d);
	snprintf(path, sizeof(path), "%s/.global-cache", base);
	d = fs(LR_DENIED_WRITE, path, path);
	learn(&l, d);
	text = render(&l);
	snprintf(want, sizeof(want), "\nrw = %s\n", base);
	cr_expect(strstr(text, want), "control: %s", text);
	free(text);
	lr_learned_free(&l);
	rmdir(base);
}
