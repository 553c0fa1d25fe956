/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_UTIL_H
#define LANDRUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

/* A growable list of owned strings; v is kept NULL-terminated. */
struct lr_strlist {
	char **v;
	size_t n;
};

/* 0 or -ENOMEM.  _add copies S; _take takes ownership (and frees it on failure). */
int lr_strlist_add(struct lr_strlist *l, const char *s);
int lr_strlist_take(struct lr_strlist *l, char *s);
bool lr_strlist_contains(const struct lr_strlist *l, const char *s);
/* qsort comparator for an array of strings. */
int lr_strcmp_p(const void *a, const void *b);
void lr_strlist_free(struct lr_strlist *l);

/* A list of KEY=VALUE pairs, owned. */
struct lr_kv {
	char *key;
	char *value;
};

struct lr_kvlist {
	struct lr_kv *items;
	size_t n;
};

/* Set KEY to VALUE (copies; a later set of the same key replaces it). 0 or -ENOMEM. */
int lr_kvlist_set(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen);
const char *lr_kvlist_get(const struct lr_kvlist *l, const char *key);
void lr_kvlist_free(struct lr_kvlist *l);

/* Is the canonical PATH the directory DIR or beneath it? */
bool lr_path_beneath(const char *path, const char *dir);

/* A growable string, always NUL-terminated once something was added. */
struct lr_buf {
	char *s;
	size_t len, cap;
};

/* Append LEN bytes of S.  0 or -ENOMEM. */
int lr_buf_add(struct lr_buf *b, const char *s, size_t len);

/* Grow *ARR (of *N elements of SIZE bytes) by one zeroed element; returns it or NULL. */
void *lr_array_push(void *arr_ptr, size_t *n, size_t size);

static inline void lr_freep(void *p)
{
	free(*(void **)p);
}

static inline void lr_closep(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_free_ __attribute__((cleanup(lr_freep)))
#define _cleanup_close_ __attribute__((cleanup(lr_closep)))

#endif /* LANDRUN_UTIL_H */
