/* codec_json_text.c - the text encoder (json_text.h) against jansson:
 * for every object the repository's manifests decode to (the golden
 * cases, the examples, the fuzzer's corpus and regressions), with and
 * without defaults, object_encode_text prints exactly
 * json_dumps(object_encode(o), JSON_COMPACT), and without its
 * resourceVersion exactly what the store kept before; strings with every
 * escape jansson makes, and strings that are not UTF-8, which jansson
 * leaves out with their member. */
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
#include "json_text.h"
#include "object.h"
#include "strbuf.h"
#include "strmap.h"

/* jansson's text of o, as the API stored it before json_text.h. */
static char *
jansson_text(const struct object *o, bool no_rv)
{
	json_t *j = object_encode(o);
	char *s;

	if (no_rv)
		json_object_del(json_object_get(j, "metadata"),
				"resourceVersion");
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

/* Both encoders agree on o, with and without the resourceVersion. */
static void
check_same(const struct object *o, const char *what)
{
	int no_rv;

	for (no_rv = 0; no_rv < 2; no_rv++) {
		struct strbuf sb = STRBUF_INIT;
		char *want = jansson_text(o, no_rv);

		object_encode_text(o, no_rv, &sb);
		if (strcmp(want, sb.buf))
			fail_msg("%s (no_rv %d):\njansson: %s\ntext:    %s",
				 what, no_rv, want, sb.buf);
		free(want);
		strbuf_release(&sb);
	}
}

/* Every object of a manifest text, decoded as it is and prepared
 * (defaulted and validated); the number checked. */
static size_t
check_text(const char *buf, size_t len, const char *what)
{
	size_t n = 0, i;
	int prepare;

	for (prepare = 0; prepare < 2; prepare++) {
		struct object_list l = {0};
		struct manifest_errors errs;

		if (manifest_load(buf, len, prepare, &l, &errs) == 0) {
			for (i = 0; i < l.n; i++)
				check_same(&l.v[i], what);
			n += l.n;
			object_list_release(&l);
		} else {
			manifest_errors_release(&errs);
		}
	}
	return n;
}

static size_t
check_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char chunk[4096];
	size_t n, got;

	if (f == NULL)
		return 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(&sb, chunk, n);
	fclose(f);
	got = check_text(sb.buf, sb.len, path);
	strbuf_release(&sb);
	return got;
}

/* The objects of every file under dir whose name ends in suffix ("":
 * any), recursively; how many were checked. */
static size_t
check_dir(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[1024];
		size_t nl = strlen(e->d_name), sl = strlen(suffix);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			n += check_dir(path, suffix);
		else if (nl >= sl && !strcmp(e->d_name + nl - sl, suffix))
			n += check_file(path);
	}
	closedir(d);
	return n;
}

static void
test_repository_manifests(void **state)
{
	(void)state;
	/* run from the source tree (tests/CMakeLists.txt) */
	assert_true(check_dir("tests/golden/cases", ".yaml") > 20);
	assert_true(check_dir("examples", ".yaml") > 5);
	assert_true(check_dir("tests/fuzz/corpus", "") > 5);
	check_dir("tests/fuzz/regressions", "");
	/* what a local fuzzing run found, when there is one (not kept in
	 * git) */
	check_dir("tests/fuzz/corpus-work", "");
}

/* A pod as the API stores it once it runs: status, conditions, probes,
 * tolerations, owner references. */
