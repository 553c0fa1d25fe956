/* SPDX-License-Identifier: MIT */
/*
 * The plan for every Landlock ABI, without that kernel.  The expected masks
 * are written out as literals, independently of features.c: a wrong row in
 * its table must fail here.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/egress/egress.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/policy.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NONE LR_LAYER_NONE
#define LL LR_LAYER_LANDLOCK

/* Landlock filesystem rights, by value (kernel UAPI). */
#define EXECUTE 0x1ULL
#define WRITE_FILE 0x2ULL
#define READ_FILE 0x4ULL
#define READ_DIR 0x8ULL
#define MAKE_CHAR 0x40ULL
#define MAKE_BLOCK 0x800ULL
#define TRUNCATE 0x4000ULL
#define IOCTL_DEV 0x8000ULL
#define RESOLVE_UNIX 0x10000ULL
/* The rights the kernel accepts on a rule for a file (not a directory). */
#define FILE_RIGHTS (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV)
#define WRITE_RIGHTS (~(EXECUTE | READ_FILE | READ_DIR))

#define ABI1_FS 0x1fffULL
#define ABI2_FS 0x3fffULL
#define ABI3_FS 0x7fffULL
#define ABI5_FS 0xffffULL
#define ABI9_FS 0x1ffffULL

static const enum lr_prot launcher_prots[] = {
	LR_PROT_NO_NEW_PRIVS, LR_PROT_CAPS, LR_PROT_ENV, LR_PROT_FDS,
};

static const enum lr_prot fs_prots[] = {
	LR_PROT_FS_READ, LR_PROT_FS_WRITE, LR_PROT_FS_EXEC, LR_PROT_FS_TRUNCATE,
	LR_PROT_FS_IOCTL_DEV, LR_PROT_FS_SECRETS, LR_PROT_FS_PROTECTED,
};

/*
 * A plan's rows as a string, one character a row in the order below, '|'
 * between groups for the eye:
 *   L landlock, S seccomp, P landrun itself, N a network namespace, B the broker,
 *   - lost,
 *   . not requested.
 */
static const enum lr_prot row_order[] = {
	LR_PROT_FS_READ, LR_PROT_FS_WRITE, LR_PROT_FS_EXEC, LR_PROT_FS_TRUNCATE,
	LR_PROT_FS_IOCTL_DEV, LR_PROT_FS_SECRETS, LR_PROT_FS_PROTECTED, LR_PROT_FS_BROKER,
	LR_PROT_NET_SOCKETS, LR_PROT_NET_TCP, LR_PROT_NET_UDP, LR_PROT_NET_UNIX,
	LR_PROT_NET_EGRESS, LR_PROT_SCOPE_ABSTRACT_UNIX, LR_PROT_SCOPE_SIGNAL, LR_PROT_KERNEL_SURFACE,
	LR_PROT_KERNEL_FOREIGN_ABI, LR_PROT_NO_SUBPROCESS, LR_PROT_TTY_FOREGROUND,
	LR_PROT_NO_NEW_PRIVS, LR_PROT_CAPS, LR_PROT_ROOT_METADATA, LR_PROT_ENV, LR_PROT_FDS,
	LR_PROT_PROC_OTHERS, LR_PROT_IPC_SYSV,
};

static char row_char(const struct lr_plan *plan, enum lr_prot p)
{
	if (!plan->rows[p].requested)
		return '.';
	switch (plan->rows[p].layer) {
	case LR_LAYER_NONE:
		return '-';
	case LR_LAYER_LANDLOCK:
		return 'L';
	case LR_LAYER_SECCOMP:
		return 'S';
	case LR_LAYER_LAUNCHER:
		return 'P';
	case LR_LAYER_NETNS:
		return 'N';
	case LR_LAYER_BROKER:
		return 'B';
	}
	return '?';
}

static void expect_rows(const char *what, const struct lr_plan *plan, const char *want)
{
	char got[64];
	size_t n = 0;

	cr_assert_eq(ARRAY_SIZE(row_order), LR_PROT_COUNT, "a row is missing from row_order");
	for (size_t i = 0; i < ARRAY_SIZE(row_order); i++) {
		if (i == 8 || i == 19 || i == 24)
			got[n++] = '|';
		got[n++] = row_char(plan, row_order[i]);
	}
	got[n] = '\0';
	cr_expect_str_eq(got, want, "%s: rows %s, want %s", what, got, want);
	for (size_t i = 0; i < ARRAY_SIZE(row_order); i++)
		cr_expect_eq(lr_plan_is_lost(plan, row_order[i]), row_char(plan, row_order[i]) == '-',
			     "%s: lr_plan_is_lost(%s)", what, lr_prot_info(row_order[i])->id);
}

static unsigned fs_lost(const struct lr_plan *plan)
{
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fs_prots); i++)
		n += lr_plan_is_lost(plan, fs_prots[i]);
	return n;
}

enum {
	UFS = 1 << 0,		/* --unrestricted-filesystem */
	UNET = 1 << 1,		/* --unrestricted-network */
	USCOPED = 1 << 2,	/* --unrestricted-scoped */
	DENYSUB = 1 << 3,	/* --deny-subprocess */
	CONNECT = 1 << 4,	/* --connect-tcp 443 */
	BIND = 1 << 5,		/* --bind-tcp 8080 */
	UNIX = 1 << 6,		/* --unix /run/x.sock */
	ROOT = 1 << 7,		/* landrun runs as uid 0 */
	TTY = 1 << 8,		/* a terminal within reach */
	FOREIGN = 1 << 9,	/* ... that is not landrun's controlling terminal */
	EGRESS = 1 << 10,	/* --allow-domain api.example.com */
	NONETNS = 1 << 11,	/* ... and no network namespace (EPERM) */
	REPORT = 1 << 12,	/* --report-denials */
	LLAUDIT = 1 << 13,	/* --landlock-audit */
	SYSV = 1 << 14,		/* --allow-sysv-ipc */
	NOTIFY = 1 << 15,	/* seccomp user notification and pidfd_getfd (the broker) */
	NOGETFD = 1 << 16,	/* ... but a caller's filter refuses pidfd_getfd */
};

static void compute_with(int abi, int err, bool seccomp, unsigned flags, struct lr_plan *plan)
{
	struct lr_policy p;
	struct lr_features f = { .landlock_abi = abi, .landlock_errno = err,
				 .seccomp_filter = seccomp, .uid = flags & ROOT ? 0 : 1000,
				 .gid = flags & ROOT ? 0 : 1000, .uid0 = flags & ROOT,
				 .terminal = flags & (TTY | FOREIGN), .terminal_foreign = flags & FOREIGN,
				 .netns_errno = flags & NONETNS ? EPERM : 0,
				 .seccomp_notify = flags & NOTIFY,
				 .pidfd_getfd = (flags & NOTIFY) && !(flags & NOGETFD) };

	lr_policy_init(&p);
	p.unrestricted_fs = flags & UFS;
	p.unrestricted_net = flags & UNET;
	p.unrestricted_scoped = flags & USCOPED;
	p.deny_subprocess = flags & DENYSUB;
	p.report_denials = flags & REPORT;
	p.landlock_audit = flags & LLAUDIT;
	p.allow_sysv_ipc = flags & SYSV;
	if (flags & CONNECT)
		cr_assert_eq(lr_option_parse_ports("443", &p.connect_tcp, &p.n_connect_tcp), 0);
	if (flags & BIND)
		cr_assert_eq(lr_option_parse_ports("8080", &p.bind_tcp, &p.n_bind_tcp), 0);
	if (flags & UNIX) {
		cr_assert_eq(lr_policy_add_grant(&p, "/run/x.sock", LR_ACCESS_UNIX, "--unix"), 0);
		p.n_unix_paths++;
	}
	if (flags & EGRESS) {
		p.allow_domains = calloc(1, sizeof(*p.allow_domains));
		cr_assert_not_null(p.allow_domains);
		cr_assert_eq(lr_egress_parse_dest("api.example.com", p.allow_domains), 0);
		p.n_allow_domains = 1;
	}
	memset(plan, 0xa5, sizeof(*plan)); /* compute must set every field */
	lr_plan_compute(&p, &f, plan);
	lr_policy_free(&p);
}

