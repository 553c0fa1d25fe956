/* SPDX-License-Identifier: MIT */
/*
 * argv -> struct lr_policy.  Never prints, never exits: errors come back as
 * one line naming the flag at fault.
 */
#ifndef LANDRUN_CLI_H
#define LANDRUN_CLI_H

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

extern const char lr_cli_usage[];

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
