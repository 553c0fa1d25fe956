/* SPDX-License-Identifier: MIT */
/*
 * Argument checks compare the full 64 bits where a value is allowed, and a
 * masked value where one is denied, so that junk in the upper half of a
 * register can neither slip a denied value through nor turn an allowed one
 * into something else (the TIOCSTI bypass of CVE-2019-10063 is the classic).
 * Why each call is denied, and what that costs, is in docs/layers.md (The seccomp filter).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp-build.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

#define LO32 0xffffffffULL
/* The kernel's own O_TMPFILE bit (libc's O_TMPFILE adds O_DIRECTORY). */
#define KERNEL_O_TMPFILE 020000000ULL
/* Socket families and netlink protocols are small numbers: the kernel
 * answers EAFNOSUPPORT/EPROTONOSUPPORT past these, so denying every value
 * below them that is not allowed denies them all. */
#define FAMILY_LIMIT 64
#define NETLINK_LIMIT 32
#define SOCK_TYPE_MASK 0xfULL

struct filter {
	scmp_filter_ctx ctx;
	char *err;
	size_t errlen;
	int rc;
};

/*
 * The number of NAME: libseccomp's, or NR for a call it may not know.  A
 * name libseccomp knows but this architecture lacks (fork on arm64) comes
 * back as a negative pseudo number, which libseccomp accepts and leaves out.
 */
static int resolve(struct filter *f, const char *name, int nr)
{
	int r = seccomp_syscall_resolve_name(name);

	if (r != __NR_SCMP_ERROR)
		return r;
	if (nr > 0)
		return nr;
	if (f->rc == 0) {
		snprintf(f->err, f->errlen, "seccomp: libseccomp does not know the system call %s",
			 name);
		f->rc = -ENOSYS;
	}
	return __NR_SCMP_ERROR;
}

static void add(struct filter *f, uint32_t action, const char *name, int nr, unsigned n,
		const struct scmp_arg_cmp *cmp)
{
	int r;

	nr = resolve(f, name, nr);
	if (f->rc < 0)
		return;
	r = seccomp_rule_add_array(f->ctx, action, nr, n, cmp);
	if (r < 0) {
		snprintf(f->err, f->errlen, "seccomp: cannot add the rule for %s: %s", name,
			 strerror(-r));
		f->rc = r;
	}
}

static void deny_if(struct filter *f, int err, const char *name, unsigned n,
		    const struct scmp_arg_cmp *cmp)
{
	add(f, SCMP_ACT_ERRNO((uint32_t)err), name, 0, n, cmp);
}

/* Deny NAME when argument ARG, masked to 32 bits, is any value below LIMIT
 * but those in ALLOWED (terminated by -1), with EXTRA comparisons on other
 * arguments. */
static void deny_values_except(struct filter *f, int err, const char *name, unsigned arg,
			       uint64_t mask, int limit, const int *allowed,
			       const struct scmp_arg_cmp *extra)
{
	for (int v = 0; v < limit; v++) {
		struct scmp_arg_cmp cmp[2] = {
			{ .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = (uint64_t)v },
		};
		bool ok = false;

		for (const int *a = allowed; *a >= 0; a++)
			ok |= *a == v;
		if (ok)
			continue;
		if (extra)
			cmp[1] = *extra;
		deny_if(f, err, name, extra ? 2 : 1, cmp);
	}
}

/* IP protocols that ride on an allowed socket type but that Landlock's TCP and
 * UDP rules do not see. */
static const uint64_t ip_protocols[] = {
	IPPROTO_MPTCP, IPPROTO_SCTP, IPPROTO_UDPLITE, IPPROTO_ICMP, IPPROTO_ICMPV6,
	115 /* IPPROTO_L2TP */, 256 /* IPPROTO_SMC */,
};

