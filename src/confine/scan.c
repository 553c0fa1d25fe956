/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "landrun/confine/scan.h"
#include "landrun/lib/error.h"
#include "landrun/lib/util.h"
#include "landrun/policy/config.h"
#include "landrun/policy/secrets.h"

/* Git config files read (includes of includes...), and their size. */
#define GITCONFIG_MAX_DEPTH 8
#define GITCONFIG_MAX_SIZE (1 << 20)
/* Directory nesting a walk follows before it gives up. */
#define WALK_MAX_DEPTH 512

/*
 * System trees: what the package manager and the kernel put there.  Not
 * walked: /usr alone would cost more than the rest of landrun at every start
 * (and /usr/src holds a kernel's headers).  A grant at or beneath the
 * conventional places of projects in them (/usr/src/app in container images)
 * is walked, and so is the current directory's project, wherever it is.
 */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/proc", "/sys",
	"/snap", "/nix/store", "/gnu/store", "/etc/alternatives", "/etc/ssl/certs",
};
static const char *const project_dirs_in_system[] = { "/usr/src", "/usr/local/src" };

/* Directories that tools fill with downloaded or generated files: not walked. */
static const char *const generated_names[] = {
	"node_modules", "__pycache__", ".cache", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".tox", ".nox", ".gradle",
};

struct scan {
	const struct lr_policy *policy;
	const struct lr_fs_rules *rules;
	struct lr_holes *holes;
	struct lr_strlist accepted;	/* --allow-dotenv, canonical */
	struct lr_strlist unprotected;	/* --allow-protected, canonical */
	struct lr_strlist global_hooks;	/* relative core.hooksPath of the user's config */
	const char *home;
	char *err;
	size_t errlen;
	int rc;				/* first error: the scan fails closed */
};

/* One walk: a granted directory, or the project. */
struct walk {
	struct scan *sc;
	const char *name;		/* the grant, for messages */
	bool secrets;			/* look for secret files */
	bool protect;			/* look for protected paths (a writable grant) */
	size_t entries;
};

static int fail(struct scan *sc, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct scan *sc, int e, const char *fmt, ...)
{
	va_list ap;

	if (sc->rc < 0)
		return sc->rc;
	va_start(ap, fmt);
	lr_verrf(sc->err, sc->errlen, fmt, ap);
	va_end(ap);
	sc->rc = e;
	return e;
}

static int nomem(struct scan *sc)
{
	return fail(sc, -ENOMEM, "out of memory");
}

static bool beneath_any(const struct lr_strlist *dirs, const char *path)
{
	for (size_t i = 0; i < dirs->n; i++)
		if (lr_path_beneath(path, dirs->v[i]))
			return true;
	return false;
}

static int add_hole(struct scan *sc, const char *path, enum lr_hole_kind kind, const char *why)
{
	struct lr_holes *h = sc->holes;
	struct lr_hole *hole;

	if (kind == LR_HOLE_SECRET ? beneath_any(&sc->accepted, path)
				   : beneath_any(&sc->unprotected, path))
		return 0;
	for (size_t i = 0; i < h->n; i++) {
		if (strcmp(h->v[i].path, path) != 0)
			continue;
		if (kind == LR_HOLE_SECRET && h->v[i].kind != LR_HOLE_SECRET) {
			/* the stricter wins */
			free(h->v[i].why);
			h->v[i].kind = kind;
			h->v[i].why = strdup(why);
			if (!h->v[i].why)
				return nomem(sc);
		}
		return 0;
	}
	hole = lr_array_push(&h->v, &h->n, sizeof(*hole));
	if (!hole)
		return nomem(sc);
	hole->path = strdup(path);
	hole->why = strdup(why);
	hole->kind = kind;
	if (!hole->path || !hole->why)
		return nomem(sc);
	return 0;
}

static char *join(const char *dir, const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", strcmp(dir, "/") ? dir : "", name) < 0)
		return NULL;
	return s;
}

