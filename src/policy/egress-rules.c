/* SPDX-License-Identifier: MIT */
/*
 * --allow-domain as data: parsing the items, matching a request's host and
 * port against them, telling special addresses from global ones, and reading
 * an HTTP proxy request's head.  Pure functions: no system calls, so that
 * they are unit-tested (tests/unit/test_egress.c) without a network.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "landrun/policy/egress-rules.h"

#define DEFAULT_PORT 443
#define HTTP_PORT 80
#define NAME_MAX_LEN 253
#define LABEL_MAX_LEN 63

static int parse_port(const char *s, size_t len, uint16_t *port)
{
	unsigned long v = 0;

	if (len == 0 || len > 5)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* A host name the resolver would look up: letters, digits, '-' and '_' in
 * labels of 1 to 63 characters, 253 in all (already lower case). */
static bool valid_name(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (const char *c = s;; c++) {
		if (*c == '.' || *c == '\0') {
			if (label == 0 || label > LABEL_MAX_LEN)
				return false;
			if (!*c)
				return true;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
			return false;
		if (*c == '-' && label == 0)
			return false;
		label++;
	}
}

static void v4_mapped(const struct in_addr *in, uint8_t addr[16])
{
	memset(addr, 0, 10);
	addr[10] = addr[11] = 0xff;
	memcpy(addr + 12, &in->s_addr, 4);
}

int lr_egress_norm_host(const char *host, char *out, size_t len, bool *is_addr, uint8_t addr[16])
{
	struct in6_addr in6;
	struct in_addr in;
	size_t n = strlen(host);

	*is_addr = false;
	if (n == 0 || n >= len)
		return -EINVAL;
	if (inet_pton(AF_INET6, host, &in6) == 1) {
		memcpy(addr, &in6, 16);
		*is_addr = true;
		lr_egress_addr_text(addr, out, len);
		return 0;
	}
	for (size_t i = 0; i <= n; i++)
		out[i] = (char)tolower((unsigned char)host[i]);
	if (n > 1 && out[n - 1] == '.')
		out[n - 1] = '\0';
	for (const char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return -EINVAL;
	/* whatever the resolver takes for an IPv4 address ("127.1", "0x7f.1",
	 * "2130706433") is one, whatever it looks like */
	if (inet_aton(out, &in) == 1) {
		v4_mapped(&in, addr);
		*is_addr = true;
		lr_egress_addr_text(addr, out, len);
		return 0;
	}
	return valid_name(out) ? 0 : -EINVAL;
}

int lr_egress_parse_dest(const char *item, struct lr_dest *d)
{
	char host[NAME_MAX_LEN + 3], norm[sizeof(host)];
	const char *end = item + strlen(item), *colon = NULL, *h = item;
	size_t hlen;
	bool is_addr, wildcard;

	memset(d, 0, sizeof(*d));
	d->port = DEFAULT_PORT;
	if (*item == '[') {
		const char *close = strchr(item, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -EINVAL;
		h = item + 1;
		hlen = (size_t)(close - h);
		if (close[1] == ':')
			colon = close + 1;
	} else {
		const char *first = strchr(item, ':'), *last = strrchr(item, ':');

		/* two colons or more: an IPv6 address without a port */
		colon = first && first == last ? first : NULL;
		hlen = colon ? (size_t)(colon - item) : (size_t)(end - item);
	}
	if (colon && parse_port(colon + 1, (size_t)(end - colon - 1), &d->port) < 0)
		return -EINVAL;
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	wildcard = strncmp(host, "*.", 2) == 0;
	if (lr_egress_norm_host(wildcard ? host + 2 : host, norm, sizeof(norm), &is_addr, d->addr) < 0)
		return -EINVAL;
	/* brackets are for IPv6 addresses only, and a wildcard for names */
	if ((*item == '[' && (!is_addr || !strchr(host, ':'))) || (wildcard && is_addr))
		return -EINVAL;
	d->kind = is_addr ? LR_DEST_ADDR : wildcard ? LR_DEST_SUFFIX : LR_DEST_NAME;
	if (wildcard && asprintf(&d->host, ".%s", norm) < 0)
		d->host = NULL;
	else if (!wildcard)
		d->host = strdup(norm);
	return d->host ? 0 : -ENOMEM;
}

void lr_egress_dest_free(struct lr_dest *d)
{
	free(d->host);
	d->host = NULL;
}

const char *lr_egress_dest_text(const struct lr_dest *d, char *buf, size_t len)
{
	bool v6 = d->kind == LR_DEST_ADDR && strchr(d->host, ':');

	snprintf(buf, len, "%s%s%s%s:%u", d->kind == LR_DEST_SUFFIX ? "*" : "", v6 ? "[" : "",
		 d->host, v6 ? "]" : "", d->port);
	return buf;
}

bool lr_egress_name_allowed(const struct lr_dest *d, size_t n, const char *name, uint16_t port)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++) {
		size_t slen = strlen(d[i].host);

		if (d[i].port != port)
			continue;
		if (d[i].kind == LR_DEST_NAME && strcmp(d[i].host, name) == 0)
			return true;
		if (d[i].kind == LR_DEST_SUFFIX && len > slen &&
		    strcmp(name + len - slen, d[i].host) == 0)
			return true;
	}
	return false;
}

bool lr_egress_addr_allowed(const struct lr_dest *d, size_t n, const uint8_t addr[16],
			    uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].kind == LR_DEST_ADDR && d[i].port == port && memcmp(d[i].addr, addr, 16) == 0)
			return true;
	return false;
}

