/* SPDX-License-Identifier: MIT */
/*
 * opens DIR ROUNDS: a syscall-heavy workload for bench-runtime.sh.  DIR holds
 * files f0000..f0999 (made by "opens --make DIR"); each round stats, opens,
 * reads, fstats and closes every one of them: ROUNDS x 1000 x 5 system calls.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILES 1000

int main(int argc, char **argv)
{
	char path[4096], buf[256];
	struct stat st;
	int rounds;

	if (argc == 3 && strcmp(argv[1], "--make") == 0) {
		for (int i = 0; i < FILES; i++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/f%04d", argv[2], i);
			if (!(f = fopen(path, "w")) || fprintf(f, "file %d\n", i) < 0 || fclose(f))
				return 2;
		}
		return 0;
	}
	if (argc != 3 || (rounds = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: opens DIR ROUNDS | opens --make DIR\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < FILES; i++) {
			int fd;

			snprintf(path, sizeof(path), "%s/f%04d", argv[1], i);
			if (stat(path, &st) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				return 1;
			if (read(fd, buf, sizeof(buf)) < 0 || fstat(fd, &st) < 0 || close(fd) < 0)
				return 1;
		}
	}
	return 0;
}
