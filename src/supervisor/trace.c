/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "landrun/lib/elf.h"
#include "landrun/lib/error.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/trace.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

#define OPTIONS                                                                          \
	(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |             \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

/* The registers of a stopped tracee: the arguments, and the return value. */
#if defined(__x86_64__)
typedef struct user_regs_struct regs_t;
#define REG_ARG(r, i)                                                                       \
	((i) == 0 ? (r).rdi : (i) == 1 ? (r).rsi : (i) == 2 ? (r).rdx : (i) == 3 ? (r).r10 \
	 : (i) == 4 ? (r).r8 : (r).r9)
#define REG_RET(r) ((r).rax)
#define ARCH_OK 1
#elif defined(__aarch64__)
#include <asm/ptrace.h>
typedef struct user_pt_regs regs_t;
#define REG_ARG(r, i) ((r).regs[i])
#define REG_RET(r) ((r).regs[0])
#define ARCH_OK 1
#else
typedef struct {
	unsigned long unused;
} regs_t;
#define REG_ARG(r, i) 0
#define REG_RET(r) ((r).unused)
#define ARCH_OK 0
#endif

int lr_trace_attach(struct lr_tracer *t, pid_t child, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->child = child;
	if (!ARCH_OK) {
		lr_errf(err, errlen, "--report-denials: not supported on this architecture");
		return -ENOTSUP;
	}
	if (ptrace(PTRACE_SEIZE, child, 0, OPTIONS) < 0) {
		int e = errno;

		lr_errf(err, errlen, "--report-denials: cannot trace the command: %s%s",
			strerror(e),
			e == EPERM ? " (is ptrace restricted: kernel.yama.ptrace_scope, or a "
				     "container's seccomp profile?)"
				   : "");
		return -e;
	}
	return 0;
}

void lr_trace_free(struct lr_tracer *t)
{
	lr_denials_free(&t->denials);
	lr_strlist_free(&t->home_missing);
	free(t->pending);
	t->pending = NULL;
	t->n_pending = 0;
}

static void resume(pid_t pid, int sig)
{
	ptrace(PTRACE_CONT, pid, 0, sig);
}

/* ------------------------------------------------------------ the pending */

static struct lr_trace_pending *pending(struct lr_tracer *t, pid_t tid)
{
	for (size_t i = 0; i < t->n_pending; i++)
		if (t->pending[i].tid == tid)
			return &t->pending[i];
	return NULL;
}

static void forget(struct lr_tracer *t, pid_t tid)
{
	struct lr_trace_pending *p = pending(t, tid);

	if (p)
		*p = t->pending[--t->n_pending];
}

/* --------------------------------------------------- reading the command */

/* LEN bytes of TID's memory at ADDR (aligned reads, so that none crosses
 * into a page the string does not reach).  0, or -errno. */
static int peek(pid_t tid, uint64_t addr, void *buf, size_t len, bool to_nul)
{
	uint64_t start = addr & ~(uint64_t)(sizeof(long) - 1);
	size_t skip = (size_t)(addr - start), done = 0;

	while (done < len) {
		unsigned char word[sizeof(long)];
		long w;
		size_t n;

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)start, 0);
		if (errno)
			return -errno;
		memcpy(word, &w, sizeof(w));
		n = sizeof(word) - skip < len - done ? sizeof(word) - skip : len - done;
		memcpy((char *)buf + done, word + skip, n);
		if (to_nul && memchr(word + skip, '\0', n))
			return 0;
		done += n;
		start += sizeof(long);
		skip = 0;
	}
	return to_nul ? -ENAMETOOLONG : 0;
}

static char *peek_string(pid_t tid, uint64_t addr)
{
	char buf[PATH_MAX];

	if (!addr || peek(tid, addr, buf, sizeof(buf), true) < 0)
		return NULL;
	return strdup(buf);
}