static void deny_sockets(struct filter *f, const struct lr_seccomp_net *net)
{
	static const int unix_only[] = { AF_UNIX, -1 };
	int families[5] = { AF_NETLINK }, n = 1;
	struct scmp_arg_cmp cmp[2];

	if (net->unix_socket)
		families[n++] = AF_UNIX;
	if (net->tcp || net->udp) {
		families[n++] = AF_INET;
		families[n++] = AF_INET6;
	}
	families[n] = -1;
	/* families that answer EAFNOSUPPORT, so that libraries probing for
	 * IPv6 or the like degrade gracefully */
	deny_values_except(f, EAFNOSUPPORT, "socket", 0, LO32, FAMILY_LIMIT, families, NULL);

	/* netlink: only NETLINK_ROUTE (node lists interfaces with it) */
	{
		static const int route[] = { NETLINK_ROUTE, -1 };
		struct scmp_arg_cmp fam = SCMP_A0(SCMP_CMP_MASKED_EQ, LO32, AF_NETLINK);

		deny_values_except(f, EPROTONOSUPPORT, "socket", 2, LO32, NETLINK_LIMIT, route, &fam);
	}

	/* IP: TCP streams and/or UDP datagrams as planned, never raw */
	for (int i = 0; i < 2 && (net->tcp || net->udp); i++) {
		int fam = i ? AF_INET6 : AF_INET;
		int types[3] = { -1, -1, -1 }, t = 0;
		struct scmp_arg_cmp fc = SCMP_A0(SCMP_CMP_MASKED_EQ, LO32, (uint64_t)fam);

		if (net->tcp)
			types[t++] = SOCK_STREAM;
		if (net->udp)
			types[t++] = SOCK_DGRAM;
		deny_values_except(f, EPROTONOSUPPORT, "socket", 1, SOCK_TYPE_MASK, 16, types, &fc);
		cmp[0] = fc;
		for (size_t p = 0; p < sizeof(ip_protocols) / sizeof(*ip_protocols); p++) {
			cmp[1] = (struct scmp_arg_cmp)SCMP_A2(SCMP_CMP_MASKED_EQ, LO32, ip_protocols[p]);
			deny_if(f, EPROTONOSUPPORT, "socket", 2, cmp);
		}
	}

	/* socketpair: AF_UNIX only; without Landlock's UNIX right, no datagram
	 * pairs, which sendto could re-aim at any socket path */
	deny_values_except(f, EAFNOSUPPORT, "socketpair", 0, LO32, FAMILY_LIMIT, unix_only, NULL);
	if (!net->unix_socket) {
		/* only the connected types: AF_UNIX turns SOCK_RAW into SOCK_DGRAM */
		static const int connected[] = { SOCK_STREAM, SOCK_SEQPACKET, -1 };

		deny_values_except(f, EPROTONOSUPPORT, "socketpair", 1, SOCK_TYPE_MASK, 16,
				   connected, NULL);
	}

	/* TCP Fast Open connects from sendto/sendmsg without connect(2), which
	 * is where Landlock checks the port: deny that one flag, not the calls */
	if (net->tcp) {
		static const struct {
			const char *name;
			unsigned flags_arg;
		} sends[] = { { "sendto", 3 }, { "sendmsg", 2 }, { "sendmmsg", 3 } };

		for (size_t i = 0; i < sizeof(sends) / sizeof(*sends); i++) {
			cmp[0] = (struct scmp_arg_cmp){ .arg = sends[i].flags_arg,
							.op = SCMP_CMP_MASKED_EQ,
							.datum_a = MSG_FASTOPEN,
							.datum_b = MSG_FASTOPEN };
			deny_if(f, EPERM, sends[i].name, 1, cmp);
		}
	}
}

static void deny_kernel_surface(struct filter *f)
{
	static const uint64_t ns_flags[] = {
		CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
	};
	static const unsigned long tty_cmds[] = { TIOCSTI, TIOCLINUX };
	struct scmp_arg_cmp cmp;

	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(*ns_flags); i++) {
		cmp = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]);
		deny_if(f, EPERM, "clone", 1, &cmp);
	}
	for (size_t i = 0; i < sizeof(tty_cmds) / sizeof(*tty_cmds); i++) {
		cmp = (struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_MASKED_EQ, LO32, tty_cmds[i]);
		deny_if(f, EPERM, "ioctl", 1, &cmp);
	}

	/*
	 * personality: only PER_LINUX (0) and the query 0xffffffff.  libseccomp
	 * takes one comparison per argument, so "neither 0 nor 0xffffffff" is
	 * spelled as: junk in the upper half; or, in the lower half, the lowest
	 * clear bit j >= 1 (bits below it set: not 0, not all ones); or bit 0
	 * clear and the lowest set bit k >= 1 (not 0, not all ones).
	 */
	cmp = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_GT, LO32);
	deny_if(f, EPERM, "personality", 1, &cmp);
	for (unsigned b = 1; b < 32; b++) {
		uint64_t upto = (1ULL << (b + 1)) - 1;

		cmp = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_MASKED_EQ, upto | ~LO32, upto >> 1);
		deny_if(f, EPERM, "personality", 1, &cmp);
		cmp = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_MASKED_EQ, upto | ~LO32, 1ULL << b);
		deny_if(f, EPERM, "personality", 1, &cmp);
	}
}

