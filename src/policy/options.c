/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "landrun/lib/error.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/options.h"
#include "landrun/policy/secrets.h"

#define LIST_OF_PATHS (LR_OPTF_LIST | LR_OPTF_PATH)

const struct lr_option lr_options[] = {
	{ "add-exec", LR_OPT_ADD_EXEC, LR_ARG_NONE, 0 },
	{ "allow-domain", LR_OPT_ALLOW_DOMAIN, LR_ARG_REQUIRED, LR_OPTF_LIST },
	{ "allow-dotenv", LR_OPT_ALLOW_DOTENV, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "allow-protected", LR_OPT_ALLOW_PROTECTED, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "allow-request", LR_OPT_ALLOW_REQUEST, LR_ARG_REQUIRED, 0 },
	{ "allow-sysv-ipc", LR_OPT_ALLOW_SYSV_IPC, LR_ARG_NONE, 0 },
	{ "audit-log", LR_OPT_AUDIT_LOG, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "best-effort", LR_OPT_BEST_EFFORT, LR_ARG_NONE, 0 },
	{ "bind-tcp", LR_OPT_BIND_TCP, LR_ARG_REQUIRED, LR_OPTF_LIST },
	{ "config", LR_OPT_CONFIG, LR_ARG_REQUIRED, LR_OPTF_PATH | LR_OPTF_FILE },
	{ "connect-tcp", LR_OPT_CONNECT_TCP, LR_ARG_REQUIRED, LR_OPTF_LIST },
	{ "deny-subprocess", LR_OPT_DENY_SUBPROCESS, LR_ARG_NONE, 0 },
	{ "die-with-parent", LR_OPT_DIE_WITH_PARENT, LR_ARG_NONE, 0 },
	{ "env", LR_OPT_ENV, LR_ARG_REQUIRED, 0 },
	{ "env-file", LR_OPT_ENV_FILE, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "env-prefix", LR_OPT_ENV_PREFIX, LR_ARG_REQUIRED, 0 },
	{ "explain", LR_OPT_EXPLAIN, LR_ARG_OPTIONAL, LR_OPTF_CLI },
	{ "help", LR_OPT_HELP, LR_ARG_NONE, LR_OPTF_CLI },
	{ "ignore-missing", LR_OPT_IGNORE_MISSING, LR_ARG_NONE, 0 },
	{ "init", LR_OPT_INIT, LR_ARG_NONE, 0 },
	{ "keep-fd", LR_OPT_KEEP_FD, LR_ARG_REQUIRED, 0 },
	{ "landlock-audit", LR_OPT_LANDLOCK_AUDIT, LR_ARG_NONE, 0 },
	{ "ldd", LR_OPT_LDD, LR_ARG_NONE, 0 },
	{ "learn", LR_OPT_LEARN, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "log-level", LR_OPT_LOG_LEVEL, LR_ARG_REQUIRED, 0 },
	{ "mkdir", LR_OPT_MKDIR, LR_ARG_REQUIRED, LIST_OF_PATHS },
	{ "no-project", LR_OPT_NO_PROJECT, LR_ARG_NONE, 0 },
	{ "on-unsupported", LR_OPT_ON_UNSUPPORTED, LR_ARG_REQUIRED, 0 },
	{ "private-home", LR_OPT_PRIVATE_HOME, LR_ARG_NONE, 0 },
	{ "private-tmp", LR_OPT_PRIVATE_TMP, LR_ARG_NONE, 0 },
	{ "profile", LR_OPT_PROFILE, LR_ARG_REQUIRED, LR_OPTF_FILE },
	{ "pty", LR_OPT_PTY, LR_ARG_NONE, 0 },
	{ "pty-passthrough", LR_OPT_PTY_PASSTHROUGH, LR_ARG_NONE, 0 },
	{ "report-denials", LR_OPT_REPORT_DENIALS, LR_ARG_NONE, 0 },
	{ "rlimit-as", LR_OPT_RLIMIT_AS, LR_ARG_REQUIRED, 0 },
	{ "rlimit-core", LR_OPT_RLIMIT_CORE, LR_ARG_REQUIRED, 0 },
	{ "rlimit-cpu", LR_OPT_RLIMIT_CPU, LR_ARG_REQUIRED, 0 },
	{ "rlimit-fsize", LR_OPT_RLIMIT_FSIZE, LR_ARG_REQUIRED, 0 },
	{ "rlimit-nofile", LR_OPT_RLIMIT_NOFILE, LR_ARG_REQUIRED, 0 },
	{ "rlimit-nproc", LR_OPT_RLIMIT_NPROC, LR_ARG_REQUIRED, 0 },
	{ "ro", LR_OPT_RO, LR_ARG_REQUIRED, LIST_OF_PATHS },
	{ "rox", LR_OPT_ROX, LR_ARG_REQUIRED, LIST_OF_PATHS },
	{ "rw", LR_OPT_RW, LR_ARG_REQUIRED, LIST_OF_PATHS },
	{ "rwx", LR_OPT_RWX, LR_ARG_REQUIRED, LIST_OF_PATHS },
	{ "secret", LR_OPT_SECRET, LR_ARG_REQUIRED, 0 },
	{ "secret-header", LR_OPT_SECRET_HEADER, LR_ARG_REQUIRED, LR_OPTF_RAW },
	{ "secret-header-if-set", LR_OPT_SECRET_HEADER_IF_SET, LR_ARG_REQUIRED, LR_OPTF_RAW },
	{ "timeout", LR_OPT_TIMEOUT, LR_ARG_REQUIRED, 0 },
	{ "timeout-grace", LR_OPT_TIMEOUT_GRACE, LR_ARG_REQUIRED, 0 },
	{ "unix", LR_OPT_UNIX, LR_ARG_REQUIRED, LR_OPTF_PATH },
	{ "unrestricted-filesystem", LR_OPT_UNRESTRICTED_FS, LR_ARG_NONE, 0 },
	{ "unrestricted-network", LR_OPT_UNRESTRICTED_NET, LR_ARG_NONE, 0 },
	{ "unrestricted-scoped", LR_OPT_UNRESTRICTED_SCOPED, LR_ARG_NONE, 0 },
	{ "user", LR_OPT_USER, LR_ARG_REQUIRED, 0 },
	{ "version", LR_OPT_VERSION, LR_ARG_NONE, LR_OPTF_CLI },
	{ NULL, 0, LR_ARG_NONE, 0 },
};

