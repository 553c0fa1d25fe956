/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (tini's job, for a confined command).  landrun forks as
 * soon as it knows it wants one; the child does everything landrun does
 * without a supervisor (reads the --env-file, opens the grants, carves,
 * confines itself, execs), and the parent stays behind, without any of it.
 *
 *   parent                               child
 *   lr_supervise_start ---- fork ------> lr_supervise_start returns 0
 *   lr_supervise_confine                 (landrun's setup, as without)
 *   lr_supervise_accept  <-- ready ----- lr_supervise_ready (a record, an fd)
 *   lr_supervise_go      --- go -------> (lr_supervise_ready returns 0)
 *   lr_supervise_wait                    confine, execve
 *
 * The handshake (accept, ready, go) only with sv->handshake: when something
 * (the audit log's "started" record) must be done before the command runs;
 * without it the two go their ways at once.
 *
 * The supervisor forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 and SIGWINCH to the command's process group, reaps every orphan
 * (as PID 1, or as a child subreaper), ends the whole tree on a timeout or
 * when its own parent dies, and, when the command has exited, ends whatever
 * it left behind: SIGTERM, a grace period, SIGKILL.  A forwarded SIGTERM (a
 * stop: docker stop) starts the grace too: what is left of the tree when it
 * is over is killed, so that the run ends, with its record, before the
 * caller's own SIGKILL.  "The tree" is every
 * descendant, found in /proc by parent pid (orphans, daemons included, are
 * reparented to the supervisor) and signalled through a pidfd.
 *
 * With a pty (--pty), the command does not get the user's terminal at all:
 * it runs in a session of its own on a new pseudo-terminal, whose master the
 * supervisor relays to and from the terminal (in raw mode).  The relay never
 * blocks: both sides are non-blocking, each direction has a bounded buffer,
 * and a side whose buffer is full is not read until it drains (the command
 * then waits in its write, or what is typed waits in the terminal), so
 * signals, the timeout and reaping are served whatever the command writes
 * or refuses to read.  When the
 * command ends, the relay stops and the pty is closed, so nothing it left
 * behind can read what is typed afterwards, and the command may use
 * sessions, process groups and job control freely inside (as sudo's
 * use_pty).  What the command writes passes a filter on its way to the
 * terminal (termfilter.h): sequences that act beyond the screen (the
 * clipboard, reports that echo text back as input) are dropped, and the
 * modes it left on (mouse, alternate screen...) are turned off at the end.
 *
 * Whether there is a supervisor, and what its outcome means (the exit
 * status, the audit record), main.c decides: this module forks, waits and
 * reports.
 */
#ifndef LANDRUN_SUPERVISE_H
#define LANDRUN_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>

#include "landrun/plan/features.h"
#include "landrun/policy/policy.h"

struct lr_relay_buf;
struct lr_term_filter;

struct lr_supervisor {
	/* set by the caller */
	unsigned long long timeout_ms;	/* 0: none */
	unsigned long long grace_ms;	/* from SIGTERM to SIGKILL when the tree is ended */
	bool die_with_parent;
	bool go_on_unconfined;		/* a witness of its own that fails: warn only */
	bool handshake;			/* the child waits for lr_supervise_go */
	bool pty;			/* relay the terminal through a new pty */
	bool pty_passthrough;		/* its filter drops nothing (termfilter.h) */
	/*
	 * A tracer (--report-denials, trace.h), or NULL: every ptrace stop and
	 * every end of a traced process that lr_supervise_wait reaps goes to
	 * TRACE(TRACE_DATA, pid, status) first.  It returns 0 when it dealt
	 * with it, the stop signal when the process entered a group-stop (the
	 * supervisor then stops too, as for an untraced command), -1 when it
	 * is the supervisor's business (an end).  With a tracer, the
	 * supervisor has no Landlock domain of its own (it would forbid
	 * reading the command's /proc entries) and the tracer's filter.
	 */
	int (*trace)(void *data, pid_t pid, int status);
	void *trace_data;

	/* set by lr_supervise_start */
	pid_t child;			/* the command, once it execs (0 in the child) */
	pid_t parent;			/* landrun's parent at the start */
	bool pid1;			/* landrun is PID 1 of its namespace */
	bool tty;			/* fd 0 is the terminal of landrun's session */
	bool proc_ours;			/* /proc shows this PID namespace */
	int sock;			/* this side of the socket pair between the two */
	int master;			/* --pty, the parent: the pty's master (else -1) */
	int term;			/* --pty: the user's terminal (fd 0, 1 or 2), or -1 */
	struct termios term_mode;	/* --pty: its mode before the relay made it raw */
	bool raw;			/* --pty: it is raw now */
	bool master_eof;		/* --pty: nothing holds the slave (read gives EIO) */
	/* --pty, the relay: the user's terminal opened anew, non-blocking (a
	 * description of its own: the shell's keeps its flags), or sv->term
	 * made non-blocking, its flags in term_flags (else -1) to restore */
	int term_fd;
	int term_flags;
	bool term_gone;			/* its writes fail: what the command writes is dropped */
	struct lr_relay_buf *to_term;	/* the command's output, bounded */
	struct lr_relay_buf *to_pty;	/* what is typed, bounded */
	struct lr_term_filter *filter;	/* what goes to the terminal passes it */
	sigset_t saved_mask;
	struct timespec start;		/* CLOCK_MONOTONIC, at the fork */
	pid_t own[2];			/* landrun's own processes in the tree (lr_supervise_own) */
	/* with a tracer: the child ended during lr_supervise_accept */
	bool early_ended;
	int early_status;
	unsigned long long early_ms;
};

/* Why the run ended. */
enum lr_end {
	LR_END_EXITED,		/* the command ended by itself */
	LR_END_TIMEOUT,		/* --timeout: the supervisor ended the tree */
	LR_END_SIGNAL,		/* a terminating signal was forwarded before it ended */
	LR_END_PARENT_DIED,	/* --die-with-parent: the supervisor ended the tree */
};

struct lr_outcome {
	bool ended;			/* the command's status is in (else it escaped) */
	int status;			/* the command's wait status */
	enum lr_end why;
	int signal;			/* LR_END_SIGNAL: the first one forwarded */
	unsigned long long duration_ms;	/* from the fork to the command's end */
	unsigned left_behind;		/* processes still there after the command, ended */
	bool killed;			/* some of the tree needed SIGKILL */
	struct rusage rusage;		/* of every process waited for (the orphans too) */
};

/* Is one of fd 0, 1 and 2 a terminal (what --pty would relay)? */
bool lr_supervise_has_terminal(void);

/*
 * Fork.  In the parent: blocks the forwarded signals, becomes a child
 * subreaper (unless PID 1), and returns the child's pid.  In the child:
 * returns 0; the child is in a process group of its own, holds the
 * terminal's foreground if landrun did (with a pty: in a session of its own,
 * whose controlling terminal is the new pty, on each of fd 0, 1 and 2 that
 * was a terminal), and dies with SIGKILL if the supervisor does; with a
 * handshake its signals stay blocked until lr_supervise_ready.
 * -errno with ERR when the fork itself failed.
 */
pid_t lr_supervise_start(struct lr_supervisor *sv, char *err, size_t errlen);

/*
 * The parent: close every file descriptor but 0, 1, 2, its socket and the N
 * in KEEP, become the user the command runs as (RUN_AS, --user: else it could
 * not signal the command), drop every capability, set no_new_privs, and
 * confine itself with
 * Landlock (nothing but reading /proc; it may still signal the command, whose
 * Landlock domain is not inside its own) and the strictest of landrun's
 * seccomp filters (no new process, no socket); a tracer, with no Landlock
 * domain, the tracer's filter instead (no new process, no socket, no file
 * changed, nothing executed).  Through confine.h's sequence, each layer
 * proved by its witness (one that fails stops it, but with
 * go_on_unconfined).  0, or -errno with ERR.
 */
int lr_supervise_confine(struct lr_supervisor *sv, const struct lr_features *features,
			 const struct lr_run_as *run_as, const int *keep, size_t n, char *err,
			 size_t errlen);

/* The most descriptors the child hands over. */
#define LR_SUPERVISE_MAX_FDS 4

/* What each of them is, named in the handshake beside it (never by its
 * place in the list). */
enum lr_supervise_fd_kind {
	LR_SUPERVISE_FD_AUDIT = 'a', /* --audit-log, opened by the child */
	LR_SUPERVISE_FD_LEARN = 'l', /* --learn FILE */
	LR_SUPERVISE_FD_OWN = 'o',   /* a pidfd of landrun's own (lr_supervise_own) */
};

struct lr_supervise_fd {
	int fd;
	char kind; /* enum lr_supervise_fd_kind */
};

/*
 * The child, when it is ready to confine itself: hand RECORD (a string, or
 * NULL) and the N descriptors FDS, each with its kind, to the parent, and
 * wait for its word.  0: go on, with the signal mask restored; -ECANCELED:
 * the parent gave up (and said why).
 */
int lr_supervise_ready(struct lr_supervisor *sv, const char *record,
		       const struct lr_supervise_fd *fds, size_t n);

/*
 * The parent: wait for the child's word.  1: ready, with *RECORD (malloc'd,
 * or NULL if it sent none) and the descriptors in FDS (N of them, each with
 * the kind the child named; fd -1 past those it sent); 0: the child ended
 * before (its status is for lr_supervise_wait); -EPROTO: the kinds did not
 * name what came (nothing is kept); -errno.
 */
int lr_supervise_accept(struct lr_supervisor *sv, char **record, struct lr_supervise_fd *fds,
			size_t n);

/*
 * The parent: PIDFD (a pidfd the child handed over; closed here) is a
 * process of landrun's own in the tree, the egress helper or the broker,
 * which ends with the command: ended like the rest, but not counted as left
 * behind.  Two at most.
 */
void lr_supervise_own(struct lr_supervisor *sv, int pidfd);

/* The parent: let the child go on to confine itself and exec.  0, or -errno. */
int lr_supervise_go(struct lr_supervisor *sv);

/* The parent, instead: the child exits before it runs anything; reaped here. */
void lr_supervise_abandon(struct lr_supervisor *sv);

/*
 * The parent: supervise until the command and every process it left behind
 * are gone.  0, or -errno (what could be ended was).
 */
int lr_supervise_wait(struct lr_supervisor *sv, struct lr_outcome *out);

#endif /* LANDRUN_SUPERVISE_H */
