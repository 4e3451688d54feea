/* codec_manifest.c - manifest decoding, defaulting and validation: input
 * formats, what Kubernetes accepts, round trips, defaults, exact error
 * messages, and the corpus of invalid manifests in tests/invalid/. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "manifest.h"
#include "object.h"
#include "strbuf.h"

#define NELEM(a)   (sizeof(a) / sizeof((a)[0]))
#define MAX_EXPECT 6

/* A Deployment that is valid as it stands; "%s" receives extra lines of
 * its spec (two spaces of indentation). */
static const char deploy_fmt[] = "apiVersion: apps/v1\n"
				 "kind: Deployment\n"
				 "metadata:\n"
				 "  name: web\n"
				 "spec:\n"
				 "%s"
				 "  selector:\n"
				 "    matchLabels:\n"
				 "      app: web\n"
				 "  template:\n"
				 "    metadata:\n"
				 "      labels:\n"
				 "        app: web\n"
				 "    spec:\n"
				 "      containers:\n"
				 "      - name: app\n"
				 "        image: nginx:1.25\n";

static const char rs_yaml[] = "apiVersion: apps/v1\n"
			      "kind: ReplicaSet\n"
			      "metadata:\n"
			      "  name: web-5d4f\n"
			      "  namespace: shop\n"
			      "spec:\n"
			      "  replicas: 2\n"
			      "  selector:\n"
			      "    matchLabels:\n"
			      "      app: web\n"
			      "  template:\n"
			      "    metadata:\n"
			      "      labels:\n"
			      "        app: web\n"
			      "    spec:\n"
			      "      containers:\n"
			      "      - name: app\n"
			      "        image: nginx:1.25\n";

static const char pod_yaml[] = "apiVersion: v1\n"
			       "kind: Pod\n"
			       "metadata:\n"
			       "  name: web-1\n"
			       "spec:\n"
			       "  containers:\n"
			       "  - name: app\n"
			       "    image: nginx\n";

/* The result of one manifest_load, with its errors formatted. */
struct loaded {
	int rc;
	struct object_list objs;
	struct manifest_errors errs;
	struct strbuf text;
};

static void
load(const char *buf, bool prepare, struct loaded *l)
{
	memset(l, 0, sizeof(*l));
	strbuf_init(&l->text);
	l->rc = manifest_load(buf, strlen(buf), prepare, &l->objs, &l->errs);
	manifest_errors_format(&l->errs, &l->text);
}

static void
loaded_release(struct loaded *l)
{
	object_list_release(&l->objs);
	manifest_errors_release(&l->errs);
	strbuf_release(&l->text);
}

/* Builds a Deployment from deploy_fmt, or returns `full` when set. */
static char *
manifest_text(const char *full, const char *spec_extra)
{
	struct strbuf sb = STRBUF_INIT;

	if (full)
		strbuf_addstr(&sb, full);
	else
		strbuf_addf(&sb, deploy_fmt, spec_extra ? spec_extra : "");
	return strbuf_detach(&sb);
}

/* True if `line` is one whole line of the formatted errors. */
static bool
has_error_line(const char *text, const char *line)
{
	struct strbuf want = STRBUF_INIT;
	bool r;

	strbuf_addf(&want, "* %s\n", line);
	r = strstr(text, want.buf) != NULL;
	strbuf_release(&want);
	return r;
}

/* ---- input formats ---- */

struct format_case {
	const char *name;
	const char *text;
	size_t n;
	const char *kinds[3];
};

static const struct format_case format_cases[] = {
    {"yaml single", pod_yaml, 1, {"Pod"}},
    {"yaml two documents",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
     "spec: {containers: [{name: c, image: x}]}\n"
     "---\n"
     "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: b}\n"
     "spec:\n  selector: {matchLabels: {app: b}}\n"
     "  template:\n    metadata: {labels: {app: b}}\n"
     "    spec: {containers: [{name: c, image: x}]}\n",
     2,
     {"Pod", "ReplicaSet"}},
    {"yaml leading separator, empty and comment-only documents",
     "---\n---\n# nothing here\n---\n"
     "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
     "spec: {containers: [{name: c, image: x}]}\n...\n",
     1,
     {"Pod"}},
    {"yaml List",
     "apiVersion: v1\nkind: List\nitems:\n"
     "- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n"
     "  spec: {containers: [{name: c, image: x}]}\n"
     "- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n"
     "  spec: {containers: [{name: c, image: x}]}\n",
     2,
     {"Pod", "Pod"}},
    {"json object",
     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"},"
     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}",
     1,
     {"Pod"}},
    {"json List",
     "  {\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":["
     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"},"
     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}},"
     "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
     "\"metadata\":{\"name\":\"d\"},\"spec\":{"
     "\"selector\":{\"matchLabels\":{\"app\":\"d\"}},"
     "\"template\":{\"metadata\":{\"labels\":{\"app\":\"d\"}},"
     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}}}"
     "]}\n",
     2,
     {"Pod", "Deployment"}},
    {"json array of objects",
     "[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"},"
     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}]",
     1,
     {"Pod"}},
    {"yaml flow style that is not json",
     "{apiVersion: v1, kind: Pod, metadata: {name: a},"
     " spec: {containers: [{name: c, image: x}]}}\n",
     1,
     {"Pod"}},
};

static void
test_formats(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < NELEM(format_cases); i++) {
		const struct format_case *c = &format_cases[i];
		struct loaded l;

		load(c->text, true, &l);
		if (l.rc != 0 || l.objs.n != c->n)
			fail_msg("%s: rc %d, %zu objects (want %zu)\n%s",
				 c->name, l.rc, l.objs.n, c->n, l.text.buf);
		for (j = 0; j < c->n; j++)
			if (strcmp(l.objs.v[j].k->kind, c->kinds[j]))
				fail_msg("%s: object %zu is a %s, want %s",
					 c->name, j, l.objs.v[j].k->kind,
					 c->kinds[j]);
		loaded_release(&l);
	}
}

