/* client.c - the client helpers shared by every implementation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

int
client_request(struct client *c, const char *method, const char *path,
	       const char *query, const char *content_type, json_t *body,
	       struct client_resp *out)
{
	memset(out, 0, sizeof(*out));
	return c->ops->request(c, method, path, query, content_type, body, out);
}

int
client_request_async(struct client *c, const char *method, const char *path,
		     const char *query, const char *content_type, json_t *body,
		     client_done_cb cb, void *arg)
{
	if (c->ops->request_async == NULL)
		return -1;
	return c->ops->request_async(c, method, path, query, content_type, body,
				     cb, arg);
}

void
client_cancel(struct client *c, void *arg)
{
	if (c->ops->cancel)
		c->ops->cancel(c, arg);
}

void
client_resp_release(struct client_resp *r)
{
	json_decref(r->body);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

const char *
client_resp_message(const struct client_resp *r, char *buf, size_t len)
{
	const char *m = json_string_value(json_object_get(r->body, "message"));

	if (m)
		return m;
	if (r->error)
		return r->error;
	snprintf(buf, len, "the server answered HTTP %d", r->status);
	return buf;
}

void
client_path(char *buf, size_t len, const char *group, const char *version,
	    const char *plural, const char *ns, const char *name,
	    const char *sub)
{
	int n;

	if (group && *group)
		n = snprintf(buf, len, "/apis/%s/%s", group, version);
	else
		n = snprintf(buf, len, "/api/%s", version);
	if (ns)
		n += snprintf(buf + n, len - (size_t)n, "/namespaces/%s", ns);
	n += snprintf(buf + n, len - (size_t)n, "/%s", plural);
	if (name)
		n += snprintf(buf + n, len - (size_t)n, "/%s", name);
	if (sub)
		snprintf(buf + n, len - (size_t)n, "/%s", sub);
}

int
client_flush(struct client *c)
{
	return c->ops->flush ? c->ops->flush(c) : 0;
}
