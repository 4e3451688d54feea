/* cmd_rollout.c - `drover rollout`: kubectl's rollout status, history,
 * undo, pause, resume and restart for deployments (spec §13.1, §15). The
 * decisions come from core/rollout.c; this file does the I/O.
 *
 *   drover rollout status DEPLOY [--watch=false] [--timeout=D]
 *                                [--revision=N]
 *   drover rollout history DEPLOY [--revision=N]
 *   drover rollout undo DEPLOY [--to-revision=N]
 *   drover rollout pause|resume|restart DEPLOY
 *
 * DEPLOY is deployment/NAME (deploy/NAME) or "deployment NAME". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client_http.h"
#include "clock.h"
#include "common.h"
#include "deploy_util.h"
#include "json.h"
#include "object.h"
#include "rollout.h"

static const char usage_text[] =
    "usage: drover rollout status DEPLOY [--watch=false] [--timeout=D]\n"
    "                                    [--revision=N]\n"
    "       drover rollout history DEPLOY [--revision=N]\n"
    "       drover rollout undo DEPLOY [--to-revision=N]\n"
    "       drover rollout pause|resume|restart DEPLOY\n"
    "\n"
    "DEPLOY: deployment/NAME, deploy/NAME, or \"deployment NAME\".\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

struct rollout_args {
	const char *sub;
	const char *name;
	bool watch;
	int64_t timeout_ms; /* 0: none */
	int64_t revision;
	int64_t to_revision;
	char kind_name[128]; /* "deployment.apps/web" */
	char plural_q[64];   /* "deployments.apps" */
};

static const struct kind_info *deploy_kind;

/* GET and decode the deployment: 0, or the exit status. */
static int
get_deployment(struct client *c, const char *name, json_t **j, struct object *o)
{
	int rc;

	if ((rc = cli_get(c, deploy_kind, cli_g.ns, name, j)))
		return rc;
	if (cli_decode(*j, KIND_DEPLOYMENT, o)) {
		json_decref(*j);
		return 1;
	}
	return 0;
}

/* ---- status ---- */

struct status_watch {
	struct rollout_args *a;
	volatile int stop;
	int rc;
	bool tty;
	bool pending; /* a live line is on the terminal */
};

/* Prints one message: on a terminal, waiting lines rewrite each other in
 * place; otherwise every message is a line, as kubectl prints it. */
static void
status_print(struct status_watch *w, const char *msg, bool waiting)
{
	if (w->tty) {
		size_t n = strlen(msg);

		fputs("\r\033[K", stdout);
		if (waiting && n && msg[n - 1] == '\n')
			fwrite(msg, 1, n - 1, stdout);
		else
			fputs(msg, stdout);
		w->pending = waiting;
	} else {
		fputs(msg, stdout);
	}
	fflush(stdout);
}

/* Evaluates one deployment; sets w->stop when the rollout is decided. */
static void
status_eval(struct status_watch *w, json_t *obj)
{
	struct strbuf msg = STRBUF_INIT;
	struct object o = {0};
	enum rollout_state st;

	if (cli_decode(obj, KIND_DEPLOYMENT, &o)) {
		w->rc = 1;
		w->stop = 1;
		return;
	}
	st = rollout_status(o.obj, w->a->revision, &msg);
	if (st == ROLLOUT_FAILED) {
		if (w->pending)
			fputs("\n", stdout);
		fflush(stdout);
		cli_error("%s", msg.buf);
		w->rc = 1;
		w->stop = 1;
	} else {
		status_print(w, msg.buf, st == ROLLOUT_WAITING);
		if (st == ROLLOUT_DONE || !w->a->watch) {
			w->rc = 0;
			w->stop = 1;
		}
	}
	strbuf_release(&msg);
	object_release(&o);
}

