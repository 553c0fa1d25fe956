/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "landrun/lib/error.h"
#include "landrun/policy/config.h"
#include "landrun/policy/options.h"

/* ---------------------------------------------------------------- expansion */

static int expand_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int expand_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_verrf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Expand from *P up to the end, or up to the '}' that closes a default
 * when IN_DEFAULT (consumed).  Appends to OUT unless SKIP (an unused default
 * is still parsed, so that its errors show, but not evaluated).
 */
static int expand_part(const char **p, bool in_default, bool skip, struct lr_buf *out, char *err,
		       size_t errlen)
{
	bool item_start = true;
	int r = 0;

	while (**p && r == 0) {
		const char *c = *p;

		if (in_default && *c == '}') {
			(*p)++;
			return 0;
		}
		if (*c == '~' && item_start && (c[1] == '/' || c[1] == ',' || c[1] == '\0' ||
						 (in_default && c[1] == '}'))) {
			const char *home = getenv("HOME");

			if (!home || !*home)
				return expand_error(err, errlen, "~ needs HOME, which is not set");
			r = skip ? 0 : lr_buf_add(out, home, strlen(home));
			(*p)++;
		} else if (c[0] == '$' && c[1] == '{') {
			const char *name = c + 2, *end = name;
			_cleanup_free_ char *var = NULL;
			const char *value;

			while ((*end >= 'A' && *end <= 'Z') || (*end >= 'a' && *end <= 'z') ||
			       *end == '_' || (end > name && *end >= '0' && *end <= '9'))
				end++;
			if (end == name)
				return expand_error(err, errlen, "'${' must be followed by a variable name");
			var = strndup(name, (size_t)(end - name));
			if (!var)
				return -ENOMEM;
			value = getenv(var);
			if (end[0] == '}') {
				if (!value && !skip)
					return expand_error(err, errlen,
							    "${%s} is not set (give a default: ${%s:-...})",
							    var, var);
				*p = end + 1;
				r = skip ? 0 : lr_buf_add(out, value, strlen(value));
			} else if (end[0] == ':' && end[1] == '-') {
				bool use_default = !value || !*value;

				*p = end + 2;
				if (!skip && !use_default)
					r = lr_buf_add(out, value, strlen(value));
				if (r == 0)
					r = expand_part(p, true, skip || !use_default, out, err, errlen);
			} else {
				return expand_error(err, errlen, "${%s must end with '}' or use ':-'", var);
			}
			item_start = false;
			continue;
		} else {
			r = skip ? 0 : lr_buf_add(out, c, 1);
			(*p)++;
		}
		item_start = *c == ',';
	}
	if (r == 0 && in_default)
		return expand_error(err, errlen, "unterminated ${...:-default}");
	return r;
}

int lr_config_expand(const char *in, char **out, char *err, size_t errlen)
{
	struct lr_buf b = { 0 };
	const char *p = in;
	int r;

	r = lr_buf_add(&b, "", 0);
	if (r == 0)
		r = expand_part(&p, false, false, &b, err, errlen);
	if (r < 0) {
		if (r == -ENOMEM)
			lr_errf(err, errlen, "out of memory");
		free(b.s);
		return r;
	}
	*out = b.s;
	return 0;
}

/* ---------------------------------------------------------------- files */

/* The files being loaded, outermost first: an include of one of them is a cycle. */
static struct lr_strlist loading;

struct file_state {
	const char *path;
	FILE *f;
	int line;			/* the line being read */
	char *buf;			/* it (getline) */
	size_t cap, len, pos;		/* pos: what libinih took of it */
	char bad[128];			/* what the reader refused in it, or "" */
	int read_errno;
	char origin[PATH_MAX + 16];	/* "PATH:LINE", stamped on the grants */
	char *dir;			/* for relative paths and includes */
	struct lr_policy *policy;
	struct lr_opt_source src;
	struct lr_opt_error *err;
	bool nested_error;		/* ERR already names its own FILE:LINE */
	bool failed;
};

