/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_EXPLAIN_H
#define LANDRUN_EXPLAIN_H

#include <stdio.h>

#include "landrun/lib/util.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"

struct lr_explain_input {
	const struct lr_policy *policy;
	const struct lr_plan *plan;
	const struct lr_fs_rules *rules;
	const struct lr_holes *holes;	/* what the grants were carved around */
	const struct lr_strlist *env;	/* the command's environment, NAME=VALUE */
	const char *command;		/* resolved path, or NULL */
	const struct lr_strlist *brokered;	/* the directories the broker serves, or NULL */
};

/* What will be enforced, by which layer, and what is lost.  Values of
 * environment variables are never printed, only their names. */
void lr_explain_text(FILE *out, const struct lr_explain_input *in);
void lr_explain_json(FILE *out, const struct lr_explain_input *in);
/* The same JSON object, without the newline: for embedding (the audit log). */
void lr_explain_json_object(FILE *out, const struct lr_explain_input *in);

#endif /* LANDRUN_EXPLAIN_H */
