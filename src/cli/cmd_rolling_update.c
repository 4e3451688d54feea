/* cmd_rolling_update.c - `drover rolling-update`: kubectl's legacy
 * client-side rolling update of a ReplicationController to a new one.
 *
 * The verb is a loop over the API: read OLD, NEXT and the pods, ask
 * plan_rcu() (src/core/plan/plan_rc_update.h) for the one next step, write
 * it, wait. All the state the update needs is in the stored objects
 * (the recovery annotations, NEXT's finalizer during the rename), so a
 * client killed anywhere is resumed by running the same command again.
 *
 * Test hook: DROVER_TEST_CRASH_AT=STEP (a step name of plan_rc_update.h:
 * create-next, scale-old, delete-old, orphan-next, create-final, ...)
 * makes the client SIGKILL itself right after that step's first write,
 * so that tests/e2e/test_rc_rolling_update.py hits each phase exactly. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client_fake.h"
#include "clock.h"
#include "common.h"
#include "fsx.h"
#include "kube.h"
#include "manifest.h"
#include "object.h"
#include "plan_rc_update.h"
#include "plan_rs.h"
#include "strbuf.h"
#include "tmplhash.h"
#include "xalloc.h"

/* Exit statuses (documented in the usage). */
#define RU_OK      0
#define RU_ERROR   1
#define RU_USAGE   2
#define RU_TIMEOUT 3

static const char usage_text[] =
    "usage: drover rolling-update OLD [NEW] (--image=IMAGE "
    "[--container=NAME] | -f NEW_RC_FILE) [--rollback]\n"
    "       [--update-period=1m] [--poll-interval=3s] [--timeout=5m]\n"
    "       [--deployment-label-key=kubernetes.io/deployment] [--dry-run]\n"
    "\n"
    "Replaces the pods of ReplicationController OLD by those of a new one,\n"
    "one surge pod at a time (never more than the desired count + 1, never\n"
    "fewer available than desired). With --image and no NEW, the new\n"
    "controller is OLD-<hash> and takes the name OLD at the end; with NEW,\n"
    "OLD is deleted at the end. Killed midway, the same command resumes\n"
    "the update; --rollback rolls a partial update back to OLD.\n"
    "\n"
    "  --image=IMAGE       the image of the new controller's container\n"
    "  --container=NAME    which container (pods with several)\n"
    "  -f, --filename=FILE the new controller's manifest (its own name)\n"
    "  --update-period=D   wait after each scaling (default 1m0s)\n"
    "  --poll-interval=D   between reads while waiting (default 3s)\n"
    "  --timeout=D         fail when no replica count changed for D\n"
    "                      (default 5m0s)\n"
    "  --deployment-label-key=KEY  the label that tells the two sets of\n"
    "                      pods apart (default kubernetes.io/deployment)\n"
    "  --dry-run           print the steps the update would take\n"
    "  --rollback          abort the update in progress, back to OLD\n"
    "\n"
    "Exit status: 0 updated (or nothing to do), 1 error or refusal,\n"
    "2 usage error, 3 timed out (no progress for --timeout).\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, -n NAMESPACE.\n";

struct ru_args {
	const char *old_name, *new_name;
	const char *image, *container, *file, *key;
	const char *old_value; /* "<hash of OLD>-orig" once computed */
	bool key_given;        /* --deployment-label-key was given */
	int64_t period_ms, poll_ms, timeout_ms;
	bool dry_run, rollback;
};

/* What one iteration reads: the two controllers and their pods. */
struct ru_world {
	struct object old, next; /* .obj NULL: absent */
	struct strlist unlabeled;
	int64_t next_available;
};

static void
world_release(struct ru_world *w)
{
	object_release(&w->old);
	object_release(&w->next);
	strlist_release(&w->unlabeled);
	memset(w, 0, sizeof(*w));
}

static void
sleep_ms(int64_t ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	if (ms > 0)
		nanosleep(&ts, NULL);
}

/* GET of one RC: 0 (o->obj set), 1 absent, or -1 after printing. */
static int
read_rc(struct client *c, const char *name, struct object *o)
{
	int r;

	memset(o, 0, sizeof(*o));
	if (name == NULL)
		return 1;
	r = kube_get(c, KIND_REPLICATION_CONTROLLER, cli_g.ns, name, o);
	if (r == -1)
		return 1;
	if (r != 0) {
		cli_error("cannot read replicationcontroller \"%s\"", name);
		return -1;
	}
	return 0;
}

