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
#include <sys/resource.h>

#include "config.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/supervise.h"
#include "run/run.h"

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
	struct lr_strlist child_env = { 0 };
	struct lr_fs_rules rules = { 0 };
	struct lr_holes holes = { 0 };
	struct rlimit nofile;
	struct lr_plan plan;
	struct lifetime life = { 0 };
	struct lr_broker broker = { .sock = -1, .listener = -1, .ruleset = -1, .opener = -1,
				    .report = -1, .domain = -1 };
	struct lr_strlist brokered = { 0 };
	struct egress_ca ca = { .fd = -1 };
	char err[LR_ERR_MAX];
	char *command;

	ensure_std_fds();
	lr_policy_init(&policy);
	parse_args(argc, argv, &policy);
	apply_defaults(&policy);
	resolve_user(&policy);
	life.told[0] = life.told[1] = -1;
	supervise(&policy, &life);
	broker.report = life.told[1];

	make_env(&policy, environ, &child_env);

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
	tell(&(struct lr_explain_input){ &policy, &plan, &rules, &holes, &child_env, command,
					 &brokered });
	supervised_open(&(struct lr_explain_input){ &policy, &plan, &rules, &holes, &child_env,
						    command, &brokered },
			&life, argv);
	/* Yama's 1: the broker stays as this process, the command's parent */
	broker.as_parent = plan.broker_parent;
	broker.supervised = life.sv.handshake; /* (always, under a supervisor, with a broker) */
	confine(&policy, &plan, &rules, &holes, &nofile, &broker, &life);
	exec_command(&policy, command, child_env.v);
}
