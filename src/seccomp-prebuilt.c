/* SPDX-License-Identifier: MIT */
/*
 * Load the filter that lr-seccomp-gen compiled with libseccomp at build time
 * for this plan: one seccomp(2) call at run time instead of libseccomp's
 * rule adds and BPF generation (about 1.5 ms, most of landrun's start-up).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/seccomp.h"
#include "seccomp-bpf.h"

const struct sock_fprog *lr_seccomp_prebuilt(const struct lr_plan *plan)
{
	return &lr_bpf[lr_seccomp_key(plan)];
}

int lr_seccomp_load_prebuilt(const struct lr_plan *plan, char *err, size_t errlen)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, lr_seccomp_prebuilt(plan)) < 0) {
		int e = errno;

		snprintf(err, errlen, "seccomp: cannot load the filter: %s", strerror(e));
		return -e;
	}
	return 0;
}

const struct sock_fprog *lr_seccomp_prebuilt_egress(void)
{
	return &lr_bpf_egress;
}

int lr_seccomp_load_egress(char *err, size_t errlen)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, lr_seccomp_prebuilt_egress()) < 0) {
		int e = errno;

		snprintf(err, errlen, "seccomp: cannot load the egress helper's filter: %s",
			 strerror(e));
		return -e;
	}
	return 0;
}

int lr_seccomp_witness_check(void)
{
	/* unshare(0) changes nothing, and the filter denies every unshare */
	if (syscall(SYS_unshare, 0) == 0)
		return -EPERM;
	return errno == EPERM ? 0 : -errno;
}