/* The pods of the namespace: NEXT's available ones, and OLD's live ones
 * without OLD's template value of the label key. */
static int
read_pods(struct client *c, const struct ru_args *a, struct ru_world *w)
{
	const struct replication_controller *old = w->old.obj,
					    *next = w->next.obj;
	const char *want =
	    old && a->image && !a->rollback
		? strmap_get(&old->spec.template.metadata.labels, a->key)
		: NULL;
	struct object_list l = {0};
	dtime now = clock_now();
	size_t i;

	if (kube_list(c, KIND_POD, cli_g.ns, &l))
		return cli_error("cannot list the pods of namespace \"%s\"",
				 cli_g.ns);
	for (i = 0; i < l.n; i++) {
		const struct pod *p = l.v[i].obj;
		const struct owner_ref *r = meta_controller_ref(&p->metadata);
		const char *v;

		if (r == NULL || r->uid == NULL || !pod_is_active(p))
			continue;
		if (old && !want && a->image && !a->rollback)
			want = a->old_value; /* the template has no key yet */
		if (next && next->metadata.uid &&
		    !strcmp(r->uid, next->metadata.uid) &&
		    pod_is_available(p, next->spec.min_ready_seconds, now))
			w->next_available++;
		if (want && old->metadata.uid &&
		    !strcmp(r->uid, old->metadata.uid)) {
			v = strmap_get(&p->metadata.labels, a->key);
			if (v == NULL || strcmp(v, want))
				strlist_push(&w->unlabeled, p->metadata.name);
		}
	}
	object_list_release(&l);
	return 0;
}

/* The container --image applies to: --container, or the only one. */
static struct container *
image_container(struct replication_controller *rc, const struct ru_args *a)
{
	struct container_list *cl = &rc->spec.template.spec.containers;
	size_t i;

	if (a->container) {
		for (i = 0; i < cl->n; i++)
			if (!strcmp(cl->v[i].name, a->container))
				return &cl->v[i];
		cli_error("container \"%s\" not found in the pod template of "
			  "%s",
			  a->container, rc->metadata.name);
		return NULL;
	}
	if (cl->n != 1) {
		cli_error("the pods of %s have %zu containers: choose one with "
			  "--container",
			  rc->metadata.name, cl->n);
		return NULL;
	}
	return &cl->v[0];
}

/* The next controller of --image: OLD's copy without the label key,
 * the image swapped, hashed (tmplhash), then keyed with the hash. The
 * hash ignores OLD's own key, so every run computes the same name.
 * Also gives OLD's value ("<hash of OLD>-orig"). 0 or 1. */
static int
proto_from_image(const struct replication_controller *old,
		 const struct ru_args *a, struct replication_controller *p,
		 char hash[16], char old_value[32])
{
	struct object_meta *m = &p->metadata;
	struct container *ct;
	char oh[16];

	memset(p, 0, sizeof(*p));
	p->api_version = xstrdup("v1");
	p->kind = xstrdup("ReplicationController");
	m->namespace = xstrdup(old->metadata.namespace);
	strmap_copy(&m->labels, &old->metadata.labels);
	strmap_del(&m->labels, a->key);
	p->spec.replicas = old->spec.replicas;
	p->spec.min_ready_seconds = old->spec.min_ready_seconds;
	strmap_copy(&p->spec.selector, &old->spec.selector);
	pod_template_copy(&p->spec.template, &old->spec.template);
	strmap_del(&p->spec.selector, a->key);
	strmap_del(&p->spec.template.metadata.labels, a->key);
	tmplhash_compute(&p->spec.template, NULL, oh);
	snprintf(old_value, 32, "%s-orig", oh);
	if ((ct = image_container(p, a)) == NULL)
		return 1;
	free(ct->image);
	ct->image = xstrdup(a->image);
	tmplhash_compute(&p->spec.template, NULL, hash);
	strmap_set(&p->spec.selector, a->key, hash);
	strmap_set(&p->spec.template.metadata.labels, a->key, hash);
	return 0;
}

