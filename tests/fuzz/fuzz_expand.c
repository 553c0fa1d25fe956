/* SPDX-License-Identifier: MIT */
/*
 * ${VAR}, ${VAR:-default} and ~ in policy-file values (lr_config_expand),
 * over a fixed environment: set, empty and unset variables, and a long one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "landrun/policy/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char longval[4096];

	(void)argc;
	(void)argv;
	memset(longval, 'L', sizeof(longval) - 1);
	clearenv();
	setenv("HOME", "/home/fuzz", 1);
	setenv("A", "a", 1);
	setenv("B_1", "b,~/x", 1);
	setenv("EMPTY", "", 1);
	setenv("NESTED", "${A}", 1);
	setenv("LONG", longval, 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *out = NULL;
	char err[256];
	int r;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	err[0] = '\0';
	r = lr_config_expand(in, &out, err, sizeof(err));
	lr_fuzz_check(r == 0 || ((r == -EINVAL || r == -ENOMEM) && err[0]), "result %d, '%s'", r,
		      err);
	if (r == 0) {
		lr_fuzz_check(out != NULL, "no output");
		/* nothing to expand: the value comes out as it went in */
		if (!strchr(in, '$') && !strchr(in, '~'))
			lr_fuzz_check(strcmp(in, out) == 0, "'%s' became '%s'", in, out);
		/* what the environment holds is never expanded again */
		if (strcmp(in, "${NESTED}") == 0)
			lr_fuzz_check(strcmp(out, "${A}") == 0, "expanded twice: '%s'", out);
	}
	free(out);
	free(in);
	return 0;
}
