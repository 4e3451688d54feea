/* agent_logpool.c - log files made ahead by a thread: a file taken from
 * the pool is at its path, mode 0600, appended to and named in
 * /proc/self/fd; an existing log is appended to, not replaced, and the
 * pool keeps its file; the pool fills again; a pool that cannot make
 * files, and no pool at all, open plainly; freeing it closes every file
 * it holds. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "logpool.h"

static char dir[64], real[4096];

/* The inodes of this process's unnamed files in dir ("DIR/#INODE
 * (deleted)" in /proc/self/fd): the files the pool holds. */
struct unnamed {
	size_t n;
	ino_t ino[64];
};

static struct unnamed
unnamed(void)
{
	struct unnamed u = {0};
	size_t dl = strlen(real);
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char link[300], path[4096];
		struct stat st;
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		if ((size_t)n > dl + 2 && !strncmp(path, real, dl) &&
		    path[dl] == '/' && path[dl + 1] == '#' &&
		    strstr(path, " (deleted)") && stat(link, &st) == 0 &&
		    u.n < 64)
			u.ino[u.n++] = st.st_ino;
	}
	closedir(d);
	return u;
}

static bool
holds(const struct unnamed *u, ino_t ino)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (u->ino[i] == ino)
			return true;
	return false;
}

/* Waits (5 s at most) until the pool holds n files: its thread then
 * has none in the making, and the unnamed files are the pool's. */
static struct unnamed
wait_full(struct logpool *lp, size_t n)
{
	struct timespec ms = {0, 1000000};
	struct unnamed u;
	int i;

	for (i = 0; i < 5000 && logpool_ready(lp) < n; i++)
		nanosleep(&ms, NULL);
	assert_int_equal(logpool_ready(lp), n);
	u = unnamed();
	assert_int_equal(u.n, n);
	return u;
}

static void
log_path(char *buf, size_t len, int i)
{
	snprintf(buf, len, "%s/default_web-%d_u%d_web.log", dir, i, i);
}

