/* SPDX-License-Identifier: MIT */
/*
 * The seccomp backend: the filter the plan asks for, compiled at build time
 * (tools/seccomp-gen, which also holds how the filters are written:
 * seccomp-build.h), loaded last, just before execve.  Default allow, with
 * the denials of tools/seccomp-gen/seccomp.c; a system call through a
 * foreign ABI kills the process.
 */
#ifndef LANDRUN_SECCOMP_H
#define LANDRUN_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "landrun/plan/plan.h"

/* What the broker's witness passes as mkdirat's dirfd (broker.h). */
#define LR_SECCOMP_PING_DIRFD (-0x4c52)

/* When a call of the table of calls (tools/seccomp-gen/seccomp-build.h) is
 * denied. */
enum lr_seccomp_when {
	LR_SECCOMP_ALWAYS,
	LR_SECCOMP_NO_LISTEN,		/* the network is restricted and listen() not planned */
	LR_SECCOMP_NO_SUBPROCESS,	/* --deny-subprocess */
	LR_SECCOMP_ROOT_METADATA,	/* the command runs as uid 0 */
	LR_SECCOMP_TERMINAL,		/* a terminal is within reach */
	LR_SECCOMP_NOT_TRACER,		/* but in landrun's tracer (plan->tracer) */
	LR_SECCOMP_NOT_BROKER,		/* but in landrun's broker (plan->broker_self) */
	LR_SECCOMP_ROOT_BROKERED,	/* uid 0, unless the broker makes it (broker_metadata) */
	LR_SECCOMP_NO_SYSV_IPC,		/* unless --allow-sysv-ipc */
};

/*
 * The filter reads ten bits of the plan (plan->net, deny_subprocess,
 * deny_root_metadata, deny_terminal, deny_sysv_ipc, broker_metadata), so there
 * are at most 1024 filters (broker_metadata without deny_root_metadata makes
 * none new): lr-seccomp-gen compiles every one at build time.  lr_seccomp_key() names the one for a
 * plan; lr_seccomp_key_plan() fills a plan with the bits of KEY (the
 * generator's way back).
 */
#define LR_SECCOMP_KEYS 1024

static inline unsigned lr_seccomp_key(const struct lr_plan *plan)
{
	const struct lr_seccomp_net *n = &plan->net;
	unsigned key = (unsigned)plan->deny_subprocess | (unsigned)plan->deny_root_metadata << 6 |
		       (unsigned)plan->deny_terminal << 7 | (unsigned)plan->deny_sysv_ipc << 8 |
		       (unsigned)plan->broker_metadata << 9;

	if (n->restricted)
		key |= 2u | (unsigned)n->tcp << 2 | (unsigned)n->listen << 3 |
		       (unsigned)n->udp << 4 | (unsigned)n->unix_socket << 5;
	return key;
}

static inline void lr_seccomp_key_plan(unsigned key, struct lr_plan *plan)
{
	plan->deny_subprocess = key & 1;
	plan->net.restricted = key & 2;
	plan->net.tcp = plan->net.restricted && (key & 4);
	plan->net.listen = plan->net.restricted && (key & 8);
	plan->net.udp = plan->net.restricted && (key & 16);
	plan->net.unix_socket = plan->net.restricted && (key & 32);
	plan->deny_root_metadata = key & 64;
	plan->deny_terminal = key & 128;
	plan->deny_sysv_ipc = key & 256;
	plan->broker_metadata = key & 512;
}

/*
 * --report-denials.  The command's filter is stacked with two more, and
 * seccomp takes the strictest action of them all, so that they cannot
 * allow what the command's filter denies:
 *   - the command's own filter, every SECCOMP_RET_ERRNO turned into
 *     SECCOMP_RET_TRAP with LR_SECCOMP_TRAP_MARK | errno as its data: a
 *     denied call is still not executed, and the tracer sees it (SIGSYS);
 *   - lr_bpf_trace: SECCOMP_RET_TRACE for the calls Landlock may deny (the
 *     tracer reads their results).
 * The tracer's own filter (plan->tracer): lr_seccomp_build_tracer().
 */
#define LR_SECCOMP_TRAP_MARK 0x4c00u
#define LR_SECCOMP_TRAP_MASK 0xff00u

struct sock_fprog;

/* The filter compiled at build time for PLAN. */
const struct sock_fprog *lr_seccomp_prebuilt(const struct lr_plan *plan);

/* Load it (no_new_privs must be set).  0, or -errno with ERR. */
int lr_seccomp_load_prebuilt(const struct lr_plan *plan, char *err, size_t errlen);

/* The egress helper's filter, compiled at build time; and loaded (no_new_privs
 * must be set).  0, or -errno with ERR. */
const struct sock_fprog *lr_seccomp_prebuilt_egress(void);
int lr_seccomp_load_egress(char *err, size_t errlen);

/* After lr_seccomp_load_prebuilt: stack the trap and the trace filters for
 * PLAN (the tracer must trace the caller already).  0, or -errno with ERR. */
int lr_seccomp_load_trace(const struct lr_plan *plan, char *err, size_t errlen);

/* The tracer's own filter, compiled at build time.  0, or -errno with ERR. */
int lr_seccomp_load_tracer(char *err, size_t errlen);

/* The broker's filters, compiled at build time.  _notify loads the
 * command's and returns the listener (or -errno with ERR). */
const struct sock_fprog *lr_seccomp_prebuilt_notify(bool reads, bool metadata);
/* FS: the writable grants' calls (READS, METADATA as above), or only the
 * broker's witness; CONNECT: connect(2) too. */
const struct sock_fprog *lr_seccomp_prebuilt_notify_for(bool fs, bool reads, bool metadata,
							 bool connect);
/* The broker's own; TCP: it may make TCP sockets (the connects to the proxy
 * it makes with a socket of its own, without pidfd_getfd). */
const struct sock_fprog *lr_seccomp_prebuilt_broker(bool tcp);
int lr_seccomp_load_notify(bool fs, bool reads, bool metadata, bool connect, char *err,
			   size_t errlen);
int lr_seccomp_load_broker(bool tcp, char *err, size_t errlen);

/* The trace filter and the tracer's, compiled at build time. */
const struct sock_fprog *lr_seccomp_prebuilt_trace(void);
const struct sock_fprog *lr_seccomp_prebuilt_tracer(void);

/* PROG with every SECCOMP_RET_ERRNO turned into a marked SECCOMP_RET_TRAP,
 * into OUT (room for PROG's length).  The number of returns turned. */
unsigned lr_seccomp_to_trap(const struct sock_fprog *prog, struct sock_fprog *out);

/* The name of the native system call NR ("openat"), or NULL. */
const char *lr_seccomp_call_name(long nr);
/* When the table of calls denies NR (enum lr_seccomp_when), or -1: not in it. */
int lr_seccomp_call_when(long nr);

/* After loading: 0 if a call the filter must deny is denied, -EPERM if not. */
int lr_seccomp_witness_check(void);

#endif /* LANDRUN_SECCOMP_H */
