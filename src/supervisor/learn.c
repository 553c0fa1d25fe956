/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/lib/elf.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/policy/config.h"
#include "landrun/policy/secrets.h"
#include "landrun/sandbox/exec.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/supervisor/learn.h"

#define CLONE_NEW_ANY (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		       CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* ------------------------------------------------------------ the denials */

void lr_denial_free(struct lr_denial *d)
{
	free(d->asked);
	free(d->path);
	free(d->asked2);
	free(d->path2);
	lr_strlist_free(&d->interps);
	memset(d, 0, sizeof(*d));
}

void lr_denials_free(struct lr_denials *l)
{
	for (size_t i = 0; i < l->n; i++)
		lr_denial_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Do A and B deny the same thing? */
static bool same_denial(const struct lr_denial *a, const struct lr_denial *b)
{
	_cleanup_free_ char *wa = NULL, *wb = NULL;

	if (a->op != b->op)
		return false;
	switch (a->op) {
	case LR_DENIED_CONNECT_TCP:
	case LR_DENIED_BIND_TCP:
		return a->port == b->port;
	case LR_DENIED_CALL:
		wa = lr_denial_what(a);
		wb = lr_denial_what(b);
		return wa && wb && strcmp(wa, wb) == 0;
	default:
		return a->abstract == b->abstract &&
		       same_str(a->path ? a->path : a->asked, b->path ? b->path : b->asked) &&
		       same_str(a->path2 ? a->path2 : a->asked2, b->path2 ? b->path2 : b->asked2);
	}
}

int lr_denials_add(struct lr_denials *l, struct lr_denial *d)
{
	struct lr_denial *slot;

	if (!d->count)
		d->count = 1;
	l->seen++;
	if (!d->last)
		d->last = l->seen;
	for (size_t i = 0; i < l->n; i++) {
		if (same_denial(&l->v[i], d)) {
			l->v[i].count += d->count;
			if (d->last > l->v[i].last)
				l->v[i].last = d->last;
			l->v[i].dir |= d->dir;
			lr_denial_free(d);
			return 0;
		}
	}
	if (l->n >= LR_DENIALS_MAX) {
		l->dropped += d->count;
		lr_denial_free(d);
		return 0;
	}
	slot = lr_array_push(&l->v, &l->n, sizeof(*slot));
	if (!slot) {
		lr_denial_free(d);
		return -ENOMEM;
	}
	*slot = *d;
	memset(d, 0, sizeof(*d));
	return 0;
}

/* -------------------------------------------------------------- the context */

static int add_known(struct lr_learn_context *ctx, const char *path, unsigned access,
		     const char *name)
{
	struct lr_known_grant *k;
	struct stat st;
	char *real;

	/* landrun resolves /proc/self in the command's process, not here */
	if (strcmp(path, "/proc/self") == 0 || strncmp(path, "/proc/self/", 11) == 0)
		real = strdup(path);
	else
		real = realpath(path, NULL);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0; /* missing: grants nothing */
	k = lr_array_push(&ctx->grants, &ctx->n_grants, sizeof(*k));
	if (!k) {
		free(real);
		return -ENOMEM;
	}
	k->path = real;
	k->access = access;
	k->is_dir = stat(real, &st) == 0 && S_ISDIR(st.st_mode);
	k->name = name;
	return 0;
}

int lr_learn_context_init(struct lr_learn_context *ctx, const struct lr_policy *policy,
			  const char *home, int abi)
{
	const char *given = NULL;
	char buf[32];
	FILE *f;
	int r = 0;

	memset(ctx, 0, sizeof(*ctx));
	ctx->abi = abi;
	ctx->profile = policy->profile;
	ctx->connect_tcp = policy->connect_tcp;
	ctx->n_connect_tcp = policy->n_connect_tcp;
	ctx->bind_tcp = policy->bind_tcp;
	ctx->n_bind_tcp = policy->n_bind_tcp;
	ctx->deny_subprocess = policy->deny_subprocess;
	ctx->path = policy->learn;
	ctx->secrets = policy->secrets;
	ctx->n_secrets = policy->n_secrets;
	ctx->unprivileged_port = 1024;
	f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			ctx->unprivileged_port = (unsigned)strtoul(buf, NULL, 10);
		fclose(f);
	}
	/* the command's HOME: the last --env HOME=DIR, or the caller's; the
	 * caller's stays a home that no grant may hold either */
	for (size_t i = 0; i < policy->n_env; i++)
		if (policy->env[i].kind == LR_ENV_SET && strcmp(policy->env[i].name, "HOME") == 0)
			given = policy->env[i].value;
	if (given && given[0] == '/') {
		ctx->home = realpath(given, NULL);
		/* not made yet: the command's all the same */
		if (!ctx->home && errno == ENOENT)
			ctx->home = strdup(given);
	}
	if (home && home[0] == '/')
		ctx->caller_home = realpath(home, NULL);
	if (!ctx->home && !given && ctx->caller_home)
		ctx->home = strdup(ctx->caller_home);
	if (policy->env_file)
		ctx->env_file = realpath(policy->env_file, NULL);
	for (size_t i = 0; r == 0 && i < policy->n_grants; i++)
		r = add_known(ctx, policy->grants[i].path, policy->grants[i].access,
			      policy->grants[i].name);
	/* what the child adds (main.c): the command itself, what it loads */
	if (r == 0 && policy->add_exec && policy->argv[0]) {
		_cleanup_free_ char *cmd = NULL;

		if (lr_exec_resolve(policy->argv[0], getenv("PATH"), &cmd) == 0)
			r = add_known(ctx, cmd, LR_ACCESS_RO | LR_ACCESS_X, "--add-exec");
		if (r == 0 && cmd && policy->ldd) {
			struct lr_strlist deps = { 0 };
			char err[LR_ERR_MAX];

			lr_elf_deps(cmd, getenv("LD_LIBRARY_PATH"), &deps, err, sizeof(err));
			for (size_t i = 0; r == 0 && i < deps.n; i++)
				r = add_known(ctx, deps.v[i], LR_ACCESS_RO | LR_ACCESS_X, "--ldd");
			lr_strlist_free(&deps);
		}
	}
	if (r < 0)
		lr_learn_context_free(ctx);
	return r;
}

void lr_learn_context_free(struct lr_learn_context *ctx)
{
	for (size_t i = 0; i < ctx->n_grants; i++)
		free(ctx->grants[i].path);
	free(ctx->grants);
	free(ctx->home);
	free(ctx->caller_home);
	free(ctx->env_file);
	memset(ctx, 0, sizeof(*ctx));
}

/* The known grant that gives ACCESS (all its bits) to PATH, or NULL. */
static const struct lr_known_grant *covered(const struct lr_learn_context *ctx, const char *path,
					    unsigned access)
{
	for (size_t i = 0; path && i < ctx->n_grants; i++) {
		const struct lr_known_grant *k = &ctx->grants[i];

		if ((k->access & access) != access)
			continue;
		if (k->is_dir ? lr_path_beneath(path, k->path) : strcmp(path, k->path) == 0)
			return k;
	}
	return NULL;
}

/* A writable directory of the policy's (the project) beneath PATH, or NULL. */
static const struct lr_known_grant *holds_writable(const struct lr_learn_context *ctx,
						   const char *path)
{
	for (size_t i = 0; i < ctx->n_grants; i++) {
		const struct lr_known_grant *k = &ctx->grants[i];

		if (k->is_dir && (k->access & LR_ACCESS_RW) && strcmp(k->path, path) != 0 &&
		    lr_path_beneath(k->path, path))
			return k;
	}
	return NULL;
}

static bool port_in(unsigned port, const struct lr_port_range *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (port >= v[i].first && port <= v[i].last)
			return true;
	return false;
}

/* -------------------------------------------------------- names and paths */

