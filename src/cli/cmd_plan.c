/* cmd_plan.c - `drover plan`: one controller step (--once) or a whole
 * rollout on a virtual clock (--simulate), from files of stored objects.
 *
 *   drover plan --once -f STATE... [--now RFC3339] [-o json|yaml|text]
 *   drover plan --simulate -f STATE... [--pod-ready-seconds N] [--now T]
 *               [-o json|text]
 *
 * Several states (-f given more than once, files after -f as a shell
 * glob leaves them, or a directory's .json/.yaml/.yml files) are planned
 * each in turn, each with its own Deployment: a "==> FILE <==" header
 * in text, a "file" member in each JSON or YAML document.
 * Invalid input: the field errors on stderr, nothing on stdout for that
 * file, exit 1 (after the other files). */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "clock.h"
#include "defaults.h"
#include "deploy_util.h"
#include "explain.h"
#include "fsx.h"
#include "json.h"
#include "object.h"
#include "plan_deploy.h"
#include "sim.h"
#include "strbuf.h"
#include "xalloc.h"
#include "yaml_out.h"

enum mode { MODE_NONE, MODE_ONCE, MODE_SIMULATE };

struct plan_args {
	enum mode mode;
	const char *output;
	const char *now;
	double ready_seconds;
};

static const char usage_text[] =
    "usage: drover plan --once -f STATE... [--now RFC3339] [-o "
    "json|yaml|text]\n"
    "       drover plan --simulate -f STATE... [--pod-ready-seconds N]\n"
    "                   [--now RFC3339] [-o json|text]\n"
    "       drover plan --rc-update -f STATE OLD [NEW] (--image=IMAGE |\n"
    "                   -f NEW_RC_FILE) [rolling-update flags]\n"
    "\n"
    "STATE holds one Deployment and any of its ReplicaSets and Pods, as\n"
    "stored (YAML documents, JSON, or a List); several (-f a -f b, -f a b,\n"
    "-f DIR) are planned each in turn. --once prints the one step\n"
    "Kubernetes' deployment controller takes; --simulate runs the whole\n"
    "rollout on a virtual clock (pods ready N seconds after creation, N < 0:\n"
    "never). --rc-update previews `drover rolling-update` on the\n"
    "ReplicationControllers and pods of STATE (its --dry-run).\n";

/* Seconds as a JSON number: an integer when whole. */
static json_t *
seconds_json(int64_t ms)
{
	if (ms % 1000 == 0)
		return json_integer(ms / 1000);
	return json_real((double)ms / 1000.0);
}

static json_t *
budget_json(const struct plan_budget *b)
{
	if (!b->set)
		return json_null();
	return json_pack("{sIsIsIsIsI}", "replicas", (json_int_t)b->replicas,
			 "maxSurge", (json_int_t)b->surge, "maxUnavailable",
			 (json_int_t)b->unavailable, "maxPods",
			 (json_int_t)(b->replicas + b->surge), "minAvailable",
			 (json_int_t)(b->replicas - b->unavailable));
}

static json_t *
actions_json(const struct action_list *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct strbuf sb = STRBUF_INIT;

		action_to_json(&l->v[i], &sb);
		json_array_append_new(a, json_loads(sb.buf, 0, NULL));
		strbuf_release(&sb);
	}
	return a;
}

static json_t *
events_json(const struct event_list *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_array_append_new(
		    a, json_pack("{ssssss}", "type", l->v[i].type, "reason",
				 l->v[i].reason, "message", l->v[i].message));
	return a;
}

static json_t *
encode(const struct kind_info *k, const void *obj)
{
	struct object o = {.k = k, .obj = (void *)obj};

	return object_encode(&o);
}

static void
print_json(json_t *j, const char *format)
{
	char *s;

	if (!strcmp(format, "yaml")) {
		struct strbuf sb = STRBUF_INIT;

		if (yaml_emit(j, &sb))
			fprintf(stderr, "error: cannot write YAML output\n");
		else
			fputs(sb.buf, stdout);
		strbuf_release(&sb);
		return;
	}
	s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	puts(s);
	free(s);
}

/* Splits the loaded objects; exactly one Deployment is required (the
 * error says so on stderr, after a header naming `file` if set). */
