/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "landrun/lib/util.h"

void *lr_array_push(void *arr_ptr, size_t *n, size_t size)
{
	void **arr = arr_ptr;
	char *grown;

	if (*n >= SIZE_MAX / size - 1)
		return NULL;
	grown = realloc(*arr, (*n + 1) * size);
	if (!grown)
		return NULL;
	*arr = grown;
	memset(grown + *n * size, 0, size);
	return grown + (*n)++ * size;
}

/*
 * Room in *ARR (*CAP elements of SIZE bytes) for NEED elements.  The capacity
 * at least doubles, so that a list of n elements costs O(n) to grow.
 */
static int array_reserve(void *arr_ptr, size_t *cap, size_t need, size_t size)
{
	void **arr = arr_ptr;
	size_t ncap = need > 2 * *cap ? need : 2 * *cap;
	void *grown;

	if (need <= *cap)
		return 0;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	grown = realloc(*arr, ncap * size);
	if (!grown)
		return -ENOMEM;
	*arr = grown;
	*cap = ncap;
	return 0;
}

static int not_regular(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

int lr_open_regular(const char *path, struct stat *st)
{
	return lr_open_regular_as(path, O_RDONLY, 0, st);
}

int lr_open_regular_as(const char *path, int flags, mode_t mode, struct stat *st)
{
	int fd;

	/* a device is refused before it is opened; the fstat below closes the race */
	if (stat(path, st) == 0 && !S_ISREG(st->st_mode))
		return not_regular(st);
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return not_regular(st);
	}
	return fd;
}

const char *lr_open_strerror(int ret)
{
	return ret == -EINVAL ? "not a regular file" : strerror(-ret);
}

bool lr_path_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int lr_buf_add(struct lr_buf *b, const char *s, size_t len)
{
	if (len >= SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *grown = realloc(b->s, cap);

		if (!grown)
			return -ENOMEM;
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
	return 0;
}

int lr_strlist_take(struct lr_strlist *l, char *s)
{
	if (!s)
		return -ENOMEM;
	if (array_reserve(&l->v, &l->cap, l->n + 2, sizeof(*l->v)) < 0) {
		free(s);
		return -ENOMEM;
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

int lr_strlist_add(struct lr_strlist *l, const char *s)
{
	return lr_strlist_take(l, strdup(s));
}

int lr_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool lr_strlist_contains(const struct lr_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void lr_strlist_free(struct lr_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct lr_strlist){ 0 };
}

/*
 * The key of the lists' hash: random per process, so that no input (a caller's
 * environment, an .env file from a repository) can be made to collide on
 * purpose and turn the lists quadratic again.  Without getrandom(2) a fixed key
 * keeps them correct, only no longer proof against crafted collisions.
 */
static uint64_t kv_key[2];

static void kv_seed(void)
{
	static bool seeded;

	if (seeded)
		return;
	seeded = true;
	if (getrandom(kv_key, sizeof(kv_key), GRND_NONBLOCK) != (ssize_t)sizeof(kv_key)) {
		kv_key[0] = 0x0706050403020100ULL;
		kv_key[1] = 0x0f0e0d0c0b0a0908ULL;
	}
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13) ^ v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17) ^ v[2];
	v[2] = ROTL(v[2], 32);
}

static void sip_absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_round(v);
	v[0] ^= m;
}

