/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/confine/privdir.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"

#define TOP "/tmp"
#define PREFIX "landrun."
/* A leftover deeper or bigger than this is left alone (and said so). */
#define REMOVE_MAX_DEPTH 64
#define REMOVE_MAX_ENTRIES 200000

/* The PID in NAME ("landrun.PID.XXXXXX"), or 0 if NAME is not one of ours. */
static pid_t pid_of(const char *name)
{
	const char *p = name + strlen(PREFIX), *dot;
	long pid = 0;

	if (strncmp(name, PREFIX, strlen(PREFIX)) != 0 || !(dot = strchr(p, '.')) || dot == p ||
	    strlen(dot + 1) != 6)
		return 0;
	for (; p < dot; p++) {
		if (*p < '0' || *p > '9' || pid > 4194304)
			return 0;
		pid = pid * 10 + (*p - '0');
	}
	return (pid_t)pid;
}

/* Remove NAME in DIRFD and everything beneath it, following no symlink (the
 * command may have left any beneath).  0 or -errno. */
static int remove_tree(int at, const char *name, int depth, size_t *budget)
{
	const struct lr_dir_entry *de;
	struct lr_dir_entry ent;
	struct lr_dir *d;
	int fd, r = 0;

	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	if (depth > REMOVE_MAX_DEPTH)
		return -ELOOP;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = lr_dir_open(fd);
	if (!d)
		return -errno;
	while (r == 0 && (de = lr_dir_next(d, &ent))) {
		if ((*budget)-- == 0)
			r = -E2BIG;
		else
			r = remove_tree(d->fd, de->name, depth + 1, budget);
	}
	/* a listing that failed leaves the directory (its rmdir fails too) */
	if (r == 0 && errno)
		r = -errno;
	lr_dir_close(d);
	if (r == 0 && unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

static void sweep(uid_t owner)
{
	int top = open(TOP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const struct lr_dir_entry *de;
	struct lr_dir_entry ent;
	struct lr_dir *d;

	if (top < 0 || !(d = lr_dir_open(top)))
		return;
	while ((de = lr_dir_next(d, &ent))) {
		pid_t pid = pid_of(de->name);
		size_t budget = REMOVE_MAX_ENTRIES;
		struct stat st;
		int r;

		/* ours (made by this user, 0700), and its run's process is gone */
		if (pid <= 0 || fstatat(d->fd, de->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != owner || (st.st_mode & 07777) != 0700 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		r = remove_tree(d->fd, de->name, 0, &budget);
		if (r < 0)
			lr_debug("%s/%s: left in place: %s", TOP, de->name, strerror(-r));
		else
			lr_debug("%s/%s: removed (its run is over)", TOP, de->name);
	}
	lr_dir_close(d);
}

int lr_privdir_make(bool tmp, bool home, uid_t owner, char **dir, char *err, size_t errlen)
{
	char *path;

	sweep(owner);
	if (asprintf(&path, TOP "/" PREFIX "%d.XXXXXX", (int)getpid()) < 0) {
		lr_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!mkdtemp(path)) {
		int e = errno;

		lr_errf(err, errlen, "cannot make a directory in " TOP ": %s", strerror(e));
		free(path);
		return -e;
	}
	for (int i = 0; i < 2; i++) {
		_cleanup_free_ char *sub = NULL;

		if (!(i ? home : tmp))
			continue;
		if (asprintf(&sub, "%s/%s", path, i ? "home" : "tmp") < 0 || mkdir(sub, 0700) < 0) {
			int e = sub ? errno : ENOMEM;

			lr_errf(err, errlen, "cannot make %s/%s: %s", path, i ? "home" : "tmp",
				strerror(e));
			free(path);
			return -e;
		}
	}
	*dir = path;
	return 0;
}
