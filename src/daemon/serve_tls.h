/* serve_tls.h - what drover serve --listen needs for HTTPS and for
 * kubectl: the CA and server certificate in DIR/tls (sys/tlsca.h), with
 * the names a client may use for the listener, and DIR/kubeconfig that
 * points kubectl (and drover, and client-go based tools) at it.
 *
 * Ownership: a struct serve_tls owns its PEM buffers; serve_tls_release
 * frees them. */
#ifndef DROVER_DAEMON_SERVE_TLS_H
#define DROVER_DAEMON_SERVE_TLS_H

#include <stdbool.h>
#include <stddef.h>

/* The GnuTLS priority of the HTTPS listener, kube-apiserver's policy:
 * TLS 1.2 and 1.3 only (its --tls-min-version floor, VersionTLS12), and
 * for 1.2 only the ECDHE suites with an AEAD cipher (AES-128-GCM,
 * AES-256-GCM, ChaCha20-Poly1305), the secure suites of Go's crypto/tls;
 * TLS 1.3's own three suites are the same ciphers. No RSA key exchange,
 * no CBC, no SHA-1 MAC. */
#define SERVE_TLS_PRIORITIES                                                   \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:" \
	"+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:" \
	"+ECDHE-RSA"

struct serve_tls {
	char *cert; /* DIR/tls/server.crt */
	char *key;  /* DIR/tls/server.key */
	char *ca;   /* DIR/tls/ca.crt */
	size_t ca_len;
};

/* Makes sure DIR/tls holds the CA and a server certificate whose SANs
 * cover host (the --listen address), 127.0.0.1, localhost, the host
 * name, every IPv4 address of the host when host is 0.0.0.0, and the
 * nextra names of extra (--tls-san, at most SERVE_TLS_MAX_SANS), and
 * reads them into t. Logs what it made. 0, or -1 with err. */
#define SERVE_TLS_MAX_SANS 16
int serve_tls_prepare(const char *dir, const char *host,
		      const char *const *extra, size_t nextra,
		      struct serve_tls *t, char *err, size_t errlen);

/* Writes DIR/kubeconfig (mode 0600): cluster, user and context "drover",
 * server https://HOST:PORT (http:// when t is NULL: --insecure-http;
 * 127.0.0.1 for an unspecified host such as 0.0.0.0), the CA's PEM as
 * certificate-authority-data, the token. 0, or -1 with err. */
int serve_kubeconfig(const char *dir, const char *host, int port,
		     const struct serve_tls *t, const char *token, char *err,
		     size_t errlen);

void serve_tls_release(struct serve_tls *t);

#endif
