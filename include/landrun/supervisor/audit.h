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

#include "landrun/policy/policy.h"

struct lr_explain_input;
struct lr_fs_rules;
struct lr_outcome;
struct lr_plan;

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
 * (NULL, 0 when there was none), the ADDRESS connected to, or the REASON;
 * COUNT such decisions so far (lr_audit_repeat).  malloc'd, or NULL.
 */
char *lr_audit_egress(const struct lr_audit *a, const char *decision, const char *request,
		      const char *host, unsigned port, const char *address, const char *reason,
		      unsigned long count);

struct lr_denial;
struct lr_advice;

/* A "denied" record (--report-denials, by the supervisor, after the run):
 * what D was, how often, and ADVICE.  malloc'd, or NULL. */
char *lr_audit_denied(const struct lr_audit *a, const struct lr_denial *d,
		      const struct lr_advice *advice);

/*
 * The bound of the egress records of a run (the proxy's helper writes them,
 * one per decision, as fast as the command asks): a decision like one
 * written before (the same verdict, request, host, port and reason) is
 * written again only at its 2nd, 4th, 8th... occurrence, with its "count"
 * so far; and past LR_AUDIT_EGRESS_CAP bytes, one "capped" record, then
 * nothing more.  The supervisor's own records ("started", "denied", which
 * the tracer bounds, and the end) are not counted: the end is always
 * written.  Not thread-safe: the caller locks.
 */
#define LR_AUDIT_EGRESS_CAP (1024 * 1024)
#define LR_AUDIT_KEYS 1024

struct lr_audit_bound {
	size_t bytes;			/* egress records written */
	bool capped;			/* the "capped" record is written */
	size_t n;
	struct {
		uint64_t key;
		unsigned long count;
	} seen[LR_AUDIT_KEYS];
};

/* The key of a decision (lr_audit_egress's arguments but the address). */
uint64_t lr_audit_egress_key(const char *decision, const char *request, const char *host,
			     unsigned port, const char *reason);

/* One more decision of KEY: how many there were with it, when its record is
 * to be written (1, 2, 4, 8...), else 0 (only counted).  A key that does not
 * fit among those kept is written every time (the cap still holds). */
unsigned long lr_audit_repeat(struct lr_audit_bound *b, uint64_t key);

enum lr_audit_room {
	LR_AUDIT_ROOM,			/* write it (counted in B) */
	LR_AUDIT_CAP_NOW,		/* no: write the "capped" record instead, once */
	LR_AUDIT_FULL,			/* no */
};

/* Is there room for a record of LEN bytes? */
enum lr_audit_room lr_audit_room(struct lr_audit_bound *b, size_t len);

/* The "capped" record: no more egress records in this run, past CAP bytes.
 * malloc'd, or NULL. */
char *lr_audit_capped(const struct lr_audit *a, size_t cap);

/* Append LINE with one write.  0, or -errno. */
int lr_audit_write(const struct lr_audit *a, const char *line);

#endif /* LANDRUN_AUDIT_H */
