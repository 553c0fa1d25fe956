/* SPDX-License-Identifier: MIT */
/*
 * The hosts whose requests the egress helper reads (--secret-header,
 * --allow-request), as data: the settings parsed, the secret header's
 * ${VAR} expanded, and each request inside the tunnel judged and rewritten
 * before anything of it goes upstream.  Pure functions (no system calls),
 * unit-tested in tests/unit/test_egress_http.c; egress/proxy.c does the I/O.
 *
 * A request is read as strictly as a plain http:// one (egress-rules.c):
 * an upstream must never read a head, or where its body ends, otherwise
 * than the proxy did, for what follows the body would then be a second
 * request that no rule saw.  So the body's framing (a Content-Length, or
 * chunked, whose end the chunk parser finds) bounds what is relayed; what
 * follows it is the next request's, read and judged as the first was.  The
 * answer is framed the same way (lr_http_parse_answer), so that the proxy
 * knows when the upstream has answered and the connection may carry the
 * next request; where it cannot know, the connection ends with the answer.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "landrun/policy/egress-rules.h"

#define METHOD_MAX 16

/* ---------------------------------------------------------------- settings */

static bool is_token(unsigned char c)
{
	return c && (isalnum(c) || strchr("!#$%&'*+-.^_`|~", c));
}

/* The site for HOST[:PORT] (a name: no address, no wildcard), found or added. */
static int site_of(struct lr_http_site **sites, size_t *n, const char *text, size_t len,
		   struct lr_http_site **out, const char **why)
{
	char item[300];
	struct lr_dest d;
	int r;

	if (len == 0 || len >= sizeof(item))
		return *why = "no HOST before '='", -EINVAL;
	memcpy(item, text, len);
	item[len] = '\0';
	r = lr_egress_parse_dest(item, &d);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || d.kind != LR_DEST_NAME) {
		if (r == 0)
			lr_egress_dest_free(&d);
		return *why = "HOST must be a host name with an optional :PORT (no address, no "
			      "wildcard: its certificate is made for that name)",
		       -EINVAL;
	}
	for (size_t i = 0; i < *n; i++)
		if ((*sites)[i].port == d.port && strcmp((*sites)[i].host, d.host) == 0) {
			lr_egress_dest_free(&d);
			*out = &(*sites)[i];
			return 0;
		}
	*out = lr_array_push(sites, n, sizeof(**out));
	if (!*out) {
		lr_egress_dest_free(&d);
		return -ENOMEM;
	}
	memset(*out, 0, sizeof(**out));
	(*out)->host = d.host;
	(*out)->port = d.port;
	return 0;
}

/* A ${VAR} at P ("${" seen): its name's length, or 0 if it is not one. */
static size_t var_name(const char *p, const char **end)
{
	size_t n = 0;

	if (!isalpha((unsigned char)p[2]) && p[2] != '_')
		return 0;
	while (isalnum((unsigned char)p[2 + n]) || p[2 + n] == '_')
		n++;
	if (p[2 + n] != '}')
		return 0;
	*end = p + 3 + n;
	return n;
}

/* Every "${" in TEMPLATE starts a ${NAME}. */
static bool template_valid(const char *t)
{
	const char *end;

	for (const char *p = strstr(t, "${"); p; p = strstr(end, "${"))
		if (!var_name(p, &end))
			return false;
	return true;
}

