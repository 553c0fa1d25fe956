/* SPDX-License-Identifier: MIT */
/*
 * Egress by domain (--allow-domain): the command's only way out is an HTTP
 * proxy that lets the allowed names through and nothing else.
 *
 *   landrun                                 helper ("landrun-egress")
 *   lr_egress_make_netns: a child makes a
 *     network namespace (and a user
 *     namespace when it must), lo up
 *   lr_egress_start ---- fork, fork, exec --> in the caller's network; gets
 *                        the allowed names     the names, opens a witness
 *                                              listener on 127.0.0.1, confines
 *                                              itself (Landlock, seccomp)
 *   lr_egress_enter: joins the namespace;
 *     the witness is reachable before, not
 *     after
 *   lr_egress_listen: 127.0.0.1:3128 (and
 *     the forwarded ports) opened inside,
 *     handed over ------- SCM_RIGHTS -------> accepts inside, decides, resolves
 *   confine, execve                            and connects outside, splices;
 *                                              ends with the command (pidfd)
 *
 * The helper is an executable of its own, landrun-egress: found beside
 * landrun's own executable, or else in LIBEXECDIR/landrun (lr_egress_find_helper),
 * opened before anything is confined, and started with an empty environment
 * and three descriptors: it holds no secret of the run.  It is apart from
 * landrun so that what only it needs (the TLS library, later) costs nothing
 * at every start of landrun.  This module reports what it could do; main.c
 * and the plan decide.
 */
#ifndef LANDRUN_EGRESS_H
#define LANDRUN_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "landrun/lib/util.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/policy.h"

struct lr_audit;

/* ---------------------------------------------------------------- landrun's side */

struct lr_egress {
	int helper_fd;		/* landrun-egress, opened O_PATH, or -1 */
	char helper_path[4096];	/* where it was found */
	char netns_step[64];	/* the step that failed, when there is no namespace */
	pid_t maker;		/* the child that holds the namespace, or 0 */
	int maker_sock;		/* our end of the socket to it, or -1 */
	int ns_flags;		/* CLONE_NEWNET, with CLONE_NEWUSER when it needed one */
	int ctl;		/* our end of the socket to the helper, or -1 */
	pid_t helper;		/* the helper, once started */
	uint16_t witness_port;	/* the helper's listener on the caller's 127.0.0.1 */
	uint16_t proxy_port;	/* where the command finds the proxy (127.0.0.1) */
	char **secrets;		/* each intercepted host's secret header's value, expanded,
				 * until it went to the helper (or NULL) */
	size_t n_secrets;
	char cafile[4096];	/* the system's CAs ("": none found), for the helper and the
				 * command's bundle */
	char *ca_pem;		/* the run's CA certificate, from the helper */
};

void lr_egress_init(struct lr_egress *e);

/* Where the helper is looked for: beside landrun's own executable, then the
 * installed one. */
#define LR_EGRESS_HELPER "landrun-egress"

/*
 * Find and open (O_PATH) the helper: SELF_DIR/landrun-egress (SELF_DIR, the
 * directory of landrun's own executable, or NULL), then LIBEXEC/landrun-egress.
 * Into e->helper_fd and e->helper_path.  0; -ENOENT with ERR naming both
 * places when neither holds an executable file; other -errno with ERR.
 */
int lr_egress_find_helper(struct lr_egress *e, const char *self_dir, const char *libexec,
			  char *err, size_t errlen);

/*
 * A child makes a network namespace with lo up (and first a user namespace
 * mapping the caller's own uid and gid, when it lacks CAP_SYS_ADMIN), then
 * waits for landrun to join it or to let it go.  Nothing changes for landrun
 * itself.  0, or -errno (and the step that failed in e->netns_step): why
 * this system gives no network namespace (user.max_user_namespaces=0,
 * AppArmor's restriction of unprivileged user namespaces, a container's
 * seccomp profile...).
 */
int lr_egress_make_netns(struct lr_egress *e);

