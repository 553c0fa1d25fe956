/* SPDX-License-Identifier: MIT */
#include <cap-ng.h>
#include <errno.h>
#include <stdio.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/caps.h"

/*
 * One capget(2) instead of libcap-ng's reads of /proc/self/status: this runs
 * at every start, and most callers hold nothing.  Ambient capabilities are
 * always in both the permitted and inheritable sets, so they are covered.
 */
bool lr_caps_privileged(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (getuid() == 0 || geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return true; /* cannot tell: assume the worst */
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return true;
	return false;
}

/* The kernel answers EINVAL past the last capability it knows. */
static bool bounding_set_empty(void)
{
	for (int cap = 0;; cap++) {
		int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (r < 0)
			return errno == EINVAL && cap > 0;
		if (r > 0)
			return false;
	}
}

int lr_caps_drop_bounding(char *err, size_t errlen)
{
	capng_clear(CAPNG_SELECT_BOUNDS);
	if (capng_apply(CAPNG_SELECT_BOUNDS) < 0 || !bounding_set_empty()) {
		snprintf(err, errlen, "cannot empty the capability bounding set (libcap-ng)");
		return -EPERM;
	}
	return 0;
}

int lr_caps_drop(char *err, size_t errlen)
{
	/* the bounding set needs CAP_SETPCAP, which --user has given up */
	capng_select_t sets = CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT;

	if (!bounding_set_empty())
		sets |= CAPNG_SELECT_BOUNDS;
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(sets) < 0) {
		snprintf(err, errlen, "cannot empty the capability sets (libcap-ng)");
		return -EPERM;
	}
	/* check what the kernel now says, not what libcap-ng believes */
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_get_caps_process() < 0) {
		snprintf(err, errlen, "cannot read the capability sets back");
		return -EIO;
	}
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE ||
	    capng_have_capabilities(CAPNG_SELECT_AMBIENT) != CAPNG_NONE || !bounding_set_empty()) {
		snprintf(err, errlen, "capabilities remain after dropping them");
		return -EPERM;
	}
	return 0;
}

int lr_caps_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return -EPERM;
	return 0;
}
