/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "landrun/cli.h"
#include "landrun/config.h"
#include "landrun/util.h"

const char lr_cli_usage[] =
	"Usage: landrun [OPTIONS] [--] COMMAND [ARGS...]\n"
	"\n"
	"Run COMMAND confined by Landlock and seccomp, with an empty environment.\n"
	"Options stop at the first word that is not an option.\n"
	"\n"
	"Filesystem (repeatable; each takes a comma-separated list of paths):\n"
	"  --ro PATHS                 read files and list directories\n"
	"  --rox PATHS                also execute\n"
	"  --rw PATHS                 read, write, create, remove, rename, link, truncate, ioctl\n"
	"  --rwx PATHS                also execute\n"
	"  --add-exec                 grant execute on the resolved COMMAND\n"
	"  --ldd                      grant COMMAND's ELF interpreter and shared libraries\n"
	"  --ignore-missing           skip granted paths that do not exist (in a policy\n"
	"                             file: that file's own grants)\n"
	"  --mkdir PATHS              create these directories (0700) if missing, first\n"
	"  --allow-dotenv FILE        accept that a grant exposes this .env file\n"
	"  --unrestricted-filesystem  no filesystem restrictions\n"
	"\n"
	"Environment (the command starts with none):\n"
	"  --env NAME                 pass NAME from the caller or from --env-file\n"
	"  --env NAME=VALUE           set NAME to VALUE\n"
	"  --env-prefix PREFIX        pass every variable whose name starts with PREFIX\n"
	"  --env-file FILE            read a dotenv file as a source for --env and --env-prefix\n"
	"\n"
	"Network (default: no sockets but AF_UNIX pairs; see the README):\n"
	"  --connect-tcp PORTS        allow TCP connections to these ports (80,443,8000-8100)\n"
	"  --bind-tcp PORTS           allow binding (and listening on) these TCP ports\n"
	"  --unix PATH                allow connecting to this UNIX socket (Landlock ABI 9+)\n"
	"  --unrestricted-network     no network restrictions\n"
	"  --unrestricted-scoped      may signal, and reach abstract UNIX sockets, outside\n"
	"\n"
	"Process:\n"
	"  --keep-fd N                keep file descriptor N open (0, 1, 2 always are)\n"
	"  --deny-subprocess          the command can create no new process (threads work)\n"
	"\n"
	"Kernel support:\n"
	"  --on-unsupported=MODE      error: refuse if a protection cannot be enforced;\n"
	"                             warn (default): say what is lost, then run; ignore\n"
	"  --best-effort              same as --on-unsupported=warn\n"
	"  --explain[=json]           print what will be enforced on this kernel; run nothing\n"
	"\n"
	"Policy files:\n"
	"  --config FILE              read settings from FILE (keys are these long options)\n"
	"  --profile NAME             load a shipped or user profile (see the README)\n"
	"\n"
	"Other:\n"
	"  --log-level LEVEL          error (default), info or debug\n"
	"  --help                     show this help\n"
	"  --version                  show the version\n"
	"\n"
	"Environment of landrun: LANDRUN_ON_UNSUPPORTED sets the default --on-unsupported,\n"
	"LANDRUN_LOG_LEVEL the default --log-level.\n"
	"\n"
	"Exit status: 125 landrun failed (bad flag, bad file, refused policy), 126 COMMAND\n"
	"could not be executed, 127 COMMAND not found; otherwise COMMAND's own status.\n";

/* Long-only options, alphabetical. */
enum {
	OPT_ADD_EXEC = 0x100,
	OPT_ALLOW_DOTENV,
	OPT_BEST_EFFORT,
	OPT_BIND_TCP,
	OPT_CONFIG,
	OPT_CONNECT_TCP,
	OPT_DENY_SUBPROCESS,
	OPT_ENV,
	OPT_ENV_FILE,
	OPT_ENV_PREFIX,
	OPT_EXPLAIN,
	OPT_HELP,
	OPT_IGNORE_MISSING,
	OPT_KEEP_FD,
	OPT_LDD,
	OPT_LOG_LEVEL,
	OPT_MKDIR,
	OPT_ON_UNSUPPORTED,
	OPT_PROFILE,
	OPT_RO,
	OPT_ROX,
	OPT_RW,
	OPT_RWX,
	OPT_UNIX,
	OPT_UNRESTRICTED_FS,
	OPT_UNRESTRICTED_NET,
	OPT_UNRESTRICTED_SCOPED,
	OPT_VERSION,
};

