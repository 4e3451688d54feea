/* kubeconfig.c - reading and writing kubectl's kubeconfig (see
 * kubeconfig.h): YAML through libyaml (codec's manifest reader and
 * emitter), base64 through GnuTLS. */
#include <errno.h>
#include <gnutls/gnutls.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsx.h"
#include "kubeconfig.h"
#include "manifest.h"
#include "strbuf.h"
#include "xalloc.h"
#include "yaml_out.h"

void
kubeconfig_release(struct kubeconfig *kc)
{
	free(kc->context);
	free(kc->server);
	free(kc->ca);
	free(kc->token);
	memset(kc, 0, sizeof(*kc));
}

/* The entry of a named list ("clusters", "users", "contexts") whose
 * "name" is name (borrowed), NULL if none; its member ("cluster",
 * "user", "context") is read with json_object_get, NULL when absent,
 * which reads as empty. */
static json_t *
named(json_t *root, const char *list, const char *name)
{
	json_t *arr = json_object_get(root, list), *e;
	size_t i;

	json_array_foreach(arr, i, e)
	{
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && !strcmp(n, name))
			return e;
	}
	return NULL;
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A path from the kubeconfig, relative to its folder unless absolute. */
static char *
resolve(const char *dir, const char *p)
{
	struct strbuf sb = STRBUF_INIT;

	if (p[0] == '/' || dir == NULL || *dir == '\0')
		strbuf_addstr(&sb, p);
	else
		strbuf_addf(&sb, "%s/%s", dir, p);
	return strbuf_detach(&sb);
}

static int
read_file(const char *dir, const char *p, char **buf, size_t *len, char *err,
	  size_t errlen)
{
	char *path = resolve(dir, p);
	int rc = fsx_read_all(path, buf, len);

	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	free(path);
	return rc ? -1 : 0;
}

static int
decode_ca(const char *b64, struct kubeconfig *out, char *err, size_t errlen)
{
	gnutls_datum_t in = {(unsigned char *)b64, (unsigned)strlen(b64)};
	gnutls_datum_t d = {NULL, 0};
	int rc = gnutls_base64_decode2(&in, &d);

	if (rc < 0) {
		snprintf(err, errlen,
			 "certificate-authority-data: not base64: %s",
			 gnutls_strerror(rc));
		return -1;
	}
	out->ca = xmalloc(d.size + 1);
	memcpy(out->ca, d.data, d.size);
	out->ca[d.size] = '\0';
	out->ca_len = d.size;
	gnutls_free(d.data);
	return 0;
}

static int
parse_doc(json_t *root, const char *dir, const char *context,
	  struct kubeconfig *out, char *err, size_t errlen)
{
	json_t *ctx, *cluster, *user;
	const char *name = context, *cn, *un, *v;
	size_t len;

	if (name == NULL || *name == '\0')
		name = str(root, "current-context");
	if (name == NULL || *name == '\0') {
		snprintf(err, errlen,
			 "no context chosen: current-context is "
			 "not set (use --context)");
		return -1;
	}
	ctx = named(root, "contexts", name);
	if (ctx == NULL) {
		snprintf(err, errlen, "context \"%s\" not found", name);
		return -1;
	}
	ctx = json_object_get(ctx, "context");
	out->context = xstrdup(name);
	cn = str(ctx, "cluster");
	un = str(ctx, "user");
	cluster = cn ? named(root, "clusters", cn) : NULL;
	cluster = json_object_get(cluster, "cluster");
	if (str(cluster, "server") == NULL) {
		snprintf(err, errlen,
			 "context \"%s\": cluster \"%s\" not found or has no "
			 "server",
			 name, cn ? cn : "");
		return -1;
	}
	out->server = xstrdup(str(cluster, "server"));
	out->insecure =
	    json_is_true(json_object_get(cluster, "insecure-skip-tls-verify"));
	if ((v = str(cluster, "certificate-authority-data")) && *v) {
		if (decode_ca(v, out, err, errlen))
			return -1;
	} else if ((v = str(cluster, "certificate-authority")) && *v) {
		if (read_file(dir, v, &out->ca, &out->ca_len, err, errlen))
			return -1;
	}
	user = un && *un ? named(root, "users", un) : NULL;
	if (un && *un && user == NULL) {
		snprintf(err, errlen, "context \"%s\": user \"%s\" not found",
			 name, un);
		return -1;
	}
	user = json_object_get(user, "user");
	if (user == NULL)
		return 0;
	if ((v = str(user, "token")) && *v) {
		out->token = xstrdup(v);
	} else if ((v = str(user, "tokenFile")) && *v) {
		if (read_file(dir, v, &out->token, &len, err, errlen))
			return -1;
		out->token[strcspn(out->token, "\r\n")] = '\0';
	} else if (json_object_get(user, "client-certificate") ||
		   json_object_get(user, "client-certificate-data") ||
		   json_object_get(user, "exec") ||
		   json_object_get(user, "auth-provider")) {
		snprintf(err, errlen,
			 "user \"%s\": only token and tokenFile credentials "
			 "are supported",
			 un);
		return -1;
	}
	return 0;
}

