/* SPDX-License-Identifier: MIT */
/*
 * lr-try OP ARGS...: attempt one operation and exit with 0 if it worked or
 * with the errno if it did not (bubblewrap's try-syscall idea), so that the
 * end-to-end tests can tell EACCES (13) from EXDEV (18) from a bug.
 *
 * Besides the filesystem operations: exec FILE [ARGS] (execv), readfd N (read
 * an inherited fd), env, caps (the capability and NoNewPrivs lines of
 * /proc/self/status), ids (the real, effective and saved uids and gids and
 * the supplementary groups), pid, exit N, kill N (its own death by signal
 * N), tgkill TGID TID SIG (signal one thread of any process), and abi (the Landlock ABI, so that
 * the tests can name a missing kernel feature when they skip).
 *
 * Metadata, by path and by descriptor (the f* forms open the file read-only,
 * fchownat-empty opens it O_PATH and passes AT_EMPTY_PATH; fchmodat2 and
 * setxattrat are called by number, as libc may not have them): chmod,
 * fchmod, fchmodat2 PATH OCTAL; chown, fchown, fchownat-empty PATH UID:GID;
 * setxattr, fsetxattr, setxattrat PATH NAME VALUE; removexattr PATH NAME;
 * xattrs PATH (prints the names); mkfile PATH OCTAL creates a file with that
 * mode (umask 0).
 *
 * The broker's cases: tmpfile DIR NAME [empty] (O_TMPFILE, then linkat),
 * linkfd PATH NAME (an O_PATH descriptor linked), opath-read PATH (read
 * through the /proc/self/fd link of an O_PATH descriptor), mkfifo PATH, fifo PATH
 * r|w|rw|rn|wn, fifo-wait FIFO MARK [w], lease FILE MARK [t], thread-fd HOW LEADER THREAD NAME (see
 * each below); ping MODE (the
 * broker's witness call, broker.h).
 *
 * Linked statically: inside a sandbox it needs nothing but its own file.
 * Exit 100 means lr-try was used wrongly, never a test result.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH, AT_EMPTY_PATH, getresuid: scripts/test-kernels.sh builds without meson */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <linux/types.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define USAGE_ERROR 100

extern char **environ;

/* 0 if the call returned >= 0, else errno (never 0). */
static int result(long r)
{
	return r < 0 ? (errno ? errno : 255) : 0;
}

static int try_open(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags | O_CLOEXEC, mode);

	if (fd < 0)
		return errno;
	return result(close(fd));
}

/* Read the file to its end: a denial may come at open or at read. */
static int try_read(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	return result(n);
}

static int op_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return errno;
	r = try_read(fd);
	close(fd);
	return r;
}

static int op_write(const char *path)
{
	static const char line[] = "lr-try was here\n";
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, line, sizeof(line) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	return result(close(fd));
}

static int op_list(const char *path)
{
	DIR *d = opendir(path);
	int e;

	if (!d)
		return errno;
	errno = 0;
	while (readdir(d))
		;
	e = errno;
	closedir(d);
	return e;
}

static int op_ftruncate(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int r;

	if (fd < 0)
		return errno;
	r = result(ftruncate(fd, 0));
	close(fd);
	return r;
}

/* The Landlock ABI version, for the tests to name a missing feature. */
static int op_abi(void)
{
	long abi = syscall(444 /* landlock_create_ruleset */, NULL, 0, 1 /* VERSION */);

	if (abi < 0)
		return errno;
	return printf("%ld\n", abi) < 0 || fflush(stdout) ? errno : 0;
}

static int op_readfd(const char *arg)
{
	return try_read(atoi(arg));
}

static int op_env(void)
{
	for (char **e = environ; *e; e++)
		puts(*e);
	return fflush(stdout) == 0 ? 0 : errno;
}

static int op_caps(void)
{
	static const char *const keys[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:",
					    "CapAmb:", "NoNewPrivs:" };
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				fputs(line, stdout);
	fclose(f);
	return fflush(stdout) == 0 ? 0 : errno;
}

static int op_ids(void)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[64];
	int n = getgroups(64, groups);

	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 || n < 0)
		return errno;
	printf("uid=%u/%u/%u gid=%u/%u/%u groups=", ru, eu, su, rg, eg, sg);
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", groups[i]);
	printf("\n");
	return fflush(stdout) == 0 ? 0 : errno;
}

