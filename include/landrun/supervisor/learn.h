/* SPDX-License-Identifier: MIT */
/*
 * What the command was denied, and what would have allowed it: the denials
 * the tracer saw (trace.h), counted once each; for each, the setting that
 * would allow it, or why none should (a secret kept out on purpose, a call
 * no flag allows); the lines --report-denials prints; and the policy file
 * --learn keeps, merged run after run, with paths widened to the directory
 * a human would grant.  Nothing here looks at the command: the tracer
 * has (realpath and stat of the grants and $HOME, in
 * lr_learn_context_init; the --learn file through the descriptor it is
 * given), so that it is unit-tested on its own.  Never prints, never
 * exits.
 */
#ifndef LANDRUN_LEARN_H
#define LANDRUN_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/lib/util.h"
#include "landrun/policy/policy.h"

/* What the command tried. */
enum lr_denied_op {
	LR_DENIED_READ,		/* a file */
	LR_DENIED_LIST,		/* a directory */
	LR_DENIED_WRITE,	/* a file opened for writing */
	LR_DENIED_TRUNCATE,	/* a file truncated (truncate, ftruncate) */
	LR_DENIED_CREATE,	/* an entry made in a directory (file, directory, link, socket) */
	LR_DENIED_REMOVE,	/* an entry removed from a directory */
	LR_DENIED_RENAME,	/* an entry moved (path) to another name (path2) */
	LR_DENIED_EXECUTE,
	LR_DENIED_CONNECT_TCP,
	LR_DENIED_BIND_TCP,
	LR_DENIED_CONNECT_UNIX,	/* a pathname socket (path), or an abstract one (asked) */
	LR_DENIED_CALL,		/* a system call the seccomp filter denies */
};

struct lr_denial {
	enum lr_denied_op op;
	char *asked;		/* the path as the command gave it, or NULL */
	char *path;		/* canonical (the entry itself: not followed for CREATE,
				 * REMOVE, RENAME), or NULL when unknown */
	char *asked2, *path2;	/* RENAME: the new name */
	struct lr_strlist interps; /* EXECUTE: the interpreters the kernel opens with
				    * it ("#!", PT_INTERP), first to last */
	unsigned port;		/* CONNECT_TCP, BIND_TCP */
	bool abstract;		/* CONNECT_UNIX: an abstract socket, named in ASKED */
	long nr;		/* CALL: the system call, */
	uint64_t args[6];	/* its arguments */
	int err;		/* the errno the command got */
	char comm[16];		/* the process, at its first such denial */
	pid_t pid;		/* its thread group */
	bool main;		/* it is the command itself (landrun's child) */
	bool dir;		/* CREATE: the entry is a directory (mkdir) */
	unsigned long count;
	uint64_t last;		/* when it was last denied: CLOCK_MONOTONIC in ns (the
				 * tracer's, the broker's), or else the order among all
				 * the denials counted, from 1 (lr_denials_add) */
};

/* Distinct denials kept; more are counted only. */
#define LR_DENIALS_MAX 2000

struct lr_denials {
	struct lr_denial *v;
	size_t n;
	unsigned long dropped;	/* denials not kept (past LR_DENIALS_MAX) */
	unsigned long seen;	/* denials counted, kept or not */
};

/* Count D: a denial of the same thing (op and target) seen before counts
 * once more, else D is kept (and its strings taken over: D is emptied).
 * The one kept was last denied at D's LAST (0: now, by the count).  0, or
 * -ENOMEM. */
int lr_denials_add(struct lr_denials *l, struct lr_denial *d);
void lr_denial_free(struct lr_denial *d);
void lr_denials_free(struct lr_denials *l);

/* What landrun knows of the run, to judge a denial by. */
struct lr_known_grant {
	char *path;		/* canonical */
	unsigned access;	/* enum lr_access */
	bool is_dir;
	const char *name;	/* for messages: "--ro PATH", "FILE:LINE: ro = PATH" */
};

struct lr_learn_context {
	char *home;		/* the command's canonical HOME (--env HOME=DIR, or the
				 * caller's), or NULL */
	char *caller_home;	/* the caller's canonical $HOME, or NULL */
	char *env_file;		/* canonical --env-file, or NULL */
	struct lr_known_grant *grants;	/* the policy's, as landrun read them */
	size_t n_grants;
	const struct lr_port_range *connect_tcp, *bind_tcp;
	size_t n_connect_tcp, n_bind_tcp;
	bool deny_subprocess;
	int abi;		/* the Landlock ABI in use */
	unsigned unprivileged_port; /* net.ipv4.ip_unprivileged_port_start */
	const char *profile;	/* the profile landrun chose by default, or NULL */
	const char *path;	/* the --learn FILE, for messages (borrowed), or NULL */
	const struct lr_secret_glob *secrets;	/* the policy's secret = GLOB (borrowed) */
	size_t n_secrets;
};

/* From POLICY (its grants resolved against the current directory), HOME
 * and ABI.  0, or -ENOMEM. */
int lr_learn_context_init(struct lr_learn_context *ctx, const struct lr_policy *policy,
			  const char *home, int abi);
void lr_learn_context_free(struct lr_learn_context *ctx);

enum lr_advice_kind {
	LR_ADVICE_GRANT,	/* KEY = VALUE (a policy setting; --KEY VALUE) */
	LR_ADVICE_NOTE,		/* no setting should be learned: NOTE says why */
};

