/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_EXEC_H
#define LANDRUN_EXEC_H

#include <stddef.h>

#include "landrun/policy/policy.h"

/*
 * Find CMD as a shell would: a name with a '/' is used as it is, any other is
 * looked up in SEARCH_PATH (the caller's PATH, or the system default if NULL).
 * Returns 0 with a malloc'd *OUT; -ENOENT if nothing was found, -EACCES if
 * only non-executable files were.
 */
int lr_exec_resolve(const char *cmd, const char *search_path, char **out);

/*
 * Close every file descriptor from 3 up, but those in KEEP (N entries), which
 * lose FD_CLOEXEC.  0, or -errno (-EBADF naming no fd: a kept fd is not open,
 * and *BAD is set to it).
 */
int lr_exec_close_fds(const int *keep, size_t n, int *bad);

/*
 * Set the resource limits of LIMITS (enum lr_limit order), soft and hard
 * alike; RLIMIT_CORE, when not set, to 0 (no core dumps: the command's memory
 * holds what it was given).  0, or -errno with *BAD the enum lr_limit that
 * failed (raising a hard limit needs CAP_SYS_RESOURCE).
 */
int lr_exec_set_limits(const struct lr_limit_setting *limits, int *bad);

#endif /* LANDRUN_EXEC_H */
