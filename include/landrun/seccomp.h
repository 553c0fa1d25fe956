/* SPDX-License-Identifier: MIT */
/*
 * The seccomp backend: a libseccomp filter built from the plan, loaded last,
 * just before execve.  Default allow, with the denials below; a system call
 * through a foreign ABI kills the process.
 */
#ifndef LANDRUN_SECCOMP_H
#define LANDRUN_SECCOMP_H

#include <seccomp.h>
#include <stddef.h>

#include "landrun/plan.h"

/* Build the filter the plan asks for.  Returns the context, or NULL with ERR. */
scmp_filter_ctx lr_seccomp_build(const struct lr_plan *plan, char *err, size_t errlen);

/* Load it into the calling thread.  0, or -errno with ERR. */
int lr_seccomp_load(scmp_filter_ctx ctx, char *err, size_t errlen);

/* After loading: 0 if a call the filter must deny is denied, -EPERM if not. */
int lr_seccomp_witness_check(void);

#endif /* LANDRUN_SECCOMP_H */
