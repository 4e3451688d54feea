/* cmd_drain.c - `drover cordon`, `uncordon` and `drain`, kubectl's
 * (k8s.io/kubectl/pkg/cmd/drain and pkg/drain, 1.28): cordon sets the
 * node's spec.unschedulable; drain cordons, picks the node's pods through
 * kubectl's filters (src/core/plan/drain_pods.h), and evicts each through
 * pods/NAME/eviction, so that PodDisruptionBudgets hold: a 429 (the
 * budget allows no disruption now) is printed and tried again after 5 s,
 * until --timeout. Then it waits for the evicted pods to be gone, and
 * prints kubectl's lines:
 *
 *   node/node-1 cordoned
 *   evicting pod default/web-6d4cf-2xk9p
 *   error when evicting pods/"web-6d4cf-7q2lm" -n "default" (will retry
 *     after 5s): Cannot evict pod as it would violate the pod's
 *     disruption budget.
 *   pod/web-6d4cf-2xk9p evicted
 *   node/node-1 drained
 *
 * The pods are gone through once a second (one process, no threads:
 * kubectl gives each pod a goroutine), each refused one tried again 5 s
 * after its last try. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "drain_pods.h"
#include "xalloc.h"

#define RETRY_DELAY_S 5 /* kubectl's EvictionRetryDelay */

static const char cordon_usage[] =
    "usage: drover cordon NODE\n"
    "       drover uncordon NODE\n"
    "\n"
    "Marks the node unschedulable (cordon) or schedulable again\n"
    "(uncordon): new pods are not bound to a cordoned node; its pods run\n"
    "on.\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE.\n";

static const char drain_usage[] =
    "usage: drover drain NODE [--ignore-daemonsets] [--force]\n"
    "                    [--delete-emptydir-data] [--grace-period S]\n"
    "                    [--timeout DURATION] [--pod-selector SELECTOR]\n"
    "                    [--disable-eviction]\n"
    "                    [--skip-wait-for-delete-timeout S]\n"
    "                    [--dry-run=client|server]\n"
    "\n"
    "Cordons the node, then evicts its pods (kubectl drain): each eviction\n"
    "honours the pod's PodDisruptionBudget, and one the budget refuses\n"
    "now is tried again every 5 s; then waits for them to be gone.\n"
    "Pods that declare no controller need --force; DaemonSet pods\n"
    "--ignore-daemonsets. --timeout bounds it all (default 0: none).\n"
    "--disable-eviction deletes the pods instead, ignoring budgets.\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE.\n";

/* cordon or uncordon; 0, or the exit status after the error. */
static int
set_unschedulable(struct client *c, const char *node, bool on)
{
	const struct kind_info *k = kind_by_id(KIND_NODE);
	json_t *n, *patch;
	bool now;
	int rc;

	if ((rc = cli_get(c, k, NULL, node, &n)))
		return rc;
	now = json_is_true(
	    json_object_get(json_object_get(n, "spec"), "unschedulable"));
	json_decref(n);
	if (now == on) {
		printf("node/%s already %s\n", node,
		       on ? "cordoned" : "uncordoned");
		return 0;
	}
	patch = json_pack("{s{so}}", "spec", "unschedulable",
			  on ? json_true() : json_null());
	rc = cli_patch(c, k, NULL, node, NULL, "application/merge-patch+json",
		       patch, NULL);
	json_decref(patch);
	if (rc == 0)
		printf("node/%s %s%s\n", node, on ? "cordoned" : "uncordoned",
		       cli_dry_suffix());
	return rc;
}

static int
cordon_run(int argc, char **argv, bool on)
{
	struct client *c;
	int rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	if (argc > 1 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cordon_usage, stdout);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "error: USAGE: %s NODE [flags]\n",
			on ? "cordon" : "uncordon");
		fputs(cordon_usage, stderr);
		return 2;
	}
	c = cli_client();
	rc = set_unschedulable(c, argv[1], on);
	c->ops->free(c);
	return rc;
}

