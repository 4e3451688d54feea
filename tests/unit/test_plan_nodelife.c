/* test_plan_nodelife.c - the node lifecycle and taint eviction pass
 * (plan_nodelife), case by case: a few nodes (their Ready condition, when
 * their heartbeat and Lease last moved, their taints, what the previous
 * pass saw), the pods on them (tolerations, readiness, age) and the
 * zone's limiter, and the writes rendered as text:
 *
 *   "b:S(Unknown/NodeStatusUnknown){U/NS*}! p1:nr r=40001"
 *
 * is node b's status written with Ready Unknown (reason), its taints
 * written as {unreachable:NoSchedule added now}, a NodeNotReady event on
 * it; pod p1's Ready set False; look again in 40001 ms. Taint keys: U
 * unreachable, NR not-ready, X unschedulable; effects NE NoExecute, NS
 * NoSchedule; '*' a timeAdded of now. Pod ops: nr (Ready False), ev
 * (deleted by the taint manager), cancel. "entered"/"exited": full
 * disruption mode. Times are seconds before now (T0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "plan_nodelife.h"
#include "pod_status.h"
#include "strbuf.h"
#include "xalloc.h"

/* The tables leave trailing fields out (zero). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NOW    T0
#define AGO(s) (NOW - (dtime)(s)*1000)

struct tnode {
	const char *name;
	const char *ready;  /* "True", "False", "Unknown"; NULL: none */
	int64_t beat_s;     /* lastHeartbeatTime, seconds ago */
	int64_t lease_s;    /* the Lease's renewTime; -1: no Lease */
	const char *taints; /* "U/NE@100,U/NS@5" (@: timeAdded s ago) */
	/* The previous pass: -1 the node is new to it; else its probe
	 * (and Ready transition) that long ago */
	int64_t probe_s;
	bool moved; /* the heartbeat or Lease moved since */
	bool cordoned;
	const char *zone;
	int64_t created_s; /* 0: 1000 s ago */
};

struct tpod {
	const char *name, *node;
	const char *tol; /* "U:300,NR" (no seconds: forever), "*" all */
	bool ready;
	bool deleting;
	int64_t age_s; /* 0: 1000 s */
};

struct tcase {
	const char *what;
	struct tnode nodes[6];
	struct tpod pods[6];
	/* the zone "" as saved: none (a new zone), or its state, rate and
	 * next token (seconds from now) */
	bool zone_saved;
	enum nodelife_zone_state zstate;
	double zqps;
	int64_t ztoken_s;
	int64_t large_cluster; /* 0: the default */
	const char *want;
};

