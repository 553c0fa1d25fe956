/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "landrun/policy/secrets.h"

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

/* ------------------------------------------------------- credential files */

/*
 * Credential files by their well-known names (fnmatch(3) globs, in any
 * case), some only in the directory a tool keeps them in.  A .pem file is
 * kept out unless its name says it is a certificate (the name cannot tell
 * a key from a certificate, and a leaked key costs more than an unreadable
 * certificate): see the exceptions below.
 */
static const struct {
	const char *glob;
	const char *parent;	/* the directory's own name, or NULL: anywhere */
	const char *kind;
} credentials[] = {
	{ ".npmrc", NULL, "a credential file (npm tokens)" },
	{ ".pypirc", NULL, "a credential file (PyPI tokens)" },
	{ ".netrc", NULL, "a credential file (passwords for hosts)" },
	{ "_netrc", NULL, "a credential file (passwords for hosts)" },
	{ ".git-credentials", NULL, "a credential file (git passwords)" },
	{ ".pgpass", NULL, "a credential file (PostgreSQL passwords)" },
	{ ".my.cnf", NULL, "a credential file (MySQL passwords)" },
	{ ".dev.vars", NULL, "a secret file (Cloudflare Workers' .env)" },
	{ ".vault-token", NULL, "a credential file (a Vault token)" },
	{ ".s3cfg", NULL, "a credential file (S3 keys)" },
	{ ".htpasswd", NULL, "a credential file (password hashes)" },
	{ "credentials.json", NULL, "a credential file (cloud keys)" },
	{ "service-account.json", NULL, "a credential file (a cloud service account's key)" },
	{ "service-account-*.json", NULL, "a credential file (a cloud service account's key)" },
	{ "client_secret*.json", NULL, "a credential file (an OAuth client's secret)" },
	{ "application_default_credentials.json", NULL, "a credential file (Google Cloud)" },
	{ "credentials.tfrc.json", NULL, "a credential file (Terraform Cloud)" },
	{ "*.tfstate", NULL, "a Terraform state (it holds the secrets it created)" },
	{ "*.tfstate.backup", NULL, "a Terraform state (it holds the secrets it created)" },
	{ "secrets.yaml", NULL, "a secret file (secrets.yaml)" },
	{ "secrets.yml", NULL, "a secret file (secrets.yml)" },
	{ "secrets.json", NULL, "a secret file (secrets.json)" },
	{ "secrets.toml", NULL, "a secret file (secrets.toml)" },
	{ "id_rsa", NULL, "a private key (SSH)" },
	{ "id_dsa", NULL, "a private key (SSH)" },
	{ "id_ecdsa", NULL, "a private key (SSH)" },
	{ "id_ecdsa_sk", NULL, "a private key (SSH)" },
	{ "id_ed25519", NULL, "a private key (SSH)" },
	{ "id_ed25519_sk", NULL, "a private key (SSH)" },
	{ "*.key", NULL, "a private key (by its extension)" },
	{ "*.pem", NULL, "a private key (a .pem that is not named as a certificate)" },
	{ "*.p12", NULL, "a key store (PKCS#12)" },
	{ "*.pfx", NULL, "a key store (PKCS#12)" },
	{ "*.jks", NULL, "a key store (Java)" },
	{ "*.keystore", NULL, "a key store (Java)" },
	{ "*.ppk", NULL, "a private key (PuTTY)" },
	{ "*.kdbx", NULL, "a password database (KeePass)" },
	{ "credentials", ".aws", "a credential file (AWS keys)" },
	{ "config.json", ".docker", "a credential file (registry passwords)" },
	{ "config", ".kube", "a credential file (cluster tokens)" },
	{ "hosts.yml", "gh", "a credential file (GitHub tokens)" },
	{ "credentials", ".cargo", "a credential file (crates.io tokens)" },
	{ "credentials.toml", ".cargo", "a credential file (crates.io tokens)" },
	{ "credentials", ".gem", "a credential file (RubyGems keys)" },
	{ "auth.json", "composer", "a credential file (Composer passwords)" },
	{ "auth.json", ".composer", "a credential file (Composer passwords)" },
};

/* Names that the globs above take but that are public: certificates. */
static const char *const not_credentials[] = {
	"*cert*.pem", "*chain*.pem", "*bundle*.pem", "*.pub.pem", "*public*.pem", "ca.pem",
	"*[-_.]ca.pem", "ca[-_.]*.pem",
};

/* GLOB (lowercase) matches S (LEN bytes), in any case.  The walk asks this
 * of every entry of every grant: a plain name and "*.ext" are compared, only
 * the rest goes to fnmatch(3). */