/* ---------------------------------------------------------------- addresses */

struct net_range {
	uint8_t prefix[16];
	unsigned bits;
	const char *what;
};

static bool in_range(const uint8_t *a, const uint8_t *prefix, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;

	if (memcmp(a, prefix, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ prefix[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* IANA's special-purpose IPv4 registry, and multicast and the rest of 240/4. */
static const struct net_range v4_special[] = {
	{ { 0 }, 8, "unspecified" },			/* 0.0.0.0/8: "this network" */
	{ { 10 }, 8, "private" },
	{ { 100, 64 }, 10, "private" },			/* carrier-grade NAT */
	{ { 127 }, 8, "loopback" },
	{ { 169, 254 }, 16, "link-local" },		/* and cloud metadata services */
	{ { 172, 16 }, 12, "private" },
	{ { 192, 0, 0 }, 24, "reserved" },		/* IETF protocol assignments */
	{ { 192, 0, 2 }, 24, "reserved" },		/* documentation */
	{ { 192, 88, 99 }, 24, "reserved" },		/* 6to4 relays */
	{ { 192, 168 }, 16, "private" },
	{ { 198, 18 }, 15, "reserved" },		/* benchmarking */
	{ { 198, 51, 100 }, 24, "reserved" },		/* documentation */
	{ { 203, 0, 113 }, 24, "reserved" },		/* documentation */
	{ { 224 }, 4, "multicast" },
	{ { 240 }, 4, "reserved" },			/* and the broadcast address */
};

static const struct net_range v6_special[] = {
	{ { 0x01 }, 64, "reserved" },			/* 100::/64: discard */
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "reserved" },	/* documentation */
	{ { 0x20, 0x01 }, 23, "reserved" },		/* IETF: Teredo, benchmarking, ORCHID */
	{ { 0x3f, 0xff }, 20, "reserved" },		/* documentation */
	{ { 0x5f, 0x00 }, 16, "reserved" },		/* segment routing */
	{ { 0xfc }, 7, "unique-local" },
	{ { 0xfe, 0x80 }, 10, "link-local" },
	{ { 0xfe, 0xc0 }, 10, "private" },		/* site-local, deprecated */
	{ { 0xff }, 8, "multicast" },
};

static const char *range_class(const uint8_t *a, const struct net_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in_range(a, r[i].prefix, r[i].bits))
			return r[i].what;
	return NULL;
}

static const char *v4_class(const uint8_t *a)
{
	return range_class(a, v4_special, sizeof(v4_special) / sizeof(*v4_special));
}

const char *lr_egress_addr_class(const uint8_t a[16])
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff },
			     nat64[12] = { 0x00, 0x64, 0xff, 0x9b }, nat64_local[6] = { 0x00, 0x64,
											0xff, 0x9b, 0x00,
											0x01 };

	if (memcmp(a, zero, 16) == 0)
		return "unspecified";
	if (memcmp(a, zero, 15) == 0 && a[15] == 1)
		return "loopback";
	/* IPv4 inside IPv6: mapped, NAT64, 6to4; IPv4-compatible is deprecated */
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return v4_class(a + 12);
	if (memcmp(a, zero, 12) == 0)
		return "reserved";
	if (memcmp(a, nat64_local, 6) == 0)
		return "reserved";
	if (a[0] == 0x20 && a[1] == 0x02)
		return v4_class(a + 2);
	/* global unicast is 2000::/3; the rest is not assigned for it */
	if ((a[0] & 0xe0) != 0x20)
		return range_class(a, v6_special, sizeof(v6_special) / sizeof(*v6_special))
			       ?: "reserved";
	return range_class(a, v6_special, sizeof(v6_special) / sizeof(*v6_special));
}

