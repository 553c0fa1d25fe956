/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/sandbox/landlock.h"

/* Append a rule for the descriptor FD (taken over: closed on failure). */
static struct lr_fs_rule *push_rule(struct lr_fs_rules *rules, int fd, bool is_dir, uint64_t rights,
				    char *realpath, const struct lr_grant *g, bool carved)
{
	struct lr_fs_rule *rule = lr_array_push(&rules->v, &rules->n, sizeof(*rule));

	if (!rule) {
		close(fd);
		free(realpath);
		return NULL;
	}
	rule->fd = fd;
	rule->is_dir = is_dir;
	rule->rights = rights;
	rule->realpath = realpath;
	rule->grant = g;
	rule->carved = carved;
	return rule;
}

/* PATH absolute, without ".", ".." or an empty component: a name that, if
 * it holds no symlink either, is the canonical one. */
static bool normal_form(const char *path)
{
	if (path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	for (const char *c = path + 1;; c++) {
		const char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!*end)
			return true;
		c = end;
	}
}

/*
 * A grant whose path holds no symlink, opened with openat2's
 * RESOLVE_NO_SYMLINKS (Linux 5.6): the kernel then proves in the same call
 * that PATH, in normal form, is the canonical name of what the descriptor
 * holds, so that neither realpath(3) (a readlink per component) nor the stat
 * that checks its answer against the descriptor is needed.  Most grants of a
 * profile are such.  The descriptor, or -1 where this does not apply (a
 * symlink on the way, an older kernel, any error): the caller opens it again
 * as before, and says why it fails if it does.
 */
static int open_plain(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };

	if (!normal_form(path))
		return -1;
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

