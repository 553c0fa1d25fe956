/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "landrun/landlock_uapi.h"
#include "landrun/plan.h"

#define FS_FILE_RO LANDLOCK_ACCESS_FS_READ_FILE
#define FS_DIR_RO (FS_FILE_RO | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_FILE_RW (FS_FILE_RO | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
		    LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* Everything in a tree but creating device nodes. */
#define FS_DIR_RW (FS_DIR_RO | FS_FILE_RW | LANDLOCK_ACCESS_FS_REMOVE_DIR |                \
		   LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |           \
		   LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |             \
		   LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |             \
		   LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

static const struct {
	struct lr_prot_info info;
	uint64_t fs_rights;	/* Landlock rights that carry it, if any */
} prots[LR_PROT_COUNT] = {
	[LR_PROT_FS_READ] = { { "fs.read",
		"reading files and listing directories outside the grants is denied",
		"Landlock (Linux 5.13+, enabled in the lsm= boot list)" },
		LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR },
	[LR_PROT_FS_WRITE] = { { "fs.write",
		"writing, creating, removing, renaming and linking outside the read-write grants is denied",
		"Landlock (Linux 5.13+, enabled in the lsm= boot list)" },
		LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG },
	[LR_PROT_FS_EXEC] = { { "fs.exec",
		"executing files outside the --rox/--rwx grants is denied",
		"Landlock (Linux 5.13+, enabled in the lsm= boot list)" },
		LANDLOCK_ACCESS_FS_EXECUTE },
	[LR_PROT_FS_TRUNCATE] = { { "fs.truncate",
		"truncating files outside the read-write grants is denied",
		"Landlock ABI 3 (Linux 6.2+)" },
		LANDLOCK_ACCESS_FS_TRUNCATE },
	[LR_PROT_FS_IOCTL_DEV] = { { "fs.ioctl-dev",
		"ioctl on device files outside the read-write grants is denied",
		"Landlock ABI 5 (Linux 6.10+)" },
		LANDLOCK_ACCESS_FS_IOCTL_DEV },
	[LR_PROT_NO_NEW_PRIVS] = { { "privs.no-new-privs",
		"setuid, setgid and file capabilities grant nothing on exec", "prctl(PR_SET_NO_NEW_PRIVS)" } },
	[LR_PROT_CAPS] = { { "privs.capabilities",
		"every capability set is empty (when started with any)", "libcap-ng" } },
	[LR_PROT_ENV] = { { "env.filtered",
		"the command sees only the allowed environment variables", "-" } },
	[LR_PROT_FDS] = { { "fds.closed",
		"file descriptors other than 0, 1, 2 and --keep-fd are closed", "-" } },
};

const struct lr_prot_info *lr_prot_info(enum lr_prot prot)
{
	return &prots[prot].info;
}

const char *lr_layer_name(enum lr_layer layer)
{
	switch (layer) {
	case LR_LAYER_LANDLOCK:
		return "landlock";
	case LR_LAYER_SECCOMP:
		return "seccomp";
	case LR_LAYER_LAUNCHER:
		return "landrun";
	case LR_LAYER_NONE:
		break;
	}
	return "none";
}

static void set_row(struct lr_plan *plan, enum lr_prot prot, bool requested, enum lr_layer layer)
{
	plan->rows[prot].requested = requested;
	plan->rows[prot].layer = requested ? layer : LR_LAYER_NONE;
}

void lr_plan_compute(const struct lr_policy *policy, const struct lr_features *features,
		     struct lr_plan *plan)
{
	uint64_t fs_known;
	bool fs = !policy->unrestricted_fs;

	memset(plan, 0, sizeof(*plan));
	plan->abi_kernel = features->landlock_abi;
	plan->abi = lr_landlock_abi_used(features->landlock_abi);
	plan->landlock_errno = features->landlock_errno;
	fs_known = lr_landlock_fs_rights(plan->abi);

	for (int p = LR_PROT_FS_READ; p <= LR_PROT_FS_IOCTL_DEV; p++) {
		bool known = (prots[p].fs_rights & ~fs_known) == 0;

		set_row(plan, p, fs, known ? LR_LAYER_LANDLOCK : LR_LAYER_NONE);
	}
	if (fs)
		plan->handled_fs = fs_known;

	set_row(plan, LR_PROT_NO_NEW_PRIVS, true, LR_LAYER_LAUNCHER);
	set_row(plan, LR_PROT_CAPS, true, LR_LAYER_LAUNCHER);
	set_row(plan, LR_PROT_ENV, true, LR_LAYER_LAUNCHER);
	set_row(plan, LR_PROT_FDS, true, LR_LAYER_LAUNCHER);

	if (plan->handled_fs || plan->handled_net || plan->scoped) {
		/* landrun's own witness denial is not worth an audit record;
		 * the command's denials are (the default for a new exec). */
		plan->restrict_flags = lr_landlock_restrict_flags(plan->abi) &
				       LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF;
	}
}

bool lr_plan_is_lost(const struct lr_plan *plan, enum lr_prot prot)
{
	return plan->rows[prot].requested && plan->rows[prot].layer == LR_LAYER_NONE;
}

unsigned lr_plan_count_lost(const struct lr_plan *plan)
{
	unsigned n = 0;

	for (int p = 0; p < LR_PROT_COUNT; p++)
		n += lr_plan_is_lost(plan, p);
	return n;
}

void lr_plan_lose_layer(struct lr_plan *plan, enum lr_layer layer)
{
	for (int p = 0; p < LR_PROT_COUNT; p++)
		if (plan->rows[p].requested && plan->rows[p].layer == layer)
			plan->rows[p].layer = LR_LAYER_NONE;
}

uint64_t lr_plan_fs_rights(const struct lr_plan *plan, unsigned access, bool is_dir)
{
	uint64_t r;

	if (access & LR_ACCESS_RW)
		r = is_dir ? FS_DIR_RW : FS_FILE_RW;
	else
		r = is_dir ? FS_DIR_RO : FS_FILE_RO;
	if (access & LR_ACCESS_X)
		r |= LANDLOCK_ACCESS_FS_EXECUTE;
	return r & plan->handled_fs;
}
