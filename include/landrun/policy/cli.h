/* SPDX-License-Identifier: MIT */
/*
 * argv -> struct lr_policy.  Never prints, never exits: errors come back as
 * one line naming the flag at fault.
 */
#ifndef LANDRUN_CLI_H
#define LANDRUN_CLI_H

#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"

extern const char lr_cli_usage[];

/*
 * Parse ARGV (ARGC entries) into POLICY, which must be initialised: the
 * policy files of --config and --profile first, then the other options, so
 * that the command line adds to the files and its settings win.  LR_OPT_RUN
 * (POLICY->argv is the command), LR_OPT_SHOW_HELP, LR_OPT_SHOW_VERSION, or
 * LR_OPT_ERROR with ERR.
 */
enum lr_opt_result lr_cli_parse(int argc, char **argv, struct lr_policy *policy,
				struct lr_opt_error *err);

#endif /* LANDRUN_CLI_H */
