/* options.c - what a request says besides its body, checked as the
 * Kubernetes API server checks it: the dryRun of Create/Update/Patch/
 * DeleteOptions (ValidateDryRun), the media type of a body (415
 * UnsupportedMediaType), a resourceVersion to list or watch from
 * (APIObjectVersioner.ParseResourceVersion), and the query parameters of
 * reads (options.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_int.h"
#include "labels.h"
#include "options.h"
#include "strbuf.h"
#include "xalloc.h"

/* Go's %q of a string, enough for the values a query carries. */
static void
go_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

void
resp_options_invalid(struct api_resp *resp, const char *options_kind,
		     const struct fielderr_list *errs)
{
	struct kind_info opts = {.group = "meta.k8s.io",
				 .version = "v1",
				 .api_version = "meta.k8s.io/v1",
				 .kind = options_kind,
				 .plural = "",
				 .singular = ""};

	resp_invalid(resp, &opts, NULL, errs);
}

int
dry_run_check(const char *const *vals, size_t n, const char *options_kind,
	      struct api_resp *resp)
{
	struct fielderr_list e = {0};
	struct strbuf v = STRBUF_INIT;
	size_t i;
	bool ok = true;

	for (i = 0; i < n; i++)
		if (strcmp(vals[i], "All"))
			ok = false;
	if (ok)
		return n > 0;
	/* field.NotSupported(dryRun, []string{...}, ["All"]): the value is
	 * printed with %#v. */
	strbuf_addstr(&v, "[]string{");
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(&v, ", ");
		go_quote(&v, vals[i]);
	}
	strbuf_addch(&v, '}');
	fielderr_add(&e, FE_NOT_SUPPORTED, "dryRun", v.buf,
		     "supported values: \"All\"");
	resp_options_invalid(resp, options_kind, &e);
	fielderr_list_release(&e);
	strbuf_release(&v);
	return -1;
}

int
dry_run_query(const struct query *q, const char *options_kind,
	      struct api_resp *resp)
{
	const char *vals[32];
	size_t i, n = 0;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->keys[i], "dryRun"))
			vals[n++] = q->vals[i];
	return dry_run_check(vals, n, options_kind, resp);
}

bool
media_type_is(const char *ct, const char *want)
{
	size_t n;

	if (ct == NULL)
		return false;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	n = strcspn(ct, ";");
	while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	return n == strlen(want) && !strncasecmp(ct, want, n);
}

int
body_media_type(const struct api_req *req, struct api_resp *resp)
{
	const char *ct = req->content_type;

	/* An empty Content-Type means the first accepted one (JSON), as
	 * NegotiateInputSerializer does; in-process bodies are values. */
	if (req->json || ct == NULL || !*ct ||
	    media_type_is(ct, "application/json"))
		return 0;
	resp_status(resp, 415, "UnsupportedMediaType",
		    "the body of the request was in an unknown format - "
		    "accepted media types include: application/json",
		    NULL, NULL, NULL);
	return -1;
}

int
rv_parse(const char *s, int64_t *out, struct api_resp *resp)
{
	struct strbuf m = STRBUF_INIT;
	unsigned long long v;
	const char *p;
	char *end;
	bool digits = s && *s;

	*out = 0;
	if (s == NULL || !*s)
		return 0;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			digits = false;
	errno = 0;
	v = digits ? strtoull(s, &end, 10) : 0;
	if (digits && errno == 0 && v <= INT64_MAX) {
		*out = (int64_t)v;
		return 0;
	}
	/* field.Invalid(resourceVersion, s, strconv.ParseUint's error) */
	strbuf_addstr(&m, "resourceVersion: Invalid value: ");
	go_quote(&m, s);
	strbuf_addstr(&m, ": strconv.ParseUint: parsing ");
	go_quote(&m, s);
	strbuf_addstr(&m, digits ? ": value out of range" : ": invalid syntax");
	resp_status(resp, 400, "BadRequest", m.buf, NULL, NULL, NULL);
	strbuf_release(&m);
	return -1;
}