static const struct tcase cases[] = {
    {"a healthy node: nothing to write; look again when its grace ends",
     {{"a", "True", 5, 5, "", 5, false}},
     {{"p1", "a", "", true}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "r=35001"},
    {"a Lease renewal keeps a node whose Ready was posted 5 minutes ago",
     {{"a", "True", 300, 2, "", 30, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "r=40001"},
    {"grace passed: Ready Unknown, NodeNotReady, its pods not ready, the "
     "NoSchedule taint now; the NoExecute taint waits for the next pass "
     "(it is decided on the status as read)",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "True", 41, 41, "", 41, false},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p1", "b", "", true}, {"p2", "b", "", false}, {"p3", "a", "", true}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "b:S(Unknown/NodeStatusUnknown){U/NS*}! p1:nr r=40001"},
    {"next pass: unreachable:NoExecute; a pod that does not tolerate it "
     "goes now, one tolerating it 300 s waits, one tolerating it forever "
     "stays",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 45, 45, "U/NS@4", 45, false},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p1", "b", ""}, {"p2", "b", "U:300"}, {"p3", "b", "U"}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "b:{U/NS,U/NE*} p1:ev r=40001"},
    {"the toleration runs from the taint's timeAdded, or from the pod's "
     "creation when it came later; a pod being deleted is left alone",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 400, 400, "U/NS@301,U/NE@301", 400, false},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p2", "b", "U:300"},
      {"p4", "b", "U:300", false, false, 100},
      {"p5", "b", "", false, true}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "p2:ev r=40001"},
    {"the newest pod's deadline is the next look",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 400, 400, "U/NS@250,U/NE@250", 400, false},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p4", "b", "U:300"}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "r=40001"},
    {"a short toleration's deadline comes first",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 400, 400, "U/NS@250,U/NE@250", 400, false},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p4", "b", "U:260"}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "r=10000"},
    {"Ready again: both NoExecute taints off at once, not rate limited, "
     "and the deletions waiting on a toleration cancelled",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "True", 0, 0, "U/NE@10,U/NS@10", 60, true},
      {"c", "True", 0, 0, "", 0, true}},
     {{"p1", "b", "U:300"}, {"p2", "b", "U"}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     100,
     0,
     "b:{} p1:cancel r=40001"},
    {"an unreachable node that reports NotReady has its taint swapped at "
     "once, whatever the limiter",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "False", 0, 0, "U/NE@50,U/NS@50", 60, true},
      {"c", "True", 0, 0, "", 0, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     100,
     0,
     "b:{NR/NE*,NR/NS*} r=40001"},
    {"rate: two nodes lost together, the one lost first is tainted now, "
     "the other when the next token comes (0.1/s: 10 s)",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 45, false},
      {"d", "True", 0, 0, "", 0, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "b:{U/NS,U/NE*} r=10000"},
    {"full disruption: every node not Ready, so the controller's NoExecute "
     "taints come off and nothing is deleted",
     {{"a", "Unknown", 90, 90, "U/NS@5,U/NE@5", 50, false},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 50, false}},
     {{"p1", "a", ""}, {"p2", "b", ""}, {"p3", "a", "U:300"}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "a:{U/NS} p3:cancel entered r=-1"},
    {"full disruption goes on: no taint, no deletion, nothing to wait for",
     {{"a", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 50, false}},
     {{"p1", "a", ""}, {"p2", "b", ""}},
     true,
     NODELIFE_ZONE_FULL_DISRUPTION,
     0,
     0,
     0,
     "r=-1"},
    {"one node back: full disruption ends, every probe starts again and "
     "the rate starts with an empty bucket",
     {{"a", "True", 0, 0, "", 90, true},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 50, false}},
     {{0}},
     true,
     NODELIFE_ZONE_FULL_DISRUPTION,
     0,
     0,
     0,
     "exited r=10000"},
    {"a node that never posted Ready: the startup grace (60 s) from its "
     "creation, then Ready Unknown (never updated), no event, and "
     "tainted in the same pass (Unknown as read: the fake condition)",
     {{"a", "True", 0, 0, "", 0, true},
      {"n", NULL, 0, -1, "", -1, false, false, NULL, 61}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "n:S(Unknown/NodeStatusNeverUpdated){U/NE*,U/NS*} r=40001"},
    {"partial disruption (3 of 5 not Ready) in a small zone: no taint",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"d", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"e", "True", 0, 0, "", 0, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "r=40001"},
    {"partial disruption in a zone larger than --large-cluster-size-"
     "threshold: the secondary rate (0.01/s: one node, then 100 s)",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false},
      {"c", "Unknown", 90, 90, "U/NS@5", 49, false},
      {"d", "Unknown", 90, 90, "U/NS@5", 48, false},
      {"e", "True", 0, 0, "", 0, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     2,
     "b:{U/NS,U/NE*} r=40001"},
    {"a cordoned node gets node.kubernetes.io/unschedulable:NoSchedule",
     {{"a", "True", 0, 0, "", 0, true, true}},
     {{0}},
     true,
     NODELIFE_ZONE_NORMAL,
     0.1,
     0,
     0,
     "a:{X/NS*} r=40001"},
    {"a node new to the controller (a restart) loses its NoExecute taint "
     "and, still unreachable, gets it again from now",
     {{"a", "True", 0, 0, "", 0, true},
      {"b", "Unknown", 400, 400, "U/NE@100,U/NS@100", -1, false}},
     {{"p1", "b", "U:300"}},
     false,
     0,
     0,
     0,
     0,
     "b:{U/NS,U/NE*} p1:cancel r=40001"},
    {"zones: each has its own limiter, and a zone whose nodes are all "
     "lost is not a full disruption while another zone is Ready",
     {{"a", "True", 0, 0, "", 0, true, false, "z1"},
      {"b", "Unknown", 90, 90, "U/NS@5", 50, false, false, "z2"},
      {"c", "Unknown", 90, 90, "U/NS@5", 50, false, false, "z3"}},
     {{"p1", "b", ""}},
     false,
     0,
     0,
     0,
     0,
     "b:{U/NS,U/NE*} c:{U/NS,U/NE*} p1:ev r=40001"},
};

static const char *
key_of(const char *abbr)
{
	if (!strcmp(abbr, "U"))
		return TAINT_NODE_UNREACHABLE;
	if (!strcmp(abbr, "NR"))
		return TAINT_NODE_NOT_READY;
	if (!strcmp(abbr, "X"))
		return TAINT_NODE_UNSCHEDULABLE;
	return abbr;
}

static const char *
abbr_of(const char *key)
{
	if (!strcmp(key, TAINT_NODE_UNREACHABLE))
		return "U";
	if (!strcmp(key, TAINT_NODE_NOT_READY))
		return "NR";
	if (!strcmp(key, TAINT_NODE_UNSCHEDULABLE))
		return "X";
	return key;
}

/* "U/NE@100,U/NS" into n's taints. */
static void
parse_taints(struct node *n, const char *spec)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct taint *t =
		    anylist_push((struct anylist *)&n->spec.taints, sizeof(*t));
		char *slash = strchr(tok, '/'), *at = strchr(tok, '@');

		if (at) {
			*at = '\0';
			t->time_added = AGO(atoll(at + 1));
		}
		*slash = '\0';
		t->key = xstrdup(key_of(tok));
		t->effect = xstrdup(!strcmp(slash + 1, "NE") ? "NoExecute"
							     : "NoSchedule");
	}
}

