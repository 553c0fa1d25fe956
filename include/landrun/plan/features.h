/* SPDX-License-Identifier: MIT */
/*
 * What the running kernel offers, and the one table that says which Landlock
 * rights and flags exist at each ABI.  Everything else asks this table.
 */
#ifndef LANDRUN_FEATURES_H
#define LANDRUN_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The newest Landlock ABI whose rights landrun knows.  Newer kernels are
 * used at this level: what landrun does not know it neither asks for nor
 * claims. */
#define LR_LANDLOCK_ABI_KNOWN 10

struct lr_features {
	int landlock_abi;	/* as the kernel reports it; 0 if unavailable */
	int landlock_errno;	/* why unavailable: ENOSYS, EOPNOTSUPP, ...; 0 if available */
	uint32_t landlock_errata; /* the kernel's errata bitmask, 0 if it cannot say */
	bool seccomp_filter;	/* seccomp filters with SECCOMP_RET_KILL_PROCESS */
	bool seccomp_by_prctl;	/* ... that only prctl(PR_SET_SECCOMP) loads: the caller's
				 * filter refuses seccomp(2) (seccomp_errno) */
	int seccomp_errno;	/* why seccomp(2) failed, 0 if it did not */
	bool caller_filtered;	/* landrun runs under a seccomp filter of its caller's
				 * (a container engine's profile) */
	bool seccomp_notify;	/* user notification with SECCOMP_ADDFD_FLAG_SEND (5.14), and
				 * openat2 (the broker, broker.h) */
	bool pidfd_getfd;	/* pidfd_getfd(2) works here (5.6; a container engine's
				 * profile may refuse it without CAP_SYS_PTRACE): the
				 * broker takes the command's socket with it to connect it
				 * (without it, it connects one of its own in its place).
				 * Asked only where that is wanted (egress(), with no network
				 * namespace): lr_features_probe_pidfd_getfd */
	int ptrace_scope;	/* kernel.yama.ptrace_scope; -1 without Yama.  With 1 only
				 * a process's ancestors read its memory (the broker is
				 * then the command's parent), from 2 none */

	/* The process landrun runs as, probed with the kernel. */
	uid_t uid;		/* real user and group ids */
	gid_t gid;
	bool uid0;		/* the real, effective or saved uid is 0 */
	bool terminal;		/* a terminal within the command's reach (below) */
	bool terminal_foreign;	/* one that is not landrun's controlling terminal */
	bool terminal_relayed;	/* the controlling terminal is a pty the supervisor relays */
	int netns_errno;	/* why no network namespace could be made (egress.h), 0 if it
				 * could or nobody asked */
};

/* Ask the kernel (and the process).  Never fails: an unavailable Landlock is
 * ABI 0. */
void lr_features_probe(struct lr_features *f);

/* Can this process take a descriptor of a process's with pidfd_getfd(2)?
 * (Its own: a caller's seccomp filter decides by the call, not by whose.) */
bool lr_features_probe_pidfd_getfd(void);

/*
 * Is a terminal within the command's reach: landrun's controlling terminal
 * (which /dev/tty opens), or a terminal on fd 0, 1, 2 or one of FDS (the
 * descriptors it keeps)?  A terminal descriptor that is not the controlling
 * one (another session's, a pty master) is foreign: job control does not
 * apply to it.  When it cannot tell, it says there is one.
 */
void lr_features_probe_terminal(struct lr_features *f, const int *fds, size_t n);

/* The ABI landrun uses on a kernel reporting ABI: min(abi, LR_LANDLOCK_ABI_KNOWN). */
int lr_landlock_abi_used(int abi);

/* Rights and flags that exist at ABI (0 at ABI 0; capped at what landrun knows). */
uint64_t lr_landlock_fs_rights(int abi);
uint64_t lr_landlock_net_rights(int abi);
uint64_t lr_landlock_scopes(int abi);
uint32_t lr_landlock_restrict_flags(int abi);
/* The smallest ABI at which every bit of the given rights exists (0 if none given). */
int lr_landlock_fs_min_abi(uint64_t rights);
int lr_landlock_net_min_abi(uint64_t rights);
int lr_landlock_scope_min_abi(uint64_t scopes);

/* Size of struct landlock_ruleset_attr to pass at ABI. */
size_t lr_landlock_attr_size(int abi);

#endif /* LANDRUN_FEATURES_H */