static void compute(int abi, int err, bool unrestricted_fs, struct lr_plan *plan)
{
	compute_with(abi, err, true, unrestricted_fs ? UFS : 0, plan);
}

/* ------------------------------------------------------------------------ */
/* Every ABI, default policy */

struct abi_case {
	int abi;		/* reported by the kernel */
	int err;		/* landlock_errno */
	bool seccomp;		/* seccomp filters available */
	int used;		/* the ABI landrun uses */
	char rows[32];
	unsigned fs_lost;	/* lost among the seven fs rows */
	unsigned lost;		/* lost in all */
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
	uint32_t restrict_flags;
};

static struct abi_case abi_cases[] = {
	/* abi err  seccomp used  rows                     fs  all  handled_fs net  scoped flags */
	{ 0, 0,          true, 0, "-------.|SSSS.S-SS..|PP.PP|SS",  7,  8,   0,       0,   0,   0 },
	{ 0, ENOSYS,     true, 0, "-------.|SSSS.S-SS..|PP.PP|SS",  7,  8,   0,       0,   0,   0 },
	{ 0, EOPNOTSUPP, true, 0, "-------.|SSSS.S-SS..|PP.PP|SS",  7,  8,   0,       0,   0,   0 },
	{ 1, 0,  true, 1,         "LLL--LL.|SSSS.S-SS..|PP.PP|SS",  2,  3,   ABI1_FS, 0,   0,   0 },
	{ 2, 0,  true, 2,         "LLL--LL.|SSSS.S-SS..|PP.PP|SS",  2,  3,   ABI2_FS, 0,   0,   0 },
	{ 3, 0,  true, 3,         "LLLL-LL.|SSSS.S-SS..|PP.PP|SS",  1,  2,   ABI3_FS, 0,   0,   0 },
	{ 4, 0,  true, 4,         "LLLL-LL.|SSSS.S-SS..|PP.PP|SS",  1,  2,   ABI3_FS, 0,   0,   0 },
	{ 5, 0,  true, 5,         "LLLLLLL.|SSSS.S-SS..|PP.PP|SS",  0,  1,   ABI5_FS, 0,   0,   0 },
	{ 6, 0,  true, 6,         "LLLLLLL.|SSSS.LLSS..|PP.PP|SS",  0,  0,   ABI5_FS, 0,   0x3, 0 },
	{ 7, 0,  true, 7,         "LLLLLLL.|SSSS.LLSS..|PP.PP|SS",  0,  0,   ABI5_FS, 0,   0x3, 1 },
	{ 8, 0,  true, 8,         "LLLLLLL.|SSSS.LLSS..|PP.PP|SS",  0,  0,   ABI5_FS, 0,   0x3, 1 },
	{ 9, 0,  true, 9,         "LLLLLLL.|SSSL.LLSS..|PP.PP|SS",  0,  0,   ABI9_FS, 0,   0x3, 1 },
	{ 10, 0, true, 10,        "LLLLLLL.|SSLL.LLSS..|PP.PP|SS",  0,  0,   ABI9_FS, 0xc, 0x3, 1 },
	{ 11, 0, true, 10,        "LLLLLLL.|SSLL.LLSS..|PP.PP|SS",  0,  0,   ABI9_FS, 0xc, 0x3, 1 },
	{ 64, 0, true, 10,        "LLLLLLL.|SSLL.LLSS..|PP.PP|SS",  0,  0,   ABI9_FS, 0xc, 0x3, 1 },
	/* no seccomp: what it would carry is lost */
	{ 0, ENOSYS, false, 0,    "-------.|----.----..|PP.PP|--",  7,  17,  0,       0,   0,   0 },
	{ 1, 0,  false, 1,        "LLL--LL.|----.----..|PP.PP|--",  2,  12,  ABI1_FS, 0,   0,   0 },
	{ 5, 0,  false, 5,        "LLLLLLL.|----.----..|PP.PP|--",  0,  10,   ABI5_FS, 0,   0,   0 },
	{ 6, 0,  false, 6,        "LLLLLLL.|----.LL--..|PP.PP|--",  0,  8,   ABI5_FS, 0,   0x3, 0 },
	{ 9, 0,  false, 9,        "LLLLLLL.|---L.LL--..|PP.PP|--",  0,  7,   ABI9_FS, 0,   0x3, 1 },
	{ 11, 0, false, 10,       "LLLLLLL.|--LL.LL--..|PP.PP|--",  0,  6,   ABI9_FS, 0xc, 0x3, 1 },
};

ParameterizedTestParameters(plan_abi, rows)
{
	return cr_make_param_array(struct abi_case, abi_cases, ARRAY_SIZE(abi_cases));
}

ParameterizedTest(struct abi_case *c, plan_abi, rows)
{
	struct lr_plan plan;
	char what[64];

	snprintf(what, sizeof(what), "ABI %d%s", c->abi, c->seccomp ? "" : " without seccomp");
	compute_with(c->abi, c->err, c->seccomp, 0, &plan);

	cr_expect_eq(plan.abi_kernel, c->abi, "%s: abi_kernel %d", what, plan.abi_kernel);
	cr_expect_eq(plan.abi, c->used, "%s: abi used %d, want %d", what, plan.abi, c->used);
	cr_expect_eq(plan.landlock_errno, c->err, "%s: landlock_errno %d, want %d", what,
		     plan.landlock_errno, c->err);
	expect_rows(what, &plan, c->rows);
	for (size_t i = 0; i < ARRAY_SIZE(launcher_prots); i++)
		cr_expect_eq(plan.rows[launcher_prots[i]].layer, LR_LAYER_LAUNCHER, "%s: %s", what,
			     lr_prot_info(launcher_prots[i])->id);

	cr_expect_eq(fs_lost(&plan), c->fs_lost, "%s: %u fs rows lost, want %u", what,
		     fs_lost(&plan), c->fs_lost);
	cr_expect_eq(lr_plan_count_lost(&plan), c->lost, "%s: %u lost, want %u", what,
		     lr_plan_count_lost(&plan), c->lost);
	cr_expect_eq(plan.handled_fs, c->handled_fs, "%s: handled_fs %#llx, want %#llx", what,
		     (unsigned long long)plan.handled_fs, (unsigned long long)c->handled_fs);
	cr_expect_eq(plan.handled_net, c->handled_net, "%s: handled_net %#llx, want %#llx", what,
		     (unsigned long long)plan.handled_net, (unsigned long long)c->handled_net);
	cr_expect_eq(plan.scoped, c->scoped, "%s: scoped %#llx, want %#llx", what,
		     (unsigned long long)plan.scoped, (unsigned long long)c->scoped);
	cr_expect_eq(plan.restrict_flags, c->restrict_flags,
		     "%s: restrict_flags %#x, want %#x", what, plan.restrict_flags,
		     c->restrict_flags);
	cr_expect_eq(plan.seccomp, c->seccomp, "%s: plan.seccomp", what);

	/* the same answer from the features table */
	cr_expect_eq(lr_landlock_fs_rights(c->abi), c->handled_fs,
		     "%s: lr_landlock_fs_rights %#llx, want %#llx", what,
		     (unsigned long long)lr_landlock_fs_rights(c->abi),
		     (unsigned long long)c->handled_fs);
	cr_expect_eq(lr_landlock_abi_used(c->abi), c->used, "%s: lr_landlock_abi_used", what);
}