/* Open PATH with FLAGS, then run the descriptor operation OP on it. */
#define WITH_FD(path, flags, op)                    \
	do {                                        \
		int fd_ = open(path, (flags) | O_CLOEXEC); \
		int r_;                             \
		if (fd_ < 0)                        \
			return errno;               \
		r_ = result(op);                    \
		close(fd_);                         \
		return r_;                          \
	} while (0)

static const char *const metadata_ops[] = {
	"chmod", "fchmod", "fchmodat2", "mkfile", "chown", "fchown", "fchownat-empty",
	"setxattr", "fsetxattr", "setxattrat", "removexattr",
};

static int op_metadata(const char *op, const char *path, const char *a, const char *b)
{
	unsigned long mode = strtoul(a, NULL, 8);
	unsigned uid = 0, gid = 0;
	struct {
		__aligned_u64 value;
		__u32 size, flags;
	} xargs = { (uintptr_t)b, b ? (__u32)strlen(b) : 0, 0 };

	if (!strcmp(op, "chmod"))
		return result(chmod(path, mode));
	if (!strcmp(op, "mkfile")) {
		umask(0);
		return try_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
	}
	if (!strcmp(op, "fchmod"))
		WITH_FD(path, O_RDONLY, fchmod(fd_, mode));
	if (!strcmp(op, "fchmodat2")) /* fchmodat2(AT_FDCWD, path, mode, 0) */
		return result(syscall(452, AT_FDCWD, path, mode, 0));
	if (sscanf(a, "%u:%u", &uid, &gid) == 2) {
		if (!strcmp(op, "chown"))
			return result(chown(path, uid, gid));
		if (!strcmp(op, "fchown"))
			WITH_FD(path, O_RDONLY, fchown(fd_, uid, gid));
		if (!strcmp(op, "fchownat-empty"))
			WITH_FD(path, O_PATH, fchownat(fd_, "", uid, gid, AT_EMPTY_PATH));
	}
	if (!strcmp(op, "removexattr"))
		return result(removexattr(path, a));
	if (!b)
		return USAGE_ERROR;
	if (!strcmp(op, "setxattr"))
		return result(setxattr(path, a, b, strlen(b), 0));
	if (!strcmp(op, "fsetxattr"))
		WITH_FD(path, O_RDONLY, fsetxattr(fd_, a, b, strlen(b), 0));
	if (!strcmp(op, "setxattrat")) /* (AT_FDCWD, path, at_flags, name, args, size) */
		return result(syscall(463, AT_FDCWD, path, 0, a, &xargs, sizeof(xargs)));
	return USAGE_ERROR;
}

static int op_xattrs(const char *path)
{
	char names[4096];
	ssize_t n = listxattr(path, names, sizeof(names));

	if (n < 0)
		return errno;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
		puts(names + i);
	return fflush(stdout) == 0 ? 0 : errno;
}

/*
 * The broker's races (race-read, race-mkdir A B ROUNDS): a second thread
 * rewrites the path between A and B while this one opens (reads) or makes
 * it, ROUNDS times.  race-read counts the reads that got "SECRET", race-mkdir
 * the rounds after which B exists; both print the count and exit 1 if it is
 * not 0.
 */
static char race_buf[PATH_MAX];
static const char *race_a, *race_b;
static volatile int race_stop;

static void *race_flip(void *arg)
{
	(void)arg;
	while (!race_stop) {
		strcpy(race_buf, race_a);
		strcpy(race_buf, race_b);
	}
	return NULL;
}

