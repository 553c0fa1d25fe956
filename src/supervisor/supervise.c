/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/plan.h"
#include "landrun/sandbox/confine.h"
#include "landrun/sandbox/exec.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/sandbox/user.h"
#include "landrun/supervisor/supervise.h"
#include "landrun/supervisor/termfilter.h"
#include "landrun/supervisor/tree.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };

/* How landrun's parent's death is announced (--die-with-parent). */
#define SIG_PARENT_DIED SIGRTMIN

/* SIGKILL rounds stop after this long: what is left then cannot be ended. */
#define KILL_GIVE_UP_MS 10000
#define KILL_ROUND_MS 20

/* The signals the loop waits for; with BACKGROUND, also those that would
 * stop it for writing to, or setting, the terminal from the background. */
static void signal_set(sigset_t *set, bool background)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIG_PARENT_DIED);
	if (background) {
		sigaddset(set, SIGTTOU);
		sigaddset(set, SIGTTIN);
	}
}

/* The signals after which a command is not expected to go on. */
static bool ends_run(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A duration that can be added to a time without overflow (a century). */
static long long capped(unsigned long long ms)
{
	return (long long)(ms < 3155760000000ULL ? ms : 3155760000000ULL);
}

static long long start_ms(const struct lr_supervisor *sv)
{
	return (long long)sv->start.tv_sec * 1000 + sv->start.tv_nsec / 1000000;
}

/*
 * /proc, held from the start (lr_supervise_confine): the tree is walked from
 * it, not from a path looked up at the end.  -1 before, or if it could not
 * be opened (then "/proc" by path).
 */
static int proc_fd = -1;

/*
 * The supervisor's own limits, soft raised to hard: the caller's soft limits
 * are for the command (it inherits them at the fork, before this), and
 * whatever lowered a soft limit since (no process of the sandbox can: the
 * filter denies prlimit64 of another pid) is undone before the supervisor's
 * work at the end (walking /proc needs descriptors, the audit log's end
 * record file size).  A hard limit lowered cannot be raised again: the
 * supervisor then fails as it can (docs/supervisor.md, what confines the supervisor).
 */
static void hold_limits(void)
{
	static const int resources[] = { RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CPU, RLIMIT_AS,
					 RLIMIT_DATA };

	for (size_t i = 0; i < sizeof(resources) / sizeof(*resources); i++) {
		struct rlimit rl;

		if (getrlimit(resources[i], &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(resources[i], &rl) < 0)
				lr_debug("supervisor: cannot raise limit %d: %s", resources[i],
					 strerror(errno));
		}
	}
}

/* Does /proc show this PID namespace (it may be the parent's)? */
static bool proc_is_ours(void)
{
	char link[32];
	ssize_t n = readlink("/proc/self", link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return strtol(link, NULL, 10) == (long)getpid();
}

bool lr_supervise_has_terminal(void)
{
	return isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO);
}

/* Each direction's buffer: what one side wrote and the other has not taken. */
#define RELAY_BUF 65536
/* When the command has ended: how long what it wrote last is still shown. */
#define DRAIN_MS 200

struct lr_relay_buf {
	size_t len;
	char data[RELAY_BUF];
};

/*
 * --pty: the relay's side of things: the master non-blocking; the user's
 * terminal opened anew, non-blocking (the shell's description keeps its
 * flags), or where it cannot be (another user's terminal), made
 * non-blocking until end_pty; the two buffers.  0 or -errno.
 */
static int open_relay(struct lr_supervisor *sv)
{
	char path[32];
	int fl = fcntl(sv->master, F_GETFL);

	if (fl < 0 || fcntl(sv->master, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sv->term);
	sv->term_fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (sv->term_fd < 0 || !isatty(sv->term_fd)) {
		if (sv->term_fd >= 0)
			close(sv->term_fd);
		if ((fl = fcntl(sv->term, F_GETFL)) < 0 ||
		    fcntl(sv->term, F_SETFL, fl | O_NONBLOCK) < 0)
			return -errno;
		sv->term_flags = fl;
		sv->term_fd = sv->term;
	}
	sv->to_term = calloc(1, sizeof(*sv->to_term));
	sv->to_pty = calloc(1, sizeof(*sv->to_pty));
	sv->filter = malloc(sizeof(*sv->filter));
	if (!sv->to_term || !sv->to_pty || !sv->filter) {
		free(sv->to_term);
		free(sv->to_pty);
		free(sv->filter);
		sv->to_term = sv->to_pty = NULL;
		sv->filter = NULL;
		if (sv->term_fd != sv->term)
			close(sv->term_fd);
		else if (fcntl(sv->term, F_SETFL, sv->term_flags) == 0)
			sv->term_flags = -1;
		sv->term_fd = -1;
		return -ENOMEM;
	}
	lr_term_filter_init(sv->filter, sv->pty_passthrough);
	return 0;
}

/* --pty: a new pseudo-terminal in the mode and size of the user's (the first
 * of fd 0, 1, 2 that is a terminal).  Its slave in *SLAVE; 0 or -errno. */
static int open_pty(struct lr_supervisor *sv, int *slave)
{
	struct winsize ws;
	int e;

	sv->term = -1;
	sv->term_fd = -1;
	sv->term_flags = -1;
	sv->term_gone = false;
	for (int fd = 0; fd < 3 && sv->term < 0; fd++)
		if (isatty(fd))
			sv->term = fd;
	if (sv->term < 0 || tcgetattr(sv->term, &sv->term_mode) < 0)
		return -ENOTTY;
	sv->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (sv->master < 0)
		return -errno;
	if (grantpt(sv->master) < 0 || unlockpt(sv->master) < 0 ||
	    (*slave = ioctl(sv->master, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0)
		goto fail;
	if (tcsetattr(*slave, TCSANOW, &sv->term_mode) < 0 ||
	    (ioctl(sv->term, TIOCGWINSZ, &ws) == 0 && ioctl(*slave, TIOCSWINSZ, &ws) < 0)) {
		close(*slave);
		goto fail;
	}
	if ((e = open_relay(sv)) < 0) {
		close(*slave);
		close(sv->master);
		sv->master = -1;
		return e;
	}
	return 0;
fail:
	e = errno;
	close(sv->master);
	sv->master = -1;
	return -e;
}

/* The child, with a pty: a session of its own whose terminal is the slave,
 * on each of fd 0, 1, 2 that was the user's terminal.  False on failure. */
static bool take_pty(int slave)
{
	if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
		return false;
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd) && dup2(slave, fd) < 0)
			return false;
	return slave < 3 || close(slave) == 0;
}

/* The user's terminal raw (what is typed goes to the pty as it is), or back. */
static void set_raw(struct lr_supervisor *sv, bool raw)
{
	struct termios t = sv->term_mode;

	if (sv->master < 0 || sv->term < 0 || sv->raw == raw)
		return;
	if (raw)
		cfmakeraw(&t);
	/* TCSANOW: TCSADRAIN would wait for a terminal that may not read;
	 * from the background, the shell owns the terminal: leave it */
	if (tcsetattr(sv->term, TCSANOW, &t) == 0 || !raw)
		sv->raw = raw;
}

/* lr_supervise_start's child: the command's side of the fork.  0, or it
 * exits. */
static pid_t child_side(struct lr_supervisor *sv, pid_t parent, const int *pair, int slave,
			bool foreground)
{
	sv->child = 0;
	/* the command does not outlive its supervisor */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(LR_EXIT_FAILURE);
	/* a group of its own: the supervisor signals it, and only it
	 * gets the terminal's signals (^C once, not twice); with a pty, a
	 * session of its own, on it */
	if (sv->master >= 0) {
		close(sv->master);
		sv->master = -1;
		if (sv->term_fd >= 0 && sv->term_fd != sv->term)
			close(sv->term_fd);
		sv->term_fd = -1;
		if (!take_pty(slave)) {
			dprintf(STDERR_FILENO, "landrun: --pty: cannot take the new "
					       "pseudo-terminal: %s\n", strerror(errno));
			_exit(LR_EXIT_FAILURE);
		}
	} else if (setpgid(0, 0) == 0 && foreground) {
		tcsetpgrp(STDIN_FILENO, getpid()); /* SIGTTOU is still blocked */
	}
	if (sv->handshake) {
		close(pair[0]);
		sv->sock = pair[1]; /* the mask comes back in lr_supervise_ready */
	} else if (sigprocmask(SIG_SETMASK, &sv->saved_mask, NULL) < 0) {
		_exit(LR_EXIT_FAILURE);
	}
	return 0;
}

/* lr_supervise_start's parent, after the fork: the supervisor's side.  The
 * child's pid, or -errno with ERR (the child abandoned). */
static pid_t parent_side(struct lr_supervisor *sv, pid_t pid, const int *pair, int slave,
			 char *err, size_t errlen)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	int e;

	sv->child = pid;
	if (slave >= 0)
		close(slave);
	set_raw(sv, true);
	if (sv->handshake) {
		close(pair[1]);
		sv->sock = pair[0];
	}
	/* the child does it too, whichever comes first (with a pty it makes a
	 * session of its own, which it may not as a group's leader already) */
	if (sv->master < 0)
		setpgid(pid, pid);
	/* a caller's SIG_IGN would reap the command without its status, a
	 * closed stderr must not kill the supervisor, nor a file-size or CPU
	 * soft limit (a write past the first fails with EFBIG instead) */
	if (sigaction(SIGCHLD, &dfl, NULL) < 0 || sigaction(SIGPIPE, &ign, NULL) < 0 ||
	    sigaction(SIGXFSZ, &ign, NULL) < 0 || sigaction(SIGXCPU, &ign, NULL) < 0) {
		e = errno;
		lr_supervise_abandon(sv);
		lr_errf(err, errlen, "supervisor: cannot set up: %s", strerror(e));
		return -e;
	}
	return pid;
}

pid_t lr_supervise_start(struct lr_supervisor *sv, char *err, size_t errlen)
{
	pid_t self = getpid(), pid;
	bool foreground;
	sigset_t block;
	int pair[2] = { -1, -1 }, slave = -1, e;

	sv->parent = getppid();
	sv->pid1 = self == 1;
	sv->tty = isatty(STDIN_FILENO) && tcgetsid(STDIN_FILENO) == getsid(0);
	foreground = sv->tty && tcgetpgrp(STDIN_FILENO) == getpgrp();
	sv->proc_ours = proc_is_ours();
	sv->sock = -1;
	sv->master = -1;
	sv->master_eof = false;
	sv->raw = false;
	if (sv->pty && (e = open_pty(sv, &slave)) < 0) {
		lr_errf(err, errlen, "--pty: cannot make a pseudo-terminal: %s", strerror(-e));
		return e;
	}
	/* before the fork (neither is inherited): no orphan and no death of
	 * the parent may come before the supervisor is told; and the signals
	 * blocked, so that none is lost before the loop waits for them */
	signal_set(&block, true);
	if ((!sv->pid1 && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) ||
	    (sv->die_with_parent && prctl(PR_SET_PDEATHSIG, SIG_PARENT_DIED) < 0) ||
	    sigprocmask(SIG_BLOCK, &block, &sv->saved_mask) < 0 ||
	    (sv->handshake && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)) {
		e = errno;
		lr_errf(err, errlen, "supervisor: cannot set up: %s", strerror(e));
		return -e;
	}
	clock_gettime(CLOCK_MONOTONIC, &sv->start);
	pid = fork();
	if (pid < 0) {
		e = errno;
		if (sv->handshake) {
			close(pair[0]);
			close(pair[1]);
		}
		sigprocmask(SIG_SETMASK, &sv->saved_mask, NULL);
		lr_errf(err, errlen, "supervisor: cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0)
		return child_side(sv, self, pair, slave, foreground);
	return parent_side(sv, pid, pair, slave, err, errlen);
}

/* A witness of its own confinement failed: stop, unless the caller said
 * to go on without what is lost (--on-unsupported=warn or ignore). */
static int decide_self(struct lr_confinement *c, char *err, size_t errlen)
{
	const struct lr_supervisor *sv = c->data;

	if (sv->go_on_unconfined)
		return 0;
	lr_errf(err, errlen,
		"its own confinement is not in force (witness; "
		"--on-unsupported=error)");
	return -EPERM;
}

int lr_supervise_confine(struct lr_supervisor *sv, const struct lr_features *features,
			 const struct lr_run_as *run_as, const int *keep, size_t n, char *err,
			 size_t errlen)
{
	struct lr_fs_rules rules = { 0 };
	struct lr_confinement c;
	struct lr_policy policy;
	struct lr_plan plan;
	char reason[PATH_MAX + 128];
	int fds[8], r;

	if (n + 4 >= sizeof(fds) / sizeof(*fds))
		return -EINVAL;
	if (n)
		memcpy(fds, keep, n * sizeof(*fds));
	if (sv->sock >= 0)
		fds[n++] = sv->sock;
	if (sv->master >= 0)
		fds[n++] = sv->master;
	if (sv->master >= 0 && sv->term_fd > 2)
		fds[n++] = sv->term_fd;
	hold_limits();
	/* (without /proc, or a /proc of another PID namespace, the tree is the
	 * command's group: signal_tree) */
	proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd >= 0)
		fds[n++] = proc_fd;
	/* its job, as a policy: read /proc, no new process, no socket */
	lr_policy_init(&policy);
	policy.deny_subprocess = true;
	policy.run_as = *run_as;
	r = lr_policy_add_grant(&policy, "/proc", LR_ACCESS_RO, "--ro");
	if (r < 0)
		lr_errf(err, errlen, "supervisor: out of memory");
	else
		policy.grants[0].optional = true; /* without it, the command's group only */
	if (r == 0) {
		lr_plan_compute(&policy, features, &plan);
		/* the command's domain is not inside the supervisor's: to
		 * signal it, the supervisor must not scope signals */
		plan.scoped &= ~(uint64_t)LANDLOCK_SCOPE_SIGNAL;
		/* a tracer has no Landlock domain (its filter instead) */
		if (sv->trace)
			plan.handled_fs = plan.handled_net = plan.scoped = 0;
		r = lr_landlock_open_rules(&policy, &plan, &rules, reason, sizeof(reason));
		if (r < 0)
			lr_errf(err, errlen, "supervisor: %s", reason);
	}
	if (r == 0) {
		c = (struct lr_confinement){
			.who = "supervisor: ",
			.run_as = &policy.run_as,
			.switch_user = plan.switch_user,
			.policy = &policy,
			.plan = &plan,
			.rules = &rules,
			.ruleset = -1,
			.close_fds = true,
			.keep = fds,
			.n_keep = n,
			.filter = !plan.seccomp ? LR_CONFINE_NO_FILTER
				  : sv->trace	? LR_CONFINE_FILTER_TRACER
						: LR_CONFINE_FILTER_PLAN,
			.decide = decide_self,
			.data = sv,
		};
		r = lr_confine(&c, err, errlen);
	}
	lr_landlock_rules_free(&rules);
	lr_policy_free(&policy);
	return r;
}

/* The word between the two: the record and its NUL from the child (with the
 * fd on the first bytes), "g" back from the parent. */
static bool fd_kind_known(char kind)
{
	return kind == LR_SUPERVISE_FD_AUDIT || kind == LR_SUPERVISE_FD_LEARN ||
	       kind == LR_SUPERVISE_FD_OWN;
}

int lr_supervise_ready(struct lr_supervisor *sv, const char *record,
		       const struct lr_supervise_fd *given, size_t nfds)
{
	_cleanup_free_ char *message = NULL;
	int fds[LR_SUPERVISE_MAX_FDS];
	const char *p;
	size_t len;
	bool fd_sent = nfds == 0;
	char go = 0;
	ssize_t n;

	if (nfds > LR_SUPERVISE_MAX_FDS)
		return -ECANCELED;
	/* what each descriptor is, in their order: "<n><kinds>", the record */
	len = 1 + nfds + (record ? strlen(record) : 0) + 1;
	message = malloc(len);
	if (!message)
		return -ECANCELED;
	message[0] = (char)('0' + nfds);
	for (size_t i = 0; i < nfds; i++) {
		if (!fd_kind_known(given[i].kind))
			return -ECANCELED;
		message[1 + i] = given[i].kind;
		fds[i] = given[i].fd;
	}
	memcpy(message + 1 + nfds, record ? record : "", len - 1 - nfds);
	p = message;
	while (len) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int) * LR_SUPERVISE_MAX_FDS)];
		} control;
		struct iovec iov = { (void *)p, len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		if (!fd_sent) {
			struct cmsghdr *c;

			memset(&control, 0, sizeof(control));
			msg.msg_control = control.buf;
			msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			c = CMSG_FIRSTHDR(&msg);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
		}
		n = sendmsg(sv->sock, &msg, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ECANCELED;
		fd_sent = true;
		p += n;
		len -= (size_t)n;
	}
	while ((n = read(sv->sock, &go, 1)) < 0 && errno == EINTR)
		;
	close(sv->sock);
	sv->sock = -1;
	if (n != 1 || go != 'g' || sigprocmask(SIG_SETMASK, &sv->saved_mask, NULL) < 0)
		return -ECANCELED;
	return 0;
}

