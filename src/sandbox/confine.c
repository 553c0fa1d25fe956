/* SPDX-License-Identifier: MIT */
/*
 * The confinement sequence (confine.h): one for the command, the supervisor
 * and the egress helper.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/sandbox/caps.h"
#include "landrun/sandbox/confine.h"
#include "landrun/sandbox/exec.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/sandbox/user.h"

/* ERR, the reason, after WHO. */
static int failed(const struct lr_confinement *c, int r, char *err, size_t errlen)
{
	char reason[PATH_MAX + 256];

	if (c->who[0]) {
		snprintf(reason, sizeof(reason), "%s", err);
		lr_errf(err, errlen, "%s%s", c->who, reason);
	}
	return r;
}

/* A witness found its layer not in force: the caller decides, or it stops. */
static int lost(struct lr_confinement *c, char *err, size_t errlen)
{
	if (c->decide)
		return c->decide(c, err, errlen);
	lr_errf(err, errlen, "a protection is not in force (witness): refusing to go on");
	return -EPERM;
}

static int landlock_witnesses(struct lr_confinement *c, const struct lr_witness *w, char *err,
			      size_t errlen)
{
	char why[LR_ERR_MAX];
	int r;

	if (!w->path) {
		lr_debug("%switness: the policy lets it list every candidate directory", c->who);
	} else if ((r = lr_landlock_witness_check(w)) == 0) {
		lr_debug("%switness: listing %s is denied, Landlock is in force", c->who, w->path);
	} else {
		if (r == -EPERM)
			lr_warn("%switness: listing %s was not denied: Landlock is not in force",
				c->who, w->path);
		else
			lr_warn("%switness: checking %s failed: %s", c->who, w->path, strerror(-r));
		lr_plan_lose_layer(c->plan, LR_LAYER_LANDLOCK);
		if ((r = lost(c, err, errlen)) < 0)
			return r;
	}
	if (!c->holes || lr_landlock_holes_check(c->holes, why, sizeof(why)) == 0)
		return 0;
	lr_warn("%switness: %s", c->who, why);
	c->plan->rows[LR_PROT_FS_SECRETS].layer = LR_LAYER_NONE;
	c->plan->rows[LR_PROT_FS_PROTECTED].layer = LR_LAYER_NONE;
	return lost(c, err, errlen);
}

static int landlock(struct lr_confinement *c, const struct lr_witness *w, char *err, size_t errlen)
{
	const struct lr_plan *plan = c->plan;
	int r;

	if (!plan->handled_fs && !plan->handled_net && !plan->scoped) {
		if (c->ruleset >= 0)
			close(c->ruleset);
		c->ruleset = -1;
		return 0;
	}
	if (c->ruleset >= 0) {
		r = lr_landlock_enforce_ruleset(c->ruleset, plan->restrict_flags, err, errlen);
		close(c->ruleset);
		c->ruleset = -1;
	} else {
		r = lr_landlock_enforce(plan, c->policy, c->rules, err, errlen);
	}
	if (r < 0)
		return r;
	/* spent: what they open is the domain's now */
	for (size_t i = 0; c->rules && i < c->rules->n; i++) {
		if (c->rules->v[i].fd >= 0)
			close(c->rules->v[i].fd);
		c->rules->v[i].fd = -1;
	}
	return landlock_witnesses(c, w, err, errlen);
}

static int descriptors_and_limits(struct lr_confinement *c, char *err, size_t errlen)
{
	int r;

	if (c->close_fds) {
		r = lr_exec_close_fds(c->keep, c->n_keep, &c->bad_fd);
		if (r < 0) {
			if (r == -EBADF)
				lr_errf(err, errlen, "file descriptor %d to keep is not open",
					c->bad_fd);
			else
				lr_errf(err, errlen, "cannot close file descriptors: %s",
					strerror(-r));
			return r;
		}
	}
	/* (unless it was the hard one already: nothing to restore) */
	if (c->nofile && c->nofile->rlim_cur != c->nofile->rlim_max &&
	    setrlimit(RLIMIT_NOFILE, c->nofile) < 0) {
		r = -errno;
		lr_errf(err, errlen, "cannot restore the limit of open files: %s", strerror(-r));
		return r;
	}
	/* after that: --rlimit-nofile wins */
	if (c->limits && (r = lr_exec_set_limits(c->limits, &c->bad_limit)) < 0) {
		lr_errf(err, errlen, "cannot set limit %d: %s", c->bad_limit, strerror(-r));
		return r;
	}
	return 0;
}

static int seccomp(struct lr_confinement *c, char *err, size_t errlen)
{
	int r;

	switch (c->filter) {
	case LR_CONFINE_NO_FILTER:
		return 0;
	case LR_CONFINE_FILTER_PLAN:
		r = lr_seccomp_load_prebuilt(c->plan, err, errlen);
		break;
	case LR_CONFINE_FILTER_TRACER:
		r = lr_seccomp_load_tracer(err, errlen);
		break;
	case LR_CONFINE_FILTER_EGRESS:
		r = lr_seccomp_load_egress(err, errlen);
		break;
	default:
		lr_errf(err, errlen, "no such seccomp filter");
		return -EINVAL;
	}
	if (r < 0)
		return r;
	/* every filter of landrun's denies every unshare */
	if (lr_seccomp_witness_check() == 0) {
		lr_debug("%switness: unshare(0) is denied, the seccomp filter is in force", c->who);
		return 0;
	}
	lr_warn("%switness: unshare(0) was not denied: the seccomp filter is not in force", c->who);
	lr_plan_lose_layer(c->plan, LR_LAYER_SECCOMP);
	return lost(c, err, errlen);
}

int lr_confine(struct lr_confinement *c, char *err, size_t errlen)
{
	struct lr_witness witness = {0};
	int r;

	if (!c->who)
		c->who = "";
	c->bad_fd = -1;
	c->bad_limit = -1;
	err[0] = '\0';
	/* 0. before any domain: what it lists must be listable now */
	if (c->rules)
		lr_landlock_witness_pick(c->plan, c->rules, &witness);
	/* 1., 2. */
	r = lr_user_drop_privileges(c->run_as, c->switch_user, err, errlen);
	if (r < 0)
		return failed(c, r, err, errlen);
	r = lr_caps_no_new_privs();
	if (r == 0 && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		r = -EPERM; /* the witness: it must read back */
	if (r < 0) {
		lr_errf(err, errlen, "cannot set no_new_privs: %s", strerror(-r));
		return failed(c, r, err, errlen);
	}
	if (c->hook && (r = c->hook(c, LR_CONFINE_UNPRIVILEGED, err, errlen)) < 0)
		return failed(c, r, err, errlen);
	/* 3. - 6. */
	if ((r = landlock(c, &witness, err, errlen)) < 0 ||
	    (r = descriptors_and_limits(c, err, errlen)) < 0 || (r = seccomp(c, err, errlen)) < 0)
		return failed(c, r, err, errlen);
	if (c->hook && (r = c->hook(c, LR_CONFINE_FILTERED, err, errlen)) < 0)
		return failed(c, r, err, errlen);
	return 0;
}