static int
cordon_main(int argc, char **argv)
{
	return cordon_run(argc, argv, true);
}

static int
uncordon_main(int argc, char **argv)
{
	return cordon_run(argc, argv, false);
}

static double
mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The pods bound to node (and matching the selector), decoded; -1 after
 * the error. */
static int
node_pods(struct client *c, const char *node, const char *selector,
	  struct object **out, size_t *n)
{
	struct client_resp r;
	struct strbuf q = STRBUF_INIT;
	char *v = NULL, fs[600];
	json_t *items, *it;
	size_t i;

	snprintf(fs, sizeof(fs), "spec.nodeName=%s", node);
	v = cli_urlencode(fs);
	strbuf_addf(&q, "fieldSelector=%s", v);
	free(v);
	if (selector) {
		v = cli_urlencode(selector);
		strbuf_addf(&q, "&labelSelector=%s", v);
		free(v);
	}
	client_request(c, "GET", "/api/v1/pods", q.buf, NULL, NULL, &r);
	strbuf_release(&q);
	if (r.status != 200) {
		cli_resp_error(&r, kind_by_id(KIND_POD), NULL);
		client_resp_release(&r);
		return -1;
	}
	items = json_object_get(r.body, "items");
	*out = xcalloc(json_array_size(items) + 1, sizeof(**out));
	*n = 0;
	json_array_foreach(items, i, it)
	{
		if (cli_decode(it, KIND_POD, &(*out)[*n]) == 0)
			(*n)++;
	}
	client_resp_release(&r);
	return 0;
}

/* The pod's uid now, or NULL if it is gone (caller frees). */
static char *
pod_uid(struct client *c, const char *ns, const char *name)
{
	struct client_resp r;
	char path[600];
	char *uid = NULL;

	cli_path(path, sizeof(path), kind_by_id(KIND_POD), ns, name, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status == 200)
		uid = xstrdup(json_string_value(json_object_get(
		    json_object_get(r.body, "metadata"), "uid")));
	client_resp_release(&r);
	return uid;
}

struct drain_flags {
	struct drain_opts o;
	int64_t grace;      /* -1: the pod's own */
	int64_t timeout_ms; /* 0: none */
	const char *selector;
	bool disable_eviction;
};

/* One eviction (or deletion): 0 done, 1 to try again (429), -1 failed
 * (printed). */
static int
evict(struct client *c, const struct drain_flags *f, const struct pod *p)
{
	const char *ns = p->metadata.namespace, *name = p->metadata.name;
	struct client_resp r;
	json_t *body, *opts = json_object();
	char path[600];
	int st;

	if (f->grace >= 0)
		json_object_set_new(opts, "gracePeriodSeconds",
				    json_integer(f->grace));
	cli_path(path, sizeof(path), kind_by_id(KIND_POD), ns, name,
		 f->disable_eviction ? NULL : "eviction");
	if (f->disable_eviction) {
		body = opts;
	} else {
		body =
		    json_pack("{ss ss s{ss ss} so}", "apiVersion", "policy/v1",
			      "kind", "Eviction", "metadata", "name", name,
			      "namespace", ns, "deleteOptions", opts);
	}
	client_request(c, f->disable_eviction ? "DELETE" : "POST", path, NULL,
		       "application/json", body, &r);
	json_decref(body);
	st = r.status;
	if (st == 200 || st == 201 || st == 404) {
		client_resp_release(&r);
		return 0;
	}
	if (st == 429) {
		fprintf(stderr,
			"error when evicting pods/\"%s\" -n \"%s\" (will retry "
			"after %ds): %s\n",
			name, ns, RETRY_DELAY_S,
			json_string_value(json_object_get(r.body, "message")));
		client_resp_release(&r);
		return 1;
	}
	fprintf(stderr, "error when evicting pods/\"%s\" -n \"%s\": %s\n", name,
		ns,
		r.body && json_string_value(json_object_get(r.body, "message"))
		    ? json_string_value(json_object_get(r.body, "message"))
		    : (r.error ? r.error : "the server could not be reached"));
	client_resp_release(&r);
	return -1;
}

