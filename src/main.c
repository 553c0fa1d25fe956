/* SPDX-License-Identifier: MIT */
/*
 * landrun: confine a command with Landlock and seccomp, give it an empty
 * environment, and exec it in place.  This file is the order of events; each
 * step is a call into a module.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "landrun/confine/caps.h"
#include "landrun/confine/exec.h"
#include "landrun/confine/landlock.h"
#include "landrun/confine/privdir.h"
#include "landrun/confine/project.h"
#include "landrun/confine/scan.h"
#include "landrun/confine/seccomp.h"
#include "landrun/confine/user.h"
#include "landrun/egress/egress.h"
#include "landrun/lib/elf.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/dotenv.h"
#include "landrun/policy/env.h"
#include "landrun/supervisor/audit.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/learn.h"
#include "landrun/supervisor/supervise.h"
#include "landrun/supervisor/trace.h"

extern char **environ;

static void parse_args(int argc, char **argv, struct lr_policy *policy)
{
	struct lr_opt_error err;
	const char *env;

	switch (lr_cli_parse(argc, argv, policy, &err)) {
	case LR_OPT_RUN:
		break;
	case LR_OPT_SHOW_HELP:
		fputs(lr_cli_usage, stdout);
		exit(fflush(stdout) == 0 ? 0 : LR_EXIT_FAILURE);
	case LR_OPT_SHOW_VERSION:
		printf("landrun %s\n", LR_VERSION);
		exit(fflush(stdout) == 0 ? 0 : LR_EXIT_FAILURE);
	case LR_OPT_ERROR:
		lr_die("%s", err.msg);
	}
	env = getenv("LANDRUN_ON_UNSUPPORTED");
	if (!policy->on_unsupported_set && env &&
	    lr_option_parse_on_unsupported(env, &policy->on_unsupported) < 0)
		lr_die("LANDRUN_ON_UNSUPPORTED: '%s' is not one of error, warn, ignore", env);
	env = getenv("LANDRUN_LOG_LEVEL");
	if (!policy->log_level_set && env && lr_option_parse_log_level(env, &policy->log_level) < 0)
		lr_die("LANDRUN_LOG_LEVEL: '%s' is not one of error, notice, info, debug", env);
	lr_log_set_level(policy->log_level);
}

/* The command's profile and its project, with what the command line adds
 * (project.c). */
static void apply_defaults(struct lr_policy *policy)
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

/* --user: names looked up now, the switch made in confine(). */
static void resolve_user(struct lr_policy *policy)
{
	char err[512];

	if (policy->user &&
	    lr_user_resolve(policy->user, LR_PASSWD_FILE, LR_GROUP_FILE, &policy->run_as, err,
			    sizeof(err)) < 0)
		lr_die("%s", err);
}

/* Without root, --user may only name the caller. */
static void check_user(const struct lr_policy *policy, const struct lr_features *features)
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

/* The user the command will become, while landrun (as root) makes its
 * directories, or NULL: they are made as that user, and are the command's. */
static const struct lr_run_as *maker(const struct lr_policy *policy)
{
	return policy->run_as.set && geteuid() == 0 ? &policy->run_as : NULL;
}

static void make_as_user(const struct lr_policy *policy, bool enter)
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
	char err[512], *dir, sub[PATH_MAX];
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

/* The command, looked up in the caller's PATH (what the user typing it expects). */
static char *resolve_command(const struct lr_policy *policy)
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

