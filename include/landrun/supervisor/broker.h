/* SPDX-License-Identifier: MIT */
/*
 * The broker: what Landlock cannot grant inside a writable grant, done on
 * the command's behalf by a process outside its sandbox.
 *
 * Landlock binds rules to the inodes that exist at start, and cannot take a
 * right away beneath a grant.  So the command's own domain gets, beneath
 * every brokered directory, the rights that reach existing files (read,
 * write, truncate, execute), and none that change names (create, remove,
 * rename, link): those calls, and the opens that may need them, reach the
 * broker through seccomp user notification (seccomp_unotify(2)).  The
 * broker resolves the call as the command would (its cwd, its dirfd),
 * accepts it only when the result lies beneath a brokered directory that it
 * pinned at start, refuses protected and secret names there (whether or not
 * they exist), and then performs the call itself beneath that directory
 * (openat2 with RESOLVE_BENEATH), handing back a descriptor with
 * SECCOMP_IOCTL_NOTIF_ADDFD.  A call it does not serve continues in the
 * kernel, where Landlock alone decides it: the broker never lets a call it
 * judged continue, since the command's memory may change in between.
 *
 * The broker is its own process, forked by the command's process (twice,
 * so that it is nobody's child but a supervisor's) after that process has
 * entered an outer Landlock domain holding every grant uncarved, and before
 * it enters its own, which is nested inside: so the broker may read the
 * command's memory and /proc entries (Landlock lets a domain reach only the
 * processes of the domains beneath it), and reach nothing but the grants.
 * Its seccomp filter forbids new processes, programs and sockets.  It ends
 * when the last process under the command's filter has.
 */
#ifndef LANDRUN_BROKER_H
#define LANDRUN_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/lib/util.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/landlock.h"

/* The witness: mkdirat(LR_BROKER_PING_DIRFD, NULL, 0) is answered with
 * LR_BROKER_PING_ANSWER by a broker, EBADF by the kernel; with mode 1, the
 * next refusal is not told (landrun's own witness of a secret); with mode
 * 2, mode 1 is honoured no more (before the command runs: what it asks so
 * would hide its refusals from the user).  (The dirfd is seccomp.h's: the
 * broker's filters send it.) */
#define LR_BROKER_PING_DIRFD (-0x4c52)
#define LR_BROKER_PING_ANSWER 0x4c52

/* Lines the broker writes about what it refused, before it stays quiet. */
#define LR_BROKER_MAX_MESSAGES 20

/*
 * --report-denials: what the broker tells the supervisor (lr_broker.report,
 * one datagram each), since the calls it sees never reach the tracer (its
 * user notification comes before the trace filter's SECCOMP_RET_TRACE):
 *   - what it refused itself: a chmod or chown of uid 0's outside the
 *     brokered grants (OP LR_DENIED_CALL, with NR and ARGS), an open of its
 *     opener's that the command's domain denied (where a secret is carved
 *     in a brokered grant, every open is the broker's);
 *   - a call outside the brokered grants that it leaves to Landlock, when
 *     the grants Landlock has (the broker's own domain: every grant) give
 *     none of the rights it needs: made (mkdir, mknod, an open that
 *     creates), removed, written (an open for writing).  It checks that the
 *     entry is, or is not, there, and that the file permissions allow it.
 * PATH is canonical, as the tracer's; the text is the command's (escaped
 * wherever it is shown).
 */
struct lr_broker_told {
	int32_t op;		/* enum lr_denied_op */
	int32_t err;
	int32_t pid;		/* the thread group */
	int32_t nr;		/* LR_DENIED_CALL: the call */
	uint64_t args[6];
	uint64_t when;		/* CLOCK_MONOTONIC, in ns */
	uint8_t dir;		/* LR_DENIED_CREATE: a directory */
	char comm[16];
	char path[];		/* NUL-terminated (but for LR_DENIED_CALL: empty) */
};

/* What the broker remembers it told, not to tell it again. */
#define LR_BROKER_TOLD_MAX 256

/* The unnamed files (O_TMPFILE) it made that it remembers, for a linkat to
 * name: the last ones made. */
#define LR_BROKER_TMPFILES 256
struct lr_broker_tmpfile {
	uint64_t dev, ino;
};

/* A brokered directory: a writable grant, pinned. */
struct lr_broker_root {
	int fd;			/* O_PATH | O_DIRECTORY */
	char *path;		/* canonical */
};

/* A hole's inode, for names that reach it other than its own. */
struct lr_broker_inode {
	dev_t dev;
	ino_t ino;
	enum lr_hole_kind kind;
	const char *path;	/* the hole's, borrowed */
	const char *why;
};