/* Evicts the pods to delete and waits for each to be gone, as kubectl's
 * goroutines do, one pod after another in rounds a second apart: a pod
 * refused (429) is tried again 5 s after its last try; an evicted one is
 * "evicted" once it is gone (or another pod has its name). 0, or 1 after
 * the error. */
static int
evict_all(struct client *c, const struct drain_flags *f,
	  const struct drain_pods *l)
{
	enum { TODO, WAITING, DONE };
	size_t n = l->n, i, busy;
	int *state = xcalloc(n ? n : 1, sizeof(*state));
	double *next = xcalloc(n ? n : 1, sizeof(*next)), t0 = mono();
	bool dry = *cli_dry_suffix() != '\0';
	int rc = 0;

	for (i = 0; i < n; i++)
		if (l->v[i].verdict != DRAIN_DELETE)
			state[i] = DONE;
	for (;;) {
		double now = mono();

		busy = 0;
		for (i = 0; i < n && rc == 0; i++) {
			const struct pod *p = l->v[i].pod;
			int r;

			if (state[i] == TODO && now >= next[i]) {
				if (!f->disable_eviction)
					printf("evicting pod %s/%s%s\n",
					       p->metadata.namespace,
					       p->metadata.name,
					       cli_dry_suffix());
				fflush(stdout);
				r = evict(c, f, p);
				if (r < 0)
					rc = 1;
				else if (r == 0)
					state[i] = dry ? DONE : WAITING;
				else
					next[i] = now + RETRY_DELAY_S;
				if (r == 0 && dry)
					printf("pod/%s %s%s\n",
					       p->metadata.name,
					       f->disable_eviction ? "deleted"
								   : "evicted",
					       cli_dry_suffix());
			}
			if (state[i] == WAITING) {
				char *uid = pod_uid(c, p->metadata.namespace,
						    p->metadata.name);

				if (uid == NULL ||
				    strcmp(uid, p->metadata.uid
						    ? p->metadata.uid
						    : "")) {
					printf("pod/%s %s\n", p->metadata.name,
					       f->disable_eviction ? "deleted"
								   : "evicted");
					fflush(stdout);
					state[i] = DONE;
				}
				free(uid);
			}
			busy += state[i] != DONE;
		}
		if (rc || busy == 0)
			break;
		if (f->timeout_ms &&
		    (mono() - t0) * 1000 + 1000 > f->timeout_ms) {
			for (i = 0; i < n; i++)
				if (state[i] == TODO)
					fprintf(
					    stderr,
					    "error when evicting pods/\"%s\" "
					    "-n \"%s\": global timeout "
					    "reached: %llds\n",
					    l->v[i].pod->metadata.name,
					    l->v[i].pod->metadata.namespace,
					    (long long)(f->timeout_ms / 1000));
				else if (state[i] == WAITING)
					fprintf(
					    stderr,
					    "error: drain did not complete "
					    "within %llds\n",
					    (long long)(f->timeout_ms / 1000));
			rc = 1;
			break;
		}
		sleep(1);
	}
	free(state);
	free(next);
	return rc;
}

