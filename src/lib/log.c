/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/lib/log.h"
#include "landrun/lib/util.h"

static enum lr_log_level log_level = LR_LOG_NOTICE;

void lr_log_set_level(enum lr_log_level level)
{
	log_level = level;
}

/*
 * One line on stderr, in one write(2), so that three processes never
 * interleave halves: "landrun: ", KIND, the message and ": SUFFIX".  The
 * message carries names the command chose (paths, process and host names):
 * control bytes and what else a terminal would act on are shown escaped
 * (lr_escape), never sent as they are.
 */
__attribute__((format(printf, 2, 0))) static void vlog(const char *kind, const char *fmt,
						     va_list ap, const char *suffix)
{
	char *msg = NULL, *line = NULL, fallback[512];
	size_t cap, used;
	int n = vasprintf(&msg, fmt, ap);

	if (n < 0) {
		msg = NULL;
		n = 0;
	}
	cap = 16 + (kind ? strlen(kind) : 0) + 4 * (size_t)n + 2 +
	      (suffix ? 4 * strlen(suffix) + 2 : 0) + 2;
	line = malloc(cap);
	if (!line) {
		line = fallback;
		cap = sizeof(fallback);
	}
	cap--; /* room for the newline */
	snprintf(line, cap, "landrun: %s", kind ? kind : "");
	used = strlen(line);
	if (msg)
		lr_escape(line + used, cap - used, msg, (size_t)n, false);
	else
		snprintf(line + used, cap - used, "(out of memory: %s)", fmt);
	used = strlen(line);
	if (suffix && used + 2 < cap) {
		memcpy(line + used, ": ", 3);
		used += 2;
		lr_escape(line + used, cap - used, suffix, strlen(suffix), false);
		used = strlen(line);
	}
	line[used++] = '\n';
	if (write(STDERR_FILENO, line, used) < 0) {
		/* nowhere else to say it */
	}
	if (line != fallback)
		free(line);
	free(msg);
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
