/* SPDX-License-Identifier: MIT */
/*
 * The command's side, last: the fallback policy, the confinement (confine.h's
 * one sequence, with the broker and the supervisor's handshake in its hooks),
 * and the exec.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/confine.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/supervisor/broker.h"
#include "run.h"

void decide(const struct lr_policy *policy, const struct lr_plan *plan, const char *when)
{
	unsigned lost = lr_plan_count_lost(plan);

	if (!lost || policy->on_unsupported == LR_UNSUPPORTED_IGNORE)
		return;
	for (int p = 0; p < LR_PROT_COUNT; p++) {
		const struct lr_prot_info *info = lr_prot_info(p);
		char why[LR_ERR_MAX];
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

/*
 * The command's confinement (confine.h), with what only it has: the broker,
 * started once no_new_privs is set, and the supervisor's handshake; the
 * broker's filter and the tracer's after landrun's own.
 */
struct command_side {
	struct lr_broker *broker;
	struct lifetime *life;
	int *keep;
};

/* A witness failed: --on-unsupported decides (and may end the run). */
static int command_decide(struct lr_confinement *c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	decide(c->policy, c->plan, " (witness)");
	return 0;
}

static int command_unprivileged(struct lr_confinement *c, struct command_side *s, char *err,
				size_t errlen)
{
	const struct lr_policy *policy = c->policy;
	struct lr_broker *broker = s->broker;
	pid_t before = getpid();

	if (c->plan->broker && lr_broker_start(broker, c->plan, policy, c->rules, err, errlen) < 0)
		return -EPERM;
	/* the broker stayed as the command's parent: the child is the
	 * command, whose /proc/self is its own */
	if (c->plan->broker && broker->as_parent &&
	    lr_landlock_rules_follow_pid(c->rules, before, getpid(), err, errlen) < 0)
		return -EPERM;
	supervised_ready(s->life, broker);
	/* the broker's opener has the command's ruleset made already (from
	 * the same plan and rules: nothing changed them since) */
	c->ruleset = broker->domain;
	broker->domain = -1;
	/* an inherited fd to a secret must not survive into the sandbox (the
	 * broker's socket stays until the filter is handed over) */
	s->keep = calloc(policy->n_keep_fds + 1, sizeof(*s->keep));
	if (!s->keep) {
		lr_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (policy->n_keep_fds)
		memcpy(s->keep, policy->keep_fds, policy->n_keep_fds * sizeof(*s->keep));
	c->n_keep = policy->n_keep_fds;
	if (broker->sock >= 0)
		s->keep[c->n_keep++] = broker->sock;
	c->keep = s->keep;
	return 0;
}

/* The broker's filter, and its witness: without it, what it would serve
 * fails (ENOSYS), so the command does not run.  Then the tracer's, so that
 * the tracer sees the command alone. */
static int command_filtered(struct lr_confinement *c, struct command_side *s, char *err,
			    size_t errlen)
{
	char why[LR_ERR_MAX];

	if (c->plan->broker && lr_broker_hand_over(s->broker, err, errlen) < 0)
		return -EPERM;
	if (c->plan->broker && lr_broker_holes_check(s->broker, why, sizeof(why)) < 0) {
		lr_warn("witness: %s", why);
		c->plan->rows[LR_PROT_FS_SECRETS].layer = LR_LAYER_NONE;
		decide(c->policy, c->plan, " (witness)");
	}
	if (c->policy->report_denials)
		return lr_seccomp_load_trace(c->plan, err, errlen);
	return 0;
}

static int command_hook(struct lr_confinement *c, enum lr_confine_stage stage, char *err,
			size_t errlen)
{
	return stage == LR_CONFINE_UNPRIVILEGED ? command_unprivileged(c, c->data, err, errlen)
						: command_filtered(c, c->data, err, errlen);
}

void confine(const struct lr_policy *policy, struct lr_plan *plan, struct lr_fs_rules *rules,
	     const struct lr_holes *holes, const struct rlimit *nofile, struct lr_broker *broker,
	     struct lifetime *life)
{
	struct command_side side = { broker, life, NULL };
	struct lr_confinement c = {
		.run_as = &policy->run_as,
		.switch_user = plan->switch_user,
		.policy = policy,
		.plan = plan,
		.rules = rules,
		.ruleset = -1,
		.holes = holes,
		.close_fds = true,
		.nofile = nofile,
		.limits = policy->limits,
		.filter = plan->seccomp ? LR_CONFINE_FILTER_PLAN : LR_CONFINE_NO_FILTER,
		.decide = command_decide,
		.hook = command_hook,
		.data = &side,
	};
	char err[LR_ERR_MAX];
	int r = lr_confine(&c, err, sizeof(err));

	free(side.keep);
	if (r == -EBADF && c.bad_fd >= 0)
		lr_die("--keep-fd %d: not an open file descriptor", c.bad_fd);
	if (r < 0 && c.bad_limit >= 0)
		lr_die("--%s: cannot set the limit: %s%s",
		       lr_option_get(LR_OPT_RLIMIT_AS + c.bad_limit)->name, strerror(-r),
		       r == -EPERM ? " (above the hard limit)" : "");
	if (r < 0)
		lr_die("%s", err);
}

noreturn void exec_command(const struct lr_policy *policy, const char *command, char **envp)
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
