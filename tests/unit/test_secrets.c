/* SPDX-License-Identifier: MIT */
/* Secret and protected names; the git config reader. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/policy/secrets.h"
#include "skip.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Test(secrets, names)
{
	static const struct {
		const char *name;
		bool secret;
	} cases[] = {
		/* the family, in any case */
		{ ".env", true },
		{ ".env.local", true },
		{ ".env.production", true },
		{ ".env.development.local", true },
		{ ".env.keys", true },
		{ ".envrc", true },
		{ ".ENV", true },
		{ ".Env.Local", true },
		{ ".ENVRC", true },
		{ "prod.env", true },
		{ "PROD.ENV", true },
		{ ".prod.env", true },
		{ "x.env", true },
		/* editor leftovers of them */
		{ ".env~", true },
		{ "#.env#", true },
		{ ".env.swp", true },
		{ ".env.swo", true },
		{ ".prod.env.swp", true },
		{ "prod.env~", true },
		{ "prod.env.bak", true },
		{ ".envrc~", true },
		{ ".envrc.orig", true },
		{ "prod.env.save", true },
		/* leftovers of leftovers */
		{ "prod.env.bak~", true },
		{ ".prod.env.bak.swp", true },
		{ "#.env~#", true },
		{ ".env.orig.bak", true },
		{ "x.env~~~~~~~~", true },	/* eight deep */
		{ "x.env~~~~~~~~~", false },	/* nine: not looked into */
		/* templates are not secrets */
		{ ".env.example", false },
		{ ".env.sample", false },
		{ ".env.template", false },
		{ ".env.dist", false },
		{ ".ENV.EXAMPLE", false },
		{ "example.env", false },
		{ ".env.example~", false },
		{ ".env.example.bak~", false },
		/* not the family */
		{ "env", false },
		{ ".env-x", false },
		{ ".env_local", false },
		{ ".en", false },
		{ "", false },
		{ " .env", true }, /* *.env */
		{ "env.local", false },
		{ ".env.", true },
		{ ".environment", false },
		{ "environment.ts", false },
		{ "dotenv.js", false },
		{ ".env.js", true },
		{ "~", false },
		{ "##", false },
		{ ".bak", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		cr_expect_eq(lr_secret_name(cases[i].name), cases[i].secret, "'%s': want %s",
			     cases[i].name, cases[i].secret ? "secret" : "not secret");
}

