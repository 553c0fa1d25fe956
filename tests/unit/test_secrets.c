/* SPDX-License-Identifier: MIT */
/* Secret and protected names; the git config reader. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "landrun/secrets.h"

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