/* Every failing document is reported, each under its own heading. */
static void
test_errors_per_document(void **state)
{
	static const char text[] =
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
	    "spec: {containers: []}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\n"
	    "spec: {containers: [{name: c, image: x}]}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\n"
	    "spec: {containers: [{name: c, image: x}]}\n";
	struct loaded l;

	(void)state;
	load(text, true, &l);
	assert_int_equal(l.rc, -1);
	assert_int_equal(l.objs.n, 0);
	assert_int_equal(l.errs.n, 2);
	assert_string_equal(l.errs.v[0].what, "Pod \"a\"");
	assert_string_equal(l.errs.v[1].what, "Pod in document 3");
	assert_non_null(strstr(l.text.buf,
			       "The Pod \"a\" is invalid:\n"
			       "* spec.containers: Required value\n"));
	assert_true(has_error_line(
	    l.text.buf,
	    "metadata.name: Required value: name or generateName is "
	    "required"));
	loaded_release(&l);

	load("kind: Pod\napiVersion: v1\nmetadata: {name: [\n", true, &l);
	assert_int_equal(l.rc, -1);
	assert_non_null(l.errs.syntax);
	assert_non_null(strstr(l.text.buf, "error: line "));
	loaded_release(&l);
}

/* ---- what Kubernetes accepts ---- */

struct accept_case {
	const char *name;
	const char *full;       /* whole manifest, or NULL for deploy_fmt */
	const char *spec_extra; /* extra Deployment spec lines */
};

static const struct accept_case accept_cases[] = {
    {"plain deployment", NULL, NULL},
    {"creationTimestamp null",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
     "  creationTimestamp: null\nspec:\n"
     "  selector: {matchLabels: {app: web}}\n  template:\n"
     "    metadata: {creationTimestamp: null, labels: {app: web}}\n"
     "    spec: {containers: [{name: app, image: nginx, resources: {}}]}\n"
     "status: {}\n",
     NULL},
    {"maxSurge integer", NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 1\n"},
    {"maxSurge and maxUnavailable integers", NULL,
     "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
     "      maxSurge: 2\n      maxUnavailable: 1\n"},
    {"percent strings", NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 30%\n"
     "      maxUnavailable: \"10%\"\n"},
    {"maxSurge above 100%", NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 200%\n"},
    {"maxUnavailable exactly 100%", NULL,
     "  strategy:\n    rollingUpdate:\n      maxUnavailable: 100%\n"},
    {"1% of 1 replica with maxSurge 0", NULL,
     "  replicas: 1\n  strategy:\n    rollingUpdate:\n"
     "      maxSurge: 0\n      maxUnavailable: 1%\n"},
    {"maxUnavailable 0 with maxSurge 1", NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 1\n"
     "      maxUnavailable: 0\n"},
    {"Recreate without rollingUpdate", NULL,
     "  strategy:\n    type: Recreate\n"},
    {"int32 fields at their largest", NULL,
     "  replicas: 2147483647\n  revisionHistoryLimit: 2147483647\n"
     "  minReadySeconds: 2147483646\n  progressDeadlineSeconds: 2147483647\n"
     "  strategy:\n    rollingUpdate:\n      maxSurge: 2147483647\n"},
    {"int64 fields beyond int32",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
     "spec:\n  terminationGracePeriodSeconds: 9223372036854775807\n"
     "  activeDeadlineSeconds: 2147483647\n"
     "  containers: [{name: app, image: nginx}]\n",
     NULL},
    {"downward API env paths",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers:\n  - name: app\n    image: nginx\n    env:\n"
     "    - {name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}\n"
     "    - {name: B, valueFrom: {fieldRef: {fieldPath: "
     "\"metadata.labels['app']\"}}}\n"
     "    - {name: C, valueFrom: {fieldRef: {fieldPath: "
     "\"metadata.annotations['example.com/Team']\"}}}\n"
     "    - {name: D, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: "
     "status.podIPs}}}\n"
     "    - {name: E, valueFrom: {fieldRef: {fieldPath: spec.host}}}\n"
     "    - {name: F, valueFrom: {fieldRef: {fieldPath: "
     "spec.serviceAccountName}}}\n",
     NULL},
    {"zero replicas, paused, limits", NULL,
     "  replicas: 0\n  paused: true\n  minReadySeconds: 10\n"
     "  revisionHistoryLimit: 0\n  progressDeadlineSeconds: 11\n"},
    {"replicas as a whole float", NULL, "  replicas: 3.0\n"},
    {"matchExpressions selector",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector:\n    matchExpressions:\n"
     "    - {key: app, operator: In, values: [web, api]}\n"
     "    - {key: canary, operator: DoesNotExist}\n"
     "  template:\n    metadata: {labels: {app: web, tier: fe}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL},
    {"annotation keys are case-insensitive",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
     "    Example.COM/Owner: team\n    kubernetes.io/change-cause: x\n"
     "spec: {containers: [{name: app, image: nginx}]}\n",
     NULL},
    {"prefixed label keys and empty values",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n"
     "    app.kubernetes.io/name: web\n    empty: \"\"\n    a_b.c-d: X_y.z\n"
     "spec: {containers: [{name: app, image: nginx}]}\n",
     NULL},
    {"pod with probes, ports, env and tolerations",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns-1}\n"
     "spec:\n  restartPolicy: OnFailure\n  activeDeadlineSeconds: 30\n"
     "  tolerations:\n  - {operator: Exists}\n"
     "  - {key: k, value: v, effect: NoExecute, tolerationSeconds: 5}\n"
     "  containers:\n  - name: app\n    image: nginx\n"
     "    ports: [{name: http, containerPort: 80}, {containerPort: 81,"
     " protocol: UDP}]\n"
     "    env:\n    - {name: A_B, value: x}\n"
     "    - name: NODE\n      valueFrom: {fieldRef: {fieldPath: "
     "spec.nodeName}}\n"
     "    livenessProbe: {httpGet: {path: /, port: http}}\n"
     "    readinessProbe: {tcpSocket: {port: 80}, successThreshold: 3}\n"
     "    startupProbe: {exec: {command: [\"true\"]}}\n",
     NULL},
    {"replicaset", rs_yaml, NULL},
    {"yaml anchors and merge keys",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
     "  labels: &l {app: web}\n  annotations: *l\n"
     "spec:\n  containers:\n  - &c {name: a, image: nginx}\n"
     "  - <<: *c\n    name: b\n",
     NULL},
};

static void
test_accept(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(accept_cases); i++) {
		const struct accept_case *c = &accept_cases[i];
		char *text = manifest_text(c->full, c->spec_extra);
		struct loaded l;

		load(text, true, &l);
		if (l.rc != 0 || l.objs.n != 1)
			fail_msg("%s: refused (rc %d)\n%s", c->name, l.rc,
				 l.text.buf);
		loaded_release(&l);
		free(text);
	}
}

/* ---- RFC 3339 times ---- */

struct time_case {
	const char *text;
	dtime want; /* -1: refused */
};

#define T_BASE ((dtime)1767323045000) /* 2026-01-02T03:04:05Z */

static const struct time_case time_cases[] = {
    {"2026-01-02T03:04:05Z", T_BASE},
    {"2026-01-02T03:04:05.1Z", T_BASE + 100},
    {"2026-01-02T03:04:05.12Z", T_BASE + 120},
    {"2026-01-02T03:04:05.123Z", T_BASE + 123},
    {"2026-01-02T03:04:05.1234Z", T_BASE + 123},
    {"2026-01-02T03:04:05.123456Z", T_BASE + 123},
    {"2026-01-02T03:04:05.123456789Z", T_BASE + 123},
    {"2026-01-02T05:04:05+02:00", T_BASE},
    {"2026-01-02T05:04:05.5+02:00", T_BASE + 500},
    {"2026-01-01T21:34:05-05:30", T_BASE},
    {"2026-01-02T03:04:05+00:00", T_BASE},
    {"2024-02-29T00:00:00Z", (dtime)1709164800000},
    {"1970-01-01T00:00:01Z", (dtime)1000},
    {"2026-01-02 03:04:05Z", -1},
    {"2026-01-02T03:04:05", -1},
    {"2026-01-02T03:04:05.Z", -1},
    {"2026-01-02T03:04:05+0200", -1},
    {"2026-01-02T03:04:05+2:00", -1},
    {"2026-13-02T03:04:05Z", -1},
    {"2025-02-29T03:04:05Z", -1},
    {"2026-01-02T24:00:00Z", -1},
    {"2026-01-02T03:60:05Z", -1},
    {"2026-01-02", -1},
    {"yesterday", -1},
};

static void
test_times(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(time_cases); i++) {
		const struct time_case *c = &time_cases[i];
		struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
		struct loaded l;

		strbuf_addf(&sb,
			    "apiVersion: v1\nkind: Pod\nmetadata:\n"
			    "  name: p\n  creationTimestamp: \"%s\"\n"
			    "spec: {containers: [{name: a, image: x}]}\n",
			    c->text);
		load(sb.buf, true, &l);
		if (c->want < 0) {
			strbuf_addf(&line,
				    "metadata.creationTimestamp: Invalid "
				    "value: \"%s\": must be an RFC 3339 time",
				    c->text);
			if (l.rc == 0 || !has_error_line(l.text.buf, line.buf))
				fail_msg("%s: want refused with\n%s\ngot\n%s",
					 c->text, line.buf, l.text.buf);
		} else {
			dtime got;

			if (l.rc != 0)
				fail_msg("%s: refused\n%s", c->text,
					 l.text.buf);
			got = object_meta(&l.objs.v[0])->creation_timestamp;
			if (got != c->want)
				fail_msg("%s: %lld, want %lld", c->text,
					 (long long)got, (long long)c->want);
		}
		loaded_release(&l);
		strbuf_release(&sb);
		strbuf_release(&line);
	}
}

