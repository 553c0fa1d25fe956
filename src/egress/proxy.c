/* SPDX-License-Identifier: MIT */
/*
 * The egress helper ("landrun-egress"): an HTTP proxy that lets the
 * --allow-domain destinations through and nothing else.
 *
 * An executable of its own (installed in LIBEXECDIR/landrun), so that the
 * libraries only it needs cost landrun nothing at its every start.  landrun
 * starts it (launcher.c), in the caller's network namespace, with an empty
 * environment and fd 3 (the control socket to landrun) and fd 4 (a pidfd of
 * landrun, which becomes the command).  Over fd 3 it gets the destinations, opens a witness listener
 * on 127.0.0.1 for landrun to prove its namespace with, then gets the
 * listening sockets landrun opened inside and confines itself: no
 * capabilities, no_new_privs, Landlock (read the resolver's files, connect
 * to the allowed ports), seccomp (no exec, no new process, no file made or
 * written).  Each connection gets a thread: CONNECT host:port and absolute
 * http:// requests are decided, resolved and connected here, outside, then
 * spliced; a forwarded port is connected to the same port of 127.0.0.1.
 * When the command ends (the pidfd), so does the helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>

#include "landrun/egress/egress.h"
#include "landrun/egress/records.h"
#include "landrun/egress/tls.h"
#include "landrun/lib/error.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/sandbox/confine.h"
#include "landrun/sandbox/landlock.h"

#define CTL_FD 3
#define PIDFD 4
/* A control message: a secret header, or the run's CA certificate, fits */
#define MSG_MAX 16384
#define SECRET_MAX 8192		/* bytes of a secret header */
#define HEAD_MAX 16384
#define MAX_CONNS 512
#define HEAD_TIMEOUT_S 10	/* for a request's whole head, and each send of ours */
#define KEEP_IDLE_S	   60	    /* for the next request in an intercepted tunnel */
#define CONNECT_TIMEOUT_MS 10000
#define THREAD_STACK (256 * 1024)
/* A relay's pipes start at the kernel's default (64 KiB); one that fills
 * (a bulk transfer) grows to this, which takes about half the CPU per byte
 * (scripts/bench-egress.sh).  Only on demand: a user's pipes share one
 * budget (pipe-user-pages-soft, 64 MiB by default). */
#define PIPE_MAX (1024 * 1024)
#define DNS_PORT 53
#define MAX_TARGETS 16

/* glibc: the NSS services for a database, as nsswitch.conf would give them */
extern int __nss_configure_lookup(const char *dbname, const char *service_line);

struct listener {
	int fd;
	uint16_t port;		/* forwarded port; 0 for the proxy */
};

/* Set up before the first connection; read-only afterwards. */
static struct {
	int log_level;
	struct lr_dest *dests;
	size_t n_dests;
	struct listener ls[LR_EGRESS_MAX_FORWARDS + 1];
	size_t n_ls;
	int witness;
	struct lr_audit audit;	/* the run's --audit-log, fd -1 if none */
	struct lr_http_site *sites;	/* intercepted hosts, their secret headers expanded */
	size_t n_sites;
	char cafile[4096];	/* what upstreams are verified against ("": OpenSSL's default) */
} H = { .witness = -1, .audit = { .fd = -1 } };

/* ---------------------------------------------------------------- logging */

