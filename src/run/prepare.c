/* SPDX-License-Identifier: MIT */
/*
 * The policy made whole (the profile and the project, --user, the command and
 * the grants it brings), the directories and files it needs made, the grants
 * carved around what must stay out: in the command's process, before any
 * confinement.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "landrun/confine/privdir.h"
#include "landrun/confine/project.h"
#include "landrun/confine/scan.h"
#include "landrun/lib/elf.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/features.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/dotenv.h"
#include "landrun/policy/env.h"
#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/exec.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/sandbox/user.h"
#include "landrun/supervisor/broker.h"
#include "run.h"

void apply_defaults(struct lr_policy *policy)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct lr_opt_error err;

	if (lr_project_defaults(policy, policy->argv[0], cwd, getenv("HOME"), &err) != LR_OPT_RUN)
		lr_die("%s", err.msg);
	/* a container's entrypoint started with -it: the command gets a
	 * terminal of its own, so that a shell's job control works (the
	 * terminal protection denies it the foreground of the user's) */
	if (getpid() == 1 && isatty(STDIN_FILENO))
		policy->pty = true;
	if (policy->outright)
		lr_info("no profile, no project: %s names the system, so the command line says the "
			"whole policy, as the Go landrun's do", policy->outright);
}

void resolve_user(struct lr_policy *policy)
{
	char err[LR_ERR_MAX];

	if (policy->user &&
	    lr_user_resolve(policy->user, LR_PASSWD_FILE, LR_GROUP_FILE, &policy->run_as, err,
			    sizeof(err)) < 0)
		lr_die("%s", err);
}

void check_user(const struct lr_policy *policy, const struct lr_features *features)
{
	const struct lr_run_as *u = &policy->run_as;

	if (!u->set || features->uid0)
		return;
	if (u->uid != features->uid || u->uid != geteuid() ||
	    (u->group_given && (u->gid != features->gid || u->gid != getegid())))
		lr_die("--user %s: only root can run the command as another user (landrun runs as "
		       "uid %u, gid %u)",
		       policy->user, (unsigned)features->uid, (unsigned)features->gid);
}

const struct lr_run_as *maker(const struct lr_policy *policy)
{
	return policy->run_as.set && geteuid() == 0 ? &policy->run_as : NULL;
}

void make_as_user(const struct lr_policy *policy, bool enter)
{
	const struct lr_run_as *u = maker(policy);

	if ((enter ? lr_user_fs_enter(u) : lr_user_fs_leave(u)) < 0)
		lr_die("--user %s: cannot %s the filesystem ids of uid %u", policy->user,
		       enter ? "take" : "give back", u ? (unsigned)u->uid : 0u);
}

static void set_env(struct lr_strlist *env, const char *name, const char *value)
{
	char *s;

	if (asprintf(&s, "%s=%s", name, value) < 0 || lr_strlist_take(env, s) < 0)
		lr_die("out of memory");
}

/* --private-tmp, --private-home: a new directory under /tmp (privdir.c) for
 * what the command would otherwise lack, granted read-write. */
static void make_private_dirs(struct lr_policy *policy, struct lr_strlist *env)
{
	bool tmp = policy->private_tmp && !lr_env_lookup(env->v, "TMPDIR");
	bool home = policy->private_home && !lr_env_lookup(env->v, "HOME");
	const struct lr_run_as *u = maker(policy);
	char err[LR_ERR_MAX], *dir, sub[PATH_MAX];
	int r;

	policy->home_private = home;
	if ((!tmp && !home) || policy->explain != LR_EXPLAIN_NONE)
		return;
	if (lr_privdir_make(tmp, home, u ? u->uid : geteuid(), &dir, err, sizeof(err)) < 0)
		lr_die("--private-%s: %s", tmp ? "tmp" : "home", err);
	policy->origin = tmp ? "--private-tmp" : "--private-home";
	r = lr_policy_add_grant(policy, dir, LR_ACCESS_RO | LR_ACCESS_RW, "--rw");
	policy->origin = NULL;
	if (r < 0)
		lr_die("out of memory");
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "HOME" : "TMPDIR";

		if (!(i ? home : tmp))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, i ? "home" : "tmp");
		set_env(env, name, sub);
		lr_debug("%s=%s (--private-%s)", name, sub, i ? "home" : "tmp");
	}
	free(dir);
}

/* --env-file (dotenv.h): read by landrun itself, strictly, into FILE. */
static void load_env_file(const struct lr_policy *policy, struct lr_kvlist *file)
{
	struct lr_dotenv_error err = { 0 };
	int r;

	if (!policy->env_file)
		return;
	r = lr_dotenv_load(policy->env_file, file, &err);
	if (r == -EINVAL && err.line)
		lr_die("%s:%u: %s", policy->env_file, err.line, err.reason);
	if (r == -EINVAL)
		lr_die("--env-file %s: %s", policy->env_file, err.reason ? err.reason : "invalid");
	if (r == -EFBIG)
		lr_die("--env-file %s: larger than %d bytes", policy->env_file, LR_DOTENV_MAX_SIZE);
	if (r < 0)
		lr_die("--env-file %s: %s", policy->env_file, strerror(-r));
}

