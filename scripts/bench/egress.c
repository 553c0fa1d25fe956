/* SPDX-License-Identifier: MIT */
/*
 * egress: the client and server of scripts/bench-egress.sh.
 *
 *   egress serve PORTFILE
 *       listen on 127.0.0.1 (a free port, written to PORTFILE); each
 *       connection sends one line: "echo" (then every byte is sent back) or
 *       "send N" (then N bytes come back and the connection closes)
 *   egress latency N HOST PORT
 *       N connections one after the other, each: connect, "echo", one byte
 *       there and back, close; prints the median and mean microseconds
 *   egress throughput BYTES HOST PORT
 *       one connection, "send BYTES", read them all; prints MB/s
 *
 *   egress serve-tls PORTFILE CERT KEY
 *       listen on 127.0.0.1 (a free port, written to PORTFILE) for HTTPS
 *       with CERT and KEY (PEM); each request of a connection, one at a
 *       time: "GET /echo" (a body of one byte) or "GET /send/N" (N bytes);
 *       the connection kept until the client closes it, or asks to
 *       (Connection: close)
 *   egress https-latency N HOST PORT
 *       N HTTPS requests one after the other, each on a new connection
 *       (connect, TLS with SNI and the certificate verified, GET /echo, the
 *       answer read); prints the median and mean microseconds
 *   egress https-keepalive N HOST PORT
 *       the same N requests on one connection, kept (after a first one,
 *       not timed), as an HTTP client keeps it: each request's time alone
 *   egress https-throughput BYTES HOST PORT
 *       one HTTPS request, GET /send/BYTES, its body read; prints MB/s
 *
 * HOST PORT is reached directly, or, when HTTPS_PROXY is set (as landrun
 * --allow-domain sets it), through that proxy with CONNECT HOST:PORT: the
 * set-up then includes the proxy's answer.  The HTTPS client trusts the CAs
 * of the file SSL_CERT_FILE names, and only those: the test CA, given by the
 * bench, or the bundle landrun makes for an intercepted host (the test CA
 * then the run's).  OpenSSL's configuration file is never loaded, by the
 * client or the server, so that each way runs the same OpenSSL whatever it
 * may read.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define CHUNK (1 << 20)

static void die(const char *what) __attribute__((noreturn));
static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			die("write");
		buf += n;
		len -= (size_t)n;
	}
}

static int tcp_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	int fd, one = 1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		die("getaddrinfo");
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) < 0)
		die("connect");
	freeaddrinfo(res);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* A connection to HOST:PORT, through $HTTPS_PROXY when it is set. */
static int open_conn(const char *host, const char *port)
{
	const char *proxy = getenv("HTTPS_PROXY");
	char phost[64], pport[8], req[512], resp[512];
	size_t len = 0;
	int fd;

	if (!proxy || !*proxy)
		return tcp_to(host, port);
	if (sscanf(proxy, "http://%63[^:]:%7[0-9]", phost, pport) != 2) {
		fprintf(stderr, "egress: HTTPS_PROXY %s: not http://HOST:PORT\n", proxy);
		exit(1);
	}
	fd = tcp_to(phost, pport);
	snprintf(req, sizeof(req), "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", host, port,
		 host, port);
	write_all(fd, req, strlen(req));
	/* the answer, byte by byte: what follows it is the upstream's */
	while (len < sizeof(resp) - 1 && !(len >= 4 && memcmp(resp + len - 4, "\r\n\r\n", 4) == 0)) {
		if (read(fd, resp + len, 1) != 1)
			die("reading the proxy's answer");
		len++;
	}
	resp[len] = '\0';
	if (strncmp(resp, "HTTP/1.1 200", 12) != 0) {
		fprintf(stderr, "egress: the proxy answered: %s", resp);
		exit(1);
	}
	return fd;
}