/* An include's result: an error inside the included file names its own
 * FILE:LINE; one at the include itself (not found, a cycle) gets ours. */
static int included(struct file_state *st, int r)
{
	st->failed = r < 0;
	st->nested_error = r == LR_CONFIG_ERR_INSIDE;
	return r == 0;
}

/* One value (a whole value, or one item of a list) as the option takes it:
 * expanded, and a relative path made the file's.  LR_OPT_RUN or LR_OPT_ERROR. */
static int setting_value(struct file_state *st, const char *name, unsigned flags,
			 const char *raw, char **out)
{
	char why[LR_ERR_MAX];

	/* expanded later by landrun itself, which reads the secret then */
	if (flags & LR_OPTF_RAW) {
		*out = strdup(raw);
		if (!*out)
			lr_opt_fail(st->err, "out of memory");
		return *out ? LR_OPT_RUN : LR_OPT_ERROR;
	}
	if (lr_config_expand(raw, out, why, sizeof(why)) < 0) {
		lr_opt_fail(st->err, "%s: %s", name, why);
		return LR_OPT_ERROR;
	}
	if ((flags & LR_OPTF_PATH) && **out && **out != '/') {
		char *abs;

		if (asprintf(&abs, "%s/%s", st->dir, *out) < 0) {
			lr_opt_fail(st->err, "out of memory");
			return LR_OPT_ERROR;
		}
		free(*out);
		*out = abs;
	}
	return LR_OPT_RUN;
}

/* A list is split before expansion: whatever ${VAR} holds, commas
 * included, stays one item. */
static int apply_setting(struct file_state *st, const struct lr_option *o, const char *raw)
{
	struct lr_strlist items = { 0 };
	int r = LR_OPT_RUN;

	if (!(o->flags & LR_OPTF_LIST)) {
		if (lr_strlist_add(&items, raw) < 0)
			r = lr_opt_fail(st->err, "out of memory");
	} else {
		int e = lr_option_split(raw, &items);

		if (e == -ENOMEM)
			r = lr_opt_fail(st->err, "out of memory");
		else if (e < 0)
			r = lr_opt_fail(st->err, "%s: '%s' has an empty item", o->name, raw);
	}
	for (size_t i = 0; r == LR_OPT_RUN && i < items.n; i++) {
		_cleanup_free_ char *value = NULL;

		r = setting_value(st, o->name, o->flags, items.v[i], &value);
		if (r == LR_OPT_RUN)
			r = lr_option_apply(st->policy, o, value, &st->src, st->err);
	}
	lr_strlist_free(&items);
	return r;
}

/* A flag's value: 1 true, 0 false, or LR_OPT_ERROR. */
static int flag_value(struct file_state *st, const char *name, const char *value)
{
	if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1"))
		return 1;
	if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
		return 0;
	return lr_opt_fail(st->err, "%s: '%s' is not one of true, false", name, value);
}

/* include = NAME-or-FILE, config = FILE, profile = NAME */
static int read_file(struct file_state *st, const char *name, unsigned flags, const char *raw)
{
	_cleanup_free_ char *value = NULL;
	int r;

	if (setting_value(st, name, flags, raw, &value) != LR_OPT_RUN)
		return 0;
	if (strcmp(name, "config") == 0)
		r = lr_config_load_file(value, st->policy, st->src.depth + 1, st->err);
	else /* include may also name a file, relative to this one; profile only a name */
		r = lr_config_load_profile(value, strcmp(name, "include") ? NULL : st->dir,
					   st->policy, st->src.depth + 1, st->err);
	return included(st, r);
}

