/* SPDX-License-Identifier: MIT */
/*
 * The scan (confine/scan.h) over real trees: the secret files and protected
 * paths it reports, the grants it refuses, symlinks it must not follow out
 * of the tree (or around in loops), trees too deep, directories it cannot
 * list.  Each test makes its tree under a fresh temporary directory:
 * proj/ is granted, outside/ is not, home/ is $HOME.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/confine/scan.h"
#include "landrun/lib/util.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/landlock.h"
#include "skip.h"
#include "tmptree.h"

static struct lr_policy policy;
static struct lr_features features;
static struct lr_plan plan;
static struct lr_fs_rules rules;
static struct lr_holes holes;
static char err[PATH_MAX + 512];

static void setup(void)
{
	tt_make();
	tt_dir("proj");
	tt_dir("outside");
	tt_dir("home/.config");
	/* landrun's profile directories (protected in a writable grant) in home/ */
	setenv("HOME", tt_path("home"), 1);
	setenv("XDG_CONFIG_HOME", tt_path("home/.config"), 1);
	lr_policy_init(&policy);
	lr_features_probe(&features);
}

static void teardown(void)
{
	lr_holes_free(&holes);
	lr_landlock_rules_free(&rules);
	lr_policy_free(&policy);
	tt_remove();
}

TestSuite(scan, .init = setup, .fini = teardown);

/* Grant REL of the tree with ACCESS (LR_ACCESS_*). */
static void grant(const char *rel, unsigned access)
{
	cr_assert_eq(lr_policy_add_grant(&policy, tt_path("%s", rel), access,
					 access & LR_ACCESS_RW ? "--rw" : "--ro"),
		     0);
}

/* Open the grants and scan them, with the current directory CWD (relative
 * to the tree; NULL: none).  lr_scan's result. */
static int scan(const char *cwd)
{
	lr_plan_compute(&policy, &features, &plan);
	cr_assert_eq(lr_landlock_open_rules(&policy, &plan, &rules, err, sizeof(err)), 0, "%s",
		     err);
	err[0] = '\0';
	return lr_scan(&policy, &rules, cwd ? tt_path("%s", cwd) : NULL, tt_path("home"), &holes,
		       err, sizeof(err));
}

/* --allow-dotenv REL */
static void allow_dotenv(const char *rel)
{
	char **slot = lr_array_push(&policy.allow_dotenv, &policy.n_allow_dotenv, sizeof(*slot));

	cr_assert_not_null(slot);
	*slot = strdup(tt_path("%s", rel));
	cr_assert_not_null(*slot);
}

static const struct lr_hole *hole(const char *rel)
{
	const char *path = tt_path("%s", rel);

	for (size_t i = 0; i < holes.n; i++)
		if (strcmp(holes.v[i].path, path) == 0)
			return &holes.v[i];
	return NULL;
}

static void expect_hole(const char *rel, enum lr_hole_kind kind)
{
	const struct lr_hole *h = hole(rel);

	cr_expect_not_null(h, "%s is not reported", rel);
	if (h)
		cr_expect_eq(h->kind, kind, "%s: reported as %s", rel,
			     h->kind == LR_HOLE_SECRET ? "a secret" : "protected");
}

static void expect_no_hole(const char *rel)
{
	cr_expect_null(hole(rel), "%s is reported", rel);
}