/*
 * uid 0, besides the table: the inode flags by descriptor (chattr's ioctls),
 * and a new file born setuid or setgid, which chmod's denial does not stop:
 * open(O_CREAT or O_TMPFILE), creat and mknod with S_ISUID or S_ISGID in the
 * mode.  (openat2 hides its mode in memory: the table answers it ENOSYS, and
 * libc and its callers fall back to openat.)
 */
static void deny_root_metadata(struct filter *f)
{
	static const unsigned long cmds[] = { FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR };
	static const uint64_t set_id[] = { S_ISUID, S_ISGID };
	static const uint64_t creating[] = { O_CREAT, KERNEL_O_TMPFILE };
	static const struct {
		const char *name;
		int flags;	/* argument with the open flags, or -1 */
		unsigned mode;	/* argument with the mode */
	} creates[] = {
		{ "open", 1, 2 }, { "openat", 2, 3 }, { "creat", -1, 1 }, { "mknod", -1, 1 },
		{ "mknodat", -1, 2 },
	};
	struct scmp_arg_cmp cmp[2];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		cmp[0] = (struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_MASKED_EQ, LO32, cmds[i]);
		deny_if(f, EPERM, "ioctl", 1, cmp);
	}
	for (size_t i = 0; i < sizeof(creates) / sizeof(*creates); i++) {
		for (size_t b = 0; b < sizeof(set_id) / sizeof(*set_id); b++) {
			cmp[1] = (struct scmp_arg_cmp){ .arg = creates[i].mode,
							.op = SCMP_CMP_MASKED_EQ,
							.datum_a = set_id[b],
							.datum_b = set_id[b] };
			if (creates[i].flags < 0) {
				deny_if(f, EPERM, creates[i].name, 1, &cmp[1]);
				continue;
			}
			for (size_t c = 0; c < sizeof(creating) / sizeof(*creating); c++) {
				cmp[0] = (struct scmp_arg_cmp){ .arg = (unsigned)creates[i].flags,
								.op = SCMP_CMP_MASKED_EQ,
								.datum_a = creating[c],
								.datum_b = creating[c] };
				deny_if(f, EPERM, creates[i].name, 2, cmp);
			}
		}
	}
}

/*
 * A terminal within reach: every process stays in the session and under its
 * job control, so that once the command has exited, its leftovers are a
 * background group that SIGTTIN stops (or EIO refuses) when it reads.  Denied:
 * taking the foreground (TIOCSPGRP), taking or dropping a controlling
 * terminal (TIOCSCTTY, TIOCNOTTY: without one a process reads with no check),
 * and joining an existing process group (the user's shell's is the
 * foreground one after the command): setpgid only to a new group, pgid 0.
 * setsid is in the table.
 */
static void deny_terminal(struct filter *f)
{
	static const unsigned long cmds[] = { TIOCSPGRP, TIOCSCTTY, TIOCNOTTY };
	struct scmp_arg_cmp cmp;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		cmp = (struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_MASKED_EQ, LO32, cmds[i]);
		deny_if(f, EPERM, "ioctl", 1, &cmp);
	}
	/* 0 is the one value allowed, so all 64 bits are compared */
	cmp = (struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_NE, 0);
	deny_if(f, EPERM, "setpgid", 1, &cmp);
}

/*
 * landrun's own processes that run no program and make no file: the tracer
 * (--report-denials), which reads the command's paths and /proc entries and
 * has no Landlock domain (one would forbid that), and the egress helper.
 * They write only to the descriptors they hold (stderr, the audit log, the
 * --learn file, their sockets).  openat2 keeps its flags in memory: ENOSYS,
 * and libc falls back to openat.
 */