/* LINE's problem for a policy file (lr_config_line_problem). */
bool lr_config_line_problem(const char *line, size_t len, char *why, size_t whylen)
{
	const unsigned char *s = (const unsigned char *)line;

	if (len > LR_CONFIG_MAX_LINE) {
		lr_errf(why, whylen, "a line longer than %d bytes", LR_CONFIG_MAX_LINE);
		return true;
	}
	for (size_t i = 0; i < len; i++) {
		size_t n;

		if (s[i] == '\0') {
			lr_errf(why, whylen, "a NUL byte at column %zu", i + 1);
			return true;
		}
		if ((s[i] < 0x20 && s[i] != '\t' && !(s[i] == '\r' && i + 1 == len)) ||
		    s[i] == 0x7f) {
			lr_errf(why, whylen, "a control byte (\\x%02x) at column %zu", s[i], i + 1);
			return true;
		}
		if (s[i] >= 0x80 && (n = lr_utf8_len(s + i, len - i)) && lr_utf8_hidden(s + i, n)) {
			lr_errf(why, whylen,
				"a control character or a bidirectional override "
				"(UTF-8 \\x%02x\\x%02x...) at column %zu",
				s[i], s[i + 1], i + 1);
			return true;
		}
	}
	return false;
}

/* The reader's settings, the same for every file and line. */
static void strict_inih(void)
{
	/* strict: stop at the first error, no continuation lines, long lines
	 * (the reader refuses a longer one before libinih would cut it) */
	ini_stop_on_first_error = true;
	ini_allow_multiline = false;
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = LR_CONFIG_MAX_LINE + 2;
	ini_inline_comment_prefixes = "#;";
}

/*
 * libinih's reader: whole lines (in pieces of what libinih's buffer takes),
 * counted, so that a setting knows its FILE:LINE (libinih hands the handler
 * a whole line before it reads the next).  A line a policy file cannot hold
 * as it shows it ends the reading, and the file is refused (st->bad).
 */
static char *read_line(char *str, int num, void *stream)
{
	struct file_state *st = stream;
	size_t n;

	if (st->pos == st->len) {
		ssize_t got;

		errno = 0;
		got = getline(&st->buf, &st->cap, st->f);
		if (got <= 0) {
			st->read_errno = ferror(st->f) ? (errno ? errno : EIO) : 0;
			return NULL;
		}
		st->line++;
		st->pos = 0;
		st->len = (size_t)got;
		if (lr_config_line_problem(st->buf, st->len - (st->buf[got - 1] == '\n'), st->bad,
					   sizeof(st->bad))) {
			st->len = 0;
			return NULL;
		}
	}
	if (num < 2)
		return NULL;
	n = st->len - st->pos;
	if (n > (size_t)num - 1)
		n = (size_t)num - 1;
	memcpy(str, st->buf + st->pos, n);
	str[n] = '\0';
	st->pos += n;
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *raw)
{
	struct file_state *st = user;
	const struct lr_option *o;
	int r;

	if (st->failed)
		return 0;
	st->failed = true;
	snprintf(st->origin, sizeof(st->origin), "%s:%d", st->path, st->line);
	st->policy->origin = st->origin;
	if (section && *section) {
		lr_opt_fail(st->err, "sections are not used ([%s])", section);
		return 0;
	}
	if (strcmp(name, "include") == 0)
		return read_file(st, name, 0, raw);
	o = lr_option_find(name, strlen(name));
	if (!o) {
		lr_opt_fail(st->err, "unknown setting '%s'", name);
		return 0;
	}
	if (o->flags & LR_OPTF_CLI) {
		lr_opt_fail(st->err, "'%s' is not a policy setting", name);
		return 0;
	}
	if (o->flags & LR_OPTF_FILE)
		return read_file(st, name, o->flags, raw);
	if (o->arg == LR_ARG_NONE) {
		r = flag_value(st, name, raw);
		if (r == 1)
			r = lr_option_apply(st->policy, o, NULL, &st->src, st->err);
	} else {
		r = apply_setting(st, o, raw);
	}
	st->failed = r != LR_OPT_RUN;
	return !st->failed;
}

int lr_config_load_file(const char *path, struct lr_policy *policy, int depth,
			struct lr_opt_error *err)
{
	struct file_state st = { .path = path, .policy = policy, .err = err };
	const char *outer_origin = policy->origin;
	_cleanup_free_ char *real = NULL, *copy = NULL;
	char msg[sizeof(err->msg)];
	unsigned outer_source;
	struct stat fst;
	FILE *f;
	int fd, line;

