/* SPDX-License-Identifier: MIT */
/*
 * lr-options: landrun's option table, one option a line, for the tests of
 * the documentation (check-doc.py, completions.py):
 *     NAME <TAB> none|required|optional <TAB> cli|policy
 */
#include <stdio.h>

#include "landrun/policy/options.h"

int main(void)
{
	static const char *const args[] = {
		[LR_ARG_NONE] = "none",
		[LR_ARG_REQUIRED] = "required",
		[LR_ARG_OPTIONAL] = "optional",
	};

	for (const struct lr_option *o = lr_options; o->name; o++)
		printf("%s\t%s\t%s\n", o->name, args[o->arg], o->flags & LR_OPTF_CLI ? "cli" : "policy");
	return fflush(stdout) == 0 ? 0 : 1;
}