static const struct option options[] = {
	{ "add-exec", no_argument, NULL, OPT_ADD_EXEC },
	{ "allow-dotenv", required_argument, NULL, OPT_ALLOW_DOTENV },
	{ "best-effort", no_argument, NULL, OPT_BEST_EFFORT },
	{ "bind-tcp", required_argument, NULL, OPT_BIND_TCP },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "connect-tcp", required_argument, NULL, OPT_CONNECT_TCP },
	{ "deny-subprocess", no_argument, NULL, OPT_DENY_SUBPROCESS },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "env-file", required_argument, NULL, OPT_ENV_FILE },
	{ "env-prefix", required_argument, NULL, OPT_ENV_PREFIX },
	{ "explain", optional_argument, NULL, OPT_EXPLAIN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "ignore-missing", no_argument, NULL, OPT_IGNORE_MISSING },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "mkdir", required_argument, NULL, OPT_MKDIR },
	{ "on-unsupported", required_argument, NULL, OPT_ON_UNSUPPORTED },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "rox", required_argument, NULL, OPT_ROX },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "rwx", required_argument, NULL, OPT_RWX },
	{ "unix", required_argument, NULL, OPT_UNIX },
	{ "unrestricted-filesystem", no_argument, NULL, OPT_UNRESTRICTED_FS },
	{ "unrestricted-network", no_argument, NULL, OPT_UNRESTRICTED_NET },
	{ "unrestricted-scoped", no_argument, NULL, OPT_UNRESTRICTED_SCOPED },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

enum lr_cli_result lr_cli_fail(struct lr_cli_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return LR_CLI_ERROR;
}

static const char *option_name(int opt)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* Split a comma-separated LIST into OUT; an empty item ("a,,b", a trailing
 * comma) is a typo, not a path: -EINVAL. */
static int split_list(const char *list, struct lr_strlist *out)
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

static int add_grants(struct lr_policy *p, const char *list, unsigned access, const char *flag)
{
	struct lr_strlist items = { 0 };
	int r = split_list(list, &items);

	for (size_t i = 0; r == 0 && i < items.n; i++)
		r = lr_policy_add_grant(p, items.v[i], access, flag);
	lr_strlist_free(&items);
	return r;
}