/* "U:300,NR" or "*" into p's tolerations. */
static void
parse_tolerations(struct pod *p, const char *spec)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct toleration *t = anylist_push(
		    (struct anylist *)&p->spec.tolerations, sizeof(*t));
		char *colon = strchr(tok, ':');

		t->operator= xstrdup("Exists");
		if (!strcmp(tok, "*"))
			continue;
		if (colon) {
			*colon = '\0';
			t->toleration_seconds = (struct opt_int){
			    .set = true, .v = atoll(colon + 1)};
		}
		t->key = xstrdup(key_of(tok));
		t->effect = xstrdup("NoExecute");
	}
}

static void
render(const struct nodelife_plan *out, struct strbuf *sb)
{
	size_t i, j;

	for (i = 0; i < out->nnodes; i++) {
		const struct nodelife_node_write *w = &out->nodes[i];

		strbuf_addf(sb, "%s%s:", sb->len ? " " : "",
			    w->node.metadata.name);
		if (w->status) {
			const struct condition *c =
			    condition_get(&w->node.status.conditions, "Ready");

			strbuf_addf(sb, "S(%s/%s)", c->status, c->reason);
		}
		if (w->taints) {
			strbuf_addch(sb, '{');
			for (j = 0; j < w->node.spec.taints.n; j++) {
				const struct taint *t =
				    &w->node.spec.taints.v[j];

				strbuf_addf(sb, "%s%s/%s%s", j ? "," : "",
					    abbr_of(t->key),
					    !strcmp(t->effect, "NoExecute")
						? "NE"
						: "NS",
					    t->time_added == NOW ? "*" : "");
			}
			strbuf_addch(sb, '}');
		}
		if (w->not_ready)
			strbuf_addch(sb, '!');
	}
	for (i = 0; i < out->npods; i++) {
		static const char *const ops[] = {"nr", "ev", "cancel"};

		strbuf_addf(sb, "%s%s:%s", sb->len ? " " : "",
			    out->pods[i].pod->metadata.name,
			    ops[out->pods[i].op]);
	}
	if (out->disruption == NODELIFE_DISRUPTION_ENTERED)
		strbuf_addf(sb, "%sentered", sb->len ? " " : "");
	if (out->disruption == NODELIFE_DISRUPTION_EXITED)
		strbuf_addf(sb, "%sexited", sb->len ? " " : "");
	strbuf_addf(sb, "%sr=%lld", sb->len ? " " : "",
		    (long long)out->recheck_ms);
}

/* The world of a case, its pass, and the rendering. */
struct built {
	struct node *nodes[6];
	struct lease *leases[6];
	struct pod *pods[6];
	size_t nn, nl, np;
	struct nodelife_state st;
	struct nodelife_config cfg;
	struct nodelife_world w;
};

