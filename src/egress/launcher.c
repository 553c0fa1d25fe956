/* SPDX-License-Identifier: MIT */
/*
 * --allow-domain, landrun's side: the network namespace, the helper's start,
 * the witness, the proxy's listening sockets.  See egress.h for the order of
 * events; the helper itself is proxy.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/egress/egress.h"
#include "landrun/lib/audit-log.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/policy/env.h"

#define CTL_TIMEOUT_S 10
/* a control message: a secret header, or the run's CA certificate, fits */
#define MSG_MAX 16384
#define SECRET_MAX 8192		/* bytes of a secret header's NAME: VALUE */
#define BUNDLE_MAX (16 << 20)	/* bytes of the system's CA bundle copied */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

void lr_egress_init(struct lr_egress *e)
{
	memset(e, 0, sizeof(*e));
	e->maker_sock = e->ctl = e->helper_fd = -1;
}

/* ---------------------------------------------------------------- the helper's file */

/* DIR/landrun-egress, opened O_PATH: the descriptor, or -errno (-ENOENT
 * also for what is not an executable regular file). */
static int open_helper(const char *dir, char *path, size_t len)
{
	struct stat st;
	int fd, n = snprintf(path, len, "%s/%s", dir, LR_EGRESS_HELPER);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

int lr_egress_find_helper(struct lr_egress *e, const char *self_dir, const char *libexec,
			  char *err, size_t errlen)
{
	char beside[sizeof(e->helper_path)] = "";
	int fd = -ENOENT;

	if (self_dir) {
		fd = open_helper(self_dir, e->helper_path, sizeof(e->helper_path));
		snprintf(beside, sizeof(beside), "%s", e->helper_path);
	}
	if (fd == -ENOENT)
		fd = open_helper(libexec, e->helper_path, sizeof(e->helper_path));
	if (fd == -ENOENT) {
		lr_errf(err, errlen,
			"--allow-domain: the egress helper %s is missing: not in %s%s%s "
			"(it is installed with landrun)",
			LR_EGRESS_HELPER, beside, beside[0] ? " nor in " : "", e->helper_path);
		return fd;
	}
	if (fd < 0) {
		lr_errf(err, errlen, "--allow-domain: the egress helper %s: %s", e->helper_path,
			strerror(-fd));
		return fd;
	}
	e->helper_fd = fd;
	return 0;
}

/* ---------------------------------------------------------------- control messages */

int lr_egress_send(int sock, const char *msg, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = strlen(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

int lr_egress_recv(int sock, char *buf, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	int got = -1;
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (n == 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (got >= 0)
			close(got);
		return n == 0 ? -ECONNRESET : -EMSGSIZE;
	}
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	buf[n] = '\0';
	return (int)n;
}

/* ---------------------------------------------------------------- the namespace */

/* What the child that made the namespace tells landrun. */
struct made {
	int err;		/* 0 or -errno */
	int flags;
	char step[64];
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : n < 0 ? -e : -EIO;
}

static int step_failed(struct made *m, const char *step, int err)
{
	snprintf(m->step, sizeof(m->step), "%s", step);
	m->err = err;
	return err;
}

/* In the child: the namespaces, lo up. */
static int make_ns(struct made *m, uid_t uid, gid_t gid)
{
	struct ifreq ifr = { 0 };
	char map[64];
	int fd, r;

	m->flags = CLONE_NEWNET;
	if (unshare(CLONE_NEWNET) < 0) {
		if (errno != EPERM)
			return step_failed(m, "unshare(CLONE_NEWNET)", -errno);
		/* no CAP_SYS_ADMIN: a user namespace of its own first, where the
		 * caller is itself (not root) */
		m->flags |= CLONE_NEWUSER;
		if (unshare(CLONE_NEWUSER) < 0)
			return step_failed(m, "unshare(CLONE_NEWUSER)", -errno);
		r = write_file("/proc/self/setgroups", "deny");
		if (r < 0 && r != -ENOENT)
			return step_failed(m, "/proc/self/setgroups", r);
		snprintf(map, sizeof(map), "%u %u 1", uid, uid);
		if ((r = write_file("/proc/self/uid_map", map)) < 0)
			return step_failed(m, "/proc/self/uid_map", r);
		snprintf(map, sizeof(map), "%u %u 1", gid, gid);
		if ((r = write_file("/proc/self/gid_map", map)) < 0)
			return step_failed(m, "/proc/self/gid_map", r);
		if (unshare(CLONE_NEWNET) < 0)
			return step_failed(m, "unshare(CLONE_NEWNET)", -errno);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return step_failed(m, "a socket in the namespace", -errno);
	strcpy(ifr.ifr_name, "lo");
	r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (r == 0)
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	r = r < 0 ? -errno : 0;
	close(fd);
	return r < 0 ? step_failed(m, "bringing up lo", r) : 0;
}

int lr_egress_make_netns(struct lr_egress *e)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct made m = { 0 };
	int sp[2], st;
	pid_t pid;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		snprintf(e->netns_step, sizeof(e->netns_step), "socketpair");
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sp[0]);
		close(sp[1]);
		snprintf(e->netns_step, sizeof(e->netns_step), "fork");
		return err;
	}
	if (pid == 0) {
		char c;

		close(sp[0]);
		make_ns(&m, uid, gid);
		if (write(sp[1], &m, sizeof(m)) == sizeof(m) && m.err == 0)
			/* hold the namespace until landrun joined it or let it go */
			while (read(sp[1], &c, 1) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	close(sp[1]);
	do
		n = read(sp[0], &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(m) || m.err < 0) {
		close(sp[0]);
		waitpid(pid, &st, 0);
		snprintf(e->netns_step, sizeof(e->netns_step), "%s",
			 n == sizeof(m) ? m.step : "the child making it");
		return n == sizeof(m) ? m.err : -EIO;
	}
	e->maker = pid;
	e->maker_sock = sp[0];
	e->ns_flags = m.flags;
	return 0;
}

void lr_egress_drop_netns(struct lr_egress *e)
{
	int st;

	if (e->maker_sock >= 0)
		close(e->maker_sock);
	if (e->maker > 0)
		waitpid(e->maker, &st, 0);
	e->maker_sock = -1;
	e->maker = 0;
}

/* ---------------------------------------------------------------- the helper */

static int move_above(int fd, int floor)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, floor);
}

/*
 * The grandchild: a session of its own (the terminal's ^C is for the
 * command), no signal blocked, /dev/null for input and output, stderr for
 * its log, fd 3 the control socket, fd 4 the pidfd; then the helper's
 * executable (opened before: fd 5 until the exec closes it), with an empty
 * environment, so that nothing of landrun's memory (the --env-file, the
 * caller's environment) comes along.
 */
static void exec_helper(int ctl, int pidfd, int exe)
{
	static char *const argv[] = { LR_EGRESS_HELPER, NULL };
	static char *const envp[] = { NULL };
	sigset_t none;
	int null, c, p, x;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	c = move_above(ctl, 10);
	p = move_above(pidfd, 10);
	x = move_above(exe, 10);
	if (null < 0 || c < 0 || p < 0 || x < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(c, 3) < 0 || dup2(p, 4) < 0 || dup3(x, 5, O_CLOEXEC) < 0)
		_exit(127);
	syscall(SYS_close_range, 6, ~0U, 0);
	syscall(SYS_execveat, 5, "", argv, envp, AT_EMPTY_PATH);
	_exit(127);
}

static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
{
	char what[LR_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	lr_verrf(what, sizeof(what), fmt, ap);
	va_end(ap);
	lr_errf(err, errlen, "--allow-domain: %s: %s", what, strerror(-r));
	return r;
}

/* A reply from the helper: "WORD ..." as expected, or its "error ...". */
static int expect(struct lr_egress *e, const char *word, char *buf, size_t len, char *err,
		  size_t errlen)
{
	size_t wl = strlen(word);
	int r = lr_egress_recv(e->ctl, buf, len, NULL);

	if (r == -ECONNRESET || r == -ETIMEDOUT)
		return fail(err, errlen, r, "the egress helper did not answer (%s)", word);
	if (r < 0)
		return fail(err, errlen, r, "reading from the egress helper (%s)", word);
	if (strncmp(buf, "error ", 6) == 0) {
		lr_errf(err, errlen, "--allow-domain: the egress helper: %s", buf + 6);
		return -EIO;
	}
	if (strncmp(buf, word, wl) != 0 || (buf[wl] != ' ' && buf[wl] != '\0')) {
		lr_errf(err, errlen, "--allow-domain: the egress helper said '%.64s', not %s", buf,
			word);
		return -EPROTO;
	}
	return 0;
}

/* The intercepted hosts: each with its secret header (expanded) and rules,
 * and the CAs the helper verifies upstreams against. */
static int send_sites(struct lr_egress *e, const struct lr_policy *policy, char *msg, size_t len)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < policy->n_egress_sites; i++) {
		const struct lr_http_site *s = &policy->egress_sites[i];

		snprintf(msg, len, "site %u %s", s->port, s->host);
		r = lr_egress_send(e->ctl, msg, -1);
		if (r == 0 && s->header_name) {
			snprintf(msg, len, "header %s: %s", s->header_name, e->secrets[i]);
			r = lr_egress_send(e->ctl, msg, -1);
			explicit_bzero(msg, len);
		}
		for (size_t j = 0; r == 0 && j < s->n_allow; j++) {
			snprintf(msg, len, "rule %d %s %s", s->allow[j].prefix, s->allow[j].method,
				 s->allow[j].path);
			r = lr_egress_send(e->ctl, msg, -1);
		}
	}
	if (r == 0 && policy->n_egress_sites && e->cafile[0]) {
		snprintf(msg, len, "cafile %s", e->cafile);
		r = lr_egress_send(e->ctl, msg, -1);
	}
	return r;
}