Test(secrets, credential_files)
{
	static const struct {
		const char *parent, *name;
		bool secret;
	} cases[] = {
		/* by name, anywhere, in any case */
		{ NULL, ".npmrc", true },
		{ "proj", ".pypirc", true },
		{ NULL, ".netrc", true },
		{ NULL, ".git-credentials", true },
		{ NULL, ".dev.vars", true },
		{ NULL, ".pgpass", true },
		{ NULL, "credentials.json", true },
		{ NULL, "Credentials.JSON", true },
		{ NULL, "service-account.json", true },
		{ NULL, "terraform.tfstate", true },
		{ NULL, "terraform.tfstate.backup", true },
		{ NULL, "secrets.yaml", true },
		{ NULL, "secrets.yml", true },
		{ NULL, "id_rsa", true },
		{ NULL, "id_ed25519", true },
		{ NULL, "server.key", true },
		{ NULL, "server.pem", true },
		{ NULL, "privkey.pem", true },
		{ NULL, "key.pem", true },
		{ NULL, "cert.p12", true },
		/* their leftovers */
		{ NULL, ".npmrc~", true },
		{ NULL, "id_rsa.bak", true },
		{ NULL, ".id_rsa.swp", true },
		/* in the directory a tool keeps them in */
		{ ".aws", "credentials", true },
		{ ".AWS", "credentials", true },
		{ ".docker", "config.json", true },
		{ ".kube", "config", true },
		{ "gh", "hosts.yml", true },
		/* the same names elsewhere, and public or template files */
		{ NULL, "credentials", false },
		{ "proj", "credentials", false },
		{ "proj", "config.json", false },
		{ ".aws", "config", false },
		{ NULL, "id_rsa.pub", false },
		{ NULL, "id_ed25519.pub", false },
		{ NULL, "cert.pem", false },
		{ NULL, "cacert.pem", false },
		{ NULL, "fullchain.pem", false },
		{ NULL, "chain.pem", false },
		{ NULL, "ca.pem", false },
		{ NULL, "ca-bundle.pem", false },
		{ NULL, "root-ca.pem", false },
		{ NULL, "server.crt", false },
		{ NULL, ".npmrc.example", false },
		{ NULL, "secrets.example.yaml", false },
		{ NULL, "credentials.json.example", false },
		{ NULL, "package.json", false },
		{ NULL, "package-lock.json", false },
		{ NULL, "tsconfig.json", false },
		{ NULL, "keys.py", false },
		{ NULL, "pem", false },
		{ NULL, "", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		cr_expect_eq(lr_secret_kind(cases[i].parent, cases[i].name) != NULL, cases[i].secret,
			     "'%s' in '%s': want %s", cases[i].name,
			     cases[i].parent ? cases[i].parent : "?",
			     cases[i].secret ? "secret" : "not secret");
	/* the .env family keeps its name */
	cr_expect_str_eq(lr_secret_kind(NULL, ".env"), "a secret file");
}

Test(secrets, globs)
{
	static const struct {
		const char *glob, *path;
		bool match;
	} cases[] = {
		/* a name: the last component, in any case */
		{ "*.secret", "/p/a.secret", true },
		{ "*.secret", "/p/A.SECRET", true },
		{ "*.secret", "/p/.x.secret", true },
		{ "*.secret", "/p/a.secret/b", false },
		{ "master.key", "/p/config/master.key", true },
		{ "token", "token", true },
		/* trailing components */
		{ "config/*.json", "/p/config/a.json", true },
		{ "config/*.json", "/p/x/config/a.json", true },
		{ "config/*.json", "/p/config/sub/a.json", false },
		{ "config/*.json", "/p/a.json", false },
		{ "config/*.json", "config/a.json", true },
		{ "a/b/c", "/a/b/c", true },
		{ "a/b/c", "/b/c", false },
		/* a whole path */
		{ "/srv/keys/*", "/srv/keys/a", true },
		{ "/srv/keys/*", "/srv/keys/a/b", false },
		{ "/srv/keys/*", "/x/srv/keys/a", false },
	};
	static const char *const invalid[] = { "", "/", "a/", "a//b" };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		cr_expect_eq(lr_secret_glob_match(cases[i].glob, cases[i].path), cases[i].match,
			     "'%s' on '%s': want %s", cases[i].glob, cases[i].path,
			     cases[i].match ? "a match" : "none");
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++)
		cr_expect_not(lr_secret_glob_valid(invalid[i]), "'%s'", invalid[i]);
	cr_expect(lr_secret_glob_valid("*.key"));
}

Test(secrets, protected_names)
{
	static const char *const yes[] = {
		".git", ".husky", ".pre-commit-config.yaml", "lefthook.yml", ".claude", ".mcp.json",
		".codex", ".opencode", "opencode.json", "opencode.jsonc", ".vscode", ".bashrc",
		".profile", ".zshrc", ".gitconfig",
	};
	static const char *const no[] = {
		"git", ".gitignore", ".gitattributes", ".gitmodules", "src", "claude", ".GIT",
		"README.md", "package.json", "Makefile", ".github",
	};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		cr_expect_not_null(lr_protected_name(yes[i]), "%s", yes[i]);
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		cr_expect_null(lr_protected_name(no[i]), "%s", no[i]);
}

struct seen {
	char text[2048];
};

static void record(void *data, const char *key, const char *value)
{
	struct seen *s = data;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "%s=%s|", key, value);
}

