/* SPDX-License-Identifier: MIT */
/*
 * Load the filter that lr-seccomp-gen compiled with libseccomp at build time
 * for this plan: one seccomp(2) call at run time instead of libseccomp's
 * rule adds and BPF generation (about 1.5 ms, most of landrun's start-up).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/sandbox/seccomp.h"
#include "seccomp-bpf.h"

const struct sock_fprog *lr_seccomp_prebuilt(const struct lr_plan *plan)
{
	return &lr_bpf[lr_seccomp_key(plan)];
}

static int load(const struct sock_fprog *prog, const char *what, char *err, size_t errlen)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0) {
		int e = errno;

		/* a caller's filter (a container engine's profile) may refuse
		 * seccomp(2) and allow prctl, which loads the same filter (no
		 * flags are used) */
		if (e != EFAULT && e != EINVAL && e != ENOMEM &&
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) == 0)
			return 0;
		lr_errf(err, errlen, "seccomp: cannot load the %s: %s", what, strerror(e));
		return -e;
	}
	return 0;
}

const struct sock_fprog *lr_seccomp_prebuilt_egress(void)
{
	return &lr_bpf_egress_prog;
}

int lr_seccomp_load_egress(char *err, size_t errlen)
{
	return load(&lr_bpf_egress_prog, "egress helper's filter", err, errlen);
}

int lr_seccomp_load_prebuilt(const struct lr_plan *plan, char *err, size_t errlen)
{
	return load(lr_seccomp_prebuilt(plan), "filter", err, errlen);
}

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

const struct sock_fprog *lr_seccomp_prebuilt_notify(bool reads, bool metadata)
{
	return lr_seccomp_prebuilt_notify_for(true, reads, metadata, false);
}

const struct sock_fprog *lr_seccomp_prebuilt_notify_for(bool fs, bool reads, bool metadata,
							 bool connect)
{
	static const struct sock_fprog *const progs[2][2][2] = {
		/* [connect][metadata][reads] */
		{ { &lr_bpf_notify_writes_prog, &lr_bpf_notify_reads_prog },
		  { &lr_bpf_notify_writes_root_prog, &lr_bpf_notify_reads_root_prog } },
		{ { &lr_bpf_notify_writes_connect_prog, &lr_bpf_notify_reads_connect_prog },
		  { &lr_bpf_notify_writes_root_connect_prog,
		    &lr_bpf_notify_reads_root_connect_prog } },
	};

	if (!fs)
		return &lr_bpf_notify_connect_prog; /* (nothing to send but connect) */
	return progs[connect][metadata][reads];
}

const struct sock_fprog *lr_seccomp_prebuilt_broker(bool tcp)
{
	return tcp ? &lr_bpf_broker_connect_prog : &lr_bpf_broker_prog;
}

int lr_seccomp_load_notify(bool fs, bool reads, bool metadata, bool connect, char *err,
			   size_t errlen)
{
	const struct sock_fprog *prog = lr_seccomp_prebuilt_notify_for(fs, reads, metadata, connect);
	/* once the broker has a call, a signal does not interrupt it (Linux
	 * 5.19): a call it made is not made again when the command retries */
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			  prog);

	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     prog);
	if (fd < 0) {
		int e = errno;

		lr_errf(err, errlen, "seccomp: cannot load the broker's filter: %s", strerror(e));
		return -e;
	}
	return (int)fd;
}

int lr_seccomp_load_broker(bool tcp, char *err, size_t errlen)
{
	return load(lr_seccomp_prebuilt_broker(tcp), "broker's own filter", err, errlen);
}

const struct sock_fprog *lr_seccomp_prebuilt_trace(void)
{
	return &lr_bpf_trace_prog;
}

const struct sock_fprog *lr_seccomp_prebuilt_tracer(void)
{
	return &lr_bpf_tracer_prog;
}

unsigned lr_seccomp_to_trap(const struct sock_fprog *prog, struct sock_fprog *out)
{
	unsigned turned = 0;

	out->len = prog->len;
	for (unsigned i = 0; i < prog->len; i++) {
		struct sock_filter f = prog->filter[i];

		if (f.code == (BPF_RET | BPF_K) &&
		    (f.k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO) {
			f.k = SECCOMP_RET_TRAP | LR_SECCOMP_TRAP_MARK | (f.k & 0xffu);
			turned++;
		}
		out->filter[i] = f;
	}
	return turned;
}

int lr_seccomp_load_trace(const struct lr_plan *plan, char *err, size_t errlen)
{
	const struct sock_fprog *prog = lr_seccomp_prebuilt(plan);
	struct sock_fprog trap = { 0 };
	int r;

	trap.filter = calloc(prog->len, sizeof(*trap.filter));
	if (!trap.filter) {
		lr_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lr_seccomp_to_trap(prog, &trap);
	r = load(&trap, "trap filter (--report-denials)", err, errlen);
	free(trap.filter);
	if (r == 0)
		r = load(&lr_bpf_trace_prog, "trace filter (--report-denials)", err, errlen);
	return r;
}

int lr_seccomp_load_tracer(char *err, size_t errlen)
{
	return load(&lr_bpf_tracer_prog, "filter of the tracer", err, errlen);
}

const char *lr_seccomp_call_name(long nr)
{
	if (nr < 0 || nr >= LR_SYSCALL_NAMES)
		return NULL;
	return lr_syscall_names[nr];
}

int lr_seccomp_call_when(long nr)
{
	if (nr < 0 || nr >= LR_SYSCALL_NAMES || !lr_syscall_when[nr])
		return -1;
	return lr_syscall_when[nr] - 1;
}

int lr_seccomp_witness_check(void)
{
	/* unshare(0) changes nothing, and the filter denies every unshare */
	if (syscall(SYS_unshare, 0) == 0)
		return -EPERM;
	return errno == EPERM ? 0 : -errno;
}
