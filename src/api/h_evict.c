/* h_evict.c - POST pods/NAME/eviction, the eviction subresource
 * (policy/v1 Eviction): what `kubectl drain` calls for each pod. The
 * decision is the core's (src/core/plan/eviction.h: the pod's budget,
 * Kubernetes' codes and messages); this file reads the pod and its
 * namespace's budgets from the store and carries the decision out with
 * the API's own handlers, so that each write is validated, committed and
 * watched as any other:
 *
 *   1. the budget's status, one disruption fewer and the pod in
 *      disruptedPods (PUT poddisruptionbudgets/NAME/status, on the
 *      version read);
 *   2. the pod's DisruptionTarget condition (PUT pods/NAME/status; with
 *      the resourceVersion precondition the decision asks for, a
 *      conflict answers 429);
 *   3. the pod's deletion with the Eviction's deleteOptions (graceful,
 *      as any DELETE; the precondition moved to the version step 2
 *      wrote).
 *
 * The answer is a Status: 201 Success, or the refusal (429 with the
 * DisruptionBudget cause and retryAfterSeconds, 403, 500). A dry run
 * (?dryRun=All or deleteOptions.dryRun) decides and writes nothing. All
 * of it runs in one turn of the loop: no other write comes between the
 * reads and the writes, so Kubernetes' retries on conflict have nothing
 * to retry here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "eviction.h"
#include "object.h"
#include "xalloc.h"

/* The namespace's budgets, decoded; their count (NULL array: none). */
static size_t
budgets(struct api *a, const char *ns, struct object **out)
{
	struct store_items items = {0};
	int64_t rv;
	size_t i, n = 0;

	*out = NULL;
	if (store_list(a->cfg.store, "poddisruptionbudgets", ns, NULL, &items,
		       &rv))
		return 0;
	*out = xcalloc(items.n ? items.n : 1, sizeof(**out));
	for (i = 0; i < items.n; i++) {
		json_t *v = json_loads(items.v[i].value, 0, NULL);
		struct fielderr_list e = {0};
		char rvs[32];

		if (v == NULL)
			continue;
		snprintf(rvs, sizeof(rvs), "%lld", (long long)items.v[i].rv);
		json_object_set_new(json_object_get(v, "metadata"),
				    "resourceVersion", json_string(rvs));
		if (object_decode(v, false, &(*out)[n], &e) == 0)
			n++;
		fielderr_list_release(&e);
		json_decref(v);
	}
	store_items_release(&items);
	return n;
}

/* A refusal as a Status; 429s with the DisruptionBudget cause and
 * retryAfterSeconds (when not 0), as Kubernetes' NewTooManyRequests. */
static void
answer_refusal(const struct eviction_out *o, const char *pdb,
	       struct api_resp *resp)
{
	json_t *st =
	    json_pack("{ss ss s{} ss ss}", "kind", "Status", "apiVersion", "v1",
		      "metadata", "status", "Failure", "message", o->message);
	json_t *details = NULL;

	if (o->reason && *o->reason)
		json_object_set_new(st, "reason", json_string(o->reason));
	if (o->code == 403) {
		details =
		    json_pack("{ss ss ss}", "name", pdb ? pdb : "", "group",
			      "policy", "kind", "poddisruptionbudget");
	} else if (o->cause || o->retry_after) {
		details = json_object();
		if (o->cause)
			json_object_set_new(details, "causes",
					    json_pack("[{ss ss}]", "reason",
						      "DisruptionBudget",
						      "message", o->cause));
		if (o->retry_after)
			json_object_set_new(details, "retryAfterSeconds",
					    json_integer(o->retry_after));
	}
	if (details)
		json_object_set_new(st, "details", details);
	json_object_set_new(st, "code", json_integer(o->code));
	resp_json(resp, o->code, st);
}

/* One of the API's own handlers on a route of its own: the write of
 * step 1, 2 or 3, its answer in *out in the form resp wants (a value or
 * text), so that a failure can be passed on as it is. Its status. */
static int
call(struct api *a, const struct kind_info *k, const char *ns, const char *name,
     const char *sub, const char *method, json_t *body, bool dry_run,
     const struct api_resp *resp, struct api_resp *out)
{
	struct route rt = {
	    .res = k, .ns = ns, .name = name, .sub = sub, .dry_run = dry_run};
	struct api_req req = {.method = method,
			      .content_type = "application/json",
			      .json = body,
			      .want_json = resp->as_json};
	struct query q = {0};

	memset(out, 0, sizeof(*out));
	out->as_json = resp->as_json;
	if (!strcmp(method, "DELETE"))
		h_delete(a, &rt, &q, &req, out);
	else
		h_update(a, &rt, &req, out);
	return out->status;
}

/* The failed write's own answer becomes the eviction's. */
static void
pass_on(struct api_resp *resp, struct api_resp *inner)
{
	api_resp_release(resp);
	*resp = *inner;
	memset(inner, 0, sizeof(*inner));
}

/* The resourceVersion of the stored pod, or 0. */
static int64_t
pod_rv(struct api *a, const char *ns, const char *name)
{
	struct store_key k = {"pods", ns, name};
	struct store_item it;
	int64_t rv;

	if (store_get(a->cfg.store, &k, &it))
		return 0;
	rv = it.rv;
	store_item_release(&it);
	return rv;
}

