/* SPDX-License-Identifier: MIT */
/*
 * Carving (sandbox/landlock.h) by doing the forbidden thing: a child opens
 * the rules for a temporary project, scans and carves them as main.c does
 * (policy -> plan -> rules -> scan -> carve -> no_new_privs -> enforce ->
 * the holes' witness; without a broker), then tries to read the secrets and
 * write in .git, and, beside them, to read and write ordinary files.  What
 * each attempt gave comes back through a pipe.  The same tree enforced
 * uncarved is the control: there the secrets are readable.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/confine/scan.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/util.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/caps.h"
#include "landrun/sandbox/landlock.h"
#include "skip.h"
#include "tmptree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum op { READ, WRITE, CREATE, MKDIR, UNLINK, RENAME };

static const char *const op_names[] = {"read", "write", "create", "mkdir", "unlink", "rename"};

/* An attempt on PATH (and TO) of the tree, and what it must give: 0, or
 * WANT (or ALT, when the kernel may answer either). */
struct trial {
	enum op op;
	const char *path, *to;
	int want, alt;
};

#define DENIED EACCES

/* What the child saw: the stage it reached, the first failure, and the
 * errno of every attempt (0: it worked). */
enum stage { ST_NONE, ST_RULES, ST_SCAN, ST_CARVE, ST_NNP, ST_ENFORCE, ST_DONE };

struct report {
	enum stage stage;
	int rc;	   /* of the stage that failed, or of lr_landlock_holes_check */
	int holes; /* found beneath the project */
	char err[512];
	int got[32];
};

static void setup(void)
{
	tt_make();
	tt_file("proj/README", "hello\n");
	tt_file("proj/.env", "TOKEN=secret\n");
	tt_file("proj/sub/id_rsa", "KEY\n");
	tt_file("proj/sub/notes.txt", "notes\n");
	tt_file("proj/.git/HEAD", "ref: refs/heads/main\n");
	/* git's hooks, to be made in a directory of the project */
	tt_file("proj/.git/config", "[core]\n\thooksPath = tools/hooks\n");
	tt_file("proj/tools/build.sh", "#!/bin/sh\n");
	/* a secret's name on a link to a file of the project: the file is kept out */
	tt_file("proj/data/token.txt", "t0k3n\n");
	tt_file("proj/data/other.txt", "other\n");
	tt_link("data/token.txt", "proj/.env.local");
	tt_dir("proj/.git/hooks");
	tt_file("proj/.mcp.json", "{}\n");
	tt_file("proj/src/main.c", "int main;\n");
	tt_file("proj/src/evil", "#!/bin/sh\n");
	tt_file("outside/plain.txt", "not granted\n");
	tt_dir("home/.config");
	setenv("HOME", tt_path("home"), 1);
	setenv("XDG_CONFIG_HOME", tt_path("home/.config"), 1);
}

TestSuite(carve, .init = setup, .fini = tt_remove);

static struct lr_features features;

static void need_landlock(void)
{
	char why[256];
	struct lr_plan p;
	struct lr_policy none;

	lr_features_probe(&features);
	if (features.landlock_abi >= 1)
		return;
	lr_policy_init(&none);
	lr_plan_compute(&none, &features, &p);
	lr_plan_landlock_cause(&p, why, sizeof(why));
	lr_policy_free(&none);
	lr_skip_test(true, "needs Landlock (ABI 1 or later): %s", why);
}

static int attempt(const struct trial *t)
{
	char c = 'x', path[2 * PATH_MAX], to[2 * PATH_MAX];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", tt_root, t->path);
	snprintf(to, sizeof(to), "%s/%s", tt_root, t->to ? t->to : "");
	errno = 0;
	switch (t->op) {
	case READ:
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read(fd, &c, 1) != 1)
			r = errno ? errno : EIO;
		break;
	case WRITE:
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0 && write(fd, &c, 1) != 1)
			r = errno ? errno : EIO;
		break;
	case CREATE:
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		break;
	case MKDIR:
		return mkdir(path, 0755) == 0 ? 0 : errno;
	case UNLINK:
		return unlink(path) == 0 ? 0 : errno;
	case RENAME:
		return rename(path, to) == 0 ? 0 : errno;
	default:
		return EINVAL;
	}
	if (fd < 0)
		return errno;
	close(fd);
	return r;
}

