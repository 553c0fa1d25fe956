/* SPDX-License-Identifier: MIT */
/*
 * The policy: what the user asked for, as pure data.  Built by the CLI (and
 * later by policy files); read by the planner and the backends.  Nothing in
 * here touches the kernel.
 */
#ifndef LANDRUN_POLICY_H
#define LANDRUN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landrun/lib/log.h"

/* What a granted path may be used for. */
enum lr_access {
	LR_ACCESS_RO = 1 << 0,	/* read files, list directories */
	LR_ACCESS_RW = 1 << 1,	/* also write, create, remove, rename, link, truncate, ioctl */
	LR_ACCESS_X = 1 << 2,	/* also execute */
	LR_ACCESS_UNIX = 1 << 3, /* connect to the UNIX socket (--unix) */
};

struct lr_grant {
	char *path;		/* as given by the user */
	unsigned access;	/* enum lr_access bits */
	const char *flag;	/* the flag that granted it ("--ro", "--ldd", ...) */
	unsigned source;	/* which policy file (0: the command line) */
	char *origin;		/* "FILE:LINE" of the setting, NULL: the command line */
	char *name;		/* for messages: "--ro PATH", or "FILE:LINE: ro = PATH" */
	bool optional;		/* missing is fine (ignore-missing in its source) */
	bool to_make;		/* --explain: --mkdir would make it at start */
};

enum lr_env_kind {
	LR_ENV_NAME,		/* copy NAME from the caller or the env file */
	LR_ENV_SET,		/* NAME=VALUE */
	LR_ENV_PREFIX,		/* every variable whose name starts with it */
};

struct lr_env_rule {
	enum lr_env_kind kind;
	char *name;		/* NAME, or the prefix */
	char *value;		/* LR_ENV_SET only */
};

enum lr_on_unsupported {
	LR_UNSUPPORTED_ERROR,
	LR_UNSUPPORTED_WARN,
	LR_UNSUPPORTED_IGNORE,
};

enum lr_explain {
	LR_EXPLAIN_NONE,
	LR_EXPLAIN_TEXT,
	LR_EXPLAIN_JSON,
};

/* --user, resolved: who the command runs as. */
struct lr_run_as {
	bool set;		/* --user given (and resolved) */
	bool group_given;	/* USER:GROUP, not the user's primary group */
	uid_t uid;
	gid_t gid;
};

/* Resource limits (--rlimit-*), set in the process that execs the command. */
enum lr_limit {
	LR_LIMIT_AS,
	LR_LIMIT_CORE,
	LR_LIMIT_CPU,
	LR_LIMIT_FSIZE,
	LR_LIMIT_NOFILE,
	LR_LIMIT_NPROC,
	LR_LIMIT_COUNT
};

/* RLIM_INFINITY in a value: "unlimited". */
struct lr_limit_setting {
	bool set;
	unsigned long long value;	/* soft and hard limit alike */
};

/* The grace period between SIGTERM and SIGKILL when a supervised tree ends. */
#define LR_TIMEOUT_GRACE_DEFAULT_MS 5000ULL

/* An inclusive range of TCP ports. */
struct lr_port_range {
	uint16_t first, last;
};

/* An --allow-domain destination (egress.h parses and matches them). */
enum lr_dest_kind {
	LR_DEST_NAME,		/* exactly this host name */
	LR_DEST_SUFFIX,		/* *.example.com: any name below it, not itself */
	LR_DEST_ADDR,		/* this IP address (a special one too) */
};

struct lr_dest {
	enum lr_dest_kind kind;
	char *host;		/* lower case: the name, the suffix with its dot (".example.com"),
				 * or the address as text */
	uint8_t addr[16];	/* LR_DEST_ADDR: IPv6, or IPv4 as ::ffff:a.b.c.d */
	uint16_t port;
};

/* One --allow-request rule: a method ("*": any) and a path, exact or, with a
 * trailing '*', a prefix; the query is not part of it. */
struct lr_http_allow {
	char method[16];
	char *path;		/* without the '*' */
	bool prefix;
};

/* A host whose requests the egress proxy reads (--secret-header,
 * --allow-request; egress.h parses them). */
struct lr_http_site {
	char *host;		/* a name, lower case */
	uint16_t port;
	char *header_name;	/* --secret-header's, or NULL */
	bool header_if_set;	/* from --secret-header-if-set: a --secret-header replaces it */
	char *header_value;	/* in the policy: the template with ${VAR}; in the helper:
				 * expanded, the secret */
	struct lr_http_allow *allow;	/* none: any method and path */
	size_t n_allow;
};

/* secret = GLOB, --secret GLOB: more names of files to keep out. */
struct lr_secret_glob {
	char *glob;
	char *name;		/* for messages: "--secret GLOB", or "FILE:LINE: secret = GLOB" */
};