const uint8_t lr_egress_loopback[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 };

int lr_egress_addr_from(const struct sockaddr *sa, uint8_t addr[16])
{
	if (sa->sa_family == AF_INET) {
		v4_mapped(&((const struct sockaddr_in *)sa)->sin_addr, addr);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

const char *lr_egress_addr_text(const uint8_t addr[16], char *buf, size_t len)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(addr, mapped, 12) == 0) {
		if (!inet_ntop(AF_INET, addr + 12, buf, (socklen_t)len))
			snprintf(buf, len, "?");
	} else if (!inet_ntop(AF_INET6, addr, buf, (socklen_t)len)) {
		snprintf(buf, len, "?");
	}
	return buf;
}

/* ---------------------------------------------------------------- ports */

static bool port_forwarded(const struct lr_policy *policy, uint16_t port)
{
	for (size_t i = 0; i < policy->n_connect_tcp; i++)
		if (policy->connect_tcp[i].first <= port && port <= policy->connect_tcp[i].last)
			return true;
	return false;
}

uint16_t lr_egress_netns_port(const struct lr_policy *policy)
{
	return port_forwarded(policy, LR_EGRESS_PORT) ? 0 : LR_EGRESS_PORT;
}

size_t lr_egress_count_ports(const struct lr_policy *policy)
{
	size_t n = 0;

	for (size_t i = 0; i < policy->n_connect_tcp; i++)
		n += (size_t)(policy->connect_tcp[i].last - policy->connect_tcp[i].first) + 1;
	return n;
}

/* ---------------------------------------------------------------- HTTP */

static int fail(const char **why, const char *text)
{
	*why = text;
	return -EINVAL;
}

/* "host:port", "[v6]:port" or (ABSOLUTE, DEFPORT given) without ":port". */
static int parse_authority(const char *s, size_t len, struct lr_http_request *req,
			   uint16_t defport, const char **why)
{
	const char *end = s + len, *h = s, *colon;
	size_t hlen;

	if (memchr(s, '@', len))
		return fail(why, "user information in the request target");
	if (len && *s == '[') {
		const char *close = memchr(s, ']', len);

		if (!close)
			return fail(why, "an unclosed '[' in the host");
		h = s + 1;
		hlen = (size_t)(close - h);
		colon = close + 1 < end ? close + 1 : NULL;
		if (colon && *colon != ':')
			return fail(why, "junk after the IPv6 address");
	} else {
		colon = memchr(s, ':', len);
		hlen = colon ? (size_t)(colon - s) : len;
	}
	if (hlen == 0 || hlen >= sizeof(req->host))
		return fail(why, "no host, or a host too long");
	memcpy(req->host, h, hlen);
	req->host[hlen] = '\0';
	if (colon)
		return parse_port(colon + 1, (size_t)(end - colon - 1), &req->port) < 0
			       ? fail(why, "not a port number")
			       : 0;
	if (!defport)
		return fail(why, "CONNECT needs host:port");
	req->port = defport;
	return 0;
}

