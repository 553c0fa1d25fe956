/* SPDX-License-Identifier: MIT */
/*
 * lr-kguest OP ARGS...: the guest side of scripts/test-kernels.sh, for what
 * lr-try and lr-net do not do.  Linked statically: the guest has no libc.
 *
 *   abi                       print "ABI ERRNO": "6 -", or "0 EOPNOTSUPP"
 *   runas UID GID CMD [ARGS]  drop every group, then gid, then uid; exec CMD
 *   serve tcp|udp [ADDR:]PORT LOG  a witness outside the sandbox, on ADDR (an
 *                             IPv4 address, 127.0.0.1 if not given):PORT
 *   serve unix PATH LOG       ... on a pathname UNIX socket
 *   serve abstract NAME LOG   ... on an abstract UNIX socket
 *   serve signal LOG          ... recording each SIGUSR1 it receives
 *   ioctl-dev PATH            open PATH read-only and ioctl(FIONREAD) on it;
 *                             0 if the call reached the driver (its ENOTTY)
 *   unix-selftest PATH        bind a socket at PATH, connect to it, accept
 *   netns-probe               can this process have a network namespace?  A
 *                             child tries (a user namespace first without
 *                             CAP_SYS_ADMIN, then the network namespace, lo
 *                             up): prints "ok" or the errno's name
 *   prlimit-other PID         read PID's open-file limit (prlimit64): the errno
 *   shmget                    make (and remove) a SysV shared memory segment: the errno
 *   proxy-connect HOST:PORT   CONNECT through $HTTPS_PROXY: exit 0 if it
 *                             answered 200, 43 for 403, 52 for 502, 1 for
 *                             another answer, the errno if it is unreachable
 *
 * A server is ready when "serve" returns: it binds before it forks, prints
 * the server's pid and leaves it running in the background.  The server
 * appends one line to LOG per connection, datagram or signal, so that a test
 * can tell whether an attack reached it.
 *
 * Like lr-try and lr-net: exit 0 if the operation worked, else its errno;
 * 200 means lr-kguest was used wrongly.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define USAGE_ERROR 200

static const char *log_path;

static void usage(void)
{
	fprintf(stderr, "usage: lr-kguest abi | runas UID GID CMD... | serve KIND ADDR LOG |\n"
			"       serve signal LOG | ioctl-dev PATH | unix-selftest PATH |\n"
			"       netns-probe | proxy-connect HOST:PORT | prlimit-other PID | shmget\n");
	exit(USAGE_ERROR);
}

/* one line in the witness log (async-signal-safe: used by the handler) */
static void record(void)
{
	int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, "x\n", 2) < 0) {
			/* nothing to do: the test will see the line missing */
		}
		close(fd);
	}
}

static int op_abi(void)
{
	long abi = syscall(444 /* landlock_create_ruleset */, NULL, 0, 1 /* VERSION */);

	if (abi < 0)
		printf("0 %s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
	else
		printf("%ld -\n", abi);
	return 0;
}

static int op_runas(char **argv)
{
	uid_t uid = (uid_t)strtoul(argv[0], NULL, 10);
	gid_t gid = (gid_t)strtoul(argv[1], NULL, 10);

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("lr-kguest runas");
		return 125;
	}
	if (uid != 0 && setresuid(0, 0, 0) == 0) {
		fprintf(stderr, "lr-kguest runas: could regain root\n");
		return 125;
	}
	execvp(argv[2], argv + 2);
	perror("lr-kguest runas: exec");
	return 127;
}

static socklen_t unix_addr(const char *name, int abstract, struct sockaddr_un *un)
{
	size_t n = strlen(name);

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (n + 2 > sizeof(un->sun_path))
		usage();
	memcpy(un->sun_path + abstract, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + n + !abstract);
}

/* the bound (and, for streams, listening) socket of a server */
static int server_socket(const char *kind, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int type = strcmp(kind, "udp") ? SOCK_STREAM : SOCK_DGRAM;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (!strcmp(kind, "tcp") || !strcmp(kind, "udp")) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		const char *colon = strchr(addr, ':');
		char host[64];

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)atoi(colon ? colon + 1 : addr));
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (colon) {
			snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
			if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
				usage();
		}
		len = sizeof(*in);
	} else if (!strcmp(kind, "unix") || !strcmp(kind, "abstract")) {
		len = unix_addr(addr, kind[0] == 'a', (struct sockaddr_un *)&ss);
	} else {
		usage();
		return -1;
	}
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (ss.ss_family == AF_INET)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 64) < 0)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void on_signal(int sig)
{
	(void)sig;
	record();
}

/* In the background: no stdout, or $(lr-kguest serve ...) would never end. */
static void detach(void)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	setsid();
}

static int op_serve(int argc, char **argv)
{
	const char *kind = argv[0];
	int fd = -1, is_signal = !strcmp(kind, "signal");
	pid_t pid;

	if (argc < (is_signal ? 2 : 3))
		usage();
	log_path = argv[is_signal ? 1 : 2];
	if (is_signal) {
		struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	} else if ((fd = server_socket(kind, argv[1])) < 0) {
		return errno;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid > 0) {
		printf("%d\n", (int)pid);
		return fflush(stdout) ? errno : 0;
	}
	detach();
	for (;;) {
		char buf[512];

		if (is_signal) {
			pause();
		} else if (!strcmp(kind, "udp")) {
			if (recv(fd, buf, sizeof(buf), 0) >= 0)
				record();
		} else {
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				continue;
			record();
			close(c);
		}
	}
}

