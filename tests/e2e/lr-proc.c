/* SPDX-License-Identifier: MIT */
/*
 * lr-proc OP ARGS...: one operation on SysV IPC or on a process, with exit
 * status 0 if it worked or the errno if it did not (as lr-try), for
 * tests/e2e/reach.sh.  Outside the sandbox it makes the objects and reads
 * the outcome; inside, it is the attacker.
 *
 *   shm-make MODE TEXT     a new private segment of that mode holding TEXT: its id
 *   shm-read ID            attach it read-only and print what it holds
 *   shm-chmod ID MODE      IPC_SET its mode
 *   shm-mode ID            print its mode (octal)
 *   shm-rm ID
 *   msg-make MODE          a new private message queue: its id
 *   msg-send ID TEXT       msgsnd
 *   msg-count ID           print how many messages it holds
 *   msg-rm ID
 *   sem-make MODE          a new private set of one semaphore: its id
 *   sem-set ID N           SETVAL its value to N
 *   sem-get ID             print its value
 *   sem-rm ID
 *   prlimit PID N          RLIMIT_NOFILE of PID to N, soft and hard
 *   setprio PID N          setpriority(PRIO_PROCESS, PID, N)
 *   setprio-user N         setpriority(PRIO_USER, 0, N): every process of the user
 *   setprio-pgrp PGID N    setpriority(PRIO_PGRP, PGID, N)
 *   affinity PID CPU       sched_setaffinity of PID to CPU alone
 *   idle PID               sched_setscheduler of PID to SCHED_IDLE
 *   ioprio-idle PID        ioprio_set of PID to the idle class
 *   nice N                 its own nice value to N (setpriority of pid 0), then
 *                          print getpriority's
 *   nofile N               its own RLIMIT_NOFILE to N (setrlimit), then print it
 *
 * Linked statically, as lr-try.  Exit 100: used wrongly.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USAGE_ERROR 100
#define SHM_SIZE 4096

static int fail(void)
{
	return errno ? errno : 255;
}

static int num(const char *s, int base, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, base);
	return errno || end == s || *end ? -1 : 0;
}

static int shm_make(long mode, const char *text)
{
	int id = shmget(IPC_PRIVATE, SHM_SIZE, IPC_CREAT | (int)mode);
	char *p;

	if (id < 0)
		return fail();
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		return fail();
	snprintf(p, SHM_SIZE, "%s", text);
	if (shmdt(p) < 0)
		return fail();
	printf("%d\n", id);
	return fflush(stdout) ? fail() : 0;
}

static int shm_read(int id)
{
	const char *p = shmat(id, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		return fail();
	printf("%.*s\n", SHM_SIZE, p);
	return fflush(stdout) ? fail() : 0;
}

static int shm_mode(int id, long set)
{
	struct shmid_ds ds;

	if (shmctl(id, IPC_STAT, &ds) < 0)
		return fail();
	if (set < 0) {
		printf("%o\n", (unsigned)ds.shm_perm.mode & 0777);
		return fflush(stdout) ? fail() : 0;
	}
	ds.shm_perm.mode = (unsigned short)set;
	return shmctl(id, IPC_SET, &ds) < 0 ? fail() : 0;
}

static int msg_send(int id, const char *text)
{
	struct {
		long type;
		char text[64];
	} m = { 1, "" };

	snprintf(m.text, sizeof(m.text), "%s", text);
	return msgsnd(id, &m, strlen(m.text) + 1, IPC_NOWAIT) < 0 ? fail() : 0;
}

static int msg_count(int id)
{
	struct msqid_ds ds;

	if (msgctl(id, IPC_STAT, &ds) < 0)
		return fail();
	printf("%lu\n", (unsigned long)ds.msg_qnum);
	return fflush(stdout) ? fail() : 0;
}

/* semctl's fourth argument, which the caller defines (semctl(2)) */
union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int sem_get(int id)
{
	int v = semctl(id, 0, GETVAL);

	if (v < 0)
		return fail();
	printf("%d\n", v);
	return fflush(stdout) ? fail() : 0;
}

static int affinity(pid_t pid, long cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) < 0 ? fail() : 0;
}

static int print_id(int id)
{
	if (id < 0)
		return fail();
	printf("%d\n", id);
	return fflush(stdout) ? fail() : 0;
}

