/* SPDX-License-Identifier: MIT */
/*
 * The confinement sequence: the one way a process of landrun's gives up
 * what it may do, for each of the three that face the command -- the
 * command's own (before its exec), the supervisor's and the egress
 * helper's.  Each passes what it needs (minijail_enter() is the shape);
 * the order is always this one:
 *
 *   0. the Landlock witness is chosen, before any domain
 *   1. privileges: the user to run as, or only the capabilities dropped
 *   2. no_new_privs, and its witness
 *      -> hook LR_CONFINE_UNPRIVILEGED (the command's: the broker starts,
 *         the supervisor's handshake)
 *   3. Landlock, the rules' descriptors closed, and its witnesses: a
 *      directory the policy must deny listing; what the grants were carved
 *      around
 *   4. every descriptor closed but the ones kept
 *   5. the limits
 *   6. the seccomp filter, last, and its witness
 *      -> hook LR_CONFINE_FILTERED (the command's: the broker's filter, the
 *         tracer's)
 *
 * A witness that fails takes its layer from the plan; DECIDE then says
 * whether to go on (the command's: --on-unsupported), and without DECIDE the
 * sequence stops there.  Nothing is left half-done silently: on an error
 * the process must not face the command (it dies, or its caller abandons).
 */
#ifndef LANDRUN_CONFINE_H
#define LANDRUN_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/landlock.h"

enum lr_confine_filter {
	LR_CONFINE_NO_FILTER,
	LR_CONFINE_FILTER_PLAN,	  /* the one compiled for the plan */
	LR_CONFINE_FILTER_TRACER, /* the supervisor's under --report-denials */
	LR_CONFINE_FILTER_EGRESS, /* the egress helper's */
};

enum lr_confine_stage {
	LR_CONFINE_UNPRIVILEGED, /* after 2. */
	LR_CONFINE_FILTERED,	 /* after 6. */
};

struct lr_confinement {
	const char *who; /* "" for the command, "supervisor: " ...: a prefix */
	/* 1. RUN_AS with SWITCH_USER; else the same user, without capabilities */
	const struct lr_run_as *run_as;
	bool switch_user;
	/* 3. Landlock, when the plan handles anything: RULESET when made
	 * already (from the same plan and rules; it is closed), else from
	 * POLICY and RULES.  HOLES: what the grants were carved around, or
	 * NULL. */
	const struct lr_policy *policy;
	struct lr_plan *plan;
	struct lr_fs_rules *rules;
	int ruleset;
	const struct lr_holes *holes;
	/* 4. with CLOSE_FDS: all but 0, 1, 2 and the N_KEEP in KEEP */
	bool close_fds;
	const int *keep;
	size_t n_keep;
	/* 5. NOFILE restored (if given and not the hard limit), then LIMITS */
	const struct rlimit *nofile;
	const struct lr_limit_setting *limits;
	/* 6. */
	enum lr_confine_filter filter;

	/* A witness failed and the plan says what is lost: 0 to go on. */
	int (*decide)(struct lr_confinement *c, char *err, size_t errlen);
	int (*hook)(struct lr_confinement *c, enum lr_confine_stage stage, char *err,
		    size_t errlen);
	void *data; /* the caller's, for DECIDE and HOOK */

	/* out: with -EBADF from 4., the kept descriptor that was not open;
	 * with an error from 5., the enum lr_limit that failed */
	int bad_fd;
	int bad_limit;
};

/* The sequence above.  0, or -errno with ERR (which starts with WHO). */
int lr_confine(struct lr_confinement *c, char *err, size_t errlen);

#endif /* LANDRUN_CONFINE_H */
