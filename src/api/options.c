/* options.c - what a request says besides its body, checked as the
 * Kubernetes API server checks it: the dryRun of Create/Update/Patch/
 * DeleteOptions (ValidateDryRun), the media type of a body (415
 * UnsupportedMediaType) and a resourceVersion to list or watch from
 * (APIObjectVersioner.ParseResourceVersion). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_int.h"
#include "strbuf.h"

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