/* --unrestricted-filesystem: no fs row is asked for, so none is lost, and no
 * filesystem right is handled (pathname UNIX sockets are the network's). */
ParameterizedTestParameters(plan_abi, unrestricted_fs)
{
	return cr_make_param_array(struct abi_case, abi_cases, ARRAY_SIZE(abi_cases));
}

ParameterizedTest(struct abi_case *c, plan_abi, unrestricted_fs)
{
	struct lr_plan plan;

	compute_with(c->abi, c->err, c->seccomp, UFS, &plan);
	cr_expect_eq(plan.abi, c->used, "ABI %d: abi used %d", c->abi, plan.abi);
	for (size_t i = 0; i < ARRAY_SIZE(fs_prots); i++) {
		enum lr_prot p = fs_prots[i];

		cr_expect_not(plan.rows[p].requested, "ABI %d: %s requested", c->abi,
			      lr_prot_info(p)->id);
		cr_expect_not(lr_plan_is_lost(&plan, p), "ABI %d: %s lost", c->abi,
			      lr_prot_info(p)->id);
	}
	for (size_t i = 0; i < ARRAY_SIZE(launcher_prots); i++) {
		enum lr_prot p = launcher_prots[i];

		cr_expect(plan.rows[p].requested, "ABI %d: %s not requested", c->abi,
			  lr_prot_info(p)->id);
		cr_expect_eq(plan.rows[p].layer, LR_LAYER_LAUNCHER, "ABI %d: %s", c->abi,
			     lr_prot_info(p)->id);
	}
	cr_expect_eq(plan.handled_fs & ~RESOLVE_UNIX, 0, "ABI %d: handled_fs %#llx", c->abi,
		     (unsigned long long)plan.handled_fs);
	cr_expect_eq(fs_lost(&plan), 0, "ABI %d: fs rows lost", c->abi);
	cr_expect_eq(lr_plan_count_lost(&plan), c->lost - c->fs_lost, "ABI %d: %u lost, want %u",
		     c->abi, lr_plan_count_lost(&plan), c->lost - c->fs_lost);
	for (unsigned a = LR_ACCESS_RO; a <= (LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X); a++)
		cr_expect_eq((lr_plan_fs_rights(&plan, a, true) |
			      lr_plan_fs_rights(&plan, a, false)) & ~RESOLVE_UNIX,
			     0, "ABI %d: fs rights without a handled fs", c->abi);

	/* and with the network unrestricted too, nothing at all is handled */
	compute_with(c->abi, c->err, c->seccomp, UFS | UNET, &plan);
	cr_expect_eq(plan.handled_fs, 0, "ABI %d: handled_fs %#llx with --unrestricted-network",
		     c->abi, (unsigned long long)plan.handled_fs);
	cr_expect_eq(fs_lost(&plan), 0, "ABI %d: fs rows lost", c->abi);
}

/* A failed witness: the rows Landlock carried are lost, the others stay. */
ParameterizedTestParameters(plan_abi, lose_landlock)
{
	return cr_make_param_array(struct abi_case, abi_cases, ARRAY_SIZE(abi_cases));
}

ParameterizedTest(struct abi_case *c, plan_abi, lose_landlock)
{
	struct lr_plan before, plan;
	unsigned ll = 0;

	compute_with(c->abi, c->err, c->seccomp, 0, &before);
	plan = before;
	lr_plan_lose_layer(&plan, LR_LAYER_LANDLOCK);
	for (int p = 0; p < LR_PROT_COUNT; p++) {
		bool was_ll = before.rows[p].requested && before.rows[p].layer == LR_LAYER_LANDLOCK;

		ll += was_ll;
		cr_expect_eq(plan.rows[p].requested, before.rows[p].requested, "ABI %d: %s",
			     c->abi, lr_prot_info(p)->id);
		cr_expect_eq(plan.rows[p].layer, was_ll ? LR_LAYER_NONE : before.rows[p].layer,
			     "ABI %d: %s layer %s", c->abi, lr_prot_info(p)->id,
			     lr_layer_name(plan.rows[p].layer));
	}
	for (size_t i = 0; i < ARRAY_SIZE(fs_prots); i++)
		cr_expect(lr_plan_is_lost(&plan, fs_prots[i]), "ABI %d: %s not lost", c->abi,
			  lr_prot_info(fs_prots[i])->id);
	cr_expect_eq(fs_lost(&plan), 7, "ABI %d: fs rows lost", c->abi);
	cr_expect_eq(lr_plan_count_lost(&plan), c->lost + ll, "ABI %d: %u lost, want %u",
		     c->abi, lr_plan_count_lost(&plan), c->lost + ll);

	/* then the seccomp layer, then landrun's own */
	lr_plan_lose_layer(&plan, LR_LAYER_SECCOMP);
	for (int p = 0; p < LR_PROT_COUNT; p++)
		cr_expect_neq(plan.rows[p].layer, LR_LAYER_SECCOMP, "ABI %d: %s", c->abi,
			      lr_prot_info(p)->id);
	lr_plan_lose_layer(&plan, LR_LAYER_LAUNCHER);
	cr_expect_eq(lr_plan_count_lost(&plan), LR_PROT_COUNT - 5 /* no-subprocess, tty, root, egress, broker */,
		     "ABI %d: everything requested is lost", c->abi);
}

Test(plan_lose_layer, unrequested_rows_are_not_lost)
{
	struct lr_plan plan;

	compute_with(9, 0, true, UFS | UNET | USCOPED, &plan);
	expect_rows("all unrestricted", &plan, "........|.......SS..|PP.PP|SS");
	lr_plan_lose_layer(&plan, LR_LAYER_LANDLOCK);
	cr_expect_eq(lr_plan_count_lost(&plan), 0);
	lr_plan_lose_layer(&plan, LR_LAYER_NONE);
	cr_expect_eq(lr_plan_count_lost(&plan), 0);
}

Test(plan_lose_layer, only_the_layer_given)
{
	struct lr_plan plan;

	compute(9, 0, false, &plan);
	lr_plan_lose_layer(&plan, LR_LAYER_LAUNCHER);
	cr_expect_eq(lr_plan_count_lost(&plan), 4);
	for (size_t i = 0; i < ARRAY_SIZE(fs_prots); i++)
		cr_expect_eq(plan.rows[fs_prots[i]].layer, LR_LAYER_LANDLOCK, "%s",
			     lr_prot_info(fs_prots[i])->id);
	lr_plan_lose_layer(&plan, LR_LAYER_SECCOMP);
	expect_rows("ABI 9, launcher and seccomp lost", &plan, "LLLLLLL.|---L.LL--..|--.--|--");
}

