/* SPDX-License-Identifier: MIT */
/*
 * The egress helper's TLS, with OpenSSL (egress-tls.h).  Everything that
 * reads a file (the system's CAs) happens in lr_tls_init, before the helper
 * confines itself; afterwards OpenSSL needs no file: its configuration is
 * never loaded (OPENSSL_INIT_NO_LOAD_CONFIG), its default provider is built
 * in, and randomness comes from getrandom(2).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "landrun/egress/tls.h"
#include "landrun/lib/error.h"
#include "landrun/lib/util.h"

#define VALID_BEFORE_S (24 * 3600)	/* clocks differ */
#define VALID_FOR_S (366 * 24 * 3600)	/* the key dies with the helper anyway */
#define MAX_SITES 64

static struct {
	EVP_PKEY *ca_key;
	X509 *ca;
	SSL_CTX *client;		/* to the upstreams */
	const struct lr_http_site *sites;
	size_t n;
	SSL_CTX *server[MAX_SITES];	/* per site, minted on first use */
	SSL_SESSION *resume[MAX_SITES];	/* per site, the upstream's last session */
	pthread_mutex_t lock;
} T = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ERR with WHAT and OpenSSL's first error; -EIO. */
static int tls_fail(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char text[256] = "";

	if (e)
		ERR_error_string_n(e, text, sizeof(text));
	lr_errf(err, errlen, "%s%s%s", what, text[0] ? ": " : "", text);
	ERR_clear_error();
	return -EIO;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return 0;
	ok = X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

/* A certificate for KEY, named CN, valid from now, with a random serial:
 * issued by ISSUER (NULL: itself), its extensions left to the caller. */
static X509 *new_cert(EVP_PKEY *key, const char *cn, X509 *issuer)
{
	X509 *c = X509_new();
	X509_NAME *name = X509_NAME_new();
	BIGNUM *serial = BN_new();
	bool ok = c && name && serial;

	ok = ok && X509_set_version(c, 2) && BN_rand(serial, 127, BN_RAND_TOP_ANY,
						   BN_RAND_BOTTOM_ANY) &&
	     BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(c)) &&
	     X509_gmtime_adj(X509_getm_notBefore(c), -VALID_BEFORE_S) &&
	     X509_gmtime_adj(X509_getm_notAfter(c), VALID_FOR_S) &&
	     X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"landrun",
					-1, -1, 0) &&
	     X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
					0) &&
	     X509_set_subject_name(c, name) &&
	     X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer) : name) &&
	     X509_set_pubkey(c, key);
	BN_free(serial);
	X509_NAME_free(name);
	if (!ok) {
		X509_free(c);
		return NULL;
	}
	return c;
}

