/* SPDX-License-Identifier: MIT */
/*
 * The plan: policy x kernel features -> for each protection the user asked
 * for, the layer that enforces it on this kernel, or why none can.  A pure
 * function of its inputs, so it is tested for every ABI without that kernel.
 */
#ifndef LANDRUN_PLAN_H
#define LANDRUN_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/plan/features.h"
#include "landrun/policy/policy.h"

/* Protections, named by what they guard. */
enum lr_prot {
	LR_PROT_FS_READ,
	LR_PROT_FS_WRITE,
	LR_PROT_FS_EXEC,
	LR_PROT_FS_TRUNCATE,
	LR_PROT_FS_IOCTL_DEV,
	LR_PROT_FS_SECRETS,
	LR_PROT_FS_PROTECTED,
	LR_PROT_FS_BROKER,
	LR_PROT_NET_SOCKETS,
	LR_PROT_NET_TCP,
	LR_PROT_NET_UDP,
	LR_PROT_NET_UNIX,
	LR_PROT_NET_EGRESS,
	LR_PROT_SCOPE_ABSTRACT_UNIX,
	LR_PROT_SCOPE_SIGNAL,
	LR_PROT_PROC_OTHERS,
	LR_PROT_IPC_SYSV,
	LR_PROT_KERNEL_SURFACE,
	LR_PROT_KERNEL_FOREIGN_ABI,
	LR_PROT_NO_SUBPROCESS,
	LR_PROT_TTY_FOREGROUND,
	LR_PROT_NO_NEW_PRIVS,
	LR_PROT_CAPS,
	LR_PROT_ROOT_METADATA,
	LR_PROT_ENV,
	LR_PROT_FDS,
	LR_PROT_COUNT
};

/* Who enforces a protection. */
enum lr_layer {
	LR_LAYER_NONE,		/* nothing: the protection is lost on this kernel */
	LR_LAYER_LANDLOCK,
	LR_LAYER_SECCOMP,
	LR_LAYER_LAUNCHER,	/* landrun itself, before exec (prctl, capset, execve) */
	LR_LAYER_NETNS,		/* a network namespace whose only way out is landrun's proxy */
	LR_LAYER_BROKER,	/* landrun's broker, through seccomp user notification */
};

/* How the command reaches the --allow-domain destinations. */
enum lr_egress_mode {
	LR_EGRESS_OFF,		/* no --allow-domain */
	LR_EGRESS_NETNS,	/* the proxy, in a network namespace with only lo */
	LR_EGRESS_LOOPBACK,	/* the proxy on the host's 127.0.0.1, and a Landlock connect
				 * rule for its port (on any address: net.egress-domains lost) */
};

struct lr_prot_info {
	const char *id;		/* stable, for JSON: "fs.read" */
	const char *what;	/* what it guards, for humans */
	const char *needs;	/* the kernel feature it needs when it is lost */
};

struct lr_plan_row {
	bool requested;
	enum lr_layer layer;
};

struct lr_plan {
	int abi_kernel;		/* what the kernel reported (0: none) */
	int abi;		/* what landrun uses: min(kernel, known) */
	int landlock_errno;
	uint32_t landlock_errata;
	bool caller_filtered;	/* landrun runs under its caller's seccomp filter */
	int ptrace_scope;	/* kernel.yama.ptrace_scope (features.h) */
	int seccomp_errno;	/* why seccomp(2) failed (features.h), 0 if it did not */
	bool seccomp_by_prctl;	/* the filter is loaded by prctl: the caller's refuses seccomp(2) */
	struct lr_plan_row rows[LR_PROT_COUNT];

	/* What the Landlock backend is to do (all zero: no ruleset). */
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
	uint32_t restrict_flags;
	uint16_t egress_port;	/* a TCP connect rule for the proxy's port, once it listens */
	bool broker_connect;	/* no network namespace: the broker connects the command to
				 * the proxy, and its port is no rule of the command's (so no
				 * other address on it is reachable) */
	bool broker_connect_own; /* ... and, without pidfd_getfd (a container engine's
				 * profile), with a TCP socket of its own that takes the
				 * command's socket's place */