/* The first line of a small /proc file of TID, or "" */
static void proc_read(pid_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

static pid_t tgid_of(pid_t tid)
{
	char buf[2048], *p;

	proc_read(tid, "status", buf, sizeof(buf));
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)strtol(p + 6, NULL, 10) : tid;
}

/*
 * The path the tracer resolves for what TID named: ASKED, relative to its
 * DIRFD (AT_FDCWD: its working directory), through /proc.  /proc/self is
 * the command's, not the tracer's.
 */
static char *full_path(pid_t tid, pid_t tgid, int dirfd, const char *asked)
{
	char base[64], *s;

	if (asked[0] == '/') {
		if (strncmp(asked, "/proc/self", 10) == 0 && (!asked[10] || asked[10] == '/'))
			return asprintf(&s, "/proc/%d%s", (int)tgid, asked + 10) < 0 ? NULL : s;
		if (strncmp(asked, "/proc/thread-self", 17) == 0 &&
		    (!asked[17] || asked[17] == '/')) {
			if (asprintf(&s, "/proc/%d/task/%d%s", (int)tgid, (int)tid, asked + 17) < 0)
				return NULL;
			return s;
		}
		return strdup(asked);
	}
	if (dirfd == AT_FDCWD)
		snprintf(base, sizeof(base), "/proc/%d/cwd", (int)tid);
	else
		snprintf(base, sizeof(base), "/proc/%d/fd/%d", (int)tid, dirfd);
	if (!*asked)
		return strdup(base);
	return asprintf(&s, "%s/%s", base, asked) < 0 ? NULL : s;
}

/* FULL, canonical: followed to the end (FOLLOW), or the entry itself: its
 * directory canonical, and its name (also for one that does not exist). */
static char *canonical(const char *full, bool follow)
{
	_cleanup_free_ char *copy = NULL, *dir = NULL;
	char *slash, *name, *s;
	size_t n;

	if (!full)
		return NULL;
	if (follow && (s = realpath(full, NULL)))
		return s;
	copy = strdup(full);
	if (!copy)
		return NULL;
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	slash = strrchr(copy, '/');
	if (!slash)
		return NULL;
	name = slash + 1;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return realpath(copy, NULL);
	*slash = '\0';
	dir = realpath(*copy ? copy : "/", NULL);
	if (!dir)
		return NULL;
	return asprintf(&s, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) < 0 ? NULL : s;
}

/*
 * PATH, resolved by the tracer: a symlink to "self" (/proc/mounts) named
 * the tracer's own /proc entry, which stands for TGID's (TID's for the
 * thread).  ASKED naming the tracer outright is left as it is.
 */
static char *as_command(char *path, const char *asked, pid_t tgid, pid_t tid)
{
	char mine[32], *s;
	size_t n;

	if (!path)
		return NULL;
	n = (size_t)snprintf(mine, sizeof(mine), "/proc/%d", (int)getpid());
	if (strncmp(path, mine, n) != 0 || (path[n] && path[n] != '/') ||
	    (asked && strncmp(asked, mine, n) == 0))
		return path;
	if (strncmp(path + n, "/task/", 6) == 0 &&
	    strtol(path + n + 6, &s, 10) == (long)getpid() && (*s == '/' || !*s)) {
		if (asprintf(&s, "/proc/%d/task/%d%s", (int)tgid, (int)tid, s) < 0)
			s = NULL;
	} else if (asprintf(&s, "/proc/%d%s", (int)tgid, path + n) < 0) {
		s = NULL;
	}
	free(path);
	return s;
}

/* Do the file permissions alone allow MODE on PATH (the tracer has the
 * command's ids, and no capability either)?  When it cannot tell: yes. */
static bool dac_allows(const char *path, int mode)
{
	return !path || faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ||
	       (errno != EACCES && errno != EPERM);
}

static bool dir_allows(const char *entry)
{
	_cleanup_free_ char *dir = NULL;
	const char *slash = entry ? strrchr(entry, '/') : NULL;

	if (!slash)
		return true;
	dir = slash == entry ? strdup("/") : strndup(entry, (size_t)(slash - entry));
	return dac_allows(dir, W_OK | X_OK);
}

