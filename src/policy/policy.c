/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "landrun/lib/util.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/policy.h"

void lr_policy_init(struct lr_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->on_unsupported = LR_UNSUPPORTED_WARN;
	p->log_level = LR_LOG_NOTICE;
	p->timeout_grace_ms = LR_TIMEOUT_GRACE_DEFAULT_MS;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void lr_policy_free(struct lr_policy *p)
{
	for (size_t i = 0; i < p->n_grants; i++) {
		free(p->grants[i].path);
		free(p->grants[i].origin);
		free(p->grants[i].name);
	}
	free(p->grants);
	for (size_t i = 0; i < p->n_env; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->env);
	free(p->env_file);
	free_strv(p->allow_dotenv, p->n_allow_dotenv);
	free_strv(p->allow_protected, p->n_allow_protected);
	for (size_t i = 0; i < p->n_secrets; i++) {
		free(p->secrets[i].glob);
		free(p->secrets[i].name);
	}
	free(p->secrets);
	free_strv(p->mkdirs, p->n_mkdirs);
	free(p->keep_fds);
	free(p->profile);
	free(p->project);
	free(p->project_note);
	free(p->outright);
	free(p->user);
	free(p->connect_tcp);
	free(p->bind_tcp);
	free(p->audit_log);
	for (size_t i = 0; i < p->n_allow_domains; i++)
		free(p->allow_domains[i].host);
	free(p->allow_domains);
	lr_egress_sites_free(p->egress_sites, p->n_egress_sites);
	free(p->learn);
	lr_policy_init(p);
}

int lr_policy_add_secret(struct lr_policy *p, const char *glob)
{
	struct lr_secret_glob *s;
	char *copy = strdup(glob), *name = NULL;

	if (p->origin ? asprintf(&name, "%s: secret = %s", p->origin, glob) < 0
		      : asprintf(&name, "--secret %s", glob) < 0)
		name = NULL;
	if (!copy || !name || !(s = lr_array_push(&p->secrets, &p->n_secrets, sizeof(*s)))) {
		free(copy);
		free(name);
		return -ENOMEM;
	}
	s->glob = copy;
	s->name = name;
	return 0;
}

int lr_policy_add_grant(struct lr_policy *p, const char *path, unsigned access, const char *flag)
{
	char *copy = strdup(path), *origin = p->origin ? strdup(p->origin) : NULL, *name = NULL;
	struct lr_grant *g;
	int n;

	if (p->origin)
		n = asprintf(&name, "%s: %s = %s", p->origin, flag + 2, path);
	else
		n = asprintf(&name, "%s %s", flag, path);
	if (n < 0)
		name = NULL;
	if (!copy || (p->origin && !origin) || !name)
		goto nomem;
	g = lr_array_push(&p->grants, &p->n_grants, sizeof(*g));
	if (!g)
		goto nomem;
	g->path = copy;
	g->origin = origin;
	g->name = name;
	g->access = access;
	g->flag = flag;
	g->source = p->source;
	return 0;
nomem:
	free(copy);
	free(origin);
	free(name);
	return -ENOMEM;
}

void lr_policy_grants_optional(struct lr_policy *p, unsigned source)
{
	for (size_t i = 0; i < p->n_grants; i++)
		if (p->grants[i].source == source)
			p->grants[i].optional = true;
}

int lr_policy_add_env(struct lr_policy *p, enum lr_env_kind kind, const char *name,
		      const char *value)
{
	char *n = strdup(name);
	char *v = value ? strdup(value) : NULL;
	struct lr_env_rule *r;

	if (!n || (value && !v))
		goto nomem;
	r = lr_array_push(&p->env, &p->n_env, sizeof(*r));
	if (!r)
		goto nomem;
	r->kind = kind;
	r->name = n;
	r->value = v;
	return 0;
nomem:
	free(n);
	free(v);
	return -ENOMEM;
}

bool lr_env_name_valid(const char *name, size_t len)
{
	if (len == 0 || isdigit((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

const char *lr_policy_shared_dir(const char *path, const char *home)
{
	static const char *const shared[] = { "/", "/tmp", "/var/tmp", "/dev/shm" };
	_cleanup_free_ char *real_home = NULL;

	for (size_t i = 0; i < sizeof(shared) / sizeof(*shared); i++)
		if (strcmp(path, shared[i]) == 0)
			return "is shared with other programs (their files and sockets)";
	if (!home || home[0] != '/')
		return NULL;
	real_home = realpath(home, NULL);
	if (lr_path_beneath(real_home ? real_home : home, path))
		return strcmp(real_home ? real_home : home, path) == 0 ? "is the home directory"
								       : "holds the home directory";
	return NULL;
}

bool lr_policy_grant_private(const struct lr_grant *g)
{
	return g->origin && (strcmp(g->origin, "--private-tmp") == 0 ||
			     strcmp(g->origin, "--private-home") == 0);
}
