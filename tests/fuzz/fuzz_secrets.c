/* SPDX-License-Identifier: MIT */
/*
 * What keeps secrets and hook paths out of the command, on strings
 * (secrets.c).  The same input is read two ways:
 *
 * - as a path: each component (split at '/' and NUL) goes to
 *   lr_secret_name, which must agree with a model written from the rules
 *   of docs/secrets.md with fnmatch(3), and to lr_protected_name;
 * - as a git config file: lr_gitconfig_paths must report only the keys it
 *   knows, and report the same with the changes git itself ignores (CRLF
 *   line ends, a UTF-8 byte order mark), and a well-formed hooksPath after
 *   the input, however malformed the input is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "landrun/policy/secrets.h"

#define NAME_MAX_LEN 255

/* ---------------------------------------------------------------- names */

static const char *const template_words[] = { "example", "sample", "template", "dist" };

static bool glob(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
}

/* docs/secrets.md's families, by glob: 2 a template, 1 a secret, 0 neither. */
static int model_family(const char *name)
{
	static const char *const secrets[] = { ".env", ".envrc", ".env.*", "*.env" };
	char pattern[32];

	for (size_t i = 0; i < sizeof(template_words) / sizeof(*template_words); i++) {
		const char *w = template_words[i];

		snprintf(pattern, sizeof(pattern), ".env.%s", w);
		if (glob(pattern, name))
			return 2;
		snprintf(pattern, sizeof(pattern), "%s.env", w);
		if (glob(pattern, name))
			return 2;
		snprintf(pattern, sizeof(pattern), ".%s.env", w);
		if (glob(pattern, name))
			return 2;
	}
	for (size_t i = 0; i < sizeof(secrets) / sizeof(*secrets); i++)
		if (glob(secrets[i], name))
			return 1;
	return 0;
}

/*
 * A name with an editor's leftover decoration (NAME~, #NAME#, vim's swap
 * files .NAME.sw? and, for a NAME that starts with a dot, NAME.sw?, NAME.bak,
 * .old, .orig, .save): what it is the leftover of, as in model_family, up to
 * eight decorations deep.  A template's leftover is a template.
 */
static int model(const char *name, int depth)
{
	static const char *const backups[] = { "*.bak", "*.old", "*.orig", "*.save" };
	size_t len = strlen(name);
	char inner[2][NAME_MAX_LEN + 1];
	int n = 0, best = 0;

	if (depth == 8) {
		/* as deep as landrun looks */
	} else if (len > 1 && glob("*~", name)) {
		snprintf(inner[n++], sizeof(inner[0]), "%.*s", (int)len - 1, name);
	} else if (len > 2 && glob("#*#", name)) {
		snprintf(inner[n++], sizeof(inner[0]), "%.*s", (int)len - 2, name + 1);
	} else if (len > 5 && glob(".*.sw?", name)) {
		snprintf(inner[n++], sizeof(inner[0]), "%.*s", (int)len - 4, name);
		snprintf(inner[n++], sizeof(inner[0]), "%.*s", (int)len - 5, name + 1);
	} else {
		for (size_t i = 0; i < sizeof(backups) / sizeof(*backups); i++)
			if (glob(backups[i], name)) {
				size_t cut = strlen(backups[i]) - 1;

				if (len > cut)
					snprintf(inner[n++], sizeof(inner[0]), "%.*s",
						 (int)(len - cut), name);
				break;
			}
	}
	for (int i = 0; i < n; i++) {
		int m = model(inner[i], depth + 1);

		best = m > best ? m : best;
	}
	return best ? best : model_family(name);
}

static void check_name(const char *name)
{
	size_t len = strlen(name);
	bool secret = lr_secret_name(name);
	const char *runner = lr_protected_name(name);

	if (len == 0 || len > NAME_MAX_LEN) {
		lr_fuzz_check(!secret, "'%s' (%zu bytes) is a secret", name, len);
		return;
	}
	lr_fuzz_check(secret == (model(name, 0) == 1),
		      "'%s': lr_secret_name says %s, the rules %s", name,
		      secret ? "secret" : "not secret", secret ? "not" : "secret");
	if (runner)
		lr_fuzz_check(*runner && !secret, "'%s': protected by '%s'%s", name, runner,
			      secret ? ", and a secret" : "");
}