struct lr_advice {
	enum lr_advice_kind kind;
	const char *key;	/* GRANT: "ro", "rox", "rw", "unix", "connect-tcp", "bind-tcp",
				 * or "mkdir" (a directory to make, granting nothing) */
	char *value;		/* GRANT: the path or the port */
	char *note;		/* NOTE: why, and what a human might do; GRANT: a remark, or NULL */
	bool mkdir;		/* GRANT rw: VALUE is a directory to make first, too
				 * (--mkdir VALUE --rw VALUE) */
	bool probe;		/* NOTE: a probe that programs do without (/proc/filesystems,
				 * the locale's files): reported apart, never learned */
	bool lookup;		/* NOTE, and PROBE: a part of a host name's lookup (DNS):
				 * the nameservers, their UDP socket, nscd's; summed up
				 * in one line */
};

/* What would allow D.  0, or -ENOMEM. */
int lr_learn_advise(const struct lr_denial *d, const struct lr_learn_context *ctx,
		    struct lr_advice *a);
void lr_advice_free(struct lr_advice *a);

/*
 * Of the DENIALS advised in ADVICE (one each), mark as lookups (LOOKUP and
 * PROBE) the sockets that a process denied /etc/resolv.conf also asked for:
 * UDP (AF_INET, AF_INET6), the query itself, and glibc's nscd client's
 * (AF_UNIX SOCK_STREAM, nonblocking, close-on-exec).  Without the
 * nameservers' file in the run, a socket is not a lookup.
 */
void lr_learn_mark_lookups(const struct lr_denials *denials, struct lr_advice *advice);

/* What D was, for humans: "read /etc/gitconfig", "connect to TCP port 443",
 * "socket AF_INET6 SOCK_DGRAM", "mount".  malloc'd, or NULL. */
char *lr_denial_what(const struct lr_denial *d);

/*
 * Is PATH (canonical) a directory of HOME's that every tool of the user
 * shares (~/.cache, ~/.config, ~/.local, ~/.local/share, ~/.local/state)?
 * Why, or NULL.
 */
const char *lr_learn_tools_dir(const char *path, const char *home);

/*
 * The order --report-denials prints DENIALS in (ORDER gets the indices of
 * every denial, DENIALS->n of them): those that are not probes (their
 * advice's PROBE, in IS_PROBE) first, in the order they were first seen,
 * but when the command FAILED, the last denied of them before all (the
 * likeliest cause); then the probes.  Returns how many are not probes.
 */
size_t lr_learn_report_order(const struct lr_denials *denials, const bool *is_probe,
			     bool failed, size_t *order);

/*
 * The line --report-denials prints (no "landrun: ", no newline, escaped)
 * about the private HOME: the command looked there for MISSING ("~/REST",
 * N of them, TOTAL in all), of which those with YOURS[i] are in HOME, the
 * caller's (canonical, or NULL).  malloc'd, or NULL: out of memory.
 */
char *lr_learn_home_line(char *const *missing, size_t n, unsigned long total, const bool *yours,
			 const char *home);

/* The line --report-denials prints for D (no "landrun: ", no newline):
 * "denied read /etc/gitconfig (by git, pid 4242) -> --ro /etc/gitconfig".
 * malloc'd, or NULL. */
char *lr_learn_report_line(const struct lr_denial *d, const struct lr_advice *a);

/* The --learn file: settings learned (each with the count and what was
 * denied, as the comment above it), what was not learned and why, and
 * every other line as the user left it. */
struct lr_learned_entry {
	char *key;		/* NULL: a note, not a setting */
	char *value;
	char *what;		/* "read under /etc/ssl", or the note's whole text */
	unsigned long count;
	bool mkdir;		/* rw: "mkdir = VALUE" goes first, VALUE being a directory
				 * the command makes (and landrun makes for it) */
};

struct lr_learned {
	struct lr_learned_entry *v;
	size_t n;
	struct lr_strlist lines;	/* the user's, in their order */
	size_t bad_line;	/* -EINVAL from lr_learned_parse: the line at fault */
	char bad[128];		/* and what is wrong with it */
};

/*
 * Read a --learn file's TEXT (LEN bytes) into L, each line as the policy
 * reader takes it (config.c): a "# denied" comment and the setting after it
 * are an entry when the setting is one --learn writes and its value reads
 * back as it is; any other line is the user's, kept as it is.  0, -ENOMEM,
 * or -EINVAL for a line a policy file cannot hold (L->bad_line, L->bad).
 */
int lr_learned_parse(const char *text, size_t len, struct lr_learned *l);

/* Count D, with A (lr_learn_advise's), in L.  0, or -ENOMEM. */
int lr_learned_add(struct lr_learned *l, const struct lr_denial *d, const struct lr_advice *a);

/* Widen the paths learned to the directory a human would grant: two or
 * more beneath one directory become that directory, never / or a top
 * directory (/etc), a shared one (/tmp), $HOME or above, one the tools of
 * the home share (~/.cache, ~/.config, ~/.local/share...), one in /proc,
 * /sys or /dev, one with a secret's name, nor for writing a protected one.
 * A "mkdir" alone above a directory made and granted goes (--mkdir makes
 * the parents too).  0, or -ENOMEM. */
int lr_learned_widen(struct lr_learned *l, const struct lr_learn_context *ctx);

/* The file's new text: malloc'd, or NULL.  INCLUDE: a profile to include
 * first (the one landrun chose by default), or NULL. */
char *lr_learned_render(const struct lr_learned *l, const char *include);

/* How many settings L holds. */
size_t lr_learned_count(const struct lr_learned *l);

void lr_learned_free(struct lr_learned *l);

/*
 * --learn: merge into the file open on FD (read and written, under an
 * exclusive lock) what would allow DENIALS, widened; INCLUDE the profile
 * of CTX first.  *SETTINGS: how many settings the file holds now.  0, or
 * -errno (the file is left as it was, but for an error while writing).
 */
int lr_learn_file_update(int fd, const struct lr_denials *denials,
			 const struct lr_learn_context *ctx, size_t *settings);

#endif /* LANDRUN_LEARN_H */