static void record(struct lr_tracer *t, pid_t tid, pid_t tgid, struct lr_denial *d)
{
	struct timespec now;
	char comm[32];

	proc_read(tid, "comm", comm, sizeof(comm));
	comm[strcspn(comm, "\n")] = '\0';
	comm[sizeof(d->comm) - 1] = '\0';
	memcpy(d->comm, comm, sizeof(d->comm));
	d->pid = tgid;
	d->main = tgid == t->child;
	/* the same clock as the broker's, for the order of the report */
	if (clock_gettime(CLOCK_MONOTONIC, &now) == 0)
		d->last = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	if (lr_denials_add(&t->denials, d) < 0 && !t->error)
		t->error = -ENOMEM;
}

/* ------------------------------------------------- the calls Landlock sees */

enum kind { OPEN, OPEN2, CREAT, EXEC, TRUNCATE, FTRUNCATE, MAKE, REMOVE, RENAME, SOCKET };

/* Where each traced call keeps its paths: -1 none, AT_FDCWD for DIRFD. */
static const struct call {
	const char *name;
	enum kind kind;
	int dirfd, path, dirfd2, path2, flags;
} calls[] = {
	{ "open", OPEN, -1, 0, -1, -1, 1 },
	{ "openat", OPEN, 0, 1, -1, -1, 2 },
	{ "openat2", OPEN2, 0, 1, -1, -1, 2 },
	{ "creat", CREAT, -1, 0, -1, -1, -1 },
	{ "execve", EXEC, -1, 0, -1, -1, -1 },
	{ "execveat", EXEC, 0, 1, -1, -1, -1 },
	{ "truncate", TRUNCATE, -1, 0, -1, -1, -1 },
	{ "ftruncate", FTRUNCATE, -1, -1, -1, -1, -1 },
	{ "mkdir", MAKE, -1, 0, -1, -1, -1 },
	{ "mkdirat", MAKE, 0, 1, -1, -1, -1 },
	{ "mknod", MAKE, -1, 0, -1, -1, -1 },
	{ "mknodat", MAKE, 0, 1, -1, -1, -1 },
	{ "symlink", MAKE, -1, 1, -1, -1, -1 },
	{ "symlinkat", MAKE, 1, 2, -1, -1, -1 },
	{ "link", MAKE, -1, 1, -1, -1, -1 },
	{ "linkat", MAKE, 2, 3, -1, -1, -1 },
	{ "rename", RENAME, -1, 0, -1, 1, -1 },
	{ "renameat", RENAME, 0, 1, 2, 3, -1 },
	{ "renameat2", RENAME, 0, 1, 2, 3, -1 },
	{ "unlink", REMOVE, -1, 0, -1, -1, -1 },
	{ "unlinkat", REMOVE, 0, 1, -1, -1, -1 },
	{ "rmdir", REMOVE, -1, 0, -1, -1, -1 },
	{ "connect", SOCKET, -1, -1, -1, -1, -1 },
	{ "bind", SOCKET, -1, -1, -1, -1, -1 },
};

static const struct call *find_call(long nr)
{
	const char *name = lr_seccomp_call_name(nr);

	for (size_t i = 0; name && i < sizeof(calls) / sizeof(*calls); i++)
		if (strcmp(calls[i].name, name) == 0)
			return &calls[i];
	return NULL;
}

static int dirfd_of(const struct lr_trace_pending *p, int arg)
{
	return arg < 0 ? AT_FDCWD : (int)(int32_t)p->args[arg];
}

/* The asked path of argument ARG, and where the tracer finds it. */
static char *asked_at(const struct lr_trace_pending *p, int arg)
{
	return arg < 0 ? NULL : peek_string(p->tid, p->args[arg]);
}