static int reap(struct lr_supervisor *sv, struct lr_outcome *out);

/*
 * With a tracer, what the child starts before the handshake (the egress
 * helper) is traced already, and each of its stops waits for the tracer:
 * deal with them until the child writes.  The child's own end, if it comes
 * first, is kept for lr_supervise_wait.  0, or -errno.
 */
static int trace_until_readable(struct lr_supervisor *sv, int sigfd)
{
	struct pollfd p[2] = { { .fd = sv->sock, .events = POLLIN },
			       { .fd = sigfd, .events = POLLIN } };

	for (;;) {
		struct lr_outcome early = { 0 };
		struct signalfd_siginfo si;
		int r = reap(sv, &early);

		if (r < 0)
			return r;
		if (early.ended) {
			sv->early_ended = true;
			sv->early_status = early.status;
			sv->early_ms = early.duration_ms;
		}
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (read(sigfd, &si, sizeof(si)) > 0)
			;
		if (p[0].revents)
			return 0;
	}
}

/* The head of the child's word ("<n><kinds>"): each descriptor got, named.
 * 0; -EPROTO if it does not name what came, one by one. */
static int name_fds(const struct lr_buf *buf, const int *got, size_t n_got,
		    struct lr_supervise_fd *fds)
{
	size_t n;