/* SipHash-1-3 (Aumasson and Bernstein) of LEN bytes of S under kv_key. */
static uint64_t kv_hash(const char *s, size_t len)
{
	uint64_t v[4] = {
		kv_key[0] ^ 0x736f6d6570736575ULL,
		kv_key[1] ^ 0x646f72616e646f6dULL,
		kv_key[0] ^ 0x6c7967656e657261ULL,
		kv_key[1] ^ 0x7465646279746573ULL,
	};
	uint64_t m;
	size_t i;

	for (i = 0; len - i >= 8; i += 8) { /* little-endian 8-byte words */
		m = 0;
		for (size_t j = 0; j < 8; j++)
			m |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
		sip_absorb(v, m);
	}
	m = (uint64_t)len << 56; /* the last word: the bytes left, the length on top */
	for (size_t j = 0; j < len - i; j++)
		m |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
	sip_absorb(v, m);
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The slot of KEY in L's index: the one that holds it, or the empty one where it would go. */
static struct lr_kv_slot *kv_slot(const struct lr_kvlist *l, const char *key, size_t keylen,
				  uint64_t hash)
{
	size_t mask = l->index_size - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct lr_kv_slot *slot = &l->index[i];
		const char *k;

		if (slot->pos == 0)
			return slot;
		if (slot->hash != hash)
			continue;
		k = l->items[slot->pos - 1].key;
		if (strncmp(k, key, keylen) == 0 && k[keylen] == '\0')
			return slot;
	}
}

/* Index L anew in SIZE slots (a power of two, more than L->n). */
static int kv_reindex(struct lr_kvlist *l, size_t size)
{
	struct lr_kv_slot *old = l->index;
	size_t old_size = l->index_size;

	l->index = calloc(size, sizeof(*l->index));
	if (!l->index) {
		l->index = old;
		return -ENOMEM;
	}
	l->index_size = size;
	for (size_t i = 0; i < old_size; i++) {
		size_t j = old[i].hash & (size - 1);

		if (old[i].pos == 0)
			continue;
		while (l->index[j].pos)
			j = (j + 1) & (size - 1);
		l->index[j] = old[i];
	}
	free(old);
	return 0;
}

/* Set or, if KEEP, add only when absent (see util.h). */
static int kv_put(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen, bool keep)
{
	struct lr_kv_slot *slot;
	struct lr_kv pair;
	uint64_t hash;

	kv_seed();
	keylen = strnlen(key, keylen); /* the key as strndup() keeps it */
	/* at most half full, so that a probe soon meets an empty slot */
	if (l->n >= l->index_size / 2 &&
	    (l->index_size > SIZE_MAX / 4 / sizeof(*l->index) ||
	     kv_reindex(l, l->index_size ? l->index_size * 2 : 16) < 0))
		return -ENOMEM;
	if (array_reserve(&l->items, &l->cap, l->n + 1, sizeof(*l->items)) < 0)
		return -ENOMEM;
	hash = kv_hash(key, keylen);
	slot = kv_slot(l, key, keylen, hash);
	if (slot->pos && keep)
		return 0;
	pair.value = strndup(value, valuelen);
	pair.key = slot->pos ? NULL : strndup(key, keylen);
	if (!pair.value || (!slot->pos && !pair.key)) {
		if (pair.value)
			explicit_bzero(pair.value, strlen(pair.value));
		free(pair.value);
		free(pair.key);
		return -ENOMEM;
	}
	if (slot->pos) {
		struct lr_kv *kv = &l->items[slot->pos - 1];

		explicit_bzero(kv->value, strlen(kv->value));
		free(kv->value);
		kv->value = pair.value;
		return 0;
	}
	slot->pos = l->n + 1;
	slot->hash = hash;
	l->items[l->n++] = pair;
	return 0;
}

int lr_kvlist_set(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen)
{
	return kv_put(l, key, keylen, value, valuelen, false);
}

int lr_kvlist_add(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen)
{
	return kv_put(l, key, keylen, value, valuelen, true);
}

const char *lr_kvlist_get(const struct lr_kvlist *l, const char *key)
{
	size_t keylen = strlen(key);
	size_t pos;

	if (l->n == 0)
		return NULL;
	pos = kv_slot(l, key, keylen, kv_hash(key, keylen))->pos;
	return pos ? l->items[pos - 1].value : NULL;
}