static int add_list(char ***v, size_t *n, const char *list)
{
	struct lr_strlist items = { 0 };
	int r = split_list(list, &items);

	for (size_t i = 0; r == 0 && i < items.n; i++)
		r = add_string(v, n, items.v[i]);
	lr_strlist_free(&items);
	return r;
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

int lr_cli_parse_ports(const char *s, struct lr_port_range **ranges, size_t *n)
{
	struct lr_strlist items = { 0 };
	int r = split_list(s, &items);

	for (size_t i = 0; r == 0 && i < items.n; i++) {
		const char *item = items.v[i], *end = item + strlen(item);
		const char *dash = strchr(item, '-');
		struct lr_port_range range, *slot;

		if (parse_port(item, dash ? dash : end, &range.first) < 0 ||
		    (dash && parse_port(dash + 1, end, &range.last) < 0)) {
			r = -EINVAL;
			break;
		}
		if (!dash)
			range.last = range.first;
		if (range.last < range.first) {
			r = -EINVAL;
			break;
		}
		slot = lr_array_push(ranges, n, sizeof(*slot));
		if (!slot)
			r = -ENOMEM;
		else
			*slot = range;
	}
	lr_strlist_free(&items);
	return r;
}

int lr_cli_parse_on_unsupported(const char *s, enum lr_on_unsupported *mode)
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

int lr_cli_parse_log_level(const char *s, enum lr_log_level *level)
{
	if (strcmp(s, "error") == 0)
		*level = LR_LOG_ERROR;
	else if (strcmp(s, "info") == 0)
		*level = LR_LOG_INFO;
	else if (strcmp(s, "debug") == 0)
		*level = LR_LOG_DEBUG;
	else
		return -EINVAL;
	return 0;
}

static int parse_env(struct lr_policy *p, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq)
		return lr_env_name_valid(arg, strlen(arg)) ? lr_policy_add_env(p, LR_ENV_NAME, arg, NULL)
							   : -EINVAL;
	if (!lr_env_name_valid(arg, (size_t)(eq - arg)))
		return -EINVAL;
	{
		_cleanup_free_ char *name = strndup(arg, (size_t)(eq - arg));

		if (!name)
			return -ENOMEM;
		return lr_policy_add_env(p, LR_ENV_SET, name, eq + 1);
	}
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


static enum lr_cli_result check_conflicts(const struct lr_policy *p, struct lr_cli_error *err)
{
	if (p->unrestricted_net && (p->n_connect_tcp || p->n_bind_tcp || p->n_unix_paths))
		return lr_cli_fail(err, "--%s conflicts with --unrestricted-network",
			    p->n_connect_tcp ? "connect-tcp" : p->n_bind_tcp ? "bind-tcp" : "unix");
	if (p->unrestricted_fs) {
		for (size_t i = 0; i < p->n_grants; i++)
			if (p->grants[i].access != LR_ACCESS_UNIX)
				return lr_cli_fail(err, "%s %s conflicts with --unrestricted-filesystem",
					    p->grants[i].flag, p->grants[i].path);
		if (p->add_exec || p->ldd)
			return lr_cli_fail(err, "--%s conflicts with --unrestricted-filesystem",
				    p->add_exec ? "add-exec" : "ldd");
	}
	if (!p->argv[0] && p->explain == LR_EXPLAIN_NONE)
		return lr_cli_fail(err, "missing COMMAND (see --help)");
	return LR_CLI_RUN;
}

/* One option with its value (NULL for a flag), from argv or a policy file. */
static enum lr_cli_result apply(struct lr_policy *p, int opt, const char *arg,
				struct lr_cli_source *src, struct lr_cli_error *err)
{
	const char *name = option_name(opt);
	int r = 0;

	switch (opt) {
	case OPT_RO:
		r = add_grants(p, arg, LR_ACCESS_RO, "--ro");
		break;
	case OPT_ROX:
		r = add_grants(p, arg, LR_ACCESS_RO | LR_ACCESS_X, "--rox");
		break;
	case OPT_RW:
		r = add_grants(p, arg, LR_ACCESS_RO | LR_ACCESS_RW, "--rw");
		break;
	case OPT_RWX:
		r = add_grants(p, arg, LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, "--rwx");
		break;
	case OPT_ADD_EXEC:
		p->add_exec = true;
		break;
	case OPT_LDD:
		p->ldd = true;
		break;
	case OPT_IGNORE_MISSING:
		src->ignore_missing = true;
		if (src->depth == 0)
			p->ignore_missing = true;
		break;
	case OPT_MKDIR:
		r = add_list(&p->mkdirs, &p->n_mkdirs, arg);
		break;
	case OPT_ALLOW_DOTENV:
		r = *arg ? add_string(&p->allow_dotenv, &p->n_allow_dotenv, arg) : -EINVAL;
		break;
	case OPT_UNRESTRICTED_FS:
		p->unrestricted_fs = true;
		break;
	case OPT_CONNECT_TCP:
		r = lr_cli_parse_ports(arg, &p->connect_tcp, &p->n_connect_tcp);
		break;
	case OPT_BIND_TCP:
		r = lr_cli_parse_ports(arg, &p->bind_tcp, &p->n_bind_tcp);
		break;
	case OPT_UNIX:
		r = *arg ? lr_policy_add_grant(p, arg, LR_ACCESS_UNIX, "--unix") : -EINVAL;
		if (r == 0)
			p->n_unix_paths++;
		break;
	case OPT_UNRESTRICTED_NET:
		p->unrestricted_net = true;
		break;
	case OPT_UNRESTRICTED_SCOPED:
		p->unrestricted_scoped = true;
		break;
	case OPT_DENY_SUBPROCESS:
		p->deny_subprocess = true;
		break;
	case OPT_ENV:
		r = parse_env(p, arg);
		if (r == -EINVAL)
			return lr_cli_fail(err, "--env: '%.*s' is not a valid variable name",
				    (int)strcspn(arg, "="), arg);
		break;
	case OPT_ENV_PREFIX:
		if (!lr_env_name_valid(arg, strlen(arg)))
			return lr_cli_fail(err, "--env-prefix: '%s' is not a valid variable name prefix", arg);
		r = lr_policy_add_env(p, LR_ENV_PREFIX, arg, NULL);
		break;
	case OPT_ENV_FILE:
		if (p->env_file)
			return lr_cli_fail(err, "--env-file given twice");
		if (!*arg)
			return lr_cli_fail(err, "--env-file: empty path");
		p->env_file = strdup(arg);
		r = p->env_file ? 0 : -ENOMEM;
		break;
	case OPT_KEEP_FD: {
		int fd, *slot;

		if (parse_fd(arg, &fd) < 0)
			return lr_cli_fail(err, "--keep-fd: '%s' is not a file descriptor number", arg);
		slot = lr_array_push(&p->keep_fds, &p->n_keep_fds, sizeof(*slot));
		if (!slot)
			r = -ENOMEM;
		else
			*slot = fd;
		break;
	}
	case OPT_ON_UNSUPPORTED: {
		enum lr_on_unsupported mode;

		if (lr_cli_parse_on_unsupported(arg, &mode) < 0)
			return lr_cli_fail(err, "--on-unsupported: '%s' is not one of error, warn, ignore", arg);
		if (src->best_effort && mode != LR_UNSUPPORTED_WARN)
			return lr_cli_fail(err, "--on-unsupported=%s conflicts with --best-effort", arg);
		p->on_unsupported = mode;
		p->on_unsupported_set = src->mode_given = true;
		break;
	}
	case OPT_BEST_EFFORT:
		if (src->mode_given && p->on_unsupported != LR_UNSUPPORTED_WARN)
			return lr_cli_fail(err, "--best-effort conflicts with --on-unsupported (best effort is 'warn')");
		p->on_unsupported = LR_UNSUPPORTED_WARN;
		p->on_unsupported_set = src->mode_given = src->best_effort = true;
		break;
	case OPT_EXPLAIN:
		if (!arg || strcmp(arg, "text") == 0)
			p->explain = LR_EXPLAIN_TEXT;
		else if (strcmp(arg, "json") == 0)
			p->explain = LR_EXPLAIN_JSON;
		else
			return lr_cli_fail(err, "--explain: '%s' is not one of text, json", arg);
		break;
	case OPT_LOG_LEVEL:
		if (lr_cli_parse_log_level(arg, &p->log_level) < 0)
			return lr_cli_fail(err, "--log-level: '%s' is not one of error, info, debug", arg);
		p->log_level_set = true;
		break;
	case OPT_CONFIG:
		r = lr_config_load_file(arg, p, src->depth + 1, err);
		if (r == LR_CONFIG_ERR_OPEN) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			return lr_cli_fail(err, "--config %s", msg);
		}
		return r < 0 ? LR_CLI_ERROR : LR_CLI_RUN;
	case OPT_PROFILE:
		r = lr_config_load_profile(arg, NULL, p, src->depth + 1, err);
		if (r == LR_CONFIG_ERR_OPEN) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			return lr_cli_fail(err, "--profile: %s", msg);
		}
		return r < 0 ? LR_CLI_ERROR : LR_CLI_RUN;
	case OPT_HELP:
		return LR_CLI_HELP;
	case OPT_VERSION:
		return LR_CLI_VERSION;
	default:
		return lr_cli_fail(err, "--%s: not handled", name);
	}
	if (r == -ENOMEM)
		return lr_cli_fail(err, "out of memory");
	if (r < 0)
		return lr_cli_fail(err, "--%s: '%s' is not a valid value", name, arg ? arg : "");
	return LR_CLI_RUN;
}