	if (depth > LR_CONFIG_MAX_DEPTH) {
		lr_opt_fail(err, "%s: policy files nested more than %d deep", path,
			  LR_CONFIG_MAX_DEPTH);
		return LR_CONFIG_ERR_OPEN;
	}
	fd = lr_open_regular(path, &fst);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f || !(real = realpath(path, NULL))) {
		lr_opt_fail(err, "%s: %s", path, lr_open_strerror(fd < 0 ? fd : -errno));
		if (fd >= 0 && !f)
			close(fd);
		if (f)
			fclose(f);
		return LR_CONFIG_ERR_OPEN;
	}
	if (lr_strlist_contains(&loading, real)) {
		lr_opt_fail(err, "%s is already being read (an include cycle)", path);
		fclose(f);
		return LR_CONFIG_ERR_OPEN;
	}
	copy = strdup(real);
	if (!copy || lr_strlist_add(&loading, real) < 0) {
		lr_opt_fail(err, "out of memory");
		fclose(f);
		return LR_CONFIG_ERR_OPEN;
	}
	st.dir = dirname(copy);
	st.src.depth = depth;
	outer_source = policy->source;
	policy->source = ++policy->n_sources;

	strict_inih();
	err->msg[0] = '\0';
	st.f = f;
	line = ini_parse_stream(read_line, &st, handler, &st);
	fclose(f);
	free(st.buf);
	if (line == 0 && st.bad[0]) {
		lr_opt_fail(err, "%s:%d: %s: a policy file must show what it means", path, st.line,
			    st.bad);
		line = -3;
	} else if (line == 0 && st.read_errno) {
		errno = st.read_errno;
		line = -1;
	}
	policy->origin = outer_origin;
	if (st.src.ignore_missing)
		lr_policy_grants_optional(policy, policy->source);
	policy->source = outer_source;
	free(loading.v[--loading.n]);
	loading.v[loading.n] = NULL;

	if (line == 0)
		return 0;
	if (line == -3)
		return LR_CONFIG_ERR_INSIDE;
	if (st.nested_error)
		return LR_CONFIG_ERR_INSIDE;
	if (line < 0) {
		lr_opt_fail(err, "%s: %s", path, line == -2 ? "out of memory" : strerror(errno));
		return LR_CONFIG_ERR_OPEN;
	}
	snprintf(msg, sizeof(msg), "%s", err->msg[0] ? err->msg : "expected 'name = value'");
	lr_opt_fail(err, "%s:%d: %s", path, line, msg);
	return LR_CONFIG_ERR_INSIDE;
}

/* One line, as the reader takes it (lr_config_parse_line). */
struct one_line {
	char *name, *value;
	int r;
};

static int one_line_handler(void *user, const char *section, const char *name, const char *value)
{
	struct one_line *o = user;

	if ((section && *section) || o->name) {
		o->r = -1;
		return 0;
	}
	o->name = strdup(name);
	o->value = strdup(value);
	o->r = o->name && o->value ? 1 : -ENOMEM;
	return o->r == 1;
}

int lr_config_parse_line(const char *line, char **name, char **value)
{
	struct one_line o = { NULL, NULL, 0 };
	char why[128];
	int r;

	*name = *value = NULL;
	if (strchr(line, '\n') || lr_config_line_problem(line, strlen(line), why, sizeof(why)) ||
	    line[strspn(line, " \t")] == '[')
		return -1;
	strict_inih();
	r = ini_parse_string(line, one_line_handler, &o);
	if (r != 0 && o.r == 0)
		o.r = r == -2 ? -ENOMEM : -1;
	if (o.r != 1) {
		free(o.name);
		free(o.value);
		return o.r;
	}
	*name = o.name;
	*value = o.value;
	return 1;
}

/* ---------------------------------------------------------------- profiles */

