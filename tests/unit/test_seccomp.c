/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filter, twice over: as text (libseccomp's pseudo filter code,
 * for plans computed at several ABIs) and as behaviour (the filter loaded
 * into the forked test process, then the calls it must deny and the calls it
 * must let through).  Every denial has a positive control next to it: a
 * filter that denies everything, or nothing, fails here.
 *
 * The pfc text looks like this (binary tree of syscall numbers, then per
 * call the rules, most specific first):
 *
 *	  # filter for syscall "ioctl" (16) [priority: 65532]
 *	  if ($syscall == 16)
 *	    if ($a1.hi32 & 0x00000000 == 0)
 *	      if ($a1.lo32 & 0xffffffff == 21522)
 *	        action ERRNO(1);
 *	...
 *	# invalid architecture action
 *	action KILL_PROCESS;
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include "skip.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/sandbox/seccomp.h"
#include "seccomp-build.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#define HI_JUNK (1ULL << 32)
/* OP_RAW: an argument that becomes the test runner's pid (the parent of the
 * forked test): another process, of the same user */
#define PARENT 0x7ffffff0ULL
/* SysV keys that name nothing */
#define NO_KEY 0x4c520001ULL

/* The policy knobs that change the filter. */
struct knobs {
	int abi;
	bool connect_tcp;	/* --connect-tcp 443 */
	bool bind_tcp;		/* --bind-tcp 8080 */
	bool unrestricted_net;
	bool deny_subprocess;
	bool unix_path;		/* one --unix grant */
	bool root;		/* landrun runs as uid 0 */
	bool terminal;		/* a terminal within reach */
	bool sysv;		/* --allow-sysv-ipc */
};

static void plan_for(const struct knobs *k, struct lr_plan *plan)
{
	static struct lr_port_range connect = { 443, 443 }, bind = { 8080, 8080 };
	struct lr_policy p;
	struct lr_features f = { .landlock_abi = k->abi, .seccomp_filter = true, .uid0 = k->root,
				 .terminal = k->terminal };

	lr_policy_init(&p);
	if (k->connect_tcp) {
		p.connect_tcp = &connect;
		p.n_connect_tcp = 1;
	}
	if (k->bind_tcp) {
		p.bind_tcp = &bind;
		p.n_bind_tcp = 1;
	}
	p.unrestricted_net = k->unrestricted_net;
	p.deny_subprocess = k->deny_subprocess;
	p.n_unix_paths = k->unix_path;
	p.allow_sysv_ipc = k->sysv;
	lr_plan_compute(&p, &f, plan);
	/* borrowed arrays: no lr_policy_free */
}

static scmp_filter_ctx build(const struct knobs *k)
{
	struct lr_plan plan;
	char err[256] = "";
	scmp_filter_ctx ctx;

	plan_for(k, &plan);
	cr_assert(plan.seccomp, "the plan at ABI %d has no seccomp filter", k->abi);
	ctx = lr_seccomp_build(&plan, err, sizeof(err));
	cr_assert_not_null(ctx, "lr_seccomp_build: %s", err);
	return ctx;
}

/* Read back what an export wrote to FD; *LEN gets the size. */
static char *slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;

	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return buf;
}

static char *export_pfc(const struct knobs *k)
{
	scmp_filter_ctx ctx = build(k);
	int fd = memfd_create("pfc", MFD_CLOEXEC);
	size_t len;
	char *text;

	cr_assert_geq(fd, 0);
	cr_assert_eq(seccomp_export_pfc(ctx, fd), 0);
	text = slurp(fd, &len);
	close(fd);
	seccomp_release(ctx);
	return text;
}

static size_t bpf_instructions(const struct knobs *k)
{
	scmp_filter_ctx ctx = build(k);
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	size_t len;
	char *raw;

	cr_assert_geq(fd, 0);
	cr_assert_eq(seccomp_export_bpf(ctx, fd), 0);
	raw = slurp(fd, &len);
	close(fd);
	free(raw);
	seccomp_release(ctx);
	cr_assert_eq(len % 8, 0, "BPF export of %zu bytes", len);
	return len / 8; /* struct sock_filter is 8 bytes */
}

static size_t indent(const char *line)
{
	return strspn(line, " ");
}

/*
 * The rules for syscall NAME: the lines after its "# filter for syscall"
 * comment that are indented deeper than it, as a new string (empty if the
 * filter has no rule for it).
 */
static char *syscall_block(const char *pfc, const char *name)
{
	char head[96];
	const char *h, *line, *end;
	size_t base;
	char *out;

	snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", name);
	h = strstr(pfc, head);
	if (!h)
		return strdup("");
	while (h > pfc && h[-1] == ' ')
		h--;
	base = indent(h);
	line = strchr(h, '\n') + 1;	/* "if ($syscall == N)", same indent */
	end = strchr(line, '\n') + 1;
	while (*end && indent(end) > base)
		end = strchr(end, '\n') + 1;
	out = strndup(line, (size_t)(end - line));
	cr_assert_not_null(out);
	return out;
}

/* True if some line of BLOCK, trimmed, is COND and the next line, trimmed,
 * is ACTION (ACTION NULL: any next line). */
static bool has_rule(const char *block, const char *cond, const char *action)
{
	for (const char *l = block; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *t = l + indent(l), *next;
		size_t n = strcspn(t, "\n");

		if (n != strlen(cond) || strncmp(t, cond, n) != 0)
			continue;
		if (!action)
			return true;
		next = strchr(t, '\n');
		if (!next)
			return false;
		next++;
		next += indent(next);
		if (strncmp(next, action, strlen(action)) == 0 &&
		    (next[strlen(action)] == '\n' || next[strlen(action)] == '\0'))
			return true;
	}
	return false;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/*
 * Calls newer than libseccomp 2.5.4 (Debian 12), by the numbers of the
 * kernel's unified table (the same on x86_64 and arm64), written out here
 * independently of seccomp.c.
 */
static const struct {
	const char *name;
	int nr;
} new_calls[] = {
	{ "fchmodat2", 452 }, { "statmount", 457 }, { "listmount", 458 }, { "setxattrat", 463 },
	{ "removexattrat", 466 }, { "open_tree_attr", 467 }, { "file_setattr", 469 },
	{ "listns", 470 },
};

/* The number of NAME on this architecture: -1 if it has no such call. */
static int call_number(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr >= 0)
		return nr;
	if (nr != __NR_SCMP_ERROR)
		return -1; /* libseccomp knows it, this architecture lacks it */
	for (size_t i = 0; i < ARRAY_SIZE(new_calls); i++)
		if (strcmp(new_calls[i].name, name) == 0)
			return new_calls[i].nr;
	cr_assert_fail("%s: unknown to libseccomp and to this test: add its number", name);
	return -1;
}

/* ------------------------------------------------------------------ */
/* (a) the filter as text                                              */

#define DEFAULT7 { .abi = 7 }
#define DEFAULT9 { .abi = 9 }
#define DEFAULT10 { .abi = 10 }
#define CONNECT7 { .abi = 7, .connect_tcp = true }
#define BIND7 { .abi = 7, .connect_tcp = true, .bind_tcp = true }
#define ONLYBIND7 { .abi = 7, .bind_tcp = true }
#define UNRESTRICTED7 { .abi = 7, .unrestricted_net = true }
#define NOSUB7 { .abi = 7, .deny_subprocess = true }
#define UNIXPATH7 { .abi = 7, .unix_path = true }
#define ROOT7 { .abi = 7, .root = true }
#define TTY7 { .abi = 7, .terminal = true }
#define SYSV7 { .abi = 7, .sysv = true }

#define FAM(v) "if ($a0.lo32 & 0xffffffff == " #v ")"
#define A2(v) "if ($a2.lo32 & 0xffffffff == " #v ")"
#define TYPE(v) "if ($a1.lo32 & 0x0000000f == " #v ")"
#define ERR(e) "action ERRNO(" #e ");"
#define PRESENT true
#define ABSENT false

struct pfc_case {
	char what[64];
	struct knobs k;
	char syscall[24];
	char cond[64];		/* a line of the pfc, trimmed */
	char action[24];	/* the line after it; "" for any */
	bool present;
};

