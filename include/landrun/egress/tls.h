/* SPDX-License-Identifier: MIT */
/*
 * The egress helper's TLS (tls.c, OpenSSL; linked into landrun-egress
 * only): the run's CA, made here so that its key never leaves the helper, a
 * certificate per intercepted host, minted on first use and kept for the
 * run, and the two ends of an intercepted tunnel: the command's (TLS ended
 * with that certificate, ALPN http/1.1 only) and the upstream's (verified
 * against the system's CAs, SNI and the host name checked).
 */
#ifndef LANDRUN_EGRESS_TLS_H
#define LANDRUN_EGRESS_TLS_H

#include <stddef.h>

#include <openssl/ssl.h>

#include "landrun/egress/egress.h"

/*
 * Before the helper confines itself: OpenSSL started without its
 * configuration file, the CAs that upstreams are verified against read from
 * CAFILE (landrun's choice: its SSL_CERT_FILE, or the system's bundle; NULL:
 * OpenSSL's default file), and the run's CA made, EC P-256, CA:TRUE with
 * pathlen 0, keyCertSign, and name constraints that permit the N SITES'
 * hosts only.  Its certificate (PEM, malloc'd) in *CA_PEM.  0, or -errno
 * with ERR.
 */
int lr_tls_init(const char *cafile, const struct lr_http_site *sites, size_t n, char **ca_pem,
		char *err, size_t errlen);

/*
 * End the command's TLS on FD (blocking) as SITE (one of lr_tls_init's, by
 * index), with its certificate.  The connection, or NULL with ERR.
 */
SSL *lr_tls_accept(int fd, size_t site, char *err, size_t errlen);

/* TLS over FD (blocking) to SITE's host (one of lr_tls_init's, by index),
 * verified, or resumed from the last session with that site.  The
 * connection, or NULL with ERR. */
SSL *lr_tls_connect(int fd, size_t site, char *err, size_t errlen);

/*
 * lr_tls_connect in two steps: BEGIN sends the first flight over FD (which
 * the caller made non-blocking for it) and returns without waiting for the
 * answer, or NULL if it cannot be set up (nothing sent); FINISH (FD
 * blocking again) completes the handshake and verifies it: 0, or with ERR
 * -EPROTO (the certificate is not trusted) or -EIO (the handshake failed),
 * the connection then freed.  A handshake that failed within BEGIN (the
 * answer came before it returned) is FINISH's to report.
 */
SSL *lr_tls_connect_begin(int fd, size_t site);
int lr_tls_connect_finish(SSL *s, char *err, size_t errlen);

/* All of BUF (LEN bytes) written: 0, or -EIO. */
int lr_tls_write_all(SSL *s, const char *buf, size_t len);

/* A close_notify if it can, and the connection freed. */
void lr_tls_close(SSL *s);

#endif /* LANDRUN_EGRESS_TLS_H */
