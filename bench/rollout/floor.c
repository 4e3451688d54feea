/* floor.c - bench/rollout's floor: the same rollout of the example
 * service with no control plane at all, to tell what the machine itself
 * costs from what drover adds.
 *
 * An ideal controller, in one process, with nothing stored, no API, no
 * watch and no Event: it starts N old processes and waits until each
 * listens (not timed), then rolls them to N new ones under maxSurge S and
 * maxUnavailable U, as a Deployment does:
 *   - at 0 it starts S + U new processes and sends SIGTERM to U old ones;
 *   - a new process is ready 1 s after its start returned (the bench's
 *     readiness probe: initialDelaySeconds 1), if a TCP connect to its
 *     port succeeds then, else at the next check 1 s later (periodSeconds
 *     1);
 *   - each new process that turns ready lets one more old one go and one
 *     more new one start, until N new ones run;
 *   - the rollout ends when N new processes are ready.
 * The starts run on 4 threads (libuv's pool, as in the agent), with
 * posix_spawn, stdout and stderr to a file made ahead, as the agent does.
 *
 * Worked example, N 500, S = U = 125: 250 starts and 125 SIGTERMs at 0;
 * the first wave's processes turn ready 1 s after their own starts, and
 * each lets one old process go and one new one start; the last of the 500
 * is ready 1 s after the last start. With starts that cost nothing it
 * would end at 2.00 s, what `drover plan --simulate` predicts; what it
 * takes beyond that is the machine's: forking, exec and the processes'
 * own start-up and exit on two cores.
 *
 * The ports are PORT_BASE (default 12000) and up, 2N of them, below the
 * kernel's ephemeral range: a connect's own port, left in TIME_WAIT,
 * would keep a process from listening on it.
 *
 * usage: floor EXAMPLE N [PORT_BASE]   (prints "floor <seconds>") */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS    4
#define READY_NS   1000000000LL /* initialDelaySeconds and periodSeconds */
#define GIVE_UP_NS (60 * 1000000000LL) /* a process that never listens */

struct proc {
	pid_t pid;
	int port;
	int log;              /* its stdout and stderr, made ahead */
	long long started_ns; /* when posix_spawn returned; 0: not yet */
	long long check_ns;   /* next readiness check */
	int ready;
};

static const char *example;
static struct proc *olds, *news;
static int n, nstarted_req;
static int spawn_failed; /* a start failed on a worker: main gives up */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct proc *queue[4096];
static int qhead, qtail, quit;

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Starts p's process; its pid in *pid. */
static int
spawn(const struct proc *p, const char *version, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	char port[16], envport[32], envver[32];
	char *argv[] = {"drover-example-web", "--port", port, NULL};
	char *envp[] = {envport, envver, NULL};
	int r;

	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(envport, sizeof(envport), "PORT=%d", p->port);
	snprintf(envver, sizeof(envver), "VERSION=%s", version);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p->log, 1);
	posix_spawn_file_actions_adddup2(&fa, p->log, 2);
	r = posix_spawn(pid, example, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}

static void *
worker(void *arg)
{
	(void)arg;
	for (;;) {
		struct proc *p;
		pid_t pid;

		pthread_mutex_lock(&mu);
		while (qhead == qtail && !quit)
			pthread_cond_wait(&more, &mu);
		if (qhead == qtail) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		p = queue[qhead++ % 4096];
		pthread_mutex_unlock(&mu);
		if (spawn(p, "new", &pid) != 0) {
			pthread_mutex_lock(&mu);
			spawn_failed = 1;
			pthread_mutex_unlock(&mu);
			continue;
		}
		pthread_mutex_lock(&mu);
		p->pid = pid;
		p->started_ns = now_ns();
		p->check_ns = p->started_ns + READY_NS;
		pthread_mutex_unlock(&mu);
	}
}

static void
submit(struct proc *p)
{
	pthread_mutex_lock(&mu);
	queue[qtail++ % 4096] = p;
	pthread_cond_signal(&more);
	pthread_mutex_unlock(&mu);
}

