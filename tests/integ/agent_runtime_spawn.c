/* agent_runtime_spawn.c - starts on a thread (runtime_spawn.c): the
 * container stays CREATING until the outcome of its posix_spawn comes
 * back to the loop, its status is not written before then, a stop of the
 * pod in between follows the outcome (the process started is stopped and
 * the pod is reported stopped), and a runtime freed with a start under
 * way leaves that process running, as it leaves every other one; a
 * probe's initialDelaySeconds count from the process's start, not from
 * when a busy loop took the outcome in; exits taken in while starts run
 * on their threads lose no process (a pidfd closed before libuv stopped
 * polling it stayed registered through a start's copy of the descriptor
 * table, and its exit was then reported for the container whose pidfd
 * reused the number); an emptyDir volume's directory lives as long as
 * its pod. Real processes (/bin/sleep, /bin/sh), a real loop, a log
 * directory of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "clock.h"
#include "model.h"
#include "object.h"
#include "proc.h"
#include "runtime.h"

static char dir[64];
static uv_loop_t loop;
static int changes, stops, readies;

static void
on_changed(void *arg, const char *ns, const char *name,
	   enum runtime_change what)
{
	(void)arg;
	(void)ns;
	(void)name;
	if (what == RUNTIME_STOPPED)
		stops++;
	else
		changes++;
	if (what == RUNTIME_READY_CHANGED)
		readies++;
}

static struct runtime *
new_runtime(void)
{
	struct runtime_config cfg = {.loop = &loop,
				     .log_dir = dir,
				     .node_name = "n1",
				     .now = clock_now,
				     .changed = on_changed,
				     .port_lo = 23500,
				     .port_hi = 23599,
				     .sec = {-1, -1}}; /* as this process */

	changes = stops = readies = 0;
	return runtime_new(&cfg);
}

/* A pod of one container whose fields after its name are fields (the
 * image and args, then anything more). */
static void
pod_of(const char *uid, const char *fields, struct object *o)
{
	char text[1024];
	json_t *j;
	struct fielderr_list errs = {0};

	snprintf(text, sizeof(text),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
		 "{\"name\":\"p-%s\",\"namespace\":\"default\",\"uid\":\"%s\"},"
		 "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":"
		 "\"c\",%s}]}}",
		 uid, uid, fields);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_int_equal(object_decode(j, true, o, &errs), 0);
	json_decref(j);
	fielderr_list_release(&errs);
}

/* A pod of one container running `/bin/sleep 30`, with the container's
 * fields extra (",\"readinessProbe\":{...}") if not NULL. */
static void
sleeper_with(const char *uid, const char *extra, struct object *o)
{
	char fields[768];

	snprintf(fields, sizeof(fields),
		 "\"image\":\"/bin/sleep\",\"args\":[\"30\"]%s",
		 extra ? extra : "");
	pod_of(uid, fields, o);
}

static void
sleeper(const char *uid, struct object *o)
{
	sleeper_with(uid, NULL, o);
}

/* A pod of one container that exits at once (`/bin/sh -c 'exit 0'`). */
static void
quitter(const char *uid, struct object *o)
{
	pod_of(uid, "\"image\":\"/bin/sh\",\"args\":[\"-c\",\"exit 0\"]", o);
}

/* Turns the loop until *counter reaches want (10 s at most). */
static void
run_until(int *counter, int want)
{
	dtime end = clock_now() + 10000;

	while (*counter < want && clock_now() < end)
		uv_run(&loop, UV_RUN_ONCE);
	assert_true(*counter >= want);
}

struct found {
	int n;
	pid_t pid;
};

static void
count_writer(void *arg, pid_t pid, const char *path)
{
	struct found *f = arg;

	(void)path;
	f->n++;
	f->pid = pid;
}

/* The processes of this test: those writing to a log under dir. */
static struct found
writers(void)
{
	struct found f = {0};

	assert_int_equal(proc_each_writing_under(dir, count_writer, &f), 0);
	return f;
}

