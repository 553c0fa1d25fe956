/* SPDX-License-Identifier: MIT */
/*
 * The broker's path resolution (lr_broker_resolve: locate and judge), on a
 * real tree: a root that holds .git and .env, symlinks out of it, to .git,
 * above it and absolute, and a directory outside.  The input's first byte
 * picks the directory the name starts from (the root, src/, outside, the
 * scratch directory above them); the rest is the name, as a command would
 * give it.  Whenever the broker takes the name:
 *
 * - the directory it would act in is beneath the root, canonical (no
 *   symlink, no . or ..), and the one the kernel finds for the name's
 *   directory from the same start;
 * - the last component is the name's own, never "." or "..", and holds no
 *   slash;
 * - a verdict of OK has no .git, .claude or .env at any place of it.
 *
 * And when the kernel finds the name's directory beneath the root (but
 * through /proc's magic links, which the broker never follows), the broker
 * takes the name: it would leave a name there to Landlock, which denies it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "landrun/supervisor/broker.h"

static char top[PATH_MAX], root[PATH_MAX];
static int bases[4];
static struct lr_broker_root broker_root;
static struct lr_hole hole_v[2];
static struct lr_holes holes = { hole_v, 2, 0 };
static struct lr_broker b;

static void at(char *buf, size_t size, const char *rel)
{
	if (snprintf(buf, size, "%s/%s", top, rel) >= (int)size)
		lr_fuzz_fail(__FILE__, __LINE__, "path", "%s", rel);
}

static int open_dir(const char *rel)
{
	char p[PATH_MAX];
	int fd;

	at(p, sizeof(p), rel);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		lr_fuzz_fail(__FILE__, __LINE__, "open", "%s: %s", p, strerror(errno));
	return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = { "root/src/deep", "root/.git/hooks", "outside/in" };
	static const struct {
		const char *name, *target;
	} links[] = {
		{ "root/out", "../outside" },	{ "root/gitlink", ".git" },
		{ "root/src/up", "../.." },	{ "root/src/self", "." },
		{ "root/loop", "loop" },	{ "outside/back", "../root/src" },
	};
	char p[PATH_MAX], abs_link[PATH_MAX];

	(void)argc;
	(void)argv;
	if (!realpath(lr_fuzz_dir(), top))
		lr_fuzz_fail(__FILE__, __LINE__, "realpath", "%s", strerror(errno));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		at(p, sizeof(p), dirs[i]);
		lr_fuzz_must(lr_fuzz_mkdirs(p), dirs[i]);
	}
	at(p, sizeof(p), "root/.env");
	lr_fuzz_must(lr_fuzz_write(p, "K=v\n", 4, 0600), ".env");
	for (size_t i = 0; i < sizeof(links) / sizeof(*links); i++) {
		at(p, sizeof(p), links[i].name);
		if (symlink(links[i].target, p) < 0)
			lr_fuzz_fail(__FILE__, __LINE__, "symlink", "%s: %s", p, strerror(errno));
	}
	at(p, sizeof(p), "root/abs");
	at(abs_link, sizeof(abs_link), "outside");
	if (symlink(abs_link, p) < 0)
		lr_fuzz_fail(__FILE__, __LINE__, "symlink", "%s: %s", p, strerror(errno));

	at(root, sizeof(root), "root");
	broker_root = (struct lr_broker_root){ open_dir("root"), root };
	at(p, sizeof(p), "root/.env");
	hole_v[0] = (struct lr_hole){ .path = strdup(p), .kind = LR_HOLE_SECRET,
				      .why = (char *)"a secret file" };
	at(p, sizeof(p), "root/.git");
	hole_v[1] = (struct lr_hole){ .path = strdup(p), .kind = LR_HOLE_PROTECTED,
				      .why = (char *)"git" };
	b.roots = &broker_root;
	b.n_roots = 1;
	b.holes = &holes;
	bases[0] = open_dir("root");
	bases[1] = open_dir("root/src");
	bases[2] = open_dir("outside");
	bases[3] = open_dir(".");
	return 0;
}

/* Is P ROOT or beneath it? */
static bool beneath(const char *p)
{
	size_t n = strlen(root);

	return strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* The kernel's directory for NAME from BASE (its default resolution):
 * canonical in OUT, or false. */
static bool kernel_dir(int base, const char *name, char *out, size_t size)
{
	char dir[PATH_MAX], link[64];
	const char *slash;
	size_t len = strlen(name);
	ssize_t n;
	int fd;

	while (len > 1 && name[len - 1] == '/')
		len--;
	memcpy(dir, name, len);
	dir[len] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		dir[slash - dir] = '\0';
	fd = openat(base, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= size - 1)
		return false;
	out[n] = '\0';
	return true;
}

static bool has_component(const char *path, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = path; (p = strstr(p, name)); p++)
		if (p > path && p[-1] == '/' && (p[n] == '/' || p[n] == '\0'))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[PATH_MAX], found[PATH_MAX], kdir[PATH_MAX], fdir[PATH_MAX];
	enum lr_broker_verdict v = LR_BROKER_SECRET;
	const char *last;
	int base, r;

	if (size < 1 || size - 1 >= sizeof(name))
		return 0;
	base = bases[data[0] % 4];
	memcpy(name, data + 1, size - 1);
	name[size - 1] = '\0';
	if (strlen(name) != size - 1)
		return 0; /* a C string, as the broker reads one */
	if (strstr(name, "/proc"))
		return 0; /* magic links: the broker follows none (Landlock decides) */

	r = lr_broker_resolve(&b, base, name, found, sizeof(found), &v);
	if (r < 0) {
		size_t len = strlen(name);

		while (len > 1 && name[len - 1] == '/')
			len--;
		last = memrchr(name, '/', len);
		last = last ? last + 1 : name;
		/* a name whose directory lies beneath the root is the broker's
		 * (but ".", "..", the root's own name, or one too long) */
		if (kernel_dir(base, name, kdir, sizeof(kdir)) && beneath(kdir) && len &&
		    strncmp(last, ".", (size_t)(name + len - last)) != 0 &&
		    strncmp(last, "..", (size_t)(name + len - last)) != 0 &&
		    (size_t)(name + len - last) <= NAME_MAX && strcmp(name, "/") != 0)
			lr_fuzz_check(0, "%s (from %d): %s beneath the root, left to Landlock (%d)",
				      name, data[0] % 4, kdir, r);
		return 0;
	}
	lr_fuzz_check(beneath(found) && strcmp(found, root) != 0, "%s: found %s", name, found);
	last = strrchr(found, '/');
	lr_fuzz_check(last && last[1] && strcmp(last + 1, ".") && strcmp(last + 1, ".."),
		      "%s: found %s", name, found);
	memcpy(fdir, found, (size_t)(last - found));
	fdir[last - found] = '\0';
	lr_fuzz_check(kernel_dir(base, name, kdir, sizeof(kdir)) && strcmp(kdir, fdir) == 0,
		      "%s: the broker acts in %s, the kernel's directory is %s", name, fdir,
		      kernel_dir(base, name, kdir, sizeof(kdir)) ? kdir : "(none)");
	lr_fuzz_check(!has_component(found + strlen(root), "..") &&
			      !has_component(found + strlen(root), "."),
		      "%s: found %s", name, found);
	if (v == LR_BROKER_OK)
		lr_fuzz_check(!has_component(found, ".git") && !has_component(found, ".claude") &&
				      !has_component(found, ".env"),
			      "%s: %s judged OK", name, found);
	return 0;
}
