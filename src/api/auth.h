/* auth.h - who is asking, over TCP: the bearer token of a request names
 * the admin (drover serve's DIR/token), a node (the credential its agent
 * got when it joined), or nobody (401). And the join tokens with which a
 * new host gets its node credential (`drover token create`, `drover
 * agent --token`), as kubeadm's bootstrap tokens do.
 *
 * Node credentials are "drover-node:NAME:SIG", SIG the hex HMAC-SHA-256
 * of "node:NAME" under a key the control plane keeps in
 * DIR/tls/node-credentials.key (32 random bytes, mode 0600, made on
 * first start). Nothing else is stored for them: a credential names its
 * node, and only this key makes one. Its requests act as
 * "system:node:NAME", limited to that node's objects (node_authz.c).
 *
 * Join tokens are kubeadm's shape, "ID.SECRET" (6 and 16 characters of
 * [a-z0-9]). DIR/join-tokens.json (mode 0600) keeps, per token, its id,
 * the SHA-256 of its secret (never the secret), when it was made, when
 * it expires (or never), and a description. A token is shown once, when
 * made. What an agent is given is the token and the hash of the CA's
 * public key (tlsca_ca_hash), "ID.SECRET::sha256:HEX": the agent checks
 * the CA the server presents against it, so no file is copied.
 *
 * Example: `drover token create --ttl 2h` prints
 *   k8q2mz.4f9x0c1v7b2n3m5p::sha256:9e0d...c41a
 * The agent sends "Bearer k8q2mz.4f9x0c1v7b2n3m5p" to /drover/v1/join
 * with its node name; the file's entry for k8q2mz holds
 * sha256("4f9x0c1v7b2n3m5p") and the expiry, checked in constant time.
 *
 * Ownership: api_auth_open returns an api_auth the caller frees with
 * api_auth_free; it copies what it is given. */
#ifndef DROVER_API_AUTH_H
#define DROVER_API_AUTH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "dtime.h"

struct api_auth;

enum api_who { API_WHO_NONE, API_WHO_ADMIN, API_WHO_NODE };

/* The longest node name (a DNS subdomain) and credential. */
#define API_NODE_NAME_MAX 254
#define API_CRED_MAX      (12 + API_NODE_NAME_MAX + 1 + 64 + 1)
/* "ID.SECRET" and its NUL. */
#define API_JOIN_TOKEN_LEN (6 + 1 + 16 + 1)

/* Reads or makes DIR/tls/node-credentials.key; admin_token is the
 * admin's bearer token; ca_pem the CA (cluster-info), copied. NULL with
 * err on failure. */
struct api_auth *api_auth_open(const char *dir, const char *admin_token,
			       const char *ca_pem, size_t ca_len, char *err,
			       size_t errlen);
void api_auth_free(struct api_auth *a);

/* Who the bearer token is; for a node, its name into node. */
enum api_who api_auth_who(const struct api_auth *a, const char *bearer,
			  char node[API_NODE_NAME_MAX + 1]);
/* The credential of node (a DNS subdomain) into out (API_CRED_MAX). */
int api_auth_node_credential(const struct api_auth *a, const char *node,
			     char out[API_CRED_MAX]);
/* A serving certificate for node's agent, for its addresses addrs (n),
 * signed by the CA of DIR/tls, and its key (PEM; the caller frees both):
 * the agent serves its pods' logs to the API with it (h_drover.c). 0, or
 * -1 with err. */
int api_auth_issue_serving(const struct api_auth *a, const char *node,
			   const char *const *addrs, size_t n, char **cert_pem,
			   char **key_pem, char *err, size_t errlen);
/* The CA's PEM (NULL over plain HTTP). */
const char *api_auth_ca(const struct api_auth *a, size_t *len);

/* A new join token valid for ttl_ms from now (0: forever) into token;
 * its entry (as api_auth_join_list shows it) into *entry if entry is
 * not NULL (a new reference). 0, or -1 with err (the file). */
int api_auth_join_create(struct api_auth *a, dtime now, int64_t ttl_ms,
			 const char *description,
			 char token[API_JOIN_TOKEN_LEN], json_t **entry,
			 char *err, size_t errlen);
/* The tokens' entries: [{"id", "created", "expires"?, "description"?}]
 * (a new reference), expired ones included. */
json_t *api_auth_join_list(struct api_auth *a);
/* 0 deleted, 1 no such id, -1 with err (the file). */
int api_auth_join_delete(struct api_auth *a, const char *id, char *err,
			 size_t errlen);
/* 0 if token ("ID.SECRET") is known and not expired at now, else -1. */
int api_auth_join_check(struct api_auth *a, const char *token, dtime now);

#endif