static bool token_char(unsigned char c)
{
	return c && (isalnum(c) || strchr("!#$%&'*+-.^_`|~", c));
}

/* A Content-Length's value (blanks around it): into *LEN.  False if it is none. */
static bool content_length(const char *v, size_t n, size_t *len)
{
	size_t i = 0, digits = 0, value = 0;

	while (i < n && (v[i] == ' ' || v[i] == '\t'))
		i++;
	for (; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++) {
		if (value > (SIZE_MAX - 9) / 10)
			return false;
		value = value * 10 + (size_t)(v[i] - '0');
	}
	while (i < n && (v[i] == ' ' || v[i] == '\t'))
		i++;
	*len = value;
	return digits > 0 && i == n;
}

/* A Transfer-Encoding's value: "chunked" alone (blanks around it)? */
static bool only_chunked(const char *v, size_t n)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return n == 7 && strncasecmp(v, "chunked", 7) == 0;
}

int lr_http_check_head(const char *buf, size_t head_len, struct lr_http_fields *f,
		       const char **why)
{
	const char *end = buf + head_len - 2, *line, *eol;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < head_len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r' && (i + 1 == head_len || buf[i + 1] != '\n'))
			return fail(why, "a bare CR in the request head");
		if (c == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return fail(why, "a bare LF in the request head");
		if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f)
			return fail(why, "a control byte in the request head");
	}
	eol = memmem(buf, head_len, "\r\n", 2);
	if (memchr(buf, '\t', (size_t)(eol - buf)))
		return fail(why, "a tab in the request line");
	for (line = eol + 2; line < end; line = eol + 2) {
		size_t n, name = 0, value;

		eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
		n = (size_t)(eol - line);
		if (*line == ' ' || *line == '\t')
			return fail(why, "a folded header line");
		while (name < n && token_char((unsigned char)line[name]))
			name++;
		if (name == 0 || name == n || line[name] != ':')
			return fail(why, "a header line that is not NAME: VALUE (nothing, not even a "
					 "blank, between the name and the colon)");
		if (name == 17 && strncasecmp(line, "transfer-encoding", 17) == 0) {
			f->n_te++;
			f->chunked = f->n_te == 1 && only_chunked(line + 18, n - 18);
		}
		if (name == 4 && strncasecmp(line, "host", 4) == 0) {
			f->n_host++;
			f->host = line + 5;
			f->host_len = n - 5;
		}
		if (name != 14 || strncasecmp(line, "content-length", 14) != 0)
			continue;
		if (!content_length(line + name + 1, n - name - 1, &value))
			return fail(why, "a Content-Length that is not a number");
		if (f->have_length && value != f->length)
			return fail(why, "two Content-Lengths that differ");
		f->length = value;
		f->have_length = true;
	}
	return 0;
}

/* Every byte and every line of the head (HEAD_LEN bytes), as lr_http_parse says. */
static int check_head(const char *buf, size_t head_len, struct lr_http_request *req,
		      const char **why)
{
	struct lr_http_fields f;

	if (lr_http_check_head(buf, head_len, &f, why) < 0)
		return -EINVAL;
	if (f.n_te)
		return fail(why, "Transfer-Encoding in a plain http:// request: the proxy "
				 "forwards a body of a Content-Length only (https: is not "
				 "limited)");
	req->body_len = f.length;
	return 0;
}

