/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_UTIL_H
#define LANDRUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* A growable list of owned strings; v is kept NULL-terminated.  Initialise with { 0 }. */
struct lr_strlist {
	char **v;
	size_t n;
	size_t cap; /* v allocated (0: as needed) */
};

/* 0 or -ENOMEM.  _add copies S; _take takes ownership (and frees it on failure). */
int lr_strlist_add(struct lr_strlist *l, const char *s);
int lr_strlist_take(struct lr_strlist *l, char *s);
bool lr_strlist_contains(const struct lr_strlist *l, const char *s);
/* qsort comparator for an array of strings. */
int lr_strcmp_p(const void *a, const void *b);
void lr_strlist_free(struct lr_strlist *l);

/*
 * A directory's entries straight from getdents64(2), for the walks that run
 * at every start (the scan, the sweep of /tmp): fdopendir(3) costs an fstat
 * and two fcntl calls per directory before its first entry.  lr_dir_open
 * takes FD over (a directory opened O_RDONLY | O_DIRECTORY | O_CLOEXEC: it
 * is closed by lr_dir_close, or on failure).  lr_dir_next gives the next
 * entry other than "." and "..", or NULL at the end (errno 0) or on an error
 * (errno set).
 */
struct lr_dir_entry {
	const char *name;
	unsigned char type; /* DT_* */
};

struct lr_dir {
	int fd;
	size_t pos, len;
	_Alignas(8) char buf[32768];
};

struct lr_dir *lr_dir_open(int fd);
const struct lr_dir_entry *lr_dir_next(struct lr_dir *d, struct lr_dir_entry *e);
void lr_dir_close(struct lr_dir *d);

/*
 * A list of KEY=VALUE pairs, owned, in the order the keys were first set,
 * indexed by a hash of the key: setting and looking up cost the same however
 * long the list.  Initialise with { 0 }.
 */
struct lr_kv {
	char *key;
	char *value;
};

struct lr_kv_slot {
	size_t pos; /* 0: empty; else 1 + the item's position */
	uint64_t hash;
};

struct lr_kvlist {
	struct lr_kv *items;
	size_t n;
	size_t cap;		  /* items allocated */
	struct lr_kv_slot *index; /* index_size slots, at most half of them used */
	size_t index_size;	  /* a power of two, or 0 */
};

/*
 * Set KEY (its first KEYLEN bytes) to VALUE (copies).  _set: a later value
 * replaces an earlier one (wiped), the key keeps its place; _add: the first
 * value stays.  0 or -ENOMEM.
 */
int lr_kvlist_set(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen);
int lr_kvlist_add(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen);
/* The value of KEY, or NULL. */
const char *lr_kvlist_get(const struct lr_kvlist *l, const char *key);
/* Frees everything, the values wiped first (they may be secrets). */
void lr_kvlist_free(struct lr_kvlist *l);

/* The canonical name of PATH (malloc'd), or for one that does not exist
 * yet (a .git that --allow-protected lets be made), its parent's with its
 * own last component; NULL with errno. */
char *lr_path_canonical(const char *path);

/* Is the canonical PATH the directory DIR or beneath it? */
bool lr_path_beneath(const char *path, const char *dir);

struct stat;

/*
 * Open PATH for reading, and only if it is a regular file: never a FIFO
 * (whose open would wait for a writer, forever), a device (whose open may
 * act: a tape rewinds, a watchdog starts), a socket or a directory.  PATH is
 * stat()ed before the open, which is O_NONBLOCK, and the open file fstat()ed
 * again into *ST.  Returns the fd (O_CLOEXEC), or -errno: -EISDIR for a
 * directory, -EINVAL for anything else that is not a regular file.
 */
int lr_open_regular(const char *path, struct stat *st);
/* The same with FLAGS (O_WRONLY | O_APPEND | O_CREAT...) and MODE, for a
 * file to write: O_CLOEXEC, O_NOCTTY and O_NONBLOCK are added. */
int lr_open_regular_as(const char *path, int flags, mode_t mode, struct stat *st);

/* The reason for a -errno of lr_open_regular, for a message. */
const char *lr_open_strerror(int ret);

/* A growable string, always NUL-terminated once something was added. */
struct lr_buf {
	char *s;
	size_t len, cap;
};

/* Append LEN bytes of S.  0 or -ENOMEM. */
int lr_buf_add(struct lr_buf *b, const char *s, size_t len);

/* The length of the valid UTF-8 sequence at S (N > 0 bytes left) that is not
 * ASCII: 2 to 4; 0 for an ASCII byte or one that starts no valid sequence. */
size_t lr_utf8_len(const unsigned char *s, size_t n);

/* Is the valid UTF-8 sequence at S (LEN bytes) one a terminal acts on or
 * shows in another place: a C1 control (U+0080..U+009F), a bidirectional
 * embedding, override or isolate (U+202A..U+202E, U+2066..U+2069)? */
bool lr_utf8_hidden(const unsigned char *s, size_t len);

/*
 * LEN bytes of S as they may be shown on a terminal or put in a log or a
 * comment: a control byte (below 0x20, 0x7f), a byte that starts no valid
 * UTF-8 sequence, and each byte of a sequence lr_utf8_hidden() takes become
 * \xNN; a backslash becomes \\ when BACKSLASH (so that the text can be told
 * from an escape).  Into OUT (OUTLEN > 0 bytes, always terminated, never cut
 * inside an escape); returns the length the whole would take, as snprintf.
 */
size_t lr_escape(char *out, size_t outlen, const char *s, size_t len, bool backslash);

/* lr_escape() of the string S, with backslashes, malloc'd (NULL: out of memory). */
char *lr_escape_dup(const char *s);

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
