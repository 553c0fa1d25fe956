/* SPDX-License-Identifier: MIT */
/*
 * Policy files: "name = value" lines whose names are exactly the long
 * options, parsed with libinih.  Values may use ${VAR}, ${VAR:-default} and
 * a leading ~; nothing else is expanded and nothing is ever executed.
 */
#ifndef LANDRUN_CONFIG_H
#define LANDRUN_CONFIG_H

#include <stddef.h>

#include "landrun/options.h"
#include "landrun/policy.h"
#include "landrun/util.h"

/* Include nesting deeper than this is refused. */
#define LR_CONFIG_MAX_DEPTH 16

/* Errors: at the file itself (cannot be read, a cycle), or on a line inside it. */
#define LR_CONFIG_ERR_OPEN (-1)
#define LR_CONFIG_ERR_INSIDE (-2)

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
