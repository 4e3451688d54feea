/* client_kubeconfig.c - kubeconfig.c: what drover serve writes reads
 * back (server, CA bytes, token, context; mode 0600); kubectl-written
 * shapes: the current context or --context, certificate-authority as a
 * file relative to the kubeconfig's folder, tokenFile,
 * insecure-skip-tls-verify; errors for a missing context, cluster or
 * user, bad base64, and client-certificate credentials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsx.h"
#include "kubeconfig.h"

static const char ca_pem[] = "-----BEGIN CERTIFICATE-----\n"
			     "MIIBfjCCASSgAwIBAgIQ\n"
			     "-----END CERTIFICATE-----\n";

static char root[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/drover-kubeconfig-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int
teardown(void **state)
{
	const char *names[] = {"kubeconfig", "ca.pem", "tok", NULL};
	char p[512];
	int i;

	(void)state;
	for (i = 0; names[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, names[i]);
		unlink(p);
	}
	rmdir(root);
	return 0;
}

static void
put(const char *name, const char *text)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, name);
	assert_int_equal(fsx_write_atomic(p, text, strlen(text), 0600), 0);
}

static void
test_round_trip(void **state)
{
	struct kubeconfig kc;
	char p[512], err[300] = "", *text;
	size_t len;
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "%s/kubeconfig", root);
	assert_int_equal(kubeconfig_write(p, "drover", "https://127.0.0.1:6443",
					  ca_pem, strlen(ca_pem), "0123abcd",
					  err, sizeof(err)),
			 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fsx_read_all(p, &text, &len), 0);
	/* kubectl's field names, the CA base64-encoded on one line */
	assert_non_null(strstr(text, "current-context: drover"));
	assert_non_null(strstr(text, "certificate-authority-data: "
				     "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1"
				     "JSUJmakNDQVNTZ0F3SUJBZ0lRCi0tLS0tRU5EIE"
				     "NFUlRJRklDQVRFLS0tLS0K\n"));
	assert_non_null(strstr(text, "kind: Config"));
	free(text);
	assert_int_equal(kubeconfig_load(p, NULL, &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.context, "drover");
	assert_string_equal(kc.server, "https://127.0.0.1:6443");
	assert_int_equal(kc.ca_len, strlen(ca_pem));
	assert_memory_equal(kc.ca, ca_pem, kc.ca_len);
	assert_string_equal(kc.token, "0123abcd");
	assert_false(kc.insecure);
	kubeconfig_release(&kc);
	/* a token that reads as a number in YAML stays a string */
	assert_int_equal(kubeconfig_write(p, "d", "https://h:1", NULL, 0,
					  "12e3", err, sizeof(err)),
			 0);
	assert_int_equal(kubeconfig_load(p, NULL, &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.token, "12e3");
	assert_null(kc.ca);
	kubeconfig_release(&kc);
}

static const char kubectl_style[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "current-context: a\n"
    "clusters:\n"
    "- name: ca\n"
    "  cluster:\n"
    "    server: https://10.0.0.1:6443\n"
    "    certificate-authority: ca.pem\n"
    "- name: cb\n"
    "  cluster: {server: 'https://b:443', insecure-skip-tls-verify: true}\n"
    "users:\n"
    "- name: ua\n"
    "  user: {tokenFile: tok}\n"
    "- name: ub\n"
    "  user: {client-certificate: /x.crt, client-key: /x.key}\n"
    "contexts:\n"
    "- name: a\n"
    "  context: {cluster: ca, user: ua, namespace: x}\n"
    "- name: b\n"
    "  context: {cluster: cb, user: ub}\n"
    "- name: c\n"
    "  context: {cluster: cb}\n"
    "- name: d\n"
    "  context: {cluster: nope, user: ua}\n"
    "- name: e\n"
    "  context: {cluster: ca, user: nobody}\n";

static void
test_kubectl_shapes(void **state)
{
	struct kubeconfig kc;
	char p[512], err[300] = "";

	(void)state;
	put("ca.pem", ca_pem);
	put("tok", "s3cret\n");
	put("kubeconfig", kubectl_style);
	snprintf(p, sizeof(p), "%s/kubeconfig", root);
	assert_int_equal(kubeconfig_load(p, NULL, &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.context, "a");
	assert_string_equal(kc.server, "https://10.0.0.1:6443");
	assert_string_equal(kc.ca, ca_pem);
	assert_string_equal(kc.token, "s3cret");
	kubeconfig_release(&kc);
	assert_int_equal(kubeconfig_load(p, "c", &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.server, "https://b:443");
	assert_true(kc.insecure);
	assert_null(kc.token);
	assert_null(kc.ca);
	kubeconfig_release(&kc);

	assert_int_equal(kubeconfig_load(p, "b", &kc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "only token and tokenFile"));
	assert_null(kc.server);
	assert_int_equal(kubeconfig_load(p, "zz", &kc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "context \"zz\" not found"));
	assert_int_equal(kubeconfig_load(p, "d", &kc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cluster \"nope\""));
	assert_int_equal(kubeconfig_load(p, "e", &kc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "user \"nobody\" not found"));
	snprintf(p, sizeof(p), "%s/none", root);
	assert_int_equal(kubeconfig_load(p, NULL, &kc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

static void
test_bad_input(void **state)
{
	struct kubeconfig kc;
	char err[300] = "";
	const char *bad64 = "current-context: a\n"
			    "clusters: [{name: c, cluster: {server: "
			    "'https://x', certificate-authority-data: "
			    "'!!notbase64!!'}}]\n"
			    "contexts: [{name: a, context: {cluster: c}}]\n";
	const char *nocur = "clusters: []\ncontexts: []\n";

	(void)state;
	assert_int_equal(kubeconfig_parse(bad64, strlen(bad64), NULL, NULL, &kc,
					  err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "not base64"));
	assert_int_equal(kubeconfig_parse(nocur, strlen(nocur), NULL, NULL, &kc,
					  err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "current-context"));
	assert_int_equal(
	    kubeconfig_parse("- a\n", 4, NULL, NULL, &kc, err, sizeof(err)),
	    -1);
	assert_int_equal(
	    kubeconfig_parse("a: [", 4, NULL, NULL, &kc, err, sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kubectl_shapes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
