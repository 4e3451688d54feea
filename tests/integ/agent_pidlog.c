/* agent_pidlog.c - the journal of started processes: what it says is
 * running after starts, exits, restarts and a torn last line, its
 * rewrite to the running list alone, and the host ports it records. */
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

#include "pidlog.h"

static char dir[64];

struct seen {
	int n;
	char what[8][64];
};

static void
collect(void *arg, const char *uid, const char *container, int pid,
	uint64_t ticks)
{
	struct seen *s = arg;

	if (s->n < 8)
		snprintf(s->what[s->n], sizeof(s->what[0]), "%s/%s %d %llu",
			 uid, container, pid, (unsigned long long)ticks);
	s->n++;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static struct seen
running(void)
{
	struct seen s = {0};

	assert_int_equal(pidlog_running(dir, collect, &s), 0);
	qsort(s.what, (size_t)(s.n < 8 ? s.n : 8), sizeof(s.what[0]), cmp);
	return s;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/drover-pidlog-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/pids", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pids.tmp", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static void
test_starts_and_exits(void **state)
{
	struct pidlog *l = pidlog_open(dir);
	struct seen s;

	(void)state;
	assert_non_null(l);
	assert_int_equal(running().n, 0);
	pidlog_started(l, "u1", "web", 100, 5000, NULL);
	pidlog_started(l, "u1", "side", 101, 5001, NULL);
	pidlog_started(l, "u2", "web", 200, 6000, NULL);
	pidlog_exited(l, "u1", "side");
	pidlog_exited(l, "u2", "web");
	pidlog_started(l, "u2", "web", 201, 6100, NULL); /* restarted */
	pidlog_exited(l, "u3", "web"); /* never started: no-op */
	s = running();
	assert_int_equal(s.n, 2);
	assert_string_equal(s.what[0], "u1/web 100 5000");
	assert_string_equal(s.what[1], "u2/web 201 6100");
	pidlog_close(l);
}

static void
test_torn_last_line_is_skipped(void **state)
{
	struct pidlog *l = pidlog_open(dir);
	char path[128];
	FILE *f;
	struct seen s;

	(void)state;
	pidlog_started(l, "u1", "web", 100, 5000, NULL);
	pidlog_close(l);
	snprintf(path, sizeof(path), "%s/pids", dir);
	f = fopen(path, "a");
	fputs("+ u2 web 300 70", f); /* a crash in the middle of a line */
	fclose(f);
	s = running();
	assert_int_equal(s.n, 1);
	assert_string_equal(s.what[0], "u1/web 100 5000");
}

static void add_port(void *arg, int port);

static void
two_running(void *arg, pidlog_entry_cb cb, void *cb_arg)
{
	(void)arg;
	cb(cb_arg, "u7", "web", 700, 7000, NULL);
	cb(cb_arg, "u8", "web", 800, 8000, "30008");
}

static void
test_compact_keeps_the_running_list(void **state)
{
	struct pidlog *l = pidlog_open(dir);
	char path[128];
	struct stat st;
	struct seen s;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		pidlog_started(l, "u1", "web", 100 + i, 5000 + (uint64_t)i,
			       NULL);
		pidlog_exited(l, "u1", "web");
	}
	assert_true(pidlog_size(l) > 10000);
	assert_int_equal(pidlog_compact(l, two_running, NULL), 0);
	assert_int_equal(pidlog_size(l), 0);
	snprintf(path, sizeof(path), "%s/pids", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size < 100);
	/* appends go on into the new file */
	pidlog_exited(l, "u7", "web");
	pidlog_started(l, "u9", "web", 900, 9000, NULL);
	s = running();
	assert_int_equal(s.n, 2);
	assert_string_equal(s.what[0], "u8/web 800 8000");
	assert_string_equal(s.what[1], "u9/web 900 9000");
	pidlog_close(l);
	{ /* the rewrite keeps the host ports */
		int sum[2] = {0, 0};

		assert_int_equal(pidlog_ports(dir, add_port, sum), 0);
		assert_int_equal(sum[0], 1);
		assert_int_equal(sum[1], 30008);
	}
}

static void
add_port(void *arg, int port)
{
	int *sum = arg;

	sum[0]++;
	sum[1] += port;
}

/* The host ports of every start, running or exited, for the quarantine
 * of an agent started again; the running list is still read as before. */
static void
test_ports_of_every_start(void **state)
{
	struct pidlog *l = pidlog_open(dir);
	int sum[2] = {0, 0};
	struct seen s;

	(void)state;
	assert_non_null(l);
	pidlog_started(l, "u1", "web", 100, 5000, "30000,30001");
	pidlog_started(l, "u2", "web", 200, 6000, "30002");
	pidlog_started(l, "u3", "web", 300, 7000, NULL);
	pidlog_exited(l, "u2", "web");
	pidlog_close(l);
	assert_int_equal(pidlog_ports(dir, add_port, sum), 0);
	assert_int_equal(sum[0], 3);
	assert_int_equal(sum[1], 30000 + 30001 + 30002);
	s = running();
	assert_int_equal(s.n, 2);
	assert_string_equal(s.what[0], "u1/web 100 5000");
	assert_string_equal(s.what[1], "u3/web 300 7000");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_starts_and_exits, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_torn_last_line_is_skipped,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compact_keeps_the_running_list,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ports_of_every_start, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
