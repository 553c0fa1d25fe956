/* SPDX-License-Identifier: MIT */
/*
 * --allow-domain as data (egress-rules.c): the items, matching a request's
 * host and port, special addresses, and the HTTP heads the proxy reads and
 * writes, and where landrun finds its helper.  Tables, each with the cases that must pass beside the ones that
 * must not.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/egress/egress.h"
#include "landrun/policy/env.h"
#include "landrun/policy/options.h"
#include "landrun/policy/policy.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Items */

struct dest_case {
	const char *item;
	int r;			/* 0 or -EINVAL */
	enum lr_dest_kind kind;
	const char *host;
	uint16_t port;
	const char *text;	/* lr_egress_dest_text */
};

static const struct dest_case dest_cases[] = {
	{ "api.openai.com", 0, LR_DEST_NAME, "api.openai.com", 443, "api.openai.com:443" },
	{ "API.OpenAI.com.", 0, LR_DEST_NAME, "api.openai.com", 443, "api.openai.com:443" },
	{ "localhost:11434", 0, LR_DEST_NAME, "localhost", 11434, "localhost:11434" },
	{ "*.example.com", 0, LR_DEST_SUFFIX, ".example.com", 443, "*.example.com:443" },
	{ "*.example.com:8443", 0, LR_DEST_SUFFIX, ".example.com", 8443, "*.example.com:8443" },
	{ "a_b-c.example", 0, LR_DEST_NAME, "a_b-c.example", 443, "a_b-c.example:443" },
	{ "10.1.2.3", 0, LR_DEST_ADDR, "10.1.2.3", 443, "10.1.2.3:443" },
	{ "10.1.2.3:8080", 0, LR_DEST_ADDR, "10.1.2.3", 8080, "10.1.2.3:8080" },
	{ "127.1:80", 0, LR_DEST_ADDR, "127.0.0.1", 80, "127.0.0.1:80" },
	{ "::1", 0, LR_DEST_ADDR, "::1", 443, "[::1]:443" },
	{ "[fd00::1]:8080", 0, LR_DEST_ADDR, "fd00::1", 8080, "[fd00::1]:8080" },
	{ "[::ffff:10.0.0.1]", 0, LR_DEST_ADDR, "10.0.0.1", 443, "10.0.0.1:443" },
	{ .item = "", .r = -EINVAL },
	{ .item = ":443", .r = -EINVAL },
	{ .item = "a.com:", .r = -EINVAL },
	{ .item = "a.com:0", .r = -EINVAL },
	{ .item = "a.com:65536", .r = -EINVAL },
	{ .item = "a.com:44x", .r = -EINVAL },
	{ .item = "a.com:443:1", .r = -EINVAL },
	{ .item = "*", .r = -EINVAL },
	{ .item = "*.", .r = -EINVAL },
	{ .item = "*a.com", .r = -EINVAL },
	{ .item = "a.*.com", .r = -EINVAL },
	{ .item = "*.10.0.0.1", .r = -EINVAL },
	{ .item = "[10.0.0.1]", .r = -EINVAL },
	{ .item = "[a.com]:443", .r = -EINVAL },
	{ .item = "[::1", .r = -EINVAL },
	{ .item = "[::1]x", .r = -EINVAL },
	{ .item = "a..com", .r = -EINVAL },
	{ .item = "-a.com", .r = -EINVAL },
	{ .item = "a b.com", .r = -EINVAL },
	{ .item = "a/b.com", .r = -EINVAL },
	{ .item = "https://a.com", .r = -EINVAL },
	{ .item = "user@a.com", .r = -EINVAL },
	{ .item = "fe80::1%eth0", .r = -EINVAL },
	{ .item = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", .r = -EINVAL },
};

Test(egress_dest, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(dest_cases); i++) {
		const struct dest_case *c = &dest_cases[i];
		struct lr_dest d;
		char text[300];
		int r = lr_egress_parse_dest(c->item, &d);

		cr_expect_eq(r, c->r, "'%s': %d, want %d", c->item, r, c->r);
		if (r != 0 || c->r != 0)
			continue;
		cr_expect_eq(d.kind, c->kind, "'%s': kind %d", c->item, d.kind);
		cr_expect_str_eq(d.host, c->host, "'%s': host %s", c->item, d.host);
		cr_expect_eq(d.port, c->port, "'%s': port %u", c->item, d.port);
		cr_expect_str_eq(lr_egress_dest_text(&d, text, sizeof(text)), c->text, "'%s': %s",
				 c->item, text);
		lr_egress_dest_free(&d);
	}
}