/* The next controller of -f: one ReplicationController, defaulted and
 * validated, whose selector differs from OLD's (kubectl's rule: a key of
 * OLD's selector with another value). *desired: its replicas if the file
 * gives them, else -1. 0 or 1. */
static int
proto_from_file(const struct ru_args *a,
		const struct replication_controller *old,
		struct replication_controller *p, int64_t *desired)
{
	struct object_list objs = {0};
	struct manifest_errors errs = {0};
	char *buf;
	size_t len, i;
	int r;
	bool differs = false;

	if ((r = fsx_read_all(a->file, &buf, &len)) < 0)
		return cli_error("the path \"%s\" cannot be read: %s", a->file,
				 strerror(-r));
	if (manifest_load(buf, len, true, &objs, &errs)) {
		struct strbuf sb = STRBUF_INIT;

		manifest_errors_format(&errs, &sb);
		fputs(sb.buf, stderr);
		strbuf_release(&sb);
		manifest_errors_release(&errs);
		free(buf);
		return 1;
	}
	if (objs.n != 1 || objs.v[0].k->id != KIND_REPLICATION_CONTROLLER) {
		object_list_release(&objs);
		free(buf);
		return cli_error("%s must hold one ReplicationController",
				 a->file);
	}
	/* replicas as written, before defaulting made it 1 */
	{
		json_t *docs = manifest_parse(buf, len, NULL, 0);
		json_t *d =
		    json_is_array(docs) ? json_array_get(docs, 0) : docs;
		json_t *rep =
		    json_object_get(json_object_get(d, "spec"), "replicas");

		*desired = json_is_integer(rep) ? json_integer_value(rep) : -1;
		json_decref(docs);
	}
	free(buf);
	rc_copy(p, objs.v[0].obj);
	object_list_release(&objs);
	if (p->metadata.namespace == NULL) {
		p->metadata.namespace = xstrdup(cli_g.ns);
	} else if (strcmp(p->metadata.namespace, cli_g.ns)) {
		rc_release(p);
		return cli_error("%s is in namespace %s, not %s", a->file,
				 p->metadata.namespace, cli_g.ns);
	}
	if (old)
		for (i = 0; i < p->spec.selector.n; i++) {
			const char *ov = strmap_get(&old->spec.selector,
						    p->spec.selector.v[i].key);

			if (ov && strcmp(ov, p->spec.selector.v[i].value))
				differs = true;
		}
	if (old && !differs) {
		rc_release(p);
		return cli_error("%s must specify a matching key with "
				 "non-equal value in Selector for %s",
				 a->file, old->metadata.name);
	}
	return 0;
}

/* An RC whose update-source-id names OLD: the next controller when OLD
 * is gone (killed mid-rename) and NEW was not given. */
static char *
find_partner(struct client *c, const char *old_name)
{
	struct object_list l = {0};
	char *found = NULL;
	size_t i;

	if (kube_list(c, KIND_REPLICATION_CONTROLLER, cli_g.ns, &l))
		return NULL;
	for (i = 0; i < l.n && !found; i++) {
		const struct replication_controller *rc = l.v[i].obj;

		if (rcu_source_names(rc, old_name))
			found = xstrdup(rc->metadata.name);
	}
	object_list_release(&l);
	return found;
}

/* Carries out one step. 0, 1 (failed, printed) or -1 (a conflict:
 * read again). */