static void deny_changes(struct filter *f)
{
	static const char *const calls[] = {
		"execve", "execveat", "truncate", "mkdir", "mkdirat", "mknod", "mknodat",
		"symlink", "symlinkat", "link", "linkat", "rename", "renameat", "renameat2",
		"unlink", "unlinkat", "rmdir", "utime", "utimes", "futimesat", "utimensat",
		"memfd_create", "memfd_secret", "chmod", "fchmodat", "chown", "fchownat", "lchown",
	};
	static const uint64_t writing[] = { O_CREAT, O_TRUNC, O_APPEND, KERNEL_O_TMPFILE };
	static const struct {
		const char *name;
		unsigned flags;
	} opens[] = { { "open", 1 }, { "openat", 2 } };
	struct scmp_arg_cmp cmp;

	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		deny_if(f, EPERM, calls[i], 0, NULL);
	deny_if(f, EPERM, "creat", 0, NULL);
	deny_if(f, ENOSYS, "openat2", 0, NULL);
	for (size_t i = 0; i < sizeof(opens) / sizeof(*opens); i++) {
		/* O_WRONLY, O_RDWR and the invalid 3 */
		for (uint64_t mode = O_WRONLY; mode <= O_ACCMODE; mode++) {
			cmp = (struct scmp_arg_cmp){ .arg = opens[i].flags, .op = SCMP_CMP_MASKED_EQ,
						     .datum_a = O_ACCMODE, .datum_b = mode };
			deny_if(f, EPERM, opens[i].name, 1, &cmp);
		}
		for (size_t w = 0; w < sizeof(writing) / sizeof(*writing); w++) {
			cmp = (struct scmp_arg_cmp){ .arg = opens[i].flags, .op = SCMP_CMP_MASKED_EQ,
						     .datum_a = writing[w], .datum_b = writing[w] };
			deny_if(f, EPERM, opens[i].name, 1, &cmp);
		}
	}
}

/* landrun's own processes that run no program: the broker, the tracer, the
 * egress helper */
static void deny_exec(struct filter *f)
{
	deny_if(f, EPERM, "execve", 0, NULL);
	deny_if(f, EPERM, "execveat", 0, NULL);
}

/*
 * Calls that act on another process by pid, process group or user: its
 * limits, priority, scheduling, I/O priority and memory.  Landlock's signal
 * scope does not cover them, and seccomp cannot know which pids are the
 * sandbox's, so only the caller itself is allowed, as pid 0 (who 0 of
 * PRIO_PROCESS, IOPRIO_WHO_PROCESS), which is what libc's setrlimit, nice,
 * sched_setaffinity(0, ...) and the tools run on themselves pass.  0 is the
 * one value allowed, so all 64 bits are compared.  The sched_get* family
 * only reads, and threads libraries call it with a thread id: allowed.
 */
static void deny_other_processes(struct filter *f)
{
	static const struct {
		const char *name;
		int kind;	/* argument with the kind (PRIO_*, IOPRIO_WHO_*), or -1 */
		uint64_t self;	/* the kind that names a process */
		unsigned who;	/* argument with the pid */
	} calls[] = {
		{ "prlimit64", -1, 0, 0 },
		{ "setpriority", 0, 0 /* PRIO_PROCESS */, 1 },
		{ "getpriority", 0, 0 /* PRIO_PROCESS */, 1 },
		{ "ioprio_set", 0, 1 /* IOPRIO_WHO_PROCESS */, 1 },
		{ "ioprio_get", 0, 1 /* IOPRIO_WHO_PROCESS */, 1 },
		{ "sched_setaffinity", -1, 0, 0 },
		{ "sched_setscheduler", -1, 0, 0 },
		{ "sched_setparam", -1, 0, 0 },
		{ "sched_setattr", -1, 0, 0 },
		{ "migrate_pages", -1, 0, 0 },
		{ "move_pages", -1, 0, 0 },
		{ "get_robust_list", -1, 0, 0 },
	};
	struct scmp_arg_cmp cmp;

	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		cmp = (struct scmp_arg_cmp){ .arg = calls[i].who, .op = SCMP_CMP_NE, .datum_a = 0 };
		deny_if(f, EPERM, calls[i].name, 1, &cmp);
		if (calls[i].kind < 0)
			continue;
		cmp = (struct scmp_arg_cmp){ .arg = (unsigned)calls[i].kind, .op = SCMP_CMP_NE,
					     .datum_a = calls[i].self };
		deny_if(f, EPERM, calls[i].name, 1, &cmp);
	}
}

static void deny_subprocess(struct filter *f)
{
	struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);

	deny_if(f, EPERM, "clone", 1, &cmp);
}

