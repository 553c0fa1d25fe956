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

#include "landrun/audit.h"
#include "landrun/policy.h"
#include "landrun/util.h"

/* The proxy's port inside a network namespace of the command's own (unless a
 * forwarded port takes it: then any free one). */
#define LR_EGRESS_PORT 3128
/* At most this many --connect-tcp ports are forwarded into the namespace. */
#define LR_EGRESS_MAX_FORWARDS 256

/* ---------------------------------------------------------------- the rules
 * Pure functions (egress-rules.c), shared by the option parser, --explain
 * and the helper. */

/* One --allow-domain item, "NAME[:PORT]", "*.SUFFIX[:PORT]", "ADDRESS[:PORT]"
 * or "[IPV6][:PORT]" (port 443 when not given), into *D (d->host malloc'd).
 * 0, -EINVAL or -ENOMEM. */
int lr_egress_parse_dest(const char *item, struct lr_dest *d);
void lr_egress_dest_free(struct lr_dest *d);

/* "NAME:PORT", "*.SUFFIX:PORT", "ADDRESS:PORT" or "[IPV6]:PORT" into BUF. */
const char *lr_egress_dest_text(const struct lr_dest *d, char *buf, size_t len);

/*
 * A request's host: lower case, without a trailing dot, and whether it is
 * an IP address in any form the resolver would take (inet_aton's "127.1" and
 * "0x7f.1" too), then in ADDR (IPv6, IPv4 as ::ffff:a.b.c.d).  0, or -EINVAL
 * for a host that is neither a valid name nor an address.
 */
int lr_egress_norm_host(const char *host, char *out, size_t len, bool *is_addr, uint8_t addr[16]);

/* Is the (normalised) NAME, port PORT, allowed by a name or *.suffix item? */
bool lr_egress_name_allowed(const struct lr_dest *d, size_t n, const char *name, uint16_t port);
/* Is ADDR (16 bytes, IPv4 mapped), port PORT, allowed by an address item? */
bool lr_egress_addr_allowed(const struct lr_dest *d, size_t n, const uint8_t addr[16],
			    uint16_t port);

/*
 * What kind of special address ADDR is (IPv4 mapped, and the IPv4 inside
 * NAT64, 6to4 and IPv4-compatible forms): "loopback", "private",
 * "link-local", "unique-local", "unspecified", "multicast" or "reserved"
 * (documentation, benchmarking, carrier-grade NAT, ...); NULL for an
 * ordinary global address.
 */
const char *lr_egress_addr_class(const uint8_t addr[16]);

/* ADDR (16 bytes) from/to a sockaddr; 0, or -EAFNOSUPPORT. */
int lr_egress_addr_from(const struct sockaddr *sa, uint8_t addr[16]);

/* 127.0.0.1 in that form (IPv4 mapped): where the proxy and the forwarded
 * ports listen on the host. */
extern const uint8_t lr_egress_loopback[16];
/* ADDR as text ("1.2.3.4", "2001:db8::1") into BUF. */
const char *lr_egress_addr_text(const uint8_t addr[16], char *buf, size_t len);

/* The proxy's port in a namespace for POLICY: LR_EGRESS_PORT, or 0 (a free
 * one) when a forwarded --connect-tcp port is that one. */
uint16_t lr_egress_netns_port(const struct lr_policy *policy);

/* Every --connect-tcp port, counted (ranges expanded). */
size_t lr_egress_count_ports(const struct lr_policy *policy);

/* An HTTP request's head, as the proxy reads it. */
enum lr_http_kind {
	LR_HTTP_CONNECT,	/* CONNECT host:port */
	LR_HTTP_ABSOLUTE,	/* METHOD http://host[:port]/path */
};

struct lr_http_request {
	enum lr_http_kind kind;
	char method[16];
	char host[256];		/* as written (brackets of an IPv6 literal removed) */
	uint16_t port;
	const char *target;	/* ABSOLUTE: the path and query in the head, "/..." or "" */
	size_t target_len;
	size_t head_len;	/* up to and with the blank line */
	size_t body_len;	/* ABSOLUTE: its Content-Length (0: none); the rest is not sent */
};