/*
 * The end of PATH's first component that is a secret's name (SECRET: by
 * landrun's names, in the directory it is in, or the policy's secret globs)
 * or a protected one (else, with *RUNNER), as an offset into PATH, or 0.
 */
static size_t named_component(const struct lr_learn_context *ctx, const char *path, bool secret,
			      const char **runner)
{
	char name[NAME_MAX + 1], parent[NAME_MAX + 1] = "";
	const char *p = path;

	while (p && *p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n > 0 && n <= NAME_MAX) {
			const char *r;

			memcpy(name, p, n);
			name[n] = '\0';
			if (secret ? lr_secret_kind(*parent ? parent : NULL, name) != NULL
				   : (r = lr_protected_name(name)) != NULL) {
				if (runner && !secret)
					*runner = r;
				return (size_t)(end - path);
			}
			for (size_t i = 0; secret && i < ctx->n_secrets; i++) {
				_cleanup_free_ char *upto = strndup(path, (size_t)(end - path));

				if (upto && lr_secret_glob_match(ctx->secrets[i].glob, upto))
					return (size_t)(end - path);
			}
			memcpy(parent, name, n + 1);
		} else {
			parent[0] = '\0';
		}
		p = end;
	}
	return 0;
}

static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static unsigned depth(const char *path)
{
	unsigned n = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			n++;
	return n;
}

const char *lr_learn_tools_dir(const char *path, const char *home)
{
	static const char *const shared[] = { ".cache", ".config", ".local", ".local/share",
					      ".local/state" };
	size_t n = home ? strlen(home) : 0;

	if (!path || n < 2 || home[0] != '/' || strncmp(path, home, n) != 0 || path[n] != '/')
		return NULL;
	for (size_t i = 0; i < sizeof(shared) / sizeof(*shared); i++)
		if (strcmp(path + n + 1, shared[i]) == 0)
			return "is shared by every tool of the home (their caches, settings, data)";
	return NULL;
}

/* Why PATH is shared (lr_policy_shared_dir, lr_learn_tools_dir) by the
 * command's home or the caller's, or NULL. */
static const char *shared_by(const struct lr_learn_context *ctx, const char *path)
{
	const char *why = lr_policy_shared_dir(path, ctx->home);

	if (!why)
		why = lr_learn_tools_dir(path, ctx->home);
	if (!why && ctx->caller_home)
		why = lr_policy_shared_dir(path, ctx->caller_home);
	if (!why && ctx->caller_home)
		why = lr_learn_tools_dir(path, ctx->caller_home);
	return why;
}

/* A directory of the home where programs keep their keys and tokens. */
static bool credentials_dir(const char *path, const char *home)
{
	static const char *const names[] = { ".ssh", ".gnupg", ".aws", ".azure", ".kube",
					     ".docker", ".password-store", ".pki", ".gcloud" };
	size_t n = home ? strlen(home) : 0;

	if (!n || strncmp(path, home, n) != 0 || path[n] != '/')
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(path + n + 1, names[i]) == 0)
			return true;
	return false;
}