int lr_landlock_open_rules(const struct lr_policy *policy, const struct lr_plan *plan,
			   struct lr_fs_rules *rules, char *err, size_t errlen)
{
	for (size_t i = 0; i < policy->n_grants; i++) {
		const struct lr_grant *g = &policy->grants[i];
		struct stat st, real_st;
		char *real;
		int fd;

		fd = open_plain(g->path);
		if (fd >= 0) {
			if (fstat(fd, &st) < 0 || !(real = strdup(g->path))) {
				int e = errno;

				lr_errf(err, errlen, "%s: %s", g->name, strerror(e));
				close(fd);
				return -e;
			}
			if (!push_rule(rules, fd, S_ISDIR(st.st_mode),
				       lr_plan_fs_rights(plan, g->access, S_ISDIR(st.st_mode)), real,
				       g, false)) {
				lr_errf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			continue;
		}
		fd = open(g->path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == ENOENT && g->optional) {
				lr_debug("%s: does not exist, skipped (ignore-missing)", g->name);
				continue;
			}
			/* --explain: a directory --mkdir would make, shown as such */
			if (e == ENOENT && g->to_make) {
				char *path = strdup(g->path);

				if (!path || !push_rule(rules, -1, true,
							lr_plan_fs_rights(plan, g->access, true), path,
							g, false)) {
					lr_errf(err, errlen, "out of memory");
					return -ENOMEM;
				}
				continue;
			}
			lr_errf(err, errlen, "%s: %s%s", g->name, strerror(e),
				e == ENOENT ? " (--ignore-missing skips it)" : "");
			return -e;
		}
		if (fstat(fd, &st) < 0 || !(real = realpath(g->path, NULL))) {
			int e = errno;

			lr_errf(err, errlen, "%s: %s", g->name, strerror(e));
			close(fd);
			return -e;
		}
		/* the name every check looks at must be the inode the rule holds:
		 * a symlink changed in between would grant one file and check another */
		if (stat(real, &real_st) < 0 || real_st.st_dev != st.st_dev ||
		    real_st.st_ino != st.st_ino) {
			lr_errf(err, errlen, "%s: changed while landrun opened it", g->name);
			close(fd);
			free(real);
			return -EAGAIN;
		}
		if (!push_rule(rules, fd, S_ISDIR(st.st_mode),
			       lr_plan_fs_rights(plan, g->access, S_ISDIR(st.st_mode)), real, g,
			       false)) {
			lr_errf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

int lr_landlock_rules_follow_pid(struct lr_fs_rules *rules, pid_t old, pid_t new, char *err,
				 size_t errlen)
{
	char from[32];
	size_t n = (size_t)snprintf(from, sizeof(from), "/proc/%d", (int)old);

	for (size_t i = 0; i < rules->n; i++) {
		struct lr_fs_rule *r = &rules->v[i];
		struct stat st;
		char *path;
		int fd;

		if (!r->realpath || strncmp(r->realpath, from, n) != 0 ||
		    (r->realpath[n] != '\0' && r->realpath[n] != '/'))
			continue;
		if (asprintf(&path, "/proc/%d%s", (int)new, r->realpath + n) < 0) {
			lr_errf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode) != r->is_dir) {
			int e = fd < 0 ? errno : EAGAIN;

			lr_errf(err, errlen, "%s: %s", path, strerror(e));
			if (fd >= 0)
				close(fd);
			free(path);
			return -e;
		}
		if (r->fd >= 0)
			close(r->fd);
		r->fd = fd;
		free(r->realpath);
		r->realpath = path;
	}
	return 0;
}

/* ---------------------------------------------------------------- carving */

/* Rights that apply to files (the others are for directories only). */
#define FS_FILE_MASK (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
		      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |   \
		      LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* What may reach a hole from a directory above it. */
#define THROUGH_SECRET LANDLOCK_ACCESS_FS_READ_DIR
#define THROUGH_PROTECTED (LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_READ_FILE | \
			   LANDLOCK_ACCESS_FS_EXECUTE)

static uint64_t through(enum lr_hole_kind kind)
{
	return kind == LR_HOLE_SECRET ? THROUGH_SECRET : THROUGH_PROTECTED;
}

struct carve {
	struct lr_fs_rules *out;
	struct lr_holes *holes;
	const struct lr_grant *grant;
	char *err;
	size_t errlen;
};

/* The holes strictly beneath PATH among V[0..N), and at PATH: the rights
 * that may pass through PATH to them, and those PATH itself may have. */
static void holes_near(const struct carve *c, const char *path, const size_t *v, size_t n,
		       uint64_t *below, uint64_t *at)
{
	*below = *at = ~0ULL;
	for (size_t i = 0; i < n; i++) {
		const struct lr_hole *h = &c->holes->v[v[i]];

		if (strcmp(h->path, path) == 0)
			*at &= through(h->kind);
		else if (lr_path_beneath(h->path, path))
			*below &= through(h->kind);
	}
}

static int carve_dir(struct carve *c, int fd, char *path, uint64_t rights, const size_t *v,
		     size_t n);

/* One entry NAME of the directory at DIRFD (PATH) being carved. */
static int carve_entry(struct carve *c, int dirfd, const char *path, const char *name,
		       uint64_t rights, const size_t *v, size_t n)
{
	char *child;
	uint64_t below, at;
	struct stat st;
	int fd;

	if (asprintf(&child, "%s/%s", strcmp(path, "/") ? path : "", name) < 0)
		return -ENOMEM;
	holes_near(c, child, v, n, &below, &at);
	rights &= at;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(child);
		/* gone since it was listed: it gets nothing */
		if (e == ENOENT)
			return 0;
		lr_errf(c->err, c->errlen, "%s: cannot grant %s/%s: %s", c->grant->name, path, name,
			strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode) && below != ~0ULL && rights)
		return carve_dir(c, fd, child, rights, v, n);
	if (!S_ISDIR(st.st_mode))
		rights &= FS_FILE_MASK;
	/* a symlink gets no rule: what it points to has its own */
	if (S_ISLNK(st.st_mode) || !rights) {
		close(fd);
		free(child);
		return 0;
	}
	if (!push_rule(c->out, fd, S_ISDIR(st.st_mode), rights, child, c->grant, true))
		return -ENOMEM;
	return 0;
}

/*
 * Grant the directory at FD (O_PATH, taken over; canonical PATH, taken over)
 * RIGHTS, but for the holes among V beneath it: Landlock rights granted on a
 * directory reach everything beneath it, so the directory itself gets only
 * what may pass through to its holes, and each entry its own rule (an entry
 * on the way to a hole is carved in turn).
 */