static bool system_path(const char *path)
{
	for (size_t i = 0; i < sizeof(project_dirs_in_system) / sizeof(*project_dirs_in_system); i++)
		if (lr_path_beneath(path, project_dirs_in_system[i]))
			return false;
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(*system_dirs); i++)
		if (lr_path_beneath(path, system_dirs[i]))
			return true;
	return false;
}

bool lr_scan_system_tree(const char *path)
{
	return system_path(path);
}

static bool generated_name(const char *name)
{
	for (size_t i = 0; i < sizeof(generated_names) / sizeof(*generated_names); i++)
		if (strcmp(name, generated_names[i]) == 0)
			return true;
	return false;
}

/* Virtual file systems hold no files of the user's. */
static bool virtual_fs(int fd)
{
	static const long types[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEVPTS_SUPER_MAGIC, CGROUP_SUPER_MAGIC,
		CGROUP2_SUPER_MAGIC, TRACEFS_MAGIC, DEBUGFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC,
		PSTOREFS_MAGIC, HUGETLBFS_MAGIC, BINFMTFS_MAGIC, EFIVARFS_MAGIC, NSFS_MAGIC,
		0x62656570 /* configfs */, 0x65735543 /* fusectl */, 0x19800202 /* mqueue */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
		if ((long)sf.f_type == types[i])
			return true;
	return false;
}

/* ---------------------------------------------------------------- git */

static int read_small_file(const char *path, char **text, size_t *len)
{
	struct stat st;
	int fd = lr_open_regular(path, &st);
	ssize_t n;
	int r = 0;

	*text = NULL;
	if (fd < 0)
		return fd;
	if (st.st_size > GITCONFIG_MAX_SIZE) {
		close(fd);
		return -EFBIG;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *text, (size_t)st.st_size);
	if (n < 0)
		r = -errno;
	else
		(*text)[n] = '\0', *len = (size_t)n;
	close(fd);
	if (r < 0) {
		free(*text);
		*text = NULL;
	}
	return r;
}

/* PATH made absolute: "~/x" from HOME, "x" from BASE.  NULL when it cannot be. */
static char *git_path(struct scan *sc, const char *base, const char *path)
{
	char *s = NULL;

	if (path[0] == '~' && path[1] == '/') {
		if (!sc->home)
			return NULL;
		if (asprintf(&s, "%s/%s", sc->home, path + 2) < 0)
			return NULL;
		return s;
	}
	if (path[0] == '/')
		return strdup(path);
	return base ? join(base, path) : NULL;
}

/*
 * A path git will run or read commands from, which may not exist yet: then
 * the hole is its first missing component under the deepest existing
 * ancestor (carving that ancestor denies creating it).
 */
static int protect_path(struct scan *sc, const char *path, const char *why)
{
	_cleanup_free_ char *copy = strdup(path);
	char *real, *slash;

	if (!copy)
		return nomem(sc);
	real = realpath(copy, NULL);
	while (!real && (slash = strrchr(copy, '/'))) {
		const char *missing = slash + 1;
		_cleanup_free_ char *ancestor = NULL, *hole = NULL;

		*slash = '\0';
		ancestor = realpath(slash == copy ? "/" : copy, NULL);
		if (!ancestor)
			continue;
		hole = join(ancestor, missing);
		return hole ? add_hole(sc, hole, LR_HOLE_PROTECTED, why) : nomem(sc);
	}
	if (!real)
		return 0;
	add_hole(sc, real, LR_HOLE_PROTECTED, why);
	free(real);
	return sc->rc;
}

struct gitconfig_ctx {
	struct scan *sc;
	const char *worktree;	/* where a relative hooksPath starts (NULL: bare or unknown) */
	const char *config_dir;	/* where a relative include starts */
	int depth;
};

static void read_gitconfig(struct scan *sc, const char *path, const char *worktree, int depth);

static void gitconfig_entry(void *data, const char *key, const char *value)
{
	struct gitconfig_ctx *c = data;
	_cleanup_free_ char *path = NULL;

	if (strcmp(key, "core.hookspath") == 0) {
		path = git_path(c->sc, c->worktree, value);
		if (!path && c->worktree == NULL && value[0] != '/' && value[0] != '~') {
			/* the user's own config: relative to every repository */
			if (lr_strlist_add(&c->sc->global_hooks, value) < 0)
				nomem(c->sc);
			return;
		}
		if (path)
			protect_path(c->sc, path, "git runs the hooks there (core.hooksPath)");
		return;
	}
	/* include.path, includeIf.*.path: more configuration */
	path = git_path(c->sc, c->config_dir, value);
	if (!path)
		return;
	protect_path(c->sc, path, "git reads it as configuration (include.path)");
	read_gitconfig(c->sc, path, c->worktree, c->depth + 1);
}

static void read_gitconfig(struct scan *sc, const char *path, const char *worktree, int depth)
{
	_cleanup_free_ char *text = NULL, *dir = NULL;
	struct gitconfig_ctx c = { sc, worktree, NULL, depth };
	size_t len = 0;

	if (depth > GITCONFIG_MAX_DEPTH || sc->rc < 0)
		return;
	if (read_small_file(path, &text, &len) < 0)
		return; /* no config, or none git would read either */
	dir = strdup(path);
	if (!dir) {
		nomem(sc);
		return;
	}
	*strrchr(dir, '/') = '\0';
	c.config_dir = *dir ? dir : "/";
	lr_gitconfig_paths(text, len, gitconfig_entry, &c);
}

#define GIT_WHY "git runs its hooks and configuration"

/* The git directory of a worktree's ".git" (a directory, or a file
 * "gitdir: PATH" for linked worktrees and submodules), protected with its
 * configuration's hook paths and includes. */
static void protect_repository(struct scan *sc, const char *worktree)
{
	_cleanup_free_ char *dotgit = join(worktree, ".git"), *gitdir = NULL, *config = NULL;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len;

	if (!dotgit || add_hole(sc, dotgit, LR_HOLE_PROTECTED, GIT_WHY) < 0 ||
	    stat(dotgit, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		gitdir = realpath(dotgit, NULL);
	} else if (S_ISREG(st.st_mode) && read_small_file(dotgit, &text, &len) == 0 &&
		   strncmp(text, "gitdir:", 7) == 0) {
		char *target = text + 7 + strspn(text + 7, " \t");

		target[strcspn(target, "\r\n")] = '\0';
		gitdir = git_path(sc, worktree, target);
	}
	if (!gitdir)
		return;
	protect_path(sc, gitdir, GIT_WHY);
	/* a linked worktree's git directory shares the main one's */
	free(text);
	text = NULL;
	config = join(gitdir, "commondir");
	if (config && read_small_file(config, &text, &len) == 0) {
		_cleanup_free_ char *common = NULL, *common_config = NULL;

		text[strcspn(text, "\r\n")] = '\0';
		common = git_path(sc, gitdir, text);
		common_config = common ? join(common, "config") : NULL;
		if (common_config) {
			protect_path(sc, common, GIT_WHY);
			read_gitconfig(sc, common_config, worktree, 0);
		}
	}
	free(config);
	config = join(gitdir, "config");
	if (!config) {
		nomem(sc);
		return;
	}
	read_gitconfig(sc, config, worktree, 0);
	for (size_t i = 0; i < sc->global_hooks.n; i++) {
		_cleanup_free_ char *hooks = join(worktree, sc->global_hooks.v[i]);

		if (!hooks) {
			nomem(sc);
			return;
		}
		protect_path(sc, hooks, "git runs the hooks there (core.hooksPath)");
	}
}

/* The user's and the system's git configuration: an absolute hooksPath in a
 * writable grant is as good as a planted hook. */
static void read_user_gitconfig(struct scan *sc)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	_cleanup_free_ char *a = NULL, *b = NULL;

	read_gitconfig(sc, "/etc/gitconfig", NULL, 0);
	if (sc->home) {
		a = join(sc->home, ".gitconfig");
		if (xdg && *xdg == '/')
			b = join(xdg, "git/config");
		else
			b = join(sc->home, ".config/git/config");
		if (!a || !b) {
			nomem(sc);
			return;
		}
		read_gitconfig(sc, a, NULL, 0);
		read_gitconfig(sc, b, NULL, 0);
	}
}

/* ---------------------------------------------------------------- walking */

/*
 * Why the file at PATH (canonical) is a secret, into WHY (LEN bytes): its
 * name (.env, a credential file's, in the directory it is in), or a secret
 * glob of the user's.  False: not a secret.
 */
static bool secret_why(const struct scan *sc, const char *path, char *why, size_t len)
{
	const char *name = strrchr(path, '/'), *parent = NULL, *kind;
	char dir[NAME_MAX + 1];

	name = name ? name + 1 : path;
	if (name > path + 1) {
		const char *end = name - 1, *start = end;

		while (start > path && start[-1] != '/')
			start--;
		if ((size_t)(end - start) < sizeof(dir)) {
			memcpy(dir, start, (size_t)(end - start));
			dir[end - start] = '\0';
			parent = dir;
		}
	}
	kind = lr_secret_kind(parent, name);
	if (kind) {
		lr_errf(why, len, "%s", kind);
		return true;
	}
	for (size_t i = 0; i < sc->policy->n_secrets; i++)
		if (lr_secret_glob_match(sc->policy->secrets[i].glob, path)) {
			lr_errf(why, len, "a secret file (%s)", sc->policy->secrets[i].name);
			return true;
		}
	return false;
}

/* A symlink named like a secret or a protected path: what it points to is. */
static int link_target(struct scan *sc, const char *path, enum lr_hole_kind kind,
		       const char *why)
{
	_cleanup_free_ char *real = realpath(path, NULL);
	struct stat st;

	if (!real || stat(real, &st) < 0)
		return 0; /* dangling: nothing to read through it */
	if (kind == LR_HOLE_SECRET && !S_ISREG(st.st_mode))
		return 0;
	return add_hole(sc, real, kind, why);
}

static int walk_dir(struct walk *w, int dirfd, const char *path, dev_t dev, int depth);

/* The entry's type where the listing did not say (DT_UNKNOWN): 1 with *type
 * set, 0 when it is gone since it was listed, < 0 on error. */
static int entry_type(struct walk *w, int dirfd, const char *child, const char *name,
		      unsigned char *type)
{
	struct stat st;

	if (*type != DT_UNKNOWN)
		return 1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : fail(w->sc, -errno, "%s: cannot check %s: %s",
						  w->name, child, strerror(errno));
	*type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
		: S_ISLNK(st.st_mode)				    ? DT_LNK
								    : DT_UNKNOWN;
	return 1;
}

/* The holes the entry makes, a secret file or a protected name: true when
 * that is all there is to it (*r the result), false to walk on into it. */
static bool entry_holes(struct walk *w, const char *path, const char *child, const char *name,
			unsigned char type, int *r)
{
	struct scan *sc = w->sc;
	const char *runner;
	char why[512];

	if (w->secrets && secret_why(sc, child, why, sizeof(why))) {
		if (type == DT_REG) {
			*r = add_hole(sc, child, LR_HOLE_SECRET, why);
			return true;
		}
		if (type == DT_LNK) {
			*r = link_target(sc, child, LR_HOLE_SECRET, why);
			return true;
		}
	}
	runner = lr_protected_name(name);
	if (!runner)
		return false;
	lr_errf(why, sizeof(why), "%s runs code from it outside the sandbox", runner);
	if (strcmp(name, ".git") == 0) {
		/* git's own files: no secret of the user's in there */
		protect_repository(sc, path);
		*r = sc->rc;
		return true;
	}
	if (type == DT_LNK)
		link_target(sc, child, LR_HOLE_PROTECTED, why);
	else
		add_hole(sc, child, LR_HOLE_PROTECTED, why);
	*r = sc->rc;
	/* a protected directory is walked on for secret files */
	return sc->rc < 0;
}

/* Opens the directory entry to walk it: 1 with *fd and *st, 0 when it is
 * not to be walked, < 0 on error. */
static int open_subdir(struct walk *w, int dirfd, const char *child, const char *name, dev_t dev,
		       int *fd, struct stat *st)
{
	struct scan *sc = w->sc;
	int r;

	*fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		int e = errno;

		/* gone or replaced since it was listed: nothing there to walk */
		if (e == ENOENT || e == ENOTDIR || e == ELOOP)
			return 0;
		/* may the command enter it?  Then it could open a secret by name. */
		if (e == EACCES && faccessat(dirfd, name, X_OK, AT_EACCESS) < 0)
			return 0;
		if (e == EACCES)
			return fail(sc, -EACCES,
				    "%s: cannot list %s to look for secret files (it can be "
				    "entered but not read); grant narrower directories, or accept "
				    "what it holds with --allow-dotenv %s",
				    w->name, child, child);
		return fail(sc, -e, "%s: cannot check %s: %s", w->name, child,
			    strerror(e));
	}
	if (fstat(*fd, st) < 0) {
		r = fail(sc, -errno, "%s: cannot check %s: %s", w->name, child,
			 strerror(errno));
		close(*fd);
		return r;
	}
	if ((st->st_dev != dev && virtual_fs(*fd)) ||
	    /* a read-only walk stops where every secret is accepted anyway */
	    (!w->protect && beneath_any(&sc->accepted, child))) {
		close(*fd);
		return 0;
	}
	return 1;
}

