/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_LOG_H
#define LANDRUN_LOG_H

#include <stdnoreturn.h>

/* Exit statuses, as env(1) and timeout(1) use them. */
#define LR_EXIT_FAILURE 125	/* landrun itself failed: bad flag, bad file, refused policy */
#define LR_EXIT_CANNOT_EXEC 126	/* COMMAND found but could not be executed */
#define LR_EXIT_NOT_FOUND 127	/* COMMAND not found */

enum lr_log_level {
	LR_LOG_ERROR,		/* errors and warnings only */
	LR_LOG_NOTICE,		/* also what landrun changed of the grants (the default) */
	LR_LOG_INFO,
	LR_LOG_DEBUG,
};

void lr_log_set_level(enum lr_log_level level);

noreturn void lr_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void lr_die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void lr_die_status(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lr_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LANDRUN_LOG_H */
