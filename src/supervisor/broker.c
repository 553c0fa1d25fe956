/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <linux/limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/secrets.h"
#include "landrun/sandbox/exec.h"
#include "landrun/sandbox/seccomp.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/learn.h"

_Static_assert(LR_BROKER_PING_DIRFD == LR_SECCOMP_PING_DIRFD, "the witness's filters send it");

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif
/* The kernel's own O_TMPFILE bit (libc's adds O_DIRECTORY). */
#define KERNEL_O_TMPFILE 020000000

/* Rights that change names: the broker's, never the command's. */
#define NAME_RIGHTS (LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |          \
		     LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |          \
		     LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |        \
		     LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REMOVE_DIR |         \
		     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REFER)

/* ---------------------------------------------------------------- the plan */

static bool brokered_rule(const struct lr_fs_rule *r)
{
	return r->is_dir && r->fd >= 0 && (r->grant->access & LR_ACCESS_RW) &&
	       !(r->grant->access & LR_ACCESS_UNIX) && !lr_policy_grant_private(r->grant);
}

static int canonical_all(char *const *paths, size_t n, const char *flag, struct lr_strlist *out,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		char *c = lr_path_canonical(paths[i]);

		if (!c || lr_strlist_take(out, c) < 0) {
			int e = c ? ENOMEM : errno;

			lr_errf(err, errlen, "%s %s: %s", flag, paths[i], strerror(e));
			return -e;
		}
	}
	return 0;
}

int lr_broker_choose(struct lr_broker *b, const struct lr_policy *policy,
		     const struct lr_fs_rules *rules, char *err, size_t errlen)
{
	int r;

	b->sock = b->listener = b->ruleset = b->opener = b->domain = -1;
	b->policy = policy;
	if (policy->unrestricted_fs)
		return 0;
	for (size_t i = 0; i < rules->n; i++) {
		const struct lr_fs_rule *rule = &rules->v[i];
		struct lr_fs_rule *copy;
		struct lr_broker_root *root;

		if (rule->fd < 0)
			continue; /* --explain: a --mkdir still to make */
		/* every grant, for the broker's domain */
		copy = lr_array_push(&b->outer.v, &b->outer.n, sizeof(*copy));
		if (!copy)
			goto nomem;
		*copy = *rule;
		copy->realpath = NULL;
		copy->fd = rule->fd >= 0 ? fcntl(rule->fd, F_DUPFD_CLOEXEC, 3) : -1;
		if ((rule->fd >= 0 && copy->fd < 0) || !(copy->realpath = strdup(rule->realpath)))
			goto fail;
		if (!brokered_rule(rule))
			continue;
		root = lr_array_push(&b->roots, &b->n_roots, sizeof(*root));
		if (!root)
			goto nomem;
		root->path = strdup(rule->realpath);
		root->fd = fcntl(rule->fd, F_DUPFD_CLOEXEC, 3);
		if (!root->path || root->fd < 0)
			goto fail;
	}
	r = canonical_all(policy->allow_protected, policy->n_allow_protected, "--allow-protected",
			  &b->allowed_protected, err, errlen);
	if (r == 0)
		r = canonical_all(policy->allow_dotenv, policy->n_allow_dotenv, "--allow-dotenv",
				  &b->allowed_secret, err, errlen);
	return r;
fail:
	if (errno != ENOMEM) {
		int e = errno;

		lr_errf(err, errlen, "the broker: cannot keep the grants: %s", strerror(e));
		return -e;
	}
nomem:
	lr_errf(err, errlen, "out of memory");
	return -ENOMEM;
}

static const struct lr_broker_root *root_of(const struct lr_broker *b, const char *path)
{
	const struct lr_broker_root *best = NULL;

	/* the deepest: a brokered grant inside another */
	for (size_t i = 0; i < b->n_roots; i++)
		if (lr_path_beneath(path, b->roots[i].path) &&
		    (!best || strlen(b->roots[i].path) > strlen(best->path)))
			best = &b->roots[i];
	return best;
}

/*
 * Does the file at PATH begin with "#!"?  Executing it, the kernel reads
 * that line itself (the interpreter and its argument: "#!/bin/echo KEY")
 * and the interpreter shows it, with no open of the command's that the
 * broker could refuse.  A file landrun cannot read may be so too (the
 * kernel reads a script with execute permission only): true.
 */
static bool begins_with_shebang(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	char two[2];
	struct stat st;
	bool yes;

	if (fd < 0)
		return errno != ENOENT && errno != ELOOP; /* gone; or a link, its target's own */
	yes = fstat(fd, &st) < 0 || (S_ISREG(st.st_mode) && (read(fd, two, 2) != 2 || (two[0] == '#' && two[1] == '!')));
	close(fd);
	return yes;
}

/*
 * In a brokered directory that gives Landlock's rights to read and execute
 * (B->reads), a secret beneath it can be executed: where one begins with
 * "#!", the directories above it give no execute right (what is made there
 * cannot be run; what existed at start keeps its own rule), and one line
 * says so.
 */
static void no_exec_above_scripts(const struct lr_holes *holes, struct lr_fs_rule *r)
{
	for (size_t i = 0; i < holes->n; i++) {
		const struct lr_hole *h = &holes->v[i];

		if (!h->brokered || !lr_path_beneath(h->path, r->realpath) ||
		    !begins_with_shebang(h->path))
			continue;
		r->rights &= ~(uint64_t)LANDLOCK_ACCESS_FS_EXECUTE;
		/* (lr_notice shows what a terminal would act on escaped) */
		lr_notice("what is made in %s cannot be run: %s, a secret file beneath it, begins "
			  "with #! (running it would show its first line); --allow-dotenv %s lifts "
			  "this",
			  r->realpath, h->path, h->path);
		return;
	}
}

