/* SPDX-License-Identifier: MIT */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* far above any honest run under ASan, below libFuzzer's first SIGALRM */
#define LR_FUZZ_SLOW_SECONDS 4.0

static char dir[PATH_MAX];

void lr_fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0 && remove(p) < 0)
		lr_fuzz_fail(__FILE__, __LINE__, "remove", "%s: %s", p, strerror(errno));
	return 0;
}

void lr_fuzz_enter_home(void)
{
	const char *home = lr_fuzz_dir();
	char xdg[PATH_MAX];

	if (chdir(home) < 0)
		lr_fuzz_fail(__FILE__, __LINE__, "chdir", "%s: %s", home, strerror(errno));
	lr_fuzz_must(lr_fuzz_mkdirs("xdg/landrun/profiles"), "xdg/landrun/profiles");
	snprintf(xdg, sizeof(xdg), "%s/xdg", home);
	clearenv();
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
}

void lr_fuzz_clear(const char *d)
{
	nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_dir(void)
{
	lr_fuzz_clear(dir);
	rmdir(dir);
}

const char *lr_fuzz_dir(void)
{
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/lr-fuzz-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
		if (!mkdtemp(dir))
			lr_fuzz_fail(__FILE__, __LINE__, "mkdtemp", "%s: %s", dir, strerror(errno));
		atexit(remove_dir);
	}
	return dir;
}

int lr_fuzz_write(const char *path, const void *data, size_t len, mode_t mode)
{
	const char *p = data;
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			lr_fuzz_fail(__FILE__, __LINE__, "write", "%s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return 0;
}

int lr_fuzz_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *s = buf;

	snprintf(buf, sizeof(buf), "%s", path);
	do {
		s = strchr(s + 1, '/');
		if (s)
			*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (s)
			*s = '/';
	} while (s);
	return 0;
}

double lr_fuzz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void lr_fuzz_check_quick(double start, const char *what)
{
	double took = lr_fuzz_now() - start;

	if (took > LR_FUZZ_SLOW_SECONDS)
		lr_fuzz_fail(__FILE__, __LINE__, "quick", "%s took %.1f s: did it block?", what,
			     took);
}

bool lr_fuzz_interrupted(const char *msg, const uint8_t *data, size_t size)
{
	const char *what = strerror(EINTR);

	return strstr(msg, what) && !memmem(data, size, what, strlen(what));
}

void lr_fuzz_must(int r, const char *what)
{
	if (r < 0)
		lr_fuzz_fail(__FILE__, __LINE__, "setup", "%s: %s", what, strerror(-r));
}
