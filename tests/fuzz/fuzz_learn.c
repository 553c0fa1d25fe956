/* SPDX-License-Identifier: MIT */
/*
 * The --learn file round trip (learn.c, read back with config.c).  The
 * input is split at NUL bytes: the first part is the file as it was, each
 * other part one denial (its first byte the operation and the port, the
 * rest the path the command named; a 0x01 byte in a rename's path starts its
 * new name).  The file is merged twice with the denials, and each time,
 * read back with the project's own reader:
 *
 * - every grant and port it holds was in the file before, or is what the
 *   advice for one of the denials grants, or a directory above one of
 *   those of the same key (the widening); nothing else of the policy
 *   (unrestricted-*, env, secrets, allow-*...) is more than it was;
 * - every line of it is one a policy file can hold, and reads as a
 *   comment, a blank or a setting, unless it was the user's line already.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "landrun/policy/config.h"
#include "landrun/policy/policy.h"
#include "landrun/supervisor/learn.h"

#define FILE_NAME "learn.conf"
#define MAX_DENIALS 16

static struct lr_known_grant known[] = {
	{ "/usr", LR_ACCESS_RO | LR_ACCESS_X, true, "--rox /usr" },
	{ "/home/u/proj", LR_ACCESS_RO | LR_ACCESS_RW, true, "--rw /home/u/proj" },
};

static struct lr_learn_context ctx = {
	.home = "/home/u",
	.env_file = "/home/u/secrets/prod.vars",
	.grants = known,
	.n_grants = sizeof(known) / sizeof(*known),
	.abi = 7,
	.unprivileged_port = 1024,
	.path = FILE_NAME,
};

static const enum lr_denied_op ops[] = {
	LR_DENIED_READ,	  LR_DENIED_LIST,    LR_DENIED_WRITE,	    LR_DENIED_TRUNCATE,
	LR_DENIED_CREATE, LR_DENIED_REMOVE,  LR_DENIED_RENAME,	    LR_DENIED_EXECUTE,
	LR_DENIED_CONNECT_TCP, LR_DENIED_BIND_TCP, LR_DENIED_CONNECT_UNIX,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lr_fuzz_enter_home();
	return 0;
}

/* The denial of PART (LEN bytes, at least one). */
static void add_denial(struct lr_denials *l, const char *part, size_t len)
{
	struct lr_denial d = { .err = EACCES, .pid = 7, .count = 1, .main = true };
	unsigned char b = (unsigned char)part[0];
	const char *path = part + 1, *sep;
	size_t n = len - 1;

	d.op = ops[b % (sizeof(ops) / sizeof(*ops))];
	d.dir = (b & 0x80) != 0; /* a CREATE of a directory (mkdir) */
	d.port = (unsigned)b * 257u % 65536u;
	strcpy(d.comm, "tool");
	sep = memchr(path, '\x01', n);
	if (d.op == LR_DENIED_RENAME && sep) {
		d.path2 = strndup(sep + 1, (size_t)(path + n - sep - 1));
		d.asked2 = d.path2 ? strdup(d.path2) : NULL;
		n = (size_t)(sep - path);
	}
	if (d.op != LR_DENIED_CONNECT_TCP && d.op != LR_DENIED_BIND_TCP && n) {
		d.path = strndup(path, n);
		d.asked = d.path ? strdup(d.path) : NULL;
	}
	lr_fuzz_must(lr_denials_add(l, &d), "lr_denials_add");
}

static const char *key_of(const struct lr_grant *g)
{
	return g->flag + 2; /* "--rw": "rw" */
}

/* Is G, of the file read back, the advice's KEY = VALUE or a directory above it? */
static bool from(const struct lr_grant *g, const char *key, const char *value)
{
	return strcmp(key_of(g), key) == 0 &&
	       (strcmp(g->path, value) == 0 || lr_path_beneath(value, g->path));
}

static bool port_in(unsigned port, const struct lr_port_range *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (port >= v[i].first && port <= v[i].last)
			return true;
	return false;
}

