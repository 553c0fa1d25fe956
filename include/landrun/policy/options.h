/* SPDX-License-Identifier: MIT */
/*
 * The one table of landrun's settings, read by both drivers: the command line
 * (cli.c, "--name value") and policy files (config.c, "name = value").  A
 * setting is applied to a struct lr_policy here, whichever driver read it.
 * Never prints, never exits: errors come back as one line naming the setting.
 */
#ifndef LANDRUN_OPTIONS_H
#define LANDRUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "landrun/lib/error.h"
#include "landrun/lib/util.h"
#include "landrun/policy/policy.h"

/* Long-only options, alphabetical (they start above any short option). */
enum lr_opt_id {
	LR_OPT_ADD_EXEC = 0x100,
	LR_OPT_ALLOW_DOMAIN,
	LR_OPT_ALLOW_DOTENV,
	LR_OPT_ALLOW_PROTECTED,
	LR_OPT_ALLOW_REQUEST,
	LR_OPT_ALLOW_SYSV_IPC,
	LR_OPT_AUDIT_LOG,
	LR_OPT_BEST_EFFORT,
	LR_OPT_BIND_TCP,
	LR_OPT_CONFIG,
	LR_OPT_CONNECT_TCP,
	LR_OPT_DENY_SUBPROCESS,
	LR_OPT_DIE_WITH_PARENT,
	LR_OPT_ENV,
	LR_OPT_ENV_FILE,
	LR_OPT_ENV_PREFIX,
	LR_OPT_EXPLAIN,
	LR_OPT_HELP,
	LR_OPT_IGNORE_MISSING,
	LR_OPT_INIT,
	LR_OPT_KEEP_FD,
	LR_OPT_LANDLOCK_AUDIT,
	LR_OPT_LDD,
	LR_OPT_LEARN,
	LR_OPT_LOG_LEVEL,
	LR_OPT_MKDIR,
	LR_OPT_NO_PROJECT,
	LR_OPT_ON_UNSUPPORTED,
	LR_OPT_PRIVATE_HOME,
	LR_OPT_PRIVATE_TMP,
	LR_OPT_PROFILE,
	LR_OPT_PTY,
	LR_OPT_PTY_PASSTHROUGH,
	LR_OPT_REPORT_DENIALS,
	LR_OPT_RLIMIT_AS,
	LR_OPT_RLIMIT_CORE,
	LR_OPT_RLIMIT_CPU,
	LR_OPT_RLIMIT_FSIZE,
	LR_OPT_RLIMIT_NOFILE,
	LR_OPT_RLIMIT_NPROC,
	LR_OPT_RO,
	LR_OPT_ROX,
	LR_OPT_RW,
	LR_OPT_RWX,
	LR_OPT_SECRET,
	LR_OPT_SECRET_HEADER,
	LR_OPT_SECRET_HEADER_IF_SET,
	LR_OPT_TIMEOUT,
	LR_OPT_TIMEOUT_GRACE,
	LR_OPT_UNIX,
	LR_OPT_UNRESTRICTED_FS,
	LR_OPT_UNRESTRICTED_NET,
	LR_OPT_UNRESTRICTED_SCOPED,
	LR_OPT_USER,
	LR_OPT_VERSION,
};

enum lr_opt_arg {
	LR_ARG_NONE,		/* a flag: "--x" on the command line, "x = true" in a file */
	LR_ARG_REQUIRED,
	LR_ARG_OPTIONAL,	/* only as "--x=value" */
};

/* What a setting's value is. */
#define LR_OPTF_LIST (1u << 0)	/* comma-separated items, each applied on its own */
#define LR_OPTF_PATH (1u << 1)	/* paths: in a file, relative ones are the file's */
#define LR_OPTF_CLI (1u << 2)	/* the command line only, not a policy setting */
#define LR_OPTF_FILE (1u << 3)	/* names a policy file: the drivers read it */
#define LR_OPTF_RAW (1u << 4)	/* in a file, ${VAR} is not expanded: landrun expands it
				 * later, where it must (--secret-header's secret) */

struct lr_option {
	const char *name;	/* without "--": also the policy-file key */
	int id;			/* enum lr_opt_id */
	enum lr_opt_arg arg;
	unsigned flags;		/* LR_OPTF_* */
};

/* Every option, in lr_opt_id order, ending with a NULL name. */
extern const struct lr_option lr_options[];

/* The option spelled NAME (LEN bytes, exactly: no abbreviations), or NULL. */
const struct lr_option *lr_option_find(const char *name, size_t len);
/* The option with id ID (enum lr_opt_id). */
const struct lr_option *lr_option_get(int id);

enum lr_opt_result {
	LR_OPT_ERROR = -1,
	LR_OPT_RUN = 0,		/* applied (or, from lr_cli_parse: policy filled in, go on) */
	LR_OPT_SHOW_HELP,	/* print the usage and exit 0 */
	LR_OPT_SHOW_VERSION,	/* print the version and exit 0 */
};

struct lr_opt_error {
	char msg[LR_ERR_MAX];
};

/* Where settings come from: the command line, or one policy file. */
struct lr_opt_source {
	int depth;		/* policy-file nesting, 0 for the command line */
	bool mode_given;	/* --on-unsupported or --best-effort seen here */
	bool best_effort;
	bool ignore_missing;	/* ignore-missing seen here: for this source's grants */
};

/* Put one formatted line into ERR; returns LR_OPT_ERROR. */
enum lr_opt_result lr_opt_fail(struct lr_opt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Apply option O with VALUE (NULL for a flag) to POLICY.  For an
 * LR_OPTF_LIST option VALUE is ONE item: the drivers split the list first,
 * so that a comma inside an item (one that came from ${VAR}, say) never adds
 * an item.  LR_OPTF_FILE options are the drivers' business, not this.
 */
enum lr_opt_result lr_option_apply(struct lr_policy *policy, const struct lr_option *o,
				   const char *value, struct lr_opt_source *src,
				   struct lr_opt_error *err);

/* Split a comma-separated LIST into OUT.  An empty item ("a,,b", a trailing
 * comma, "") is a typo, not a path: -EINVAL.  0, -EINVAL or -ENOMEM. */
int lr_option_split(const char *list, struct lr_strlist *out);

/* "PORT" or "FIRST-LAST" appended to *RANGES.  0 or -EINVAL/-ENOMEM. */
int lr_option_parse_ports(const char *item, struct lr_port_range **ranges, size_t *n);

/* "error", "warn", "ignore" -> mode; -EINVAL for anything else. */
int lr_option_parse_on_unsupported(const char *s, enum lr_on_unsupported *mode);

/* A duration as timeout(1) takes it: a number (decimals allowed) with an
 * optional unit s, m, h or d -> milliseconds (a non-zero value is at least 1).
 * 0, or -EINVAL (also when it does not fit). */
int lr_option_parse_duration(const char *s, unsigned long long *ms);

/* A resource limit: "unlimited" (RLIM_INFINITY), or a number; with SIZE, a
 * number of bytes with an optional unit k, m, g or t (base 1024, either
 * case).  0, or -EINVAL. */
int lr_option_parse_limit(const char *s, bool size, unsigned long long *value);

/* "error", "info", "debug" -> level; -EINVAL for anything else. */
int lr_option_parse_log_level(const char *s, enum lr_log_level *level);

#endif /* LANDRUN_OPTIONS_H */