int lr_broker_restrict(struct lr_broker *b, const struct lr_plan *plan,
		       struct lr_fs_rules *rules, struct lr_holes *holes, char *err,
		       size_t errlen)
{
	const uint64_t exposed = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE |
				 LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_RESOLVE_UNIX;

	b->holes = holes;
	b->ruleset = -1;
	b->metadata = plan->broker_metadata;
	for (size_t i = 0; i < holes->n; i++) {
		struct lr_hole *h = &holes->v[i];
		struct lr_broker_inode *in;
		struct stat st;

		if (h->carved && h->kind == LR_HOLE_SECRET && root_of(b, h->path)) {
			b->reads = true;
			h->brokered = true;
		}
		if (lstat(h->path, &st) < 0)
			continue;
		in = lr_array_push(&b->inodes, &b->n_inodes, sizeof(*in));
		if (!in) {
			lr_errf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		*in = (struct lr_broker_inode){ st.st_dev, st.st_ino, h->kind, h->path, h->why };
	}
	for (size_t i = 0; i < rules->n; i++) {
		struct lr_fs_rule *r = &rules->v[i];

		if (!r->realpath || !root_of(b, r->realpath) || !(r->grant->access & LR_ACCESS_RW))
			continue;
		r->rights &= ~NAME_RIGHTS;
		/* a carved directory: what is made there may be read and run
		 * (and a secret in it too, by Landlock: the broker opens all) */
		if (r->carved && r->is_dir && b->reads) {
			r->rights |= lr_plan_fs_rights(plan, r->grant->access, true) & exposed;
			no_exec_above_scripts(holes, r);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- judging */

static bool allowed(const struct lr_strlist *list, const char *path)
{
	for (size_t i = 0; i < list->n; i++)
		if (lr_path_beneath(path, list->v[i]))
			return true;
	return false;
}

/* The stricter of two verdicts: a secret is kept out even in a protected
 * directory (.vscode/.env). */
static enum lr_broker_verdict stricter(enum lr_broker_verdict a, const char *why_a,
				       enum lr_broker_verdict b, const char *why_b,
				       const char **why)
{
	if (b == LR_BROKER_SECRET || (b == LR_BROKER_PROTECTED && a == LR_BROKER_OK)) {
		*why = why_b;
		return b;
	}
	*why = why_a;
	return a;
}

/* What the last component NAME of PATH (NAME_AT, within it) is kept out
 * as, by its name and its directory's (credential files), or by the user's
 * globs; NULL if not. */
static const char *secret_kind(const struct lr_broker *b, const char *path, const char *name_at,
			       const char *name)
{
	char parent[NAME_MAX + 1] = "";
	const char *start = name_at - 1, *kind;

	/* the directory the name is in: .aws of .aws/credentials */
	if (start > path) {
		const char *p = start;

		while (p > path && p[-1] != '/')
			p--;
		if ((size_t)(start - p) <= NAME_MAX) {
			memcpy(parent, p, (size_t)(start - p));
			parent[start - p] = '\0';
		}
	}
	kind = lr_secret_kind(parent[0] ? parent : NULL, name);
	for (size_t i = 0; !kind && b->policy && i < b->policy->n_secrets; i++)
		if (lr_secret_glob_match(b->policy->secrets[i].glob, path))
			kind = b->policy->secrets[i].name;
	return kind;
}

enum lr_broker_verdict lr_broker_judge(const struct lr_broker *b, const char *root,
				       const char *path, const char **why)
{
	enum lr_broker_verdict v = LR_BROKER_OK;
	size_t n = strlen(root);
	char prefix[PATH_MAX];
	const char *p, *runner, *kind;

	*why = NULL;
	if (!lr_path_beneath(path, root) || strlen(path) >= sizeof(prefix)) {
		*why = "a path the broker does not serve";
		return LR_BROKER_PROTECTED; /* not the broker's to judge: refuse */
	}
	/* the holes landrun found at start (the --env-file, a hooksPath...) */
	for (size_t i = 0; b->holes && i < b->holes->n; i++) {
		const struct lr_hole *h = &b->holes->v[i];

		if (lr_path_beneath(path, h->path))
			v = stricter(v, *why,
				     h->kind == LR_HOLE_SECRET ? LR_BROKER_SECRET : LR_BROKER_PROTECTED,
				     h->why, why);
	}
	/* and every name beneath the root, made or not */
	p = path + (strcmp(root, "/") ? n : 0);
	while (*p == '/' && v != LR_BROKER_SECRET) {
		const char *name = p + 1, *end = strchrnul(name, '/');
		char component[NAME_MAX + 1];
		size_t len = (size_t)(end - name);

		p = end;
		if (len == 0 || len > NAME_MAX)
			continue;
		memcpy(component, name, len);
		component[len] = '\0';
		memcpy(prefix, path, (size_t)(end - path));
		prefix[end - path] = '\0';
		runner = lr_protected_name(component);
		if (runner && !allowed(&b->allowed_protected, prefix))
			v = stricter(v, *why, LR_BROKER_PROTECTED, runner, why);
		if (!*end && !allowed(&b->allowed_secret, prefix) &&
		    (kind = secret_kind(b, path, name, component)))
			v = stricter(v, *why, LR_BROKER_SECRET, kind, why);
	}
	return v;
}

/* ---------------------------------------------------------------- starting */

/* What the broker's own domain holds: every grant as granted, and /proc to
 * read (the command's memory and working directory, its own descriptors). */
static int enter_outer(const struct lr_broker *b, const struct lr_plan *plan, char *err,
		       size_t errlen)
{
	struct lr_policy none;
	struct lr_plan outer = *plan;
	struct lr_fs_rules rules = b->outer;
	struct lr_fs_rule *proc;
	struct lr_grant g = { .name = (char *)"the broker's /proc", .access = LR_ACCESS_RO };
	int fd, r;

	fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		lr_errf(err, errlen, "the broker: cannot open /proc: %s", strerror(-r));
		return r;
	}
	rules.v = calloc(b->outer.n + 1, sizeof(*rules.v));
	if (!rules.v) {
		close(fd);
		lr_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (b->outer.n)
		memcpy(rules.v, b->outer.v, b->outer.n * sizeof(*rules.v));
	proc = &rules.v[b->outer.n];
	*proc = (struct lr_fs_rule){ .fd = fd, .is_dir = true, .grant = &g, .realpath = NULL,
				     .rights = (LANDLOCK_ACCESS_FS_READ_FILE |
						LANDLOCK_ACCESS_FS_READ_DIR) & plan->handled_fs };
	rules.n = b->outer.n + 1;
	/* the command's network and scopes are its own domain's business */
	outer.handled_net = 0;
	outer.scoped = 0;
	outer.egress_port = 0;
	outer.restrict_flags &= ~(uint32_t)LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	lr_policy_init(&none);
	r = lr_landlock_enforce(&outer, &none, &rules, err, errlen);
	lr_policy_free(&none);
	free(rules.v);
	close(fd);
	return r;
}

static noreturn void broker_main(struct lr_broker *b, int sock, pid_t child);

/*
 * Yama's ptrace_scope 1: only an ancestor reads the command's memory, so
 * this process stays as the broker and the command's parent, and the child
 * goes on to be the command.  PAIR is the broker's socket pair: taken.
 */
static int start_as_parent(struct lr_broker *b, int pair[2], char *err, size_t errlen)
{
	pid_t pid = fork();
	int r;

	if (pid > 0) {
		close(pair[0]);
		/* what the grants of /proc/self name is the child's */
		if (lr_landlock_rules_follow_pid(&b->outer, getpid(), pid, err, errlen) < 0) {
			dprintf(STDERR_FILENO, "landrun: the broker: %s\n", err);
			kill(pid, SIGKILL);
			_exit(LR_EXIT_FAILURE);
		}
		broker_main(b, pair[1], pid);
	}
	if (pid < 0) {
		r = -errno;
		close(pair[0]);
		close(pair[1]);
		lr_errf(err, errlen, "the broker: cannot fork: %s", strerror(-r));
		return r;
	}
	close(pair[1]);
	b->pid = 0; /* not a process of landrun's own beside the command */
	b->sock = pair[0];
	if (b->ruleset >= 0) {
		close(b->ruleset);
		b->ruleset = -1;
	}
	return 0;
}

/*
 * Forked twice: the broker is no child of the command's, but a
 * supervisor's (a subreaper), or init's.  The one between writes the
 * broker's pid on PAIR (taken) and exits.  It is a vfork: it only forks,
 * writes and exits, in this frame, while landrun (one thread here: the
 * broker makes the first others) waits, and a copy of the address space
 * fewer is 4% of the drop-in's start (scripts/bench/startup.py, 300
 * interleaved runs: 0.96x, 0.92-0.99).
 */
static int start_apart(struct lr_broker *b, int pair[2], char *err, size_t errlen)
{
	pid_t mid, pid = 0;
	int r, status;
	ssize_t n;

	mid = vfork();
	if (mid < 0 && (errno == ENOSYS || errno == EPERM))
		mid = fork(); /* a filter above landrun's that knows vfork not */
	if (mid == 0) {
		pid_t broker = fork();

		if (broker == 0) {
			close(pair[0]);
			broker_main(b, pair[1], 0);
		}
		_exit(broker > 0 && write(pair[1], &broker, sizeof(broker)) == sizeof(broker) ? 0
											    : 1);
	}
	close(pair[1]);
	if (mid < 0) {
		r = -errno;
		close(pair[0]);
		lr_errf(err, errlen, "the broker: cannot fork: %s", strerror(-r));
		return r;
	}
	while ((r = (int)waitpid(mid, &status, 0)) < 0 && errno == EINTR)
		;
	n = read(pair[0], &pid, sizeof(pid));
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || n != sizeof(pid) || pid <= 0) {
		close(pair[0]);
		lr_errf(err, errlen, "the broker: cannot start it");
		return -ECHILD;
	}
	b->pid = pid;
	b->sock = pair[0];
	/* the opener's domain is the command's: made once, entered by both */
	b->domain = b->ruleset;
	b->ruleset = -1;
	return 0;
}

int lr_broker_start(struct lr_broker *b, const struct lr_plan *plan,
		    const struct lr_policy *policy, const struct lr_fs_rules *rules, char *err,
		    size_t errlen)
{
	int pair[2], r;

	r = enter_outer(b, plan, err, errlen);
	if (r < 0)
		return r;
	/* the opener enters the command's own domain */
	if (b->reads) {
		b->ruleset = lr_landlock_ruleset(plan, policy, rules, err, errlen);
		if (b->ruleset < 0)
			return b->ruleset;
		b->restrict_flags = plan->restrict_flags &
				    ~(uint32_t)LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		r = -errno;
		lr_errf(err, errlen, "the broker: cannot make its socket: %s", strerror(-r));
		return r;
	}
	if (b->as_parent)
		return start_as_parent(b, pair, err, errlen);
	return start_apart(b, pair, err, errlen);
}

static int send_with_fd(int sock, const void *buf, size_t len, int fd);
static ssize_t recv_with_fd(int sock, void *buf, size_t len, int *fd);

int lr_broker_hand_over(struct lr_broker *b, char *err, size_t errlen)
{
	int listener, r;
	long answer;

	listener = lr_seccomp_load_notify(b->n_roots > 0, b->reads, b->metadata, b->egress_port != 0,
					  err, errlen);
	if (listener < 0)
		return listener;
	r = send_with_fd(b->sock, "l", 1, listener);
	close(listener);
	close(b->sock);
	b->sock = -1;
	if (r < 0) {
		lr_errf(err, errlen, "the broker: cannot hand it the filter: %s", strerror(-r));
		return r;
	}
	/* the witness: a call only the broker answers this way */
	answer = syscall(SYS_mkdirat, LR_BROKER_PING_DIRFD, NULL, 0);
	if (answer != LR_BROKER_PING_ANSWER) {
		r = answer < 0 ? errno : EPROTO;
		lr_errf(err, errlen, "witness: the broker did not answer (%s)", strerror(r));
		return -r;
	}
	return 0;
}

static int holes_check(const struct lr_broker *b, char *err, size_t errlen);

int lr_broker_holes_check(const struct lr_broker *b, char *err, size_t errlen)
{
	int r = holes_check(b, err, errlen);

	/* from now on, every refusal is told */
	if (syscall(SYS_mkdirat, LR_BROKER_PING_DIRFD, NULL, 2) != LR_BROKER_PING_ANSWER &&
	    r == 0) {
		lr_errf(err, errlen, "the broker did not answer");
		return -EPROTO;
	}
	return r;
}

static int holes_check(const struct lr_broker *b, char *err, size_t errlen)
{
	for (size_t i = 0; b->holes && i < b->holes->n; i++) {
		const struct lr_hole *h = &b->holes->v[i];
		int fd;

		if (!h->brokered)
			continue;
		/* the broker's refusal, not told: landrun's own */
		if (syscall(SYS_mkdirat, LR_BROKER_PING_DIRFD, NULL, 1) != LR_BROKER_PING_ANSWER) {
			lr_errf(err, errlen, "the broker did not answer");
			return -EPROTO;
		}
		fd = open(h->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			lr_errf(err, errlen, "%s (a secret file): reading it was not refused",
				h->path);
			return -EPERM;
		}
		if (errno != EACCES && errno != ENOENT) {
			lr_errf(err, errlen, "checking %s failed: %s", h->path, strerror(errno));
			return -errno;
		}
		/* ENOENT: gone since; if EACCES came from elsewhere, the next
		 * refusal is quiet: take it back */
		syscall(SYS_mkdirat, LR_BROKER_PING_DIRFD, NULL, 0);
	}
	return 0;
}

/* ---------------------------------------------------------------- serving */

/* One notification, as the broker reads it. */
struct call {
	struct lr_broker *b;
	struct seccomp_notif *req;
};

/* What to answer. */
enum answer_kind { CONTINUE, ERROR, VALUE, FD, LATER };
struct answer {
	enum answer_kind kind;
	long value;		/* ERROR: the errno; VALUE: the result; FD: the descriptor */
	bool cloexec;		/* FD */
};

/* Answered later, by the broker's loop (a FIFO's open that waits). */
static struct answer later(void)
{
	return (struct answer){ LATER, 0, false };
}

static struct answer cont(void)
{
	return (struct answer){ CONTINUE, 0, false };
}

static struct answer fail(int e)
{
	return (struct answer){ ERROR, e, false };
}

static struct answer result(long r)
{
	return r < 0 ? fail((int)-r) : (struct answer){ VALUE, r, false };
}

/* Are we still answering the call we read?  (The thread may have died and
 * its id gone to another.) */
static bool still_valid(const struct call *c)
{
	__u64 id = c->req->id;

	return ioctl(c->b->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* After base_of: a base it took from /proc/TID is the caller's only if
 * the call is still there (an absolute path's, "/", is no one's). */
static bool base_valid(const struct call *c, const char *path)
{
	return path[0] == '/' || still_valid(c);
}

/* Calls whose memory could not be read: said a few times. */
static unsigned unread;
/* process_vm_readv is denied by a filter above landrun's (Docker's default
 * profile, without CAP_SYS_PTRACE): /proc/TID/mem is read instead. */
static bool vm_readv_denied;

static int proc_open(pid_t tid, const char *what, int flags);

/*
 * Up to SIZE bytes of the command's memory at ADDR (fewer up to a page that
 * is not mapped): their number, or -errno.  process_vm_readv() finds the
 * caller by its thread's number, which is the caller's only while the call
 * waits: what it read is the caller's if the call is still there after it
 * (-ENOENT if not).  No descriptor of the caller's memory is opened and
 * closed for each call, as /proc/TID/mem would be -- but where a filter
 * above landrun's denies process_vm_readv (EPERM, as for a caller that
 * cannot be read), and from then on.  Memory that cannot be read (a
 * process made undumpable) is -EACCES: said a few times, as what makes
 * the command's calls fail is not its own.
 */
static ssize_t read_memory(const struct call *c, uint64_t addr, void *buf, size_t size)
{
	struct iovec local = { buf, size }, remote = { (void *)(uintptr_t)addr, size };
	ssize_t n = -1;
	int e = EPERM, fd;

	if (!vm_readv_denied) {
		n = process_vm_readv((pid_t)c->req->pid, &local, 1, &remote, 1, 0);
		e = errno;
	}
	if (n < 0 && (e == EPERM || e == ENOSYS)) {
		fd = proc_open((pid_t)c->req->pid, "mem", O_RDONLY);
		e = errno;
		if (fd >= 0) {
			vm_readv_denied = true;
			n = pread(fd, buf, size, (off_t)addr);
			e = EFAULT; /* (EIO: nothing mapped there) */
			close(fd);
		}
	}
	if (!still_valid(c))
		return -ENOENT;
	if (n >= 0)
		return n;
	if (e == EFAULT)
		return -EFAULT;
	if (unread < 5) {
		unread++;
		dprintf(STDERR_FILENO,
			"landrun: the broker: cannot read the call of process %d: %s; %s\n",
			(int)c->req->pid, strerror(e),
			c->b->reads ? "refused (EACCES)" : "left to Landlock");
	}
	return -EACCES;
}

/* The command's string at ADDR, NUL-terminated within SIZE.  0 or -errno. */
static int read_string(const struct call *c, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < size) {
		/* up to the end of the page: the next one may not be mapped */
		size_t room = 4096 - (size_t)((addr + got) % 4096);
		ssize_t n;

		if (room > size - got)
			room = size - got;
		n = read_memory(c, addr + got, buf + got, room);
		if (n <= 0)
			return n < 0 ? (int)n : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int read_bytes(const struct call *c, uint64_t addr, void *buf, size_t size)
{
	ssize_t n = read_memory(c, addr, buf, size);

	return n == (ssize_t)size ? 0 : n < 0 ? (int)n : -EFAULT;
}

static int proc_open(pid_t tid, const char *what, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, what);
	return open(path, flags | O_CLOEXEC);
}

/* Where the command's relative PATH starts: its working directory, DIRFD,
 * or / for an absolute one.  An O_PATH descriptor, or -errno. */
static int base_of(const struct call *c, int dirfd, const char *path)
{
	char what[32];
	int fd;

	if (path[0] == '/')
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else if (dirfd == AT_FDCWD)
		fd = proc_open((pid_t)c->req->pid, "cwd", O_PATH | O_DIRECTORY);
	else if (dirfd < 0)
		return -EBADF;
	else {
		snprintf(what, sizeof(what), "fd/%d", dirfd);
		fd = proc_open((pid_t)c->req->pid, what, O_PATH);
	}
	return fd < 0 ? -errno : fd;
}

static int fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return buf[0] == '/' ? 0 : -ENOENT; /* "pipe:[...]", an anonymous inode */
}

static int open2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = resolve };
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

#define WITHIN (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

/*
 * A name the command gave, found: the directory that holds it, opened
 * beneath a brokered root, and its last component.
 */
struct place {
	const struct lr_broker_root *root;
	int dir;			/* O_PATH, beneath ROOT */
	char rel[PATH_MAX];		/* DIR from ROOT: "" for the root itself */
	char name[NAME_MAX + 1];
	char path[PATH_MAX];		/* ROOT/REL/NAME */
};

static void place_close(struct place *p)
{
	if (p->dir >= 0)
		close(p->dir);
	p->dir = -1;
}

static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* REAL, canonical and beneath ROOT, opened again from ROOT (O_PATH with
 * FLAGS) by a walk that follows no symlink: the descriptor (*REL: REAL from
 * ROOT, "" for the root itself), or -errno. */
static int reopen_beneath(const struct lr_broker_root *root, const char *real, int flags,
			  const char **rel)
{
	size_t n = strcmp(root->path, "/") ? strlen(root->path) : 0;

	*rel = real[n] == '/' ? real + n + 1 : real + n;
	return **rel ? open2(root->fd, *rel, O_PATH | O_NOFOLLOW | flags,
			     WITHIN | RESOLVE_NO_SYMLINKS)
		     : fcntl(root->fd, F_DUPFD_CLOEXEC, 3);
}

/*
 * The canonical paths of the directories the command's calls were made in,
 * by their inode, mount and ctime: what a call in one of them asks of the
 * kernel (readlink of /proc/self/fd, the costliest step of most calls)
 * only the first time.  A path found here is taken only as the kernel's
 * readlink would be: beneath a root, the walk from the root (no symlink)
 * must reach the same inode on the same mount, or the path is asked again.
 * Outside every root it only says that the call is not the broker's (the
 * opener opens it, and the file it opened is judged, opened()): a
 * directory made since on a reused inode has another ctime (as has one
 * renamed); one moved with its parent, from outside into a root, is still
 * taken as outside, where the command's own domain decides.
 */
#define DIR_PATHS 64

static struct dir_path {
	bool used;
	uint32_t dev_major, dev_minor;
	uint64_t ino, mnt;
	struct statx_timestamp ctime;
	char *path;
} dir_paths[DIR_PATHS];

static struct dir_path *dir_path_slot(const struct statx *sx)
{
	uint64_t h = sx->stx_ino * 0x9e3779b97f4a7c15ULL ^ sx->stx_mnt_id * 31 ^
		     ((uint64_t)sx->stx_dev_major << 20 | sx->stx_dev_minor);

	return &dir_paths[(h >> 32) % DIR_PATHS];
}

static bool dir_path_is(const struct dir_path *d, const struct statx *sx)
{
	return d->used && d->ino == sx->stx_ino && d->mnt == sx->stx_mnt_id &&
	       d->dev_major == sx->stx_dev_major && d->dev_minor == sx->stx_dev_minor &&
	       d->ctime.tv_sec == sx->stx_ctime.tv_sec && d->ctime.tv_nsec == sx->stx_ctime.tv_nsec;
}

static void dir_path_keep(const struct statx *sx, const char *path)
{
	struct dir_path *d = dir_path_slot(sx);
	char *copy = strdup(path);

	if (!copy)
		return; /* (asked again next time) */
	free(d->path);
	*d = (struct dir_path){ true,	     sx->stx_dev_major, sx->stx_dev_minor, sx->stx_ino,
				sx->stx_mnt_id, sx->stx_ctime,     copy };
}

static void dir_path_drop(const struct statx *sx)
{
	struct dir_path *d = dir_path_slot(sx);

	if (dir_path_is(d, sx)) {
		free(d->path);
		*d = (struct dir_path){ 0 };
	}
}

/* Is FD the inode of SX, on its mount? */
static bool is_statx(int fd, const struct statx *sx)
{
	struct statx other;

	return statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &other) == 0 &&
	       (other.stx_mask & STATX_MNT_ID) && other.stx_ino == sx->stx_ino &&
	       other.stx_mnt_id == sx->stx_mnt_id && other.stx_dev_major == sx->stx_dev_major &&
	       other.stx_dev_minor == sx->stx_dev_minor;
}

/*
 * The directory DIR from BASE, resolved as the kernel would for the command
 * (symlinks followed, no magic links), and found beneath a brokered root by
 * a walk from the root that follows no symlink: an O_PATH descriptor of it
 * from there (*ROOT, REAL its canonical path of SIZE bytes, *REL within the
 * root), or -errno (EXDEV: beneath no root).
 */
static int pin_dir(const struct lr_broker *b, int base, const char *dir,
		   const struct lr_broker_root **root, char *real, size_t size, const char **rel)
{
	int seen = open2(base, dir, O_PATH | O_DIRECTORY, RESOLVE_NO_MAGICLINKS), fd, r;
	const unsigned want = STATX_INO | STATX_CTIME | STATX_MNT_ID;
	struct statx sx;
	bool kept = false, known;

	if (seen < 0)
		return seen;
	known = statx(seen, "", AT_EMPTY_PATH, want, &sx) == 0 && (sx.stx_mask & want) == want;
again:
	if (known && dir_path_is(dir_path_slot(&sx), &sx) &&
	    strlen(dir_path_slot(&sx)->path) < size) {
		strcpy(real, dir_path_slot(&sx)->path);
		kept = true;
		r = 0;
	} else if ((r = fd_path(seen, real, size)) == 0 && known) {
		dir_path_keep(&sx, real);
	}
	if (r == 0 && !(*root = root_of(b, real)))
		r = -EXDEV;
	if (r == 0) {
		fd = reopen_beneath(*root, real, O_DIRECTORY, rel);
		if (fd >= 0 && !(known ? is_statx(fd, &sx) : same_inode(seen, fd))) {
			close(fd);
			fd = -EXDEV;
		}
		if (fd < 0 && kept) {
			/* not there any more: asked of the kernel */
			dir_path_drop(&sx);
			kept = false;
			goto again;
		}
		r = fd < 0 ? -EXDEV : fd;
	}
	close(seen);
	return r;
}

/*
 * Resolve the parent of PATH from BASE as the kernel would for the command
 * (symlinks followed, no magic links), and find it beneath a brokered root
 * by a walk from the root that follows no symlink (a mount beneath
 * the root is in it, as for Landlock).  0,
 * or -errno: not the broker's (the call continues, for Landlock to decide).
 */
static int locate(const struct lr_broker *b, int base, const char *path, struct place *p)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path);
	const char *rel = NULL;
	char *slash;

	p->dir = -1;
	if (len == 0 || len >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, len + 1);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	slash = strrchr(dir, '/');
	if (!slash) {
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(p->name, dir, len + 1);
		strcpy(dir, ".");
	} else {
		if (strlen(slash + 1) > NAME_MAX)
			return -ENAMETOOLONG;
		strcpy(p->name, slash + 1);
		if (slash == dir)
			strcpy(dir, "/");
		else
			*slash = '\0';
	}
	if (!p->name[0] || strcmp(p->name, ".") == 0 || strcmp(p->name, "..") == 0)
		return -EINVAL;
	p->dir = pin_dir(b, base, dir, &p->root, real, sizeof(real), &rel);
	if (p->dir < 0)
		return p->dir;
	if (!rel) { /* pin_dir sets it with every descriptor: fail closed all the same */
		place_close(p);
		return -EXDEV;
	}
	if (snprintf(p->rel, sizeof(p->rel), "%s", rel) >= (int)sizeof(p->rel) ||
	    snprintf(p->path, sizeof(p->path), "%s%s%s/%s",
		     strcmp(p->root->path, "/") ? p->root->path : "", *rel ? "/" : "", rel,
		     p->name) >= (int)sizeof(p->path)) {
		place_close(p);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * What locate()'s R means for a call: a directory that is not there (or a
 * component that is no directory) is the kernel's answer now, and is
 * answered so: let go on, the call could find the directory made since by
 * another thread, and Landlock would deny what the broker would have made
 * (EACCES instead of the name).  Any other failure: not the broker's.
 */
static bool answered_here(int r)
{
	return r == -ENOENT || r == -ENOTDIR;
}

int lr_broker_resolve(const struct lr_broker *b, int base, const char *path, char *found,
		      size_t size, enum lr_broker_verdict *verdict)
{
	struct place p;
	const char *why;
	int r = locate(b, base, path, &p);

	if (r < 0)
		return r;
	if (snprintf(found, size, "%s", p.path) >= (int)size)
		r = -ENAMETOOLONG;
	else
		*verdict = lr_broker_judge(b, p.root->path, p.path, &why);
	place_close(&p);
	return r;
}

/* The inode of FD, if it is one of the holes'. */
static const struct lr_broker_inode *hole_inode(const struct lr_broker *b, const struct stat *st)
{
	for (size_t i = 0; i < b->n_inodes; i++)
		if (b->inodes[i].dev == st->st_dev && b->inodes[i].ino == st->st_ino)
			return &b->inodes[i];
	return NULL;
}

static void tell(struct call *c, struct lr_broker_told *t, const char *path);

/*
 * What the broker refuses: the words of its line on stderr ("refused WHAT
 * PATH"), and the denial it is for --report-denials (OP; DIR: a directory
 * made), for the report's advice (--allow-dotenv, --allow-protected: never
 * learned).  Each call site names its own.
 */
struct act {
	const char *what;
	enum lr_denied_op op;
	bool dir;
};

static const struct act
	ACT_READ = { "reading", LR_DENIED_READ, false },
	ACT_WRITE = { "writing", LR_DENIED_WRITE, false },
	ACT_TRUNCATE = { "truncating", LR_DENIED_WRITE, false },
	ACT_CREATE = { "creating", LR_DENIED_CREATE, false },
	ACT_TMPFILE = { "making an unnamed file in", LR_DENIED_CREATE, false },
	ACT_MAKE = { "making", LR_DENIED_CREATE, false },
	ACT_MKDIR = { "making the directory", LR_DENIED_CREATE, true },
	ACT_SYMLINK = { "making the symlink", LR_DENIED_CREATE, false },
	ACT_BIND = { "binding a socket to", LR_DENIED_CREATE, false },
	ACT_REMOVE = { "removing", LR_DENIED_REMOVE, false },
	ACT_RENAME = { "renaming", LR_DENIED_REMOVE, false },
	ACT_RENAME_OVER = { "renaming over", LR_DENIED_REMOVE, false },
	ACT_RENAME_TO = { "renaming to", LR_DENIED_CREATE, false },
	ACT_REPLACE = { "replacing", LR_DENIED_REMOVE, false },
	ACT_LINK = { "linking", LR_DENIED_READ, false },
	ACT_LINK_TO = { "linking to", LR_DENIED_CREATE, false },
	ACT_CHMOD = { "changing the mode of", LR_DENIED_WRITE, false },
	ACT_CHOWN = { "changing the owner of", LR_DENIED_WRITE, false },
	ACT_SETXATTR = { "setting an attribute of", LR_DENIED_WRITE, false },
	ACT_RMXATTR = { "removing an attribute of", LR_DENIED_WRITE, false };

/* --report-denials: a refusal of the broker's, as the denial ACT is. */
static void tell_refused(struct call *c, const struct act *act, const char *path)
{
	struct lr_broker_told t = { .op = (int32_t)act->op, .err = EACCES, .dir = act->dir };

	if (path[0] == '/')
		tell(c, &t, path);
}

/* Refuse, and say so (a few times: the command may try without end), and
 * tell the supervisor (--report-denials). */
static struct answer refuse(struct call *c, const struct act *act, const char *path,
			    enum lr_broker_verdict v, const char *why)
{
	char p[PATH_MAX * 4];

	if (c->b->quiet) {
		c->b->quiet = false;
		return fail(EACCES);
	}
	tell_refused(c, act, path);
	if (c->b->messages < LR_BROKER_MAX_MESSAGES) {
		lr_escape(p, sizeof(p), path, strlen(path), true);
		if (v == LR_BROKER_SECRET)
			dprintf(STDERR_FILENO, "landrun: refused %s %s: %s (--allow-dotenv %s "
					       "allows it)\n",
				act->what, p, why ? why : "a secret file", p);
		else
			dprintf(STDERR_FILENO, "landrun: refused %s %s: %s runs what is there "
					       "later, outside the sandbox (--allow-protected %s "
					       "allows it)\n",
				act->what, p, why ? why : "a program", p);
	} else if (c->b->messages == LR_BROKER_MAX_MESSAGES) {
		dprintf(STDERR_FILENO, "landrun: refused more; not told\n");
	}
	c->b->messages++;
	return fail(EACCES);
}

/* The command's umask, for what the broker makes (it applies it as the
 * kernel would: default ACLs of the directory win). */
static mode_t umask_of(const struct call *c)
{
	char buf[2048];
	int fd = proc_open((pid_t)c->req->pid, "status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	unsigned mask = 022;
	char *line;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		line = strstr(buf, "\nUmask:");
		if (line)
			sscanf(line + 7, "%o", &mask);
	}
	return (mode_t)(mask & 0777);
}

/* An existing entry named by P, followed (or not, NOFOLLOW) beneath its
 * root: O_PATH descriptor, its canonical path and its stat.  -errno.  What
 * is no symlink (or is not followed) is the entry in P's directory itself,
 * the one pinned, and its path is P's; a symlink followed is found again
 * from the root, and its path asked of the kernel. */
static int find(const struct place *p, bool nofollow, char *real, size_t size, struct stat *st)
{
	char rel[PATH_MAX];
	int fd, r;

	fd = open2(p->dir, p->name, O_PATH | O_NOFOLLOW, WITHIN);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (nofollow || !S_ISLNK(st->st_mode)) {
		if (snprintf(real, size, "%s", p->path) < (int)size)
			return fd;
		close(fd);
		return -ENAMETOOLONG;
	}
	close(fd);
	if (snprintf(rel, sizeof(rel), "%s%s%s", p->rel, *p->rel ? "/" : "", p->name) >=
	    (int)sizeof(rel))
		return -ENAMETOOLONG;
	fd = open2(p->root->fd, rel, O_PATH, WITHIN);
	if (fd < 0)
		return fd;
	if ((r = fd_path(fd, real, size)) < 0 || fstat(fd, st) < 0) {
		close(fd);
		return r < 0 ? r : -errno;
	}
	return fd;
}

/* The judgement on an existing entry FD at REAL: its path and its inode. */
static enum lr_broker_verdict judge_found(const struct lr_broker *b, const char *real,
					  const struct stat *st, const char **why)
{
	const struct lr_broker_root *root = root_of(b, real);
	const struct lr_broker_inode *in = hole_inode(b, st);
	enum lr_broker_verdict v;

	if (!root)
		return LR_BROKER_PROTECTED;
	v = lr_broker_judge(b, root->path, real, why);
	if (in)
		v = stricter(v, *why, in->kind == LR_HOLE_SECRET ? LR_BROKER_SECRET : LR_BROKER_PROTECTED,
			     in->why, why);
	return v;
}

/* ---------------------------------------------------------------- the opener */

/*
 * What the broker asks of the opener: open PATH from the descriptor sent
 * with it (the descriptor itself again if PATH is ""), with FLAGS and
 * MODE, and send the result back (OPEN_OPEN); or
 * give up the open ID that waits, its call gone (OPEN_CANCEL, with no
 * descriptor).  An open that may wait (a FIFO's, a device's, a file's
 * under a lease) is made by a thread of the opener's: answered at once
 * with WAITS, then again with the result, when done.
 */
enum { OPEN_OPEN, OPEN_CANCEL };

struct open_request {
	uint64_t id;		/* the broker's: in the replies */
	int op;
	int flags;
	mode_t mode;
	int may_wait;		/* the broker has room for one more that waits (else
				 * such an open gets ENFILE) */
	char path[PATH_MAX];	/* sent up to its NUL */
};

/* What of REQ is sent: its path up to the NUL. */
static size_t request_size(const struct open_request *req)
{
	return offsetof(struct open_request, path) + strlen(req->path) + 1;
}

struct open_reply {
	uint64_t id;
	int err;		/* 0: the descriptor comes with it */
	int waits;		/* not yet: the result comes in a reply of its own */
};

/* Opens that wait at once (the broker's FIFOs, and the opener's), and how
 * often the broker looks whether their calls are still there; the signal
 * that interrupts such an open. */
#define WAITERS 64
#define WAITER_TICK_MS 100
#define WAKE_SIGNAL SIGURG

static void wake_handler(int sig)
{
	(void)sig; /* only to interrupt the open */
}

/* Seconds the broker waits for the opener (a device's open may hang). */
#define OPENER_WAIT_MS 10000

static int send_with_fd(int sock, const void *buf, size_t len, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* A message of MIN to LEN bytes, and the descriptor with it (or -1). */
static ssize_t recv_some_with_fd(int sock, void *buf, size_t min, size_t len, int *fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (n < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(*fd));
	if ((size_t)n < min || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	return n;
}

/* A message of exactly LEN bytes, and the descriptor with it (or -1). */
static ssize_t recv_with_fd(int sock, void *buf, size_t len, int *fd)
{
	return recv_some_with_fd(sock, buf, len, len, fd);
}

/* The opener's opens that wait, each in a thread of its own.  (The path is
 * the slot's own copy, made when it is taken: the loop looks at every slot
 * at each request, and slots that held a PATH_MAX each would be 64 pages
 * for it to fault in at start.) */
enum { WAIT_FREE, WAIT_WAITING, WAIT_DONE };

struct opener_wait {
	atomic_int state;
	atomic_bool cancel;
	uint64_t id;
	int sock, base, flags;
	mode_t mode;
	char *path;
	pthread_t thread;
};

static struct opener_wait opener_waits[WAITERS];

static void *opener_wait_main(void *arg)
{
	struct opener_wait *w = arg;
	struct open_reply rep = { .id = w->id };
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, WAKE_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (;;) {
		if (atomic_load(&w->cancel)) {
			fd = -1;
			errno = EINTR;
			break;
		}
		fd = openat(w->base, w->path, w->flags | O_NOCTTY | O_CLOEXEC, w->mode);
		if (fd >= 0 || errno != EINTR)
			break;
	}
	rep.err = fd < 0 ? errno : 0;
	/* (a broker gone: the opener's loop ends too) */
	if (send_with_fd(w->sock, &rep, sizeof(rep), fd) < 0) {
	}
	if (fd >= 0)
		close(fd);
	atomic_store(&w->state, WAIT_DONE);
	return NULL;
}

/* Does the open of the object at PATH from BASE (as FLAGS find it) wait,
 * or may it: a FIFO's without O_NONBLOCK (for its other end), a device's
 * but the memory devices' (/dev/null, /dev/urandom: a driver may wait
 * whatever O_NONBLOCK says)?  What cannot be found (made, or an error)
 * does not: it is opened at once. */
static bool open_waits(int base, const char *path, int flags)
{
	struct stat st;

	if (fstatat(base, path, &st, flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) < 0)
		return false;
	return (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) || S_ISBLK(st.st_mode) ||
	       (S_ISCHR(st.st_mode) && major(st.st_rdev) != 1);
}

/* Start the open REQ (from BASE, taken: AT_FDCWD for an absolute path) in
 * a thread of its own: 0, or -errno (BASE closed). */
static int opener_wait(int sock, const struct open_request *req, int base)
{
	struct opener_wait *w = NULL;
	pthread_attr_t attr;
	int r = -ENFILE; /* too many at once */

	for (size_t i = 0; i < WAITERS && !w; i++)
		if (atomic_load(&opener_waits[i].state) == WAIT_FREE)
			w = &opener_waits[i];
	if (!w || !req->may_wait)
		goto fail;
	w->path = strdup(req->path);
	if (!w->path) {
		r = -ENOMEM;
		goto fail;
	}
	w->id = req->id;
	w->sock = sock;
	w->base = base;
	w->flags = req->flags;
	w->mode = req->mode;
	atomic_store(&w->cancel, false);
	atomic_store(&w->state, WAIT_WAITING);
	if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, 64 * 1024) != 0 ||
	    pthread_create(&w->thread, &attr, opener_wait_main, w) != 0) {
		atomic_store(&w->state, WAIT_FREE);
		free(w->path);
		w->path = NULL;
		goto fail;
	}
	pthread_attr_destroy(&attr);
	return 0;
fail:
	if (base >= 0)
		close(base);
	return r;
}

/* The wait W's thread joined, and its slot free. */
static void opener_wait_free(struct opener_wait *w)
{
	pthread_join(w->thread, NULL);
	if (w->base >= 0)
		close(w->base);
	free(w->path);
	w->path = NULL;
	atomic_store(&w->state, WAIT_FREE);
}

/* The opener's waits done: joined, and their slots free. */
static void opener_reap(void)
{
	for (size_t i = 0; i < WAITERS; i++)
		if (atomic_load(&opener_waits[i].state) == WAIT_DONE)
			opener_wait_free(&opener_waits[i]);
}

/* OPEN_CANCEL: the open ID that waits is interrupted (its reply comes,
 * EINTR or what it opened meanwhile, which the broker closes). */
static void opener_cancel(uint64_t id)
{
	for (size_t i = 0; i < WAITERS; i++) {
		struct opener_wait *w = &opener_waits[i];

		/* (done but not joined: its thread is there still) */
		if (atomic_load(&w->state) != WAIT_FREE && w->id == id) {
			atomic_store(&w->cancel, true);
			pthread_kill(w->thread, WAKE_SIGNAL);
		}
	}
}

/* FD, opened O_NONBLOCK so that no open waits in the broker, as the
 * command asked: blocking unless FLAGS say otherwise.  0; or -1 with errno,
 * FD closed: a descriptor that is not as asked is never handed over. */
static int as_asked(int fd, uint64_t flags)
{
	int e;

	if (flags & O_NONBLOCK)
		return 0;
	/* F_SETFL sets O_NONBLOCK (cleared) with the three others it can
	 * change: as they were asked, as the open set them */
	if (fcntl(fd, F_SETFL, (int)(flags & (O_APPEND | O_DIRECT | O_NOATIME))) == 0)
		return 0;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* The opener's end: its waits interrupted and joined (a thread of theirs
 * may still answer on SOCK, which stays open until none can). */
static void opener_end(void)
{
	for (size_t i = 0; i < WAITERS; i++) {
		struct opener_wait *w = &opener_waits[i];

		if (atomic_load(&w->state) == WAIT_FREE)
			continue;
		atomic_store(&w->cancel, true);
		pthread_kill(w->thread, WAKE_SIGNAL);
		opener_wait_free(w);
	}
}

/*
 * The opener: a thread of the broker's in the command's own Landlock
 * domain (and the broker's filter), it opens what it is asked, as the
 * command would have, so that the kernel decides.  Its own loop never
 * waits: an open that may (above) is made by a thread, answered WAITS at
 * once and with its result when done; one that is found to wait only when
 * made (a file under a lease, EWOULDBLOCK; a FIFO made meanwhile, ENXIO) is
 * made again so.  It returns when the broker has closed its end, or on a
 * broken socket.
 */
static void opener_main(int sock)
{
	struct open_request req;
	int base;

	for (;;) {
		struct open_reply rep = { 0 };
		ssize_t n = recv_some_with_fd(sock, &req, offsetof(struct open_request, path) + 1,
					      sizeof(req), &base);
		int fd = -1, r;

		opener_reap();
		if (n == 0 || n == -EBADF || n == -ENOTCONN)
			return;
		if (n == -EINTR)
			continue; /* nothing read: the request is still there */
		if (n > 0 && req.op == OPEN_CANCEL) {
			if (base >= 0)
				close(base);
			opener_cancel(req.id);
			continue;
		}
		rep.id = n > 0 ? req.id : 0;
		if (n > 0 &&
		    !memchr(req.path, '\0', (size_t)n - offsetof(struct open_request, path)))
			n = -EPROTO;
		/* "": BASE itself, opened again (a descriptor of the command's),
		 * from this thread's own table, not the process's (/proc/self) */
		if (n > 0 && base >= 0 && req.op == OPEN_OPEN && !req.path[0])
			snprintf(req.path, sizeof(req.path), "/proc/thread-self/fd/%d", base);
		/* an absolute path comes alone */
		if (n > 0 && base < 0 && req.path[0] == '/')
			base = AT_FDCWD;
		if (n < 0 || base == -1 || req.op != OPEN_OPEN) {
			if (n < 0 && n != -EPROTO && n != -EINTR)
				return;
			rep.err = EPROTO;
		} else if (open_waits(base, req.path, req.flags)) {
			r = opener_wait(sock, &req, base);
			base = -1;
			rep.err = r < 0 ? -r : 0;
			rep.waits = r == 0;
		} else {
			fd = openat(base, req.path, req.flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
				    req.mode);
			if (fd < 0 && !(req.flags & O_NONBLOCK) &&
			    (errno == EWOULDBLOCK || errno == ENXIO)) {
				r = opener_wait(sock, &req, base);
				base = -1;
				rep.err = r < 0 ? -r : 0;
				rep.waits = r == 0;
			} else if (fd < 0) {
				rep.err = errno;
			} else if (as_asked(fd, req.flags) < 0) {
				rep.err = errno;
				fd = -1;
			}
		}
		if (base >= 0)
			close(base);
		if (send_with_fd(sock, &rep, sizeof(rep), rep.err || rep.waits ? -1 : fd) < 0) {
			if (fd >= 0)
				close(fd);
			return;
		}
		if (fd >= 0)
			close(fd);
	}
}

/* The opener thread's start: what it is given, and whether it is in the
 * command's domain, for start_opener() to wait for. */
struct opener_start {
	int sock, ruleset;
	uint32_t flags;
	int err;
	sem_t entered;
};

static void *opener_thread(void *arg)
{
	struct opener_start *st = arg;
	struct sigaction sa = { .sa_handler = wake_handler }; /* no SA_RESTART */
	char err[512];
	int sock = st->sock, e = 0, r, bad;

	/* Landlock's domain and seccomp's filter are the thread's own: the
	 * broker's other threads keep theirs (never LANDLOCK_RESTRICT_SELF_TSYNC,
	 * never SECCOMP_FILTER_FLAG_TSYNC).  So is its descriptor table, which
	 * holds its socket only, as an opener process's would: nothing of
	 * the broker's is within its reach, nor its descriptors in the
	 * broker's table.  (Every signal is blocked here from the start: the
	 * process's go to the broker's own thread.) */
	if (sigaction(WAKE_SIGNAL, &sa, NULL) < 0 || unshare(CLONE_FILES) < 0 ||
	    lr_ll_restrict_self(st->ruleset, st->flags & ~(uint32_t)LANDLOCK_RESTRICT_SELF_TSYNC) <
		    0)
		e = errno;
	else if ((r = lr_exec_close_fds(&sock, 1, &bad)) < 0 ||
		 (r = lr_seccomp_load_broker(false, err, sizeof(err))) < 0)
		e = -r;
	st->err = e;
	sem_post(&st->entered); /* (ST is the starter's, gone after this) */
	if (e)
		return NULL;
	opener_main(sock);
	opener_end();
	close(sock);
	return NULL;
}

/*
 * Start the opener, a thread in the command's domain (before the broker's
 * filter, under which the thread loads its own): 0 once it is in that
 * domain, or -errno.  A thread, not a process: no fork at the start, and
 * each open outside the brokered grants is a switch between two threads
 * of one address space, not between two processes.
 */
static int start_opener(struct lr_broker *b)
{
	struct opener_start st = { .ruleset = b->ruleset, .flags = b->restrict_flags };
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	struct timeval wait = { OPENER_WAIT_MS / 1000, OPENER_WAIT_MS % 1000 * 1000 };
	int pair[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return -errno;
	/* the broker waits for a reply that long (opener_open) */
	if (setsockopt(pair[0], SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) < 0) {
		r = -errno;
		close(pair[0]);
		close(pair[1]);
		return r;
	}
	st.sock = pair[1];
	if (sem_init(&st.entered, 0, 0) < 0) {
		r = -errno;
		close(pair[0]);
		close(pair[1]);
		return r;
	}
	sigfillset(&all);
	r = pthread_sigmask(SIG_BLOCK, &all, &old);
	if (r == 0) {
		r = pthread_attr_init(&attr);
		if (r == 0) {
			r = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			r = r ?: pthread_create(&t, &attr, opener_thread, &st);
			pthread_attr_destroy(&attr);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (r != 0) {
		sem_destroy(&st.entered);
		close(pair[0]);
		close(pair[1]);
		return -r;
	}
	while (sem_wait(&st.entered) < 0 && errno == EINTR)
		;
	sem_destroy(&st.entered);
	/* the thread has its own table and domain (or failed): the ruleset and
	 * the thread's end are not this table's business any more */
	close(b->ruleset);
	b->ruleset = -1;
	close(pair[1]);
	if (st.err) {
		close(pair[0]);
		return -st.err;
	}
	b->opener = pair[0];
	return 0;
}

/*
 * The broker's side of the opens that wait in the opener: each is a call
 * answered later (LATER), from the broker's loop, when the opener's
 * second reply comes; a call gone meanwhile (its thread interrupted, or
 * dead) has its open cancelled, and what comes closed.
 */
struct opening {
	bool used, cancelled;
	uint64_t id;		/* the opener's request */
	__u64 notif;		/* the call */
	pid_t tid;
	int base;		/* the broker's, for --report-denials */
	uint64_t flags;
	bool write;
	char path[PATH_MAX];
};

static struct opening openings[WAITERS];
static size_t openings_busy;
static uint64_t opener_next = 1;

static void respond(struct lr_broker *b, const struct seccomp_notif *req, struct answer a);
static struct answer opened(struct call *c, int fd, bool write, uint64_t flags,
			    struct stat *st);
static void tell_opened(struct call *c, int base, const char *path, uint64_t flags, int err);

/* The opener is gone, or stuck: it serves no more, and the calls that wait
 * in it are refused. */
static void opener_lost(struct lr_broker *b)
{
	if (b->opener >= 0)
		close(b->opener);
	b->opener = -1;
	for (size_t i = 0; i < WAITERS && openings_busy; i++) {
		struct opening *o = &openings[i];
		struct seccomp_notif req = { .id = o->notif };

		if (!o->used)
			continue;
		if (!o->cancelled)
			respond(b, &req, fail(EACCES));
		close(o->base);
		o->used = false;
		openings_busy--;
	}
}

/* The opener's reply REP (and FD) to an open that waited: answered. */
static void opening_done(struct lr_broker *b, const struct open_reply *rep, int fd)
{
	struct opening *o = NULL;
	struct seccomp_notif req = { 0 };
	struct call c = { b, &req };

	for (size_t i = 0; i < WAITERS && !o; i++)
		if (openings[i].used && openings[i].id == rep->id)
			o = &openings[i];
	if (!o || rep->waits) {
		if (fd >= 0)
			close(fd);
		return;
	}
	req.id = o->notif;
	req.pid = (__u32)o->tid;
	if (o->cancelled || !still_valid(&c)) {
		if (fd >= 0)
			close(fd);
	} else if (!rep->err && fd >= 0) {
		struct stat st;

		respond(b, &req, opened(&c, fd, o->write, o->flags, &st));
	} else {
		if (fd >= 0)
			close(fd);
		tell_opened(&c, o->base, o->path, o->flags, rep->err ? rep->err : EPROTO);
		respond(b, &req, fail(rep->err ? rep->err : EPROTO));
	}
	close(o->base);
	o->used = false;
	openings_busy--;
}

/* In the loop: the opener's reply that is readable. */
static void opener_readable(struct lr_broker *b)
{
	struct open_reply rep;
	int fd;
	ssize_t n = recv_with_fd(b->opener, &rep, sizeof(rep), &fd);

	if (n == -EINTR || n == -EAGAIN)
		return;
	if (n <= 0) {
		dprintf(STDERR_FILENO, "landrun: the broker: its opener is gone: from now on "
				       "nothing outside the brokered grants is opened (EACCES)\n");
		opener_lost(b);
		return;
	}
	opening_done(b, &rep, fd);
}

/* In the loop: the opens that wait whose call is gone, given up. */
static void openings_tend(struct lr_broker *b)
{
	for (size_t i = 0; i < WAITERS && openings_busy && b->opener >= 0; i++) {
		struct opening *o = &openings[i];
		struct open_request req = { .id = o->id, .op = OPEN_CANCEL };
		__u64 id = o->notif;

		if (!o->used || o->cancelled ||
		    ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
			continue;
		o->cancelled = true;
		if (send_with_fd(b->opener, &req, sizeof(req), -1) < 0)
			opener_lost(b);
	}
}

/* Have the opener open PATH from BASE for the call C: the descriptor, or
 * -errno; or -EINPROGRESS where the open waits in the opener (its result
 * answers the call later).  Replies to the opens that waited, which come
 * meanwhile, are answered on the way. */
static int opener_open(struct call *c, int base, const char *path, int flags, mode_t mode,
		       uint64_t cflags, bool write)
{
	struct lr_broker *b = c->b;
	struct open_request req = { .id = opener_next++, .op = OPEN_OPEN, .flags = flags,
				    .mode = mode, .may_wait = openings_busy < WAITERS };
	struct open_reply rep;
	int fd, r;
	ssize_t n;

	if (b->opener < 0)
		return -EACCES; /* gone: nothing more is opened */
	if (strlen(path) >= sizeof(req.path))
		return -ENAMETOOLONG;
	strcpy(req.path, path);
	/* (an absolute path needs no base: the opener's own "/" is the command's) */
	r = send_with_fd(b->opener, &req, request_size(&req), path[0] == '/' ? -1 : base);
	for (;;) {
		/* (its socket's SO_RCVTIMEO: -EAGAIN after OPENER_WAIT_MS) */
		n = r;
		while (n == 0 && (n = recv_with_fd(b->opener, &rep, sizeof(rep), &fd)) == -EINTR)
			n = 0; /* (a signal: wait on, not as if it were gone) */
		if (r < 0 || n == -EAGAIN) {
			char shown[PATH_MAX * 4];

			/* stuck (a filesystem that hangs) or gone: it serves no more */
			lr_escape(shown, sizeof(shown), path, strlen(path), true);
			dprintf(STDERR_FILENO, "landrun: the broker: its opener %s %s: from now on "
					       "nothing outside the brokered grants is opened (EACCES)\n",
				r == 0 ? "took more than 10 s to open" : "failed on", shown);
			opener_lost(b);
			return -EACCES;
		}
		if (n < 0) {
			dprintf(STDERR_FILENO, "landrun: the broker: its opener is gone: from now on "
					       "nothing outside the brokered grants is opened (EACCES)\n");
			opener_lost(b);
			return -EACCES;
		}
		if (rep.id == req.id)
			break;
		opening_done(b, &rep, fd); /* an earlier one's, done */
		r = 0;
	}
	if (rep.waits) {
		struct opening *o = NULL;

		if (fd >= 0)
			close(fd);
		for (size_t i = 0; i < WAITERS && !o; i++)
			if (!openings[i].used)
				o = &openings[i];
		if (!o) /* (may_wait said there was room) */
			return -ENFILE;
		*o = (struct opening){ .used = true, .id = req.id, .notif = c->req->id,
				       .tid = (pid_t)c->req->pid, .flags = cflags, .write = write };
		o->base = fcntl(base, F_DUPFD_CLOEXEC, 3);
		snprintf(o->path, sizeof(o->path), "%s", path);
		openings_busy++;
		return -EINPROGRESS;
	}
	if (rep.err) {
		if (fd >= 0)
			close(fd);
		return -rep.err;
	}
	return fd >= 0 ? fd : -EPROTO;
}

/* ---------------------------------------------------------------- FIFOs */

/*
 * The open of a FIFO waits for its other end, and the broker never waits on
 * the command's behalf: where it opens one (a FIFO beneath a root, or what
 * the opener opened), an open that would wait is made by a thread of its
 * own, and answered when done, while the broker serves the rest.  A call
 * that is no longer valid (the thread interrupted, or dead) has its thread
 * interrupted in turn (WAKE_SIGNAL), and what it opened closed.
 */
enum { WAITER_FREE, WAITER_WAITING, WAITER_DONE };

struct waiter {
	atomic_int state;
	atomic_bool cancel;
	__u64 id;		/* the notification */
	int fd;			/* the FIFO to open again (the broker's) */
	int flags;
	bool cloexec;
	bool truncate;		/* truncate(2): what is opened is truncated to LENGTH,
				 * and closed (RESULT: 0) */
	off_t length;
	int result;		/* the descriptor, or -errno */
	pthread_t thread;
};

static struct waiter waiters[WAITERS];
static int waiters_wake[2] = { -1, -1 };	/* a pipe: a waiter is done */
static size_t waiters_busy;

/* Before the loop: the pipe, and the signal that interrupts a waiter. */
static int waiters_init(void)
{
	struct sigaction sa = { .sa_handler = wake_handler }; /* no SA_RESTART */
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, WAKE_SIGNAL);
	if (pipe2(waiters_wake, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    sigaction(WAKE_SIGNAL, &sa, NULL) < 0 || sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return 0;
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	char self[64];
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, WAKE_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", w->fd);
	for (;;) {
		if (atomic_load(&w->cancel)) {
			fd = -EINTR;
			break;
		}
		fd = open(self, w->flags | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != EINTR) {
			fd = fd < 0 ? -errno : fd;
			break;
		}
	}
	if (w->truncate && fd >= 0) {
		int r = ftruncate(fd, w->length) < 0 ? -errno : 0;

		close(fd);
		fd = r;
	}
	w->result = fd;
	atomic_store(&w->state, WAITER_DONE);
	if (write(waiters_wake[1], "", 1) < 0) {
		/* full: the loop's tick finds it done */
	}
	return NULL;
}

static struct answer open_waiting(struct call *c, int fd, int oflags, bool cloexec,
				  const off_t *truncate_to);

/*
 * Open the FIFO FD (the broker's; taken) again with FLAGS for the call C:
 * at once where that does not wait (O_NONBLOCK, O_RDWR, a writer whose
 * reader is there), else by a waiter, answered later.
 */
static struct answer fifo_open(struct call *c, int fd, uint64_t flags)
{
	int acc = (int)(flags & O_ACCMODE), oflags, r;
	char self[64];

	oflags = (int)(flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_TRUNC));
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if ((flags & O_NONBLOCK) || acc == O_RDWR || acc == O_WRONLY) {
		r = open(self, oflags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (r >= 0 || (flags & O_NONBLOCK) || acc == O_RDWR || errno != ENXIO) {
			close(fd);
			if (r < 0 || as_asked(r, flags) < 0)
				return fail(errno);
			return (struct answer){ FD, r, (flags & O_CLOEXEC) != 0 };
		}
	}
	/* it waits for its other end */
	return open_waiting(c, fd, oflags, (flags & O_CLOEXEC) != 0, NULL);
}

/* Open FD (the broker's; taken) again with OFLAGS for the call C, in a
 * waiter: answered later (with TRUNCATE_TO, truncate(2)'s: what is opened
 * is truncated so, and the answer is that). */
static struct answer open_waiting(struct call *c, int fd, int oflags, bool cloexec,
				  const off_t *truncate_to)
{
	struct waiter *w = NULL;
	pthread_attr_t attr;

	for (size_t i = 0; i < WAITERS && !w; i++)
		if (atomic_load(&waiters[i].state) == WAITER_FREE)
			w = &waiters[i];
	if (!w || waiters_wake[0] < 0) {
		close(fd);
		return fail(ENFILE); /* too many at once */
	}
	w->id = c->req->id;
	w->fd = fd;
	w->flags = oflags;
	w->cloexec = cloexec;
	w->truncate = truncate_to != NULL;
	w->length = truncate_to ? *truncate_to : 0;
	w->result = -EINTR;
	atomic_store(&w->cancel, false);
	atomic_store(&w->state, WAITER_WAITING);
	if (pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 64 * 1024) != 0 ||
	    pthread_create(&w->thread, &attr, waiter_main, w) != 0) {
		atomic_store(&w->state, WAITER_FREE);
		close(fd);
		return fail(ENFILE);
	}
	pthread_attr_destroy(&attr);
	waiters_busy++;
	return later();
}

static void respond(struct lr_broker *b, const struct seccomp_notif *req, struct answer a);

/* In the loop: answer the waiters done, interrupt those whose call is gone. */
static void waiters_tend(struct lr_broker *b)
{
	for (size_t i = 0; i < WAITERS && waiters_busy; i++) {
		struct waiter *w = &waiters[i];
		int state = atomic_load(&w->state);
		__u64 id = w->id;
		bool valid;

		if (state == WAITER_FREE)
			continue;
		valid = !atomic_load(&w->cancel) &&
			ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
		if (state == WAITER_WAITING) {
			if (!valid) {
				atomic_store(&w->cancel, true);
				pthread_kill(w->thread, WAKE_SIGNAL);
			}
			continue;
		}
		pthread_join(w->thread, NULL);
		close(w->fd);
		if (valid) {
			struct seccomp_notif req = { .id = w->id };

			respond(b, &req, w->truncate	   ? result(w->result)
					 : w->result >= 0 ? (struct answer){ FD, w->result, w->cloexec }
							  : fail(-w->result));
		} else if (w->result >= 0 && !w->truncate) {
			close(w->result);
		}
		atomic_store(&w->state, WAITER_FREE);
		waiters_busy--;
	}
}

static struct answer opened(struct call *c, int fd, bool write, uint64_t flags,
			    struct stat *st);

/* The thread group of TID (the process), from /proc/TID/status; 0 if gone. */
static pid_t tgid_of(pid_t tid)
{
	char buf[1024];
	int fd = proc_open(tid, "status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *line;
	int tgid = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	line = strstr(buf, "\nTgid:");
	if (!line || sscanf(line + 6, "%d", &tgid) != 1)
		return 0;
	return (pid_t)tgid;
}

/* /proc/self and /proc/thread-self name the command's, not the broker's:
 * /proc/TGID (which a grant of the command's /proc/self names) and
 * /proc/TGID/task/TID. */
static int for_command(const struct call *c, const char *path, char *out, size_t size)
{
	static const char *const selves[] = { "/proc/self", "/proc/thread-self" };
	pid_t tid = (pid_t)c->req->pid, tgid;

	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(selves[i]);

		if (strncmp(path, selves[i], n) != 0 || (path[n] != '/' && path[n]))
			continue;
		if (!(tgid = tgid_of(tid)))
			return -ESRCH;
		if (i == 0)
			snprintf(out, size, "/proc/%d%s", (int)tgid, path + n);
		else
			snprintf(out, size, "/proc/%d/task/%d%s", (int)tgid, (int)tid, path + n);
		return 0;
	}
	snprintf(out, size, "%s", path);
	return 0;
}

/* PATH beneath /proc, for the command: opened by the broker where one of
 * the command's grants gives what the open needs. */
static struct answer proc_open_for(struct call *c, const char *path, uint64_t flags,
				   uint64_t mode, bool write)
{
	uint64_t need = 0, have = 0;
	struct stat st;
	int fd;

	if ((flags & O_ACCMODE) != O_WRONLY)
		need |= LANDLOCK_ACCESS_FS_READ_FILE;
	if (write)
		need |= LANDLOCK_ACCESS_FS_WRITE_FILE;
	for (size_t i = 0; i < c->b->outer.n; i++)
		if (c->b->outer.v[i].realpath && lr_path_beneath(path, c->b->outer.v[i].realpath))
			have |= c->b->outer.v[i].rights;
	if (strstr(path, "/../") || (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")) ||
	    (need & ~have))
		return fail(EACCES);
	fd = open(path, (int)(flags & ~(uint64_t)(O_CLOEXEC | O_CREAT)) | O_NONBLOCK | O_NOCTTY |
				O_CLOEXEC,
		  (mode_t)mode);
	if (fd < 0 || as_asked(fd, flags) < 0)
		return fail(errno);
	return opened(c, fd, write, flags, &st);
}

/* ------------------------------------------------- --report-denials */

/* FNV-1a of what is told: its op, call and path. */
static uint64_t told_hash(const struct lr_broker_told *t, const char *path)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const unsigned char *)path;

	h = (h ^ (uint64_t)(uint32_t)t->op) * 1099511628211ULL;
	h = (h ^ (uint64_t)(uint32_t)t->nr) * 1099511628211ULL;
	for (; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* Tell the supervisor what the command of C was denied (broker.h): once
 * each, and never so that the broker waits (a full socket drops it). */
static void tell(struct call *c, struct lr_broker_told *t, const char *path)
{
	char buf[sizeof(struct lr_broker_told) + PATH_MAX];
	struct lr_broker *b = c->b;
	pid_t tid = (pid_t)c->req->pid;
	struct timespec now;
	size_t n = strlen(path);
	uint64_t h;
	ssize_t got;
	int fd;

	if (b->report <= STDERR_FILENO || n >= PATH_MAX)
		return;
	h = told_hash(t, path);
	for (size_t i = 0; i < b->n_told; i++)
		if (b->told[i] == h)
			return;
	if (b->n_told < LR_BROKER_TOLD_MAX)
		b->told[b->n_told++] = h;
	t->pid = (int32_t)tgid_of(tid);
	if (!t->pid)
		return; /* gone */
	t->when = clock_gettime(CLOCK_MONOTONIC, &now) == 0
			  ? (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec
			  : 0; /* 0: the supervisor counts it in when it reads it */
	memset(t->comm, 0, sizeof(t->comm));
	if ((fd = proc_open(tid, "comm", O_RDONLY)) >= 0) {
		got = read(fd, t->comm, sizeof(t->comm) - 1);
		close(fd);
		t->comm[got > 0 ? strcspn(t->comm, "\n") : 0] = '\0';
	}
	memcpy(buf, t, offsetof(struct lr_broker_told, path));
	memcpy(buf + offsetof(struct lr_broker_told, path), path, n + 1);
	if (send(b->report, buf, offsetof(struct lr_broker_told, path) + n + 1,
		 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		b->n_told--; /* not told: next time, perhaps */
}

/* A call of uid 0's that changes a file's mode, owner or attributes,
 * refused outside the brokered grants (the command's filter's answer). */
static void tell_call(struct call *c, int err)
{
	struct lr_broker_told t = { .op = LR_DENIED_CALL, .err = err };

	t.nr = (int32_t)c->req->data.nr;
	memcpy(t.args, c->req->data.args, sizeof(t.args));
	tell(c, &t, "");
}

/* DIR/NAME, with DIR canonical: OUT (SIZE bytes), or false. */
static bool canonical_entry(int base, const char *path, char *out, size_t size, bool follow)
{
	char full[PATH_MAX * 2], *real, *slash, *name;

	if (fd_path(base, full, PATH_MAX) < 0)
		return false;
	if (path[0] == '/')
		snprintf(full, sizeof(full), "%s", path);
	else if (snprintf(full + strlen(full), sizeof(full) - strlen(full), "/%s", path) < 0)
		return false;
	if (follow && (real = realpath(full, NULL))) {
		snprintf(out, size, "%s", real);
		free(real);
		return strlen(out) < size - 1;
	}
	while (strlen(full) > 1 && full[strlen(full) - 1] == '/')
		full[strlen(full) - 1] = '\0';
	slash = strrchr(full, '/');
	if (!slash || !slash[1] || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return false;
	name = slash + 1;
	*slash = '\0';
	real = realpath(*full ? full : "/", NULL);
	if (!real)
		return false; /* no such directory: ENOENT, not a denial */
	snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, name);
	free(real);
	return strlen(out) < size - 1;
}

/* Do the grants (the broker's own domain holds them all, uncarved) give
 * every one of RIGHTS to PATH (a file, or what is beneath a directory)? */
static bool granted(const struct lr_broker *b, const char *path, uint64_t rights)
{
	uint64_t have = 0;

	for (size_t i = 0; i < b->outer.n; i++) {
		const struct lr_fs_rule *r = &b->outer.v[i];

		if (r->is_dir ? lr_path_beneath(path, r->realpath) : strcmp(path, r->realpath) == 0)
			have |= r->rights;
	}
	return (have & rights) == rights;
}

/*
 * A call the broker leaves to Landlock (outside the brokered grants) that
 * Landlock denies for sure: the entry PATH (from DIRFD) made (OP CREATE,
 * DIR a directory), removed (REMOVE), or, there, written (an open, WRITE).
 * Told when no grant gives the right it needs, the entry is there or not
 * as the call needs, and the file permissions allow it.
 */
static void tell_left(struct call *c, int base, const char *path, enum lr_denied_op op, bool dir)
{
	char real[PATH_MAX], parent[PATH_MAX], *slash;
	struct lr_broker_told t = { .op = op, .err = EACCES, .dir = dir };
	uint64_t need;
	struct stat st;
	bool there;

	if (c->b->report <= STDERR_FILENO || !path[0] ||
	    !canonical_entry(base, path, real, sizeof(real), op == LR_DENIED_WRITE))
		return;
	there = lstat(real, &st) == 0;
	snprintf(parent, sizeof(parent), "%s", real);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*(slash == parent ? slash + 1 : slash) = '\0';
	switch (op) {
	case LR_DENIED_CREATE:
		need = dir ? LANDLOCK_ACCESS_FS_MAKE_DIR : LANDLOCK_ACCESS_FS_MAKE_REG;
		if (there || faccessat(AT_FDCWD, parent, W_OK | X_OK, AT_EACCESS) < 0 ||
		    granted(c->b, parent, need))
			return;
		break;
	case LR_DENIED_REMOVE:
		need = dir ? LANDLOCK_ACCESS_FS_REMOVE_DIR : LANDLOCK_ACCESS_FS_REMOVE_FILE;
		if (!there || faccessat(AT_FDCWD, parent, W_OK | X_OK, AT_EACCESS) < 0 ||
		    granted(c->b, parent, need))
			return;
		break;
	case LR_DENIED_WRITE:
		if (!there || !S_ISREG(st.st_mode) || faccessat(AT_FDCWD, real, W_OK, AT_EACCESS) < 0 ||
		    granted(c->b, real, LANDLOCK_ACCESS_FS_WRITE_FILE))
			return;
		break;
	default:
		return;
	}
	tell(c, &t, real);
}

/* The same, for the path at ADDR from DIRFD (the call's arguments). */
static void tell_left_at(struct call *c, int dirfd, uint64_t addr, enum lr_denied_op op, bool dir)
{
	char path[PATH_MAX];
	int base;

	if (c->b->report <= STDERR_FILENO || read_string(c, addr, path, sizeof(path)) < 0 ||
	    (base = base_of(c, dirfd, path)) < 0)
		return;
	tell_left(c, base, path, op, dir);
	close(base);
}

/* An open of the opener's (in the command's own domain) that failed with
 * ERR: a denial, told as the tracer would have it. */
static void tell_opened(struct call *c, int base, const char *path, uint64_t flags, int err)
{
	struct lr_broker_told t = { .err = err };
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_APPEND));
	char real[PATH_MAX];
	struct stat st;
	bool there;

	if (c->b->report <= STDERR_FILENO || err != EACCES ||
	    !canonical_entry(base, path, real, sizeof(real), !(flags & O_NOFOLLOW)))
		return;
	there = stat(real, &st) == 0;
	if ((flags & O_CREAT) && !there)
		t.op = LR_DENIED_CREATE;
	else if (write)
		t.op = LR_DENIED_WRITE;
	else
		t.op = there && S_ISDIR(st.st_mode) ? LR_DENIED_LIST : LR_DENIED_READ;
	/* the file's own permissions: not the sandbox's doing */
	if (there && faccessat(AT_FDCWD, real, write ? W_OK : R_OK, AT_EACCESS) < 0)
		return;
	tell(c, &t, real);
}

/* Not the broker's to serve: in the kernel for Landlock to decide, or
 * where a carved secret is readable there (reads), by the opener, and the
 * result judged. */
static struct answer elsewhere(struct call *c, int base, const char *path, uint64_t flags,
			       uint64_t mode, bool write)
{
	char own[PATH_MAX + 32];
	struct answer a;
	struct stat st;
	int fd;

	if (!c->b->reads) {
		bool there = c->b->report > STDERR_FILENO && fstatat(base, path, &st, 0) == 0;

		/* --report-denials: what Landlock denies there for sure (not
		 * what the kernel refuses first: O_EXCL of what is there) */
		if (c->b->report <= STDERR_FILENO || (there && (flags & O_CREAT) && (flags & O_EXCL)))
			return cont();
		if ((flags & O_CREAT) && !there && errno == ENOENT)
			tell_left(c, base, path, LR_DENIED_CREATE, false);
		else if (there && ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_APPEND))))
			tell_left(c, base, path, LR_DENIED_WRITE, false);
		return cont();
	}
	if ((fd = for_command(c, path, own, sizeof(own))) < 0)
		return fail(-fd);
	/* the command's own /proc entries: another process may not read them
	 * (Landlock's ptrace rule), the broker, whose domain holds the
	 * command's, may; where the command's grants name them */
	if (strncmp(own, "/proc/", 6) == 0)
		return proc_open_for(c, own, flags, mode, write);
	fd = opener_open(c, base, own, (int)(flags & ~(uint64_t)O_CLOEXEC), (mode_t)mode, flags,
			 write);
	if (fd == -EINPROGRESS)
		return later(); /* it waits in the opener, which answers */
	if (fd < 0) {
		tell_opened(c, base, own, flags, -fd);
		return fail(-fd);
	}
	a = opened(c, fd, write, flags, &st);
	/* a FIFO that the opener found no FIFO before it opened it (made
	 * meanwhile): its reader that would wait, waits here */
	if (a.kind == FD && !(flags & O_NONBLOCK) && (flags & O_ACCMODE) == O_RDONLY &&
	    S_ISFIFO(st.st_mode))
		a = fifo_open(c, (int)a.value, flags);
	return a;
}

/* FD, opened for the command: handed over unless it is a secret (or, to
 * write, a protected path), by its inode or its place.  *ST: what FD is. */
static struct answer opened(struct call *c, int fd, bool write, uint64_t flags, struct stat *st)
{
	char real[PATH_MAX];
	const struct lr_broker_root *root;
	const struct lr_broker_inode *in;
	const char *why = NULL;
	enum lr_broker_verdict v = LR_BROKER_OK;

	if (fstat(fd, st) < 0) {
		close(fd);
		return fail(EACCES);
	}
	if (fd_path(fd, real, sizeof(real)) < 0)
		snprintf(real, sizeof(real), "%s", "(a file)");
	else if ((root = root_of(c->b, real)))
		v = lr_broker_judge(c->b, root->path, real, &why);
	if ((in = hole_inode(c->b, st)))
		v = stricter(v, why,
			     in->kind == LR_HOLE_SECRET ? LR_BROKER_SECRET : LR_BROKER_PROTECTED,
			     in->why, &why);
	if (v == LR_BROKER_SECRET || (v == LR_BROKER_PROTECTED && write)) {
		close(fd);
		return refuse(c, write ? &ACT_WRITE : &ACT_READ, real, v, why);
	}
	return (struct answer){ FD, fd, (flags & O_CLOEXEC) != 0 };
}

/* Did the broker make the file of ST unnamed (O_TMPFILE), and is it so
 * still?  (An inode with no name that is not O_TMPFILE's cannot be linked.) */
static bool made_unnamed(const struct lr_broker *b, const struct stat *st)
{
	size_t n = b->n_tmpfiles < LR_BROKER_TMPFILES ? b->n_tmpfiles : LR_BROKER_TMPFILES;

	if (!S_ISREG(st->st_mode) || st->st_nlink != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (b->tmpfiles[i].dev == (uint64_t)st->st_dev &&
		    b->tmpfiles[i].ino == (uint64_t)st->st_ino)
			return true;
	return false;
}

/*
 * open(DIR, O_TMPFILE): where PATH (from BASE) is a directory beneath a
 * root, the broker makes the unnamed file there itself and remembers it,
 * for the linkat that names it (do_link); in a protected or secret
 * directory, refused.  *MINE false: not the broker's.
 */
static struct answer tmpfile_in(struct call *c, int base, const char *path, uint64_t flags,
				uint64_t mode, bool *mine)
{
	const struct lr_broker_root *root;
	char real[PATH_MAX];
	enum lr_broker_verdict v;
	const char *rel, *why;
	struct answer a;
	struct stat st;
	mode_t old;
	int dir, fd;

	dir = pin_dir(c->b, base, path, &root, real, sizeof(real), &rel);
	if (!(*mine = dir >= 0))
		return fail(-dir);
	if (fstat(dir, &st) < 0) {
		close(dir);
		return fail(EACCES);
	}
	v = judge_found(c->b, real, &st, &why);
	if (v != LR_BROKER_OK) {
		close(dir);
		return refuse(c, &ACT_TMPFILE, real, v, why);
	}
	old = umask(umask_of(c));
	fd = openat(dir, ".", (int)(flags & ~(uint64_t)O_CLOEXEC) | O_NOCTTY | O_CLOEXEC,
		    (mode_t)(mode & 07777));
	a = fd < 0 ? fail(errno) : (struct answer){ FD, fd, (flags & O_CLOEXEC) != 0 };
	umask(old);
	close(dir);
	if (fd >= 0 && fstat(fd, &st) == 0) {
		struct lr_broker_tmpfile *t;

		t = &c->b->tmpfiles[c->b->n_tmpfiles++ % LR_BROKER_TMPFILES];

		t->dev = (uint64_t)st.st_dev;
		t->ino = (uint64_t)st.st_ino;
	}
	return a;
}

/* FD, the file found for the command's open: opened again with FLAGS.  A
 * lease of the command's on the file makes its open wait until the lease is
 * given up (or broken, fs.lease-break-time): then it waits in a waiter, not
 * in the broker.  FD is taken. */
static struct answer reopen_found(struct call *c, int fd, uint64_t flags)
{
	char self[64];
	struct answer a;
	int oflags, r;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	oflags = (int)(flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)) | O_NOCTTY;
	r = open(self, oflags | O_NONBLOCK | O_CLOEXEC);
	if (r < 0 && errno == EWOULDBLOCK && !(flags & O_NONBLOCK))
		return open_waiting(c, fd, oflags, (flags & O_CLOEXEC) != 0, NULL);
	if (r >= 0 && as_asked(r, flags) < 0)
		r = -1;
	a = r < 0 ? fail(errno) : (struct answer){ FD, r, (flags & O_CLOEXEC) != 0 };
	close(fd);
	return a;
}

/* FD, a regular file or a FIFO found beneath a root (REAL, of ST): handed
 * over for the open with FLAGS unless its place or inode keeps it out.  FD
 * is taken. */
static struct answer open_found(struct call *c, int fd, const char *real, const struct stat *st,
				uint64_t flags, bool write)
{
	enum lr_broker_verdict v;
	const char *why;

	v = judge_found(c->b, real, st, &why);
	if (v == LR_BROKER_PROTECTED && !write && !c->b->reads) {
		close(fd);
		return cont();
	}
	if (v == LR_BROKER_SECRET || (v == LR_BROKER_PROTECTED && write)) {
		close(fd);
		return refuse(c, write ? &ACT_WRITE : &ACT_READ, real, v, why);
	}
	if (flags & O_DIRECTORY) {
		close(fd);
		return fail(ENOTDIR);
	}
	if (S_ISFIFO(st->st_mode))
		return fifo_open(c, fd, flags);
	return reopen_found(c, fd, flags);
}

/* The name of P, not there: made by the broker, unless the name keeps it
 * out.  P is closed. */
static struct answer create_at(struct call *c, struct place *p, uint64_t flags, uint64_t mode)
{
	enum lr_broker_verdict v;
	const char *why;
	struct answer a;
	mode_t old;
	int fd;

	v = lr_broker_judge(c->b, p->root->path, p->path, &why);
	if (v != LR_BROKER_OK) {
		place_close(p);
		return refuse(c, &ACT_CREATE, p->path, v, why);
	}
	old = umask(umask_of(c));
	fd = openat(p->dir, p->name,
		    (int)(flags & ~(uint64_t)O_CLOEXEC) | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    (mode_t)(mode & 07777));
	a = fd < 0 ? fail(errno) : (struct answer){ FD, fd, (flags & O_CLOEXEC) != 0 };
	umask(old);
	place_close(p);
	return a;
}

/* Not the broker's to open (elsewhere()): BASE is closed. */
static struct answer elsewhere_from(struct call *c, int base, const char *path, uint64_t flags,
				    uint64_t mode, bool write)
{
	struct answer a = elsewhere(c, base, path, flags, mode, write);

	close(base);
	return a;
}

/*
 * Where the broker opens all (reads), an open that makes nothing of a name
 * outside every root that is not there: ENOENT or ENOTDIR, as the kernel
 * would answer it now, with no round trip to the opener (a dynamic linker
 * and a compiler look for most of their files where they are not).  The
 * name is resolved as the command's: from its BASE, no magic link (a
 * /proc/self/fd link is the broker's own here: ELOOP, and the opener's
 * to answer), nor a name that says "self" (/proc/self, /proc/thread-self:
 * the broker's own process, not the command's).  0: the opener's.
 */
static int absent_elsewhere(const struct call *c, int base, const char *path, uint64_t flags)
{
	int fd;

	if (!c->b->reads || (flags & (O_CREAT | KERNEL_O_TMPFILE)) || strstr(path, "self"))
		return 0;
	fd = open2(base, path, O_PATH | (flags & (O_NOFOLLOW | O_DIRECTORY)),
		   RESOLVE_NO_MAGICLINKS);
	if (fd >= 0)
		close(fd);
	return fd == -ENOENT || fd == -ENOTDIR ? -fd : 0;
}

static int command_file(const struct call *c, pid_t who, int cfd, bool *byfd);
static int beneath_root(const struct lr_broker *b, int fd, char *real, size_t size,
			struct stat *st);
static int own_fd_path(const struct call *c, const char *path, pid_t *who, const char **after);

/*
 * Where the broker opens all (reads), an open of the command's own
 * descriptor link (/proc/self/fd/N, /dev/fd/N, /dev/stdin: own_fd_path)
 * is the command's, not the broker's, whose /proc/self is its own: the
 * command's file N is taken (command_file) as *BASE (the one there is
 * closed), and PATH becomes what follows it.  1: nothing of the kind (or
 * PATH is now the name in N, from *BASE); 0: N itself, to open again; or
 * -errno (ENOENT: no descriptor N, as the kernel says).
 */
static int by_fd_link(struct call *c, int *base, char *path)
{
	const char *after;
	pid_t who;
	bool byfd;
	int n = own_fd_path(c, path, &who, &after), fd;

	if (n < 0)
		return 1; /* none, or another process's (beneath /proc: proc_open_for) */
	fd = command_file(c, who, n, &byfd);
	if (fd < 0)
		return fd == -EBADF ? -ENOENT : fd == -ESRCH ? -ESRCH : -EACCES;
	close(*base);
	*base = fd;
	memmove(path, after, strlen(after) + 1);
	return path[0] ? 1 : 0;
}

/* The command's descriptor FD (by_fd_link), opened again with FLAGS: the
 * broker's beneath a root, as any file found there; elsewhere the
 * opener's, in the command's domain (a pipe, or a file of another grant).
 * FD is taken. */
static struct answer reopen_link(struct call *c, int fd, uint64_t flags, uint64_t mode, bool write)
{
	char real[PATH_MAX];
	struct stat st;

	if (beneath_root(c->b, fd, real, sizeof(real), &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			close(fd);
			return fail(EEXIST);
		}
		return open_found(c, fd, real, &st, flags, write);
	}
	return elsewhere_from(c, fd, "", flags, mode, write);
}

static struct answer do_open(struct call *c, int dirfd, uint64_t addr, uint64_t flags,
			     uint64_t mode)
{
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_APPEND | O_CREAT));
	char path[PATH_MAX], real[PATH_MAX];
	struct place p = { .dir = -1 };
	struct answer a;
	struct stat st;
	int base, fd, r, absent;

	if (flags & O_PATH)
		return cont();
	if ((r = read_string(c, addr, path, sizeof(path))) < 0)
		return r == -EFAULT ? fail(EFAULT) : c->b->reads ? fail(-r) : cont();
	if (!path[0])
		return fail(ENOENT);
	if ((base = base_of(c, dirfd, path)) < 0)
		return c->b->reads ? fail(-base) : cont();
	if (!base_valid(c, path)) {
		close(base);
		return fail(ENOENT);
	}
	if (c->b->reads && path[0] == '/' && (r = by_fd_link(c, &base, path)) <= 0) {
		if (r < 0)
			return fail(-r);
		/* the descriptor itself, opened again (its path is "") */
		return reopen_link(c, base, flags, mode, write);
	}
	if (flags & KERNEL_O_TMPFILE) {
		bool mine;

		a = tmpfile_in(c, base, path, flags, mode, &mine);
		if (!mine)
			return elsewhere_from(c, base, path, flags, mode, write);
		close(base);
		return a;
	}
	r = locate(c->b, base, path, &p);
	if (r < 0 && answered_here(r) && (flags & O_CREAT)) {
		close(base);
		return fail(-r);
	}
	if (r < 0 && (absent = absent_elsewhere(c, base, path, flags))) {
		close(base);
		return fail(absent);
	}
	if (r < 0)
		return elsewhere_from(c, base, path, flags, mode, write);
	fd = find(&p, flags & O_NOFOLLOW, real, sizeof(real), &st);
	if (fd >= 0) {
		place_close(&p);
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			close(fd);
			close(base);
			return fail(EEXIST);
		}
		/* directories, devices, sockets: the kernel's; and FIFOs where
		 * Landlock decides (it does not where the broker opens all) */
		if (!S_ISREG(st.st_mode) && !(S_ISFIFO(st.st_mode) && c->b->reads)) {
			close(fd);
			return elsewhere_from(c, base, path, flags, mode, write);
		}
		close(base);
		return open_found(c, fd, real, &st, flags, write);
	}
	/* not there, and not to be made: the kernel's answer now */
	if (fd == -ENOENT && !(flags & O_CREAT)) {
		place_close(&p);
		close(base);
		return fail(ENOENT);
	}
	/* not there: made, if asked, and not through a dangling symlink */
	if (fd != -ENOENT || !(flags & O_CREAT) ||
	    fstatat(p.dir, p.name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
		place_close(&p);
		return elsewhere_from(c, base, path, flags, mode, write);
	}
	close(base);
	return create_at(c, &p, flags, mode);
}

/* Read the command's PATH (from DIRFD) and find it: 0 with P, 1 when the
 * call is not the broker's, or -errno to answer. */
static int place_of(struct call *c, int dirfd, uint64_t addr, struct place *p)
{
	char path[PATH_MAX];
	int base, r;

	p->dir = -1;
	if ((r = read_string(c, addr, path, sizeof(path))) < 0)
		return r == -EFAULT ? r : 1;
	if ((base = base_of(c, dirfd, path)) < 0)
		return 1;
	if (!base_valid(c, path)) {
		close(base);
		return 1;
	}
	r = locate(c->b, base, path, p);
	close(base);
	if (answered_here(r))
		return r;
	return r < 0 ? 1 : 0;
}

/* A new name P may be made.  NULL, or why not (after refusing). */
static bool may_make(struct call *c, const struct place *p, const struct act *act,
		     struct answer *a)
{
	const char *why;
	enum lr_broker_verdict v = lr_broker_judge(c->b, p->root->path, p->path, &why);

	if (v == LR_BROKER_OK)
		return true;
	*a = refuse(c, act, p->path, v, why);
	return false;
}

/* An existing entry P (not followed) may lose or change its name: not a
 * hole, not one's place, not above one. */
static bool may_unname(struct call *c, const struct place *p, const struct act *act,
		       struct answer *a)
{
	const struct lr_broker_inode *in;
	struct stat st;

	if (!may_make(c, p, act, a))
		return false;
	if (fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (in = hole_inode(c->b, &st))) {
		*a = refuse(c, act, p->path, in->kind == LR_HOLE_SECRET ? LR_BROKER_SECRET
									 : LR_BROKER_PROTECTED,
			    in->why);
		return false;
	}
	for (size_t i = 0; c->b->holes && i < c->b->holes->n; i++) {
		const struct lr_hole *h = &c->b->holes->v[i];

		if (lr_path_beneath(h->path, p->path)) {
			*a = refuse(c, act, h->path,
				    h->kind == LR_HOLE_SECRET ? LR_BROKER_SECRET : LR_BROKER_PROTECTED,
				    h->why);
			return false;
		}
	}
	return true;
}

static struct answer do_mknod(struct call *c, int dirfd, uint64_t addr, uint64_t mode, bool dir)
{
	struct place p;
	struct answer a;
	mode_t type = (mode_t)mode & S_IFMT;
	int r;

	if (!dir && type != 0 && type != S_IFREG && type != S_IFIFO && type != S_IFSOCK)
		return cont(); /* devices: Landlock's (denied) */
	if ((r = place_of(c, dirfd, addr, &p)) > 0 && (dir || type == 0 || type == S_IFREG))
		tell_left_at(c, dirfd, addr, LR_DENIED_CREATE, dir);
	if (r != 0)
		return r > 0 ? cont() : fail(-r);
	if (may_make(c, &p, dir ? &ACT_MKDIR : &ACT_MAKE, &a)) {
		mode_t old = umask(umask_of(c));

		r = dir ? mkdirat(p.dir, p.name, (mode_t)mode & 07777)
			: mknodat(p.dir, p.name, (mode_t)mode, 0);
		a = result(r < 0 ? -errno : 0);
		umask(old);
	}
	place_close(&p);
	return a;
}

static struct answer do_unlink(struct call *c, int dirfd, uint64_t addr, uint64_t flags)
{
	struct place p;
	struct answer a;
	int r;

	if (flags & ~(uint64_t)AT_REMOVEDIR)
		return cont();
	if ((r = place_of(c, dirfd, addr, &p)) > 0)
		tell_left_at(c, dirfd, addr, LR_DENIED_REMOVE, flags & AT_REMOVEDIR);
	if (r != 0)
		return r > 0 ? cont() : fail(-r);
	if (may_unname(c, &p, &ACT_REMOVE, &a))
		a = result(unlinkat(p.dir, p.name, (int)flags) < 0 ? -errno : 0);
	place_close(&p);
	return a;
}

static struct answer do_rename(struct call *c, int olddir, uint64_t oldaddr, int newdir,
			       uint64_t newaddr, uint64_t flags)
{
	struct place from, to;
	struct answer a;
	int r;

	if (flags & ~(uint64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return cont(); /* RENAME_WHITEOUT: Landlock's */
	if ((r = place_of(c, olddir, oldaddr, &from)) != 0)
		return r > 0 ? cont() : fail(-r);
	if ((r = place_of(c, newdir, newaddr, &to)) != 0) {
		place_close(&from);
		return r > 0 ? cont() : fail(-r);
	}
	if (may_unname(c, &from, &ACT_RENAME, &a) &&
	    ((flags & RENAME_EXCHANGE) ? may_unname(c, &to, &ACT_RENAME_OVER, &a)
				       : may_make(c, &to, &ACT_RENAME_TO, &a))) {
		/* what a plain rename replaces loses its name too */
		struct stat st;

		if (!(flags & RENAME_EXCHANGE) &&
		    fstatat(to.dir, to.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !may_unname(c, &to, &ACT_REPLACE, &a))
			goto out;
		r = (int)syscall(SYS_renameat2, from.dir, from.name, to.dir, to.name,
				 (unsigned)flags);
		a = result(r < 0 ? -errno : 0);
	}
out:
	place_close(&from);
	place_close(&to);
	return a;
}

static int command_file(const struct call *c, pid_t who, int cfd, bool *byfd);
static int beneath_root(const struct lr_broker *b, int fd, char *real, size_t size,
			struct stat *st);
static int command_fd_of(const struct call *c, pid_t who, int cfd);
static int own_fd_link(const struct call *c, const char *path, pid_t *who);

/* linkat of the command's descriptor CFD in WHO's table (its /proc/self/fd
 * link followed, or AT_EMPTY_PATH) to TO: a file beneath a root, judged as by its name,
 * or an unnamed file the broker made (O_TMPFILE); any other, Landlock's
 * (which makes no name beneath a root). */
static struct answer link_fd(struct call *c, pid_t who, int cfd, struct place *to, bool empty)
{
	char real[PATH_MAX], self[64];
	enum lr_broker_verdict v;
	struct answer a;
	const char *why;
	struct stat st;
	bool byfd;
	int fd = command_file(c, who, cfd, &byfd), r;

	if (fd < 0)
		return fd == -EBADF ? fail(EBADF) : cont();
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fail(EACCES);
	}
	if (S_ISDIR(st.st_mode)) {
		a = fail(EPERM);
	} else if (beneath_root(c->b, fd, real, sizeof(real), &st) == 0) {
		v = judge_found(c->b, real, &st, &why);
		if (v != LR_BROKER_OK)
			a = refuse(c, &ACT_LINK, real, v, why);
		else
			goto make;
	} else if (made_unnamed(c->b, &st)) {
		goto make;
	} else {
		a = cont();
	}
	close(fd);
	return a;
make:
	if (may_make(c, to, &ACT_LINK_TO, &a)) {
		/* AT_EMPTY_PATH as the kernel allows it the command: the broker
		 * has its credentials and capabilities */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		r = empty ? linkat(fd, "", to->dir, to->name, AT_EMPTY_PATH)
			  : linkat(AT_FDCWD, self, to->dir, to->name, AT_SYMLINK_FOLLOW);
		a = result(r < 0 ? -errno : 0);
	}
	close(fd);
	return a;
}

static struct answer do_link(struct call *c, int olddir, uint64_t oldaddr, int newdir,
			     uint64_t newaddr, uint64_t flags)
{
	char real[PATH_MAX], self[64], old[PATH_MAX];
	struct place from, to;
	struct answer a;
	const char *why;
	struct stat st;
	int fd, r, cfd = -1;
	pid_t who = (pid_t)c->req->pid;

	if (flags & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return cont(); /* the kernel's EINVAL */
	if ((r = read_string(c, oldaddr, old, sizeof(old))) < 0)
		return r == -EFAULT ? fail(EFAULT) : cont();
	/* by descriptor: AT_EMPTY_PATH, or the command's own /proc/self/fd/N
	 * followed (how an O_TMPFILE file is named) */
	if ((flags & AT_EMPTY_PATH) && !old[0])
		cfd = olddir;
	else if ((flags & AT_SYMLINK_FOLLOW) && (cfd = own_fd_link(c, old, &who)) < 0)
		cfd = -1;
	if (cfd >= 0 || ((flags & AT_EMPTY_PATH) && !old[0])) {
		if (cfd < 0)
			return cont(); /* AT_FDCWD: the cwd, a directory (EPERM) */
		if ((r = place_of(c, newdir, newaddr, &to)) != 0)
			return r > 0 ? cont() : fail(-r);
		a = link_fd(c, who, cfd, &to, !old[0]);
		place_close(&to);
		return a;
	}
	if ((r = place_of(c, olddir, oldaddr, &from)) != 0)
		return r > 0 ? cont() : fail(-r);
	fd = find(&from, !(flags & AT_SYMLINK_FOLLOW), real, sizeof(real), &st);
	place_close(&from);
	if (fd < 0)
		return cont();
	if ((r = place_of(c, newdir, newaddr, &to)) != 0) {
		close(fd);
		return r > 0 ? cont() : fail(-r);
	}
	/* a second name for a hole, or for what runs later, is one more way in */
	if (S_ISDIR(st.st_mode)) {
		a = fail(EPERM);
	} else if (judge_found(c->b, real, &st, &why) != LR_BROKER_OK) {
		a = refuse(c, &ACT_LINK, real, judge_found(c->b, real, &st, &why), why);
	} else if (may_make(c, &to, &ACT_LINK_TO, &a)) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		r = linkat(AT_FDCWD, self, to.dir, to.name, AT_SYMLINK_FOLLOW);
		a = result(r < 0 ? -errno : 0);
	}
	close(fd);
	place_close(&to);
	return a;
}

static struct answer do_symlink(struct call *c, uint64_t targetaddr, int newdir, uint64_t newaddr)
{
	char target[PATH_MAX];
	struct place p;
	struct answer a;
	int r;

	if ((r = read_string(c, targetaddr, target, sizeof(target))) < 0)
		return r == -EFAULT ? fail(EFAULT) : cont();
	if ((r = place_of(c, newdir, newaddr, &p)) != 0)
		return r > 0 ? cont() : fail(-r);
	if (may_make(c, &p, &ACT_SYMLINK, &a))
		a = result(symlinkat(target, p.dir, p.name) < 0 ? -errno : 0);
	place_close(&p);
	return a;
}

static struct answer do_truncate(struct call *c, uint64_t addr, uint64_t length)
{
	char real[PATH_MAX], self[64];
	struct place p;
	struct answer a;
	enum lr_broker_verdict v;
	const char *why;
	struct stat st;
	int fd, w, r;

	if ((r = place_of(c, AT_FDCWD, addr, &p)) != 0)
		return r > 0 ? cont() : fail(-r);
	fd = find(&p, false, real, sizeof(real), &st);
	place_close(&p);
	if (fd < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return cont();
	}
	v = judge_found(c->b, real, &st, &why);
	if (v != LR_BROKER_OK) {
		close(fd);
		return refuse(c, &ACT_TRUNCATE, real, v, why);
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	w = open(self, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (w < 0 && errno == EWOULDBLOCK) {
		off_t to = (off_t)length;

		/* a lease of the command's on the file: truncate(2) waits for
		 * it, in a waiter (below), not in the broker */
		return open_waiting(c, fd, O_WRONLY | O_NOCTTY, false, &to);
	}
	a = result(w < 0 ? -errno : ftruncate(w, (off_t)length) < 0 ? -errno : 0);
	if (w >= 0)
		close(w);
	close(fd);
	return a;
}

/* ---------------------------------------------------------------- uid 0's chmod and chown */

/*
 * uid 0 owns the system's files, and Landlock checks no mode or owner: the
 * command's filter denies chmod and chown to it, but where the broker runs
 * they come here, and it makes them on what the call names if that lies
 * beneath one of its roots (not a protected or secret path, and no setuid
 * bit, nor setgid on a file); elsewhere EPERM, as the filter answers.  It
 * has the command's credentials, and no capability either.
 */

/* FD's inode is the one at its path beneath a root, reached with no
 * symlink: 0 with REAL and ST, or -errno. */
static int beneath_root(const struct lr_broker *b, int fd, char *real, size_t size,
			struct stat *st)
{
	const struct lr_broker_root *root;
	const char *rel;
	int again, r;

	if ((r = fd_path(fd, real, size)) < 0)
		return r;
	if (fstat(fd, st) < 0)
		return -errno;
	if (!(root = root_of(b, real)))
		return -EXDEV;
	again = reopen_beneath(root, real, 0, &rel);
	if (again < 0)
		return -EXDEV;
	r = same_inode(fd, again) ? 0 : -EXDEV;
	close(again);
	return r;
}

/*
 * The descriptor CFD in the table of the command's task WHO (the calling
 * thread, or its thread group's leader: whose table /proc/self/fd shows),
 * as a descriptor of the broker's (a socket to bind, a file to chmod), or
 * -errno.  A thread made without CLONE_FILES, or after unshare(CLONE_FILES),
 * has a table of its own, where the same number names another file than
 * in its leader's: a thread's is taken through a pidfd of the thread
 * (PIDFD_THREAD, Linux 6.9); before, through the leader's, and only if it
 * is the file the thread's own table holds (-ENOSYS if not: the call is
 * not served).
 */
static int command_fd_of(const struct call *c, pid_t who, int cfd)
{
	pid_t tgid = tgid_of((pid_t)c->req->pid);
	int pidfd, fd;

	if (tgid <= 0 || who <= 0)
		return -ESRCH;
	pidfd = (int)syscall(SYS_pidfd_open, who, who == tgid ? 0 : PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL && who != tgid)
		pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0)
		return -errno;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, cfd, 0);
	fd = fd < 0 ? -errno : fd;
	close(pidfd);
	if (fd >= 0 && who != tgid) {
		char link[64];
		struct stat mine, theirs;

		/* (the thread's own file, whichever pidfd took it) */
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)who, cfd);
		if (stat(link, &theirs) < 0) {
			close(fd);
			return errno == ENOENT ? -EBADF : -ENOSYS;
		}
		if (fstat(fd, &mine) < 0 || mine.st_dev != theirs.st_dev ||
		    mine.st_ino != theirs.st_ino) {
			close(fd);
			return -ENOSYS;
		}
	}
	/* the thread id may have gone to another process in between */
	if (fd >= 0 && !still_valid(c)) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/* The calling thread's descriptor CFD (an argument of its call). */
static int command_fd(const struct call *c, int cfd)
{
	return command_fd_of(c, (pid_t)c->req->pid, cfd);
}

/* The command's file at CFD in WHO's table (a chmod's, an xattr's):
 * command_fd_of's descriptor (*BYFD true), or, where that is refused
 * (pidfd_getfd, by Docker's and podman's default profiles without
 * CAP_SYS_PTRACE) or cannot be proved the thread's own (before Linux 6.9),
 * WHO's /proc link opened O_PATH (*BYFD false): the same file, which the
 * broker then finds beneath a root or not, as any.  -errno. */
static int command_file(const struct call *c, pid_t who, int cfd, bool *byfd)
{
	char path[64];
	int fd = command_fd_of(c, who, cfd);

	*byfd = true;
	if (fd != -EPERM && fd != -ENOSYS)
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)who, cfd);
	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -EBADF : -errno;
	if (!still_valid(c)) {
		close(fd);
		return -ESRCH;
	}
	*byfd = false;
	return fd;
}

/* PATH as the caller's own descriptor link (/proc/self/fd/N, its
 * thread-self or its pid's or thread id's): N, with *WHO the task whose
 * table the kernel reads it in (/proc/self and /proc/TGID: the thread
 * group leader's; /proc/thread-self and /proc/TID: the thread's own), or
 * -ENOENT if it is none, or -EPERM for another process's.  With AFTER,
 * the link may be followed by a name (/proc/self/fd/N/NAME: the directory
 * N is, and NAME in it): *AFTER is NAME, or "". */
static int fd_link_of(const struct call *c, const char *path, pid_t *who, const char **after)
{
	pid_t tid = (pid_t)c->req->pid, tgid;
	const char *at, *rest;
	char *end;
	long pid = 0, n;

	/* the name first: every absolute open comes here, the /proc read of
	 * the caller's thread group only for a descriptor link */
	if (strncmp(path, "/proc/", 6) != 0)
		return -ENOENT;
	at = path + 6;
	if (strncmp(at, "self/", 5) == 0) {
		rest = at + 5; /* (PID 0: the thread group's) */
	} else if (strncmp(at, "thread-self/", 12) == 0) {
		rest = at + 12;
		pid = tid;
	} else {
		pid = strtol(at, &end, 10);
		if (end == at || *end != '/' || pid <= 0)
			return -ENOENT;
		rest = end + 1;
	}
	if (strncmp(rest, "fd/", 3) != 0 || rest[3] < '0' || rest[3] > '9')
		return -ENOENT;
	n = strtol(rest + 3, &end, 10);
	if (n < 0 || n > INT_MAX || (*end && (!after || *end != '/')))
		return -ENOENT;
	tgid = tgid_of(tid);
	if (pid == 0)
		pid = tgid;
	else if (pid != (long)tgid && pid != (long)tid)
		pid = -1;
	if (pid <= 0 || tgid <= 0)
		return -EPERM;
	if (after) {
		while (*end == '/')
			end++;
		*after = end;
	}
	*who = (pid_t)pid;
	return (int)n;
}

static int own_fd_link(const struct call *c, const char *path, pid_t *who)
{
	return fd_link_of(c, path, who, NULL);
}

/*
 * PATH, opened, as the caller's own descriptor link: fd_link_of()'s, and
 * /dev/fd/N, /dev/stdin, /dev/stdout and /dev/stderr, where they are the
 * usual symlinks to /proc/self/fd (the broker's /proc/self is not the
 * command's: resolved here, they would name the broker's own descriptors).
 */
static int own_fd_path(const struct call *c, const char *path, pid_t *who, const char **after)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	static int dev_fd = -1; /* /dev/fd is /proc/self/fd: 1, or not: 0 */
	char link[32], alias[PATH_MAX];
	ssize_t n;

	if (strncmp(path, "/dev/", 5) != 0)
		return fd_link_of(c, path, who, after);
	if (dev_fd < 0) {
		n = readlink("/dev/fd", link, sizeof(link) - 1);
		dev_fd = n == 13 && memcmp(link, "/proc/self/fd", 13) == 0;
		for (size_t i = 0; dev_fd && i < 3; i++) {
			n = readlink(std[i], link, sizeof(link) - 1);
			dev_fd = n == 15 && memcmp(link, "/proc/self/fd/", 14) == 0 &&
				 link[14] == (char)('0' + i);
		}
	}
	if (!dev_fd)
		return -ENOENT;
	for (size_t i = 0; i < 3; i++)
		if (strcmp(path, std[i]) == 0) {
			*who = tgid_of((pid_t)c->req->pid);
			*after = "";
			return *who > 0 ? (int)i : -EPERM;
		}
	if (strncmp(path, "/dev/fd/", 8) != 0 ||
	    snprintf(alias, sizeof(alias), "/proc/self/fd/%s", path + 8) >= (int)sizeof(alias))
		return -ENOENT;
	n = fd_link_of(c, alias, who, after);
	if (n >= 0)
		*after = path + 8 + (*after - (alias + 14));
	return (int)n;
}