/* --add-exec and --ldd: grants derived from the command itself. */
static void add_command_grants(struct lr_policy *policy, const char *command,
			       const struct lr_strlist *env)
{
	struct lr_strlist deps = { 0 };
	char err[512];
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

/* The fallback policy: refuse, warn, or stay silent about lost protections. */
static void decide(const struct lr_policy *policy, const struct lr_plan *plan, const char *when)
{
	unsigned lost = lr_plan_count_lost(plan);

	if (!lost || policy->on_unsupported == LR_UNSUPPORTED_IGNORE)
		return;
	for (int p = 0; p < LR_PROT_COUNT; p++) {
		const struct lr_prot_info *info = lr_prot_info(p);
		char why[512];
		const char *needs = lr_plan_lost_why(plan, p, why, sizeof(why));

		if (!lr_plan_is_lost(plan, p))
			continue;
		if (policy->on_unsupported == LR_UNSUPPORTED_ERROR)
			fprintf(stderr, "landrun: cannot enforce %s (%s): needs %s\n", info->id,
				info->what, needs);
		else
			lr_warn("not enforced%s: %s (%s): needs %s", when, info->id, info->what,
				needs);
	}
	if (policy->on_unsupported == LR_UNSUPPORTED_ERROR)
		lr_die("refusing to run: %u protection%s cannot be enforced on this kernel "
		       "(--on-unsupported=error)",
		       lost, lost == 1 ? "" : "s");
}

/* After restrict_self: prove that Landlock is in force before trusting it. */
static void check_witness(const struct lr_policy *policy, struct lr_plan *plan,
			  const struct lr_witness *w)
{
	int r;

	if (!w->path) {
		lr_debug("witness: the policy lets the command list every candidate directory");
		return;
	}
	r = lr_landlock_witness_check(w);
	if (r == 0) {
		lr_debug("witness: listing %s is denied, Landlock is in force", w->path);
		return;
	}
	if (r == -EPERM)
		lr_warn("witness: listing %s was not denied: Landlock is not in force", w->path);
	else
		lr_warn("witness: checking %s failed: %s", w->path, strerror(-r));
	lr_plan_lose_layer(plan, LR_LAYER_LANDLOCK);
	decide(policy, plan, " (witness)");
}

static void check_seccomp_witness(const struct lr_policy *policy, struct lr_plan *plan)
{
	int r = lr_seccomp_witness_check();

	if (r == 0) {
		lr_debug("witness: unshare(0) is denied, the seccomp filter is in force");
		return;
	}
	lr_warn("witness: unshare(0) was not denied: the seccomp filter is not in force");
	lr_plan_lose_layer(plan, LR_LAYER_SECCOMP);
	decide(policy, plan, " (witness)");
}

/* After restrict_self: what the grants were carved around must be closed. */
static void check_holes(const struct lr_policy *policy, struct lr_plan *plan,
			const struct lr_holes *holes)
{
	char err[PATH_MAX + 128];

	if (lr_landlock_holes_check(holes, err, sizeof(err)) == 0)
		return;
	lr_warn("witness: %s", err);
	plan->rows[LR_PROT_FS_SECRETS].layer = LR_LAYER_NONE;
	plan->rows[LR_PROT_FS_PROTECTED].layer = LR_LAYER_NONE;
	decide(policy, plan, " (witness)");
}

/*
 * The first half, before the handshake with a supervisor: privileges given
 * up, no_new_privs, and with a broker its outer domain entered and the
 * broker started (broker.h), so that the supervisor learns of it.
 */
static void confine_outer(const struct lr_policy *policy, struct lr_plan *plan,
			  struct lr_fs_rules *rules, struct lr_broker *broker)
{
	char err[PATH_MAX + 256];
	pid_t before = getpid();
	int r;

	if (lr_user_drop_privileges(&policy->run_as, plan->switch_user, err, sizeof(err)) < 0)
		lr_die("%s", err);
	r = lr_caps_no_new_privs();
	if (r < 0)
		lr_die("cannot set no_new_privs: %s", strerror(-r));
	if (plan->broker && lr_broker_start(broker, plan, policy, rules, err, sizeof(err)) < 0)
		lr_die("%s", err);
	/* the broker stayed as the command's parent: the child is the
	 * command, whose /proc/self is its own */
	if (plan->broker && broker->as_parent &&
	    lr_landlock_rules_follow_pid(rules, before, getpid(), err, sizeof(err)) < 0)
		lr_die("%s", err);
}

/* The rest: Landlock, the descriptors, the limits, seccomp last. */
static void confine(const struct lr_policy *policy, struct lr_plan *plan,
		    const struct lr_fs_rules *rules, const struct lr_holes *holes,
		    const struct rlimit *nofile, const struct lr_witness *witness,
		    struct lr_broker *broker)
{
	char err[PATH_MAX + 256];
	int bad_fd = -1, bad_limit = 0, r, *keep;

	if (plan->handled_fs || plan->handled_net || plan->scoped) {
		/* the broker's opener has the command's ruleset made already
		 * (from the same plan and rules: nothing changed them since) */
		if (broker->domain >= 0) {
			r = lr_landlock_enforce_ruleset(broker->domain, plan->restrict_flags, err,
							sizeof(err));
			close(broker->domain);
			broker->domain = -1;
		} else {
			r = lr_landlock_enforce(plan, policy, rules, err, sizeof(err));
		}
		if (r < 0)
			lr_die("%s", err);
		check_witness(policy, plan, witness);
		check_holes(policy, plan, holes);
	}

	/* last: the rule fds above are ours too, and an inherited fd to a
	 * secret must not survive into the sandbox (the broker's socket
	 * stays until the filter is handed over) */
	keep = calloc(policy->n_keep_fds + 1, sizeof(*keep));
	if (!keep)
		lr_die("out of memory");
	if (policy->n_keep_fds)
		memcpy(keep, policy->keep_fds, policy->n_keep_fds * sizeof(*keep));
	if (broker->sock >= 0)
		keep[policy->n_keep_fds] = broker->sock;
	r = lr_exec_close_fds(keep, policy->n_keep_fds + (broker->sock >= 0), &bad_fd);
	free(keep);
	if (r == -EBADF)
		lr_die("--keep-fd %d: not an open file descriptor", bad_fd);
	if (r < 0)
		lr_die("cannot close inherited file descriptors: %s", strerror(-r));
	/* (unless it was the hard one already: raise_nofile changed nothing) */
	if (nofile->rlim_cur != nofile->rlim_max && setrlimit(RLIMIT_NOFILE, nofile) < 0)
		lr_die_errno("cannot restore the limit of open files");
	/* after that: --rlimit-nofile wins */
	r = lr_exec_set_limits(policy->limits, &bad_limit);
	if (r < 0)
		lr_die("--%s: cannot set the limit: %s%s",
		       lr_option_get(LR_OPT_RLIMIT_AS + bad_limit)->name, strerror(-r),
		       r == -EPERM ? " (above the hard limit)" : "");

	/* last: compiled at build time for this plan */
	if (plan->seccomp) {
		r = lr_seccomp_load_prebuilt(plan, err, sizeof(err));
		if (r < 0)
			lr_die("%s", err);
		check_seccomp_witness(policy, plan);
	}
	/* the broker's filter, and its witness: without it, what it would
	 * serve fails (ENOSYS), so the command does not run */
	if (plan->broker && lr_broker_hand_over(broker, err, sizeof(err)) < 0)
		lr_die("%s", err);
	if (plan->broker && lr_broker_holes_check(broker, err, sizeof(err)) < 0) {
		lr_warn("witness: %s", err);
		plan->rows[LR_PROT_FS_SECRETS].layer = LR_LAYER_NONE;
		decide(policy, plan, " (witness)");
	}
	/* after the witness, so that the tracer sees the command alone */
	if (policy->report_denials && (r = lr_seccomp_load_trace(plan, err, sizeof(err))) < 0)
		lr_die("%s", err);
}

static noreturn void run(const struct lr_policy *policy, const char *command, char **envp)
{
	int e;

	if (!command) /* lr_cli_parse asks for one unless --explain */
		lr_die("no COMMAND to run (see --help)");
	execve(command, policy->argv, envp);
	e = errno;
	/* it was found before: ENOENT now means its interpreter is missing */
	if (e == ENOENT)
		lr_die_status(LR_EXIT_CANNOT_EXEC, "%s: cannot execute: %s (is its interpreter "
				 "missing?)",
			      command, strerror(e));
	if (e == EACCES)
		lr_die_status(LR_EXIT_CANNOT_EXEC, "%s: cannot execute: %s (execute access to the "
				 "binary, its interpreter or its libraries may be missing: see --rox, "
				 "--add-exec, --ldd)",
			      command, strerror(e));
	lr_die_status(LR_EXIT_CANNOT_EXEC, "%s: cannot execute: %s", command, strerror(e));
}

/* --mkdir, before the grants are opened.  --explain changes nothing: there,
 * a directory it would create is just absent. */
static void make_dirs(struct lr_policy *policy)
{
	char err[512];

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

/* A carved grant holds one descriptor for each entry beside a hole until the
 * ruleset is made: the soft limit of open files goes up to the hard one
 * meanwhile, and back down for the command.  SAVED is what to restore. */
static void raise_nofile(struct rlimit *saved)
{
	struct rlimit raised;

	if (getrlimit(RLIMIT_NOFILE, saved) < 0)
		lr_die_errno("cannot read the limit of open files");
	raised = *saved;
	raised.rlim_cur = raised.rlim_max;
	if (raised.rlim_cur != saved->rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) < 0)
		lr_debug("cannot raise the limit of open files: %s", strerror(errno));
}

/* The path as the user will recognise it: relative to the current directory
 * when beneath it. */
static const char *shown(const char *path, const char *cwd)
{
	size_t n = cwd ? strlen(cwd) : 0;

	if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* A list in a notice, "a, b, c, d and 3 more": item N (from 0) of it, TEXT,
 * appended to OUT if it is one of the first four; then, after the last,
 * how many more there were of TOTAL. */
static void list_item(struct lr_buf *out, size_t n, const char *text)
{
	if (n < 4 && ((n && lr_buf_add(out, ", ", 2) < 0) || lr_buf_add(out, text, strlen(text)) < 0))
		lr_die("out of memory");
}

static void list_end(struct lr_buf *out, size_t total)
{
	char more[32];

	if (total <= 4)
		return;
	snprintf(more, sizeof(more), " and %zu more", total - 4);
	if (lr_buf_add(out, more, strlen(more)) < 0)
		lr_die("out of memory");
}

/* Append the carved holes of KIND to OUT ("a, b and 3 more"); false if none. */
static bool list_holes(const struct lr_holes *holes, enum lr_hole_kind kind, const char *cwd,
		       struct lr_buf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < holes->n; i++) {
		const struct lr_hole *h = &holes->v[i];

		if (h->carved && h->kind == kind)
			list_item(out, n++, shown(h->path, cwd));
	}
	list_end(out, n);
	return n > 0;
}

static void add_part(struct lr_buf *line, const char *text)
{
	if ((line->len && lr_buf_add(line, "; ", 2) < 0) || lr_buf_add(line, text, strlen(text)) < 0)
		lr_die("out of memory");
}

/* One line at the default log level: the project and profile landrun chose,
 * and what it kept out of the grants. */
static void tell(const struct lr_policy *policy, const struct lr_holes *holes)
{
	static const struct {
		enum lr_hole_kind kind;
		const char *head, *tail;
	} kinds[] = {
		{ LR_HOLE_SECRET, "kept out: ", " (secret files)" },
		{ LR_HOLE_PROTECTED, "read-only: ", " (code there runs outside the sandbox later)" },
	};
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct lr_buf line = { 0 };
	bool carved = false;

	_cleanup_free_ char *chosen = lr_project_describe(policy);

	if (chosen)
		add_part(&line, chosen);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		struct lr_buf list = { 0 };

		if (list_holes(holes, kinds[k].kind, cwd, &list)) {
			if (lr_buf_add(&list, kinds[k].tail, strlen(kinds[k].tail)) < 0)
				lr_die("out of memory");
			add_part(&line, kinds[k].head);
			if (lr_buf_add(&line, list.s, list.len) < 0)
				lr_die("out of memory");
			carved = true;
		}
		free(list.s);
	}
	if (carved)
		add_part(&line, "see --explain");
	if (line.len)
		lr_notice("%s", line.s);
	free(line.s);
}