static void
on_status_event(void *arg, json_t *ev)
{
	struct status_watch *w = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (w->stop || type == NULL)
		return;
	if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED")) {
		status_eval(w, json_object_get(ev, "object"));
	} else if (!strcmp(type, "DELETED")) {
		if (w->pending)
			fputs("\n", stdout);
		fflush(stdout);
		cli_error("object has been deleted");
		w->rc = 1;
		w->stop = 1;
	}
}

static int
rollout_status_run(struct client *c, struct rollout_args *a)
{
	struct status_watch w = {.a = a, .tty = isatty(STDOUT_FILENO) != 0};
	struct client_resp r;
	struct object o = {0};
	json_t *j;
	char path[1024], *ename, query[1200];
	int64_t deadline = clock_mono_ms() + a->timeout_ms;
	int rc;

	if ((rc = get_deployment(c, a->name, &j, &o)))
		return rc;
	object_release(&o);
	if (!a->watch) {
		status_eval(&w, j);
		json_decref(j);
		return w.rc;
	}
	json_decref(j);
	cli_path(path, sizeof(path), deploy_kind, cli_g.ns, NULL, NULL);
	ename = cli_urlencode(a->name);
	snprintf(
	    query, sizeof(query),
	    "watch=true&resourceVersion=0&fieldSelector=metadata.name%%3D%s",
	    ename);
	free(ename);
	while (!w.stop) {
		long left = 0;

		if (a->timeout_ms) {
			left = (long)(deadline - clock_mono_ms());
			if (left <= 0)
				break;
		}
		rc = client_http_watch_blocking(c, path, query, on_status_event,
						&w, &w.stop, left, &r);
		if (!w.stop && r.status != 200 && rc != 1) {
			if (w.pending)
				fputs("\n", stdout);
			rc = cli_resp_error(&r, deploy_kind, a->name);
			client_resp_release(&r);
			return rc;
		}
		client_resp_release(&r);
		if (rc == 1)
			break;
	}
	if (!w.stop) {
		if (w.pending)
			fputs("\n", stdout);
		fflush(stdout);
		return cli_error("timed out waiting for the condition");
	}
	return w.rc;
}

/* ---- history ---- */

static int
rollout_history_run(struct client *c, struct rollout_args *a)
{
	struct object o = {0};
	struct replicaset **rs = NULL, **hist = NULL;
	size_t nrs = 0, n = 0, i;
	json_t *j;
	int rc;

	if ((rc = get_deployment(c, a->name, &j, &o)))
		return rc;
	json_decref(j);
	if ((rc = cli_owned_rs(c, cli_g.ns, object_meta(&o)->uid, &rs, &nrs))) {
		object_release(&o);
		return rc;
	}
	rollout_history(rs, nrs, &hist, &n);
	if (a->revision > 0) {
		struct replicaset *found = NULL;
		int64_t rev;

		for (i = 0; i < n; i++)
			if (rs_revision(hist[i], &rev) == 0 &&
			    rev == a->revision)
				found = hist[i];
		if (found == NULL) {
			rc = cli_error("unable to find the specified revision");
		} else {
			struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
			struct pod_template t;
			const char *cause = strmap_get(
			    &found->metadata.annotations, ANN_CHANGE_CAUSE);

			pod_template_copy(&t, &found->spec.template);
			if (cause)
				strmap_set(&t.metadata.annotations,
					   ANN_CHANGE_CAUSE, cause);
			cli_describe_template(&t, &text);
			cli_tabwrite(text.buf, 0, 2, &out);
			printf("%s with revision #%lld\n%s\n", a->kind_name,
			       (long long)a->revision, out.buf);
			pod_template_release(&t);
			strbuf_release(&text);
			strbuf_release(&out);
		}
	} else if (a->revision < 0) {
		rc = cli_error("revision must be a positive integer: %lld",
			       (long long)a->revision);
	} else if (n == 0) {
		printf("No rollout history found.\n");
	} else {
		struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;

		strbuf_addstr(&text, "REVISION\tCHANGE-CAUSE\n");
		for (i = 0; i < n; i++) {
			const char *cause = strmap_get(
			    &hist[i]->metadata.annotations, ANN_CHANGE_CAUSE);
			int64_t rev = 0;

			rs_revision(hist[i], &rev);
			strbuf_addf(&text, "%lld\t%s\n", (long long)rev,
				    cause && *cause ? cause : "<none>");
		}
		cli_tabwrite(text.buf, 0, 2, &out);
		printf("%s\n%s\n", a->kind_name, out.buf);
		strbuf_release(&text);
		strbuf_release(&out);
	}
	free(hist);
	cli_rs_free(rs, nrs);
	object_release(&o);
	return rc;
}

