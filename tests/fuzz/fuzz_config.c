/* SPDX-License-Identifier: MIT */
/*
 * Policy files with includes (lr_config_load_file).  The input is split at
 * NUL bytes into up to four files in a private directory: a.conf (loaded),
 * b.conf, sub/c.conf and the profile p (xdg/landrun/profiles/p.conf).  Next
 * to them, fixed traps for includes: a FIFO, a directory, a symlink to
 * /dev/zero and a symlink back to a.conf.
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
#include "landrun/policy/config.h"
#include "landrun/policy/policy.h"

static const char *const files[] = {"a.conf", "b.conf", "sub/c.conf",
				    "xdg/landrun/profiles/p.conf"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lr_fuzz_enter_home();
	lr_fuzz_must(lr_fuzz_mkdirs("sub/dir.conf"), "sub/dir.conf");
	if (mkfifo("fifo.conf", 0644) < 0 || symlink("/dev/zero", "zero.conf") < 0 ||
	    symlink("../a.conf", "sub/loop.conf") < 0)
		abort();
	setenv("A", "a", 1);
	setenv("EMPTY", "", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start;
	const char *p = (const char *)data, *end = p + size;
	struct lr_opt_error err;
	struct lr_policy policy;
	int r;

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		const char *nul = p ? memchr(p, '\0', (size_t)(end - p)) : NULL;

		if (!p) {
			unlink(files[i]);
			continue;
		}
		lr_fuzz_must(lr_fuzz_write(files[i], p, (size_t)((nul ? nul : end) - p), 0644),
			     files[i]);
		p = nul ? nul + 1 : NULL;
	}
	lr_policy_init(&policy);
	memset(&err, 0, sizeof(err));
	start = lr_fuzz_now();
	r = lr_config_load_file(files[0], &policy, 1, &err);
	lr_fuzz_check_quick(start, "lr_config_load_file");
	lr_fuzz_check(!lr_fuzz_interrupted(err.msg, data, size), "an open was interrupted: %s",
		      err.msg);
	lr_fuzz_check(r == 0 || r == LR_CONFIG_ERR_OPEN || r == LR_CONFIG_ERR_INSIDE, "result %d",
		      r);
	lr_fuzz_check(r == 0 || err.msg[0], "an error without a message");
	for (size_t i = 0; i < policy.n_grants; i++)
		lr_fuzz_check(policy.grants[i].path && policy.grants[i].flag, "grant %zu", i);
	lr_policy_free(&policy);
	return 0;
}
