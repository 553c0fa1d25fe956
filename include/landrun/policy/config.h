/* SPDX-License-Identifier: MIT */
/*
 * Policy files: "name = value" lines whose names are exactly the long
 * options, parsed with libinih.  Values may use ${VAR}, ${VAR:-default} and
 * a leading ~; nothing else is expanded and nothing is ever executed.
 */
#ifndef LANDRUN_CONFIG_H
#define LANDRUN_CONFIG_H

#include <stddef.h>

#include "landrun/lib/util.h"
#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"

/* Include nesting deeper than this is refused. */
#define LR_CONFIG_MAX_DEPTH 16

/* Errors: at the file itself (cannot be read, a cycle), or on a line inside it. */
#define LR_CONFIG_ERR_OPEN (-1)
#define LR_CONFIG_ERR_INSIDE (-2)

/* A line of a policy file holds at most this many bytes besides its newline. */
#define LR_CONFIG_MAX_LINE 65534

/*
 * What in the line LINE (LEN bytes, without its newline) a policy file
 * cannot hold as it shows it, or NULL: a NUL byte (which would cut the value
 * that cat shows whole), a control byte but a tab (a carriage return only at
 * the end: CRLF), a bidirectional override, or more than LR_CONFIG_MAX_LINE
 * bytes.  Into WHY (LEN bytes) as "a NUL byte at column 12".
 */
bool lr_config_line_problem(const char *line, size_t len, char *why, size_t whylen);

/*
 * LINE (one line, no newline) as the policy reader takes it: 1 a setting,
 * *NAME and *VALUE (malloc'd) its name and its value as written (before
 * expansion: what comments and blanks leave of it); 0 a comment or a blank
 * line; -1 anything else (a section, a line without '=', a line
 * lr_config_line_problem refuses); -ENOMEM.
 */
int lr_config_parse_line(const char *line, char **name, char **value);

/* Load the policy file PATH into POLICY.  0, or LR_CONFIG_ERR_* with ERR
 * naming the file, and FILE:LINE for an error inside it. */
int lr_config_load_file(const char *path, struct lr_policy *policy, int depth,
			struct lr_opt_error *err);

/* Look NAME up in the profile directories and load it (from a file:
 * INCLUDED_FROM is its directory, and NAME may also be a path).  0 or
 * LR_CONFIG_ERR_* with ERR. */
int lr_config_load_profile(const char *name, const char *included_from, struct lr_policy *policy,
			   int depth, struct lr_opt_error *err);

/* The directories profiles are looked up in, most specific first. */
int lr_config_profile_dirs(struct lr_strlist *dirs);

/*
 * Expand ${VAR}, ${VAR:-default} (the default may itself use ${...}) and a
 * '~' that starts the value or a comma-separated item, from the caller's
 * environment.  An unset variable without a default is an error.  0, or
 * -EINVAL/-ENOMEM with a reason in ERR.
 */
int lr_config_expand(const char *in, char **out, char *err, size_t errlen);

#endif /* LANDRUN_CONFIG_H */
