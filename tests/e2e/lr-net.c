/* SPDX-License-Identifier: MIT */
/*
 * lr-net OP ARGS...: attempt one network, IPC or kernel-surface operation and
 * exit with 0 if it worked or with the errno if it did not (bubblewrap's
 * try-syscall idea).  The end-to-end test tests/e2e/net.sh runs it inside and
 * outside landrun and checks the status against a witness outside.
 *
 *   tcp-connect HOST PORT    tcp-bind PORT        tcp-bind-listen PORT
 *   tcp-fastopen HOST PORT (connect by sendto(MSG_FASTOPEN), not connect())
 *   connect-race GOOD BAD PORT ROUNDS: connect ROUNDS times to the IPv4 GOOD
 *            on PORT while a second thread flips the address in memory
 *            between GOOD and BAD; prints "good=N refused=N other=N" (a
 *            connect that reached BAD's host ends in other: ECONNREFUSED,
 *            a timeout...) and exits 0
 *   tcp-listen (listen without bind: autobind)    inet6 (an AF_INET6 stream)
 *   udp-send HOST PORT       udp-bind PORT        mptcp     raw     ping
 *   packet   netlink-route   netlink-audit
 *   unix-socket              unix-connect PATH    unix-abstract NAME
 *   socketpair-stream        socketpair-dgram     dgram-pair-sendto PATH
 *   pipe     fork            thread               exec PATH [ARGS...]   true
 *   kill PID SIG             kill-own-child
 *   io-uring ptrace PID      unshare-user         clone-newns   clone3
 *   mount    keyctl          bpf                  perf          userfaultfd
 *   tiocsti  tiocsti-hi (the command in the upper half: CVE-2019-10063)
 *   personality VALUE (strtoull base 0: 0x40000, 0xffffffff, 0x100000000)
 *   int80    (a 32-bit getpid through int $0x80: the filter kills it)
 *   x32      (getpid through the x32 ABI: the filter kills it; ENOSYS outside
 *            where the kernel has no x32, which is most)
 *
 * Kernel calls are made with syscall(2), so that libc neither falls back nor
 * truncates arguments.  Linked statically (-static -pthread): inside a sandbox
 * it needs nothing but its own file.  Exit 200 means lr-net was used wrongly,
 * never a test result (errno values stay below 134).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef AF_PACKET
#define AF_PACKET 17
#endif
#define ETH_P_ALL_BE 0x0300	/* htons(ETH_P_ALL) */
#define NETLINK_AUDIT_PROTO 9
#define UFFD_USER_MODE_ONLY_FLAG 1
#define PERF_ATTR_SIZE 128	/* >= PERF_ATTR_SIZE_VER0 (64) */

#define USAGE_ERROR 200

/* 0 if the call returned >= 0, else errno (never 0). */
static int result(long r)
{
	return r < 0 ? (errno ? errno : 255) : 0;
}

static int close_result(int fd, int r)
{
	if (fd >= 0)
		close(fd);
	return r;
}

static int port_of(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

/* HOST (IPv4 or IPv6 literal) and PORT into SS; the address length */
static socklen_t inet_addr_of(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port_of(port));
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port_of(port));
		return sizeof(*in6);
	}
	fprintf(stderr, "lr-net: not an address: %s\n", host);
	exit(USAGE_ERROR);
}

static int try_socket(int family, int type, int proto)
{
	int fd = (int)syscall(SYS_socket, family, type | SOCK_CLOEXEC, proto);

	return fd < 0 ? errno : close_result(fd, 0);
}

static int op_inet(int type, const char *host, const char *port, bool send_it)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	int fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	long r;

	if (fd < 0)
		return errno;
	if (send_it)
		r = sendto(fd, "lr-net\n", 7, 0, (struct sockaddr *)&ss, len);
	else
		r = connect(fd, (struct sockaddr *)&ss, len);
	return close_result(fd, result(r));
}

/* a TCP connection opened by sendto(MSG_FASTOPEN), not by connect() */
static int op_tcp_fastopen(const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	return close_result(fd, result(sendto(fd, "lr-net\n", 7, MSG_FASTOPEN,
					      (struct sockaddr *)&ss, len)));
}