/* ------------------------------------------------------------------------ */
/* Policies other than the default */

struct policy_case {
	const char *name;
	int abi;
	bool seccomp;
	unsigned flags;
	const char *rows;
	unsigned lost;
	uint64_t handled_fs, handled_net, scoped;
	uint32_t restrict_flags;
};

static const struct policy_case policy_cases[] = {
	{ "unrestricted-fs, ABI 5", 5, true, UFS,
	  "........|SSSS.S-SS..|PP.PP|SS",  1,  0, 0, 0, 0 },
	{ "unrestricted-fs, ABI 9: only pathname UNIX sockets", 9, true, UFS,
	  "........|SSSL.LLSS..|PP.PP|SS", 0, RESOLVE_UNIX, 0, 0x3, 1 },
	{ "unrestricted fs and net, ABI 9", 9, true, UFS | UNET,
	  "........|.....LLSS..|PP.PP|SS",  0,  0, 0, 0x3, 1 },
	{ "everything unrestricted, ABI 11: no ruleset", 11, true, UFS | UNET | USCOPED,
	  "........|.......SS..|PP.PP|SS",  0,  0, 0, 0, 0 },
	{ "unrestricted-net, ABI 9", 9, true, UNET,
	  "LLLLLLL.|.....LLSS..|PP.PP|SS", 0, ABI5_FS, 0, 0x3, 1 },
	{ "unrestricted-net, ABI 11", 11, true, UNET,
	  "LLLLLLL.|.....LLSS..|PP.PP|SS", 0, ABI5_FS, 0, 0x3, 1 },
	{ "unrestricted-scoped, ABI 5", 5, true, USCOPED,
	  "LLLLLLL.|SSSS...SS..|PP.PP|SS", 0, ABI5_FS, 0, 0, 0 },
	{ "unrestricted-scoped, ABI 8", 8, true, USCOPED,
	  "LLLLLLL.|SSSS...SS..|PP.PP|SS", 0, ABI5_FS, 0, 0, 1 },
	{ "connect-tcp, ABI 3: ports cannot be enforced", 3, true, CONNECT,
	  "LLLL-LL.|S-SS.S-SS..|PP.PP|SS", 3, ABI3_FS, 0, 0, 0 },
	{ "connect-tcp, ABI 4", 4, true, CONNECT,
	  "LLLL-LL.|SLSS.S-SS..|PP.PP|SS", 2, ABI3_FS, 0x3, 0, 0 },
	{ "bind-tcp, ABI 7", 7, true, BIND,
	  "LLLLLLL.|SLSS.LLSS..|PP.PP|SS", 0, ABI5_FS, 0x3, 0x3, 1 },
	{ "connect and bind, ABI 10", 10, true, CONNECT | BIND,
	  "LLLLLLL.|SLLL.LLSS..|PP.PP|SS", 0, ABI9_FS, 0xf, 0x3, 1 },
	{ "connect-tcp without seccomp, ABI 4", 4, false, CONNECT,
	  "LLLL-LL.|-L--.----..|PP.PP|--", 10, ABI3_FS, 0x3, 0, 0 },
	{ "unix, ABI 5: cannot be confined", 5, true, UNIX,
	  "LLLLLLL.|SSS-.--SS..|PP.PP|SS", 3, ABI5_FS, 0, 0, 0 },
	{ "unix, ABI 8", 8, true, UNIX,
	  "LLLLLLL.|SSS-.LLSS..|PP.PP|SS", 1, ABI5_FS, 0, 0x3, 1 },
	{ "unix, ABI 9", 9, true, UNIX,
	  "LLLLLLL.|SSSL.LLSS..|PP.PP|SS", 0, ABI9_FS, 0, 0x3, 1 },
	{ "deny-subprocess, ABI 9", 9, true, DENYSUB,
	  "LLLLLLL.|SSSL.LLSSS.|PP.PP|SS", 0, ABI9_FS, 0, 0x3, 1 },
	{ "root, ABI 9: the metadata family by seccomp", 9, true, ROOT,
	  "LLLLLLL.|SSSL.LLSS..|PPSPP|SS", 0, ABI9_FS, 0, 0x3, 1 },
	{ "root without seccomp, ABI 9: lost", 9, false, ROOT,
	  "LLLLLLL.|---L.LL--..|PP-PP|--", 8, ABI9_FS, 0, 0x3, 1 },
	{ "a terminal, ABI 9: job control kept by seccomp", 9, true, TTY,
	  "LLLLLLL.|SSSL.LLSS.S|PP.PP|SS", 0, ABI9_FS, 0, 0x3, 1 },
	{ "another session's terminal, ABI 9: lost", 9, true, FOREIGN,
	  "LLLLLLL.|SSSL.LLSS.-|PP.PP|SS", 1, ABI9_FS, 0, 0x3, 1 },
	{ "a terminal without seccomp, ABI 9: lost", 9, false, TTY,
	  "LLLLLLL.|---L.LL--.-|PP.PP|--", 8, ABI9_FS, 0, 0x3, 1 },
	{ "deny-subprocess without seccomp, ABI 9", 9, false, DENYSUB,
	  "LLLLLLL.|---L.LL---.|PP.PP|--", 8, ABI9_FS, 0, 0x3, 1 },
	{ "allow-sysv-ipc, ABI 9", 9, true, SYSV,
	  "LLLLLLL.|SSSL.LLSS..|PP.PP|S.", 0, ABI9_FS, 0, 0x3, 1 },
	/* --allow-domain: a namespace, TCP to the proxy's port */
	{ "allow-domain, ABI 7", 7, true, EGRESS,
	  "LLLLLLL.|SLSSNLLSS..|PP.PP|SS", 0, ABI5_FS, 0x3, 0x3, 1 },
	{ "allow-domain without a namespace, ABI 7", 7, true, EGRESS | NONETNS,
	  "LLLLLLL.|SLSS-LLSS..|PP.PP|SS", 1, ABI5_FS, 0x3, 0x3, 1 },
	{ "allow-domain, ABI 2: the namespace, but no port rules", 2, true, EGRESS,
	  "LLL--LL.|S-SSNS-SS..|PP.PP|SS", 4, ABI2_FS, 0, 0, 0 },
	{ "allow-domain and connect-tcp, ABI 10", 10, true, EGRESS | CONNECT,
	  "LLLLLLL.|SLLLNLLSS..|PP.PP|SS", 0, ABI9_FS, 0xf, 0x3, 1 },
	/* to report denials, Landlock denies every TCP port, where no AF_UNIX
	 * socket could listen once listen() is denied */
	{ "report-denials, ABI 7: TCP by Landlock", 7, true, REPORT,
	  "LLLLLLL.|SLSS.LLSS..|PP.PP|SS", 0, ABI5_FS, 0x3, 0x3, 1 },
	{ "report-denials, ABI 3: no TCP rights", 3, true, REPORT,
	  "LLLL-LL.|SSSS.S-SS..|PP.PP|SS", 2, ABI3_FS, 0, 0, 0 },
	{ "report-denials, ABI 9: AF_UNIX sockets, TCP stays seccomp's", 9, true, REPORT,
	  "LLLLLLL.|SSSL.LLSS..|PP.PP|SS", 0, ABI9_FS, 0, 0x3, 1 },
	{ "report-denials with --unix, ABI 8", 8, true, REPORT | UNIX,
	  "LLLLLLL.|SSS-.LLSS..|PP.PP|SS", 1, ABI5_FS, 0, 0x3, 1 },
	{ "report-denials with --connect-tcp, ABI 7", 7, true, REPORT | CONNECT,
	  "LLLLLLL.|SLSS.LLSS..|PP.PP|SS", 0, ABI5_FS, 0x3, 0x3, 1 },
	/* the kernel audits the command's Landlock denials (after exec) */
	{ "landlock-audit, ABI 7", 7, true, LLAUDIT,
	  "LLLLLLL.|SSSS.LLSS..|PP.PP|SS", 0, ABI5_FS, 0, 0x3, 3 },
	{ "landlock-audit, ABI 6: no such flag", 6, true, LLAUDIT,
	  "LLLLLLL.|SSSS.LLSS..|PP.PP|SS", 0, ABI5_FS, 0, 0x3, 0 },
};