static void check_names(const uint8_t *data, size_t size)
{
	char name[NAME_MAX_LEN + 2];
	size_t start = 0;

	for (size_t i = 0; i <= size; i++) {
		size_t n;

		if (i < size && data[i] != '/' && data[i] != '\0')
			continue;
		n = i - start;
		if (n > NAME_MAX_LEN + 1)
			n = NAME_MAX_LEN + 1; /* one too long is enough */
		memcpy(name, data + start, n);
		name[n] = '\0';
		check_name(name);
		start = i + 1;
	}
}

/* ---------------------------------------------------------------- git config */

#define SENTINEL "/landrun-fuzz-sentinel"

struct found {
	char text[16384];	/* "key=value\n"..., cut short when full */
	size_t len, n;
	bool cut;
	char last[4096 + 32];	/* the last "key=value" */
};

static void record(void *data, const char *key, const char *value)
{
	struct found *f = data;
	int w;

	lr_fuzz_check(strcmp(key, "core.hookspath") == 0 || strcmp(key, "include.path") == 0 ||
			      strcmp(key, "includeif.path") == 0,
		      "unknown key '%s'", key);
	lr_fuzz_check(*value && strlen(value) < 4096, "value of %s: %zu bytes", key,
		      strlen(value));
	f->n++;
	snprintf(f->last, sizeof(f->last), "%s=%s", key, value);
	w = snprintf(f->text + f->len, sizeof(f->text) - f->len, "%s=%s\n", key, value);
	if (w < 0 || (size_t)w >= sizeof(f->text) - f->len)
		f->cut = true;
	else
		f->len += (size_t)w;
}

static void read_config(const char *text, size_t len, struct found *f)
{
	memset(f, 0, sizeof(*f));
	lr_gitconfig_paths(text, len, record, f);
}

static void check_same(const struct found *a, const struct found *b, const char *what)
{
	lr_fuzz_check(a->n == b->n, "%s: %zu paths, then %zu", what, a->n, b->n);
	if (!a->cut && !b->cut)
		lr_fuzz_check(strcmp(a->text, b->text) == 0, "%s: '%s' became '%s'", what, a->text,
			      b->text);
}

static void check_config(const uint8_t *data, size_t size)
{
	static const char bom[] = "\xef\xbb\xbf";
	static const char sentinel[] = "\n\n[core]\n\thooksPath = " SENTINEL "\n";
	struct found plain, other;
	char *text = malloc(2 * size + sizeof(sentinel));
	size_t n = 0;

	if (!text)
		return;
	memcpy(text, data, size);
	read_config(text, size, &plain);

	/* git reads CRLF as LF: the same paths with every line ending in CRLF */
	if (!memchr(data, '\r', size)) {
		for (size_t i = 0; i < size; i++) {
			if (data[i] == '\n')
				text[n++] = '\r';
			text[n++] = (char)data[i];
		}
		read_config(text, n, &other);
		check_same(&plain, &other, "with CRLF line ends");
	}

	/* git skips a UTF-8 byte order mark at the start (Notepad writes one) */
	if (size < 3 || memcmp(data, bom, 3) != 0) {
		memcpy(text, bom, 3);
		memcpy(text + 3, data, size);
		read_config(text, size + 3, &other);
		check_same(&plain, &other, "after a byte order mark");
	}

	/* nothing in the input hides a well-formed hooksPath after it */
	memcpy(text, data, size);
	memcpy(text + size, sentinel, sizeof(sentinel) - 1);
	read_config(text, size + sizeof(sentinel) - 1, &other);
	lr_fuzz_check(strcmp(other.last, "core.hookspath=" SENTINEL) == 0,
		      "a hooksPath after the input was missed (last: '%s')", other.last);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_names(data, size);
	check_config(data, size);
	return 0;
}
