/* test_validate_service.c - Kubernetes' Service defaulting and
 * validation, table by table: each case is a Service built from a few
 * fields, defaulted and validated, and the whole error list, rendered as
 * kubectl prints it ("spec.ports[1].name: Duplicate value: \"http\""),
 * compared in order; then the EndpointSlice and Endpoints rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "defaults.h"
#include "validate.h"
#include "xalloc.h"

struct tport {
	const char *name;
	const char *protocol;
	int64_t port;
	const char *target; /* NULL: unset; "8080" a number, else a name */
	const char *app_protocol;
};

struct tcase {
	const char *what;
	const char *name;
	const char *type;
	const char *sel_key, *sel_value; /* NULL: no selector */
	struct tport ports[4];
	const char *want; /* the errors joined by "\n"; "" for none */
};

static struct service *
build(const struct tcase *c)
{
	struct service *s = xcalloc(1, sizeof(*s));
	size_t i;

	s->metadata.name = xstrdup(c->name ? c->name : "web");
	s->metadata.namespace = xstrdup("default");
	if (c->type)
		s->spec.type = xstrdup(c->type);
	if (c->sel_key)
		strmap_set(&s->spec.selector, c->sel_key, c->sel_value);
	for (i = 0; i < 4 && c->ports[i].port; i++) {
		const struct tport *t = &c->ports[i];
		struct service_port *p =
		    anylist_push((struct anylist *)&s->spec.ports, sizeof(*p));
		char *end;
		long v;

		p->name = t->name ? xstrdup(t->name) : NULL;
		p->protocol = t->protocol ? xstrdup(t->protocol) : NULL;
		p->port = t->port;
		p->app_protocol =
		    t->app_protocol ? xstrdup(t->app_protocol) : NULL;
		if (t->target) {
			v = strtol(t->target, &end, 10);
			p->target_port =
			    *end ? intstr_str(t->target) : intstr_int(v);
		}
	}
	return s;
}

static const struct tcase cases[] = {
    {"valid, one unnamed port",
     NULL,
     NULL,
     "app",
     "web",
     {{NULL, NULL, 80, NULL, NULL}},
     ""},
    {"valid, two named ports, NodePort, appProtocol",
     NULL,
     "NodePort",
     "app",
     "web",
     {{"http", NULL, 80, "http", "http"},
      {"admin", "TCP", 81, "9000", "kubernetes.io/h2c"}},
     ""},
    {"port out of range, both ends",
     NULL,
     NULL,
     "app",
     "web",
     {{"a", NULL, -1, "80", NULL}, {"b", NULL, 65536, "80", NULL}},
     "spec.ports[0].port: Invalid value: -1: must be between 1 and 65535, "
     "inclusive\n"
     "spec.ports[1].port: Invalid value: 65536: must be between 1 and "
     "65535, inclusive"},
    {"names required with several ports, and unique",
     NULL,
     NULL,
     "app",
     "web",
     {{NULL, NULL, 80, NULL, NULL},
      {"http", NULL, 81, NULL, NULL},
      {"http", NULL, 82, NULL, NULL}},
     "spec.ports[0].name: Required value\n"
     "spec.ports[2].name: Duplicate value: \"http\""},
    {"duplicate port and protocol",
     NULL,
     NULL,
     "app",
     "web",
     {{"a", NULL, 80, "http", NULL}, {"b", "TCP", 80, "admin", NULL}},
     "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", "
     "Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, "
     "TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, "
     "NodePort:0}"},
    {"protocol, target port and type refused",
     NULL,
     "ExternalName",
     "app",
     "web",
     {{NULL, "SCTP", 80, "Web_1", NULL}},
     "spec.ports[0].protocol: Unsupported value: \"SCTP\": supported "
     "values: \"TCP\"\n"
     "spec.ports[0].targetPort: Invalid value: \"Web_1\": must contain "
     "only alpha-numeric characters (a-z, 0-9), and hyphens (-)\n"
     "spec.type: Unsupported value: \"ExternalName\": supported values: "
     "\"ClusterIP\", \"NodePort\""},
    {"no ports", NULL, NULL, "app", "web", {{0}}, "spec.ports: Required value"},
    {"selector value syntax",
     NULL,
     NULL,
     "app",
     "web app",
     {{NULL, NULL, 80, NULL, NULL}},
     "spec.selector: Invalid value: \"web app\": a valid label must be an "
     "empty string or consist of alphanumeric characters, '-', '_' or '.', "
     "and must start and end with an alphanumeric character (e.g. "
     "'MyValue',  or 'my_value',  or '12345', regex used for validation "
     "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
    {"name is a DNS-1035 label: a subdomain is not enough",
     "web.example",
     NULL,
     "app",
     "web",
     {{NULL, NULL, 80, NULL, NULL}},
     "metadata.name: Invalid value: \"web.example\": a DNS-1035 label "
     "must consist of lower case alphanumeric characters or '-', start "
     "with an alphabetic character, and end with an alphanumeric "
     "character (e.g. 'my-name',  or 'abc-123', regex used for "
     "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"},
};

static void
render(const struct fielderr_list *e, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (i)
			strbuf_addch(sb, '\n');
		fielderr_format(&e->v[i], sb);
	}
}