/* What a chmod or chown names, as the command resolves it (from DIRFD, its
 * symlinks followed but with NOFOLLOW; AT_EMPTY_PATH: DIRFD itself): an
 * O_PATH descriptor of the broker's, or -errno (EFAULT: the path cannot be
 * read). */
static int target_of(struct call *c, int dirfd, uint64_t addr, bool nofollow, bool empty)
{
	char path[PATH_MAX];
	bool byfd;
	int base, fd, r;
	pid_t who;

	if ((r = read_string(c, addr, path, sizeof(path))) < 0)
		return r;
	if (!path[0] && empty)
		return dirfd == AT_FDCWD ? proc_open((pid_t)c->req->pid, "cwd", O_PATH)
					 : command_file(c, (pid_t)c->req->pid, dirfd, &byfd);
	if (!path[0])
		return -ENOENT;
	/* libc's fchmodat(AT_SYMLINK_NOFOLLOW) before fchmodat2: an O_PATH
	 * descriptor, then chmod of its /proc/self/fd link */
	if ((r = own_fd_link(c, path, &who)) != -ENOENT)
		return r >= 0 ? command_file(c, who, r, &byfd) : r;
	if ((base = base_of(c, dirfd, path)) < 0)
		return base;
	fd = open2(base, path, O_PATH | (nofollow ? O_NOFOLLOW : 0), RESOLVE_NO_MAGICLINKS);
	close(base);
	return fd;
}