static int
apply_step(struct client *c, struct plan_rcu_step *s)
{
	const struct kind_info *k = kind_by_id(KIND_REPLICATION_CONTROLLER);
	struct object o = {k, &s->obj};
	struct client_resp r;
	char path[1024];
	size_t i;
	int st;

	switch (s->op) {
	case RCU_CREATE:
	case RCU_UPDATE:
		st = s->op == RCU_CREATE ? kube_create(c, &o)
					 : kube_update(c, &o, NULL);
		if (st == 409)
			return -1;
		if (st < 200 || st > 299)
			return cli_error("cannot %s replicationcontroller "
					 "\"%s\": HTTP %d",
					 s->op == RCU_CREATE ? "create"
							     : "update",
					 s->target, st);
		return 0;
	case RCU_SCALE: {
		json_t *p =
		    json_pack("{s{sI}}", "spec", "replicas", (json_int_t)s->to);

		st = cli_patch(c, k, cli_g.ns, s->target, "scale",
			       "application/merge-patch+json", p, NULL);
		json_decref(p);
		return st ? 1 : 0;
	}
	case RCU_LABEL_PODS:
		for (i = 0; i < s->pods.n; i++) {
			json_t *p =
			    json_pack("{s{s{ss}}}", "metadata", "labels",
				      s->label_key, s->label_value);

			cli_path(path, sizeof(path), kind_by_id(KIND_POD),
				 cli_g.ns, s->pods.v[i], NULL);
			client_request(c, "PATCH", path, NULL,
				       "application/merge-patch+json", p, &r);
			json_decref(p);
			st = r.status;
			client_resp_release(&r);
			if (st != 200 && st != 404)
				return cli_error("cannot label pod \"%s\": "
						 "HTTP %d",
						 s->pods.v[i], st);
		}
		return 0;
	case RCU_DELETE:
	case RCU_DELETE_ORPHAN:
		cli_path(path, sizeof(path), k, cli_g.ns, s->target, NULL);
		client_request(c, "DELETE", path,
			       s->op == RCU_DELETE_ORPHAN
				   ? "propagationPolicy=Orphan"
				   : NULL,
			       NULL, NULL, &r);
		st = r.status;
		client_resp_release(&r);
		if (st != 200 && st != 202 && st != 404)
			return cli_error("cannot delete replicationcontroller "
					 "\"%s\": HTTP %d",
					 s->target, st);
		return 0;
	default:
		return 0;
	}
}

static void
crash_hook(const char *step)
{
	const char *at = getenv("DROVER_TEST_CRASH_AT");

	if (at && step && !strcmp(at, step)) {
		fflush(stdout);
		raise(SIGKILL);
	}
}

/* The planner's input for what w holds. roles swapped on --rollback. */
static void
fill_in(struct plan_rcu_in *in, const struct ru_args *a, struct ru_world *w)
{
	if (a->rollback) {
		in->old = w->next.obj;
		in->next = w->old.obj;
	} else {
		in->old = w->old.obj;
		in->next = w->next.obj;
	}
	in->next_available = w->next_available;
	in->old_unlabeled = (const char *const *)w->unlabeled.v;
	in->nold_unlabeled = w->unlabeled.n;
}

/* Reads the world of one iteration. On --rollback, the "next" read is
 * the original OLD (the planner's NEXT), whose pods are counted. */
static int
read_world(struct client *c, const struct ru_args *a, const char *next_name,
	   struct ru_world *w)
{
	memset(w, 0, sizeof(*w));
	if (read_rc(c, a->old_name, &w->old) < 0 ||
	    read_rc(c, next_name, &w->next) < 0)
		return 1;
	if (a->rollback) {
		/* count the pods with the roles the planner sees */
		struct object t = w->old;

		w->old = w->next;
		w->next = t;
		if (read_pods(c, a, w))
			return 1;
		t = w->old;
		w->old = w->next;
		w->next = t;
		return 0;
	}
	return read_pods(c, a, w);
}

/* Without --deployment-label-key, an update in progress goes on with
 * the key it began with (rcu_key_in_progress): for an update a real
 * kubectl began, its "deployment" and NEXT's value of it, so that every
 * step (and the end of the rename) recognises its controllers. */
static void
key_in_progress(struct client *c, struct ru_args *a, const char *next_name,
		char *hash, size_t len)
{
	struct object t;
	const struct replication_controller *next;
	const char *key;

	if (read_rc(c, next_name, &t) != 0)
		return;
	next = t.obj;
	key = rcu_key_in_progress(next, a->key);
	if (strcmp(key, a->key)) {
		a->key = key;
		snprintf(hash, len, "%s",
			 strmap_get(&next->spec.selector, key));
	}
	object_release(&t);
}

