/* sys_tlsca.c - drover's CA (tlsca.c) on a temporary directory: the first
 * call makes the CA and a server certificate (files and modes), GnuTLS
 * verifies the chain and the SANs (IP and DNS, and a name not asked for
 * is not covered); a second call with the same names keeps both; a new
 * listen address makes a new server certificate signed by the same CA;
 * a certificate near its end is renewed; a CA certificate without its
 * key is an error, not silently replaced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsx.h"
#include "tlsca.h"

#define NOW ((time_t)1790000000) /* 2026-09-21 */

static char root[256];

static void
path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/tls/%s", root, name);
}

static char *
slurp(const char *name, size_t *len)
{
	char p[512], *buf;
	size_t n;

	path_of(p, sizeof(p), name);
	assert_int_equal(fsx_read_all(p, &buf, len ? len : &n), 0);
	return buf;
}

static mode_t
mode_of(const char *name)
{
	char p[512];
	struct stat st;

	path_of(p, sizeof(p), name);
	assert_int_equal(stat(p, &st), 0);
	return st.st_mode & 0777;
}

static gnutls_x509_crt_t
crt(const char *name)
{
	gnutls_x509_crt_t c;
	size_t len;
	char *pem = slurp(name, &len);
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)len};

	assert_int_equal(gnutls_x509_crt_init(&c), 0);
	assert_int_equal(gnutls_x509_crt_import(c, &d, GNUTLS_X509_FMT_PEM), 0);
	free(pem);
	return c;
}

/* The server certificate verifies against the CA at time now, and the
 * hostname check of GnuTLS (the one TLS clients use) passes for name. */
