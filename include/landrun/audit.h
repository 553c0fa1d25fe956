/* SPDX-License-Identifier: MIT */
/*
 * The audit log (--audit-log FILE): one JSON object per line, appended with
 * one write(2) per record, by the supervisor, outside the sandbox.  Every
 * run writes "started", then "completed" (the command ended by itself) or
 * "cancelled" (the run was ended: timeout, a forwarded signal, the parent's
 * death).  The records are versioned ("schema": 1) and documented in the
 * README.  Never prints, never exits.
 */
#ifndef LANDRUN_AUDIT_H
#define LANDRUN_AUDIT_H

#include <stddef.h>
#include <sys/types.h>

#include "landrun/explain.h"
#include "landrun/landlock.h"
#include "landrun/policy.h"
#include "landrun/supervise.h"

#define LR_AUDIT_SCHEMA 1

struct lr_audit {
	int fd;			/* -1: no audit log */
	char run[33];		/* random, hex: the records of one run share it */
};

/* No log yet (fd -1), and the run's id: made before the fork, so that the
 * supervisor and the child share it. */
void lr_audit_init(struct lr_audit *a);

/*
 * Open PATH for appending (mode 0600 when made) and refuse (-EACCES, ERR
 * naming the grant) a file the command could rewrite: inside a writable
 * grant of RULES, with other hard links, or anywhere when PLAN does not
 * confine writes (--unrestricted-filesystem, or no Landlock).  0, or -errno
 * with ERR.
 */
int lr_audit_open(struct lr_audit *a, const char *path, const struct lr_policy *policy,
		  const struct lr_plan *plan, const struct lr_fs_rules *rules, char *err,
		  size_t errlen);

/* The same check for another file landrun writes for the run (--learn):
 * FLAG names it in ERR; FLAGS as for open(2), O_CREAT added.  The fd, or
 * -errno with ERR. */
int lr_audit_open_file(const char *flag, const char *path, int flags,
		       const struct lr_policy *policy, const struct lr_plan *plan,
		       const struct lr_fs_rules *rules, char *err, size_t errlen);

/* The "started" record, one line: landrun's ARGV and working directory, the
 * SUPERVISOR's and the COMMAND's pids, and IN as --explain=json shows it.
 * malloc'd, or NULL (out of memory). */
char *lr_audit_started(const struct lr_audit *a, const struct lr_explain_input *in,
		       char *const *argv, pid_t supervisor, pid_t command);

/* The "completed" or "cancelled" record for OUT, by the supervisor; STATUS
 * is landrun's exit status.  malloc'd, or NULL. */
char *lr_audit_ended(const struct lr_audit *a, const struct lr_outcome *out, int status);

/*
 * An "egress" record, by the --allow-domain proxy (egress.h), which is its
 * "pid": DECISION ("allowed", "refused", "failed", "forwarded") on REQUEST
 * (the method, "forward", or NULL for what was no request) for HOST:PORT
 * (NULL, 0 when there was none), the ADDRESS connected to, or the REASON.
 * malloc'd, or NULL.
 */
char *lr_audit_egress(const struct lr_audit *a, const char *decision, const char *request,
		      const char *host, unsigned port, const char *address, const char *reason);

struct lr_denial;
struct lr_advice;

/* A "denied" record (--report-denials, by the supervisor, after the run):
 * what D was, how often, and ADVICE.  malloc'd, or NULL. */
char *lr_audit_denied(const struct lr_audit *a, const struct lr_denial *d,
		      const struct lr_advice *advice);

/* Append LINE with one write.  0, or -errno. */
int lr_audit_write(const struct lr_audit *a, const char *line);

#endif /* LANDRUN_AUDIT_H */
