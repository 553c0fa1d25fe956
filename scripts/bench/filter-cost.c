/* SPDX-License-Identifier: MIT */
/*
 * filter-cost: how many classic-BPF instructions each hot system call runs
 * through in landrun's seccomp filter, as the kernel would run them.
 *
 * Builds the filter exactly as landrun does (lr_policy_init, lr_features_probe,
 * lr_plan_compute, lr_seccomp_build), exports it with seccomp_export_bpf, and
 * interprets it over a struct seccomp_data per system call (AUDIT_ARCH_X86_64,
 * arguments zero unless a column says otherwise), counting instructions until RET.
 *
 *   filter-cost            table for the default plan and for --connect-tcp 443
 *   filter-cost --time N   also: mean microseconds to build + export the filter
 *
 * Built and run by scripts/bench-runtime.sh (mode "filter"); links
 * build-bench/liblandrun.a.  Exit 0, or 2 on a harness error.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/sandbox/seccomp.h"
#include "seccomp-build.h"

#define MAX_INSNS 65536

struct prog {
	struct sock_filter *insn;
	size_t n;
};

/* The filter's bytes, through a memfd (libseccomp 2.5 has no export to memory). */
static int export_filter(scmp_filter_ctx ctx, struct prog *p)
{
	int fd = (int)syscall(SYS_memfd_create, "bpf", 0);
	off_t size;

	if (fd < 0)
		return -errno;
	if (seccomp_export_bpf(ctx, fd) < 0 || (size = lseek(fd, 0, SEEK_END)) <= 0) {
		close(fd);
		return -EIO;
	}
	p->n = (size_t)size / sizeof(struct sock_filter);
	p->insn = malloc((size_t)size);
	if (!p->insn || pread(fd, p->insn, (size_t)size, 0) != size) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* A classic-BPF interpreter, as in the kernel's seccomp (no packet loads
 * but from struct seccomp_data, 32-bit words).  Returns the number of
 * instructions executed up to and including RET, or -1 on a bad program. */
static long run(const struct prog *p, const struct seccomp_data *d, uint32_t *ret)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	const unsigned char *data = (const unsigned char *)d;
	long count = 0;

	for (size_t pc = 0; pc < p->n; pc++) {
		const struct sock_filter *f = &p->insn[pc];
		uint32_t k = f->k, src;

		count++;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			switch (BPF_MODE(f->code)) {
			case BPF_ABS:
				if (BPF_SIZE(f->code) != BPF_W || k + 4 > sizeof(*d) || k % 4)
					return -1;
				memcpy(&A, data + k, 4);
				break;
			case BPF_IMM: A = k; break;
			case BPF_MEM: if (k >= BPF_MEMWORDS) return -1; A = M[k]; break;
			case BPF_LEN: A = sizeof(*d); break;
			default: return -1;
			}
			break;
		case BPF_LDX:
			switch (BPF_MODE(f->code)) {
			case BPF_IMM: X = k; break;
			case BPF_MEM: if (k >= BPF_MEMWORDS) return -1; X = M[k]; break;
			case BPF_LEN: X = sizeof(*d); break;
			default: return -1;
			}
			break;
		case BPF_ST: if (k >= BPF_MEMWORDS) return -1; M[k] = A; break;
		case BPF_STX: if (k >= BPF_MEMWORDS) return -1; M[k] = X; break;
		case BPF_ALU:
			src = BPF_SRC(f->code) == BPF_X ? X : k;
			switch (BPF_OP(f->code)) {
			case BPF_ADD: A += src; break;
			case BPF_SUB: A -= src; break;
			case BPF_MUL: A *= src; break;
			case BPF_DIV: if (!src) return -1; A /= src; break;
			case BPF_MOD: if (!src) return -1; A %= src; break;
			case BPF_AND: A &= src; break;
			case BPF_OR: A |= src; break;
			case BPF_XOR: A ^= src; break;
			case BPF_LSH: A <<= (src & 31); break;
			case BPF_RSH: A >>= (src & 31); break;
			case BPF_NEG: A = -A; break;
			default: return -1;
			}
			break;
		case BPF_JMP: {
			bool t;

			src = BPF_SRC(f->code) == BPF_X ? X : k;
			switch (BPF_OP(f->code)) {
			case BPF_JA: pc += k; continue;
			case BPF_JEQ: t = A == src; break;
			case BPF_JGT: t = A > src; break;
			case BPF_JGE: t = A >= src; break;
			case BPF_JSET: t = (A & src) != 0; break;
			default: return -1;
			}
			pc += t ? f->jt : f->jf;
			break;
		}
		case BPF_RET:
			*ret = BPF_RVAL(f->code) == BPF_A ? A : k;
			return count;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		default:
			return -1;
		}
	}
	return -1; /* fell off the end */
}

