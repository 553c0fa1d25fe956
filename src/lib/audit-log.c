/* SPDX-License-Identifier: MIT */
/* The audit log's writer: the run's id, a record's head, one write per record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "landrun/lib/audit-log.h"
#include "landrun/lib/json.h"

void lr_audit_init(struct lr_audit *a)
{
	char *run = a->run;
	unsigned char bytes[16];
	struct timespec t;

	if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t)sizeof(bytes)) {
		/* unique enough among the runs of one log */
		clock_gettime(CLOCK_REALTIME, &t);
		memcpy(bytes, &t, sizeof(bytes) < sizeof(t) ? sizeof(bytes) : sizeof(t));
		bytes[0] ^= (unsigned char)getpid();
		bytes[1] ^= (unsigned char)(getpid() >> 8);
	}
	a->fd = -1;
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(run + 2 * i, 3, "%02x", bytes[i]);
}

/* {"schema":1,"event":EVENT,"run":...,"time":... (UTC, to the millisecond),
 * "pid": the supervisor's */
void lr_audit_head(FILE *out, const struct lr_audit *a, const char *event, pid_t pid)
{
	struct timespec t;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &t);
	if (!gmtime_r(&t.tv_sec, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm))
		strcpy(when, "1970-01-01T00:00:00");
	fprintf(out, "{\"schema\":%d,\"event\":", LR_AUDIT_SCHEMA);
	lr_json_str(out, event);
	fprintf(out, ",\"run\":\"%s\",\"time\":\"%s.%03ldZ\",\"pid\":%d", a->run, when,
		t.tv_nsec / 1000000, (int)pid);
}

/* The record in OUT's buffer, newline-terminated, or NULL. */
char *lr_audit_finish(FILE *out, char **buf)
{
	fputs("}\n", out);
	if (ferror(out) | fclose(out)) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

/* The file-size limit's soft value up to its hard one: a record is never
 * cut by a soft limit that something lowered (the writer ignores SIGXFSZ,
 * and a write past the hard one fails whole with EFBIG). */
static void raise_fsize(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			return; /* (it cannot fail: the write says what does) */
	}
}

int lr_audit_write(const struct lr_audit *a, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;

	raise_fsize();
	while ((n = write(a->fd, line, len)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOSPC;
}
