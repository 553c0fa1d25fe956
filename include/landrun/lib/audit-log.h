/* SPDX-License-Identifier: MIT */
/*
 * The audit log's writer (--audit-log FILE, docs/supervisor.md): the run's
 * id, the head every record starts with, and one write(2) per record.  Who
 * writes which records: the supervisor (supervisor/audit.h) and the egress
 * helper (egress/records.h), each in its own process.
 */
#ifndef LANDRUN_AUDIT_LOG_H
#define LANDRUN_AUDIT_LOG_H

#include <stdio.h>
#include <sys/types.h>

#define LR_AUDIT_SCHEMA 1

struct lr_audit {
	int fd;			/* -1: no audit log */
	char run[33];		/* random, hex: the records of one run share it */
};

/* No log yet (fd -1), and the run's id: made before the fork, so that the
 * supervisor and the child share it. */
void lr_audit_init(struct lr_audit *a);

/* Start a record in OUT: {"schema":1,"event":EVENT,"run":...,"time":...
 * (UTC, to the millisecond),"pid":PID */
void lr_audit_head(FILE *out, const struct lr_audit *a, const char *event, pid_t pid);

/* End the record in OUT (an open_memstream of *BUF): *BUF, newline-terminated,
 * or NULL (freed). */
char *lr_audit_finish(FILE *out, char **buf);

/* Append LINE with one write.  0, or -errno. */
int lr_audit_write(const struct lr_audit *a, const char *line);

#endif /* LANDRUN_AUDIT_LOG_H */