/* An open: read, list, write (truncate too) or create. */
static void decode_open(struct lr_denial *d, const char *full, uint64_t flags)
{
	struct stat st;
	bool exists;

	d->path = canonical(full, !(flags & O_NOFOLLOW));
	exists = d->path && stat(d->path, &st) == 0;
	if ((flags & __O_TMPFILE) == __O_TMPFILE) {
		char *entry;

		d->op = LR_DENIED_CREATE;
		if (d->path && asprintf(&entry, "%s/(a temporary file)", d->path) >= 0) {
			free(d->path);
			d->path = entry;
		}
	} else if ((flags & O_CREAT) && !exists) {
		d->op = LR_DENIED_CREATE;
		free(d->path);
		d->path = canonical(full, false);
	} else if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)) {
		d->op = LR_DENIED_WRITE;
	} else {
		d->op = exists && S_ISDIR(st.st_mode) ? LR_DENIED_LIST : LR_DENIED_READ;
	}
}

/* Was the denial the file permissions' own doing (not the sandbox's)? */
static bool dac_denial(const struct lr_denial *d)
{
	switch (d->op) {
	case LR_DENIED_READ:
	case LR_DENIED_LIST:
		return !dac_allows(d->path, R_OK);
	case LR_DENIED_WRITE:
	case LR_DENIED_TRUNCATE:
		return !dac_allows(d->path, W_OK);
	case LR_DENIED_CREATE:
	case LR_DENIED_REMOVE:
		return !dir_allows(d->path);
	case LR_DENIED_RENAME:
		return !dir_allows(d->path) || !dir_allows(d->path2);
	case LR_DENIED_EXECUTE:
		if (!dac_allows(d->path, X_OK))
			return true;
		for (size_t i = 0; i < d->interps.n; i++)
			if (!dac_allows(d->interps.v[i], X_OK))
				return true;
		return false;
	case LR_DENIED_CONNECT_UNIX:
		return !d->abstract && !dac_allows(d->path, W_OK);
	default:
		return false;
	}
}

/* connect, bind: the address, from the command's memory. */
static bool decode_socket(struct lr_denial *d, const struct lr_trace_pending *p, pid_t tgid,
			  bool is_bind, int err)
{
	struct sockaddr_storage sa;
	size_t len = (size_t)p->args[2];
	int family;

	memset(&sa, 0, sizeof(sa));
	if (len < sizeof(sa_family_t))
		return false;
	if (len > sizeof(struct sockaddr_un))
		len = sizeof(struct sockaddr_un);
	if (peek(p->tid, p->args[1], &sa, len, false) < 0)
		return false;
	family = sa.ss_family;
	if ((family == AF_INET || family == AF_INET6) && err == EACCES) {
		/* sin_port and sin6_port are at the same place */
		d->op = is_bind ? LR_DENIED_BIND_TCP : LR_DENIED_CONNECT_TCP;
		d->port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
		return true;
	}
	if (family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path)) {
		struct sockaddr_un *un = (struct sockaddr_un *)&sa;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);
		_cleanup_free_ char *full = NULL;

		if (un->sun_path[0] == '\0') {
			/* abstract: its name, with what cannot be shown as '?' */
			d->op = LR_DENIED_CONNECT_UNIX;
			d->abstract = true;
			d->asked = strndup(un->sun_path + 1, n - 1);
			for (char *c = d->asked; c && *c; c++)
				if ((unsigned char)*c < 0x20)
					*c = '?';
			return !is_bind && d->asked;
		}
		if (err != EACCES)
			return false;
		d->asked = strndup(un->sun_path, strnlen(un->sun_path, n));
		full = d->asked ? full_path(p->tid, tgid, AT_FDCWD, d->asked) : NULL;
		d->op = is_bind ? LR_DENIED_CREATE : LR_DENIED_CONNECT_UNIX;
		d->path = canonical(full, !is_bind);
		return d->asked != NULL;
	}
	return false;
}