Test(secrets, gitconfig)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "[core]\n\thooksPath = .husky/_\n", "core.hookspath=.husky/_|" },
		{ "[CORE]\nHOOKSPATH=/x\n", "core.hookspath=/x|" },
		{ "[core] hooksPath = inline\n", "core.hookspath=inline|" },
		{ "[core]\n\thooksPath = \"quoted path\" ; comment\n", "core.hookspath=quoted path|" },
		{ "[core]\n\thooksPath = a\\\n b\n", "core.hookspath=a b|" },
		{ "[core]\n\thooksPath = a # c\n", "core.hookspath=a|" },
		{ "[core]\n\thooksPath = \"a # b\"\n", "core.hookspath=a # b|" },
		{ "[include]\n\tpath = ../.gitconfig\n", "include.path=../.gitconfig|" },
		{ "[includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.inc\n", "includeif.path=~/w.inc|" },
		{ "[includeIf.gitdir:~/x/]\n\tpath = y\n", "" }, /* not valid git */
		/* not these */
		{ "[core \"x\"]\n\thooksPath = no\n", "" },
		{ "[include \"x\"]\n\tpath = no\n", "" },
		{ "[remote \"o\"]\n\tpath = no\n\turl = x\n", "" },
		{ "[core]\n\tfsmonitor = x\n\tbare\n", "" },
		{ "# [core]\n; hooksPath = x\n", "" },
		{ "[core\n\thooksPath = x\n", "" },
		{ "[core]\n\thooksPath = \"unterminated\n", "" },
		{ "[core]\n\thooksPath = bad\\q\n", "" },
		{ "", "" },
		{ "[core]\nhooksPath", "" },
		/* as git reads them: CRLF as LF, a byte order mark skipped */
		{ "[core]\r\n\thooksPath = a\\\r\n b\r\n", "core.hookspath=a b|" },
		{ "\xef\xbb\xbf[core]\n\thooksPath = x\n", "core.hookspath=x|" },
		{ "[core]\n\thooksPath = a\\\rb\n", "" },
		/* a subsection cannot go on over a line (git refuses it) */
		{ "[x \"a\\\n[core]\nhooksPath=b\n", "core.hookspath=b|" },
		{ "[x \"a\\\r\n[core]\r\nhooksPath=b\r\n", "core.hookspath=b|" },
		/* two, and a section after a bad one */
		{ "[core]\nhooksPath=a\n[x\n[core]\nhooksPath=b", "core.hookspath=a|core.hookspath=b|" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { "" };

		lr_gitconfig_paths(cases[i].text, strlen(cases[i].text), record, &s);
		cr_expect_str_eq(s.text, cases[i].want, "case %zu: %s", i, cases[i].text);
	}
}

/* ------------------------------------------------------------------------ */
/* The git config reader against git itself: `git config --file F --get
 * core.hooksPath` over inputs made of the pieces git's parser treats
 * specially (continuations, quotes, escapes, comments, CR, the end of the
 * file).  Wherever git reads the file, landrun reports git's value last. */