static const char *action_name(uint32_t r)
{
	static char buf[32];

	switch (r & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW: return "allow";
	case SECCOMP_RET_KILL_PROCESS: return "kill";
	case SECCOMP_RET_KILL_THREAD: return "kill-thread";
	case SECCOMP_RET_ERRNO:
		snprintf(buf, sizeof(buf), "errno %u", r & SECCOMP_RET_DATA);
		return buf;
	default:
		snprintf(buf, sizeof(buf), "0x%08x", r);
		return buf;
	}
}

static const struct {
	const char *name;
	int nr;
	uint64_t a0, a1, a2;
} calls[] = {
	/* the hot path of compilers, git, node, python */
	{ "read", SYS_read, 3 }, { "write", SYS_write, 1 }, { "openat", SYS_openat, (uint64_t)-100 },
	{ "close", SYS_close, 3 }, { "mmap", SYS_mmap }, { "munmap", SYS_munmap },
	{ "mprotect", SYS_mprotect }, { "brk", SYS_brk }, { "futex", SYS_futex },
	{ "epoll_wait", SYS_epoll_wait }, { "epoll_pwait", SYS_epoll_pwait },
	{ "fstat", SYS_fstat }, { "newfstatat", SYS_newfstatat }, { "statx", SYS_statx },
	{ "lseek", SYS_lseek }, { "pread64", SYS_pread64 }, { "getdents64", SYS_getdents64 },
	{ "fcntl", SYS_fcntl }, { "rt_sigaction", SYS_rt_sigaction },
	{ "rt_sigprocmask", SYS_rt_sigprocmask }, { "clock_gettime", SYS_clock_gettime },
	{ "getpid", SYS_getpid }, { "access", SYS_access }, { "readlink", SYS_readlink },
	{ "poll", SYS_poll }, { "wait4", SYS_wait4 }, { "execve", SYS_execve },
	/* argument-checked calls (arguments as a normal program passes them) */
	{ "ioctl(TCGETS)", SYS_ioctl, 1, 0x5401 },
	{ "clone(thread)", SYS_clone, 0x3d0f00 },
	{ "clone(fork)", SYS_clone, 0x1200011 },
	{ "socket(UNIX)", SYS_socket, 1, 1 },
	{ "socket(INET,TCP)", SYS_socket, 2, 1 },
	{ "personality(0)", SYS_personality, 0 },
	/* denied */
	{ "unshare", SYS_unshare }, { "ptrace", SYS_ptrace },
	{ "io_uring_setup", SYS_io_uring_setup },
};

static int build(const struct lr_features *feat, bool tcp, struct prog *p)
{
	static struct lr_port_range https = { 443, 443 };
	struct lr_policy policy;
	struct lr_plan plan;
	scmp_filter_ctx ctx;
	char err[512];
	int r;

	lr_policy_init(&policy);
	if (tcp) {
		policy.connect_tcp = &https;
		policy.n_connect_tcp = 1;
	}
	lr_plan_compute(&policy, feat, &plan);
	if (!plan.seccomp) {
		fprintf(stderr, "filter-cost: the plan has no seccomp filter on this kernel\n");
		return -1;
	}
	ctx = lr_seccomp_build(&plan, err, sizeof(err));
	if (!ctx) {
		fprintf(stderr, "filter-cost: %s\n", err);
		return -1;
	}
	r = export_filter(ctx, p);
	seccomp_release(ctx);
	if (r < 0)
		fprintf(stderr, "filter-cost: cannot export the filter: %s\n", strerror(-r));
	return r;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	struct lr_features feat;
	struct prog def = { 0 }, tcp = { 0 };
	int iterations = 0;

	if (argc == 3 && strcmp(argv[1], "--time") == 0)
		iterations = atoi(argv[2]);
	lr_features_probe(&feat);
	if (build(&feat, false, &def) < 0 || build(&feat, true, &tcp) < 0)
		return 2;

	printf("seccomp filter: %zu instructions (default plan), %zu (--connect-tcp 443)\n",
	       def.n, tcp.n);
	printf("%-20s %8s %8s  %s\n", "syscall", "default", "tcp", "action (default)");
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		struct seccomp_data d = {
			.nr = calls[i].nr,
			.arch = AUDIT_ARCH_X86_64,
			.args = { calls[i].a0, calls[i].a1, calls[i].a2 },
		};
		uint32_t r1 = 0, r2 = 0;
		long n1 = run(&def, &d, &r1), n2 = run(&tcp, &d, &r2);

		if (n1 < 0 || n2 < 0) {
			fprintf(stderr, "filter-cost: the interpreter cannot run the filter\n");
			return 2;
		}
		printf("%-20s %8ld %8ld  %s\n", calls[i].name, n1, n2, action_name(r1));
	}

	if (iterations > 0) {
		double t0 = now_us();

		for (int i = 0; i < iterations; i++) {
			struct prog p = { 0 };

			if (build(&feat, false, &p) < 0)
				return 2;
			free(p.insn);
		}
		printf("build + export of the default filter: %.1f us (mean of %d)\n",
		       (now_us() - t0) / iterations, iterations);
	}
	free(def.insn);
	free(tcp.insn);
	return 0;
}