/*
 * PATH, beneath the command's private HOME (privdir.h: made by the command's
 * process, landrun's child, as /tmp/landrun.PID.XXXXXX/home), and one that
 * a user's HOME may hold: "~/REST", or NULL.
 */
static char *in_private_home(const struct lr_tracer *t, const char *path)
{
	char prefix[64], *s;
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "/tmp/landrun.%d.", (int)t->child);
	const char *rest;

	if (!path || strncmp(path, prefix, n) != 0 || strlen(path) < n + 6 ||
	    strncmp(path + n + 6, "/home/", 6) != 0)
		return NULL;
	rest = path + n + 12;
	if (!*rest || strstr(rest, "/../") || strncmp(rest, "../", 3) == 0)
		return NULL;
	/* what a user keeps there: ~/.NAME, and beneath ~/.config, ~/.local
	 * (not a tool's own tree, ~/.npm/_cacache/..., nor a cache) */
	if (strchr(rest, '/') && strncmp(rest, ".config/", 8) != 0 &&
	    strncmp(rest, ".local/share/", 13) != 0 && strncmp(rest, ".local/state/", 13) != 0)
		return NULL;
	return asprintf(&s, "~/%s", rest) < 0 ? NULL : s;
}

/* An open of TID's that found nothing (ENOENT): kept if it looked in the
 * private HOME (by an absolute path, as $HOME/... is). */
static void not_found(struct lr_tracer *t, const struct lr_trace_pending *p,
		      const struct call *c)
{
	_cleanup_free_ char *asked = asked_at(p, c->path);
	char *rel;
	uint64_t flags = 0;

	if (c->kind == OPEN2)
		peek(p->tid, p->args[2], &flags, sizeof(flags), false);
	else
		flags = p->args[c->flags];
	if ((flags & O_CREAT) || !asked || asked[0] != '/' || !(rel = in_private_home(t, asked)))
		return;
	if (lr_strlist_contains(&t->home_missing, rel)) {
		free(rel);
		return;
	}
	t->n_home_missing++;
	if (t->home_missing.n >= LR_TRACE_HOME_MAX) {
		free(rel);
		return;
	}
	if (lr_strlist_take(&t->home_missing, rel) < 0 && !t->error)
		t->error = -ENOMEM;
}

/* ftruncate: the file of its descriptor, by the command's /proc; false
 * when it names none (a pipe, a socket, or it is gone). */
static bool decode_ftruncate(struct lr_denial *d, const struct lr_trace_pending *p)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)p->tid, (int)p->args[0]);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return false;
	target[n] = '\0';
	d->op = LR_DENIED_TRUNCATE;
	d->path = canonical(target, true);
	return true;
}

/*
 * What the call C of P (of the thread group TGID) that failed with ERR was
 * denied, into D: FULL is its path (D->asked) from the tracer's side.  1 to
 * be kept, 0 not, and -1 when there is nothing to tell (D holds nothing).
 */
static int decode_call(struct lr_denial *d, const struct lr_trace_pending *p, const struct call *c,
		       pid_t tgid, const char *full, int err)
{
	_cleanup_free_ char *full2 = NULL;

	switch (c->kind) {
	case OPEN:
		decode_open(d, full, p->args[c->flags]);
		break;
	case OPEN2: {
		uint64_t flags = 0;

		peek(p->tid, p->args[2], &flags, sizeof(flags), false);
		decode_open(d, full, flags);
		break;
	}
	case CREAT:
		decode_open(d, full, O_CREAT | O_WRONLY | O_TRUNC);
		break;
	case EXEC:
		d->op = LR_DENIED_EXECUTE;
		d->path = canonical(full, true);
		if (d->path)
			lr_elf_interpreters(d->path, &d->interps);
		break;
	case TRUNCATE:
		d->op = LR_DENIED_TRUNCATE;
		d->path = canonical(full, true);
		break;
	case FTRUNCATE:
		if (!decode_ftruncate(d, p))
			return -1;
		break;
	case MAKE:
		d->op = LR_DENIED_CREATE;
		d->path = canonical(full, false);
		d->dir = strcmp(c->name, "mkdir") == 0 || strcmp(c->name, "mkdirat") == 0;
		break;
	case REMOVE:
		d->op = LR_DENIED_REMOVE;
		d->path = canonical(full, false);
		break;
	case RENAME:
		d->op = LR_DENIED_RENAME;
		d->path = canonical(full, false);
		d->asked2 = asked_at(p, c->path2);
		full2 = d->asked2 ? full_path(p->tid, tgid, dirfd_of(p, c->dirfd2), d->asked2)
				  : NULL;
		d->path2 = canonical(full2, false);
		break;
	case SOCKET:
		return decode_socket(d, p, tgid, strcmp(c->name, "bind") == 0, err);
	}
	return 1;
}

