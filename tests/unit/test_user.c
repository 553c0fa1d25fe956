/* SPDX-License-Identifier: MIT */
/*
 * --user: names and numbers resolved with passwd and group files of the
 * test's own, as tables; the switch itself in a child, when run as root.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/sandbox/user.h"
#include "skip.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char dir[] = "/tmp/lr-user-XXXXXX";
static char passwd[64], group[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_geq(fputs(text, f), 0);
	cr_assert_eq(fclose(f), 0);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
	snprintf(group, sizeof(group), "%s/group", dir);
	write_file(passwd, "root:x:0:0:root:/root:/bin/sh\n"
			   "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
			   "bob:x:1001:100:Bob:/home/bob:/bin/sh\n"
			   "1234:x:2000:2000:a name that is a number:/:/bin/sh\n");
	write_file(group, "root:x:0:\nusers:x:100:alice,bob\nalice:x:1000:\nstaff:x:50:\n");
}

static void teardown(void)
{
	unlink(passwd);
	unlink(group);
	rmdir(dir);
}

struct ok_case {
	const char *spec;
	unsigned uid, gid;
	bool group_given;
};

static const struct ok_case ok_cases[] = {
	{ "alice", 1000, 1000, false },
	{ "bob", 1001, 100, false },		/* the primary group from passwd */
	{ "root", 0, 0, false },
	{ "alice:staff", 1000, 50, true },
	{ "alice:50", 1000, 50, true },
	{ "1001", 1001, 100, false },		/* a number in passwd: its group */
	{ "1001:0", 1001, 0, true },
	{ "4242:4343", 4242, 4343, true },	/* numbers not in the files */
	{ "4242:users", 4242, 100, true },
	{ "0", 0, 0, false },
	{ "1234", 1234, 1234, true },		/* a number is a number, not the name "1234" */
};

Test(user_resolve, valid, .init = setup, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct lr_run_as u;
		char err[256] = "";
		int r = lr_user_resolve(c->spec, passwd, group, &u, err, sizeof(err));

		if (strcmp(c->spec, "1234") == 0) {
			/* uid 1234 has no entry: no group to take */
			cr_expect_eq(r, -EINVAL, "%s: %d (%s)", c->spec, r, err);
			cr_expect(strstr(err, "--user 1234:GID"), "%s: %s", c->spec, err);
			continue;
		}
		cr_expect_eq(r, 0, "%s: %d (%s)", c->spec, r, err);
		cr_expect(u.set, "%s: not set", c->spec);
		cr_expect_eq(u.uid, c->uid, "%s: uid %u, want %u", c->spec, (unsigned)u.uid, c->uid);
		cr_expect_eq(u.gid, c->gid, "%s: gid %u, want %u", c->spec, (unsigned)u.gid, c->gid);
		cr_expect_eq(u.group_given, c->group_given, "%s: group_given", c->spec);
	}
}

struct bad_case {
	const char *spec;
	int err;
	const char *says;	/* in the message */
};

static const struct bad_case bad_cases[] = {
	{ "", -EINVAL, "USER or USER:GROUP" },
	{ ":staff", -EINVAL, "USER or USER:GROUP" },
	{ "alice:", -EINVAL, "USER or USER:GROUP" },
	{ "mallory", -ENOENT, "no user 'mallory'" },
	{ "alice:wheel", -ENOENT, "no group 'wheel'" },
	{ "9999", -EINVAL, "give one (--user 9999:GID)" },
	{ "4294967295:1", -ENOENT, "no user '4294967295'" },	/* (uid_t)-1: "unchanged" */
	{ "1:4294967295", -ENOENT, "no group '4294967295'" },
	{ "-1:1", -ENOENT, "no user '-1'" },
	{ " alice", -ENOENT, "no user ' alice'" },
	{ "alice:staff:x", -ENOENT, "no group 'staff:x'" },
};

Test(user_resolve, invalid, .init = setup, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct lr_run_as u = { .set = true };
		char err[256] = "";
		int r = lr_user_resolve(c->spec, passwd, group, &u, err, sizeof(err));

		cr_expect_eq(r, c->err, "'%s': %d, want %d (%s)", c->spec, r, c->err, err);
		cr_expect(strstr(err, c->says), "'%s': \"%s\" does not say \"%s\"", c->spec, err,
			  c->says);
		cr_expect_eq(strchr(err, '\n'), NULL, "'%s': more than one line", c->spec);
	}
}

Test(user_resolve, unreadable_files, .init = setup, .fini = teardown)
{
	struct lr_run_as u;
	char err[256] = "";

	cr_expect_eq(lr_user_resolve("alice", "/nonexistent/passwd", group, &u, err, sizeof(err)),
		     -ENOENT);
	cr_expect(strstr(err, "cannot read /nonexistent/passwd"), "%s", err);
	cr_expect_eq(lr_user_resolve("alice:staff", passwd, "/nonexistent/group", &u, err,
				     sizeof(err)),
		     -ENOENT);
	cr_expect(strstr(err, "cannot read /nonexistent/group"), "%s", err);
}

/* The switch, in a child: every id and the group list, read back. */
Test(user_switch, becomes_the_user)
{
	struct lr_run_as u = { .set = true, .uid = 65534, .gid = 65533 };
	pid_t pid;
	int st;

	if (geteuid() != 0)
		lr_skip_test(0, "needs root (CAP_SETUID, CAP_SETGID)");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[256];
		uid_t r, e, s;
		gid_t groups[4];

		if (lr_user_switch(&u, err, sizeof(err)) < 0)
			_exit(10);
		if (getresuid(&r, &e, &s) < 0 || r != 65534 || e != 65534 || s != 65534)
			_exit(11);
		if (getgroups(4, groups) != 1 || groups[0] != 65533 || getgid() != 65533)
			_exit(12);
		/* and there is no way back */
		if (setresuid(0, 0, 0) == 0)
			_exit(13);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
}

Test(user_switch, refused_without_privilege)
{
	struct lr_run_as u = { .set = true, .uid = 4242, .gid = 4242 };
	char err[256] = "";
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(1, 1, 1) < 0 ||
				       setresuid(1, 1, 1) < 0))
			_exit(10);
		_exit(lr_user_switch(&u, err, sizeof(err)) == -EPERM ? 0 : 11);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
}