static int op_ioctl_dev(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0, r;

	if (fd < 0)
		return errno;
	r = ioctl(fd, FIONREAD, &n) < 0 && errno != ENOTTY ? errno : 0;
	close(fd);
	return r;
}

/* a socket of our own at PATH: MAKE_SOCK, then connect: RESOLVE_UNIX */
static int op_unix_selftest(const char *path)
{
	struct sockaddr_un un;
	socklen_t len = unix_addr(path, 0, &un);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c = -1, a = -1, r = 0;
	char ch = 0;

	if (s < 0)
		return errno;
	if (bind(s, (struct sockaddr *)&un, len) < 0 || listen(s, 1) < 0 ||
	    (c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(c, (struct sockaddr *)&un, len) < 0 ||
	    (a = accept4(s, NULL, NULL, SOCK_CLOEXEC)) < 0 || write(c, "u", 1) != 1 ||
	    read(a, &ch, 1) != 1 || ch != 'u')
		r = errno ? errno : 5;
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	close(s);
	unlink(path);
	return r;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : errno ? errno : EIO;
	close(fd);
	return r;
}

/* In a child, as landrun's egress/launcher.c does it, written out anew here. */
static int netns_child(void)
{
	struct ifreq ifr;
	char map[64];
	int fd, r;
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWNET) < 0) {
		if (errno != EPERM || unshare(CLONE_NEWUSER) < 0)
			return errno;
		r = write_file("/proc/self/setgroups", "deny");
		if (r && r != ENOENT)
			return r;
		snprintf(map, sizeof(map), "%u %u 1", uid, uid);
		if ((r = write_file("/proc/self/uid_map", map)))
			return r;
		snprintf(map, sizeof(map), "%u %u 1", gid, gid);
		if ((r = write_file("/proc/self/gid_map", map)))
			return r;
		if (unshare(CLONE_NEWNET) < 0)
			return errno;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (r == 0)
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	return r < 0 ? errno : 0;
}

static int op_netns_probe(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(netns_child());
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	if (WEXITSTATUS(st) == 0)
		printf("ok\n");
	else
		printf("%s\n", strerrorname_np(WEXITSTATUS(st)) ?: "?");
	return 0;
}

static int op_proxy_connect(const char *target)
{
	const char *proxy = getenv("HTTPS_PROXY");
	struct sockaddr_in in = { .sin_family = AF_INET };
	char host[64], req[512], resp[512];
	unsigned port;
	size_t len = 0;
	int fd;

	if (!proxy || sscanf(proxy, "http://%63[^:]:%u", host, &port) != 2 ||
	    inet_pton(AF_INET, host, &in.sin_addr) != 1)
		usage();
	in.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&in, sizeof(in)) < 0)
		return errno;
	snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return errno ? errno : EIO;
	while (len < sizeof(resp) - 1) {
		ssize_t n = read(fd, resp + len, sizeof(resp) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		resp[len] = '\0';
		if (strstr(resp, "\r\n\r\n"))
			break;
	}
	resp[len] = '\0';
	close(fd);
	printf("%.*s\n", (int)strcspn(resp, "\r"), resp);
	if (!strncmp(resp, "HTTP/1.1 200", 12))
		return 0;
	if (!strncmp(resp, "HTTP/1.1 403", 12))
		return 43;
	if (!strncmp(resp, "HTTP/1.1 502", 12))
		return 52;
	return 1;
}

/* proc.others: read the open-file limit of PID (another process's), by
 * prlimit64; the errno, 0 if it worked. */
static int op_prlimit_other(const char *pid)
{
	struct { unsigned long long cur, max; } old;

	return syscall(SYS_prlimit64, atoi(pid), 7 /* RLIMIT_NOFILE */, NULL, &old) < 0 ? errno : 0;
}

/* ipc.sysv: make a SysV shared memory segment (removed at once); the errno. */
static int op_shmget(void)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);

	if (id < 0)
		return errno;
	shmctl(id, IPC_RMID, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	errno = 0;
	if (!strcmp(op, "abi"))
		return op_abi();
	if (!strcmp(op, "runas") && argc >= 5)
		return op_runas(argv + 2);
	if (!strcmp(op, "serve") && argc >= 4)
		return op_serve(argc - 2, argv + 2);
	if (!strcmp(op, "ioctl-dev") && argc == 3)
		return op_ioctl_dev(argv[2]);
	if (!strcmp(op, "unix-selftest") && argc == 3)
		return op_unix_selftest(argv[2]);
	if (!strcmp(op, "netns-probe") && argc == 2)
		return op_netns_probe();
	if (!strcmp(op, "proxy-connect") && argc == 3)
		return op_proxy_connect(argv[2]);
	if (!strcmp(op, "prlimit-other") && argc == 3)
		return op_prlimit_other(argv[2]);
	if (!strcmp(op, "shmget") && argc == 2)
		return op_shmget();
	usage();
	return USAGE_ERROR;
}
