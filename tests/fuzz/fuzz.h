/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets: a private scratch directory per process,
 * files written into it, and a check that aborts (so that libFuzzer saves the
 * input) when an invariant of the code under test does not hold.
 */
#ifndef LANDRUN_FUZZ_H
#define LANDRUN_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The process's private directory (mkdtemp, removed at exit); made on first use. */
const char *lr_fuzz_dir(void);

/*
 * Work in lr_fuzz_dir(), as the home of a user with an empty environment but
 * HOME (that directory) and XDG_CONFIG_HOME (its xdg/, with the profile
 * directory xdg/landrun/profiles/ made).
 */
void lr_fuzz_enter_home(void);

/* Remove everything beneath DIR, keeping DIR itself. */
void lr_fuzz_clear(const char *dir);

/* Create (or replace) the file PATH with LEN bytes of DATA and MODE.  0 or -errno. */
int lr_fuzz_write(const char *path, const void *data, size_t len, mode_t mode);

/* mkdir -p PATH (mode 0755).  0 or -errno. */
int lr_fuzz_mkdirs(const char *path);

/* Abort unless R (0 or -errno) is 0: a setup step on WHAT failed. */
void lr_fuzz_must(int r, const char *what);

/* A monotonic clock reading, for lr_fuzz_check_quick. */
double lr_fuzz_now(void);

/*
 * Abort when more than a few seconds passed since START: a call that blocked
 * (an open of a FIFO) and was only let go by libFuzzer's own SIGALRM, which
 * interrupts it long before -timeout would report it.
 */
void lr_fuzz_check_quick(double start, const char *what);

/* Does MSG report an EINTR (from libFuzzer's SIGALRM) that DATA did not write itself? */
bool lr_fuzz_interrupted(const char *msg, const uint8_t *data, size_t size);

/* Abort with a message when COND is false: libFuzzer keeps the input. */
#define lr_fuzz_check(cond, ...)                                                                   \
	do {                                                                                       \
		if (!(cond))                                                                       \
			lr_fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                      \
	} while (0)

__attribute__((noreturn, format(printf, 4, 5))) void
lr_fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* LANDRUN_FUZZ_H */