enum change_kind { CHANGE_MODE, CHANGE_OWNER, CHANGE_XATTR, CHANGE_NO_XATTR };

/* An extended attribute's change: its name, and the value to set. */
struct xattr_change {
	char name[XATTR_NAME_MAX + 1];
	char *value;
	size_t size;
	int flags;
};

/* The attributes uid 0 may change beneath a root: the user's, and the
 * POSIX ACLs (cp -p and install set the mode through them), never
 * security.* (file capabilities, LSM labels) nor trusted.* */
static bool xattr_allowed(const char *name)
{
	return strncmp(name, "user.", 5) == 0 || strcmp(name, "system.posix_acl_access") == 0 ||
	       strcmp(name, "system.posix_acl_default") == 0;
}

/* Make the change on FD (the broker's): A is the mode, or the owner and
 * group (A, B), or the xattr change (X).  BYFD: as fchmod and fchown do,
 * on FD's own open file. */
static struct answer change(struct call *c, int fd, enum change_kind kind, uint64_t a,
			    uint64_t b, const struct xattr_change *x, bool byfd)
{
	static const struct act *const acts[] = { &ACT_CHMOD, &ACT_CHOWN, &ACT_SETXATTR,
						  &ACT_RMXATTR };
	char real[PATH_MAX], self[64];
	enum lr_broker_verdict v;
	const char *why;
	struct stat st;
	mode_t mode = (mode_t)a & 07777;
	int r;

	if (beneath_root(c->b, fd, real, sizeof(real), &st) < 0 || !still_valid(c)) {
		tell_call(c, EPERM);
		return fail(EPERM); /* the command's filter's answer, outside the grants */
	}
	v = judge_found(c->b, real, &st, &why);
	if (v != LR_BROKER_OK)
		return refuse(c, acts[kind], real, v, why);
	if (kind == CHANGE_MODE && ((mode & S_ISUID) || ((mode & S_ISGID) && !S_ISDIR(st.st_mode))))
		return fail(EPERM); /* nothing made setuid, as anywhere */
	if (kind == CHANGE_XATTR || kind == CHANGE_NO_XATTR) {
		/* through the broker's own link: the descriptor may be O_PATH */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		if (S_ISLNK(st.st_mode))
			return fail(EPERM); /* user.* on a symlink: the kernel's EPERM */
		r = kind == CHANGE_XATTR ? setxattr(self, x->name, x->value, x->size, x->flags)
					 : removexattr(self, x->name);
		return result(r < 0 ? -errno : 0);
	}
	if (kind == CHANGE_OWNER)
		r = byfd ? fchown(fd, (uid_t)a, (gid_t)b)
			 : fchownat(fd, "", (uid_t)a, (gid_t)b, AT_EMPTY_PATH);
	else if (byfd)
		r = fchmod(fd, mode);
	else if (S_ISLNK(st.st_mode))
		return fail(EOPNOTSUPP); /* a symlink's own mode, as the kernel answers */
	else {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		r = fchmodat(AT_FDCWD, self, mode, 0);
	}
	return result(r < 0 ? -errno : 0);
}