/* Is PATH /proc/self/NAME, /proc/PID/NAME or a thread's (task/TID/NAME)? */
static bool proc_entry(const char *path, const char *name)
{
	const char *p;

	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	p = path + 6;
	if (strncmp(p, "self/", 5) == 0) {
		p += 5;
	} else if (strncmp(p, "thread-self/", 12) == 0) {
		p += 12;
	} else if (isdigit((unsigned char)*p)) {
		p += strspn(p, "0123456789");
		if (*p++ != '/')
			return false;
	} else {
		return false;
	}
	if (strncmp(p, "task/", 5) == 0 && isdigit((unsigned char)p[5])) {
		p += 5 + strspn(p + 5, "0123456789");
		if (*p++ != '/')
			return false;
	}
	return strcmp(p, name) == 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/*
 * Files that programs read when they can and do without: the loader's
 * cache and its hardware-capability directories, the kernel's list of
 * filesystems and the mount table (libselinux asks for them at every
 * start: mkdir, cp, ls), the memory map (runtimes find their stack in it),
 * the cgroup's and the system's memory (runtimes size their heaps by them),
 * the locale's data (without it: the C locale, English messages), the
 * list of /etc (Python's distro looks for *-release files).  Denying
 * them costs a fallback, so they are told apart, and never learned.
 */
static bool probe_path(const char *path)
{
	static const char *const files[] = {
		"/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/ld.so.nohwcap",
		"/etc", /* listed for its *-release files (Python's distro, pip) */
		"/opt", /* listed by clang (clangd) for ROCm and CUDA installations */
		"/proc/filesystems", "/proc/mounts", "/proc/meminfo",
		"/proc/sys/vm/overcommit_memory", "/etc/locale.alias", "/etc/default/locale",
		"/etc/locale.conf",
	};
	static const char *const trees[] = {
		"/usr/lib/locale", "/usr/share/locale", "/usr/share/locale-langpack",
		"/sys/fs/cgroup", "/sys/kernel/mm/transparent_hugepage",
	};
	static const char *const own[] = { "mounts", "mountinfo", "maps", "cgroup", "statm" };

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		if (strcmp(path, files[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(trees) / sizeof(*trees); i++)
		if (lr_path_beneath(path, trees[i]))
			return true;
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (proc_entry(path, own[i]))
			return true;
	/* the loader's search of a library directory, by hardware capability */
	if (strncmp(path, "/lib", 4) != 0 && strncmp(path, "/usr/lib", 8) != 0 &&
	    strncmp(path, "/usr/local/lib", 14) != 0)
		return false;
	return strstr(path, "/glibc-hwcaps/") || strstr(path, "/tls/") ||
	       ends_with(path, "/glibc-hwcaps") || ends_with(path, "/tls");
}

/* The nameservers' file (systemd-resolved's, where /etc/resolv.conf links). */
static bool is_resolv_conf(const char *path)
{
	return strcmp(path, "/etc/resolv.conf") == 0 ||
	       strcmp(path, "/run/systemd/resolve/stub-resolv.conf") == 0 ||
	       strcmp(path, "/run/systemd/resolve/resolv.conf") == 0;
}

/* A terminal's device: /dev/tty (the controlling terminal, whichever it
 * is), /dev/pts/N, /dev/ttyN, /dev/console, /dev/ptmx, /dev/vcsN. */
static bool terminal_path(const char *path)
{
	return strcmp(path, "/dev/tty") == 0 || strcmp(path, "/dev/console") == 0 ||
	       strcmp(path, "/dev/ptmx") == 0 || lr_path_beneath(path, "/dev/pts") ||
	       (strncmp(path, "/dev/tty", 8) == 0 && !strchr(path + 8, '/')) ||
	       (strncmp(path, "/dev/vcs", 8) == 0 && !strchr(path + 8, '/'));
}

/*
 * Can VALUE be written as a policy file's value and read back the same?
 * Policy files split lists at commas, expand ${...} and a leading ~, start
 * comments at " #" and " ;" (and at a value's first '#' or ';'), strip
 * blanks, and refuse lines with control bytes (lr_config_line_problem).  A
 * path --learn writes is absolute; anything else it writes is a number.
 */
static bool writable_value(const char *key, const char *v)
{
	char why[128];

	if (strcmp(key, "connect-tcp") == 0 || strcmp(key, "bind-tcp") == 0)
		return *v && strspn(v, "0123456789") == strlen(v) && strlen(v) <= 5;
	if (*v != '/')
		return false;
	if (isspace((unsigned char)v[strlen(v) - 1]) || strchr(v, ',') || strstr(v, "${") ||
	    strstr(v, " #") || strstr(v, " ;") || strchr(v, '\t') || lr_config_line_problem(v, strlen(v), why, sizeof(why)))
		return false;
	return strlen(v) < PATH_MAX;
}

/* The longest comment --learn writes about one entry (escaped): the rest is
 * cut, with "...", so that no line of the file is too long to be read. */
#define LEARN_TEXT_MAX 2048

/* TEXT (taken) as a comment may hold it: escaped and bounded.  NULL: out of memory. */
static char *comment_text(char *text)
{
	char *out;
	size_t need;

	if (!text)
		return NULL;
	need = lr_escape(NULL, 0, text, strlen(text), true);
	out = malloc((need < LEARN_TEXT_MAX ? need : LEARN_TEXT_MAX) + 4);
	if (out) {
		lr_escape(out, LEARN_TEXT_MAX + 1 < need + 1 ? LEARN_TEXT_MAX + 1 : need + 1, text,
			  strlen(text), true);
		if (need > LEARN_TEXT_MAX)
			strcat(out, "...");
	}
	free(text);
	return out;
}

/* ------------------------------------------------------------------ advice */

void lr_advice_free(struct lr_advice *a)
{
	free(a->value);
	free(a->note);
	memset(a, 0, sizeof(*a));
}

static int note(struct lr_advice *a, char *text)
{
	a->kind = LR_ADVICE_NOTE;
	a->note = text;
	return text ? 0 : -ENOMEM;
}

static int grant(struct lr_advice *a, const char *key, char *value, char *remark)
{
	a->kind = LR_ADVICE_GRANT;
	a->key = key;
	a->value = value;
	a->note = remark;
	if (!value)
		return -ENOMEM;
	if (!writable_value(key, value)) {
		char *why = format("--%s %s would allow it, but a policy file cannot hold that "
				   "name: grant it on the command line",
				   key, value);

		free(a->value);
		free(a->note);
		a->value = NULL;
		return note(a, why);
	}
	return 0;
}

/* /proc/PID/... of the command itself is /proc/self/... to landrun. */
static int proc_path(const struct lr_denial *d, const char *path, char **out)
{
	char *end;
	long pid;

	*out = NULL;
	if (strncmp(path, "/proc/", 6) != 0 || !isdigit((unsigned char)path[6]))
		return 0;
	pid = strtol(path + 6, &end, 10);
	if (*end != '/' && *end != '\0')
		return 0;
	if (!d->main || pid != d->pid)
		return 1;
	*out = format("/proc/self%s", end);
	return *out ? 0 : -ENOMEM;
}

static int secret_note(struct lr_advice *a, const char *path, size_t end, bool env_file)
{
	if (env_file)
		return note(a, format("the --env-file, kept out on purpose (the command gets the "
				      "variables you select from it, never the file)"));
	return note(a, format("a secret file, kept out on purpose; --allow-dotenv %.*s would let "
			      "the command read it (think twice: it holds keys)",
			      (int)end, path));
}

static int protected_note(struct lr_advice *a, const char *path, size_t end, const char *runner)
{
	return note(a, format("read-only on purpose: %s runs what is there later, outside "
			      "the sandbox; --allow-protected %.*s would make it writable "
			      "(think twice)",
			      runner, (int)end, path));
}

static bool widenable(const char *dir, const char *key, const struct lr_learn_context *ctx);

/* A file or a directory to read (RO) or write (RW). */
static int advise_path(const struct lr_denial *d, const struct lr_learn_context *ctx,
		       unsigned access, struct lr_advice *a)
{
	const char *path = d->path, *runner = NULL, *shared;
	const struct lr_known_grant *k;
	_cleanup_free_ char *proc = NULL;
	size_t end;
	int r;

	if (!path)
		return note(a, format("its path could not be resolved"));
	if (ctx->env_file && strcmp(path, ctx->env_file) == 0)
		return secret_note(a, path, strlen(path), true);
	/* a symlink with a secret's name makes what it points to a secret */
	end = named_component(ctx, path, true, NULL);
	if (!end && d->asked && named_component(ctx, d->asked, true, NULL))
		end = strlen(path);
	if (end)
		return secret_note(a, path, end, false);
	if ((access & LR_ACCESS_RW) && (end = named_component(ctx, path, false, &runner)))
		return protected_note(a, path, end, runner);
	if (terminal_path(path))
		return note(a, format("a terminal: landrun grants none by name (the number is "
				      "another terminal's tomorrow); the command has its own on "
				      "fds 0-2, and --pty gives it one of its own"));
	r = proc_path(d, path, &proc);
	if (r < 0)
		return r;
	/* the nameservers, read for a lookup: of no use without the network
	 * that reaches them (UDP, which seccomp denies but for
	 * --unrestricted-network); the proxy of --allow-domain resolves itself */
	if (!(access & LR_ACCESS_RW) && d->op == LR_DENIED_READ && is_resolv_conf(path)) {
		a->probe = a->lookup = true;
		return note(a, format("a host name's lookup (DNS): of no use without the network "
				      "that reaches the nameservers; --unrestricted-network --ro "
				      "%s would allow it, or --allow-domain NAME (landrun's proxy "
				      "resolves the names it allows)",
				      path));
	}
	if (!(access & LR_ACCESS_RW) && probe_path(path)) {
		a->probe = true;
		if (depth(path) < 2)
			return note(a, format("a probe that programs do without: not needed"));
		return note(a, format("a probe that programs do without: not needed (--ro %s "
				      "would allow it%s)",
				      r > 0 ? "/proc" : proc ? proc : path,
				      r > 0 ? ", and show every process" : ""));
	}
	if (r > 0)
		return note(a, format("the /proc entry of a process the command started: landrun "
				      "grants /proc/self to the command's own pid only; --ro /proc "
				      "would allow it, and show every process"));
	if (proc)
		path = proc;
	if ((k = covered(ctx, path, access)))
		return note(a, format("granted by %s already, and denied all the same: see "
				      "--explain",
				      k->name));
	if (d->op == LR_DENIED_LIST && (shared = shared_by(ctx, path)))
		return note(a, format("%s %s: grant what the command needs inside it instead", path,
				      shared));
	/* --ro /etc would grant every file of it (the host's keys, its
	 * secrets): a top directory is never granted for a listing */
	if (d->op == LR_DENIED_LIST && depth(path) < 2)
		return note(a, format("%s is a top directory: --ro %s would grant every file in "
				      "it; grant what the command reads in it instead",
				      path, path));
	/* the directory that holds the project (make's directory cache lists
	 * ../ for an include of ../common.mk): --ro would grant every file
	 * beside the project, the other checkouts, for a listing */
	if (d->op == LR_DENIED_LIST && (k = holds_writable(ctx, path))) {
		a->probe = true;
		return note(a, format("a probe that programs do without: not needed (%s holds "
				      "%s, granted by %s: --ro %s would grant every file beside "
				      "it)",
				      path, k->path, k->name, path));
	}
	return grant(a, access & LR_ACCESS_RW ? "rw" : "ro", strdup(path), NULL);
}

/* An entry made in (a directory: IS_DIR), or removed from, the directory
 * holding PATH. */
static int advise_dir(const char *path, bool is_dir, const struct lr_learn_context *ctx,
		      struct lr_advice *a)
{
	_cleanup_free_ char *dir = path ? parent_of(path) : NULL;
	const char *runner = NULL, *shared;
	size_t end;
	int r;

	if (!path)
		return note(a, format("its path could not be resolved"));
	if (!dir)
		return -ENOMEM;
	if ((end = named_component(ctx, path, false, &runner)))
		return protected_note(a, path, end, runner);
	if ((end = named_component(ctx, dir, true, NULL)))
		return secret_note(a, dir, end, false);
	if (covered(ctx, dir, LR_ACCESS_RW)) {
		/* a directory: landrun makes it before the grants (--mkdir) */
		if (is_dir)
			return grant(a, "mkdir", strdup(path),
				     format("%s is carved around what the command must not get "
					    "in it: landrun makes it first",
					    dir));
		return note(a, format("%s is carved around what the command must not get "
				      "in it (.git, .env and the like): nothing new can be "
				      "made directly in it; make it in a subdirectory (a "
				      "directory: make it beforehand, --mkdir %s)",
				      dir, path));
	}
	/* a directory of its own in the home, or in one that every tool
	 * shares (~/.cache/TOOL): made and granted, and no more; one of those
	 * shared (~/.cache itself): made, and granted to none */
	if (is_dir && ctx->home &&
	    (strcmp(dir, ctx->home) == 0 || lr_learn_tools_dir(dir, ctx->home))) {
		if ((end = named_component(ctx, path, true, NULL)))
			return secret_note(a, path, end, false);
		if (credentials_dir(path, ctx->home))
			return note(a, format("%s is where programs keep the credentials they "
					      "share: not learned (--mkdir %s --rw %s would allow "
					      "it: think twice)",
					      path, path, path));
		if ((shared = lr_learn_tools_dir(path, ctx->home)))
			return grant(a, "mkdir", strdup(path),
				     format("%s %s: made, not granted", path, shared));
		r = grant(a, "rw", strdup(path), NULL);
		a->mkdir = r == 0 && a->kind == LR_ADVICE_GRANT;
		return r;
	}
	if ((shared = shared_by(ctx, dir)))
		return note(a, format("in %s, which %s: give the command a directory of its "
				      "own (--private-tmp, --private-home, or --rw DIR --env "
				      "TMPDIR=DIR)",
				      dir, shared));
	return grant(a, "rw", strdup(dir), NULL);
}

static int advise_rename(const struct lr_denial *d, const struct lr_learn_context *ctx,
			 struct lr_advice *a)
{
	_cleanup_free_ char *from = d->path ? parent_of(d->path) : NULL;
	_cleanup_free_ char *to = d->path2 ? parent_of(d->path2) : NULL;
	int r;

	if (!d->path || !d->path2)
		return note(a, format("its paths could not be resolved"));
	if (!from || !to)
		return -ENOMEM;
	/* the side that lacks the right; the new name's when both do */
	if (covered(ctx, to, LR_ACCESS_RW) && !covered(ctx, from, LR_ACCESS_RW))
		return advise_dir(d->path, false, ctx, a);
	r = advise_dir(d->path2, false, ctx, a);
	if (r == 0 && a->kind == LR_ADVICE_GRANT && strcmp(from, to) != 0 &&
	    !covered(ctx, from, LR_ACCESS_RW) && !a->note)
		a->note = format("moving from %s needs --rw %s too", from, from);
	return r;
}

static int advise_exec(const struct lr_denial *d, const struct lr_learn_context *ctx,
		       struct lr_advice *a)
{
	const struct lr_known_grant *k;

	if (!d->path)
		return note(a, format("its path could not be resolved"));
	k = covered(ctx, d->path, LR_ACCESS_X);
	if (!k) {
		_cleanup_free_ char *bin = parent_of(d->path);
		_cleanup_free_ char *prefix = bin ? parent_of(bin) : NULL;
		const char *slash = bin ? strrchr(bin, '/') : NULL;

		if (!bin || !prefix)
			return -ENOMEM;
		/* PREFIX/bin/PROGRAM: the installation it runs from (a toolchain
		 * in ~/.rustup, /opt/tool), whose programs run one another and
		 * load what is beside them; found one at a run, they would take
		 * a run each.  Never a shared, top or credentials directory. */
		if (slash && strcmp(slash, "/bin") == 0 && widenable(prefix, "rox", ctx) &&
		    !credentials_dir(prefix, ctx->home) && !credentials_dir(prefix, ctx->caller_home))
			return grant(a, "rox", strdup(prefix),
				     format("the installation %s runs from", d->path));
		return grant(a, "rox", strdup(d->path), NULL);
	}
	/* the kernel opens the interpreters with it, and needs the same right */
	for (size_t i = 0; i < d->interps.n; i++)
		if (!covered(ctx, d->interps.v[i], LR_ACCESS_X))
			return grant(a, "rox", strdup(d->interps.v[i]),
				     format("its interpreter: %s is executable by %s already",
					    d->path, k->name));
	return note(a, format("executable by %s already, as are its interpreters: see --explain",
			      k->name));
}

static const char *family_name(int family)
{
	switch (family) {
	case AF_UNIX:
		return "AF_UNIX";
	case AF_INET:
		return "AF_INET";
	case AF_INET6:
		return "AF_INET6";
	case AF_NETLINK:
		return "AF_NETLINK";
	case AF_PACKET:
		return "AF_PACKET";
	case AF_BLUETOOTH:
		return "AF_BLUETOOTH";
	case AF_VSOCK:
		return "AF_VSOCK";
	case AF_ALG:
		return "AF_ALG";
	}
	return NULL;
}

static const char *type_name(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return "SOCK_STREAM";
	case SOCK_DGRAM:
		return "SOCK_DGRAM";
	case SOCK_RAW:
		return "SOCK_RAW";
	case SOCK_SEQPACKET:
		return "SOCK_SEQPACKET";
	}
	return NULL;
}

static const char *ioctl_name(unsigned long cmd)
{
	static const struct {
		unsigned long cmd;
		const char *name;
	} names[] = {
		{ TIOCSTI, "TIOCSTI" },	    { TIOCLINUX, "TIOCLINUX" },
		{ TIOCSPGRP, "TIOCSPGRP" }, { TIOCSCTTY, "TIOCSCTTY" },
		{ TIOCNOTTY, "TIOCNOTTY" }, { FS_IOC_SETFLAGS, "FS_IOC_SETFLAGS" },
		{ FS_IOC_FSSETXATTR, "FS_IOC_FSSETXATTR" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (names[i].cmd == cmd)
			return names[i].name;
	return NULL;
}

/* What the seccomp filter denied: a call, and the arguments that matter. */
static char *call_what(const struct lr_denial *d)
{
	const char *name = lr_seccomp_call_name(d->nr);
	int family = (int)(uint32_t)d->args[0], type = (int)(d->args[1] & 0xf);

	if (!name)
		return format("system call %ld", d->nr);
	if (strcmp(name, "socket") == 0 || strcmp(name, "socketpair") == 0) {
		const char *f = family_name(family), *t = type_name(type);
		char fbuf[32], tbuf[32];

		if (!f)
			snprintf(fbuf, sizeof(fbuf), "family %d", family);
		if (!t)
			snprintf(tbuf, sizeof(tbuf), "type %d", type);
		if (family == AF_NETLINK)
			return format("%s AF_NETLINK protocol %d", name, (int)(uint32_t)d->args[2]);
		return format("%s %s %s", name, f ? f : fbuf, t ? t : tbuf);
	}
	if (strcmp(name, "ioctl") == 0) {
		const char *c = ioctl_name((unsigned long)(uint32_t)d->args[1]);

		return c ? format("ioctl %s", c) : format("ioctl %#lx", (unsigned long)d->args[1]);
	}
	if (strcmp(name, "clone") == 0 && (d->args[0] & CLONE_NEW_ANY))
		return format("clone with new namespaces");
	if (strcmp(name, "personality") == 0)
		return format("personality %#lx", (unsigned long)d->args[0]);
	if (strcmp(name, "sendto") == 0 || strcmp(name, "sendmsg") == 0 ||
	    strcmp(name, "sendmmsg") == 0)
		return format("%s MSG_FASTOPEN", name);
	return strdup(name);
}

static int advise_socket(const struct lr_denial *d, const struct lr_learn_context *ctx,
			 struct lr_advice *a)
{
	int family = (int)(uint32_t)d->args[0], type = (int)(d->args[1] & 0xf);

	if (family == AF_INET || family == AF_INET6) {
		if (type == SOCK_STREAM)
			return note(a, format("net.tcp: TCP needs --connect-tcp PORT or --bind-tcp "
					      "PORT; the port shows in the report once TCP "
					      "sockets are allowed (any --connect-tcp%s)",
					      ctx->abi >= 4 ? "" : ", and Landlock ABI 4"));
		if (type == SOCK_DGRAM)
			return note(a, format("net.udp: only --unrestricted-network allows UDP "
					      "(Landlock confines UDP to ports only from ABI 10)"));
	}
	if (family == AF_UNIX)
		return note(a, format("net.unix: --unix PATH allows one socket; the path shows in "
				      "the report once AF_UNIX sockets are allowed%s",
				      ctx->abi >= 9 ? "" :
				      " (below Landlock ABI 9 --unix cannot confine the command to "
				      "PATH: --on-unsupported decides)"));
	return note(a, format("net.sockets: only --unrestricted-network allows it"));
}

static int advise_call(const struct lr_denial *d, const struct lr_learn_context *ctx,
		       struct lr_advice *a)
{
	const char *name = lr_seccomp_call_name(d->nr);
	int when = lr_seccomp_call_when(d->nr);
	static const char surface[] = "kernel.surface: no flag allows it";
	static const char root[] = "privs.root-metadata: as uid 0 the command may not change the "
				   "mode, owner or extended attributes of any file; run it as "
				   "another user (--user USER)";
	static const char tty[] = "tty.foreground: denied while a terminal is within reach; run "
				  "landrun without one (no controlling terminal, none on fds 0-2)";

	if (!name)
		return note(a, format("denied by the seccomp filter"));
	if (strcmp(name, "socket") == 0)
		return advise_socket(d, ctx, a);
	if (strcmp(name, "socketpair") == 0)
		return note(a, format("net.unix: datagram socket pairs (which sendto can aim at "
				      "any socket path) are allowed from Landlock ABI 9, or with "
				      "--unrestricted-network"));
	if (strcmp(name, "listen") == 0)
		return note(a, format("net.tcp: listen needs --bind-tcp PORT (a socket listens on "
				      "a port it was bound to)"));
	if (strcmp(name, "sendto") == 0 || strcmp(name, "sendmsg") == 0 ||
	    strcmp(name, "sendmmsg") == 0)
		return note(a, format("TCP Fast Open connects where Landlock does not look: no "
				      "flag allows it (connect first)"));
	if (strcmp(name, "ioctl") == 0) {
		unsigned long cmd = (unsigned long)(uint32_t)d->args[1];

		if (cmd == TIOCSPGRP || cmd == TIOCSCTTY || cmd == TIOCNOTTY)
			return note(a, strdup(tty));
		if (cmd == FS_IOC_SETFLAGS || cmd == FS_IOC_FSSETXATTR)
			return note(a, strdup(root));
		return note(a, strdup(surface));
	}
	if (strcmp(name, "setpgid") == 0)
		return note(a, strdup(tty));
	if (strcmp(name, "open") == 0 || strcmp(name, "openat") == 0 ||
	    strcmp(name, "creat") == 0 || strcmp(name, "mknod") == 0 ||
	    strcmp(name, "mknodat") == 0)
		return note(a, format("privs.root-metadata: as uid 0 the command may not make a "
				      "setuid or setgid file; run it as another user (--user "
				      "USER)"));
	if ((strcmp(name, "clone") == 0 && !(d->args[0] & CLONE_NEW_ANY)) ||
	    when == LR_SECCOMP_NO_SUBPROCESS)
		return note(a, format("proc.no-subprocess: --deny-subprocess forbids new "
				      "processes"));
	if (strncmp(name, "sched_set", 9) == 0 || strstr(name, "priority") ||
	    strncmp(name, "ioprio_", 7) == 0 || strcmp(name, "prlimit64") == 0 ||
	    strcmp(name, "migrate_pages") == 0 || strcmp(name, "move_pages") == 0 ||
	    strcmp(name, "get_robust_list") == 0)
		return note(a, format("proc.others: only the calling process itself (pid 0) may "
				      "be named; no flag allows another"));
	switch (when) {
	case LR_SECCOMP_NO_SYSV_IPC:
		return note(a, format("ipc.sysv: --allow-sysv-ipc allows it, and with it every "
				      "SysV object of the system that the user may reach"));
	case LR_SECCOMP_NO_LISTEN:
		return note(a, format("net.tcp: listen needs --bind-tcp PORT"));
	case LR_SECCOMP_ROOT_METADATA:
	case LR_SECCOMP_ROOT_BROKERED:
		return note(a, strdup(root));
	case LR_SECCOMP_TERMINAL:
		return note(a, strdup(tty));
	default:
		return note(a, strdup(surface));
	}
}

int lr_learn_advise(const struct lr_denial *d, const struct lr_learn_context *ctx,
		    struct lr_advice *a)
{
	memset(a, 0, sizeof(*a));
	switch (d->op) {
	case LR_DENIED_READ:
	case LR_DENIED_LIST:
		return advise_path(d, ctx, LR_ACCESS_RO, a);
	case LR_DENIED_WRITE:
	case LR_DENIED_TRUNCATE:
		return advise_path(d, ctx, LR_ACCESS_RO | LR_ACCESS_RW, a);
	case LR_DENIED_CREATE:
		return advise_dir(d->path, d->dir, ctx, a);
	case LR_DENIED_REMOVE:
		return advise_dir(d->path, false, ctx, a);
	case LR_DENIED_RENAME:
		return advise_rename(d, ctx, a);
	case LR_DENIED_EXECUTE:
		return advise_exec(d, ctx, a);
	case LR_DENIED_CONNECT_TCP:
		if (port_in(d->port, ctx->connect_tcp, ctx->n_connect_tcp))
			return note(a, format("--connect-tcp %u is granted already", d->port));
		return grant(a, "connect-tcp", format("%u", d->port), NULL);
	case LR_DENIED_BIND_TCP:
		if (port_in(d->port, ctx->bind_tcp, ctx->n_bind_tcp))
			return note(a, format("--bind-tcp %u is granted already: ports below %u "
					      "need CAP_NET_BIND_SERVICE, which the command never "
					      "has",
					      d->port, ctx->unprivileged_port));
		return grant(a, "bind-tcp", format("%u", d->port),
			     d->port && d->port < ctx->unprivileged_port
				     ? format("ports below %u need CAP_NET_BIND_SERVICE too, which "
					      "the command never has",
					      ctx->unprivileged_port)
				     : NULL);
	case LR_DENIED_CONNECT_UNIX:
		if (d->abstract)
			return note(a, format("scope.abstract-unix: --unrestricted-scoped allows "
					      "abstract sockets outside the sandbox"));
		if (!d->path)
			return note(a, format("its path could not be resolved"));
		return grant(a, "unix", strdup(d->path), NULL);
	case LR_DENIED_CALL:
		return advise_call(d, ctx, a);
	}
	return note(a, format("unknown"));
}

/* A socket that a lookup asks for: UDP, or glibc's nscd client's. */
static bool lookup_socket(const struct lr_denial *d)
{
	int family = (int)(uint32_t)d->args[0], type = (int)(uint32_t)d->args[1];
	const char *name;

	if (d->op != LR_DENIED_CALL || !(name = lr_seccomp_call_name(d->nr)) ||
	    strcmp(name, "socket") != 0)
		return false;
	if (family == AF_INET || family == AF_INET6)
		return (type & 0xf) == SOCK_DGRAM;
	return family == AF_UNIX && type == (SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC) &&
	       d->args[2] == 0;
}

void lr_learn_mark_lookups(const struct lr_denials *denials, struct lr_advice *advice)
{
	for (size_t i = 0; i < denials->n; i++) {
		if (!lookup_socket(&denials->v[i]) || advice[i].kind != LR_ADVICE_NOTE)
			continue;
		for (size_t j = 0; j < denials->n; j++)
			if (advice[j].lookup && denials->v[j].op == LR_DENIED_READ &&
			    denials->v[j].pid == denials->v[i].pid) {
				advice[i].lookup = advice[i].probe = true;
				break;
			}
	}
}

/* ------------------------------------------------------------------- lines */

char *lr_denial_what(const struct lr_denial *d)
{
	static const char *const verbs[] = {
		[LR_DENIED_READ] = "read",	   [LR_DENIED_LIST] = "list",
		[LR_DENIED_WRITE] = "write",	   [LR_DENIED_TRUNCATE] = "truncate",
		[LR_DENIED_CREATE] = "create",
		[LR_DENIED_REMOVE] = "remove",	   [LR_DENIED_RENAME] = "rename",
		[LR_DENIED_EXECUTE] = "execute",
	};
	const char *asked = d->asked ? d->asked : d->path ? d->path : "?";

	switch (d->op) {
	case LR_DENIED_CONNECT_TCP:
		return format("connect to TCP port %u", d->port);
	case LR_DENIED_BIND_TCP:
		return format("bind TCP port %u", d->port);
	case LR_DENIED_CONNECT_UNIX:
		return d->abstract ? format("connect to the abstract UNIX socket @%s", asked)
				   : format("connect to the UNIX socket %s", asked);
	case LR_DENIED_CALL:
		return call_what(d);
	case LR_DENIED_RENAME:
		return format("rename %s to %s", asked,
			      d->asked2 ? d->asked2 : d->path2 ? d->path2 : "?");
	default:
		return format("%s %s", verbs[d->op], asked);
	}
}

/* Append TEXT to B, after SEP when B holds something already. */
static int buf_item(struct lr_buf *b, const char *sep, const char *text, const char *text2)
{
	int r = b->len ? lr_buf_add(b, sep, strlen(sep)) : 0;

	if (r == 0)
		r = lr_buf_add(b, text, strlen(text));
	if (r == 0 && text2)
		r = lr_buf_add(b, text2, strlen(text2));
	return r;
}

char *lr_learn_home_line(char *const *missing, size_t n, unsigned long total, const bool *yours,
			 const char *home)
{
	struct lr_buf looked = { 0 }, flags = { 0 };
	_cleanup_free_ char *head = NULL;
	size_t shown = 0, mine = 0;
	char *line = NULL, *escaped;
	int r = 0;

	/* those the caller's HOME has first, then a few others */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; r == 0 && i < n; i++) {
			bool has = yours[i] && home;

			if (pass == 0 && has) {
				r = buf_item(&flags, ",", home, missing[i] + 1);
				mine++;
			}
			if (r == 0 && (pass == 0) == has && (has || shown < 3)) {
				r = buf_item(&looked, ", ", missing[i], NULL);
				shown++;
			}
		}
	if (r == 0 && !looked.s)
		return NULL; /* nothing looked for */
	if (r == 0 && total > shown)
		head = format("HOME is a new, empty directory (private-home): the command looked "
			      "there for %s and %lu more, and found nothing",
			      looked.s, total - shown);
	else if (r == 0)
		head = format("HOME is a new, empty directory (private-home): the command looked "
			      "there for %s, and found nothing",
			      looked.s);
	if (head && mine)
		line = format("%s; your HOME has %s: --env HOME --ro %s gives it yours (or "
			      "--env HOME=DIR --rw DIR, a HOME of its own that stays)",
			      head, mine == 1 ? "it" : "them", flags.s ? flags.s : "");
	else if (head)
		line = format("%s (nor would it in yours; --env HOME=DIR --rw DIR gives it a "
			      "HOME of its own that stays)",
			      head);
	free(looked.s);
	free(flags.s);
	if (!line)
		return NULL;
	escaped = lr_escape_dup(line);
	free(line);
	return escaped;
}

size_t lr_learn_report_order(const struct lr_denials *denials, const bool *is_probe,
			     bool failed, size_t *order)
{
	size_t n = 0, last = SIZE_MAX;

	for (size_t i = 0; i < denials->n; i++)
		if (!is_probe[i] && (last == SIZE_MAX || denials->v[i].last > denials->v[last].last))
			last = i;
	if (failed && last != SIZE_MAX)
		order[n++] = last;
	for (size_t i = 0; i < denials->n; i++)
		if (!is_probe[i] && !(failed && i == last))
			order[n++] = i;
	for (size_t i = 0, k = n; i < denials->n; i++)
		if (is_probe[i])
			order[k++] = i;
	return n;
}

char *lr_learn_report_line(const struct lr_denial *d, const struct lr_advice *a)
{
	_cleanup_free_ char *what = lr_denial_what(d), *where = NULL, *times = NULL;
	_cleanup_free_ char *tail = NULL, *line = NULL;
	bool show_path = d->path && d->asked && strcmp(d->path, d->asked) != 0 &&
			 d->op != LR_DENIED_CALL;

	if (!what)
		return NULL;
	where = show_path ? format("%s, ", d->path) : strdup("");
	times = d->count > 1 ? format(", %lu times", d->count) : strdup("");
	if (a->kind == LR_ADVICE_GRANT)
		tail = format(" -> %s%s%s--%s %s%s%s%s", a->mkdir ? "--mkdir " : "",
			      a->mkdir ? a->value : "", a->mkdir ? " " : "", a->key, a->value,
			      a->note ? " (" : "", a->note ? a->note : "", a->note ? ")" : "");
	else
		tail = format(": %s", a->note);
	if (!where || !times || !tail)
		return NULL;
	/* paths and the process's name are the command's: shown escaped */
	line = format("denied %s (%sby %.*s, pid %d%s)%s", what, where, (int)sizeof(d->comm),
		      d->comm[0] ? d->comm : "?", (int)d->pid, times, tail);
	return line ? lr_escape_dup(line) : NULL;
}

/* --------------------------------------------------------- the --learn file */

static const char *const header[] = {
	"# landrun --learn: what would have allowed what the command was denied.",
	"# Review every line; then: landrun --config FILE [the same options] -- COMMAND",
	"# (a line without \"# denied\" just above it is yours: kept as it is)",
};
static const char notes_heading[] = "# Not learned (nothing below is granted):";

/* The settings --learn writes, in the order it writes them. */
static const char *const learned_keys[] = { "mkdir", "rox", "ro", "rw", "unix", "connect-tcp",
					     "bind-tcp" };

static int key_rank(const char *key)
{
	for (size_t i = 0; i < sizeof(learned_keys) / sizeof(*learned_keys); i++)
		if (strcmp(key, learned_keys[i]) == 0)
			return (int)i;
	return -1;
}

static bool is_path_key(const char *key)
{
	return strcmp(key, "rox") == 0 || strcmp(key, "ro") == 0 || strcmp(key, "rw") == 0;
}

static void entry_free(struct lr_learned_entry *e)
{
	free(e->key);
	free(e->value);
	free(e->what);
}

void lr_learned_free(struct lr_learned *l)
{
	for (size_t i = 0; i < l->n; i++)
		entry_free(&l->v[i]);
	free(l->v);
	lr_strlist_free(&l->lines);
	memset(l, 0, sizeof(*l));
}

size_t lr_learned_count(const struct lr_learned *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].key != NULL;
	return n;
}

/* Take KEY, VALUE and WHAT (any may be NULL on failure) into a new entry. */
static int push_entry(struct lr_learned *l, char *key, char *value, char *what,
		      unsigned long count)
{
	struct lr_learned_entry *e;

	if (!what || (key && !value)) {
		free(key);
		free(value);
		free(what);
		return -ENOMEM;
	}
	e = lr_array_push(&l->v, &l->n, sizeof(*e));
	if (!e) {
		free(key);
		free(value);
		free(what);
		return -ENOMEM;
	}
	e->key = key;
	e->value = value;
	e->what = what;
	e->count = count;
	return 0;
}

/* "# denied N time(s): WHAT" */
static bool parse_denied(const char *line, unsigned long *count, const char **what)
{
	char *end;

	if (strncmp(line, "# denied ", 9) != 0 || !isdigit((unsigned char)line[9]))
		return false;
	*count = strtoul(line + 9, &end, 10);
	if (strncmp(end, " time: ", 7) == 0)
		*what = end + 7;
	else if (strncmp(end, " times: ", 8) == 0)
		*what = end + 8;
	else
		return false;
	return **what != '\0';
}

/* "KEY = VALUE" with a key --learn writes, and a value that reads back as it
 * is, as the policy reader takes the line.  1 yes, 0 no, -ENOMEM. */
static int parse_setting(const char *line, char **key, char **value)
{
	int r = lr_config_parse_line(line, key, value);

	if (r == 1 && key_rank(*key) >= 0 && writable_value(*key, *value))
		return 1;
	if (r == 1) {
		free(*key);
		free(*value);
	}
	*key = *value = NULL;
	return r == -ENOMEM ? -ENOMEM : 0;
}

static bool is_header(const char *line)
{
	for (size_t i = 0; i < sizeof(header) / sizeof(*header); i++)
		if (strcmp(line, header[i]) == 0)
			return true;
	return strcmp(line, notes_heading) == 0;
}

static bool blank(const char *line)
{
	while (isspace((unsigned char)*line))
		line++;
	return *line == '\0';
}

int lr_learned_parse(const char *text, size_t len, struct lr_learned *l)
{
	struct lr_strlist lines = { 0 };
	const char *p = text, *end = text + len;
	int r = 0;

	memset(l, 0, sizeof(*l));
	while (p < end && r == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (lr_config_line_problem(p, n, l->bad, sizeof(l->bad))) {
			l->bad_line = lines.n + 1;
			lr_strlist_free(&lines);
			return -EINVAL;
		}
		r = lr_strlist_take(&lines, strndup(p, n));
		p += n + 1;
	}
	for (size_t i = 0; r == 0 && i < lines.n; i++) {
		const char *line = lines.v[i], *what;
		unsigned long count;
		char *key, *value;

		if (is_header(line) || blank(line))
			continue;
		if (parse_denied(line, &count, &what)) {
			int s = i + 1 < lines.n ? parse_setting(lines.v[i + 1], &key, &value) : 0;
			bool made = false;

			/* "mkdir = DIR" and "rw = DIR" after it: one entry */
			if (s == 1 && strcmp(key, "mkdir") == 0 && i + 2 < lines.n) {
				char *key2, *value2;
				int s2 = parse_setting(lines.v[i + 2], &key2, &value2);

				if (s2 < 0) {
					free(key);
					free(value);
					r = s2;
					break;
				}
				if (s2 && strcmp(key2, "rw") == 0 && strcmp(value2, value) == 0) {
					free(key);
					free(value);
					key = key2;
					value = value2;
					made = true;
					i++;
				} else if (s2) {
					free(key2);
					free(value2);
				}
			}
			if (s < 0) {
				r = s;
			} else if (s) {
				r = push_entry(l, key, value, strdup(what), count);
				if (r == 0)
					l->v[l->n - 1].mkdir = made;
				i++;
			} else {
				r = push_entry(l, NULL, NULL, strdup(what), count);
			}
			continue;
		}
		r = lr_strlist_add(&l->lines, line);
	}
	lr_strlist_free(&lines);
	if (r < 0)
		lr_learned_free(l);
	return r;
}

/* The verb of WHAT, its first word, for a widened entry's comment. */
static const char *verb_of(const char *key)
{
	return strcmp(key, "rox") == 0 ? "execute" : strcmp(key, "rw") == 0 ? "write" : "read";
}

int lr_learned_add(struct lr_learned *l, const struct lr_denial *d, const struct lr_advice *a)
{
	_cleanup_free_ char *what = lr_denial_what(d);
	char *text;

	if (!what)
		return -ENOMEM;
	if (a->kind == LR_ADVICE_NOTE) {
		text = comment_text(format("%s: %s", what, a->note));
		if (!text)
			return -ENOMEM;
		for (size_t i = 0; i < l->n; i++)
			if (!l->v[i].key && strcmp(l->v[i].what, text) == 0) {
				l->v[i].count += d->count;
				free(text);
				return 0;
			}
		return push_entry(l, NULL, NULL, text, d->count);
	}
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].key && strcmp(l->v[i].key, a->key) == 0 &&
		    strcmp(l->v[i].value, a->value) == 0) {
			l->v[i].count += d->count;
			l->v[i].mkdir |= a->mkdir;
			return 0;
		}
	/* what the setting is for, by what it grants: the directory an entry
	 * was made in, the interpreter of a program */
	if (strcmp(a->key, "mkdir") == 0 || a->mkdir)
		text = format("make the directory %s", a->value);
	else if (d->op == LR_DENIED_CREATE || d->op == LR_DENIED_REMOVE ||
		 d->op == LR_DENIED_RENAME)
		text = format("%s in %s", d->op == LR_DENIED_REMOVE ? "remove" : "create",
			      a->value);
	else if (d->op == LR_DENIED_EXECUTE && d->path && strcmp(a->value, d->path) != 0 &&
		 lr_path_beneath(d->path, a->value))
		text = format("execute under %s", a->value); /* its installation */
	else if (d->op == LR_DENIED_EXECUTE && d->path && strcmp(a->value, d->path) != 0)
		text = format("execute %s (the interpreter of %s)", a->value, d->path);
	else if (is_path_key(a->key))
		text = format("%s %s", d->op == LR_DENIED_LIST ? "list" : verb_of(a->key),
			      a->value);
	else
		text = strdup(what);
	if (push_entry(l, strdup(a->key), strdup(a->value), comment_text(text), d->count) < 0)
		return -ENOMEM;
	l->v[l->n - 1].mkdir = a->mkdir;
	return 0;
}