static int git_hooks_path(const char *file, char *out, size_t len)
{
	char cmd[512];
	FILE *p;
	size_t n;
	int status;

	snprintf(cmd, sizeof(cmd),
		 "env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 "
		 "git config --file '%s' --get core.hooksPath 2>/dev/null",
		 file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	status = pclose(p);
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct last {
	char value[4096], prev[4096];
	int n;
};

static void last_hooks_path(void *data, const char *key, const char *value)
{
	struct last *l = data;

	if (strcmp(key, "core.hookspath") == 0) {
		memcpy(l->prev, l->value, sizeof(l->prev));
		snprintf(l->value, sizeof(l->value), "%s", value);
		l->n++;
	}
}

/* Is WANT the last value, or the one before it when the last is its other
 * reading (git 2.45 and later keep a tab as it is: both are reported)? */
static bool last_is(const struct last *l, const char *want)
{
	char a[4096], b[4096];

	if (strcmp(l->value, want) == 0)
		return true;
	if (l->n < 2 || strcmp(l->prev, want) != 0)
		return false;
	snprintf(a, sizeof(a), "%s", l->prev);
	snprintf(b, sizeof(b), "%s", l->value);
	for (char *p = a; *p; p++)
		*p = *p == '\t' || *p == '\r' ? ' ' : *p;
	for (char *p = b; *p; p++)
		*p = *p == '\t' || *p == '\r' ? ' ' : *p;
	return strcmp(a, b) == 0;
}

Test(secrets, gitconfig_agrees_with_git, .timeout = 120)
{
	static const char *const heads[] = {
		"[core]\n\thooksPath", "[Core]\nHOOKSPATH", "[core] hookspath",
		"\xef\xbb\xbf[core]\r\nhooksPath", "[core]\n  \t hooksPath", "[core]\n# c\n;c\nhooksPath",
	};
	static const char *const seps[] = { " = ", "=", " =\t", "\t=  " };
	static const char *const values[] = {
		"/evil", "\"/evil\"", "\"  /evil\"", "/ev\\\"il", "/evil # c", "/evil;c",
		"\\\n  /evil", "\\\n\t\"/evil\"", "/ev\\\n il", "/evil\\", "/evil \\\n",
		"\"/evil\\\n\"", "/evil\\t", "\\\r\n/evil", "/e\\nvil", "/e\\xvil", "\"/open",
		"/evil  ", "  \"/x\" y ", "/a\"b\"c", "/x\r", "/x\r\r", " \\\n \\\n /deep", "",
		"\\\n", "\"\"", "/a\\\\b", "/a\\\\", "/e\\\r\n\tvil", "/a \"#\" b",
	};
	static const char *const tails[] = {
		"\n", "", "\r\n", "\\", "\n[other]\nhooksPath = /no\n", "\nhooksPath = /second\n",
		" ; trailing\n", "\n[core \"x\"]\nhooksPath = /sub\n",
	};
	char dir[] = "/tmp/lr-gitcfg-XXXXXX", file[64], text[512], want[4096];
	size_t compared = 0;

	if (system("git --version >/dev/null 2>&1") != 0)
		lr_skip_test(0, "git is not installed");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/config", dir);
	for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
		for (size_t t = 0; t < ARRAY_SIZE(tails); t++) {
			size_t k = v * ARRAY_SIZE(tails) + t;
			struct last got = { "", "", 0 };
			FILE *f;
			int rc;

			snprintf(text, sizeof(text), "%s%s%s%s", heads[k % ARRAY_SIZE(heads)],
				 seps[k % ARRAY_SIZE(seps)], values[v], tails[t]);
			f = fopen(file, "w");
			cr_assert_not_null(f);
			fputs(text, f);
			cr_assert_eq(fclose(f), 0);
			rc = git_hooks_path(file, want, sizeof(want));
			if (rc != 0 && rc != 1)
				continue; /* git refuses the file: it runs nothing */
			lr_gitconfig_paths(text, strlen(text), last_hooks_path, &got);
			compared++;
			if (rc == 1 || !*want) /* none, or empty: nothing to protect */
				cr_expect(rc == 1 ? got.n == 0 : 1, "%zu: git finds no hooksPath in "
					  "'%s', landrun finds '%s'", k, text, got.value);
			else
				cr_expect(last_is(&got, want), "%zu: git reads '%s' from '%s', "
					  "landrun '%s'", k, want, text, got.value);
		}
	}
	cr_expect_gt(compared, ARRAY_SIZE(values) * ARRAY_SIZE(tails) / 2,
		     "git read only %zu of the files", compared);
	unlink(file);
	rmdir(dir);
}

/* The same for the files git reads as more configuration: include.path and
 * includeIf.<condition>.path, with section headers spelled every way git
 * takes (case, a quoted subsection with escapes, the old [section.sub]
 * form) or ignores ([include "x"], [includeIf] with no condition).  Every
 * value git reads (`git config --get-regexp -z`) must be among those
 * landrun reports: what it does not report, it does not protect. */

struct includes {
	char values[16][512];
	int n;
};

static void include_paths(void *data, const char *key, const char *value)
{
	struct includes *s = data;

	if (strcmp(key, "core.hookspath") != 0 && s->n < 16)
		snprintf(s->values[s->n++], sizeof(s->values[0]), "%s", value);
}

static bool includes_has(const struct includes *s, const char *v)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->values[i], v) == 0)
			return true;
	return false;
}