	enum lr_egress_mode egress;
	int netns_errno;	/* LR_EGRESS_LOOPBACK: why there is no namespace */

	/* What the seccomp backend is to do (seccomp false: no filter). */
	bool seccomp;
	struct lr_seccomp_net {
		bool restricted;	/* false: any socket (--unrestricted-network) */
		bool tcp;		/* AF_INET/AF_INET6 TCP sockets may be created */
		bool listen;		/* listen() allowed (bind ports given, or no TCP) */
		bool udp;		/* AF_INET/AF_INET6 UDP sockets may be created */
		bool unix_socket;	/* socket(AF_UNIX) allowed, not only socketpair */
	} net;
	bool deny_subprocess;
	bool deny_root_metadata;	/* the chmod/chown/xattr family (the command is uid 0) */
	bool broker_metadata;	/* ... but chmod and chown go to the broker, which makes
				 * them beneath its roots (uid 0 with the broker) */
	bool deny_terminal;	/* leaving job control: setsid, TIOCSPGRP... (a terminal) */
	bool deny_sysv_ipc;	/* shmget, msgget, semget... (no --allow-sysv-ipc) */
	bool tracer;		/* the filter of landrun's tracer itself (--report-denials):
				 * ptrace allowed */
	bool deny_changes;	/* landrun's tracer or egress helper: no file changed,
				 * nothing executed */
	bool deny_exec;		/* landrun's own processes: no program executed */
	bool broker_self;	/* the filter of landrun's broker itself: it may take
				 * the command's socket (pidfd_getfd) to bind it */
	bool broker;		/* the broker serves the writable grants (broker.h) */
	bool broker_parent;	/* ... as the command's parent (Yama's ptrace_scope 1) */

	/* Who the command runs as. */
	uid_t uid;
	gid_t gid;
	bool switch_user;	/* landrun becomes uid:gid first (--user, started as root) */
};

void lr_plan_compute(const struct lr_policy *policy, const struct lr_features *features,
		     struct lr_plan *plan);

/* Requested protections without a layer. */
unsigned lr_plan_count_lost(const struct lr_plan *plan);
bool lr_plan_is_lost(const struct lr_plan *plan, enum lr_prot prot);

/* Mark every requested protection carried by LAYER as lost (a failed witness). */
void lr_plan_lose_layer(struct lr_plan *plan, enum lr_layer layer);

/* Landlock rights for a grant with ACCESS (enum lr_access) on a directory or a
 * file, limited to what the plan handles. */
uint64_t lr_plan_fs_rights(const struct lr_plan *plan, unsigned access, bool is_dir);

/* Landlock network rights for --connect-tcp / --bind-tcp ranges. */
uint64_t lr_plan_net_connect_rights(const struct lr_plan *plan);
uint64_t lr_plan_net_bind_rights(const struct lr_plan *plan);

const struct lr_prot_info *lr_prot_info(enum lr_prot prot);

/*
 * Why PROT is lost, for a message: what it needs (lr_prot_info), and what
 * is known of the cause here when it is not the kernel's lack: the caller's
 * seccomp filter (a container engine's profile) refused landlock_* or
 * seccomp.  BUF, or the info's static text.
 */
const char *lr_plan_lost_why(const struct lr_plan *plan, enum lr_prot prot, char *buf, size_t len);

/* The cause of an unavailable Landlock, in words ("not built into this
 * kernel (ENOSYS)", "the caller's seccomp filter refused ..."). */
const char *lr_plan_landlock_cause(const struct lr_plan *plan, char *buf, size_t len);
const char *lr_layer_name(enum lr_layer layer);

#endif /* LANDRUN_PLAN_H */