/* Does DIR hold a bin/ directory (or cannot the tracer tell)? */
static bool holds_programs(const char *dir)
{
	_cleanup_free_ char *bin = format("%s/bin", dir);
	struct stat st;

	if (!bin)
		return true; /* out of memory: not widened */
	if (lstat(bin, &st) == 0)
		return S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode);
	return errno != ENOENT && errno != ENOTDIR;
}

/* May DIR be granted (with KEY) in place of what was learned beneath it? */
static bool widenable(const char *dir, const char *key, const struct lr_learn_context *ctx)
{
	static const char *const virtual_trees[] = { "/proc", "/sys", "/dev" };
	const char *runner;

	if (dir[0] != '/' || depth(dir) < 2 || shared_by(ctx, dir) || holds_writable(ctx, dir) ||
	    named_component(ctx, dir, true, NULL) ||
	    (strcmp(key, "rw") == 0 && named_component(ctx, dir, false, &runner)) ||
	    !writable_value(key, dir))
		return false;
	for (size_t i = 0; i < sizeof(virtual_trees) / sizeof(*virtual_trees); i++)
		if (lr_path_beneath(dir, virtual_trees[i]))
			return false;
	/* an installation (~/.cargo, with bin/ on the caller's PATH): written
	 * whole, its programs would be the command's, run outside the sandbox */
	if (strcmp(key, "rw") == 0 && holds_programs(dir))
		return false;
	return true;
}