#define ALWAYS(err, name) { name, 0, err, LR_SECCOMP_ALWAYS }
#define ROOT(name) { name, 0, EPERM, LR_SECCOMP_ROOT_METADATA }
#define ROOT_B(name) { name, 0, EPERM, LR_SECCOMP_ROOT_BROKERED }
#define SYSV(name) { name, 0, EPERM, LR_SECCOMP_NO_SYSV_IPC }

const struct lr_seccomp_call lr_seccomp_calls[] = {
	/* debugging other processes, reading their memory */
	{ "ptrace", 0, EPERM, LR_SECCOMP_NOT_TRACER },
	{ "process_vm_readv", 0, EPERM, LR_SECCOMP_NOT_BROKER },
	ALWAYS(EPERM, "process_vm_writev"), { "pidfd_getfd", 0, EPERM, LR_SECCOMP_NOT_BROKER },
	/* another process's memory and resources, by pidfd or pid (and the
	 * pid-0 forms of the calls in deny_other_processes) */
	ALWAYS(EPERM, "process_madvise"), ALWAYS(EPERM, "process_mrelease"),
	ALWAYS(EPERM, "kcmp"),
	/* SysV IPC: its objects are the whole IPC namespace's, reached by key
	 * or id, and no Landlock rule covers them (--allow-sysv-ipc) */
	SYSV("shmget"), SYSV("shmat"), SYSV("shmdt"), SYSV("shmctl"), SYSV("msgget"),
	SYSV("msgsnd"), SYSV("msgrcv"), SYSV("msgctl"), SYSV("semget"), SYSV("semop"),
	SYSV("semtimedop"), SYSV("semctl"), SYSV("ipc"),
	/* namespaces */
	ALWAYS(EPERM, "unshare"), ALWAYS(EPERM, "setns"),
	/* the mount family */
	ALWAYS(EPERM, "mount"), ALWAYS(EPERM, "umount2"), ALWAYS(EPERM, "pivot_root"),
	ALWAYS(EPERM, "chroot"), ALWAYS(EPERM, "move_mount"), ALWAYS(EPERM, "open_tree"),
	{ "open_tree_attr", 467, EPERM, LR_SECCOMP_ALWAYS }, ALWAYS(EPERM, "fsopen"),
	ALWAYS(EPERM, "fsconfig"), ALWAYS(EPERM, "fsmount"), ALWAYS(EPERM, "fspick"),
	ALWAYS(EPERM, "mount_setattr"),
	/* the mount table and the namespaces of the whole system, which the
	 * profiles keep out of /proc (mountinfo) */
	{ "statmount", 457, EPERM, LR_SECCOMP_ALWAYS }, { "listmount", 458, EPERM, LR_SECCOMP_ALWAYS },
	{ "listns", 470, EPERM, LR_SECCOMP_ALWAYS },
	/* keyrings */
	ALWAYS(EPERM, "keyctl"), ALWAYS(EPERM, "add_key"), ALWAYS(EPERM, "request_key"),
	/* kernel attack surface */
	ALWAYS(EPERM, "bpf"), ALWAYS(EPERM, "perf_event_open"), ALWAYS(EPERM, "userfaultfd"),
	ALWAYS(EPERM, "fanotify_init"), ALWAYS(EPERM, "open_by_handle_at"),
	/* the machine itself */
	ALWAYS(EPERM, "kexec_load"), ALWAYS(EPERM, "kexec_file_load"),
	ALWAYS(EPERM, "init_module"), ALWAYS(EPERM, "finit_module"),
	ALWAYS(EPERM, "delete_module"), ALWAYS(EPERM, "reboot"), ALWAYS(EPERM, "swapon"),
	ALWAYS(EPERM, "swapoff"), ALWAYS(EPERM, "settimeofday"), ALWAYS(EPERM, "clock_settime"),
	ALWAYS(EPERM, "clock_adjtime"), ALWAYS(EPERM, "adjtimex"), ALWAYS(EPERM, "iopl"),
	ALWAYS(EPERM, "ioperm"), ALWAYS(EPERM, "acct"), ALWAYS(EPERM, "quotactl"),
	ALWAYS(EPERM, "lookup_dcookie"), ALWAYS(EPERM, "vhangup"),
	/* io_uring: a second syscall interface that seccomp cannot see into */
	ALWAYS(ENOSYS, "io_uring_setup"), ALWAYS(ENOSYS, "io_uring_enter"),
	ALWAYS(ENOSYS, "io_uring_register"),
	/* clone3's flags live in memory seccomp cannot read: ENOSYS makes libc
	 * fall back to clone, whose flags are checked */
	ALWAYS(ENOSYS, "clone3"),
	{ "listen", 0, EPERM, LR_SECCOMP_NO_LISTEN },
	{ "fork", 0, EPERM, LR_SECCOMP_NO_SUBPROCESS },
	{ "vfork", 0, EPERM, LR_SECCOMP_NO_SUBPROCESS },
	/* uid 0 owns the system's files: mode, owner and extended attributes
	 * (ACLs are xattrs), by path and by descriptor; Landlock checks none
	 * of these, and a descriptor opened read-only through a grant is enough */
	ROOT_B("chmod"), ROOT_B("fchmod"), ROOT_B("fchmodat"),
	{ "fchmodat2", 452, EPERM, LR_SECCOMP_ROOT_BROKERED },
	ROOT_B("chown"), ROOT_B("fchown"), ROOT_B("lchown"), ROOT_B("fchownat"),
	ROOT_B("setxattr"), ROOT_B("lsetxattr"), ROOT_B("fsetxattr"),
	{ "setxattrat", 463, EPERM, LR_SECCOMP_ROOT_METADATA },
	ROOT_B("removexattr"), ROOT_B("lremovexattr"), ROOT_B("fremovexattr"),
	{ "removexattrat", 466, EPERM, LR_SECCOMP_ROOT_METADATA },
	/* the inode flags and project id (chattr, xfs_quota) */
	{ "file_setattr", 469, EPERM, LR_SECCOMP_ROOT_METADATA },
	/* its mode is in memory the filter cannot read (see deny_root_metadata) */
	{ "openat2", 437, ENOSYS, LR_SECCOMP_ROOT_METADATA },
	/* a process out of the session reads the terminal with no job control
	 * (EPERM, as for a group leader: callers fall back to setpgid) */
	{ "setsid", 0, EPERM, LR_SECCOMP_TERMINAL },
};
const size_t lr_seccomp_n_calls = sizeof(lr_seccomp_calls) / sizeof(*lr_seccomp_calls);