static void
build(const struct tcase *tc, struct built *b)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	nodelife_config_default(&b->cfg);
	if (tc->large_cluster)
		b->cfg.large_cluster = tc->large_cluster;
	b->st.nodes = xcalloc(7, sizeof(*b->st.nodes));
	for (i = 0; i < 6 && tc->nodes[i].name; i++) {
		const struct tnode *tn = &tc->nodes[i];
		struct node *n = xcalloc(1, sizeof(*n));

		n->metadata.name = xstrdup(tn->name);
		n->metadata.creation_timestamp =
		    AGO(tn->created_s ? tn->created_s : 1000);
		n->spec.unschedulable = tn->cordoned;
		if (tn->zone)
			strmap_set(&n->metadata.labels,
				   "topology.kubernetes.io/zone", tn->zone);
		if (tn->ready) {
			struct condition c = {
			    .type = "Ready",
			    .status = (char *)tn->ready,
			    .reason = "AgentReady",
			    .last_heartbeat_time = AGO(tn->beat_s),
			    .last_transition_time = AGO(2000),
			};

			condition_append(&n->status.conditions, &c);
		}
		parse_taints(n, tn->taints);
		b->nodes[b->nn++] = n;
		if (tn->lease_s >= 0) {
			struct lease *l = xcalloc(1, sizeof(*l));

			l->metadata.name = xstrdup(tn->name);
			l->metadata.namespace = xstrdup(NODE_LEASE_NAMESPACE);
			l->spec.renew_time = AGO(tn->lease_s);
			b->leases[b->nl++] = l;
		}
		if (tn->probe_s >= 0) {
			struct nodelife_health *h =
			    &b->st.nodes[b->st.nnodes++];

			h->name = xstrdup(tn->name);
			h->probe = AGO(tn->probe_s);
			h->ready_transition = AGO(tn->probe_s);
			h->ready_seen = tn->ready != NULL;
			h->heartbeat = AGO(tn->beat_s) - (tn->moved ? 1000 : 0);
			h->transition = AGO(2000);
			h->lease_renew =
			    tn->lease_s < 0
				? 0
				: AGO(tn->lease_s) - (tn->moved ? 1000 : 0);
		}
	}
	if (tc->zone_saved) {
		b->st.zones = xcalloc(1, sizeof(*b->st.zones));
		b->st.nzones = 1;
		b->st.zones[0].key = xstrdup("");
		b->st.zones[0].state = tc->zstate;
		b->st.zones[0].qps = tc->zqps;
		b->st.zones[0].next_token = NOW + tc->ztoken_s * 1000;
	}
	for (i = 0; i < 6 && tc->pods[i].name; i++) {
		const struct tpod *tp = &tc->pods[i];
		struct pod *p = xcalloc(1, sizeof(*p));
		struct condition c = {.type = "Ready",
				      .status = tp->ready ? "True" : "False"};

		p->metadata.name = xstrdup(tp->name);
		p->metadata.namespace = xstrdup("default");
		p->metadata.creation_timestamp =
		    AGO(tp->age_s ? tp->age_s : 1000);
		if (tp->deleting)
			p->metadata.deletion_timestamp = AGO(1);
		p->spec.node_name = xstrdup(tp->node);
		parse_tolerations(p, tp->tol);
		condition_append(&p->status.conditions, &c);
		b->pods[b->np++] = p;
	}
	b->w = (struct nodelife_world){
	    .nodes = b->nodes,
	    .nnodes = b->nn,
	    .leases = b->leases,
	    .nleases = b->nl,
	    .pods = b->pods,
	    .npods = b->np,
	    .cfg = &b->cfg,
	    .state = &b->st,
	    .now = NOW,
	};
}

static void
built_release(struct built *b)
{
	size_t i;

	for (i = 0; i < b->nn; i++) {
		schema_release(&schema_node, b->nodes[i]);
		free(b->nodes[i]);
	}
	for (i = 0; i < b->nl; i++) {
		lease_release(b->leases[i]);
		free(b->leases[i]);
	}
	for (i = 0; i < b->np; i++) {
		pod_release(b->pods[i]);
		free(b->pods[i]);
	}
	nodelife_state_release(&b->st);
}

static void
test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct built b;
		struct nodelife_plan out;
		struct strbuf sb = STRBUF_INIT;

		build(&cases[i], &b);
		plan_nodelife(&b.w, &out);
		render(&out, &sb);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("case \"%s\":\n  got  %s\n  want %s",
				 cases[i].what, sb.buf, cases[i].want);
		strbuf_release(&sb);
		plan_nodelife_release(&out);
		built_release(&b);
	}
}

/* The whole story of one node over passes, the state carried: b's agent
 * dies after its last renewal at t=0; Unknown at 40.001 s (the message
 * Kubernetes writes), tainted on the next pass, its pod (the default 300
 * s) deleted 300 s after the taint; the agent returns: Ready again. */