static int walk_entry(struct walk *w, int dirfd, const char *path, dev_t dev, int depth,
		      const char *name, unsigned char type)
{
	struct scan *sc = w->sc;
	_cleanup_free_ char *child = join(path, name);
	struct stat st;
	int fd, r;

	if (!child)
		return nomem(sc);
	if (++w->entries > LR_SCAN_MAX_ENTRIES)
		return fail(sc, -E2BIG,
			    "%s: more than %d entries to check for secret files and protected "
			    "paths; grant narrower directories%s",
			    w->name, LR_SCAN_MAX_ENTRIES,
			    w->protect ? "" : " (or accept whatever secret files it holds with "
					      "--allow-dotenv)");
	r = entry_type(w, dirfd, child, name, &type);
	if (r <= 0)
		return r;
	if (entry_holes(w, path, child, name, type, &r))
		return r;
	if (type != DT_DIR || generated_name(name))
		return 0;
	if (system_path(child))
		return 0;
	r = open_subdir(w, dirfd, child, name, dev, &fd, &st);
	if (r <= 0)
		return r;
	return walk_dir(w, fd, child, st.st_dev, depth + 1);
}

/* Walk the directory open at FD (O_RDONLY, taken over) whose canonical path is PATH. */
/* The entries that make a directory a git directory: HEAD, config, objects, refs. */
#define GIT_DIR_ENTRIES 0xf

