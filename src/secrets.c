/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "landrun/secrets.h"

#define NAME_MAX_LEN 255

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The part of a template's name besides ".env": .env.example, example.env */
static bool template_word(const char *s, size_t len)
{
	static const char *const words[] = { "example", "sample", "template", "dist" };

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (len == strlen(words[i]) && memcmp(s, words[i], len) == 0)
			return true;
	return false;
}

/* S (lowercase, LEN bytes) is .env, .envrc, .env.WORD or [.]WORD.env:
 * 1 a secret's name, 2 a template's, 0 neither. */
static int classify(const char *s, size_t len)
{
	if (len == 4 && memcmp(s, ".env", 4) == 0)
		return 1;
	if (len == 6 && memcmp(s, ".envrc", 6) == 0)
		return 1;
	if (len >= 5 && memcmp(s, ".env.", 5) == 0)
		return template_word(s + 5, len - 5) ? 2 : 1;
	if (len > 4 && has_suffix(s, len, ".env")) {
		size_t stem = len - 4;

		if (s[0] == '.')
			s++, stem--;
		return stem > 0 && template_word(s, stem) ? 2 : 1;
	}
	return 0;
}

/*
 * The name an editor leftover stands for, in BASE (lowercase): NAME~, #NAME#,
 * NAME.bak, .old, .orig, .save; vim's swap files are .NAME.swp for NAME, and
 * NAME.swp for a NAME that starts with a dot, so both are tried (ALT).
 */
static bool undecorate(const char *s, size_t len, size_t *off, size_t *n, size_t *alt_off,
		       size_t *alt_n)
{
	static const char *const backups[] = { ".bak", ".old", ".orig", ".save" };

	*alt_n = 0;
	if (len > 1 && s[len - 1] == '~') {
		*off = 0, *n = len - 1;
		return true;
	}
	if (len > 2 && s[0] == '#' && s[len - 1] == '#') {
		*off = 1, *n = len - 2;
		return true;
	}
	if (len > 5 && s[0] == '.' && s[len - 4] == '.' && s[len - 3] == 's' && s[len - 2] == 'w') {
		*off = 0, *n = len - 4;		/* .env.swp: .env */
		*alt_off = 1, *alt_n = len - 5; /* .prod.env.swp: prod.env */
		return true;
	}
	for (size_t i = 0; i < sizeof(backups) / sizeof(*backups); i++) {
		if (has_suffix(s, len, backups[i])) {
			*off = 0, *n = len - strlen(backups[i]);
			return true;
		}
	}
	return false;
}

/* How many leftovers deep a name is looked into (prod.env.bak~ is two): a
 * bound, since a swap file's name stands for two names. */
#define LEFTOVER_DEPTH 8

/* S (lowercase, LEN bytes), a leftover of a leftover...: 1 a secret's name,
 * 2 a template's, 0 neither. */
static int classify_leftover(const char *s, size_t len, int depth)
{
	size_t off, n, alt_off, alt_n;
	int a, b;

	if (depth == LEFTOVER_DEPTH || !undecorate(s, len, &off, &n, &alt_off, &alt_n))
		return classify(s, len);
	a = classify_leftover(s + off, n, depth + 1);
	b = alt_n ? classify_leftover(s + alt_off, alt_n, depth + 1) : 0;
	/* a template's leftover is a template; a secret's is a secret */
	if (a == 2 || b == 2)
		return 2;
	if (a == 1 || b == 1)
		return 1;
	return classify(s, len);
}

bool lr_secret_name(const char *name)
{
	char lower[NAME_MAX_LEN + 1];
	size_t len = strlen(name);

	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[len] = '\0';
	return classify_leftover(lower, len, 0) == 1;
}

static const struct {
	const char *name;
	const char *runner;
} protected_names[] = {
	{ ".git", "git" },
	/* git hook managers: their configuration is what the hooks run */
	{ ".husky", "git hooks (husky)" },
	{ ".githooks", "git hooks" },
	{ ".pre-commit-config.yaml", "git hooks (pre-commit)" },
	{ "lefthook.yml", "git hooks (lefthook)" },
	{ "lefthook.yaml", "git hooks (lefthook)" },
	{ ".lefthook.yml", "git hooks (lefthook)" },
	{ ".lefthook.yaml", "git hooks (lefthook)" },
	{ "lefthook-local.yml", "git hooks (lefthook)" },
	{ "lefthook-local.yaml", "git hooks (lefthook)" },
	{ ".lefthook", "git hooks (lefthook)" },
	/* the harnesses' project settings: hooks, MCP servers, plugins */
	{ ".claude", "Claude Code" },
	{ ".mcp.json", "Claude Code" },
	{ ".codex", "Codex" },
	{ ".opencode", "OpenCode" },
	{ "opencode.json", "OpenCode" },
	{ "opencode.jsonc", "OpenCode" },
	/* editors: tasks and settings that run programs when a folder opens */
	{ ".vscode", "an editor (VS Code)" },
	{ ".idea", "an editor (JetBrains)" },
	{ ".devcontainer", "an editor (dev containers)" },
	{ ".devcontainer.json", "an editor (dev containers)" },
	/* shell start-up files, and git's own per-user configuration */
	{ ".bashrc", "the shell" },
	{ ".bash_profile", "the shell" },
	{ ".bash_login", "the shell" },
	{ ".bash_logout", "the shell" },
	{ ".profile", "the shell" },
	{ ".zshrc", "the shell" },
	{ ".zshenv", "the shell" },
	{ ".zprofile", "the shell" },
	{ ".zlogin", "the shell" },
	{ ".zlogout", "the shell" },
	{ ".gitconfig", "git" },
};