/* With --allow-domain, one line more: where the command's network leads,
 * and how to add to it (a model that does not answer is what a harness's
 * user meets first). */
static void tell_network(const struct lr_policy *policy)
{
	struct lr_buf line = { 0 };
	char text[300];

	if (!policy->n_allow_domains)
		return;
	add_part(&line, "network: only through landrun's proxy, to ");
	for (size_t i = 0; i < policy->n_allow_domains && i < 4; i++)
		list_item(&line, i, lr_egress_dest_text(&policy->allow_domains[i], text, sizeof(text)));
	list_end(&line, policy->n_allow_domains);
	for (size_t i = 0; i < policy->n_connect_tcp; i++) {
		const struct lr_port_range *r = &policy->connect_tcp[i];

		if (r->first == r->last)
			snprintf(text, sizeof(text), "%s%u", i ? "," : ", and the host's 127.0.0.1 port ",
				 r->first);
		else
			snprintf(text, sizeof(text), "%s%u-%u",
				 i ? "," : ", and the host's 127.0.0.1 ports ", r->first, r->last);
		if (lr_buf_add(&line, text, strlen(text)) < 0)
			lr_die("out of memory");
	}
	add_part(&line, "add a host: --allow-domain NAME; a local model: --connect-tcp PORT");
	lr_notice("%s", line.s);
	free(line.s);
}