/* ---- the numbers and selectors of reads ---- */

/* strconv.ParseInt(s, 10, 64): 0; 1 for invalid syntax; 2 out of range. */
static int
go_parse_int64(const char *s, int64_t *v)
{
	const char *p = s + (*s == '+' || *s == '-');
	char *end;
	long long r;

	if (!*p || strspn(p, "0123456789") != strlen(p))
		return 1;
	errno = 0;
	r = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return 2;
	*v = r;
	return 0;
}

int
query_int64(const struct query *q, const char *key, int64_t *v, bool *set,
	    struct api_resp *resp)
{
	const char *s = query_get(q, key);
	struct strbuf m = STRBUF_INIT;
	int r;

	*set = false;
	*v = -1;
	if (s == NULL || !*s)
		return 0;
	if ((r = go_parse_int64(s, v)) == 0) {
		*set = true;
		return 0;
	}
	strbuf_addstr(&m, "strconv.ParseInt: parsing ");
	go_quote(&m, s);
	strbuf_addstr(&m, r == 1 ? ": invalid syntax" : ": value out of range");
	resp_status(resp, 400, "BadRequest", m.buf, NULL, NULL, NULL);
	strbuf_release(&m);
	return -1;
}

/* base64.RawURLEncoding.DecodeString: the bytes in out (*n) and 0, or
 * -1 - the offset of the first byte it refuses (CorruptInputError).
 * Newlines are skipped; a lone last character is refused. */
static long
raw_url_decode(const char *s, unsigned char *out, size_t *n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr"
				"stuvwxyz0123456789-_";
	unsigned long acc = 0;
	size_t i, bits = 0, k = 0, last = 0;
	const char *c;

	*n = 0;
	for (i = 0; s[i]; i++) {
		if (s[i] == '\r' || s[i] == '\n')
			continue;
		if ((c = strchr(a, s[i])) == NULL)
			return -1 - (long)i;
		acc = (acc << 6 | (unsigned long)(c - a)) & 0xffffff;
		bits += 6;
		k++;
		last = i;
		if (bits >= 8) {
			bits -= 8;
			out[(*n)++] = (unsigned char)(acc >> bits);
		}
	}
	return k % 4 == 1 ? -1 - (long)last : 0;
}