static int
drain_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"ignore-daemonsets", no_argument, NULL, 'i'},
	    {"force", no_argument, NULL, 'f'},
	    {"delete-emptydir-data", no_argument, NULL, 'e'},
	    {"delete-local-data", no_argument, NULL, 'e'},
	    {"grace-period", required_argument, NULL, 'g'},
	    {"timeout", required_argument, NULL, 't'},
	    {"pod-selector", required_argument, NULL, 'p'},
	    {"disable-eviction", no_argument, NULL, 'E'},
	    {"skip-wait-for-delete-timeout", required_argument, NULL, 's'},
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct drain_flags f = {.grace = -1};
	struct object *pods = NULL;
	struct pod **pv = NULL;
	struct drain_pods l = {0};
	struct strbuf sb = STRBUF_INIT;
	struct client *c;
	const char *node;
	size_t n = 0, i, nerr = 0;
	int ch, rc;
	char *end;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			f.o.ignore_daemonsets = true;
			break;
		case 'f':
			f.o.force = true;
			break;
		case 'e':
			f.o.delete_emptydir = true;
			break;
		case 'g':
			f.grace = strtoll(optarg, &end, 10);
			if (*end || end == optarg)
				return cli_error("invalid argument \"%s\" for "
						 "\"--grace-period\" flag",
						 optarg);
			break;
		case 't':
			if ((f.timeout_ms = cli_parse_duration(optarg)) < 0)
				return cli_error("invalid argument \"%s\" for "
						 "\"--timeout\" flag",
						 optarg);
			break;
		case 'p':
			f.selector = optarg;
			break;
		case 'E':
			f.disable_eviction = true;
			break;
		case 's':
			f.o.skip_wait_s = strtoll(optarg, &end, 10);
			if (*end || end == optarg)
				return cli_error("invalid argument \"%s\" for "
						 "\"--skip-wait-for-delete-"
						 "timeout\" flag",
						 optarg);
			break;
		case 'D':
			if (cli_dry_run_set(optarg))
				return 1;
			break;
		case 'h':
			fputs(drain_usage, stdout);
			return 0;
		default:
			fputs(drain_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "error: USAGE: drain NODE [flags]\n");
		fputs(drain_usage, stderr);
		return 2;
	}
	node = argv[optind];
	c = cli_client();
	if ((rc = set_unschedulable(c, node, true)))
		goto out;
	if (node_pods(c, node, f.selector, &pods, &n)) {
		rc = 1;
		goto out;
	}
	pv = xcalloc(n + 1, sizeof(*pv));
	for (i = 0; i < n; i++)
		pv[i] = pods[i].obj;
	drain_pods_filter(&f.o, pv, n, (dtime)time(NULL) * 1000, NULL, NULL,
			  &l);
	drain_pods_errors(&l, &sb, &nerr);
	if (nerr) {
		fprintf(
		    stderr,
		    "error: unable to drain node \"%s\" due to error:%s%s%s, "
		    "continuing command...\n",
		    node, nerr > 1 ? "[" : "", sb.buf, nerr > 1 ? "]" : "");
		fprintf(stderr, "There are pending nodes to be drained:\n %s\n",
			node);
		fprintf(stderr, "error: %s%s%s\n", nerr > 1 ? "[" : "", sb.buf,
			nerr > 1 ? "]" : "");
		rc = 1;
		goto out;
	}
	strbuf_reset(&sb);
	drain_pods_warnings(&l, &sb);
	if (sb.len)
		fprintf(stderr, "Warning: %s\n", sb.buf);
	if (evict_all(c, &f, &l)) {
		fprintf(stderr, "There are pending nodes to be drained:\n %s\n",
			node);
		rc = 1;
		goto out;
	}
	printf("node/%s drained%s\n", node, cli_dry_suffix());
out:
	drain_pods_release(&l);
	for (i = 0; i < n; i++)
		object_release(&pods[i]);
	free(pods);
	free(pv);
	strbuf_release(&sb);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_cordon_entry = {
    "cordon", cordon_usage, "mark a node unschedulable", cordon_main};
const struct cmd_entry cmd_uncordon_entry = {
    "uncordon", cordon_usage, "mark a node schedulable again", uncordon_main};
const struct cmd_entry cmd_drain_entry = {
    "drain", drain_usage,
    "cordon a node and evict its pods, honouring disruption budgets",
    drain_main};