/* The item as an option, on its own and in a list. */
Test(egress_dest, option)
{
	const struct lr_option *o = lr_option_find("allow-domain", 12);
	struct lr_opt_source src = { 0 };
	struct lr_opt_error err;
	struct lr_policy p;

	cr_assert_not_null(o);
	cr_expect(o->flags & LR_OPTF_LIST);
	lr_policy_init(&p);
	cr_expect_eq(lr_option_apply(&p, o, "api.openai.com", &src, &err), LR_OPT_RUN);
	cr_expect_eq(lr_option_apply(&p, o, "*.anthropic.com:8443", &src, &err), LR_OPT_RUN);
	cr_expect_eq(lr_option_apply(&p, o, "bad name", &src, &err), LR_OPT_ERROR);
	cr_expect(strstr(err.msg, "--allow-domain") && strstr(err.msg, "bad name"), "%s", err.msg);
	cr_assert_eq(p.n_allow_domains, 2);
	cr_expect_str_eq(p.allow_domains[1].host, ".anthropic.com");
	cr_expect_eq(p.allow_domains[1].port, 8443);
	lr_policy_free(&p);
}

/* ------------------------------------------------------------------------ */
/* Hosts of requests */

struct host_case {
	const char *host;
	int r;
	bool is_addr;
	const char *norm;
};

static const struct host_case host_cases[] = {
	{ "Api.Example.COM", 0, false, "api.example.com" },
	{ "api.example.com.", 0, false, "api.example.com" },
	{ "1.2.3.4", 0, true, "1.2.3.4" },
	/* what inet_aton (and so getaddrinfo) takes for IPv4 is one */
	{ "127.1", 0, true, "127.0.0.1" },
	{ "0x7f.1", 0, true, "127.0.0.1" },
	{ "2130706433", 0, true, "127.0.0.1" },
	{ "0177.0.0.1", 0, true, "127.0.0.1" },
	{ "::1", 0, true, "::1" },
	{ "::ffff:127.0.0.1", 0, true, "127.0.0.1" },
	{ .host = "", .r = -EINVAL },
	{ .host = "a b", .r = -EINVAL },
	{ .host = "a%b", .r = -EINVAL },
	{ .host = "fe80::1%lo", .r = -EINVAL },
	{ .host = "a..b", .r = -EINVAL },
	{ .host = "..", .r = -EINVAL },
};

Test(egress_host, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(host_cases); i++) {
		const struct host_case *c = &host_cases[i];
		char out[256];
		uint8_t addr[16];
		bool is_addr;
		int r = lr_egress_norm_host(c->host, out, sizeof(out), &is_addr, addr);

		cr_expect_eq(r, c->r, "'%s': %d, want %d", c->host, r, c->r);
		if (r || c->r)
			continue;
		cr_expect_eq(is_addr, c->is_addr, "'%s': is_addr", c->host);
		cr_expect_str_eq(out, c->norm, "'%s': %s", c->host, out);
	}
}

static struct lr_dest *dests(const char *const *items, size_t *n)
{
	struct lr_dest *d = calloc(16, sizeof(*d));

	cr_assert_not_null(d);
	for (*n = 0; items[*n]; (*n)++)
		cr_assert_eq(lr_egress_parse_dest(items[*n], &d[*n]), 0, "%s", items[*n]);
	return d;
}

static void free_dests(struct lr_dest *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lr_egress_dest_free(&d[i]);
	free(d);
}