/* Replace the entries of KEY beneath DIR with one for DIR. */
static int merge_into(struct lr_learned *l, const char *key_of, const char *dir)
{
	_cleanup_free_ char *key = strdup(key_of);
	unsigned long count = 0;
	size_t kept = 0;
	bool made = false;

	if (!key)
		return -ENOMEM;

	for (size_t i = 0; i < l->n; i++) {
		struct lr_learned_entry *e = &l->v[i];

		if (e->key && strcmp(e->key, key) == 0 && lr_path_beneath(e->value, dir)) {
			count += e->count;
			made |= e->mkdir && strcmp(e->value, dir) == 0;
			entry_free(e);
			continue;
		}
		l->v[kept++] = *e;
	}
	l->n = kept;
	if (push_entry(l, strdup(key), strdup(dir),
		       comment_text(format("%s under %s", verb_of(key), dir)), count) < 0)
		return -ENOMEM;
	l->v[l->n - 1].mkdir = made;
	return 0;
}

/* A directory E to make above one O made too: --mkdir makes the parents. */
static bool made_above(const struct lr_learned_entry *e, const struct lr_learned_entry *o)
{
	return strcmp(e->key, "mkdir") == 0 && (o->mkdir || strcmp(o->key, "mkdir") == 0) &&
	       strcmp(o->value, e->value) != 0 && lr_path_beneath(o->value, e->value);
}