/* Secrets and protected paths inside the grants: found, then carved around. */
static void keep_out(const struct lr_policy *policy, struct lr_fs_rules *rules,
		     struct lr_holes *holes)
{
	_cleanup_free_ char *cwd = NULL;
	char err[PATH_MAX + 512];

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

/* The plan (computed again by egress()) knows of no grant to broker until
 * they are opened: none is no protection asked for. */
static void broker_served(struct lr_plan *plan, struct lr_broker *broker)
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

/* A supervised run: the supervisor's state, and the child's link to it. */
struct lifetime {
	struct lr_supervisor sv;
	struct lr_audit audit;
	struct lr_tracer tracer;	/* --report-denials */
	struct lr_learn_context learn;
	int learn_fd;			/* --learn FILE, or -1 */
	int told[2];			/* --report-denials: what the broker tells the
					 * supervisor (broker.h): [0] the supervisor's end,
					 * [1] the broker's; -1 where not */
	pid_t egress_helper;		/* --allow-domain: the helper, once started */
	/* the child's, for the handshake */
	char *started;			/* the audit log's record */
	int fds[LR_SUPERVISE_MAX_FDS];	/* audit log, --learn file, own processes' pidfds */
	size_t n_fds;
};

/* The private HOME's line: what the command looked for there, in vain.
 * Told when the caller's HOME has one of them; else at --log-level info. */
static void report_home(const struct lr_policy *policy, struct lifetime *life)
{
	const struct lr_tracer *t = &life->tracer;
	const char *home = life->learn.home;
	_cleanup_free_ char *line = NULL;
	bool *yours;
	bool any = false;

	if (!t->home_missing.n)
		return;
	yours = calloc(t->home_missing.n, sizeof(*yours));
	if (!yours) {
		lr_warn("--report-denials: out of memory");
		return;
	}
	for (size_t i = 0; home && i < t->home_missing.n; i++) {
		_cleanup_free_ char *mine = NULL;
		struct stat st;

		/* "~/REST": REST in the caller's HOME (the tracer has the command's ids) */
		if (asprintf(&mine, "%s%s", home, t->home_missing.v[i] + 1) >= 0 &&
		    stat(mine, &st) == 0)
			any = yours[i] = true;
	}
	line = lr_learn_home_line(t->home_missing.v, t->home_missing.n, t->n_home_missing, yours,
				  home);
	free(yours);
	if (!line)
		lr_warn("--report-denials: out of memory");
	else if (any || policy->log_level >= LR_LOG_INFO)
		fprintf(stderr, "landrun: %s\n", line);
}

/* What the broker told the supervisor (it is gone, or its calls done:
 * each was queued before the call it tells of returned). */
static void drain_told(struct lifetime *life)
{
	_Alignas(struct lr_broker_told) char buf[sizeof(struct lr_broker_told) + PATH_MAX];
	ssize_t n;
	int r;

	if (life->told[0] < 0)
		return;
	while ((n = recv(life->told[0], buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC)) > 0) {
		if ((size_t)n > sizeof(buf))
			continue; /* none is longer: not the broker's */
		r = lr_trace_told(&life->tracer, buf, (size_t)n);
		if (r == -ENOMEM && !life->tracer.error)
			life->tracer.error = r;
	}
	close(life->told[0]);
	life->told[0] = -1;
}

/* --report-denials, --learn: what the command was denied, after the run:
 * the likely cause first when it FAILED (with STATUS), the probes that
 * programs do without last, in one line (each at --log-level info). */
static void report_denials(const struct lr_policy *policy, struct lifetime *life, bool failed,
			   int status)
{
	const struct lr_denials *all = &life->tracer.denials;
	struct lr_advice *advice;
	bool *probe;
	size_t *order;
	struct lr_buf probes = { 0 };
	size_t settings = 0, real = 0, n_probes = 0, advised = 0;
	unsigned long n_lookups = 0;
	int r;

	drain_told(life);
	advice = calloc(all->n + 1, sizeof(*advice));
	probe = calloc(all->n + 1, sizeof(*probe));
	order = calloc(all->n + 1, sizeof(*order));
	r = life->tracer.error;
	if (!advice || !probe || !order)
		r = -ENOMEM;
	for (; r == 0 && advised < all->n; advised++)
		if ((r = lr_learn_advise(&all->v[advised], &life->learn, &advice[advised])) < 0)
			break;
	if (r == 0) {
		lr_learn_mark_lookups(all, advice);
		for (size_t i = 0; i < all->n; i++)
			probe[i] = advice[i].probe;
		real = lr_learn_report_order(all, probe, failed, order);
	}
	if (r == 0 && failed && real > 1)
		fprintf(stderr, "landrun: the command failed (status %d): its last denial first\n",
			status);
	for (size_t k = 0; r == 0 && k < all->n; k++) {
		const struct lr_denial *d = &all->v[order[k]];
		const struct lr_advice *a = &advice[order[k]];
		_cleanup_free_ char *line = NULL, *record = NULL, *what = NULL;

		line = lr_learn_report_line(d, a);
		if (life->audit.fd >= 0)
			record = lr_audit_denied(&life->audit, d, a);
		if (!line || (life->audit.fd >= 0 && !record)) {
			r = -ENOMEM;
			break;
		}
		if (k < real || policy->log_level >= LR_LOG_INFO) {
			fprintf(stderr, "landrun: %s\n", line);
		} else if (a->lookup) {
			n_lookups += d->count;
		} else if (n_probes++ < 3) {
			/* the command's paths: escaped */
			what = lr_denial_what(d);
			if (!what || lr_buf_add(&probes, n_probes > 1 ? ", " : "", n_probes > 1 ? 2 : 0) < 0 ||
			    lr_buf_add(&probes, what, strlen(what)) < 0)
				r = -ENOMEM;
		}
		if (record && lr_audit_write(&life->audit, record) < 0)
			lr_warn("--audit-log %s: cannot write a denial", policy->audit_log);
	}
	if (r == 0 && n_probes) {
		_cleanup_free_ char *list = lr_escape_dup(probes.s ? probes.s : "");

		if (!list)
			r = -ENOMEM;
		else
			fprintf(stderr, "landrun: and %zu probe%s that programs do without (%s%s): "
					"not needed; --log-level info shows %s\n",
				n_probes, n_probes == 1 ? "" : "s", list, n_probes > 3 ? ", ..." : "",
				n_probes == 1 ? "it" : "them");
	}
	if (r == 0 && n_lookups)
		fprintf(stderr, "landrun: and %lu denial%s of a host name's lookup (DNS: the "
				"nameservers in /etc/resolv.conf, a UDP socket, nscd's): a lookup "
				"needs the network; --unrestricted-network --ro /etc/resolv.conf "
				"allows it, or --allow-domain NAME (landrun's proxy resolves the "
				"names it allows); --log-level info shows %s\n",
			n_lookups, n_lookups == 1 ? "" : "s", n_lookups == 1 ? "it" : "them");
	free(probes.s);
	for (size_t i = 0; advice && i < advised; i++)
		lr_advice_free(&advice[i]);
	free(advice);
	free(probe);
	free(order);
	if (r < 0)
		lr_warn("--report-denials: %s: the report is short", strerror(-r));
	if (all->dropped)
		lr_warn("--report-denials: and %lu more denials, not kept", all->dropped);
	report_home(policy, life);
	if (life->learn_fd < 0)
		return;
	r = lr_learn_file_update(life->learn_fd, all, &life->learn, &settings);
	if (r < 0)
		lr_warn("--learn %s: cannot update it: %s", policy->learn, strerror(-r));
	else
		lr_notice("--learn %s: %s; it holds %zu setting%s (review them)", policy->learn,
			  all->n ? "updated" : "nothing denied", settings, settings == 1 ? "" : "s");
}

/* What the supervisor must not keep: landrun's own environment (the
 * caller's secrets) and the values of --env NAME=VALUE. */
static void forget_secrets(struct lr_policy *policy)
{
	for (size_t i = 0; i < policy->n_env; i++)
		if (policy->env[i].value)
			explicit_bzero(policy->env[i].value, strlen(policy->env[i].value));
	for (char **e = environ; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
	clearenv();
}

/*
 * With --init, --timeout, --die-with-parent or --audit-log, or as PID 1, a
 * supervisor stays (supervise.h).  landrun forks here, before anything of
 * the run is read or opened: the child returns to do all of it as it would
 * without a supervisor (its /proc/self is the command's), and the parent,
 * which never sees the --env-file, supervises it and exits with its status:
 * 124 on a timeout, 128+N when it died of signal N.
 */
static void supervise(struct lr_policy *policy, struct lifetime *life, char **argv)
{
	struct lr_supervisor *sv = &life->sv;
	bool pty = policy->pty && lr_supervise_has_terminal();
	char *started = NULL, *ended = NULL; /* (no cleanup attribute: it ends in exit) */
	struct lr_features features;
	struct lr_plan plan;
	char err[PATH_MAX + 256];
	struct lr_outcome out;
	int status, ready = 0, r, fds[LR_SUPERVISE_MAX_FDS] = { -1, -1, -1, -1 };
	size_t n_fds = 0;

	if (policy->explain != LR_EXPLAIN_NONE ||
	    (!policy->init && !policy->timeout_ms && !policy->die_with_parent &&
	     !policy->audit_log && !pty && !policy->report_denials && getpid() != 1))
		return;
	sv->pty = pty;
	sv->pty_passthrough = policy->pty_passthrough;
	sv->timeout_ms = policy->timeout_ms;
	sv->grace_ms = policy->timeout_grace_ms;
	sv->die_with_parent = policy->die_with_parent;
	/* the started record comes before the command runs, and the tracer
	 * traces it before it loads its filters */
	lr_audit_init(&life->audit);
	life->learn_fd = -1;
	lr_features_probe(&features);
	/* ...and the broker is handed to it as landrun's own */
	lr_plan_compute(policy, &features, &plan);
	/* (with --allow-domain, a broker may be for the connects: egress()) */
	sv->handshake = policy->audit_log != NULL || policy->report_denials || plan.broker ||
			(policy->n_allow_domains && !policy->unrestricted_net);
	if (policy->report_denials && !features.seccomp_filter)
		lr_die("--report-denials: needs seccomp filters (CONFIG_SECCOMP_FILTER)");
	/* the broker sees calls that never reach the tracer: it tells */
	if (policy->report_denials &&
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, life->told) < 0)
		lr_die_errno("--report-denials: cannot make the broker's socket");
	r = lr_supervise_start(sv, err, sizeof(err));
	if (r < 0)
		lr_die("%s", err);
	if (r == 0) {
		if (life->told[0] >= 0)
			close(life->told[0]);
		life->told[0] = -1;
		return;
	}
	if (life->told[1] >= 0)
		close(life->told[1]);
	life->told[1] = -1;
	if (policy->report_denials) {
		/* what the denials are judged by, before the environment goes */
		if (lr_learn_context_init(&life->learn, policy, getenv("HOME"),
					  lr_landlock_abi_used(features.landlock_abi)) < 0)
			snprintf(err, sizeof(err), "out of memory");
		else if (lr_trace_attach(&life->tracer, sv->child, err, sizeof(err)) == 0)
			err[0] = '\0';
		if (err[0]) {
			lr_supervise_abandon(sv);
			lr_die("%s", err);
		}
		sv->trace = lr_trace_stop;
		sv->trace_data = &life->tracer;
	}
	forget_secrets(policy);
	r = lr_supervise_confine(sv, &features, &policy->run_as, life->told,
				 life->told[0] >= 0 ? 1 : 0, err, sizeof(err));
	if (r == 0 && !sv->handshake)
		ready = 1;
	else if (r == 0 &&
		 (ready = lr_supervise_accept(sv, &started, fds, LR_SUPERVISE_MAX_FDS)) < 0)
		snprintf(err, sizeof(err), "supervisor: %s", strerror(-(r = ready)));
	if (ready > 0) {
		life->audit.fd = policy->audit_log ? fds[n_fds++] : -1;
		life->learn_fd = policy->learn ? fds[n_fds++] : -1;
		/* last: the pidfds of landrun's own (the egress helper, the broker) */
		for (; n_fds < LR_SUPERVISE_MAX_FDS && fds[n_fds] >= 0; n_fds++)
			lr_supervise_own(sv, fds[n_fds]);
	}
	if (ready > 0 && started && (r = lr_audit_write(&life->audit, started)) < 0)
		snprintf(err, sizeof(err), "--audit-log %s: %s", policy->audit_log, strerror(-r));
	free(started);
	if (ready > 0 && sv->handshake && r == 0 && (r = lr_supervise_go(sv)) < 0)
		snprintf(err, sizeof(err), "supervisor: cannot start the command: %s",
			 strerror(-r));
	if (r < 0) {
		lr_supervise_abandon(sv);
		lr_die("%s", err);
	}
	/* ready == 0: the child ended before it ran anything (and said why) */
	r = lr_supervise_wait(sv, &out);
	if (r < 0)
		lr_warn("supervisor: %s", r == -ETIMEDOUT
						  ? "processes of the tree could not be ended"
						  : strerror(-r));
	status = !out.ended		   ? LR_EXIT_FAILURE
		 : out.why == LR_END_TIMEOUT ? 124
		 : WIFEXITED(out.status)   ? WEXITSTATUS(out.status)
					   : 128 + WTERMSIG(out.status);
	if (ready && policy->report_denials)
		report_denials(policy, life, status != 0, status);
	if (ready && life->audit.fd >= 0 &&
	    (!(ended = lr_audit_ended(&life->audit, &out, status)) ||
	     (r = lr_audit_write(&life->audit, ended)) < 0))
		lr_warn("--audit-log %s: cannot write the end of the run: %s", policy->audit_log,
			ended ? strerror(-r) : "out of memory");
	free(ended);
	exit(status);
}

/* The child of a supervisor: the files it hands over, opened while
 * landrun may still reach them. */
static void supervised_open(const struct lr_explain_input *in, struct lifetime *life,
			    char **argv)
{
	char err[PATH_MAX + 256];
	int r;

	life->n_fds = 0;
	if (!life->sv.handshake)
		return;
	if (in->policy->audit_log) {
		if (lr_audit_open(&life->audit, in->policy->audit_log, in->policy, in->plan,
				  in->rules, err, sizeof(err)) < 0)
			lr_die("%s", err);
		life->started = lr_audit_started(&life->audit, in, argv, getppid(), getpid());
		if (!life->started)
			lr_die("out of memory");
		life->fds[life->n_fds++] = life->audit.fd;
	}
	/* where the command cannot rewrite it, as the audit log */
	if (in->policy->learn) {
		r = lr_audit_open_file("--learn", in->policy->learn, O_RDWR, in->policy, in->plan,
				       in->rules, err, sizeof(err));
		if (r < 0)
			lr_die("%s", err);
		life->fds[life->n_fds++] = r;
	}
}

/* A process of landrun's own (the egress helper, the broker), which the
 * supervisor ends but does not count among what the command left behind:
 * its pidfd, after the files. */
static void hand_own(struct lifetime *life, pid_t pid, const char *what)
{
	int fd;

	if (pid <= 0 || !life->sv.handshake)
		return;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		lr_die("%s: cannot hand it to the supervisor: %s", what, strerror(errno));
	life->fds[life->n_fds++] = fd;
}

/* The child of a supervisor, ready to confine itself: the audit log (opened
 * and checked against the grants), the "started" record and landrun's own
 * processes handed to the supervisor, which writes the record before the
 * command runs. */
static void supervised_ready(struct lifetime *life, const struct lr_broker *broker)
{
	int r;

	if (!life->sv.handshake)
		return;
	hand_own(life, life->egress_helper, "--allow-domain: the egress helper");
	hand_own(life, broker->pid, "the broker");
	r = lr_supervise_ready(&life->sv, life->started, life->fds, life->n_fds);
	free(life->started);
	life->started = NULL;
	for (size_t i = 0; i < life->n_fds; i++)
		close(life->fds[i]);
	if (r < 0)
		exit(LR_EXIT_FAILURE); /* the supervisor gave up, and said why */
}

/* The command's CA bundle with --secret-header or --allow-request: made now,
 * empty, in a private directory and granted read-only, before the grants
 * are opened; egress() writes it once the helper has made the run's CA. */
struct egress_ca {
	int fd;				/* the bundle, open for writing, or -1 */
};

static void egress_ca_prepare(struct lr_policy *policy, const struct lr_plan *plan,
			      struct egress_ca *ca, struct lr_strlist *env)
{
	const struct lr_run_as *u = maker(policy);
	char err[512], path[PATH_MAX], *dir;
	int r;