static bool at_or_beneath(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* How many holes at or beneath REL of the tree. */
static size_t holes_beneath(const char *rel)
{
	const char *dir = tt_path("%s", rel);
	size_t n = 0;

	for (size_t i = 0; i < holes.n; i++)
		n += at_or_beneath(holes.v[i].path, dir);
	return n;
}

/* No hole at or beneath REL of the tree. */
static void expect_none_beneath(const char *rel)
{
	const char *dir = tt_path("%s", rel);

	for (size_t i = 0; i < holes.n; i++)
		cr_expect(!at_or_beneath(holes.v[i].path, dir), "%s reported, beneath %s",
			  holes.v[i].path, rel);
}

Test(scan, secret_files_at_any_depth)
{
	tt_file("proj/.env", "A=1\n");
	tt_file("proj/.npmrc", "//registry/:_authToken=x\n");
	tt_file("proj/sub/id_rsa", "KEY\n");
	tt_file("proj/sub/deep/er/still/.env.local", "B=2\n");
	tt_file("proj/.aws/credentials", "k\n");
	/* the same names, but public or templates, and a directory named .env */
	tt_file("proj/.env.example", "A=\n");
	tt_file("proj/sub/id_rsa.pub", "ssh-rsa\n");
	tt_file("proj/README", "hello\n");
	tt_file("proj/credentials", "not in .aws\n");
	tt_dir("proj/dir/.env");
	grant("proj", LR_ACCESS_RO);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("proj/.env", LR_HOLE_SECRET);
	expect_hole("proj/.npmrc", LR_HOLE_SECRET);
	expect_hole("proj/sub/id_rsa", LR_HOLE_SECRET);
	expect_hole("proj/sub/deep/er/still/.env.local", LR_HOLE_SECRET);
	expect_hole("proj/.aws/credentials", LR_HOLE_SECRET);
	expect_no_hole("proj/.env.example");
	expect_no_hole("proj/sub/id_rsa.pub");
	expect_no_hole("proj/README");
	expect_no_hole("proj/credentials");
	expect_no_hole("proj/dir/.env");
	cr_expect_eq(holes_beneath("proj"), 5);
	cr_expect_eq(holes.n, 5, "a read-only grant: nothing else");
	cr_expect_eq(holes.entries, 16, "entries looked at: %zu", holes.entries);
}

Test(scan, protected_paths_in_a_writable_grant)
{
	tt_file("proj/.git/HEAD", "ref: refs/heads/main\n");
	tt_file("proj/.git/config", "[core]\n\thooksPath = tools/hooks\n");
	tt_dir("proj/tools");
	tt_file("proj/sub/.git/HEAD", "ref: refs/heads/main\n");
	tt_file("proj/sub/.git/config", "");
	tt_file("proj/.husky/pre-commit", "echo\n");
	tt_file("proj/.claude/settings.json", "{}\n");
	tt_file("proj/.claude/.env", "C=3\n");
	tt_file("proj/src/main.c", "int main;\n");
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan("proj"), 0, "%s", err);
	expect_hole("proj/.git", LR_HOLE_PROTECTED);
	expect_hole("proj/sub/.git", LR_HOLE_PROTECTED);
	expect_hole("proj/.husky", LR_HOLE_PROTECTED);
	expect_hole("proj/.claude", LR_HOLE_PROTECTED);
	/* the repository's hooks path, which does not exist yet */
	expect_hole("proj/tools/hooks", LR_HOLE_PROTECTED);
	/* a protected directory is walked on for secrets */
	expect_hole("proj/.claude/.env", LR_HOLE_SECRET);
	expect_no_hole("proj/src");
	expect_no_hole("proj/src/main.c");
	expect_no_hole("proj/.git/config");
	expect_no_hole("proj");
}

Test(scan, a_bare_repository_by_another_name)
{
	tt_file("proj/mirror/HEAD", "ref: refs/heads/main\n");
	tt_file("proj/mirror/config", "[core]\n\tbare = true\n");
	tt_dir("proj/mirror/objects");
	tt_dir("proj/mirror/refs");
	/* three of the four: not a git directory */
	tt_file("proj/almost/HEAD", "x\n");
	tt_file("proj/almost/config", "x\n");
	tt_dir("proj/almost/refs");
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("proj/mirror", LR_HOLE_PROTECTED);
	expect_no_hole("proj/almost");
}

Test(scan, generated_directories_are_not_walked)
{
	tt_file("proj/node_modules/pkg/.env", "X=1\n");
	tt_file("proj/__pycache__/.env", "X=1\n");
	tt_file("proj/pkg/node_modules_not/.env", "X=1\n");
	grant("proj", LR_ACCESS_RO);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_none_beneath("proj/node_modules");
	expect_none_beneath("proj/__pycache__");
	expect_hole("proj/pkg/node_modules_not/.env", LR_HOLE_SECRET);
}