/* chmod, fchmodat, fchmodat2, chown, lchown, fchownat: FLAGS as the *at
 * forms take them. */
static struct answer do_change_at(struct call *c, int dirfd, uint64_t addr, enum change_kind kind,
				  uint64_t a, uint64_t b, uint64_t flags)
{
	struct answer ans;
	int fd;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return fail(EINVAL);
	fd = target_of(c, dirfd, addr, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH);
	if (fd == -EFAULT || fd == -ENOENT || fd == -ENOTDIR || fd == -ENAMETOOLONG)
		return fail(-fd);
	if (fd < 0)
		return fail(EPERM);
	ans = change(c, fd, kind, a, b, NULL, false);
	close(fd);
	return ans;
}

/* fchmod, fchown: on the command's descriptor FD itself. */
static struct answer do_change_fd(struct call *c, int cfd, enum change_kind kind, uint64_t a,
				  uint64_t b)
{
	struct answer ans;
	bool byfd;
	int fd = command_file(c, (pid_t)c->req->pid, cfd, &byfd);

	if (fd < 0)
		return fail(fd == -EBADF ? EBADF : EPERM);
	ans = change(c, fd, kind, a, b, NULL, byfd);
	close(fd);
	return ans;
}

/* setxattr, lsetxattr, fsetxattr (SET) and the removexattr forms: CFD for
 * the f forms, else the path at ADDR (NOFOLLOW for the l forms). */
