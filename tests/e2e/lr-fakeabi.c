/* SPDX-License-Identifier: MIT */
/*
 * lr-fakeabi MODE -- CMD [ARGS...]: run CMD as if on an older kernel.
 *
 *   enosys, eopnotsupp  the three Landlock syscalls fail with that errno
 *                       (Landlock not built in / not in the lsm= list)
 *   eperm               ... with EPERM, as a container engine's seccomp
 *                       profile refuses them (Docker's default errno)
 *   noseccomp           seccomp(2) fails with EPERM, prctl(PR_SET_SECCOMP)
 *                       still works: a profile without "seccomp"
 *   lying-restrict      landlock_restrict_self returns 0 and does nothing
 *   lying-seccomp       seccomp(2) returns 0 and loads nothing: filters
 *                       that lie, which only a witness can tell
 *   nopidfd             pidfd_getfd(2) fails with EPERM, as Docker's and
 *                       podman's default profiles refuse it without
 *                       CAP_SYS_PTRACE
 *   abi=N               landlock_create_ruleset(VERSION) reports ABI N and
 *                       ERRATA reports none; every other call reaches the
 *                       real kernel, which then enforces exactly the (older)
 *                       rights the program asked for
 *
 * The first is a plain seccomp errno filter.  The second uses a seccomp user
 * notification listener: the child installs the filter and hands the
 * listener to the parent over a socketpair, then execs CMD; the parent
 * answers the version queries and lets the rest continue.
 *
 * Exit status: CMD's, 128+N if it died of signal N, 125 if lr-fakeabi failed.
 * Linked statically, so that it runs wherever the tests copy it.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAIL 125

#define NR_CREATE_RULESET 444
#define NR_ADD_RULE 445
#define NR_RESTRICT_SELF 446
#define FLAG_VERSION 1
#define FLAG_ERRATA 2

static void die(const char *what)
{
	fprintf(stderr, "lr-fakeabi: %s: %s\n", what, strerror(errno));
	exit(FAIL);
}

static int install(struct sock_filter *insns, unsigned short n, unsigned flags)
{
	struct sock_fprog prog = { .len = n, .filter = insns };
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)");
	r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (r < 0)
		die("seccomp(SECCOMP_SET_MODE_FILTER)");
	return r;
}

static void exec_or_die(char **cmd)
{
	execv(cmd[0], cmd);
	fprintf(stderr, "lr-fakeabi: execv %s: %s\n", cmd[0], strerror(errno));
	exit(errno == ENOENT ? 127 : 126);
}

/* enosys / eopnotsupp / eperm: the three Landlock syscalls fail with ERR;
 * noseccomp, nopidfd: seccomp(2), pidfd_getfd(2) (FIRST = LAST = its
 * number); ERR 0: the call "succeeds" without being made. */
static void run_errno(int err, char **cmd, unsigned first, unsigned last)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, first, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, last, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install(f, sizeof(f) / sizeof(*f), 0);
	exec_or_die(cmd);
}

static void send_fd(int sock, int fd)
{
	char data = 'L';
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg(listener)");
}

static int recv_fd(int sock)
{
	char data;
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		die("recvmsg(listener)");
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EPROTO;
		die("recvmsg(listener): no fd");
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The child: notify on landlock_create_ruleset, hand over the listener, exec. */
static void child(int sock, char **cmd)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_CREATE_RULESET, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	int listener = install(f, sizeof(f) / sizeof(*f), SECCOMP_FILTER_FLAG_NEW_LISTENER);

	send_fd(sock, listener);
	if (close(listener) < 0 || close(sock) < 0)
		die("close");
	exec_or_die(cmd);
}

/* The parent: answer until no task uses the filter any more. */
static void supervise(int listener, int abi)
{
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		die("seccomp(SECCOMP_GET_NOTIF_SIZES)");
	req = malloc(sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
	resp = malloc(sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp
								: sizeof(*resp));
	if (!req || !resp)
		die("malloc");

	for (;;) {
		struct pollfd p = { .fd = listener, .events = POLLIN };

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll(listener)");
		}
		if (!(p.revents & POLLIN))
			break; /* POLLHUP: every task using the filter is gone */

		memset(req, 0, sizes.seccomp_notif);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue; /* ENOENT: the caller died meanwhile */
			die("ioctl(SECCOMP_IOCTL_NOTIF_RECV)");
		}
		memset(resp, 0, sizes.seccomp_notif_resp);
		resp->id = req->id;
		if (req->data.nr != NR_CREATE_RULESET)
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		else if (req->data.args[2] == FLAG_VERSION)
			resp->val = abi;
		else if (req->data.args[2] == FLAG_ERRATA)
			resp->val = 0;
		else
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
			die("ioctl(SECCOMP_IOCTL_NOTIF_SEND)");
	}
	free(req);
	free(resp);
}

static int run_abi(int abi, char **cmd)
{
	int sv[2], listener, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], cmd);
	}
	if (close(sv[1]) < 0)
		die("close");
	listener = recv_fd(sv[0]);
	if (close(sv[0]) < 0)
		die("close");
	supervise(listener, abi);
	if (close(listener) < 0)
		die("close");
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char *end;
	long abi;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: lr-fakeabi enosys|eopnotsupp|eperm|noseccomp|nopidfd|"
				"lying-restrict|lying-seccomp|abi=N -- CMD [ARGS...]\n");
		return FAIL;
	}
	if (!strcmp(argv[1], "enosys"))
		run_errno(ENOSYS, argv + 3, NR_CREATE_RULESET, NR_RESTRICT_SELF);
	if (!strcmp(argv[1], "eopnotsupp"))
		run_errno(EOPNOTSUPP, argv + 3, NR_CREATE_RULESET, NR_RESTRICT_SELF);
	if (!strcmp(argv[1], "eperm"))
		run_errno(EPERM, argv + 3, NR_CREATE_RULESET, NR_RESTRICT_SELF);
	if (!strcmp(argv[1], "noseccomp"))
		run_errno(EPERM, argv + 3, SYS_seccomp, SYS_seccomp);
	if (!strcmp(argv[1], "lying-restrict"))
		run_errno(0, argv + 3, NR_RESTRICT_SELF, NR_RESTRICT_SELF);
	if (!strcmp(argv[1], "lying-seccomp"))
		run_errno(0, argv + 3, SYS_seccomp, SYS_seccomp);
	if (!strcmp(argv[1], "nopidfd"))
		run_errno(EPERM, argv + 3, SYS_pidfd_getfd, SYS_pidfd_getfd);
	if (strncmp(argv[1], "abi=", 4) == 0) {
		errno = 0;
		abi = strtol(argv[1] + 4, &end, 10);
		if (errno || end == argv[1] + 4 || *end || abi < 1 || abi > 1000) {
			fprintf(stderr, "lr-fakeabi: %s: not an ABI number\n", argv[1]);
			return FAIL;
		}
		return run_abi((int)abi, argv + 3);
	}
	fprintf(stderr, "lr-fakeabi: %s: unknown mode\n", argv[1]);
	return FAIL;
}