Test(plan_egress, modes)
{
	struct lr_plan plan;

	compute_with(7, 0, true, 0, &plan);
	cr_expect_eq(plan.egress, LR_EGRESS_OFF);
	cr_expect_not(plan.net.tcp, "no TCP without a port flag or --allow-domain");
	compute_with(7, 0, true, EGRESS, &plan);
	cr_expect_eq(plan.egress, LR_EGRESS_NETNS);
	cr_expect_eq(plan.netns_errno, 0);
	cr_expect(plan.net.tcp, "the proxy is reached over TCP");
	cr_expect_not(plan.net.listen, "no listen without --bind-tcp");
	cr_expect_eq(plan.egress_port, 0, "the proxy's port comes at start");
	compute_with(7, 0, true, EGRESS | NONETNS, &plan);
	cr_expect_eq(plan.egress, LR_EGRESS_LOOPBACK);
	cr_expect_eq(plan.netns_errno, EPERM);
	cr_expect(lr_plan_is_lost(&plan, LR_PROT_NET_EGRESS));
	/* no namespace asked for: no error recorded */
	compute_with(7, 0, true, NONETNS, &plan);
	cr_expect_eq(plan.egress, LR_EGRESS_OFF);
	cr_expect_eq(plan.netns_errno, 0);
	cr_expect_eq(plan.rows[LR_PROT_NET_EGRESS].requested, false);
	cr_expect_str_eq(lr_layer_name(LR_LAYER_NETNS), "netns");
}

/* No namespace: the broker's connects, where it can take the command's
 * socket and Landlock refuses the proxy's port to anything else. */
Test(plan_egress, brokered)
{
	struct lr_plan plan;

	compute_with(4, 0, true, EGRESS | NONETNS | NOTIFY, &plan);
	cr_expect(plan.broker_connect);
	cr_expect_not(plan.broker_connect_own, "pidfd_getfd: the command's own socket");
	cr_expect(plan.broker, "a broker for the connects, with no grant to broker");
	cr_expect_eq(plan.rows[LR_PROT_NET_EGRESS].layer, LR_LAYER_BROKER);
	cr_expect_not(lr_plan_is_lost(&plan, LR_PROT_NET_EGRESS));
	compute_with(7, 0, true, EGRESS | NOTIFY, &plan);
	cr_expect_not(plan.broker_connect, "a namespace: no need");
	cr_expect_eq(plan.rows[LR_PROT_NET_EGRESS].layer, LR_LAYER_NETNS);
	compute_with(3, 0, true, EGRESS | NONETNS | NOTIFY, &plan);
	cr_expect_not(plan.broker_connect, "ABI 3: no TCP rule keeps the proxy's port from the command");
	cr_expect(lr_plan_is_lost(&plan, LR_PROT_NET_EGRESS));
	cr_expect_not(plan.broker_connect_own);
	/* a container engine's profile refuses pidfd_getfd: the broker
	 * connects a socket of its own, in the command's socket's place */
	compute_with(7, 0, true, EGRESS | NONETNS | NOTIFY | NOGETFD, &plan);
	cr_expect(plan.broker_connect, "no pidfd_getfd: the broker's own socket");
	cr_expect(plan.broker_connect_own);
	cr_expect_eq(plan.rows[LR_PROT_NET_EGRESS].layer, LR_LAYER_BROKER);
	cr_expect_not(lr_plan_is_lost(&plan, LR_PROT_NET_EGRESS));
	compute_with(7, 0, true, EGRESS | NONETNS, &plan);
	cr_expect_not(plan.broker_connect, "no user notification");
	cr_expect(lr_plan_is_lost(&plan, LR_PROT_NET_EGRESS));
}

/* --report-denials moves TCP to Landlock only as strict as before: no
 * listen(), which autobinds a port Landlock does not see. */
Test(plan_policy, report_denials_keeps_listen_denied)
{
	struct lr_plan plan;

	compute_with(7, 0, true, 0, &plan);
	cr_expect_not(plan.net.tcp);
	compute_with(7, 0, true, REPORT, &plan);
	cr_expect(plan.net.tcp);
	cr_expect_not(plan.net.listen);
	cr_expect_not(plan.net.udp);
	cr_expect_not(plan.net.unix_socket);
	cr_expect_eq(lr_plan_net_connect_rights(&plan), LANDLOCK_ACCESS_NET_CONNECT_TCP);
	cr_expect_eq(lr_plan_net_bind_rights(&plan), LANDLOCK_ACCESS_NET_BIND_TCP);
}

/* Who the command runs as, and the filter bit for uid 0. */
Test(plan_privs, root_metadata)
{
	struct lr_plan plan;

	compute_with(9, 0, true, 0, &plan);
	cr_expect_eq(plan.uid, 1000);
	cr_expect_eq(plan.gid, 1000);
	cr_expect_not(plan.deny_root_metadata);
	cr_expect_not(plan.rows[LR_PROT_ROOT_METADATA].requested);
	compute_with(9, 0, true, ROOT, &plan);
	cr_expect_eq(plan.uid, 0);
	cr_expect(plan.deny_root_metadata);
	cr_expect_eq(plan.rows[LR_PROT_ROOT_METADATA].layer, LR_LAYER_SECCOMP);
	lr_plan_lose_layer(&plan, LR_LAYER_SECCOMP);
	cr_expect(lr_plan_is_lost(&plan, LR_PROT_ROOT_METADATA));
}

/* --user: the command runs as the user named, which landrun becomes first
 * when it is root; only uid 0 asks for the metadata row. */