static unsigned git_dir_entry(const char *name)
{
	static const char *const names[] = { "HEAD", "config", "objects", "refs" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(name, names[i]) == 0)
			return 1u << i;
	return 0;
}

static void protect_git_dir(struct scan *sc, const struct walk *w, const char *path, int depth)
{
	_cleanup_free_ char *config = join(path, "config");

	if (depth == 0 && w->protect && !beneath_any(&sc->unprotected, path)) {
		fail(sc, -EACCES,
		     "%s: is a git directory, which git runs code from outside the sandbox; "
		     "grant it read-only, or accept the risk with --allow-protected %s",
		     w->name, path);
		return;
	}
	if (add_hole(sc, path, LR_HOLE_PROTECTED, GIT_WHY) == 0 && config)
		read_gitconfig(sc, config, NULL, 0);
}

static int walk_dir(struct walk *w, int fd, const char *path, dev_t dev, int depth)
{
	struct scan *sc = w->sc;
	unsigned git_layout = 0;
	const struct lr_dir_entry *de;
	struct lr_dir_entry ent;
	struct lr_dir *d;

	if (depth > WALK_MAX_DEPTH) {
		close(fd);
		return fail(sc, -ELOOP, "%s: %s is nested more than %d deep", w->name,
			    path, WALK_MAX_DEPTH);
	}
	d = lr_dir_open(fd);
	if (!d)
		return fail(sc, -errno, "%s: cannot list %s: %s", w->name, path,
			    strerror(errno));
	for (;;) {
		de = lr_dir_next(d, &ent);
		if (!de)
			break;
		git_layout |= git_dir_entry(de->name);
		if (walk_entry(w, d->fd, path, dev, depth, de->name, de->type) < 0)
			break;
	}
	if (!de && errno && sc->rc == 0)
		fail(sc, -errno, "%s: cannot list %s: %s", w->name, path,
		     strerror(errno));
	lr_dir_close(d);
	/* a git directory by another name than .git: a bare repository, whose
	 * hooks run when someone pushes to it */
	if (sc->rc == 0 && git_layout == GIT_DIR_ENTRIES)
		protect_git_dir(sc, w, path, depth);
	return sc->rc;
}