static struct answer do_xattr(struct call *c, int cfd, uint64_t addr, bool nofollow, bool set,
			      const __u64 *args)
{
	static char value[XATTR_SIZE_MAX];
	struct xattr_change x = { .value = value };
	uint64_t name = args[1];
	struct answer ans;
	bool byfd;
	int fd, r;

	if ((r = read_string(c, name, x.name, sizeof(x.name))) < 0)
		return fail(r == -ENAMETOOLONG ? ERANGE : -r);
	if (!x.name[0])
		return fail(ERANGE);
	if (!xattr_allowed(x.name))
		return fail(EPERM); /* security.*, trusted.*: the filter's answer */
	if (set) {
		x.size = (size_t)args[3];
		x.flags = (int)args[4];
		if (x.size > sizeof(value))
			return fail(E2BIG);
		if (x.size && read_bytes(c, args[2], value, x.size) < 0)
			return fail(EFAULT);
	}
	fd = cfd >= 0 ? command_file(c, (pid_t)c->req->pid, cfd, &byfd)
		      : target_of(c, AT_FDCWD, addr, nofollow, false);
	if (fd < 0)
		return fail(fd == -EFAULT || fd == -ENOENT || fd == -ENOTDIR || fd == -EBADF ||
					    fd == -ENAMETOOLONG
				    ? -fd
				    : EPERM);
	ans = change(c, fd, set ? CHANGE_XATTR : CHANGE_NO_XATTR, 0, 0, &x, false);
	close(fd);
	return ans;
}