Test(plan_privs, run_as)
{
	struct lr_policy p;
	struct lr_features f = { .landlock_abi = 9, .seccomp_filter = true, .uid0 = true };
	struct lr_plan plan;

	lr_policy_init(&p);
	p.run_as = (struct lr_run_as){ .set = true, .uid = 1000, .gid = 100 };
	lr_plan_compute(&p, &f, &plan);
	cr_expect_eq(plan.uid, 1000);
	cr_expect_eq(plan.gid, 100);
	cr_expect(plan.switch_user);
	cr_expect_not(plan.deny_root_metadata);
	cr_expect_not(plan.rows[LR_PROT_ROOT_METADATA].requested);

	p.run_as.uid = 0;
	lr_plan_compute(&p, &f, &plan);
	cr_expect(plan.deny_root_metadata);
	cr_expect_eq(plan.rows[LR_PROT_ROOT_METADATA].layer, LR_LAYER_SECCOMP);

	/* not root: --user names the caller, nothing to switch */
	f.uid0 = false;
	f.uid = 1000;
	p.run_as.uid = 1000;
	lr_plan_compute(&p, &f, &plan);
	cr_expect_not(plan.switch_user);
	cr_expect_not(plan.deny_root_metadata);
	lr_policy_free(&p);
}

Test(plan_privs, terminal_bit)
{
	struct lr_plan plan;

	compute_with(9, 0, true, 0, &plan);
	cr_expect_not(plan.deny_terminal);
	compute_with(9, 0, true, TTY, &plan);
	cr_expect(plan.deny_terminal);
	/* even when job control cannot guard it, the filter still denies */
	compute_with(9, 0, true, FOREIGN, &plan);
	cr_expect(plan.deny_terminal);
}

Test(plan_policy, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_cases); i++) {
		const struct policy_case *c = &policy_cases[i];
		struct lr_plan plan;

		compute_with(c->abi, 0, c->seccomp, c->flags, &plan);
		expect_rows(c->name, &plan, c->rows);
		cr_expect_eq(lr_plan_count_lost(&plan), c->lost, "%s: %u lost, want %u", c->name,
			     lr_plan_count_lost(&plan), c->lost);
		cr_expect_eq(plan.handled_fs, c->handled_fs, "%s: handled_fs %#llx, want %#llx",
			     c->name, (unsigned long long)plan.handled_fs,
			     (unsigned long long)c->handled_fs);
		cr_expect_eq(plan.handled_net, c->handled_net, "%s: handled_net %#llx, want %#llx",
			     c->name, (unsigned long long)plan.handled_net,
			     (unsigned long long)c->handled_net);
		cr_expect_eq(plan.scoped, c->scoped, "%s: scoped %#llx, want %#llx", c->name,
			     (unsigned long long)plan.scoped, (unsigned long long)c->scoped);
		cr_expect_eq(plan.restrict_flags, c->restrict_flags,
			     "%s: restrict_flags %#x, want %#x", c->name, plan.restrict_flags,
			     c->restrict_flags);
	}
}

/* ------------------------------------------------------------------------ */
/* Rights for one grant */

#define RO_ (LR_ACCESS_RO)
#define ROX_ (LR_ACCESS_RO | LR_ACCESS_X)
#define RW_ (LR_ACCESS_RO | LR_ACCESS_RW)
#define RWX_ (LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X)

struct rights_case {
	int abi;
	unsigned access;
	bool is_dir;
	uint64_t want;
};

static const struct rights_case rights_cases[] = {
	/* ABI 1 */
	{ 1, RO_, true, 0xc },		/* read_file read_dir */
	{ 1, RO_, false, 0x4 },		/* read_file */
	{ 1, ROX_, true, 0xd },
	{ 1, ROX_, false, 0x5 },
	{ 1, RW_, true, 0x17be },	/* all of ABI 1 but execute, make_char, make_block */
	{ 1, RW_, false, 0x6 },		/* read_file write_file */
	{ 1, RWX_, true, 0x17bf },
	{ 1, RWX_, false, 0x7 },
	/* ABI 3: truncate */
	{ 3, RO_, true, 0xc },
	{ 3, RO_, false, 0x4 },
	{ 3, ROX_, true, 0xd },
	{ 3, ROX_, false, 0x5 },
	{ 3, RW_, true, 0x77be },	/* + refer, truncate */
	{ 3, RW_, false, 0x4006 },	/* + truncate */
	{ 3, RWX_, true, 0x77bf },
	{ 3, RWX_, false, 0x4007 },
	/* ABI 9: ioctl_dev, resolve_unix */
	{ 9, RO_, true, 0xc },
	{ 9, RO_, false, 0x4 },
	{ 9, ROX_, true, 0xd },
	{ 9, ROX_, false, 0x5 },
	{ 9, RW_, true, 0x1f7be },	/* + ioctl_dev, resolve_unix */
	{ 9, RW_, false, 0xc006 },	/* + ioctl_dev */
	{ 9, RWX_, true, 0x1f7bf },
	{ 9, RWX_, false, 0xc007 },
	/* ABI 0: nothing handled, nothing granted */
	{ 0, RWX_, true, 0 },
	{ 0, RWX_, false, 0 },
};

Test(plan_fs_rights, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(rights_cases); i++) {
		const struct rights_case *c = &rights_cases[i];
		struct lr_plan plan;
		uint64_t got;

		compute(c->abi, 0, false, &plan);
		got = lr_plan_fs_rights(&plan, c->access, c->is_dir);
		cr_expect_eq(got, c->want, "ABI %d access %#x %s: %#llx, want %#llx", c->abi,
			     c->access, c->is_dir ? "dir" : "file", (unsigned long long)got,
			     (unsigned long long)c->want);
	}
}

/* --unix: only resolve_unix, and only where Landlock has it; with the network
 * unrestricted, read-write trees lose resolve_unix (nothing handles it). */
Test(plan_fs_rights, unix_and_unrestricted_network)
{
	static const struct {
		int abi;
		unsigned flags;
		unsigned access;
		bool is_dir;
		uint64_t want;
	} cases[] = {
		{ 9, UNIX, LR_ACCESS_UNIX, false, RESOLVE_UNIX },
		{ 11, UNIX, LR_ACCESS_UNIX, false, RESOLVE_UNIX },
		{ 8, UNIX, LR_ACCESS_UNIX, false, 0 },
		{ 1, UNIX, LR_ACCESS_UNIX, false, 0 },
		{ 9, UFS | UNIX, LR_ACCESS_UNIX, false, RESOLVE_UNIX },
		{ 9, UNET, RW_, true, 0xf7be },
		{ 9, UNET, RWX_, true, 0xf7bf },
		{ 9, UNET, RW_, false, 0xc006 },
		{ 9, 0, RW_, true, 0x1f7be },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_plan plan;
		uint64_t got;

		compute_with(cases[i].abi, 0, true, cases[i].flags, &plan);
		got = lr_plan_fs_rights(&plan, cases[i].access, cases[i].is_dir);
		cr_expect_eq(got, cases[i].want, "case %zu (ABI %d): %#llx, want %#llx", i,
			     cases[i].abi, (unsigned long long)got,
			     (unsigned long long)cases[i].want);
	}
}