void lr_kvlist_free(struct lr_kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		/* the values may be secrets: do not leave them in freed memory */
		explicit_bzero(l->items[i].value, strlen(l->items[i].value));
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	free(l->index);
	*l = (struct lr_kvlist){ 0 };
}

char *lr_path_canonical(const char *path)
{
	char *real = realpath(path, NULL), *copy, *cut, *base = NULL, *out = NULL;

	if (real || errno != ENOENT)
		return real;
	/* up to the deepest part that exists; the rest as named */
	copy = strdup(path);
	if (!copy)
		return NULL;
	while ((cut = strrchr(copy, '/')) && cut != copy) {
		*cut = '\0';
		if ((base = realpath(copy, NULL)) || errno != ENOENT)
			break;
	}
	if (!base && (!cut || cut == copy))
		base = realpath(cut ? "/" : ".", NULL);
	if (base && asprintf(&out, "%s/%s", strcmp(base, "/") ? base : "",
			     path + (cut ? (size_t)(cut - copy) + 1 : 0)) < 0)
		out = NULL;
	free(base);
	free(copy);
	if (!out)
		errno = ENOENT;
	return out;
}

size_t lr_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

bool lr_utf8_hidden(const unsigned char *s, size_t len)
{
	if (len == 2)
		return s[0] == 0xc2 && s[1] <= 0x9f;
	if (len == 3 && s[0] == 0xe2 && s[1] == 0x80)
		return s[2] >= 0xaa && s[2] <= 0xae;
	if (len == 3 && s[0] == 0xe2 && s[1] == 0x81)
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	return false;
}

size_t lr_escape(char *out, size_t outlen, const char *str, size_t len, bool backslash)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t used = 0, need = 0;
	bool full = false;

	for (size_t i = 0; i < len;) {
		char piece[16];
		size_t n = 0, take = 1, seq;

		if (s[i] == '\\' && backslash) {
			n = (size_t)snprintf(piece, sizeof(piece), "\\\\");
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			n = (size_t)snprintf(piece, sizeof(piece), "\\x%02x", s[i]);
		} else if (s[i] < 0x80) {
			piece[n++] = (char)s[i];
		} else if ((seq = lr_utf8_len(s + i, len - i)) && !lr_utf8_hidden(s + i, seq)) {
			memcpy(piece, s + i, seq);
			n = take = seq;
		} else {
			take = seq ? seq : 1;
			for (size_t k = 0; k < take; k++)
				n += (size_t)snprintf(piece + n, sizeof(piece) - n, "\\x%02x",
						      s[i + k]);
		}
		if (!full && used + n < outlen) {
			memcpy(out + used, piece, n);
			used += n;
		} else {
			full = true;
		}
		need += n;
		i += take;
	}
	if (outlen)
		out[used] = '\0';
	return need;
}

char *lr_escape_dup(const char *s)
{
	size_t len = strlen(s), need = lr_escape(NULL, 0, s, len, true);
	char *out = malloc(need + 1);

	if (out)
		lr_escape(out, need + 1, s, len, true);
	return out;
}

struct lr_dir *lr_dir_open(int fd)
{
	struct lr_dir *d = malloc(sizeof(*d));

	if (!d) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	d->fd = fd;
	d->pos = d->len = 0;
	return d;
}

const struct lr_dir_entry *lr_dir_next(struct lr_dir *d, struct lr_dir_entry *e)
{
	for (;;) {
		const struct dirent64 *de;
		ssize_t n;

		if (d->pos >= d->len) {
			n = getdents64(d->fd, d->buf, sizeof(d->buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n == 0)
					errno = 0;
				return NULL;
			}
			d->pos = 0;
			d->len = (size_t)n;
		}
		de = (const struct dirent64 *)(d->buf + d->pos);
		d->pos += de->d_reclen;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		e->name = de->d_name;
		e->type = de->d_type;
		return e;
	}
}

void lr_dir_close(struct lr_dir *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d);
}