/* Let the namespace go (--explain, or no use for it). */
void lr_egress_drop_netns(struct lr_egress *e);

/*
 * Start the helper (e->helper_fd, found first), here (in the caller's
 * network), with POLICY's destinations and log level, and AUDIT (the run's
 * --audit-log, opened, for its records; or NULL), and wait for its witness
 * listener.  0, or -errno with ERR.
 */
int lr_egress_start(struct lr_egress *e, const struct lr_policy *policy,
		    const struct lr_audit *audit, char *err, size_t errlen);

/*
 * Join the namespace lr_egress_make_netns made, and prove it: the helper's
 * witness listener must be reachable before and unreachable after, and the
 * helper must have seen exactly the first connection.  0; -EPERM (the
 * witness failed) or other -errno, with ERR.  On failure landrun is still
 * in the caller's network namespace.
 */
int lr_egress_enter(struct lr_egress *e, char *err, size_t errlen);

/*
 * Open the proxy's listening socket on 127.0.0.1 here (LR_EGRESS_PORT in a
 * namespace, a free port otherwise) and, in a namespace, one for each
 * --connect-tcp port; hand them to the helper and wait until it serves
 * them.  Sets e->proxy_port.  0, or -errno with ERR.
 */
int lr_egress_listen(struct lr_egress *e, const struct lr_policy *policy, bool netns, char *err,
		     size_t errlen);

/*
 * The secret headers' values of POLICY's intercepted hosts, ${VAR}
 * expanded by LOOKUP (getenv: landrun's own environment), into e->secrets,
 * until lr_egress_start sends them to the helper and forgets them.  0, or
 * -errno with ERR naming the host and the variable (unset or empty, a
 * control character in it, a header over 8 KiB).
 */
int lr_egress_expand_secrets(struct lr_egress *e, const struct lr_policy *policy,
			     char *(*lookup)(const char *name), char *err, size_t errlen);
/* The values gone from memory. */
void lr_egress_forget_secrets(struct lr_egress *e);

/*
 * The command's environment ENV without the secrets: each variable a secret
 * header names, if ENV has it, and any other variable whose value holds one
 * of their values (LOOKUP's), set to LR_EGRESS_PLACEHOLDER.  0 or -ENOMEM.
 */
int lr_egress_placeholders(struct lr_strlist *env, const struct lr_policy *policy,
			   char *(*lookup)(const char *name));

/* The system's CA bundle: $SSL_CERT_FILE (LOOKUP's), else the first of the
 * distributions' bundle files that exists; NULL if none. */
const char *lr_egress_system_cafile(char *(*lookup)(const char *name));

/* The command's CA bundle into FD: CAFILE's certificates (if not NULL), then
 * PEM, the run's CA.  0, or -errno with ERR. */
int lr_egress_write_bundle(int fd, const char *cafile, const char *pem, char *err, size_t errlen);

/* The variables that make the command's TLS libraries trust the bundle
 * BUNDLE (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...), set in ENV.  0 or -ENOMEM. */
int lr_egress_set_ca_env(struct lr_strlist *env, const char *bundle);

/* The variables that point the command at a proxy on 127.0.0.1:PORT
 * (HTTPS_PROXY, https_proxy, ... NO_PROXY), set in ENV.  0 or -ENOMEM. */
int lr_egress_set_env(struct lr_strlist *env, uint16_t port);

/* ---------------------------------------------------------------- the helper */

/* The control socket between landrun and the helper (SOCK_SEQPACKET): one
 * text message, with one descriptor or -1.  0, or -errno. */
int lr_egress_send(int sock, const char *msg, int fd);
/* One message into BUF (NUL-terminated), its descriptor (or -1) in *FD if
 * FD (else closed).  The length, or -errno (-ECONNRESET: the other side
 * closed). */
int lr_egress_recv(int sock, char *buf, size_t len, int *fd);

#endif /* LANDRUN_EGRESS_H */