static void
test_service_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct service *s = build(&cases[i]);
		struct fielderr_list errs = {0};
		struct strbuf sb = STRBUF_INIT;

		defaults_service(s);
		validate_service(s, &errs);
		render(&errs, &sb);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%s:\n got  %s\n want %s", cases[i].what,
				 sb.buf, cases[i].want);
		strbuf_release(&sb);
		fielderr_list_release(&errs);
		schema_release(&schema_service, s);
		free(s);
	}
}

/* SetDefaults_Service: type ClusterIP, protocol TCP, targetPort = port;
 * what the user wrote stays; defaulting twice changes nothing. */
static void
test_service_defaults(void **state)
{
	struct tcase c = {
	    "",    NULL,
	    NULL,  "app",
	    "web", {{"a", NULL, 80, NULL, NULL}, {"b", NULL, 81, "http", NULL}},
	    ""};
	struct service *s = build(&c), copy;

	(void)state;
	defaults_service(s);
	assert_string_equal(s->spec.type, "ClusterIP");
	assert_string_equal(s->spec.ports.v[0].protocol, "TCP");
	assert_int_equal(s->spec.ports.v[0].target_port.type, INTSTR_INT);
	assert_int_equal(s->spec.ports.v[0].target_port.ival, 80);
	assert_int_equal(s->spec.ports.v[1].target_port.type, INTSTR_STRING);
	assert_string_equal(s->spec.ports.v[1].target_port.sval, "http");
	schema_copy(&schema_service, &copy, s);
	defaults_service(s);
	assert_true(schema_equal(&schema_service, &copy, s));
	schema_release(&schema_service, &copy);
	schema_release(&schema_service, s);
	free(s);
}

static void
test_endpoint_kinds(void **state)
{
	struct endpoint_slice s = {0};
	struct endpoints e = {0};
	struct endpoint *ep;
	struct endpoint_port *p;
	struct endpoint_subset *ss;
	struct fielderr_list errs = {0};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	s.metadata.name = xstrdup("web-x");
	s.address_type = xstrdup("IPv5");
	ep = anylist_push((struct anylist *)&s.endpoints, sizeof(*ep));
	(void)ep; /* no address */
	p = anylist_push((struct anylist *)&s.ports, sizeof(*p));
	p->port = 0;
	defaults_endpoint_slice(&s);
	assert_string_equal(s.ports.v[0].protocol, "TCP");
	validate_endpoint_slice(&s, &errs);
	render(&errs, &sb);
	assert_string_equal(
	    sb.buf, "addressType: Unsupported value: \"IPv5\": supported "
		    "values: \"FQDN\", \"IPv4\", \"IPv6\"\n"
		    "endpoints[0].addresses: Invalid value: null: must "
		    "contain exactly 1 address\n"
		    "ports[0].port: Invalid value: 0: must be between 1 and "
		    "65535, inclusive");
	fielderr_list_release(&errs);
	strbuf_reset(&sb);

	e.metadata.name = xstrdup("web");
	ss = anylist_push((struct anylist *)&e.subsets, sizeof(*ss));
	anylist_push((struct anylist *)&ss->addresses,
		     sizeof(struct endpoint_address));
	validate_endpoints(&e, &errs);
	render(&errs, &sb);
	assert_string_equal(sb.buf,
			    "subsets[0].addresses[0].ip: Required value");
	fielderr_list_release(&errs);
	strbuf_release(&sb);
	schema_release(&schema_endpoint_slice, &s);
	schema_release(&schema_endpoints, &e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_service_table),
	    cmocka_unit_test(test_service_defaults),
	    cmocka_unit_test(test_endpoint_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
