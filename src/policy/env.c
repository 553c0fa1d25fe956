/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/lib/error.h"
#include "landrun/policy/env.h"

/*
 * Which names the rules select, sorted so that a name is matched in log time
 * however many rules: NAME rules by a binary search for the name; PREFIX rules,
 * once those that a shorter one covers are dropped, by a binary search for the
 * greatest prefix not above the name, the only one that can start it.
 */
struct selector {
	const char **names;
	size_t n_names;
	const char **prefixes;
	size_t n_prefixes;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Compare NAME (LEN bytes, not terminated) with S, in strcmp's order. */
static int cmp_name(const char *name, size_t len, const char *s)
{
	size_t slen = strlen(s);
	int c = memcmp(name, s, len < slen ? len : slen);

	return c ? c : (len > slen) - (len < slen);
}

static bool starts_with(const char *name, size_t len, const char *prefix)
{
	size_t plen = strlen(prefix);

	return plen <= len && memcmp(name, prefix, plen) == 0;
}

static int selector_init(struct selector *sel, const struct lr_policy *p)
{
	size_t kept = 0;

	*sel = (struct selector){ 0 };
	sel->names = calloc(p->n_env + 1, sizeof(*sel->names));
	sel->prefixes = calloc(p->n_env + 1, sizeof(*sel->prefixes));
	if (!sel->names || !sel->prefixes)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env; i++) {
		if (p->env[i].kind == LR_ENV_NAME)
			sel->names[sel->n_names++] = p->env[i].name;
		else if (p->env[i].kind == LR_ENV_PREFIX)
			sel->prefixes[sel->n_prefixes++] = p->env[i].name;
	}
	qsort(sel->names, sel->n_names, sizeof(*sel->names), cmp_str);
	qsort(sel->prefixes, sel->n_prefixes, sizeof(*sel->prefixes), cmp_str);
	/* sorted, a prefix follows the shorter prefixes that cover it: keep the first */
	for (size_t i = 0; i < sel->n_prefixes; i++) {
		const char *q = sel->prefixes[i];

		if (kept == 0 || !starts_with(q, strlen(q), sel->prefixes[kept - 1]))
			sel->prefixes[kept++] = q;
	}
	sel->n_prefixes = kept;
	return 0;
}

static void selector_free(struct selector *sel)
{
	free(sel->names);
	free(sel->prefixes);
}

/* The index of the last of V[0..N) not above NAME, or N if none is. */
static size_t last_not_above(const char *const *v, size_t n, const char *name, size_t len)
{
	size_t lo = 0, hi = n; /* v[..lo) are not above NAME, v[hi..) are */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_name(name, len, v[mid]) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

static bool selected(const struct selector *sel, const char *name, size_t len)
{
	size_t i = last_not_above(sel->names, sel->n_names, name, len);

	if (i < sel->n_names && cmp_name(name, len, sel->names[i]) == 0)
		return true;
	i = last_not_above(sel->prefixes, sel->n_prefixes, name, len);
	return i < sel->n_prefixes && starts_with(name, len, sel->prefixes[i]);
}

int lr_env_build(const struct lr_policy *p, char *const *caller, const struct lr_kvlist *file,
		 struct lr_strlist *out)
{
	struct selector sel;
	struct lr_kvlist kv = { 0 };
	int r = selector_init(&sel, p);

	for (char *const *e = caller; e && *e && r == 0; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : 0;

		/* a name given twice: the first counts, as for getenv(3) */
		if (eq && selected(&sel, *e, len))
			r = lr_kvlist_add(&kv, *e, len, eq + 1, strlen(eq + 1));
	}
	for (size_t i = 0; file && i < file->n && r == 0; i++) {
		const struct lr_kv *f = &file->items[i];

		if (selected(&sel, f->key, strlen(f->key)))
			r = lr_kvlist_set(&kv, f->key, strlen(f->key), f->value, strlen(f->value));
	}
	for (size_t i = 0; i < p->n_env && r == 0; i++) {
		const struct lr_env_rule *rule = &p->env[i];

		if (rule->kind == LR_ENV_SET)
			r = lr_kvlist_set(&kv, rule->name, strlen(rule->name), rule->value,
					  strlen(rule->value));
	}
	for (size_t i = 0; i < kv.n && r == 0; i++) {
		size_t klen = strlen(kv.items[i].key), vlen = strlen(kv.items[i].value);
		char *s = malloc(klen + vlen + 2);

		if (s) {
			memcpy(s, kv.items[i].key, klen);
			s[klen] = '=';
			memcpy(s + klen + 1, kv.items[i].value, vlen + 1);
		}
		r = lr_strlist_take(out, s);
	}
	lr_kvlist_free(&kv);
	selector_free(&sel);
	if (r == 0 && !out->v) { /* an empty environment is still an array */
		out->v = calloc(1, sizeof(*out->v));
		if (!out->v)
			r = -ENOMEM;
	}
	return r;
}

const char *lr_env_lookup(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

int lr_env_set(struct lr_strlist *env, const char *name, const char *value)
{
	size_t len = strlen(name);
	char *s;

	if (asprintf(&s, "%s=%s", name, value) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, len) == 0 && env->v[i][len] == '=') {
			free(env->v[i]);
			env->v[i] = s;
			return 0;
		}
	return lr_strlist_take(env, s);
}

int lr_env_check_tmpdir(char *const *envp, const char *home, char *err, size_t errlen)
{
	const char *tmpdir = lr_env_lookup(envp, "TMPDIR");
	_cleanup_free_ char *real = NULL;
	const char *why;

	if (!tmpdir)
		return 0;
	real = realpath(tmpdir, NULL);
	if (!real)
		return 0; /* not there: nothing is shared through it (a grant of it fails) */
	why = lr_policy_shared_dir(real, home);
	if (!why)
		return 0;
	lr_errf(err, errlen,
		"TMPDIR=%s: %s, so it cannot be the command's TMPDIR (which policies grant "
		"read-write); give it one of its own, such as TMPDIR=$(mktemp -d)",
		tmpdir, why);
	return -EPERM;
}