static int op_bind(int type, const char *port, bool do_listen)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of("127.0.0.1", port, &ss);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	int one = 1;
	long r;

	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	r = bind(fd, (struct sockaddr *)&ss, len);
	if (r == 0 && do_listen)
		r = listen(fd, 1);
	return close_result(fd, result(r));
}

static int op_tcp_listen(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	return close_result(fd, result(listen(fd, 1)));
}

static socklen_t unix_addr_of(const char *name, bool abstract, struct sockaddr_un *un)
{
	size_t n = strlen(name);

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (n + 2 > sizeof(un->sun_path)) {
		fprintf(stderr, "lr-net: name too long: %s\n", name);
		exit(USAGE_ERROR);
	}
	memcpy(un->sun_path + abstract, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + n + !abstract);
}

static int op_unix_connect(const char *name, bool abstract)
{
	struct sockaddr_un un;
	socklen_t len = unix_addr_of(name, abstract, &un);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r;

	if (fd < 0)
		return errno;
	r = connect(fd, (struct sockaddr *)&un, len);
	return close_result(fd, result(r));
}

/* a byte through a socketpair of TYPE, both ways */
static int op_socketpair(int type)
{
	int sv[2];
	char c = 0;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	if (write(sv[0], "a", 1) != 1 || read(sv[1], &c, 1) != 1 || c != 'a' ||
	    write(sv[1], "b", 1) != 1 || read(sv[0], &c, 1) != 1 || c != 'b')
		return close_result(sv[0], close_result(sv[1], errno ? errno : EIO));
	return close_result(sv[0], close_result(sv[1], 0));
}

/* a datagram pair re-aimed at a pathname socket */
static int op_dgram_pair_sendto(const char *path)
{
	struct sockaddr_un un;
	socklen_t len = unix_addr_of(path, false, &un);
	int sv[2];
	long r;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	r = sendto(sv[0], "lr-net\n", 7, 0, (struct sockaddr *)&un, len);
	return close_result(sv[0], close_result(sv[1], result(r)));
}

static int op_pipe(void)
{
	int p[2];
	char c = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return errno;
	if (write(p[1], "p", 1) != 1 || read(p[0], &c, 1) != 1 || c != 'p')
		return close_result(p[0], close_result(p[1], errno ? errno : EIO));
	return close_result(p[0], close_result(p[1], 0));
}

/* the status of child PID: 0 if it exited 0, else EIO */
static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : EIO;
}

static int op_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return reap(pid);
}

static void *thread_main(void *arg)
{
	*(int *)arg = 42;
	return NULL;
}

static int op_thread(void)
{
	pthread_t t;
	int v = 0, r = pthread_create(&t, NULL, thread_main, &v);

	if (r)
		return r;
	r = pthread_join(t, NULL);
	return r ? r : v == 42 ? 0 : EIO;
}

/* signal a child of our own: the sandbox's scope includes it */
static int op_kill_own_child(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return errno;
	if (pid == 0) {
		for (;;)
			pause();
	}
	if (kill(pid, SIGTERM) < 0) {
		int e = errno;

		syscall(SYS_kill, pid, SIGKILL); /* cannot be denied if SIGTERM was not */
		waitpid(pid, &st, 0);
		return e;
	}
	if (waitpid(pid, &st, 0) != pid)
		return errno;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM ? 0 : EIO;
}

/* a raw clone that returns like fork: the child leaves at once */
static int clone_result(long r)
{
	if (r == 0)
		_exit(0);
	if (r < 0)
		return errno;
	return reap((pid_t)r);
}

static int op_clone3(void)
{
	uint64_t args[8] = { 0 };	/* struct clone_args, CLONE_ARGS_SIZE_VER0 */

	args[4] = SIGCHLD;		/* exit_signal */
	return clone_result(syscall(SYS_clone3, args, sizeof(args)));
}

static int op_io_uring(void)
{
	unsigned char params[256] = { 0 };	/* struct io_uring_params and then some */
	long fd = syscall(SYS_io_uring_setup, 1, params);

	return fd < 0 ? errno : close_result((int)fd, 0);
}

static int op_ptrace(pid_t pid)
{
	if (syscall(SYS_ptrace, PTRACE_ATTACH, pid, 0, 0) < 0)
		return errno;
	syscall(SYS_ptrace, PTRACE_DETACH, pid, 0, 0);
	return 0;
}

