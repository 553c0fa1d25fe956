/* SPDX-License-Identifier: MIT */
/*
 * The intercepted hosts as data (egress-http.c): --secret-header and
 * --allow-request parsed, the secret's ${VAR} expanded, a request in the
 * tunnel parsed, judged and rewritten, and where its body ends.  Tables,
 * each with the cases that must pass beside the ones that must not.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/egress/egress.h"
#include "landrun/policy/cli.h"
#include "landrun/policy/config.h"
#include "landrun/policy/env.h"
#include "landrun/policy/options.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* The settings */

Test(egress_site, secret_header)
{
	static const struct {
		const char *arg;
		int r;
		const char *host;
		uint16_t port;
		const char *name, *value;
	} cases[] = {
		{ "api.openai.com=Authorization: Bearer ${OPENAI_API_KEY}", 0, "api.openai.com", 443,
		  "Authorization", "Bearer ${OPENAI_API_KEY}" },
		{ "API.Anthropic.com.:8443=x-api-key:${K_1}", 0, "api.anthropic.com", 8443, "x-api-key",
		  "${K_1}" },
		{ "a.test=X-Key: literal $5 and ${A}${B}", 0, "a.test", 443, "X-Key",
		  "literal $5 and ${A}${B}" },
		{ .arg = "api.openai.com", .r = -EINVAL },
		{ .arg = "=Authorization: x", .r = -EINVAL },
		{ .arg = "*.openai.com=Authorization: x", .r = -EINVAL },
		{ .arg = "10.0.0.1=Authorization: x", .r = -EINVAL },
		{ .arg = "a.test:0=Authorization: x", .r = -EINVAL },
		{ .arg = "a.test=Authorization", .r = -EINVAL },
		{ .arg = "a.test=Author ization: x", .r = -EINVAL },
		{ .arg = "a.test=Authorization :x", .r = -EINVAL },
		{ .arg = "a.test=Authorization:  ", .r = -EINVAL },
		{ .arg = "a.test=X: ${", .r = -EINVAL },
		{ .arg = "a.test=X: ${1A}", .r = -EINVAL },
		{ .arg = "a.test=X: ${A", .r = -EINVAL },
		{ .arg = "a.test=X: a\r\nEvil: b", .r = -EINVAL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_site *sites = NULL;
		size_t n = 0;
		const char *why = NULL;
		int r = lr_egress_parse_secret_header(cases[i].arg, &sites, &n, &why);

		cr_expect_eq(r, cases[i].r, "%zu '%s': %d (%s)", i, cases[i].arg, r, why);
		if (r < 0)
			cr_expect_not_null(why, "%zu: no reason", i);
		if (r == 0) {
			cr_assert_eq(n, 1);
			cr_expect_str_eq(sites[0].host, cases[i].host, "%zu", i);
			cr_expect_eq(sites[0].port, cases[i].port, "%zu", i);
			cr_expect_str_eq(sites[0].header_name, cases[i].name, "%zu", i);
			cr_expect_str_eq(sites[0].header_value, cases[i].value, "%zu", i);
		}
		lr_egress_sites_free(sites, n);
	}
}

Test(egress_site, one_secret_header_per_host)
{
	struct lr_http_site *sites = NULL;
	size_t n = 0;
	const char *why;

	cr_assert_eq(lr_egress_parse_secret_header("a.test=A: ${X}", &sites, &n, &why), 0);
	cr_assert_eq(lr_egress_parse_secret_header("b.test=A: ${X}", &sites, &n, &why), 0);
	cr_assert_eq(lr_egress_parse_secret_header("a.test:8443=A: ${X}", &sites, &n, &why), 0);
	cr_expect_eq(n, 3);
	cr_expect_eq(lr_egress_parse_secret_header("A.test=B: ${Y}", &sites, &n, &why), -EINVAL);
	cr_expect(strstr(why, "a second --secret-header"), "%s", why);
	/* --allow-request adds to the same site */
	cr_assert_eq(lr_egress_parse_allow_request("a.test=POST /v1/x", &sites, &n, &why), 0);
	cr_expect_eq(n, 3);
	cr_expect_eq(sites[0].n_allow, 1);
	cr_expect_eq(lr_egress_site_find(sites, n, "a.test", 8443), &sites[2]);
	cr_expect_null(lr_egress_site_find(sites, n, "c.test", 443));
	lr_egress_sites_free(sites, n);
}

static char *if_set_env(const char *name)
{
	static char set[] = "sk-set", empty[] = "";

	return strcmp(name, "SET") == 0 ? set : strcmp(name, "EMPTY") == 0 ? empty : NULL;
}

Test(egress_site, secret_header_if_set)
{
	struct lr_http_site *sites = NULL;
	size_t n = 0;
	const char *why;
	bool added;

	/* unset, or empty: nothing added, not even the host */
	cr_assert_eq(lr_egress_parse_secret_header_if_set("a.test=A: ${UNSET}", &sites, &n,
							  if_set_env, &added, &why), 0);
	cr_expect_not(added);
	cr_assert_eq(lr_egress_parse_secret_header_if_set("a.test=A: ${SET} ${EMPTY}", &sites, &n,
							  if_set_env, &added, &why), 0);
	cr_expect_not(added);
	cr_expect_eq(n, 0);
	/* checked all the same: a malformed one is refused, unset or not */
	cr_expect_eq(lr_egress_parse_secret_header_if_set("a.test A: ${UNSET}", &sites, &n,
							  if_set_env, &added, &why), -EINVAL);
	cr_expect_eq(lr_egress_parse_secret_header_if_set("*.test=A: ${UNSET}", &sites, &n,
							  if_set_env, &added, &why), -EINVAL);
	cr_expect_eq(n, 0);
	/* set: a secret header, its template kept */
	cr_assert_eq(lr_egress_parse_secret_header_if_set("A.test=Authorization: Bearer ${SET}",
							  &sites, &n, if_set_env, &added, &why), 0);
	cr_expect(added);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(sites[0].host, "a.test");
	cr_expect_str_eq(sites[0].header_name, "Authorization");
	cr_expect_str_eq(sites[0].header_value, "Bearer ${SET}");
	cr_expect(sites[0].header_if_set);
	/* a --secret-header after it replaces it ... */
	cr_assert_eq(lr_egress_parse_secret_header("a.test=X-Api-Key: ${OTHER}", &sites, &n, &why), 0);
	cr_expect_eq(n, 1);
	cr_expect_str_eq(sites[0].header_name, "X-Api-Key");
	cr_expect_not(sites[0].header_if_set);
	/* ... and one before it stays: the if-set one is dropped */
	cr_assert_eq(lr_egress_parse_secret_header_if_set("a.test=A: ${SET}", &sites, &n,
							  if_set_env, &added, &why), 0);
	cr_expect_not(added);
	cr_expect_str_eq(sites[0].header_name, "X-Api-Key");
	/* a host with rules only: its site gets the header */
	cr_assert_eq(lr_egress_parse_allow_request("b.test=POST /v1/x", &sites, &n, &why), 0);
	cr_assert_eq(lr_egress_parse_secret_header_if_set("b.test=A: ${SET}", &sites, &n,
							  if_set_env, &added, &why), 0);
	cr_expect(added);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(sites[1].header_name, "A");
	cr_expect_eq(sites[1].n_allow, 1);
	lr_egress_sites_free(sites, n);
}

Test(egress_site, allow_request)
{
	static const struct {
		const char *arg;
		int r;
		const char *method, *path;
		bool prefix;
	} cases[] = {
		{ "api.openai.com=POST /v1/responses", 0, "POST", "/v1/responses", false },
		{ "api.openai.com=GET /v1/models/*", 0, "GET", "/v1/models/", true },
		{ "api.openai.com=* /*", 0, "*", "/", true },
		{ "api.openai.com=DELETE /", 0, "DELETE", "/", false },
		{ "api.openai.com=WEBSOCKET /v1/responses", 0, "WEBSOCKET", "/v1/responses", false },
		{ .arg = "api.openai.com", .r = -EINVAL },
		{ .arg = "api.openai.com=POST", .r = -EINVAL },
		{ .arg = "api.openai.com=post /x", .r = -EINVAL },
		{ .arg = "api.openai.com=P*ST /x", .r = -EINVAL },
		{ .arg = "api.openai.com=POST x", .r = -EINVAL },
		{ .arg = "api.openai.com= /x", .r = -EINVAL },
		{ .arg = "api.openai.com=POST /a?b", .r = -EINVAL },
		{ .arg = "api.openai.com=POST /a#b", .r = -EINVAL },
		{ .arg = "api.openai.com=POST /a*b", .r = -EINVAL },
		{ .arg = "api.openai.com=POST /a b", .r = -EINVAL },
		{ .arg = "api.openai.com=POST  /a", .r = -EINVAL },
		{ .arg = "*.openai.com=POST /a", .r = -EINVAL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_site *sites = NULL;
		size_t n = 0;
		const char *why = NULL;
		int r = lr_egress_parse_allow_request(cases[i].arg, &sites, &n, &why);

		cr_expect_eq(r, cases[i].r, "%zu '%s': %d (%s)", i, cases[i].arg, r, why);
		if (r < 0)
			cr_expect_not_null(why, "%zu: no reason", i);
		if (r == 0) {
			cr_assert_eq(n, 1);
			cr_assert_eq(sites[0].n_allow, 1);
			cr_expect_null(sites[0].header_name);
			cr_expect_str_eq(sites[0].allow[0].method, cases[i].method, "%zu", i);
			cr_expect_str_eq(sites[0].allow[0].path, cases[i].path, "%zu", i);
			cr_expect_eq(sites[0].allow[0].prefix, cases[i].prefix, "%zu", i);
		}
		lr_egress_sites_free(sites, n);
	}
}

/* landrun's environment, for the expansion */
static char *lookup(const char *name)
{
	static char key[] = "sk-real-123", empty[] = "", nl[] = "a\nb", tab[] = "a\tb";

	return !strcmp(name, "KEY") ? key : !strcmp(name, "EMPTY") ? empty
					  : !strcmp(name, "NL")  ? nl
					  : !strcmp(name, "TAB") ? tab
								 : NULL;
}

Test(egress_site, expand)
{
	static const struct {
		const char *template;
		int r;
		const char *out;	/* or the variable at fault */
	} cases[] = {
		{ "Bearer ${KEY}", 0, "Bearer sk-real-123" },
		{ "${KEY}:${KEY} $KEY $", 0, "sk-real-123:sk-real-123 $KEY $" },
		{ "no variable", 0, "no variable" },
		{ "Bearer ${UNSET}", -ENOENT, "UNSET" },
		{ "Bearer ${KEY}${EMPTY}", -ENOENT, "EMPTY" },
		{ "Bearer ${NL}", -EINVAL, "NL" },
		{ "Bearer ${TAB}", -EINVAL, "TAB" },
		{ "Bearer ${", -EINVAL, "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *out = NULL, missing[64] = "";
		int r = lr_egress_expand_secret(cases[i].template, lookup, &out, missing,
						sizeof(missing));

		cr_expect_eq(r, cases[i].r, "%zu '%s': %d", i, cases[i].template, r);
		if (r == 0)
			cr_expect_str_eq(out, cases[i].out, "%zu", i);
		else
			cr_expect_str_eq(missing, cases[i].out, "%zu: %s", i, missing);
		free(out);
	}
}

Test(egress_site, vars)
{
	struct lr_strlist names = { 0 };

	cr_assert_eq(lr_egress_secret_vars("Bearer ${A} ${B_2}${A} $C", &names), 0);
	cr_assert_eq(names.n, 2);
	cr_expect_str_eq(names.v[0], "A");
	cr_expect_str_eq(names.v[1], "B_2");
	cr_expect_eq(lr_egress_secret_vars("${", &names), -EINVAL);
	lr_strlist_free(&names);
}

/* ------------------------------------------------------------------------ */
/* A request in the tunnel */

struct origin_case {
	const char *head;
	int r;
	const char *method, *host, *target;
	size_t path_len;
	enum lr_http_body_kind body;
	uint64_t body_len;
	bool websocket;
};

#define H11 " HTTP/1.1\r\nHost: a.test\r\n"

static const struct origin_case origin_cases[] = {
	{ "POST /v1/responses?x=1" H11 "Content-Length: 12\r\n\r\n", 0, "POST", "a.test",
	  "/v1/responses?x=1", 13, LR_HTTP_BODY_LENGTH, 12 },
	{ "POST /v1/files HTTP/1.1\r\nhost:  A.test:443 \r\nTransfer-Encoding:  Chunked \r\n\r\n",
	  0, "POST", "A.test:443", "/v1/files", 9, LR_HTTP_BODY_CHUNKED, 0 },
	{ "GET /" H11 "\r\n", 0, "GET", "a.test", "/", 1, LR_HTTP_BODY_NONE, 0 },
	{ "GET /a.b/..c/%41%7e/x.?q=/../" H11 "\r\n", 0, "GET", "a.test", "/a.b/..c/%41%7e/x.?q=/../",
	  18, LR_HTTP_BODY_NONE, 0 },
	/* a WebSocket's opening: both headers, whatever else they list */
	{ "GET /v1/responses" H11 "Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
	  "Sec-WebSocket-Key: dGhl\r\n\r\n", 0, "GET", "a.test", "/v1/responses", 13,
	  LR_HTTP_BODY_NONE, 0, true },
	{ "GET /v1/responses" H11 "Upgrade: websocket\r\n\r\n", 0, "GET", "a.test",
	  "/v1/responses", 13, LR_HTTP_BODY_NONE, 0, false },
	{ "GET /" H11 "Upgrade: h2c\r\nConnection: upgrade\r\n\r\n", 0, "GET", "a.test", "/", 1,
	  LR_HTTP_BODY_NONE, 0, false },
	{ "GET /" H11 "Upgrade: websocket\r\nConnection: upgrade\r\nContent-Length: 0\r\n\r\n", 0,
	  "GET", "a.test", "/", 1, LR_HTTP_BODY_LENGTH, 0, true },
	{ .head = "POST /" H11 "Upgrade: websocket\r\nConnection: upgrade\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "Upgrade: websocket\r\nConnection: upgrade\r\nContent-Length: 1\r\n"
		  "\r\n",
	  .r = -EINVAL },
	/* not origin form, not HTTP/1.1 */
	{ .head = "GET http://a.test/" H11 "\r\n", .r = -EINVAL },
	{ .head = "OPTIONS *" H11 "\r\n", .r = -EINVAL },
	{ .head = "CONNECT a.test:443" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET / HTTP/1.0\r\nHost: a.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET / HTTP/2\r\nHost: a.test\r\n\r\n", .r = -EINVAL },
	{ .head = "get /" H11 "\r\n", .r = -EINVAL },
	/* Host */
	{ .head = "GET / HTTP/1.1\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "Host: b.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET / HTTP/1.1\r\nHost: \r\n\r\n", .r = -EINVAL },
	/* paths an upstream could read otherwise */
	{ .head = "GET /v1/../files" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1/./files" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1/.." H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1//files" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1\\files" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1/%2e%2e/files" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1%2Ffiles" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1%5cfiles" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1%zz" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1%2" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1/\xc3\xa9" H11 "\r\n", .r = -EINVAL },
	{ .head = "GET /v1#frag" H11 "\r\n", .r = -EINVAL },
	/* the body's framing: one, and one the proxy can follow */
	{ .head = "POST /" H11 "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	  .r = -EINVAL },
	{ .head = "POST /" H11 "Transfer-Encoding: gzip, chunked\r\n\r\n", .r = -EINVAL },
	{ .head = "POST /" H11 "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	  .r = -EINVAL },
	{ .head = "POST /" H11 "Transfer-Encoding: chunked, identity\r\n\r\n", .r = -EINVAL },
	{ .head = "POST /" H11 "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", .r = -EINVAL },
	{ .head = "POST /" H11 "Content-Length: -5\r\n\r\n", .r = -EINVAL },
	/* the head itself, as lr_http_parse reads one */
	{ .head = "GET /" H11 "X: 1\nHost: b.test\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "X: 1\rY: 2\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "Authorization : Bearer x\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "X: a\r\n b\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11 "X: a\x01\r\n\r\n", .r = -EINVAL },
	{ .head = "GET /" H11, .r = -EINVAL },
};

Test(egress_origin, parse)
{
	for (size_t i = 0; i < ARRAY_SIZE(origin_cases); i++) {
		const struct origin_case *c = &origin_cases[i];
		struct lr_http_origin req;
		const char *why = NULL;
		int r = lr_http_parse_origin(c->head, strlen(c->head), &req, &why);

		cr_expect_eq(r, c->r, "%zu '%.50s': %d (%s)", i, c->head, r, why);
		if (r < 0) {
			cr_expect_not_null(why, "%zu: no reason", i);
			continue;
		}
		cr_expect_str_eq(req.method, c->method, "%zu", i);
		cr_expect_str_eq(req.host, c->host, "%zu", i);
		cr_expect(req.target_len == strlen(c->target) &&
				  !strncmp(req.target, c->target, req.target_len),
			  "%zu: target '%.*s'", i, (int)req.target_len, req.target);
		cr_expect_eq(req.path_len, c->path_len, "%zu: path_len %zu", i, req.path_len);
		cr_expect_eq(req.head_len, strlen(c->head), "%zu", i);
		cr_expect_eq(req.body, c->body, "%zu", i);
		cr_expect_eq(req.body_len, c->body_len, "%zu", i);
		cr_expect_eq(req.websocket, c->websocket, "%zu", i);
	}
}

/* The site of the tests: a secret header and two rules. */
static struct lr_http_site *site(bool secret, bool rules)
{
	static struct lr_http_allow allow[] = {
		{ "POST", "/v1/responses", false },
		{ "GET", "/v1/models/", true },
		{ "WEBSOCKET", "/v1/ws", false },
	};
	static struct lr_http_site s;

	s = (struct lr_http_site){ .host = "api.openai.com", .port = 443 };
	if (secret) {
		s.header_name = "Authorization";
		s.header_value = "Bearer sk-real-123";
	}
	if (rules) {
		s.allow = allow;
		s.n_allow = ARRAY_SIZE(allow);
	}
	return &s;
}

Test(egress_origin, judge)
{
	static const struct {
		const char *head;
		bool secret, rules;
		int status;
		const char *reason;	/* in it, when refused */
	} cases[] = {
		/* the rules */
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 0, NULL },
		{ "POST /v1/responses?stream=1 HTTP/1.1\r\nHost: api.openai.com:443\r\n\r\n", 1, 1,
		  0, NULL },
		{ "GET /v1/models/gpt-5 HTTP/1.1\r\nHost: API.openai.com.\r\n\r\n", 1, 1, 0, NULL },
		{ "POST /v1/files HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 403,
		  "POST /v1/files on api.openai.com:443 is not in --allow-request (3 rules" },
		{ "GET /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 403,
		  "GET /v1/responses on" },
		{ "POST /v1/responses/x HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 403,
		  "not in --allow-request" },
		{ "GET /v1/models HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 403,
		  "not in --allow-request" },
		{ "POST /v1/files HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 0, 0, NULL },
		/* a WebSocket is a rule's of its own: GET reads, a WebSocket writes too */
		{ "GET /v1/ws HTTP/1.1\r\nHost: api.openai.com\r\nUpgrade: websocket\r\n"
		  "Connection: Upgrade\r\n\r\n", 1, 1, 0, NULL },
		{ "GET /v1/ws HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 1, 1, 403,
		  "GET /v1/ws on" },
		{ "GET /v1/models/x HTTP/1.1\r\nHost: api.openai.com\r\nUpgrade: websocket\r\n"
		  "Connection: Upgrade\r\n\r\n", 1, 1, 403, "WEBSOCKET /v1/models/x on" },
		{ "GET /v1/ws HTTP/1.1\r\nHost: api.openai.com\r\nUpgrade: websocket\r\n"
		  "Connection: Upgrade\r\nAuthorization: Bearer sk-attacker\r\n\r\n", 1, 1, 403,
		  "(Authorization)" },
		/* the Host is the tunnel's */
		{ "POST /v1/responses HTTP/1.1\r\nHost: evil.test\r\n\r\n", 1, 1, 403, "another host" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com:8443\r\n\r\n", 1, 1, 403,
		  "another host" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com.evil.test\r\n\r\n", 1, 1, 403,
		  "another host" },
		/* credentials: the placeholder alone */
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Authorization: Bearer landrun-placeholder\r\n\r\n", 1, 1, 0, NULL },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "x-api-key: landrun-placeholder\r\n\r\n", 1, 1, 0, NULL },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Authorization: Bearer sk-attacker\r\n\r\n", 1, 1, 403,
		  "a credential of the command's own (Authorization)" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Authorization: Bearer landrun-placeholder\r\nX-Api-Key: sk-attacker\r\n\r\n", 1, 1,
		  403, "(X-Api-Key)" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "api-key: landrun-placeholderX\r\n\r\n", 1, 1, 403, "(api-key)" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Proxy-Authorization: Basic eDp5\r\n\r\n", 1, 1, 403, "(Proxy-Authorization)" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "x-goog-api-key: k\r\n\r\n", 1, 1, 403, "(x-goog-api-key)" },
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Authorization:\r\n\r\n", 1, 1, 403, "(Authorization)" },
		/* without a secret header, the command's own credential is its business */
		{ "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n"
		  "Authorization: Bearer sk-own\r\n\r\n", 0, 1, 0, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_origin req;
		struct lr_http_verdict v;
		const char *why;

		cr_assert_eq(lr_http_parse_origin(cases[i].head, strlen(cases[i].head), &req, &why),
			     0, "%zu: %s", i, why);
		lr_http_judge(site(cases[i].secret, cases[i].rules), cases[i].head, &req, &v);
		cr_expect_eq(v.status, cases[i].status, "%zu: %d (%s)", i, v.status, v.reason);
		if (cases[i].reason) {
			cr_expect(strstr(v.reason, cases[i].reason), "%zu: '%s'", i, v.reason);
			cr_expect_str_eq(v.error, "http_request_denied");
		}
		/* a refusal never repeats a credential's value, nor the secret */
		cr_expect(!strstr(v.reason, "sk-"), "%zu: %s", i, v.reason);
	}
}

Test(egress_origin, upstream_head)
{
	static const struct {
		const char *in;
		bool secret;
		const char *out;
	} cases[] = {
		{"POST /v1/responses?s=1 HTTP/1.1\r\nHost: API.openai.com:443\r\nUser-Agent: t\r\n"
		 "Authorization: Bearer landrun-placeholder\r\nConnection: keep-alive, X-Hop\r\n"
		 "X-Hop: 1\r\nKeep-Alive: 5\r\nProxy-Connection: x\r\nTE: trailers\r\n"
		 "Upgrade: h2c\r\nHTTP2-Settings: AA\r\nContent-Length: 2\r\n\r\n{}",
		 true,
		 "POST /v1/responses?s=1 HTTP/1.1\r\nHost: api.openai.com\r\nUser-Agent: t\r\n"
		 "Content-Length: 2\r\nAuthorization: Bearer sk-real-123\r\n\r\n"},
		{"GET / HTTP/1.1\r\nx-api-key: landrun-placeholder\r\nHost: api.openai.com\r\n"
		 "authorization: landrun-placeholder\r\nAccept: */*\r\n\r\n",
		 true,
		 "GET / HTTP/1.1\r\nHost: api.openai.com\r\nAccept: */*\r\n"
		 "Authorization: Bearer sk-real-123\r\n\r\n"},
		/* Expect is the proxy's to answer */
		{"POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\nExpect: 100-continue\r\n"
		 "Content-Length: 2\r\n\r\n",
		 true,
		 "POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\nContent-Length: 2\r\n"
		 "Authorization: Bearer sk-real-123\r\n\r\n"},
		/* no secret header: the command's own credential goes on; the
		 * command's last request is the upstream's too */
		{"GET / HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer own\r\n"
		 "Proxy-Authorization: Basic eDp5\r\nConnection: Keep-Alive , CLOSE\r\n\r\n",
		 false,
		 "GET / HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer own\r\n"
		 "Connection: close\r\n\r\n"},
		/* a WebSocket's opening asks the upstream for it again; its own
		 * headers go on */
		{"GET /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\nConnection: Upgrade\r\n"
		 "Upgrade: websocket\r\nSec-WebSocket-Key: dGhl\r\nSec-WebSocket-Version: 13\r\n"
		 "Authorization: Bearer landrun-placeholder\r\n\r\n",
		 true,
		 "GET /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\nSec-WebSocket-Key: dGhl\r\n"
		 "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer sk-real-123\r\n"
		 "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_origin req;
		struct lr_buf out = { 0 };
		const char *why;

		cr_assert_eq(lr_http_parse_origin(cases[i].in, strlen(cases[i].in), &req, &why), 0,
			     "%zu: %s", i, why);
		cr_assert_eq(lr_http_origin_upstream(site(cases[i].secret, false), cases[i].in, &req,
						     &out),
			     0);
		cr_expect_str_eq(out.s, cases[i].out, "%zu:\n%s", i, out.s);
		cr_expect_eq(req.expect_continue, strstr(cases[i].in, "100-continue") != NULL, "%zu",
			     i);
		cr_expect_eq(req.close, strstr(cases[i].out, "Connection: close") != NULL, "%zu",
			     i);
		free(out.s);
	}
}

/* ------------------------------------------------------------------------ */
/* Where the body ends */

struct body_case {
	const char *head, *rest;
	long body;		/* how much of REST is the body; -EINVAL: malformed */
};

#define POST "POST / HTTP/1.1\r\nHost: a.test\r\n"
#define CHUNKED POST "Transfer-Encoding: chunked\r\n\r\n"
#define SECOND "GET /v1/files HTTP/1.1\r\nHost: a.test\r\n\r\n"

static const struct body_case body_cases[] = {
	{ POST "\r\n", SECOND, 0 },
	{ POST "Content-Length: 0\r\n\r\n", SECOND, 0 },
	{ POST "Content-Length: 5\r\n\r\n", "hello" SECOND, 5 },
	{ POST "Content-Length: 5\r\n\r\n", "hel", 3 },
	{ CHUNKED, "5\r\nhello\r\n0\r\n\r\n" SECOND, 15 },
	{ CHUNKED, "0\r\n\r\n" SECOND, 5 },
	{ CHUNKED, "A;name=\"v\"\r\n0123456789\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n",
	  61 },
	/* a trailer field: the proxy judged the head only */
	{ CHUNKED, "3\r\nabc\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n" SECOND, -EPERM },
	{ CHUNKED, "0\r\nAuthorization: Bearer sk-own\r\n\r\n", -EPERM },
	/* a body that never ends: all of it so far */
	{ CHUNKED, "5\r\nhel", 6 },
	{ CHUNKED, "5\r\nhello\r\n", 10 },
	/* malformed */
	{ CHUNKED, "g\r\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "\r\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "5\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "5\r\nhelloX\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "5\r\nhello\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "5 \r\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "-5\r\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "5;a\nb\r\nhello\r\n0\r\n\r\n", -EINVAL },
	{ CHUNKED, "1000000000000000\r\n", -EINVAL },
	{ CHUNKED, "0\r\n folded: 1\r\n\r\n", -EINVAL },
	{ CHUNKED, "0\r\nX: 1\n\r\n", -EPERM }, /* refused at its name already */
	{ CHUNKED, "0\r\n\r\r", -EINVAL },
};

Test(egress_body, framing)
{
	for (size_t i = 0; i < ARRAY_SIZE(body_cases); i++) {
		const struct body_case *c = &body_cases[i];
		struct lr_http_origin req;
		struct lr_http_body whole, bytes;
		const char *why;
		size_t n = strlen(c->rest);
		long got, sum = 0;

		cr_assert_eq(lr_http_parse_origin(c->head, strlen(c->head), &req, &why), 0, "%zu: %s",
			     i, why);
		lr_http_body_init(&whole, &req);
		got = lr_http_body_feed(&whole, c->rest, n);
		cr_expect_eq(got, c->body, "%zu '%s': %ld, want %ld", i, c->rest, got, c->body);
		/* a byte at a time, as the network may hand it over: the same end */
		lr_http_body_init(&bytes, &req);
		for (size_t j = 0; j < n && !bytes.done; j++) {
			long one = lr_http_body_feed(&bytes, c->rest + j, 1);

			if (one < 0) {
				sum = one;
				break;
			}
			sum += one;
		}
		cr_expect_eq(sum, c->body, "%zu: byte by byte %ld", i, sum);
		if (c->body >= 0)
			cr_expect_eq(whole.done, bytes.done, "%zu", i);
		/* once done, nothing more belongs to it */
		if (whole.done)
			cr_expect_eq(lr_http_body_feed(&whole, SECOND, strlen(SECOND)), 0, "%zu", i);
	}
}

/* ------------------------------------------------------------------------ */
/* The settings as options: the command line, a policy file, the environment */

Test(egress_site, command_line)
{
	char *argv[] = { "landrun", "--secret-header",
			 "api.openai.com=Authorization: Bearer ${OPENAI_API_KEY}", "--allow-request",
			 "api.openai.com=POST /v1/responses", "--allow-domain", "example.com", "--",
			 "true", NULL };
	struct lr_policy p;
	struct lr_opt_error err;
	bool found = false;

	lr_policy_init(&p);
	cr_assert_eq(lr_cli_parse(8 + 1, argv, &p, &err), LR_OPT_RUN, "%s", err.msg);
	cr_assert_eq(p.n_egress_sites, 1);
	cr_expect_str_eq(p.egress_sites[0].header_value, "Bearer ${OPENAI_API_KEY}");
	cr_expect_eq(p.egress_sites[0].n_allow, 1);
	/* an intercepted host is an allowed destination, once */
	for (size_t i = 0; i < p.n_allow_domains; i++)
		if (!strcmp(p.allow_domains[i].host, "api.openai.com")) {
			cr_expect(!found, "listed twice");
			found = true;
		}
	cr_expect(found);
	lr_policy_free(&p);
}

Test(egress_site, command_line_errors)
{
	static const struct {
		const char *opt, *arg, *want;
	} cases[] = {
		/* the value may be a secret: the message repeats the host only */
		{ "--secret-header", "api.openai.com Authorization: sk-literal",
		  "--secret-header api.openai.com Authorization: sk-literal=...: not HOST=NAME: VALUE" },
		{ "--secret-header", "api.openai.com=Authorization sk-literal",
		  "--secret-header api.openai.com=...: not HOST=NAME: VALUE" },
		{ "--allow-request", "api.openai.com=post /x",
		  "--allow-request api.openai.com=...: METHOD is not upper-case" },
		{ "--secret-header", "*.openai.com=A: b", "--secret-header *.openai.com=...: HOST must be" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[] = { "landrun", (char *)cases[i].opt, (char *)cases[i].arg, "--", "true",
				 NULL };
		struct lr_policy p;
		struct lr_opt_error err;

		lr_policy_init(&p);
		cr_expect_eq(lr_cli_parse(5, argv, &p, &err), LR_OPT_ERROR, "%zu", i);
		cr_expect(strstr(err.msg, cases[i].want), "%zu: %s", i, err.msg);
		if (i == 1)
			cr_expect(!strstr(err.msg, "sk-literal"), "%zu: %s", i, err.msg);
		lr_policy_free(&p);
	}
	{
		char *argv[] = { "landrun", "--unrestricted-network", "--allow-request",
				 "a.test=GET /", "--", "true", NULL };
		struct lr_policy p;
		struct lr_opt_error err;

		lr_policy_init(&p);
		cr_expect_eq(lr_cli_parse(6, argv, &p, &err), LR_OPT_ERROR);
		cr_expect(strstr(err.msg, "conflict with --unrestricted-network"), "%s", err.msg);
		lr_policy_free(&p);
	}
}

/* In a policy file, ${VAR} of a secret header is landrun's to expand later,
 * not the reader's (which expands the other settings' ${VAR}). */
Test(egress_site, policy_file_keeps_the_template)
{
	char path[] = "/tmp/lr-test-secret-header.XXXXXX";
	struct lr_policy p;
	struct lr_opt_error err;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert(f);
	fputs("secret-header = api.openai.com=Authorization: Bearer ${LR_TEST_SECRET}\n"
	      "allow-request = api.openai.com=POST /v1/*\n",
	      f);
	fclose(f);
	setenv("LR_TEST_SECRET", "sk-from-the-environment", 1);
	lr_policy_init(&p);
	cr_assert_geq(lr_config_load_file(path, &p, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(p.n_egress_sites, 1);
	cr_expect_str_eq(p.egress_sites[0].header_value, "Bearer ${LR_TEST_SECRET}");
	cr_expect(p.egress_sites[0].allow[0].prefix);
	lr_policy_free(&p);
	unlink(path);
}

static char *lookup_env(const char *name)
{
	static char key[] = "sk-real-1234567", short_one[] = "abc";

	return !strcmp(name, "OPENAI_API_KEY") ? key : !strcmp(name, "SHORT") ? short_one : NULL;
}

/* The command's environment: the named variables, and any holding their
 * values (8 bytes or more), become the placeholder. */
Test(egress_site, placeholders)
{
	struct lr_policy p;
	struct lr_strlist env = { 0 };
	const char *why;

	lr_policy_init(&p);
	cr_assert_eq(lr_egress_parse_secret_header(
			     "api.openai.com=Authorization: Bearer ${OPENAI_API_KEY}${SHORT}",
			     &p.egress_sites, &p.n_egress_sites, &why),
		     0);
	cr_assert_eq(lr_env_set(&env, "OPENAI_API_KEY", "sk-real-1234567"), 0);
	cr_assert_eq(lr_env_set(&env, "COPY", "Bearer sk-real-1234567"), 0);
	cr_assert_eq(lr_env_set(&env, "SHORT", "abc"), 0);
	cr_assert_eq(lr_env_set(&env, "OTHER", "abcdef"), 0);
	cr_assert_eq(lr_egress_placeholders(&env, &p, lookup_env), 0);
	cr_expect_str_eq(lr_env_lookup(env.v, "OPENAI_API_KEY"), LR_EGRESS_PLACEHOLDER);
	cr_expect_str_eq(lr_env_lookup(env.v, "COPY"), LR_EGRESS_PLACEHOLDER);
	cr_expect_str_eq(lr_env_lookup(env.v, "SHORT"), LR_EGRESS_PLACEHOLDER);
	/* a short value is not looked for elsewhere: it would be everywhere */
	cr_expect_str_eq(lr_env_lookup(env.v, "OTHER"), "abcdef");
	cr_expect_null(lr_env_lookup(env.v, "ABSENT"));
	lr_strlist_free(&env);
	lr_policy_free(&p);
}

/* ------------------------------------------------------------------------ */
/* Where the upstream's answer ends, and whether the next request may follow */

Test(egress_answer, framing)
{
	static const struct {
		const char *method, *head;
		int ret, status;
		bool interim;
		enum lr_http_body_kind body;
		uint64_t len;
		bool close;
	} cases[] = {
		{"GET", "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_LENGTH, 12, false},
		{"POST", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_CHUNKED, 0, false},
		/* chunked last, after another coding, in one line or two */
		{"POST", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip ,Chunked\r\n\r\n", 0, 200,
		 false, LR_HTTP_BODY_CHUNKED, 0, false},
		{"POST",
		 "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
		 0, 200, false, LR_HTTP_BODY_CHUNKED, 0, false},
		/* chunked not last: to the close */
		{"POST", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 0, 200,
		 false, LR_HTTP_BODY_CLOSE, 0, true},
		/* both framings: chunked, and no next request */
		{"POST",
		 "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 0,
		 200, false, LR_HTTP_BODY_CHUNKED, 0, true},
		/* no framing: to the close */
		{"GET", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: Close\r\n\r\n", 0, 200,
		 false, LR_HTTP_BODY_LENGTH, 2, true},
		{"GET", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_LENGTH, 2, true},
		/* no body whatever the head says */
		{"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_NONE, 0, false},
		{"GET", "HTTP/1.1 204 No Content\r\n\r\n", 0, 204, false, LR_HTTP_BODY_NONE, 0,
		 false},
		{"GET", "HTTP/1.1 304 Not Modified\r\nContent-Length: 40\r\n\r\n", 0, 304, false,
		 LR_HTTP_BODY_NONE, 0, false},
		/* an interim answer: the final one follows */
		{"POST", "HTTP/1.1 100 Continue\r\n\r\n", 0, 100, true, LR_HTTP_BODY_NONE, 0,
		 false},
		{"GET", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", 0, 103, true,
		 LR_HTTP_BODY_NONE, 0, false},
		/* another protocol: to the close */
		{"GET", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 0, 101, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
		/* a reason may be empty */
		{"GET", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", 0, 200, false,
		 LR_HTTP_BODY_LENGTH, 0, false},
		/* not an answer's head: to the close */
		{"GET", "HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\n", -EINVAL, 0, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/2 200 OK\r\nContent-Length: 2\r\n\r\n", -EINVAL, 0, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/1.1 099 x\r\n\r\n", -EINVAL, 0, false, LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
		 -EINVAL, 0, false, LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\nX: y\r\n\r\n", -EINVAL, 0, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
		{"GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", -EINVAL, 0, false,
		 LR_HTTP_BODY_CLOSE, 0, true},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lr_http_answer a;
		int r = lr_http_parse_answer(cases[i].head, strlen(cases[i].head), cases[i].method,
					     &a);

		cr_expect_eq(r, cases[i].ret, "%zu: %d", i, r);
		if (r == 0) {
			cr_expect_eq(a.status, cases[i].status, "%zu: %d", i, a.status);
			cr_expect_eq(a.head_len, strlen(cases[i].head), "%zu", i);
		}
		cr_expect_eq(a.interim, cases[i].interim, "%zu", i);
		cr_expect_eq(a.body, cases[i].body, "%zu: %d", i, a.body);
		cr_expect_eq(a.body_len, cases[i].len, "%zu", i);
		cr_expect_eq(a.close, cases[i].close, "%zu", i);
	}
}

/* An answer's body as it streams: a chunked one ends where the next
 * answer would start; one to the close takes every byte and never ends. */
Test(egress_answer, body)
{
	static const char chunked[] = "4\r\nabcd\r\n0\r\n\r\nHTTP/1.1 200 OK";
	static const char trailer[] = "0\r\nServer-Timing: a;dur=1\r\n\r\nHTTP/1.1 200 OK";
	struct lr_http_body b;

	lr_http_body_start(&b, LR_HTTP_BODY_CHUNKED, 0);
	cr_expect_eq(lr_http_body_feed(&b, chunked, sizeof(chunked) - 1), 14);
	cr_expect(b.done);
	/* an answer's trailer fields go to the command, as they came */
	lr_http_body_start(&b, LR_HTTP_BODY_CHUNKED, 0);
	cr_expect_eq(lr_http_body_feed(&b, trailer, sizeof(trailer) - 1), 29);
	cr_expect(b.done);
	lr_http_body_start(&b, LR_HTTP_BODY_CHUNKED, 0);
	cr_expect_eq(lr_http_body_feed(&b, "0\r\nX: 1\n\r\n", 10), -EINVAL);
	lr_http_body_start(&b, LR_HTTP_BODY_CLOSE, 0);
	cr_expect_eq(lr_http_body_feed(&b, chunked, sizeof(chunked) - 1),
		     (long)sizeof(chunked) - 1);
	cr_expect(!b.done);
	lr_http_body_start(&b, LR_HTTP_BODY_LENGTH, 0);
	cr_expect(b.done);
}