/* The run's CA: its name constraints permit the sites' hosts only. */
static int make_ca(char **pem, char *err, size_t errlen)
{
	struct lr_buf nc = { 0 };
	BIO *bio = NULL;
	char *data, cn[64];
	unsigned char id[6];
	long len;
	int r = 0;

	for (size_t i = 0; r == 0 && i < T.n; i++) {
		const char *item = i ? ",permitted;DNS:" : "critical,permitted;DNS:";

		r = lr_buf_add(&nc, item, strlen(item));
		r = r ?: lr_buf_add(&nc, T.sites[i].host, strlen(T.sites[i].host));
	}
	if (r < 0) {
		free(nc.s);
		lr_errf(err, errlen, "out of memory");
		return r;
	}
	/* a name of its own, so that two runs' CAs are never taken for one */
	if (RAND_bytes(id, sizeof(id)) != 1) {
		free(nc.s);
		return tls_fail(err, errlen, "random bytes for the CA's name");
	}
	snprintf(cn, sizeof(cn), "landrun per-run CA %02x%02x%02x%02x%02x%02x", id[0], id[1], id[2],
		 id[3], id[4], id[5]);
	T.ca_key = EVP_EC_gen("P-256");
	T.ca = T.ca_key ? new_cert(T.ca_key, cn, NULL) : NULL;
	if (!T.ca || !add_ext(T.ca, T.ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
	    !add_ext(T.ca, T.ca, NID_key_usage, "critical,keyCertSign,cRLSign") ||
	    !add_ext(T.ca, T.ca, NID_subject_key_identifier, "hash") ||
	    !add_ext(T.ca, T.ca, NID_name_constraints, nc.s) ||
	    !X509_sign(T.ca, T.ca_key, EVP_sha256())) {
		free(nc.s);
		return tls_fail(err, errlen, "cannot make the run's CA");
	}
	free(nc.s);
	bio = BIO_new(BIO_s_mem());
	if (!bio || !PEM_write_bio_X509(bio, T.ca) || (len = BIO_get_mem_data(bio, &data)) <= 0 ||
	    !(*pem = strndup(data, (size_t)len))) {
		BIO_free(bio);
		return tls_fail(err, errlen, "cannot write the CA's certificate");
	}
	BIO_free(bio);
	return 0;
}

/*
 * A session an upstream gave (a TLS 1.3 ticket, after the handshake; 1.2's
 * at its end): kept for the next connection to the same site, which then
 * skips the certificate's verification and the upstream's signature.  It
 * was made by a handshake that verified the certificate for the site's
 * host, and only that site offers it: to another, a session is never
 * offered, and an upstream that cannot resume it makes a full handshake.
 * (The site is the connection's app data, index + 1.)
 */
static int keep_session(SSL *s, SSL_SESSION *sess)
{
	uintptr_t site = (uintptr_t)SSL_get_app_data(s);
	SSL_SESSION *old;

	if (site == 0 || site > T.n)
		return 0;
	pthread_mutex_lock(&T.lock);
	old = T.resume[site - 1];
	T.resume[site - 1] = sess;
	pthread_mutex_unlock(&T.lock);
	SSL_SESSION_free(old);
	return 1; /* the reference is T.resume's */
}

/* The upstreams' side: TLS 1.2 or later, verified against CAFILE's CAs. */
static int make_client(const char *cafile, char *err, size_t errlen)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	X509_STORE *store = X509_STORE_new();
	char what[512];
	int n;

	if (!cafile)
		cafile = X509_get_default_cert_file();
	if (!store || !X509_STORE_load_file(store, cafile)) {
		X509_STORE_free(store);
		snprintf(what, sizeof(what), "cannot read the CAs to verify upstreams with from %s",
			 cafile);
		return tls_fail(err, errlen, what);
	}
	n = sk_X509_OBJECT_num(X509_STORE_get0_objects(store));
	if (n <= 0) {
		X509_STORE_free(store);
		lr_errf(err, errlen, "no CA certificate in %s", cafile);
		return -ENOENT;
	}
	T.client = SSL_CTX_new(TLS_client_method());
	if (!T.client) {
		X509_STORE_free(store);
		return tls_fail(err, errlen, "SSL_CTX_new");
	}
	SSL_CTX_set_cert_store(T.client, store);
	SSL_CTX_set_verify(T.client, SSL_VERIFY_PEER, NULL);
	if (!SSL_CTX_set_min_proto_version(T.client, TLS1_2_VERSION) ||
	    SSL_CTX_set_alpn_protos(T.client, alpn, sizeof(alpn) - 1) != 0)
		return tls_fail(err, errlen, "the upstreams' TLS settings");
	SSL_CTX_set_options(T.client, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_session_cache_mode(T.client,
				       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(T.client, keep_session);
	return 0;
}

int lr_tls_init(const char *cafile, const struct lr_http_site *sites, size_t n, char **ca_pem,
		char *err, size_t errlen)
{
	int r;

	if (n == 0 || n > MAX_SITES) {
		lr_errf(err, errlen, "%zu hosts to intercept (1 to %d)", n, MAX_SITES);
		return -EINVAL;
	}
	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL))
		return tls_fail(err, errlen, "cannot start OpenSSL");
	T.sites = sites;
	T.n = n;
	r = make_client(cafile, err, errlen);
	return r ?: make_ca(ca_pem, err, errlen);
}

/* ALPN: http/1.1 if the client offers it; else none (it speaks HTTP/1.1,
 * or fails: the proxy reads nothing else). */
static int alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned int inlen, void *arg)
{
	for (unsigned i = 0; i < inlen; i += 1u + in[i])
		if (in[i] == 8 && i + 9 <= inlen && memcmp(in + i + 1, "http/1.1", 8) == 0) {
			*out = in + i + 1;
			*outlen = 8;
			return SSL_TLSEXT_ERR_OK;
		}
	return SSL_TLSEXT_ERR_NOACK;
}

/* The certificate of SITE, and a server context with it. */
static SSL_CTX *mint(const struct lr_http_site *site, char *err, size_t errlen)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *leaf = key ? new_cert(key, site->host, T.ca) : NULL;
	SSL_CTX *ctx = NULL;
	char san[300];

	snprintf(san, sizeof(san), "DNS:%s", site->host);
	if (!leaf || !add_ext(leaf, T.ca, NID_basic_constraints, "critical,CA:FALSE") ||
	    !add_ext(leaf, T.ca, NID_key_usage, "critical,digitalSignature") ||
	    !add_ext(leaf, T.ca, NID_ext_key_usage, "serverAuth") ||
	    !add_ext(leaf, T.ca, NID_subject_alt_name, san) ||
	    !add_ext(leaf, T.ca, NID_subject_key_identifier, "hash") ||
	    !add_ext(leaf, T.ca, NID_authority_key_identifier, "keyid:always") ||
	    !X509_sign(leaf, T.ca_key, EVP_sha256()) || !(ctx = SSL_CTX_new(TLS_server_method())) ||
	    !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    SSL_CTX_use_certificate(ctx, leaf) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		tls_fail(err, errlen, "cannot make the host's certificate");
		SSL_CTX_free(ctx);
		ctx = NULL;
	} else {
		SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
		SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	}
	X509_free(leaf);
	EVP_PKEY_free(key);
	return ctx;
}

