/* SPDX-License-Identifier: MIT */
/*
 * The rules of egress by domain (--allow-domain, --allow-request,
 * --secret-header): their items, the names and addresses they let through,
 * and the HTTP heads the helper judges by them.  Pure functions
 * (egress-rules.c, egress-http.c), shared by the option parser, --explain and
 * the helper; landrun's side and the helper are in egress/ (egress/egress.h).
 */
#ifndef LANDRUN_EGRESS_RULES_H
#define LANDRUN_EGRESS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "landrun/lib/util.h"
#include "landrun/policy/policy.h"

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

/* How a request's or an answer's body ends. */
enum lr_http_body_kind {
	LR_HTTP_BODY_NONE,
	LR_HTTP_BODY_LENGTH,  /* Content-Length bytes */
	LR_HTTP_BODY_CHUNKED, /* up to the last chunk and the trailers' blank line */
	LR_HTTP_BODY_CLOSE,   /* an answer's: up to the end of the connection */
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
	bool close;		/* Connection: close: the last request of its connection */
	bool websocket;		/* Upgrade: websocket with Connection: upgrade (a GET, no
				 * body): judged as method WEBSOCKET, not GET */
};

/*
 * Parse a request's head in a tunnel (BUF, LEN bytes, the blank line
 * included) as strictly as lr_http_parse, and more: "METHOD /path
 * HTTP/1.1", one Host, a path no upstream reads as another one (no '.' or
 * '..' segment, no '//', no backslash, no %2e %2f %5c, every '%' a %XX),
 * and one framing of the body: a Content-Length, or Transfer-Encoding
 * "chunked" alone, not both; a WebSocket's opening (RFC 6455) a GET with
 * no body.  0, or -EINVAL with WHY (400).
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
 * HTTP2-Settings; and Expect, which the proxy answers), and with a secret
 * header, the client's credential headers dropped and the secret header
 * added; "Connection: close" last if the request has it (else the upstream
 * may keep the connection for the next request).  Into OUT.  0 or -ENOMEM.
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
	bool no_trailer;	/* a trailer field is refused (a request's) */
};

/* A request's: a trailer field in it is -EPERM (the proxy judged the head
 * only; a field after the body would pass unjudged). */
void lr_http_body_init(struct lr_http_body *b, const struct lr_http_origin *req);
/* The same for a body of KIND (LR_HTTP_BODY_LENGTH: LEN bytes); of
 * LR_HTTP_BODY_CLOSE, every byte is the body's and it is never done. */
void lr_http_body_start(struct lr_http_body *b, enum lr_http_body_kind kind, uint64_t len);

/*
 * The next LEN bytes of the stream after the head: how many of them are
 * the body's (all of them, or fewer where it ends: b->done), or -EINVAL for a
 * chunked body that is malformed (a size that is not hex, a chunk not
 * followed by CRLF, a bare CR or LF, a control byte in an extension or a
 * trailer, a folded trailer), or -EPERM at a trailer field of a request's.
 */
long lr_http_body_feed(struct lr_http_body *b, const char *buf, size_t len);

/* An upstream's answer to a request in a tunnel, as the proxy frames it
 * (RFC 9112, section 6.3). */
struct lr_http_answer {
	int status;
	size_t head_len; /* up to and with the blank line */
	bool interim;	 /* 1xx but 101: another head follows, for the same request */
	enum lr_http_body_kind body;
	uint64_t body_len; /* LR_HTTP_BODY_LENGTH */
	bool close;	   /* the connection ends after it: nothing more may be sent */
};

/*
 * The head of the answer to a METHOD request, in BUF (LEN bytes, its blank
 * line included): its status and how its body ends.  No body for HEAD, 1xx,
 * 204 and 304; a Transfer-Encoding of chunked alone, or one Content-Length
 * (several equal ones), frame it; anything else (another coding, both, no
 * framing at all, 101) runs to the close.  HTTP/1.0, "Connection: close" and
 * a body to the close end the connection; so do both framings, as a sign
 * that two parsers may differ.  0, or -EINVAL for a head that is not one
 * (its bytes then go to the command as they are, to the close).
 */
int lr_http_parse_answer(const char *buf, size_t len, const char *method, struct lr_http_answer *a);

#endif /* LANDRUN_EGRESS_RULES_H */