static int
sort_objects(struct object_list *objs, const struct deployment **d,
	     const struct replicaset ***rs, size_t *nrs,
	     const struct pod ***pods, size_t *npods, const char *file)
{
	size_t i, nd = 0;

	*rs = calloc(objs->n + 1, sizeof(**rs));
	*pods = calloc(objs->n + 1, sizeof(**pods));
	*nrs = *npods = 0;
	for (i = 0; i < objs->n; i++) {
		switch (objs->v[i].k->id) {
		case KIND_DEPLOYMENT:
			*d = objs->v[i].obj;
			nd++;
			break;
		case KIND_REPLICASET:
			(*rs)[(*nrs)++] = objs->v[i].obj;
			break;
		case KIND_POD:
			(*pods)[(*npods)++] = objs->v[i].obj;
			break;
		default:
			break; /* other kinds do not take part in a plan */
		}
	}
	if (nd != 1) {
		if (file)
			fprintf(stderr, "==> %s <==\n", file);
		fprintf(stderr,
			"error: the state must hold exactly one Deployment "
			"(found %zu)\n",
			nd);
		return -1;
	}
	return 0;
}

/* The latest time found in the input: the default start of a simulation,
 * so that the same file always simulates the same way. */
static dtime
latest_time(struct object_list *objs)
{
	dtime t = 0;
	size_t i, j;

	for (i = 0; i < objs->n; i++) {
		struct object_meta *m = object_meta(&objs->v[i]);

		if (m->creation_timestamp > t)
			t = m->creation_timestamp;
		if (objs->v[i].k->id == KIND_DEPLOYMENT) {
			const struct deployment *d = objs->v[i].obj;

			for (j = 0; j < d->status.conditions.n; j++)
				if (d->status.conditions.v[j].last_update_time >
				    t)
					t = d->status.conditions.v[j]
						.last_update_time;
		}
	}
	if (t == 0)
		dtime_parse("2026-01-01T00:00:00Z", &t);
	return t;
}

/* A JSON document of one plan; "file" first when several are planned
 * (file set), so that each document of the stream says its input. */
static json_t *
doc_json(const char *file)
{
	json_t *j = json_object();

	if (file)
		json_object_set_new(j, "file", json_string(file));
	return j;
}

/* Prints a plan's document; several YAML documents are separated by
 * "---" (file set). */
static void
print_doc(json_t *j, const char *format, const char *file)
{
	if (file && !strcmp(format, "yaml"))
		fputs("---\n", stdout);
	print_json(j, format);
}

static int
run_once(struct plan_args *a, const char *file, const struct deployment *d,
	 const struct replicaset **rs, size_t nrs, const struct pod **pods,
	 size_t npods, dtime now)
{
	struct plan_deploy_in in = {.d = d,
				    .rs = rs,
				    .nrs = nrs,
				    .pods = pods,
				    .npods = npods,
				    .now = now};
	struct plan_deploy_out out;
	size_t i;

	plan_deploy(&in, &out);
	if (!strcmp(a->output, "text")) {
		struct strbuf sb = STRBUF_INIT;

		explain_step(d, &out, &sb);
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	} else {
		json_t *j = doc_json(file), *objsj = json_array();

		json_object_set_new(j, "budget", budget_json(&out.budget));
		json_object_set_new(j, "actions", actions_json(&out.actions));
		json_object_set_new(j, "events", events_json(&out.events));
		json_object_set_new(j, "requeueAfterSeconds",
				    out.requeue_after_ms < 0
					? json_null()
					: seconds_json(out.requeue_after_ms));
		if (out.error)
			json_object_set_new(j, "error", json_string(out.error));
		json_array_append_new(
		    objsj, encode(kind_by_id(KIND_DEPLOYMENT), &out.d));
		for (i = 0; i < out.nrs; i++)
			json_array_append_new(
			    objsj,
			    encode(kind_by_id(KIND_REPLICASET), out.rs[i]));
		json_object_set_new(j, "objects", objsj);
		print_doc(j, a->output, file);
		json_decref(j);
	}
	plan_deploy_out_release(&out);
	return 0;
}

/* The InPlaceUpdate comparison (issue 11): the same Deployment as a
 * RollingUpdate with maxUnavailable as written for the in-place update
 * and the default maxSurge 25%, simulated from the same state. Returns
 * 0 and fills *r (the caller releases it), or -1. */
static int
simulate_rolling_twin(const struct deployment *d, const struct replicaset **rs,
		      size_t nrs, const struct pod **pods, size_t npods,
		      const struct sim_opts *o, struct sim_result *r)
{
	struct deployment twin;
	struct in_place_update *ip;
	struct rolling_update *ru = xcalloc(1, sizeof(*ru));
	int rc;

	deployment_copy(&twin, d);
	ip = twin.spec.strategy.in_place_update;
	if (ip) {
		ru->max_unavailable = ip->max_unavailable; /* moves */
		free(ip);
		twin.spec.strategy.in_place_update = NULL;
	}
	free(twin.spec.strategy.type);
	twin.spec.strategy.type = xstrdup("RollingUpdate");
	twin.spec.strategy.rolling_update = ru; /* twin owns it */
	defaults_deployment(&twin);
	rc = sim_run(&twin, rs, nrs, pods, npods, o, r);
	deployment_release(&twin);
	return rc;
}