/*
 * Parse the head of a request in BUF (LEN bytes, the blank line included).
 * 0; or -EINVAL with a reason in WHY (for the 400 answer); -ENOTSUP for a
 * request that is neither CONNECT nor an absolute http:// URI.  Strict, so
 * that the upstream reads the head as the proxy did: every line ends with
 * CRLF (no bare CR or LF), no control byte but a tab in a header, no folded
 * header line, nothing (not even a blank) between a header's name and its
 * colon; for an http:// request, one Content-Length at most (its body's
 * length: what follows it is not forwarded) and no Transfer-Encoding.
 */
int lr_http_parse(const char *buf, size_t len, struct lr_http_request *req, const char **why);

/* What lr_http_check_head found in a head's header lines. */
struct lr_http_fields {
	bool have_length;	/* a Content-Length (all of them the same) */
	size_t length;
	unsigned n_te;		/* Transfer-Encoding lines */
	bool chunked;		/* one, and it says "chunked" alone */
	unsigned n_host;	/* Host lines; the last one's value (blanks around it): */
	const char *host;
	size_t host_len;
};

/*
 * The checks of lr_http_parse on every byte and header line of a head
 * (HEAD_LEN bytes, its blank line included), for either form of request;
 * what it found in *F.  0, or -EINVAL with WHY.
 */
int lr_http_check_head(const char *buf, size_t head_len, struct lr_http_fields *f,
		       const char **why);

/*
 * The head to send upstream for an ABSOLUTE request: the request line in
 * origin form, Host set to the target (a proxy must replace it), the proxy's
 * own headers and Connection dropped, "Connection: close" added.  Into OUT.
 * 0 or -ENOMEM.
 */
int lr_http_upstream_head(const char *buf, const struct lr_http_request *req,
			  struct lr_buf *out);

/* ---------------------------------------------------------------- intercepted hosts
 * --secret-header and --allow-request (egress-http.c, pure): the hosts whose
 * HTTPS the helper terminates, reads and rewrites (struct lr_http_site, in
 * policy.h). */

/* What the command gets where a secret header's variables were, and the one
 * value of a credential header the proxy lets it send (in place of its own). */
#define LR_EGRESS_PLACEHOLDER "landrun-placeholder"

/*
 * "HOST[:PORT]=NAME: VALUE" (--secret-header) and "HOST[:PORT]=METHOD /PATH"
 * (--allow-request, PATH maybe ending in '*') into the site of HOST:PORT in
 * *SITES (found or added; port 443 if none).  0; -EINVAL with WHY; -ENOMEM.
 * A VALUE's "${" must start a ${NAME}; it is expanded later, by landrun
 * (lr_egress_expand_secret), never by a policy file's reader.
 */
int lr_egress_parse_secret_header(const char *arg, struct lr_http_site **sites, size_t *n,
				  const char **why);
int lr_egress_parse_allow_request(const char *arg, struct lr_http_site **sites, size_t *n,
				  const char **why);

/*
 * --secret-header-if-set: ARG as --secret-header when every variable its
 * VALUE names is set and not empty in LOOKUP (landrun's environment: a
 * profile's provider key, held outside when the caller has one); else
 * nothing is added, and the host's requests keep the command's own
 * credential (a sign-in's token).  ARG is checked either way.  A
 * --secret-header for the same host, given before or after, wins.  *ADDED
 * says whether it was.  0; -EINVAL with WHY; -ENOMEM.
 */
int lr_egress_parse_secret_header_if_set(const char *arg, struct lr_http_site **sites, size_t *n,
					 char *(*lookup)(const char *name), bool *added,
					 const char **why);
void lr_egress_sites_free(struct lr_http_site *sites, size_t n);

/* The site of HOST:PORT (normalised), or NULL. */
const struct lr_http_site *lr_egress_site_find(const struct lr_http_site *sites, size_t n,
					       const char *host, uint16_t port);

/* The variables TEMPLATE names (${NAME}), added to NAMES once each.  0,
 * -EINVAL, -ENOMEM. */
int lr_egress_secret_vars(const char *template, struct lr_strlist *names);

