/* SPDX-License-Identifier: MIT */
/*
 * The command line (lr_cli_parse): the input split at NUL bytes is argv[1..].
 * It runs in a private directory holding a policy file, a profile, a FIFO
 * and a directory, so that --config and --profile have something to find.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/policy.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char conf[] = "ro = /usr\nenv = PATH\ninclude = p\n";
	static const char prof[] = "rox = ${HOME}\nconnect-tcp = 443\n";

	(void)argc;
	(void)argv;
	lr_fuzz_enter_home();
	lr_fuzz_must(lr_fuzz_mkdirs("d"), "d");
	lr_fuzz_must(lr_fuzz_write("c.conf", conf, sizeof(conf) - 1, 0644), "c.conf");
	lr_fuzz_must(lr_fuzz_write("xdg/landrun/profiles/p.conf", prof, sizeof(prof) - 1, 0644),
		     "xdg/landrun/profiles/p.conf");
	if (mkfifo("fifo", 0644) < 0)
		abort();
	setenv("PATH", "/usr/bin:/bin", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start;
	char *argv[MAX_ARGS + 2], *copy;
	struct lr_opt_error err;
	struct lr_policy policy;
	enum lr_opt_result r;
	int argc = 1;

	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "landrun";
	for (char *s = copy; argc <= MAX_ARGS; s += strlen(s) + 1) {
		argv[argc++] = s;
		if (s + strlen(s) == copy + size)
			break;
	}
	argv[argc] = NULL;

	lr_policy_init(&policy);
	start = lr_fuzz_now();
	r = lr_cli_parse(argc, argv, &policy, &err);
	lr_fuzz_check_quick(start, "lr_cli_parse");
	lr_fuzz_check(!lr_fuzz_interrupted(err.msg, data, size), "an open was interrupted: %s",
		      err.msg);
	lr_fuzz_check(r == LR_OPT_ERROR || r == LR_OPT_RUN || r == LR_OPT_SHOW_HELP ||
			      r == LR_OPT_SHOW_VERSION,
		      "result %d", r);
	lr_fuzz_check(r != LR_OPT_ERROR || err.msg[0], "error message '%s'", err.msg);
	if (r == LR_OPT_RUN)
		lr_fuzz_check(policy.argv >= argv + 1 && policy.argv <= argv + argc,
			      "the command is not in argv");
	lr_policy_free(&policy);
	free(copy);
	return 0;
}