bool lr_seccomp_call_denied(const struct lr_seccomp_call *c, const struct lr_plan *plan)
{
	switch (c->when) {
	case LR_SECCOMP_ALWAYS:
		return true;
	case LR_SECCOMP_NO_LISTEN:
		return plan->net.restricted && !plan->net.listen;
	case LR_SECCOMP_NO_SUBPROCESS:
		return plan->deny_subprocess;
	case LR_SECCOMP_ROOT_METADATA:
		return plan->deny_root_metadata;
	case LR_SECCOMP_ROOT_BROKERED:
		return plan->deny_root_metadata && !plan->broker_metadata;
	case LR_SECCOMP_TERMINAL:
		return plan->deny_terminal;
	case LR_SECCOMP_NOT_TRACER:
		return !plan->tracer;
	case LR_SECCOMP_NOT_BROKER:
		return !plan->broker_self;
	case LR_SECCOMP_NO_SYSV_IPC:
		return plan->deny_sysv_ipc;
	}
	return true;
}

/*
 * Allow by default.  Native ABI only: anything else (int 0x80, x32) kills
 * the process.  A binary tree of syscall numbers: hot calls pass in a few
 * instructions.
 */
static int start(struct filter *f)
{
	int r;

	f->ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!f->ctx) {
		snprintf(f->err, f->errlen, "seccomp: cannot create a filter");
		return -ENOMEM;
	}
	r = seccomp_attr_set(f->ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r == 0)
		r = seccomp_attr_set(f->ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0) {
		snprintf(f->err, f->errlen, "seccomp: cannot set filter attributes: %s",
			 strerror(-r));
		seccomp_release(f->ctx);
		f->ctx = NULL;
	}
	return r;
}

/* The filter F built, or NULL (its error in F's ERR) if a rule failed. */
static scmp_filter_ctx finish(struct filter *f)
{
	if (f->rc < 0) {
		seccomp_release(f->ctx);
		return NULL;
	}
	return f->ctx;
}