/* ---- undo ---- */

static int
rollout_undo_run(struct client *c, struct rollout_args *a)
{
	struct object o = {0};
	struct replicaset **rs = NULL;
	struct undo_result u;
	size_t nrs = 0, i;
	json_t *j;
	int rc;

	if ((rc = get_deployment(c, a->name, &j, &o)))
		return rc;
	json_decref(j);
	if ((rc = cli_owned_rs(c, cli_g.ns, object_meta(&o)->uid, &rs, &nrs))) {
		object_release(&o);
		return rc;
	}
	rollout_undo(o.obj, rs, nrs, a->to_revision, a->kind_name, &u);
	switch (u.kind) {
	case UNDO_ERROR:
		rc = cli_error("%s", u.message.buf);
		break;
	case UNDO_SKIPPED:
		printf("%s\n", u.message.buf);
		break;
	case UNDO_PATCH: {
		json_t *ann = json_object(), *ops;

		for (i = 0; i < u.annotations.n; i++)
			json_object_set_new(
			    ann, u.annotations.v[i].key,
			    json_string(u.annotations.v[i].value));
		ops = json_pack("[{ssssso}{ssssso}]", "op", "replace", "path",
				"/spec/template", "value",
				codec_encode(&schema_pod_template, &u.template),
				"op", "replace", "path",
				"/metadata/annotations", "value", ann);
		rc = cli_patch(c, deploy_kind, cli_g.ns, a->name, NULL,
			       "application/json-patch+json", ops, NULL);
		json_decref(ops);
		if (rc == 0)
			printf("%s\n", u.message.buf);
		break;
	}
	}
	undo_result_release(&u);
	cli_rs_free(rs, nrs);
	object_release(&o);
	return rc;
}

/* ---- pause, resume, restart ---- */

static int
rollout_pause_run(struct client *c, struct rollout_args *a, bool pause)
{
	struct object o = {0};
	json_t *j, *patch;
	bool paused;
	int rc;

	if ((rc = get_deployment(c, a->name, &j, &o)))
		return rc;
	json_decref(j);
	paused = ((struct deployment *)o.obj)->spec.paused;
	object_release(&o);
	if (paused == pause)
		return cli_error("%s \"%s\" is %s", a->plural_q, a->name,
				 pause ? "already paused" : "not paused");
	patch = pause ? json_pack("{s{sb}}", "spec", "paused", 1)
		      : json_pack("{s{sn}}", "spec", "paused");
	rc = cli_patch(c, deploy_kind, cli_g.ns, a->name, NULL,
		       "application/merge-patch+json", patch, NULL);
	json_decref(patch);
	if (rc == 0)
		printf("%s %s\n", a->kind_name, pause ? "paused" : "resumed");
	return rc;
}

static int
rollout_restart_run(struct client *c, struct rollout_args *a)
{
	struct object o = {0};
	json_t *j, *patch;
	char now[40];
	bool paused;
	int rc;

	if ((rc = get_deployment(c, a->name, &j, &o)))
		return rc;
	json_decref(j);
	paused = ((struct deployment *)o.obj)->spec.paused;
	object_release(&o);
	if (paused)
		return cli_error("can't restart paused deployment (run rollout "
				 "resume first)");
	dtime_format(clock_now() / 1000 * 1000, now);
	patch = json_pack("{s{s{s{s{ss}}}}}", "spec", "template", "metadata",
			  "annotations", ANN_RESTARTED_AT, now);
	rc = cli_patch(c, deploy_kind, cli_g.ns, a->name, NULL,
		       "application/strategic-merge-patch+json", patch, NULL);
	json_decref(patch);
	if (rc == 0)
		printf("%s restarted\n", a->kind_name);
	return rc;
}