static int
listens(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((unsigned short)port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* An unnamed file in /tmp for a process's output, or -1. */
static int
make_log(void)
{
	return open("/tmp", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
}

/* SIGTERM to every process started, then waits for them all. */
static void
stop_all(void)
{
	int i;

	for (i = 0; i < n; i++) {
		if (olds[i].pid > 0)
			kill(olds[i].pid, SIGTERM);
		if (news[i].pid > 0)
			kill(news[i].pid, SIGTERM);
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
}

/* The process of pid, exited and waited for, is forgotten: its pid may
 * be another process's now, which stop_all must not signal. */
static void
forget(pid_t pid)
{
	int i;

	for (i = 0; i < n; i++) {
		if (olds[i].pid == pid)
			olds[i].pid = 0;
		if (news[i].pid == pid)
			news[i].pid = 0;
	}
}

static void
reap(void)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		pthread_mutex_lock(&mu);
		forget(pid);
		pthread_mutex_unlock(&mu);
	}
}

int
main(int argc, char **argv)
{
	pthread_t th[THREADS];
	int base, surge, unavail, i, nready = 0, nold_left, nkilled = 0;
	int failed = 0;
	long long t0, end = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: floor EXAMPLE N [PORT_BASE]\n");
		return 2;
	}
	example = argv[1];
	n = atoi(argv[2]);
	base = argc > 3 ? atoi(argv[3]) : 12000;
	if (n <= 0 || n > 2000 || base <= 0 || base + 2 * n > 32768) {
		fprintf(stderr, "floor: N 1-2000, ports below 32768\n");
		return 2;
	}
	surge = (n + 3) / 4; /* 25%, rounded up */
	unavail = n / 4;     /* 25%, rounded down */
	olds = calloc((size_t)n, sizeof(*olds));
	news = calloc((size_t)n, sizeof(*news));
	for (i = 0; i < n; i++) {
		olds[i] = (struct proc){.port = base + i, .log = make_log()};
		news[i] =
		    (struct proc){.port = base + n + i, .log = make_log()};
		if (olds[i].log < 0 || news[i].log < 0) {
			perror("floor: a log file in /tmp");
			stop_all();
			return 1;
		}
		if (spawn(&olds[i], "old", &olds[i].pid) != 0) {
			fprintf(stderr, "floor: cannot start %s\n", example);
			stop_all();
			return 1;
		}
	}
	t0 = now_ns();
	for (i = 0; i < n && !failed; i++)
		while (!listens(olds[i].port)) {
			if (now_ns() - t0 > GIVE_UP_NS) {
				fprintf(stderr,
					"floor: port %d never listened\n",
					olds[i].port);
				failed = 1;
				break;
			}
			usleep(1000);
		}
	if (failed) {
		stop_all();
		return 1;
	}
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);

	t0 = now_ns();
	for (i = 0; i < surge + unavail && i < n; i++)
		submit(&news[i]);
	nstarted_req = i;
	for (i = 0; i < unavail; i++)
		kill(olds[nkilled++].pid, SIGTERM);
	nold_left = n - unavail;
	while (nready < n) {
		long long t = now_ns(), next = t + 1000000;

		if (t - t0 > GIVE_UP_NS) {
			fprintf(stderr, "floor: %d of %d never turned ready\n",
				n - nready, n);
			failed = 1;
			break;
		}
		pthread_mutex_lock(&mu);
		if (spawn_failed) {
			pthread_mutex_unlock(&mu);
			fprintf(stderr, "floor: cannot start %s\n", example);
			failed = 1;
			break;
		}
		for (i = 0; i < nstarted_req; i++) {
			struct proc *p = &news[i];

			if (p->ready || p->started_ns == 0)
				continue;
			if (p->check_ns <= t) {
				pthread_mutex_unlock(&mu);
				if (listens(p->port)) {
					p->ready = 1;
					nready++;
					end = now_ns();
					if (nold_left > 0) {
						kill(olds[nkilled++].pid,
						     SIGTERM);
						nold_left--;
					}
					if (nstarted_req < n)
						submit(&news[nstarted_req++]);
				} else {
					p->check_ns += READY_NS;
				}
				pthread_mutex_lock(&mu);
			}
			if (!p->ready && p->check_ns < next)
				next = p->check_ns;
		}
		pthread_mutex_unlock(&mu);
		reap();
		t = now_ns();
		if (next > t) {
			struct timespec ts = {.tv_sec = 0, .tv_nsec = next - t};

			nanosleep(&ts, NULL);
		}
	}
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&mu);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if (!failed)
		printf("floor %.3f\n", (double)(end - t0) / 1e9);
	stop_all();
	return failed;
}