static void
free_runtime(struct runtime *rt)
{
	runtime_free(rt);
	uv_run(&loop, UV_RUN_DEFAULT); /* close callbacks, starts under way */
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/drover-spawn-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	return uv_loop_init(&loop);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	assert_int_equal(uv_loop_close(&loop), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The status waits for the outcome, which asks for it. */
static void
test_status_follows_the_outcome(void **state)
{
	struct runtime *rt = new_runtime();
	struct object o;
	struct pod_status st = {0};
	const struct pod *p;

	(void)state;
	sleeper("u1", &o);
	p = o.obj;
	assert_int_equal(runtime_ensure(rt, p), 0);
	assert_false(runtime_status(rt, p, &st)); /* under way */
	assert_int_equal(changes, 0);
	run_until(&changes, 1);
	assert_true(runtime_status(rt, p, &st));
	assert_int_equal(st.container_statuses.n, 1);
	assert_non_null(st.container_statuses.v[0].state.running);
	assert_int_equal(writers().n, 1);
	/* stopped: SIGTERM ends sleep at once */
	if (!runtime_stop(rt, p->metadata.uid, 5))
		run_until(&stops, 1);
	assert_true(runtime_stop(rt, p->metadata.uid, 5));
	assert_int_equal(writers().n, 0);
	schema_release(kind_status_schema(kind_by_id(KIND_POD)), &st);
	object_release(&o);
	free_runtime(rt);
}

/* A stop while the start is under way: not done until the outcome, then
 * the process is stopped and the pod reported stopped. */
static void
test_stop_while_starting(void **state)
{
	struct runtime *rt = new_runtime();
	struct object o;
	const struct pod *p;

	(void)state;
	sleeper("u2", &o);
	p = o.obj;
	assert_int_equal(runtime_ensure(rt, p), 0);
	assert_false(runtime_stop(rt, p->metadata.uid, 5));
	assert_int_equal(stops, 0);
	run_until(&stops, 1);
	assert_int_equal(writers().n, 0); /* stopped, not left running */
	assert_true(runtime_stop(rt, p->metadata.uid, 5)); /* forgotten */
	assert_int_equal(runtime_pods(rt), 0);
	object_release(&o);
	free_runtime(rt);
}

/* Freed with a start under way: the process runs on (it would be taken
 * back or swept by the next agent), nothing leaks. */
static void
test_free_while_starting(void **state)
{
	struct runtime *rt = new_runtime();
	struct object o;
	struct found f;
	dtime end;

	(void)state;
	sleeper("u3", &o);
	assert_int_equal(runtime_ensure(rt, o.obj), 0);
	free_runtime(rt);
	/* the exec may still be under way in the child */
	end = clock_now() + 5000;
	while ((f = writers()).n == 0 && clock_now() < end)
		usleep(10000);
	assert_int_equal(f.n, 1);
	assert_int_equal(kill(-f.pid, SIGKILL), 0);
	assert_int_equal(waitpid(f.pid, NULL, 0), f.pid); /* our child */
	object_release(&o);
}

/* Exits beside starts: pods of `/bin/sleep 30` started while pods of
 * `/bin/sh -c 'exit 0'` end, their exits taken in on the loop while the
 * starts run on their threads. Every sleeper is then reported running,
 * and once every pod is stopped no process of the test is left: a
 * process whose container had been told of another's exit would have
 * been restarted over (restartPolicy Always) and left running, unknown.
 * With the pidfd closed before its poll was stopped this failed in 5 runs
 * out of 5. */
static void
test_exits_beside_starts(void **state)
{
	struct runtime *rt = new_runtime();
	enum { N = 24, ROUNDS = 6 };
	struct object sleepers[N], quitters[N];
	char uid[32];
	int i, r;

	(void)state;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < N; i++) {
			snprintf(uid, sizeof(uid), "q%d-%d", r, i);
			quitter(uid, &quitters[i]);
			assert_int_equal(runtime_ensure(rt, quitters[i].obj),
					 0);
			snprintf(uid, sizeof(uid), "s%d-%d", r, i);
			sleeper(uid, &sleepers[i]);
			assert_int_equal(runtime_ensure(rt, sleepers[i].obj),
					 0);
			uv_run(&loop, UV_RUN_NOWAIT);
		}
		/* a while of exits and restarts beside nothing else */
		{
			dtime end = clock_now() + 300;
			while (clock_now() < end)
				uv_run(&loop, UV_RUN_NOWAIT);
		}
		for (i = 0; i < N; i++) {
			struct pod_status st = {0};
			const struct pod *p = sleepers[i].obj;

			assert_true(runtime_status(rt, p, &st));
			assert_int_equal(st.container_statuses.n, 1);
			if (st.container_statuses.v[0].state.running == NULL)
				fail_msg("sleeper %s not running",
					 p->metadata.name);
			schema_release(kind_status_schema(kind_by_id(KIND_POD)),
				       &st);
		}
		for (i = 0; i < N; i++) {
			const struct pod *p = sleepers[i].obj;
			int before = stops;

			if (!runtime_stop(rt, p->metadata.uid, 5))
				run_until(&stops, before + 1);
			p = quitters[i].obj;
			before = stops;
			if (!runtime_stop(rt, p->metadata.uid, 5))
				run_until(&stops, before + 1);
			object_release(&sleepers[i]);
			object_release(&quitters[i]);
		}
		assert_int_equal(writers().n, 0);
	}
	free_runtime(rt);
}

static double
mono_s(void)
{
	return (double)clock_mono_ns() / 1e9;
}

/* Seconds from runtime_ensure until the container is reported ready,
 * the loop kept busy for 0.5 s right after the start was submitted (the
 * start runs meanwhile on its thread; its outcome waits for the loop).
 * The readiness flip, and only it, is reported as RUNTIME_READY_CHANGED. */