/* ---- round trip ---- */

struct roundtrip_case {
	const char *name;
	const char *full;
	const char *spec_extra;
	bool prepare;
	const char *json_has[6]; /* substrings of the encoded JSON */
};

static const struct roundtrip_case roundtrip_cases[] = {
    {"pod affinity: nodeAffinity typed, the rest kept as written",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers: [{name: a, image: x}]\n"
     "  affinity:\n    nodeAffinity:\n"
     "      requiredDuringSchedulingIgnoredDuringExecution:\n"
     "        nodeSelectorTerms:\n"
     "        - matchExpressions:\n"
     "          - {key: zone, operator: In, values: [z1, z2]}\n"
     "          - {key: gen, operator: Gt, values: [\"3\"]}\n"
     "        - matchFields:\n"
     "          - {key: metadata.name, operator: NotIn, values: [n1]}\n"
     "      preferredDuringSchedulingIgnoredDuringExecution:\n"
     "      - weight: 10\n        preference:\n"
     "          matchExpressions: [{key: disk, operator: Exists}]\n"
     "    podAntiAffinity:\n"
     "      requiredDuringSchedulingIgnoredDuringExecution:\n"
     "      - topologyKey: kubernetes.io/hostname\n"
     "        labelSelector: {matchLabels: {app: web}}\n",
     NULL,
     false,
     {"\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","
      "\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]}",
      "{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":"
      "\"NotIn\",\"values\":[\"n1\"]}]}",
      "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":10,"
      "\"preference\":{\"matchExpressions\":[{\"key\":\"disk\","
      "\"operator\":\"Exists\"}]}}]",
      "\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution"
      "\":[{\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}},"
      "\"topologyKey\":\"kubernetes.io/hostname\"}]}",
      NULL}},
    {"defaulted deployment",
     NULL,
     "  replicas: 3\n  minReadySeconds: 5\n",
     true,
     {"\"maxSurge\":\"25%\"", "\"maxUnavailable\":\"25%\"",
      "\"revisionHistoryLimit\":10", "\"progressDeadlineSeconds\":600",
      "\"creationTimestamp\":null", "\"matchLabels\":{\"app\":\"web\"}"}},
    {"integer surge, raw",
     NULL,
     "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
     "      maxSurge: 1\n      maxUnavailable: 0\n",
     false,
     {"\"maxSurge\":1", "\"maxUnavailable\":0",
      "\"strategy\":{\"type\":\"RollingUpdate\"", NULL}},
    {"recreate deployment with metadata",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
     "  namespace: shop\n  generation: 4\n"
     "  creationTimestamp: \"2026-01-02T05:04:05.5+02:00\"\n"
     "  labels: {app: web}\n  annotations: {a: b}\n"
     "  ownerReferences:\n  - {apiVersion: v1, kind: X, name: x, uid: u,"
     " controller: true}\n"
     "spec:\n  strategy: {type: Recreate}\n"
     "  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec:\n      terminationGracePeriodSeconds: 5\n"
     "      containers:\n      - name: app\n        image: nginx\n"
     "        ports: [{containerPort: 8080, hostPort: 80}]\n"
     "        readinessProbe: {httpGet: {port: 8080}}\n"
     "status:\n  observedGeneration: 3\n  replicas: 2\n  conditions:\n"
     "  - {type: Available, status: \"True\", "
     "lastUpdateTime: \"2026-01-02T03:04:05Z\"}\n",
     NULL,
     true,
     {"\"creationTimestamp\":\"2026-01-02T03:04:05.500Z\"",
      "\"ownerReferences\":[", "\"containerPort\":8080",
      "\"terminationGracePeriodSeconds\":5", "\"observedGeneration\":3",
      "\"lastUpdateTime\":\"2026-01-02T03:04:05Z\""}},
    {"replicaset",
     rs_yaml,
     NULL,
     true,
     {"\"kind\":\"ReplicaSet\"", "\"apiVersion\":\"apps/v1\"",
      "\"imagePullPolicy\":\"IfNotPresent\"", NULL}},
    {"pod volumes: emptyDir, a volume without a source defaulted to one, "
     "mounts",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers:\n  - name: a\n    image: x\n"
     "    volumeMounts:\n    - {name: cache, mountPath: /cache}\n"
     "    - {name: scratch, mountPath: /tmp, readOnly: true}\n"
     "  volumes:\n"
     "  - name: cache\n    emptyDir: {medium: Memory, sizeLimit: 64Mi}\n"
     "  - name: scratch\n",
     NULL,
     true,
     {"\"spec\":{\"volumes\":[{\"name\":\"cache\",\"emptyDir\":{\"medium\":"
      "\"Memory\",\"sizeLimit\":\"64Mi\"}},{\"name\":\"scratch\","
      "\"emptyDir\":{}}],\"containers\"",
      "\"resources\":{},\"volumeMounts\":[{\"name\":\"cache\",\"mountPath\":"
      "\"/cache\"},{\"name\":\"scratch\",\"readOnly\":true,\"mountPath\":"
      "\"/tmp\"}]",
      NULL}},
    {"pod",
     pod_yaml,
     NULL,
     true,
     {"\"kind\":\"Pod\"", "\"restartPolicy\":\"Always\"",
      "\"imagePullPolicy\":\"Always\"", "\"phase\":\"Pending\"",
      "\"terminationMessagePath\":\"/dev/termination-log\"", NULL}},
};