/* One line on stderr, in one write: threads do not interleave. */
static void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int level, const char *fmt, ...)
{
	char msg[1024], line[1024];
	va_list ap;
	size_t n;
	int m;

	if (level > H.log_level)
		return;
	va_start(ap, fmt);
	m = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	/* host names and requests are the command's: escaped */
	n = (size_t)snprintf(line, sizeof(line), "landrun: egress: ");
	lr_escape(line + n, sizeof(line) - n - 1, msg, strnlen(msg, sizeof(msg)), false);
	n = strlen(line);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

/* One decision of the proxy's. */
struct decision {
	const char *verdict;	/* "allowed", "refused", "failed", "forwarded" */
	const char *request;	/* the method, "forward", or NULL: no request */
	const char *host;	/* normalised, or NULL */
	unsigned port;
	const char *address;	/* allowed, forwarded: what was connected to */
	const char *reason;	/* refused, failed */
};

/* Every decision goes through here: one line at --log-level info, and one
 * record in the run's --audit-log when there is one. */
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lr_audit_bound audit_bound;

static void decided(const struct decision *d)
{
	const char *detail = d->address ? d->address : d->reason;
	bool v6 = d->host && strchr(d->host, ':');
	unsigned long count;
	char *rec;
	int r = 0;

	if (d->host)
		say(LR_LOG_INFO, "%s %s %s%s%s:%u%s%s", d->verdict, d->request, v6 ? "[" : "", d->host,
		    v6 ? "]" : "", d->port, detail ? ": " : "", detail ? detail : "");
	else
		say(LR_LOG_INFO, "%s %s%s%s", d->verdict, d->request ? d->request : "a request",
		    detail ? ": " : "", detail ? detail : "");
	if (H.audit.fd < 0)
		return;
	/* bounded (records.h): repeats summarised, a cap for the run */
	pthread_mutex_lock(&audit_lock);
	count = lr_audit_repeat(&audit_bound, lr_audit_egress_key(d->verdict, d->request, d->host,
								   d->port, d->reason));
	rec = !count ? NULL
		     : lr_audit_egress(&H.audit, d->verdict, d->request, d->host, d->port,
				       d->address, d->reason, count);
	if (rec) {
		switch (lr_audit_room(&audit_bound, strlen(rec))) {
		case LR_AUDIT_ROOM:
			break;
		case LR_AUDIT_CAP_NOW:
			free(rec);
			rec = lr_audit_capped(&H.audit, LR_AUDIT_EGRESS_CAP);
			break;
		case LR_AUDIT_FULL:
			free(rec);
			rec = NULL;
			count = 0;
			break;
		}
	}
	if (count && (!rec || (r = lr_audit_write(&H.audit, rec)) < 0))
		say(LR_LOG_ERROR, "cannot write to the audit log: %s",
		    rec ? strerror(-r) : "out of memory");
	pthread_mutex_unlock(&audit_lock);
	free(rec);
}

/* ---------------------------------------------------------------- set-up */

/* Tell landrun what went wrong; the helper's exit status. */
static int ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ctl_error(const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	snprintf(msg, sizeof(msg), "error ");
	va_start(ap, fmt);
	vsnprintf(msg + 6, sizeof(msg) - 6, fmt, ap);
	va_end(ap);
	lr_egress_send(CTL_FD, msg, -1);
	return LR_EXIT_FAILURE;
}

/*
 * An intercepted host's part of the configuration: "site PORT HOST", then
 * for that site "header NAME: VALUE" (the secret, expanded by landrun) and
 * "rule PREFIX METHOD PATH".  1 if MSG was one, 0 if not, -errno.
 */
static int read_site(const char *msg)
{
	struct lr_http_site *s = H.n_sites ? &H.sites[H.n_sites - 1] : NULL;
	struct lr_http_allow *a;
	unsigned port, prefix;
	int off = 0;
	char method[16];

	if (sscanf(msg, "site %u %n", &port, &off) == 1 && off && port && port < 65536) {
		s = lr_array_push(&H.sites, &H.n_sites, sizeof(*s));
		if (!s)
			return -ENOMEM;
		memset(s, 0, sizeof(*s));
		s->port = (uint16_t)port;
		s->host = strdup(msg + off);
		return s->host ? 1 : -ENOMEM;
	}
	if (strncmp(msg, "header ", 7) == 0) {
		const char *colon = strchr(msg + 7, ':');

		if (!s || s->header_name || !colon || colon[1] != ' ')
			return -EPROTO;
		s->header_name = strndup(msg + 7, (size_t)(colon - msg - 7));
		s->header_value = strdup(colon + 2);
		return s->header_name && s->header_value ? 1 : -ENOMEM;
	}
	if (sscanf(msg, "rule %u %15s %n", &prefix, method, &off) == 2 && off) {
		if (!s)
			return -EPROTO;
		a = lr_array_push(&s->allow, &s->n_allow, sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a, 0, sizeof(*a));
		snprintf(a->method, sizeof(a->method), "%s", method);
		a->prefix = prefix != 0;
		a->path = strdup(msg + off);
		return a->path ? 1 : -ENOMEM;
	}
	if (strncmp(msg, "cafile ", 7) == 0) {
		size_t n = strlen(msg + 7);

		if (n == 0 || n >= sizeof(H.cafile))
			return -EPROTO;
		memcpy(H.cafile, msg + 7, n + 1);
		return 1;
	}
	return 0;
}

static int read_config(void)
{
	char msg[MSG_MAX];

	for (;;) {
		struct lr_dest *d;
		int kind, port, off = 0, afd, r;

		if (lr_egress_recv(CTL_FD, msg, sizeof(msg), &afd) < 0)
			return -EIO;
		if (strcmp(msg, "end") == 0)
			return 0;
		r = read_site(msg);
		if (r != 0) {
			/* it may have held the secret: none of it stays on the stack */
			explicit_bzero(msg, sizeof(msg));
			if (r < 0)
				return r;
			continue;
		}
		if (sscanf(msg, "log %d", &H.log_level) == 1)
			continue;
		if (strncmp(msg, "audit ", 6) == 0 && afd >= 0) {
			H.audit.fd = afd;
			snprintf(H.audit.run, sizeof(H.audit.run), "%.32s", msg + 6);
			continue;
		}
		if (sscanf(msg, "allow %d %d %n", &kind, &port, &off) != 2 || !off)
			return -EPROTO;
		d = lr_array_push(&H.dests, &H.n_dests, sizeof(*d));
		if (!d)
			return -ENOMEM;
		d->kind = (enum lr_dest_kind)kind;
		d->port = (uint16_t)port;
		d->host = strdup(msg + off);
		if (!d->host)
			return -ENOMEM;
		if (d->kind == LR_DEST_ADDR) {
			char norm[256];
			bool is_addr;

			if (lr_egress_norm_host(d->host, norm, sizeof(norm), &is_addr, d->addr) < 0 ||
			    !is_addr)
				return -EPROTO;
		}
	}
}

static int open_witness(uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);

	H.witness = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (H.witness < 0 || bind(H.witness, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(H.witness, 8) < 0 || getsockname(H.witness, (struct sockaddr *)&sin, &len) < 0)
		return -errno;
	*port = ntohs(sin.sin_port);
	return 0;
}

/* Connections the witness got: the one landrun made from outside, and only
 * it, if the namespace holds. */
static int count_witness(void)
{
	struct pollfd p = { .fd = H.witness, .events = POLLIN };
	int n = 0, fd;

	/* the first is expected: give it a moment to arrive */
	poll(&p, 1, 1000);
	while ((fd = accept4(H.witness, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(fd);
		n++;
	}
	return n;
}

static void add_ports(struct lr_policy *p, uint16_t port)
{
	struct lr_port_range *r;

	for (size_t i = 0; i < p->n_connect_tcp; i++)
		if (p->connect_tcp[i].first == port)
			return;
	r = lr_array_push(&p->connect_tcp, &p->n_connect_tcp, sizeof(*r));
	if (r)
		r->first = r->last = port;
}

/*
 * Confine the helper itself, with landrun's own backends: a policy that
 * reads the resolver's files and connects to the allowed and forwarded
 * ports (and DNS over TCP).  Without Landlock or seccomp on this kernel it
 * goes on without them, as the command's plan already says.
 */
static int confine_self(char *err, size_t errlen)
{
	static const char *const files[] = {
		"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
	};
	struct lr_policy p;
	struct lr_features features;
	struct lr_fs_rules rules = { 0 };
	struct lr_confinement c;
	struct lr_plan plan;
	int r = 0;

	lr_policy_init(&p);
	for (size_t i = 0; r == 0 && i < sizeof(files) / sizeof(*files); i++)
		r = lr_policy_add_grant(&p, files[i], LR_ACCESS_RO, "--ro");
	lr_policy_grants_optional(&p, 0);
	add_ports(&p, DNS_PORT);
	for (size_t i = 0; i < H.n_dests; i++)
		add_ports(&p, H.dests[i].port);
	for (size_t i = 0; i < H.n_ls; i++)
		if (H.ls[i].port)
			add_ports(&p, H.ls[i].port);
	if (r < 0 || p.n_connect_tcp == 0) {
		lr_errf(err, errlen, "out of memory");
		lr_policy_free(&p);
		return -ENOMEM;
	}
	lr_features_probe(&features);
	lr_plan_compute(&p, &features, &plan);
	/* the resolver sends UDP to port 53: Landlock's UDP rules stay out */
	plan.handled_net &= LANDLOCK_ACCESS_NET_CONNECT_TCP | LANDLOCK_ACCESS_NET_BIND_TCP;
	r = lr_landlock_open_rules(&p, &plan, &rules, err, errlen);
	if (r == 0) {
		/* the same user, no capability; a witness that fails stops it:
		 * it holds the keys */
		c = (struct lr_confinement){
			.who = "egress: ",
			.policy = &p,
			.plan = &plan,
			.rules = &rules,
			.ruleset = -1,
			.filter = features.seccomp_filter ? LR_CONFINE_FILTER_EGRESS
							  : LR_CONFINE_NO_FILTER,
		};
		r = lr_confine(&c, err, errlen);
	}
	lr_landlock_rules_free(&rules);
	lr_policy_free(&p);
	return r;
}

/* ---------------------------------------------------------------- connections */

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			if (poll(&p, 1, HEAD_TIMEOUT_S * 1000) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* An answer of the proxy's own, with an RFC 9209 Proxy-Status, sent on FD,
 * or (TLS not NULL) over that TLS connection. */
static void answer_on(int fd, SSL *tls, int status, const char *error, const char *text)
{
	const char *reason = status == 400   ? "Bad Request"
			     : status == 403 ? "Forbidden"
			     : status == 408 ? "Request Timeout"
			     : status == 502 ? "Bad Gateway"
			     : status == 503 ? "Service Unavailable"
			     : status == 504 ? "Gateway Timeout"
					     : "Error";
	char body[600], head[1200];
	int blen, hlen;

	blen = snprintf(body, sizeof(body), "landrun: %s\n", text);
	if (blen >= (int)sizeof(body))
		blen = (int)sizeof(body) - 1;
	hlen = snprintf(head, sizeof(head),
			"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
			"Content-Length: %d\r\nConnection: close\r\n"
			"Proxy-Status: landrun; error=%s; details=\"%s\"\r\n\r\n",
			status, reason, blen, error, text);
	if (hlen >= (int)sizeof(head))
		return;
	if (tls) {
		if (lr_tls_write_all(tls, head, (size_t)hlen) == 0)
			lr_tls_write_all(tls, body, (size_t)blen);
	} else if (send_all(fd, head, (size_t)hlen) == 0) {
		send_all(fd, body, (size_t)blen);
	}
}

/* Connect to ADDR:PORT, bounded in time.  The socket, or -errno. */
static int connect_to(const uint8_t addr[16], uint16_t port)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct sockaddr_storage ss = { 0 };
	struct pollfd p;
	socklen_t len;
	int fd, r, e = 0;

	if (memcmp(addr, mapped, 12) == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, addr + 12, 4);
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, addr, 16);
		len = sizeof(*sin6);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&ss, len);
	if (r < 0 && errno == EINPROGRESS) {
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		r = poll(&p, 1, CONNECT_TIMEOUT_MS);
		if (r == 0) {
			errno = ETIMEDOUT;
			r = -1;
		} else if (r > 0) {
			len = sizeof(e);
			r = getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 ? -1 : e ? -1 : 0;
			if (e)
				errno = e;
		}
	}
	if (r < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static void set_nodelay(int fd)
{
	int one = 1;

	/* the proxy must not hold back the small writes of a stream */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* One direction of a relay: FROM -> pipe -> TO. */
struct half {
	int from, to, pipe[2];
	size_t pending;		/* in the pipe */
	size_t cap;		/* the pipe's size */
	bool grown;		/* tried to make it PIPE_MAX */
	bool eof, shut;
	size_t left;		/* what may still go (SIZE_MAX: all): a plain request's body */
};

/* Move what can be moved now.  0, or -errno (the connection is broken). */
static int pump(struct half *h)
{
	for (;;) {
		bool moved = false;
		ssize_t n;

		if (!h->eof && h->pending == 0 && h->left == 0) {
			/* the request and its body went: nothing more of the
			 * client's reaches the upstream (a second request
			 * would not be checked), and the upstream is not told
			 * the client is done (some servers take that as the
			 * client leaving) */
			h->eof = h->shut = true;
			return 0;
		}
		if (!h->eof && h->pending == 0) {
			n = splice(h->from, NULL, h->pipe[1], NULL, h->cap < h->left ? h->cap : h->left,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				h->pending = (size_t)n;
				if (h->left != SIZE_MAX)
					h->left -= (size_t)n;
				moved = true;
				/* it filled: a bulk transfer, a larger pipe (once) */
				if ((size_t)n >= h->cap && !h->grown) {
					int size = fcntl(h->pipe[1], F_SETPIPE_SZ, PIPE_MAX);

					if (size > 0)
						h->cap = (size_t)size;
					h->grown = true;
				}
			} else if (n == 0) {
				h->eof = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}
		if (h->pending) {
			n = splice(h->pipe[0], NULL, h->to, NULL, h->pending,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				h->pending -= (size_t)n;
				moved = true;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}
		if (h->eof && !h->pending && !h->shut) {
			shutdown(h->to, SHUT_WR);
			h->shut = true;
		}
		if (!moved)
			return 0;
	}
}

static short wants(const struct half *in, const struct half *out)
{
	return (short)((!in->eof && !in->pending ? POLLIN : 0) | (out->pending ? POLLOUT : 0));
}

/*
 * A worker's relay pipes, kept from one connection to the next (two
 * pipe2 and two fcntl calls and four closes fewer each): only a pipe that is
 * empty, as the kernel counts it, and was never grown (a grown one holds
 * the user's pipe budget).  Closed when the worker ends.
 */
static __thread int kept[2][2] = { { -1, -1 }, { -1, -1 } };
static __thread size_t kept_cap[2];

static void drop_pipe(int p[2])
{
	for (int j = 0; j < 2; j++)
		if (p[j] >= 0)
			close(p[j]);
	p[0] = p[1] = -1;
}

static int take_pipe(int i, struct half *h)
{
	int size;

	if (kept[i][0] >= 0) {
		memcpy(h->pipe, kept[i], sizeof(h->pipe));
		kept[i][0] = kept[i][1] = -1;
		h->cap = kept_cap[i];
		return 0;
	}
	if (pipe2(h->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	if ((size = fcntl(h->pipe[1], F_GETPIPE_SZ)) <= 0) {
		drop_pipe(h->pipe); /* not kept: its size is not known */
		return -EIO;
	}
	h->cap = (size_t)size;
	return 0;
}

static void give_back_pipe(int i, struct half *h)
{
	int left = -1;

	if (h->pipe[0] >= 0 && !h->grown && kept[i][0] < 0 &&
	    ioctl(h->pipe[0], FIONREAD, &left) == 0 && left == 0) {
		memcpy(kept[i], h->pipe, sizeof(h->pipe));
		kept_cap[i] = h->cap;
		h->pipe[0] = h->pipe[1] = -1;
	}
	drop_pipe(h->pipe);
}

/* Copy both ways between A and B, both non-blocking, with splice(2), until
 * both are done; at most LIMIT bytes from A to B (SIZE_MAX: no limit). */
static void relay(int a, int b, size_t limit)
{
	struct half h[2] = { { .from = a, .to = b, .pipe = { -1, -1 }, .left = limit },
			     { .from = b, .to = a, .pipe = { -1, -1 }, .left = SIZE_MAX } };

	for (int i = 0; i < 2; i++)
		if (take_pipe(i, &h[i]) < 0)
			goto out;
	while (!(h[0].shut && h[1].shut)) {
		struct pollfd p[2] = { { .fd = a, .events = wants(&h[0], &h[1]) },
				       { .fd = b, .events = wants(&h[1], &h[0]) } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (((p[0].revents | p[1].revents) & (POLLERR | POLLNVAL)))
			break;
		if (pump(&h[0]) < 0 || pump(&h[1]) < 0)
			break;
	}
out:
	for (int i = 0; i < 2; i++)
		give_back_pipe(i, &h[i]);
}

/* CLOCK_MONOTONIC in ms; 0 if it cannot be read */
static long long now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Read a request's head, up to its blank line, within HEAD_TIMEOUT_S in
 * all: a client that sends a byte now and then holds a worker no longer
 * (MAX_CONNS of them would stop the helper serving).  The length, or
 * -errno (-ETIMEDOUT).
 */
static int read_head(int fd, char *buf, size_t max)
{
	long long deadline = now_ms() + HEAD_TIMEOUT_S * 1000LL;
	size_t len = 0;

	while (len < max) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!p.revents)
			return -ETIMEDOUT;
		n = recv(fd, buf + len, max - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		len += (size_t)n;
		if (memmem(buf, len, "\r\n\r\n", 4))
			return (int)len;
	}
	return -EMSGSIZE;
}

struct targets {
	uint8_t addr[MAX_TARGETS][16];
	size_t n;
	char refused[128];	/* the first special address left out, and why */
};

/*
 * Names resolved, kept for a while: a client that opens one connection after
 * another to its provider (a harness does) waits for the resolver once, not
 * at each.  getaddrinfo does not tell the records' TTL, so a fixed one, as
 * the JVM's and browsers' caches keep; a failure is not kept.  What is kept
 * is every address the name had, the special ones too: each request judges
 * them again for its own port.
 */
#define NAMES_MAX 32
#define NAME_TTL_S 30

struct resolved {
	char host[256];
	long long at;		/* now_ms() when resolved; 0: a free slot */
	uint8_t addr[MAX_TARGETS][16];
	size_t n;
};

static struct resolved names[NAMES_MAX];
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

/* HOST's addresses in R, from the cache or the resolver: 0, or -ENOENT and
 * *GAI says why. */
static int lookup(const char *host, struct resolved *r, const char **gai)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	size_t len = strlen(host), oldest = 0;
	long long now = len < sizeof(r->host) ? now_ms() : 0; /* 0: neither kept nor looked for */
	bool fresh = false;
	int e;

	if (now > 0) {
		pthread_mutex_lock(&names_lock);
		for (size_t i = 0; i < NAMES_MAX && !fresh; i++) {
			if (names[i].at && !strcmp(names[i].host, host) &&
			    now - names[i].at < NAME_TTL_S * 1000LL) {
				*r = names[i];
				fresh = true;
			}
		}
		pthread_mutex_unlock(&names_lock);
		if (fresh)
			return 0;
	}
	e = getaddrinfo(host, NULL, &hints, &res);
	if (e != 0) {
		*gai = e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e);
		return -ENOENT;
	}
	r->n = 0;
	for (ai = res; ai && r->n < MAX_TARGETS; ai = ai->ai_next) {
		uint8_t a[16];
		bool dup = false;

		if (lr_egress_addr_from(ai->ai_addr, a) < 0)
			continue;
		for (size_t i = 0; i < r->n; i++)
			dup |= memcmp(r->addr[i], a, 16) == 0;
		if (!dup)
			memcpy(r->addr[r->n++], a, 16);
	}
	freeaddrinfo(res);
	if (now <= 0)
		return 0;
	memcpy(r->host, host, len + 1);
	r->at = now;
	pthread_mutex_lock(&names_lock);
	for (size_t i = 0; i < NAMES_MAX; i++) {
		if (!names[i].at || !strcmp(names[i].host, host)) {
			oldest = i;
			break;
		}
		if (names[i].at < names[oldest].at)
			oldest = i;
	}
	names[oldest] = *r;
	pthread_mutex_unlock(&names_lock);
	return 0;
}

/* The addresses HOST may be reached at: resolved here, outside, and without
 * the special ones the user did not allow by address.  0, or -ENOENT and
 * *GAI says why. */
static int resolve(const char *host, uint16_t port, struct targets *t, const char **gai)
{
	struct resolved r;
	int e = lookup(host, &r, gai);

	t->n = 0;
	t->refused[0] = '\0';
	if (e < 0)
		return e;
	for (size_t i = 0; i < r.n; i++) {
		const char *cls = lr_egress_addr_class(r.addr[i]);

		if (cls && !lr_egress_addr_allowed(H.dests, H.n_dests, r.addr[i], port)) {
			if (!t->refused[0]) {
				char text[64];

				snprintf(t->refused, sizeof(t->refused), "%s (%s)",
					 lr_egress_addr_text(r.addr[i], text, sizeof(text)), cls);
			}
			continue;
		}
		memcpy(t->addr[t->n++], r.addr[i], 16);
	}
	return 0;
}

/* The address FD is connected to, in ADDR: 0, or -errno. */
static int peer_addr(int fd, uint8_t addr[16])
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);

	if (getpeername(fd, (struct sockaddr *)&peer, &plen) < 0)
		return -errno;
	if (lr_egress_addr_from((struct sockaddr *)&peer, addr) < 0)
		return -EAFNOSUPPORT;
	return 0;
}

/* The address FD is connected to, as text. */
static void peer_text(int fd, char *buf, size_t len)
{
	uint8_t pa[16];

	if (peer_addr(fd, pa) == 0)
		lr_egress_addr_text(pa, buf, len);
	else
		snprintf(buf, len, "?");
}

/* Blocking, with a bound on each read and write (0: none). */
static int blocking(int fd, int read_s, int write_s)
{
	struct timeval r = { .tv_sec = read_s }, w = { .tv_sec = write_s };
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, sizeof(r)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &w, sizeof(w)) < 0)
		return -errno;
	return 0;
}

/* What the command sent in an intercepted tunnel that the proxy has not
 * used yet: the next request's head, and maybe more. */
struct inbox {
	char buf[HEAD_MAX];
	size_t have;
};

/* The next request's head over TLS into IN, within HEAD_TIMEOUT_S of its
 * first byte (as read_head); a request after the first (NEXT) may be
 * awaited for KEEP_IDLE_S.  The bytes in IN (the head, maybe more), or
 * -errno: -ENODATA for a connection that ends, or stays idle, between two
 * requests. */
static int tls_read_head(SSL *s, int fd, struct inbox *in, bool next)
{
	long long deadline;

	if (memmem(in->buf, in->have, "\r\n\r\n", 4))
		return (int)in->have;
	if (next && in->have == 0 && SSL_pending(s) == 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r;

		while ((r = poll(&p, 1, KEEP_IDLE_S * 1000)) < 0 && errno == EINTR)
			;
		if (r <= 0)
			return -ENODATA;
	}
	deadline = now_ms() + HEAD_TIMEOUT_S * 1000LL;
	while (in->have < sizeof(in->buf)) {
		int n;

		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		errno = 0;
		n = SSL_read(s, in->buf + in->have, (int)(sizeof(in->buf) - in->have));
		if (n <= 0) {
			int saved = errno, e = SSL_get_error(s, n);

			ERR_clear_error();
			if (next && in->have == 0 && saved != EAGAIN)
				return -ENODATA;
			return e == SSL_ERROR_ZERO_RETURN ? -ECONNRESET
			       : saved == EAGAIN	 ? -ETIMEDOUT
							 : -EIO;
		}
		in->have += (size_t)n;
		if (memmem(in->buf, in->have, "\r\n\r\n", 4))
			return (int)in->have;
	}
	return -EMSGSIZE;
}

/* The body of REQ, whose head IN holds, from the command to the upstream,
 * up to where its framing says it ends; what follows it stays in IN, the
 * start of the next request.  0, -EINVAL (malformed chunks), -EPERM (a
 * trailer field), -EIO. */
static int relay_body(SSL *from, SSL *to, const struct lr_http_origin *req, struct inbox *in)
{
	struct lr_http_body b;
	size_t off = req->head_len;

	lr_http_body_init(&b, req);
	for (;;) {
		long take = lr_http_body_feed(&b, in->buf + off, in->have - off);
		int got;

		if (take < 0)
			return (int)take; /* nothing of the buffer went on */
		if (take && lr_tls_write_all(to, in->buf + off, (size_t)take) < 0)
			return -EIO;
		off += (size_t)take;
		if (b.done)
			break;
		in->have = off = 0;
		got = SSL_read(from, in->buf, sizeof(in->buf));
		if (got <= 0) {
			ERR_clear_error();
			return -EIO;
		}
		in->have = (size_t)got;
	}
	memmove(in->buf, in->buf + off, in->have - off);
	in->have -= off;
	return 0;
}

/* From the upstream to the command, the rest of a body B as it comes, up
 * to its end (of LR_HTTP_BODY_CLOSE: the upstream's close).  0 once it
 * ended and nothing came after it; -1. */
static int relay_framed(SSL *from, SSL *to, struct lr_http_body *b)
{
	char chunk[16384];

	while (!b->done) {
		int got = SSL_read(from, chunk, sizeof(chunk));
		long take;

		if (got <= 0) {
			ERR_clear_error();
			return -1;
		}
		take = lr_http_body_feed(b, chunk, (size_t)got);
		if (take < 0) {
			/* the command's parser is the judge of it; no next answer */
			lr_http_body_start(b, LR_HTTP_BODY_CLOSE, 0);
			take = got;
		}
		if (lr_tls_write_all(to, chunk, (size_t)take) < 0)
			return -1;
		if (take < got)
			return -1; /* more than the answer: not for the next request */
	}
	return 0;
}

/* An answer's head from the upstream into BUF (*HAVE bytes in it already):
 * 0 once it holds a whole one; -EMSGSIZE; -EIO (the upstream closed). */
static int answer_head(SSL *from, char *buf, size_t *have)
{
	while (!memmem(buf, *have, "\r\n\r\n", 4)) {
		int got;

		if (*have == HEAD_MAX)
			return -EMSGSIZE;
		got = SSL_read(from, buf + *have, (int)(HEAD_MAX - *have));
		if (got <= 0) {
			ERR_clear_error();
			return -EIO;
		}
		*have += (size_t)got;
	}
	return 0;
}

/* One way of an upgraded connection: what FROM sent that TO has not taken. */
struct tls_half {
	SSL *from, *to;
	char buf[HEAD_MAX];
	size_t len, off;
	short wants;	/* what the SSL it waits on (TO while it holds bytes) asked for */
};

/* What the SSL call on S that returned N waits for, in *WANTS: 0; 1 at
 * the peer's close_notify; -1 when the connection is broken. */
static int tls_wants(SSL *s, int n, short *wants)
{
	int e = SSL_get_error(s, n);

	ERR_clear_error();
	*wants = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
	return *wants ? 0 : e == SSL_ERROR_ZERO_RETURN ? 1 : -1;
}

/* Move what H can move now: 0 once it would wait; 1 once FROM has ended,
 * and all it sent went on; 2 after a burst of records, so that the other
 * way is served too (a side that never pauses does not hold the relay); -1. */
static int tls_pump(struct tls_half *h)
{
	for (int records = 0; records < 16; records++) {
		int n;

		if (h->off < h->len) {
			n = SSL_write(h->to, h->buf + h->off, (int)(h->len - h->off));
			if (n <= 0)
				return tls_wants(h->to, n, &h->wants) ? -1 : 0;
			h->off += (size_t)n;
			continue;
		}
		n = SSL_read(h->from, h->buf, sizeof(h->buf));
		if (n <= 0)
			return tls_wants(h->from, n, &h->wants);
		h->len = (size_t)n;
		h->off = 0;
	}
	return 2;
}

static short tls_events(const struct tls_half *h, const SSL *s)
{
	return (h->off < h->len ? h->to : h->from) == s ? h->wants : 0;
}

/*
 * An upgraded connection (a WebSocket the upstream accepted): both ways as
 * it comes, the bytes each side sent early first (TO_UP: the command's,
 * TO_CMD: the upstream's), until one side ends or breaks it.  The proxy no
 * longer reads what goes through: the opening was judged, and carried the
 * secret header; nothing the command sends can change to whom it goes.
 */
static void relay_upgraded(SSL *cmd, SSL *up, const char *to_up, size_t up_len,
			   const char *to_cmd, size_t cmd_len)
{
	struct tls_half *h = calloc(2, sizeof(*h));
	int fd[2] = { SSL_get_fd(cmd), SSL_get_fd(up) };

	if (!h || fd[0] < 0 || fd[1] < 0)
		goto out;
	for (int i = 0; i < 2; i++) {
		int fl = fcntl(fd[i], F_GETFL);

		if (fl < 0 || fcntl(fd[i], F_SETFL, fl | O_NONBLOCK) < 0)
			goto out;
	}
	h[0] = (struct tls_half){ .from = cmd, .to = up, .len = up_len };
	h[1] = (struct tls_half){ .from = up, .to = cmd, .len = cmd_len };
	memcpy(h[0].buf, to_up, up_len);
	memcpy(h[1].buf, to_cmd, cmd_len);
	for (;;) {
		struct pollfd p[2];
		int r0 = tls_pump(&h[0]), r1 = r0 == 0 || r0 == 2 ? tls_pump(&h[1]) : r0;

		if (r0 == 1 || r0 < 0 || r1 == 1 || r1 < 0)
			break;
		if (r0 == 2 || r1 == 2)
			continue;
		for (int i = 0; i < 2; i++) {
			SSL *s = i ? up : cmd;

			p[i] = (struct pollfd){ .fd = fd[i],
						.events = (short)(tls_events(&h[0], s) |
								  tls_events(&h[1], s)) };
		}
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		/* a side that broke, or hung up with nothing for the other to read */
		for (int i = 0; i < 2; i++)
			if ((p[i].revents & (POLLERR | POLLNVAL)) ||
			    ((p[i].revents & POLLHUP) && !(p[i].events & POLLIN)))
				goto out;
	}
out:
	if (h)
		explicit_bzero(h, 2 * sizeof(*h));
	free(h);
}

/*
 * The answer to REQ, from the upstream to the command, up to where its
 * framing ends it (lr_http_parse_answer), interim answers first: true if
 * both connections may carry the next request.  An answer that cannot be
 * framed goes on as it is, to the upstream's close.  A WebSocket's opening
 * that the upstream accepts (101) becomes relay_upgraded, with what the
 * command sent after it (IN).
 */
static bool relay_answer(SSL *from, SSL *to, const struct lr_http_origin *req, struct inbox *in)
{
	char buf[HEAD_MAX];
	struct lr_http_answer a;
	struct lr_http_body b;
	size_t have = 0, used;
	long take = 0;
	int r;

	for (;;) {
		r = answer_head(from, buf, &have);
		if (r == 0)
			r = lr_http_parse_answer(buf, have, req->method, &a);
		if (r == 0 && a.status == 101 && req->websocket) {
			if (lr_tls_write_all(to, buf, a.head_len) == 0)
				relay_upgraded(to, from, in->buf, in->have, buf + a.head_len,
					       have - a.head_len);
			return false;
		}
		if (r == 0) {
			lr_http_body_start(&b, a.body, a.body_len);
			take = lr_http_body_feed(&b, buf + a.head_len, have - a.head_len);
			r = take < 0 ? -EINVAL : 0;
		}
		if (r < 0) {
			/* as it is, to the upstream's close */
			if (have && lr_tls_write_all(to, buf, have) < 0)
				return false;
			lr_http_body_start(&b, LR_HTTP_BODY_CLOSE, 0);
			if (r != -EIO)
				relay_framed(from, to, &b);
			return false;
		}
		used = a.head_len + (size_t)take;
		if (lr_tls_write_all(to, buf, used) < 0)
			return false;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (!a.interim)
			break;
	}
	/* anything beyond the answer is none of the next request's */
	return have == 0 && relay_framed(from, to, &b) == 0 && !a.close;
}

/* ---------------------------------------------------------------- decisions */

/*
 * What is made of a request, decided apart from the I/O that carries it
 * out: an answer of the proxy's own (status 0: none, the request goes on)
 * and the decision to record (d.verdict NULL: none yet).
 */
struct verdict {
	int status;
	const char *error;	/* the answer's RFC 9209 Proxy-Status error */
	const char *text;	/* the answer's text */
	struct decision d;
	char detail[400];	/* what text and d.reason may point to */
};

/* A proxy request, parsed: what it asks for, and where it goes. */
struct proxied {
	struct lr_http_request req;
	char host[256];		/* normalised */
	uint8_t addr[16];	/* is_addr: the address it names */
	bool is_addr;
	const struct lr_http_site *site;	/* a CONNECT to an intercepted host */
};

/* V answers STATUS, ERROR and TEXT, and records VERDICT with REASON. */
static void refuse(struct verdict *v, const char *verdict, int status, const char *error,
		   const char *text, const char *reason)
{
	v->status = status;
	v->error = error;
	v->text = text;
	v->d.verdict = verdict;
	v->d.reason = reason;
}

/* A head that could not be read (LEN, -errno): what to answer, if anything;
 * nothing is recorded. */
static void judge_head(int len, struct verdict *v)
{
	*v = (struct verdict){ 0 };
	if (len == -EMSGSIZE)
		refuse(v, NULL, 400, "http_request_error", "request head larger than 16 KiB", NULL);
	if (len == -ETIMEDOUT)
		refuse(v, NULL, 408, "http_request_error", "no whole request head within 10 seconds",
		       NULL);
}

/* The request in BUF (LEN bytes, its head whole), parsed into *P: refused
 * unless --allow-domain lets it through as it is. */
static void judge(const char *buf, size_t len, struct proxied *p, struct verdict *v)
{
	const struct lr_http_site *site;
	const char *why;
	bool v6;

	*v = (struct verdict){ 0 };
	p->site = NULL;
	if (lr_http_parse(buf, len, &p->req, &why) < 0) {
		refuse(v, "refused", 400, "http_request_error", why, why);
		return;
	}
	v->d.request = p->req.method;
	/* the host as the client wrote it is never echoed: it may hold anything */
	if (lr_egress_norm_host(p->req.host, p->host, sizeof(p->host), &p->is_addr, p->addr) < 0) {
		refuse(v, "refused", 400, "http_request_error", "not a host name or an IP address",
		       "a host that is no name or address");
		return;
	}
	v->d.host = p->host;
	v->d.port = p->req.port;
	v6 = strchr(p->host, ':');
	if (p->is_addr && !lr_egress_addr_allowed(H.dests, H.n_dests, p->addr, p->req.port)) {
		snprintf(v->detail, sizeof(v->detail), "%s%s%s:%u: an IP address; only the names in "
			 "--allow-domain are allowed (or the address itself, given there)",
			 v6 ? "[" : "", p->host, v6 ? "]" : "", p->req.port);
		refuse(v, "refused", 403, "destination_ip_prohibited", v->detail,
		       "an IP address not in --allow-domain");
		return;
	}
	if (!p->is_addr && !lr_egress_name_allowed(H.dests, H.n_dests, p->host, p->req.port)) {
		snprintf(v->detail, sizeof(v->detail), "%s:%u is not in --allow-domain", p->host,
			 p->req.port);
		refuse(v, "refused", 403, "http_request_denied", v->detail, "not in --allow-domain");
		return;
	}
	site = p->is_addr ? NULL : lr_egress_site_find(H.sites, H.n_sites, p->host, p->req.port);
	/* an intercepted host's requests are read inside its TLS, never sent
	 * as plain http:// past its rules and its secret header */
	if (site && p->req.kind == LR_HTTP_ABSOLUTE) {
		snprintf(v->detail, sizeof(v->detail),
			 "%s:%u is intercepted: https:// only (a CONNECT)", p->host, p->req.port);
		refuse(v, "refused", 403, "http_request_denied", v->detail,
		       "an intercepted host, as plain http://");
		return;
	}
	p->site = site;
}

/* A name that resolved (R 0) to the addresses T, or did not (GAI says why):
 * refused if none of them may be connected to. */
static void judge_targets(const struct proxied *p, int r, const char *gai, const struct targets *t,
			  struct verdict *v)
{
	if (r < 0) {
		snprintf(v->detail, sizeof(v->detail), "cannot resolve %s: %s", p->host, gai);
		refuse(v, "failed", 502, "dns_error", v->detail, v->detail);
	} else if (t->n == 0) {
		snprintf(v->detail, sizeof(v->detail), "%s resolves to %s, which --allow-domain does "
			 "not name (DNS rebinding onto local services)", p->host,
			 t->refused[0] ? t->refused : "nothing");
		refuse(v, "refused", 403, "destination_ip_prohibited", v->detail, v->detail);
	}
}

/* No address of T took the connection (ERR, of the last one): what to answer. */
static void judge_unconnected(const struct proxied *p, const struct targets *t, int err,
			      struct verdict *v)
{
	char atext[64];

	snprintf(v->detail, sizeof(v->detail), "cannot connect to %s:%u: %s",
		 lr_egress_addr_text(t->addr[0], atext, sizeof(atext)), p->req.port, strerror(-err));
	refuse(v, "failed", err == -ETIMEDOUT ? 504 : 502,
	       err == -ETIMEDOUT      ? "connection_timeout"
	       : err == -ECONNREFUSED ? "connection_refused"
				      : "destination_unavailable",
	       v->detail, v->detail);
}

/* A CONNECT to an intercepted host, connected (LEN bytes read): refused if
 * the client sent more than its head before the tunnel was established. */
static void judge_tunnel(const struct proxied *p, size_t len, struct verdict *v)
{
	if (p->site && len > p->req.head_len)
		refuse(v, "refused", 400, "http_request_error",
		       "data after CONNECT before the tunnel was established",
		       "data after CONNECT before the tunnel was established");
}

/* A request in the tunnel of SITE (BUF, LEN bytes), parsed into *REQ and
 * judged (egress-http.c); CONNECT is the tunnel's decision, whose host and
 * port the request's record keeps. */
static void judge_origin(const struct lr_http_site *site, const char *buf, size_t len,
			 struct lr_http_origin *req, const struct decision *connect,
			 struct verdict *v)
{
	struct lr_http_verdict hv;
	const char *why;

	*v = (struct verdict){ .d = { NULL, "a request", connect->host, connect->port } };
	if (lr_http_parse_origin(buf, len, req, &why) < 0) {
		refuse(v, "refused", 400, "http_request_error", why, why);
		return;
	}
	v->d.request = req->websocket ? "WEBSOCKET" : req->method;
	lr_http_judge(site, buf, req, &hv);
	if (hv.status) {
		snprintf(v->detail, sizeof(v->detail), "%s", hv.reason);
		refuse(v, "refused", hv.status, hv.error, v->detail, v->detail);
	}
}

/* ---------------------------------------------------------------- serving */

/* Carry out V's refusal: its answer on FD (or over TLS), its decision
 * recorded. */
static void carry_out(int fd, SSL *tls, const struct verdict *v)
{
	if (v->status)
		answer_on(fd, tls, v->status, v->error, v->text);
	if (v->d.verdict)
		decided(&v->d);
}

/*
 * The upstream's TLS for the next request of SITE's tunnel, in *US over
 * *UP: the one there, if it is open and has sent nothing since its last
 * answer, or the one begun with the tunnel (begin_upstream), finished; else
 * a new connection to the same address (whose TLS resumes the session): for
 * one begun that the upstream gave up meanwhile (a command slow to send its
 * first request) as for one it closed.  0, or -1 with ERR, and in *KIND its
 * RFC 9209 error.
 */
static int upstream_for(int *up, SSL **us, const struct lr_http_site *site, const char **kind,
			char *err, size_t errlen)
{
	*kind = "destination_unavailable";
	if (*us) {
		struct pollfd p = {.fd = *up, .events = POLLIN};
		bool begun = !SSL_is_init_finished(*us);
		uint8_t addr[16];
		int fd, r;

		if (!begun && SSL_pending(*us) == 0 && poll(&p, 1, 0) == 0)
			return 0;
		/* (the address first: a reset connection has none) */
		r = peer_addr(*up, addr);
		if (begun) {
			/* an upstream that gave it up has closed its side: TLS 1.3
			 * would finish the handshake all the same (the client's
			 * Finished needs no answer), and the request be lost */
			p.events = POLLRDHUP;
			if (poll(&p, 1, 0) == 0) {
				int f = lr_tls_connect_finish(*us, err, errlen);

				if (f == 0)
					return 0;
				*us = NULL; /* freed */
				if (f == -EPROTO) {
					*kind = "tls_certificate_error";
					return -1; /* not trusted: another connection would not be */
				}
			}
		}
		if (r < 0) {
			lr_errf(err, errlen, "the upstream's connection: %s", strerror(-r));
			return -1;
		}
		lr_tls_close(*us);
		*us = NULL;
		fd = connect_to(addr, site->port);
		if (fd < 0) {
			lr_errf(err, errlen, "cannot connect again: %s", strerror(-fd));
			*kind = fd == -ETIMEDOUT ? "connection_timeout" : "destination_unavailable";
			return -1;
		}
		set_nodelay(fd);
		close(*up);
		*up = fd;
	}
	lr_errf(err, errlen, "its socket");
	*kind = "tls_certificate_error";
	if (blocking(*up, 0, 60) < 0 ||
	    !(*us = lr_tls_connect(*up, (size_t)(site - H.sites), err, errlen)))
		return -1;
	return 0;
}

/* A request of the tunnel let through (V: its decision so far; its head in
 * IN): over the upstream's TLS (verified), the rewritten head, the body as
 * framed, and the answer as framed.  True if the tunnel may carry the next
 * request. */
static bool forward_origin(int client, SSL *cs, int *up, SSL **us, const struct lr_http_site *site,
			   struct inbox *in, const struct lr_http_origin *req, struct verdict *v,
			   const char *address)
{
	struct lr_buf head = { 0 };
	const char *kind;
	char err[512];
	int r;

	if (upstream_for(up, us, site, &kind, err, sizeof(err)) < 0) {
		refuse(v, "failed", 502, kind, err, err);
		carry_out(client, cs, v);
		return false;
	}
	r = lr_http_origin_upstream(site, in->buf, req, &head);
	r = r ?: lr_tls_write_all(*us, head.s, head.len);
	/* (the upstream gets no Expect: the body follows its head at once) */
	if (r == 0 && req->expect_continue)
		r = lr_tls_write_all(cs, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	if (head.s)
		explicit_bzero(head.s, head.len); /* it holds the secret */
	free(head.s);
	r = r ?: relay_body(cs, *us, req, in);
	if (r == -EINVAL) {
		/* the upstream has part of a body that never ends: it times out */
		refuse(v, "refused", 400, "http_request_error", "a malformed chunked body",
		       "a malformed chunked body");
		carry_out(client, cs, v);
		return false;
	}
	if (r == -EPERM) {
		/* the upstream has the body but not its end: the request never completes */
		refuse(v, "refused", 403, "http_request_denied",
		       "a trailer field in the request: landrun judges a request by its head",
		       "a trailer field in a chunked request body");
		carry_out(client, cs, v);
		return false;
	}
	if (r < 0)
		return false;
	v->d.verdict = "allowed";
	v->d.address = address;
	decided(&v->d);
	return relay_answer(*us, cs, req, in) && !req->close;
}

/*
 * The upstream's TLS over UP begun (its first flight sent) before the
 * command's handshake, so that the upstream's answer travels while the
 * proxy makes that one; upstream_for completes it for the first request.
 * NULL if it cannot be begun: upstream_for then connects as for the next
 * requests, and says why.
 */
static SSL *begin_upstream(int up, const struct lr_http_site *site)
{
	int fl = fcntl(up, F_GETFL);
	SSL *s;

	if (fl < 0 || fcntl(up, F_SETFL, fl | O_NONBLOCK) < 0)
		return NULL;
	s = lr_tls_connect_begin(up, (size_t)(site - H.sites));
	if (blocking(up, 0, 60) < 0) {
		lr_tls_close(s);
		return NULL;
	}
	return s;
}

/*
 * An intercepted host (--secret-header, --allow-request): the tunnel's TLS
 * ended here with the host's certificate from the run's CA; each request
 * read and judged (judge_origin); one that passes, forward_origin, and the
 * next, while both sides keep the connection.  Nothing of a refused request
 * reaches the upstream: the tunnel ends with its answer, and if it is the
 * first, the upstream's TLS, begun beside the command's, ends unfinished
 * (the upstream saw a handshake begin, and no request).
 */
static void intercept(int client, int *up, const struct lr_http_site *site, struct decision *d,
		      const char *address)
{
	struct inbox *in = NULL;
	char err[512];
	struct lr_http_origin req;
	struct verdict v;
	SSL *cs = NULL, *us = NULL;
	bool more = true;

	if (send_all(client, "HTTP/1.1 200 Connection established\r\n\r\n", 39) < 0)
		return;
	d->verdict = "allowed";
	d->address = address;
	decided(d);
	us = begin_upstream(*up, site);
	lr_errf(err, sizeof(err), "its socket");
	if (blocking(client, HEAD_TIMEOUT_S, 60) < 0 || !(in = calloc(1, sizeof(*in))) ||
	    !(cs = lr_tls_accept(client, (size_t)(site - H.sites), err, sizeof(err)))) {
		say(LR_LOG_INFO, "failed TLS with the command for %s:%u: %s", site->host,
		    site->port, in ? err : strerror(ENOMEM));
		lr_tls_close(us);
		free(in);
		return;
	}
	for (bool next = false; more; next = true) {
		int len = tls_read_head(cs, client, in, next);

		if (len == -ENODATA)
			break;
		if (len < 0)
			judge_head(len, &v);
		else
			judge_origin(site, in->buf, (size_t)len, &req, d, &v);
		if (len < 0 || v.status) {
			carry_out(client, cs, &v);
			break;
		}
		more = forward_origin(client, cs, up, &us, site, in, &req, &v, address);
	}
	lr_tls_close(us);
	explicit_bzero(in, sizeof(*in));
	free(in);
	lr_tls_close(cs);
}

/* Where P may be connected to, in *T: its address, or what its name
 * resolves to; V says if nowhere. */
static void find_targets(const struct proxied *p, struct targets *t, struct verdict *v)
{
	const char *gai = NULL;
	int r;

	if (p->is_addr) {
		memcpy(t->addr[0], p->addr, 16);
		t->n = 1;
		return;
	}
	r = resolve(p->host, p->req.port, t, &gai);
	judge_targets(p, r, gai, t, v);
}

/* The first of T's addresses that takes the connection: its socket, or -1
 * and V says why. */
static int connect_any(const struct proxied *p, const struct targets *t, struct verdict *v)
{
	int up = -1, err = 0;

	for (size_t i = 0; i < t->n && up < 0; i++) {
		up = connect_to(t->addr[i], p->req.port);
		if (up < 0)
			err = up;
	}
	if (up < 0) {
		judge_unconnected(p, t, err, v);
		return -1;
	}
	return up;
}

/* A request let through and connected to UP, not intercepted: the tunnel
 * opened (CONNECT) or the head sent on, then what the client sent after the
 * head (BUF, LEN bytes in all), then the relay; D recorded as allowed once
 * the upstream has it. */
static void pass(int client, int up, const char *buf, size_t len,
		 const struct lr_http_request *req, struct decision *d)
{
	struct lr_buf head = { 0 };
	char atext[64];
	size_t limit, extra;
	int err;

	if (req->kind == LR_HTTP_CONNECT)
		err = send_all(client, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
	else if ((err = lr_http_upstream_head(buf, req, &head)) == 0)
		err = send_all(up, head.s, head.len);
	free(head.s);
	/* what the client sent after the head (a body, a TLS hello) goes on; of a
	 * plain request, its body only: one request per connection */
	limit = req->kind == LR_HTTP_CONNECT ? SIZE_MAX : req->body_len;
	extra = len - req->head_len;
	if (extra > limit)
		extra = limit;
	if (err == 0 && extra)
		err = send_all(up, buf + req->head_len, extra);
	if (limit != SIZE_MAX)
		limit -= extra;
	if (err == 0) {
		peer_text(up, atext, sizeof(atext));
		d->verdict = "allowed";
		d->address = atext;
		decided(d);
		relay(client, up, limit);
	}
}

/* One proxy request: read, judged, resolved, connected; then refused,
 * passed on or intercepted. */
static void proxy(int client)
{
	char buf[HEAD_MAX], atext[64];
	struct proxied p;
	struct verdict v;
	struct targets t = { 0 };
	int len, up = -1;

	len = read_head(client, buf, sizeof(buf));
	if (len < 0) {
		judge_head(len, &v);
		carry_out(client, NULL, &v);
		return;
	}
	judge(buf, (size_t)len, &p, &v);
	if (!v.status)
		find_targets(&p, &t, &v);
	if (!v.status)
		up = connect_any(&p, &t, &v);
	if (up >= 0) {
		set_nodelay(up);
		set_nodelay(client);
		judge_tunnel(&p, (size_t)len, &v);
	}
	if (v.status) {
		carry_out(client, NULL, &v);
	} else if (p.site) {
		peer_text(up, atext, sizeof(atext));
		intercept(client, &up, p.site, &v.d, atext);
	} else {
		pass(client, up, buf, (size_t)len, &p.req, &v.d);
	}
	if (up >= 0)
		close(up);
}

/* A forwarded port: the same port of the host's 127.0.0.1. */
static void forward(int client, uint16_t port)
{
	struct decision d = { "forwarded", "forward", "127.0.0.1", port, "127.0.0.1", NULL };
	int up = connect_to(lr_egress_loopback, port);

	if (up < 0) {
		d = (struct decision){ "failed", "forward", "127.0.0.1", port, .reason = strerror(-up) };
		decided(&d);
		return;
	}
	decided(&d);
	set_nodelay(up);
	set_nodelay(client);
	relay(client, up, SIZE_MAX);
	close(up);
}

/*
 * The workers: each waits for a connection on every listener, serves it
 * (decides, resolves, connects, relays) and waits again.  One is always
 * waiting, so that a new connection finds a thread ready (no thread is
 * made while a client waits); a few more may wait, the rest end.  At
 * MAX_CONNS busy, new connections wait in the listeners' backlogs.
 */
#define IDLE_MAX 4

static atomic_int idle, total;
static pthread_attr_t worker_attr;

/* A connection from any listener: its socket, and in *PORT the forwarded
 * port (0: the proxy's). */
static int next_conn(uint16_t *port)
{
	struct pollfd p[LR_EGRESS_MAX_FORWARDS + 1];

	for (size_t i = 0; i < H.n_ls; i++)
		p[i] = (struct pollfd){ .fd = H.ls[i].fd, .events = POLLIN };
	for (;;) {
		if (poll(p, H.n_ls, -1) < 0 && errno != EINTR)
			return -errno;
		for (size_t i = 0; i < H.n_ls; i++) {
			int fd;

			if (!p[i].revents)
				continue;
			/* another worker may have taken it: EAGAIN.  Non-blocking,
			 * as the relay and read_head want it (the interception
			 * makes it blocking, with bounds) */
			fd = accept4(H.ls[i].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0) {
				*port = H.ls[i].port;
				return fd;
			}
		}
	}
}

static void *worker(void *arg);

static void spawn_worker(void)
{
	pthread_t t;

	atomic_fetch_add(&total, 1);
	atomic_fetch_add(&idle, 1);
	if (pthread_create(&t, &worker_attr, worker, NULL) != 0) {
		atomic_fetch_sub(&idle, 1);
		atomic_fetch_sub(&total, 1);
	}
}

static void *worker(void *arg)
{
	for (;;) {
		uint16_t port = 0;
		int fd = next_conn(&port);

		if (fd < 0)
			break;
		/* the last one waiting is now busy: another takes its place */
		if (atomic_fetch_sub(&idle, 1) == 1 && atomic_load(&total) < MAX_CONNS)
			spawn_worker();
		if (port)
			forward(fd, port);
		else
			proxy(fd);
		close(fd);
		if (atomic_load(&idle) >= IDLE_MAX)
			break;
		atomic_fetch_add(&idle, 1);
	}
	drop_pipe(kept[0]);
	drop_pipe(kept[1]);
	atomic_fetch_sub(&total, 1);
	return arg;
}

/* Until the command ends: the workers serve, this thread waits for that. */
static int serve_all(void)
{
	struct pollfd p = { .fd = PIDFD, .events = POLLIN };

	if (pthread_attr_init(&worker_attr) != 0 ||
	    pthread_attr_setdetachstate(&worker_attr, PTHREAD_CREATE_DETACHED) != 0 ||
	    pthread_attr_setstacksize(&worker_attr, THREAD_STACK) != 0)
		return LR_EXIT_FAILURE;
	spawn_worker();
	if (atomic_load(&total) == 0)
		return LR_EXIT_FAILURE;
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return LR_EXIT_FAILURE;
	return 0;
}

/* Take a listening socket landrun sent: "proxy", or "forward PORT". */
static int take_listener(const char *msg, int fd)
{
	struct listener *l;
	unsigned port = 0;

	if (fd < 0 || H.n_ls >= sizeof(H.ls) / sizeof(*H.ls) ||
	    (strcmp(msg, "proxy") != 0 && (sscanf(msg, "forward %u", &port) != 1 || !port ||
					   port > 65535)))
		return -EPROTO;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	/* A proxy's client speaks first: a worker wakes once its request has
	 * come, not for the handshake and again for the request (a forwarded
	 * port's server may speak first).  Only a hint: where the kernel
	 * refuses it, a worker wakes once more. */
	if (!port) {
		int defer = HEAD_TIMEOUT_S;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer));
	}
	l = &H.ls[H.n_ls++];
	l->fd = fd;
	l->port = (uint16_t)port;
	return 0;
}

int main(void)
{
	char msg[MSG_MAX], err[512];
	int type = 0, fd, r;
	socklen_t len = sizeof(type);
	uint16_t port = 0;

	if (getsockopt(CTL_FD, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET ||
	    fcntl(PIDFD, F_GETFD) < 0) {
		fputs("landrun-egress: landrun's egress helper, started by landrun --allow-domain "
		      "only\n",
		      stderr);
		return LR_EXIT_FAILURE;
	}
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "landrun-egress", 0, 0, 0);
	/* /etc/hosts, then DNS (resolv.conf): the resolvers built into libc,
	 * never a module loaded from the system's libraries */
	__nss_configure_lookup("hosts", "files dns");
	r = read_config();
	if (r < 0)
		return ctl_error("bad configuration from landrun: %s", strerror(-r));
	lr_log_set_level(H.log_level);
	/* the CAs read, the run's CA made, before any confinement; its
	 * certificate (not its key) for landrun, which gives it to the command */
	if (H.n_sites) {
		char *pem = NULL;

		if (lr_tls_init(H.cafile[0] ? H.cafile : NULL, H.sites, H.n_sites, &pem, err,
				sizeof(err)) < 0)
			return ctl_error("--secret-header, --allow-request: %s", err);
		r = snprintf(msg, sizeof(msg), "ca %s", pem);
		free(pem);
		if (r < 0 || (size_t)r >= sizeof(msg) || lr_egress_send(CTL_FD, msg, -1) < 0)
			return LR_EXIT_FAILURE;
	}
	r = open_witness(&port);
	if (r < 0)
		return ctl_error("cannot listen on 127.0.0.1 for the witness: %s", strerror(-r));
	snprintf(msg, sizeof(msg), "witness %u", port);
	if (lr_egress_send(CTL_FD, msg, -1) < 0)
		return LR_EXIT_FAILURE;
	for (;;) {
		r = lr_egress_recv(CTL_FD, msg, sizeof(msg), &fd);
		if (r < 0)
			return r == -ECONNRESET ? 0 : LR_EXIT_FAILURE; /* landrun is gone */
		if (strcmp(msg, "witness-check") == 0) {
			snprintf(msg, sizeof(msg), "witness %d", count_witness());
			if (lr_egress_send(CTL_FD, msg, -1) < 0)
				return LR_EXIT_FAILURE;
		} else if (strcmp(msg, "go") == 0) {
			break;
		} else if (take_listener(msg, fd) < 0) {
			if (fd >= 0)
				close(fd);
			return ctl_error("unexpected message from landrun: %.64s", msg);
		}
	}
	close(H.witness);
	if (confine_self(err, sizeof(err)) < 0)
		return ctl_error("cannot confine itself: %s", err);
	if (lr_egress_send(CTL_FD, "ready", -1) < 0)
		return LR_EXIT_FAILURE;
	close(CTL_FD);
	say(LR_LOG_DEBUG, "serving %zu listener(s), %zu destination(s)", H.n_ls, H.n_dests);
	return serve_all();
}
