/* SPDX-License-Identifier: MIT */
/*
 * The drop-in default: when the command line grants no files, the command
 * gets the profile named after it (or base) and the current directory as its
 * project, read, write and execute (carved around its secrets and protected
 * paths like any grant).  A directory that is not a project is refused.
 */
#ifndef LANDRUN_PROJECT_H
#define LANDRUN_PROJECT_H

#include <stddef.h>

#include "landrun/options.h"
#include "landrun/policy.h"

/* Where the project grant says it comes from (--explain, messages). */
#define LR_PROJECT_ORIGIN "the current directory (no --ro, --rox, --rw or --rwx given)"

/*
 * Apply the defaults to POLICY if its command line granted no files: the
 * profile for COMMAND (as typed: "claude" is Claude Code's; a profile of
 * that name if there is one; else base) unless --config or --profile was
 * given, and the current directory CWD, unless it is /, the home, one that
 * holds it, one other programs share, or a system directory.  Sets
 * policy->profile and policy->project.  LR_OPT_RUN, or LR_OPT_ERROR with ERR.
 */
enum lr_opt_result lr_project_defaults(struct lr_policy *policy, const char *command,
				       const char *cwd, const char *home,
				       struct lr_opt_error *err);

#endif /* LANDRUN_PROJECT_H */