static int send_config(struct lr_egress *e, const struct lr_policy *policy,
		       const struct lr_audit *audit)
{
	char msg[MSG_MAX];
	int r;

	snprintf(msg, sizeof(msg), "log %d", (int)policy->log_level);
	r = lr_egress_send(e->ctl, msg, -1);
	if (r == 0 && audit && audit->fd >= 0) {
		snprintf(msg, sizeof(msg), "audit %s", audit->run);
		r = lr_egress_send(e->ctl, msg, audit->fd);
	}
	for (size_t i = 0; r == 0 && i < policy->n_allow_domains; i++) {
		const struct lr_dest *d = &policy->allow_domains[i];

		snprintf(msg, sizeof(msg), "allow %d %u %s", (int)d->kind, d->port, d->host);
		r = lr_egress_send(e->ctl, msg, -1);
	}
	r = r ?: send_sites(e, policy, msg, sizeof(msg));
	return r ?: lr_egress_send(e->ctl, "end", -1);
}

int lr_egress_start(struct lr_egress *e, const struct lr_policy *policy,
		    const struct lr_audit *audit, char *err, size_t errlen)
{
	struct timeval tmo = { .tv_sec = CTL_TIMEOUT_S };
	char buf[MSG_MAX];
	int sp[2], pidfd, st, r;
	pid_t pid;

	if (e->helper_fd < 0)
		return fail(err, errlen, -EBADF, "%s", "the egress helper was not found first");
	if (e->n_secrets != policy->n_egress_sites)
		return fail(err, errlen, -EINVAL, "%s", "the secret headers were not expanded first");
	/* the helper ends when this process (the command, after execve) does */
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return fail(err, errlen, -errno, "%s", "pidfd_open (Linux 5.3)");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		r = -errno;
		close(pidfd);
		return fail(err, errlen, r, "%s", "socketpair");
	}
	pid = fork();
	if (pid == 0) {
		/* twice: the helper is not the command's child, so that a command
		 * waiting for all its children does not wait for it */
		pid_t helper = fork();

		if (helper == 0)
			exec_helper(sp[1], pidfd, e->helper_fd);
		if (helper < 0)
			_exit(1);
		/* its pid, which the supervisor does not count as the command's */
		snprintf(buf, sizeof(buf), "helper %d", (int)helper);
		_exit(lr_egress_send(sp[1], buf, -1) < 0);
	}
	r = pid < 0 ? -errno : 0;
	close(sp[1]);
	close(pidfd);
	close(e->helper_fd);
	e->helper_fd = -1;
	if (r == 0 && (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
		r = -ECHILD;
	if (r < 0) {
		close(sp[0]);
		return fail(err, errlen, r, "%s", "cannot start the egress helper");
	}
	e->ctl = sp[0];
	if (setsockopt(e->ctl, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0)
		return fail(err, errlen, -errno, "%s", "SO_RCVTIMEO");
	r = expect(e, "helper", buf, sizeof(buf), err, errlen);
	if (r < 0)
		return r;
	e->helper = (pid_t)strtol(buf + 7, NULL, 10);
	r = send_config(e, policy, audit);
	lr_egress_forget_secrets(e);
	if (r < 0)
		return fail(err, errlen, r, "%s", "writing to the egress helper");
	if (policy->n_egress_sites) {
		r = expect(e, "ca", buf, sizeof(buf), err, errlen);
		if (r < 0)
			return r;
		e->ca_pem = strdup(buf + 3);
		if (!e->ca_pem)
			return fail(err, errlen, -ENOMEM, "%s", "the run's CA");
	}
	r = expect(e, "witness", buf, sizeof(buf), err, errlen);
	if (r < 0)
		return r;
	e->witness_port = (uint16_t)strtoul(buf + 8, NULL, 10);
	return 0;
}

/* ---------------------------------------------------------------- the witness */

/* Connect to 127.0.0.1:PORT here: 0, or -errno. */
static int try_loopback(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int lr_egress_enter(struct lr_egress *e, char *err, size_t errlen)
{
	char buf[MSG_MAX];
	int pidfd, r;

	/* the control: the witness is reachable from the caller's network */
	r = try_loopback(e->witness_port);
	if (r < 0) {
		lr_egress_drop_netns(e);
		lr_errf(err, errlen,
			"the egress helper's listener on 127.0.0.1:%u is not "
			"reachable from outside: %s",
			e->witness_port, strerror(-r));
		return -EIO;
	}
	pidfd = (int)syscall(SYS_pidfd_open, e->maker, 0);
	r = pidfd < 0 ? -errno : setns(pidfd, e->ns_flags) < 0 ? -errno : 0;
	if (pidfd >= 0)
		close(pidfd);
	lr_egress_drop_netns(e);
	if (r < 0) {
		lr_errf(err, errlen, "setns into the network namespace: %s", strerror(-r));
		return r;
	}
	r = try_loopback(e->witness_port);
	if (r == 0) {
		lr_errf(err, errlen,
			"the egress helper's listener on 127.0.0.1:%u is reachable "
			"from inside the network namespace",
			e->witness_port);
		return -EPERM;
	}
	r = lr_egress_send(e->ctl, "witness-check", -1);
	if (r < 0)
		return fail(err, errlen, r, "%s", "writing to the egress helper");
	r = expect(e, "witness", buf, sizeof(buf), err, errlen);
	if (r < 0)
		return r;
	if (strcmp(buf, "witness 1") != 0) {
		lr_errf(err, errlen,
			"the egress helper's listener counted %s connections, not the "
			"one made from outside",
			buf + 8);
		return -EPERM;
	}
	return 0;
}

/* ---------------------------------------------------------------- listening */

static int listen_on(uint16_t port, int *fd, uint16_t *bound)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int r = 0;

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (bind(*fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(*fd, SOMAXCONN) < 0 ||
	    getsockname(*fd, (struct sockaddr *)&sin, &len) < 0)
		r = -errno;
	if (r < 0) {
		close(*fd);
		*fd = -1;
		return r;
	}
	*bound = ntohs(sin.sin_port);
	return 0;
}

/* Listen on PORT and hand the socket to the helper with MSG. */
static int hand_over(struct lr_egress *e, const char *msg, uint16_t port, uint16_t *bound)
{
	int fd, r = listen_on(port, &fd, bound);

	if (r < 0)
		return r;
	r = lr_egress_send(e->ctl, msg, fd);
	close(fd);
	return r;
}

int lr_egress_listen(struct lr_egress *e, const struct lr_policy *policy, bool netns, char *err,
		     size_t errlen)
{
	uint16_t port = netns ? lr_egress_netns_port(policy) : 0, bound;
	char buf[MSG_MAX];
	int r;

	/* (at most LR_EGRESS_MAX_FORWARDS: the command line refuses more) */
	/* in the namespace, the --connect-tcp ports are the host's loopback's */
	for (size_t i = 0; netns && i < policy->n_connect_tcp; i++) {
		for (unsigned p = policy->connect_tcp[i].first; p <= policy->connect_tcp[i].last;
		     p++) {
			char msg[32];

			snprintf(msg, sizeof(msg), "forward %u", p);
			r = hand_over(e, msg, (uint16_t)p, &bound);
			if (r < 0) {
				lr_errf(err, errlen,
					"--connect-tcp %u: cannot listen on 127.0.0.1:%u "
					"in the network namespace: %s",
					p, p, strerror(-r));
				return r;
			}
		}
	}
	r = hand_over(e, "proxy", port, &e->proxy_port);
	if (r < 0) {
		lr_errf(err, errlen,
			"--allow-domain: cannot listen on 127.0.0.1:%u for the proxy: %s", port,
			strerror(-r));
		return r;
	}
	r = lr_egress_send(e->ctl, "go", -1);
	if (r < 0)
		return fail(err, errlen, r, "%s", "writing to the egress helper");
	r = expect(e, "ready", buf, sizeof(buf), err, errlen);
	close(e->ctl);
	e->ctl = -1;
	return r;
}

int lr_egress_set_env(struct lr_strlist *env, uint16_t port)
{
	static const char *const proxies[] = {
		"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
	};
	char url[64];
	int r = 0;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	for (size_t i = 0; r == 0 && i < sizeof(proxies) / sizeof(*proxies); i++)
		r = lr_env_set(env, proxies[i], url);
	/* the forwarded --connect-tcp ports are reached directly */
	r = r ?: lr_env_set(env, "NO_PROXY", "localhost,127.0.0.1,::1");
	r = r ?: lr_env_set(env, "no_proxy", "localhost,127.0.0.1,::1");
	/* Node.js (22.21, 24.5 and later) honours the variables only when told */
	r = r ?: lr_env_set(env, "NODE_USE_ENV_PROXY", "1");
	return r;
}

/* ---------------------------------------------------------------- intercepted hosts */

int lr_egress_expand_secrets(struct lr_egress *e, const struct lr_policy *policy,
			     char *(*lookup)(const char *name), char *err, size_t errlen)
{
	char missing[256];
	int r;

	if (!policy->n_egress_sites)
		return 0;
	e->secrets = calloc(policy->n_egress_sites, sizeof(*e->secrets));
	if (!e->secrets)
		return -ENOMEM;
	e->n_secrets = policy->n_egress_sites;
	for (size_t i = 0; i < policy->n_egress_sites; i++) {
		const struct lr_http_site *s = &policy->egress_sites[i];

		if (!s->header_name)
			continue;
		r = lr_egress_expand_secret(s->header_value, lookup, &e->secrets[i], missing,
					    sizeof(missing));
		if (r == 0 && strlen(s->header_name) + strlen(e->secrets[i]) + 2 > SECRET_MAX)
			r = -E2BIG;
		if (r < 0) {
			lr_errf(err, errlen, "--secret-header %s:%u: %s%s%s", s->host, s->port,
				r == -E2BIG ? "the header is longer than 8 KiB" : "${",
				r == -E2BIG ? "" : missing,
				r == -ENOENT   ? "} is not set (or empty) in landrun's environment"
				: r == -EINVAL ? "} holds a control character (a newline?)"
				: r == -E2BIG  ? ""
					       : "}: out of memory");
			lr_egress_forget_secrets(e);
			return r;
		}
	}
	return 0;
}

void lr_egress_forget_secrets(struct lr_egress *e)
{
	for (size_t i = 0; i < e->n_secrets; i++)
		if (e->secrets[i]) {
			explicit_bzero(e->secrets[i], strlen(e->secrets[i]));
			free(e->secrets[i]);
		}
	free(e->secrets);
	e->secrets = NULL;
	e->n_secrets = 0;
}

int lr_egress_placeholders(struct lr_strlist *env, const struct lr_policy *policy,
			   char *(*lookup)(const char *name))
{
	struct lr_strlist vars = { 0 };
	int r = 0;

	for (size_t i = 0; r == 0 && i < policy->n_egress_sites; i++)
		if (policy->egress_sites[i].header_name)
			r = lr_egress_secret_vars(policy->egress_sites[i].header_value, &vars);
	for (size_t i = 0; r == 0 && i < vars.n; i++) {
		const char *secret = lookup(vars.v[i]);

		if (lr_env_lookup(env->v, vars.v[i]))
			r = lr_env_set(env, vars.v[i], LR_EGRESS_PLACEHOLDER);
		/* and wherever else the command would get the same value */
		for (size_t j = 0; r == 0 && secret && strlen(secret) >= 8 && j < env->n; j++) {
			const char *eq = strchr(env->v[j], '=');
			char name[256];

			if (!eq || !strstr(eq + 1, secret) || (size_t)(eq - env->v[j]) >= sizeof(name))
				continue;
			memcpy(name, env->v[j], (size_t)(eq - env->v[j]));
			name[eq - env->v[j]] = '\0';
			r = lr_env_set(env, name, LR_EGRESS_PLACEHOLDER);
		}
	}
	lr_strlist_free(&vars);
	return r;
}

const char *lr_egress_system_cafile(char *(*lookup)(const char *name))
{
	static const char *const bundles[] = {
		"/etc/ssl/certs/ca-certificates.crt",	/* Debian, Ubuntu, Alpine, Arch */
		"/etc/pki/tls/certs/ca-bundle.crt",	/* Fedora, RHEL */
		"/etc/ssl/ca-bundle.pem",		/* openSUSE */
		"/etc/ssl/cert.pem",			/* Alpine, macOS-like */
	};
	const char *env = lookup("SSL_CERT_FILE");

	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(bundles) / sizeof(*bundles); i++)
		if (access(bundles[i], R_OK) == 0)
			return bundles[i];
	return NULL;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int lr_egress_write_bundle(int fd, const char *cafile, const char *pem, char *err, size_t errlen)
{
	static const char note[] = "\n# landrun: the run's CA, for the hosts it intercepts\n";
	char buf[65536];
	size_t total = 0;
	ssize_t n = 0;
	int in = -1, r = 0;

	if (cafile && (in = open(cafile, O_RDONLY | O_CLOEXEC)) < 0) {
		lr_errf(err, errlen, "the CA bundle %s: %s", cafile, strerror(errno));
		return -errno;
	}
	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0 && r == 0) {
		total += (size_t)n;
		r = total > BUNDLE_MAX ? -EFBIG : write_all(fd, buf, (size_t)n);
	}
	if (n < 0)
		r = -errno;
	if (in >= 0)
		close(in);
	r = r ?: write_all(fd, note, strlen(note));
	r = r ?: write_all(fd, pem, strlen(pem));
	if (r < 0)
		lr_errf(err, errlen, "writing the CA bundle (from %s): %s",
			cafile ? cafile : "none", strerror(-r));
	return r;
}

int lr_egress_set_ca_env(struct lr_strlist *env, const char *bundle)
{
	/* SSL_CERT_FILE replaces OpenSSL's store (and Go's, rustls' native
	 * roots, Python's ssl); Node and Bun add NODE_EXTRA_CA_CERTS to theirs;
	 * requests, curl, git, Deno have variables of their own */
	static const char *const names[] = {
		"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
		"GIT_SSL_CAINFO", "DENO_CERT",
	};
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(names) / sizeof(*names); i++)
		r = lr_env_set(env, names[i], bundle);
	return r;
}
