/* SPDX-License-Identifier: MIT */
/*
 * The filters as written with libseccomp (seccomp.c): for the generator
 * (seccomp-gen.c), the unit tests and the benchmarks, at build time only.
 * landrun loads what the generator compiled (landrun/sandbox/seccomp.h) and
 * never links libseccomp.
 */
#ifndef LANDRUN_SECCOMP_BUILD_H
#define LANDRUN_SECCOMP_BUILD_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>

#include "landrun/plan/plan.h"
#include "landrun/sandbox/seccomp.h"

/* Build the filter the plan asks for.  Returns the context, or NULL with ERR. */
scmp_filter_ctx lr_seccomp_build(const struct lr_plan *plan, char *err, size_t errlen);

/* The egress helper's filter (egress.h): the kernel surface as for a
 * command, no new process, no exec, no file opened for writing or created,
 * sockets for TCP and UDP only (no listen: its listeners come made). */
scmp_filter_ctx lr_seccomp_build_egress(char *err, size_t errlen);

/* The broker's (broker.h): the notification filter of the command, sending
 * every open but O_PATH's (READS) or only those that write, and every call
 * that makes, removes or renames a name (and, for uid 0, chmod and chown:
 * _root); and the broker's own filter. */
scmp_filter_ctx lr_seccomp_build_notify_reads(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_writes(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_reads_root(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_writes_root(char *err, size_t errlen);
/* The same with connect(2) too (_connect: --allow-domain with no network
 * namespace, whose proxy the broker connects to), and connect(2) alone
 * (with the broker's witness). */
scmp_filter_ctx lr_seccomp_build_notify_reads_connect(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_writes_connect(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_reads_root_connect(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_writes_root_connect(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_notify_connect(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_broker(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_broker_connect(char *err, size_t errlen);

/* Load it into the calling thread.  0, or -errno with ERR. */
int lr_seccomp_load(scmp_filter_ctx ctx, char *err, size_t errlen);

/*
 * The calls the filter denies whatever their arguments.  NR is the call's
 * number for a call newer than some libseccomp landrun builds with (0: ask
 * libseccomp); a name that neither knows fails the build, never the filter.
 */
struct lr_seccomp_call {
	const char *name;
	int nr;
	int err;
	enum lr_seccomp_when when;
};

extern const struct lr_seccomp_call lr_seccomp_calls[];
extern const size_t lr_seccomp_n_calls;

/* True if the filter for PLAN denies C. */
bool lr_seccomp_call_denied(const struct lr_seccomp_call *c, const struct lr_plan *plan);

/* The calls the trace filter sends to the tracer. */
extern const char *const lr_seccomp_traced[];
extern const size_t lr_seccomp_n_traced;

/* Build the trace filter, or the filter of the tracer itself.  NULL with ERR. */
scmp_filter_ctx lr_seccomp_build_trace(char *err, size_t errlen);
scmp_filter_ctx lr_seccomp_build_tracer(char *err, size_t errlen);

#endif /* LANDRUN_SECCOMP_BUILD_H */