scmp_filter_ctx lr_seccomp_build(const struct lr_plan *plan, char *err, size_t errlen)
{
	struct filter f = { .err = err, .errlen = errlen };

	if (start(&f) < 0)
		return NULL;
	for (size_t i = 0; i < lr_seccomp_n_calls; i++) {
		const struct lr_seccomp_call *c = &lr_seccomp_calls[i];

		if (lr_seccomp_call_denied(c, plan))
			add(&f, SCMP_ACT_ERRNO((uint32_t)c->err), c->name, c->nr, 0, NULL);
	}
	deny_kernel_surface(&f);
	deny_other_processes(&f);
	if (plan->net.restricted)
		deny_sockets(&f, &plan->net);
	if (plan->deny_subprocess)
		deny_subprocess(&f);
	if (plan->deny_root_metadata)
		deny_root_metadata(&f);
	if (plan->deny_terminal)
		deny_terminal(&f);
	if (plan->deny_changes)
		deny_changes(&f);
	if (plan->deny_exec)
		deny_exec(&f);
	return finish(&f);
}

/* The calls the broker serves (broker.h), whatever their arguments; the
 * opens are sent by their flags. */
static const char *const brokered[] = {
	"creat", "mkdir", "mkdirat", "mknod", "mknodat", "unlink", "unlinkat", "rmdir", "rename",
	"renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "openat2",
	"bind",
};

/* uid 0's chmod, chown and xattrs (but setxattrat's), which the broker
 * makes beneath its roots (and refuses elsewhere, as the command's filter
 * would) */
static const char *const brokered_root[] = {
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
};

static scmp_filter_ctx build_notify(bool fs, bool reads, bool metadata, bool connect, char *err,
				    size_t errlen)
{
	static const uint64_t writing[] = { O_CREAT, O_TRUNC, O_APPEND, KERNEL_O_TMPFILE };
	static const struct {
		const char *name;
		unsigned flags;
	} opens[] = { { "open", 1 }, { "openat", 2 } };
	struct filter f = { .err = err, .errlen = errlen };
	struct scmp_arg_cmp cmp;

	if (start(&f) < 0)
		return NULL;
	if (connect)
		add(&f, SCMP_ACT_NOTIFY, "connect", 0, 0, NULL);
	if (!fs) { /* the broker's witness, still (broker.h) */
		cmp = (struct scmp_arg_cmp){ .arg = 0, .op = SCMP_CMP_MASKED_EQ,
					     .datum_a = 0xffffffffU,
					     .datum_b = (uint32_t)LR_SECCOMP_PING_DIRFD };
		add(&f, SCMP_ACT_NOTIFY, "mkdirat", 0, 1, &cmp);
		return finish(&f);
	}
	for (size_t i = 0; i < sizeof(brokered) / sizeof(*brokered); i++)
		add(&f, SCMP_ACT_NOTIFY, brokered[i], 0, 0, NULL);
	for (size_t i = 0; metadata && i < sizeof(brokered_root) / sizeof(*brokered_root); i++)
		add(&f, SCMP_ACT_NOTIFY, brokered_root[i], 0, 0, NULL);
	if (metadata)
		add(&f, SCMP_ACT_NOTIFY, "fchmodat2", 452, 0, NULL);
	for (size_t i = 0; i < sizeof(opens) / sizeof(*opens); i++) {
		if (reads) {
			/* every open but O_PATH's, which Landlock does not check */
			cmp = (struct scmp_arg_cmp){ .arg = opens[i].flags, .op = SCMP_CMP_MASKED_EQ,
						     .datum_a = O_PATH, .datum_b = 0 };
			add(&f, SCMP_ACT_NOTIFY, opens[i].name, 0, 1, &cmp);
			continue;
		}
		/* O_WRONLY, O_RDWR and the invalid 3, and the flags that write */
		for (uint64_t mode = O_WRONLY; mode <= O_ACCMODE; mode++) {
			cmp = (struct scmp_arg_cmp){ .arg = opens[i].flags, .op = SCMP_CMP_MASKED_EQ,
						     .datum_a = O_ACCMODE, .datum_b = mode };
			add(&f, SCMP_ACT_NOTIFY, opens[i].name, 0, 1, &cmp);
		}
		for (size_t w = 0; w < sizeof(writing) / sizeof(*writing); w++) {
			cmp = (struct scmp_arg_cmp){ .arg = opens[i].flags, .op = SCMP_CMP_MASKED_EQ,
						     .datum_a = writing[w], .datum_b = writing[w] };
			add(&f, SCMP_ACT_NOTIFY, opens[i].name, 0, 1, &cmp);
		}
	}
	return finish(&f);
}