enum lr_cli_result lr_cli_apply_named(struct lr_policy *p, const char *name, const char *value,
				      struct lr_cli_source *src, struct lr_cli_error *err)
{
	for (const struct option *o = options; o->name; o++) {
		if (strcmp(o->name, name) != 0)
			continue;
		if (o->val == OPT_HELP || o->val == OPT_VERSION || o->val == OPT_EXPLAIN)
			return lr_cli_fail(err, "'%s' is not a policy setting", name);
		if (o->has_arg != no_argument)
			return apply(p, o->val, value, src, err);
		/* a flag: true or false */
		if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1"))
			return apply(p, o->val, NULL, src, err);
		if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
			return LR_CLI_RUN;
		return lr_cli_fail(err, "%s: '%s' is not one of true, false", name, value);
	}
	return lr_cli_fail(err, "unknown setting '%s'", name);
}

/*
 * getopt_long takes any unambiguous prefix of a long option.  A security
 * tool should not guess what "--ign" meant: every long option must be
 * spelled out.  Walks argv the way getopt will, up to the first non-option.
 */
static enum lr_cli_result check_spelling(int argc, char **argv, struct lr_cli_error *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;
		size_t len;

		if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0')
			return LR_CLI_RUN;
		if (a[1] != '-')
			continue; /* short options: getopt reports them itself */
		len = strcspn(a + 2, "=");
		for (o = options; o->name; o++)
			if (strlen(o->name) == len && strncmp(o->name, a + 2, len) == 0)
				break;
		if (!o->name)
			return lr_cli_fail(err, "%.*s: unknown option (see --help)", (int)len + 2, a);
		if (o->has_arg == required_argument && !a[2 + len])
			i++; /* its value is the next word */
	}
	return LR_CLI_RUN;
}

