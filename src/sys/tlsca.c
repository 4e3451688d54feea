/* tlsca.c - the CA in DIR/tls and the API server's certificate, made and
 * checked with GnuTLS's x509 API (see tlsca.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "fsx.h"
#include "tlsca.h"

#define DAY 86400

/* The certificate and key of the CA or of the server, in memory. */
struct pair {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
};

static void
pair_release(struct pair *p)
{
	if (p->crt)
		gnutls_x509_crt_deinit(p->crt);
	if (p->key)
		gnutls_x509_privkey_deinit(p->key);
	p->crt = NULL;
	p->key = NULL;
}

static int
fail(char *err, size_t errlen, const char *what, int rc)
{
	snprintf(err, errlen, "%s: %s", what, gnutls_strerror(rc));
	return -1;
}

static int
write_file(const char *path, const void *data, size_t len, unsigned mode,
	   char *err, size_t errlen)
{
	int rc = fsx_write_atomic(path, data, len, mode);

	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc ? -1 : 0;
}

/* Serial numbers: 16 random bytes, positive (RFC 5280 §4.1.2.2). */
static int
set_serial(gnutls_x509_crt_t crt)
{
	unsigned char serial[16];
	int rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));

	if (rc < 0)
		return rc;
	serial[0] = (unsigned char)((serial[0] & 0x7f) | 0x01);
	return gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
}

/* The fields both certificates share: version 3, serial, validity, a
 * fresh ECDSA P-256 key, the subject's common name and key id. */
static int
new_cert(struct pair *p, const char *cn, time_t now, unsigned days)
{
	unsigned char id[64];
	size_t idlen = sizeof(id);
	int rc;

	if ((rc = gnutls_x509_privkey_init(&p->key)) < 0 ||
	    (rc = gnutls_x509_privkey_generate(
		 p->key, GNUTLS_PK_ECDSA,
		 GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0 ||
	    (rc = gnutls_x509_crt_init(&p->crt)) < 0 ||
	    (rc = gnutls_x509_crt_set_version(p->crt, 3)) < 0 ||
	    (rc = set_serial(p->crt)) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(p->crt, now - 3600)) <
		0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(
		 p->crt, now + (time_t)days * DAY)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(
		 p->crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
		 (unsigned)strlen(cn))) < 0 ||
	    (rc = gnutls_x509_crt_set_key(p->crt, p->key)) < 0 ||
	    (rc = gnutls_x509_crt_get_key_id(p->crt, GNUTLS_KEYID_USE_SHA1, id,
					     &idlen)) < 0 ||
	    (rc = gnutls_x509_crt_set_subject_key_id(p->crt, id, idlen)) < 0)
		return rc;
	return 0;
}

/* Exports both as PEM: the key PKCS#8 and 0600, the certificate 0644. */
static int
save_pair(const struct pair *p, const char *dir, const char *name, char *err,
	  size_t errlen)
{
	gnutls_datum_t c = {NULL, 0}, k = {NULL, 0};
	char path[4096];
	int rc, ret = -1;

	if ((rc = gnutls_x509_crt_export2(p->crt, GNUTLS_X509_FMT_PEM, &c)) <
		0 ||
	    (rc = gnutls_x509_privkey_export2_pkcs8(p->key, GNUTLS_X509_FMT_PEM,
						    NULL, GNUTLS_PKCS_PLAIN,
						    &k)) < 0) {
		fail(err, errlen, "cannot export the certificate", rc);
		goto out;
	}
	/* The key first: a certificate is never there without its key. */
	snprintf(path, sizeof(path), "%s/%s.key", dir, name);
	if (write_file(path, k.data, k.size, 0600, err, errlen))
		goto out;
	snprintf(path, sizeof(path), "%s/%s.crt", dir, name);
	if (write_file(path, c.data, c.size, 0644, err, errlen))
		goto out;
	ret = 0;
out:
	gnutls_free(c.data);
	gnutls_free(k.data);
	return ret;
}

/* Reads DIR/NAME.crt and DIR/NAME.key: 0, 1 when either is missing or
 * unreadable (to be made again), -1 on other errors. */
static int
load_pair(const char *dir, const char *name, struct pair *p)
{
	char path[4096], *buf = NULL;
	size_t len;
	gnutls_datum_t d;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.crt", dir, name);
	if (fsx_read_all(path, &buf, &len))
		return 1;
	d.data = (unsigned char *)buf;
	d.size = (unsigned)len;
	rc = gnutls_x509_crt_init(&p->crt);
	if (rc >= 0)
		rc = gnutls_x509_crt_import(p->crt, &d, GNUTLS_X509_FMT_PEM);
	free(buf);
	if (rc < 0)
		goto bad;
	snprintf(path, sizeof(path), "%s/%s.key", dir, name);
	if (fsx_read_all(path, &buf, &len))
		goto bad;
	d.data = (unsigned char *)buf;
	d.size = (unsigned)len;
	rc = gnutls_x509_privkey_init(&p->key);
	if (rc >= 0)
		rc =
		    gnutls_x509_privkey_import(p->key, &d, GNUTLS_X509_FMT_PEM);
	free(buf);
	if (rc < 0)
		goto bad;
	return 0;
bad:
	pair_release(p);
	return 1;
}

