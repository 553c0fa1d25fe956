/* SPDX-License-Identifier: MIT */
/*
 * --private-tmp and --private-home: one new directory under /tmp for a run,
 * /tmp/landrun.PID.XXXXXX (mode 0700), whose tmp/ and home/ become the
 * command's TMPDIR and HOME.  landrun execs in place, so nothing is left to
 * remove it when the command ends: each new one first removes those of
 * earlier runs whose process is gone.
 */
#ifndef LANDRUN_PRIVDIR_H
#define LANDRUN_PRIVDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Remove the private directories of OWNER's earlier runs whose process (the
 * PID in the name) no longer exists, then make a new one for this process
 * with tmp/ (if TMP) and home/ (if HOME) in it.  *DIR receives its path
 * (malloc'd).  0, or -errno with ERR naming the path.
 */
int lr_privdir_make(bool tmp, bool home, uid_t owner, char **dir, char *err, size_t errlen);

#endif /* LANDRUN_PRIVDIR_H */
