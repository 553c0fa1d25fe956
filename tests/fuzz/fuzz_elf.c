/* SPDX-License-Identifier: MIT */
/*
 * The ELF reader behind --ldd (lr_elf_deps).  The input describes a small
 * file tree, built afresh in a private directory for every input:
 *
 *	record := kind:u8 namelen:u8 name[namelen] len:u16le data[len]
 *
 * kind % 4: 0 a file (mode 0755) holding DATA, 1 a symlink to DATA, 2 a
 * FIFO, 3 a directory.  Names (and symlink targets) are relative, without
 * ".." or empty components; others are skipped.  Then lr_elf_deps("prog",
 * LD_LIBRARY_PATH "lib:$ORIGIN/l2") runs in that directory, so that the
 * files' own "#!" lines, PT_INTERP and DT_NEEDED can name each other with
 * relative paths, and reach the real system libraries with absolute ones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "landrun/lib/elf.h"
#include "landrun/lib/util.h"

#define MAX_RECORDS 24
#define MAX_NAME    96

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (chdir(lr_fuzz_dir()) < 0)
		abort();
	return 0;
}

/* A relative path inside the tree: no "." or "..", no empty component, no odd bytes. */
static bool name_ok(const char *s)
{
	if (!*s || *s == '/')
		return false;
	for (const char *c = s; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("._-+/$", *c)))
			return false;
		if (*c == '/' && (c[1] == '/' || c[1] == '\0'))
			return false;
		/* no "." or ".." component */
		if ((c == s || c[-1] == '/') && c[0] == '.' &&
		    (c[1] == '/' || c[1] == '\0' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))))
			return false;
	}
	return true;
}

static bool parent_dirs(const char *name)
{
	char buf[MAX_NAME + 1];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", name);
	slash = strrchr(buf, '/');
	if (!slash)
		return true;
	*slash = '\0';
	return lr_fuzz_mkdirs(buf) == 0;
}

/* Make one entry of the tree; one that cannot be made (its parent is a file,
 * a dangling symlink...) is skipped. */
static void make_entry(unsigned kind, const char *name, const uint8_t *data, size_t len)
{
	char target[MAX_NAME + 1];
	struct stat st;

	if (!name_ok(name) || lstat(name, &st) == 0 || !parent_dirs(name))
		return; /* the first record of a name wins */
	switch (kind % 4) {
	case 0:
		lr_fuzz_write(name, data, len, 0755);
		break;
	case 1:
		if (len > MAX_NAME)
			return;
		memcpy(target, data, len);
		target[len] = '\0';
		if (strlen(target) == len && name_ok(target))
			symlink(target, name);
		break;
	case 2:
		mkfifo(name, 0644);
		break;
	default:
		lr_fuzz_mkdirs(name);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start;
	const uint8_t *p = data, *end = data + size;
	struct lr_strlist out = {0};
	char err[512];
	int r;

	lr_fuzz_clear(".");
	for (int n = 0; n < MAX_RECORDS && end - p >= 4; n++) {
		char name[MAX_NAME + 1];
		unsigned kind = p[0];
		size_t namelen = p[1], len;

		p += 2;
		if (namelen > MAX_NAME || (size_t)(end - p) < namelen + 2)
			break;
		memcpy(name, p, namelen);
		name[namelen] = '\0';
		p += namelen;
		len = (size_t)p[0] | (size_t)p[1] << 8;
		p += 2;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		if (strlen(name) == namelen)
			make_entry(kind, name, p, len);
		p += len;
	}

	err[0] = '\0';
	start = lr_fuzz_now();
	r = lr_elf_deps("prog", "lib:$ORIGIN/l2", &out, err, sizeof(err));
	lr_fuzz_check_quick(start, "lr_elf_deps");
	lr_fuzz_check(r != -EINTR, "an open was interrupted: %s", err);
	lr_fuzz_check(r == 0 || (r < 0 && err[0]) || r == -ENOMEM, "result %d without a message",
		      r);
	for (size_t i = 0; i < out.n; i++) {
		lr_fuzz_check(out.v[i][0] == '/', "not absolute: %s", out.v[i]);
		for (size_t j = i + 1; j < out.n; j++)
			lr_fuzz_check(strcmp(out.v[i], out.v[j]) != 0, "twice: %s", out.v[i]);
	}
	lr_fuzz_check(!out.v || !out.v[out.n], "list not NULL-terminated");
	if (getenv("LR_FUZZ_VERBOSE")) {
		fprintf(stderr, "lr_elf_deps: %d %s\n", r, err);
		for (size_t i = 0; i < out.n; i++)
			fprintf(stderr, "  %s\n", out.v[i]);
	}
	lr_strlist_free(&out);
	return 0;
}