static int race(int read_it, const char *a, const char *b, long rounds)
{
	long escaped = 0;
	pthread_t t;

	race_a = a;
	race_b = b;
	strcpy(race_buf, a);
	if (pthread_create(&t, NULL, race_flip, NULL) != 0)
		return 100;
	for (long i = 0; i < rounds; i++) {
		char got[64] = { 0 };
		struct stat st;

		if (read_it) {
			int fd = open(race_buf, O_RDONLY);

			if (fd >= 0) {
				if (read(fd, got, sizeof(got) - 1) > 0 && strstr(got, "SECRET"))
					escaped++;
				close(fd);
			}
		} else {
			mkdir(race_buf, 0755);
			if (stat(b, &st) == 0) {
				escaped++;
				rmdir(b);
			}
			rmdir(a);
		}
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("%ld\n", escaped);
	return escaped ? 1 : 0;
}

/*
 * mkdirp-race DIR ROUNDS: each round, four threads make DIR/rN/tK at once the
 * way mkdir -p does (the child; on ENOENT the parent, then the child again),
 * as npm and Node's fs.mkdir({recursive}) do.  Prints the calls that failed
 * with another error than EEXIST, and exits 1 if there were any.
 */
#define MKDIRP_THREADS 4
static pthread_barrier_t mkdirp_start;
static const char *mkdirp_dir;
static long mkdirp_rounds, mkdirp_failed;
static pthread_mutex_t mkdirp_lock = PTHREAD_MUTEX_INITIALIZER;

static void *mkdirp_thread(void *arg)
{
	long k = (long)arg;

	for (long r = 0; r < mkdirp_rounds; r++) {
		char parent[PATH_MAX], child[PATH_MAX + 32];
		int bad = 0;

		snprintf(parent, sizeof(parent), "%s/r%ld", mkdirp_dir, r);
		snprintf(child, sizeof(child), "%s/t%ld", parent, k);
		pthread_barrier_wait(&mkdirp_start);
		if (mkdir(child, 0755) < 0 && errno == ENOENT) {
			if (mkdir(parent, 0755) < 0 && errno != EEXIST)
				bad++;
			if (mkdir(child, 0755) < 0 && errno != EEXIST)
				bad++;
		} else if (access(child, F_OK) < 0) {
			bad++;
		}
		if (bad) {
			pthread_mutex_lock(&mkdirp_lock);
			mkdirp_failed += bad;
			pthread_mutex_unlock(&mkdirp_lock);
		}
	}
	return NULL;
}

static int mkdirp_race(const char *dir, long rounds)
{
	pthread_t t[MKDIRP_THREADS];

	mkdirp_dir = dir;
	mkdirp_rounds = rounds;
	if (pthread_barrier_init(&mkdirp_start, NULL, MKDIRP_THREADS) != 0)
		return 100;
	for (long k = 0; k < MKDIRP_THREADS; k++)
		if (pthread_create(&t[k], NULL, mkdirp_thread, (void *)k) != 0)
			return 100;
	for (long k = 0; k < MKDIRP_THREADS; k++)
		pthread_join(t[k], NULL);
	printf("%ld\n", mkdirp_failed);
	return mkdirp_failed ? 1 : 0;
}

/*
 * tmpfile DIR NAME [empty]: an unnamed file made in DIR (O_TMPFILE), written,
 * and linked to NAME, as atomic saves do: by its /proc/self/fd link
 * (AT_SYMLINK_FOLLOW), or with "empty" by AT_EMPTY_PATH.
 */
static int op_tmpfile(const char *dir, const char *name, const char *how)
{
	char self[64];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644), r;

	if (fd < 0)
		return errno;
	if (write(fd, "tmpfile\n", 8) != 8) {
		r = errno;
		close(fd);
		return r;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (how && !strcmp(how, "empty"))
		r = result(linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH));
	else
		r = result(linkat(AT_FDCWD, self, AT_FDCWD, name, AT_SYMLINK_FOLLOW));
	close(fd);
	return r;
}

/* linkfd PATH NAME: PATH opened O_PATH, and linked to NAME by its
 * /proc/self/fd link (what Landlock does not check the open of). */