	ca->fd = -1;
	if (!policy->n_egress_sites || plan->egress == LR_EGRESS_OFF ||
	    policy->explain != LR_EXPLAIN_NONE)
		return;
	make_as_user(policy, true);
	if (lr_privdir_make(false, false, u ? u->uid : geteuid(), &dir, err, sizeof(err)) < 0)
		lr_die("--secret-header: %s", err);
	snprintf(path, sizeof(path), "%s/ca-bundle.pem", dir);
	free(dir);
	ca->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (ca->fd < 0)
		lr_die_errno("--secret-header: cannot make %s", path);
	make_as_user(policy, false);
	policy->origin = "the CA bundle of --secret-header, --allow-request";
	r = lr_policy_add_grant(policy, path, LR_ACCESS_RO, "--ro");
	policy->origin = NULL;
	if (r < 0 || lr_egress_set_ca_env(env, path) < 0)
		lr_die("out of memory");
	lr_debug("egress: the command's CA bundle is %s", path);
}

/* The egress helper, landrun-egress: beside this executable (a build tree,
 * a copy with its helper), else where it is installed. */
static void find_helper(struct lr_egress *e)
{
	char self[PATH_MAX], err[2 * PATH_MAX + 256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash = NULL;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
	}
	if (slash)
		*slash = '\0';
	if (lr_egress_find_helper(e, slash && slash > self ? self : slash ? "/" : NULL,
				  LR_LIBEXECDIR, err, sizeof(err)) < 0)
		lr_die("%s", err);
	lr_debug("egress: the helper is %s", e->helper_path);
}

/*
 * --allow-domain (egress.h): the command's only way out is landrun's proxy.
 * A child makes a network namespace, and the plan learns whether this
 * system gives one; the proxy's helper starts here, in the caller's
 * network; landrun joins the namespace (a witness proves it) and hands the
 * helper the proxy's socket, opened inside.  Without a namespace,
 * net.egress-domains is lost: decide() refuses under error; otherwise the
 * proxy listens on the host's loopback, and the only TCP connect rule
 * added is its port's.  Before the --explain branch, which shows the mode.
 * With --audit-log, the helper gets the log (opened, and checked against
 * the grants, as the supervisor's copy is) for its decisions.
 */
static void egress(struct lr_policy *policy, struct lr_features *features, struct lr_plan *plan,
		   const struct lr_fs_rules *rules, struct lifetime *life, struct lr_strlist *env,
		   struct egress_ca *ca)
{
	struct lr_audit audit = life->audit;
	struct lr_egress e;
	char err[PATH_MAX + 256];
	const char *cafile;
	int r;