static void
assert_chain(time_t now, const char *name)
{
	gnutls_x509_crt_t ca = crt("ca.crt"), srv = crt("server.crt");
	unsigned status = 99;

	assert_int_equal(
	    gnutls_x509_crt_verify(srv, &ca, 1,
				   GNUTLS_VERIFY_DISABLE_TIME_CHECKS, &status),
	    0);
	assert_int_equal(status, 0);
	assert_true(gnutls_x509_crt_get_activation_time(srv) <= now);
	assert_true(gnutls_x509_crt_get_expiration_time(srv) >
		    now + 300 * 86400);
	assert_true(gnutls_x509_crt_get_expiration_time(ca) >
		    now + 3000 * 86400);
	assert_int_equal(gnutls_x509_crt_get_ca_status(ca, NULL), 1);
	assert_int_equal(gnutls_x509_crt_get_ca_status(srv, NULL), 0);
	if (name)
		assert_int_not_equal(gnutls_x509_crt_check_hostname(srv, name),
				     0);
	gnutls_x509_crt_deinit(ca);
	gnutls_x509_crt_deinit(srv);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/drover-tlsca-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int
teardown(void **state)
{
	const char *names[] = {"ca.crt", "ca.key", "server.crt", "server.key",
			       NULL};
	char p[512];
	int i;

	(void)state;
	for (i = 0; names[i]; i++) {
		path_of(p, sizeof(p), names[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/tls", root);
	rmdir(p);
	rmdir(root);
	return 0;
}

static int
ensure(const char *const *sans, size_t n, time_t now, struct tlsca_result *res)
{
	char dir[300], err[300] = "";
	int rc;

	snprintf(dir, sizeof(dir), "%s/tls", root);
	rc = tlsca_ensure(dir, sans, n, now, res, err, sizeof(err));
	if (rc)
		print_message("tlsca_ensure: %s\n", err);
	return rc;
}

static void
test_first_start(void **state)
{
	const char *sans[] = {"127.0.0.1", "localhost", "node-a.example"};
	struct tlsca_result res;
	char *srv;
	size_t len;
	struct stat st;
	char p[512];

	(void)state;
	assert_int_equal(ensure(sans, 3, NOW, &res), 0);
	assert_true(res.ca_created);
	assert_true(res.server_created);
	snprintf(p, sizeof(p), "%s/tls", root);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(mode_of("ca.key"), 0600);
	assert_int_equal(mode_of("server.key"), 0600);
	assert_int_equal(mode_of("ca.crt"), 0644);
	assert_int_equal(mode_of("server.crt"), 0644);
	assert_chain(NOW, "127.0.0.1");
	assert_chain(NOW, "localhost");
	assert_chain(NOW, "NODE-A.example");
	srv = slurp("server.crt", &len);
	assert_int_equal(tlsca_covers(srv, len, "127.0.0.1"), 1);
	assert_int_equal(tlsca_covers(srv, len, "localhost"), 1);
	assert_int_equal(tlsca_covers(srv, len, "node-a.example"), 1);
	assert_int_equal(tlsca_covers(srv, len, "127.0.0.2"), 0);
	assert_int_equal(tlsca_covers(srv, len, "other.example"), 0);
	/* an IP SAN is not a DNS SAN of the same text */
	assert_int_equal(tlsca_covers(srv, len, "::1"), 0);
	assert_int_equal(tlsca_covers("junk", 4, "localhost"), -1);
	free(srv);
}

static void
test_kept_then_renamed(void **state)
{
	const char *sans[] = {"127.0.0.1", "localhost"};
	const char *moved[] = {"127.0.0.5", "127.0.0.1", "localhost"};
	struct tlsca_result res;
	char *ca1, *srv1, *ca2, *srv2, *ca3, *srv3;

	(void)state;
	assert_int_equal(ensure(sans, 2, NOW, &res), 0);
	ca1 = slurp("ca.crt", NULL);
	srv1 = slurp("server.crt", NULL);
	/* a restart with the same names, a day later: nothing changes */
	assert_int_equal(ensure(sans, 2, NOW + 86400, &res), 0);
	assert_false(res.ca_created);
	assert_false(res.server_created);
	ca2 = slurp("ca.crt", NULL);
	srv2 = slurp("server.crt", NULL);
	assert_string_equal(ca1, ca2);
	assert_string_equal(srv1, srv2);
	/* --listen 127.0.0.5: a new server certificate, the same CA */
	assert_int_equal(ensure(moved, 3, NOW + 86400, &res), 0);
	assert_false(res.ca_created);
	assert_true(res.server_created);
	ca3 = slurp("ca.crt", NULL);
	srv3 = slurp("server.crt", NULL);
	assert_string_equal(ca1, ca3);
	assert_string_not_equal(srv1, srv3);
	assert_chain(NOW + 86400, "127.0.0.5");
	assert_chain(NOW + 86400, "127.0.0.1");
	free(ca1);
	free(srv1);
	free(ca2);
	free(srv2);
	free(ca3);
	free(srv3);
}

static void
test_renewed_before_expiry(void **state)
{
	const char *sans[] = {"127.0.0.1"};
	struct tlsca_result res;

	(void)state;
	assert_int_equal(ensure(sans, 1, NOW, &res), 0);
	/* 200 days on: more than 90 days left, kept */
	assert_int_equal(ensure(sans, 1, NOW + 200 * 86400, &res), 0);
	assert_false(res.server_created);
	/* 300 days on: 65 days left, renewed by the same CA */
	assert_int_equal(ensure(sans, 1, NOW + 300 * 86400, &res), 0);
	assert_true(res.server_created);
	assert_false(res.ca_created);
	assert_chain(NOW + 300 * 86400, "127.0.0.1");
}

static void
test_missing_server_key(void **state)
{
	const char *sans[] = {"127.0.0.1"};
	struct tlsca_result res;
	char p[512];

	(void)state;
	assert_int_equal(ensure(sans, 1, NOW, &res), 0);
	path_of(p, sizeof(p), "server.key");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(ensure(sans, 1, NOW, &res), 0);
	assert_true(res.server_created);
	assert_int_equal(mode_of("server.key"), 0600);
	assert_chain(NOW, "127.0.0.1");
}

static void
test_ca_without_key(void **state)
{
	const char *sans[] = {"127.0.0.1"};
	struct tlsca_result res;
	char p[512], dir[300], err[300] = "";
	char *ca1, *ca2;

	(void)state;
	assert_int_equal(ensure(sans, 1, NOW, &res), 0);
	ca1 = slurp("ca.crt", NULL);
	path_of(p, sizeof(p), "ca.key");
	assert_int_equal(unlink(p), 0);
	snprintf(dir, sizeof(dir), "%s/tls", root);
	assert_int_equal(
	    tlsca_ensure(dir, sans, 1, NOW, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ca.crt"));
	ca2 = slurp("ca.crt", NULL);
	assert_string_equal(ca1, ca2);
	free(ca1);
	free(ca2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_first_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kept_then_renamed, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_renewed_before_expiry, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_missing_server_key, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_ca_without_key, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
