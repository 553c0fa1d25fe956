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
 * HOST PORT is reached directly, or, when HTTPS_PROXY is set (as landrun
 * --allow-domain sets it), through that proxy with CONNECT HOST:PORT: the
 * set-up then includes the proxy's answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2]);
	if (argc == 5 && strcmp(argv[1], "latency") == 0)
		return latency(atoi(argv[2]), argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "throughput") == 0)
		return throughput(atoll(argv[2]), argv[3], argv[4]);
	fprintf(stderr, "usage: egress serve PORTFILE | latency N HOST PORT | "
			"throughput BYTES HOST PORT\n");
	return 2;
}