Test(secrets, gitconfig_includes_agree_with_git, .timeout = 120)
{
	static const char *const heads[] = {
		"[include]\n\tpath", "[Include]\nPATH", "[include] path",
		"[includeIf \"gitdir:/a/\"]\n\tpath", "[IncludeIf \"gitdir/i:~/w/\"]\npath",
		"[includeIf \"onbranch:ma\\\"in\"]\n path", "[includeIf \"hasconfig:remote.*.url:x\"] path",
		"[include \"x\"]\npath", "[includeIf]\npath", "[include.sub]\npath",
		"[includeif \"gitdir:a b\"]\r\npath", "[include]\n# c\n; c\n  path",
	};
	static const char *const values[] = {
		"/evil.cfg", "\"/evil.cfg\"", "~/evil.cfg", "rel/evil.cfg", "\\\n /evil.cfg",
		"/e\\\"vil", "/evil # c", "/evil\\", "\"  /sp\"", "/tab\\t",
	};
	static const char *const tails[] = {
		"\n", "", "\n[include]\npath = /second\n", " ; c\n", "\n[core]\npath = /no\n",
	};
	char dir[] = "/tmp/lr-gitinc-XXXXXX", file[64], text[512], cmd[512], out[8192];
	size_t compared = 0, values_read = 0;

	if (system("git --version >/dev/null 2>&1") != 0)
		lr_skip_test(0, "git is not installed");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/config", dir);
	snprintf(cmd, sizeof(cmd),
		 "env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 git config "
		 "--file '%s' -z --get-regexp '^include(if\\..*)?\\.path$' 2>/dev/null",
		 file);
	for (size_t h = 0; h < ARRAY_SIZE(heads); h++) {
		for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
			const char *tail = tails[(h + v) % ARRAY_SIZE(tails)];
			struct includes got = { .n = 0 };
			size_t n;
			FILE *f, *p;
			int status;

			snprintf(text, sizeof(text), "%s = %s%s", heads[h], values[v], tail);
			f = fopen(file, "w");
			cr_assert_not_null(f);
			fputs(text, f);
			cr_assert_eq(fclose(f), 0);
			p = popen(cmd, "r");
			cr_assert_not_null(p);
			n = fread(out, 1, sizeof(out) - 1, p);
			out[n] = '\0';
			status = pclose(p);
			if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1))
				continue; /* git refuses the file: it reads nothing of it */
			lr_gitconfig_paths(text, strlen(text), include_paths, &got);
			compared++;
			/* each entry: KEY \n VALUE \0 */
			for (const char *e = out; e < out + n; e += strlen(e) + 1) {
				const char *nl = strchr(e, '\n');

				if (!nl || !nl[1])
					continue; /* no value, or an empty one: nothing to read */
				values_read++;
				cr_expect(includes_has(&got, nl + 1),
					  "%zu/%zu: git reads '%s' as %.*s from '%s'; landrun reports "
					  "%d value(s), first '%s'",
					  h, v, nl + 1, (int)(nl - e), e, text, got.n,
					  got.n ? got.values[0] : "");
			}
		}
	}
	cr_expect_gt(compared, ARRAY_SIZE(heads) * ARRAY_SIZE(values) / 2,
		     "git read only %zu of the files", compared);
	cr_expect_gt(values_read, compared / 2, "git found include paths in only %zu files",
		     values_read);
	unlink(file);
	rmdir(dir);
}