void
h_evict(struct api *a, struct route *rt, const struct api_req *req,
	struct api_resp *resp)
{
	json_t *body = api_parse_body(req, resp), *opts, *pre, *dry, *v;
	const struct kind_info *pk = kind_by_id(KIND_POD);
	const struct kind_info *bk = kind_by_id(KIND_POD_DISRUPTION_BUDGET);
	struct store_item it = {0};
	struct object po = {0}, *pdbs = NULL;
	struct pod_disruption_budget **bv = NULL;
	struct eviction_in in = {0};
	struct eviction_out out = {0};
	struct api_resp inner;
	const char *caller_rv, *name;
	char rvs[32];
	size_t n = 0, i;
	bool dry_run = rt->dry_run;
	int st;

	if (body == NULL)
		return;
	name = json_string_value(
	    json_object_get(json_object_get(body, "metadata"), "name"));
	if (name == NULL || strcmp(name, rt->name)) {
		resp_status(
		    resp, 400, "BadRequest",
		    "name in URL does not match name in Eviction object", NULL,
		    NULL, NULL);
		goto done;
	}
	opts = json_object_get(body, "deleteOptions");
	opts = json_is_object(opts) ? json_deep_copy(opts) : json_object();
	dry = json_object_get(opts, "dryRun");
	if (json_array_size(dry))
		dry_run = true;
	else if (dry_run) /* propagateDryRun: the query's to the deletion */
		json_object_set_new(opts, "dryRun", json_pack("[s]", "All"));
	pre = json_object_get(opts, "preconditions");
	caller_rv = json_string_value(json_object_get(pre, "resourceVersion"));
	if (api_load(a, rt, &it, &po, resp)) {
		json_decref(opts);
		goto done;
	}
	n = budgets(a, rt->ns, &pdbs);
	bv = xcalloc(n ? n : 1, sizeof(*bv));
	for (i = 0; i < n; i++)
		bv[i] = pdbs[i].obj;
	in.pod = po.obj;
	in.pdbs = bv;
	in.npdbs = n;
	in.dry_run = dry_run;
	in.now = a->cfg.now(a->cfg.arg);
	eviction_decide(&in, &out);
	if (out.verdict == EVICT_REFUSE) {
		answer_refusal(&out, out.pdb ? out.pdb->metadata.name : NULL,
			       resp);
		json_decref(opts);
		goto done;
	}
	if (out.status_write) { /* 1. the budget, on the version read */
		struct pod_disruption_budget nb;
		struct object bo = {bk, &nb};
		json_t *j;

		pdb_copy(&nb, out.pdb);
		pdb_status_release(&nb.status);
		pdb_status_copy(&nb.status, &out.status);
		j = object_encode(&bo);
		st = call(a, bk, rt->ns, nb.metadata.name, "status", "PUT", j,
			  false, resp, &inner);
		api_resp_release(&inner);
		json_decref(j);
		pdb_release(&nb);
		if (st != 200) {
			eviction_too_many_requests(out.pdb->metadata.name,
						   &out);
			answer_refusal(&out, out.pdb->metadata.name, resp);
			json_decref(opts);
			goto done;
		}
	}
	/* the precondition the decision adds, unless the caller gave one */
	if (out.precondition && caller_rv == NULL) {
		snprintf(rvs, sizeof(rvs), "%lld", (long long)it.rv);
		caller_rv = rvs;
	}
	if (!dry_run) { /* 2. DisruptionTarget, on that version */
		struct pod *p = po.obj;
		json_t *j;

		eviction_mark_pod(p, in.now);
		free(p->metadata.resource_version);
		p->metadata.resource_version =
		    caller_rv ? xstrdup(caller_rv) : NULL;
		j = object_encode(&po);
		st = call(a, pk, rt->ns, rt->name, "status", "PUT", j, false,
			  resp, &inner);
		json_decref(j);
		if (st == 409 && out.pdb && out.precondition) {
			eviction_too_many_requests(out.pdb->metadata.name,
						   &out);
			answer_refusal(&out, out.pdb->metadata.name, resp);
			api_resp_release(&inner);
			json_decref(opts);
			goto done;
		}
		if (st != 200) {
			pass_on(resp, &inner);
			json_decref(opts);
			goto done;
		}
		api_resp_release(&inner);
		if (caller_rv) { /* moved to the version just written */
			snprintf(rvs, sizeof(rvs), "%lld",
				 (long long)pod_rv(a, rt->ns, rt->name));
			caller_rv = rvs;
		}
	}
	if (caller_rv) {
		if (!json_is_object(json_object_get(opts, "preconditions")))
			json_object_set_new(opts, "preconditions",
					    json_object());
		json_object_set_new(json_object_get(opts, "preconditions"),
				    "resourceVersion", json_string(caller_rv));
	}
	st = call(a, pk, rt->ns, rt->name, NULL, "DELETE", opts, dry_run, resp,
		  &inner); /* 3. */
	json_decref(opts);
	if (st == 409 && out.pdb && out.precondition) {
		eviction_too_many_requests(out.pdb->metadata.name, &out);
		answer_refusal(&out, out.pdb->metadata.name, resp);
		api_resp_release(&inner);
		goto done;
	}
	if (st != 200 && st != 202) {
		pass_on(resp, &inner);
		goto done;
	}
	api_resp_release(&inner);
	v = json_pack("{ss ss s{} ss}", "kind", "Status", "apiVersion", "v1",
		      "metadata", "status", "Success");
	resp_json(resp, 201, v);
done:
	eviction_release(&out);
	for (i = 0; i < n; i++)
		object_release(&pdbs[i]);
	free(pdbs);
	free(bv);
	if (po.obj)
		object_release(&po);
	store_item_release(&it);
	json_decref(body);
}