static struct pfc_case pfc_cases[] = {
	/* socket(): families, EAFNOSUPPORT */
	{ "inet denied", DEFAULT7, "socket", FAM(2), ERR(97), PRESENT },
	{ "inet6 denied", DEFAULT7, "socket", FAM(10), ERR(97), PRESENT },
	{ "packet denied", DEFAULT7, "socket", FAM(17), ERR(97), PRESENT },
	{ "unspec denied", DEFAULT7, "socket", FAM(0), ERR(97), PRESENT },
	{ "family 63 denied", DEFAULT7, "socket", FAM(63), ERR(97), PRESENT },
	{ "unix denied at 7", DEFAULT7, "socket", FAM(1), ERR(97), PRESENT },
	{ "unix allowed at 9", DEFAULT9, "socket", FAM(1), "", ABSENT },
	{ "unix allowed with --unix", UNIXPATH7, "socket", FAM(1), "", ABSENT },
	{ "netlink family allowed", DEFAULT7, "socket", FAM(16) "", ERR(97), ABSENT },
	{ "inet allowed with connect", CONNECT7, "socket", FAM(2), ERR(97), ABSENT },
	{ "inet6 allowed with connect", CONNECT7, "socket", FAM(10), ERR(97), ABSENT },
	{ "packet denied with connect", CONNECT7, "socket", FAM(17), ERR(97), PRESENT },
	{ "inet allowed for udp at 10", DEFAULT10, "socket", FAM(2), ERR(97), ABSENT },
	/* socket(): netlink protocols, EPROTONOSUPPORT */
	{ "netlink usersock denied", DEFAULT7, "socket", A2(2), ERR(93), PRESENT },
	{ "netlink audit denied", DEFAULT7, "socket", A2(9), ERR(93), PRESENT },
	{ "netlink uevent denied", DEFAULT7, "socket", A2(15), ERR(93), PRESENT },
	{ "netlink 31 denied", DEFAULT7, "socket", A2(31), ERR(93), PRESENT },
	{ "netlink route allowed", DEFAULT7, "socket", A2(0), "", ABSENT },
	/* socket(): IP types and protocols */
	{ "tcp: raw type denied", CONNECT7, "socket", TYPE(3), ERR(93), PRESENT },
	{ "tcp: dgram denied at 7", CONNECT7, "socket", TYPE(2), ERR(93), PRESENT },
	{ "tcp: stream allowed", CONNECT7, "socket", TYPE(1), "", ABSENT },
	{ "tcp: mptcp denied", CONNECT7, "socket", A2(262), ERR(93), PRESENT },
	{ "tcp: sctp denied", CONNECT7, "socket", A2(132), ERR(93), PRESENT },
	{ "tcp: smc denied", CONNECT7, "socket", A2(256), ERR(93), PRESENT },
	{ "udp10: dgram allowed", DEFAULT10, "socket", TYPE(2), "", ABSENT },
	{ "udp10: stream denied", DEFAULT10, "socket", TYPE(1), ERR(93), PRESENT },
	{ "udp10: icmp denied", DEFAULT10, "socket", A2(1), ERR(93), PRESENT },
	{ "udp10: udplite denied", DEFAULT10, "socket", A2(136), ERR(93), PRESENT },
	/* socketpair() */
	{ "pair: inet denied", DEFAULT7, "socketpair", FAM(2), ERR(97), PRESENT },
	{ "pair: unix allowed", DEFAULT7, "socketpair", FAM(1), "", ABSENT },
	{ "pair: dgram denied at 7", DEFAULT7, "socketpair", TYPE(2), ERR(93), PRESENT },
	{ "pair: dgram allowed at 9", DEFAULT9, "socketpair", TYPE(2), "", ABSENT },
	{ "pair: stream allowed at 7", DEFAULT7, "socketpair", TYPE(1), "", ABSENT },
	/* SOCK_RAW on AF_UNIX is SOCK_DGRAM (af_unix.c unix_create) */
	{ "pair: raw (=dgram) denied at 7", DEFAULT7, "socketpair", TYPE(3), ERR(93), PRESENT },
	/* listen() */
	{ "listen allowed by default", DEFAULT7, "listen", "if ($syscall == 50)", "", ABSENT },
	{ "listen denied with connect", CONNECT7, "listen", "if ($syscall == 50)", ERR(1), PRESENT },
	{ "listen allowed with bind", BIND7, "listen", "if ($syscall == 50)", "", ABSENT },
	{ "listen allowed with only bind", ONLYBIND7, "listen", "if ($syscall == 50)", "", ABSENT },
	/* unrestricted network: no socket rules at all */
	{ "unrestricted: no socket", UNRESTRICTED7, "socket", "if ($syscall == 41)", "", ABSENT },
	{ "unrestricted: no socketpair", UNRESTRICTED7, "socketpair", "if ($syscall == 53)", "",
	  ABSENT },
	{ "unrestricted: no listen", UNRESTRICTED7, "listen", "if ($syscall == 50)", "", ABSENT },
	/* kernel surface */
	{ "io_uring_setup ENOSYS", DEFAULT7, "io_uring_setup", "if ($syscall == 425)", ERR(38),
	  PRESENT },
	{ "io_uring_enter ENOSYS", DEFAULT7, "io_uring_enter", "if ($syscall == 426)", ERR(38),
	  PRESENT },
	{ "clone3 ENOSYS", DEFAULT7, "clone3", "if ($syscall == 435)", ERR(38), PRESENT },
	{ "ptrace EPERM", DEFAULT7, "ptrace", "if ($syscall == 101)", ERR(1), PRESENT },
	{ "unshare EPERM", DEFAULT7, "unshare", "if ($syscall == 272)", ERR(1), PRESENT },
	{ "setns EPERM", DEFAULT7, "setns", "if ($syscall == 308)", ERR(1), PRESENT },
	{ "mount EPERM", DEFAULT7, "mount", "if ($syscall == 165)", ERR(1), PRESENT },
	{ "bpf EPERM", DEFAULT7, "bpf", "if ($syscall == 321)", ERR(1), PRESENT },
	{ "keyctl EPERM", DEFAULT7, "keyctl", "if ($syscall == 250)", ERR(1), PRESENT },
	{ "perf_event_open EPERM", DEFAULT7, "perf_event_open", "if ($syscall == 298)", ERR(1),
	  PRESENT },
	{ "kernel surface kept when unrestricted", UNRESTRICTED7, "ptrace", "if ($syscall == 101)",
	  ERR(1), PRESENT },
	/* ioctl: TIOCSTI, TIOCLINUX on the low 32 bits */
	{ "ioctl TIOCSTI", DEFAULT7, "ioctl", "if ($a1.lo32 & 0xffffffff == 21522)", ERR(1),
	  PRESENT },
	{ "ioctl TIOCLINUX", DEFAULT7, "ioctl", "if ($a1.lo32 & 0xffffffff == 21532)", ERR(1),
	  PRESENT },
	/* clone: namespace flags */
	{ "clone NEWNS", DEFAULT7, "clone", "if ($a0.lo32 & 0x00020000 == 131072)", ERR(1), PRESENT },
	{ "clone NEWCGROUP", DEFAULT7, "clone", "if ($a0.lo32 & 0x02000000 == 33554432)", ERR(1),
	  PRESENT },
	{ "clone NEWUTS", DEFAULT7, "clone", "if ($a0.lo32 & 0x04000000 == 67108864)", ERR(1),
	  PRESENT },
	{ "clone NEWIPC", DEFAULT7, "clone", "if ($a0.lo32 & 0x08000000 == 134217728)", ERR(1),
	  PRESENT },
	{ "clone NEWUSER", DEFAULT7, "clone", "if ($a0.lo32 & 0x10000000 == 268435456)", ERR(1),
	  PRESENT },
	{ "clone NEWPID", DEFAULT7, "clone", "if ($a0.lo32 & 0x20000000 == 536870912)", ERR(1),
	  PRESENT },
	{ "clone NEWNET", DEFAULT7, "clone", "if ($a0.lo32 & 0x40000000 == 1073741824)", ERR(1),
	  PRESENT },
	/* --deny-subprocess */
	{ "no fork by default", DEFAULT7, "fork", "if ($syscall == 57)", "", ABSENT },
	{ "no vfork by default", DEFAULT7, "vfork", "if ($syscall == 58)", "", ABSENT },
	{ "no thread check by default", DEFAULT7, "clone", "if ($a0.lo32 & 0x00010000 == 0)", "",
	  ABSENT },
	{ "deny fork", NOSUB7, "fork", "if ($syscall == 57)", ERR(1), PRESENT },
	{ "deny vfork", NOSUB7, "vfork", "if ($syscall == 58)", ERR(1), PRESENT },
	{ "deny clone without CLONE_THREAD", NOSUB7, "clone", "if ($a0.lo32 & 0x00010000 == 0)",
	  ERR(1), PRESENT },
	/* uid 0: the metadata family */
	{ "no chmod rule as a user", DEFAULT7, "chmod", "if ($syscall == 90)", "", ABSENT },
	{ "chmod as root", ROOT7, "chmod", "if ($syscall == 90)", ERR(1), PRESENT },
	{ "fchown as root", ROOT7, "fchown", "if ($syscall == 93)", ERR(1), PRESENT },
	{ "fsetxattr as root", ROOT7, "fsetxattr", "if ($syscall == 190)", ERR(1), PRESENT },
	{ "ioctl FS_IOC_SETFLAGS as root", ROOT7, "ioctl",
	  "if ($a1.lo32 & 0xffffffff == 1074292226)", ERR(1), PRESENT },
	{ "mknodat setuid as root", ROOT7, "mknodat", "if ($a2.lo32 & 0x00000800 == 2048)", ERR(1),
	  PRESENT },
	{ "openat2 as root", ROOT7, "openat2", "if ($syscall == 437)", ERR(38), PRESENT },
	{ "no openat2 rule as a user", DEFAULT7, "openat2", "if ($syscall == 437)", "", ABSENT },
	{ "no FS_IOC_SETFLAGS rule as a user", DEFAULT7, "ioctl",
	  "if ($a1.lo32 & 0xffffffff == 1074292226)", "", ABSENT },
	/* a terminal: job control */
	{ "no setsid rule without a terminal", DEFAULT7, "setsid", "if ($syscall == 112)", "",
	  ABSENT },
	{ "setsid with a terminal", TTY7, "setsid", "if ($syscall == 112)", ERR(1), PRESENT },
	{ "TIOCSPGRP", TTY7, "ioctl", "if ($a1.lo32 & 0xffffffff == 21520)", ERR(1), PRESENT },
	{ "TIOCSCTTY", TTY7, "ioctl", "if ($a1.lo32 & 0xffffffff == 21518)", ERR(1), PRESENT },
	{ "TIOCNOTTY", TTY7, "ioctl", "if ($a1.lo32 & 0xffffffff == 21538)", ERR(1), PRESENT },
	{ "no TIOCSPGRP rule without a terminal", DEFAULT7, "ioctl",
	  "if ($a1.lo32 & 0xffffffff == 21520)", "", ABSENT },
	/* personality: the upper half */
	{ "personality upper half", DEFAULT7, "personality", "if ($a0.hi32 > 0)", ERR(1), PRESENT },
};

ParameterizedTestParameters(seccomp_pfc, rules)
{
	return cr_make_param_array(struct pfc_case, pfc_cases, ARRAY_SIZE(pfc_cases));
}

ParameterizedTest(struct pfc_case *c, seccomp_pfc, rules)
{
	char *pfc = export_pfc(&c->k);
	char *block = syscall_block(pfc, c->syscall);
	bool found = has_rule(block, c->cond, c->action[0] ? c->action : NULL);

	cr_expect_eq(found, c->present, "%s: %s \"%s\" / \"%s\" %s in:\n%s", c->what, c->syscall,
		     c->cond, c->action, c->present ? "missing" : "present", block);
	free(block);
	free(pfc);
}

/* Denials on an argument the kernel reads as 32 bits must ignore the upper
 * half (hi32 mask 0): junk there cannot slip a denied value through. */
struct hi32_case {
	char syscall[24];
	char arg[4];
	struct knobs k;
};

static struct hi32_case hi32_cases[] = {
	{ "ioctl", "a1", DEFAULT7 },
	{ "socket", "a0", DEFAULT7 },
	{ "socket", "a0", CONNECT7 },
	{ "socket", "a1", CONNECT7 },
	{ "socket", "a2", CONNECT7 },
	{ "socketpair", "a0", DEFAULT7 },
	{ "socketpair", "a1", DEFAULT7 },
	{ "clone", "a0", NOSUB7 },
};

ParameterizedTestParameters(seccomp_pfc, deny_ignores_upper_half)
{
	return cr_make_param_array(struct hi32_case, hi32_cases, ARRAY_SIZE(hi32_cases));
}

