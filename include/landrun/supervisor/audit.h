/* SPDX-License-Identifier: MIT */
/*
 * The audit log (--audit-log FILE): one JSON object per line, appended with
 * one write(2) per record, by the supervisor, outside the sandbox.  Every
 * run writes "started", then "completed" (the command ended by itself) or
 * "cancelled" (the run was ended: timeout, a forwarded signal, the parent's
 * death).  The records are versioned ("schema": 1) and documented in
 * docs/supervisor.md (The audit log).  Never prints, never exits.
 */
#ifndef LANDRUN_AUDIT_H
#define LANDRUN_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/lib/audit-log.h"
#include "landrun/policy/policy.h"

struct lr_explain_input;
struct lr_fs_rules;
struct lr_outcome;
struct lr_plan;

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

struct lr_denial;
struct lr_advice;

/* A "denied" record (--report-denials, by the supervisor, after the run):
 * what D was, how often, and ADVICE.  malloc'd, or NULL. */
char *lr_audit_denied(const struct lr_audit *a, const struct lr_denial *d,
		      const struct lr_advice *advice);

#endif /* LANDRUN_AUDIT_H */