static int
run_simulate(struct plan_args *a, const char *file, const struct deployment *d,
	     const struct replicaset **rs, size_t nrs, const struct pod **pods,
	     size_t npods, dtime start)
{
	struct sim_opts o = {
	    .pod_ready_ms = a->ready_seconds < 0
				? -1
				: (int64_t)(a->ready_seconds * 1000 + 0.5),
	    .start = start,
	    .max_ms = DTIME_SEC(30LL * 24 * 3600),
	    .max_steps = 1000000,
	};
	struct sim_result r, tw;
	size_t i;

	if (sim_run(d, rs, nrs, pods, npods, &o, &r)) {
		if (file)
			fprintf(stderr, "==> %s <==\n", file);
		fprintf(stderr, "error: cannot simulate this state\n");
		return 1;
	}
	if (!strcmp(a->output, "text")) {
		struct strbuf sb = STRBUF_INIT;

		explain_sim(d, &o, &r, &sb);
		if (deploy_is_inplace(d) &&
		    !simulate_rolling_twin(d, rs, nrs, pods, npods, &o, &tw)) {
			strbuf_addf(&sb,
				    "compare: as RollingUpdate (maxSurge 25%%, "
				    "the same maxUnavailable): %s after ",
				    sim_result_name(tw.result));
			explain_seconds(tw.duration_ms, &sb);
			strbuf_addf(&sb, "; peak %lld pods\n",
				    (long long)tw.peak_pods);
			sim_result_release(&tw);
		}
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	} else {
		json_t *j = doc_json(file), *steps = json_array();

		json_object_set_new(j, "budget", budget_json(&r.budget));
		for (i = 0; i < r.nsteps; i++) {
			const struct sim_step *s = &r.steps[i];

			json_array_append_new(
			    steps, json_pack("{sosos{sIsIsIsI}}", "t",
					     seconds_json(s->t_ms), "actions",
					     actions_json(&s->actions), "pods",
					     "total", (json_int_t)s->pods.total,
					     "available",
					     (json_int_t)s->pods.available,
					     "old", (json_int_t)s->pods.old,
					     "new", (json_int_t)s->pods.new_));
		}
		json_object_set_new(j, "steps", steps);
		json_object_set_new(j, "durationSeconds",
				    seconds_json(r.duration_ms));
		json_object_set_new(j, "peakPods", json_integer(r.peak_pods));
		json_object_set_new(j, "minAvailableSeen",
				    json_integer(r.min_available));
		json_object_set_new(j, "result",
				    json_string(sim_result_name(r.result)));
		if (deploy_is_inplace(d) &&
		    !simulate_rolling_twin(d, rs, nrs, pods, npods, &o, &tw)) {
			json_object_set_new(
			    j, "asRollingUpdate",
			    json_pack("{sosIss}", "durationSeconds",
				      seconds_json(tw.duration_ms), "peakPods",
				      (json_int_t)tw.peak_pods, "result",
				      sim_result_name(tw.result)));
			sim_result_release(&tw);
		}
		print_doc(j, "json", file);
		json_decref(j);
	}
	sim_result_release(&r);
	return 0;
}

/* Adds the state files of one -f: a file, or a directory's .json, .yaml
 * and .yml files in name order (kubectl's -f DIR, not recursive). The
 * list owns its names. */
static void
add_state_path(struct strlist *files, const char *path)
{
	struct dirent **ents = NULL;
	struct stat st;
	int i, n;

	if (stat(path, &st) || !S_ISDIR(st.st_mode) ||
	    (n = scandir(path, &ents, NULL, alphasort)) < 0) {
		strlist_push(files, path); /* read (and any error) later */
		return;
	}
	for (i = 0; i < n; i++) {
		const char *dot = strrchr(ents[i]->d_name, '.');

		if (ents[i]->d_name[0] != '.' && dot &&
		    (!strcmp(dot, ".json") || !strcmp(dot, ".yaml") ||
		     !strcmp(dot, ".yml"))) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "%s%s%s", path,
				    path[strlen(path) - 1] == '/' ? "" : "/",
				    ents[i]->d_name);
			strlist_push(files, sb.buf);
			strbuf_release(&sb);
		}
		free(ents[i]);
	}
	free(ents);
}

/* One state file, planned as --once or --simulate ask. `file` is set
 * when several are planned: the text gets a header line, the JSON and
 * YAML documents a "file" member, and an error on stderr the header
 * too. 0, or 1 (the file's errors printed). */
