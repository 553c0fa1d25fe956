/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "landrun/util.h"

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
	char **v;

	if (!s)
		return -ENOMEM;
	v = realloc(l->v, (l->n + 2) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	v[l->n++] = s;
	v[l->n] = NULL;
	l->v = v;
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
	l->v = NULL;
	l->n = 0;
}

int lr_kvlist_set(struct lr_kvlist *l, const char *key, size_t keylen, const char *value,
		  size_t valuelen)
{
	char *k = strndup(key, keylen);
	char *v = strndup(value, valuelen);
	struct lr_kv *kv;

	if (!k || !v)
		goto nomem;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, k) == 0) {
			free(k);
			explicit_bzero(l->items[i].value, strlen(l->items[i].value));
			free(l->items[i].value);
			l->items[i].value = v;
			return 0;
		}
	}
	kv = lr_array_push(&l->items, &l->n, sizeof(*kv));
	if (!kv)
		goto nomem;
	kv->key = k;
	kv->value = v;
	return 0;
nomem:
	free(k);
	free(v);
	return -ENOMEM;
}

const char *lr_kvlist_get(const struct lr_kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
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
	l->items = NULL;
	l->n = 0;
}
