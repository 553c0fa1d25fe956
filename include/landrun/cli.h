/* SPDX-License-Identifier: MIT */
/*
 * argv -> struct lr_policy.  Never prints, never exits: errors come back as
 * one line naming the flag at fault.
 */
#ifndef LANDRUN_CLI_H
#define LANDRUN_CLI_H

#include <stdbool.h>

#include "landrun/policy.h"

enum lr_cli_result {
	LR_CLI_ERROR = -1,
	LR_CLI_RUN = 0,		/* policy filled in: go on */
	LR_CLI_HELP,		/* print lr_cli_usage and exit 0 */
	LR_CLI_VERSION,		/* print the version and exit 0 */
};

struct lr_cli_error {
	char msg[512];
};

/* Where options come from: the command line, or one policy file. */
struct lr_cli_source {
	int depth;		/* policy-file nesting, 0 for the command line */
	bool mode_given;	/* --on-unsupported or --best-effort seen here */
	bool best_effort;
	bool ignore_missing;	/* ignore-missing seen here: for this source's grants */
};

extern const char lr_cli_usage[];

/* Put one formatted line into ERR; returns LR_CLI_ERROR. */
enum lr_cli_result lr_cli_fail(struct lr_cli_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Apply one setting NAME = VALUE from a policy file: NAME is a long option's
 * name, VALUE its value (true/false for a flag).  Errors name the setting.
 */
enum lr_cli_result lr_cli_apply_named(struct lr_policy *policy, const char *name,
				      const char *value, struct lr_cli_source *src,
				      struct lr_cli_error *err);

/* Parse ARGV (ARGC entries) into POLICY, which must be initialised. */
enum lr_cli_result lr_cli_parse(int argc, char **argv, struct lr_policy *policy,
				struct lr_cli_error *err);

/* Parse "PORT[-PORT][,...]" into *RANGES.  0 or -EINVAL/-ENOMEM. */
int lr_cli_parse_ports(const char *s, struct lr_port_range **ranges, size_t *n);

/* "error", "warn", "ignore" -> mode; -EINVAL for anything else. */
int lr_cli_parse_on_unsupported(const char *s, enum lr_on_unsupported *mode);

/* "error", "info", "debug" -> level; -EINVAL for anything else. */
int lr_cli_parse_log_level(const char *s, enum lr_log_level *level);

#endif /* LANDRUN_CLI_H */