scmp_filter_ctx lr_seccomp_build_notify_reads(char *err, size_t errlen)
{
	return build_notify(true, true, false, false, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_writes(char *err, size_t errlen)
{
	return build_notify(true, false, false, false, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_reads_root(char *err, size_t errlen)
{
	return build_notify(true, true, true, false, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_writes_root(char *err, size_t errlen)
{
	return build_notify(true, false, true, false, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_reads_connect(char *err, size_t errlen)
{
	return build_notify(true, true, false, true, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_writes_connect(char *err, size_t errlen)
{
	return build_notify(true, false, false, true, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_reads_root_connect(char *err, size_t errlen)
{
	return build_notify(true, true, true, true, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_writes_root_connect(char *err, size_t errlen)
{
	return build_notify(true, false, true, true, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_notify_connect(char *err, size_t errlen)
{
	return build_notify(false, false, false, true, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_broker(char *err, size_t errlen)
{
	struct lr_plan plan;

	/* the kernel surface as for a command; no socket, no new process, no
	 * program: it changes files beneath the grants, and nothing else */
	memset(&plan, 0, sizeof(plan));
	plan.seccomp = true;
	plan.net.restricted = true;
	plan.deny_subprocess = true;
	plan.deny_exec = true;
	plan.broker_self = true;
	return lr_seccomp_build(&plan, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_broker_connect(char *err, size_t errlen)
{
	struct lr_plan plan;

	/* the same, and TCP sockets: without pidfd_getfd the broker connects
	 * one of its own to the proxy for the command (broker.c, connect_own) */
	memset(&plan, 0, sizeof(plan));
	plan.seccomp = true;
	plan.net = (struct lr_seccomp_net){ .restricted = true, .tcp = true };
	plan.deny_subprocess = true;
	plan.deny_exec = true;
	plan.broker_self = true;
	return lr_seccomp_build(&plan, err, errlen);
}

scmp_filter_ctx lr_seccomp_build_egress(char *err, size_t errlen)
{
	struct lr_plan plan;

	/* the kernel surface as for a command; TCP out and UDP for the
	 * resolver, no listen (its listeners come made); no new process */
	memset(&plan, 0, sizeof(plan));
	plan.seccomp = true;
	plan.net = (struct lr_seccomp_net){ .restricted = true, .tcp = true, .udp = true };
	plan.deny_subprocess = true;
	plan.deny_changes = true;
	plan.deny_sysv_ipc = true;
	return lr_seccomp_build(&plan, err, errlen);
}

/* What Landlock may deny: the tracer reads the results of these. */
const char *const lr_seccomp_traced[] = {
	"open", "openat", "openat2", "creat", "execve", "execveat", "truncate", "ftruncate",
	"mkdir", "mkdirat", "mknod", "mknodat", "symlink", "symlinkat", "link", "linkat",
	"rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "connect", "bind",
};
const size_t lr_seccomp_n_traced = sizeof(lr_seccomp_traced) / sizeof(*lr_seccomp_traced);

scmp_filter_ctx lr_seccomp_build_trace(char *err, size_t errlen)
{
	struct filter f = { .err = err, .errlen = errlen };

	if (start(&f) < 0)
		return NULL;
	for (size_t i = 0; i < lr_seccomp_n_traced; i++)
		add(&f, SCMP_ACT_TRACE(0), lr_seccomp_traced[i], 0, 0, NULL);
	return finish(&f);
}

scmp_filter_ctx lr_seccomp_build_tracer(char *err, size_t errlen)
{
	struct lr_plan plan;

	/* the supervisor's own (no new process, no socket) and more */
	memset(&plan, 0, sizeof(plan));
	plan.seccomp = true;
	plan.deny_subprocess = true;
	plan.net.restricted = true;
	plan.deny_root_metadata = true;
	plan.tracer = true;
	plan.deny_changes = true;
	plan.deny_sysv_ipc = true;
	return lr_seccomp_build(&plan, err, errlen);
}

int lr_seccomp_load(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	int r = seccomp_load(ctx);

	if (r < 0)
		snprintf(err, errlen, "seccomp: cannot load the filter: %s", strerror(-r));
	return r;
}
