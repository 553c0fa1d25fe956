/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/sandbox/exec.h"

/* What execvp(3) uses when PATH is unset. */
#define DEFAULT_PATH "/usr/local/bin:/bin:/usr/bin"

/* 0: runnable; 1: exists but cannot run; -errno: cannot be looked at. */
static int candidate(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return 1;
	return 0;
}

int lr_exec_resolve(const char *cmd, const char *search_path, char **out)
{
	const char *dir;
	int result = -ENOENT;

	*out = NULL;
	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		int r = candidate(cmd);

		if (r != 0)
			return r == 1 || r == -EACCES ? -EACCES : -ENOENT;
		*out = strdup(cmd);
		return *out ? 0 : -ENOMEM;
	}
	if (!search_path)
		search_path = DEFAULT_PATH;
	dir = search_path;
	for (;;) {
		const char *end = strchrnul(dir, ':');
		size_t dlen = (size_t)(end - dir);
		char *path;
		int r;

		/* an empty entry means the current directory */
		if (asprintf(&path, "%.*s%s%s", (int)dlen, dir, dlen ? "/" : "", cmd) < 0)
			return -ENOMEM;
		r = candidate(path);
		if (r == 0) {
			*out = path;
			return 0;
		}
		free(path);
		/* only a file that exists but cannot run counts: an entry we
		 * cannot search is just not where the command is (as in bash) */
		if (r == 1)
			result = -EACCES;
		if (!*end)
			return result;
		dir = end + 1;
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int close_from_to(unsigned first, unsigned last)
{
	if (first > last)
		return 0;
	if (syscall(SYS_close_range, first, last, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* before Linux 5.9: one by one, up to the descriptor limit */
	{
		long max = sysconf(_SC_OPEN_MAX);

		if (max < 0)
			max = 65536;
		for (long fd = first; fd <= (long)last && fd < max; fd++)
			close((int)fd);
	}
	return 0;
}

int lr_exec_close_fds(const int *keep, size_t n, int *bad)
{
	int *sorted = NULL;
	unsigned next = 3;
	int r;

	if (n) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, keep, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_int);
	}
	for (size_t i = 0; i < n; i++) {
		int flags = fcntl(sorted[i], F_GETFD);

		if (flags < 0 || fcntl(sorted[i], F_SETFD, flags & ~FD_CLOEXEC) < 0) {
			*bad = sorted[i];
			free(sorted);
			return -EBADF;
		}
		if (sorted[i] < 3)
			continue;
		r = close_from_to(next, (unsigned)sorted[i] - 1);
		if (r < 0) {
			free(sorted);
			return r;
		}
		next = (unsigned)sorted[i] + 1;
	}
	free(sorted);
	return close_from_to(next, UINT_MAX);
}

int lr_exec_set_limits(const struct lr_limit_setting *limits, int *bad)
{
	static const int resources[LR_LIMIT_COUNT] = {
		[LR_LIMIT_AS] = RLIMIT_AS,	   [LR_LIMIT_CORE] = RLIMIT_CORE,
		[LR_LIMIT_CPU] = RLIMIT_CPU,	   [LR_LIMIT_FSIZE] = RLIMIT_FSIZE,
		[LR_LIMIT_NOFILE] = RLIMIT_NOFILE, [LR_LIMIT_NPROC] = RLIMIT_NPROC,
	};

	for (int i = 0; i < LR_LIMIT_COUNT; i++) {
		struct rlimit rl;

		if (!limits[i].set && i != LR_LIMIT_CORE)
			continue;
		rl.rlim_cur = rl.rlim_max = limits[i].set ? (rlim_t)limits[i].value : 0;
		if (setrlimit(resources[i], &rl) < 0) {
			*bad = i;
			return -errno;
		}
	}
	return 0;
}