/* Is this landrun the one in the build tree?  Then the source tree's profiles count. */
static bool running_from_build_dir(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	return strcmp(dirname(self), LR_BUILD_DIR) == 0;
}

int lr_config_profile_dirs(struct lr_strlist *dirs)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *s = NULL;
	int r = 0;

	if (xdg && *xdg == '/')
		r = asprintf(&s, "%s/landrun/profiles", xdg) < 0 ? -ENOMEM : lr_strlist_take(dirs, s);
	else if (home && *home == '/')
		r = asprintf(&s, "%s/.config/landrun/profiles", home) < 0 ? -ENOMEM
									 : lr_strlist_take(dirs, s);
	if (r == 0)
		r = lr_strlist_add(dirs, "/etc/landrun/profiles");
	if (r == 0)
		r = lr_strlist_add(dirs, LR_DATADIR "/profiles");
	if (r == 0 && running_from_build_dir())
		r = lr_strlist_add(dirs, LR_SOURCE_DIR "/profiles");
	return r;
}

static bool profile_name_valid(const char *name)
{
	if (!*name || name[0] == '.')
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			return false;
	return true;
}

/* The profile names in DIRS, once each, sorted: "base, codex, ..." */
static void available_profiles(const struct lr_strlist *dirs, char *out, size_t len)
{
	struct lr_strlist names = { 0 };
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < dirs->n; i++) {
		DIR *d = opendir(dirs->v[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);
			char *name;

			if (n <= 5 || strcmp(de->d_name + n - 5, ".conf") != 0)
				continue;
			name = strndup(de->d_name, n - 5);
			if (name && profile_name_valid(name) && !lr_strlist_contains(&names, name))
				lr_strlist_take(&names, name);
			else
				free(name);
		}
		if (d)
			closedir(d);
	}
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), lr_strcmp_p);
	for (size_t i = 0; i < names.n && used < len; i++) {
		int w = snprintf(out + used, len - used, "%s%s", i ? ", " : "", names.v[i]);

		if (w > 0)
			used += (size_t)w;
	}
	if (!names.n)
		snprintf(out, len, "none");
	lr_strlist_free(&names);
}

int lr_config_load_profile(const char *name, const char *included_from, struct lr_policy *policy,
			   int depth, struct lr_opt_error *err)
{
	struct lr_strlist dirs = { 0 };
	char tried[256] = "";
	int r = LR_CONFIG_ERR_OPEN;

	/* "include = ./local.conf" or an absolute path: a file, not a name */
	if (strchr(name, '/') && included_from) {
		_cleanup_free_ char *path = NULL;

		if (name[0] != '/' && included_from) {
			while (name[0] == '.' && name[1] == '/')
				name += 2;
			if (asprintf(&path, "%s/%s", included_from, name) < 0) {
				lr_opt_fail(err, "out of memory");
				return LR_CONFIG_ERR_OPEN;
			}
		}
		return lr_config_load_file(path ? path : name, policy, depth, err);
	}
	if (!profile_name_valid(name)) {
		lr_opt_fail(err, "profile '%s': not a valid name (a file is read with --config)", name);
		return LR_CONFIG_ERR_OPEN;
	}
	if (lr_config_profile_dirs(&dirs) < 0) {
		lr_opt_fail(err, "out of memory");
		return LR_CONFIG_ERR_OPEN;
	}
	for (size_t i = 0; i < dirs.n; i++) {
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "%s/%s.conf", dirs.v[i], name) < 0) {
			lr_opt_fail(err, "out of memory");
			goto out;
		}
		if (access(path, F_OK) == 0) {
			r = lr_config_load_file(path, policy, depth, err);
			goto out;
		}
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s", i ? ", " : "",
			 dirs.v[i]);
	}
	{
		char names[256];

		available_profiles(&dirs, names, sizeof(names));
		lr_opt_fail(err, "profile '%s': not found in %s (available: %s)", name, tried, names);
	}
out:
	lr_strlist_free(&dirs);
	return r;
}
