/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "landrun/lib/landlock_uapi.h"
#include "landrun/plan/features.h"

/* What each Landlock ABI added.  One row per ABI, in order. */
static const struct {
	uint64_t fs;
	uint64_t net;
	uint64_t scopes;
	uint32_t restrict_flags;
	size_t attr_size;
} abi_table[LR_LANDLOCK_ABI_KNOWN + 1] = {
	[0] = { 0 },
	[1] = {
		.fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		      LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		      LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		      LANDLOCK_ACCESS_FS_MAKE_SYM,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V1,
	},
	[2] = { .fs = LANDLOCK_ACCESS_FS_REFER, .attr_size = LR_LL_RULESET_ATTR_SIZE_V1 },
	[3] = { .fs = LANDLOCK_ACCESS_FS_TRUNCATE, .attr_size = LR_LL_RULESET_ATTR_SIZE_V1 },
	[4] = {
		.net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V4,
	},
	[5] = { .fs = LANDLOCK_ACCESS_FS_IOCTL_DEV, .attr_size = LR_LL_RULESET_ATTR_SIZE_V4 },
	[6] = {
		.scopes = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V6,
	},
	[7] = {
		.restrict_flags = LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
				  LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON |
				  LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V6,
	},
	[8] = { .restrict_flags = LANDLOCK_RESTRICT_SELF_TSYNC,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V6 },
	[9] = { .fs = LANDLOCK_ACCESS_FS_RESOLVE_UNIX, .attr_size = LR_LL_RULESET_ATTR_SIZE_V6 },
	/* ABI 10 adds UDP rights and the quiet_* fields; landrun does not set
	 * the quiet fields, so the shorter attribute still does. */
	[10] = {
		.net = LANDLOCK_ACCESS_NET_BIND_UDP | LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP,
		.attr_size = LR_LL_RULESET_ATTR_SIZE_V6,
	},
};

int lr_landlock_abi_used(int abi)
{
	if (abi < 0)
		return 0;
	return abi > LR_LANDLOCK_ABI_KNOWN ? LR_LANDLOCK_ABI_KNOWN : abi;
}

#define CUMULATE(field)                                     \
	do {                                                \
		int used = lr_landlock_abi_used(abi);       \
		uint64_t acc = 0;                           \
		for (int i = 1; i <= used; i++)             \
			acc |= abi_table[i].field;          \
		return (__typeof__(abi_table[0].field))acc; \
	} while (0)

uint64_t lr_landlock_fs_rights(int abi)
{
	CUMULATE(fs);
}

uint64_t lr_landlock_net_rights(int abi)
{
	CUMULATE(net);
}

uint64_t lr_landlock_scopes(int abi)
{
	CUMULATE(scopes);
}

uint32_t lr_landlock_restrict_flags(int abi)
{
	CUMULATE(restrict_flags);
}