	if (plan->egress == LR_EGRESS_OFF)
		return;
	/* --secret-header: the command never gets the secret's variables */
	if (lr_egress_placeholders(env, policy, getenv) < 0)
		lr_die("out of memory");
	lr_egress_init(&e);
	r = lr_egress_make_netns(&e);
	if (r < 0)
		lr_debug("egress: no network namespace: %s: %s", e.netns_step, strerror(-r));
	features->netns_errno = -r;
	/* without one, the broker's connects take the command's socket */
	features->pidfd_getfd = r < 0 && features->seccomp_notify && lr_features_probe_pidfd_getfd();
	lr_plan_compute(policy, features, plan);
	if (policy->explain != LR_EXPLAIN_NONE ||
	    (lr_plan_count_lost(plan) && policy->on_unsupported == LR_UNSUPPORTED_ERROR)) {
		lr_egress_drop_netns(&e);
		if (lr_egress_set_env(env, LR_EGRESS_PORT) < 0)
			lr_die("out of memory");
		return;
	}
	find_helper(&e);
	cafile = policy->n_egress_sites ? lr_egress_system_cafile(getenv) : NULL;
	if (cafile)
		snprintf(e.cafile, sizeof(e.cafile), "%s", cafile);
	if (lr_egress_expand_secrets(&e, policy, getenv, err, sizeof(err)) < 0)
		lr_die("%s", err);
	if (policy->audit_log &&
	    lr_audit_open(&audit, policy->audit_log, policy, plan, rules, err, sizeof(err)) < 0)
		lr_die("%s", err);
	r = lr_egress_start(&e, policy, policy->audit_log ? &audit : NULL, err, sizeof(err));
	if (policy->audit_log)
		close(audit.fd);
	if (r < 0)
		lr_die("%s", err);
	if (e.ca_pem) {
		if (!cafile)
			lr_warn("--secret-header: no CA bundle of the system's found (SSL_CERT_FILE): "
				"the command trusts the run's CA only");
		if (ca->fd < 0 || lr_egress_write_bundle(ca->fd, cafile, e.ca_pem, err, sizeof(err)) < 0)
			lr_die("--secret-header: %s", ca->fd < 0 ? "no CA bundle file" : err);
		close(ca->fd);
		ca->fd = -1;
		free(e.ca_pem);
	}
	life->egress_helper = e.helper;
	if (plan->egress == LR_EGRESS_NETNS && (r = lr_egress_enter(&e, err, sizeof(err))) < 0) {
		lr_warn("witness: %s", err);
		features->netns_errno = -r;
		features->pidfd_getfd = features->seccomp_notify && lr_features_probe_pidfd_getfd();
		lr_plan_compute(policy, features, plan);
	}
	if (lr_egress_listen(&e, policy, plan->egress == LR_EGRESS_NETNS, err, sizeof(err)) < 0)
		lr_die("%s", err);
	plan->egress_port = e.proxy_port;
	if (lr_egress_set_env(env, e.proxy_port) < 0)
		lr_die("out of memory");
	lr_info("egress: the proxy on 127.0.0.1:%u, %s", e.proxy_port,
		plan->egress == LR_EGRESS_NETNS ? "in a network namespace of the command's own"
						: "on the host's loopback (no network namespace)");
}

/* The writable grants the broker is to serve (broker.h), and its domain
 * (every grant): chosen from the grants before they are carved.  None: no
 * broker, but with --allow-domain, where egress() may find no network
 * namespace and want one for the connects to the proxy (broker_served). */
static void choose_brokered(const struct lr_policy *policy, struct lr_plan *plan,
			    const struct lr_fs_rules *rules, struct lr_broker *broker)
{
	char err[PATH_MAX + 256];

	if (!plan->broker && !(policy->n_allow_domains && !policy->unrestricted_net))
		return;
	if (lr_broker_choose(broker, policy, rules, err, sizeof(err)) < 0)
		lr_die("%s", err);
	broker_served(plan, broker);
}

/* With 0, 1 or 2 closed, the next open would take its place and survive
 * into the sandbox as the command's stdin, stdout or stderr. */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (null != fd)
			exit(LR_EXIT_FAILURE); /* cannot even report it */
	}
}