	if (buf->len < 1 || buf->s[0] < '0' || buf->s[0] > '0' + LR_SUPERVISE_MAX_FDS)
		return -EPROTO;
	n = (size_t)(buf->s[0] - '0');
	if (n != n_got || buf->len < 1 + n)
		return -EPROTO;
	for (size_t i = 0; i < n; i++)
		if (!fd_kind_known(buf->s[1 + i]))
			return -EPROTO;
	for (size_t i = 0; i < n; i++)
		fds[i] = (struct lr_supervise_fd){ .fd = got[i], .kind = buf->s[1 + i] };
	return 0;
}

/* The descriptors MSG carries, into FDS after the *GOT there already (up to
 * N; the rest closed). */
static void take_rights(struct msghdr *msg, int *fds, size_t *got, size_t n)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t count;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (*got < n)
				fds[(*got)++] = fd;
			else
				close(fd);
		}
	}
}

/* The whole word in BUF: the descriptors named, and the record after the
 * head into *RECORD.  1, or -errno. */
static int word_end(const struct lr_buf *buf, const int *fds, size_t got,
		    struct lr_supervise_fd *named, char **record)
{
	int r = name_fds(buf, fds, got, named);
	size_t head;

	if (r < 0)
		return r;
	head = (size_t)(buf->s[0] - '0') + 1;
	if (buf->len > head && !(*record = strndup(buf->s + head, buf->len - head)))
		return -ENOMEM;
	return 1;
}

