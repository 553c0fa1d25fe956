/* SPDX-License-Identifier: MIT */
/*
 * The Landlock backend: turns the plan and the policy's grants into a
 * ruleset and enforces it.  Reports 0 or -errno with a one-line message; the
 * driver decides what to do.
 */
#ifndef LANDRUN_LANDLOCK_H
#define LANDRUN_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"

/*
 * Open every grant of POLICY (O_PATH, relative to the working directory) and
 * compute its rights under PLAN.  A missing path is an error unless the
 * grant is optional (ignore-missing in the file or command line that made
 * it); a path whose canonical name no longer names the opened inode (a
 * symlink changed meanwhile) is an error too.  0, or -errno with ERR naming
 * flag and path.
 */
/*
 * The rules that name /proc/OLD (a grant of /proc/self, opened before the
 * process forked) opened again as /proc/NEW: the child that goes on to be
 * the command grants its own.  0, or -errno with ERR.
 */
int lr_landlock_rules_follow_pid(struct lr_fs_rules *rules, pid_t old, pid_t new, char *err,
				 size_t errlen);

int lr_landlock_open_rules(const struct lr_policy *policy, const struct lr_plan *plan,
			   struct lr_fs_rules *rules, char *err, size_t errlen);
void lr_landlock_rules_free(struct lr_fs_rules *rules);

/*
 * Carve RULES around HOLES (scan.h): a directory rule that would let more
 * reach a hole beneath it than the hole allows (nothing to a secret, reading
 * to a protected path) is replaced by a rule for the directory with only what
 * may pass through, and one rule for each of its entries, the ones on the way
 * to a hole carved in turn.  Marks the holes it carved around.  0, or -errno
 * with ERR.
 */
int lr_landlock_carve(struct lr_fs_rules *rules, struct lr_holes *holes, char *err,
		      size_t errlen);

/*
 * After enforcing, the carving's witness: every carved secret must be
 * unreadable and every carved protected path unwritable (tried: a
 * read-only open, a write-only open, a mkdir undone at once if it worked).
 * 0; -EPERM with ERR naming the first that is not; other -errno when a
 * check itself failed.
 */
int lr_landlock_holes_check(const struct lr_holes *holes, char *err, size_t errlen);

/* Create the --mkdir directories that are missing (0700, parents too).
 * 0, or -errno with ERR naming the path. */
int lr_landlock_make_dirs(const struct lr_policy *policy, char *err, size_t errlen);

/*
 * Create the ruleset, add RULES and the policy's TCP port rules, and restrict
 * the calling thread (which must have no_new_privs set).  0, or -errno with
 * ERR.  _ruleset only makes it: its descriptor, or -errno with ERR.
 */
int lr_landlock_ruleset(const struct lr_plan *plan, const struct lr_policy *policy,
			const struct lr_fs_rules *rules, char *err, size_t errlen);
/* Restrict the calling thread to RULESET (lr_landlock_ruleset's, made from
 * the same plan and rules), with FLAGS.  0, or -errno with ERR. */
int lr_landlock_enforce_ruleset(int ruleset, uint32_t flags, char *err, size_t errlen);
int lr_landlock_enforce(const struct lr_plan *plan, const struct lr_policy *policy,
			const struct lr_fs_rules *rules, char *err, size_t errlen);

/*
 * The witness: a directory that the policy must deny listing, chosen and
 * opened once before enforcing (so that its denial afterwards proves
 * Landlock, not file permissions).
 */
struct lr_witness {
	const char *path;	/* NULL: no such directory (the policy grants them all) */
};

void lr_landlock_witness_pick(const struct lr_plan *plan, const struct lr_fs_rules *rules,
			      struct lr_witness *w);
/* After enforcing: 0 if the witness is denied (EACCES), -EPERM if it is not,
 * other -errno if the check itself failed. */
int lr_landlock_witness_check(const struct lr_witness *w);

#endif /* LANDRUN_LANDLOCK_H */