static int carve_dir(struct carve *c, int fd, char *path, uint64_t rights, const size_t *v,
		     size_t n)
{
	uint64_t below, at;
	struct dirent *de;
	int r = 0, dfd;
	DIR *d;

	holes_near(c, path, v, n, &below, &at);
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (!push_rule(c->out, fd, true, rights & below, path, c->grant, true))
		r = -ENOMEM;
	if (r == 0 && (dfd < 0 || !(d = fdopendir(dfd)))) {
		r = -errno;
		lr_errf(c->err, c->errlen, "%s: cannot list %s to grant its entries: %s",
			c->grant->name, path, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	if (r < 0) {
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = -errno;
			break;
		}
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			r = carve_entry(c, dirfd(d), path, de->d_name, rights, v, n);
	}
	if (r < 0 && !c->err[0])
		lr_errf(c->err, c->errlen, "%s: cannot list %s to grant its entries: %s",
			c->grant->name, path, strerror(-r));
	closedir(d);
	return r;
}

int lr_landlock_carve(struct lr_fs_rules *rules, struct lr_holes *holes, char *err,
		      size_t errlen)
{
	struct lr_fs_rules out = { 0 };
	size_t nholes = holes->n; /* not re-read through holes->v, which could alias it */
	size_t *v = NULL;
	int r = 0;

	if (nholes && !(v = calloc(nholes, sizeof(*v)))) {
		lr_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	err[0] = '\0';
	for (size_t i = 0; i < rules->n && r == 0; i++) {
		struct lr_fs_rule *rule = &rules->v[i];
		struct carve c = { &out, holes, rule->grant, err, errlen };
		size_t n = 0;

		/* the holes beneath this rule that it would let more through to
		 * (a directory --explain only says --mkdir would make has none) */
		for (size_t h = 0; rule->is_dir && rule->fd >= 0 && h < nholes; h++) {
			const struct lr_hole *hole = &holes->v[h];

			if (strcmp(hole->path, rule->realpath) != 0 &&
			    lr_path_beneath(hole->path, rule->realpath) &&
			    (rule->rights & ~through(hole->kind))) {
				v[n++] = h;
				holes->v[h].carved = true;
			}
		}
		if (n == 0) {
			if (!push_rule(&out, rule->fd, rule->is_dir, rule->rights, rule->realpath,
				       rule->grant, false))
				r = -ENOMEM;
		} else {
			r = carve_dir(&c, rule->fd, rule->realpath, rule->rights, v, n);
		}
		rule->fd = -1;
		rule->realpath = NULL;
	}
	free(v);
	if (r == -ENOMEM && !err[0])
		lr_errf(err, errlen, "out of memory");
	lr_landlock_rules_free(rules);
	*rules = out;
	return r;
}

/* mkdir -p, with 0700 for what it creates: 0 or -errno. */
static int make_dir(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	for (char *slash = copy + 1;; slash++) {
		char saved = *slash;

		if (saved != '/' && saved != '\0')
			continue;
		*slash = '\0';
		if (mkdir(copy, 0700) < 0 && errno != EEXIST)
			return -errno;
		*slash = saved;
		if (!saved)
			break;
	}
	return 0;
}

int lr_landlock_make_dirs(const struct lr_policy *policy, char *err, size_t errlen)
{
	for (size_t i = 0; i < policy->n_mkdirs; i++) {
		struct stat st;
		int r = make_dir(policy->mkdirs[i]);

		if (r == 0 && (stat(policy->mkdirs[i], &st) < 0 || !S_ISDIR(st.st_mode)))
			r = -ENOTDIR;
		if (r < 0) {
			lr_errf(err, errlen, "--mkdir %s: %s", policy->mkdirs[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

void lr_landlock_rules_free(struct lr_fs_rules *rules)
{
	for (size_t i = 0; i < rules->n; i++) {
		if (rules->v[i].fd >= 0)
			close(rules->v[i].fd);
		free(rules->v[i].realpath);
	}
	free(rules->v);
	rules->v = NULL;
	rules->n = 0;
}

static int add_port_rules(int ruleset, uint64_t rights, const struct lr_port_range *ranges,
			  size_t n, const char *flag, char *err, size_t errlen)
{
	if (!rights)
		return 0;
	for (size_t i = 0; i < n; i++) {
		for (unsigned port = ranges[i].first; port <= ranges[i].last; port++) {
			struct lr_ll_net_port_attr np = { .allowed_access = rights, .port = port };

			if (lr_ll_add_rule(ruleset, LANDLOCK_RULE_NET_PORT, &np, 0) < 0) {
				int e = errno;

				lr_errf(err, errlen, "%s %u: cannot add the Landlock rule: %s",
					flag, port, strerror(e));
				return -e;
			}
		}
	}
	return 0;
}

int lr_landlock_ruleset(const struct lr_plan *plan, const struct lr_policy *policy,
			const struct lr_fs_rules *rules, char *err, size_t errlen)
{
	int r;

	struct lr_ll_ruleset_attr attr = {
		.handled_access_fs = plan->handled_fs,
		.handled_access_net = plan->handled_net,
		.scoped = plan->scoped,
	};
	_cleanup_close_ int ruleset = -1;

	ruleset = lr_ll_create_ruleset(&attr, lr_landlock_attr_size(plan->abi), 0);
	if (ruleset < 0) {
		int e = errno;

		lr_errf(err, errlen, "landlock_create_ruleset: %s", strerror(e));
		return -e;
	}
	for (size_t i = 0; i < rules->n; i++) {
		const struct lr_fs_rule *rule = &rules->v[i];
		struct lr_ll_path_beneath_attr pb = {
			.allowed_access = rule->rights,
			.parent_fd = rule->fd,
		};

		if (!pb.allowed_access)
			continue;
		if (lr_ll_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			int e = errno;

			lr_errf(err, errlen, "%s: cannot add the Landlock rule: %s",
				rule->grant->name, strerror(e));
			return -e;
		}
	}
	r = add_port_rules(ruleset, lr_plan_net_connect_rights(plan), policy->connect_tcp,
			   policy->n_connect_tcp, "--connect-tcp", err, errlen);
	if (r == 0)
		r = add_port_rules(ruleset, lr_plan_net_bind_rights(plan), policy->bind_tcp,
				   policy->n_bind_tcp, "--bind-tcp", err, errlen);
	if (r == 0 && plan->egress_port && !plan->broker_connect) {
		struct lr_port_range proxy = { plan->egress_port, plan->egress_port };

		r = add_port_rules(ruleset, lr_plan_net_connect_rights(plan), &proxy, 1,
				   "--allow-domain: the proxy's port", err, errlen);
	}
	if (r < 0)
		return r;
	r = ruleset;
	ruleset = -1;
	return r;
}

int lr_landlock_enforce(const struct lr_plan *plan, const struct lr_policy *policy,
			const struct lr_fs_rules *rules, char *err, size_t errlen)
{
	_cleanup_close_ int ruleset = lr_landlock_ruleset(plan, policy, rules, err, errlen);

	if (ruleset < 0)
		return ruleset;
	return lr_landlock_enforce_ruleset(ruleset, plan->restrict_flags, err, errlen);
}

int lr_landlock_enforce_ruleset(int ruleset, uint32_t flags, char *err, size_t errlen)
{
	if (lr_ll_restrict_self(ruleset, flags) < 0) {
		int e = errno;

		lr_errf(err, errlen, "landlock_restrict_self: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* Directories everybody can list, whose listing the policy should deny. */
static const char *const witness_candidates[] = {
	"/", "/etc", "/usr", "/var", "/tmp", "/home", "/opt", "/srv", "/dev", "/proc",
};

void lr_landlock_witness_pick(const struct lr_plan *plan, const struct lr_fs_rules *rules,
			      struct lr_witness *w)
{
	w->path = NULL;
	if (!(plan->handled_fs & LANDLOCK_ACCESS_FS_READ_DIR))
		return;
	for (size_t c = 0; c < sizeof(witness_candidates) / sizeof(*witness_candidates); c++) {
		const char *cand = witness_candidates[c];
		bool granted = false;
		int fd;

		for (size_t i = 0; i < rules->n && !granted; i++)
			granted = (rules->v[i].rights & LANDLOCK_ACCESS_FS_READ_DIR) &&
				  lr_path_beneath(cand, rules->v[i].realpath);
		if (granted)
			continue;
		/* it must be listable now, so that a denial later is Landlock's */
		fd = open(cand, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		close(fd);
		w->path = cand;
		return;
	}
}

int lr_landlock_witness_check(const struct lr_witness *w)
{
	int fd = open(w->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return -EPERM;
	}
	return errno == EACCES ? 0 : -errno;
}

/* The carving's witness for one hole: 0 if the kernel denies it. */
static int hole_closed(const struct lr_hole *h)
{
	struct stat st;
	int fd, sr;

	if (h->kind == LR_HOLE_SECRET) {
		fd = open(h->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return -EPERM;
		}
		return errno == EACCES || errno == ENOENT ? 0 : -errno;
	}
	sr = stat(h->path, &st);
	/* EACCES: the command cannot even reach it (file modes, --user) */
	if (sr < 0 && errno == EACCES)
		return 0;
	if (sr < 0 && errno != ENOENT)
		return -errno;
	if (sr < 0 || S_ISDIR(st.st_mode)) {
		/* a directory, or one git would use that is not there yet:
		 * nothing may be created in it, or it may not be created */
		bool exists = sr == 0;
		char probe[PATH_MAX];

		if (snprintf(probe, sizeof(probe), "%s%s", h->path,
			     exists ? "/.landrun-witness" : "") >= (int)sizeof(probe))
			return -ENAMETOOLONG;
		if (mkdir(probe, 0700) == 0) {
			rmdir(probe);
			return -EPERM;
		}
		return errno == EACCES ? 0 : -errno;
	}
	fd = open(h->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return -EPERM;
	}
	return errno == EACCES || errno == ENOENT ? 0 : -errno;
}

int lr_landlock_holes_check(const struct lr_holes *holes, char *err, size_t errlen)
{
	for (size_t i = 0; i < holes->n; i++) {
		const struct lr_hole *h = &holes->v[i];
		int r;

		if (!h->carved || h->brokered)
			continue;
		r = hole_closed(h);
		if (r == -EPERM)
			lr_errf(err, errlen, "%s %s was not denied", h->path,
				h->kind == LR_HOLE_SECRET ? "(a secret file): reading it"
							  : "(read-only): writing in it");
		else if (r < 0)
			lr_errf(err, errlen, "checking %s failed: %s", h->path, strerror(-r));
		if (r < 0)
			return r;
	}
	return 0;
}