static int
plan_file(struct plan_args *a, const char *file, bool many, dtime now)
{
	struct object_list objs = {0};
	struct manifest_errors errs;
	const struct deployment *d = NULL;
	const struct replicaset **rs = NULL;
	const struct pod **pods = NULL;
	size_t nrs = 0, npods = 0, len;
	char *buf;
	int c, rc = 1;

	if (many && !strcmp(a->output, "text"))
		printf("==> %s <==\n", file);
	if (many)
		fflush(stdout);
	if ((c = fsx_read_all(file, &buf, &len)) < 0) {
		fprintf(stderr, "error: %s: %s\n", file, strerror(-c));
		return 1;
	}
	if (manifest_load(buf, len, true, &objs, &errs)) {
		struct strbuf sb = STRBUF_INIT;

		manifest_errors_format(&errs, &sb);
		if (many)
			fprintf(stderr, "==> %s <==\n", file);
		fputs(sb.buf, stderr);
		strbuf_release(&sb);
		manifest_errors_release(&errs);
		free(buf);
		return 1;
	}
	free(buf);
	if (sort_objects(&objs, &d, &rs, &nrs, &pods, &npods,
			 many ? file : NULL) == 0) {
		const char *tag = many ? file : NULL;

		if (a->mode == MODE_ONCE)
			rc = run_once(a, tag, d, rs, nrs, pods, npods,
				      a->now ? now : clock_now());
		else
			rc = run_simulate(a, tag, d, rs, nrs, pods, npods,
					  a->now ? now : latest_time(&objs));
	}
	free(rs);
	free(pods);
	object_list_release(&objs);
	return rc;
}

static int
plan_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"once", no_argument, NULL, '1'},
	    {"simulate", no_argument, NULL, 's'},
	    {"filename", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"now", required_argument, NULL, 'n'},
	    {"pod-ready-seconds", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct plan_args a = {.output = "json", .ready_seconds = 1};
	struct strlist files = {0};
	char *end;
	dtime now = 0;
	size_t i;
	int c, rc = 0;

	if (argc >= 4 && !strcmp(argv[1], "--rc-update")) {
		/* --rc-update -f STATE, then the rolling-update arguments */
		if (strcmp(argv[2], "-f") && strcmp(argv[2], "--filename")) {
			fputs(usage_text, stderr);
			return 2;
		}
		const char *state = argv[3];

		argv[3] = argv[0];
		return rolling_update_plan(state, argc - 3, argv + 3);
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case '1':
			a.mode = MODE_ONCE;
			break;
		case 's':
			a.mode = MODE_SIMULATE;
			break;
		case 'f':
			add_state_path(&files, optarg);
			break;
		case 'o':
			a.output = optarg;
			break;
		case 'n':
			a.now = optarg;
			break;
		case 'r':
			a.ready_seconds = strtod(optarg, &end);
			if (*end || end == optarg) {
				fprintf(stderr,
					"error: --pod-ready-seconds: invalid "
					"number \"%s\"\n",
					optarg);
				strlist_release(&files);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			strlist_release(&files);
			return 0;
		default:
			fputs(usage_text, stderr);
			strlist_release(&files);
			return 2;
		}
	}
	/* a shell glob after -f leaves the files after the first as
	 * arguments: they are state files too */
	if (files.n > 0)
		for (; optind < argc; optind++)
			add_state_path(&files, argv[optind]);
	if (a.mode == MODE_NONE || files.n == 0 || optind != argc) {
		if (a.mode == MODE_NONE)
			fputs("error: say what to plan: --once, --simulate "
			      "or --rc-update\n",
			      stderr);
		else if (files.n == 0)
			fputs("error: the state to plan must follow -f (-f "
			      "STATE, several -f, or -f DIR)\n",
			      stderr);
		fputs(usage_text, stderr);
		strlist_release(&files);
		return 2;
	}
	if (strcmp(a.output, "json") && strcmp(a.output, "text") &&
	    (strcmp(a.output, "yaml") || a.mode == MODE_SIMULATE)) {
		fprintf(stderr, "error: unsupported output format \"%s\"\n",
			a.output);
		strlist_release(&files);
		return 2;
	}
	if (a.now && dtime_parse_now(a.now, &now)) {
		fprintf(stderr,
			"error: --now: \"%s\" is not an RFC 3339 time\n",
			a.now);
		strlist_release(&files);
		return 2;
	}
	/* each file in turn, as kubectl takes several -f; one that fails
	 * does not stop the others, and makes the exit status 1 */
	for (i = 0; i < files.n; i++) {
		if (i > 0 && !strcmp(a.output, "text"))
			putchar('\n');
		if (plan_file(&a, files.v[i], files.n > 1, now))
			rc = 1;
		fflush(stdout);
	}
	strlist_release(&files);
	return rc;
}

const struct cmd_entry cmd_plan_entry = {
    "plan", usage_text, "preview a rollout step or simulate a whole rollout",
    plan_run};