/* In the child: confine as main.c does, then make the attempts. */
static void confined(unsigned access, bool carve, bool mark_carved, const struct trial *tries,
		     size_t n, struct report *rep)
{
	struct lr_policy policy;
	struct lr_plan plan;
	struct lr_fs_rules rules = {0};
	struct lr_holes holes = {0};
	char proj[PATH_MAX];

	snprintf(proj, sizeof(proj), "%s", tt_path("proj"));
	lr_policy_init(&policy);
	if (lr_policy_add_grant(&policy, proj, access, "--rw") < 0)
		return;
	lr_plan_compute(&policy, &features, &plan);
	rep->stage = ST_RULES;
	rep->rc = lr_landlock_open_rules(&policy, &plan, &rules, rep->err, sizeof(rep->err));
	if (rep->rc < 0)
		return;
	rep->stage = ST_SCAN;
	rep->rc =
		lr_scan(&policy, &rules, proj, tt_path("home"), &holes, rep->err, sizeof(rep->err));
	if (rep->rc < 0)
		return;
	for (size_t i = 0; i < holes.n; i++)
		rep->holes += lr_path_beneath(holes.v[i].path, proj);
	rep->stage = ST_CARVE;
	rep->rc = carve ? lr_landlock_carve(&rules, &holes, rep->err, sizeof(rep->err)) : 0;
	if (rep->rc < 0)
		return;
	for (size_t i = 0; mark_carved && i < holes.n; i++)
		holes.v[i].carved = true;
	rep->stage = ST_NNP;
	rep->rc = lr_caps_no_new_privs();
	if (rep->rc < 0)
		return;
	rep->stage = ST_ENFORCE;
	rep->rc = lr_landlock_enforce(&plan, &policy, &rules, rep->err, sizeof(rep->err));
	if (rep->rc < 0)
		return;
	rep->stage = ST_DONE;
	rep->rc = lr_landlock_holes_check(&holes, rep->err, sizeof(rep->err));
	for (size_t i = 0; i < n; i++)
		rep->got[i] = attempt(&tries[i]);
}

/* Fork, confine the child with ACCESS to proj/, and make the attempts. */
static void run(unsigned access, bool carve, bool mark_carved, const struct trial *tries, size_t n,
		struct report *rep)
{
	int p[2], status;
	ssize_t got;
	pid_t pid;