static const char running_pod[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-"
    "7d9f8c6b5-abcde\",\"generateName\":\"web-7d9f8c6b5-\",\"namespace\":"
    "\"default\",\"uid\":\"2b7a1c9e-4f3d-4e2a-9b1c-0d2e3f4a5b6c\","
    "\"resourceVersion\":\"12345\",\"creationTimestamp\":\"2026-11-29T05:"
    "54:14Z\",\"labels\":{\"app\":\"web\",\"pod-template-hash\":"
    "\"7d9f8c6b5\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
    "\"kind\":\"ReplicaSet\",\"name\":\"web-7d9f8c6b5\",\"uid\":\"9a8b7c6d-"
    "1234-4abc-8def-0123456789ab\",\"controller\":true,"
    "\"blockOwnerDeletion\":true}]},\"spec\":{\"containers\":[{\"name\":"
    "\"web\",\"image\":\"/srv/example\",\"command\":[\"./web\"],\"args\":"
    "[\"--port\",\"$(PORT)\"],\"ports\":[{\"name\":\"http\","
    "\"containerPort\":8080,\"protocol\":\"TCP\"}],\"env\":[{\"name\":"
    "\"VERSION\",\"value\":\"v2\"}],\"resources\":{},\"readinessProbe\":{"
    "\"httpGet\":{\"path\":\"/healthz\",\"port\":\"http\",\"scheme\":"
    "\"HTTP\"},\"initialDelaySeconds\":1,\"timeoutSeconds\":1,"
    "\"periodSeconds\":1,\"successThreshold\":1,\"failureThreshold\":3},"
    "\"terminationMessagePath\":\"/dev/termination-log\","
    "\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":"
    "\"IfNotPresent\"}],\"restartPolicy\":\"Always\","
    "\"terminationGracePeriodSeconds\":5,\"dnsPolicy\":\"ClusterFirst\","
    "\"schedulerName\":\"default-scheduler\",\"nodeName\":\"vm\","
    "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
    "\"operator\":\"Exists\",\"effect\":\"NoExecute\","
    "\"tolerationSeconds\":300}]},\"status\":{\"phase\":\"Running\","
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
    "\"lastTransitionTime\":\"2026-11-29T05:54:15Z\"}],\"hostIP\":"
    "\"127.0.0.1\",\"podIP\":\"127.0.0.1\",\"podIPs\":[{\"ip\":"
    "\"127.0.0.1\"}],\"startTime\":\"2026-11-29T05:54:14Z\","
    "\"containerStatuses\":[{\"name\":\"web\",\"state\":{\"running\":{"
    "\"startedAt\":\"2026-11-29T05:54:14Z\"}},\"lastState\":{},\"ready\":"
    "true,\"restartCount\":0,\"image\":\"/srv/example\",\"imageID\":\"\","
    "\"containerID\":\"process://12345\",\"started\":true}]}}";

static void
test_running_pod(void **state)
{
	(void)state;
	assert_int_equal(check_text(running_pod, strlen(running_pod), "pod"),
			 2);
}

/* A pod whose strings need escapes, or are not UTF-8: s goes into an
 * annotation's value and key, the container's image and an argument. */
static void
check_string(const char *s)
{
	struct object o;
	struct fielderr_list errs = {0};
	json_t *j = json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:{s:[{s:s,s:s}]}}",
			      "apiVersion", "v1", "kind", "Pod", "metadata",
			      "name", "p", "annotations", "a", "b", "spec",
			      "containers", "name", "c", "image", "x");
	struct pod *p;

	assert_int_equal(object_decode(j, false, &o, &errs), 0);
	json_decref(j);
	p = o.obj;
	strmap_set(&p->metadata.annotations, "value", s);
	strmap_set(&p->metadata.annotations, s, "key");
	strmap_set(&p->metadata.annotations, "after", "z");
	free(p->spec.containers.v[0].image);
	p->spec.containers.v[0].image = strdup(s);
	strlist_push(&p->spec.containers.v[0].args, "before");
	strlist_push(&p->spec.containers.v[0].args, s);
	strlist_push(&p->spec.containers.v[0].args, "after");
	check_same(&o, s);
	object_release(&o);
}

static void
test_strings(void **state)
{
	static const char *const cases[] = {
	    "plain",
	    "",
	    "quote \" backslash \\ slash /",
	    "\b\f\n\r\t",
	    "\x01\x1f\x7f",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "lone lead \xc3",
	    "overlong \xc0\x80",
	    "overlong three \xe0\x80\x80",
	    "surrogate \xed\xa0\x80",
	    "past U+10FFFF \xf4\x90\x80\x80",
	    "bad lead \xf5\x80\x80\x80",
	    "stray continuation \x80",
	    "cut \xe2\x82",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_string(cases[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repository_manifests),
	    cmocka_unit_test(test_running_pod),
	    cmocka_unit_test(test_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