/* Every member name in Kubernetes' JSON is lowerCamelCase; label maps
 * are skipped (their keys are user data). */
static void
check_camel(json_t *j, const char *where)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v) check_camel(v, where);
		return;
	}
	if (!json_is_object(j))
		return;
	json_object_foreach(j, key, v)
	{
		if (strchr(key, '_') || (key[0] >= 'A' && key[0] <= 'Z'))
			fail_msg("%s: member \"%s\" is not a Kubernetes name",
				 where, key);
		if (strcmp(key, "labels") && strcmp(key, "annotations") &&
		    strcmp(key, "matchLabels"))
			check_camel(v, where);
	}
}

static void
test_roundtrip(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < NELEM(roundtrip_cases); i++) {
		const struct roundtrip_case *c = &roundtrip_cases[i];
		char *text = manifest_text(c->full, c->spec_extra), *dump;
		struct loaded a, b;
		json_t *j;

		load(text, c->prepare, &a);
		if (a.rc != 0)
			fail_msg("%s: refused\n%s", c->name, a.text.buf);
		j = object_encode(&a.objs.v[0]);
		check_camel(j, c->name);
		dump = json_dumps(j, JSON_COMPACT);
		for (k = 0; k < NELEM(c->json_has) && c->json_has[k]; k++)
			if (strstr(dump, c->json_has[k]) == NULL)
				fail_msg("%s: %s not in %s", c->name,
					 c->json_has[k], dump);
		load(dump, c->prepare, &b);
		if (b.rc != 0)
			fail_msg("%s: re-decode refused\n%s\n%s", c->name, dump,
				 b.text.buf);
		if (!schema_equal(a.objs.v[0].k->schema, a.objs.v[0].obj,
				  b.objs.v[0].obj))
			fail_msg("%s: not equal after a round trip: %s",
				 c->name, dump);
		loaded_release(&a);
		loaded_release(&b);
		json_decref(j);
		free(dump);
		free(text);
	}
}

/* ---- defaults ---- */

static const struct deployment *
load_deployment(const char *spec_extra, struct loaded *l)
{
	char *text = manifest_text(NULL, spec_extra);

	load(text, true, l);
	free(text);
	if (l->rc != 0)
		fail_msg("refused:\n%s", l->text.buf);
	return l->objs.v[0].obj;
}

static void
test_defaults_deployment(void **state)
{
	const struct deployment *d;
	const struct rolling_update *ru;
	struct loaded l;

	(void)state;
	d = load_deployment(NULL, &l);
	assert_true(d->spec.replicas.set);
	assert_int_equal(d->spec.replicas.v, 1);
	assert_string_equal(d->spec.strategy.type, "RollingUpdate");
	ru = d->spec.strategy.rolling_update;
	assert_non_null(ru);
	assert_int_equal(ru->max_surge.type, INTSTR_STRING);
	assert_string_equal(ru->max_surge.sval, "25%");
	assert_int_equal(ru->max_unavailable.type, INTSTR_STRING);
	assert_string_equal(ru->max_unavailable.sval, "25%");
	assert_true(d->spec.revision_history_limit.set);
	assert_int_equal(d->spec.revision_history_limit.v, 10);
	assert_true(d->spec.progress_deadline_seconds.set);
	assert_int_equal(d->spec.progress_deadline_seconds.v, 600);
	assert_int_equal(d->spec.min_ready_seconds, 0);
	assert_false(d->spec.paused);
	assert_string_equal(d->spec.template.spec.restart_policy, "Always");
	assert_string_equal(
	    d->spec.template.spec.containers.v[0].image_pull_policy,
	    "IfNotPresent");
	loaded_release(&l);

	/* Recreate gets no rollingUpdate block. */
	d = load_deployment("  strategy:\n    type: Recreate\n", &l);
	assert_string_equal(d->spec.strategy.type, "Recreate");
	assert_null(d->spec.strategy.rolling_update);
	assert_int_equal(d->spec.revision_history_limit.v, 10);
	loaded_release(&l);

	/* Only the missing half of rollingUpdate is filled in. */
	d = load_deployment("  strategy:\n    rollingUpdate:\n"
			    "      maxSurge: 0\n",
			    &l);
	ru = d->spec.strategy.rolling_update;
	assert_int_equal(ru->max_surge.type, INTSTR_INT);
	assert_int_equal(ru->max_surge.ival, 0);
	assert_string_equal(ru->max_unavailable.sval, "25%");
	loaded_release(&l);

	/* Explicit values are kept, zero included. */
	d = load_deployment("  replicas: 0\n  revisionHistoryLimit: 0\n"
			    "  progressDeadlineSeconds: 30\n",
			    &l);
	assert_int_equal(d->spec.replicas.v, 0);
	assert_int_equal(d->spec.revision_history_limit.v, 0);
	assert_int_equal(d->spec.progress_deadline_seconds.v, 30);
	loaded_release(&l);
}

