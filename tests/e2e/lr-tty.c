/* SPDX-License-Identifier: MIT */
/*
 * lr-tty leftover METHOD OUT: the terminal thief.  It forks and the parent
 * exits 0 at once, as a command whose background child outlives it.  The
 * child waits half a second (the shell has the foreground back by then),
 * tries to escape job control by METHOD, writes "METHOD=ERRNO" (0: it
 * worked) to OUT.status and its pid to OUT.pid, then reads its standard
 * input, the terminal, for five seconds, appending whatever it gets to OUT
 * and "read=ERRNO" when a read fails.
 *
 *   spgrp      tcsetpgrp(0, its own group), with SIGTTOU ignored: take the
 *              foreground
 *   setsid     setsid(): leave the session; the terminal is no longer its
 *              controlling one, and no job control applies to its reads
 *   notty      ioctl(0, TIOCNOTTY): drop the controlling terminal, likewise
 *   joinshell  setpgid(0, getsid(0)): join the session leader's group (the
 *              shell's, the foreground one once the command has exited)
 *   none       nothing: a plain leftover, in the command's own group
 *
 * lr-tty flood N: put its terminal (fd 0) in raw mode, write N cursor-position
 * queries (ESC [ 6 n) to it and never read the answers: it waits forever.
 * lr-tty ask N OUT: the same, but read the answers (for 5 s at most) and
 * write "answers=K" to OUT, K the answers read (the terminal's R's), then
 * put the mode back.  lr-tty rawkill: raw mode, then SIGKILL itself.
 *
 * lr-tty emit TEXT [kill]: write TEXT to fd 1, its \e, \a, \\ and \xHH
 * decoded, then exit 0, or with "kill" die of SIGKILL (what a TUI leaves on
 * in the terminal when it is killed).
 *
 * lr-tty sctty: open a new pseudo-terminal and make it the controlling
 * terminal (TIOCSCTTY); exit with the errno (0: it worked).  Run it as a
 * session leader without one (setsid -w).
 *
 * Linked statically, like lr-try.  Exit 100 means lr-tty was used wrongly.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define USAGE_ERROR 100

static int escape(const char *method)
{
	int r = -1;

	if (!strcmp(method, "spgrp")) {
		signal(SIGTTOU, SIG_IGN);
		r = tcsetpgrp(0, getpgrp());
	} else if (!strcmp(method, "setsid")) {
		r = setsid() < 0 ? -1 : 0;
	} else if (!strcmp(method, "notty")) {
		r = ioctl(0, TIOCNOTTY);
	} else if (!strcmp(method, "joinshell")) {
		r = setpgid(0, getsid(0));
	} else if (!strcmp(method, "none")) {
		r = 0;
	} else {
		errno = EINVAL;
	}
	return r < 0 ? errno : 0;
}

/* Append "KEY=V" (or just V without KEY) and a newline to OUT + SUFFIX. */
static void note(const char *out, const char *suffix, const char *key, long v)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", out, suffix);
	f = fopen(path, "a");
	if (!f)
		return;
	if (key)
		fprintf(f, "%s=%ld\n", key, v);
	else
		fprintf(f, "%ld\n", v);
	fclose(f);
}

static void leftover(const char *method, const char *out)
{
	struct timespec half = { 0, 500 * 1000 * 1000 };
	char buf[256];
	int fd, e;

	note(out, ".pid", NULL, (long)getpid());
	nanosleep(&half, NULL);
	e = escape(method);
	note(out, ".status", method, e);
	signal(SIGALRM, SIG_DFL);
	alarm(5);
	fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf));

		if (n <= 0) {
			note(out, ".status", "read", n < 0 ? errno : 0);
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		if (fd >= 0 && write(fd, buf, (size_t)n) != n)
			break;
	}
	_exit(0);
}

/* Raw mode on fd 0; SAVED gets the mode before.  0 or errno. */
static int raw(struct termios *saved)
{
	struct termios t;

	if (tcgetattr(0, saved) < 0)
		return errno;
	t = *saved;
	cfmakeraw(&t);
	return tcsetattr(0, TCSANOW, &t) < 0 ? errno : 0;
}

static int flood(long n, const char *out)
{
	static const char q[] = "\033[6n";
	struct termios saved;
	char buf[4096];
	long answers = 0;
	int e = raw(&saved);

	if (e)
		return e;
	for (long i = 0; i < n; i++)
		if (write(1, q, sizeof(q) - 1) != (ssize_t)sizeof(q) - 1)
			return errno;
	if (!out)
		for (;;)
			pause();
	signal(SIGALRM, SIG_DFL);
	alarm(5);
	while (answers < n) {
		ssize_t got = read(0, buf, sizeof(buf));

		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++)
			answers += buf[i] == 'R';
	}
	tcsetattr(0, TCSANOW, &saved);
	note(out, "", "answers", answers);
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "flood"))
		return flood(atol(argv[2]), NULL);
	if (argc == 4 && !strcmp(argv[1], "ask"))
		return flood(atol(argv[2]), argv[3]);
	if (argc == 2 && !strcmp(argv[1], "rawkill")) {
		struct termios saved;
		int e = raw(&saved);

		if (e)
			return e;
		kill(getpid(), SIGKILL);
		return 1;
	}

	if ((argc == 3 || (argc == 4 && !strcmp(argv[3], "kill"))) && !strcmp(argv[1], "emit")) {
		char *out = malloc(strlen(argv[2]) + 1);
		size_t n = 0;

		if (!out)
			return 1;
		for (const char *s = argv[2]; *s; s++) {
			if (*s != '\\' || !s[1]) {
				out[n++] = *s;
				continue;
			}
			s++;
			if (*s == 'e')
				out[n++] = 033;
			else if (*s == 'a')
				out[n++] = 7;
			else if (*s == 'x' && s[1] && s[2]) {
				char hex[3] = { s[1], s[2], 0 };

				out[n++] = (char)strtol(hex, NULL, 16);
				s += 2;
			} else
				out[n++] = *s;
		}
		if (write(1, out, n) != (ssize_t)n)
			return 1;
		if (argc == 4)
			kill(getpid(), SIGKILL);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "sctty")) {
		int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;

		if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0)
			return errno;
		slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (slave < 0)
			return errno;
		return ioctl(slave, TIOCSCTTY, 0) < 0 ? errno : 0;
	}
	if (argc != 4 || strcmp(argv[1], "leftover") != 0) {
		fprintf(stderr, "usage: lr-tty leftover spgrp|setsid|notty|joinshell|none OUT\n"
				"       lr-tty flood N | ask N OUT | rawkill | sctty | emit TEXT [kill]\n");
		return USAGE_ERROR;
	}
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		leftover(argv[2], argv[3]);
	return 0;
}
