/* SPDX-License-Identifier: MIT */
/*
 * The drop-in default: the command gets the profile named after it (or base)
 * and its project, read, write and execute (carved around its secrets and
 * protected paths like any grant): the top of the git repository holding the
 * current directory, or else the current directory.  What the command line
 * grants is added to both.  A directory that is not a project is refused.
 */
#ifndef LANDRUN_PROJECT_H
#define LANDRUN_PROJECT_H

#include <stddef.h>

#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"

/* Where the project grant says it comes from (--explain, messages). */
#define LR_PROJECT_ORIGIN "the project: the current directory"
#define LR_PROJECT_ORIGIN_REPO "the project: the git repository holding the current directory"

/*
 * Apply the defaults to POLICY, after its command line was read: none when
 * the command line grants the system itself (a path in /usr, /bin, /sbin,
 * /lib* or /, as the Go landrun's command lines do: policy->outright names
 * it) or --unrestricted-filesystem.  Otherwise the profile for COMMAND (as
 * typed: "claude" is Claude Code's; a profile of that name if there is one;
 * else base) unless --config or --profile was given, and, unless
 * --no-project, the project: the top of the git work tree holding CWD, or
 * CWD itself when there is none (or the top may not be a project).  CWD may
 * not be /, the home, one that holds it, one other programs share, or a
 * system directory: refused, unless the command line grants files (then no
 * project).  A command-line grant at or above CWD or the project stands for
 * the project: it is not granted again.  Sets policy->profile,
 * policy->project and policy->project_note.  LR_OPT_RUN, or LR_OPT_ERROR
 * with ERR.
 */
enum lr_opt_result lr_project_defaults(struct lr_policy *policy, const char *command,
				       const char *cwd, const char *home,
				       struct lr_opt_error *err);

/*
 * What the defaults chose, for the notice line and --explain: the profile
 * (and a private HOME), the project, and what the command line added; or
 * why there are none.  A new string (NULL: nothing to say, or no memory).
 */
char *lr_project_describe(const struct lr_policy *policy);

/*
 * The installation of COMMAND that --add-exec grants for reading and
 * execution besides COMMAND itself, appended to OUT: the npm or bun package
 * holding COMMAND's real path (~/.npm-global/lib/node_modules/@openai/codex,
 * whose node_modules hold the native binary it starts), and the interpreter
 * a script names (#!/usr/bin/env node, looked up in SEARCH_PATH: an nvm
 * node), unless in a system tree.  0, or -ENOMEM.
 */
int lr_project_installation(const char *command, const char *search_path,
			    struct lr_strlist *out);

#endif /* LANDRUN_PROJECT_H */