SSL *lr_tls_accept(int fd, size_t site, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	SSL *s;

	if (site >= T.n) {
		lr_errf(err, errlen, "no such host");
		return NULL;
	}
	pthread_mutex_lock(&T.lock);
	if (!T.server[site])
		T.server[site] = mint(&T.sites[site], err, errlen);
	ctx = T.server[site];
	pthread_mutex_unlock(&T.lock);
	if (!ctx)
		return NULL;
	s = SSL_new(ctx);
	if (!s || SSL_set_fd(s, fd) != 1 || SSL_accept(s) != 1) {
		tls_fail(err, errlen, "the command's TLS handshake failed");
		SSL_free(s);
		return NULL;
	}
	return s;
}

/* The site's last session, if it can be resumed (a reference), or NULL. */
static SSL_SESSION *session_of(size_t site)
{
	SSL_SESSION *sess;

	pthread_mutex_lock(&T.lock);
	sess = T.resume[site];
	if (!sess || !SSL_SESSION_is_resumable(sess) || !SSL_SESSION_up_ref(sess))
		sess = NULL;
	pthread_mutex_unlock(&T.lock);
	return sess;
}

/* A client of SITE over FD, its session to resume set: or NULL with ERR. */
static SSL *new_client(int fd, size_t site, char *err, size_t errlen)
{
	SSL *s = SSL_new(T.client);
	SSL_SESSION *sess;
	const char *host;
	int ok;

	if (site >= T.n) {
		SSL_free(s);
		lr_errf(err, errlen, "no such host");
		return NULL;
	}
	host = T.sites[site].host;
	if (!s || SSL_set_fd(s, fd) != 1 || SSL_set_tlsext_host_name(s, host) != 1 ||
	    SSL_set1_host(s, host) != 1 || SSL_set_app_data(s, (void *)(uintptr_t)(site + 1)) != 1) {
		tls_fail(err, errlen, "cannot set up TLS to the upstream");
		SSL_free(s);
		return NULL;
	}
	sess = session_of(site);
	if (sess) {
		ok = SSL_set_session(s, sess);
		SSL_SESSION_free(sess);
		if (ok != 1) {
			tls_fail(err, errlen, "cannot set up TLS to the upstream");
			SSL_free(s);
			return NULL;
		}
	}
	return s;
}

int lr_tls_connect_finish(SSL *s, char *err, size_t errlen)
{
	long v;

	if (SSL_connect(s) == 1)
		return 0;
	v = SSL_get_verify_result(s);
	if (v != X509_V_OK)
		lr_errf(err, errlen,
			"the upstream's certificate is not trusted: %s (see "
			"SSL_CERT_FILE in docs/usage.md)",
			X509_verify_cert_error_string(v));
	else
		tls_fail(err, errlen, "the TLS handshake with the upstream failed");
	ERR_clear_error();
	SSL_free(s);
	return v != X509_V_OK ? -EPROTO : -EIO;
}

SSL *lr_tls_connect(int fd, size_t site, char *err, size_t errlen)
{
	SSL *s = new_client(fd, site, err, errlen);

	return s && lr_tls_connect_finish(s, err, errlen) == 0 ? s : NULL;
}

SSL *lr_tls_connect_begin(int fd, size_t site)
{
	char err[256];
	SSL *s = new_client(fd, site, err, sizeof(err));

	if (!s)
		return NULL;
	/* a failure here (the answer come at once: a certificate not trusted)
	 * is FINISH's to tell, not a reason to start another handshake on FD,
	 * which carries this one's alert and the rest of the upstream's flight */
	if (SSL_connect(s) != 1)
		ERR_clear_error();
	return s;
}

int lr_tls_write_all(SSL *s, const char *buf, size_t len)
{
	while (len) {
		int chunk = len > (1u << 30) ? 1 << 30 : (int)len;
		int n = SSL_write(s, buf, chunk);

		if (n <= 0) {
			ERR_clear_error();
			return -EIO;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

void lr_tls_close(SSL *s)
{
	if (!s)
		return;
	SSL_shutdown(s);
	ERR_clear_error();
	SSL_free(s);
}