/* Walk the directory at FD (any kind: O_PATH is fine) with canonical PATH. */
static int walk_tree(struct walk *w, int fd, const char *path)
{
	struct stat st;
	int dfd;

	if (system_path(path))
		return 0;
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (dfd < 0) {
		int e = errno;

		if (e == EACCES && faccessat(fd, ".", X_OK, AT_EACCESS) < 0)
			return 0; /* nobody here may enter it: the command neither */
		if (e == EACCES)
			return fail(w->sc, -EACCES,
				    "%s: cannot list it to look for secret files (it can be "
				    "entered but not read); grant narrower directories, or accept "
				    "what it holds with --allow-dotenv %s",
				    w->name, path);
		return fail(w->sc, -e, "%s: cannot list it: %s", w->name, strerror(e));
	}
	if (fstat(dfd, &st) < 0 || virtual_fs(dfd)) {
		close(dfd);
		return 0;
	}
	return walk_dir(w, dfd, path, st.st_dev, 0);
}

/* ---------------------------------------------------------------- the grants */

static bool writable(const struct lr_fs_rule *r)
{
	return r->grant->access & LR_ACCESS_RW;
}

/* The first component of PATH that is protected, as a path (malloc'd), or NULL. */
static char *protected_component(const char *path, const char **runner)
{
	for (const char *p = path; *p;) {
		const char *start = p + (*p == '/'), *end = strchrnul(start, '/');
		char name[256];

		if (end - start > 0 && (size_t)(end - start) < sizeof(name)) {
			memcpy(name, start, (size_t)(end - start));
			name[end - start] = '\0';
			*runner = lr_protected_name(name);
			if (*runner)
				return strndup(path, (size_t)(end - path));
		}
		p = end;
	}
	return NULL;
}