Test(egress_match, names)
{
	static const char *const items[] = { "api.openai.com", "*.anthropic.com", "plain.test:80",
					     "10.0.0.7:8080", NULL };
	static const struct {
		const char *name;
		uint16_t port;
		bool allowed;
	} cases[] = {
		{ "api.openai.com", 443, true },
		{ "api.openai.com", 80, false },	/* the port is part of it */
		{ "openai.com", 443, false },
		{ "xapi.openai.com", 443, false },
		{ "api.openai.com.evil.com", 443, false },
		{ "a.api.openai.com", 443, false },	/* exact means exact */
		{ "api.anthropic.com", 443, true },
		{ "a.b.anthropic.com", 443, true },
		{ "anthropic.com", 443, false },	/* *.x is below x, not x */
		{ "evilanthropic.com", 443, false },
		{ "api.anthropic.com", 8443, false },
		{ "plain.test", 80, true },
		{ "plain.test", 443, false },
		{ "10.0.0.7", 8080, false },		/* an address item is no name */
	};
	size_t n;
	struct lr_dest *d = dests(items, &n);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		cr_expect_eq(lr_egress_name_allowed(d, n, cases[i].name, cases[i].port),
			     cases[i].allowed, "%s:%u", cases[i].name, cases[i].port);
	free_dests(d, n);
}

static void addr_of(const char *text, uint8_t addr[16])
{
	char out[64];
	bool is_addr;

	cr_assert_eq(lr_egress_norm_host(text, out, sizeof(out), &is_addr, addr), 0, "%s", text);
	cr_assert(is_addr, "%s", text);
}

Test(egress_match, addresses)
{
	static const char *const items[] = { "10.0.0.7:8080", "[fd00::5]", "api.openai.com", NULL };
	size_t n;
	struct lr_dest *d = dests(items, &n);
	uint8_t a[16];

	addr_of("10.0.0.7", a);
	cr_expect(lr_egress_addr_allowed(d, n, a, 8080));
	cr_expect_not(lr_egress_addr_allowed(d, n, a, 443));
	addr_of("::ffff:10.0.0.7", a);
	cr_expect(lr_egress_addr_allowed(d, n, a, 8080), "IPv4-mapped is the same address");
	addr_of("10.0.0.8", a);
	cr_expect_not(lr_egress_addr_allowed(d, n, a, 8080));
	addr_of("fd00::5", a);
	cr_expect(lr_egress_addr_allowed(d, n, a, 443));
	addr_of("fd00::6", a);
	cr_expect_not(lr_egress_addr_allowed(d, n, a, 443));
	free_dests(d, n);
}

/* ------------------------------------------------------------------------ */
/* Special addresses */

static const struct {
	const char *addr;
	const char *want;	/* NULL: global */
} class_cases[] = {
	{ "1.1.1.1", NULL },
	{ "8.8.8.8", NULL },
	{ "11.1.1.1", NULL },
	{ "100.63.255.255", NULL },
	{ "100.128.0.0", NULL },
	{ "172.15.255.255", NULL },
	{ "172.32.0.0", NULL },
	{ "192.169.0.1", NULL },
	{ "223.255.255.255", NULL },
	{ "0.0.0.0", "unspecified" },
	{ "0.1.2.3", "unspecified" },
	{ "127.0.0.1", "loopback" },
	{ "127.255.255.254", "loopback" },
	{ "10.0.0.1", "private" },
	{ "172.16.0.1", "private" },
	{ "172.31.255.255", "private" },
	{ "192.168.1.1", "private" },
	{ "100.64.0.1", "private" },
	{ "169.254.169.254", "link-local" },
	{ "192.0.0.8", "reserved" },
	{ "192.0.2.1", "reserved" },
	{ "198.18.0.1", "reserved" },
	{ "198.51.100.1", "reserved" },
	{ "203.0.113.1", "reserved" },
	{ "224.0.0.1", "multicast" },
	{ "239.255.255.250", "multicast" },
	{ "240.0.0.1", "reserved" },
	{ "255.255.255.255", "reserved" },
	{ "2606:4700::1111", NULL },
	{ "2a00:1450:4007::200e", NULL },
	{ "::", "unspecified" },
	{ "::1", "loopback" },
	{ "::ffff:127.0.0.1", "loopback" },
	{ "::ffff:8.8.8.8", NULL },
	{ "::127.0.0.1", "reserved" },		/* IPv4-compatible, deprecated */
	{ "64:ff9b::8.8.8.8", NULL },		/* NAT64 of a global address */
	{ "64:ff9b::10.0.0.1", "private" },
	{ "64:ff9b:1::1", "reserved" },
	{ "2002:0a00:0001::1", "private" },	/* 6to4 of 10.0.0.1 */
	{ "2002:0808:0808::1", NULL },
	{ "2001::1", "reserved" },		/* Teredo */
	{ "2001:db8::1", "reserved" },
	{ "3fff::1", "reserved" },
	{ "fd00::1", "unique-local" },
	{ "fc00::1", "unique-local" },
	{ "fe80::1", "link-local" },
	{ "febf::1", "link-local" },
	{ "fec0::1", "private" },
	{ "ff02::1", "multicast" },
	{ "100::1", "reserved" },
	{ "4000::1", "reserved" },		/* outside 2000::/3 */
};

