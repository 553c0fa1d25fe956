/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/env.h"

static bool selected(const struct lr_policy *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->n_env; i++) {
		const struct lr_env_rule *r = &p->env[i];
		size_t rlen = strlen(r->name);

		switch (r->kind) {
		case LR_ENV_NAME:
			if (rlen == len && memcmp(r->name, name, len) == 0)
				return true;
			break;
		case LR_ENV_PREFIX:
			if (rlen <= len && memcmp(r->name, name, rlen) == 0)
				return true;
			break;
		case LR_ENV_SET:
			break;
		}
	}
	return false;
}

int lr_env_build(const struct lr_policy *p, char *const *caller, const struct lr_kvlist *file,
		 struct lr_strlist *out)
{
	struct lr_kvlist kv = { 0 };
	int r = 0;

	for (char *const *e = caller; e && *e && r == 0; e++) {
		const char *eq = strchr(*e, '=');
		_cleanup_free_ char *name = NULL;

		if (!eq || !selected(p, *e, (size_t)(eq - *e)))
			continue;
		/* a name given twice: the first counts, as for getenv(3) */
		name = strndup(*e, (size_t)(eq - *e));
		if (!name)
			r = -ENOMEM;
		else if (!lr_kvlist_get(&kv, name))
			r = lr_kvlist_set(&kv, *e, (size_t)(eq - *e), eq + 1, strlen(eq + 1));
	}
	for (size_t i = 0; file && i < file->n && r == 0; i++) {
		const struct lr_kv *f = &file->items[i];

		if (selected(p, f->key, strlen(f->key)))
			r = lr_kvlist_set(&kv, f->key, strlen(f->key), f->value, strlen(f->value));
	}
	for (size_t i = 0; i < p->n_env && r == 0; i++) {
		const struct lr_env_rule *rule = &p->env[i];

		if (rule->kind == LR_ENV_SET)
			r = lr_kvlist_set(&kv, rule->name, strlen(rule->name), rule->value,
					  strlen(rule->value));
	}
	for (size_t i = 0; i < kv.n && r == 0; i++) {
		char *s;

		if (asprintf(&s, "%s=%s", kv.items[i].key, kv.items[i].value) < 0)
			r = -ENOMEM;
		else
			r = lr_strlist_take(out, s);
	}
	lr_kvlist_free(&kv);
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
	snprintf(err, errlen,
		 "TMPDIR=%s: %s, so it cannot be the command's TMPDIR (which policies grant "
		 "read-write); give it one of its own, such as TMPDIR=$(mktemp -d)",
		 tmpdir, why);
	return -EPERM;
}
