/* SPDX-License-Identifier: MIT */
/*
 * --allow-domain: the egress helper started (the network namespace, or the
 * broker's connects), and the command's CA bundle.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "landrun/confine/privdir.h"
#include "landrun/egress/egress.h"
#include "landrun/lib/audit-log.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/features.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/policy.h"
#include "landrun/supervisor/audit.h"
#include "run.h"

void egress_ca_prepare(struct lr_policy *policy, const struct lr_plan *plan, struct egress_ca *ca,
		       struct lr_strlist *env)
{
	const struct lr_run_as *u = maker(policy);
	char err[LR_ERR_MAX], path[PATH_MAX], *dir;
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

void egress(struct lr_policy *policy, struct lr_features *features, struct lr_plan *plan,
	    const struct lr_fs_rules *rules, struct lifetime *life, struct lr_strlist *env,
	    struct egress_ca *ca)
{
	struct lr_audit audit = life->audit;
	struct lr_egress e;
	char err[LR_ERR_MAX];
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