ParameterizedTest(struct hi32_case *c, seccomp_pfc, deny_ignores_upper_half)
{
	char *pfc = export_pfc(&c->k);
	char *block = syscall_block(pfc, c->syscall);
	char any[16], masked[48];

	snprintf(any, sizeof(any), "$%s.hi32", c->arg);
	snprintf(masked, sizeof(masked), "if ($%s.hi32 & 0x00000000 == 0)", c->arg);
	cr_expect(has_rule(block, masked, NULL), "%s: no masked %s:\n%s", c->syscall, any, block);
	/* and no other test of the upper half of that argument */
	cr_expect_eq(count(block, any), count(block, masked), "%s: %s compared unmasked:\n%s",
		     c->syscall, any, block);
	free(block);
	free(pfc);
}

Test(seccomp_pfc, bad_arch_kills_the_process)
{
	struct knobs ks[] = { DEFAULT7, UNRESTRICTED7, NOSUB7, BIND7 };

	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		char *pfc = export_pfc(&ks[i]);

		cr_expect_not_null(strstr(pfc, "# invalid architecture action\naction KILL_PROCESS;\n"),
				   "bad-arch action:\n%s", strstr(pfc, "# invalid") ?: pfc);
		cr_expect_not_null(strstr(pfc, "# default action\n  action ALLOW;\n"));
		free(pfc);
	}
}

/* Only ERRNO actions are added; each socket errno is one of the two the
 * kernel itself would give. */
Test(seccomp_pfc, actions_are_the_expected_errnos)
{
	char *pfc = export_pfc(&(struct knobs)BIND7);
	static const char *const blocks[] = { "socket", "socketpair" };

	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++) {
		char *b = syscall_block(pfc, blocks[i]);

		cr_expect_gt(count(b, "action "), 0, "%s", blocks[i]);
		cr_expect_eq(count(b, "action "), count(b, ERR(97)) + count(b, ERR(93)),
			     "%s has other actions:\n%s", blocks[i], b);
		free(b);
	}
	free(pfc);
}

/* The personality rules, one by one: every value but 0 and 0xffffffff is
 * caught by one of 31 "lowest clear bit is b" and 31 "lowest set bit is b"
 * rules (b = 1..31), plus the upper half. */
Test(seccomp_pfc, personality_decomposition)
{
	char *pfc = export_pfc(&(struct knobs)DEFAULT7);
	char *b = syscall_block(pfc, "personality");
	char cond[80];

	for (unsigned bit = 1; bit < 32; bit++) {
		uint32_t mask = (uint32_t)((1ULL << (bit + 1)) - 1);

		snprintf(cond, sizeof(cond), "if ($a0.lo32 & 0x%08x == %u)", mask, mask >> 1);
		cr_expect(has_rule(b, cond, ERR(1)), "missing %s", cond);
		snprintf(cond, sizeof(cond), "if ($a0.lo32 & 0x%08x == %u)", mask, 1U << bit);
		cr_expect(has_rule(b, cond, ERR(1)), "missing %s", cond);
	}
	/* allowed values are matched on all 64 bits */
	cr_expect(has_rule(b, "if ($a0.hi32 & 0xffffffff == 0)", NULL), "%s", b);
	cr_expect_eq(count(b, "action "), count(b, ERR(1)), "%s", b);
	/* 62 masked rules, and the upper-half rule as two jumps */
	cr_expect_eq(count(b, ERR(1)), 64, "%s", b);
	free(b);
	free(pfc);
}

struct size_case {
	char what[32];
	struct knobs k;
};

static struct size_case size_cases[] = {
	{ "default, ABI 7", DEFAULT7 },
	{ "default, ABI 10", DEFAULT10 },
	{ "connect+bind, deny-subprocess", { .abi = 4, .connect_tcp = true, .bind_tcp = true,
					     .deny_subprocess = true } },
	{ "tcp and udp, ABI 10", { .abi = 10, .connect_tcp = true } },
	{ "unrestricted network", UNRESTRICTED7 },
};

ParameterizedTestParameters(seccomp_bpf, size)
{
	return cr_make_param_array(struct size_case, size_cases, ARRAY_SIZE(size_cases));
}

ParameterizedTest(struct size_case *c, seccomp_bpf, size)
{
	size_t n = bpf_instructions(&c->k);

	cr_log_info("seccomp filter (%s): %zu BPF instructions\n", c->what, n);
	/* BPF_MAXINSNS is 4096; leave room to grow */
	cr_expect_lt(n, 2048, "%s: %zu instructions", c->what, n);
	cr_expect_gt(n, 50, "%s: %zu instructions, suspiciously few", c->what, n);
}

/* ------------------------------------------------------------------ */
/* (b) the filter loaded into this (forked) test process               */

static void load(const struct knobs *k)
{
	scmp_filter_ctx ctx = build(k);
	char err[256] = "";

	cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	cr_assert_eq(lr_seccomp_load(ctx, err, sizeof(err)), 0, "%s", err);
	seccomp_release(ctx);
}

/* errno of a raw call: 0 on success (and any fd it returned is closed) */
static int try(long r)
{
	int e = errno;

	if (r < 0)
		return e;
	return 0;
}

enum op {
	OP_SOCKET,		/* socket(a, b, c), raw, 64-bit arguments */
	OP_SOCKETPAIR,		/* socketpair(a, b, c) */
	OP_PAIR_TYPE,		/* socketpair(a, b, c), then SO_TYPE: the result is its type */
	OP_LISTEN,		/* listen() on socket(a, b, c) */
	OP_IOCTL_PIPE,		/* ioctl(pipe, a, &int) */
	OP_UNSHARE,		/* unshare(a) */
	OP_CLONE,		/* clone(a | SIGCHLD) as fork */
	OP_CLONE3,
	OP_IO_URING_SETUP,
	OP_MOUNT,
	OP_PTRACE_TRACEME,
	OP_BPF,
	OP_KEYCTL,
	OP_FORK,
	OP_VFORK,
	OP_THREAD,		/* pthread_create */
	OP_RAW,			/* syscall(a, b, c, 0, 0, 0); b or c PARENT: getppid() */
	OP_SETSID,		/* setsid() in a child (not a group leader) */
	OP_SETPGID,		/* setpgid(0, a) in a child; a == 1: its parent's group */
};

struct run_case {
	char what[48];
	struct knobs k;
	enum op op;
	uint64_t a, b, c;
	int expect;		/* errno, 0 for success */
};

static void *thread_fn(void *arg)
{
	return arg;
}