Test(scan, refuses_a_grant_of_a_secret_file)
{
	tt_file("proj/.env", "A=1\n");
	grant("proj/.env", LR_ACCESS_RO);

	cr_expect_eq(scan(NULL), -EACCES);
	cr_expect_not_null(strstr(err, "--allow-dotenv"), "%s", err);
	cr_expect_not_null(strstr(err, tt_path("proj/.env")), "%s", err);
}

Test(scan, refuses_a_writable_grant_inside_git)
{
	tt_file("proj/.git/hooks/pre-commit", "echo\n");
	grant("proj/.git/hooks", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_expect_eq(scan(NULL), -EACCES);
	cr_expect_not_null(strstr(err, "lies inside"), "%s", err);
	cr_expect_not_null(strstr(err, "--allow-protected"), "%s", err);
}

Test(scan, read_only_inside_git_is_fine)
{
	tt_file("proj/.git/hooks/pre-commit", "echo\n");
	grant("proj/.git/hooks", LR_ACCESS_RO);

	cr_expect_eq(scan(NULL), 0, "%s", err);
}

Test(scan, what_the_user_accepts_is_no_hole)
{
	tt_file("proj/.env", "A=1\n");
	tt_file("proj/keys/id_rsa", "K\n");
	tt_file("proj/keys/server.key", "K\n");
	tt_file("proj/.npmrc", "t\n");
	grant("proj", LR_ACCESS_RO);
	allow_dotenv("proj/keys");
	allow_dotenv("proj/.env");

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_none_beneath("proj/keys");
	expect_no_hole("proj/.env");
	expect_hole("proj/.npmrc", LR_HOLE_SECRET);
}

Test(scan, symlinks_out_of_the_tree_are_not_followed)
{
	/* outside/ holds everything the scan would report, if it went there */
	tt_file("outside/.env", "O=1\n");
	tt_file("outside/id_rsa", "K\n");
	tt_file("outside/repo/.git/HEAD", "ref: refs/heads/main\n");
	tt_file("outside/repo/.husky/x", "\n");
	tt_dir("proj/deeper");
	tt_link(tt_path("outside"), "proj/out");
	tt_link("../../outside", "proj/deeper/rel");
	tt_link(tt_path("outside/repo"), "proj/repo");
	tt_file("proj/.env", "P=1\n");
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_none_beneath("outside");
	expect_hole("proj/.env", LR_HOLE_SECRET);
	cr_expect_lt(holes.entries, 10, "entries looked at: %zu", holes.entries);

	/* the control: granted, outside/ is reported */
	lr_holes_free(&holes);
	lr_landlock_rules_free(&rules);
	grant("outside", LR_ACCESS_RO | LR_ACCESS_RW);
	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("outside/.env", LR_HOLE_SECRET);
	expect_hole("outside/repo/.git", LR_HOLE_PROTECTED);
}

Test(scan, a_symlink_named_like_a_secret_is_its_target)
{
	tt_file("outside/plain.txt", "token\n");
	tt_dir("outside/adir");
	tt_file("proj/.githooks-target/x", "\n");
	tt_link(tt_path("outside/plain.txt"), "proj/.env");
	tt_link("../outside/adir", "proj/.npmrc");     /* a directory: nothing to read */
	tt_link("nowhere", "proj/id_rsa");	       /* dangling */
	tt_link(".githooks-target", "proj/.githooks"); /* protected: its target is */
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("outside/plain.txt", LR_HOLE_SECRET);
	expect_no_hole("proj/.env");
	expect_none_beneath("outside/adir");
	expect_no_hole("proj/.npmrc");
	expect_no_hole("proj/id_rsa");
	expect_hole("proj/.githooks-target", LR_HOLE_PROTECTED);
}

Test(scan, symlink_loops_end)
{
	tt_file("proj/sub/.env", "A=1\n");
	tt_link(".", "proj/self");
	tt_link("..", "proj/sub/up");
	tt_link("b", "proj/a");
	tt_link("a", "proj/b");
	tt_link("loop/.env", "proj/loop");
	tt_link("sub/.env-loop", "proj/sub/.env-loop");
	tt_link(".env.x", "proj/.env.x"); /* a secret's name, pointing at itself */
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("proj/sub/.env", LR_HOLE_SECRET);
	cr_expect_eq(holes_beneath("proj"), 1);
	cr_expect_lt(holes.entries, 20, "entries looked at: %zu", holes.entries);
}

/* A chain of DEPTH directories "d" under proj/, with a .env at the bottom. */
static void deep_chain(int depth)
{
	int fd = open(tt_path("proj"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	for (int i = 0; i < depth; i++) {
		int next;

		cr_assert_eq(mkdirat(fd, "d", 0755), 0, "depth %d: %s", i, strerror(errno));
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert_geq(next, 0);
		close(fd);
		fd = next;
	}
	close(openat(fd, ".env", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	close(fd);
}

Test(scan, a_deep_tree_is_walked_to_the_bottom)
{
	char rel[PATH_MAX] = "proj";

	deep_chain(300);
	for (int i = 0; i < 300; i++)
		strcat(rel, "/d");
	strcat(rel, "/.env");
	grant("proj", LR_ACCESS_RO);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole(rel, LR_HOLE_SECRET);
}

Test(scan, a_tree_too_deep_fails_closed)
{
	deep_chain(600);
	grant("proj", LR_ACCESS_RO);

	cr_expect_eq(scan(NULL), -ELOOP);
	cr_expect_not_null(strstr(err, "nested more than 512 deep"), "%s", err);
}

/* As root, become nobody (the test's own process): file permissions bind. */
static void as_nobody(void)
{
	if (geteuid() != 0)
		return;
	cr_assert_eq(tt_chown(65534, 65534), 0, "chown: %s", strerror(errno));
	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		lr_skip_test(false,
			     "root, and cannot become nobody to make a directory "
			     "unreadable: %s",
			     strerror(errno));
}

Test(scan, a_directory_it_may_enter_but_not_list_fails_closed)
{
	as_nobody();
	tt_file("proj/locked/.env", "A=1\n");
	cr_assert_eq(chmod(tt_path("proj/locked"), 0111), 0);
	grant("proj", LR_ACCESS_RO);

	cr_expect_eq(scan(NULL), -EACCES);
	cr_expect_not_null(strstr(err, "can be entered but not read"), "%s", err);
	cr_expect_not_null(strstr(err, tt_path("proj/locked")), "%s", err);
	chmod(tt_path("proj/locked"), 0755);
}

Test(scan, a_directory_nobody_may_enter_is_skipped)
{
	as_nobody();
	tt_file("proj/sealed/.env", "A=1\n");
	tt_file("proj/.env", "B=1\n");
	cr_assert_eq(chmod(tt_path("proj/sealed"), 0), 0);
	grant("proj", LR_ACCESS_RO);

	cr_expect_eq(scan(NULL), 0, "%s", err);
	expect_hole("proj/.env", LR_HOLE_SECRET);
	chmod(tt_path("proj/sealed"), 0755);
}

Test(scan, the_project_of_the_current_directory_however_high_the_grant)
{
	/* the grant is the tree's root, the current directory a project in it
	 * beneath a directory the walk does not enter */
	tt_file("proj/node_modules/app/.git/HEAD", "ref: refs/heads/main\n");
	tt_file("proj/node_modules/app/.env", "A=1\n");
	tt_dir("proj/node_modules/app/src");
	grant("proj", LR_ACCESS_RO | LR_ACCESS_RW);

	cr_assert_eq(scan("proj/node_modules/app/src"), 0, "%s", err);
	expect_hole("proj/node_modules/app/.env", LR_HOLE_SECRET);
	expect_hole("proj/node_modules/app/.git", LR_HOLE_PROTECTED);
}

Test(scan, the_env_file_is_a_hole_wherever_it_is)
{
	tt_file("proj/config/prod.vars", "A=1\n");
	grant("proj", LR_ACCESS_RO);
	policy.env_file = strdup(tt_path("proj/config/prod.vars"));
	cr_assert_not_null(policy.env_file);

	cr_assert_eq(scan(NULL), 0, "%s", err);
	expect_hole("proj/config/prod.vars", LR_HOLE_SECRET);
}