Test(egress_class, table)
{
	for (size_t i = 0; i < ARRAY_SIZE(class_cases); i++) {
		uint8_t a[16];
		const char *got;

		addr_of(class_cases[i].addr, a);
		got = lr_egress_addr_class(a);
		if (class_cases[i].want)
			cr_expect(got && strcmp(got, class_cases[i].want) == 0, "%s: %s, want %s",
				  class_cases[i].addr, got ? got : "global", class_cases[i].want);
		else
			cr_expect_null(got, "%s: %s, want global", class_cases[i].addr, got);
	}
}

/* ------------------------------------------------------------------------ */
/* HTTP */

struct http_case {
	const char *head;
	int r;
	enum lr_http_kind kind;
	const char *host;
	uint16_t port;
	const char *target;
};

static const struct http_case http_cases[] = {
	{ "CONNECT api.openai.com:443 HTTP/1.1\r\nHost: api.openai.com:443\r\n\r\n", 0,
	  LR_HTTP_CONNECT, "api.openai.com", 443, "" },
	{ "CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", 0, LR_HTTP_CONNECT, "::1", 8443, "" },
	{ "CONNECT 10.0.0.1:22 HTTP/1.0\r\n\r\n", 0, LR_HTTP_CONNECT, "10.0.0.1", 22, "" },
	{ "GET http://a.test/x?y=1 HTTP/1.1\r\nHost: a.test\r\n\r\n", 0, LR_HTTP_ABSOLUTE,
	  "a.test", 80, "/x?y=1" },
	{ "POST HTTP://a.test:8080 HTTP/1.1\r\n\r\n", 0, LR_HTTP_ABSOLUTE, "a.test", 8080, "" },
	{ "GET http://[fd00::1]:81/ HTTP/1.1\r\n\r\n", 0, LR_HTTP_ABSOLUTE, "fd00::1", 81, "/" },
	{ .head = "CONNECT api.openai.com HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "CONNECT a.test:0 HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "CONNECT a.test:99999 HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "CONNECT user@a.test:443 HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "CONNECT [::1:443 HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://user:pw@a.test/ HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", .r = -ENOTSUP },
	{ .head = "GET https://a.test/ HTTP/1.1\r\n\r\n", .r = -ENOTSUP },
	{ .head = "GET ftp://a.test/ HTTP/1.1\r\n\r\n", .r = -ENOTSUP },
	{ .head = "get http://a.test/ HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/2.0\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/\r\n\r\n", .r = -EINVAL },
	{ .head = "CONNECT a.test:443 HTTP/1.1\r\n", .r = -EINVAL },		/* no blank line yet */
	{ .head = "\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: a\0b\r\n\r\n", .r = -EINVAL },
	/* malformed heads, which an upstream might read otherwise than the proxy */
	{ .head = "GET http://a.test/ HTTP/1.1\r\nHost : evil.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: 1\nHost: evil.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: 1\rHost: evil.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\nHost: evil.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: a\x1b[2Jb\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/\t HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\n: a\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX\r\n\r\n", .r = -EINVAL },
	{ .head = "GET http://a.test/ HTTP/1.1\r\nX(: a\r\n\r\n", .r = -EINVAL },
	{ .head = "POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
	  .r = -EINVAL },
	{ .head = "POST http://a.test/ HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", .r = -EINVAL },
	{ .head = "POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	  .r = -EINVAL },
	{ .head = "POST http://a.test/ HTTP/1.1\r\nContent-Length: \r\n\r\n", .r = -EINVAL },
	/* and their controls */
	{ "POST http://a.test/ HTTP/1.1\r\nContent-Length:  12 \r\ncontent-length: 12\r\n\r\n", 0,
	  LR_HTTP_ABSOLUTE, "a.test", 80, "/" },
	{ "GET http://a.test/ HTTP/1.1\r\nX-A.b_c~!#$%&'*+^`|: \ta b\t\r\n\r\n", 0,
	  LR_HTTP_ABSOLUTE, "a.test", 80, "/" },
};

Test(egress_http, parse)
{
	for (size_t i = 0; i < ARRAY_SIZE(http_cases); i++) {
		const struct http_case *c = &http_cases[i];
		struct lr_http_request req;
		const char *why = NULL;
		/* the NUL case: its whole head, past the NUL */
		size_t n = strlen(c->head);
		size_t len = n >= 6 && strcmp(c->head + n - 6, "\r\nX: a") == 0 ? n + 6 : n;
		int r = lr_http_parse(c->head, len, &req, &why);

		cr_expect_eq(r, c->r, "%zu '%.40s': %d, want %d", i, c->head, r, c->r);
		if (r < 0)
			cr_expect_not_null(why, "%zu: no reason", i);
		if (r || c->r)
			continue;
		cr_expect_eq(req.kind, c->kind, "%zu: kind", i);
		cr_expect_str_eq(req.host, c->host, "%zu: host %s", i, req.host);
		cr_expect_eq(req.port, c->port, "%zu: port %u", i, req.port);
		cr_expect_eq(req.head_len, strlen(c->head), "%zu: head_len", i);
		cr_expect_eq(req.body_len, strstr(c->head, "ength:  12") ? 12 : 0, "%zu: body_len", i);
		if (c->kind == LR_HTTP_ABSOLUTE)
			cr_expect(req.target_len == strlen(c->target) &&
					  strncmp(req.target, c->target, req.target_len) == 0,
				  "%zu: target '%.*s'", i, (int)req.target_len, req.target);
	}
}

/* The head sent upstream: origin form, Host from the URI, no proxy headers. */
Test(egress_http, upstream_head)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "GET http://a.test/x?y HTTP/1.1\r\nHost: evil.test\r\nUser-Agent: t\r\n"
		  "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n"
		  "Connection: keep-alive\r\nKeep-Alive: 5\r\nAccept: */*\r\n\r\nBODY",
		  "GET /x?y HTTP/1.1\r\nHost: a.test\r\nUser-Agent: t\r\nAccept: */*\r\n"
		  "Connection: close\r\n\r\n" },
		{ "POST http://a.test:8080 HTTP/1.0\r\nX-A: 1\r\n\r\n",
		  "POST / HTTP/1.0\r\nHost: a.test:8080\r\nX-A: 1\r\nConnection: close\r\n\r\n" },
		{ "GET http://[fd00::1]:81/ HTTP/1.1\r\nhost: x\r\nX-Tab:\ta\tb\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: [fd00::1]:81\r\nX-Tab:\ta\tb\r\nConnection: close\r\n\r\n" },
		/* Hostile: a header named like one to drop, longer */
		{ "GET http://a.test/ HTTP/1.1\r\nHostile: 1\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test\r\nHostile: 1\r\nConnection: close\r\n\r\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_request req;
		struct lr_buf out = { 0 };
		const char *why;

		cr_assert_eq(lr_http_parse(cases[i].in, strlen(cases[i].in), &req, &why), 0, "%zu: %s",
			     i, why);
		cr_assert_eq(lr_http_upstream_head(cases[i].in, &req, &out), 0);
		cr_expect_str_eq(out.s, cases[i].out, "%zu:\n%s", i, out.s);
		free(out.s);
	}
}