/* Properties that hold at every ABI, for every access. */
Test(plan_fs_rights, properties)
{
	static const unsigned accesses[] = { RO_, ROX_, RW_, RWX_ };

	for (int abi = 0; abi <= 11; abi++) {
		struct lr_plan plan;

		compute(abi, 0, false, &plan);
		for (size_t i = 0; i < ARRAY_SIZE(accesses); i++) {
			unsigned a = accesses[i];
			uint64_t dir = lr_plan_fs_rights(&plan, a, true);
			uint64_t file = lr_plan_fs_rights(&plan, a, false);

			cr_expect_eq(file & ~FILE_RIGHTS, 0,
				     "ABI %d access %#x: file gets dir-only rights %#llx", abi, a,
				     (unsigned long long)(file & ~FILE_RIGHTS));
			cr_expect_eq(dir & (MAKE_CHAR | MAKE_BLOCK), 0,
				     "ABI %d access %#x: dir gets make_char/make_block", abi, a);
			cr_expect_eq((dir | file) & ~plan.handled_fs, 0,
				     "ABI %d access %#x: rights beyond handled_fs", abi, a);
			cr_expect_eq(file & ~dir, 0, "ABI %d access %#x: file > dir", abi, a);
			if (!(a & LR_ACCESS_X))
				cr_expect_eq((dir | file) & EXECUTE, 0,
					     "ABI %d access %#x: execute without X", abi, a);
			else if (abi >= 1)
				cr_expect_eq(dir & file & EXECUTE, EXECUTE,
					     "ABI %d access %#x: no execute", abi, a);
			if (!(a & LR_ACCESS_RW))
				cr_expect_eq((dir | file) & WRITE_RIGHTS, 0,
					     "ABI %d access %#x: write rights %#llx", abi, a,
					     (unsigned long long)((dir | file) & WRITE_RIGHTS));
			if (abi >= 1) {
				cr_expect_eq(file & READ_FILE, READ_FILE, "ABI %d: no read_file",
					     abi);
				cr_expect_eq(dir & READ_DIR, READ_DIR, "ABI %d: no read_dir", abi);
			}
		}
	}
}

/* ------------------------------------------------------------------------ */
/* The terminal probe, on a pseudo-terminal of the test's own */

/* In a child that is a new session without a controlling terminal: 0, 1 and
 * 2 on /dev/null, then a pty's slave on fd 0 (another session's terminal
 * until it is made the controlling one), then its master kept. */
static int terminal_probe_child(void)
{
	struct lr_features f;
	int null = open("/dev/null", O_RDWR), master, slave, kept[1];

	if (setsid() < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0)
		return 10;
	lr_features_probe_terminal(&f, NULL, 0);
	if (f.terminal || f.terminal_foreign)
		return 11;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0)
		return 12;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0 || dup2(slave, 0) < 0)
		return 13;
	lr_features_probe_terminal(&f, NULL, 0);
	if (!f.terminal || !f.terminal_foreign)
		return 14;
	if (ioctl(0, TIOCSCTTY, 0) < 0)
		return 15;
	lr_features_probe_terminal(&f, NULL, 0);
	if (!f.terminal || f.terminal_foreign)
		return 16;
	kept[0] = master;
	lr_features_probe_terminal(&f, kept, 1);
	if (!f.terminal || !f.terminal_foreign)
		return 17;
	/* the controlling terminal alone, through /dev/tty */
	if (dup2(null, 0) < 0)
		return 18;
	lr_features_probe_terminal(&f, NULL, 0);
	if (!f.terminal || f.terminal_foreign)
		return 19;
	return 0;
}

Test(features, terminal)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(terminal_probe_child());
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "the probe went wrong at step %d (see terminal_probe_child)", WEXITSTATUS(st));
}

/* ------------------------------------------------------------------------ */
/* The features table */