int lr_egress_parse_secret_header(const char *arg, struct lr_http_site **sites, size_t *n,
				  const char **why)
{
	const char *eq = strchr(arg, '='), *value;
	struct lr_http_site *s;
	size_t name = 0;
	int r;

	*why = NULL;
	if (!eq)
		return *why = "not HOST=NAME: VALUE", -EINVAL;
	r = site_of(sites, n, arg, (size_t)(eq - arg), &s, why);
	if (r < 0)
		return r;
	while (is_token((unsigned char)eq[1 + name]))
		name++;
	if (name == 0 || eq[1 + name] != ':')
		return *why = "not HOST=NAME: VALUE (a header's name, a colon, its value)", -EINVAL;
	value = eq + 2 + name;
	while (*value == ' ' || *value == '\t')
		value++;
	if (!*value)
		return *why = "no VALUE after the header's name", -EINVAL;
	for (const char *c = value; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return *why = "a control character in VALUE", -EINVAL;
	if (!template_valid(value))
		return *why = "a '${' in VALUE that is not ${NAME}", -EINVAL;
	if (s->header_name && !s->header_if_set)
		return *why = "a second --secret-header for this host", -EINVAL;
	free(s->header_name);
	free(s->header_value);
	s->header_if_set = false;
	s->header_name = strndup(eq + 1, name);
	s->header_value = strdup(value);
	return s->header_name && s->header_value ? 0 : -ENOMEM;
}

int lr_egress_parse_secret_header_if_set(const char *arg, struct lr_http_site **sites, size_t *n,
					 char *(*lookup)(const char *name), bool *added,
					 const char **why)
{
	struct lr_http_site *one = NULL, *s;
	struct lr_strlist vars = { 0 };
	size_t n_one = 0;
	bool set = true;
	int r;

	*added = false;
	/* checked on a list of its own, so that a refused one adds no site */
	r = lr_egress_parse_secret_header(arg, &one, &n_one, why);
	if (r == 0)
		r = lr_egress_secret_vars(one->header_value, &vars);
	for (size_t i = 0; r == 0 && i < vars.n; i++) {
		const char *v = lookup(vars.v[i]);

		set &= v && *v;
	}
	if (r == 0 && set) {
		const struct lr_http_site *old = lr_egress_site_find(*sites, *n, one->host, one->port);

		if (!old || !old->header_name) {
			r = site_of(sites, n, arg, (size_t)(strchr(arg, '=') - arg), &s, why);
			if (r == 0) {
				s->header_name = one->header_name;
				s->header_value = one->header_value;
				s->header_if_set = true;
				one->header_name = one->header_value = NULL;
				*added = true;
			}
		}
	}
	lr_strlist_free(&vars);
	lr_egress_sites_free(one, n_one);
	return r;
}

int lr_egress_parse_allow_request(const char *arg, struct lr_http_site **sites, size_t *n,
				  const char **why)
{
	const char *eq = strchr(arg, '='), *m, *sp, *path;
	struct lr_http_site *s;
	struct lr_http_allow *a;
	size_t plen;
	int r;

	*why = NULL;
	if (!eq)
		return *why = "not HOST=METHOD /PATH", -EINVAL;
	r = site_of(sites, n, arg, (size_t)(eq - arg), &s, why);
	if (r < 0)
		return r;
	m = eq + 1;
	sp = strchr(m, ' ');
	if (!sp || sp == m || (size_t)(sp - m) >= METHOD_MAX)
		return *why = "not HOST=METHOD /PATH", -EINVAL;
	for (const char *c = m; c < sp; c++)
		if (!isupper((unsigned char)*c) && !(*c == '*' && sp - m == 1))
			return *why = "METHOD is not upper-case letters (or *: any)", -EINVAL;
	path = sp + 1;
	plen = strlen(path);
	if (*path != '/')
		return *why = "PATH does not start with '/'", -EINVAL;
	for (size_t i = 0; i < plen; i++)
		if ((unsigned char)path[i] <= 0x20 || path[i] == 0x7f || path[i] == '?' ||
		    path[i] == '#' || (path[i] == '*' && i + 1 != plen))
			return *why = "PATH holds a blank, a control character, '?', '#', or a '*' "
				      "that is not its last character",
			       -EINVAL;
	a = lr_array_push(&s->allow, &s->n_allow, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	memcpy(a->method, m, (size_t)(sp - m));
	a->prefix = path[plen - 1] == '*';
	a->path = strndup(path, a->prefix ? plen - 1 : plen);
	return a->path ? 0 : -ENOMEM;
}

void lr_egress_sites_free(struct lr_http_site *sites, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(sites[i].host);
		free(sites[i].header_name);
		if (sites[i].header_value)
			explicit_bzero(sites[i].header_value, strlen(sites[i].header_value));
		free(sites[i].header_value);
		for (size_t j = 0; j < sites[i].n_allow; j++)
			free(sites[i].allow[j].path);
		free(sites[i].allow);
	}
	free(sites);
}

int lr_egress_secret_vars(const char *template, struct lr_strlist *names)
{
	const char *end;
	int r = 0;

	for (const char *p = strstr(template, "${"); r == 0 && p; p = strstr(end, "${")) {
		size_t n = var_name(p, &end);
		char *name;

		if (!n)
			return -EINVAL;
		name = strndup(p + 2, n);
		if (!name)
			return -ENOMEM;
		if (lr_strlist_contains(names, name))
			free(name);
		else
			r = lr_strlist_take(names, name);
	}
	return r;
}

int lr_egress_expand_secret(const char *template, char *(*lookup)(const char *name),
			    char **out, char *missing, size_t len)
{
	struct lr_buf b = { 0 };
	const char *p = template, *end;
	int r = lr_buf_add(&b, "", 0);

	while (r == 0 && *p) {
		const char *var = strstr(p, "${"), *value;
		char name[256];
		size_t n;

		if (!var) {
			r = lr_buf_add(&b, p, strlen(p));
			break;
		}
		n = var_name(var, &end);
		if (!n || n >= sizeof(name)) {
			r = -EINVAL;
			break;
		}
		memcpy(name, var + 2, n);
		name[n] = '\0';
		value = lookup(name);
		if (!value || !*value || strpbrk(value, "\r\n")) {
			snprintf(missing, len, "%s", name);
			r = !value || !*value ? -ENOENT : -EINVAL;
			break;
		}
		for (const char *c = value; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				snprintf(missing, len, "%s", name);
				r = -EINVAL;
			}
		r = r ?: lr_buf_add(&b, p, (size_t)(var - p));
		r = r ?: lr_buf_add(&b, value, strlen(value));
		p = end;
	}
	if (r < 0) {
		if (b.s)
			explicit_bzero(b.s, b.len);
		free(b.s);
		return r;
	}
	*out = b.s;
	return 0;
}

const struct lr_http_site *lr_egress_site_find(const struct lr_http_site *sites, size_t n,
					       const char *host, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (sites[i].port == port && strcmp(sites[i].host, host) == 0)
			return &sites[i];
	return NULL;
}

/* ---------------------------------------------------------------- the request */

static int bad(const char **why, const char *text)
{
	*why = text;
	return -EINVAL;
}

/* A path an upstream could read as another one: a dot segment, an empty
 * segment, a backslash, a dot, slash or backslash percent-encoded, or a '%'
 * that encodes nothing. */
static const char *ambiguous_path(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\')
			return "a backslash in the path";
		if (p[i] == '%') {
			char hex[3] = { 0 };

			if (i + 2 >= n || !isxdigit((unsigned char)p[i + 1]) ||
			    !isxdigit((unsigned char)p[i + 2]))
				return "a '%' in the path that is not %XX";
			memcpy(hex, p + i + 1, 2);
			if (!strcasecmp(hex, "2e") || !strcasecmp(hex, "2f") || !strcasecmp(hex, "5c"))
				return "a dot, slash or backslash percent-encoded in the path";
		}
		if (p[i] != '/')
			continue;
		if (i + 1 < n && p[i + 1] == '/')
			return "an empty segment ('//') in the path";
		if (i + 1 < n && p[i + 1] == '.' &&
		    (i + 2 == n || p[i + 2] == '/' ||
		     (p[i + 2] == '.' && (i + 3 == n || p[i + 3] == '/'))))
			return "a '.' or '..' segment in the path";
	}
	return NULL;
}

