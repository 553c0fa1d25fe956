/* SPDX-License-Identifier: MIT */
/*
 * lr-try OP ARGS...: attempt one operation and exit with 0 if it worked or
 * with the errno if it did not (bubblewrap's try-syscall idea), so that the
 * end-to-end tests can tell EACCES (13) from EXDEV (18) from a bug.
 *
 * Besides the filesystem operations: exec FILE [ARGS] (execv), readfd N (read
 * an inherited fd), env, caps (the capability and NoNewPrivs lines of
 * /proc/self/status), pid, exit N, and abi (the Landlock ABI, so that the
 * tests can name a missing kernel feature when they skip).
 *
 * Linked statically: inside a sandbox it needs nothing but its own file.
 * Exit 100 means lr-try was used wrongly, never a test result.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USAGE_ERROR 100

extern char **environ;

/* 0 if the call returned >= 0, else errno (never 0). */
static int result(long r)
{
	return r < 0 ? (errno ? errno : 255) : 0;
}

static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

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
	if (!strcmp(op, "pid"))
		return printf("%d\n", (int)getpid()) < 0 || fflush(stdout) ? errno : 0;
	if (!a)
		goto usage;
	if (!strcmp(op, "exit"))
		return atoi(a);
	if (!strcmp(op, "read"))
		return op_read(a);
	if (!strcmp(op, "write"))
		return op_write(a);
	if (!strcmp(op, "create"))
		return try_open(a, O_WRONLY | O_CREAT | O_EXCL);
	if (!strcmp(op, "list"))
		return op_list(a);
	if (!strcmp(op, "mkdir"))
		return result(mkdir(a, 0755));
	if (!strcmp(op, "unlink"))
		return result(unlink(a));
	if (!strcmp(op, "truncate"))
		return result(truncate(a, 0));
	if (!strcmp(op, "ftruncate"))
		return op_ftruncate(a);
	if (!strcmp(op, "readfd"))
		return op_readfd(a);
	if (!strcmp(op, "exec")) {
		execv(a, argv + 2);
		return errno;
	}
	if (!b)
		goto usage;
	if (!strcmp(op, "rename"))
		return result(rename(a, b));
	if (!strcmp(op, "link"))
		return result(link(a, b));
	if (!strcmp(op, "symlink"))
		return result(symlink(a, b));
usage:
	fprintf(stderr, "usage: lr-try read|write|create|list|mkdir|unlink|truncate|ftruncate PATH\n"
			"       lr-try rename|link|symlink A B\n"
			"       lr-try exec FILE [ARGS...] | readfd N | exit N | env | caps | pid | abi\n");
	return USAGE_ERROR;
}