static int run_op(const struct run_case *c)
{
	long r;
	int fds[2], type = -1, n = 0;
	socklen_t tl = sizeof(type);
	pid_t pid;

	switch (c->op) {
	case OP_SOCKET:
		r = syscall(SYS_socket, c->a, c->b, c->c);
		if (r >= 0)
			close((int)r);
		return try(r);
	case OP_SOCKETPAIR:
		r = syscall(SYS_socketpair, c->a, c->b, c->c, fds);
		if (r == 0) {
			close(fds[0]);
			close(fds[1]);
		}
		return try(r);
	case OP_PAIR_TYPE:
		r = syscall(SYS_socketpair, c->a, c->b, c->c, fds);
		if (r < 0)
			return -errno;
		cr_assert_eq(getsockopt(fds[0], SOL_SOCKET, SO_TYPE, &type, &tl), 0);
		close(fds[0]);
		close(fds[1]);
		return type;
	case OP_LISTEN:
		r = syscall(SYS_socket, c->a, c->b, c->c);
		cr_assert_geq(r, 0, "socket for listen: %s", strerror(errno));
		n = try(listen((int)r, 1));
		close((int)r);
		return n;
	case OP_IOCTL_PIPE:
		cr_assert_eq(pipe(fds), 0);
		r = syscall(SYS_ioctl, fds[0], c->a, &n);
		close(fds[0]);
		close(fds[1]);
		return try(r);
	case OP_UNSHARE:
		return try(syscall(SYS_unshare, c->a));
	case OP_CLONE:
		r = syscall(SYS_clone, c->a | SIGCHLD, 0, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid((pid_t)r, NULL, 0);
		return try(r);
	case OP_CLONE3:
		return try(syscall(SYS_clone3, NULL, 0));
	case OP_IO_URING_SETUP:
		return try(syscall(SYS_io_uring_setup, 1, NULL));
	case OP_MOUNT:
		return try(syscall(SYS_mount, "none", "/nonexistent-landrun", "tmpfs", 0, NULL));
	case OP_PTRACE_TRACEME:
		return try(syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0));
	case OP_BPF:
		return try(syscall(SYS_bpf, -1, NULL, 0));
	case OP_KEYCTL:
		return try(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
	case OP_FORK:
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return try(pid);
	case OP_VFORK:
		pid = vfork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return try(pid);
	case OP_RAW:
		return try(syscall((long)c->a, c->b == PARENT ? (uint64_t)getppid() : c->b,
				   c->c == PARENT ? (uint64_t)getppid() : c->c, 0, 0, 0));
	case OP_SETSID:
	case OP_SETPGID: {
		uint64_t pgid = c->a == 1 ? (uint64_t)getpgrp() : c->a;

		pid = fork();
		if (pid == 0) {
			if (c->op == OP_SETSID)
				_exit(try(syscall(SYS_setsid)));
			_exit(try(syscall(SYS_setpgid, 0, pgid)));
		}
		cr_assert_geq(pid, 0);
		cr_assert_eq(waitpid(pid, &n, 0), pid);
		cr_assert(WIFEXITED(n), "child status %#x", n);
		return WEXITSTATUS(n);
	}
	case OP_THREAD: {
		pthread_t t;
		void *ret = NULL;

		n = pthread_create(&t, NULL, thread_fn, (void *)c);
		if (n == 0) {
			cr_assert_eq(pthread_join(t, &ret), 0);
			cr_assert_eq(ret, (void *)c);
		}
		return n;
	}
	}
	cr_assert_fail("unknown op %d", c->op);
	return -1;
}

#define NL_ROUTE NETLINK_ROUTE

static struct run_case run_cases[] = {
	/* socket families */
	{ "inet stream, default", DEFAULT7, OP_SOCKET, AF_INET, SOCK_STREAM, 0, EAFNOSUPPORT },
	{ "inet6 stream, default", DEFAULT7, OP_SOCKET, AF_INET6, SOCK_STREAM, 0, EAFNOSUPPORT },
	{ "inet stream, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_STREAM, 0, 0 },
	{ "inet stream|cloexec, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
	  0, 0 },
	{ "inet tcp, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_STREAM, IPPROTO_TCP, 0 },
	{ "inet6 stream, connect", CONNECT7, OP_SOCKET, AF_INET6, SOCK_STREAM, 0, 0 },
	{ "inet stream, unrestricted", UNRESTRICTED7, OP_SOCKET, AF_INET, SOCK_STREAM, 0, 0 },
	{ "inet dgram, unrestricted", UNRESTRICTED7, OP_SOCKET, AF_INET, SOCK_DGRAM, 0, 0 },
	{ "inet mptcp, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_STREAM, IPPROTO_MPTCP,
	  EPROTONOSUPPORT },
	{ "inet mptcp|junk, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_STREAM,
	  HI_JUNK | IPPROTO_MPTCP, EPROTONOSUPPORT },
	{ "inet6 mptcp, connect", CONNECT7, OP_SOCKET, AF_INET6, SOCK_STREAM, IPPROTO_MPTCP,
	  EPROTONOSUPPORT },
	{ "inet dgram, connect at 7", CONNECT7, OP_SOCKET, AF_INET, SOCK_DGRAM, 0, EPROTONOSUPPORT },
	{ "inet raw, connect", CONNECT7, OP_SOCKET, AF_INET, SOCK_RAW, IPPROTO_ICMP,
	  EPROTONOSUPPORT },
	{ "inet dgram, ABI 10", DEFAULT10, OP_SOCKET, AF_INET, SOCK_DGRAM, 0, 0 },
	{ "inet ping, ABI 10", DEFAULT10, OP_SOCKET, AF_INET, SOCK_DGRAM, IPPROTO_ICMP,
	  EPROTONOSUPPORT },
	{ "inet stream, ABI 10", DEFAULT10, OP_SOCKET, AF_INET, SOCK_STREAM, 0, EPROTONOSUPPORT },
	{ "inet|junk stream, default", DEFAULT7, OP_SOCKET, HI_JUNK | AF_INET, SOCK_STREAM, 0,
	  EAFNOSUPPORT },
	{ "packet|junk, default", DEFAULT7, OP_SOCKET, HI_JUNK | AF_PACKET, SOCK_RAW, 0,
	  EAFNOSUPPORT },
	{ "inet|junk, connect", CONNECT7, OP_SOCKET, HI_JUNK | AF_INET, SOCK_STREAM, 0, 0 },
	{ "packet, connect", CONNECT7, OP_SOCKET, AF_PACKET, SOCK_RAW, 0, EAFNOSUPPORT },
	{ "unix stream, ABI 7", DEFAULT7, OP_SOCKET, AF_UNIX, SOCK_STREAM, 0, EAFNOSUPPORT },
	{ "unix stream, ABI 9", DEFAULT9, OP_SOCKET, AF_UNIX, SOCK_STREAM, 0, 0 },
	{ "unix stream, --unix at 7", UNIXPATH7, OP_SOCKET, AF_UNIX, SOCK_STREAM, 0, 0 },
	{ "netlink route", DEFAULT7, OP_SOCKET, AF_NETLINK, SOCK_RAW, NL_ROUTE, 0 },
	{ "netlink audit", DEFAULT7, OP_SOCKET, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT,
	  EPROTONOSUPPORT },
	{ "netlink uevent|junk", DEFAULT7, OP_SOCKET, AF_NETLINK, SOCK_RAW,
	  HI_JUNK | NETLINK_KOBJECT_UEVENT, EPROTONOSUPPORT },
	/* socketpair */
	{ "pair unix stream, 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX, SOCK_STREAM, 0, 0 },
	{ "pair unix seqpacket, 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX, SOCK_SEQPACKET, 0, 0 },
	{ "pair unix dgram, 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX, SOCK_DGRAM, 0, EPROTONOSUPPORT },
	{ "pair unix dgram|cloexec, 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX,
	  SOCK_DGRAM | SOCK_CLOEXEC, 0, EPROTONOSUPPORT },
	{ "pair unix dgram|junk, 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX, HI_JUNK | SOCK_DGRAM, 0,
	  EPROTONOSUPPORT },
	/* the kernel turns SOCK_RAW on AF_UNIX into SOCK_DGRAM */
	{ "pair unix raw (=dgram), 7", DEFAULT7, OP_SOCKETPAIR, AF_UNIX, SOCK_RAW, 0,
	  EPROTONOSUPPORT },
	{ "pair unix dgram, 9", DEFAULT9, OP_SOCKETPAIR, AF_UNIX, SOCK_DGRAM, 0, 0 },
	{ "pair inet, default", DEFAULT7, OP_SOCKETPAIR, AF_INET, SOCK_STREAM, 0, EAFNOSUPPORT },
	/* listen: unbound unix socket, EINVAL from the kernel, not EPERM */
	{ "listen, default", DEFAULT9, OP_LISTEN, AF_UNIX, SOCK_STREAM, 0, EINVAL },
	{ "listen, connect", CONNECT7, OP_LISTEN, AF_INET, SOCK_STREAM, 0, EPERM },
	{ "listen, connect+bind", BIND7, OP_LISTEN, AF_INET, SOCK_STREAM, 0, 0 },
	/* ioctl on a pipe: ENOTTY from the kernel when allowed */
	{ "ioctl FIONREAD", DEFAULT7, OP_IOCTL_PIPE, FIONREAD, 0, 0, 0 },
	{ "ioctl TIOCGWINSZ", DEFAULT7, OP_IOCTL_PIPE, TIOCGWINSZ, 0, 0, ENOTTY },
	{ "ioctl TIOCSTI", DEFAULT7, OP_IOCTL_PIPE, TIOCSTI, 0, 0, EPERM },
	{ "ioctl TIOCSTI|junk", DEFAULT7, OP_IOCTL_PIPE, HI_JUNK | TIOCSTI, 0, 0, EPERM },
	{ "ioctl TIOCLINUX", DEFAULT7, OP_IOCTL_PIPE, TIOCLINUX, 0, 0, EPERM },
	{ "ioctl TIOCLINUX|junk", DEFAULT7, OP_IOCTL_PIPE, (0xdeadULL << 32) | TIOCLINUX, 0, 0,
	  EPERM },
	/* the kernel surface */
	{ "unshare(0)", DEFAULT7, OP_UNSHARE, 0, 0, 0, EPERM },
	{ "unshare(NEWUSER)", DEFAULT7, OP_UNSHARE, CLONE_NEWUSER, 0, 0, EPERM },
	{ "clone3", DEFAULT7, OP_CLONE3, 0, 0, 0, ENOSYS },
	{ "io_uring_setup", DEFAULT7, OP_IO_URING_SETUP, 0, 0, 0, ENOSYS },
	{ "mount", DEFAULT7, OP_MOUNT, 0, 0, 0, EPERM },
	{ "ptrace(TRACEME)", DEFAULT7, OP_PTRACE_TRACEME, 0, 0, 0, EPERM },
	{ "bpf", DEFAULT7, OP_BPF, 0, 0, 0, EPERM },
	{ "keyctl", DEFAULT7, OP_KEYCTL, 0, 0, 0, EPERM },
	{ "clone plain", DEFAULT7, OP_CLONE, 0, 0, 0, 0 },
	{ "clone NEWUSER", DEFAULT7, OP_CLONE, CLONE_NEWUSER, 0, 0, EPERM },
	{ "clone NEWNET|junk", DEFAULT7, OP_CLONE, HI_JUNK | CLONE_NEWNET, 0, 0, EPERM },
	{ "clone NEWNS", DEFAULT7, OP_CLONE, CLONE_NEWNS, 0, 0, EPERM },
	/* by number: libseccomp 2.5.4 does not know it */
	{ "open_tree_attr (467)", DEFAULT7, OP_RAW, 467, (uint64_t)-1, 0, EPERM },
	/* --deny-subprocess */
	{ "fork, default", DEFAULT7, OP_FORK, 0, 0, 0, 0 },
	{ "vfork, default", DEFAULT7, OP_VFORK, 0, 0, 0, 0 },
	{ "thread, default", DEFAULT7, OP_THREAD, 0, 0, 0, 0 },
	{ "fork, deny-subprocess", NOSUB7, OP_FORK, 0, 0, 0, EPERM },
	{ "vfork, deny-subprocess", NOSUB7, OP_VFORK, 0, 0, 0, EPERM },
	{ "clone, deny-subprocess", NOSUB7, OP_CLONE, 0, 0, 0, EPERM },
	{ "thread, deny-subprocess", NOSUB7, OP_THREAD, 0, 0, 0, 0 },
	/* a terminal: job control (TIOC* on a pipe: ENOTTY from the kernel) */
	{ "TIOCSPGRP without a terminal", DEFAULT7, OP_IOCTL_PIPE, TIOCSPGRP, 0, 0, ENOTTY },
	{ "TIOCSPGRP", TTY7, OP_IOCTL_PIPE, TIOCSPGRP, 0, 0, EPERM },
	{ "TIOCSPGRP|junk", TTY7, OP_IOCTL_PIPE, HI_JUNK | TIOCSPGRP, 0, 0, EPERM },
	{ "TIOCSCTTY", TTY7, OP_IOCTL_PIPE, TIOCSCTTY, 0, 0, EPERM },
	{ "TIOCNOTTY", TTY7, OP_IOCTL_PIPE, TIOCNOTTY, 0, 0, EPERM },
	{ "TIOCGPGRP (reading) stays", TTY7, OP_IOCTL_PIPE, TIOCGPGRP, 0, 0, ENOTTY },
	{ "setsid without a terminal", DEFAULT7, OP_SETSID, 0, 0, 0, 0 },
	{ "setsid with a terminal", TTY7, OP_SETSID, 0, 0, 0, EPERM },
	{ "setpgid into the parent's group, no terminal", DEFAULT7, OP_SETPGID, 1, 0, 0, 0 },
	{ "setpgid into the parent's group", TTY7, OP_SETPGID, 1, 0, 0, EPERM },
	{ "setpgid to a new group (0)", TTY7, OP_SETPGID, 0, 0, 0, 0 },
	{ "setpgid to 0 with junk above", TTY7, OP_SETPGID, HI_JUNK, 0, 0, EPERM },
	/* other processes: only the caller itself, as pid 0 */
	{ "prlimit64 self", DEFAULT7, OP_RAW, SYS_prlimit64, 0, RLIMIT_NOFILE, 0 },
	{ "prlimit64 parent", DEFAULT7, OP_RAW, SYS_prlimit64, PARENT, RLIMIT_NOFILE, EPERM },
	{ "prlimit64 0|junk", DEFAULT7, OP_RAW, SYS_prlimit64, HI_JUNK, RLIMIT_NOFILE, EPERM },
	{ "getpriority self", DEFAULT7, OP_RAW, SYS_getpriority, PRIO_PROCESS, 0, 0 },
	{ "getpriority parent", DEFAULT7, OP_RAW, SYS_getpriority, PRIO_PROCESS, PARENT, EPERM },
	{ "getpriority own group", DEFAULT7, OP_RAW, SYS_getpriority, PRIO_PGRP, 0, EPERM },
	{ "getpriority own user", DEFAULT7, OP_RAW, SYS_getpriority, PRIO_USER, 0, EPERM },
	{ "getpriority self|junk", DEFAULT7, OP_RAW, SYS_getpriority, HI_JUNK, 0, EPERM },
	{ "setpriority parent", DEFAULT7, OP_RAW, SYS_setpriority, PRIO_PROCESS, PARENT, EPERM },
	{ "setpriority own user", DEFAULT7, OP_RAW, SYS_setpriority, PRIO_USER, 0, EPERM },
	{ "ioprio_get self", DEFAULT7, OP_RAW, SYS_ioprio_get, 1, 0, 0 },
	{ "ioprio_get parent", DEFAULT7, OP_RAW, SYS_ioprio_get, 1, PARENT, EPERM },
	{ "ioprio_get own user", DEFAULT7, OP_RAW, SYS_ioprio_get, 3, 0, EPERM },
	{ "ioprio_set parent", DEFAULT7, OP_RAW, SYS_ioprio_set, 1, PARENT, EPERM },
	{ "ioprio_set own group", DEFAULT7, OP_RAW, SYS_ioprio_set, 2, 0, EPERM },
	{ "sched_setaffinity self", DEFAULT7, OP_RAW, SYS_sched_setaffinity, 0, 0, EINVAL },
	{ "sched_setaffinity parent", DEFAULT7, OP_RAW, SYS_sched_setaffinity, PARENT, 0, EPERM },
	{ "sched_getaffinity parent stays", DEFAULT7, OP_RAW, SYS_sched_getaffinity, PARENT, 0,
	  EINVAL },
	{ "sched_setscheduler self", DEFAULT7, OP_RAW, SYS_sched_setscheduler, 0, 0, EINVAL },
	{ "sched_setscheduler parent", DEFAULT7, OP_RAW, SYS_sched_setscheduler, PARENT, 0, EPERM },
	{ "sched_setparam self", DEFAULT7, OP_RAW, SYS_sched_setparam, 0, 0, EINVAL },
	{ "sched_setparam parent", DEFAULT7, OP_RAW, SYS_sched_setparam, PARENT, 0, EPERM },
	{ "sched_setattr self", DEFAULT7, OP_RAW, SYS_sched_setattr, 0, 0, EINVAL },
	{ "sched_setattr parent", DEFAULT7, OP_RAW, SYS_sched_setattr, PARENT, 0, EPERM },
	{ "migrate_pages parent", DEFAULT7, OP_RAW, SYS_migrate_pages, PARENT, 0, EPERM },
	{ "move_pages parent", DEFAULT7, OP_RAW, SYS_move_pages, PARENT, 0, EPERM },
	{ "get_robust_list self", DEFAULT7, OP_RAW, SYS_get_robust_list, 0, 0, EFAULT },
	{ "get_robust_list parent", DEFAULT7, OP_RAW, SYS_get_robust_list, PARENT, 0, EPERM },
	{ "kcmp", DEFAULT7, OP_RAW, SYS_kcmp, 0, 0, EPERM },
	{ "pidfd_getfd", DEFAULT7, OP_RAW, SYS_pidfd_getfd, (uint64_t)-1, 0, EPERM },
	{ "process_madvise", DEFAULT7, OP_RAW, SYS_process_madvise, (uint64_t)-1, 0, EPERM },
	/* SysV IPC: denied, unless --allow-sysv-ipc (a key that names nothing) */
	{ "shmget", DEFAULT7, OP_RAW, SYS_shmget, NO_KEY, 0, EPERM },
	{ "shmget, allow-sysv-ipc", SYSV7, OP_RAW, SYS_shmget, NO_KEY, 0, ENOENT },
	{ "msgget", DEFAULT7, OP_RAW, SYS_msgget, NO_KEY, 0, EPERM },
	{ "msgget, allow-sysv-ipc", SYSV7, OP_RAW, SYS_msgget, NO_KEY, 0, ENOENT },
	{ "semget", DEFAULT7, OP_RAW, SYS_semget, NO_KEY, 0, EPERM },
	{ "semget, allow-sysv-ipc", SYSV7, OP_RAW, SYS_semget, NO_KEY, 0, ENOENT },
	{ "shmctl", DEFAULT7, OP_RAW, SYS_shmctl, (uint64_t)-1, 0 /* IPC_RMID */, EPERM },
	{ "shmctl, allow-sysv-ipc", SYSV7, OP_RAW, SYS_shmctl, (uint64_t)-1, 0, EINVAL },
	/* uid 0: inode flags by descriptor (ENOTTY from the kernel on a pipe) */
	{ "FS_IOC_SETFLAGS as a user", DEFAULT7, OP_IOCTL_PIPE, FS_IOC_SETFLAGS, 0, 0, ENOTTY },
	{ "FS_IOC_SETFLAGS as root", ROOT7, OP_IOCTL_PIPE, FS_IOC_SETFLAGS, 0, 0, EPERM },
	{ "FS_IOC_FSSETXATTR|junk as root", ROOT7, OP_IOCTL_PIPE, HI_JUNK | FS_IOC_FSSETXATTR, 0, 0,
	  EPERM },
};

ParameterizedTestParameters(seccomp_run, calls)
{
	return cr_make_param_array(struct run_case, run_cases, ARRAY_SIZE(run_cases));
}

ParameterizedTest(struct run_case *c, seccomp_run, calls)
{
	int got;

	load(&c->k);
	got = run_op(c);
	cr_expect_eq(got, c->expect, "%s: got %d (%s), want %d (%s)", c->what, got,
		     got > 0 ? strerror(got) : "ok", c->expect, strerror(c->expect));
}

/* What the kernel does with SOCK_RAW on AF_UNIX, without a filter: the
 * reason the socketpair rule must cover it. */
Test(seccomp_run, unix_raw_pair_is_dgram_without_filter)
{
	struct run_case c = { .op = OP_PAIR_TYPE, .a = AF_UNIX, .b = SOCK_RAW };

	cr_expect_eq(run_op(&c), SOCK_DGRAM);
}

/* Controls: without a filter the calls above are not what denies them. */
Test(seccomp_run, controls_without_filter)
{
	struct run_case c = { .op = OP_CLONE3 };

	cr_expect_neq(run_op(&c), ENOSYS, "clone3 is ENOSYS without a filter");
	c.op = OP_IO_URING_SETUP;
	cr_expect_neq(run_op(&c), ENOSYS, "io_uring_setup is ENOSYS without a filter");
	c = (struct run_case){ .op = OP_IOCTL_PIPE, .a = TIOCSTI };
	cr_expect_eq(run_op(&c), ENOTTY);
	c = (struct run_case){ .op = OP_RAW, .a = 467, .b = (uint64_t)-1 };
	cr_expect_neq(run_op(&c), EPERM, "open_tree_attr(-1, NULL) is EPERM without a filter");
	c = (struct run_case){ .op = OP_SOCKET, .a = AF_INET, .b = SOCK_STREAM };
	cr_expect_eq(run_op(&c), 0);
	c = (struct run_case){ .op = OP_SOCKETPAIR, .a = AF_UNIX, .b = SOCK_DGRAM };
	cr_expect_eq(run_op(&c), 0);
	/* another process of the same user: the kernel lets it be named */
	c = (struct run_case){ .op = OP_RAW, .a = SYS_prlimit64, .b = PARENT, .c = RLIMIT_NOFILE };
	cr_expect_eq(run_op(&c), 0, "prlimit64 of the parent fails without a filter");
	c = (struct run_case){ .op = OP_RAW, .a = SYS_getpriority, .b = PRIO_PROCESS, .c = PARENT };
	cr_expect_eq(run_op(&c), 0, "getpriority of the parent fails without a filter");
}

static long personality_raw(uint64_t v)
{
	return syscall(SYS_personality, v);
}

/* Every single bit, every all-ones-but-one-bit, both allowed values, and
 * the upper half: the 63-rule decomposition has no gap. */
Test(seccomp_run, personality)
{
	uint64_t denied[2 + 64 + 4];
	size_t n = 0;
	long r;

	load(&(struct knobs)DEFAULT7);
	for (unsigned b = 0; b < 32; b++) {
		denied[n++] = 1ULL << b;
		denied[n++] = 0xffffffffULL & ~(1ULL << b);
	}
	denied[n++] = 0x0040000;
	denied[n++] = 0xfffffffe;
	denied[n++] = HI_JUNK;
	denied[n++] = HI_JUNK | 0xffffffff;
	denied[n++] = ~0ULL;
	denied[n++] = 0x123456;
	for (size_t i = 0; i < n; i++) {
		errno = 0;
		r = personality_raw(denied[i]);
		cr_expect(r == -1 && errno == EPERM, "personality(%#llx) = %ld, errno %d",
			  (unsigned long long)denied[i], r, errno);
	}
	errno = 0;
	r = personality_raw(0xffffffff);
	cr_expect_geq(r, 0, "personality(0xffffffff): %s", strerror(errno));
	r = personality_raw(0);
	cr_expect_geq(r, 0, "personality(0): %s", strerror(errno));
	cr_expect_eq(personality_raw(0xffffffff), 0, "personality is not PER_LINUX");
}

/*
 * Every call of the uid-0 list, through the loaded filter, with arguments
 * the kernel would refuse (a bad pointer, a bad descriptor): EPERM from the
 * filter, and something else without it.  Numbers as in the table test.
 */
static void call_root_list(bool filtered)
{
	unsigned n = 0;

	for (size_t i = 0; i < lr_seccomp_n_calls; i++) {
		const struct lr_seccomp_call *c = &lr_seccomp_calls[i];
		int nr = call_number(c->name);
		long r;

		if ((c->when != LR_SECCOMP_ROOT_METADATA && c->when != LR_SECCOMP_ROOT_BROKERED) ||
		    nr < 0)
			continue;
		errno = 0;
		r = syscall(nr, -1L, -1L, 0L, 0L, 0L, 0L);
		if (filtered)
			cr_expect(r == -1 && errno == c->err, "%s (%d): %ld, %s", c->name, nr, r,
				  strerror(errno));
		else
			cr_expect(r == -1 && errno != c->err, "%s (%d): %ld, %s without a filter",
				  c->name, nr, r, strerror(errno));
		n++;
	}
	cr_expect_geq(n, 18, "only %u calls in the uid-0 list", n);
}

Test(seccomp_run, root_metadata_list)
{
	load(&(struct knobs)ROOT7);
	call_root_list(true);
}

Test(seccomp_run, root_metadata_list_without_filter)
{
	call_root_list(false);
}

/*
 * uid 0 cannot make a file born setuid or setgid: open(O_CREAT), open(O_TMPFILE),
 * creat and mknod with either bit in the mode (upper-half junk in the mode
 * changes nothing), while the same calls without them create the file.
 */
/* One creating call: 0 if it created the file (then removed), else errno. */
static int create_one(int how, const char *dir, const char *path, unsigned long mode)
{
	long r = -1;
	int e;

	switch (how) {
	case 0:
		r = syscall(SYS_open, path, O_CREAT | O_WRONLY | O_CLOEXEC, mode);
		break;
	case 1:
		r = syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_CLOEXEC, mode);
		break;
	case 2:
		r = syscall(SYS_openat, AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		break;
	case 3:
		r = syscall(SYS_creat, path, mode);
		break;
	case 4:
		r = syscall(SYS_mknod, path, S_IFREG | mode, 0);
		break;
	}
	e = r < 0 ? errno : 0;
	if (r >= 0 && how < 4)
		close((int)r);
	unlink(path);
	return e;
}

static int create_modes(const char *dir, bool filtered)
{
	static const char *const how[] = { "open(O_CREAT)", "openat(O_CREAT)",
					   "openat(O_TMPFILE)", "creat", "mknod(S_IFREG)" };
	static const unsigned long bad[] = { 04755, 02755, 06700, 04000 | (1UL << 40) };
	char path[256];
	int n = 0, e;

	snprintf(path, sizeof(path), "%s/f", dir);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		for (int h = 0; h < (int)ARRAY_SIZE(how); h++) {
			e = create_one(h, dir, path, bad[i]);
			n += e == EPERM;
			if (filtered)
				cr_expect_eq(e, EPERM, "%s mode %#lo: %s", how[h], bad[i], strerror(e));
			else
				cr_expect_eq(e, 0, "%s mode %#lo without a filter: %s", how[h], bad[i],
					     strerror(e));
		}
	}
	/* and without the bits: created */
	for (int h = 0; h < (int)ARRAY_SIZE(how); h++)
		cr_expect_eq(e = create_one(h, dir, path, 0755), 0, "%s mode 0755: %s", how[h],
			     strerror(e));
	return n;
}

Test(seccomp_run, root_cannot_create_set_id_files)
{
	char dir[] = "/tmp/lr-seccomp-XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	cr_expect_eq(create_modes(dir, false), 0);
	load(&(struct knobs)ROOT7);
	cr_expect_eq(create_modes(dir, true), 20);
	rmdir(dir);
}

Test(seccomp_run, witness)
{
	cr_expect_eq(lr_seccomp_witness_check(), -EPERM, "the witness sees a filter before load");
	load(&(struct knobs)DEFAULT7);
	cr_expect_eq(lr_seccomp_witness_check(), 0);
}

Test(seccomp_run, witness_fresh_fork_without_filter)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(lr_seccomp_witness_check() == -EPERM ? 0 : 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

/*
 * A call through another ABI kills the whole process with SIGSYS, not only
 * the calling thread: the call is made in a child with a second thread,
 * which would otherwise live on and exit with 42.
 */
enum foreign { FOREIGN_I386, FOREIGN_X32 };

static void *linger(void *arg)
{
	(void)arg;
	sleep(3);
	_exit(42);
}

static void foreign_call(enum foreign how)
{
	pthread_t t;
	long r = 0;

	signal(SIGSEGV, SIG_DFL); /* (ASan's handler would make it an exit) */
	if (pthread_create(&t, NULL, linger, NULL) != 0)
		_exit(43);
	if (how == FOREIGN_I386) /* i386 getpid (20) through int 0x80 */
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	else /* x32: the syscall number with bit 30 */
		r = syscall(0x40000000L | SYS_getpid);
	(void)r;
	_exit(44);
}

struct foreign_case {
	char what[16];
	enum foreign how;
};

static struct foreign_case foreign_cases[] = {
	{ "int 0x80", FOREIGN_I386 },
	{ "x32", FOREIGN_X32 },
};

ParameterizedTestParameters(seccomp_run, foreign_abi_kills_the_process)
{
	return cr_make_param_array(struct foreign_case, foreign_cases, ARRAY_SIZE(foreign_cases));
}

ParameterizedTest(struct foreign_case *c, seccomp_run, foreign_abi_kills_the_process,
		  .timeout = 20)
{
	pid_t pid;
	int st;

	if (c->how == FOREIGN_I386) {
		/* without a filter: a kernel without IA32 emulation answers
		 * int 0x80 with SIGSEGV, and there is no such ABI to guard */
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0)
			foreign_call(c->how);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV)
			lr_skip_test(1, "int 0x80: needs IA32 emulation (CONFIG_IA32_EMULATION, "
				     "ia32_emulation=1)");
	}
	load(&(struct knobs)DEFAULT7);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		foreign_call(c->how);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		  "%s: child %s %d, not killed by SIGSYS", c->what,
		  WIFSIGNALED(st) ? "killed by signal" : "exited with", WIFSIGNALED(st) ?
		  WTERMSIG(st) : WEXITSTATUS(st));
}

/*
 * landrun loads the filters lr-seccomp-gen compiled at build time.  For plans
 * the planner really makes, across every ABI and network policy, the prebuilt
 * filter must be byte for byte what libseccomp builds from the plan now: a
 * plan field that the filter reads but the key does not carry fails here.
 */
Test(seccomp_prebuilt, equals_a_fresh_build)
{
	for (int abi = 0; abi <= 11; abi++) {
		for (unsigned bits = 0; bits < 256; bits++) {
			struct knobs k = {
				.abi = abi,
				.connect_tcp = bits & 1,
				.bind_tcp = bits & 2,
				.unrestricted_net = bits & 4,
				.deny_subprocess = bits & 8,
				.unix_path = bits & 16,
				.root = bits & 32,
				.terminal = bits & 64,
				.sysv = bits & 128,
			};
			const struct sock_fprog *pre;
			struct lr_plan plan;
			scmp_filter_ctx ctx;
			int fd = memfd_create("bpf", MFD_CLOEXEC);
			size_t len;
			char *raw;

			if (k.unrestricted_net && (k.connect_tcp || k.bind_tcp || k.unix_path))
				continue; /* the CLI refuses these */
			if (k.sysv && abi != 7)
				continue; /* the ABI does not change what that bit does */
			plan_for(&k, &plan);
			ctx = build(&k);
			cr_assert_geq(fd, 0);
			cr_assert_eq(seccomp_export_bpf(ctx, fd), 0);
			raw = slurp(fd, &len);
			close(fd);
			seccomp_release(ctx);
			pre = lr_seccomp_prebuilt(&plan);
			cr_expect_eq(pre->len * sizeof(*pre->filter), len,
				     "ABI %d, knobs %#x: prebuilt %u instructions, fresh %zu", abi, bits,
				     pre->len, len / 8);
			cr_expect(len == pre->len * sizeof(*pre->filter) &&
					  memcmp(raw, pre->filter, len) == 0,
				  "ABI %d, knobs %#x: the prebuilt filter differs", abi, bits);
			free(raw);
		}
	}
}

/* ------------------------------------------------------------------ */
/* (c) every call of the table, in every filter compiled at build time   */

/*
 * A classic-BPF interpreter for seccomp programs: enough of it for what
 * libseccomp emits (loads from struct seccomp_data, ALU on the accumulator,
 * conditional jumps, returns).  An instruction it does not know fails the
 * test, so that an unknown opcode can never pass for "allowed".
 */
static uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *i = &prog->filter[pc];
		uint32_t src;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS)) {
				cr_assert(i->k % 4 == 0 && i->k + 4 <= sizeof(*d), "load at %u", i->k);
				memcpy(&a, (const char *)d + i->k, 4);
			} else if (i->code == (BPF_LD | BPF_IMM)) {
				a = i->k;
			} else if (i->code == (BPF_LD | BPF_MEM)) {
				a = mem[i->k % BPF_MEMWORDS];
			} else {
				cr_assert_fail("BPF: unknown load %#x at %u", i->code, pc);
			}
			break;
		case BPF_LDX:
			cr_assert(i->code == (BPF_LDX | BPF_MEM) || i->code == (BPF_LDX | BPF_IMM),
				  "BPF: unknown ldx %#x at %u", i->code, pc);
			x = BPF_MODE(i->code) == BPF_MEM ? mem[i->k % BPF_MEMWORDS] : i->k;
			break;
		case BPF_ST:
			mem[i->k % BPF_MEMWORDS] = a;
			break;
		case BPF_STX:
			mem[i->k % BPF_MEMWORDS] = x;
			break;
		case BPF_ALU:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_AND: a &= src; break;
			case BPF_OR: a |= src; break;
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_LSH: a <<= src; break;
			case BPF_RSH: a >>= src; break;
			default: cr_assert_fail("BPF: unknown alu %#x at %u", i->code, pc);
			}
			break;
		case BPF_JMP:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_JA: pc += i->k; break;
			case BPF_JEQ: pc += a == src ? i->jt : i->jf; break;
			case BPF_JGT: pc += a > src ? i->jt : i->jf; break;
			case BPF_JGE: pc += a >= src ? i->jt : i->jf; break;
			case BPF_JSET: pc += (a & src) ? i->jt : i->jf; break;
			default: cr_assert_fail("BPF: unknown jump %#x at %u", i->code, pc);
			}
			break;
		case BPF_RET:
			cr_assert(BPF_RVAL(i->code) == BPF_K, "BPF: ret %#x at %u", i->code, pc);
			return i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			cr_assert_fail("BPF: unknown class %#x at %u", i->code, pc);
		}
	}
	cr_assert_fail("BPF: fell off the end of the program");
	return 0;
}