int lr_supervise_accept(struct lr_supervisor *sv, char **record, struct lr_supervise_fd *named,
			size_t nfds)
{
	struct lr_buf buf = { 0 };
	int fds[LR_SUPERVISE_MAX_FDS];
	size_t got_fds = 0;
	int r, sigfd = -1;

	*record = NULL;
	if (nfds > LR_SUPERVISE_MAX_FDS)
		nfds = LR_SUPERVISE_MAX_FDS;
	for (size_t i = 0; i < nfds; i++)
		named[i] = (struct lr_supervise_fd){ .fd = -1, .kind = 0 };
	if (sv->trace) {
		sigset_t chld;

		/* SIGCHLD is blocked since lr_supervise_start */
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
		if (sigfd < 0)
			return -errno;
	}
	for (;;) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int) * LR_SUPERVISE_MAX_FDS)];
		} control;
		char chunk[4096];
		struct iovec iov = { chunk, sizeof(chunk) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
				      .msg_controllen = sizeof(control.buf) };
		ssize_t n;
		char *end;

		if (sigfd >= 0 && (r = trace_until_readable(sv, sigfd)) < 0)
			break;
		n = recvmsg(sv->sock, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		take_rights(&msg, fds, &got_fds, nfds);
		if (n == 0) {
			r = 0; /* the child ended first */
			break;
		}
		end = memchr(chunk, '\0', (size_t)n);
		if (lr_buf_add(&buf, chunk, end ? (size_t)(end - chunk) : (size_t)n) < 0) {
			r = -ENOMEM;
			break;
		}
		if (end) {
			r = word_end(&buf, fds, got_fds, named, record);
			break;
		}
	}
	if (sigfd >= 0)
		close(sigfd);
	free(buf.s);
	if (r == 1)
		return 1;
	for (size_t i = 0; i < got_fds; i++)
		close(fds[i]);
	for (size_t i = 0; i < nfds; i++)
		named[i] = (struct lr_supervise_fd){ .fd = -1, .kind = 0 };
	return r;
}

void lr_supervise_own(struct lr_supervisor *sv, int pidfd)
{
	char path[64], line[128];
	size_t i = sv->own[0] ? 1 : 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = sv->own[i] ? NULL : fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &sv->own[i]) == 1)
			break;
	if (f)
		fclose(f);
	close(pidfd);
}