static void *serve_one(void *arg)
{
	int fd = (int)(long)arg;
	char line[64], *buf;
	size_t len = 0;
	long long n;

	while (len < sizeof(line) - 1 && read(fd, line + len, 1) == 1 && line[len] != '\n')
		len++;
	line[len] = '\0';
	if (strcmp(line, "echo") == 0) {
		char b[4096];
		ssize_t r;

		while ((r = read(fd, b, sizeof(b))) > 0)
			write_all(fd, b, (size_t)r);
	} else if (sscanf(line, "send %lld", &n) == 1 && (buf = calloc(1, CHUNK))) {
		while (n > 0) {
			size_t k = n > CHUNK ? CHUNK : (size_t)n;

			write_all(fd, buf, k);
			n -= (long long)k;
		}
		free(buf);
	}
	close(fd);
	return NULL;
}

static int serve(const char *portfile) __attribute__((noreturn));
static int serve(const char *portfile)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	FILE *f;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(l, 128) < 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) < 0)
		die("listen");
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%u\n", ntohs(sin.sin_port)) < 0 || fclose(f) != 0)
		die(portfile);
	for (;;) {
		int fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;

		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&t, NULL, serve_one, (void *)(long)fd) != 0)
			close(fd);
		else
			pthread_detach(t);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int latency(int n, const char *host, const char *port)
{
	double *t = calloc((size_t)n, sizeof(*t)), sum = 0;

	if (!t)
		die("calloc");
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		int fd = open_conn(host, port);
		char c;

		write_all(fd, "echo\nx", 6);
		if (read(fd, &c, 1) != 1 || c != 'x')
			die("echo");
		close(fd);
		t[i] = now_us() - t0;
		sum += t[i];
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("%.1f %.1f\n", t[n / 2], sum / n);
	free(t);
	return 0;
}

static int throughput(long long bytes, const char *host, const char *port)
{
	char *buf = malloc(CHUNK), cmd[64];
	long long got = 0;
	double t0;
	int fd;

	if (!buf)
		die("malloc");
	fd = open_conn(host, port);
	snprintf(cmd, sizeof(cmd), "send %lld\n", bytes);
	t0 = now_us();
	write_all(fd, cmd, strlen(cmd));
	for (;;) {
		ssize_t r = read(fd, buf, CHUNK);

		if (r < 0)
			die("read");
		if (r == 0)
			break;
		got += r;
	}
	if (got != bytes) {
		fprintf(stderr, "egress: got %lld bytes of %lld\n", got, bytes);
		return 1;
	}
	printf("%.1f\n", (double)bytes / (now_us() - t0));
	close(fd);
	free(buf);
	return 0;
}

/* HTTPS: the server's and the client's */

