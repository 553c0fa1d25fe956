/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "landrun/lib/error.h"

void lr_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
	int n;

	if (!err || errlen == 0)
		return;
	n = vsnprintf(err, errlen, fmt, ap);
	if (n < 0)
		snprintf(err, errlen, "(an error message could not be written)");
	else if ((size_t)n >= errlen && errlen > 4)
		memcpy(err + errlen - 4, "...", 4);
}

void lr_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_verrf(err, errlen, fmt, ap);
	va_end(ap);
}

int lr_fail(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_verrf(err, errlen, fmt, ap);
	va_end(ap);
	return r;
}