/* What read-only E would add beside an entry O that reads it too. */
static bool read_beside(const struct lr_learned_entry *e, const struct lr_learned_entry *o)
{
	return strcmp(e->key, "ro") == 0 &&
	       (strcmp(o->key, "rox") == 0 || strcmp(o->key, "rw") == 0) &&
	       lr_path_beneath(e->value, o->value);
}

/* Each setting that another COVERS is dropped, its count added to that one's. */
static void absorb(struct lr_learned *l,
		   bool (*covers)(const struct lr_learned_entry *e, const struct lr_learned_entry *o))
{
	for (size_t i = 0; i < l->n; i++) {
		struct lr_learned_entry *e = &l->v[i];

		if (!e->key)
			continue;
		for (size_t j = 0; j < l->n; j++) {
			struct lr_learned_entry *o = &l->v[j];

			if (j == i || !o->key || !covers(e, o))
				continue;
			o->count += e->count;
			entry_free(e);
			l->v[i] = l->v[--l->n];
			i--;
			break;
		}
	}
}

static int cmp_depth_desc(const void *a, const void *b)
{
	const struct lr_learned_entry *x = a, *y = b;
	unsigned dx = x->key ? depth(x->value) : 0, dy = y->key ? depth(y->value) : 0;

	return (dx < dy) - (dx > dy);
}