/* A traced call of TID failed with ERR: what was denied, if the sandbox did. */
static void decode(struct lr_tracer *t, const struct lr_trace_pending *p, int err)
{
	const struct call *c = find_call(p->nr);
	_cleanup_free_ char *full = NULL;
	struct lr_denial d = { 0 };
	pid_t tgid;
	int keep;

	if (c && err == ENOENT && (c->kind == OPEN || c->kind == OPEN2)) {
		not_found(t, p, c);
		return;
	}
	if (!c || (err != EACCES && !(c->kind == SOCKET && err == EPERM)))
		return;
	tgid = tgid_of(p->tid);
	d.err = err;
	d.asked = asked_at(p, c->path);
	if (c->path >= 0 && !d.asked)
		return; /* its memory is gone, or not ours to read */
	if (d.asked)
		full = full_path(p->tid, tgid, dirfd_of(p, c->dirfd), d.asked);
	keep = decode_call(&d, p, c, tgid, full, err);
	if (keep < 0)
		return;
	d.path = as_command(d.path, d.asked, tgid, p->tid);
	d.path2 = as_command(d.path2, d.asked2, tgid, p->tid);
	if (keep && !dac_denial(&d))
		record(t, p->tid, tgid, &d);
	lr_denial_free(&d);
}

int lr_trace_told(struct lr_tracer *t, const void *msg, size_t len)
{
	const struct lr_broker_told *m = msg;
	struct lr_denial d = { 0 };
	size_t n;

	if (len <= offsetof(struct lr_broker_told, path) || len > sizeof(*m) + PATH_MAX)
		return -EINVAL;
	n = len - offsetof(struct lr_broker_told, path);
	if (m->path[n - 1] != '\0' || strlen(m->path) != n - 1 || m->pid <= 0)
		return -EINVAL;
	switch (m->op) {
	case LR_DENIED_READ:
	case LR_DENIED_LIST:
	case LR_DENIED_WRITE:
	case LR_DENIED_CREATE:
	case LR_DENIED_REMOVE:
		if (m->path[0] != '/')
			return -EINVAL;
		d.path = strdup(m->path);
		d.asked = strdup(m->path);
		if (!d.path || !d.asked) {
			lr_denial_free(&d);
			return -ENOMEM;
		}
		d.dir = m->op == LR_DENIED_CREATE && m->dir;
		break;
	case LR_DENIED_CALL:
		if (m->path[0])
			return -EINVAL;
		d.nr = m->nr;
		memcpy(d.args, m->args, sizeof(d.args));
		break;
	default:
		return -EINVAL;
	}
	d.op = (enum lr_denied_op)m->op;
	d.err = m->err;
	d.pid = m->pid;
	d.main = m->pid == t->child;
	d.last = m->when;
	memcpy(d.comm, m->comm, sizeof(d.comm));
	d.comm[sizeof(d.comm) - 1] = '\0';
	return lr_denials_add(&t->denials, &d);
}

/* ------------------------------------------------------------------- stops */

