/* SPDX-License-Identifier: MIT */
/*
 * The tracer of --report-denials: the supervisor traces the command (and
 * every process it starts) with ptrace, from outside the sandbox, and
 * records what it was denied (learn.h says what would allow it).  It sees:
 *
 *   - the calls Landlock may deny (open, exec, mkdir, connect...: the list
 *     in seccomp.h), which the trace filter sends to it (SECCOMP_RET_TRACE):
 *     it reads their results at syscall-exit, and records those that failed
 *     with EACCES or EPERM, unless the file's own permissions deny it too,
 *     and the files the command did not find in its private HOME (ENOENT);
 *   - the calls the seccomp filter denies, which the trap filter turns into
 *     SECCOMP_RET_TRAP: never executed, they stop the caller with SIGSYS,
 *     and the tracer gives it the errno the filter would have (its only
 *     write to the command: the return register of a call that did not run).
 *
 * It reads the command's memory (PTRACE_PEEKDATA) and /proc entries; it
 * never changes a call.  The command cannot use the relationship:
 * PTRACE_O_EXITKILL kills it with the tracer, and the command's filter
 * denies ptrace.  strace's --seccomp-bpf is the model.
 *
 *   supervisor (parent)                     command (child)
 *   lr_trace_attach (PTRACE_SEIZE) right after the fork
 *   ... lr_supervise_go ------------------> loads its filters, execs
 *   lr_supervise_wait -> lr_trace_stop for every stop
 */
#ifndef LANDRUN_TRACE_H
#define LANDRUN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/supervisor/learn.h"

struct lr_trace_pending {
	pid_t tid;
	long nr;
	uint64_t args[6];
};

struct lr_tracer {
	pid_t child;			/* the command */
	struct lr_denials denials;
	int error;			/* the first error (-ENOMEM): the report is short */
	struct lr_trace_pending *pending; /* calls between their seccomp stop and their exit */
	size_t n_pending;
	/* what the command looked for in its private HOME (--private-home,
	 * which is new and empty) and did not find: "~/.config/x", the first
	 * LR_TRACE_HOME_MAX of them; how many there were in all */
	struct lr_strlist home_missing;
	unsigned long n_home_missing;
};

#define LR_TRACE_HOME_MAX 16

/*
 * Trace CHILD (PTRACE_SEIZE, with every option above), before it loads its
 * filters: the supervisor, right after the fork, with the ids it started
 * with.  0, or -errno with ERR.
 */
int lr_trace_attach(struct lr_tracer *t, pid_t child, char *err, size_t errlen);

/*
 * A stop or an end that waitpid reported for PID (lr_supervisor.trace):
 * deal with it and resume PID.  0: done; the stop signal: PID entered a
 * group-stop (it stays stopped, PTRACE_LISTEN); -1: an end, the caller's.
 */
int lr_trace_stop(void *tracer, pid_t pid, int status);

/*
 * What the broker told (broker.h: one struct lr_broker_told, LEN bytes):
 * counted as a denial of T's, as if the tracer had seen it.  0, -EINVAL
 * (not one; nothing counted), or -ENOMEM.
 */
int lr_trace_told(struct lr_tracer *t, const void *msg, size_t len);

void lr_trace_free(struct lr_tracer *t);

#endif /* LANDRUN_TRACE_H */