static void
test_defaults_other_kinds(void **state)
{
	const struct replicaset *rs;
	const struct pod *p;
	struct loaded l;

	(void)state;
	load("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
	     "spec:\n  selector: {matchLabels: {a: b}}\n"
	     "  template:\n    metadata: {labels: {a: b}}\n"
	     "    spec: {containers: [{name: c, image: x}]}\n",
	     true, &l);
	assert_int_equal(l.rc, 0);
	rs = l.objs.v[0].obj;
	assert_true(rs->spec.replicas.set);
	assert_int_equal(rs->spec.replicas.v, 1);
	loaded_release(&l);

	load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	     "spec:\n  containers:\n  - name: c\n    image: x:1\n"
	     "    ports: [{containerPort: 80}]\n"
	     "    livenessProbe: {httpGet: {port: 80}}\n",
	     true, &l);
	assert_int_equal(l.rc, 0);
	p = l.objs.v[0].obj;
	assert_string_equal(p->spec.restart_policy, "Always");
	assert_int_equal(p->spec.termination_grace_period_seconds.v, 30);
	assert_string_equal(p->spec.dns_policy, "ClusterFirst");
	assert_string_equal(p->spec.containers.v[0].ports.v[0].protocol, "TCP");
	assert_int_equal(
	    p->spec.containers.v[0].liveness_probe->period_seconds.v, 10);
	assert_string_equal(
	    p->spec.containers.v[0].liveness_probe->http_get->path, "/");
	assert_string_equal(p->status.phase, "Pending");
	loaded_release(&l);

	/* SetDefaults_Probe: 0 is defaulted too (Go's int32 has no unset) */
	load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	     "spec:\n  containers:\n  - name: c\n    image: x:1\n"
	     "    readinessProbe: {exec: {command: [\"true\"]}, "
	     "periodSeconds: 0, timeoutSeconds: 0, successThreshold: 0, "
	     "failureThreshold: 0}\n",
	     true, &l);
	assert_int_equal(l.rc, 0);
	p = l.objs.v[0].obj;
	assert_int_equal(
	    p->spec.containers.v[0].readiness_probe->period_seconds.v, 10);
	assert_int_equal(
	    p->spec.containers.v[0].readiness_probe->timeout_seconds.v, 1);
	assert_int_equal(
	    p->spec.containers.v[0].readiness_probe->success_threshold.v, 1);
	assert_int_equal(
	    p->spec.containers.v[0].readiness_probe->failure_threshold.v, 3);
	loaded_release(&l);

	/* Without `prepare` nothing is defaulted. */
	load(pod_yaml, false, &l);
	assert_int_equal(l.rc, 0);
	p = l.objs.v[0].obj;
	assert_null(p->spec.restart_policy);
	loaded_release(&l);
}

/* ---- refusals and their exact messages ---- */

struct reject_case {
	const char *name;
	const char *full;
	const char *spec_extra;
	const char *expect[MAX_EXPECT];
	size_t nerrs; /* exact number of errors, 0: not checked */
};

#define P_RU "spec.strategy.rollingUpdate."
#define MSG_PCT                                                                \
	"a valid percent string must be a numeric string followed by an "      \
	"ending '%' (e.g. '1%',  or '93%', regex used for validation is "      \
	"'[0-9]+%')"
#define MSG_SUBDOMAIN                                                          \
	"a lowercase RFC 1123 subdomain must consist of lower case "           \
	"alphanumeric characters, '-' or '.', and must start and end with "    \
	"an alphanumeric character (e.g. 'example.com', regex used for "       \
	"validation is "                                                       \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

#define P_NA                                                                   \
	"spec.template.spec.affinity.nodeAffinity."                            \
	"requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
#define AFFINITY_DEPLOYMENT(terms)                                             \
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"       \
	"spec:\n  selector: {matchLabels: {app: web}}\n"                       \
	"  template:\n    metadata: {labels: {app: web}}\n"                    \
	"    spec:\n      containers: [{name: app, image: nginx}]\n"           \
	"      affinity:\n        nodeAffinity:\n" terms