struct advice_list {
	struct lr_advice v[MAX_DENIALS];
	size_t n;
};

static bool advised(const struct advice_list *a, const char *key, const char *value)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind == LR_ADVICE_GRANT && strcmp(a->v[i].key, key) == 0 &&
		    strcmp(a->v[i].value, value) == 0)
			return true;
	return false;
}

/* A directory to make: in the file before, or what a denial's advice makes. */
static void check_mkdirs(const struct lr_policy *after, const struct lr_policy *before,
			 const struct advice_list *a)
{
	for (size_t i = 0; i < after->n_mkdirs; i++) {
		bool ok = false;

		for (size_t j = 0; !ok && j < before->n_mkdirs; j++)
			ok = strcmp(after->mkdirs[i], before->mkdirs[j]) == 0;
		for (size_t j = 0; !ok && j < a->n; j++)
			ok = a->v[j].kind == LR_ADVICE_GRANT &&
			     (a->v[j].mkdir || strcmp(a->v[j].key, "mkdir") == 0) &&
			     strcmp(a->v[j].value, after->mkdirs[i]) == 0;
		lr_fuzz_check(ok, "the learned file makes %s, which neither was in it nor a "
				  "denial's advice makes",
			      after->mkdirs[i]);
	}
}

/* Everything but the grants, ports and directories to make, which --learn
 * writes. */
static void check_rest(const struct lr_policy *after, const struct lr_policy *before)
{
	lr_fuzz_check(after->n_env <= before->n_env && after->n_secrets <= before->n_secrets &&
			      after->n_allow_dotenv <= before->n_allow_dotenv &&
			      after->n_allow_protected <= before->n_allow_protected &&
			      after->n_allow_domains <= before->n_allow_domains &&
			      after->n_keep_fds <= before->n_keep_fds,
		      "the learned file holds more settings than before");
	lr_fuzz_check((!after->unrestricted_fs || before->unrestricted_fs) &&
			      (!after->unrestricted_net || before->unrestricted_net) &&
			      (!after->unrestricted_scoped || before->unrestricted_scoped) &&
			      (!after->env_file || before->env_file) &&
			      (!after->user || before->user) && (!after->learn || before->learn),
		      "the learned file sets a flag that was not set before");
}

static void check_file(const char *text, size_t len, const struct lr_strlist *before_lines,
		       const struct lr_policy *before, const struct advice_list *a)
{
	struct lr_opt_error err = { 0 };
	struct lr_policy after;
	const char *p = text, *end = text + len;

	/* every line: one a policy file holds, and a comment, a blank or a setting */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char why[128], *line = strndup(p, n), *k, *v;
		int r;

		lr_fuzz_must(line ? 0 : -ENOMEM, "strndup");
		lr_fuzz_check(!lr_config_line_problem(p, n, why, sizeof(why)),
			      "the learned file's line '%s': %s", line, why);
		r = lr_config_parse_line(line, &k, &v);
		lr_fuzz_check(r >= 0 || lr_strlist_contains(before_lines, line),
			      "the learned file's line '%s' is not the user's, and reads as nothing",
			      line);
		if (r == 1) {
			free(k);
			free(v);
		}
		free(line);
		p += n + 1;
	}

	lr_policy_init(&after);
	if (lr_config_load_file(FILE_NAME, &after, 1, &err) != 0) {
		lr_policy_free(&after);
		return; /* refused: nothing runs */
	}
	for (size_t i = 0; i < after.n_grants; i++) {
		const struct lr_grant *g = &after.grants[i];
		bool ok = false;

		for (size_t j = 0; !ok && j < before->n_grants; j++)
			ok = from(g, key_of(&before->grants[j]), before->grants[j].path);
		for (size_t j = 0; !ok && j < a->n; j++)
			ok = a->v[j].kind == LR_ADVICE_GRANT && from(g, a->v[j].key, a->v[j].value);
		lr_fuzz_check(ok, "the learned file grants %s = %s, which neither was in it nor "
				  "derives from a denial",
			      key_of(g), g->path);
	}
	for (size_t i = 0; i < after.n_connect_tcp; i++)
		for (unsigned port = after.connect_tcp[i].first;; port++) {
			char s[8];

			snprintf(s, sizeof(s), "%u", port);
			lr_fuzz_check(port_in(port, before->connect_tcp, before->n_connect_tcp) ||
					      advised(a, "connect-tcp", s),
				      "connect-tcp = %u is new and from no denial", port);
			if (port >= after.connect_tcp[i].last)
				break;
		}
	for (size_t i = 0; i < after.n_bind_tcp; i++)
		for (unsigned port = after.bind_tcp[i].first;; port++) {
			char s[8];

			snprintf(s, sizeof(s), "%u", port);
			lr_fuzz_check(port_in(port, before->bind_tcp, before->n_bind_tcp) ||
					      advised(a, "bind-tcp", s),
				      "bind-tcp = %u is new and from no denial", port);
			if (port >= after.bind_tcp[i].last)
				break;
		}
	check_rest(&after, before);
	check_mkdirs(&after, before, a);
	lr_policy_free(&after);
}