static void die_tls(const char *what) __attribute__((noreturn));
static void die_tls(const char *what)
{
	fprintf(stderr, "egress: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

static void tls_write_all(SSL *s, const char *buf, size_t len)
{
	while (len) {
		int n = SSL_write(s, buf, len > CHUNK ? CHUNK : (int)len);

		if (n <= 0)
			die_tls("SSL_write");
		buf += n;
		len -= (size_t)n;
	}
}

/* One answer on S to the request whose head is HEAD: false if it was the
 * connection's last. */
static bool answer_tls(SSL *s, const char *head)
{
	bool last = strcasestr(head, "\r\nConnection: close\r\n") != NULL;
	char hdr[160], *buf;
	long long n = -1;

	if (strncmp(head, "GET /echo ", 10) == 0)
		n = 1;
	else if (sscanf(head, "GET /send/%lld ", &n) != 1)
		n = -1;
	if (n < 0) {
		static const char bad[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
					  "Connection: close\r\n\r\n";

		tls_write_all(s, bad, sizeof(bad) - 1);
		return false;
	}
	snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n%s\r\n", n,
		 last ? "Connection: close\r\n" : "");
	if (n == 1) {
		/* the head and the byte in one record, as a small answer goes */
		strcat(hdr, "x");
		tls_write_all(s, hdr, strlen(hdr));
		return !last;
	}
	tls_write_all(s, hdr, strlen(hdr));
	if (!(buf = calloc(1, CHUNK)))
		return false;
	while (n > 0) {
		size_t k = n > CHUNK ? CHUNK : (size_t)n;

		tls_write_all(s, buf, k);
		n -= (long long)k;
	}
	free(buf);
	return !last;
}

/* A connection's requests (GETs, one at a time), each answered, until the
 * client closes it or asks to. */
static void *serve_tls_one(void *arg)
{
	SSL *s = arg;
	char head[4096];
	size_t len = 0;

	if (SSL_accept(s) != 1)
		goto out;
	for (;;) {
		int r = SSL_read(s, head + len, (int)(sizeof(head) - 1 - len));

		if (r <= 0)
			break;
		len += (size_t)r;
		head[len] = '\0';
		if (strstr(head, "\r\n\r\n")) {
			if (!answer_tls(s, head))
				break;
			len = 0;
		} else if (len == sizeof(head) - 1) {
			break;
		}
	}
out:
	SSL_shutdown(s);
	close(SSL_get_fd(s));
	SSL_free(s);
	ERR_clear_error();
	return NULL;
}

static int serve_tls(const char *portfile, const char *cert, const char *key)
	__attribute__((noreturn));
static int serve_tls(const char *portfile, const char *cert, const char *key)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	SSL_CTX *ctx;
	FILE *f;

	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) ||
	    !(ctx = SSL_CTX_new(TLS_server_method())) ||
	    SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
		die_tls("the server's certificate");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(l, 128) < 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) < 0)
		die("listen");
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%u\n", ntohs(sin.sin_port)) < 0 || fclose(f) != 0)
		die(portfile);
	for (;;) {
		int fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;
		SSL *s;

		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!(s = SSL_new(ctx)) || SSL_set_fd(s, fd) != 1 ||
		    pthread_create(&t, NULL, serve_tls_one, s) != 0) {
			SSL_free(s);
			close(fd);
		} else {
			pthread_detach(t);
		}
	}
}

/* The client's context: TLS 1.2 or later, SSL_CERT_FILE's CAs, http/1.1. */
static SSL_CTX *client_ctx(void)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	const char *cafile = getenv("SSL_CERT_FILE");
	SSL_CTX *ctx;

	if (!cafile || !*cafile) {
		fprintf(stderr, "egress: SSL_CERT_FILE is not set\n");
		exit(1);
	}
	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) ||
	    !(ctx = SSL_CTX_new(TLS_client_method())) ||
	    !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    SSL_CTX_load_verify_locations(ctx, cafile, NULL) != 1 ||
	    SSL_CTX_set_alpn_protos(ctx, alpn, sizeof(alpn) - 1) != 0)
		die_tls("the client's TLS settings");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	return ctx;
}

/* A TLS connection to HOST:PORT, verified. */
static SSL *tls_open(SSL_CTX *ctx, const char *host, const char *port)
{
	SSL *s = SSL_new(ctx);
	int fd = open_conn(host, port);

	if (!s || SSL_set_fd(s, fd) != 1 || SSL_set_tlsext_host_name(s, host) != 1 ||
	    SSL_set1_host(s, host) != 1)
		die_tls("SSL_new");
	if (SSL_connect(s) != 1)
		die_tls("the TLS handshake");
	return s;
}

static void tls_done(SSL *s)
{
	int fd = SSL_get_fd(s);

	SSL_shutdown(s);
	SSL_free(s);
	close(fd);
}

/* One request on S: PATH's body, which must be WANT bytes long, read (into
 * BUF, CAP bytes, over and over); the last of the connection unless KEEP;
 * the microseconds from the request's first byte to the body's last in
 * *T_BODY if not NULL. */
