/* SPDX-License-Identifier: MIT */
/*
 * --user USER[:GROUP]: who the command runs as.  Names are looked up by
 * reading /etc/passwd and /etc/group (fgetpwent, fgetgrent), not through
 * NSS: landrun is linked statically, and glibc's NSS needs shared libraries.
 */
#ifndef LANDRUN_USER_H
#define LANDRUN_USER_H

#include <stdbool.h>
#include <stddef.h>

#include "landrun/policy/policy.h"

#define LR_PASSWD_FILE "/etc/passwd"
#define LR_GROUP_FILE "/etc/group"

/*
 * Resolve SPEC, "USER" or "USER:GROUP" (names or numbers), with the files
 * PASSWD and GROUP.  Without GROUP, the user's primary group from PASSWD.
 * 0, or -EINVAL (-ENOENT: not found) with one line naming the culprit in ERR.
 */
int lr_user_resolve(const char *spec, const char *passwd, const char *group,
		    struct lr_run_as *out, char *err, size_t errlen);

/*
 * Become U for good: supplementary groups just U's group, then the real,
 * effective and saved gids, then uids (which empties the permitted and
 * effective capability sets), each checked back.  Needs CAP_SETGID and
 * CAP_SETUID.  0, or -errno with ERR.
 */
int lr_user_switch(const struct lr_run_as *u, char *err, size_t errlen);

/*
 * Give up what landrun started with: when privileged, with SWITCH (--user,
 * started as root) the bounding set first (that needs CAP_SETPCAP), then U's
 * ids (CAP_SETUID, CAP_SETGID), then every capability.  The command and the
 * supervisor alike.  0, or -errno with ERR.
 */
int lr_user_drop_privileges(const struct lr_run_as *u, bool do_switch, char *err,
			    size_t errlen);

/*
 * Make files as U (the filesystem ids only), so that what landrun creates for
 * the command (--mkdir, --private-tmp) is the command's: lr_user_fs_enter,
 * the calls, lr_user_fs_leave.  U NULL: nothing to do.  0, or -EPERM if the
 * ids did not change.
 */
int lr_user_fs_enter(const struct lr_run_as *u);
int lr_user_fs_leave(const struct lr_run_as *u);

#endif /* LANDRUN_USER_H */