static int op_perf(void)
{
	uint32_t attr[PERF_ATTR_SIZE / 4] = { 0 };
	uint64_t flags;
	long fd;

	attr[0] = 1;			/* type: PERF_TYPE_SOFTWARE */
	attr[1] = PERF_ATTR_SIZE;	/* size */
	/* config (u64 at 8) = PERF_COUNT_SW_TASK_CLOCK (1) */
	attr[2] = 1;
	/* flags (u64 at 40): disabled(bit 0), exclude_kernel(5), exclude_hv(6) */
	flags = 1 | 1 << 5 | 1 << 6;
	memcpy(&attr[10], &flags, sizeof(flags));
	fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	return fd < 0 ? errno : close_result((int)fd, 0);
}

static int op_bpf(void)
{
	uint32_t attr[32] = { 0 };	/* BPF_MAP_CREATE of an 8-byte array, 1 entry */

	attr[0] = 2;			/* map_type: BPF_MAP_TYPE_ARRAY */
	attr[1] = 4;			/* key_size */
	attr[2] = 8;			/* value_size */
	attr[3] = 1;			/* max_entries */
	long fd = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof(attr));

	return fd < 0 ? errno : close_result((int)fd, 0);
}

/* getpid through the 32-bit entry point: under landrun, SIGSYS kills us */
static int op_x32(void)
{
#if defined(__x86_64__)
	return syscall(0x40000000L | SYS_getpid) < 0 ? errno : 0;
#else
	fprintf(stderr, "lr-net: x32 is x86-64 only\n");
	return USAGE_ERROR;
#endif
}

static int op_int80(void)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L /* i386 getpid */)
			 : "memory", "r8", "r9", "r10", "r11");
	if (r < 0) {
		errno = (int)-r;
		return errno;
	}
	return r == getpid() ? 0 : EIO;
#else
	fprintf(stderr, "lr-net: int80 is x86-64 only\n");
	return USAGE_ERROR;
#endif
}

static void usage(void)
{
	fprintf(stderr, "usage: lr-net OP ARGS... (see the top of lr-net.c)\n");
	exit(USAGE_ERROR);
}

/* connect-race: the address both threads see, and when to stop. */
static struct sockaddr_in race_sin;
static struct in_addr race_addr[2];
static volatile int race_done;

static void *race_flip(void *arg)
{
	for (unsigned i = 0; !race_done; i++)
		__atomic_store_n(&race_sin.sin_addr.s_addr, race_addr[i & 1].s_addr, __ATOMIC_RELAXED);
	return arg;
}

static int op_connect_race(const char *good, const char *bad, const char *port, const char *rounds)
{
	unsigned long n = strtoul(rounds, NULL, 10), ok = 0, refused = 0, other = 0;
	pthread_t t;

	if (inet_pton(AF_INET, good, &race_addr[0]) != 1 || inet_pton(AF_INET, bad, &race_addr[1]) != 1)
		usage();
	race_sin = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
					 .sin_addr = race_addr[0] };
	if (pthread_create(&t, NULL, race_flip, NULL) != 0)
		return errno ? errno : EAGAIN;
	for (unsigned long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return errno;
		if (syscall(SYS_connect, fd, &race_sin, sizeof(race_sin)) == 0)
			ok++;
		else if (errno == EACCES)
			refused++;
		else
			other++;
		close(fd);
	}
	race_done = 1;
	pthread_join(t, NULL);
	printf("good=%lu refused=%lu other=%lu\n", ok, refused, other);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;

