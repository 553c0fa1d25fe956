/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_EXPOSURE_H
#define LANDRUN_EXPOSURE_H

#include <stddef.h>

#include "landrun/landlock.h"
#include "landrun/policy.h"

/* True for ".env" and ".env.*" file names. */
bool lr_exposure_is_dotenv_name(const char *name);

/*
 * Refuse grants that would hand a secrets file to the command: a granted
 * directory that directly contains a .env or .env.* file, a granted .env
 * file, or a grant that contains the --env-file.  Files accepted with
 * --allow-dotenv pass.  0, or -EACCES (or the -errno of a failed look-up) with
 * a line in ERR naming the file, the grant and the flag that accepts it.
 */
int lr_exposure_check(const struct lr_policy *policy, const struct lr_fs_rules *rules, char *err,
		      size_t errlen);

#endif /* LANDRUN_EXPOSURE_H */