/* Every call of every list, in every filter lr-seccomp-gen compiled: denied
 * with its errno where the plan asks for it, allowed where it does not. */
Test(seccomp_prebuilt, every_listed_call_is_in_the_filter)
{
#ifndef NATIVE_ARCH
	lr_skip_test(0, "no seccomp_data arch value for this architecture in the test");
#else
	unsigned denied = 0, keys = 0;

	for (unsigned key = 0; key < LR_SECCOMP_KEYS; key++) {
		struct lr_plan plan;
		const struct sock_fprog *prog;

		memset(&plan, 0, sizeof(plan));
		plan.seccomp = true;
		lr_seccomp_key_plan(key, &plan);
		if (lr_seccomp_key(&plan) != key)
			continue; /* an alias: network bits without a restricted network */
		keys++;
		prog = lr_seccomp_prebuilt(&plan);
		for (size_t i = 0; i < lr_seccomp_n_calls; i++) {
			const struct lr_seccomp_call *c = &lr_seccomp_calls[i];
			struct seccomp_data d = { .arch = NATIVE_ARCH };
			bool want = lr_seccomp_call_denied(c, &plan);
			uint32_t got;

			d.nr = call_number(c->name);
			if (d.nr < 0)
				continue;
			if (c->nr)
				cr_expect_eq(c->nr, d.nr, "%s: seccomp.c says %d, the kernel %d",
					     c->name, c->nr, d.nr);
			got = bpf_run(prog, &d);
			cr_expect_eq(got, want ? SECCOMP_RET_ERRNO | (uint32_t)c->err : SECCOMP_RET_ALLOW,
				     "key %u: %s (%d): action %#x, want it %s", key, c->name, d.nr, got,
				     want ? "denied" : "allowed");
			denied += want;
		}
	}
	cr_expect_gt(denied, keys * 40, "only %u denials checked in %u filters", denied, keys);
#endif
}