int
kubeconfig_parse(const char *text, size_t len, const char *dir,
		 const char *context, struct kubeconfig *out, char *err,
		 size_t errlen)
{
	json_t *docs = manifest_parse(text, len, err, errlen), *root;
	int rc;

	memset(out, 0, sizeof(*out));
	if (docs == NULL)
		return -1;
	root = json_array_get(docs, 0);
	if (!json_is_object(root)) {
		snprintf(err, errlen, "not a kubeconfig");
		json_decref(docs);
		return -1;
	}
	rc = parse_doc(root, dir, context, out, err, errlen);
	json_decref(docs);
	if (rc)
		kubeconfig_release(out);
	return rc;
}

int
kubeconfig_load(const char *path, const char *context, struct kubeconfig *out,
		char *err, size_t errlen)
{
	char *buf, *dir, *slash, sub[400];
	size_t len;
	int rc = fsx_read_all(path, &buf, &len);

	memset(out, 0, sizeof(*out));
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return -1;
	}
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	rc = kubeconfig_parse(buf, len, dir, context, out, sub, sizeof(sub));
	if (rc)
		snprintf(err, errlen, "%s: %s", path, sub);
	free(dir);
	free(buf);
	return rc;
}

static json_t *
entry(const char *name, const char *field, json_t *v)
{
	return json_pack("{s:s, s:o}", "name", name, field, v);
}

int
kubeconfig_write(const char *path, const char *name, const char *server,
		 const char *ca_pem, size_t ca_len, const char *token,
		 char *err, size_t errlen)
{
	gnutls_datum_t in = {(unsigned char *)ca_pem, (unsigned)ca_len};
	gnutls_datum_t b64 = {NULL, 0};
	struct strbuf sb = STRBUF_INIT;
	json_t *cluster, *user, *root;
	int rc;

	cluster = json_pack("{s:s}", "server", server);
	if (ca_pem) {
		rc = gnutls_base64_encode2(&in, &b64);
		if (rc < 0) {
			snprintf(err, errlen, "%s: %s", path,
				 gnutls_strerror(rc));
			json_decref(cluster);
			return -1;
		}
		/* one line: GnuTLS may break it every 64 characters */
		for (size_t i = 0, j = 0; i <= b64.size; i++)
			if (i == b64.size)
				b64.size = (unsigned)j;
			else if (b64.data[i] != '\n' && b64.data[i] != '\r')
				b64.data[j++] = b64.data[i];
		json_object_set_new(
		    cluster, "certificate-authority-data",
		    json_stringn((const char *)b64.data, b64.size));
		gnutls_free(b64.data);
	}
	user = json_object();
	if (token)
		json_object_set_new(user, "token", json_string(token));
	root = json_pack(
	    "{s:s, s:s, s:[o], s:[o], s:[o], s:s, s:{}}", "apiVersion", "v1",
	    "kind", "Config", "clusters", entry(name, "cluster", cluster),
	    "users", entry(name, "user", user), "contexts",
	    entry(name, "context",
		  json_pack("{s:s, s:s}", "cluster", name, "user", name)),
	    "current-context", name, "preferences");
	rc = yaml_emit(root, &sb);
	json_decref(root);
	if (rc == 0)
		rc = fsx_write_atomic(path, sb.buf, sb.len, 0600);
	else
		rc = -EINVAL;
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	strbuf_release(&sb);
	return rc ? -1 : 0;
}