static int op_linkfd(const char *path, const char *name)
{
	char self[64];
	int fd = open(path, O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	r = result(linkat(AT_FDCWD, self, AT_FDCWD, name, AT_SYMLINK_FOLLOW));
	close(fd);
	return r;
}

/*
 * thread-fd HOW LEADER THREAD NAME: a thread with a descriptor table of its
 * own (clone without CLONE_FILES), where descriptor 50 is not what it is in
 * its leader's: LEADER there (a directory), THREAD in the thread's; then the
 * thread's call, whose result is the exit status:
 *   mkdir, create: mkdirat(50, NAME), openat(50, NAME, O_CREAT);
 *   cwd: no descriptor, but a working directory of its own too (no
 *     CLONE_FS): chdir(THREAD), then mkdirat(AT_FDCWD, NAME);
 *   link-empty, link-thread, link-self: 50 in the thread is an unnamed file
 *     made in THREAD (O_TMPFILE), linked to NAME (from the working
 *     directory) by AT_EMPTY_PATH, by /proc/thread-self/fd/50, or by
 *     /proc/self/fd/50 (the leader's table: a directory, EPERM).
 * The thread makes only raw calls (it shares the leader's TLS, errno too,
 * while the leader only waits).
 */
struct thread_fd {
	const char *how, *dir, *name;
	int err;
	int done;
};

static int thread_fd_main(void *arg)
{
	struct thread_fd *t = arg;
	bool linking = !strncmp(t->how, "link-", 5);
	long r;

	if (!strcmp(t->how, "cwd")) {
		r = syscall(SYS_chdir, t->dir);
		if (r == 0)
			r = syscall(SYS_mkdirat, AT_FDCWD, t->name, 0755);
	} else {
		r = syscall(SYS_close, 50);
		r = syscall(SYS_openat, AT_FDCWD, t->dir,
			    linking ? O_TMPFILE | O_RDWR : O_PATH | O_DIRECTORY, 0644);
		if (r >= 0 && r != 50)
			r = syscall(SYS_dup3, (int)r, 50, 0);
		if (r >= 0 && !strcmp(t->how, "mkdir"))
			r = syscall(SYS_mkdirat, 50, t->name, 0755);
		else if (r >= 0 && !strcmp(t->how, "create"))
			r = syscall(SYS_openat, 50, t->name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		else if (r >= 0 && !strcmp(t->how, "link-empty"))
			r = syscall(SYS_linkat, 50, "", AT_FDCWD, t->name, AT_EMPTY_PATH);
		else if (r >= 0 && !strcmp(t->how, "link-thread"))
			r = syscall(SYS_linkat, AT_FDCWD, "/proc/thread-self/fd/50", AT_FDCWD,
				    t->name, AT_SYMLINK_FOLLOW);
		else if (r >= 0 && !strcmp(t->how, "link-self"))
			r = syscall(SYS_linkat, AT_FDCWD, "/proc/self/fd/50", AT_FDCWD, t->name,
				    AT_SYMLINK_FOLLOW);
		else if (r >= 0)
			r = -1, errno = USAGE_ERROR;
	}
	t->err = r < 0 ? (errno ? errno : 255) : 0;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0);
	return 0;
}

static int thread_fd(const char *how, const char *leader, const char *dir, const char *name)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	struct thread_fd t = { how, dir, name, 0, 0 };
	int flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, fd;

	if (strcmp(how, "cwd") != 0)
		flags |= CLONE_FS;
	fd = open(leader, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 50) < 0)
		return errno;
	close(fd);
	if (clone(thread_fd_main, stack + sizeof(stack), flags, &t) < 0)
		return errno;
	for (int i = 0; i < 10000 && !__atomic_load_n(&t.done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	return __atomic_load_n(&t.done, __ATOMIC_ACQUIRE) ? t.err : 110;
}

/* opath-read PATH: PATH opened O_PATH (which Landlock does not check), then
 * read through its /proc/self/fd link (to its end). */
static int op_opath_read(const char *path)
{
	char self[64];
	int fd = open(path, O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	r = op_read(self);
	close(fd);
	return r;
}

/*
 * fifo PATH r|w|rw|rn|wn: open the FIFO at PATH to read, write, both, or
 * (n) with O_NONBLOCK; "r" then prints what it reads to the end, "w" writes
 * "fifo\n".
 */
static int op_fifo(const char *path, const char *how)
{
	int flags = how[0] == 'r' ? (how[1] == 'w' ? O_RDWR : O_RDONLY) : O_WRONLY, fd, r = 0;
	char buf[256];
	ssize_t n;

	if (strchr(how, 'n'))
		flags |= O_NONBLOCK;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (!strcmp(how, "r"))
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
				r = EIO;
	if (!strcmp(how, "w") && write(fd, "fifo\n", 5) != 5)
		r = errno;
	close(fd);
	return r;
}

/*
 * fifo-wait FIFO MARK [w]: a second thread opens FIFO to read (which waits
 * for a writer), or with w to write (for a reader); once it is seen in that
 * call (/proc/self/task/TID/syscall: 102 if that cannot be read while it
 * waits), MARK is made (an open the broker serves: it must not wait for
 * the first); then what the FIFO gives, to its end, is printed (or
 * "fifo\n" written).  0 if all worked.
 */
static const char *fifo_path;
static int fifo_fd = -1, fifo_err, fifo_flags = O_RDONLY;
static volatile int fifo_tid, fifo_done;

static void *fifo_opener(void *arg)
{
	(void)arg;
	fifo_tid = (int)syscall(SYS_gettid);
	fifo_fd = open(fifo_path, fifo_flags | O_CLOEXEC);
	fifo_err = fifo_fd < 0 ? errno : 0;
	__atomic_store_n(&fifo_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int fifo_wait(const char *fifo, const char *mark, const char *how)
{
	char path[64], line[64] = { 0 }, buf[256];
	pthread_t t;
	ssize_t n;
	int fd, r;

	fifo_path = fifo;
	if (how && !strcmp(how, "w"))
		fifo_flags = O_WRONLY;
	if (pthread_create(&t, NULL, fifo_opener, NULL) != 0)
		return USAGE_ERROR;
	/* until the opener is in its open (the syscall's number, first) */
	for (;;) {
		FILE *f;

		if (!fifo_tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", fifo_tid);
		f = fopen(path, "re");
		if (!f && __atomic_load_n(&fifo_done, __ATOMIC_ACQUIRE))
			break; /* done already */
		if (!f)
			return 102;
		r = fgets(line, sizeof(line), f) != NULL;
		fclose(f);
		if (r && atol(line) == SYS_openat)
			break;
	}
	fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	pthread_join(t, NULL);
	if (fifo_err)
		return fifo_err;
	if (fifo_flags == O_WRONLY)
		return write(fifo_fd, "fifo\n", 5) == 5 ? 0 : errno;
	while ((n = read(fifo_fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return EIO;
	return 0;
}

/*
 * lease FILE MARK [t]: FILE made, opened to read and leased (F_RDLCK, SIGIO
 * ignored); a second thread opens it to write (with t: truncates it), which
 * waits for the lease to be given up; once it is seen in that call (102 if that cannot be seen),
 * MARK is made (which must not wait for the first: 105 if it took 5 s),
 * then the lease is given up and the second open must end well (104 if it
 * ended before).  103: no lease could be taken.
 */
static const char *lease_path;
static int lease_err;
static volatile int lease_tid, lease_done, lease_truncate;

static void *lease_writer(void *arg)
{
	int fd;

	(void)arg;
	lease_tid = (int)syscall(SYS_gettid);
	if (lease_truncate) {
		lease_err = truncate(lease_path, 0) < 0 ? errno : 0;
		__atomic_store_n(&lease_done, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	fd = open(lease_path, O_WRONLY | O_CLOEXEC);
	lease_err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&lease_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int op_lease(const char *file, const char *mark, const char *how)
{
	char path[64], line[64];
	struct timespec t0, t1;
	pthread_t t;
	int fd, m, r;

	signal(SIGIO, SIG_IGN);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fcntl(fd, F_SETLEASE, F_RDLCK) < 0)
		return 103;
	lease_path = file;
	lease_truncate = how && !strcmp(how, "t");
	if (pthread_create(&t, NULL, lease_writer, NULL) != 0)
		return USAGE_ERROR;
	for (;;) {
		FILE *f;

		if (__atomic_load_n(&lease_done, __ATOMIC_ACQUIRE)) {
			pthread_join(t, NULL);
			return lease_err ? lease_err : 104;
		}
		if (!lease_tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", lease_tid);
		if (!(f = fopen(path, "re")) && __atomic_load_n(&lease_done, __ATOMIC_ACQUIRE))
			continue; /* done meanwhile: above */
		if (!f)
			return 102;
		r = fgets(line, sizeof(line), f) != NULL;
		fclose(f);
		if (r && atol(line) == (lease_truncate ? SYS_truncate : SYS_openat))
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	m = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (m < 0)
		return errno;
	close(m);
	if (t1.tv_sec - t0.tv_sec >= 5)
		return 105;
	if (__atomic_load_n(&lease_done, __ATOMIC_ACQUIRE))
		return 104;
	if (fcntl(fd, F_SETLEASE, F_UNLCK) < 0)
		return errno;
	pthread_join(t, NULL);
	close(fd);
	return lease_err;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;

	if (!strcmp(op, "env"))
		return op_env();
	if (!strcmp(op, "caps"))
		return op_caps();
	if (!strcmp(op, "abi"))
		return op_abi();
	if (!strcmp(op, "ids"))
		return op_ids();
	if (!strcmp(op, "pid"))
		return printf("%d\n", (int)getpid()) < 0 || fflush(stdout) ? errno : 0;
	if (!a)
		goto usage;
	if (!strcmp(op, "exit"))
		return atoi(a);
	if (!strcmp(op, "kill")) {
		signal(atoi(a), SIG_DFL);
		kill(getpid(), atoi(a));
		return USAGE_ERROR; /* it was not deadly */
	}
	if (!strcmp(op, "tgkill") && argc == 5)
		return result(syscall(SYS_tgkill, atoi(a), atoi(b), atoi(argv[4])));
	if (!strcmp(op, "read"))
		return op_read(a);
	if (!strcmp(op, "write"))
		return op_write(a);
	if (!strcmp(op, "create"))
		return try_open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (!strcmp(op, "list"))
		return op_list(a);
	if (!strcmp(op, "mkdir"))
		return result(mkdir(a, 0755));
	if (!strcmp(op, "ping")) /* ping MODE: the broker's witness (broker.h) */
		return syscall(SYS_mkdirat, -0x4c52, NULL, atoi(a)) == 0x4c52 ? 0
									      : result(-1);
	if (!strcmp(op, "opath-read"))
		return op_opath_read(a);
	if (!strcmp(op, "mkfifo"))
		return result(mknod(a, S_IFIFO | 0644, 0));
	if (!strcmp(op, "unlink"))
		return result(unlink(a));
	if (!strcmp(op, "truncate"))
		return result(truncate(a, 0));
	if (!strcmp(op, "ftruncate"))
		return op_ftruncate(a);
	if (!strcmp(op, "readfd"))
		return op_readfd(a);
	if (!strcmp(op, "xattrs"))
		return op_xattrs(a);
	if (!strcmp(op, "exec")) {
		execv(a, argv + 2);
		return errno;
	}
	if (!b)
		goto usage;
	for (size_t i = 0; i < sizeof(metadata_ops) / sizeof(*metadata_ops); i++) {
		if (strcmp(op, metadata_ops[i]) == 0) {
			int r = op_metadata(op, a, b, argc > 4 ? argv[4] : NULL);

			if (r == USAGE_ERROR)
				goto usage;
			return r;
		}
	}
	if (!strcmp(op, "rename"))
		return result(rename(a, b));
	if (!strcmp(op, "tmpfile"))
		return op_tmpfile(a, b, argc > 4 ? argv[4] : NULL);
	if (!strcmp(op, "linkfd"))
		return op_linkfd(a, b);
	if (!strcmp(op, "fifo"))
		return op_fifo(a, b);
	if (!strcmp(op, "fifo-wait"))
		return fifo_wait(a, b, argc > 4 ? argv[4] : NULL);
	if (!strcmp(op, "lease") && b)
		return op_lease(a, b, argc > 4 ? argv[4] : NULL);
	if (!strcmp(op, "thread-fd") && argc > 5)
		return thread_fd(a, b, argv[4], argv[5]);
	if (!strcmp(op, "link"))
		return result(link(a, b));
	if (!strcmp(op, "symlink"))
		return result(symlink(a, b));
	if ((!strcmp(op, "race-read") || !strcmp(op, "race-mkdir")) && argc > 4)
		return race(op[5] == 'r', a, b, strtol(argv[4], NULL, 10));
	if (!strcmp(op, "mkdirp-race") && b)
		return mkdirp_race(a, strtol(b, NULL, 10));
usage:
	fprintf(stderr, "usage: lr-try read|write|create|list|mkdir|unlink|truncate|ftruncate PATH\n"
			"       lr-try rename|link|symlink A B | linkfd PATH NAME\n"
			"       lr-try mkfifo PATH | fifo PATH r|w|rw|rn|wn | fifo-wait FIFO MARK [w]\n"
			"       lr-try tmpfile DIR NAME [empty] | lease FILE MARK [t]\n"
			"       lr-try thread-fd mkdir|create|cwd|link-empty|link-thread|link-self LEADER THREAD NAME\n"
			"       lr-try race-read|race-mkdir A B ROUNDS | mkdirp-race DIR ROUNDS\n"
			"       lr-try exec FILE [ARGS...] | readfd N | exit N | kill N | env | caps | ids | pid | abi\n"
			"       lr-try chmod|fchmod|fchmodat2|mkfile PATH OCTAL\n"
			"       lr-try chown|fchown|fchownat-empty PATH UID:GID\n"
			"       lr-try setxattr|fsetxattr|setxattrat PATH NAME VALUE | removexattr PATH NAME\n"
			"       lr-try xattrs PATH\n");
	return USAGE_ERROR;
}
