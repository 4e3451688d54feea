/* codec.c - what a write and a read of one object cost in each form:
 * a running pod (2.2 KB of JSON, the object a rollout writes most)
 * printed for the store by jansson (build the value, print it) and by
 * json_text (straight from the typed object), and read back from the
 * stored text (parse, decode) against a copy of the decoded object (the
 * API's object cache). Side by side in one run, microseconds per call,
 * the median of five rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "json_text.h"
#include "object.h"
#include "strbuf.h"
#include "xalloc.h"

#define CALLS  20000
#define ROUNDS 5

static const char running_pod[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-"
    "7d9f8c6b5-abcde\",\"generateName\":\"web-7d9f8c6b5-\",\"namespace\":"
    "\"default\",\"uid\":\"2b7a1c9e-4f3d-4e2a-9b1c-0d2e3f4a5b6c\","
    "\"creationTimestamp\":\"2026-11-29T05:54:14Z\",\"labels\":{\"app\":"
    "\"web\",\"pod-template-hash\":\"7d9f8c6b5\"},\"ownerReferences\":[{"
    "\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web-"
    "7d9f8c6b5\",\"uid\":\"9a8b7c6d-1234-4abc-8def-0123456789ab\","
    "\"controller\":true,\"blockOwnerDeletion\":true}]},\"spec\":{"
    "\"containers\":[{\"name\":\"web\",\"image\":\"/srv/example\","
    "\"command\":[\"./web\"],\"args\":[\"--port\",\"$(PORT)\"],\"ports\":[{"
    "\"name\":\"http\",\"containerPort\":8080,\"protocol\":\"TCP\"}],"
    "\"env\":[{\"name\":\"VERSION\",\"value\":\"v2\"}],\"resources\":{},"
    "\"readinessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":"
    "\"http\",\"scheme\":\"HTTP\"},\"initialDelaySeconds\":1,"
    "\"timeoutSeconds\":1,\"periodSeconds\":1,\"successThreshold\":1,"
    "\"failureThreshold\":3},\"terminationMessagePath\":\"/dev/"
    "termination-log\",\"terminationMessagePolicy\":\"File\","
    "\"imagePullPolicy\":\"IfNotPresent\"}],\"restartPolicy\":\"Always\","
    "\"terminationGracePeriodSeconds\":5,\"dnsPolicy\":\"ClusterFirst\","
    "\"schedulerName\":\"default-scheduler\",\"nodeName\":\"vm\","
    "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
    "\"operator\":\"Exists\",\"effect\":\"NoExecute\","
    "\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/"
    "unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
    "\"tolerationSeconds\":300}]},\"status\":{\"phase\":\"Running\","
    "\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\","
    "\"lastTransitionTime\":\"2026-11-29T05:54:14Z\"},{\"type\":\"Ready\","
    "\"status\":\"True\",\"lastTransitionTime\":\"2026-11-29T05:54:15Z\"},"
    "{\"type\":\"ContainersReady\",\"status\":\"True\","
    "\"lastTransitionTime\":\"2026-11-29T05:54:15Z\"},{\"type\":"
    "\"PodScheduled\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-"
    "29T05:54:14Z\"}],\"hostIP\":\"127.0.0.1\",\"podIP\":\"127.0.0.1\","
    "\"podIPs\":[{\"ip\":\"127.0.0.1\"}],\"startTime\":\"2026-11-29T05:54:"
    "14Z\",\"containerStatuses\":[{\"name\":\"web\",\"state\":{\"running\":"
    "{\"startedAt\":\"2026-11-29T05:54:14Z\"}},\"lastState\":{},\"ready\":"
    "true,\"restartCount\":0,\"image\":\"/srv/example\",\"imageID\":\"\","
    "\"containerID\":\"process://12345\",\"started\":true}]}}";

enum op { PARSE, DECODE, BUILD, PRINT, TEXT, COPY, NOPS };

static const char *const op_name[NOPS] = {
    "parse the stored text (json_loads)",
    "decode the value (object_decode)",
    "build the value (object_encode)",
    "print the value (json_dumps)",
    "print from the typed object (json_text)",
    "copy the typed object (the object cache)",
};

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One call of op on the pod (o decoded, j its value). */
static void
run_op(enum op op, const struct object *o, json_t *j)
{
	struct fielderr_list errs = {0};
	struct strbuf sb = STRBUF_INIT;
	struct object p;

	switch (op) {
	case PARSE:
		json_decref(json_loads(running_pod, 0, NULL));
		break;
	case DECODE:
		object_decode(j, false, &p, &errs);
		object_release(&p);
		fielderr_list_release(&errs);
		break;
	case BUILD:
		json_decref(object_encode(o));
		break;
	case PRINT:
		free(json_dumps(j, JSON_COMPACT));
		break;
	case TEXT:
		object_encode_text(o, true, &sb);
		strbuf_release(&sb);
		break;
	case COPY:
		p.k = o->k;
		p.obj = xcalloc(1, o->k->schema->size);
		schema_copy(o->k->schema, p.obj, o->obj);
		object_release(&p);
		break;
	case NOPS:
		break;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(void)
{
	struct fielderr_list errs = {0};
	double us[NOPS], r[ROUNDS], t;
	json_t *j = json_loads(running_pod, 0, NULL);
	struct object o;
	int op, i, k;

	if (j == NULL || object_decode(j, false, &o, &errs)) {
		fprintf(stderr, "bench/codec: the pod does not decode\n");
		return 1;
	}
	for (op = 0; op < NOPS; op++) {
		for (k = 0; k < ROUNDS; k++) {
			t = now_us();
			for (i = 0; i < CALLS; i++)
				run_op((enum op)op, &o, j);
			r[k] = (now_us() - t) / CALLS;
		}
		qsort(r, ROUNDS, sizeof(r[0]), cmp_double);
		us[op] = r[ROUNDS / 2];
	}
	printf("bench/codec (a running pod, %zu bytes of JSON; us per call, "
	       "median of %d rounds of %d)\n",
	       strlen(running_pod), ROUNDS, CALLS);
	for (op = 0; op < NOPS; op++)
		printf("  %-44s %7.2f us\n", op_name[op], us[op]);
	printf("  the stored text: jansson %.2f us, json_text %.2f us "
	       "(%.2fx)\n",
	       us[BUILD] + us[PRINT], us[TEXT],
	       us[TEXT] / (us[BUILD] + us[PRINT]));
	printf("  the object before a write: from the text %.2f us, from the "
	       "cache %.2f us (%.2fx)\n",
	       us[PARSE] + us[DECODE], us[COPY],
	       us[COPY] / (us[PARSE] + us[DECODE]));
	object_release(&o);
	json_decref(j);
	return 0;
}