/* What one grant is, before anything beneath it: refusals. */
static int check_grant(struct scan *sc, const struct lr_fs_rule *r, const char *env_file)
{
	const struct lr_grant *g = r->grant;
	_cleanup_free_ char *prot = NULL;
	const char *runner = NULL;
	char why[512];

	if (g->access == LR_ACCESS_UNIX)
		return 0;
	if (env_file && strcmp(env_file, r->realpath) == 0)
		lr_errf(why, sizeof(why), "the --env-file");
	else if (r->is_dir || !secret_why(sc, r->realpath, why, sizeof(why)))
		why[0] = '\0';
	if (why[0] && !beneath_any(&sc->accepted, r->realpath))
		return fail(sc, -EACCES,
			    "%s: grants %s to the command; grant the files beside it "
			    "instead, or accept it with --allow-dotenv %s",
			    g->name, why, r->realpath);
	if (!writable(r))
		return 0;
	prot = protected_component(r->realpath, &runner);
	if (prot && !beneath_any(&sc->unprotected, prot))
		return fail(sc, -EACCES,
			    "%s: %s %s, which %s runs code from outside the sandbox; grant "
			    "it read-only, or accept the risk with --allow-protected %s",
			    g->name, strcmp(prot, r->realpath) ? "lies inside" : "is",
			    prot, runner, prot);
	return 0;
}

