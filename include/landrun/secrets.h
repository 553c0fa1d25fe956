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
 * does; a malformed line is skipped.
 */
void lr_gitconfig_paths(const char *text, size_t len,
			void (*cb)(void *data, const char *key, const char *value), void *data);

#endif /* LANDRUN_SECRETS_H */