static double
ready_after_busy_loop(const char *uid, const char *probe)
{
	struct runtime *rt = new_runtime();
	struct object o;
	struct pod_status st = {0};
	const struct pod *p;
	double t0, ready = -1;

	sleeper_with(uid, probe, &o);
	p = o.obj;
	t0 = mono_s();
	assert_int_equal(runtime_ensure(rt, p), 0);
	usleep(500000);
	while (mono_s() - t0 < 10) {
		uv_run(&loop, UV_RUN_ONCE);
		if (runtime_status(rt, p, &st) && st.container_statuses.n &&
		    st.container_statuses.v[0].ready) {
			ready = mono_s() - t0;
			/* the flip is told as such (the agent writes it
			 * first), the start was not */
			assert_int_equal(readies, 1);
			assert_true(changes >= 2);
			break;
		}
		assert_int_equal(readies, 0);
		schema_release(kind_status_schema(kind_by_id(KIND_POD)), &st);
		memset(&st, 0, sizeof(st));
	}
	schema_release(kind_status_schema(kind_by_id(KIND_POD)), &st);
	if (!runtime_stop(rt, p->metadata.uid, 5))
		run_until(&stops, 1);
	object_release(&o);
	free_runtime(rt);
	return ready;
}

/* initialDelaySeconds 1 count from the process's start: the first check
 * (which passes) comes about 1 s after the start was submitted, not 1 s
 * after the loop, busy for 0.5 s, took the start in (1.5 s). Both kinds
 * of check: an exec probe (the loop's timer) and a tcpSocket probe (the
 * probe thread), this one against a port the test listens on. */
static void
test_probe_delay_counts_from_the_start(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	char probe[256];
	double t;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	t = ready_after_busy_loop(
	    "u4", ",\"readinessProbe\":{\"exec\":{\"command\":[\"/bin/true\"]},"
		  "\"initialDelaySeconds\":1,\"periodSeconds\":1}");
	assert_true(t >= 1.0);
	assert_true(t < 1.4);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(probe, sizeof(probe),
		 ",\"readinessProbe\":{\"tcpSocket\":{\"host\":\"127.0.0.1\","
		 "\"port\":%d},\"initialDelaySeconds\":1,\"periodSeconds\":1}",
		 ntohs(sa.sin_port));
	t = ready_after_busy_loop("u5", probe);
	assert_true(t >= 1.0);
	assert_true(t < 1.4);
	close(fd);
}

/* emptyDir volumes (runtime_volumes.c): the directory is there before
 * the process starts (mode 0700, the daemon's here: it is not root),
 * the container that mounts it finds it in VOLUME_<NAME>, and it goes,
 * with what the process wrote in it, when the pod is deleted. */
static void
test_empty_dir(void **state)
{
	struct runtime *rt = new_runtime();
	struct fielderr_list errs = {0};
	char vol[256], file[300];
	struct object o;
	const struct pod *p;
	struct stat st;
	dtime end;
	json_t *j;

	(void)state;
	j = json_loads(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
	    "{\"name\":\"p-v\",\"namespace\":\"default\",\"uid\":\"u-v\"},"
	    "\"spec\":{\"nodeName\":\"n1\",\"volumes\":[{\"name\":"
	    "\"cache-dir\",\"emptyDir\":{\"medium\":\"Memory\"}}],"
	    "\"containers\":[{\"name\":\"c\",\"image\":\"/bin/sh\","
	    "\"args\":[\"-c\",\"echo hi >\\\"$VOLUME_CACHE_DIR/f\\\"; "
	    "exec sleep 30\"],\"volumeMounts\":[{\"name\":\"cache-dir\","
	    "\"mountPath\":\"/cache\"}]}]}}",
	    0, NULL);
	assert_non_null(j);
	assert_int_equal(object_decode(j, true, &o, &errs), 0);
	json_decref(j);
	p = o.obj;
	snprintf(vol, sizeof(vol), "%s/volumes/u-v/cache-dir", dir);
	snprintf(file, sizeof(file), "%s/f", vol);
	assert_int_equal(runtime_ensure(rt, p), 0);
	assert_int_equal(stat(vol, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	run_until(&changes, 1);
	end = clock_now() + 10000;
	while (stat(file, &st) != 0 && clock_now() < end)
		uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(stat(file, &st), 0);
	if (!runtime_stop(rt, p->metadata.uid, 5))
		run_until(&stops, 1);
	assert_true(runtime_stop(rt, p->metadata.uid, 5));
	snprintf(vol, sizeof(vol), "%s/volumes/u-v", dir);
	assert_int_equal(stat(vol, &st), -1);
	assert_int_equal(errno, ENOENT);
	fielderr_list_release(&errs);
	object_release(&o);
	free_runtime(rt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_follows_the_outcome),
	    cmocka_unit_test(test_stop_while_starting),
	    cmocka_unit_test(test_free_while_starting),
	    cmocka_unit_test(test_probe_delay_counts_from_the_start),
	    cmocka_unit_test(test_exits_beside_starts),
	    cmocka_unit_test(test_empty_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