static const struct reject_case reject_cases[] = {
    {"node affinity requirements Kubernetes refuses",
     AFFINITY_DEPLOYMENT(
	 "          requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "            nodeSelectorTerms:\n"
	 "            - matchExpressions:\n"
	 "              - {key: zone, operator: Foo, values: [a]}\n"
	 "              - {key: zone, operator: In}\n"
	 "              - {key: zone, operator: Exists, values: [a]}\n"
	 "              - {key: gen, operator: Gt, values: [\"1\", \"2\"]}\n"
	 "              - {key: \"-bad\", operator: Exists}\n"
	 "              matchFields:\n"
	 "              - {key: metadata.uid, operator: In, values: [a]}\n"
	 "              - {key: metadata.name, operator: Exists}\n"
	 "              - {key: metadata.name, operator: In, values: [a, "
	 "b]}\n"
	 "          preferredDuringSchedulingIgnoredDuringExecution:\n"
	 "          - weight: 0\n"
	 "            preference:\n"
	 "              matchExpressions: [{key: disk, operator: NotIn}]\n"),
     NULL,
     {P_NA "[0].matchExpressions[0].operator: Invalid value: \"Foo\": not "
	   "a valid selector operator",
      P_NA "[0].matchExpressions[1].values: Required value: must be "
	   "specified when `operator` is 'In' or 'NotIn'",
      P_NA "[0].matchExpressions[2].values: Forbidden: may not be "
	   "specified when `operator` is 'Exists' or 'DoesNotExist'",
      P_NA "[0].matchExpressions[3].values: Required value: must be "
	   "specified single value when `operator` is 'Lt' or 'Gt'",
      P_NA "[0].matchFields[0].key: Invalid value: \"metadata.uid\": not a "
	   "valid field selector key",
      P_NA "[0].matchFields[2].values: Required value: must be only one "
	   "value when `operator` is 'In' or 'NotIn' for node field "
	   "selector"},
     10},
    {"node affinity: the rest of the errors of the case above",
     AFFINITY_DEPLOYMENT(
	 "          requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "            nodeSelectorTerms:\n"
	 "            - matchExpressions:\n"
	 "              - {key: \"-bad\", operator: Exists}\n"
	 "              matchFields:\n"
	 "              - {key: metadata.name, operator: Exists}\n"
	 "          preferredDuringSchedulingIgnoredDuringExecution:\n"
	 "          - weight: 0\n"
	 "            preference:\n"
	 "              matchExpressions: [{key: disk, operator: NotIn}]\n"),
     NULL,
     {P_NA "[0].matchExpressions[0].key: Invalid value: \"-bad\": name "
	   "part must consist of alphanumeric characters, '-', '_' or '.', "
	   "and must start and end with an alphanumeric character (e.g. "
	   "'MyName',  or 'my.name',  or '123-abc', regex used for "
	   "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      P_NA "[0].matchFields[0].operator: Invalid value: \"Exists\": not a "
	   "valid selector operator",
      "spec.template.spec.affinity.nodeAffinity."
      "preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
      "value: 0: must be in the range 1-100",
      "spec.template.spec.affinity.nodeAffinity."
      "preferredDuringSchedulingIgnoredDuringExecution[0].preference."
      "matchExpressions[0].values: Required value: must be specified when "
      "`operator` is 'In' or 'NotIn'"},
     4},
    {"node affinity without a term",
     AFFINITY_DEPLOYMENT(
	 "          requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "            nodeSelectorTerms: []\n"),
     NULL,
     {P_NA ": Required value: must have at least one node selector term"},
     1},
    {"an unknown member of nodeAffinity",
     AFFINITY_DEPLOYMENT("          requiredDuringScheduling: {}\n"),
     NULL,
     {"spec.template.spec.affinity.nodeAffinity.requiredDuringScheduling: "
      "Unknown field: field not declared in schema"},
     1},
    {"int32 overflow in both directions",
     NULL,
     "  replicas: 2147483648\n  revisionHistoryLimit: -2147483649\n",
     {"spec.replicas: Invalid value: 2147483648: cannot unmarshal number "
      "into a field of type int32",
      "spec.revisionHistoryLimit: Invalid value: -2147483649: cannot "
      "unmarshal number into a field of type int32"},
     2},
    {"int32 overflow in a pod template",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers:\n  - name: app\n    image: nginx\n"
     "    ports: [{containerPort: 4294967376}]\n",
     NULL,
     {"spec.containers[0].ports[0].containerPort: Invalid value: "
      "4294967376: cannot unmarshal number into a field of type int32"},
     1},
    {"downward API paths Kubernetes refuses",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers:\n  - name: app\n    image: nginx\n    env:\n"
     "    - {name: A, valueFrom: {fieldRef: {fieldPath: "
     "metadata.annotations}}}\n"
     "    - {name: B, valueFrom: {fieldRef: {fieldPath: status.phase}}}\n"
     "    - {name: C, valueFrom: {fieldRef: {fieldPath: "
     "\"metadata.annotations['a/b/c']\"}}}\n"
     "    - {name: D, valueFrom: {fieldRef: {fieldPath: \"\"}}}\n",
     NULL,
     {"spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported "
      "value: \"metadata.annotations\": supported values: "
      "\"metadata.name\", \"metadata.namespace\", \"metadata.uid\", "
      "\"spec.nodeName\", \"spec.serviceAccountName\", "
      "\"status.hostIP\", \"status.hostIPs\", \"status.podIP\", "
      "\"status.podIPs\"",
      "spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported "
      "value: \"status.phase\": supported values: \"metadata.name\", "
      "\"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", "
      "\"spec.serviceAccountName\", \"status.hostIP\", "
      "\"status.hostIPs\", \"status.podIP\", \"status.podIPs\"",
      "spec.containers[0].env[2].valueFrom.fieldRef: Invalid value: "
      "\"a/b/c\": a qualified name must consist of alphanumeric "
      "characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
      "'123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
      "subdomain prefix and '/' (e.g. 'example.com/MyName')",
      "spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Required "
      "value"},
     4},
    {"a port name three times: one error each for the second and third",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  containers:\n  - name: app\n    image: nginx\n    ports:\n"
     "    - {name: http, containerPort: 8080}\n"
     "    - {name: http, containerPort: 8081}\n"
     "    - {name: http, containerPort: 8082}\n",
     NULL,
     {"spec.containers[0].ports[1].name: Duplicate value: \"http\"",
      "spec.containers[0].ports[2].name: Duplicate value: \"http\""},
     2},
    {"maxSurge as a YAML float",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 1.5\n",
     {P_RU "maxSurge: Invalid value: \"1.5\": must be an integer or "
	   "percentage"},
     1},
    {"maxUnavailable 0.1 keeps its text",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxUnavailable: 0.1\n",
     {P_RU "maxUnavailable: Invalid value: \"0.1\": must be an integer or "
	   "percentage"},
     1},
    {"maxSurge as a boolean",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: true\n",
     {P_RU "maxSurge: Invalid value: true: must be an integer or "
	   "percentage"},
     1},
    {"maxSurge quoted integer",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: \"1\"\n",
     {P_RU "maxSurge: Invalid value: \"1\": " MSG_PCT},
     1},
    {"maxSurge decimal percent",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 1.5%\n",
     {P_RU "maxSurge: Invalid value: \"1.5%\": " MSG_PCT},
     1},
    {"maxUnavailable negative percent",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxUnavailable: -5%\n",
     {P_RU "maxUnavailable: Invalid value: \"-5%\": " MSG_PCT},
     1},
    {"maxUnavailable above 100%",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxUnavailable: 101%\n",
     {P_RU "maxUnavailable: Invalid value: \"101%\": must not be greater "
	   "than 100%"},
     1},
    {"both 0",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 0\n"
     "      maxUnavailable: 0\n",
     {P_RU "maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` "
	   "is 0"},
     1},
    {"both 0%",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 0%\n"
     "      maxUnavailable: 0%\n",
     {P_RU "maxUnavailable: Invalid value: \"0%\": may not be 0 when "
	   "`maxSurge` is 0"},
     1},
    {"unparseable maxSurge counts as 0",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: lots\n"
     "      maxUnavailable: 0\n",
     {P_RU "maxSurge: Invalid value: \"lots\": " MSG_PCT,
      P_RU "maxUnavailable: Invalid value: 0: may not be 0 when "
	   "`maxSurge` is 0"},
     2},
    {"unparseable maxUnavailable counts as 0",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: 0%\n"
     "      maxUnavailable: x%\n",
     {P_RU "maxUnavailable: Invalid value: \"x%\": " MSG_PCT,
      P_RU "maxUnavailable: Invalid value: \"x%\": may not be 0 when "
	   "`maxSurge` is 0"},
     2},
    {"negative maxSurge",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxSurge: -1\n",
     {P_RU "maxSurge: Invalid value: -1: must be greater than or equal to "
	   "0"},
     1},
    {"negative maxUnavailable",
     NULL,
     "  strategy:\n    rollingUpdate:\n      maxUnavailable: -3\n",
     {P_RU "maxUnavailable: Invalid value: -3: must be greater than or "
	   "equal to 0"},
     1},
    {"Recreate with rollingUpdate",
     NULL,
     "  strategy:\n    type: Recreate\n    rollingUpdate:\n"
     "      maxSurge: 1\n",
     {"spec.strategy.rollingUpdate: Forbidden: may not be specified when "
      "strategy `type` is 'Recreate'"},
     1},
    {"unknown strategy type",
     NULL,
     "  strategy:\n    type: BlueGreen\n",
     {"spec.strategy: Unsupported value: \"BlueGreen\": supported values: "
      "\"InPlaceUpdate\", \"Recreate\", \"RollingUpdate\""},
     1},
    {"progressDeadlineSeconds equal to minReadySeconds",
     NULL,
     "  minReadySeconds: 30\n  progressDeadlineSeconds: 30\n",
     {"spec.progressDeadlineSeconds: Invalid value: 30: must be greater "
      "than minReadySeconds"},
     1},
    {"defaulted progressDeadlineSeconds below minReadySeconds",
     NULL,
     "  minReadySeconds: 900\n",
     {"spec.progressDeadlineSeconds: Invalid value: 600: must be greater "
      "than minReadySeconds"},
     1},
    {"negative counts",
     NULL,
     "  replicas: -1\n  revisionHistoryLimit: -2\n"
     "  progressDeadlineSeconds: -3\n",
     {"spec.replicas: Invalid value: -1: must be greater than or equal to "
      "0",
      "spec.revisionHistoryLimit: Invalid value: -2: must be greater than "
      "or equal to 0",
      "spec.progressDeadlineSeconds: Invalid value: -3: must be greater "
      "than or equal to 0",
      "spec.progressDeadlineSeconds: Invalid value: -3: must be greater "
      "than minReadySeconds"},
     4},
    {"selector missing",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.selector: Required value",
      "spec.template.metadata.labels: Invalid value: "
      "map[string]string{\"app\":\"web\"}: `selector` does not match "
      "template `labels`"},
     2},
    {"selector empty",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector: {}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
      "map[string]string(nil), MatchExpressions:[]v1."
      "LabelSelectorRequirement(nil)}: empty selector is invalid for "
      "deployment"},
     1},
    {"selector not matching the template",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector: {matchLabels: {app: api}}\n"
     "  template:\n    metadata: {labels: {app: web, tier: fe}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.template.metadata.labels: Invalid value: "
      "map[string]string{\"app\":\"web\", \"tier\":\"fe\"}: `selector` "
      "does not match template `labels`"},
     1},
    {"invalid selector operator",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector:\n    matchExpressions:\n"
     "    - {key: app, operator: Equals, values: [web]}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.selector.matchExpressions[0].operator: Invalid value: "
      "\"Equals\": not a valid selector operator",
      "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
      "map[string]string(nil), MatchExpressions:[]v1."
      "LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"app\", "
      "Operator:\"Equals\", Values:[]string{\"web\"}}}}: invalid label "
      "selector"},
     2},
    {"bad names",
     "apiVersion: apps/v1\nkind: Deployment\n"
     "metadata: {name: Web_1, namespace: -shop}\n"
     "spec:\n  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: App, image: nginx}]}\n",
     NULL,
     {"metadata.name: Invalid value: \"Web_1\": " MSG_SUBDOMAIN,
      "metadata.namespace: Invalid value: \"-shop\": a lowercase RFC 1123 "
      "label must consist of lower case alphanumeric characters or '-', "
      "and must start and end with an alphanumeric character (e.g. "
      "'my-name',  or '123-abc', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "spec.template.spec.containers[0].name: Invalid value: \"App\": a "
      "lowercase RFC 1123 label must consist of lower case alphanumeric "
      "characters or '-', and must start and end with an alphanumeric "
      "character (e.g. 'my-name',  or '123-abc', regex used for "
      "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
     3},
    {"missing containers and image",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: app}, {image: x}]}\n",
     NULL,
     {"spec.template.spec.containers[0].image: Required value",
      "spec.template.spec.containers[1].name: Required value"},
     2},
    {"no containers",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: []}\n",
     NULL,
     {"spec.template.spec.containers: Required value"},
     1},
    {"unknown fields with full paths, all at once",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  replica: 3\n  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec:\n      containers:\n      - name: app\n"
     "        image: nginx\n      - name: b\n        imagee: nginx\n"
     "        ports: [{containerport: 80}]\n"
     "extra: true\n",
     NULL,
     {"spec.replica: Unknown field: field not declared in schema",
      "spec.template.spec.containers[1].imagee: Unknown field: field not "
      "declared in schema",
      "spec.template.spec.containers[1].ports[0].containerport: Unknown "
      "field: field not declared in schema",
      "extra: Unknown field: field not declared in schema"},
     4},
    {"type errors with their paths, all at once",
     "apiVersion: apps/v1\nkind: Deployment\n"
     "metadata: {name: web, labels: [app], generation: x}\n"
     "spec:\n  replicas: three\n  paused: \"yes\"\n"
     "  minReadySeconds: 1.5\n"
     "  selector: {matchLabels: {app: 1}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: nginx}\n",
     NULL,
     {"metadata.labels: Invalid value: [\"app\"]: expected object, got "
      "array",
      "metadata.generation: Invalid value: \"x\": expected integer, got "
      "string",
      "spec.replicas: Invalid value: \"three\": expected integer, got "
      "string",
      "spec.paused: Invalid value: \"yes\": expected boolean, got string",
      "spec.minReadySeconds: Invalid value: \"1.5\": expected integer, got "
      "number",
      "spec.template.spec.containers: Invalid value: \"nginx\": expected "
      "array, got string"},
     0},
    {"replicaset empty selector says deployment",
     "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
     "spec:\n  replicas: -1\n  selector: {matchLabels: {}}\n"
     "  template:\n    metadata: {labels: {app: web}}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.replicas: Invalid value: -1: must be greater than or equal to "
      "0",
      "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
      "map[string]string(nil), MatchExpressions:[]v1."
      "LabelSelectorRequirement(nil)}: empty selector is invalid for "
      "deployment"},
     2},
    {"template labels checked under spec.template",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
     "spec:\n  selector: {matchLabels: {app: web}}\n"
     "  template:\n    metadata:\n      labels: {app: web, v: \"a b\"}\n"
     "      annotations: {\"/x\": y}\n"
     "    spec: {containers: [{name: app, image: nginx}]}\n",
     NULL,
     {"spec.template.labels: Invalid value: \"a b\": a valid label must be "
      "an empty string or consist of alphanumeric characters, '-', '_' "
      "or '.', and must start and end with an alphanumeric character "
      "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
      "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      "spec.template.annotations: Invalid value: \"/x\": prefix part must "
      "be non-empty"},
     2},
};