/* The file's lines, as they are. */
static void lines_of(const char *text, size_t len, struct lr_strlist *out)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lr_fuzz_must(lr_strlist_take(out, strndup(p, n)), "lines");
		p += n + 1;
	}
}

static char *read_all(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *text;

	lr_fuzz_check(size >= 0, "lseek");
	text = malloc((size_t)size + 1);
	lr_fuzz_must(text ? 0 : -ENOMEM, "malloc");
	lr_fuzz_check(pread(fd, text, (size_t)size, 0) == size, "pread");
	text[size] = '\0';
	*len = (size_t)size;
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nul = memchr(p, '\0', size);
	struct lr_denials denials = { 0 };
	struct advice_list advice = { .n = 0 };
	size_t first = nul ? (size_t)(nul - p) : size;

	/* the denials */
	for (const char *q = nul ? nul + 1 : end; q < end && denials.n < MAX_DENIALS;) {
		const char *next = memchr(q, '\0', (size_t)(end - q));
		size_t n = next ? (size_t)(next - q) : (size_t)(end - q);

		if (n)
			add_denial(&denials, q, n);
		q += n + 1;
	}
	for (size_t i = 0; i < denials.n; i++)
		lr_fuzz_must(lr_learn_advise(&denials.v[i], &ctx, &advice.v[advice.n++]),
			     "lr_learn_advise");

	lr_fuzz_must(lr_fuzz_write(FILE_NAME, p, first, 0644), FILE_NAME);
	for (int round = 0; round < 2; round++) {
		struct lr_opt_error err = { 0 };
		struct lr_strlist lines = { 0 };
		struct lr_policy before;
		size_t settings = 0, len;
		char *text;
		int fd = open(FILE_NAME, O_RDWR | O_CLOEXEC), r;

		lr_fuzz_check(fd >= 0, "open %s", FILE_NAME);
		text = read_all(fd, &len);
		lines_of(text, len, &lines);
		free(text);
		lr_policy_init(&before);
		lr_config_load_file(FILE_NAME, &before, 1, &err); /* partial on error */
		r = lr_learn_file_update(fd, &denials, &ctx, &settings);
		lr_fuzz_check(r == 0 || r == -EINVAL || r == -EFBIG, "lr_learn_file_update: %d", r);
		if (r == 0) {
			text = read_all(fd, &len);
			check_file(text, len, &lines, &before, &advice);
			free(text);
		}
		close(fd);
		lr_strlist_free(&lines);
		lr_policy_free(&before);
		if (r != 0)
			break;
	}
	for (size_t i = 0; i < advice.n; i++)
		lr_advice_free(&advice.v[i]);
	lr_denials_free(&denials);
	return 0;
}