const char *lr_protected_name(const char *name)
{
	for (size_t i = 0; i < sizeof(protected_names) / sizeof(*protected_names); i++)
		if (strcmp(name, protected_names[i].name) == 0)
			return protected_names[i].runner;
	return NULL;
}

/* ---------------------------------------------------------------- git config */

struct cfg_parser {
	const char *p, *end;
	char section[256];	/* "core", "include", "includeif" (lowercase) */
	bool subsection;	/* [section "sub"] or [section.sub] */
};

static bool at_end(const struct cfg_parser *c)
{
	return c->p >= c->end;
}

static void skip_line(struct cfg_parser *c)
{
	while (!at_end(c) && *c->p != '\n')
		c->p++;
	if (!at_end(c))
		c->p++;
}

static void skip_blanks(struct cfg_parser *c)
{
	while (!at_end(c) && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

/* [section], [section "sub"], [section.sub]: false if malformed */
static bool parse_header(struct cfg_parser *c)
{
	size_t n = 0;

	c->p++; /* '[' */
	c->subsection = false;
	while (!at_end(c) && (isalnum((unsigned char)*c->p) || *c->p == '-' || *c->p == '.')) {
		if (*c->p == '.')
			c->subsection = true;
		if (n + 1 < sizeof(c->section))
			c->section[n++] = (char)tolower((unsigned char)*c->p);
		c->p++;
	}
	c->section[n] = '\0';
	if (c->subsection) /* [section.sub]: only the part before the dot counts */
		c->section[strcspn(c->section, ".")] = '\0';
	skip_blanks(c);
	if (!at_end(c) && *c->p == '"') {
		c->subsection = true;
		/* an escaped newline ends the header too: git refuses it */
		for (c->p++; !at_end(c) && *c->p != '"' && *c->p != '\n'; c->p++)
			if (*c->p == '\\' && c->p + 1 < c->end && c->p[1] != '\n')
				c->p++;
		if (at_end(c) || *c->p != '"')
			return false;
		c->p++;
	}
	if (at_end(c) || *c->p != ']')
		return false;
	c->p++;
	return n > 0;
}

/* A value up to the end of the line (continuations joined), unquoted and
 * unescaped, without comments or trailing blanks.  False if malformed. */
static bool parse_value(struct cfg_parser *c, char *out, size_t outlen)
{
	size_t n = 0, kept = 0; /* kept: length without trailing unquoted blanks */
	bool quoted = false;

	skip_blanks(c);
	while (!at_end(c) && *c->p != '\n') {
		char ch = *c->p++;

		if (ch == '\\') {
			if (at_end(c))
				return false;
			ch = *c->p++;
			if (ch == '\r' && !at_end(c) && *c->p == '\n')
				ch = *c->p++; /* git reads CRLF as LF */
			if (ch == '\n')
				continue; /* continuation */
			if (ch == 'n')
				ch = '\n';
			else if (ch == 't')
				ch = '\t';
			else if (ch == 'b')
				ch = '\b';
			else if (ch != '"' && ch != '\\')
				return false;
		} else if (ch == '"') {
			quoted = !quoted;
			kept = n;
			continue;
		} else if (!quoted && (ch == '#' || ch == ';')) {
			while (!at_end(c) && *c->p != '\n')
				c->p++;
			break;
		} else if (!quoted && (ch == ' ' || ch == '\t' || ch == '\r')) {
			if (n + 1 >= outlen)
				return false;
			out[n++] = ch;
			continue;
		}
		if (n + 1 >= outlen)
			return false;
		out[n++] = ch;
		kept = n;
	}
	out[kept] = '\0';
	return !quoted;
}

void lr_gitconfig_paths(const char *text, size_t len,
			void (*cb)(void *data, const char *key, const char *value), void *data)
{
	struct cfg_parser c = { .p = text, .end = text + len };

	/* git skips a UTF-8 byte order mark (Notepad writes one) */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;

	while (!at_end(&c)) {
		char key[256], value[4096];
		size_t n = 0;
		bool want;

		skip_blanks(&c);
		if (at_end(&c))
			break;
		if (*c.p == '\n') {
			c.p++;
			continue;
		}
		if (*c.p == '#' || *c.p == ';') {
			skip_line(&c);
			continue;
		}
		if (*c.p == '[') {
			if (!parse_header(&c)) {
				c.section[0] = '\0';
				skip_line(&c);
			}
			continue; /* a key may follow on the same line */
		}
		while (!at_end(&c) && (isalnum((unsigned char)*c.p) || *c.p == '-')) {
			if (n + 1 < sizeof(key))
				key[n++] = (char)tolower((unsigned char)*c.p);
			c.p++;
		}
		key[n] = '\0';
		skip_blanks(&c);
		if (n == 0 || at_end(&c) || *c.p != '=') {
			skip_line(&c); /* malformed, or a boolean key: nothing to report */
			continue;
		}
		c.p++;
		want = (strcmp(c.section, "core") == 0 && !c.subsection && strcmp(key, "hookspath") == 0) ||
		       (strcmp(c.section, "include") == 0 && !c.subsection && strcmp(key, "path") == 0) ||
		       (strcmp(c.section, "includeif") == 0 && c.subsection && strcmp(key, "path") == 0);
		if (parse_value(&c, value, sizeof(value)) && want && *value) {
			char full[sizeof(c.section) + sizeof(key) + 1];

			snprintf(full, sizeof(full), "%s.%s", c.section, key);
			cb(data, full, value);
		}
		skip_line(&c);
	}
}
