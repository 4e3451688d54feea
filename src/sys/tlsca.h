/* tlsca.h - drover's own certificate authority, the API server's
 * certificate and the agents' serving certificates, made with GnuTLS's x509 API, as k3s makes its own on
 * first start.
 *
 * In DIR (DIR/tls of the data directory, made mode 0700):
 *   ca.crt      the CA (ECDSA P-256, self-signed, 10 years), mode 0644
 *   ca.key      its key (PKCS#8 PEM), mode 0600
 *   server.crt  the API server's certificate, signed by the CA (1 year,
 *               serverAuth), mode 0644
 *   server.key  its key, mode 0600
 *
 * The CA is made once and kept. The server certificate is made again
 * when it is missing or unreadable, not signed by the CA, within 90 days
 * of expiring (k3s renews at 90 days too), or when its subject
 * alternative names do not cover every name asked for: a listen address
 * that moved gets a new certificate, a client that trusted the CA goes
 * on trusting it. Names that parse as IPv4 or IPv6 addresses are IP
 * SANs, the others DNS SANs ("127.0.0.1", "localhost", the host name).
 *
 * Errors are values: every function returns 0 or -1 with a message in
 * err. Files are written to a temporary name, synced and renamed. */
#ifndef DROVER_SYS_TLSCA_H
#define DROVER_SYS_TLSCA_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define TLSCA_CA_DAYS     3650
#define TLSCA_SERVER_DAYS 365
#define TLSCA_RENEW_DAYS  90

/* What tlsca_ensure did, for the log. */
struct tlsca_result {
	bool ca_created;
	bool server_created; /* made (again) this time */
};

/* Makes sure DIR holds the CA and a server certificate covering every
 * name of sans (n of them); now is the current time (validity starts an
 * hour before it, for clocks a little behind). */
int tlsca_ensure(const char *dir, const char *const *sans, size_t n, time_t now,
		 struct tlsca_result *res, char *err, size_t errlen);

/* A server certificate (1 year, serverAuth) with common name cn for
 * sans (n names), signed by the CA in DIR, and its fresh key, as PEM in
 * *cert_pem and *key_pem (the caller frees both): what a joined agent
 * serves its node's logs with. Nothing is written. */
int tlsca_issue(const char *dir, const char *cn, const char *const *sans,
		size_t n, time_t now, char **cert_pem, char **key_pem,
		char *err, size_t errlen);

/* Whether the PEM certificate cert covers name (an IP SAN equal to the
 * address, or a DNS SAN equal to the name, case-insensitively): 1 yes,
 * 0 no, -1 unreadable. */
int tlsca_covers(const char *cert_pem, size_t len, const char *name);

/* The hash a join token carries to pin the CA, as kubeadm's
 * --discovery-token-ca-cert-hash: "sha256:" and the hex SHA-256 of the
 * certificate's DER SubjectPublicKeyInfo (the same as `openssl x509
 * -pubkey -noout -in ca.crt | openssl pkey -pubin -outform der |
 * sha256sum`). out holds TLSCA_HASH_LEN bytes. 0, or -1 (unreadable). */
#define TLSCA_HASH_LEN (7 + 64 + 1)
int tlsca_ca_hash(const char *cert_pem, size_t len, char *out);

#endif
