/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "landrun/lib/landlock_uapi.h"
#include "landrun/plan/plan.h"

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
	[LR_PROT_FS_SECRETS] = { { "fs.secrets",
		"secret files inside the grants (.env, .env.*, .envrc, *.env, their backups) and "
		"the --env-file are unreadable: the grants are carved around them",
		"Landlock (Linux 5.13+, enabled in the lsm= boot list)" },
		LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR },
	[LR_PROT_FS_PROTECTED] = { { "fs.protected",
		"inside writable grants, what runs code later outside the sandbox (.git, git hook "
		"managers, the harnesses' project settings, shell start-up files) is read-only",
		"Landlock (Linux 5.13+, enabled in the lsm= boot list)" },
		LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG },
	[LR_PROT_FS_BROKER] = { { "fs.broker",
		"inside writable grants, names are made, removed and renamed by landrun's broker: "
		"the protected and secret names are refused whether or not they existed at start, "
		"and the directories carved around what is kept out stay writable",
		"seccomp user notification with SECCOMP_ADDFD_FLAG_SEND (Linux 5.14+), Landlock, "
		"and kernel.yama.ptrace_scope 0 or 1" } },
	[LR_PROT_NET_SOCKETS] = { { "net.sockets",
		"sockets are limited to AF_UNIX (and TCP with --connect-tcp/--bind-tcp): no raw, "
		"packet, MPTCP or netlink sockets but NETLINK_ROUTE",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_NET_TCP] = { { "net.tcp",
		"TCP connects and binds only to the --connect-tcp/--bind-tcp ports (and the proxy's "
		"with --allow-domain); listen only with --bind-tcp (but where UNIX sockets are "
		"allowed, whose servers need listen, also on an ephemeral port)",
		"Landlock ABI 4 (Linux 6.7+)" } },
	[LR_PROT_NET_UDP] = { { "net.udp",
		"no UDP: binding, connecting and sending are denied",
		"seccomp filters (CONFIG_SECCOMP_FILTER), or Landlock ABI 10" } },
	[LR_PROT_NET_UNIX] = { { "net.unix",
		"connecting to pathname UNIX sockets (docker.sock, the D-Bus bus, ssh-agent) is "
		"denied outside the read-write grants and --unix paths",
		"Landlock ABI 9 to confine --unix to its paths (below it, seccomp can only deny "
		"every UNIX socket)" } },
	[LR_PROT_NET_EGRESS] = { { "net.egress-domains",
		"the network is reached only through landrun's proxy, which connects only to the "
		"--allow-domain names (resolved outside) and ports: no other address, no DNS, no "
		"loopback but the --connect-tcp ports",
		"a network namespace: unprivileged user namespaces (user.max_user_namespaces > 0; "
		"on Ubuntu, kernel.apparmor_restrict_unprivileged_userns=0) or CAP_SYS_ADMIN; or, "
		"without one, the broker's connects: Landlock ABI 4 (Linux 6.7+), seccomp user "
		"notification (Linux 5.14+) and kernel.yama.ptrace_scope 0 or 1" } },
	[LR_PROT_SCOPE_ABSTRACT_UNIX] = { { "scope.abstract-unix",
		"connecting to abstract UNIX sockets outside the sandbox is denied",
		"Landlock ABI 6 (Linux 6.12+)" } },
	[LR_PROT_SCOPE_SIGNAL] = { { "scope.signal",
		"signalling processes outside the sandbox is denied",
		"Landlock ABI 6 (Linux 6.12+)" } },
	[LR_PROT_PROC_OTHERS] = { { "proc.others",
		"the limits, priority, scheduling, I/O priority and memory of other processes "
		"(by pid, process group or user) can be neither changed nor read: prlimit64, "
		"setpriority, sched_set*, ioprio_set and the like act only on the caller (pid 0)",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_IPC_SYSV] = { { "ipc.sysv",
		"SysV shared memory, message queues and semaphores (shmget, msgget, semget...), "
		"which are the whole system's and which Landlock does not cover, are denied",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_KERNEL_SURFACE] = { { "kernel.surface",
		"io_uring, namespaces, mounts, ptrace, bpf, keyrings, perf, module and clock calls, "
		"TIOCSTI and TIOCLINUX are denied",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_KERNEL_FOREIGN_ABI] = { { "kernel.foreign-abi",
		"a system call through another ABI (32-bit int 0x80, x32) kills the process",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_NO_SUBPROCESS] = { { "proc.no-subprocess",
		"the command can create no new process (threads still work)",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
	[LR_PROT_TTY_FOREGROUND] = { { "tty.foreground",
		"no process of the sandbox can take the terminal's foreground or leave its job control "
		"(TIOCSPGRP, TIOCSCTTY, TIOCNOTTY, setsid and setpgid into an existing group are "
		"denied): once the command has exited, none can read what is typed at the terminal",
		"seccomp filters (CONFIG_SECCOMP_FILTER), and no terminal but landrun's controlling "
		"one on fds 0-2 and --keep-fd (job control does not guard another)" } },
	[LR_PROT_NO_NEW_PRIVS] = { { "privs.no-new-privs",
		"setuid, setgid and file capabilities grant nothing on exec", "prctl(PR_SET_NO_NEW_PRIVS)" } },
	[LR_PROT_CAPS] = { { "privs.capabilities",
		"every capability set is empty (when started with any)", "capset(2) and PR_CAPBSET_DROP" } },
	[LR_PROT_ROOT_METADATA] = { { "privs.root-metadata",
		"running as uid 0, the command cannot change the mode, owner or extended attributes "
		"(ACLs too) of any file, nor create a setuid or setgid one: chmod, chown, setxattr, "
		"removexattr and their fd and *at forms are denied",
		"seccomp filters (CONFIG_SECCOMP_FILTER)" } },
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
	case LR_LAYER_NETNS:
		return "netns";
	case LR_LAYER_BROKER:
		return "broker";
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

/*
 * The network and kernel-surface rows.  Where Landlock can carry a protection
 * on this ABI it does, and seccomp stays out of its way (AF_UNIX from ABI 9,
 * UDP from ABI 10); below that seccomp denies the whole socket kind, which is
 * coarser but holds.
 */
/* --allow-domain: a network namespace, or the proxy on the host's loopback
 * with its port the only connect rule (which any address on that port
 * matches too) */
static void plan_egress(const struct lr_policy *policy, const struct lr_features *features,
			struct lr_plan *plan, bool egress)
{
	bool ll_tcp = (lr_landlock_net_rights(plan->abi) & LANDLOCK_ACCESS_NET_CONNECT_TCP) != 0;

	plan->egress = !egress ? LR_EGRESS_OFF
		       : features->netns_errno ? LR_EGRESS_LOOPBACK
					       : LR_EGRESS_NETNS;
	plan->netns_errno = egress ? features->netns_errno : 0;
	/* ... or, on the loopback, the broker makes the command's connects to
	 * the proxy, and Landlock's TCP rules (which lack the proxy's port)
	 * refuse any other address on that port; as the writable grants'
	 * broker, it must read the caller's memory (Yama).  It connects the
	 * command's own socket, taken with pidfd_getfd; where a container
	 * engine's profile refuses that, a socket of its own, put in its place
	 * with SECCOMP_IOCTL_NOTIF_ADDFD (which seccomp_notify includes) */
	plan->broker_connect = plan->egress == LR_EGRESS_LOOPBACK && ll_tcp &&
			       features->seccomp_notify &&
			       (features->ptrace_scope <= 0 ||
				(features->ptrace_scope == 1 && !policy->report_denials));
	plan->broker_connect_own = plan->broker_connect && !features->pidfd_getfd;
	set_row(plan, LR_PROT_NET_EGRESS, egress,
		plan->egress == LR_EGRESS_NETNS ? LR_LAYER_NETNS
		: plan->broker_connect		? LR_LAYER_BROKER
						: LR_LAYER_NONE);
}

/* TCP, UDP and pathname UNIX sockets: by Landlock where it knows them, else
 * by seccomp (plan->net), which can only allow or deny the whole family */
static void plan_sockets(const struct lr_policy *policy, struct lr_plan *plan, bool egress,
			 enum lr_layer seccomp)
{
	uint64_t net_known = lr_landlock_net_rights(plan->abi);
	bool restricted = !policy->unrestricted_net;
	/* the proxy is reached over TCP, on a port of its own */
	bool tcp = policy->n_connect_tcp || policy->n_bind_tcp || egress;
	bool ll_tcp = (net_known & LANDLOCK_ACCESS_NET_CONNECT_TCP) != 0;
	bool ll_udp = (net_known & LANDLOCK_ACCESS_NET_BIND_UDP) != 0;
	bool ll_unix = (lr_landlock_fs_rights(plan->abi) & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) != 0;
	struct lr_seccomp_net *net = &plan->net;

	/*
	 * TCP: none at all without port flags; with them, Landlock picks the
	 * ports.  To report denials, Landlock denies every port rather than
	 * seccomp every socket, so that the port of a refused connect shows:
	 * only where no AF_UNIX socket can be made (below ABI 9, no --unix),
	 * as listen(), denied then, has nothing else to listen on.
	 */
	if (policy->report_denials && !tcp && ll_tcp && !ll_unix && !policy->n_unix_paths)
		tcp = true;
	net->tcp = !restricted || tcp;
	/* listen(2): not for TCP without --bind-tcp; but seccomp cannot tell a
	 * TCP socket's listen from a UNIX one's, and UNIX servers (a harness's
	 * daemon, language servers) need it where UNIX sockets are allowed */
	net->listen = !restricted || !tcp || policy->n_bind_tcp || ll_unix || policy->n_unix_paths;
	set_row(plan, LR_PROT_NET_TCP, restricted,
		!tcp ? seccomp : ll_tcp ? LR_LAYER_LANDLOCK : LR_LAYER_NONE);
	if (restricted && tcp && ll_tcp)
		plan->handled_net |= LANDLOCK_ACCESS_NET_CONNECT_TCP | LANDLOCK_ACCESS_NET_BIND_TCP;

	/* UDP: Landlock from ABI 10 (no port is granted), else seccomp */
	net->udp = !restricted || ll_udp;
	set_row(plan, LR_PROT_NET_UDP, restricted, ll_udp ? LR_LAYER_LANDLOCK : seccomp);
	if (restricted && ll_udp)
		plan->handled_net |= LANDLOCK_ACCESS_NET_BIND_UDP | LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP;

	/* pathname UNIX sockets: Landlock from ABI 9; below it, socket(AF_UNIX)
	 * is denied unless --unix asks for one, which then cannot be confined */
	net->unix_socket = !restricted || ll_unix || policy->n_unix_paths;
	if (restricted && ll_unix)
		plan->handled_fs |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	set_row(plan, LR_PROT_NET_UNIX, restricted,
		ll_unix ? LR_LAYER_LANDLOCK : policy->n_unix_paths ? LR_LAYER_NONE : seccomp);
}

/* IPC scopes: Landlock from ABI 6; abstract sockets also die with
 * socket(AF_UNIX) under seccomp (plan_sockets() has decided it) */
static void plan_scopes(const struct lr_policy *policy, struct lr_plan *plan,
			enum lr_layer seccomp)
{
	bool ll_scopes = (lr_landlock_scopes(plan->abi) & LANDLOCK_SCOPE_SIGNAL) != 0;

	if (!policy->unrestricted_scoped && ll_scopes)
		plan->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	set_row(plan, LR_PROT_SCOPE_ABSTRACT_UNIX, !policy->unrestricted_scoped,
		ll_scopes ? LR_LAYER_LANDLOCK : !plan->net.unix_socket ? seccomp : LR_LAYER_NONE);
	set_row(plan, LR_PROT_SCOPE_SIGNAL, !policy->unrestricted_scoped,
		ll_scopes ? LR_LAYER_LANDLOCK : LR_LAYER_NONE);
}

/* the terminal: job control keeps a background process from reading it, as
 * long as no process can leave the session or the job */
static void plan_terminal(const struct lr_features *features, struct lr_plan *plan,
			  enum lr_layer seccomp)
{
	/* (with --pty the terminal is the command's own pty, which landrun
	 * relays and closes when the command ends: nothing to deny) */
	bool relayed = features->terminal_relayed && !features->terminal_foreign;

	plan->deny_terminal = features->terminal && !relayed;
	set_row(plan, LR_PROT_TTY_FOREGROUND, features->terminal,
		relayed			     ? LR_LAYER_LAUNCHER
		: features->terminal_foreign ? LR_LAYER_NONE
					     : seccomp);
}

/* The network, the IPC scopes and what seccomp alone denies. */
static void plan_network(const struct lr_policy *policy, const struct lr_features *features,
			 struct lr_plan *plan)
{
	enum lr_layer seccomp = features->seccomp_filter ? LR_LAYER_SECCOMP : LR_LAYER_NONE;
	bool restricted = !policy->unrestricted_net;
	bool egress = restricted && policy->n_allow_domains;

	plan->seccomp = features->seccomp_filter;
	plan->deny_subprocess = policy->deny_subprocess;
	plan->net.restricted = restricted;

	set_row(plan, LR_PROT_NET_SOCKETS, restricted, seccomp);
	plan_egress(policy, features, plan, egress);
	plan_sockets(policy, plan, egress, seccomp);
	plan_scopes(policy, plan, seccomp);

	set_row(plan, LR_PROT_PROC_OTHERS, true, seccomp);
	plan->deny_sysv_ipc = !policy->allow_sysv_ipc;
	set_row(plan, LR_PROT_IPC_SYSV, !policy->allow_sysv_ipc, seccomp);
	set_row(plan, LR_PROT_KERNEL_SURFACE, true, seccomp);
	set_row(plan, LR_PROT_KERNEL_FOREIGN_ABI, true, seccomp);
	set_row(plan, LR_PROT_NO_SUBPROCESS, policy->deny_subprocess, seccomp);

	plan_terminal(features, plan, seccomp);
}

/* The broker: for writable grants but landrun's private directories (which
 * nothing runs from later), over Landlock's carving. */
static void plan_broker(const struct lr_policy *policy, const struct lr_features *features,
			struct lr_plan *plan)
{
	bool writable = false;

	for (size_t i = 0; i < policy->n_grants && !policy->unrestricted_fs; i++) {
		const struct lr_grant *g = &policy->grants[i];

		writable |= (g->access & LR_ACCESS_RW) && !(g->access & LR_ACCESS_UNIX) &&
			    !lr_policy_grant_private(g);
	}
	/* Yama's 1 lets a process read only its descendants' memory: the
	 * broker is then the command's parent (not with --report-denials,
	 * whose tracer is); 2 and 3 let it read none */
	plan->broker_parent = features->ptrace_scope == 1;
	plan->broker = writable && features->seccomp_notify && plan->handled_fs &&
		       (features->ptrace_scope <= 0 ||
			(plan->broker_parent && !policy->report_denials));
	set_row(plan, LR_PROT_FS_BROKER, writable,
		plan->broker ? LR_LAYER_BROKER : LR_LAYER_NONE);
}

void lr_plan_compute(const struct lr_policy *policy, const struct lr_features *features,
		     struct lr_plan *plan)
{
	uint64_t fs_known;
	bool fs = !policy->unrestricted_fs, root;

	memset(plan, 0, sizeof(*plan));
	plan->abi_kernel = features->landlock_abi;
	plan->abi = lr_landlock_abi_used(features->landlock_abi);
	plan->landlock_errno = features->landlock_errno;
	plan->landlock_errata = features->landlock_errata;
	plan->caller_filtered = features->caller_filtered;
	plan->ptrace_scope = features->ptrace_scope;
	plan->seccomp_errno = features->seccomp_errno;
	plan->seccomp_by_prctl = features->seccomp_by_prctl;
	fs_known = lr_landlock_fs_rights(plan->abi);

	for (int p = LR_PROT_FS_READ; p <= LR_PROT_FS_PROTECTED; p++) {
		bool known = (prots[p].fs_rights & ~fs_known) == 0;

		set_row(plan, p, fs, known ? LR_LAYER_LANDLOCK : LR_LAYER_NONE);
	}
	/* pathname UNIX sockets are the network rows' business */
	if (fs)
		plan->handled_fs = fs_known & ~LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	plan_broker(policy, features, plan);

	plan_network(policy, features, plan);
	/* a broker for the connects alone, where there is no grant to broker */
	plan->broker |= plan->broker_connect;

	set_row(plan, LR_PROT_NO_NEW_PRIVS, true, LR_LAYER_LAUNCHER);
	set_row(plan, LR_PROT_CAPS, true, LR_LAYER_LAUNCHER);

	/* uid 0 owns the system's files: without capabilities it may still
	 * chmod and chown them, wherever Landlock does not look */
	if (policy->run_as.set) {
		plan->uid = policy->run_as.uid;
		plan->gid = policy->run_as.gid;
		plan->switch_user = features->uid0;
		root = plan->uid == 0;
	} else {
		plan->uid = features->uid;
		plan->gid = features->gid;
		root = features->uid0;
	}
	plan->deny_root_metadata = root;
	plan->broker_metadata = root && plan->broker;
	set_row(plan, LR_PROT_ROOT_METADATA, root,
		features->seccomp_filter ? LR_LAYER_SECCOMP : LR_LAYER_NONE);
	set_row(plan, LR_PROT_ENV, true, LR_LAYER_LAUNCHER);
	set_row(plan, LR_PROT_FDS, true, LR_LAYER_LAUNCHER);

	if (plan->handled_fs || plan->handled_net || plan->scoped) {
		/* The kernel (ABI 7+) audits a domain's denials before exec and
		 * not after it, unless told otherwise.  landrun's own witness
		 * denials before exec are not worth a record; the command's,
		 * after exec, are recorded with --landlock-audit. */
		plan->restrict_flags = lr_landlock_restrict_flags(plan->abi) &
				       (LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
					(policy->landlock_audit ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
								: 0));
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

	if (access & LR_ACCESS_UNIX)
		return LANDLOCK_ACCESS_FS_RESOLVE_UNIX & plan->handled_fs;
	if (access & LR_ACCESS_RW)
		r = is_dir ? FS_DIR_RW : FS_FILE_RW;
	else
		r = is_dir ? FS_DIR_RO : FS_FILE_RO;
	if (access & LR_ACCESS_X)
		r |= LANDLOCK_ACCESS_FS_EXECUTE;
	return r & plan->handled_fs;
}

uint64_t lr_plan_net_connect_rights(const struct lr_plan *plan)
{
	return plan->handled_net & LANDLOCK_ACCESS_NET_CONNECT_TCP;
}

uint64_t lr_plan_net_bind_rights(const struct lr_plan *plan)
{
	return plan->handled_net & LANDLOCK_ACCESS_NET_BIND_TCP;
}

const char *lr_plan_landlock_cause(const struct lr_plan *plan, char *buf, size_t len)
{
	int e = plan->landlock_errno;
	const char *name = e ? strerrorname_np(e) : NULL;

	if (!name)
		name = "?";
	/* the kernel never answers the version query with EPERM: a filter did */
	if (e == EPERM && plan->caller_filtered)
		snprintf(buf, len, "the caller's seccomp filter refused landlock_create_ruleset: %s",
			 name);
	else if (e == ENOSYS && plan->caller_filtered)
		snprintf(buf, len, "not built into this kernel, or the caller's seccomp filter "
				   "refused landlock_create_ruleset (ENOSYS)");
	else if (e == ENOSYS)
		snprintf(buf, len, "not built into this kernel (ENOSYS)");
	else if (e == EOPNOTSUPP)
		snprintf(buf, len, "disabled at boot (EOPNOTSUPP: add landlock to the lsm= list)");
	else
		snprintf(buf, len, "unavailable (%s)", name);
	return buf;
}

const char *lr_plan_lost_why(const struct lr_plan *plan, enum lr_prot prot, char *buf, size_t len)
{
	const char *needs = prots[prot].info.needs;
	char cause[160];
	size_t n;

	if (prot == LR_PROT_FS_BROKER && plan->ptrace_scope > 0 && lr_plan_is_lost(plan, prot)) {
		/* the broker reads each call's path from the caller's memory */
		if (plan->ptrace_scope == 1)
			snprintf(buf, len, "%s; here kernel.yama.ptrace_scope is 1, where the "
					   "broker must be the command's parent, and with "
					   "--report-denials the tracer is", needs);
		else
			snprintf(buf, len, "%s; here kernel.yama.ptrace_scope is %d: no process "
					   "without CAP_SYS_PTRACE may read another's memory",
				 needs, plan->ptrace_scope);
		return buf;
	}
	if (!plan->caller_filtered || !lr_plan_is_lost(plan, prot))
		return needs;
	if (plan->abi_kernel == 0 && strncmp(needs, "Landlock", 8) == 0 &&
	    plan->landlock_errno == EPERM)
		n = (size_t)snprintf(buf, len, "Landlock, but %s (allow landlock_* in it)",
				     lr_plan_landlock_cause(plan, cause, sizeof(cause)));
	else if (plan->abi_kernel == 0 && strncmp(needs, "Landlock", 8) == 0)
		n = (size_t)snprintf(buf, len, "%s; here Landlock is %s", needs,
				     lr_plan_landlock_cause(plan, cause, sizeof(cause)));
	else
		n = (size_t)snprintf(buf, len, "%s", needs);
	if (!plan->seccomp && plan->seccomp_errno && n < len)
		snprintf(buf + n, len - n, "; here the caller's seccomp filter refused seccomp "
					   "filters: seccomp(2): %s, and prctl(PR_SET_SECCOMP)",
			 strerrorname_np(plan->seccomp_errno) ? strerrorname_np(plan->seccomp_errno)
							      : "?");
	return buf;
}