	cr_assert_leq(n, ARRAY_SIZE(rep->got));
	memset(rep, 0, sizeof(*rep));
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		confined(access, carve, mark_carved, tries, n, rep);
		_exit(write(p[1], rep, sizeof(*rep)) == (ssize_t)sizeof(*rep) ? 0 : 1);
	}
	close(p[1]);
	got = read(p[0], rep, sizeof(*rep));
	close(p[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child: status %#x", status);
	cr_assert_eq(got, (ssize_t)sizeof(*rep), "the child's report: %zd bytes", got);
}

static void expect_tries(const struct trial *tries, size_t n, const struct report *rep)
{
	for (size_t i = 0; i < n; i++) {
		const struct trial *t = &tries[i];
		int got = rep->got[i];

		cr_expect(got == t->want || (t->alt && got == t->alt), "%s %s%s%s: %s, want %s",
			  op_names[t->op], t->path, t->to ? " -> " : "", t->to ? t->to : "",
			  got ? strerror(got) : "done", t->want ? strerror(t->want) : "done");
	}
}

Test(carve, a_writable_grant_around_its_secrets_and_git)
{
	struct trial tries[] = {
		/* the secrets: nothing */
		{READ, "proj/.env", NULL, DENIED, 0},
		{WRITE, "proj/.env", NULL, DENIED, 0},
		{READ, "proj/sub/id_rsa", NULL, DENIED, 0},
		{UNLINK, "proj/sub/id_rsa", NULL, DENIED, 0},
		/* .git and .mcp.json: read, but not written */
		{READ, "proj/.git/config", NULL, 0, 0},
		{WRITE, "proj/.git/config", NULL, DENIED, 0},
		{CREATE, "proj/.git/hooks/pre-commit", NULL, DENIED, 0},
		{MKDIR, "proj/.git/x", NULL, DENIED, 0},
		{UNLINK, "proj/.git/HEAD", NULL, DENIED, 0},
		{RENAME, "proj/src/evil", "proj/.git/hooks/post-checkout", DENIED, EXDEV},
		{READ, "proj/.mcp.json", NULL, 0, 0},
		{WRITE, "proj/.mcp.json", NULL, DENIED, 0},
		/* the hooks path, which does not exist yet, cannot be made */
		{MKDIR, "proj/tools/hooks", NULL, DENIED, 0},
		{CREATE, "proj/tools/hooks", NULL, DENIED, 0},
		{WRITE, "proj/tools/build.sh", NULL, 0, 0},
		/* the link's target, by either name */
		{READ, "proj/.env.local", NULL, DENIED, 0},
		{READ, "proj/data/token.txt", NULL, DENIED, 0},
		{READ, "proj/data/other.txt", NULL, 0, 0},
		{WRITE, "proj/data/other.txt", NULL, 0, 0},
		/* not granted at all: Landlock is in force */
		{READ, "outside/plain.txt", NULL, DENIED, 0},
		/* the positive controls, beside them */
		{READ, "proj/README", NULL, 0, 0},
		{WRITE, "proj/README", NULL, 0, 0},
		{READ, "proj/sub/notes.txt", NULL, 0, 0},
		{WRITE, "proj/sub/notes.txt", NULL, 0, 0},
		{CREATE, "proj/src/new.c", NULL, 0, 0},
		{MKDIR, "proj/src/newdir", NULL, 0, 0},
		{UNLINK, "proj/src/main.c", NULL, 0, 0},
	};
	struct report rep;
	struct stat st;

	need_landlock();
	run(LR_ACCESS_RO | LR_ACCESS_RW, true, false, tries, ARRAY_SIZE(tries), &rep);
	cr_assert_eq(rep.stage, ST_DONE, "stage %d: %s", rep.stage, rep.err);
	cr_expect_eq(rep.rc, 0, "the holes' witness: %s", rep.err);
	cr_expect_geq(rep.holes, 6,
		      "%d holes: .env, id_rsa, .git, .mcp.json, tools/hooks, data/token.txt",
		      rep.holes);
	expect_tries(tries, ARRAY_SIZE(tries), &rep);
	/* seen from outside: nothing was left behind */
	cr_expect_neq(stat(tt_path("proj/.git/hooks/pre-commit"), &st), 0);
	cr_expect_neq(stat(tt_path("proj/.git/hooks/post-checkout"), &st), 0);
	cr_expect_eq(stat(tt_path("proj/src/new.c"), &st), 0, "the control was made");
}

Test(carve, a_read_only_grant_around_its_secrets)
{
	struct trial tries[] = {
		{READ, "proj/.env", NULL, DENIED, 0},
		{READ, "proj/sub/id_rsa", NULL, DENIED, 0},
		{READ, "proj/.git/config", NULL, 0, 0},
		{READ, "proj/README", NULL, 0, 0},
		{READ, "proj/sub/notes.txt", NULL, 0, 0},
		{WRITE, "proj/README", NULL, DENIED, 0},
		{CREATE, "proj/src/new.c", NULL, DENIED, 0},
	};
	struct report rep;

	need_landlock();
	run(LR_ACCESS_RO, true, false, tries, ARRAY_SIZE(tries), &rep);
	cr_assert_eq(rep.stage, ST_DONE, "stage %d: %s", rep.stage, rep.err);
	cr_expect_eq(rep.rc, 0, "the holes' witness: %s", rep.err);
	expect_tries(tries, ARRAY_SIZE(tries), &rep);
}

/* The control: the same grant enforced without carving lets the secrets be
 * read and .git be written, and the holes' witness says so. */
Test(carve, uncarved_the_secrets_are_reachable_and_the_witness_says_so)
{
	struct trial tries[] = {
		{READ, "proj/.env", NULL, 0, 0},
		{READ, "proj/sub/id_rsa", NULL, 0, 0},
		{WRITE, "proj/.git/config", NULL, 0, 0},
		{READ, "outside/plain.txt", NULL, DENIED, 0},
	};
	struct report rep;

	need_landlock();
	run(LR_ACCESS_RO | LR_ACCESS_RW, false, true, tries, ARRAY_SIZE(tries), &rep);
	cr_assert_eq(rep.stage, ST_DONE, "stage %d: %s", rep.stage, rep.err);
	expect_tries(tries, ARRAY_SIZE(tries), &rep);
	cr_expect_eq(rep.rc, -EPERM, "the holes' witness: %d", rep.rc);
	cr_expect_not_null(strstr(rep.err, "was not denied"), "%s", rep.err);
}

/* The rules carving makes, before any kernel sees them. */
Test(carve, the_rules_it_makes)
{
	struct lr_policy policy;
	struct lr_plan plan;
	struct lr_fs_rules rules = {0};
	struct lr_holes holes = {0};
	char err[PATH_MAX + 256];
	char proj[PATH_MAX];
	uint64_t file_rw;
	bool saw_readme = false;

	need_landlock();
	snprintf(proj, sizeof(proj), "%s", tt_path("proj"));
	lr_policy_init(&policy);
	cr_assert_eq(lr_policy_add_grant(&policy, proj, LR_ACCESS_RO | LR_ACCESS_RW, "--rw"), 0);
	lr_plan_compute(&policy, &features, &plan);
	file_rw = lr_plan_fs_rights(&plan, LR_ACCESS_RO | LR_ACCESS_RW, false);
	cr_assert_eq(lr_landlock_open_rules(&policy, &plan, &rules, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(lr_scan(&policy, &rules, proj, tt_path("home"), &holes, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(lr_landlock_carve(&rules, &holes, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < holes.n; i++)
		if (lr_path_beneath(holes.v[i].path, proj))
			cr_expect(holes.v[i].carved, "%s not marked carved", holes.v[i].path);
	for (size_t i = 0; i < rules.n; i++) {
		const struct lr_fs_rule *r = &rules.v[i];
		const char *rel = r->realpath + strlen(tt_root);

		cr_expect(r->carved, "%s: not marked carved", rel);
		cr_expect(strcmp(rel, "/proj/.env") && strcmp(rel, "/proj/sub/id_rsa"),
			  "%s: a secret has a rule", rel);
		if (!strcmp(rel, "/proj") || !strcmp(rel, "/proj/sub"))
			cr_expect_eq(r->rights, LANDLOCK_ACCESS_FS_READ_DIR & plan.handled_fs,
				     "%s: %#llx: only listing passes to a secret", rel,
				     (unsigned long long)r->rights);
		if (!strcmp(rel, "/proj/.git") || !strcmp(rel, "/proj/.mcp.json"))
			cr_expect_eq(r->rights & ~(uint64_t)(LANDLOCK_ACCESS_FS_READ_DIR |
							     LANDLOCK_ACCESS_FS_READ_FILE |
							     LANDLOCK_ACCESS_FS_EXECUTE),
				     0, "%s: %#llx: more than reading", rel,
				     (unsigned long long)r->rights);
		if (!strcmp(rel, "/proj/README")) {
			saw_readme = true;
			cr_expect_eq(r->rights & ~file_rw, 0, "README: %#llx: more than granted",
				     (unsigned long long)r->rights);
			cr_expect((r->rights & LANDLOCK_ACCESS_FS_WRITE_FILE) &&
					  (r->rights & LANDLOCK_ACCESS_FS_READ_FILE),
				  "README: %#llx: not readable and writable",
				  (unsigned long long)r->rights);
		}
	}
	cr_expect(saw_readme, "no rule for the file beside the secret");
	lr_holes_free(&holes);
	lr_landlock_rules_free(&rules);
	lr_policy_free(&policy);
}
