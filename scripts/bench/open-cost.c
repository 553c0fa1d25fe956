/* SPDX-License-Identifier: MIT */
/*
 * open-cost COUNT PATH...: what one open(PATH, O_RDONLY) and its close cost,
 * for bench-broker.sh: for each PATH, COUNT opens in 10 batches, and the
 * median batch's time per open, in microseconds, one line per PATH
 * ("PATH US").  A PATH that is missing is opened as well (ENOENT): what the
 * broker answers without a descriptor.  Exit 0, or 2 on a usage error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 10

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long count = argc > 2 ? strtol(argv[1], NULL, 10) : 0;

	if (count < BATCHES) {
		fprintf(stderr, "usage: open-cost COUNT PATH... (COUNT at least %d)\n", BATCHES);
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		double batch[BATCHES];
		long each = count / BATCHES;

		for (int b = 0; b < BATCHES; b++) {
			double start = now_us();

			for (long i = 0; i < each; i++) {
				int fd = open(argv[a], O_RDONLY | O_CLOEXEC);

				if (fd >= 0)
					close(fd);
			}
			batch[b] = (now_us() - start) / (double)each;
		}
		qsort(batch, BATCHES, sizeof(*batch), by_value);
		printf("%s %.1f\n", argv[a], (batch[BATCHES / 2 - 1] + batch[BATCHES / 2]) / 2);
	}
	return 0;
}
