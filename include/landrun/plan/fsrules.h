/* SPDX-License-Identifier: MIT */
/*
 * The file system rules as resolved: each grant opened (O_PATH) with its
 * rights, and the holes the scan found in them (secrets, protected paths).
 * Data only: sandbox/landlock.c and confine/scan.c fill them, sandbox/
 * enforces them; --explain and the audit log describe them.
 */
#ifndef LANDRUN_FSRULES_H
#define LANDRUN_FSRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landrun/policy/policy.h"

struct lr_fs_rule {
	int fd;			/* O_PATH */
	bool is_dir;
	bool carved;		/* made by carving the grant around what it must not reach */
	uint64_t rights;
	char *realpath;		/* canonical path of the inode FD holds */
	const struct lr_grant *grant;	/* the grant it comes from */
};

struct lr_fs_rules {
	struct lr_fs_rule *v;
	size_t n;
};

enum lr_hole_kind {
	LR_HOLE_SECRET,		/* no right at all */
	LR_HOLE_PROTECTED,	/* read-only: nothing that writes, creates or removes */
};

struct lr_hole {
	char *path;		/* canonical; it may not exist yet (a hooksPath to be made) */
	enum lr_hole_kind kind;
	char *why;		/* for messages: "a secret file", "git runs it" */
	bool carved;		/* a grant was carved around it (landlock.c) */
	bool brokered;		/* Landlock lets it be read (its directory gives what is made
				 * there): the broker keeps it out (broker.h) */
};

struct lr_holes {
	struct lr_hole *v;
	size_t n;
	size_t entries;		/* entries looked at, over all walks */
};

#endif /* LANDRUN_FSRULES_H */