/* ------------------------------------------------------------------------ */
/* The command's environment and the ports */

Test(egress_env, set)
{
	struct lr_strlist env = { 0 };

	cr_assert_eq(lr_strlist_add(&env, "HTTPS_PROXY=http://corp:8080"), 0);
	cr_assert_eq(lr_strlist_add(&env, "PATH=/bin"), 0);
	cr_assert_eq(lr_egress_set_env(&env, 3128), 0);
	cr_expect_str_eq(lr_env_lookup(env.v, "HTTPS_PROXY"), "http://127.0.0.1:3128",
			 "a caller's proxy is replaced");
	cr_expect_str_eq(lr_env_lookup(env.v, "http_proxy"), "http://127.0.0.1:3128");
	cr_expect_str_eq(lr_env_lookup(env.v, "all_proxy"), "http://127.0.0.1:3128");
	cr_expect_str_eq(lr_env_lookup(env.v, "NO_PROXY"), "localhost,127.0.0.1,::1");
	cr_expect_str_eq(lr_env_lookup(env.v, "PATH"), "/bin");
	for (size_t i = 0, n = 0; i < env.n; i++)
		if (strncmp(env.v[i], "HTTPS_PROXY=", 12) == 0)
			cr_expect_eq(++n, 1, "HTTPS_PROXY twice");
	lr_strlist_free(&env);
}