static void
test_story(void **state)
{
	const struct tcase tc = {"story",
				 {{"a", "True", 0, 0, "", 0, false},
				  {"b", "True", 0, 0, "", 0, false},
				  {"c", "True", 0, 0, "", 0, false}},
				 {{"p1", "b", "NR:300,U:300", true}},
				 true,
				 NODELIFE_ZONE_NORMAL,
				 0.1,
				 0,
				 0,
				 ""};
	struct built b;
	struct nodelife_plan out;
	struct nodelife_state st;
	struct strbuf sb = STRBUF_INIT;
	const struct condition *c;
	size_t i;

	(void)state;
	build(&tc, &b);
	/* 40 s later, a and c renewed just now, b not */
	b.w.now = NOW + 40001;
	for (i = 0; i < b.nl; i++)
		if (strcmp(b.leases[i]->metadata.name, "b"))
			b.leases[i]->spec.renew_time = NOW + 40000;
	plan_nodelife(&b.w, &out);
	render(&out, &sb);
	assert_string_equal(sb.buf, "b:S(Unknown/NodeStatusUnknown){U/NS}! "
				    "p1:nr r=40001");
	c = condition_get(&out.nodes[0].node.status.conditions, "Ready");
	assert_string_equal(c->message, "Kubelet stopped posting node status.");
	assert_int_equal(c->last_transition_time, NOW + 40001);
	assert_int_equal(c->last_heartbeat_time, NOW); /* kept */
	/* the write lands; the next pass 1 s later taints b */
	schema_release(&schema_node, b.nodes[1]);
	schema_copy(&schema_node, b.nodes[1], &out.nodes[0].node);
	pod_condition_set(&b.pods[0]->status.conditions, "Ready", false,
			  NOW + 40001);
	st = out.state;
	memset(&out.state, 0, sizeof(out.state));
	plan_nodelife_release(&out);
	nodelife_state_release(&b.st);
	b.st = st;
	b.w.now = NOW + 41001;
	plan_nodelife(&b.w, &out);
	strbuf_reset(&sb);
	render(&out, &sb);
	assert_string_equal(sb.buf, "b:{U/NS,U/NE} r=39001");
	assert_int_equal(out.nodes[0].node.spec.taints.v[1].time_added,
			 NOW + 41001);
	schema_release(&schema_node, b.nodes[1]);
	schema_copy(&schema_node, b.nodes[1], &out.nodes[0].node);
	st = out.state;
	memset(&out.state, 0, sizeof(out.state));
	plan_nodelife_release(&out);
	nodelife_state_release(&b.st);
	b.st = st;
	/* a and c keep renewing; at taint + 300 s the pod goes */
	b.w.now = NOW + 341001;
	for (i = 0; i < b.nl; i++)
		if (strcmp(b.leases[i]->metadata.name, "b"))
			b.leases[i]->spec.renew_time = NOW + 341000;
	plan_nodelife(&b.w, &out);
	strbuf_reset(&sb);
	render(&out, &sb);
	assert_string_equal(sb.buf, "p1:ev r=40001");
	plan_nodelife_release(&out);
	strbuf_release(&sb);
	built_release(&b);
}

static void
test_default_tolerations(void **state)
{
	static const struct {
		const char *tol; /* as parse_tolerations, plus "U/NS" */
		size_t want;     /* tolerations after */
		const char *added;
	} tc[] = {
	    {"", 2, "NR,U"},
	    {"*", 1, ""}, /* Exists, no key, no effect: tolerates all */
	    {"NR:10", 2, "U"},
	    {"U", 2, "NR"},
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(tc) / sizeof(tc[0]); i++) {
		struct pod p = {0};
		struct strbuf sb = STRBUF_INIT;
		size_t before;

		parse_tolerations(&p, tc[i].tol);
		before = p.spec.tolerations.n;
		pod_default_tolerations(&p.spec, 300, 300);
		assert_int_equal(p.spec.tolerations.n, tc[i].want);
		for (j = before; j < p.spec.tolerations.n; j++) {
			const struct toleration *t = &p.spec.tolerations.v[j];

			strbuf_addf(&sb, "%s%s", sb.len ? "," : "",
				    abbr_of(t->key));
			assert_string_equal(t->operator, "Exists");
			assert_string_equal(t->effect, "NoExecute");
			assert_true(t->toleration_seconds.set);
			assert_int_equal(t->toleration_seconds.v, 300);
		}
		assert_string_equal(sb.buf, tc[i].added);
		strbuf_release(&sb);
		pod_release(&p);
	}
	{
		/* a toleration of another effect does not count */
		struct pod p = {0};
		struct toleration *t = anylist_push(
		    (struct anylist *)&p.spec.tolerations, sizeof(*t));

		t->key = xstrdup(TAINT_NODE_UNREACHABLE);
		t->operator= xstrdup("Exists");
		t->effect = xstrdup("NoSchedule");
		pod_default_tolerations(&p.spec, 3, -1);
		assert_int_equal(p.spec.tolerations.n, 2); /* not-ready only */
		assert_int_equal(p.spec.tolerations.v[1].toleration_seconds.v,
				 3);
		pod_release(&p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_story),
	    cmocka_unit_test(test_default_tolerations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