/* Is the directory at PATH walked whole by the walk of a grant? */
static bool walked_by(const struct lr_fs_rule *r, const char *path)
{
	const char *p;

	if (!r->is_dir || !lr_path_beneath(path, r->realpath))
		return false;
	if (system_path(r->realpath))
		return false;
	/* every component from the grant down must be one the walk enters */
	p = path + strlen(r->realpath);
	while (*p) {
		const char *start = p + (*p == '/'), *end = strchrnul(start, '/');
		_cleanup_free_ char *name = strndup(start, (size_t)(end - start));
		_cleanup_free_ char *upto = strndup(path, (size_t)(end - path));

		if (!name || !upto || generated_name(name) || lr_protected_name(name) ||
		    system_path(upto))
			return false;
		p = end;
	}
	return true;
}

/* The project of the current directory: the nearest directory upwards that
 * holds a .git, or the current directory itself. */
static char *project_root(const char *cwd)
{
	_cleanup_free_ char *dir = strdup(cwd);

	if (!dir)
		return NULL;
	for (;;) {
		_cleanup_free_ char *dotgit = join(dir, ".git");
		char *slash;

		if (!dotgit)
			return NULL;
		if (access(dotgit, F_OK) == 0)
			return strdup(dir);
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	return strdup(cwd);
}

/* The repository a writable grant lies in, found upwards as git finds it. */
static void protect_enclosing_repository(struct scan *sc, const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash;

	if (!dir) {
		nomem(sc);
		return;
	}
	while ((slash = strrchr(dir, '/'))) {
		_cleanup_free_ char *dotgit = NULL;

		*(slash == dir ? slash + 1 : slash) = '\0';
		dotgit = join(dir, ".git");
		if (!dotgit) {
			nomem(sc);
			return;
		}
		if (access(dotgit, F_OK) == 0) {
			protect_repository(sc, dir);
			return;
		}
		if (slash == dir)
			return;
	}
}

static int canonical_list(struct scan *sc, char *const *paths, size_t n, const char *flag,
			  struct lr_strlist *out)
{
	for (size_t i = 0; i < n; i++) {
		char *real = lr_path_canonical(paths[i]);

		if (!real)
			return fail(sc, -errno, "%s %s: %s", flag, paths[i], strerror(errno));
		if (lr_strlist_take(out, real) < 0)
			return nomem(sc);
	}
	return 0;
}

/* --allow-dotenv, --allow-protected and --env-file, canonical: 0, or < 0 */
static int scan_exceptions(struct scan *sc, char **env_file)
{
	const struct lr_policy *policy = sc->policy;

	if (canonical_list(sc, policy->allow_dotenv, policy->n_allow_dotenv, "--allow-dotenv",
			   &sc->accepted) < 0 ||
	    canonical_list(sc, policy->allow_protected, policy->n_allow_protected,
			   "--allow-protected", &sc->unprotected) < 0)
		return -1;
	if (policy->env_file && !(*env_file = realpath(policy->env_file, NULL))) {
		fail(sc, -errno, "--env-file %s: %s", policy->env_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* Each grant checked; with a writable directory among them, the user's git
 * configuration read and landrun's own profiles protected. */
static int check_grants(struct scan *sc, const char *env_file)
{
	const struct lr_fs_rules *rules = sc->rules;
	bool any_writable = false;
	struct lr_strlist dirs = { 0 };

	for (size_t i = 0; i < rules->n && sc->rc == 0; i++) {
		check_grant(sc, &rules->v[i], env_file);
		any_writable |= writable(&rules->v[i]) && rules->v[i].is_dir;
	}
	if (sc->rc < 0)
		return sc->rc;
	if (!any_writable)
		return 0;
	read_user_gitconfig(sc);
	/* landrun's own profiles: the policy of the next run */
	if (lr_config_profile_dirs(&dirs) < 0)
		nomem(sc);
	for (size_t i = 0; i < dirs.n && sc->rc == 0; i++)
		protect_path(sc, dirs.v[i], "landrun reads its next policy there");
	lr_strlist_free(&dirs);
	return 0;
}

/* Each granted directory walked for secret files, and, writable, for
 * protected paths. */
static void walk_grants(struct scan *sc)
{
	const struct lr_fs_rules *rules = sc->rules;

	for (size_t i = 0; i < rules->n && sc->rc == 0; i++) {
		const struct lr_fs_rule *r = &rules->v[i];
		struct walk w = { sc, r->grant->name, false, false, 0 };

		if (!r->is_dir || r->fd < 0 || r->grant->access == LR_ACCESS_UNIX)
			continue;
		w.secrets = !beneath_any(&sc->accepted, r->realpath);
		w.protect = writable(r);
		if (w.protect)
			protect_enclosing_repository(sc, r->realpath);
		if (w.secrets || w.protect)
			walk_tree(&w, r->fd, r->realpath);
		sc->holes->entries += w.entries;
		/* a read-only grant inside a writable one stays read-only */
		for (size_t j = 0; j < rules->n && w.protect; j++)
			if (!writable(&rules->v[j]) && rules->v[j].grant->access != LR_ACCESS_UNIX &&
			    strcmp(rules->v[j].realpath, r->realpath) != 0 &&
			    lr_path_beneath(rules->v[j].realpath, r->realpath))
				add_hole(sc, rules->v[j].realpath, LR_HOLE_PROTECTED,
					 "it is granted read-only");
	}
}

/* The project and the --env-file, however high the grant that holds them. */
static void walk_project(struct scan *sc, const char *cwd, const char *env_file)
{
	const struct lr_fs_rules *rules = sc->rules;
	_cleanup_free_ char *project = cwd ? project_root(cwd) : NULL;

	for (size_t i = 0; i < rules->n && sc->rc == 0; i++) {
		const struct lr_fs_rule *r = &rules->v[i];

		if (env_file && r->is_dir && lr_path_beneath(env_file, r->realpath))
			add_hole(sc, env_file, LR_HOLE_SECRET, "the --env-file");
		if (project && r->is_dir && lr_path_beneath(project, r->realpath) &&
		    !beneath_any(&sc->accepted, project)) {
			bool done = false;
			struct walk w = { sc, r->grant->name, true, writable(r), 0 };

			for (size_t j = 0; j < rules->n && !done; j++)
				done = walked_by(&rules->v[j], project);
			if (!done) {
				int fd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);

				if (fd < 0) {
					fail(sc, -errno, "%s: cannot check the project %s: %s",
					     r->grant->name, project, strerror(errno));
					break;
				}
				walk_tree(&w, fd, project);
				close(fd);
				sc->holes->entries += w.entries;
				free(project);
				project = NULL; /* once is enough */
			}
		}
	}
}

int lr_scan(const struct lr_policy *policy, const struct lr_fs_rules *rules, const char *cwd,
	    const char *home, struct lr_holes *holes, char *err, size_t errlen)
{
	struct scan sc = { .policy = policy, .rules = rules, .holes = holes, .err = err,
			   .errlen = errlen, .home = home };
	_cleanup_free_ char *env_file = NULL;

	if (scan_exceptions(&sc, &env_file) == 0 && check_grants(&sc, env_file) == 0) {
		walk_grants(&sc);
		walk_project(&sc, cwd, env_file);
	}
	lr_strlist_free(&sc.accepted);
	lr_strlist_free(&sc.unprotected);
	lr_strlist_free(&sc.global_hooks);
	return sc.rc;
}

void lr_holes_free(struct lr_holes *holes)
{
	for (size_t i = 0; i < holes->n; i++) {
		free(holes->v[i].path);
		free(holes->v[i].why);
	}
	free(holes->v);
	holes->v = NULL;
	holes->n = 0;
}