int lr_supervise_go(struct lr_supervisor *sv)
{
	ssize_t n;
	int r;

	while ((n = write(sv->sock, "g", 1)) < 0 && errno == EINTR)
		;
	r = n == 1 ? 0 : n < 0 ? -errno : -EIO;
	close(sv->sock);
	sv->sock = -1;
	return r;
}

void lr_supervise_abandon(struct lr_supervisor *sv)
{
	if (sv->sock >= 0)
		close(sv->sock);
	sv->sock = -1;
	kill(sv->child, SIGKILL);
	while (waitpid(sv->child, NULL, 0) < 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ the tree */

/* (what is computed from what /proc shows is in tree.c) */

/*
 * The parent of PID, from /proc/PID/stat, 0 if it is gone, or -errno when it
 * cannot be read (no descriptor left: not a reason to leave it running).
 * The kernel writes that file, but the name in it is the process's own
 * choice: the fields are read after its last ')'.
 */
static pid_t parent_of(pid_t pid)
{
	char path[32], buf[512];
	const char *p;
	long ppid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%d/stat", proc_fd >= 0 ? "" : "/proc/", (int)pid);
	fd = proc_fd >= 0 ? openat(proc_fd, path, O_RDONLY | O_CLOEXEC)
			  : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid <= 0)
		return 0;
	return (pid_t)ppid;
}

/* Every process in /proc with its parent, sorted by parent.  0 or -errno. */
static int scan(struct lr_tree_proc **v, size_t *n)
{
	int fd = proc_fd >= 0 ? openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *d = proc_fd >= 0 ? (fd >= 0 ? fdopendir(fd) : NULL) : opendir("/proc");
	struct dirent *e;

	*v = NULL;
	*n = 0;
	if (!d) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		return r;
	}
	while ((e = readdir(d))) {
		struct lr_tree_proc *slot;
		pid_t pid, ppid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		ppid = parent_of(pid);
		if (ppid < 0) {
			closedir(d);
			free(*v);
			*v = NULL;
			return ppid;
		}
		if (!ppid)
			continue;
		slot = lr_array_push(v, n, sizeof(*slot));
		if (!slot) {
			closedir(d);
			return -ENOMEM;
		}
		slot->pid = pid;
		slot->ppid = ppid;
	}
	closedir(d);
	lr_tree_sort(*v, *n);
	return 0;
}

/*
 * Signal P, seen in the tree, through a pidfd taken before checking that
 * its pid still names a process of the tree (its parent is the one seen, or
 * the supervisor when that one died since): a pid reused meanwhile by a
 * process outside is left alone.
 */
static bool signal_one(const struct lr_tree_proc *p, int sig, bool cont)
{
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	pid_t parent;
	bool ok;

	if (fd < 0 && errno != ENOSYS)
		return false; /* gone */
	parent = parent_of(p->pid);
	if (parent < 0 && fd >= 0) /* cannot tell: its pidfd names the process seen */
		parent = p->ppid;
	if (parent != p->ppid && parent != getpid()) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (fd < 0) /* before Linux 5.3 */
		return kill(p->pid, sig) == 0 && (!cont || kill(p->pid, SIGCONT) == 0);
	ok = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0;
	if (ok && cont)
		syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0);
	close(fd);
	return ok;
}

/* Send SIG (then SIGCONT, with CONT: a stopped process cannot act on it) to
 * every descendant.  How many were signalled; with OTHERS, only those that
 * are not landrun's own (lr_supervise_own). */
static unsigned signal_tree(const struct lr_supervisor *sv, int sig, bool cont, bool others)
{
	struct lr_tree_proc *all = NULL, *tree = NULL;
	unsigned signalled = 0;
	size_t n = 0, found;

	if (!sv->proc_ours) {
		/* /proc shows another PID namespace: as its PID 1, every other
		 * process of this one is in the tree; otherwise the command's
		 * group is all that can be reached */
		pid_t target = sv->pid1 ? -1 : -sv->child;

		if (kill(target, sig) < 0)
			return 0;
		if (cont)
			kill(target, SIGCONT);
		return 1;
	}
	hold_limits();
	if (scan(&all, &n) < 0 || !(tree = calloc(n ? n : 1, sizeof(*tree)))) {
		/* fail towards ending: the command's group at least */
		free(all);
		return kill(-sv->child, sig) == 0 || kill(sv->child, sig) == 0;
	}
	found = lr_tree_descendants(all, n, getpid(), tree);
	for (size_t i = 0; i < found; i++)
		if (signal_one(&tree[i], sig, cont) && !(others && lr_tree_is_own(tree, i, sv->own, 2)))
			signalled++;
	free(all);
	free(tree);
	return signalled;
}

/* ---------------------------------------------------------------- the pty */

/* Read what FROM has into B, as far as there is room.  False when FROM is
 * done (EOF, EIO: every descriptor of the pty's slave is closed). */
static bool fill(int from, struct lr_relay_buf *b)
{
	ssize_t n = read(from, b->data + b->len, sizeof(b->data) - b->len);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	b->len += (size_t)n;
	return true;
}