struct lr_broker {
	struct lr_broker_root *roots;
	size_t n_roots;
	struct lr_fs_rules outer;	/* the grants uncarved: the broker's domain */
	struct lr_holes *holes;		/* borrowed: by path */
	const struct lr_policy *policy;	/* borrowed: the user's secret globs */
	struct lr_broker_inode *inodes;	/* and by inode (those that exist) */
	size_t n_inodes;
	struct lr_strlist allowed_protected;	/* --allow-protected, canonical */
	struct lr_strlist allowed_secret;	/* --allow-dotenv, canonical */
	bool reads;		/* every open is the broker's (a secret carved in a brokered
				 * directory, which Landlock now lets be read) */
	bool metadata;		/* uid 0: chmod and chown are the broker's too */
	uint16_t egress_port;	/* --allow-domain with no network namespace: the proxy's
				 * port on 127.0.0.1, which the broker connects to for the
				 * command (plan->broker_connect); 0 if not */
	bool connect_own;	/* ... with a TCP socket of its own, put in the place of the
				 * command's (plan->broker_connect_own: no pidfd_getfd) */
	uint64_t own_socks[32];	/* the inodes of the last ones, whose connect is made */
	unsigned n_own_socks;
	int ruleset;		/* reads: the command's Landlock ruleset, for the opener */
	uint32_t restrict_flags;
	int domain;		/* the command's side, once started: that ruleset, made
				 * once, which the command enters too (confine); -1 */

	/* the command's side, once started */
	pid_t pid;		/* the broker */
	int sock;		/* where the listener goes */

	/* the broker's side */
	int listener;
	int opener;		/* reads: the socket to the opener, a process in the
				 * command's own domain that opens what the broker does not
				 * serve, for the broker to judge */
	unsigned messages;	/* refusals told */
	int report;		/* --report-denials: the supervisor's socket, or -1
				 * (struct lr_broker_told) */
	uint64_t told[LR_BROKER_TOLD_MAX];	/* hashes of what was told */
	size_t n_told;
	struct lr_broker_tmpfile tmpfiles[LR_BROKER_TMPFILES];	/* a ring */
	size_t n_tmpfiles;	/* made so far */
	bool quiet;		/* the next refusal is landrun's own witness's */
	bool sealed;		/* the command runs: no more quiet */
	bool as_parent;		/* the broker is the command's parent (plan->broker_parent) */
	bool supervised;	/* ... under landrun's supervisor, which signals every
				 * process of the tree itself */
};

/* What a path is to the broker. */
enum lr_broker_verdict {
	LR_BROKER_OK,
	LR_BROKER_SECRET,	/* a secret file's name or place: no access at all */
	LR_BROKER_PROTECTED,	/* what runs later outside: read-only, not made */
};

/*
 * Choose the brokered directories among RULES (opened, not yet carved): the
 * writable directory grants but landrun's private ones (--private-tmp,
 * --private-home), and keep a copy of RULES as they are, for the broker's
 * own domain.  0 (B->n_roots may be 0: nothing to broker), or -errno with
 * ERR.
 */
int lr_broker_choose(struct lr_broker *b, const struct lr_policy *policy,
		     const struct lr_fs_rules *rules, char *err, size_t errlen);

/*
 * After carving (landlock.c): take from every rule beneath a brokered
 * directory the rights that change names, which the broker serves.  Where a
 * secret was carved away beneath one, its directory gives Landlock's rights
 * to read and execute (else nothing made there could be run), every open
 * goes to the broker (B->reads), which keeps the secret out, and the hole is
 * marked brokered.  HOLES are what was carved around (kept, borrowed).  0,
 * or -errno with ERR.
 */
int lr_broker_restrict(struct lr_broker *b, const struct lr_plan *plan,
		       struct lr_fs_rules *rules, struct lr_holes *holes, char *err,
		       size_t errlen);

/*
 * The command's process, with no_new_privs set and its user switched:
 * enter the outer domain (PLAN's handled rights, B->outer, /proc to read)
 * and start the broker, which waits for the listener.  0, or -errno with
 * ERR.
 */
int lr_broker_start(struct lr_broker *b, const struct lr_plan *plan,
		    const struct lr_policy *policy, const struct lr_fs_rules *rules, char *err,
		    size_t errlen);

/*
 * After lr_broker_hand_over: every secret the broker keeps out (brokered)
 * must be refused.  0; -EPERM with ERR naming the first that is not.
 * Either way, the broker then tells every refusal (mode 2 above).
 */
int lr_broker_holes_check(const struct lr_broker *b, char *err, size_t errlen);

/*
 * The command's process, last: load the notification filter, hand its
 * listener to the broker and check that it answers.  0, or -errno with
 * ERR (the command must not run: calls the filter sends would fail).
 */
int lr_broker_hand_over(struct lr_broker *b, char *err, size_t errlen);

/*
 * The verdict on PATH (canonical but for its last component, which is as
 * named), beneath brokered directory ROOT: a protected name in any
 * component beneath the root, a secret name as the last, or a hole at or
 * above it, but for what --allow-protected and --allow-dotenv accept.  *WHY
 * says what runs it, or that it is a secret.  Pure: for the tests.
 */
enum lr_broker_verdict lr_broker_judge(const struct lr_broker *b, const char *root,
				       const char *path, const char **why);

/*
 * What serving a call does before it acts: find the name PATH, as the
 * command gave it from the directory BASE (an O_PATH descriptor), beneath
 * one of B's roots, and judge it.  0 with the path the broker would act on
 * (FOUND: its directory canonical, its last component as named) and the
 * verdict; or -errno when the name is not the broker's (the call continues
 * for Landlock).  For the tests and the fuzz target.
 */
int lr_broker_resolve(const struct lr_broker *b, int base, const char *path, char *found,
		      size_t size, enum lr_broker_verdict *verdict);

#endif /* LANDRUN_BROKER_H */