/* Controls for the interpreter: getpid passes, a foreign architecture is
 * killed. */
Test(seccomp_prebuilt, interpreter_controls)
{
#ifndef NATIVE_ARCH
	lr_skip_test(0, "no seccomp_data arch value for this architecture in the test");
#else
	struct lr_plan plan;
	struct seccomp_data d = { .nr = SYS_getpid, .arch = NATIVE_ARCH };

	memset(&plan, 0, sizeof(plan));
	plan.seccomp = true;
	lr_seccomp_key_plan(0, &plan);
	cr_expect_eq(bpf_run(lr_seccomp_prebuilt(&plan), &d), SECCOMP_RET_ALLOW);
	d.nr = SYS_unshare;
	cr_expect_eq(bpf_run(lr_seccomp_prebuilt(&plan), &d), SECCOMP_RET_ERRNO | EPERM);
	d.arch = AUDIT_ARCH_I386;
	cr_expect_eq(bpf_run(lr_seccomp_prebuilt(&plan), &d), SECCOMP_RET_KILL_PROCESS);
#endif
}

/* ------------------------------------------------------------------------ */
/* The egress helper's filter: no exec, no process, no file made or written */

static void *egress_thread(void *arg)
{
	return arg;
}

Test(seccomp_egress, calls)
{
	const char *file = "/dev/null";
	char made[64], err[256] = "";
	pthread_t t;
	int fd;

	snprintf(made, sizeof(made), "/tmp/lr-egress-filter.%d", (int)getpid());
	fd = open(file, O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "control: %s opens for writing before the filter", file);
	close(fd);
	cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	cr_assert_eq(lr_seccomp_load_egress(err, sizeof(err)), 0, "%s", err);

	/* what it needs */
	fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	cr_expect_geq(fd, 0, "open for reading: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_expect_geq(fd, 0, "a TCP socket: %s", strerror(errno));
	if (fd >= 0) {
		cr_expect_eq(try(listen(fd, 1)), EPERM, "listen");
		close(fd);
	}
	fd = (int)syscall(SYS_socket, AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_expect_geq(fd, 0, "a UDP socket (the resolver): %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	cr_expect_eq(pthread_create(&t, NULL, egress_thread, NULL), 0, "a thread");
	pthread_join(t, NULL);

	/* what it must not */
	cr_expect_eq(try(syscall(SYS_execve, "/bin/true", (char *[]){ "true", NULL },
				 (char *[]){ NULL })),
		     EPERM, "execve");
	cr_expect_eq(try(syscall(SYS_fork)), EPERM, "fork");
	cr_expect_eq(try(syscall(SYS_openat, AT_FDCWD, file, O_WRONLY)), EPERM, "open for writing");
	cr_expect_eq(try(syscall(SYS_openat, AT_FDCWD, file, O_RDWR)), EPERM, "open read-write");
	cr_expect_eq(try(syscall(SYS_openat, AT_FDCWD, file, O_RDONLY | O_TRUNC)), EPERM,
		     "open with O_TRUNC");
	cr_expect_eq(try(syscall(SYS_openat, AT_FDCWD, made, O_RDONLY | O_CREAT, 0600)),
		     EPERM, "open with O_CREAT");
	cr_expect_eq(try(syscall(SYS_open, file, O_WRONLY)), EPERM, "open(2) for writing");
	cr_expect_eq(try(syscall(SYS_openat2, AT_FDCWD, file, NULL, 0)), ENOSYS, "openat2");
	cr_expect_eq(try(syscall(SYS_mkdirat, AT_FDCWD, made, 0700)), EPERM, "mkdir");
	cr_expect_eq(try(syscall(SYS_unlinkat, AT_FDCWD, made, 0)), EPERM, "unlink");
	cr_expect_eq(try(syscall(SYS_memfd_create, "x", 0)), EPERM, "memfd_create");
	cr_expect_eq(try(syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)), EAFNOSUPPORT,
		     "socket(AF_UNIX)");
	cr_expect_eq(try(syscall(SYS_unshare, 0)), EPERM, "unshare");
	cr_expect_eq(try(syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0)), EPERM, "ptrace");
}

/* ------------------------------------------------------------------ */
/* (d) --report-denials: the trap copy, the trace filter, the tracer's  */

/* The trap copy of every compiled filter decides as the filter does, but
 * traps (marked, with the errno) where the filter fails a call. */
Test(seccomp_trace, trap_copy_decides_as_the_filter)
{
#ifndef NATIVE_ARCH
	lr_skip_test(0, "no seccomp_data arch value for this architecture in the test");
#else
	unsigned trapped = 0;

	for (unsigned key = 0; key < LR_SECCOMP_KEYS; key++) {
		struct lr_plan plan;
		const struct sock_fprog *prog;
		struct sock_fprog trap;

		memset(&plan, 0, sizeof(plan));
		plan.seccomp = true;
		lr_seccomp_key_plan(key, &plan);
		prog = lr_seccomp_prebuilt(&plan);
		trap.filter = calloc(prog->len, sizeof(*trap.filter));
		cr_assert_not_null(trap.filter);
		/* libseccomp shares one return among the calls that fail alike */
		cr_expect_geq(lr_seccomp_to_trap(prog, &trap), 2u, "key %u", key);
		cr_expect_eq(trap.len, prog->len);
		for (size_t i = 0; i < lr_seccomp_n_calls; i++) {
			struct seccomp_data d = { .arch = NATIVE_ARCH };
			uint32_t want, got;

			d.nr = call_number(lr_seccomp_calls[i].name);
			if (d.nr < 0)
				continue;
			want = bpf_run(prog, &d);
			got = bpf_run(&trap, &d);
			if ((want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO) {
				cr_expect_eq(got, SECCOMP_RET_TRAP | LR_SECCOMP_TRAP_MARK |
							  (want & SECCOMP_RET_DATA),
					     "key %u: %s: %#x", key, lr_seccomp_calls[i].name, got);
				trapped++;
			} else {
				cr_expect_eq(got, want, "key %u: %s", key, lr_seccomp_calls[i].name);
			}
		}
		/* the mark leaves room for every errno */
		cr_expect_eq(LR_SECCOMP_TRAP_MARK & 0xff, 0u);
		free(trap.filter);
	}
	cr_expect_gt(trapped, 1000u);
#endif
}

/* The trace filter sends the calls Landlock may deny to the tracer, and
 * nothing else; a foreign ABI is still killed. */
Test(seccomp_trace, trace_filter)
{
#ifndef NATIVE_ARCH
	lr_skip_test(0, "no seccomp_data arch value for this architecture in the test");
#else
	const struct sock_fprog *prog = lr_seccomp_prebuilt_trace();
	struct seccomp_data d = { .arch = NATIVE_ARCH };
	unsigned traced = 0;

	for (size_t i = 0; i < lr_seccomp_n_traced; i++) {
		d.nr = call_number(lr_seccomp_traced[i]);
		if (d.nr < 0)
			continue;
		cr_expect_eq(bpf_run(prog, &d), SECCOMP_RET_TRACE, "%s", lr_seccomp_traced[i]);
		traced++;
	}
	cr_expect_geq(traced, 20u);
	for (int nr = 0; nr < 512; nr++) {
		const char *name = lr_seccomp_call_name(nr);
		bool listed = false;

		if (!name)
			continue;
		for (size_t i = 0; i < lr_seccomp_n_traced; i++)
			listed |= strcmp(name, lr_seccomp_traced[i]) == 0;
		d.nr = nr;
		if (!listed)
			cr_expect_eq(bpf_run(prog, &d), SECCOMP_RET_ALLOW, "%s", name);
	}
	d.nr = SYS_openat;
	d.arch = AUDIT_ARCH_I386;
	cr_expect_eq(bpf_run(prog, &d), SECCOMP_RET_KILL_PROCESS);
#endif
}

/* The tracer's own filter: ptrace and reading files allowed; writing,
 * making or removing files, executing, new processes and sockets denied. */
Test(seccomp_trace, tracer_filter)
{
#ifndef NATIVE_ARCH
	lr_skip_test(0, "no seccomp_data arch value for this architecture in the test");
#else
	static const struct {
		const char *name;
		uint64_t args[3];
		uint32_t want;
	} cases[] = {
		{ "ptrace", { 0 }, SECCOMP_RET_ALLOW },
		{ "wait4", { 0 }, SECCOMP_RET_ALLOW },
		{ "openat", { AT_FDCWD, 0, O_RDONLY | O_CLOEXEC }, SECCOMP_RET_ALLOW },
		{ "openat", { AT_FDCWD, 0, O_RDONLY | O_NONBLOCK }, SECCOMP_RET_ALLOW },
		{ "faccessat2", { 0 }, SECCOMP_RET_ALLOW },
		{ "readlink", { 0 }, SECCOMP_RET_ALLOW },
		{ "ftruncate", { 3, 0 }, SECCOMP_RET_ALLOW },
		{ "openat", { AT_FDCWD, 0, O_WRONLY }, SECCOMP_RET_ERRNO | EPERM },
		{ "openat", { AT_FDCWD, 0, O_RDWR }, SECCOMP_RET_ERRNO | EPERM },
		{ "openat", { AT_FDCWD, 0, O_RDONLY | O_CREAT }, SECCOMP_RET_ERRNO | EPERM },
		{ "openat", { AT_FDCWD, 0, O_RDONLY | O_TRUNC }, SECCOMP_RET_ERRNO | EPERM },
		{ "open", { 0, O_WRONLY | O_APPEND }, SECCOMP_RET_ERRNO | EPERM },
		{ "openat2", { 0 }, SECCOMP_RET_ERRNO | ENOSYS },
		{ "execve", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "unlink", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "renameat2", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "mkdir", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "chmod", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "fork", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "socket", { AF_INET, SOCK_STREAM }, SECCOMP_RET_ERRNO | EAFNOSUPPORT },
		{ "process_vm_readv", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ "pidfd_getfd", { 0 }, SECCOMP_RET_ERRNO | EPERM },
	};
	const struct sock_fprog *prog = lr_seccomp_prebuilt_tracer();

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seccomp_data d = { .arch = NATIVE_ARCH };

		d.nr = call_number(cases[i].name);
		if (d.nr < 0)
			continue; /* not on this architecture */
		memcpy(d.args, cases[i].args, sizeof(cases[i].args));
		cr_expect_eq(bpf_run(prog, &d), cases[i].want, "%s (%#llx): %#x", cases[i].name,
			     (unsigned long long)cases[i].args[2], bpf_run(prog, &d));
	}
#endif
}

/* The broker's: what the command's filter sends it, and what its own
 * denies. */
Test(seccomp_broker, filters)
{
#ifdef __x86_64__
	static const struct {
		int which;	/* 0 notify (reads), 1 notify (writes), 2 the broker's own,
				 * 3 notify (writes, uid 0), 4 uid 0's own with the broker,
				 * 5 without, 6 the broker's that connects sockets of its
				 * own to the proxy */
		const char *name;
		uint64_t args[6];
		uint32_t want;
	} cases[] = {
		{ 0, "openat", { AT_FDCWD, 0, O_RDONLY }, SECCOMP_RET_USER_NOTIF },
		{ 1, "openat", { AT_FDCWD, 0, O_RDONLY }, SECCOMP_RET_ALLOW },
		{ 0, "openat", { AT_FDCWD, 0, O_PATH }, SECCOMP_RET_ALLOW },
		{ 1, "openat", { AT_FDCWD, 0, O_WRONLY }, SECCOMP_RET_USER_NOTIF },
		{ 1, "openat", { AT_FDCWD, 0, O_RDONLY | O_CREAT }, SECCOMP_RET_USER_NOTIF },
		{ 1, "openat", { AT_FDCWD, 0, O_RDONLY | O_TRUNC }, SECCOMP_RET_USER_NOTIF },
		{ 1, "open", { 0, O_RDWR }, SECCOMP_RET_USER_NOTIF },
		{ 1, "mkdirat", { AT_FDCWD, 0, 0755 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "renameat2", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "linkat", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "unlinkat", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "openat2", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "execve", { 0 }, SECCOMP_RET_ALLOW },
		{ 1, "read", { 0 }, SECCOMP_RET_ALLOW },
		{ 2, "execve", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 2, "fork", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 2, "socket", { AF_INET, SOCK_STREAM }, SECCOMP_RET_ERRNO | EAFNOSUPPORT },
		{ 2, "socket", { AF_UNIX, SOCK_STREAM }, SECCOMP_RET_ERRNO | EAFNOSUPPORT },
		{ 2, "mkdirat", { 0 }, SECCOMP_RET_ALLOW },
		{ 2, "openat2", { 0 }, SECCOMP_RET_ALLOW },
		/* without pidfd_getfd, the broker makes the TCP socket it
		 * connects to the proxy for the command: TCP, and no more */
		{ 6, "socket", { AF_INET, SOCK_STREAM | SOCK_CLOEXEC }, SECCOMP_RET_ALLOW },
		{ 6, "socket", { AF_INET6, SOCK_STREAM | SOCK_NONBLOCK }, SECCOMP_RET_ALLOW },
		{ 6, "socket", { AF_INET, SOCK_DGRAM }, SECCOMP_RET_ERRNO | EPROTONOSUPPORT },
		{ 6, "socket", { AF_UNIX, SOCK_STREAM }, SECCOMP_RET_ERRNO | EAFNOSUPPORT },
		{ 6, "execve", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 6, "pidfd_getfd", { 0 }, SECCOMP_RET_ALLOW },
		/* a UNIX socket bound beneath a root: the broker binds the
		 * command's own socket, which it takes by pidfd */
		{ 0, "bind", { 3, 0, 16 }, SECCOMP_RET_USER_NOTIF },
		{ 1, "bind", { 3, 0, 16 }, SECCOMP_RET_USER_NOTIF },
		{ 2, "pidfd_getfd", { 0 }, SECCOMP_RET_ALLOW },
		{ 2, "bind", { 0 }, SECCOMP_RET_ALLOW },
		/* uid 0's chmod and chown: the broker's only for uid 0 */
		{ 1, "fchmodat", { 0 }, SECCOMP_RET_ALLOW },
		{ 1, "fchown", { 0 }, SECCOMP_RET_ALLOW },
		{ 3, "fchmodat", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "fchmod", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "chown", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "fchownat", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "fchmodat2", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "fsetxattr", { 0 }, SECCOMP_RET_USER_NOTIF },
		{ 3, "setxattrat", { 0 }, SECCOMP_RET_ALLOW },
		{ 3, "mkdirat", { 0 }, SECCOMP_RET_USER_NOTIF },
		/* and uid 0's own filter lets them through to it, but not
		 * setxattrat (its arguments in a struct), and nothing created
		 * setuid */
		{ 4, "fchmodat", { 0 }, SECCOMP_RET_ALLOW },
		{ 4, "fchown", { 0 }, SECCOMP_RET_ALLOW },
		{ 4, "fsetxattr", { 0 }, SECCOMP_RET_ALLOW },
		{ 4, "setxattrat", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 4, "file_setattr", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 4, "openat", { AT_FDCWD, 0, O_CREAT | O_WRONLY, 04755 }, SECCOMP_RET_ERRNO | EPERM },
		{ 5, "fchmodat", { 0 }, SECCOMP_RET_ERRNO | EPERM },
		{ 5, "fchown", { 0 }, SECCOMP_RET_ERRNO | EPERM },
	};
	struct lr_plan brokered = { .seccomp = true, .deny_root_metadata = true,
				    .broker_metadata = true };
	struct lr_plan root = { .seccomp = true, .deny_root_metadata = true };
	const struct sock_fprog *progs[] = { lr_seccomp_prebuilt_notify(true, false),
					     lr_seccomp_prebuilt_notify(false, false),
					     lr_seccomp_prebuilt_broker(false),
					     lr_seccomp_prebuilt_notify(false, true),
					     lr_seccomp_prebuilt(&brokered), lr_seccomp_prebuilt(&root),
					     lr_seccomp_prebuilt_broker(true) };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seccomp_data d = { .arch = NATIVE_ARCH };

		d.nr = call_number(cases[i].name);
		if (d.nr < 0)
			continue;
		memcpy(d.args, cases[i].args, sizeof(cases[i].args));
		cr_expect_eq(bpf_run(progs[cases[i].which], &d), cases[i].want, "%d %s: %#x",
			     cases[i].which, cases[i].name, bpf_run(progs[cases[i].which], &d));
	}
#endif
}

/* The prebuilt trace, tracer, egress helper and broker filters are what
 * libseccomp builds now. */
Test(seccomp_trace, prebuilt_equals_a_fresh_build)
{
	scmp_filter_ctx (*const builds[])(char *, size_t) = {
		lr_seccomp_build_trace, lr_seccomp_build_tracer, lr_seccomp_build_egress,
		lr_seccomp_build_notify_reads, lr_seccomp_build_notify_writes,
		lr_seccomp_build_notify_reads_root, lr_seccomp_build_notify_writes_root,
		lr_seccomp_build_broker, lr_seccomp_build_broker_connect,
	};
	const struct sock_fprog *pre[] = { lr_seccomp_prebuilt_trace(), lr_seccomp_prebuilt_tracer(),
					   lr_seccomp_prebuilt_egress(),
					   lr_seccomp_prebuilt_notify(true, false),
					   lr_seccomp_prebuilt_notify(false, false),
					   lr_seccomp_prebuilt_notify(true, true),
					   lr_seccomp_prebuilt_notify(false, true),
					   lr_seccomp_prebuilt_broker(false),
					   lr_seccomp_prebuilt_broker(true) };
	char err[256];

	for (size_t i = 0; i < ARRAY_SIZE(builds); i++) {
		scmp_filter_ctx ctx = builds[i](err, sizeof(err));
		int fd = memfd_create("bpf", MFD_CLOEXEC);
		size_t len;
		char *raw;

		cr_assert_not_null(ctx, "%s", err);
		cr_assert_geq(fd, 0);
		cr_assert_eq(seccomp_export_bpf(ctx, fd), 0);
		raw = slurp(fd, &len);
		close(fd);
		seccomp_release(ctx);
		cr_expect(len == pre[i]->len * sizeof(*pre[i]->filter) &&
				  memcmp(raw, pre[i]->filter, len) == 0,
			  "filter %zu differs from a fresh build", i);
		free(raw);
	}
}

Test(seccomp_trace, call_names)
{
	cr_expect_str_eq(lr_seccomp_call_name(SYS_openat), "openat");
	cr_expect_str_eq(lr_seccomp_call_name(SYS_mount), "mount");
	cr_expect_null(lr_seccomp_call_name(-1));
	cr_expect_null(lr_seccomp_call_name(100000));
	cr_expect_eq(lr_seccomp_call_when(SYS_mount), LR_SECCOMP_ALWAYS);
	cr_expect_eq(lr_seccomp_call_when(SYS_ptrace), LR_SECCOMP_NOT_TRACER);
	cr_expect_eq(lr_seccomp_call_when(SYS_chmod), LR_SECCOMP_ROOT_BROKERED);
	cr_expect_eq(lr_seccomp_call_when(SYS_setxattr), LR_SECCOMP_ROOT_BROKERED);
	cr_expect_eq(lr_seccomp_call_when(SYS_setsid), LR_SECCOMP_TERMINAL);
	cr_expect_eq(lr_seccomp_call_when(SYS_getpid), -1);
}
