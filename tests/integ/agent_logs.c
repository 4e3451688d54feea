/* agent_logs.c - the agent's side of pods/log (logs.c): a container's
 * log from its file with offset, limitBytes and tailLines applied as the
 * kubelet applies them, the worked example of logs.c, an offset past the
 * end (a rotated or new file), the previous run, and the answers for a
 * log that is not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logs.h"

static char dir[64];
static char path[128], prev_path[128];

static int
setup(void **state)
{
	FILE *f;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/drover-logs-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	podlog_path(path, sizeof(path), dir, "default", "web", "u1", "c",
		    false);
	podlog_path(prev_path, sizeof(prev_path), dir, "default", "web", "u1",
		    "c", true);
	/* 10 lines of 10 bytes: "line 0000\n" ... "line 0009\n" */
	f = fopen(path, "w");
	for (i = 0; f && i < 10; i++)
		fprintf(f, "line %04d\n", i);
	if (f == NULL || fclose(f))
		return -1;
	f = fopen(prev_path, "w");
	if (f == NULL || fputs("the run before\n", f) < 0 || fclose(f))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(prev_path);
	return rmdir(dir);
}

static struct podlog_req
req(void)
{
	struct podlog_req rq = {.ns = "default",
				.pod = "web",
				.uid = "u1",
				.container = "c",
				.limit = -1,
				.tail = -1};
	return rq;
}

static int
read_log(const struct podlog_req *rq, struct strbuf *out, int64_t *end,
	 char *msg)
{
	strbuf_reset(out);
	msg[0] = '\0';
	return logs_read(dir, rq, out, end, msg, 256);
}

static void
test_options(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct podlog_req rq = req();
	int64_t end = 0;
	char msg[256];

	(void)state;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_int_equal(out.len, 100);
	assert_int_equal(end, 100);
	/* logs.c's example: limitBytes 50, then the last 2 of those lines */
	rq.limit = 50;
	rq.tail = 2;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_string_equal(out.buf, "line 0003\nline 0004\n");
	assert_int_equal(end, 50);
	/* a follower from 90 gets the last line */
	rq = req();
	rq.offset = 90;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_string_equal(out.buf, "line 0009\n");
	assert_int_equal(end, 100);
	/* past the end: the file started again, all of it */
	rq.offset = 500;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_int_equal(out.len, 100);
	/* tailLines 0: nothing */
	rq = req();
	rq.tail = 0;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_int_equal(out.len, 0);
	/* the previous run */
	rq = req();
	rq.previous = true;
	assert_int_equal(read_log(&rq, &out, &end, msg), 0);
	assert_string_equal(out.buf, "the run before\n");
	strbuf_release(&out);
}

static void
test_missing(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct podlog_req rq = req();
	int64_t end = 0;
	char msg[256];

	(void)state;
	rq.container = "other";
	assert_int_equal(read_log(&rq, &out, &end, msg), 404);
	assert_string_equal(
	    msg, "container \"other\" in pod \"web\" has no log yet");
	rq.previous = true;
	assert_int_equal(read_log(&rq, &out, &end, msg), 400);
	assert_string_equal(msg, "previous terminated container \"other\" in "
				 "pod \"web\" not found");
	strbuf_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_options, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
