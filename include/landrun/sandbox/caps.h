/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_CAPS_H
#define LANDRUN_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/* True when running as root or holding any capability (effective, permitted,
 * inheritable or ambient). */
bool lr_caps_privileged(void);

/*
 * Empty every capability set: effective, permitted, inheritable, ambient and
 * the bounding set, then check what the kernel says of all five.  0, or
 * -errno with a one-line reason in ERR.
 */
int lr_caps_drop(char *err, size_t errlen);

/* Empty the bounding set alone (it needs CAP_SETPCAP: before --user gives
 * that up).  0, or -errno with ERR. */
int lr_caps_drop_bounding(char *err, size_t errlen);

/* Set no_new_privs.  0 or -errno. */
int lr_caps_no_new_privs(void);

#endif /* LANDRUN_CAPS_H */