int lr_learned_widen(struct lr_learned *l, const struct lr_learn_context *ctx)
{
	bool changed = true;

	while (changed) {
		changed = false;
		if (l->n > 1) /* qsort(NULL, 0, ...) is undefined */
			qsort(l->v, l->n, sizeof(*l->v), cmp_depth_desc);
		for (size_t i = 0; i < l->n && !changed; i++) {
			struct lr_learned_entry *e = &l->v[i];
			_cleanup_free_ char *dir = NULL;
			bool other = false;

			if (!e->key || !is_path_key(e->key))
				continue;
			dir = parent_of(e->value);
			if (!dir)
				return -ENOMEM;
			if (!widenable(dir, e->key, ctx))
				continue;
			for (size_t j = 0; j < l->n && !other; j++)
				other = j != i && l->v[j].key && strcmp(l->v[j].key, e->key) == 0 &&
					lr_path_beneath(l->v[j].value, dir);
			if (!other)
				continue;
			if (merge_into(l, e->key, dir) < 0)
				return -ENOMEM;
			changed = true;
		}
	}
	absorb(l, made_above);
	absorb(l, read_beside);
	return 0;
}

static int cmp_entries(const void *a, const void *b)
{
	const struct lr_learned_entry *x = a, *y = b;
	int rx, ry;

	if (!x->key || !y->key)
		return (x->key == NULL) - (y->key == NULL);
	rx = key_rank(x->key);
	ry = key_rank(y->key);
	if (rx != ry)
		return rx - ry;
	if (!is_path_key(x->key) && strcmp(x->key, "unix") != 0 && strcmp(x->key, "mkdir") != 0) {
		unsigned long px = strtoul(x->value, NULL, 10), py = strtoul(y->value, NULL, 10);

		return (px > py) - (px < py);
	}
	return strcmp(x->value, y->value);
}

