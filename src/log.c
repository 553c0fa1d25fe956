/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/log.h"

static enum lr_log_level log_level = LR_LOG_NOTICE;

void lr_log_set_level(enum lr_log_level level)
{
	log_level = level;
}

__attribute__((format(printf, 2, 0))) static void vlog(const char *kind, const char *fmt,
						     va_list ap, const char *suffix)
{
	fputs("landrun: ", stderr);
	if (kind)
		fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	if (suffix)
		fprintf(stderr, ": %s", suffix);
	fputc('\n', stderr);
}

noreturn void lr_die_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, fmt, ap, NULL);
	va_end(ap);
	exit(status);
}

noreturn void lr_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, fmt, ap, NULL);
	va_end(ap);
	exit(LR_EXIT_FAILURE);
}

noreturn void lr_die_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, fmt, ap, strerror(saved));
	va_end(ap);
	exit(LR_EXIT_FAILURE);
}

/* Warnings are the fallback policy's voice: shown at every log level. */
void lr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap, NULL);
	va_end(ap);
}

void lr_notice(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LR_LOG_NOTICE)
		return;
	va_start(ap, fmt);
	vlog(NULL, fmt, ap, NULL);
	va_end(ap);
}

void lr_info(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LR_LOG_INFO)
		return;
	va_start(ap, fmt);
	vlog(NULL, fmt, ap, NULL);
	va_end(ap);
}

void lr_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LR_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap, NULL);
	va_end(ap);
}