/* ---- the verb ---- */

static int
parse_bool(const char *s, bool *out)
{
	if (s == NULL || !strcmp(s, "true") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int
parse_int(const char *s, int64_t *out)
{
	char *end;

	*out = strtoll(s, &end, 10);
	return (*end || end == s) ? -1 : 0;
}

static int
usage_error(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "error: %s%s%s%s\n", msg, arg ? " \"" : "",
			arg ? arg : "", arg ? "\"" : "");
	fputs(usage_text, stderr);
	return 2;
}

static int
rollout_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"watch", optional_argument, NULL, 'w'},
	    {"timeout", required_argument, NULL, 't'},
	    {"revision", required_argument, NULL, 'r'},
	    {"to-revision", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const char *const subs[] = {"status", "history", "undo",
					   "pause",  "resume",  "restart"};
	struct rollout_args a = {.watch = true};
	const struct kind_info *k;
	struct client *c;
	size_t i;
	int ch, rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	deploy_kind = kind_by_id(KIND_DEPLOYMENT);
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			if (parse_bool(optarg, &a.watch))
				return usage_error("invalid --watch", optarg);
			break;
		case 't':
			if ((a.timeout_ms = cli_parse_duration(optarg)) < 0)
				return usage_error("invalid --timeout", optarg);
			break;
		case 'r':
			if (parse_int(optarg, &a.revision))
				return usage_error("invalid --revision",
						   optarg);
			break;
		case 'u':
			if (parse_int(optarg, &a.to_revision))
				return usage_error("invalid --to-revision",
						   optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL, NULL);
		}
	}
	if (optind >= argc)
		return usage_error("a rollout command is required", NULL);
	a.sub = argv[optind++];
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(a.sub, subs[i]))
			break;
	if (i == sizeof(subs) / sizeof(subs[0]))
		return usage_error("unknown rollout command", a.sub);
	if (optind >= argc)
		return usage_error("required resource not specified", NULL);
	if (strchr(argv[optind], '/')) {
		if (cli_kind_slash_name(argv[optind], &k, &a.name))
			return 1;
		optind++;
	} else {
		if ((k = cli_kind_find(argv[optind])) == NULL)
			return cli_error("the server doesn't have a resource "
					 "type \"%s\"",
					 argv[optind]);
		if (optind + 1 >= argc)
			return usage_error("required resource not specified",
					   NULL);
		a.name = argv[optind + 1];
		optind += 2;
	}
	if (optind != argc)
		return usage_error("too many arguments", NULL);
	if (k->id != KIND_DEPLOYMENT)
		return cli_error("rollout %s is only supported for "
				 "deployments, not %s",
				 a.sub, k->plural);
	snprintf(a.kind_name, sizeof(a.kind_name), "deployment.apps/%s",
		 a.name);
	kind_qualified_plural(k, a.plural_q, sizeof(a.plural_q));
	c = cli_client();
	if (!strcmp(a.sub, "status"))
		rc = rollout_status_run(c, &a);
	else if (!strcmp(a.sub, "history"))
		rc = rollout_history_run(c, &a);
	else if (!strcmp(a.sub, "undo"))
		rc = rollout_undo_run(c, &a);
	else if (!strcmp(a.sub, "pause"))
		rc = rollout_pause_run(c, &a, true);
	else if (!strcmp(a.sub, "resume"))
		rc = rollout_pause_run(c, &a, false);
	else
		rc = rollout_restart_run(c, &a);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_rollout_entry = {
    "rollout", usage_text,
    "rollout status, history, undo, pause, resume, restart", rollout_run};