/* ARGV[I] as a number in BASE, into *V; false if it is not one */
static int arg(int argc, char **argv, int i, int base, long *v)
{
	return i < argc && num(argv[i], base, v) == 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *text = argc > 3 ? argv[3] : NULL;
	long a, b;
	struct rlimit rl;

	errno = 0;
	if (!strcmp(op, "shm-make") && arg(argc, argv, 2, 8, &a) && text)
		return shm_make(a, text);
	if (!strcmp(op, "msg-make") && arg(argc, argv, 2, 8, &a))
		return print_id(msgget(IPC_PRIVATE, IPC_CREAT | (int)a));
	if (!strcmp(op, "msg-send") && arg(argc, argv, 2, 10, &a) && text)
		return msg_send((int)a, text);
	if (!strcmp(op, "sem-make") && arg(argc, argv, 2, 8, &a))
		return print_id(semget(IPC_PRIVATE, 1, IPC_CREAT | (int)a));
	if (!strcmp(op, "shm-chmod") && arg(argc, argv, 2, 10, &a) && arg(argc, argv, 3, 8, &b))
		return shm_mode((int)a, b);
	if (!arg(argc, argv, 2, 10, &a))
		goto usage;
	if (!strcmp(op, "shm-read"))
		return shm_read((int)a);
	if (!strcmp(op, "shm-mode"))
		return shm_mode((int)a, -1);
	if (!strcmp(op, "shm-rm"))
		return shmctl((int)a, IPC_RMID, NULL) < 0 ? fail() : 0;
	if (!strcmp(op, "msg-count"))
		return msg_count((int)a);
	if (!strcmp(op, "msg-rm"))
		return msgctl((int)a, IPC_RMID, NULL) < 0 ? fail() : 0;
	if (!strcmp(op, "sem-get"))
		return sem_get((int)a);
	if (!strcmp(op, "sem-rm"))
		return semctl((int)a, 0, IPC_RMID) < 0 ? fail() : 0;
	if (!strcmp(op, "idle")) {
		struct sched_param sp = { 0 };

		return sched_setscheduler((pid_t)a, SCHED_IDLE, &sp) < 0 ? fail() : 0;
	}
	if (!strcmp(op, "ioprio-idle")) /* IOPRIO_WHO_PROCESS, IOPRIO_CLASS_IDLE << 13 */
		return syscall(SYS_ioprio_set, 1, (int)a, 3 << 13) < 0 ? fail() : 0;
	if (!strcmp(op, "setprio-user"))
		return setpriority(PRIO_USER, 0, (int)a) < 0 ? fail() : 0;
	if (!strcmp(op, "nice")) {
		int got;

		if (setpriority(PRIO_PROCESS, 0, (int)a) < 0)
			return fail();
		errno = 0;
		got = getpriority(PRIO_PROCESS, 0);
		if (got == -1 && errno)
			return fail();
		printf("%d\n", got);
		return fflush(stdout) ? fail() : 0;
	}
	if (!strcmp(op, "nofile")) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)a;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
			return fail();
		printf("%llu\n", (unsigned long long)rl.rlim_cur);
		return fflush(stdout) ? fail() : 0;
	}
	if (!arg(argc, argv, 3, 10, &b))
		goto usage;
	if (!strcmp(op, "prlimit")) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)b;
		return syscall(SYS_prlimit64, (pid_t)a, RLIMIT_NOFILE, &rl, NULL) < 0 ? fail() : 0;
	}
	if (!strcmp(op, "setprio"))
		return setpriority(PRIO_PROCESS, (id_t)a, (int)b) < 0 ? fail() : 0;
	if (!strcmp(op, "setprio-pgrp"))
		return setpriority(PRIO_PGRP, (id_t)a, (int)b) < 0 ? fail() : 0;
	if (!strcmp(op, "affinity"))
		return affinity((pid_t)a, b);
	if (!strcmp(op, "sem-set")) {
		union semun u = { .val = (int)b };

		return semctl((int)a, 0, SETVAL, u) < 0 ? fail() : 0;
	}
usage:
	fprintf(stderr, "usage: lr-proc OP ARGS... (see its source)\n");
	return USAGE_ERROR;
}
