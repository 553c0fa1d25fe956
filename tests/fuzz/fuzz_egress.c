/* SPDX-License-Identifier: MIT */
/*
 * What the egress helper reads from the sandboxed command (a proxy request's
 * head: lr_http_parse, then lr_http_upstream_head) and what it checks (the
 * host: lr_egress_norm_host and lr_egress_addr_class), a request inside an
 * intercepted tunnel (lr_http_parse_origin, lr_http_judge,
 * lr_http_origin_upstream, the body's framing), what it reads from an
 * intercepted host's upstream (lr_http_parse_answer, the answer's framing),
 * and the --allow-domain items (lr_egress_parse_dest), with their
 * invariants: a head parsed lies within the input and yields one Host and a
 * closing blank line; an answer that cannot be framed ends its connection;
 * a host or item that parses prints back to itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "landrun/egress/egress.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static size_t count_ci(const char *s, size_t len, const char *needle)
{
	size_t n = 0, nl = strlen(needle);

	for (size_t i = 0; i + nl <= len; i++)
		n += strncasecmp(s + i, needle, nl) == 0;
	return n;
}

static void head(const char *buf, size_t size)
{
	struct lr_http_request req;
	struct lr_buf out = { 0 };
	const char *why = NULL;
	int r = lr_http_parse(buf, size, &req, &why);

	lr_fuzz_check(r == 0 || ((r == -EINVAL || r == -ENOTSUP) && why), "result %d", r);
	if (r < 0)
		return;
	lr_fuzz_check(req.head_len <= size && req.head_len >= 4, "head_len %zu of %zu", req.head_len,
		      size);
	lr_fuzz_check(memcmp(buf + req.head_len - 4, "\r\n\r\n", 4) == 0, "no blank line at the end");
	lr_fuzz_check(req.host[0] && req.port, "host '%s' port %u", req.host, req.port);
	if (req.kind == LR_HTTP_CONNECT)
		return;
	lr_fuzz_check(req.target >= buf && req.target + req.target_len <= buf + req.head_len,
		      "target outside the head");
	r = lr_http_upstream_head(buf, &req, &out);
	lr_fuzz_check(r == 0 || r == -ENOMEM, "upstream head: %d", r);
	if (r < 0)
		return;
	lr_fuzz_check(out.len >= 4 && memcmp(out.s + out.len - 4, "\r\n\r\n", 4) == 0,
		      "the upstream head does not end with a blank line");
	lr_fuzz_check(memmem(out.s, out.len, "\r\n\r\n", 4) == out.s + out.len - 4,
		      "a blank line inside the upstream head");
	lr_fuzz_check(count_ci(out.s, out.len, "\r\nhost:") == 1, "not one Host header");
	for (size_t i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.s[i];

		lr_fuzz_check(c != '\r' || (i + 1 < out.len && out.s[i + 1] == '\n'),
			      "a bare CR sent upstream");
		lr_fuzz_check(c != '\n' || (i > 0 && out.s[i - 1] == '\r'), "a bare LF sent upstream");
		lr_fuzz_check(c >= 0x20 || c == '\r' || c == '\n' || c == '\t', "a control byte "
			      "sent upstream");
		lr_fuzz_check(c != 0x7f, "DEL sent upstream");
	}
	lr_fuzz_check(count_ci(out.s, out.len, "\r\nproxy-authorization:") == 0,
		      "Proxy-Authorization forwarded");
	free(out.s);
}

/* A request in an intercepted tunnel (egress-http.c): what goes upstream
 * is one well-formed head, with the secret header once and no credential
 * of the command's; the body's framing never takes more than it is given,
 * and nothing once done. */
static void origin(const char *buf, size_t size)
{
	static struct lr_http_allow allow[] = { { "POST", "/v1/responses", false },
						{ "*", "/v1/models/", true } };
	struct lr_http_site site = { .host = "api.openai.com", .port = 443,
				     .header_name = "Authorization",
				     .header_value = "Bearer sk-fuzz-secret", .allow = allow,
				     .n_allow = 2 };
	struct lr_http_origin req;
	struct lr_http_verdict v;
	struct lr_http_body b;
	struct lr_buf out = { 0 };
	const char *why = NULL;
	long took;
	int r = lr_http_parse_origin(buf, size, &req, &why);

	lr_fuzz_check(r == 0 || (r == -EINVAL && why), "origin: result %d", r);
	if (r < 0)
		return;
	lr_fuzz_check(req.head_len <= size && req.target >= buf &&
			      req.target + req.target_len <= buf + req.head_len &&
			      req.path_len <= req.target_len && *req.target == '/',
		      "origin: the target outside the head");
	lr_http_judge(&site, buf, &req, &v);
	lr_fuzz_check(v.status == 0 || (v.status == 403 && v.error && v.reason[0]),
		      "origin: verdict %d", v.status);
	/* (unless the command wrote it itself, in the path the reason repeats) */
	lr_fuzz_check(!strstr(v.reason, "sk-fuzz-secret") || memmem(buf, size, "sk-fuzz-secret", 14),
		      "the secret in a reason");
	r = lr_http_origin_upstream(&site, buf, &req, &out);
	lr_fuzz_check(r == 0 || r == -ENOMEM, "origin: upstream head %d", r);
	if (r == 0) {
		lr_fuzz_check(memmem(out.s, out.len, "\r\n\r\n", 4) == out.s + out.len - 4,
			      "origin: a blank line inside the upstream head");
		lr_fuzz_check(count_ci(out.s, out.len, "\r\nhost:") == 1, "origin: not one Host");
		lr_fuzz_check(count_ci(out.s, out.len, "\r\nauthorization:") == 1,
			      "origin: not one Authorization");
		lr_fuzz_check(count_ci(out.s, out.len, "\r\nx-api-key:") == 0,
			      "origin: the command's X-Api-Key forwarded");
		lr_fuzz_check(count_ci(out.s, out.len, "\r\nproxy-authorization:") == 0,
			      "origin: Proxy-Authorization forwarded");
	}
	free(out.s);
	lr_http_body_init(&b, &req);
	took = lr_http_body_feed(&b, buf + req.head_len, size - req.head_len);
	lr_fuzz_check(took == -EINVAL || took == -EPERM ||
			      (took >= 0 && (size_t)took <= size - req.head_len),
		      "origin: the body took %ld of %zu", took, size - req.head_len);
	if (took >= 0 && b.done)
		lr_fuzz_check(lr_http_body_feed(&b, buf, size) == 0, "origin: more after the end");
}

