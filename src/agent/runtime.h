/* runtime.h - pods as supervised processes (the process runtime of the
 * node agent).
 *
 * Each container is its own process group (a new session), started with
 * argv from command/args after Kubernetes' $(VAR) expansion, its env
 * (values and the downward fields), its workingDir, and stdout/stderr
 * appended to a log file (files, not pipes, so that a process outlives
 * the agent). What `image` means for a process:
 *   - an absolute path to a directory: the release root; the working
 *     directory defaults to it and a command[0] such as "bin/web" (with
 *     a slash, not absolute) is found in it;
 *   - an absolute path to an executable file, with no command: the program;
 *   - anything else names the release only: command is required.
 * The image is exported as DROVER_IMAGE in every case.
 *
 * Stopping: SIGTERM to the process group, SIGKILL after the grace period.
 * Restarts follow restartPolicy with Kubernetes' back-off (10 s doubling
 * to 5 min, reset after 10 min running) and the CrashLoopBackOff reason.
 * Each container's states, the transitions between them, the back-off
 * and the pod's phase and conditions are pure functions of the core
 * (src/core/plan/pod_status.h); runtime_int.h says how runtime*.c divide the
 * rest.
 *
 * Ports: each declared port gets a host port (PORT, PORT_<NAME>), stable
 * for the pod's life: its hostPort if declared, else one of the agent's
 * range (portalloc.h), never one held by another pod or released less
 * than a minute ago; with the range exhausted the container waits.
 * Probes (probe.h): startup, readiness, liveness.
 *
 * Live restore: processes live in their own sessions and write to files,
 * so they survive the agent; runtime_adopt() takes them back.
 *
 * Ownership: the runtime borrows the loop; every process handle is freed
 * from its close callback; runtime_free() needs the loop to run once
 * more. */
#ifndef DROVER_AGENT_RUNTIME_H
#define DROVER_AGENT_RUNTIME_H

#include <uv.h>

#include "dtime.h"
#include "model.h"
#include "secexec.h"

struct recorder;

struct runtime;

/* A container log is copied to <log>.1 and truncated past this size. */
#define RUNTIME_LOG_MAX (10 * 1024 * 1024)

/* What runtime_config.changed reports of a pod. */
enum runtime_change {
	/* Its status changed: a process started, exited or waits. */
	RUNTIME_CHANGED,
	/* A container's readiness flipped (a probe's verdict): the change
	 * that lets a rollout go on or takes the pod out of the endpoints,
	 * so the status to write first. */
	RUNTIME_READY_CHANGED,
	/* A stopped pod's last process is gone. */
	RUNTIME_STOPPED,
};

struct runtime_config {
	uv_loop_t *loop;
	const char *log_dir; /* the logs, one flat directory (podlog.h) */
	const char *node_name;
	dtime (*now)(void);
	/* Called when a pod's status changed (enum runtime_change). */
	void (*changed)(void *arg, const char *ns, const char *name,
			enum runtime_change what);
	void *arg;
	/* This node's address: the pods' podIP and hostIP, where their host
	 * ports are and where probes without a host go; NULL: 127.0.0.1. */
	const char *address;
	/* The host ports handed out (portalloc.h); 0: the default range. */
	int port_lo, port_hi;
	/* Who runs pods that name no user (secexec.h). */
	struct secdefaults sec;
	/* The kubelet's Events (runtime_events.c: Created, Started,
	 * Killing, Unhealthy, BackOff, Failed); NULL: none. */
	struct recorder *rec;
};

struct runtime *runtime_new(const struct runtime_config *cfg);
void runtime_free(struct runtime *rt);

/* Makes sure the pod's containers run (starts what has not started),
 * and notices a new image, command or args of a container that runs
 * (runtime_update_due). Returns 0, or -1 if the pod is already being
 * stopped. */
int runtime_ensure(struct runtime *rt, const struct pod *p);
/* Takes over a pod that ran before this runtime started (live restore):
 * each container reported running is re-adopted if its pid is alive and
 * started when the status says (pidfd + start time, never a pid alone);
 * one that died meanwhile is handled by the restart policy; host ports are
 * kept. Returns true. */
bool runtime_adopt(struct runtime *rt, const struct pod *p);
/* In-place update (runtime_update.c): runtime_ensure() notices that a
 * container's image, command or args differ from what it runs, marks it
 * not ready (the pod leaves its Services) and keeps the new spec. This
 * says whether such an update waits for runtime_update(), and since when
 * (*since). */
bool runtime_update_due(struct runtime *rt, const char *uid, dtime *since);
/* Carries the waiting updates out: a running container gets SIGTERM
 * (SIGKILL after grace_s) and starts again with the new spec as soon as
 * it exited, in the same pod with the same host ports and log file,
 * without counting a restart (lastState.terminated.reason InPlaceUpdate);
 * one that does not run takes the new spec at its next start. */
void runtime_update(struct runtime *rt, const char *uid, int64_t grace_s);
/* Marks every container of the pod not ready (a pod being deleted leaves
 * the endpoints before it is stopped). */
void runtime_unready(struct runtime *rt, const char *uid);
/* Stops the pod: SIGTERM now, SIGKILL after grace_s. Returns true when
 * nothing of it runs any more (then `changed(stopped)` is not called). */
bool runtime_stop(struct runtime *rt, const char *uid, int64_t grace_s);
/* Fills the runtime part of a pod's status (phase, containerStatuses,
 * conditions, IPs, startTime). Returns false if the pod is unknown, or
 * while a start of one of its containers is under way (its outcome calls
 * `changed` again). */
bool runtime_status(struct runtime *rt, const struct pod *p,
		    struct pod_status *st);
/* Kills the processes the journal of started processes (pidlog.h) says
 * run, or that write to a pod log of this node (podlog.h: a start cut
 * short before its journal line), and that the runtime has not adopted:
 * those of pods `exists` does not
 * know (deleted while the agent was down), and those whose start never
 * reached their pod's status (the agent stopped in between; the
 * container starts again). A process counts only if it is still the one
 * recorded (pid and start time). Then rewrites the journal with the
 * processes running. Call it once the pods of this node have been
 * adopted. Returns the number killed. */
int runtime_sweep(struct runtime *rt,
		  bool (*exists)(void *arg, const char *uid), void *arg);
/* Marks the host ports the pod's status reports as held. Called for every
 * pod of this node when the agent starts, before anything is started, so
 * that live restore keeps them and no new pod gets one. */
void runtime_reserve(struct runtime *rt, const struct pod *p);
/* True if the runtime started (and still tracks) the pod with this uid. */
bool runtime_knows(struct runtime *rt, const char *uid);
/* Number of pods known, for tests and the heartbeat. */
size_t runtime_pods(const struct runtime *rt);

#endif