/* Go's quoteChar: how json's errors show a byte. */
static void
go_quote_char(struct strbuf *sb, unsigned char c)
{
	if (c == '\'')
		strbuf_addstr(sb, "'\\''");
	else if (c == '"')
		strbuf_addstr(sb, "'\"'");
	else if (c >= 0x20 && c < 0x7f)
		strbuf_addf(sb, "'%c'", c);
	else if (c == '\n')
		strbuf_addstr(sb, "'\\n'");
	else if (c == '\t')
		strbuf_addstr(sb, "'\\t'");
	else if (c == '\r')
		strbuf_addstr(sb, "'\\r'");
	else if (c < 0x20 || c == 0x7f)
		strbuf_addf(sb, "'\\x%02x'", c);
	else if (c < 0xa0 || c == 0xad)
		strbuf_addf(sb, "'\\u%04x'", c);
	else /* a printable Latin-1 rune, as UTF-8 */
		strbuf_addf(sb, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

/* json.Unmarshal of the token's bytes into storage.continueToken's
 * fields: the error text in m (empty if none). The syntax errors are
 * Go's for the two that garbage gets: no JSON value at all, or no end. */
static json_t *
unmarshal_token(const unsigned char *d, size_t n, struct strbuf *m)
{
	static const char *const types[][2] = {
	    {"v", "string"}, {"rv", "int64"}, {"start", "string"}};
	json_error_t je;
	json_t *t;
	size_t i = 0, f;

	while (i < n && strchr(" \t\r\n", d[i]) && d[i])
		i++;
	if (i == n) {
		strbuf_addstr(m, "unexpected end of JSON input");
		return NULL;
	}
	if (!strchr("{[\"-0123456789tfn", d[i]) || d[i] == '\0') {
		strbuf_addstr(m, "invalid character ");
		go_quote_char(m, d[i]);
		strbuf_addstr(m, " looking for beginning of value");
		return NULL;
	}
	t = json_loadb((const char *)d, n, JSON_DECODE_ANY | JSON_ALLOW_NUL,
		       &je);
	if (t == NULL && (size_t)je.position >= n) {
		strbuf_addstr(m, "unexpected end of JSON input");
		return NULL;
	}
	if (t == NULL) {
		/* NEEDSWORK: Go's scanner names the state it was in ("after
		 * object key", ...); this names the byte only. */
		strbuf_addstr(m, "invalid character ");
		go_quote_char(m, d[je.position > 0 ? je.position - 1 : 0]);
		strbuf_addstr(m, " looking for beginning of value");
		return NULL;
	}
	if (!json_is_object(t)) {
		strbuf_addf(m,
			    "json: cannot unmarshal %s into Go value of type "
			    "storage.continueToken",
			    json_is_array(t)    ? "array"
			    : json_is_string(t) ? "string"
			    : json_is_number(t) ? "number"
						: "bool");
		json_decref(t);
		return NULL;
	}
	for (f = 0; f < 3; f++) {
		json_t *v = json_object_get(t, types[f][0]);
		bool ok = v == NULL || json_is_null(v) ||
			  (f == 1 ? json_is_integer(v) : json_is_string(v));

		if (!ok) {
			strbuf_addf(m,
				    "json: cannot unmarshal %s into Go struct "
				    "field continueToken.%s of type %s",
				    json_is_object(v)   ? "object"
				    : json_is_array(v)  ? "array"
				    : json_is_string(v) ? "string"
				    : json_is_number(v) ? "number"
							: "bool",
				    types[f][0], types[f][1]);
			json_decref(t);
			return NULL;
		}
	}
	return t;
}

/* storage.DecodeContinue's verdict on a token, past its JSON: 0 if it is
 * a well-formed token, else its error in m. */
static int
token_fields(json_t *t, struct strbuf *m)
{
	const char *v = json_string_value(json_object_get(t, "v"));
	const char *start = json_string_value(json_object_get(t, "start"));

	if (v == NULL || strcmp(v, "meta.k8s.io/v1")) {
		strbuf_addf(m,
			    "continue key is not valid: server does not "
			    "recognize this encoded version %s",
			    v ? v : "");
		return -1;
	}
	if (json_integer_value(json_object_get(t, "rv")) == 0) {
		strbuf_addstr(m, "continue key is not valid: incorrect encoded "
				 "start resourceVersion (version "
				 "meta.k8s.io/v1)");
		return -1;
	}
	if (start == NULL || !*start) {
		strbuf_addstr(m, "continue key is not valid: encoded start key "
				 "empty (version meta.k8s.io/v1)");
		return -1;
	}
	if (!strncmp(start, "../", 3) || strstr(start, "/../") ||
	    strstr(start, "/./") || !strcmp(start, "..") ||
	    strstr(start, "//")) {
		strbuf_addf(m, "continue key is not valid: %s", start);
		return -1;
	}
	return 0;
}

static int
continue_check(const char *token, struct api_resp *resp)
{
	struct strbuf m = STRBUF_INIT, why = STRBUF_INIT;
	size_t n;
	unsigned char *d = xmalloc(strlen(token) + 1);
	long bad = raw_url_decode(token, d, &n);
	json_t *t = NULL;
	int r = -1;

	if (bad < 0)
		strbuf_addf(&why,
			    "continue key is not valid: illegal base64 data "
			    "at input byte %ld",
			    -1 - bad);
	else if ((t = unmarshal_token(d, n, &m)) == NULL)
		strbuf_addf(&why, "continue key is not valid: %s", m.buf);
	else if (token_fields(t, &why) == 0)
		r = 0;
	if (r) {
		strbuf_release(&m);
		strbuf_addf(&m, "invalid continue token: %s", why.buf);
		resp_status(resp, 400, "BadRequest", m.buf, NULL, NULL, NULL);
	} else {
		/* etcd3's answer to a token whose version is compacted */
		resp_status(resp, 410, "Expired",
			    "The provided continue parameter is too old to "
			    "display a consistent list result. You can start "
			    "a new list without the continue parameter.",
			    NULL, NULL, NULL);
	}
	json_decref(t);
	free(d);
	strbuf_release(&m);
	strbuf_release(&why);
	return -1;
}

int
list_numbers_check(const struct query *q, struct api_resp *resp)
{
	int64_t v;
	bool set;

	/* ListOptions' fields in their order of conversion */
	return query_int64(q, "timeoutSeconds", &v, &set, resp) ||
		       query_int64(q, "limit", &v, &set, resp)
		   ? -1
		   : 0;
}

int
list_continue_check(const struct query *q, struct api_resp *resp)
{
	const char *token = query_get(q, "continue");

	if (token && *token && !query_bool(q, "watch"))
		return continue_check(token, resp);
	return 0;
}

/* field.ErrorList's aggregate: one error as itself, several as
 * "[a, b]"; messages first joined with "; " per field, as
 * validateLabelKey and validateLabelValue join IsQualifiedName's. */
static void
add_joined(struct strbuf *out, size_t *nout, const char *field,
	   const char *value, const struct fielderr_list *e)
{
	size_t i;

	if (e->n == 0)
		return;
	if ((*nout)++)
		strbuf_addstr(out, ", ");
	strbuf_addf(out, "%s: Invalid value: ", field);
	go_quote(out, value);
	strbuf_addstr(out, ": ");
	for (i = 0; i < e->n; i++)
		strbuf_addf(out, "%s%s", i ? "; " : "", e->v[i].detail);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One requirement as NewRequirement checks it; the errors in out. */
static size_t
requirement_errors(const struct selector_req *r, struct strbuf *out)
{
	struct fielderr_list e = {0};
	char **vals = xcalloc(r->values.n + 1, sizeof(*vals));
	char field[300];
	size_t i, n = 0, nv = 0;

	validate_label_key(r->key, "key", &e);
	/* parseKeyAndInferOperator checks the key first, with no path */
	add_joined(out, &n, "<nil>", r->key, &e);
	fielderr_list_release(&e);
	if (n)
		goto out;
	/* the values as a sorted set (sets.String.List) */
	for (i = 0; i < r->values.n; i++)
		vals[nv++] = r->values.v[i];
	qsort(vals, nv, sizeof(*vals), cmp_str);
	for (i = 0; i < nv; i++) {
		if (i && !strcmp(vals[i], vals[i - 1]))
			continue;
		validate_label_value(vals[i], "v", &e);
		snprintf(field, sizeof(field), "values[%zu][%s]", i, r->key);
		add_joined(out, &n, field, vals[i], &e);
		fielderr_list_release(&e);
	}
out:
	free(vals);
	return n;
}

int
label_selector_check(const struct label_selector *sel, struct api_resp *resp)
{
	struct strbuf m = STRBUF_INIT, errs = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; n == 0 && i < sel->match_expressions.n; i++)
		n = requirement_errors(&sel->match_expressions.v[i], &errs);
	if (n == 0)
		return 0;
	strbuf_addf(&m, "unable to parse requirement: %s%s%s", n > 1 ? "[" : "",
		    errs.buf, n > 1 ? "]" : "");
	resp_status(resp, 400, "BadRequest", m.buf, NULL, NULL, NULL);
	strbuf_release(&m);
	strbuf_release(&errs);
	return -1;
}

/* The storage key prefix of a resource, as kube-apiserver's registry
 * names it (pods "/pods", services "/services/specs", ...). */
static const char *
key_prefix(const struct kind_info *res, char *buf, size_t len)
{
	static const char *const special[][2] = {
	    {"services", "/services/specs"},
	    {"endpoints", "/services/endpoints"},
	    {"replicationcontrollers", "/controllers"},
	    {"nodes", "/minions"},
	};
	size_t i;

	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(res->plural, special[i][0]))
			return special[i][1];
	snprintf(buf, len, "/%s", res->plural);
	return buf;
}

static bool
is_dots(const char *s)
{
	return s && (!strcmp(s, ".") || !strcmp(s, ".."));
}

int
route_dots_check(const struct route *rt, struct api_resp *resp)
{
	struct strbuf m = STRBUF_INIT, key = STRBUF_INIT;
	char buf[128];

	if (is_dots(rt->ns)) {
		/* storage.PrepareKey: "invalid key: %q", an error that is no
		 * Status: 500 with its text and no reason */
		strbuf_addf(&key, "%s/%s",
			    key_prefix(rt->res, buf, sizeof(buf)), rt->ns);
		if (rt->name)
			strbuf_addf(&key, "/%s", rt->name);
		strbuf_addstr(&m, "invalid key: ");
		go_quote(&m, key.buf);
		resp_json(resp, 500,
			  json_pack("{sssss{}sssssi}", "kind", "Status",
				    "apiVersion", "v1", "metadata", "status",
				    "Failure", "message", m.buf, "code", 500));
	} else if (is_dots(rt->name)) {
		/* NamespaceKeyFunc: path.IsValidPathSegmentName */
		strbuf_addstr(&m, "Name parameter invalid: ");
		go_quote(&m, rt->name);
		strbuf_addf(&m, ": may not be '%s'", rt->name);
		resp_status(resp, 400, "BadRequest", m.buf, NULL, NULL, NULL);
	}
	strbuf_release(&key);
	if (m.len == 0)
		return 0;
	strbuf_release(&m);
	return -1;
}

int
log_options_parse(const struct query *q, const char *pod, struct log_options *o,
		  struct api_resp *resp)
{
	struct kind_info k = {.group = "",
			      .version = "v1",
			      .api_version = "v1",
			      .kind = "PodLogOptions",
			      .plural = "",
			      .singular = ""};
	struct fielderr_list e = {0};
	bool set;

	/* PodLogOptions' fields in their order of conversion */
	if (query_int64(q, "sinceSeconds", &o->since_seconds, &set, resp) ||
	    query_int64(q, "tailLines", &o->tail_lines, &set, resp) ||
	    query_int64(q, "limitBytes", &o->limit_bytes, &set, resp))
		return -1;
	/* ValidatePodLogOptions */
	if (query_get(q, "tailLines") && *query_get(q, "tailLines") &&
	    o->tail_lines < 0)
		fielderr_addf_int(&e, FE_INVALID, "tailLines", o->tail_lines,
				  "must be greater than or equal to 0");
	if (query_get(q, "limitBytes") && *query_get(q, "limitBytes") &&
	    o->limit_bytes < 1)
		fielderr_addf_int(&e, FE_INVALID, "limitBytes", o->limit_bytes,
				  "must be greater than 0");
	if (query_get(q, "sinceSeconds") && *query_get(q, "sinceSeconds") &&
	    query_get(q, "sinceTime"))
		fielderr_add(&e, FE_FORBIDDEN, "", NULL,
			     "at most one of `sinceTime` or `sinceSeconds` may "
			     "be specified");
	else if (query_get(q, "sinceSeconds") &&
		 *query_get(q, "sinceSeconds") && o->since_seconds < 1)
		fielderr_addf_int(&e, FE_INVALID, "sinceSeconds",
				  o->since_seconds, "must be greater than 0");
	if (e.n == 0)
		return 0;
	resp_invalid(resp, &k, pod, &e);
	fielderr_list_release(&e);
	return -1;
}