static void
test_reject(void **state)
{
	size_t i, k, nerrs;

	(void)state;
	for (i = 0; i < NELEM(reject_cases); i++) {
		const struct reject_case *c = &reject_cases[i];
		char *text = manifest_text(c->full, c->spec_extra);
		struct loaded l;

		load(text, true, &l);
		if (l.rc != -1 || l.objs.n != 0)
			fail_msg("%s: accepted", c->name);
		for (k = 0; k < MAX_EXPECT && c->expect[k]; k++)
			if (!has_error_line(l.text.buf, c->expect[k]))
				fail_msg("%s: missing\n* %s\nin\n%s", c->name,
					 c->expect[k], l.text.buf);
		nerrs = l.errs.n ? l.errs.v[0].errs.n : 0;
		if (c->nerrs && nerrs != c->nerrs)
			fail_msg("%s: %zu errors, want %zu\n%s", c->name, nerrs,
				 c->nerrs, l.text.buf);
		loaded_release(&l);
		free(text);
	}
}

/* ---- integer widths ---- */

/* Every integer field of every kind says its Kubernetes width, once. */
static void
check_widths(const struct schema *s, int depth)
{
	size_t i;

	assert_true(depth < 16);
	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		unsigned w = f->flags & (FF_INT32 | FF_INT64);

		if (f->type == FT_INT || f->type == FT_OPTINT) {
			if (w != FF_INT32 && w != FF_INT64)
				fail_msg("%s.%s: no width", s->name, f->json);
		} else if (w) {
			fail_msg("%s.%s: a width on a non-integer", s->name,
				 f->json);
		}
		if (f->sub)
			check_widths(f->sub, depth + 1);
	}
}