#define MIN_ABI(field, bits)                                          \
	do {                                                          \
		if (!(bits))                                          \
			return 0;                                     \
		for (int i = 1; i <= LR_LANDLOCK_ABI_KNOWN; i++) {     \
			int abi = i;                                  \
			if (((bits) & ~lr_landlock_##field(abi)) == 0) \
				return i;                             \
		}                                                     \
		return LR_LANDLOCK_ABI_KNOWN + 1;                     \
	} while (0)

int lr_landlock_fs_min_abi(uint64_t rights)
{
	MIN_ABI(fs_rights, rights);
}

int lr_landlock_net_min_abi(uint64_t rights)
{
	MIN_ABI(net_rights, rights);
}

int lr_landlock_scope_min_abi(uint64_t scopes)
{
	MIN_ABI(scopes, scopes);
}

size_t lr_landlock_attr_size(int abi)
{
	int used = lr_landlock_abi_used(abi);

	return used ? abi_table[used].attr_size : 0;
}

/* Does prctl(PR_SET_SECCOMP) load a filter?  Tried in a child, which ends. */
static bool probe_prctl_filter(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
			      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0
		      ? 0
		      : 1);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void probe_seccomp(struct lr_features *f)
{
	uint32_t action = SECCOMP_RET_KILL_PROCESS;

	f->caller_filtered = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == SECCOMP_MODE_FILTER;
	f->seccomp_by_prctl = false;
	f->seccomp_errno = 0;
	f->seccomp_filter = syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
	if (f->seccomp_filter)
		return;
	f->seccomp_errno = errno;
	/* a caller's filter that refuses seccomp(2) itself (a container
	 * engine's profile): filters exist, one is in force, and prctl may
	 * still load ours (the same call, without flags) */
	if (f->caller_filtered && probe_prctl_filter())
		f->seccomp_filter = f->seccomp_by_prctl = true;
}

/*
 * One filter of a process's chain may have a listener: under another's (a
 * container manager's, an outer landrun's broker, a test's simulation) the
 * broker cannot have one.  Only asked when a filter is there already: a
 * child tries.
 */
static bool listener_above(bool filtered)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	pid_t pid;
	int st;

	if (!filtered)
		return false;
	pid = fork();
	if (pid == 0) {
		long r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);

		if (r == 0)
			r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		_exit(r < 0 ? 1 : 0);
	}
	if (pid < 0)
		return true;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return true;
	return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

/* User notification answers with a descriptor atomically from Linux 5.14
 * (SECCOMP_ADDFD_FLAG_SEND), which only the kernel's version tells without
 * a filter loaded; openat2 (5.6) comes before it. */
static bool probe_seccomp_notify(bool filtered)
{
	uint32_t action = SECCOMP_RET_USER_NOTIF;
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0 || uname(&u) < 0 ||
	    sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	if (major < 5 || (major == 5 && minor < 14))
		return false;
	return !listener_above(filtered);
}

bool lr_features_probe_pidfd_getfd(void)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), fd;

	if (pidfd < 0)
		return false;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);
	if (fd >= 0)
		close(fd);
	close(pidfd);
	return fd >= 0;
}

/* Yama's ptrace_scope, -1 without Yama; one that cannot be read counts as
 * the relational 1 (whose broker, the command's parent, works under 0 too). */
static int probe_ptrace_scope(void)
{
	char buf[16] = { 0 };
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int scope;

	if (fd < 0)
		return errno == ENOENT ? -1 : 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || sscanf(buf, "%d", &scope) != 1 || scope < 0)
		return 1;
	return scope;
}

void lr_features_probe(struct lr_features *f)
{
	uid_t r, e, s;
	int abi, errata;

	/* cannot fail with valid pointers; if it did, assume root */
	if (getresuid(&r, &e, &s) < 0)
		r = e = s = 0;
	f->uid = getuid();
	f->gid = getgid();
	f->uid0 = r == 0 || e == 0 || s == 0;
	f->terminal = false;
	f->terminal_foreign = false;

	probe_seccomp(f);
	/* the broker's filter is loaded by seccomp(2), with its flags */
	f->seccomp_notify = f->seccomp_filter && !f->seccomp_by_prctl &&
			    probe_seccomp_notify(f->caller_filtered);
	f->ptrace_scope = probe_ptrace_scope();
	f->landlock_abi = 0;
	f->landlock_errno = 0;
	f->landlock_errata = 0;

	abi = lr_ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0) {
		f->landlock_errno = errno;
		return;
	}
	f->landlock_abi = abi;
	/* Errata queries came later than ABI 1: EINVAL just means "none known". */
	errata = lr_ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
	if (errata > 0)
		f->landlock_errata = (uint32_t)errata;
}

/* 0: FD is no terminal; 1: it is landrun's controlling terminal; 2: another
 * terminal, or a pty master. */
static int terminal_kind(int fd, pid_t sid)
{
	struct termios t;
	unsigned ptn;
	pid_t s;

	if (ioctl(fd, TCGETS, &t) < 0)
		return errno == ENOTTY || errno == EBADF || errno == EINVAL ? 0 : 2;
	if (ioctl(fd, TIOCGPTN, &ptn) == 0)
		return 2;
	/* the kernel answers TIOCGSID only for the caller's controlling tty */
	return ioctl(fd, TIOCGSID, &s) == 0 && s == sid ? 1 : 2;
}

void lr_features_probe_terminal(struct lr_features *f, const int *fds, size_t n)
{
	pid_t sid = getsid(0);
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	/* ENXIO: no controlling terminal; ENOENT: no /dev/tty to reach one by */
	f->terminal = fd >= 0 || (errno != ENXIO && errno != ENOENT);
	f->terminal_foreign = false;
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < n + 3; i++) {
		int kind = terminal_kind(i < 3 ? (int)i : fds[i - 3], sid);

		f->terminal |= kind != 0;
		f->terminal_foreign |= kind == 2;
	}
}
