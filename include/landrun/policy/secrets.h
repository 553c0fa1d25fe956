/* SPDX-License-Identifier: MIT */
/*
 * What must not reach the command, by name: secret files (kept out
 * entirely), and paths that hold code something outside the sandbox runs
 * later (kept read-only inside writable grants).  Pure functions of strings,
 * so that they are unit-tested and fuzzed on their own.
 */
#ifndef LANDRUN_SECRETS_H
#define LANDRUN_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Is NAME (one directory entry) the name of a secret file?  .env, .env.*,
 * .envrc and *.env, in any case, and editor backups of them (NAME~, #NAME#,
 * .NAME.swp, NAME.bak, .old, .orig, .save), also of each other
 * (prod.env.bak~, up to eight deep); not the templates .env.example,
 * .env.sample, .env.template, .env.dist (nor example.env and the like) or
 * their leftovers.
 */
bool lr_secret_name(const char *name);

/*
 * What NAME (one directory entry) is kept out as, if it is a secret: "a
 * secret file" (lr_secret_name), or a credential file by its well-known
 * name: .npmrc, .pypirc, .netrc, .git-credentials, .pgpass, .dev.vars,
 * credentials.json, service-account.json, *.tfstate, secrets.y(a)ml, SSH
 * private keys (id_rsa, id_ed25519...), *.key, *.pem but certificates by
 * name (*cert*.pem, *chain*.pem, *bundle*.pem, ca.pem...), key stores
 * (*.p12, *.pfx, *.jks), and, in the directory PARENT (the name of the
 * directory NAME is in, or NULL when unknown), .aws/credentials,
 * .docker/config.json, .kube/config, gh/hosts.yml...; their editors'
 * leftovers too.  NULL: not a secret by name.
 */
const char *lr_secret_kind(const char *parent, const char *name);

/*
 * A user's secret glob (secret = GLOB, --secret GLOB): fnmatch(3) in any
 * case, on the entry's name when GLOB has no '/', on its whole canonical
 * path when GLOB starts with '/', and else on as many trailing components
 * as GLOB has ("config/master.key").  _valid: not empty, no empty component.
 */
bool lr_secret_glob_valid(const char *glob);
bool lr_secret_glob_match(const char *glob, const char *path);

/*
 * Does NAME (one directory entry) hold code or commands that run later
 * outside the sandbox: a git directory, a harness's or an editor's project
 * settings, a git hook manager's configuration, a shell start-up file?
 * Returns what runs it ("git", "Claude Code", ...), or NULL.
 */
const char *lr_protected_name(const char *name);

/*
 * Walk the text of a git config file (LEN bytes) and report, through CB,
 * the values of the keys that make git run or read files named there:
 * core.hooksPath, include.path and includeIf.*.path (KEY is given
 * lowercased, as "core.hookspath" or "include.path").  Quoting and escapes
 * are undone, CRLF read as LF and a UTF-8 byte order mark skipped, as git
 * does (held to git 2.39's reading by a test against git itself); a value
 * whose blanks git versions write differently (a tab: as it is, or as a
 * space) is reported both ways; a malformed line is skipped.
 */
void lr_gitconfig_paths(const char *text, size_t len,
			void (*cb)(void *data, const char *key, const char *value), void *data);

#endif /* LANDRUN_SECRETS_H */