static bool glob_match(const char *glob, const char *s, size_t len)
{
	char name[NAME_MAX_LEN + 1];
	size_t n;

	if (len > NAME_MAX_LEN)
		return false;
	if (!strpbrk(glob, "*?["))
		return strlen(glob) == len && strncasecmp(glob, s, len) == 0;
	if (glob[0] == '*' && !strpbrk(glob + 1, "*?[")) {
		n = strlen(glob + 1);
		return len >= n && strncasecmp(glob + 1, s + len - n, n) == 0;
	}
	memcpy(name, s, len);
	name[len] = '\0';
	return fnmatch(glob, name, FNM_CASEFOLD) == 0;
}

/* The kind of credential file S (LEN bytes) is in PARENT, or NULL. */
static const char *credential_kind(const char *parent, const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(credentials) / sizeof(*credentials); i++) {
		if (credentials[i].parent &&
		    (!parent || strcasecmp(parent, credentials[i].parent) != 0))
			continue;
		if (!glob_match(credentials[i].glob, s, len))
			continue;
		for (size_t j = 0; j < sizeof(not_credentials) / sizeof(*not_credentials); j++)
			if (glob_match(not_credentials[j], s, len))
				return NULL;
		return credentials[i].kind;
	}
	return NULL;
}

/* The same for a leftover of one (id_rsa~, .npmrc.bak), up to eight deep. */
static const char *credential_leftover(const char *parent, const char *s, size_t len, int depth)
{
	size_t off, n, alt_off, alt_n;
	const char *kind = credential_kind(parent, s, len);

	if (kind || depth == LEFTOVER_DEPTH || !undecorate(s, len, &off, &n, &alt_off, &alt_n))
		return kind;
	kind = credential_leftover(parent, s + off, n, depth + 1);
	if (!kind && alt_n)
		kind = credential_leftover(parent, s + alt_off, alt_n, depth + 1);
	return kind;
}

const char *lr_secret_kind(const char *parent, const char *name)
{
	size_t len = strlen(name);

	if (lr_secret_name(name))
		return "a secret file";
	if (len == 0 || len > NAME_MAX_LEN)
		return NULL;
	return credential_leftover(parent, name, len, 0);
}

bool lr_secret_glob_valid(const char *glob)
{
	size_t len = strlen(glob);

	return len > 0 && len < 4096 && glob[len - 1] != '/' && !strstr(glob, "//") &&
	       strcmp(glob, "/") != 0;
}

bool lr_secret_glob_match(const char *glob, const char *path)
{
	const char *tail = path + strlen(path);
	size_t parts = 1;

	if (glob[0] == '/')
		return fnmatch(glob, path, FNM_PATHNAME | FNM_CASEFOLD) == 0;
	for (const char *g = glob; *g; g++)
		parts += *g == '/';
	/* the last PARTS components of PATH */
	while (tail > path && parts > 0) {
		tail--;
		if (*tail == '/' && --parts == 0)
			tail++;
	}
	if (parts > 1 || (parts == 1 && tail != path))
		return false; /* fewer components than the glob */
	return fnmatch(glob, tail, FNM_PATHNAME | FNM_CASEFOLD) == 0;
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

/*
 * A value up to the end of the line (continuations joined), unquoted and
 * unescaped, without comments, as git's parse_value() reads it: the end of
 * the file reads as a newline; unquoted blanks are dropped before anything
 * else of the value (after a continuation too) and at its end, and a run of
 * them inside it is kept when something follows (a backslash too).  Git
 * 2.39 writes each such blank as a space, newer versions may keep it as it
 * is: OUT gets the first reading, ALT the second (the same when there is no
 * tab or CR among them), and both are reported.  False if malformed.
 */
static bool parse_value(struct cfg_parser *c, char *out, char *alt, size_t outlen)
{
	char blanks[64];
	size_t n = 0, pending = 0;
	bool quoted = false;

	while (!at_end(c) && *c->p != '\n') {
		char ch = *c->p++;

		if (!quoted && (ch == ' ' || ch == '\t' || ch == '\r')) {
			if (n == 0)
				continue; /* nothing yet: git skips it */
			if (pending == sizeof(blanks))
				return false;
			blanks[pending++] = ch;
			continue;
		}
		if (!quoted && (ch == '#' || ch == ';')) {
			while (!at_end(c) && *c->p != '\n')
				c->p++;
			break;
		}
		/* anything else keeps the blanks before it */
		if (n + pending + 1 >= outlen)
			return false;
		for (size_t i = 0; i < pending; i++, n++)
			out[n] = ' ', alt[n] = blanks[i];
		pending = 0;
		if (ch == '\\') {
			if (at_end(c))
				break; /* git reads the end as a newline: a continuation */
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
			continue;
		}
		out[n] = alt[n] = ch;
		n++;
	}
	out[n] = alt[n] = '\0';
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
		char key[256], value[4096], alt[4096];
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
		if (parse_value(&c, value, alt, sizeof(value)) && want && *value) {
			char full[sizeof(c.section) + sizeof(key) + 1];

			snprintf(full, sizeof(full), "%s.%s", c.section, key);
			cb(data, full, value);
			if (strcmp(alt, value) != 0)
				cb(data, full, alt);
		}
		skip_line(&c);
	}
}