const struct lr_option *lr_option_find(const char *name, size_t len)
{
	for (const struct lr_option *o = lr_options; o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

const struct lr_option *lr_option_get(int id)
{
	for (const struct lr_option *o = lr_options; o->name; o++)
		if (o->id == id)
			return o;
	return NULL;
}

enum lr_opt_result lr_opt_fail(struct lr_opt_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_verrf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return LR_OPT_ERROR;
}

int lr_option_split(const char *list, struct lr_strlist *out)
{
	const char *item = list;

	for (;;) {
		const char *end = strchrnul(item, ',');
		int r;

		if (end == item)
			return -EINVAL;
		r = lr_strlist_take(out, strndup(item, (size_t)(end - item)));
		if (r < 0)
			return r;
		if (!*end)
			return 0;
		item = end + 1;
	}
}

static int parse_port(const char *s, const char *end, uint16_t *port)
{
	unsigned long v = 0;

	if (s == end || end - s > 5)
		return -EINVAL;
	for (const char *c = s; c < end; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*c - '0');
	}
	if (v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int lr_option_parse_ports(const char *item, struct lr_port_range **ranges, size_t *n)
{
	const char *end = item + strlen(item), *dash = strchr(item, '-');
	struct lr_port_range range, *slot;

	if (parse_port(item, dash ? dash : end, &range.first) < 0 ||
	    (dash && parse_port(dash + 1, end, &range.last) < 0))
		return -EINVAL;
	if (!dash)
		range.last = range.first;
	if (range.last < range.first)
		return -EINVAL;
	slot = lr_array_push(ranges, n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	*slot = range;
	return 0;
}

int lr_option_parse_on_unsupported(const char *s, enum lr_on_unsupported *mode)
{
	if (strcmp(s, "error") == 0)
		*mode = LR_UNSUPPORTED_ERROR;
	else if (strcmp(s, "warn") == 0)
		*mode = LR_UNSUPPORTED_WARN;
	else if (strcmp(s, "ignore") == 0)
		*mode = LR_UNSUPPORTED_IGNORE;
	else
		return -EINVAL;
	return 0;
}

int lr_option_parse_log_level(const char *s, enum lr_log_level *level)
{
	if (strcmp(s, "error") == 0)
		*level = LR_LOG_ERROR;
	else if (strcmp(s, "notice") == 0)
		*level = LR_LOG_NOTICE;
	else if (strcmp(s, "info") == 0)
		*level = LR_LOG_INFO;
	else if (strcmp(s, "debug") == 0)
		*level = LR_LOG_DEBUG;
	else
		return -EINVAL;
	return 0;
}

/* Digits at *P -> *V (at least one); *P moves past them.  -EINVAL on overflow. */
static int parse_digits(const char **p, unsigned long long *v, unsigned *count)
{
	*v = 0;
	*count = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++, (*count)++) {
		unsigned d = (unsigned)(**p - '0');

		if (*v > (ULLONG_MAX - d) / 10)
			return -EINVAL;
		*v = *v * 10 + d;
	}
	return *count ? 0 : -EINVAL;
}

int lr_option_parse_duration(const char *s, unsigned long long *ms)
{
	static const struct {
		char unit;
		unsigned long long ms;
	} units[] = { { 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 }, { 'd', 86400000 } };
	unsigned long long whole, frac = 0, den = 1, per = 1000, part;
	const char *p = s, *start;
	unsigned n;

	if (parse_digits(&p, &whole, &n) < 0)
		return -EINVAL;
	if (*p == '.') {
		/* nine decimals are finer than a millisecond of any unit */
		for (start = ++p; *p >= '0' && *p <= '9'; p++)
			if (den < 1000000000ULL) {
				frac = frac * 10 + (unsigned)(*p - '0');
				den *= 10;
			}
		if (p == start)
			return -EINVAL;
	}
	for (size_t i = 0; *p && i < sizeof(units) / sizeof(*units); i++)
		if (*p == units[i].unit) {
			per = units[i].ms;
			p++;
			break;
		}
	if (*p || whole > ULLONG_MAX / per)
		return -EINVAL;
	part = (frac * per + den - 1) / den; /* rounded up: 0.0001 is not "no timeout" */
	if (whole * per > ULLONG_MAX - part)
		return -EINVAL;
	*ms = whole * per + part;
	return 0;
}

int lr_option_parse_limit(const char *s, bool size, unsigned long long *value)
{
	static const char units[] = "kmgt";
	unsigned long long v;
	const char *p = s, *u;
	unsigned n;

	if (strcmp(s, "unlimited") == 0) {
		*value = RLIM_INFINITY;
		return 0;
	}
	if (parse_digits(&p, &v, &n) < 0)
		return -EINVAL;
	if (size && *p && (u = strchr(units, *p | 0x20)) && !p[1]) {
		unsigned shift = 10 * (unsigned)(u - units + 1);

		if (v > (RLIM_INFINITY - 1) >> shift)
			return -EINVAL;
		v <<= shift;
		p++;
	}
	if (*p || v >= RLIM_INFINITY)
		return -EINVAL;
	*value = v;
	return 0;
}

static int add_string(char ***v, size_t *n, const char *s)
{
	char *copy = strdup(s);
	char **slot;

	if (!copy)
		return -ENOMEM;
	slot = lr_array_push(v, n, sizeof(*slot));
	if (!slot) {
		free(copy);
		return -ENOMEM;
	}
	*slot = copy;
	return 0;
}

static int parse_env(struct lr_policy *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	_cleanup_free_ char *name = NULL;

	if (!eq)
		return lr_env_name_valid(arg, strlen(arg)) ? lr_policy_add_env(p, LR_ENV_NAME, arg, NULL)
							   : -EINVAL;
	if (!lr_env_name_valid(arg, (size_t)(eq - arg)))
		return -EINVAL;
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return -ENOMEM;
	return lr_policy_add_env(p, LR_ENV_SET, name, eq + 1);
}

static int parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	*fd = (int)v;
	return 0;
}

static int add_grant(struct lr_policy *p, const char *path, unsigned access, const char *flag)
{
	return *path ? lr_policy_add_grant(p, path, access, flag) : -EINVAL;
}

/* Does one of the first N --allow-domain entries name S's host and port? */
static bool domain_listed(const struct lr_policy *p, size_t n, const struct lr_http_site *s)
{
	for (size_t i = 0; i < n; i++)
		if (p->allow_domains[i].kind == LR_DEST_NAME && p->allow_domains[i].port == s->port &&
		    strcmp(p->allow_domains[i].host, s->host) == 0)
			return true;
	return false;
}

/* An intercepted host is an allowed destination too, unless --allow-domain
 * names it already: as if --allow-domain HOST:PORT were given.  (The array
 * grows once, before any name is copied into it: GCC's analyzer loses a
 * name copied into an array that grows after.) */
static int intercepted_allowed(struct lr_policy *p)
{
	size_t had = p->n_allow_domains, add = 0;
	struct lr_dest *grown;

	for (size_t j = 0; j < p->n_egress_sites; j++)
		add += !domain_listed(p, had, &p->egress_sites[j]);
	if (add == 0)
		return 0;
	if (had > SIZE_MAX / sizeof(*grown) - add)
		return -ENOMEM;
	grown = realloc(p->allow_domains, (had + add) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->allow_domains = grown;
	for (size_t j = 0; j < p->n_egress_sites; j++) {
		const struct lr_http_site *s = &p->egress_sites[j];
		char item[300];
		int r;

		if (domain_listed(p, had, s))
			continue;
		if (snprintf(item, sizeof(item), "%s:%u", s->host, (unsigned)s->port) >=
		    (int)sizeof(item))
			return -ENAMETOOLONG;
		r = lr_egress_parse_dest(item, &grown[p->n_allow_domains]);
		if (r < 0)
			return r;
		p->n_allow_domains++;
	}
	return 0;
}

enum lr_opt_result lr_option_apply(struct lr_policy *p, const struct lr_option *o,
				   const char *arg, struct lr_opt_source *src,
				   struct lr_opt_error *err)
{
	int r = 0;

	switch (o->id) {
	case LR_OPT_RO:
		r = add_grant(p, arg, LR_ACCESS_RO, "--ro");
		break;
	case LR_OPT_ROX:
		r = add_grant(p, arg, LR_ACCESS_RO | LR_ACCESS_X, "--rox");
		break;
	case LR_OPT_RW:
		r = add_grant(p, arg, LR_ACCESS_RO | LR_ACCESS_RW, "--rw");
		break;
	case LR_OPT_RWX:
		r = add_grant(p, arg, LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, "--rwx");
		break;
	case LR_OPT_ADD_EXEC:
		p->add_exec = true;
		break;
	case LR_OPT_LDD:
		p->ldd = true;
		break;
	case LR_OPT_IGNORE_MISSING:
		src->ignore_missing = true;
		if (src->depth == 0)
			p->ignore_missing = true;
		break;
	case LR_OPT_MKDIR:
		r = *arg ? add_string(&p->mkdirs, &p->n_mkdirs, arg) : -EINVAL;
		break;
	case LR_OPT_NO_PROJECT:
		p->no_project = true;
		break;
	case LR_OPT_ALLOW_DOTENV:
		r = *arg ? add_string(&p->allow_dotenv, &p->n_allow_dotenv, arg) : -EINVAL;
		break;
	case LR_OPT_ALLOW_PROTECTED:
		r = *arg ? add_string(&p->allow_protected, &p->n_allow_protected, arg) : -EINVAL;
		break;
	case LR_OPT_SECRET:
		if (!lr_secret_glob_valid(arg))
			return lr_opt_fail(err, "--secret: '%s' is not a file name or a glob "
						"(*.key, config/*.json, /srv/keys/*)", arg);
		r = lr_policy_add_secret(p, arg);
		break;
	case LR_OPT_UNRESTRICTED_FS:
		p->unrestricted_fs = true;
		break;
	case LR_OPT_CONNECT_TCP:
		r = lr_option_parse_ports(arg, &p->connect_tcp, &p->n_connect_tcp);
		break;
	case LR_OPT_BIND_TCP:
		r = lr_option_parse_ports(arg, &p->bind_tcp, &p->n_bind_tcp);
		break;
	case LR_OPT_ALLOW_DOMAIN: {
		struct lr_dest d, *slot;

		r = lr_egress_parse_dest(arg, &d);
		if (r == -EINVAL)
			return lr_opt_fail(err, "--allow-domain: '%s' is not a host name, *.domain or IP "
						"address with an optional :PORT", arg);
		if (r == 0 && !(slot = lr_array_push(&p->allow_domains, &p->n_allow_domains,
						      sizeof(*slot)))) {
			lr_egress_dest_free(&d);
			r = -ENOMEM;
		} else if (r == 0) {
			*slot = d;
		}
		break;
	}
	case LR_OPT_SECRET_HEADER:
	case LR_OPT_SECRET_HEADER_IF_SET:
	case LR_OPT_ALLOW_REQUEST: {
		const char *why = NULL;
		bool added;

		if (o->id == LR_OPT_SECRET_HEADER)
			r = lr_egress_parse_secret_header(arg, &p->egress_sites, &p->n_egress_sites,
							  &why);
		else if (o->id == LR_OPT_SECRET_HEADER_IF_SET)
			/* the caller's environment, read now, as a policy file's ${VAR} is */
			r = lr_egress_parse_secret_header_if_set(arg, &p->egress_sites,
								 &p->n_egress_sites, getenv, &added,
								 &why);
		else
			r = lr_egress_parse_allow_request(arg, &p->egress_sites, &p->n_egress_sites,
							  &why);
		if (r == -EINVAL)
			/* the value may hold a secret: only its host is repeated */
			return lr_opt_fail(err, "--%s %.*s=...: %s", o->name,
					   (int)(strchrnul(arg, '=') - arg > 100 ? 100
										 : strchrnul(arg, '=') - arg),
					   arg, why);
		r = r ?: intercepted_allowed(p);
		break;
	}
	case LR_OPT_UNIX:
		r = add_grant(p, arg, LR_ACCESS_UNIX, "--unix");
		if (r == 0)
			p->n_unix_paths++;
		break;
	case LR_OPT_UNRESTRICTED_NET:
		p->unrestricted_net = true;
		break;
	case LR_OPT_UNRESTRICTED_SCOPED:
		p->unrestricted_scoped = true;
		break;
	case LR_OPT_DENY_SUBPROCESS:
		p->deny_subprocess = true;
		break;
	case LR_OPT_ALLOW_SYSV_IPC:
		p->allow_sysv_ipc = true;
		break;
	case LR_OPT_USER:
		/* the last one wins, as for --on-unsupported: the command line
		 * over a profile; resolved by main.c (it reads /etc/passwd) */
		if (!*arg)
			return lr_opt_fail(err, "--user: empty");
		free(p->user);
		p->user = strdup(arg);
		r = p->user ? 0 : -ENOMEM;
		break;
	case LR_OPT_PRIVATE_TMP:
		p->private_tmp = true;
		break;
	case LR_OPT_PTY:
		p->pty = true;
		break;
	case LR_OPT_PTY_PASSTHROUGH:
		p->pty_passthrough = true;
		break;
	case LR_OPT_PRIVATE_HOME:
		p->private_home = true;
		break;
	case LR_OPT_ENV:
		r = parse_env(p, arg);
		if (r == -EINVAL)
			return lr_opt_fail(err, "--env: '%.*s' is not a valid variable name",
					   (int)strcspn(arg, "="), arg);
		break;
	case LR_OPT_ENV_PREFIX:
		if (!lr_env_name_valid(arg, strlen(arg)))
			return lr_opt_fail(err, "--env-prefix: '%s' is not a valid variable name prefix",
					   arg);
		r = lr_policy_add_env(p, LR_ENV_PREFIX, arg, NULL);
		break;
	case LR_OPT_ENV_FILE:
		if (p->env_file)
			return lr_opt_fail(err, "--env-file given twice");
		if (!*arg)
			return lr_opt_fail(err, "--env-file: empty path");
		p->env_file = strdup(arg);
		r = p->env_file ? 0 : -ENOMEM;
		break;
	case LR_OPT_KEEP_FD: {
		int fd, *slot;

		if (parse_fd(arg, &fd) < 0)
			return lr_opt_fail(err, "--keep-fd: '%s' is not a file descriptor number", arg);
		slot = lr_array_push(&p->keep_fds, &p->n_keep_fds, sizeof(*slot));
		if (!slot)
			r = -ENOMEM;
		else
			*slot = fd;
		break;
	}
	case LR_OPT_ON_UNSUPPORTED: {
		enum lr_on_unsupported mode;

		if (lr_option_parse_on_unsupported(arg, &mode) < 0)
			return lr_opt_fail(err, "--on-unsupported: '%s' is not one of error, warn, ignore",
					   arg);
		if (src->best_effort && mode != LR_UNSUPPORTED_WARN)
			return lr_opt_fail(err, "--on-unsupported=%s conflicts with --best-effort", arg);
		p->on_unsupported = mode;
		p->on_unsupported_set = src->mode_given = true;
		break;
	}
	case LR_OPT_BEST_EFFORT:
		if (src->mode_given && p->on_unsupported != LR_UNSUPPORTED_WARN)
			return lr_opt_fail(err, "--best-effort conflicts with --on-unsupported (best "
						"effort is 'warn')");
		p->on_unsupported = LR_UNSUPPORTED_WARN;
		p->on_unsupported_set = src->mode_given = src->best_effort = true;
		break;
	case LR_OPT_EXPLAIN:
		if (!arg || strcmp(arg, "text") == 0)
			p->explain = LR_EXPLAIN_TEXT;
		else if (strcmp(arg, "json") == 0)
			p->explain = LR_EXPLAIN_JSON;
		else
			return lr_opt_fail(err, "--explain: '%s' is not one of text, json", arg);
		break;
	case LR_OPT_LOG_LEVEL:
		if (lr_option_parse_log_level(arg, &p->log_level) < 0)
			return lr_opt_fail(err,
					   "--log-level: '%s' is not one of error, notice, info, debug",
					   arg);
		p->log_level_set = true;
		break;
	case LR_OPT_INIT:
		p->init = true;
		break;
	case LR_OPT_DIE_WITH_PARENT:
		p->die_with_parent = true;
		break;
	case LR_OPT_TIMEOUT:
	case LR_OPT_TIMEOUT_GRACE:
		if (lr_option_parse_duration(arg, o->id == LR_OPT_TIMEOUT
							  ? &p->timeout_ms
							  : &p->timeout_grace_ms) < 0)
			return lr_opt_fail(err, "--%s: '%s' is not a duration (a number, then "
						"s, m, h or d: 30, 1.5m)",
					   o->name, arg);
		break;
	case LR_OPT_AUDIT_LOG:
		if (!*arg)
			return lr_opt_fail(err, "--audit-log: empty path");
		free(p->audit_log);
		p->audit_log = strdup(arg);
		r = p->audit_log ? 0 : -ENOMEM;
		break;
	case LR_OPT_REPORT_DENIALS:
		p->report_denials = true;
		break;
	case LR_OPT_LEARN:
		/* the last one wins, as for --audit-log; it reports the denials too */
		if (!*arg)
			return lr_opt_fail(err, "--learn: empty path");
		free(p->learn);
		p->learn = strdup(arg);
		r = p->learn ? 0 : -ENOMEM;
		p->report_denials = true;
		break;
	case LR_OPT_LANDLOCK_AUDIT:
		p->landlock_audit = true;
		break;
	case LR_OPT_RLIMIT_AS:
	case LR_OPT_RLIMIT_CORE:
	case LR_OPT_RLIMIT_CPU:
	case LR_OPT_RLIMIT_FSIZE:
	case LR_OPT_RLIMIT_NOFILE:
	case LR_OPT_RLIMIT_NPROC: {
		_Static_assert(LR_OPT_RLIMIT_NPROC - LR_OPT_RLIMIT_AS ==
				       LR_LIMIT_NPROC - LR_LIMIT_AS,
			       "the --rlimit-* options are in enum lr_limit's order");
		struct lr_limit_setting *l = &p->limits[o->id - LR_OPT_RLIMIT_AS];
		bool size = o->id == LR_OPT_RLIMIT_AS || o->id == LR_OPT_RLIMIT_CORE ||
			    o->id == LR_OPT_RLIMIT_FSIZE;

		if (lr_option_parse_limit(arg, size, &l->value) < 0)
			return lr_opt_fail(err, "--%s: '%s' is not %s or 'unlimited'", o->name, arg,
					   size ? "a size (bytes, or a number then k, m, g or t)"
						: "a number");
		l->set = true;
		break;
	}
	case LR_OPT_HELP:
		return LR_OPT_SHOW_HELP;
	case LR_OPT_VERSION:
		return LR_OPT_SHOW_VERSION;
	default:
		return lr_opt_fail(err, "--%s: not handled here", o->name);
	}
	if (r == -ENOMEM)
		return lr_opt_fail(err, "out of memory");
	if (r < 0)
		return lr_opt_fail(err, "--%s: '%s' is not a valid value", o->name, arg ? arg : "");
	return LR_OPT_RUN;
}
