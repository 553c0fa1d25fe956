/* SPDX-License-Identifier: MIT */
/*
 * What the grants would hand to the command that they must not: secret files
 * (.env and its kind, the --env-file), and paths that hold code something
 * outside the sandbox runs later (.git, hook managers, the harnesses' project
 * settings, shell start-up files), found by walking the granted directories
 * through the rules' own descriptors.  The walk reports "holes"; the Landlock
 * backend carves the grants around them (landlock.c).  When the walk cannot
 * tell (a directory it may enter but not list, too many entries, an error),
 * it fails closed.
 */
#ifndef LANDRUN_SCAN_H
#define LANDRUN_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "landrun/plan/fsrules.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/landlock.h"

/* Entries one walk looks at before it gives up (and landrun refuses). */
#define LR_SCAN_MAX_ENTRIES 200000


/*
 * Check the opened grants RULES of POLICY: refuse (-EACCES, ERR) an explicit
 * grant of a secret file, the --env-file's exposure where it cannot be
 * carved, and a writable grant at or inside a protected path; fill HOLES with
 * what lies beneath the granted directories (and, however high the grant,
 * in the current directory's project and at the --env-file).  Accepted with
 * --allow-dotenv and --allow-protected: not holes.  CWD and HOME (may be
 * NULL) locate the project and the user's git configuration.  0, or -errno
 * with ERR.
 */
int lr_scan(const struct lr_policy *policy, const struct lr_fs_rules *rules, const char *cwd,
	    const char *home, struct lr_holes *holes, char *err, size_t errlen);

void lr_holes_free(struct lr_holes *holes);

/* Is the canonical PATH in a system tree (/usr but /usr/src and
 * /usr/local/src, /lib*, /proc...), which holds no project and is not walked? */
bool lr_scan_system_tree(const char *path);

#endif /* LANDRUN_SCAN_H */