static int
run_update(struct client *c, struct ru_args *a)
{
	struct replication_controller proto;
	struct plan_rcu_in in = {0};
	struct ru_world w;
	char hash[64] = "", old_value[32] = "", *next_name = NULL;
	bool have_proto = false, summarized = false, acted = false;
	bool first = true;
	int64_t desired = -1, last_progress = clock_mono_ms();
	int rc = RU_ERROR, r;

	memset(&proto, 0, sizeof(proto));
	if (read_world(c, a, NULL, &w))
		return RU_ERROR;
	if (a->new_name) {
		next_name = xstrdup(a->new_name);
	} else if (w.old.obj && rcu_next_of(w.old.obj)) {
		struct object t;
		const char *nn = rcu_next_of(w.old.obj);

		/* the pointer of an update in progress, if it still
		 * exists */
		if (read_rc(c, nn, &t) == 0 || a->rollback)
			next_name = xstrdup(nn);
		object_release(&t);
	} else if (w.old.obj == NULL && !a->rollback) {
		next_name = find_partner(c, a->old_name);
	}
	if (!a->rollback && w.old.obj) {
		if (a->image) {
			if (proto_from_image(w.old.obj, a, &proto, hash,
					     old_value))
				goto out;
			a->old_value = old_value;
		} else if (proto_from_file(a, w.old.obj, &proto, &desired)) {
			goto out;
		}
		have_proto = true;
		if (next_name == NULL)
			next_name =
			    xstrdup(a->image ? "" : proto.metadata.name);
		if (a->image && !*next_name) {
			free(next_name);
			next_name = xmalloc(strlen(a->old_name) + 20);
			sprintf(next_name, "%s-%s", a->old_name, hash);
		}
		if (a->file && a->new_name &&
		    strcmp(a->new_name, proto.metadata.name)) {
			cli_error("the name in %s (%s) is not NEW (%s)",
				  a->file, proto.metadata.name, a->new_name);
			goto out;
		}
		if (!strcmp(next_name, a->old_name)) {
			cli_error("%s cannot have the same name as the "
				  "existing ReplicationController %s",
				  a->file ? a->file : next_name, a->old_name);
			goto out;
		}
	}
	if (next_name == NULL) {
		if (a->rollback && w.old.obj == NULL)
			cli_error("replicationcontrollers \"%s\" not found",
				  a->old_name);
		else if (a->rollback)
			cli_error("no update of %s is in progress: nothing to "
				  "roll back; you may want to simply do a new "
				  "rollout with the old version",
				  a->old_name);
		else
			cli_error("replicationcontrollers \"%s\" not found",
				  a->old_name);
		goto out;
	}
	world_release(&w);
	if (a->image && !a->rollback && !a->key_given)
		key_in_progress(c, a, next_name, hash, sizeof(hash));
	if (a->rollback) {
		in.old_name = next_name;
		in.next_name = a->old_name;
	} else {
		in.old_name = a->old_name;
		in.next_name = next_name;
	}
	in.rename = !a->rollback && a->image && !a->new_name;
	in.rollback = a->rollback;
	in.proto = have_proto ? &proto : NULL;
	in.label_key = a->image && !a->rollback ? a->key : NULL;
	in.label_value = hash[0] ? hash : NULL;
	in.old_label_value = old_value;
	in.desired = desired;
	if (a->dry_run) {
		struct strbuf sb = STRBUF_INIT;

		if (read_world(c, a, next_name, &w))
			goto out;
		fill_in(&in, a, &w);
		r = plan_rcu_preview(&in, &sb);
		if (r) {
			/* the steps on stdout, the error (last line) on
			 * stderr */
			char *last;

			sb.buf[sb.len - 1] = '\0';
			last = strrchr(sb.buf, '\n');
			if (last)
				*last = '\0';
			if (last)
				printf("%s\n", sb.buf);
			fprintf(stderr, "%s\n", last ? last + 1 : sb.buf);
		} else {
			fputs(sb.buf, stdout);
		}
		strbuf_release(&sb);
		world_release(&w);
		rc = r ? RU_ERROR : RU_OK;
		goto out;
	}
	for (;;) {
		struct plan_rcu_step s;

		if (read_world(c, a, next_name, &w))
			goto out;
		fill_in(&in, a, &w);
		in.acted = acted;
		if (in.label_value == NULL && in.next && in.label_key &&
		    strmap_get(&in.next->spec.selector, in.label_key)) {
			/* OLD gone mid-rename: NEXT's own value (copied:
			 * the object goes at the end of the iteration) */
			snprintf(
			    hash, sizeof(hash), "%s",
			    strmap_get(&in.next->spec.selector, in.label_key));
			in.label_value = hash;
		}
		plan_rcu(&in, &s);
		if (first && plan_rcu_resumes(&in, &s))
			printf("Continuing update with existing controller "
			       "%s.\n",
			       in.next->metadata.name);
		first = false;
		if (s.summary[0] && !summarized) {
			printf("%s\n", s.summary);
			summarized = true;
		}
		if (s.op == RCU_ERROR) {
			cli_error("%s", s.message);
			plan_rcu_step_release(&s);
			world_release(&w);
			goto out;
		}
		if (s.op == RCU_DONE) {
			if (!acted)
				printf("%s\n", s.message);
			plan_rcu_step_release(&s);
			world_release(&w);
			if (!acted) {
				rc = RU_OK;
				goto out;
			}
			break;
		}
		if (s.op == RCU_WAIT) {
			bool late =
			    clock_mono_ms() - last_progress > a->timeout_ms;

			if (late)
				cli_error("timed out waiting for any update "
					  "progress to be made (%s)",
					  s.message);
			plan_rcu_step_release(&s);
			world_release(&w);
			if (late) {
				rc = RU_TIMEOUT;
				goto out;
			}
			fflush(stdout);
			sleep_ms(a->poll_ms);
			continue;
		}
		r = apply_step(c, &s);
		if (r == 0) {
			printf("%s\n", s.message);
			acted = true;
			last_progress = clock_mono_ms();
			crash_hook(s.name);
		}
		if (r == 0 && s.op == RCU_SCALE) {
			fflush(stdout);
			sleep_ms(a->period_ms);
		}
		plan_rcu_step_release(&s);
		world_release(&w);
		if (r > 0)
			goto out;
	}
	if (a->rollback || a->new_name)
		printf("replicationcontroller \"%s\" rolling updated to "
		       "\"%s\"\n",
		       in.old_name, in.next_name);
	else
		printf("replicationcontroller \"%s\" rolling updated\n",
		       a->old_name);
	rc = RU_OK;
out:
	if (have_proto)
		rc_release(&proto);
	free(next_name);
	return rc;
}