/* What the filter dropped, by kind, for restore_term's line. */
static const char *dropped_kinds(const struct lr_term_filter *f)
{
	static const char *const names[LR_TERM_DROPPED_KINDS] = {
		[LR_TERM_DROPPED_CLIPBOARD] = "clipboard",
		[LR_TERM_DROPPED_FONT] = "font",
		[LR_TERM_DROPPED_REPORT] = "title report",
		[LR_TERM_DROPPED_PASSTHROUGH] = "tmux passthrough",
		[LR_TERM_DROPPED_LONG] = "over-long",
	};
	/* (five names and counts of 20 digits at most) */
	static char buf[5 * 48];
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < LR_TERM_DROPPED_KINDS && len < sizeof(buf); k++)
		if (f->dropped[k])
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %lu",
						len ? ", " : "", names[k], f->dropped[k]);
	return buf;
}

/* Room in B for what the command writes next: what it reads, and what the
 * filter held of it before. */
static bool term_room(const struct lr_relay_buf *b)
{
	return b->len + LR_TERM_SLACK + 3 <= sizeof(b->data);
}

/* Read what the pty's master has into B, through the filter, as far as
 * there is room (term_room).  False when the slave is done, as fill. */
static bool fill_term(struct lr_supervisor *sv, struct lr_relay_buf *b)
{
	static char got[RELAY_BUF];
	ssize_t n = read(sv->master, got, (sizeof(b->data) - b->len - LR_TERM_SLACK) / 3);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	b->len += lr_term_filter(sv->filter, got, (size_t)n, b->data + b->len);
	return true;
}

/* Write what B holds to TO, as far as TO takes it now.  False when TO is
 * gone (B is then emptied: nobody will take it). */
static bool flush(int to, struct lr_relay_buf *b)
{
	ssize_t n = write(to, b->data, b->len);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		b->len = 0;
		return false;
	}
	b->len -= (size_t)n;
	memmove(b->data, b->data + n, b->len);
	return true;
}

/* The user's terminal's size, to the pty (whose foreground gets SIGWINCH). */
static void pass_size(const struct lr_supervisor *sv)
{
	struct winsize ws;

	if (ioctl(sv->term, TIOCGWINSZ, &ws) == 0)
		ioctl(sv->master, TIOCSWINSZ, &ws);
}

/*
 * With a pty, wait for a signal of WAITED (its number), for data to relay
 * (moved: 0), or until WAIT (-1, EAGAIN).  What is typed is read only from
 * fd 0, and only while it is the terminal; a side is read only while there
 * is room for what it gives, and written only while it takes it: nothing
 * here waits for the command or for the terminal.
 */
static int wait_relay(struct lr_supervisor *sv, int sigfd, struct timespec *wait)
{
	struct lr_relay_buf *out = sv->to_term, *in = sv->to_pty;
	bool out_room = term_room(out), typing = sv->term == STDIN_FILENO && sv->raw;
	struct pollfd fds[4] = {
		{ sigfd, POLLIN, 0 },
		/* (a master without room and without input to take is left out:
		 * its POLLHUP would wake the loop for nothing) */
		{ sv->master_eof || (!out_room && !in->len) ? -1 : sv->master,
		  (short)((out_room ? POLLIN : 0) | (in->len ? POLLOUT : 0)), 0 },
		{ typing && in->len < sizeof(in->data) ? sv->term_fd : -1, POLLIN, 0 },
		{ out->len ? sv->term_fd : -1, POLLOUT, 0 },
	};
	int timeout = wait ? (int)(wait->tv_sec * 1000 + wait->tv_nsec / 1000000) : -1;
	struct signalfd_siginfo si;
	int n = poll(fds, 4, timeout);

	if (n < 0)
		return -1;
	if (n == 0) {
		errno = EAGAIN;
		return -1;
	}
	if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) && out_room && !fill_term(sv, out))
		sv->master_eof = true;
	/* (POLLHUP with input to take: the write fails, and drops it) */
	if ((fds[1].revents & (POLLOUT | POLLHUP | POLLERR)) && in->len)
		flush(sv->master, in);
	if (fds[2].revents && !fill(sv->term_fd, in))
		set_raw(sv, false); /* the terminal is gone: stop reading it */
	if (fds[3].revents && !flush(sv->term_fd, out))
		sv->term_gone = true;
	if (sv->term_gone)
		out->len = 0; /* nobody shows it: the command must not wait for that */
	if (fds[0].revents && read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		return (int)si.ssi_signo;
	return 0;
}

/*
 * The command has ended: what turns off the modes it left on in the user's
 * terminal (mouse reporting, the alternate screen...: termfilter.h), after a
 * CAN if its output was CUT (a sequence may be open), written within
 * DRAIN_MS; and one line if the filter dropped anything.
 */
static void restore_term(struct lr_supervisor *sv, bool cut)
{
	char seq[LR_TERM_RESTORE_MAX + 1];
	size_t len = 0, done = 0;
	unsigned long dropped = lr_term_dropped(sv->filter);

	if (cut)
		seq[len++] = 0x18; /* CAN */
	len += lr_term_restore(sv->filter, seq + len);
	for (long long until = now_ms() + DRAIN_MS; done < len && !sv->term_gone;) {
		struct pollfd p = { sv->term_fd, POLLOUT, 0 };
		long long left = until - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		n = write(sv->term_fd, seq + done, len - done);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			break;
		done += n > 0 ? (size_t)n : 0;
	}
	if (dropped)
		dprintf(STDERR_FILENO,
			"landrun: --pty: dropped %lu sequence%s that act%s on your terminal beyond the "
			"screen (%s); --pty-passthrough passes them\n",
			dropped, dropped == 1 ? "" : "s", dropped == 1 ? "s" : "",
			dropped_kinds(sv->filter));
}

/*
 * The terminal answers a query as it reads it, so answers to the command's
 * last queries (a cursor position, a colour) may still be on their way up
 * when the command ends, and would be typed into the shell after it: ask
 * the terminal for its status (DSR, CSI 5 n), whose answer (CSI 0 n, or
 * 3 n) comes after every earlier one, and throw away what comes up to it,
 * for DRAIN_MS at most (a terminal that does not answer).
 */
