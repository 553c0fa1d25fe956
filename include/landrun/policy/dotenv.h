/* SPDX-License-Identifier: MIT */
/*
 * A strict dotenv parser.  It never evaluates anything: no $VAR expansion, no
 * command substitution.  Errors name the line, never a value (values may be
 * secrets).
 */
#ifndef LANDRUN_DOTENV_H
#define LANDRUN_DOTENV_H

#include <stddef.h>

#include "landrun/lib/util.h"

/* Largest .env file landrun reads. */
#define LR_DOTENV_MAX_SIZE (1024 * 1024)

struct lr_dotenv_error {
	unsigned line;		/* 1-based line at fault, 0 if none */
	const char *reason;	/* static string, e.g. "unterminated double quote" */
};

/*
 * Parse LEN bytes of BUF into OUT (a later key replaces an earlier one).
 * Returns 0, -EINVAL (malformed; ERR says where and why) or -ENOMEM.
 */
int lr_dotenv_parse(const char *buf, size_t len, struct lr_kvlist *out,
		    struct lr_dotenv_error *err);

/*
 * Read and parse the file at PATH.  Returns 0, -EINVAL (malformed, see ERR),
 * -EFBIG (larger than LR_DOTENV_MAX_SIZE), or the -errno of open/read.
 */
int lr_dotenv_load(const char *path, struct lr_kvlist *out, struct lr_dotenv_error *err);

#endif /* LANDRUN_DOTENV_H */