#define NEED(n) do { if (argc < 2 + (n)) usage(); } while (0)
	signal(SIGPIPE, SIG_IGN);	/* a witness that hangs up is no test result */
	errno = 0;
	if (!strcmp(op, "true"))
		return 0;
	if (!strcmp(op, "tcp-connect")) {
		NEED(2);
		return op_inet(SOCK_STREAM, a, b, false);
	}
	if (!strcmp(op, "connect-race")) {
		NEED(4);
		return op_connect_race(a, b, argv[4], argv[5]);
	}
	if (!strcmp(op, "tcp-fastopen")) {
		NEED(2);
		return op_tcp_fastopen(a, b);
	}
	if (!strcmp(op, "tcp-bind")) {
		NEED(1);
		return op_bind(SOCK_STREAM, a, false);
	}
	if (!strcmp(op, "tcp-bind-listen")) {
		NEED(1);
		return op_bind(SOCK_STREAM, a, true);
	}
	if (!strcmp(op, "tcp-listen"))
		return op_tcp_listen();
	if (!strcmp(op, "inet6"))
		return try_socket(AF_INET6, SOCK_STREAM, 0);
	if (!strcmp(op, "udp-send")) {
		NEED(2);
		return op_inet(SOCK_DGRAM, a, b, true);
	}
	if (!strcmp(op, "udp-bind")) {
		NEED(1);
		return op_bind(SOCK_DGRAM, a, false);
	}
	if (!strcmp(op, "mptcp"))
		return try_socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	if (!strcmp(op, "raw"))
		return try_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (!strcmp(op, "ping"))
		return try_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (!strcmp(op, "packet"))
		return try_socket(AF_PACKET, SOCK_RAW, ETH_P_ALL_BE);
	if (!strcmp(op, "netlink-route"))
		return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (!strcmp(op, "netlink-audit"))
		return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT_PROTO);
	if (!strcmp(op, "unix-socket"))
		return try_socket(AF_UNIX, SOCK_STREAM, 0);
	if (!strcmp(op, "unix-connect")) {
		NEED(1);
		return op_unix_connect(a, false);
	}
	if (!strcmp(op, "unix-abstract")) {
		NEED(1);
		return op_unix_connect(a, true);
	}
	if (!strcmp(op, "socketpair-stream"))
		return op_socketpair(SOCK_STREAM);
	if (!strcmp(op, "socketpair-dgram"))
		return op_socketpair(SOCK_DGRAM);
	if (!strcmp(op, "dgram-pair-sendto")) {
		NEED(1);
		return op_dgram_pair_sendto(a);
	}
	if (!strcmp(op, "pipe"))
		return op_pipe();
	if (!strcmp(op, "fork"))
		return op_fork();
	if (!strcmp(op, "thread"))
		return op_thread();
	if (!strcmp(op, "exec")) {
		NEED(1);
		execv(a, argv + 2);
		return errno;
	}
	if (!strcmp(op, "kill")) {
		NEED(2);
		return result(syscall(SYS_kill, (pid_t)strtol(a, NULL, 10), (int)strtol(b, NULL, 10)));
	}
	if (!strcmp(op, "kill-own-child"))
		return op_kill_own_child();
	if (!strcmp(op, "io-uring"))
		return op_io_uring();
	if (!strcmp(op, "ptrace")) {
		NEED(1);
		return op_ptrace((pid_t)strtol(a, NULL, 10));
	}
	if (!strcmp(op, "unshare-user"))
		return result(syscall(SYS_unshare, CLONE_NEWUSER));
	if (!strcmp(op, "clone-newns"))
		return clone_result(syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0));
	if (!strcmp(op, "clone3"))
		return op_clone3();
	if (!strcmp(op, "mount")) /* a target that does not exist: ENOENT if allowed */
		return result(syscall(SYS_mount, "none", "/nonexistent-lr-net", "tmpfs", 0, NULL));
	if (!strcmp(op, "keyctl")) /* KEYCTL_GET_KEYRING_ID of the session keyring */
		return result(syscall(SYS_keyctl, 0, -3, 0));
	if (!strcmp(op, "bpf"))
		return op_bpf();
	if (!strcmp(op, "perf"))
		return op_perf();
	if (!strcmp(op, "userfaultfd")) {
		long fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY_FLAG);

		return fd < 0 ? errno : close_result((int)fd, 0);
	}
	if (!strcmp(op, "tiocsti"))
		return result(syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI, "x"));
	if (!strcmp(op, "tiocsti-hi"))
		return result(syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, "x"));
	if (!strcmp(op, "personality")) {
		NEED(1);
		return result(syscall(SYS_personality, (unsigned long)strtoull(a, NULL, 0)));
	}
	if (!strcmp(op, "int80"))
		return op_int80();
	if (!strcmp(op, "x32"))
		return op_x32();
	usage();
	return USAGE_ERROR;
}