static void quiet_term(struct lr_supervisor *sv)
{
	static const char ask[] = "\x1b[5n";
	int state = 0; /* 0, ESC seen, CSI seen, digits seen */

	if (write(sv->term_fd, ask, sizeof(ask) - 1) != (ssize_t)sizeof(ask) - 1)
		return;
	for (long long until = now_ms() + DRAIN_MS, left; (left = until - now_ms()) > 0;) {
		struct pollfd p = { sv->term_fd, POLLIN, 0 };
		unsigned char in[512];
		ssize_t n;

		if (poll(&p, 1, (int)left) <= 0)
			return;
		n = read(sv->term_fd, in, sizeof(in));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return;
		for (ssize_t i = 0; i < n; i++) {
			unsigned char c = in[i];

			if (state == 3 && c == 'n')
				return;
			if (c == 0x1b)
				state = 1;
			else if (state == 1 && c == '[')
				state = 2;
			else if (state >= 2 && c >= '0' && c <= '9')
				state = 3;
			else
				state = 0;
		}
	}
}

/* The command has ended: show what it wrote last (for DRAIN_MS at most, and
 * what the terminal does not take by then is dropped), then close the pty,
 * so that nothing it left behind reads what is typed from now on; throw away
 * what was typed and not taken (answers to the command's last queries
 * among it, up to the last of them: quiet_term), and give the terminal its mode back, and the modes the
 * command left on in it (restore_term). */
static void end_pty(struct lr_supervisor *sv)
{
	long long until = now_ms() + DRAIN_MS;
	struct lr_relay_buf *out = sv->to_term;
	bool cut;

	if (sv->master < 0)
		return;
	for (long long now = now_ms(); now < until && !sv->term_gone; now = now_ms()) {
		bool room = term_room(out);
		struct pollfd p[2] = {
			{ sv->master_eof || !room ? -1 : sv->master, POLLIN, 0 },
			{ out->len ? sv->term_fd : -1, POLLOUT, 0 },
		};

		if (p[0].fd < 0 && p[1].fd < 0)
			break;
		if (poll(p, 2, (int)(until - now)) <= 0)
			break;
		if (p[0].revents && !fill_term(sv, out))
			sv->master_eof = true;
		if (p[1].revents && !flush(sv->term_fd, out))
			sv->term_gone = true;
	}
	cut = out->len > 0;
	out->len = 0;
	restore_term(sv, cut);
	sv->to_pty->len = 0;
	if (sv->term == STDIN_FILENO && sv->raw) {
		if (!sv->term_gone)
			quiet_term(sv);
		tcflush(sv->term_fd, TCIFLUSH);
	}
	set_raw(sv, false);
	if (sv->term_flags >= 0 && fcntl(sv->term, F_SETFL, sv->term_flags) == 0)
		sv->term_flags = -1;
	close(sv->master);
	sv->master = -1;
}

/* ---------------------------------------------------------------- the loop */

/* The command stopped for the terminal (^Z, or reading it from the
 * background): stop too, so that the shell sees its job stop; once
 * continued (by fg, which gives the supervisor's group the terminal, or
 * by bg), continue the command, with the terminal if it is ours. */
static void pass_stop(struct lr_supervisor *sv, int stopsig)
{
	if (stopsig != SIGTSTP && stopsig != SIGTTIN && stopsig != SIGTTOU)
		return;
	/* with a pty: the terminal back to the shell as it was, while stopped */
	if (sv->master >= 0 && !sv->pid1) {
		set_raw(sv, false);
		kill(getpid(), SIGSTOP);
		set_raw(sv, true);
		kill(-sv->child, SIGCONT);
		return;
	}
	if (!sv->tty || sv->pid1)
		return;
	if (tcgetpgrp(STDIN_FILENO) == sv->child)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	kill(getpid(), SIGSTOP);
	if (tcgetpgrp(STDIN_FILENO) == getpgrp())
		tcsetpgrp(STDIN_FILENO, sv->child);
	kill(-sv->child, SIGCONT);
}

/* Reap every child that ended.  1 if some remain, 0 if none, -errno. */
static int reap(struct lr_supervisor *sv, struct lr_outcome *out)
{
	for (;;) {
		int st, t;
		pid_t pid = waitpid(-1, &st, WNOHANG | WUNTRACED | (sv->trace ? __WALL : 0));

		if (pid == 0)
			return 1;
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return errno == ECHILD ? 0 : -errno;
		if (sv->trace && (t = sv->trace(sv->trace_data, pid, st)) >= 0) {
			if (t > 0 && pid == sv->child)
				pass_stop(sv, t);
			continue;
		}
		if (pid != sv->child)
			continue; /* an orphan */
		if (WIFSTOPPED(st)) {
			pass_stop(sv, WSTOPSIG(st));
			continue;
		}
		out->ended = true;
		out->status = st;
		out->duration_ms = (unsigned long long)(now_ms() - start_ms(sv));
		end_pty(sv);
		/* the terminal back to the supervisor's group, for whoever
		 * reads it next */
		if (sv->tty && tcgetpgrp(STDIN_FILENO) == sv->child)
			tcsetpgrp(STDIN_FILENO, getpgrp());
	}
}

/* SIGKILL the tree until nothing is left: the children of a killed process
 * come to the supervisor, and are found on the next round.  0, -ETIMEDOUT
 * if some could not be ended, or -errno. */