int main(int argc, char **argv)
{
	struct lr_policy policy;
	struct lr_features features;
	struct lr_kvlist file_env = { 0 };
	struct lr_strlist child_env = { 0 };
	struct lr_fs_rules rules = { 0 };
	struct lr_holes holes = { 0 };
	struct rlimit nofile;
	struct lr_plan plan;
	struct lifetime life = { 0 };
	struct lr_broker broker = { .sock = -1, .listener = -1, .ruleset = -1, .opener = -1,
				    .report = -1, .domain = -1 };
	struct lr_strlist brokered = { 0 };
	struct lr_witness witness;
	struct egress_ca ca = { .fd = -1 };
	char err[PATH_MAX + 256];
	char *command;

	ensure_std_fds();
	lr_policy_init(&policy);
	parse_args(argc, argv, &policy);
	apply_defaults(&policy);
	resolve_user(&policy);
	life.told[0] = life.told[1] = -1;
	supervise(&policy, &life, argv);
	broker.report = life.told[1];

	load_env_file(&policy, &file_env);
	if (lr_env_build(&policy, environ, &file_env, &child_env) < 0)
		lr_die("out of memory");
	if (lr_env_check_tmpdir(child_env.v, getenv("HOME"), err, sizeof(err)) < 0)
		lr_die("%s", err);
	make_as_user(&policy, true);
	make_private_dirs(&policy, &child_env);
	make_as_user(&policy, false);
	lr_kvlist_free(&file_env);

	command = resolve_command(&policy);
	add_command_grants(&policy, command, &child_env);

	lr_features_probe(&features);
	lr_features_probe_terminal(&features, policy.keep_fds, policy.n_keep_fds);
	/* --pty from a terminal: the command's is a pty that a supervisor relays
	 * (for --explain: would be) */
	features.terminal_relayed = policy.pty && lr_supervise_has_terminal();
	check_user(&policy, &features);
	lr_plan_compute(&policy, &features, &plan);

	make_as_user(&policy, true);
	make_dirs(&policy);
	make_as_user(&policy, false);
	raise_nofile(&nofile);
	egress_ca_prepare(&policy, &plan, &ca, &child_env);
	if (lr_landlock_open_rules(&policy, &plan, &rules, err, sizeof(err)) < 0)
		lr_die("%s", err);
	choose_brokered(&policy, &plan, &rules, &broker);
	keep_out(&policy, &rules, &holes);
	if (plan.broker && lr_broker_restrict(&broker, &plan, &rules, &holes, err, sizeof(err)) < 0)
		lr_die("%s", err);
	egress(&policy, &features, &plan, &rules, &life, &child_env, &ca);
	broker_served(&plan, &broker);
	for (size_t i = 0; plan.broker && i < broker.n_roots; i++)
		if (lr_strlist_add(&brokered, broker.roots[i].path) < 0)
			lr_die("out of memory");

	if (policy.explain != LR_EXPLAIN_NONE) {
		struct lr_explain_input in = { &policy, &plan, &rules, &holes, &child_env, command,
					       &brokered };

		if (policy.explain == LR_EXPLAIN_JSON)
			lr_explain_json(stdout, &in);
		else
			lr_explain_text(stdout, &in);
		return fflush(stdout) == 0 ? 0 : LR_EXIT_FAILURE;
	}

	decide(&policy, &plan, "");
	if (policy.landlock_audit && !(plan.restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON))
		lr_warn("--landlock-audit: the kernel records nothing: that needs Landlock ABI 7 "
			"(Linux 6.15) and a Landlock domain (here: ABI %d)", plan.abi_kernel);
	tell(&policy, &holes);
	tell_network(&policy);
	lr_info("Landlock ABI %d (using %d), %zu rules, seccomp filter %s, %zu variables for %s",
		plan.abi_kernel, plan.abi, rules.n, plan.seccomp ? "on" : "unavailable", child_env.n,
		command);
	supervised_open(&(struct lr_explain_input){ &policy, &plan, &rules, &holes, &child_env,
						    command, &brokered },
			&life, argv);
	/* before any domain: what it lists must be listable now */
	lr_landlock_witness_pick(&plan, &rules, &witness);
	/* Yama's 1: the broker stays as this process, the command's parent */
	broker.as_parent = plan.broker_parent;
	broker.supervised = life.sv.handshake; /* (always, under a supervisor, with a broker) */
	confine_outer(&policy, &plan, &rules, &broker);
	supervised_ready(&life, &broker);
	confine(&policy, &plan, &rules, &holes, &nofile, &witness, &broker);
	run(&policy, command, child_env.v);
}