static int
duration_flag(const char *name, const char *v, int64_t *out)
{
	int64_t ms = cli_parse_duration(v);

	if (ms < 0) {
		fprintf(stderr,
			"error: invalid argument \"%s\" for \"--%s\" "
			"flag: time: invalid duration \"%s\"\n",
			v, name, v);
		return RU_USAGE;
	}
	*out = ms;
	return 0;
}

/* Parses the verb's flags into *a; 0, or the exit status to return
 * (RU_OK after --help). */
static int
parse_args(int argc, char **argv, struct ru_args *a, bool *done)
{
	static const struct option opts[] = {
	    {"image", required_argument, NULL, 'i'},
	    {"container", required_argument, NULL, 'c'},
	    {"filename", required_argument, NULL, 'f'},
	    {"update-period", required_argument, NULL, 'u'},
	    {"poll-interval", required_argument, NULL, 'p'},
	    {"timeout", required_argument, NULL, 't'},
	    {"deployment-label-key", required_argument, NULL, 'k'},
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"rollback", no_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int ch, rc;

	*done = false;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "hf:", opts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			a->image = optarg;
			break;
		case 'c':
			a->container = optarg;
			break;
		case 'f':
			a->file = optarg;
			break;
		case 'u':
			if ((rc = duration_flag("update-period", optarg,
						&a->period_ms)))
				return rc;
			break;
		case 'p':
			if ((rc = duration_flag("poll-interval", optarg,
						&a->poll_ms)))
				return rc;
			break;
		case 't':
			if ((rc = duration_flag("timeout", optarg,
						&a->timeout_ms)))
				return rc;
			break;
		case 'k':
			a->key = optarg;
			a->key_given = true;
			break;
		case 'D':
			if (optarg && strcmp(optarg, "client") &&
			    strcmp(optarg, "true")) {
				fprintf(stderr, "error: --dry-run takes no "
						"value here (it prints the "
						"steps)\n");
				return RU_USAGE;
			}
			a->dry_run = true;
			break;
		case 'r':
			a->rollback = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			*done = true;
			return RU_OK;
		default:
			fputs(usage_text, stderr);
			return RU_USAGE;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		fprintf(stderr, "error: Must specify the controller to update "
				"(OLD [NEW])\n");
		fputs(usage_text, stderr);
		return RU_USAGE;
	}
	a->old_name = argv[optind];
	a->new_name = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (a->image && a->file) {
		fprintf(stderr, "error: --image and --filename cannot both be "
				"given\n");
		return RU_USAGE;
	}
	if (!a->image && !a->file && !a->rollback) {
		fprintf(stderr, "error: Must specify --filename or --image\n");
		fputs(usage_text, stderr);
		return RU_USAGE;
	}
	if (a->image && *a->key == '\0') {
		fprintf(stderr, "error: --deployment-label-key cannot be "
				"empty with --image\n");
		return RU_USAGE;
	}
	if (a->container && !a->image) {
		fprintf(stderr, "error: --container is only valid with "
				"--image\n");
		return RU_USAGE;
	}
	return RU_OK;
}