enum lr_cli_result lr_cli_parse(int argc, char **argv, struct lr_policy *p,
				struct lr_cli_error *err)
{
	struct lr_cli_source src = { 0 };
	enum lr_cli_result r;
	int opt;

	err->msg[0] = '\0';
	r = check_spelling(argc, argv, err);
	if (r != LR_CLI_RUN)
		return r;
	opterr = 0;
	/*
	 * Two passes: policy files first, so that the command line adds to
	 * them and its settings win.  optind = 0 resets getopt fully.
	 */
	for (int pass = 0; pass < 2; pass++) {
		optind = 0;
		while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
			bool file = opt == OPT_CONFIG || opt == OPT_PROFILE;

			if (opt == ':')
				return lr_cli_fail(err, "%s: missing value (see --help)", argv[optind - 1]);
			if (opt == '?') {
				if (optopt >= 0x100)
					return lr_cli_fail(err, "--%s: takes no value (see --help)",
						    option_name(optopt));
				if (optopt)
					return lr_cli_fail(err, "-%c: unknown option (see --help)", optopt);
				return lr_cli_fail(err, "%s: unknown option (see --help)", argv[optind - 1]);
			}
			if (opt == 'h')
				opt = OPT_HELP;
			if (pass == 0 ? !file && opt != OPT_HELP && opt != OPT_VERSION : file)
				continue;
			r = apply(p, opt, optarg, &src, err);
			if (r != LR_CLI_RUN)
				return r;
		}
		/* the files' own on-unsupported does not conflict with the command line's */
		src.mode_given = src.best_effort = false;
	}
	if (src.ignore_missing)
		lr_policy_grants_optional(p, 0);
	p->argv = argv + optind;
	return check_conflicts(p, err);
}
