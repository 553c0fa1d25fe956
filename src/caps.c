/* SPDX-License-Identifier: MIT */
#include <cap-ng.h>
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "landrun/caps.h"

bool lr_caps_privileged(void)
{
	if (getuid() == 0 || geteuid() == 0)
		return true;
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_get_caps_process() < 0)
		return true; /* cannot tell: assume the worst */
	return capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE ||
	       capng_have_capabilities(CAPNG_SELECT_AMBIENT) != CAPNG_NONE;
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

int lr_caps_drop(char *err, size_t errlen)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) < 0) {
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