/*
 * bind(2) of a UNIX socket to a path beneath a brokered root makes a name
 * there (Landlock's MAKE_SOCK, which the command has not): the broker binds
 * the command's own socket itself, from the directory it found.  Any other
 * address (IP, abstract, unnamed) continues, for Landlock and the filter.
 */
/*
 * --allow-domain with no network namespace (B->egress_port): the proxy
 * listens on the host's 127.0.0.1, and its port is not among the command's
 * Landlock rules, so the kernel refuses the command a connect to it, and to
 * any address on that port.  A connect to the proxy itself the broker makes
 * on the command's socket (the same socket: what it connects, the command
 * has connected), with the address it read, which no thread of the command
 * can change afterwards.  Every other connect is Landlock's to judge
 * (--connect-tcp's ports, UNIX sockets), whatever its address is by then.
 */
/*
 * Without pidfd_getfd (Docker's and podman's default profiles refuse it
 * without CAP_SYS_PTRACE), the broker cannot take the command's socket: it
 * connects a TCP socket of its own, of that socket's family and with its
 * file flags (O_NONBLOCK: EINPROGRESS, as the command expects), and puts it
 * in its place, as dup2 would (SECCOMP_IOCTL_NOTIF_ADDFD).  What the command
 * set on its socket before the connect (options, a bound address) is not
 * carried over.  What it connects is still the proxy, at the address read
 * once; a thread that swaps the descriptor meanwhile gets a connected socket
 * where it had another.  A connect again of one it made (to learn how a
 * non-blocking one ended) is EISCONN, not a new socket.
 */
static struct answer connect_own(struct call *c, int cfd, const struct sockaddr_storage *ss,
				 socklen_t len)
{
	struct lr_broker *b = c->b;
	pid_t tgid = tgid_of((pid_t)c->req->pid);
	char path[64], what[24], proto[16], info[256], *flags;
	struct stat st;
	int family, fl = 0, sock, r, fd;
	ssize_t n;

	if (tgid <= 0)
		return fail(ESRCH);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tgid, cfd);
	if (stat(path, &st) < 0)
		return fail(errno == ENOENT ? EBADF : ESRCH);
	if (!S_ISSOCK(st.st_mode))
		return cont(); /* the kernel's ENOTSOCK */
	for (unsigned i = 0; i < sizeof(b->own_socks) / sizeof(*b->own_socks); i++)
		if (b->own_socks[i] == (uint64_t)st.st_ino)
			return fail(EISCONN);
	/* "TCP", "TCPv6" (sockfs's xattr); another protocol: the kernel's */
	n = getxattr(path, "system.sockprotoname", proto, sizeof(proto) - 1);
	if (n <= 0)
		return cont();
	proto[n] = '\0';
	if (!strcmp(proto, "TCP"))
		family = AF_INET;
	else if (!strcmp(proto, "TCPv6"))
		family = AF_INET6;
	else
		return cont();
	snprintf(what, sizeof(what), "fdinfo/%d", cfd);
	if ((fd = proc_open(tgid, what, O_RDONLY)) < 0)
		return fail(EBADF);
	n = read(fd, info, sizeof(info) - 1);
	close(fd);
	if (n <= 0)
		return fail(EBADF);
	info[n] = '\0';
	if (!(flags = strstr(info, "flags:")) || sscanf(flags + 6, "%o", (unsigned *)&fl) != 1)
		return fail(EBADF);
	sock = socket(family, SOCK_STREAM | SOCK_CLOEXEC | (fl & O_NONBLOCK ? SOCK_NONBLOCK : 0), 0);
	if (sock < 0)
		return fail(errno);
	r = connect(sock, (const struct sockaddr *)ss, len) < 0 ? -errno : 0;
	if (r < 0 && r != -EINPROGRESS) {
		close(sock);
		return fail(-r); /* the command's socket stays as it was */
	}
	if (fstat(sock, &st) == 0)
		b->own_socks[b->n_own_socks++ % (sizeof(b->own_socks) / sizeof(*b->own_socks))] =
			(uint64_t)st.st_ino;
	{
		struct seccomp_notif_addfd add = {
			.id = c->req->id,
			.flags = SECCOMP_ADDFD_FLAG_SETFD,
			.srcfd = (__u32)sock,
			.newfd = (__u32)cfd,
			.newfd_flags = fl & O_CLOEXEC ? O_CLOEXEC : 0,
		};

		fd = ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	}
	close(sock);
	if (fd < 0)
		return fail(ESRCH); /* the thread is gone, or was interrupted */
	return result(r);
}

static struct answer do_connect(struct call *c, int sockfd, uint64_t addr, uint64_t len)
{
	struct sockaddr_storage ss;
	uint8_t a16[16];
	uint16_t port;
	int sock, type = 0, r;
	socklen_t tl = sizeof(type);

	if (!c->b->egress_port || len < sizeof(sa_family_t) || len > sizeof(ss))
		return cont();
	memset(&ss, 0, sizeof(ss));
	if (read_bytes(c, addr, &ss, (size_t)len) < 0)
		return cont(); /* the kernel answers EFAULT */
	if (ss.ss_family == AF_INET && len >= sizeof(struct sockaddr_in))
		port = ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		port = ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port);
	else
		return cont();
	if (port != c->b->egress_port || lr_egress_addr_from((struct sockaddr *)&ss, a16) < 0 ||
	    memcmp(a16, lr_egress_loopback, sizeof(a16)) != 0)
		return cont(); /* not the proxy: Landlock refuses its port */
	if (c->b->connect_own)
		return connect_own(c, sockfd, &ss, (socklen_t)len);
	if ((sock = command_fd(c, sockfd)) < 0)
		return sock == -ENOSYS ? cont() : fail(sock == -ESRCH ? ESRCH : EBADF);
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM) {
		close(sock);
		return cont(); /* not a TCP socket's: the kernel's answer */
	}
	r = connect(sock, (struct sockaddr *)&ss, (socklen_t)len) < 0 ? -errno : 0;
	close(sock);
	return result(r);
}