void make_env(struct lr_policy *policy, char **caller_env, struct lr_strlist *env)
{
	struct lr_kvlist file_env = { 0 };
	char err[LR_ERR_MAX];

	load_env_file(policy, &file_env);
	if (lr_env_build(policy, caller_env, &file_env, env) < 0)
		lr_die("out of memory");
	if (lr_env_check_tmpdir(env->v, getenv("HOME"), err, sizeof(err)) < 0)
		lr_die("%s", err);
	make_as_user(policy, true);
	make_private_dirs(policy, env);
	make_as_user(policy, false);
	lr_kvlist_free(&file_env);
}

char *resolve_command(const struct lr_policy *policy)
{
	char *path;
	int r;

	if (!policy->argv[0])
		return NULL;
	r = lr_exec_resolve(policy->argv[0], getenv("PATH"), &path);
	if (r == -ENOENT)
		lr_die_status(LR_EXIT_NOT_FOUND, "%s: command not found", policy->argv[0]);
	if (r == -EACCES)
		lr_die_status(LR_EXIT_CANNOT_EXEC, "%s: permission denied (not executable)",
			      policy->argv[0]);
	if (r < 0)
		lr_die("%s: %s", policy->argv[0], strerror(-r));
	return path;
}

void add_command_grants(struct lr_policy *policy, const char *command, const struct lr_strlist *env)
{
	struct lr_strlist deps = { 0 };
	char err[LR_ERR_MAX];
	int r = 0;

	if (!command)
		return;
	if (policy->add_exec)
		r = lr_policy_add_grant(policy, command, LR_ACCESS_RO | LR_ACCESS_X, "--add-exec");
	/* and its installation: the npm package, a script's interpreter */
	if (r == 0 && policy->add_exec)
		r = lr_project_installation(command, getenv("PATH"), &deps);
	policy->origin = "the command's installation (add-exec)";
	for (size_t i = 0; r == 0 && i < deps.n; i++)
		r = lr_policy_add_grant(policy, deps.v[i], LR_ACCESS_RO | LR_ACCESS_X, "--add-exec");
	policy->origin = NULL;
	lr_strlist_free(&deps);
	if (r == 0 && policy->ldd) {
		r = lr_elf_deps(command, lr_env_lookup(env->v, "LD_LIBRARY_PATH"), &deps, err,
				sizeof(err));
		if (r < 0 && r != -ENOMEM)
			lr_die("--ldd: %s", err);
		for (size_t i = 0; r == 0 && i < deps.n; i++) {
			lr_debug("--ldd: %s", deps.v[i]);
			r = lr_policy_add_grant(policy, deps.v[i], LR_ACCESS_RO | LR_ACCESS_X, "--ldd");
		}
	}
	lr_strlist_free(&deps);
	if (r < 0)
		lr_die("out of memory");
}

void make_dirs(struct lr_policy *policy)
{
	char err[LR_ERR_MAX];

	if (policy->explain == LR_EXPLAIN_NONE) {
		if (lr_landlock_make_dirs(policy, err, sizeof(err)) < 0)
			lr_die("%s", err);
		return;
	}
	/* mkdir -p makes the parents too: a grant of one of them is made as well */
	for (size_t i = 0; i < policy->n_grants; i++)
		for (size_t j = 0; j < policy->n_mkdirs; j++)
			if (lr_path_beneath(policy->mkdirs[j], policy->grants[i].path))
				policy->grants[i].to_make = true;
}

void raise_nofile(struct rlimit *saved)
{
	struct rlimit raised;

	if (getrlimit(RLIMIT_NOFILE, saved) < 0)
		lr_die_errno("cannot read the limit of open files");
	raised = *saved;
	raised.rlim_cur = raised.rlim_max;
	if (raised.rlim_cur != saved->rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) < 0)
		lr_debug("cannot raise the limit of open files: %s", strerror(errno));
}

void keep_out(const struct lr_policy *policy, struct lr_fs_rules *rules, struct lr_holes *holes)
{
	_cleanup_free_ char *cwd = NULL;
	char err[LR_ERR_MAX];

	if (policy->unrestricted_fs)
		return;
	cwd = getcwd(NULL, 0);
	if (lr_scan(policy, rules, cwd, getenv("HOME"), holes, err, sizeof(err)) < 0)
		lr_die("%s", err);
	if (lr_landlock_carve(rules, holes, err, sizeof(err)) < 0)
		lr_die("%s", err);
	lr_debug("checked %zu entries for secret files and protected paths; %zu rules",
		 holes->entries, rules->n);
}

void broker_served(struct lr_plan *plan, struct lr_broker *broker)
{
	if (plan->broker && !broker->n_roots) {
		/* (but the connects to the proxy, with no network namespace) */
		plan->broker = plan->broker_connect;
		plan->broker_metadata = false; /* uid 0's chmod: the filter's again */
		plan->rows[LR_PROT_FS_BROKER].requested = false;
	}
	broker->egress_port = plan->broker_connect ? plan->egress_port : 0;
	broker->connect_own = plan->broker_connect_own;
}

void choose_brokered(const struct lr_policy *policy, struct lr_plan *plan,
		     const struct lr_fs_rules *rules, struct lr_broker *broker)
{
	char err[LR_ERR_MAX];

	if (!plan->broker && !(policy->n_allow_domains && !policy->unrestricted_net))
		return;
	if (lr_broker_choose(broker, policy, rules, err, sizeof(err)) < 0)
		lr_die("%s", err);
	broker_served(plan, broker);
}