static int
rolling_update_run(int argc, char **argv)
{
	struct ru_args a = {.key = RCU_LABEL_KEY_DEF,
			    .period_ms = 60000,
			    .poll_ms = 3000,
			    .timeout_ms = 300000};
	struct client *c;
	bool done;
	int rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	if ((rc = parse_args(argc, argv, &a, &done)) || done)
		return rc;
	c = cli_client();
	rc = run_update(c, &a);
	c->ops->free(c);
	return rc;
}

/* The objects of a STATE file as a fake API (client_fake.h): each one
 * answers its GET, and the pod and ReplicationController lists of the
 * namespace list them. Takes nothing from objs. */
static struct client *
state_client(const struct object_list *objs)
{
	struct client *c = client_fake_new(NULL);
	json_t *pods = json_array(), *rcs = json_array(), *list;
	char path[1024];
	size_t i;

	for (i = 0; i < objs->n; i++) {
		struct object_meta *m = object_meta(&objs->v[i]);
		json_t *j;

		if (m->namespace == NULL)
			m->namespace = xstrdup(cli_g.ns);
		if (strcmp(m->namespace, cli_g.ns) || m->name == NULL)
			continue;
		j = object_encode(&objs->v[i]);
		kube_path(path, sizeof(path), objs->v[i].k->id, m->namespace,
			  m->name, NULL);
		client_fake_answer(c, "GET", path, 200, j);
		if (objs->v[i].k->id == KIND_POD)
			json_array_append(pods, j);
		else if (objs->v[i].k->id == KIND_REPLICATION_CONTROLLER)
			json_array_append(rcs, j);
		json_decref(j);
	}
	kube_path(path, sizeof(path), KIND_POD, cli_g.ns, NULL, NULL);
	list = json_pack("{so}", "items", pods);
	client_fake_answer(c, "GET", path, 200, list);
	json_decref(list);
	kube_path(path, sizeof(path), KIND_REPLICATION_CONTROLLER, cli_g.ns,
		  NULL, NULL);
	list = json_pack("{so}", "items", rcs);
	client_fake_answer(c, "GET", path, 200, list);
	json_decref(list);
	return c;
}

int
rolling_update_plan(const char *state, int argc, char **argv)
{
	struct ru_args a = {.key = RCU_LABEL_KEY_DEF,
			    .period_ms = 60000,
			    .poll_ms = 3000,
			    .timeout_ms = 300000};
	struct object_list objs = {0};
	struct manifest_errors errs = {0};
	struct client *c;
	char *buf;
	size_t len;
	bool done;
	int rc;

	if ((rc = cli_globals_parse(&argc, argv)) ||
	    (rc = parse_args(argc, argv, &a, &done)) || done)
		return rc;
	a.dry_run = true;
	if ((rc = fsx_read_all(state, &buf, &len)) < 0)
		return cli_error("the path \"%s\" cannot be read: %s", state,
				 strerror(-rc));
	if (manifest_load(buf, len, true, &objs, &errs)) {
		struct strbuf sb = STRBUF_INIT;

		manifest_errors_format(&errs, &sb);
		fputs(sb.buf, stderr);
		strbuf_release(&sb);
		manifest_errors_release(&errs);
		free(buf);
		return RU_ERROR;
	}
	free(buf);
	c = state_client(&objs);
	rc = run_update(c, &a);
	c->ops->free(c);
	object_list_release(&objs);
	return rc;
}

const struct cmd_entry cmd_rolling_update_entry = {
    "rolling-update", usage_text,
    "roll a replication controller to a new one (kubectl's legacy flow)",
    rolling_update_run};
