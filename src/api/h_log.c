/* h_log.c - GET pods/NAME/log: the API checks the options as
 * kube-apiserver does (numbers, then ValidatePodLogOptions: options.h),
 * then the pod and the container (container, previous, tailLines,
 * limitBytes, and drover's offset=N: the bytes from N on, for `drover
 * logs -f`; sinceSeconds is checked but not applied) and asks the agent
 * of the pod's node for the text, as the API server asks the kubelet
 * (api_serve_node_logs).
 *
 * A follower's last read: once the pod is gone, a request that names
 * the pod's uid, its container and an offset (uid=U&container=C&
 * offset=N, what `drover logs -f` sends when its poll finds the pod
 * deleted) is answered from the logs the agents keep a few seconds
 * after a deletion, so that the lines the process wrote while it
 * stopped are not lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "options.h"
#include "podlog.h"
#include "strbuf.h"
#include "xalloc.h"

static void
bad(struct api_resp *resp, const char *msg)
{
	resp_status(resp, 400, "BadRequest", msg, NULL, NULL, NULL);
}

/* The last bytes of a deleted pod's container for a follower that
 * names its uid, container and offset, from whichever agent still has
 * them. True if answered. */
static bool
gone_pod_log(struct api *a, const struct route *rt, const struct query *q,
	     const struct log_options *lo, struct api_resp *resp)
{
	const char *uid = query_get(q, "uid");
	const char *container = query_get(q, "container");
	const char *offset = query_get(q, "offset");
	struct podlog_req rq = {0};
	struct strbuf out = STRBUF_INIT;
	char msg[600];
	int64_t end = 0;
	size_t i;

	if (!uid || !*uid || !container || !*container || !offset)
		return false;
	rq.ns = rt->ns;
	rq.pod = rt->name;
	rq.uid = uid;
	rq.container = container;
	rq.offset = strtoll(offset, NULL, 10);
	rq.limit = lo->limit_bytes;
	rq.tail = lo->tail_lines;
	for (i = 0; i < a->nlogs; i++) {
		strbuf_reset(&out);
		if (a->logs[i].read(a->logs[i].arg, &rq, &out, &end, msg,
				    sizeof(msg)) == 0) {
			resp->status = 200;
			resp->content_type = "text/plain";
			resp->body = strbuf_detach(&out);
			resp->log_end = end;
			return true;
		}
	}
	strbuf_release(&out);
	return false;
}

void
h_log(struct api *a, struct route *rt, const struct query *q,
      struct api_resp *resp)
{
	struct store_key k = {"pods", rt->ns, rt->name};
	struct store_item it;
	json_t *pod, *cs, *c;
	const char *want = query_get(q, "container");
	const char *offset = query_get(q, "offset");
	struct log_options lo;
	const char *uid, *name = NULL, *node;
	struct strbuf out = STRBUF_INIT, names = STRBUF_INIT;
	struct podlog_req rq;
	char msg[600];
	int64_t end = 0;
	size_t i;
	int r;

	/* The options first, as LogREST.Get checks them before the pod. */
	if (log_options_parse(q, rt->name, &lo, resp))
		return;
	if ((r = store_get(a->cfg.store, &k, &it))) {
		if (r != STORE_ENOENT || !gone_pod_log(a, rt, q, &lo, resp))
			resp_store_error(resp, r, rt->res, rt->name);
		return;
	}
	pod = json_loads(it.value, 0, NULL);
	store_item_release(&it);
	uid = json_string_value(
	    json_object_get(json_object_get(pod, "metadata"), "uid"));
	cs = json_object_get(json_object_get(pod, "spec"), "containers");
	json_array_foreach(cs, i, c)
	{
		const char *n = json_string_value(json_object_get(c, "name"));

		strbuf_addf(&names, "%s%s", i ? " " : "", n);
		if ((want && !strcmp(want, n)) || (!want && i == 0))
			name = n;
	}
	if (name == NULL || (!want && json_array_size(cs) > 1)) {
		snprintf(msg, sizeof(msg),
			 want
			     ? "container %s is not valid for pod %s"
			     : "a container name must be specified for pod %s, "
			       "choose one of: [%s]",
			 want ? want : rt->name, want ? rt->name : names.buf);
		bad(resp, msg);
		goto out;
	}
	node = json_string_value(
	    json_object_get(json_object_get(pod, "spec"), "nodeName"));
	for (i = 0; node && i < a->nlogs; i++)
		if (!strcmp(a->logs[i].node, node))
			break;
	rq.ns = rt->ns;
	rq.pod = rt->name;
	rq.uid = uid;
	rq.container = name;
	rq.previous = query_bool(q, "previous");
	rq.offset = offset ? strtoll(offset, NULL, 10) : 0;
	rq.limit = lo.limit_bytes; /* -1: none given */
	rq.tail = lo.tail_lines;
	if (node == NULL || i == a->nlogs) {
		/* another host's: its agent is asked (h_log_remote.c) */
		if (node == NULL || resp->as_json ||
		    h_log_remote(a, node, rt, &rq, resp))
			resp_status(resp, 404, "NotFound",
				    "pod logs are kept by the agent of the "
				    "pod's node, which does not serve them "
				    "to this server",
				    rt->res, rt->name, NULL);
		goto out;
	}
	r = a->logs[i].read(a->logs[i].arg, &rq, &out, &end, msg, sizeof(msg));
	if (r) {
		resp_status(resp, r, r == 400 ? "BadRequest" : "NotFound", msg,
			    rt->res, rt->name, NULL);
		goto out;
	}
	resp->status = 200;
	resp->content_type = "text/plain";
	resp->body = strbuf_detach(&out);
	resp->log_end = end; /* where a follower goes on */
out:
	strbuf_release(&out);
	strbuf_release(&names);
	json_decref(pod);
}