int lr_http_parse(const char *buf, size_t len, struct lr_http_request *req, const char **why)
{
	const char *eol, *sp1, *sp2, *target, *head_end;
	size_t mlen, tlen;

	memset(req, 0, sizeof(*req));
	*why = NULL;
	head_end = memmem(buf, len, "\r\n\r\n", 4);
	if (!head_end)
		return fail(why, "no end of the request head");
	req->head_len = (size_t)(head_end - buf) + 4;
	if (memchr(buf, '\0', req->head_len))
		return fail(why, "a NUL byte in the request head");
	if (check_head(buf, req->head_len, req, why) < 0)
		return -EINVAL;
	eol = memmem(buf, len, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || (size_t)(eol - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return fail(why, "not an HTTP/1 request line");
	mlen = (size_t)(sp1 - buf);
	if (mlen == 0 || mlen >= sizeof(req->method))
		return fail(why, "no method, or one too long");
	for (size_t i = 0; i < mlen; i++)
		if (!isupper((unsigned char)buf[i]))
			return fail(why, "not a method");
	memcpy(req->method, buf, mlen);
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	if (strcmp(req->method, "CONNECT") == 0) {
		req->kind = LR_HTTP_CONNECT;
		return parse_authority(target, tlen, req, 0, why);
	}
	if (tlen < 7 || strncasecmp(target, "http://", 7) != 0) {
		*why = tlen && *target == '/' ? "a proxy request needs an absolute http:// URI"
					       : "only CONNECT and http:// requests are proxied "
						 "(https: use CONNECT)";
		return -ENOTSUP;
	}
	req->kind = LR_HTTP_ABSOLUTE;
	{
		const char *auth = target + 7, *path = auth;

		while (path < sp2 && *path != '/' && *path != '?' && *path != '#')
			path++;
		if (parse_authority(auth, (size_t)(path - auth), req, HTTP_PORT, why) < 0)
			return -EINVAL;
		req->target = path;
		req->target_len = (size_t)(sp2 - path);
	}
	return 0;
}

/* Headers a proxy consumes (or replaces) rather than forwards. */
static bool hop_header(const char *line, size_t len)
{
	static const char *const names[] = {
		"host", "connection", "proxy-connection", "proxy-authorization", "keep-alive",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t n = strlen(names[i]);

		if (len > n && line[n] == ':' && strncasecmp(line, names[i], n) == 0)
			return true;
	}
	return false;
}

int lr_http_upstream_head(const char *buf, const struct lr_http_request *req,
			  struct lr_buf *out)
{
	const char *end = buf + req->head_len - 2; /* the blank line's CRLF */
	const char *line = (const char *)memmem(buf, req->head_len, "\r\n", 2) + 2;
	bool v6 = strchr(req->host, ':') != NULL, dropping = false;
	char host[sizeof(req->host) + 16];
	int r;

	snprintf(host, sizeof(host), "%s%s%s", v6 ? "[" : "", req->host, v6 ? "]" : "");
	if (req->port != HTTP_PORT)
		snprintf(host + strlen(host), sizeof(host) - strlen(host), ":%u", req->port);
	r = lr_buf_add(out, req->method, strlen(req->method));
	r = r ?: lr_buf_add(out, " ", 1);
	if (req->target_len == 0 || *req->target != '/')
		r = r ?: lr_buf_add(out, "/", 1);
	r = r ?: lr_buf_add(out, req->target, req->target_len);
	/* " HTTP/1.x" as the client sent it */
	r = r ?: lr_buf_add(out, req->target + req->target_len, 9);
	r = r ?: lr_buf_add(out, "\r\nHost: ", 8);
	r = r ?: lr_buf_add(out, host, strlen(host));
	r = r ?: lr_buf_add(out, "\r\n", 2);
	while (r == 0 && line < end) {
		const char *eol = memmem(line, (size_t)(end - line) + 2, "\r\n", 2);
		size_t len = (size_t)(eol - line);

		/* a folded line continues the header before it */
		if (!len || (*line != ' ' && *line != '\t'))
			dropping = hop_header(line, len);
		if (!dropping)
			r = lr_buf_add(out, line, len + 2);
		line = eol + 2;
	}
	r = r ?: lr_buf_add(out, "Connection: close\r\n\r\n", 21);
	return r;
}