static void denied_comment(FILE *out, const struct lr_learned_entry *e)
{
	fprintf(out, "# denied %lu time%s: %s\n", e->count, e->count == 1 ? "" : "s", e->what);
}

char *lr_learned_render(const struct lr_learned *l, const char *include)
{
	struct lr_learned_entry *v = l->n ? malloc(l->n * sizeof(*v)) : NULL;
	char *buf = NULL, inc[512];
	bool notes = false, has_include = false;
	size_t len;
	FILE *out;

	if (l->n && !v)
		return NULL;
	out = open_memstream(&buf, &len);
	if (!out) {
		free(v);
		return NULL;
	}
	if (l->n)
		memcpy(v, l->v, l->n * sizeof(*v));
	if (l->n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(v, l->n, sizeof(*v), cmp_entries);
	for (size_t i = 0; i < sizeof(header) / sizeof(*header); i++)
		fprintf(out, "%s\n", header[i]);
	if (include) {
		snprintf(inc, sizeof(inc), "include = %s", include);
		for (size_t i = 0; i < l->lines.n && !has_include; i++)
			has_include = strcmp(l->lines.v[i], inc) == 0;
		if (!has_include)
			fprintf(out, "%s\n", inc);
	}
	for (size_t i = 0; i < l->lines.n; i++)
		fprintf(out, "%s\n", l->lines.v[i]);
	for (size_t i = 0; i < l->n; i++) {
		if (!v[i].key) {
			notes = true;
			continue;
		}
		fputc('\n', out);
		denied_comment(out, &v[i]);
		if (v[i].mkdir)
			fprintf(out, "mkdir = %s\n", v[i].value);
		fprintf(out, "%s = %s\n", v[i].key, v[i].value);
	}
	if (notes)
		fprintf(out, "\n%s\n", notes_heading);
	for (size_t i = 0; i < l->n; i++)
		if (!v[i].key)
			denied_comment(out, &v[i]);
	free(v);
	if (ferror(out) | fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The --learn file larger than this is not merged (nor rewritten). */
#define LEARNED_MAX (1 << 20)

int lr_learn_file_update(int fd, const struct lr_denials *denials,
			 const struct lr_learn_context *ctx, size_t *settings)
{
	struct lr_learned l = { 0 };
	_cleanup_free_ char *text = NULL, *out = NULL;
	struct stat st;
	size_t len = 0, n;
	ssize_t got;
	int r;

	if (flock(fd, LOCK_EX) < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto unlock;
	}
	if (st.st_size > LEARNED_MAX) {
		r = -EFBIG;
		goto unlock;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		r = -ENOMEM;
		goto unlock;
	}
	while (len < (size_t)st.st_size &&
	       (got = pread(fd, text + len, (size_t)st.st_size - len, (off_t)len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto unlock;
		}
		len += (size_t)got;
	}
	r = lr_learned_parse(text, len, &l);
	if (r == -EINVAL)
		lr_warn("--learn %s:%zu: %s: not merged, left as it is", ctx->path ? ctx->path : "",
			l.bad_line, l.bad);
	for (size_t i = 0; r == 0 && i < denials->n; i++) {
		struct lr_advice a;

		r = lr_learn_advise(&denials->v[i], ctx, &a);
		if (r == 0)
			r = lr_learned_add(&l, &denials->v[i], &a);
		lr_advice_free(&a);
	}
	if (r == 0)
		r = lr_learned_widen(&l, ctx);
	if (r == 0 && !(out = lr_learned_render(&l, ctx->profile)))
		r = -ENOMEM;
	if (r < 0)
		goto unlock;
	n = strlen(out);
	for (size_t done = 0; done < n;) {
		got = pwrite(fd, out + done, n - done, (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r = got < 0 ? -errno : -EIO;
			goto unlock;
		}
		done += (size_t)got;
	}
	if (ftruncate(fd, (off_t)n) < 0)
		r = -errno;
	*settings = lr_learned_count(&l);
unlock:
	lr_learned_free(&l);
	flock(fd, LOCK_UN);
	return r;
}