static void
test_int_widths(void **state)
{
	const struct kind_info *k;
	size_t n, i;

	(void)state;
	k = kinds_all(&n);
	for (i = 0; i < n; i++)
		check_widths(k[i].schema, 0);
}

/* fieldRef.apiVersion defaults to v1, as SetDefaults_ObjectFieldSelector. */
static void
test_field_ref_default(void **state)
{
	static const char pod[] =
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  containers:\n  - name: app\n    image: nginx\n    env:\n"
	    "    - {name: A, valueFrom: {fieldRef: {fieldPath: "
	    "metadata.name}}}\n";
	struct loaded l;
	const struct pod *p;

	(void)state;
	load(pod, true, &l);
	assert_int_equal(l.rc, 0);
	p = l.objs.v[0].obj;
	assert_string_equal(
	    p->spec.containers.v[0].env.v[0].value_from->field_ref->api_version,
	    "v1");
	loaded_release(&l);
}

/* ---- the corpus of invalid manifests ---- */

#define CORPUS_DIR "tests/invalid"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (f == NULL)
		fail_msg("cannot open %s", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return strbuf_detach(&sb);
}

/* Checks one corpus file: its "# expect:" lines come first, it holds one
 * object, and loading it fails with every expected line. */
static void
check_corpus_file(const char *name, const char *buf, size_t len)
{
	static const char tag[] = "# expect: ";
	char err[256] = "";
	const char *p = buf;
	size_t nexpect = 0;
	struct loaded l;
	json_t *docs;

	docs = manifest_parse(buf, len, err, sizeof(err));
	if (docs == NULL || json_array_size(docs) != 1)
		fail_msg("%s: want exactly one document (%s)", name, err);
	json_decref(docs);
	load(buf, true, &l);
	if (l.rc != -1)
		fail_msg("%s: accepted", name);
	while (strncmp(p, tag, sizeof(tag) - 1) == 0) {
		const char *start = p + sizeof(tag) - 1;
		const char *end = strchr(start, '\n');
		char *want;

		if (end == NULL)
			fail_msg("%s: unterminated expect line", name);
		want = strndup(start, (size_t)(end - start));
		if (!has_error_line(l.text.buf, want))
			fail_msg("%s: missing\n* %s\nin\n%s", name, want,
				 l.text.buf);
		free(want);
		nexpect++;
		p = end + 1;
	}
	if (nexpect == 0)
		fail_msg("%s: no \"# expect:\" line at the top", name);
	loaded_release(&l);
}

static void
test_corpus(void **state)
{
	DIR *d = opendir(CORPUS_DIR);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;

	(void)state;
	if (d == NULL)
		fail_msg("cannot open %s (run from the repository root)",
			 CORPUS_DIR);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			names = realloc(names, alloc * sizeof(*names));
			assert_non_null(names);
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	if (n < 60)
		fail_msg("only %zu corpus files in %s", n, CORPUS_DIR);
	for (i = 0; i < n; i++) {
		struct strbuf path = STRBUF_INIT;
		size_t len;
		char *buf;

		strbuf_addf(&path, "%s/%s", CORPUS_DIR, names[i]);
		buf = read_file(path.buf, &len);
		check_corpus_file(names[i], buf, len);
		free(buf);
		strbuf_release(&path);
		free(names[i]);
	}
	free(names);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_errors_per_document),
	    cmocka_unit_test(test_accept),
	    cmocka_unit_test(test_times),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_defaults_deployment),
	    cmocka_unit_test(test_defaults_other_kinds),
	    cmocka_unit_test(test_reject),
	    cmocka_unit_test(test_corpus),
	    cmocka_unit_test(test_int_widths),
	    cmocka_unit_test(test_field_ref_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