/* Each header line of the head: NAME's length in *NAME_LEN; the next line. */
static const char *next_line(const char *line, const char *end, size_t *len, size_t *name_len)
{
	const char *eol = memmem(line, (size_t)(end - line) + 2, "\r\n", 2);

	*len = (size_t)(eol - line);
	*name_len = (size_t)((const char *)memchr(line, ':', *len) - line);
	return eol + 2;
}

/*
 * The tokens of every NAME header of the head (BUF, HEAD_LEN bytes), in
 * order, comma-separated: does one of them equal TOKEN (LAST: is the last
 * one TOKEN)?  Blanks around each are not its.
 */
static bool header_token(const char *buf, size_t head_len, const char *name, const char *token,
			 bool last)
{
	const char *end = buf + head_len - 2, *line;
	size_t nl = strlen(name), tl = strlen(token), len, n;
	bool found = false;

	for (line = (const char *)memmem(buf, head_len, "\r\n", 2) + 2; line < end;) {
		const char *l = line, *v, *vend;

		line = next_line(line, end, &len, &n);
		if (n != nl || strncasecmp(l, name, nl) != 0)
			continue;
		for (v = l + n + 1, vend = l + len; v < vend;) {
			const char *t, *tend;

			while (v < vend && (*v == ' ' || *v == '\t'))
				v++;
			t = v;
			while (v < vend && *v != ',')
				v++;
			for (tend = v; tend > t && (tend[-1] == ' ' || tend[-1] == '\t'); tend--)
				;
			if (v < vend)
				v++;
			if (tend == t)
				continue;
			if ((size_t)(tend - t) == tl && strncasecmp(t, token, tl) == 0)
				found = true;
			else if (last)
				found = false;
		}
	}
	return found;
}

