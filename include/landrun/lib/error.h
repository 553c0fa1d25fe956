/* SPDX-License-Identifier: MIT */
/*
 * Errors: a function of landrun's that can fail for a reason the user must
 * read takes a buffer (char *err, size_t errlen) and returns a negative
 * errno value, with one line in ERR saying what failed, on what (the path,
 * the option, the name).  The line is made by lr_errf or lr_fail, never by
 * hand: so one buffer size holds every message, and one that does not fit
 * ends in "..." instead of being cut silently.  The caller that reports it
 * declares char err[LR_ERR_MAX], room for two paths and their words.  (The
 * broker's and the helper's threads, on small stacks, keep smaller buffers:
 * there a long path is cut visibly.)
 */
#ifndef LANDRUN_ERROR_H
#define LANDRUN_ERROR_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>

#define LR_ERR_MAX (2 * PATH_MAX + 256)

/* ERR is the formatted line (cut with "..." past ERRLEN). */
void lr_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lr_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* lr_errf, then R: return lr_fail(err, errlen, -EINVAL, "...", ...); */
int lr_fail(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* LANDRUN_ERROR_H */