/*
 * TEMPLATE with each ${NAME} replaced by LOOKUP(NAME) (getenv: landrun's own
 * environment, the caller's), into *OUT (malloc'd).  0; -ENOENT (unset or
 * empty) or -EINVAL (a control character in it, which would end the header)
 * with that NAME in MISSING; -ENOMEM.
 */
int lr_egress_expand_secret(const char *template, char *(*lookup)(const char *name), char **out,
			    char *missing, size_t len);

/* How a request's body ends. */
enum lr_http_body_kind {
	LR_HTTP_BODY_NONE,
	LR_HTTP_BODY_LENGTH,	/* Content-Length bytes */
	LR_HTTP_BODY_CHUNKED,	/* up to the last chunk and the trailers' blank line */
};

/* A request in a tunnel: origin form, HTTP/1.1. */
struct lr_http_origin {
	char method[16];
	char host[256];		/* its Host's value, as written */
	const char *target;	/* "/path?query", in the head */
	size_t target_len;
	size_t path_len;	/* of the target, up to '?' */
	size_t head_len;	/* up to and with the blank line */
	enum lr_http_body_kind body;
	uint64_t body_len;	/* LR_HTTP_BODY_LENGTH */
	bool expect_continue;	/* Expect: 100-continue: the proxy answers the 100 itself */
};

/*
 * Parse a request's head in a tunnel (BUF, LEN bytes, the blank line
 * included) as strictly as lr_http_parse, and more: "METHOD /path
 * HTTP/1.1", one Host, a path no upstream reads as another one (no '.' or
 * '..' segment, no '//', no backslash, no %2e %2f %5c, every '%' a %XX),
 * and one framing of the body: a Content-Length, or Transfer-Encoding
 * "chunked" alone, not both.  0, or -EINVAL with WHY (400).
 */
int lr_http_parse_origin(const char *buf, size_t len, struct lr_http_origin *req,
			 const char **why);

/* The proxy's answer to a request. */
struct lr_http_verdict {
	int status;		/* 0: forward it; 403 */
	const char *error;	/* RFC 9209 Proxy-Status error */
	char reason[320];	/* for the body and the log: never a header's value */
};

/*
 * Judge a parsed request of SITE: its Host must be the site's; with rules,
 * one must match its method and path; with a secret header, no credential
 * header (Authorization, Proxy-Authorization, X-Api-Key, Api-Key,
 * X-Goog-Api-Key, the secret header's own name) may carry anything but the
 * placeholder ("landrun-placeholder", or "Bearer landrun-placeholder").
 */
void lr_http_judge(const struct lr_http_site *site, const char *buf,
		   const struct lr_http_origin *req, struct lr_http_verdict *v);

/*
 * The head to send upstream: the request line as it came, Host set to the
 * site's, hop-by-hop headers dropped (Connection and what it names,
 * Keep-Alive, Proxy-Connection, Proxy-Authorization, TE, Upgrade,
 * HTTP2-Settings; and Expect, which the proxy answers), and with a secret header, the client's credential headers
 * dropped and the secret header added; "Connection: close" last.  Into OUT.
 * 0 or -ENOMEM.
 */
int lr_http_origin_upstream(const struct lr_http_site *site, const char *buf,
			    const struct lr_http_origin *req, struct lr_buf *out);

/* A request's body as it streams: where it ends. */
struct lr_http_body {
	enum lr_http_body_kind kind;
	uint64_t left;		/* of the Content-Length, or of the chunk */
	bool done;		/* its end was seen: nothing after it is the body */
	int state;		/* the chunk parser's */
	unsigned digits;	/* of the chunk size being read */
};

void lr_http_body_init(struct lr_http_body *b, const struct lr_http_origin *req);

/*
 * The next LEN bytes of the stream after the head: how many of them are
 * the body's (all of them, or fewer where it ends: b->done), or -EINVAL for a
 * chunked body that is malformed (a size that is not hex, a chunk not
 * followed by CRLF, a bare CR or LF, a control byte in an extension or a
 * trailer, a folded trailer).
 */
long lr_http_body_feed(struct lr_http_body *b, const char *buf, size_t len);

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
