/* SPDX-License-Identifier: MIT */
/*
 * The steps of landrun's pipeline, which src/main.c calls in order: the files
 * of src/run/, one for each side of the run (see the head of each).  They may
 * use every folder of src/; nothing of src/ uses them.
 */
#ifndef LANDRUN_RUN_H
#define LANDRUN_RUN_H

#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/resource.h>

#include "landrun/egress/egress.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/env.h"
#include "landrun/policy/policy.h"
#include "landrun/supervisor/audit.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/learn.h"
#include "landrun/supervisor/supervise.h"
#include "landrun/supervisor/trace.h"

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
	struct lr_supervise_fd fds[LR_SUPERVISE_MAX_FDS]; /* audit log, --learn file,
							   * own processes' pidfds */
	size_t n_fds;
};

/* The command's CA bundle with --secret-header or --allow-request: made now,
 * empty, in a private directory and granted read-only, before the grants
 * are opened; egress() writes it once the helper has made the run's CA. */
struct egress_ca {
	int fd;				/* the bundle, open for writing, or -1 */
};

/* ------------------------------------------------------------ prepare.c */

/* The command's profile and its project, with what the command line adds
 * (project.c). */
void apply_defaults(struct lr_policy *policy);

/* --user: names looked up now, the switch made in confine(). */
void resolve_user(struct lr_policy *policy);

/* Without root, --user may only name the caller. */
void check_user(const struct lr_policy *policy, const struct lr_features *features);

/* The user the command will become, while landrun (as root) makes its
 * directories, or NULL: they are made as that user, and are the command's. */
const struct lr_run_as *maker(const struct lr_policy *policy);

/* ENTER: what landrun makes from now on is made as maker()'s user; else as
 * landrun again. */
void make_as_user(const struct lr_policy *policy, bool enter);

/* The command's environment, ENV: the allowed keys of landrun's own
 * (CALLER_ENV) and of the --env-file, read by landrun itself, strictly;
 * --private-tmp and --private-home made, and their variables set. */
void make_env(struct lr_policy *policy, char **caller_env, struct lr_strlist *env);

/* The command, looked up in the caller's PATH (what the user typing it expects). */
char *resolve_command(const struct lr_policy *policy);

/* --add-exec and --ldd: grants derived from the command itself. */
void add_command_grants(struct lr_policy *policy, const char *command,
			const struct lr_strlist *env);

/* --mkdir, before the grants are opened.  --explain changes nothing: there,
 * a directory it would create is just absent. */
void make_dirs(struct lr_policy *policy);

/* A carved grant holds one descriptor for each entry beside a hole until the
 * ruleset is made: the soft limit of open files goes up to the hard one
 * meanwhile, and back down for the command.  SAVED is what to restore. */
void raise_nofile(struct rlimit *saved);

/* Secrets and protected paths inside the grants: found, then carved around. */
void keep_out(const struct lr_policy *policy, struct lr_fs_rules *rules, struct lr_holes *holes);

/* The plan (computed again by egress()) knows of no grant to broker until
 * they are opened: none is no protection asked for. */
void broker_served(struct lr_plan *plan, struct lr_broker *broker);

/* The writable grants the broker is to serve (broker.h), and its domain
 * (every grant): chosen from the grants before they are carved.  None: no
 * broker, but with --allow-domain, where egress() may find no network
 * namespace and want one for the connects to the proxy (broker_served). */
void choose_brokered(const struct lr_policy *policy, struct lr_plan *plan,
		     const struct lr_fs_rules *rules, struct lr_broker *broker);

/* ------------------------------------------------------------ notice.c */

/* What the run will be, before it starts: one line at the default log level
 * (the project and profile landrun chose, what it kept out of the grants),
 * one more with --allow-domain (where the network leads), the rest at
 * --log-level info. */
void tell(const struct lr_explain_input *in);

/* ------------------------------------------------------------ lifetime.c */

/*
 * With --init, --timeout, --die-with-parent or --audit-log, or as PID 1, a
 * supervisor stays (supervise.h).  landrun forks here, before anything of
 * the run is read or opened: the child returns to do all of it as it would
 * without a supervisor (its /proc/self is the command's), and the parent,
 * which never sees the --env-file, supervises it and exits with its status:
 * 124 on a timeout, 128+N when it died of signal N.
 */
void supervise(struct lr_policy *policy, struct lifetime *life);

/* The child of a supervisor: the files it hands over, opened while
 * landrun may still reach them. */
void supervised_open(const struct lr_explain_input *in, struct lifetime *life, char **argv);

/* The child of a supervisor, ready to confine itself: the audit log (opened
 * and checked against the grants), the "started" record and landrun's own
 * processes handed to the supervisor, which writes the record before the
 * command runs. */
void supervised_ready(struct lifetime *life, const struct lr_broker *broker);

/* ------------------------------------------------------------ egress.c */

/* The CA bundle above, made when --secret-header or --allow-request asks. */
void egress_ca_prepare(struct lr_policy *policy, const struct lr_plan *plan, struct egress_ca *ca,
		       struct lr_strlist *env);

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
void egress(struct lr_policy *policy, struct lr_features *features, struct lr_plan *plan,
	    const struct lr_fs_rules *rules, struct lifetime *life, struct lr_strlist *env,
	    struct egress_ca *ca);

/* ------------------------------------------------------------ command.c */

/* The fallback policy: refuse, warn, or stay silent about lost protections. */
void decide(const struct lr_policy *policy, const struct lr_plan *plan, const char *when);

/* The command's confinement, confine.h's sequence: the broker started once
 * no_new_privs is set, the supervisor's handshake, the broker's filter and
 * the tracer's after landrun's own.  Dies rather than run half-confined. */
void confine(const struct lr_policy *policy, struct lr_plan *plan, struct lr_fs_rules *rules,
	     const struct lr_holes *holes, const struct rlimit *nofile, struct lr_broker *broker,
	     struct lifetime *life);

/* The last step: the command, or one line saying why it cannot start. */
noreturn void exec_command(const struct lr_policy *policy, const char *command, char **envp);

#endif /* LANDRUN_RUN_H */