static void https_get(SSL *s, const char *host, const char *port, const char *path, long long want,
		      bool keep, char *buf, size_t cap, double *t_body)
{
	char req[512], head[4096];
	size_t hlen = 0;
	long long got = 0, clen = -1;
	double t0;
	char *end;

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s:%s\r\n%s\r\n", path, host, port,
		 keep ? "" : "Connection: close\r\n");
	t0 = now_us();
	tls_write_all(s, req, strlen(req));
	/* the head (and what follows it in the same records) */
	for (;;) {
		int r = SSL_read(s, head + hlen, (int)(sizeof(head) - 1 - hlen));

		if (r <= 0)
			die_tls("reading the answer's head");
		hlen += (size_t)r;
		head[hlen] = '\0';
		if ((end = strstr(head, "\r\n\r\n")))
			break;
		if (hlen == sizeof(head) - 1)
			die_tls("the answer's head is too long");
	}
	if (strncmp(head, "HTTP/1.1 200", 12) != 0) {
		fprintf(stderr, "egress: the answer: %.200s\n", head);
		exit(1);
	}
	for (char *h = strchr(head, '\n'); h && h < end; h = strchr(h + 1, '\n'))
		if (strncasecmp(h + 1, "content-length:", 15) == 0)
			clen = atoll(h + 16);
	if (clen != want) {
		fprintf(stderr, "egress: Content-Length %lld, not %lld\n", clen, want);
		exit(1);
	}
	got = (long long)(hlen - (size_t)(end + 4 - head));
	if (want == 1 && got == 1 && end[4] != 'x')
		die_tls("the echo's byte");
	while (got < want) {
		int r = SSL_read(s, buf, (int)cap);

		if (r <= 0)
			die_tls("reading the body");
		got += r;
	}
	if (t_body)
		*t_body = now_us() - t0;
	if (got != want) {
		fprintf(stderr, "egress: got %lld bytes of %lld\n", got, want);
		exit(1);
	}
}

/* N requests, each on a connection of its own (KEEP false: the handshake
 * in each), or all on one (KEEP): their median and mean, microseconds. */
static int https_latency(int n, const char *host, const char *port, bool keep)
{
	SSL_CTX *ctx = client_ctx();
	double *t = calloc((size_t)n, sizeof(*t)), sum = 0;
	char buf[4096];
	SSL *s = keep ? tls_open(ctx, host, port) : NULL;

	if (!t)
		die("calloc");
	if (keep) /* the connection's first request, not timed: as one is, once */
		https_get(s, host, port, "/echo", 1, true, buf, sizeof(buf), NULL);
	for (int i = 0; i < n; i++) {
		double t0 = now_us();

		if (!keep)
			s = tls_open(ctx, host, port);
		https_get(s, host, port, "/echo", 1, keep, buf, sizeof(buf), NULL);
		if (!keep)
			tls_done(s);
		t[i] = now_us() - t0;
		sum += t[i];
	}
	if (keep)
		tls_done(s);
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("%.1f %.1f\n", t[n / 2], sum / n);
	free(t);
	SSL_CTX_free(ctx);
	return 0;
}

static int https_throughput(long long bytes, const char *host, const char *port)
{
	SSL_CTX *ctx = client_ctx();
	char *buf = malloc(CHUNK), path[64];
	double t;
	SSL *s;

	if (!buf)
		die("malloc");
	snprintf(path, sizeof(path), "/send/%lld", bytes);
	s = tls_open(ctx, host, port);
	https_get(s, host, port, path, bytes, false, buf, CHUNK, &t);
	tls_done(s);
	printf("%.1f\n", (double)bytes / t);
	free(buf);
	SSL_CTX_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2]);
	if (argc == 5 && strcmp(argv[1], "latency") == 0)
		return latency(atoi(argv[2]), argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "throughput") == 0)
		return throughput(atoll(argv[2]), argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "serve-tls") == 0)
		return serve_tls(argv[2], argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "https-latency") == 0)
		return https_latency(atoi(argv[2]), argv[3], argv[4], false);
	if (argc == 5 && strcmp(argv[1], "https-keepalive") == 0)
		return https_latency(atoi(argv[2]), argv[3], argv[4], true);
	if (argc == 5 && strcmp(argv[1], "https-throughput") == 0)
		return https_throughput(atoll(argv[2]), argv[3], argv[4]);
	fprintf(stderr, "usage: egress serve PORTFILE | latency N HOST PORT | "
			"throughput BYTES HOST PORT\n"
			"       egress serve-tls PORTFILE CERT KEY | https-latency N HOST PORT | "
			"https-keepalive N HOST PORT | https-throughput BYTES HOST PORT\n");
	return 2;
}
