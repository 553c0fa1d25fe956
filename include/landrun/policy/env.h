/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_ENV_H
#define LANDRUN_ENV_H

#include "landrun/lib/util.h"
#include "landrun/policy/policy.h"

/*
 * The command's environment, built from nothing: a variable passes only if a
 * rule of POLICY selects it.  Sources, weakest first: CALLER (a NULL-terminated
 * environ), FILE (the --env-file's pairs; may be NULL), then --env NAME=VALUE.
 * OUT receives "NAME=VALUE" strings.  0 or -ENOMEM.
 */
int lr_env_build(const struct lr_policy *policy, char *const *caller, const struct lr_kvlist *file,
		 struct lr_strlist *out);

/*
 * The command's TMPDIR (in ENVP) must be its own: / , /tmp, /var/tmp,
 * /dev/shm or a directory holding HOME would hand other programs' files
 * and sockets, or the user's home, to a grant of it.  0, or -EPERM with ERR.
 */
int lr_env_check_tmpdir(char *const *envp, const char *home, char *err, size_t errlen);

/* Set NAME to VALUE in ENV ("NAME=VALUE" strings): an entry for NAME is
 * replaced, else one added.  0 or -ENOMEM. */
int lr_env_set(struct lr_strlist *env, const char *name, const char *value);

/* The value of NAME in a NULL-terminated environ, or NULL. */
const char *lr_env_lookup(char *const *envp, const char *name);

#endif /* LANDRUN_ENV_H */