/* Expect: 100-continue (the client waits for a 100 before its body). */
static bool expects_continue(const char *buf, const struct lr_http_origin *req)
{
	const char *end = buf + req->head_len - 2;

	for (const char *l = (const char *)memmem(buf, req->head_len, "\r\n", 2) + 2; l < end;) {
		const char *eol = memmem(l, (size_t)(end - l) + 2, "\r\n", 2), *v = l + 7;

		if (eol - l >= 7 && strncasecmp(l, "expect:", 7) == 0) {
			while (*v == ' ' || *v == '\t')
				v++;
			if (eol - v >= 12 && strncasecmp(v, "100-continue", 12) == 0)
				return true;
		}
		l = eol + 2;
	}
	return false;
}

int lr_http_parse_origin(const char *buf, size_t len, struct lr_http_origin *req,
			 const char **why)
{
	const char *head_end, *eol, *sp1, *sp2, *amb;
	struct lr_http_fields f;
	size_t mlen;

	memset(req, 0, sizeof(*req));
	*why = NULL;
	head_end = memmem(buf, len, "\r\n\r\n", 4);
	if (!head_end)
		return bad(why, "no end of the request head");
	req->head_len = (size_t)(head_end - buf) + 4;
	if (memchr(buf, '\0', req->head_len))
		return bad(why, "a NUL byte in the request head");
	if (lr_http_check_head(buf, req->head_len, &f, why) < 0)
		return -EINVAL;
	eol = memmem(buf, len, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || (size_t)(eol - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.1", 8) != 0)
		return bad(why, "not an HTTP/1.1 request line");
	mlen = (size_t)(sp1 - buf);
	if (mlen == 0 || mlen >= sizeof(req->method))
		return bad(why, "no method, or one too long");
	for (size_t i = 0; i < mlen; i++)
		if (!isupper((unsigned char)buf[i]))
			return bad(why, "not a method");
	memcpy(req->method, buf, mlen);
	req->target = sp1 + 1;
	req->target_len = (size_t)(sp2 - req->target);
	if (req->target_len == 0 || *req->target != '/')
		return bad(why, "a request target that is not a path (origin form: /...)");
	for (size_t i = 0; i < req->target_len; i++)
		if ((unsigned char)req->target[i] > 0x7e || req->target[i] == '#')
			return bad(why, "a byte in the request target that a URI does not have");
	req->path_len = strcspn(req->target, "? ");
	if (req->path_len > req->target_len)
		req->path_len = req->target_len;
	amb = ambiguous_path(req->target, req->path_len);
	if (amb)
		return bad(why, amb);
	if (f.n_host != 1)
		return bad(why, f.n_host ? "more than one Host" : "no Host (HTTP/1.1 needs one)");
	while (f.host_len && (*f.host == ' ' || *f.host == '\t'))
		f.host++, f.host_len--;
	while (f.host_len && (f.host[f.host_len - 1] == ' ' || f.host[f.host_len - 1] == '\t'))
		f.host_len--;
	if (f.host_len == 0 || f.host_len >= sizeof(req->host))
		return bad(why, "an empty Host, or one too long");
	memcpy(req->host, f.host, f.host_len);
	req->host[f.host_len] = '\0';
	if (f.n_te && (f.have_length || f.n_te > 1 || !f.chunked))
		return bad(why, f.have_length ? "both Transfer-Encoding and Content-Length"
					      : "a Transfer-Encoding other than chunked alone");
	req->body = f.n_te ? LR_HTTP_BODY_CHUNKED : f.have_length ? LR_HTTP_BODY_LENGTH
								   : LR_HTTP_BODY_NONE;
	req->body_len = f.length;
	req->expect_continue = expects_continue(buf, req);
	req->close = header_token(buf, req->head_len, "connection", "close", false);
	req->websocket = header_token(buf, req->head_len, "upgrade", "websocket", false) &&
			 header_token(buf, req->head_len, "connection", "upgrade", false);
	if (req->websocket && (strcmp(req->method, "GET") != 0 ||
			       (req->body != LR_HTTP_BODY_NONE &&
				!(req->body == LR_HTTP_BODY_LENGTH && req->body_len == 0))))
		return bad(why, "a WebSocket opening that is not a GET without a body");
	return 0;
}

/* Does HOST (a Host header's value) name HOST:PORT of the tunnel? */
static bool host_matches(const char *value, const char *host, uint16_t port)
{
	size_t hl = strlen(host), vl = strlen(value);
	char p[8];

	if (vl < hl || strncasecmp(value, host, hl) != 0)
		return false;
	if (vl == hl || (vl == hl + 1 && value[hl] == '.'))
		return true;
	snprintf(p, sizeof(p), ":%u", port);
	return strcmp(value + hl, p) == 0;
}

/* Headers that carry a credential of the client's. */
static bool credential_header(const char *line, size_t name, const struct lr_http_site *site)
{
	static const char *const names[] = {
		"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == name && strncasecmp(line, names[i], name) == 0)
			return true;
	return site->header_name && strlen(site->header_name) == name &&
	       strncasecmp(line, site->header_name, name) == 0;
}

/* A credential's value that is the placeholder: "landrun-placeholder", or
 * "SCHEME landrun-placeholder" (Bearer, ...), blanks around it. */
static bool is_placeholder(const char *v, size_t n)
{
	size_t pl = strlen(LR_EGRESS_PLACEHOLDER), scheme = 0;

	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	while (scheme < n && is_token((unsigned char)v[scheme]))
		scheme++;
	if (scheme < n && v[scheme] == ' ') {
		v += scheme + 1;
		n -= scheme + 1;
	}
	return n == pl && memcmp(v, LR_EGRESS_PLACEHOLDER, pl) == 0;
}

/* The method rules see: a WebSocket's GET opens a channel both ways, which
 * a rule for GET (reading) does not allow; one for WEBSOCKET or * does. */
static const char *judged_method(const struct lr_http_origin *req)
{
	return req->websocket ? "WEBSOCKET" : req->method;
}

static bool rule_matches(const struct lr_http_allow *a, const struct lr_http_origin *req)
{
	size_t pl = strlen(a->path);

	if (strcmp(a->method, "*") != 0 && strcmp(a->method, judged_method(req)) != 0)
		return false;
	if (a->prefix)
		return req->path_len >= pl && memcmp(req->target, a->path, pl) == 0;
	return req->path_len == pl && memcmp(req->target, a->path, pl) == 0;
}

void lr_http_judge(const struct lr_http_site *site, const char *buf,
		   const struct lr_http_origin *req, struct lr_http_verdict *v)
{
	const char *end = buf + req->head_len - 2, *line;
	size_t len, name;
	bool allowed = site->n_allow == 0;

	memset(v, 0, sizeof(*v));
	if (!host_matches(req->host, site->host, site->port)) {
		v->status = 403;
		v->error = "http_request_denied";
		snprintf(v->reason, sizeof(v->reason), "the Host of a request in the tunnel to "
			 "%s:%u is another host", site->host, site->port);
		return;
	}
	for (size_t i = 0; !allowed && i < site->n_allow; i++)
		allowed = rule_matches(&site->allow[i], req);
	if (!allowed) {
		char path[124];
		size_t n = req->path_len < 120 ? req->path_len : 120;

		/* the command's bytes, into a quoted header value: no quote, no backslash */
		for (size_t i = 0; i < n; i++)
			path[i] = req->target[i] == '"' || req->target[i] == '\\' ? '?' : req->target[i];
		snprintf(path + n, sizeof(path) - n, "%s", n < req->path_len ? "..." : "");
		v->status = 403;
		v->error = "http_request_denied";
		snprintf(v->reason, sizeof(v->reason), "%s %s on %s:%u is not in --allow-request "
			 "(%zu rule%s for this host)", judged_method(req), path, site->host, site->port,
			 site->n_allow, site->n_allow == 1 ? "" : "s");
		return;
	}
	if (!site->header_name)
		return;
	line = (const char *)memmem(buf, req->head_len, "\r\n", 2) + 2;
	while (line < end) {
		const char *l = line;

		line = next_line(line, end, &len, &name);
		if (credential_header(l, name, site) && !is_placeholder(l + name + 1, len - name - 1)) {
			v->status = 403;
			v->error = "http_request_denied";
			/* the header's name only: its value is a credential */
			snprintf(v->reason, sizeof(v->reason), "a credential of the command's own (%.*s) "
				 "for %s:%u, where landrun sets %s: only %s is accepted in its place",
				 (int)(name > 40 ? 40 : name), l, site->host, site->port,
				 site->header_name, LR_EGRESS_PLACEHOLDER);
			return;
		}
	}
}

/* Headers the proxy consumes, replaces or must not pass on: hop-by-hop
 * ones (and what Connection names), Host (set anew), the credentials. */
static bool dropped(const char *line, size_t name, const struct lr_http_site *site,
		    const char *buf, const struct lr_http_origin *req)
{
	static const char *const names[] = {
		"host", "connection", "proxy-connection", "proxy-authorization", "keep-alive", "te",
		"upgrade", "http2-settings", "expect",
	};
	const char *end = buf + req->head_len - 2, *l;
	size_t len, n;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == name && strncasecmp(line, names[i], name) == 0)
			return true;
	if (credential_header(line, name, site))
		return site->header_name != NULL;
	/* a name listed in a Connection header is hop-by-hop too */
	for (l = (const char *)memmem(buf, req->head_len, "\r\n", 2) + 2; l < end;) {
		const char *c = l, *v, *vend;

		l = next_line(l, end, &len, &n);
		if (n != 10 || strncasecmp(c, "connection", 10) != 0)
			continue;
		for (v = c + 11, vend = c + len; v < vend;) {
			size_t t;

			while (v < vend && (*v == ' ' || *v == '\t' || *v == ','))
				v++;
			for (t = 0; v + t < vend && is_token((unsigned char)v[t]); t++)
				;
			if (t == name && strncasecmp(v, line, name) == 0)
				return true;
			v += t ? t : 1;
		}
	}
	return false;
}

int lr_http_origin_upstream(const struct lr_http_site *site, const char *buf,
			    const struct lr_http_origin *req, struct lr_buf *out)
{
	const char *end = buf + req->head_len - 2, *line;
	const char *first_end = memmem(buf, req->head_len, "\r\n", 2);
	char host[300];
	size_t len, name;
	int r;

	if (site->port == 443)
		snprintf(host, sizeof(host), "Host: %s\r\n", site->host);
	else
		snprintf(host, sizeof(host), "Host: %s:%u\r\n", site->host, site->port);
	r = lr_buf_add(out, buf, (size_t)(first_end - buf) + 2);
	r = r ?: lr_buf_add(out, host, strlen(host));
	for (line = first_end + 2; r == 0 && line < end;) {
		const char *l = line;

		line = next_line(line, end, &len, &name);
		if (!dropped(l, name, site, buf, req))
			r = lr_buf_add(out, l, len + 2);
	}
	if (r == 0 && site->header_name) {
		r = lr_buf_add(out, site->header_name, strlen(site->header_name));
		r = r ?: lr_buf_add(out, ": ", 2);
		r = r ?: lr_buf_add(out, site->header_value, strlen(site->header_value));
		r = r ?: lr_buf_add(out, "\r\n", 2);
	}
	/* the opening of a WebSocket asks for it again: the Connection and
	 * Upgrade the command sent were hop-by-hop, and dropped */
	if (r == 0 && req->websocket)
		r = lr_buf_add(out, "Connection: Upgrade\r\nUpgrade: websocket\r\n", 41);
	else if (r == 0 && req->close)
		r = lr_buf_add(out, "Connection: close\r\n", 19);
	return r ?: lr_buf_add(out, "\r\n", 2);
}

/* ---------------------------------------------------------------- the body */

enum {
	CH_SIZE,	/* hex digits of a chunk's size */
	CH_EXT,		/* after ';': an extension, up to CR */
	CH_SIZE_LF,	/* the LF of the size line */
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER,	/* the start of a trailer line, or of the final CRLF */
	CH_TRAILER_LINE,
	CH_TRAILER_LF,
	CH_FINAL_LF,
};

void lr_http_body_init(struct lr_http_body *b, const struct lr_http_origin *req)
{
	lr_http_body_start(b, req->body, req->body_len);
	b->no_trailer = true;
}

/* One byte of a chunked body: 0, -EINVAL, or -EPERM (a trailer field refused). */
static int chunk_byte(struct lr_http_body *b, unsigned char c)
{
	switch (b->state) {
	case CH_SIZE:
		if (isxdigit(c)) {
			if (b->digits++ >= 15)
				return -EINVAL; /* a chunk of 2^60 bytes is none */
			b->left = b->left * 16 + (uint64_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
			return 0;
		}
		if (!b->digits)
			return -EINVAL;
		if (c == ';') {
			b->state = CH_EXT;
			return 0;
		}
		if (c != '\r')
			return -EINVAL;
		b->state = CH_SIZE_LF;
		return 0;
	case CH_EXT:
		if (c == '\r')
			b->state = CH_SIZE_LF;
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -EINVAL;
		return 0;
	case CH_SIZE_LF:
		if (c != '\n')
			return -EINVAL;
		b->digits = 0;
		b->state = b->left ? CH_DATA : CH_TRAILER;
		return 0;
	case CH_DATA_CR:
		if (c != '\r')
			return -EINVAL;
		b->state = CH_DATA_LF;
		return 0;
	case CH_DATA_LF:
		if (c != '\n')
			return -EINVAL;
		b->state = CH_SIZE;
		return 0;
	case CH_TRAILER:
		if (c == '\r') {
			b->state = CH_FINAL_LF;
			return 0;
		}
		if (c == ' ' || c == '\t' || c == ':' || !is_token(c))
			return -EINVAL; /* no folding, a name first */
		if (b->no_trailer)
			return -EPERM;
		b->state = CH_TRAILER_LINE;
		return 0;
	case CH_TRAILER_LINE:
		if (c == '\r')
			b->state = CH_TRAILER_LF;
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -EINVAL;
		return 0;
	case CH_TRAILER_LF:
		if (c != '\n')
			return -EINVAL;
		b->state = CH_TRAILER;
		return 0;
	case CH_FINAL_LF:
		if (c != '\n')
			return -EINVAL;
		b->done = true;
		return 0;
	}
	return -EINVAL;
}

long lr_http_body_feed(struct lr_http_body *b, const char *buf, size_t len)
{
	size_t i = 0;

	if (b->done || b->kind == LR_HTTP_BODY_NONE)
		return 0;
	if (b->kind == LR_HTTP_BODY_CLOSE)
		return (long)len;
	if (b->kind == LR_HTTP_BODY_LENGTH) {
		size_t n = len < b->left ? len : (size_t)b->left;

		b->left -= n;
		b->done = b->left == 0;
		return (long)n;
	}
	while (i < len && !b->done) {
		int r;

		if (b->state == CH_DATA) {
			size_t n = len - i < b->left ? len - i : (size_t)b->left;

			i += n;
			b->left -= n;
			if (!b->left)
				b->state = CH_DATA_CR;
			continue;
		}
		r = chunk_byte(b, (unsigned char)buf[i++]);
		if (r < 0)
			return r;
	}
	return (long)i;
}

void lr_http_body_start(struct lr_http_body *b, enum lr_http_body_kind kind, uint64_t len)
{
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->left = kind == LR_HTTP_BODY_LENGTH ? len : 0;
	b->done = kind == LR_HTTP_BODY_NONE || (kind == LR_HTTP_BODY_LENGTH && len == 0);
}

/* ---------------------------------------------------------------- the answer */

int lr_http_parse_answer(const char *buf, size_t len, const char *method, struct lr_http_answer *a)
{
	const char *head_end = memmem(buf, len, "\r\n\r\n", 4), *why;
	struct lr_http_fields f;

	memset(a, 0, sizeof(*a));
	a->close = true;
	a->body = LR_HTTP_BODY_CLOSE;
	if (!head_end)
		return -EINVAL;
	a->head_len = (size_t)(head_end - buf) + 4;
	/* "HTTP/1.x SSS" then a blank (and a reason) or the line's end */
	if (a->head_len < 16 || memcmp(buf, "HTTP/1.", 7) != 0 ||
	    (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ' || !isdigit((unsigned char)buf[9]) ||
	    !isdigit((unsigned char)buf[10]) || !isdigit((unsigned char)buf[11]) ||
	    (buf[12] != ' ' && buf[12] != '\r'))
		return -EINVAL;
	if (lr_http_check_head(buf, a->head_len, &f, &why) < 0)
		return -EINVAL;
	a->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	if (a->status < 100)
		return -EINVAL;
	if (a->status == 101)
		return 0; /* a protocol of its own, to the close (the proxy asks for none) */
	a->close = buf[7] == '0' || header_token(buf, a->head_len, "connection", "close", false);
	if (a->status < 200) {
		a->interim = true;
		a->body = LR_HTTP_BODY_NONE;
		return 0;
	}
	if (strcmp(method, "HEAD") == 0 || a->status == 204 || a->status == 304) {
		a->body = LR_HTTP_BODY_NONE;
	} else if (f.n_te) {
		/* chunked last: chunked; else to the close; with a Content-Length
		 * too, one parser or another may be wrong: no next request */
		if (header_token(buf, a->head_len, "transfer-encoding", "chunked", true))
			a->body = LR_HTTP_BODY_CHUNKED;
		a->close = a->close || f.have_length || a->body == LR_HTTP_BODY_CLOSE;
	} else if (f.have_length) {
		a->body = LR_HTTP_BODY_LENGTH;
		a->body_len = f.length;
	} else {
		a->close = true;
	}
	return 0;
}