Test(egress_ports, netns_port)
{
	struct lr_policy p;

	lr_policy_init(&p);
	cr_expect_eq(lr_egress_netns_port(&p), LR_EGRESS_PORT);
	cr_assert_eq(lr_option_parse_ports("11434", &p.connect_tcp, &p.n_connect_tcp), 0);
	cr_expect_eq(lr_egress_netns_port(&p), LR_EGRESS_PORT);
	cr_expect_eq(lr_egress_count_ports(&p), 1);
	cr_assert_eq(lr_option_parse_ports("3000-3200", &p.connect_tcp, &p.n_connect_tcp), 0);
	cr_expect_eq(lr_egress_netns_port(&p), 0, "3128 is forwarded: any free port");
	cr_expect_eq(lr_egress_count_ports(&p), 202);
	lr_policy_free(&p);
}

/* ------------------------------------------------------------------------ */
/* The helper's executable: beside landrun first, then the installed one */

static void make_file(const char *dir, const char *name, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f);
	fputs("#!/bin/true\n", f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

Test(egress_helper, find)
{
	char beside[] = "/tmp/lr-test-beside.XXXXXX", installed[] = "/tmp/lr-test-lib.XXXXXX";
	char err[1024], want[600];
	struct lr_egress e;

	cr_assert(mkdtemp(beside) && mkdtemp(installed));
	/* neither: both places named */
	lr_egress_init(&e);
	cr_assert_eq(lr_egress_find_helper(&e, beside, installed, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "not in %s/landrun-egress nor in %s/landrun-egress", beside,
		 installed);
	cr_assert(strstr(err, want), "%s", err);
	cr_assert_eq(e.helper_fd, -1);
	/* the installed one; one beside that cannot be executed does not count */
	make_file(installed, "landrun-egress", 0755);
	make_file(beside, "landrun-egress", 0644);
	cr_assert_eq(lr_egress_find_helper(&e, beside, installed, err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/landrun-egress", installed);
	cr_assert_str_eq(e.helper_path, want);
	cr_assert_geq(e.helper_fd, 0);
	close(e.helper_fd);
	/* beside landrun wins */
	lr_egress_init(&e);
	cr_assert_eq(chmod(strcat(strcpy(want, beside), "/landrun-egress"), 0755), 0);
	cr_assert_eq(lr_egress_find_helper(&e, beside, installed, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(e.helper_path, want);
	close(e.helper_fd);
	/* no directory of landrun's own known: the installed one alone */
	lr_egress_init(&e);
	cr_assert_eq(lr_egress_find_helper(&e, NULL, beside, err, sizeof(err)), 0, "%s", err);
	close(e.helper_fd);
	cr_assert_eq(lr_egress_find_helper(&e, NULL, "/nonexistent", err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "not in /nonexistent/landrun-egress (it is installed"), "%s", err);
	unlink(want);
	snprintf(want, sizeof(want), "%s/landrun-egress", installed);
	unlink(want);
	rmdir(beside);
	rmdir(installed);
}