static struct answer do_bind(struct call *c, int sockfd, uint64_t addr, uint64_t len)
{
	struct sockaddr_un sun;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct place p;
	struct answer a;
	int base, sock, r, back;

	if (len <= off || len > sizeof(sun))
		return cont();
	memset(&sun, 0, sizeof(sun));
	if (read_bytes(c, addr, &sun, (size_t)len) < 0)
		return cont(); /* the kernel answers EFAULT */
	if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return cont();
	/* as the kernel reads it: up to LEN, or the first NUL */
	if (len == sizeof(sun) && memchr(sun.sun_path, '\0', sizeof(sun.sun_path)) == NULL)
		return cont(); /* no room for the NUL the kernel adds: its EINVAL */
	if ((base = base_of(c, AT_FDCWD, sun.sun_path)) < 0)
		return cont();
	if (!base_valid(c, sun.sun_path)) {
		close(base);
		return cont();
	}
	r = locate(c->b, base, sun.sun_path, &p);
	close(base);
	if (answered_here(r))
		return fail(-r);
	if (r < 0)
		return cont(); /* not beneath a root: Landlock's */
	if (!may_make(c, &p, &ACT_BIND, &a)) {
		place_close(&p);
		return a;
	}
	if ((sock = command_fd(c, sockfd)) < 0) {
		place_close(&p);
		return sock == -ENOSYS ? cont() : fail(sock == -ESRCH ? ESRCH : EBADF);
	}
	/* the name is made in P's directory: bind from there, by its last
	 * component (which fits, being part of the command's address) */
	memset(sun.sun_path, 0, sizeof(sun.sun_path));
	memcpy(sun.sun_path, p.name, strlen(p.name));
	back = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (back < 0 || fchdir(p.dir) < 0) {
		a = fail(EACCES);
	} else {
		mode_t old = umask(umask_of(c));

		r = bind(sock, (struct sockaddr *)&sun,
			 (socklen_t)(off + strlen(p.name) + 1));
		a = result(r < 0 ? -errno : 0);
		umask(old);
	}
	if (back >= 0 && fchdir(back) < 0)
		_exit(LR_EXIT_FAILURE); /* never serve from a directory left behind */
	if (back >= 0)
		close(back);
	close(sock);
	place_close(&p);
	return a;
}

static struct answer do_openat2(struct call *c, int dirfd, uint64_t path, uint64_t howaddr,
				uint64_t size)
{
	struct open_how how;

	/* a newer struct, or resolve flags: the kernel's, and Landlock's (but
	 * where the broker opens all, unknown: ENOSYS, and libc falls back) */
	if (size != sizeof(how) || read_bytes(c, howaddr, &how, sizeof(how)) < 0 || how.resolve)
		return c->b->reads ? fail(ENOSYS) : cont();
	return do_open(c, dirfd, path, how.flags, how.mode);
}

/* The calls that change a file's mode, owner or extended attributes:
 * served where the command is uid 0 (b->metadata), which without
 * capabilities may still chmod and chown the system's files. */
static struct answer serve_metadata(struct call *c)
{
	const struct seccomp_data *d = &c->req->data;
	const __u64 *a = d->args;

	switch (d->nr) {
#ifdef SYS_chmod
	case SYS_chmod:
		return do_change_at(c, AT_FDCWD, a[0], CHANGE_MODE, a[1], 0, 0);
	case SYS_chown:
		return do_change_at(c, AT_FDCWD, a[0], CHANGE_OWNER, a[1], a[2], 0);
	case SYS_lchown:
		return do_change_at(c, AT_FDCWD, a[0], CHANGE_OWNER, a[1], a[2],
				    AT_SYMLINK_NOFOLLOW);
#endif
	case SYS_fchmodat:
		return do_change_at(c, (int)a[0], a[1], CHANGE_MODE, a[2], 0, 0);
	case 452: /* fchmodat2 */
		return do_change_at(c, (int)a[0], a[1], CHANGE_MODE, a[2], 0, a[3]);
	case SYS_fchownat:
		return do_change_at(c, (int)a[0], a[1], CHANGE_OWNER, a[2], a[3], a[4]);
	case SYS_fchmod:
		return do_change_fd(c, (int)a[0], CHANGE_MODE, a[1], 0);
	case SYS_fchown:
		return do_change_fd(c, (int)a[0], CHANGE_OWNER, a[1], a[2]);
	case SYS_setxattr:
		return do_xattr(c, -1, a[0], false, true, a);
	case SYS_lsetxattr:
		return do_xattr(c, -1, a[0], true, true, a);
	case SYS_fsetxattr:
		return do_xattr(c, (int)a[0], 0, false, true, a);
	case SYS_removexattr:
		return do_xattr(c, -1, a[0], false, false, a);
	case SYS_lremovexattr:
		return do_xattr(c, -1, a[0], true, false, a);
	case SYS_fremovexattr:
		return do_xattr(c, (int)a[0], 0, false, false, a);
	}
	return cont();
}

static struct answer serve(struct call *c)
{
	const struct seccomp_data *d = &c->req->data;
	const __u64 *a = d->args;

	switch (d->nr) {
#ifdef SYS_open
	case SYS_open:
		return do_open(c, AT_FDCWD, a[0], a[1], a[2]);
	case SYS_creat:
		return do_open(c, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, a[1]);
	case SYS_mkdir:
		return do_mknod(c, AT_FDCWD, a[0], a[1], true);
	case SYS_mknod:
		return do_mknod(c, AT_FDCWD, a[0], a[1], false);
	case SYS_unlink:
		return do_unlink(c, AT_FDCWD, a[0], 0);
	case SYS_rmdir:
		return do_unlink(c, AT_FDCWD, a[0], AT_REMOVEDIR);
	case SYS_rename:
		return do_rename(c, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	case SYS_link:
		return do_link(c, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	case SYS_symlink:
		return do_symlink(c, a[0], AT_FDCWD, a[1]);
#endif
	case SYS_openat:
		return do_open(c, (int)a[0], a[1], a[2], a[3]);
	case SYS_openat2:
		return do_openat2(c, (int)a[0], a[1], a[2], a[3]);
	case SYS_mkdirat:
		return do_mknod(c, (int)a[0], a[1], a[2], true);
	case SYS_mknodat:
		return do_mknod(c, (int)a[0], a[1], a[2], false);
	case SYS_unlinkat:
		return do_unlink(c, (int)a[0], a[1], a[2]);
	case SYS_renameat:
		return do_rename(c, (int)a[0], a[1], (int)a[2], a[3], 0);
	case SYS_renameat2:
		return do_rename(c, (int)a[0], a[1], (int)a[2], a[3], a[4]);
	case SYS_linkat:
		return do_link(c, (int)a[0], a[1], (int)a[2], a[3], a[4]);
	case SYS_symlinkat:
		return do_symlink(c, a[0], (int)a[1], a[2]);
	case SYS_truncate:
		return do_truncate(c, a[0], a[1]);
	case SYS_bind:
		return do_bind(c, (int)a[0], a[1], a[2]);
	case SYS_connect:
		return do_connect(c, (int)a[0], a[1], a[2]);
	}
	if (!c->b->metadata)
		return cont();
	return serve_metadata(c);
}

static void respond(struct lr_broker *b, const struct seccomp_notif *req, struct answer a)
{
	struct seccomp_notif_resp resp = { .id = req->id };

	if (a.kind == LATER)
		return;
	if (a.kind == FD) {
		int fl = fcntl((int)a.value, F_GETFL), newfd;
		struct seccomp_notif_addfd add = {
			.id = req->id,
			.flags = SECCOMP_ADDFD_FLAG_SEND,
			.srcfd = (__u32)a.value,
			.newfd_flags = a.cloexec ? O_CLOEXEC : 0,
		};

		/* ENOENT: the thread is gone, or was interrupted.  A file open
		 * to write is closed here before the call returns: with SEND
		 * the command could exec it first, and find it busy (ETXTBSY:
		 * cc -o t && ./t).  (Interrupted in between, the command keeps
		 * the descriptor it was given, unknown to it.) */
		if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY) {
			ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
			close((int)a.value);
			return;
		}
		add.flags = 0;
		newfd = ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		close((int)a.value);
		if (newfd < 0)
			return;
		a = (struct answer){ VALUE, newfd, false };
	}
	if (a.kind == CONTINUE)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else if (a.kind == ERROR)
		resp.error = -(int)a.value;
	else
		resp.val = a.value;
	ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* ---------------------------------------------------------------- the command's parent */

/*
 * With Yama's ptrace_scope 1 the broker is the command's parent, and so the
 * process its caller (a shell, a supervisor) waits for: it passes the
 * signals sent to it on to the command, stops when the command stops for
 * the terminal (so that the shell takes the terminal back), and ends as
 * the command ended, with its status or its signal.
 */
static const int passed[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
			      SIGCONT, SIGWINCH };

static int parent_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(passed) / sizeof(*passed); i++)
		sigaddset(&set, passed[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* End as the command did. */
static noreturn void end_as(const siginfo_t *si)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	int sig = si->si_status;

	if (si->si_code == CLD_EXITED)
		_exit(si->si_status);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

/* The command CHILD changed state: it ended (never returns), or stopped. */
static void child_changed(pid_t child)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)child, &si, WEXITED | WSTOPPED | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			_exit(LR_EXIT_FAILURE); /* it is gone without a status */
		}
		if (si.si_pid == 0)
			return;
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
		    si.si_code == CLD_DUMPED)
			end_as(&si);
		/* stopped for the terminal (^Z, or a read in the background):
		 * stop too, and the shell sees its job stopped; the SIGCONT that
		 * resumes the job reaches both */
		if (si.si_code == CLD_STOPPED && (si.si_status == SIGTSTP ||
						  si.si_status == SIGTTIN ||
						  si.si_status == SIGTTOU))
			kill(getpid(), SIGSTOP);
	}
}

/* A signal sent to the broker: to the command too, unless it reached the
 * command already (the terminal's, one to the whole process group from
 * inside it, or the supervisor's, which signals every process itself). */
static void pass_signal(const struct lr_broker *b, pid_t child, const struct signalfd_siginfo *si)
{
	pid_t from = (pid_t)si->ssi_pid;

	if (si->ssi_signo == SIGCHLD)
		return;
	if (si->ssi_code == SI_KERNEL || (from > 0 && getpgid(from) == getpgrp()) ||
	    (b->supervised && from == getppid()))
		return;
	kill(child, (int)si->ssi_signo);
}

/* The broker's start, in its own process: its signals, its descriptors
 * (what it serves, nothing else), its opener, its own filter and that
 * filter's witness, then the command's listener from SOCK.  The signalfd
 * for a broker that is the command's parent (else -1); or it exits. */
static int broker_settle(struct lr_broker *b, int sock, pid_t child)
{
	static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE,
				     SIGCHLD };
	static const int quiet_parent[] = { SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	char err[512], byte;
	int keep[64], bad, r, sigfd = -1;
	size_t n = 0;
	ssize_t got;

	if (child) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		for (size_t i = 0; i < sizeof(quiet_parent) / sizeof(*quiet_parent); i++)
			sigaction(quiet_parent[i], &ign, NULL);
		/* a caller's SIG_IGN would reap the command without its status */
		sigaction(SIGCHLD, &dfl, NULL);
	} else {
		/* no job of the shell's: only the end of the command's tree ends it
		 * (or a supervisor's SIGTERM or SIGKILL).  It stays in the session,
		 * whose terminal the opener opens as /dev/tty for the command. */
		setpgid(0, 0);
		for (size_t i = 0; i < sizeof(quiet) / sizeof(*quiet); i++)
			sigaction(quiet[i], &ign, NULL);
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	keep[n++] = STDERR_FILENO;
	keep[n++] = sock;
	if (b->ruleset >= 0)
		keep[n++] = b->ruleset;
	if (b->report > STDERR_FILENO)
		keep[n++] = b->report;
	for (size_t i = 0; i < b->n_roots && n < sizeof(keep) / sizeof(*keep); i++)
		keep[n++] = b->roots[i].fd;
	if (b->n_roots + 4 > sizeof(keep) / sizeof(*keep) || lr_exec_close_fds(keep, n, &bad) < 0)
		_exit(LR_EXIT_FAILURE);
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	for (size_t i = 0; i < n; i++)
		fcntl(keep[i], F_SETFD, FD_CLOEXEC);
	if (child && (sigfd = parent_signals()) < 0) {
		dprintf(STDERR_FILENO, "landrun: the broker: cannot take its signals\n");
		kill(child, SIGKILL);
		_exit(LR_EXIT_FAILURE);
	}
	if (b->ruleset >= 0 && start_opener(b) < 0) {
		dprintf(STDERR_FILENO, "landrun: the broker: cannot start its opener\n");
		_exit(LR_EXIT_FAILURE);
	}
	/* it faces the command: it never serves unconfined */
	r = lr_seccomp_load_broker(b->egress_port && b->connect_own, err, sizeof(err));
	if (r == 0 && lr_seccomp_witness_check() < 0) {
		snprintf(err, sizeof(err), "witness: unshare(0) was not denied: its seccomp filter "
					   "is not in force");
		r = -EPERM;
	}
	if (r < 0) {
		dprintf(STDERR_FILENO, "landrun: the broker: %s\n", err);
		if (child)
			kill(child, SIGKILL);
		_exit(LR_EXIT_FAILURE);
	}
	while ((got = recv_with_fd(sock, &byte, 1, &b->listener)) == -EINTR)
		;
	if (got < 0 && b->listener >= 0) {
		close(b->listener);
		b->listener = -1;
	}
	/* the broker woken for a call, and the caller for its answer, on the
	 * CPU that wakes it, with no hop to another (Linux 6.6; before,
	 * EINVAL and the usual wake-ups): an answer with no descriptor in it
	 * takes a third of the time here */
	if (b->listener >= 0)
		(void)ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	/* (EOF: the command's process gave up before; else say why, the
	 * witness's ENOSYS would not) */
	if (got < 0 || (got > 0 && b->listener < 0))
		dprintf(STDERR_FILENO, "landrun: the broker: no filter came to serve: %s\n",
			got < 0 ? strerror((int)-got) : "no descriptor");
	close(sock);
	return sigfd;
}

/* One notification from the listener: received, and answered (the witness's
 * pings here, every other call by serve()).  Exits when nothing can be
 * served any more. */
static void broker_take(struct lr_broker *b, pid_t child)
{
	struct seccomp_notif req;
	struct call c = { b, &req };

	memset(&req, 0, sizeof(req));
	if (ioctl(b->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
		if (errno == EINTR || errno == ENOENT)
			return;
		if (child)
			kill(child, SIGKILL); /* nothing runs unserved */
		_exit(LR_EXIT_FAILURE);
	}
	/* the witness, from landrun before it runs the command (which,
	 * its user switched, cannot be read from until it execs) */
	if (req.data.nr == SYS_mkdirat && (int)req.data.args[0] == LR_BROKER_PING_DIRFD &&
	    req.data.args[1] == 0) {
		if (req.data.args[2] == 2)
			b->sealed = true;
		b->quiet = !b->sealed && req.data.args[2] == 1;
		respond(b, &req, (struct answer){ VALUE, LR_BROKER_PING_ANSWER, false });
		return;
	}
	respond(b, &req, serve(&c));
}

static noreturn void broker_main(struct lr_broker *b, int sock, pid_t child)
{
	int sigfd = broker_settle(b, sock, child);

	if (b->listener < 0 && !child)
		_exit(0); /* the command's process gave up before */
	if (waiters_init() < 0) {
		dprintf(STDERR_FILENO, "landrun: the broker: cannot wait for FIFOs: %s\n",
			strerror(errno));
		if (child)
			kill(child, SIGKILL);
		_exit(LR_EXIT_FAILURE);
	}
	for (;;) {
		struct pollfd p[4] = { { b->listener, POLLIN, 0 }, { sigfd, POLLIN, 0 },
				       { waiters_wake[0], POLLIN, 0 }, { b->opener, POLLIN, 0 } };
		struct signalfd_siginfo si;

		if (waiters_busy)
			waiters_tend(b);
		if (openings_busy)
			openings_tend(b);
		p[3].fd = b->opener;
		if (poll(p, 4, waiters_busy || openings_busy ? WAITER_TICK_MS : -1) < 0) {
			if (errno == EINTR)
				continue;
			if (child)
				kill(child, SIGKILL);
			_exit(LR_EXIT_FAILURE);
		}
		/* (drained whether or not one is left to tend: the last may
		 * have been joined before it wrote) */
		if (p[2].revents) {
			char drain[64];

			while (read(waiters_wake[0], drain, sizeof(drain)) > 0)
				;
		}
		/* an open that waited in the opener, done (or the opener gone) */
		if (p[3].fd >= 0 && p[3].revents)
			opener_readable(b);
		if (p[1].revents & POLLIN) {
			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				pass_signal(b, child, &si);
			child_changed(child);
		}
		if (!p[0].revents)
			continue;
		/* no process under the filter is left: as the parent, wait for
		 * the command's status (it may not have loaded the filter) */
		if (!(p[0].revents & POLLIN)) {
			if (!child)
				_exit(0);
			close(b->listener);
			b->listener = -1;
			continue;
		}
		broker_take(b, child);
	}
}