static int kill_tree(struct lr_supervisor *sv, struct lr_outcome *out)
{
	struct timespec round = { 0, KILL_ROUND_MS * 1000000L };
	long long give_up = now_ms() + KILL_GIVE_UP_MS;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		int r = reap(sv, out);

		if (r <= 0)
			return r;
		if (now_ms() > give_up)
			return -ETIMEDOUT;
		if (signal_tree(sv, SIGKILL, false, false))
			out->killed = true;
		sigtimedwait(&chld, NULL, &round);
	}
}

/* Where the loop is: the command runs, or the tree is being ended (SIGTERM
 * sent, SIGKILL at GRACE_END); once a SIGTERM was forwarded (a stop), the
 * tree is killed at STOP_END at the latest. */
struct state {
	bool ending;
	long long grace_end;
	long long stop_end;	/* 0: no stop asked for */
};

/* SIGTERM to the whole tree; SIGKILL after the grace.  How many were signalled. */
static unsigned end_tree(const struct lr_supervisor *sv, struct state *st, long long now)
{
	st->ending = true;
	st->grace_end = now + capped(sv->grace_ms);
	if (st->stop_end && st->stop_end < st->grace_end)
		st->grace_end = st->stop_end;
	return signal_tree(sv, SIGTERM, true, true);
}

/* One turn of the loop, at NOW: the tree is ended when the parent died
 * (--die-with-parent), at the DEADLINE (--timeout), when the command has
 * ended (what it left behind), or when a stop's grace is over. */
static void advance(struct lr_supervisor *sv, struct state *st, struct lr_outcome *out,
		    long long now, long long deadline)
{
	if (st->ending)
		return;
	/* SIG_PARENT_DIED only wakes the loop: the parent may have died
	 * before the supervisor asked to be told, and anybody may send
	 * that signal */
	if (!out->ended && sv->die_with_parent && getppid() != sv->parent) {
		out->why = LR_END_PARENT_DIED;
		end_tree(sv, st, now);
	} else if (!out->ended && deadline >= 0 && now >= deadline) {
		out->why = LR_END_TIMEOUT;
		end_tree(sv, st, now);
	} else if (out->ended) {
		/* the command ended: what it left behind goes too */
		out->left_behind = end_tree(sv, st, now);
	} else if (st->stop_end && now >= st->stop_end) {
		/* a stop whose grace is over: SIGKILL, now */
		st->ending = true;
		st->grace_end = now;
	}
}

/* SIG, which reached the supervisor: forwarded to the command's group (the
 * tree, once it is being ended); SIGWINCH to the pty's size. */
static void forward(struct lr_supervisor *sv, struct state *st, struct lr_outcome *out, int sig)
{
	if (sig == SIGCHLD || sig == SIG_PARENT_DIED)
		return;
	/* the pty's size follows the terminal's: the kernel tells the command */
	if (sig == SIGWINCH && sv->master >= 0) {
		pass_size(sv);
		return;
	}
	if (st->ending) {
		signal_tree(sv, sig, false, false);
		return;
	}
	if (ends_run(sig) && out->why == LR_END_EXITED) {
		out->why = LR_END_SIGNAL;
		out->signal = sig;
	}
	/* a stop (docker stop, systemctl stop): the tree is killed
	 * after the grace, before the caller's own SIGKILL would come
	 * and leave no end record */
	if (sig == SIGTERM && !st->stop_end)
		st->stop_end = now_ms() + capped(sv->grace_ms);
	if (kill(-sv->child, sig) < 0 && errno == ESRCH)
		kill(sv->child, sig);
}

int lr_supervise_wait(struct lr_supervisor *sv, struct lr_outcome *out)
{
	long long deadline = -1;
	struct state st = { 0 };
	sigset_t waited;
	int r, sigfd = -1;

	memset(out, 0, sizeof(*out));
	if (sv->early_ended) {
		out->ended = true;
		out->status = sv->early_status;
		out->duration_ms = sv->early_ms;
	}
	signal_set(&waited, false);
	if (sv->master >= 0 && (sigfd = signalfd(-1, &waited, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		r = -errno;
		end_pty(sv);
		kill_tree(sv, out);
		return r;
	}
	if (sv->timeout_ms)
		deadline = start_ms(sv) + capped(sv->timeout_ms);
	for (;;) {
		struct timespec ts, *wait = NULL;
		long long now, until;
		int sig;

		r = reap(sv, out);
		if (r < 0 || (r == 0 && out->ended))
			break;
		now = now_ms();
		advance(sv, &st, out, now, deadline);
		if (st.ending && now >= st.grace_end) {
			r = kill_tree(sv, out);
			break;
		}
		until = st.ending ? st.grace_end : deadline;
		if (!st.ending && st.stop_end && (until < 0 || st.stop_end < until))
			until = st.stop_end;
		if (until >= 0) {
			ts.tv_sec = (until - now) / 1000;
			ts.tv_nsec = (until - now) % 1000 * 1000000L;
			wait = &ts;
		}
		sig = sv->master >= 0 ? wait_relay(sv, sigfd, wait) : sigtimedwait(&waited, NULL, wait);
		if (sig == 0 || (sig < 0 && (errno == EAGAIN || errno == EINTR)))
			continue;
		if (sig < 0) {
			r = -errno;
			break;
		}
		forward(sv, &st, out, sig);
	}
	end_pty(sv);
	if (sigfd >= 0)
		close(sigfd);
	if (r < 0 && r != -ETIMEDOUT)
		kill_tree(sv, out); /* whatever failed, nothing is left running */
	getrusage(RUSAGE_CHILDREN, &out->rusage);
	return r;
}