static int
make_ca(struct pair *ca, const char *dir, time_t now, char *err, size_t errlen)
{
	char cn[64];
	int rc;

	/* k3s names its CA "k3s-server-ca@<unix time>". */
	snprintf(cn, sizeof(cn), "drover-ca@%lld", (long long)now);
	if ((rc = new_cert(ca, cn, now, TLSCA_CA_DAYS)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(ca->crt, 1, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(
		 ca->crt, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
			      GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_sign2(ca->crt, ca->crt, ca->key,
					GNUTLS_DIG_SHA256, 0)) < 0)
		return fail(err, errlen, "cannot make the CA", rc);
	return save_pair(ca, dir, "ca", err, errlen);
}

static int
add_san(gnutls_x509_crt_t crt, const char *name)
{
	unsigned char ip[16];

	if (inet_pton(AF_INET, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(
		    crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND);
	if (inet_pton(AF_INET6, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(
		    crt, GNUTLS_SAN_IPADDRESS, ip, 16, GNUTLS_FSAN_APPEND);
	return gnutls_x509_crt_set_subject_alt_name(
	    crt, GNUTLS_SAN_DNSNAME, name, (unsigned)strlen(name),
	    GNUTLS_FSAN_APPEND);
}

/* A server certificate for sans (n names), signed by ca, into p. */
static int
sign_server(const struct pair *ca, const char *cn, const char *const *sans,
	    size_t n, time_t now, struct pair *p)
{
	unsigned char id[64];
	size_t idlen = sizeof(id), i;
	int rc;

	if ((rc = new_cert(p, cn, now, TLSCA_SERVER_DAYS)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(p->crt, 0, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(
		 p->crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
			     GNUTLS_KEY_KEY_ENCIPHERMENT)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_purpose_oid(
		 p->crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0 ||
	    (rc = gnutls_x509_crt_get_subject_key_id(ca->crt, id, &idlen,
						     NULL)) < 0 ||
	    (rc = gnutls_x509_crt_set_authority_key_id(p->crt, id, idlen)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = add_san(p->crt, sans[i])) < 0)
			return rc;
	return gnutls_x509_crt_sign2(p->crt, ca->crt, ca->key,
				     GNUTLS_DIG_SHA256, 0);
}

static int
make_server(const struct pair *ca, const char *dir, const char *const *sans,
	    size_t n, time_t now, char *err, size_t errlen)
{
	struct pair p = {NULL, NULL};
	int rc;

	if ((rc = sign_server(ca, "drover", sans, n, now, &p)) < 0) {
		pair_release(&p);
		return fail(err, errlen, "cannot make the server certificate",
			    rc);
	}
	rc = save_pair(&p, dir, "server", err, errlen);
	pair_release(&p);
	return rc;
}

int
tlsca_issue(const char *dir, const char *cn, const char *const *sans, size_t n,
	    time_t now, char **cert_pem, char **key_pem, char *err,
	    size_t errlen)
{
	struct pair ca = {NULL, NULL}, p = {NULL, NULL};
	gnutls_datum_t c = {NULL, 0}, k = {NULL, 0};
	int rc, ret = -1;

	*cert_pem = *key_pem = NULL;
	if (load_pair(dir, "ca", &ca)) {
		snprintf(err, errlen, "%s/ca.crt: cannot read the CA", dir);
		return -1;
	}
	if ((rc = sign_server(&ca, cn, sans, n, now, &p)) < 0 ||
	    (rc = gnutls_x509_crt_export2(p.crt, GNUTLS_X509_FMT_PEM, &c)) <
		0 ||
	    (rc = gnutls_x509_privkey_export2_pkcs8(p.key, GNUTLS_X509_FMT_PEM,
						    NULL, GNUTLS_PKCS_PLAIN,
						    &k)) < 0) {
		fail(err, errlen, "cannot make the certificate", rc);
		goto out;
	}
	*cert_pem = strndup((const char *)c.data, c.size);
	*key_pem = strndup((const char *)k.data, k.size);
	ret = *cert_pem && *key_pem ? 0 : -1;
	if (ret) {
		free(*cert_pem);
		free(*key_pem);
		*cert_pem = *key_pem = NULL;
		snprintf(err, errlen, "out of memory");
	}
out:
	if (k.data)
		gnutls_memset(k.data, 0, k.size);
	gnutls_free(c.data);
	gnutls_free(k.data);
	pair_release(&p);
	pair_release(&ca);
	return ret;
}

static int
crt_covers(gnutls_x509_crt_t crt, const char *name)
{
	unsigned char ip[16], buf[256];
	size_t iplen = 0, len;
	unsigned i, critical;
	int type;

	if (inet_pton(AF_INET, name, ip) == 1)
		iplen = 4;
	else if (inet_pton(AF_INET6, name, ip) == 1)
		iplen = 16;
	for (i = 0;; i++) {
		len = sizeof(buf) - 1;
		type = gnutls_x509_crt_get_subject_alt_name(crt, i, buf, &len,
							    &critical);
		if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			return 0;
		if (type == GNUTLS_E_SHORT_MEMORY_BUFFER)
			continue;
		if (type < 0)
			return -1;
		if (iplen && type == GNUTLS_SAN_IPADDRESS && len == iplen &&
		    !memcmp(buf, ip, iplen))
			return 1;
		buf[len] = '\0';
		if (!iplen && type == GNUTLS_SAN_DNSNAME &&
		    !strcasecmp((char *)buf, name))
			return 1;
	}
}

int
tlsca_covers(const char *cert_pem, size_t len, const char *name)
{
	gnutls_x509_crt_t crt;
	gnutls_datum_t d = {(unsigned char *)cert_pem, (unsigned)len};
	int r;

	if (gnutls_x509_crt_init(&crt) < 0)
		return -1;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) < 0) {
		gnutls_x509_crt_deinit(crt);
		return -1;
	}
	r = crt_covers(crt, name);
	gnutls_x509_crt_deinit(crt);
	return r;
}

int
tlsca_ca_hash(const char *cert_pem, size_t len, char *out)
{
	gnutls_x509_crt_t crt;
	gnutls_pubkey_t pub = NULL;
	gnutls_datum_t d = {(unsigned char *)cert_pem, (unsigned)len};
	gnutls_datum_t der = {NULL, 0};
	int r = -1;

	if (gnutls_x509_crt_init(&crt) < 0)
		return -1;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) < 0 ||
	    gnutls_pubkey_init(&pub) < 0 ||
	    gnutls_pubkey_import_x509(pub, crt, 0) < 0 ||
	    gnutls_pubkey_export2(pub, GNUTLS_X509_FMT_DER, &der) < 0)
		goto out;
	memcpy(out, "sha256:", 7);
	r = digest_sha256_hex(der.data, der.size, out + 7);
out:
	gnutls_free(der.data);
	if (pub)
		gnutls_pubkey_deinit(pub);
	gnutls_x509_crt_deinit(crt);
	return r;
}

/* Whether the server certificate can stay: signed by this CA, its key
 * the certificate's, not about to expire, every name covered. */
static bool
server_ok(const struct pair *ca, const struct pair *p, const char *const *sans,
	  size_t n, time_t now)
{
	unsigned char a[64], b[64];
	size_t alen = sizeof(a), blen = sizeof(b), i;
	unsigned status = 0;
	time_t until = gnutls_x509_crt_get_expiration_time(p->crt);

	/* The times against now (the caller's clock), not GnuTLS's. */
	if (gnutls_x509_crt_verify(p->crt, &ca->crt, 1,
				   GNUTLS_VERIFY_DISABLE_TIME_CHECKS,
				   &status) < 0 ||
	    status != 0)
		return false;
	if (until == (time_t)-1 ||
	    until - now < (time_t)TLSCA_RENEW_DAYS * DAY ||
	    gnutls_x509_crt_get_activation_time(p->crt) > now)
		return false;
	if (gnutls_x509_crt_get_key_id(p->crt, GNUTLS_KEYID_USE_SHA256, a,
				       &alen) < 0 ||
	    gnutls_x509_privkey_get_key_id(p->key, GNUTLS_KEYID_USE_SHA256, b,
					   &blen) < 0 ||
	    alen != blen || memcmp(a, b, alen))
		return false;
	for (i = 0; i < n; i++)
		if (crt_covers(p->crt, sans[i]) != 1)
			return false;
	return true;
}

int
tlsca_ensure(const char *dir, const char *const *sans, size_t n, time_t now,
	     struct tlsca_result *res, char *err, size_t errlen)
{
	struct pair ca = {NULL, NULL}, srv = {NULL, NULL};
	struct tlsca_result dummy;
	int ret = -1;

	if (res == NULL)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (load_pair(dir, "ca", &ca)) {
		char path[4096];

		/* A CA certificate without its key cannot sign; a key
		 * without a certificate is a half-made CA. Either way no
		 * client can trust it yet, unless ca.crt is there: then
		 * refuse rather than replace what clients may trust. */
		snprintf(path, sizeof(path), "%s/ca.crt", dir);
		if (access(path, F_OK) == 0) {
			snprintf(err, errlen,
				 "%s: unreadable, or ca.key is missing or "
				 "does not load; move both away to make a "
				 "new CA",
				 path);
			return -1;
		}
		if (make_ca(&ca, dir, now, err, errlen))
			goto out;
		res->ca_created = true;
	}
	if (load_pair(dir, "server", &srv) == 0 &&
	    server_ok(&ca, &srv, sans, n, now)) {
		ret = 0;
		goto out;
	}
	if (make_server(&ca, dir, sans, n, now, err, errlen))
		goto out;
	res->server_created = true;
	ret = 0;
out:
	pair_release(&ca);
	pair_release(&srv);
	return ret;
}
