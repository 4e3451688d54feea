/* auth.c - bearer tokens: the admin's, nodes' credentials and join
 * tokens (see auth.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "auth.h"
#include "tlsca.h"
#include "ctstr.h"
#include "digest.h"
#include "fsx.h"
#include "names.h"
#include "rand.h"
#include "xalloc.h"

#define CRED_PREFIX "drover-node:"
#define KEY_BYTES   32

struct api_auth {
	char *admin;
	unsigned char key[KEY_BYTES];
	char *ca;
	size_t ca_len;
	char *tokens_path; /* DIR/join-tokens.json */
	char *tls_dir;     /* DIR/tls: the CA that signs agents' certificates */
};

/* DIR/tls/node-credentials.key: read, or made once (hex, 0600). */
static int
load_key(struct api_auth *a, const char *dir, char *err, size_t errlen)
{
	char path[4096], hex[2 * KEY_BYTES + 2];
	char *buf = NULL;
	size_t len = 0, i;
	int r;

	snprintf(path, sizeof(path), "%s/tls", dir);
	if (mkdir(path, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/tls/node-credentials.key", dir);
	r = fsx_read_all(path, &buf, &len);
	if (r == -ENOENT) {
		rand_hex(hex, KEY_BYTES);
		hex[2 * KEY_BYTES] = '\n';
		if (fsx_write_atomic(path, hex, 2 * KEY_BYTES + 1, 0600)) {
			snprintf(err, errlen, "%s: cannot write it", path);
			return -1;
		}
		buf = xstrndup(hex, 2 * KEY_BYTES);
		len = 2 * KEY_BYTES;
	} else if (r) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return -1;
	}
	if (len < 2 * KEY_BYTES) {
		free(buf);
		snprintf(err, errlen, "%s: not a key (64 hex digits)", path);
		return -1;
	}
	for (i = 0; i < KEY_BYTES; i++) {
		unsigned v;

		if (sscanf(buf + 2 * i, "%2x", &v) != 1) {
			free(buf);
			snprintf(err, errlen, "%s: not a key (64 hex digits)",
				 path);
			return -1;
		}
		a->key[i] = (unsigned char)v;
	}
	free(buf);
	return 0;
}

struct api_auth *
api_auth_open(const char *dir, const char *admin_token, const char *ca_pem,
	      size_t ca_len, char *err, size_t errlen)
{
	struct api_auth *a = xcalloc(1, sizeof(*a));
	char path[4096];

	if (load_key(a, dir, err, errlen)) {
		free(a);
		return NULL;
	}
	a->admin = admin_token ? xstrdup(admin_token) : NULL;
	if (ca_pem) {
		a->ca = xstrndup(ca_pem, ca_len);
		a->ca_len = ca_len;
	}
	snprintf(path, sizeof(path), "%s/join-tokens.json", dir);
	a->tokens_path = xstrdup(path);
	snprintf(path, sizeof(path), "%s/tls", dir);
	a->tls_dir = xstrdup(path);
	return a;
}

void
api_auth_free(struct api_auth *a)
{
	if (a == NULL)
		return;
	free(a->admin);
	free(a->ca);
	free(a->tokens_path);
	free(a->tls_dir);
	free(a);
}

int
api_auth_issue_serving(const struct api_auth *a, const char *node,
		       const char *const *addrs, size_t n, char **cert_pem,
		       char **key_pem, char *err, size_t errlen)
{
	char cn[API_NODE_NAME_MAX + 16];

	if (a->ca == NULL) {
		snprintf(err, errlen, "the API is served without TLS");
		return -1;
	}
	snprintf(cn, sizeof(cn), "system:node:%s", node);
	return tlsca_issue(a->tls_dir, cn, addrs, n, time(NULL), cert_pem,
			   key_pem, err, errlen);
}

const char *
api_auth_ca(const struct api_auth *a, size_t *len)
{
	*len = a->ca_len;
	return a->ca;
}

/* The signature of node's credential (hex) into sig. */
static int
node_sig(const struct api_auth *a, const char *node, char sig[DIGEST_HEX])
{
	char msg[API_NODE_NAME_MAX + 8];

	snprintf(msg, sizeof(msg), "node:%s", node);
	return digest_hmac_sha256_hex(a->key, sizeof(a->key), msg, strlen(msg),
				      sig);
}

int
api_auth_node_credential(const struct api_auth *a, const char *node,
			 char out[API_CRED_MAX])
{
	char sig[DIGEST_HEX];
	size_t n = strlen(node);

	if (n == 0 || n > API_NODE_NAME_MAX ||
	    !name_is_dns1123_subdomain(node, n) || node_sig(a, node, sig))
		return -1;
	snprintf(out, API_CRED_MAX, CRED_PREFIX "%s:%s", node, sig);
	return 0;
}

enum api_who
api_auth_who(const struct api_auth *a, const char *bearer,
	     char node[API_NODE_NAME_MAX + 1])
{
	const char *name, *colon;
	char sig[DIGEST_HEX];
	size_t n;

	if (bearer == NULL)
		return API_WHO_NONE;
	if (a->admin && ct_streq(bearer, a->admin))
		return API_WHO_ADMIN;
	if (strncmp(bearer, CRED_PREFIX, strlen(CRED_PREFIX)))
		return API_WHO_NONE;
	name = bearer + strlen(CRED_PREFIX);
	colon = strrchr(name, ':');
	n = colon ? (size_t)(colon - name) : 0;
	if (n == 0 || n > API_NODE_NAME_MAX ||
	    !name_is_dns1123_subdomain(name, n))
		return API_WHO_NONE;
	memcpy(node, name, n);
	node[n] = '\0';
	if (node_sig(a, node, sig) || !ct_streq(colon + 1, sig))
		return API_WHO_NONE;
	return API_WHO_NODE;
}

/* ---- join tokens ---- */

/* The file's tokens (a new reference; an empty array if there is no
 * file yet), or NULL with err. */
static json_t *
load_tokens(const struct api_auth *a, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	json_error_t je;
	json_t *v, *t;
	int r = fsx_read_all(a->tokens_path, &buf, &len);

	if (r == -ENOENT)
		return json_array();
	if (r) {
		snprintf(err, errlen, "%s: %s", a->tokens_path, strerror(-r));
		return NULL;
	}
	v = json_loadb(buf, len, 0, &je);
	free(buf);
	t = json_incref(json_object_get(v, "tokens"));
	json_decref(v);
	if (!json_is_array(t)) {
		json_decref(t);
		snprintf(err, errlen, "%s: not drover's join tokens",
			 a->tokens_path);
		return NULL;
	}
	return t;
}

static int
save_tokens(const struct api_auth *a, json_t *tokens, char *err, size_t errlen)
{
	json_t *v = json_pack("{sO}", "tokens", tokens);
	char *text = json_dumps(v, JSON_INDENT(1) | JSON_SORT_KEYS);
	int r = text
		    ? fsx_write_atomic(a->tokens_path, text, strlen(text), 0600)
		    : -ENOMEM;

	free(text);
	json_decref(v);
	if (r) {
		snprintf(err, errlen, "%s: cannot write it", a->tokens_path);
		return -1;
	}
	return 0;
}

/* n characters of [a-z0-9], uniformly (bytes past 251 are drawn again:
 * 252 = 7 * 36). */
static void
rand_alnum(char *out, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t i = 0;

	while (i < n) {
		unsigned char b[32];
		size_t j;

		rand_bytes(b, sizeof(b));
		for (j = 0; j < sizeof(b) && i < n; j++)
			if (b[j] < 252)
				out[i++] = set[b[j] % 36];
	}
	out[n] = '\0';
}

static json_t *
find_token(json_t *tokens, const char *id, size_t *at)
{
	size_t i;
	json_t *t;

	json_array_foreach(tokens, i, t)
	{
		const char *tid = json_string_value(json_object_get(t, "id"));

		if (tid && !strcmp(tid, id)) {
			if (at)
				*at = i;
			return t;
		}
	}
	return NULL;
}

/* The entry as shown: without the secret's hash. */
static json_t *
shown(json_t *t)
{
	json_t *e = json_deep_copy(t);

	json_object_del(e, "secretHash");
	return e;
}

int
api_auth_join_create(struct api_auth *a, dtime now, int64_t ttl_ms,
		     const char *description, char token[API_JOIN_TOKEN_LEN],
		     json_t **entry, char *err, size_t errlen)
{
	json_t *tokens = load_tokens(a, err, errlen), *t;
	char id[7], secret[17], hash[DIGEST_HEX], ts[32];

	if (tokens == NULL)
		return -1;
	now -= now % 1000; /* whole seconds, as kubeadm shows them */
	do
		rand_alnum(id, 6);
	while (find_token(tokens, id, NULL));
	rand_alnum(secret, 16);
	if (digest_sha256_hex(secret, 16, hash)) {
		json_decref(tokens);
		snprintf(err, errlen, "cannot hash the token");
		return -1;
	}
	dtime_format(now, ts);
	t = json_pack("{ss ss ss}", "id", id, "secretHash", hash, "created",
		      ts);
	if (ttl_ms > 0) {
		dtime_format(now + ttl_ms, ts);
		json_object_set_new(t, "expires", json_string(ts));
	}
	if (description && *description)
		json_object_set_new(t, "description", json_string(description));
	json_array_append(tokens, t);
	if (save_tokens(a, tokens, err, errlen)) {
		json_decref(t);
		json_decref(tokens);
		return -1;
	}
	snprintf(token, API_JOIN_TOKEN_LEN, "%s.%s", id, secret);
	if (entry)
		*entry = shown(t);
	json_decref(t);
	json_decref(tokens);
	return 0;
}

json_t *
api_auth_join_list(struct api_auth *a)
{
	char err[256];
	json_t *tokens = load_tokens(a, err, sizeof(err)), *out = json_array(),
	       *t;
	size_t i;

	if (tokens == NULL)
		return out;
	json_array_foreach(tokens, i, t) json_array_append_new(out, shown(t));
	json_decref(tokens);
	return out;
}

int
api_auth_join_delete(struct api_auth *a, const char *id, char *err,
		     size_t errlen)
{
	json_t *tokens = load_tokens(a, err, errlen);
	size_t at;
	int r;

	if (tokens == NULL)
		return -1;
	if (find_token(tokens, id, &at) == NULL) {
		json_decref(tokens);
		return 1;
	}
	json_array_remove(tokens, at);
	r = save_tokens(a, tokens, err, errlen);
	json_decref(tokens);
	return r;
}

int
api_auth_join_check(struct api_auth *a, const char *token, dtime now)
{
	char err[256], id[7], hash[DIGEST_HEX];
	json_t *tokens, *t;
	const char *want, *expires;
	dtime until;
	int r = -1;

	if (token == NULL || strlen(token) != API_JOIN_TOKEN_LEN - 1 ||
	    token[6] != '.')
		return -1;
	memcpy(id, token, 6);
	id[6] = '\0';
	if ((tokens = load_tokens(a, err, sizeof(err))) == NULL)
		return -1;
	t = find_token(tokens, id, NULL);
	want = json_string_value(json_object_get(t, "secretHash"));
	expires = json_string_value(json_object_get(t, "expires"));
	if (want && !digest_sha256_hex(token + 7, 16, hash) &&
	    ct_streq(hash, want) &&
	    (expires == NULL ||
	     (dtime_parse(expires, &until) == 0 && now < until)))
		r = 0;
	json_decref(tokens);
	return r;
}