static void
put(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

static void
assert_content(const char *path, const char *want)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* A log opened as the runtime opens it: write-only, appending,
 * close-on-exec, its name in /proc/self/fd (the sweep of live restore
 * reads the name of a process's stdout). */
static void
assert_log_fd(int fd, const char *path)
{
	char link[64], name[4096], want[4096];
	ssize_t n;
	int fl = fcntl(fd, F_GETFL);

	assert_true(fd >= 0);
	assert_int_equal(fl & O_ACCMODE, O_WRONLY);
	assert_true(fl & O_APPEND);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof(name) - 1);
	assert_true(n > 0);
	name[n] = '\0';
	assert_non_null(realpath(path, want));
	assert_string_equal(name, want);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/drover-logpool-XXXXXX");
	if (mkdtemp(dir) == NULL || realpath(dir, real) == NULL)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	(void)state;
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

/* A file of the pool, given its name: a regular file of mode 0600 with
 * one link, the inode the pool held, and what is written to it. */
static void
test_taken_file(void **state)
{
	struct logpool *lp = logpool_new(dir, 4);
	struct unnamed before, after;
	struct stat st, fst;
	char path[256];
	int fd;

	(void)state;
	assert_non_null(lp);
	before = wait_full(lp, 4);
	log_path(path, sizeof(path), 1);
	fd = logpool_open(lp, path);
	assert_log_fd(fd, path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(fstat(fd, &fst), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(st.st_ino, fst.st_ino);
	assert_true(holds(&before, st.st_ino));
	put(fd, "hello\n");
	put(fd, "world\n");
	close(fd);
	assert_content(path, "hello\nworld\n");
	/* and it no longer counts among the pool's */
	after = unnamed();
	assert_false(holds(&after, st.st_ino));
	logpool_free(lp);
	assert_int_equal(unnamed().n, 0);
}

/* An existing log (an agent started again, re-adopting its container)
 * is appended to; the pool keeps the file it took for the next call. */
static void
test_existing_appended(void **state)
{
	struct logpool *lp = logpool_new(dir, 4);
	struct unnamed before, after;
	struct stat st, fst;
	char path[256];
	size_t i;
	int fd;

	(void)state;
	assert_non_null(lp);
	log_path(path, sizeof(path), 2);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd >= 0);
	put(fd, "before\n");
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	before = wait_full(lp, 4);
	fd = logpool_open(lp, path);
	assert_log_fd(fd, path);
	assert_int_equal(fstat(fd, &fst), 0);
	assert_int_equal(fst.st_ino, st.st_ino);
	put(fd, "after\n");
	close(fd);
	assert_content(path, "before\nafter\n");
	after = unnamed();
	for (i = 0; i < before.n; i++)
		assert_true(holds(&after, before.ino[i]));
	logpool_free(lp);
}

/* More files in a row than the pool holds: every one opens (the pool's,
 * then plain ones), and the pool fills again, round after round. */
static void
test_refills(void **state)
{
	struct logpool *lp = logpool_new(dir, 4);
	char path[256];
	int i, round;

	(void)state;
	assert_non_null(lp);
	for (i = 0; i < 20; i++) {
		int fd;

		log_path(path, sizeof(path), 100 + i);
		fd = logpool_open(lp, path);
		assert_log_fd(fd, path);
		put(fd, "x\n");
		close(fd);
		assert_content(path, "x\n");
	}
	for (round = 0; round < 3; round++) {
		struct unnamed u = wait_full(lp, 4);

		for (i = 0; i < 4; i++) {
			struct stat st;
			int fd;

			log_path(path, sizeof(path), 200 + round * 4 + i);
			fd = logpool_open(lp, path);
			assert_log_fd(fd, path);
			assert_int_equal(fstat(fd, &st), 0);
			assert_true(holds(&u, st.st_ino));
			close(fd);
		}
	}
	logpool_free(lp);
	assert_int_equal(unnamed().n, 0);
}

/* No pool: the plain open, new file or existing one. */
static void
test_null_pool(void **state)
{
	struct stat st;
	char path[256];
	int fd;

	(void)state;
	log_path(path, sizeof(path), 3);
	fd = logpool_open(NULL, path);
	assert_log_fd(fd, path);
	put(fd, "one\n");
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fd = logpool_open(NULL, path);
	assert_log_fd(fd, path);
	put(fd, "two\n");
	close(fd);
	assert_content(path, "one\ntwo\n");
	logpool_free(NULL);
}

/* A pool whose directory refuses unnamed files (here: there is none)
 * stops trying; every call opens plainly. */
static void
test_refused(void **state)
{
	char gone[128], path[256];
	struct logpool *lp;
	struct timespec ms = {0, 20000000};
	int fd;

	(void)state;
	snprintf(gone, sizeof(gone), "%s/none", dir);
	lp = logpool_new(gone, 4);
	assert_non_null(lp);
	nanosleep(&ms, NULL);
	log_path(path, sizeof(path), 4);
	fd = logpool_open(lp, path);
	assert_log_fd(fd, path);
	put(fd, "plain\n");
	close(fd);
	assert_content(path, "plain\n");
	assert_int_equal(logpool_ready(lp), 0);
	logpool_free(lp);
	assert_null(logpool_new(dir, 0));
	assert_int_equal(logpool_ready(NULL), 0);
}

/* Freed with files left: every descriptor it had is closed. */
static void
test_free_closes(void **state)
{
	struct logpool *lp;
	struct dirent *e;
	size_t fds = 0, after = 0;
	DIR *d;

	(void)state;
	d = opendir("/proc/self/fd");
	while ((e = readdir(d)) != NULL)
		fds++;
	closedir(d);
	lp = logpool_new(dir, 8);
	assert_non_null(lp);
	wait_full(lp, 8);
	logpool_free(lp);
	assert_int_equal(unnamed().n, 0);
	d = opendir("/proc/self/fd");
	while ((e = readdir(d)) != NULL)
		after++;
	closedir(d);
	assert_int_equal(after, fds);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_taken_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_existing_appended, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refills, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_null_pool, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_free_closes, setup, teardown),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