/* An upstream's answer: a head whose end is the blank line, and a framing
 * that is one of the kinds; its body never takes more than it is given.
 * What cannot be framed runs to the close, and so ends the connection. */
static void answer(const char *buf, size_t size)
{
	static const char *const methods[] = {"GET", "HEAD", "POST"};
	struct lr_http_answer a;
	struct lr_http_body b;

	for (size_t m = 0; m < sizeof(methods) / sizeof(*methods); m++) {
		int r = lr_http_parse_answer(buf, size, methods[m], &a);
		long took;

		lr_fuzz_check(r == 0 || r == -EINVAL, "answer: result %d", r);
		lr_fuzz_check(a.body <= LR_HTTP_BODY_CLOSE, "answer: framing %d", a.body);
		lr_fuzz_check(a.body != LR_HTTP_BODY_CLOSE || a.close,
			      "answer: a body to the close, and a next request");
		if (r < 0) {
			lr_fuzz_check(a.close && a.body == LR_HTTP_BODY_CLOSE,
				      "answer: unframed kept");
			continue;
		}
		lr_fuzz_check(a.head_len >= 16 && a.head_len <= size &&
				      memcmp(buf + a.head_len - 4, "\r\n\r\n", 4) == 0,
			      "answer: head_len %zu of %zu", a.head_len, size);
		lr_fuzz_check(a.status >= 100 && a.status <= 999, "answer: status %d", a.status);
		lr_fuzz_check(!a.interim || a.body == LR_HTTP_BODY_NONE, "answer: an interim body");
		if (m == 1)
			lr_fuzz_check(a.body == LR_HTTP_BODY_NONE || a.status == 101,
				      "answer: a body to HEAD");
		lr_http_body_start(&b, a.body, a.body_len);
		took = lr_http_body_feed(&b, buf + a.head_len, size - a.head_len);
		lr_fuzz_check(took == -EINVAL || (took >= 0 && (size_t)took <= size - a.head_len),
			      "answer: the body took %ld of %zu", took, size - a.head_len);
	}
}

static void host(const char *s)
{
	char norm[256], again[256];
	uint8_t addr[16], addr2[16];
	bool is_addr, is_addr2;

	if (lr_egress_norm_host(s, norm, sizeof(norm), &is_addr, addr) < 0)
		return;
	lr_fuzz_check(norm[0], "an empty host from '%s'", s);
	lr_fuzz_check(lr_egress_norm_host(norm, again, sizeof(again), &is_addr2, addr2) == 0,
		      "'%s' normalised to '%s', which does not parse", s, norm);
	lr_fuzz_check(strcmp(norm, again) == 0 && is_addr == is_addr2, "'%s' -> '%s' -> '%s'", s,
		      norm, again);
	if (is_addr) {
		lr_fuzz_check(memcmp(addr, addr2, 16) == 0, "'%s': the address changed", s);
		(void)lr_egress_addr_class(addr);
	}
}

static void dest(const char *s)
{
	struct lr_dest d, d2;
	char text[300];

	if (lr_egress_parse_dest(s, &d) < 0)
		return;
	lr_egress_dest_text(&d, text, sizeof(text));
	lr_fuzz_check(lr_egress_parse_dest(text, &d2) == 0, "'%s' printed as '%s', which does not parse",
		      s, text);
	lr_fuzz_check(d.kind == d2.kind && d.port == d2.port && strcmp(d.host, d2.host) == 0,
		      "'%s' -> '%s' is another item", s, text);
	lr_egress_dest_free(&d);
	lr_egress_dest_free(&d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	head(s, size);
	origin(s, size);
	answer(s, size);
	host(s);
	dest(s);
	free(s);
	return 0;
}