static int get_info(pid_t pid, struct __ptrace_syscall_info *info)
{
	memset(info, 0, sizeof(*info));
	return ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(*info), info) <= 0 ? -1 : 0;
}

/* A traced call, before it runs: its arguments now, its result at exit. */
static void entry_stop(struct lr_tracer *t, pid_t pid)
{
	struct __ptrace_syscall_info info;
	struct lr_trace_pending *p;

	if (get_info(pid, &info) < 0 || info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		resume(pid, 0);
		return;
	}
	p = pending(t, pid);
	if (!p)
		p = lr_array_push(&t->pending, &t->n_pending, sizeof(*p));
	if (!p) {
		t->error = -ENOMEM;
		resume(pid, 0);
		return;
	}
	p->tid = pid;
	p->nr = (long)info.seccomp.nr;
	memcpy(p->args, info.seccomp.args, sizeof(p->args));
	ptrace(PTRACE_SYSCALL, pid, 0, 0);
}

static void exit_stop(struct lr_tracer *t, pid_t pid)
{
	struct __ptrace_syscall_info info;
	struct lr_trace_pending *p = pending(t, pid);

	if (p && get_info(pid, &info) == 0 && info.op == PTRACE_SYSCALL_INFO_EXIT &&
	    info.exit.is_error)
		decode(t, p, (int)-info.exit.rval);
	forget(t, pid);
	resume(pid, 0);
}

/* SIGSYS: the trap filter's, or not ours.  True if it was ours (handled). */
static bool trapped(struct lr_tracer *t, pid_t pid)
{
	struct iovec iov;
	siginfo_t si;
	regs_t regs;
	struct lr_denial d = { 0 };
	int err;

	if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0 || si.si_code != SYS_SECCOMP ||
	    ((unsigned)si.si_errno & LR_SECCOMP_TRAP_MASK) != LR_SECCOMP_TRAP_MARK)
		return false;
	err = si.si_errno & 0xff;
	iov.iov_base = &regs;
	iov.iov_len = sizeof(regs);
	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) < 0)
		return false; /* gone: the signal goes on, and nothing runs */
	d.op = LR_DENIED_CALL;
	d.nr = si.si_syscall;
	for (int i = 0; i < 6; i++)
		d.args[i] = REG_ARG(regs, i);
	d.err = err;
	/* the call did not run: it fails as the filter has it fail */
	REG_RET(regs) = (unsigned long)-(long)err;
	if (ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) < 0)
		return false;
	/* ENOSYS: a call with a fallback (clone3, io_uring), by design */
	if (err != ENOSYS)
		record(t, pid, tgid_of(pid), &d);
	resume(pid, 0);
	return true;
}

int lr_trace_stop(void *tracer, pid_t pid, int status)
{
	struct lr_tracer *t = tracer;
	unsigned long former;
	int sig, event;

	if (!WIFSTOPPED(status)) {
		forget(t, pid);
		return -1;
	}
	sig = WSTOPSIG(status);
	event = (int)((unsigned)status >> 16);
	switch (event) {
	case PTRACE_EVENT_SECCOMP:
		entry_stop(t, pid);
		return 0;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			/* a group-stop: stopped it stays, until SIGCONT */
			if (ptrace(PTRACE_LISTEN, pid, 0, 0) < 0)
				resume(pid, 0);
			return sig;
		}
		resume(pid, 0);
		return 0;
	case PTRACE_EVENT_EXEC:
		/* a thread that execs takes the leader's pid */
		if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &former) == 0)
			forget(t, (pid_t)former);
		forget(t, pid);
		resume(pid, 0);
		return 0;
	case 0:
		if (sig == (SIGTRAP | 0x80)) {
			exit_stop(t, pid);
			return 0;
		}
		if (sig == SIGSYS && trapped(t, pid))
			return 0;
		/* a signal for the command: delivered as it is */
		resume(pid, sig);
		return 0;
	default: /* fork, vfork, clone */
		resume(pid, 0);
		return 0;
	}
}
