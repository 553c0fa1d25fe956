/* SPDX-License-Identifier: MIT */
/*
 * tmptree.h - real temporary trees for the tests that walk or confine them
 * (test_scan.c, test_carve.c): made under a fresh mkdtemp directory with
 * canonical paths, named relative to it, removed whole at the end.
 */
#ifndef LR_TEST_TMPTREE_H
#define LR_TEST_TMPTREE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The tree's canonical root ("" before tt_make). */
static char tt_root[PATH_MAX];

static inline void tt_make(void)
{
	char tmpl[] = "/tmp/lr-tmptree-XXXXXX";
	char *real;

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	real = realpath(tmpl, NULL);
	cr_assert_not_null(real, "realpath %s: %s", tmpl, strerror(errno));
	snprintf(tt_root, sizeof(tt_root), "%s", real);
	free(real);
}

/* The path of REL (printf-style) in the tree, in a static buffer of four. */
static inline const char *tt_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *tt_path(const char *fmt, ...)
{
	static char bufs[4][PATH_MAX];
	static unsigned next;
	char *b = bufs[next++ % 4];
	size_t len = (size_t)snprintf(b, PATH_MAX, "%s/", tt_root);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b + len, PATH_MAX - len, fmt, ap);
	va_end(ap);
	return b;
}

/* mkdir -p REL (mode 0755) */
static inline void tt_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", tt_path("%s", rel));
	for (char *p = path + strlen(tt_root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
		*p = '/';
	}
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

/* A file REL holding TEXT (its directories made first). */
static inline void tt_file(const char *rel, const char *text)
{
	const char *path = tt_path("%s", rel);
	char dir[PATH_MAX];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		tt_dir(dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A symlink REL to TARGET (as given: relative to the link's directory). */
static inline void tt_link(const char *target, const char *rel)
{
	const char *path = tt_path("%s", rel);

	cr_assert_eq(symlink(target, path), 0, "symlink %s: %s", path, strerror(errno));
}

static inline int tt_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

static uid_t tt_owner_uid;
static gid_t tt_owner_gid;

static inline int tt_chown_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return lchown(path, tt_owner_uid, tt_owner_gid) < 0 ? -1 : 0;
}

/* Give the whole tree to UID:GID (a test about to become them must still be
 * able to remove it).  0, or -1 with errno. */
static inline int tt_chown(uid_t uid, gid_t gid)
{
	tt_owner_uid = uid;
	tt_owner_gid = gid;
	return nftw(tt_root, tt_chown_one, 16, FTW_PHYS);
}

/* Remove the tree (whatever was made unreadable must be made readable first). */
static inline void tt_remove(void)
{
	if (tt_root[0])
		nftw(tt_root, tt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	tt_root[0] = '\0';
}

#endif