Test(features, per_abi)
{
	static const struct {
		int abi;
		uint64_t fs, net, scopes;
		uint32_t restrict_flags;
		size_t attr_size;
	} cases[] = {
		{ -1, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0 },
		{ 1, ABI1_FS, 0, 0, 0, 8 },
		{ 2, ABI2_FS, 0, 0, 0, 8 },
		{ 3, ABI3_FS, 0, 0, 0, 8 },
		{ 4, ABI3_FS, 0x3, 0, 0, 16 },
		{ 5, ABI5_FS, 0x3, 0, 0, 16 },
		{ 6, ABI5_FS, 0x3, 0x3, 0, 24 },
		{ 7, ABI5_FS, 0x3, 0x3, 0x7, 24 },
		{ 8, ABI5_FS, 0x3, 0x3, 0xf, 24 },
		{ 9, ABI9_FS, 0x3, 0x3, 0xf, 24 },
		{ 10, ABI9_FS, 0xf, 0x3, 0xf, 24 },
		{ 11, ABI9_FS, 0xf, 0x3, 0xf, 24 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int abi = cases[i].abi;

		cr_expect_eq(lr_landlock_fs_rights(abi), cases[i].fs, "ABI %d: fs %#llx", abi,
			     (unsigned long long)lr_landlock_fs_rights(abi));
		cr_expect_eq(lr_landlock_net_rights(abi), cases[i].net, "ABI %d: net %#llx", abi,
			     (unsigned long long)lr_landlock_net_rights(abi));
		cr_expect_eq(lr_landlock_scopes(abi), cases[i].scopes, "ABI %d: scopes %#llx",
			     abi, (unsigned long long)lr_landlock_scopes(abi));
		cr_expect_eq(lr_landlock_restrict_flags(abi), cases[i].restrict_flags,
			     "ABI %d: restrict_flags %#x", abi, lr_landlock_restrict_flags(abi));
		cr_expect_eq(lr_landlock_attr_size(abi), cases[i].attr_size,
			     "ABI %d: attr_size %zu, want %zu", abi, lr_landlock_attr_size(abi),
			     cases[i].attr_size);
	}
}

Test(features, abi_used)
{
	cr_expect_eq(LR_LANDLOCK_ABI_KNOWN, 10);
	cr_expect_eq(lr_landlock_abi_used(-5), 0);
	cr_expect_eq(lr_landlock_abi_used(0), 0);
	for (int abi = 1; abi <= 10; abi++)
		cr_expect_eq(lr_landlock_abi_used(abi), abi, "ABI %d", abi);
	cr_expect_eq(lr_landlock_abi_used(11), 10);
	cr_expect_eq(lr_landlock_abi_used(1000), 10);
}

Test(features, min_abi)
{
	static const struct {
		uint64_t rights;
		int fs;
	} fs_cases[] = {
		{ 0, 0 },
		{ 0x1, 1 },		/* execute */
		{ 0xc, 1 },		/* read_file read_dir */
		{ 0x1fff, 1 },
		{ 0x2000, 2 },		/* refer */
		{ 0x2001, 2 },
		{ 0x4000, 3 },		/* truncate */
		{ 0x4004, 3 },
		{ 0x8000, 5 },		/* ioctl_dev */
		{ 0xffff, 5 },
		{ 0x10000, 9 },		/* resolve_unix */
		{ 0x1ffff, 9 },
		{ 0x20000, 11 },	/* unknown: beyond what landrun knows */
		{ 0x20001, 11 },
	};
	static const struct {
		uint64_t rights;
		int net;
	} net_cases[] = {
		{ 0, 0 }, { 0x1, 4 }, { 0x2, 4 }, { 0x3, 4 }, { 0x4, 10 }, { 0x8, 10 },
		{ 0xf, 10 }, { 0x10, 11 },
	};
	static const struct {
		uint64_t scopes;
		int min;
	} scope_cases[] = {
		{ 0, 0 }, { 0x1, 6 }, { 0x2, 6 }, { 0x3, 6 }, { 0x4, 11 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(fs_cases); i++)
		cr_expect_eq(lr_landlock_fs_min_abi(fs_cases[i].rights), fs_cases[i].fs,
			     "fs %#llx: %d, want %d", (unsigned long long)fs_cases[i].rights,
			     lr_landlock_fs_min_abi(fs_cases[i].rights), fs_cases[i].fs);
	for (size_t i = 0; i < ARRAY_SIZE(net_cases); i++)
		cr_expect_eq(lr_landlock_net_min_abi(net_cases[i].rights), net_cases[i].net,
			     "net %#llx: %d, want %d", (unsigned long long)net_cases[i].rights,
			     lr_landlock_net_min_abi(net_cases[i].rights), net_cases[i].net);
	for (size_t i = 0; i < ARRAY_SIZE(scope_cases); i++)
		cr_expect_eq(lr_landlock_scope_min_abi(scope_cases[i].scopes), scope_cases[i].min,
			     "scopes %#llx: %d, want %d", (unsigned long long)scope_cases[i].scopes,
			     lr_landlock_scope_min_abi(scope_cases[i].scopes), scope_cases[i].min);
}

/* ------------------------------------------------------------------------ */
/* Names */

Test(plan_names, every_prot_has_an_id)
{
	static const char *const ids[LR_PROT_COUNT] = {
		[LR_PROT_FS_READ] = "fs.read",
		[LR_PROT_FS_WRITE] = "fs.write",
		[LR_PROT_FS_EXEC] = "fs.exec",
		[LR_PROT_FS_TRUNCATE] = "fs.truncate",
		[LR_PROT_FS_IOCTL_DEV] = "fs.ioctl-dev",
	};

	for (int p = 0; p < LR_PROT_COUNT; p++) {
		const struct lr_prot_info *info = lr_prot_info(p);

		cr_assert_not_null(info, "prot %d", p);
		cr_expect_not_null(info->id, "prot %d: no id", p);
		cr_expect_not_null(info->what, "prot %d: no what", p);
		cr_expect_not_null(info->needs, "prot %d: no needs", p);
		if (ids[p] && info->id)
			cr_expect_str_eq(info->id, ids[p], "prot %d", p);
		for (int q = 0; q < p; q++)
			if (info->id && lr_prot_info(q)->id)
				cr_expect_str_neq(info->id, lr_prot_info(q)->id,
						  "prots %d and %d share an id", q, p);
	}
	cr_expect_str_eq(lr_layer_name(LR_LAYER_NONE), "none");
	cr_expect_str_eq(lr_layer_name(LR_LAYER_LANDLOCK), "landlock");
	cr_expect_str_eq(lr_layer_name(LR_LAYER_SECCOMP), "seccomp");
	cr_expect_str_eq(lr_layer_name(LR_LAYER_LAUNCHER), "landrun");
}

/* listen(2) with --connect-tcp: denied, but where UNIX sockets are allowed
 * (Landlock ABI 9, or --unix), whose servers need it; a relayed terminal
 * (--pty) asks nothing of the filter. */
Test(plan_policy, listen_and_pty)
{
	static const struct {
		int abi;
		unsigned flags;
		bool listen;
	} cases[] = {
		{ 7, CONNECT, false }, { 7, CONNECT | BIND, true }, { 7, CONNECT | UNIX, true },
		{ 7, 0, true },	       { 9, CONNECT, true },	    { 10, CONNECT, true },
	};
	struct lr_plan plan;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		compute_with(cases[i].abi, 0, true, cases[i].flags, &plan);
		cr_expect_eq(plan.net.listen, cases[i].listen, "case %zu: ABI %d flags %#x", i,
			     cases[i].abi, cases[i].flags);
	}
	compute_with(7, 0, true, TTY, &plan);
	cr_expect(plan.deny_terminal);
	cr_expect_eq(plan.rows[LR_PROT_TTY_FOREGROUND].layer, LR_LAYER_SECCOMP);
	{
		struct lr_policy p;
		struct lr_features f = { .landlock_abi = 7, .seccomp_filter = true, .uid = 1000,
					 .gid = 1000, .terminal = true, .terminal_relayed = true };

		lr_policy_init(&p);
		lr_plan_compute(&p, &f, &plan);
		cr_expect(!plan.deny_terminal, "--pty: nothing to deny");
		cr_expect_eq(plan.rows[LR_PROT_TTY_FOREGROUND].layer, LR_LAYER_LAUNCHER);
		f.terminal_foreign = true;
		lr_plan_compute(&p, &f, &plan);
		cr_expect(lr_plan_is_lost(&plan, LR_PROT_TTY_FOREGROUND),
			  "another terminal kept within reach is not relayed");
		lr_policy_free(&p);
	}
}

/* ------------------------------------------------------------------------ */
/* Why a protection is lost: the kernel, or the caller's seccomp filter */

struct cause_case {
	int err;		/* landlock_errno */
	bool filtered;		/* the caller is under a seccomp filter */
	/* (arrays, not pointers: Criterion copies the parameters to the test) */
	char landlock[80];	/* in lr_plan_landlock_cause */
	char fs_read[96];	/* in lr_plan_lost_why for fs.read */
	char not_in[16];	/* ... and what it must not say */
};

static struct cause_case cause_cases[] = {
	{ ENOSYS, false, "not built into this kernel (ENOSYS)", "Linux 5.13+", "seccomp filter" },
	{ EOPNOTSUPP, false, "disabled at boot", "lsm=", "seccomp filter" },
	{ EPERM, true, "the caller's seccomp filter refused landlock_create_ruleset: EPERM",
	  "Landlock, but the caller's seccomp filter refused landlock_create_ruleset: EPERM",
	  "lsm=" },
	{ ENOSYS, true, "not built into this kernel, or the caller's seccomp filter refused",
	  "or the caller's seccomp filter refused landlock_create_ruleset (ENOSYS)", "" },
};

ParameterizedTestParameters(plan_cause, landlock)
{
	return cr_make_param_array(struct cause_case, cause_cases, ARRAY_SIZE(cause_cases));
}

ParameterizedTest(struct cause_case *c, plan_cause, landlock)
{
	struct lr_plan plan;
	char buf[512], why[512];
	const char *w;

	compute(0, c->err, false, &plan);
	plan.caller_filtered = c->filtered;
	cr_expect(strstr(lr_plan_landlock_cause(&plan, buf, sizeof(buf)), c->landlock), "%s", buf);
	w = lr_plan_lost_why(&plan, LR_PROT_FS_READ, why, sizeof(why));
	cr_expect(strstr(w, c->fs_read), "%s", w);
	cr_expect(!*c->not_in || !strstr(w, c->not_in), "%s", w);
}

Test(plan_cause, seccomp_refused)
{
	struct lr_plan plan;
	char why[512];
	const char *w;

	/* seccomp(2) and prctl refused by the caller's filter: said, with the errno */
	compute_with(7, 0, false, 0, &plan);
	plan.caller_filtered = true;
	plan.seccomp_errno = EPERM;
	w = lr_plan_lost_why(&plan, LR_PROT_NET_SOCKETS, why, sizeof(why));
	cr_expect(strstr(w, "the caller's seccomp filter refused seccomp filters: seccomp(2): EPERM"),
		  "%s", w);
	/* not filtered: the feature's own text */
	plan.caller_filtered = false;
	w = lr_plan_lost_why(&plan, LR_PROT_NET_SOCKETS, why, sizeof(why));
	cr_expect_str_eq(w, lr_prot_info(LR_PROT_NET_SOCKETS)->needs);
}