struct lr_policy {
	struct lr_grant *grants;
	size_t n_grants;
	unsigned source;	/* stamped on new grants */
	unsigned n_sources;	/* policy files read so far */
	const char *origin;	/* stamped on new grants: the policy-file line being read */
	char **mkdirs;		/* directories to create (0700) before granting */
	size_t n_mkdirs;

	struct lr_env_rule *env;
	size_t n_env;
	char *env_file;

	char **allow_dotenv;	/* secret files (or trees of them) the user accepts to expose */
	size_t n_allow_dotenv;
	char **allow_protected;	/* protected paths the user accepts to make writable */
	size_t n_allow_protected;
	struct lr_secret_glob *secrets;	/* names of secret files besides landrun's own */
	size_t n_secrets;

	int *keep_fds;
	size_t n_keep_fds;

	struct lr_port_range *connect_tcp;
	size_t n_connect_tcp;
	struct lr_port_range *bind_tcp;
	size_t n_bind_tcp;
	size_t n_unix_paths;	/* grants with LR_ACCESS_UNIX (--unix) */
	struct lr_dest *allow_domains;	/* --allow-domain: the proxy's destinations */
	size_t n_allow_domains;
	struct lr_http_site *egress_sites;	/* hosts whose HTTPS the proxy reads (also in
						 * allow_domains) */
	size_t n_egress_sites;

	enum lr_on_unsupported on_unsupported;
	bool on_unsupported_set;	/* given on the command line */
	enum lr_log_level log_level;
	bool log_level_set;	/* given on the command line */
	enum lr_explain explain;

	bool unrestricted_fs;
	bool unrestricted_net;
	bool unrestricted_scoped;
	bool deny_subprocess;
	bool allow_sysv_ipc;	/* SysV shm, message queues and semaphores (the host's) */
	bool pty;		/* relay the terminal through a new pty (a supervisor) */
	bool pty_passthrough;	/* the relay drops nothing of what acts beyond the screen */
	bool private_tmp;	/* a new TMPDIR when the command would get none */
	bool private_home;	/* a new HOME when the command would get none */
	bool add_exec;
	bool ldd;
	bool ignore_missing;	/* --ignore-missing on the command line */
	bool cli_grants;	/* the command line named files to grant (or none at all) */
	bool cli_files;		/* the command line named a policy file (--config, --profile) */
	bool no_project;	/* --no-project: no project granted by default */
	bool home_private;	/* the command gets a new, empty HOME (--private-home took) */
	char *profile;		/* the profile chosen for the command by default, or NULL */
	char *project;		/* the project (a repository's top, or the current directory),
				 * granted by default, or NULL */
	char *project_note;	/* what the project is, for the notice and --explain */
	char *outright;		/* the command-line grant that named the system, as the Go
				 * landrun's command lines do: no default profile, no project */
	char *user;		/* --user USER[:GROUP] as given, or NULL */
	struct lr_run_as run_as; /* and resolved (main.c) */

	/* Lifetime (a supervisor stays for these: supervise.h) and limits. */
	bool init;		/* --init: a supervisor even when not PID 1 */
	bool die_with_parent;
	unsigned long long timeout_ms;	/* 0: none */
	unsigned long long timeout_grace_ms;
	char *audit_log;
	struct lr_limit_setting limits[LR_LIMIT_COUNT];

	/* Finding what to grant (trace.h, learn.h). */
	bool report_denials;	/* list what the command was denied when it ends */
	char *learn;		/* --learn FILE: add the grants that would have allowed it */
	bool landlock_audit;	/* the kernel's audit records of Landlock denials after exec */

	char **argv;		/* COMMAND [ARGS...], NULL-terminated, borrowed from main */
};

void lr_policy_init(struct lr_policy *p);
void lr_policy_free(struct lr_policy *p);

/* Append helpers: 0, or -ENOMEM.  The policy takes copies of the strings. */
int lr_policy_add_grant(struct lr_policy *p, const char *path, unsigned access, const char *flag);
int lr_policy_add_secret(struct lr_policy *p, const char *glob);
int lr_policy_add_env(struct lr_policy *p, enum lr_env_kind kind, const char *name,
		      const char *value);

/* Is G one of landrun's own private directories (--private-tmp, --private-home)? */
bool lr_policy_grant_private(const struct lr_grant *g);

/* Mark the grants of SOURCE optional: its ignore-missing applies to them only. */
void lr_policy_grants_optional(struct lr_policy *p, unsigned source);

/*
 * Is the canonical PATH a directory the command must not be given whole: one
 * other programs share (/, /tmp, /var/tmp, /dev/shm), or the user's HOME or
 * one that holds it?  The reason, for a message ("is shared with..."), or NULL.
 */
const char *lr_policy_shared_dir(const char *path, const char *home);

/* True if NAME is a valid environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool lr_env_name_valid(const char *name, size_t len);

#endif /* LANDRUN_POLICY_H */
