#!/usr/bin/python3
"""chaos.py - the crash campaign: rollouts of real processes (the example
service) under `drover serve --runtime process`, with SIGKILL of the
daemon at random moments (right after a write, during a rollout, during
a scale, during an undo, during a write, right after a restart), an
observer checking the rollout budget all along, and checks at the end of
each trial (rollout complete, no duplicate or orphan process, no lost
revision).

    chaos.py [--seconds N] [--seed S] [--trials N] [--build DIR]
             [--actions N] [--max-replicas N] [--traffic]
             [--host-port-range A-B]

Trial i of a campaign with seed S runs scenario S+i; a failed trial is
replayed alone with `--seed S+i --trials 1` (or `make chaos
CHAOS_SEED=S+i CHAOS_TRIALS=1`). Exits 1 if any trial failed or left a
process behind, 0 otherwise.

The budget, at every sample of the observer (about every 50 ms):
- pods that count (not terminating) <= replicas + maxSurge, read from
  the API while the daemon is up;
- service processes that answer GET /healthz with 200 (ready: the pods
  have a readiness probe on it and minReadySeconds 0, so a ready process
  is an available pod) >= replicas - maxUnavailable, read from the
  processes themselves (their host port is in their environment, $PORT),
  so also while the daemon is down.
While a scale is in progress both bounds take the wider of the old and
the new replica count, as Kubernetes' own guarantee does; the lower
bound applies from the first complete rollout of a trial on. A lower
bound that rises (the next change after a scale-up that was not waited
for) is in force from the first sample that reaches it: until then the
new pods may still be starting, and the earlier bound holds. One that is
not reached within LO_DEADLINE seconds is a violation.

Traffic trials (every trial whose scenario number is a multiple of 3):
a Deployment with maxUnavailable 0 behind a Service in HTTP mode, wrk
sending keep-alive requests through the Service's port for the whole
trial, and rollouts each followed by a SIGKILL of the daemon at a random
point in the next 1.5 s (and sometimes another right after the restart).
Every request must be answered 2xx: a non-2xx response or a socket error
fails the trial. The counts are summed in the campaign's summary. With
--traffic (make chaos CHAOS_TRAFFIC=1) every trial is a traffic trial."""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import re
import shutil
import socket

import requests

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
NAME = "web"
REVISION = "deployment.kubernetes.io/revision"
LO_DEADLINE = 60  # s: a raised lower bound must be reached by then


class Violation(Exception):
    """A broken promise: what was violated, in words."""


# ---- processes ----------------------------------------------------------

def service_pids(data_dir, with_proxy=True):
    """The service processes a daemon on data_dir started and that are
    still there: each leads its own process group and writes its standard
    output to a pod log under DIR/pods; and its proxy process (which
    writes to DIR/proxy.log; it runs while a Service exists)."""
    logs = os.path.realpath(data_dir) + "/pods/"
    proxy_log = os.path.realpath(data_dir) + "/proxy.log"
    out = []
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % e) as f:
                st = f.read().rsplit(")", 1)[1].split()
            if st[0] == "Z" or st[2] != e:
                continue
            fd1 = os.readlink("/proc/%s/fd/1" % e)
            if fd1.startswith(logs) or (with_proxy and fd1 == proxy_log):
                out.append(int(e))
        except OSError:
            continue
    return sorted(out)


def stop_left(data_dir):
    """Kills, by PID, every service process the daemon on data_dir left
    running; returns their pids (none: a clean end)."""
    left = service_pids(data_dir)
    for pid in left:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it was exiting by itself
    return left


def environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return {}
    return dict(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)


def answers(port, session):
    """True if the service on port answers /healthz with 200; one retry on
    a timeout (a loaded machine), none on a refusal (a draining process
    has closed its listening socket)."""
    for _ in range(2):
        try:
            return session.get("http://127.0.0.1:%s/healthz" % port,
                               timeout=2).status_code == 200
        except requests.exceptions.Timeout:
            continue
        except requests.exceptions.RequestException:
            return False
    return False


def ready_processes(data_dir, session):
    """The service processes of data_dir that answer as ready. Listed
    again after the probes, so that one started meanwhile is not missed."""
    seen, ready = set(), set()
    for _ in range(2):
        for pid in service_pids(data_dir):
            if pid in seen:
                continue
            seen.add(pid)
            port = environ(pid).get("PORT")
            if port and answers(port, session):
                ready.add(pid)
    return ready


def running_pids(pods):
    out = []
    for p in pods:
        for cs in p.get("status", {}).get("containerStatuses", []):
            cid = cs.get("containerID", "")
            if cid.startswith("drover://") and "running" in cs.get("state", {}):
                out.append(int(cid[len("drover://"):].split("-")[0]))
    return sorted(out)


def poll(pred, timeout, what):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            raise Violation("timed out after %ds waiting for %s" % (timeout, what))
        time.sleep(0.05)


# ---- the daemon ---------------------------------------------------------

class Daemon:
    """One `drover serve --runtime process` on data_dir, TCP on a port the
    kernel chooses (read back from its log)."""

    def __init__(self, drover, data_dir):
        self.bin, self.dir = drover, data_dir
        self.proc, self.port, self.token = None, None, None
        self.kills = 0
        self.log_path = os.path.join(data_dir, "serve.log")

    def start(self):
        log = open(self.log_path, "ab")
        offset = log.tell()
        self.proc = subprocess.Popen(
            [self.bin, "serve", "--data-dir", self.dir, "--listen", "127.0.0.1:0",
             "--runtime", "process"] + HOST_PORTS, stdout=log, stderr=log)
        log.close()

        def listening():
            if self.proc.poll() is not None:
                raise Violation("drover serve exited at start: " + self.tail(offset))
            with open(self.log_path, errors="replace") as f:
                f.seek(offset)
                m = re.search(r"listening on https://[0-9.]+:([0-9]+)", f.read())
            return int(m.group(1)) if m else None
        port = poll(listening, 30, "drover serve to listen")
        tok = os.path.join(self.dir, "token")
        poll(lambda: os.path.exists(tok) and open(tok).read().strip(), 10, "the token")
        self.token = open(tok).read().strip()
        self.port = port

    def tail(self, offset=0):
        with open(self.log_path, errors="replace") as f:
            f.seek(offset)
            return f.read()[-2000:]

    def up(self):
        return self.proc is not None and self.proc.poll() is None and self.port

    def sigkill(self):
        self.port = None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.kills += 1

    def stop(self):
        """SIGTERM; a clean exit and no sanitizer report are required."""
        self.port = None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                raise Violation("drover serve did not exit on SIGTERM")
        if self.proc.returncode != 0:
            raise Violation("drover serve exited %d on SIGTERM: %s"
                            % (self.proc.returncode, self.tail()))
        self.sanitizers()

    def sanitizers(self):
        text = open(self.log_path, errors="replace").read()
        for needle in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                       "runtime error:"):
            i = text.find(needle)
            if i >= 0:
                raise Violation("sanitizer report in the daemon's log: "
                                + text[i:i + 1500])

    def req(self, method, path, body=None, ct="application/json", timeout=10):
        port = self.port
        if not port:
            raise requests.exceptions.ConnectionError("the daemon is down")
        h = {"Content-Type": ct, "Authorization": "Bearer " + self.token}
        return requests.request(method, "https://127.0.0.1:%d%s" % (port, path),
                                json=body, headers=h, timeout=timeout,
                                verify=os.path.join(self.dir, "tls", "ca.crt"))

    def cli(self, *args, timeout=30):
        # HTTPS through the kubeconfig drover serve rewrites at each start
        # (the port changes); while the daemon is down it names the old
        # port, which refuses.
        env = dict(os.environ, KUBECONFIG=os.path.join(self.dir, "kubeconfig"))
        env.pop("DROVER_SERVER", None)
        env.pop("DROVER_TOKEN", None)
        return subprocess.Popen([self.bin] + list(args), env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# ---- the observer -------------------------------------------------------

class Observer:
    """Samples pods (API) and ready processes (their ports) until closed;
    records every violation of the bounds in force at the sample."""

    def __init__(self, dm, lo_deadline=LO_DEADLINE):
        self.dm, self.lock = dm, threading.Lock()
        self.hi = None       # replicas + maxSurge, or None before the first write
        self.lo = None       # replicas - maxUnavailable, or None (not yet)
        # a raised lower bound not reached yet, and since when
        self.lo_want, self.lo_since = None, None
        self.lo_deadline = lo_deadline
        self.gen = 0         # bumped by each bounds() call
        self.samples = self.down_samples = 0
        self.min_ready = None
        self.max_pods = 0
        self.violations = []
        self.session = requests.Session()
        self.stopped = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def bounds(self, hi, lo):
        """The bounds from now on. A lower bound above the one in force
        waits until a sample reaches it (see the module's doc)."""
        with self.lock:
            self.hi = hi
            self.gen += 1
            if lo is None or (self.lo is not None and lo <= self.lo):
                self.lo, self.lo_want, self.lo_since = lo, None, None
            else:
                self.lo_want, self.lo_since = lo, time.monotonic()

    def raise_lo(self, ready):
        """Called with the lock held: the raised bound is in force once
        ready reaches it; past the deadline, a violation."""
        if self.lo_want is None:
            return
        if ready >= self.lo_want:
            self.lo, self.lo_want = self.lo_want, None
        elif time.monotonic() - self.lo_since > self.lo_deadline:
            self.violations.append(
                "%d ready service processes, still below replicas - "
                "maxUnavailable = %d %ds after the bound rose"
                % (ready, self.lo_want, self.lo_deadline))
            self.lo_want = None

    def run(self):
        while not self.stopped:
            try:
                self.sample()
            except Exception as e:  # noqa: BLE001 - recorded, not lost
                self.violations.append("observer error: %r" % e)
            time.sleep(0.05)

    def sample(self):
        with self.lock:
            hi, gen = self.hi, self.gen
        pods = None
        if self.dm.up():
            try:
                r = self.dm.req("GET", CORE + "/pods", timeout=5)
                if r.status_code == 200:
                    pods = r.json()["items"]
            except (requests.exceptions.RequestException, ValueError):
                pods = None  # killed meanwhile
        ready = ready_processes(self.dm.dir, self.session)
        with self.lock:
            if gen != self.gen:
                return  # the bounds changed during the sample: not judged
            self.raise_lo(len(ready))
            lo = self.lo
        self.samples += 1
        if pods is None:
            self.down_samples += 1
        else:
            counting = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
            self.max_pods = max(self.max_pods, len(counting))
            if hi is not None and len(counting) > hi:
                self.violations.append(
                    "%d pods that count > replicas + maxSurge = %d: %s" % (
                        len(counting), hi,
                        sorted(p["metadata"]["name"] for p in counting)))
        if lo is not None:
            self.min_ready = len(ready) if self.min_ready is None else min(
                self.min_ready, len(ready))
            if len(ready) < lo:
                self.violations.append(
                    "%d ready service processes < replicas - maxUnavailable = %d "
                    "(daemon %s)" % (len(ready), lo, "up" if pods is not None else "down"))

    def close(self):
        self.stopped = True
        self.t.join(timeout=30)


# ---- one trial ----------------------------------------------------------

def template(example, version, start_delay):
    return {"metadata": {"labels": {"app": NAME}},
            "spec": {"terminationGracePeriodSeconds": 2,
                     "containers": [{
                         "name": "web", "image": "web:" + version,
                         "command": [example], "args": ["--port", "$(PORT)"],
                         "ports": [{"name": "http", "containerPort": 8080}],
                         "env": [{"name": "START_DELAY_MS", "value": str(start_delay)}],
                         "readinessProbe": {
                             "httpGet": {"path": "/healthz", "port": "http"},
                             "periodSeconds": 1, "timeoutSeconds": 1}}]}}


def image_of(obj):
    return obj["spec"]["template"]["spec"]["containers"][0]["image"]


class Trial:
    """One scenario: a Deployment created, then changed a few times (new
    template, scale, undo) with SIGKILLs of the daemon; rng drives every
    choice."""

    def __init__(self, seed, drover, example, actions, log, max_replicas=4):
        self.seed, self.rng = seed, random.Random(seed)
        self.max_replicas = max_replicas
        self.drover, self.example, self.n_actions = drover, example, actions
        self.log = log
        self.revisions = {}  # revision -> image, as Kubernetes numbers them
        self.image = None    # the template the Deployment has
        self.versions = 0
        self.events = []     # what happened, for the failure report

    def note(self, what):
        self.events.append(what)

    # -- the model: what Kubernetes does to revisions --

    def new_image(self):
        self.versions += 1
        return "web:v%d" % self.versions

    def model_template(self, image):
        """A template change: the ReplicaSet of that template, if there is
        one, takes the next revision; else a new one is made."""
        top = max(self.revisions) if self.revisions else 0
        for rev, img in list(self.revisions.items()):
            if img == image:
                if rev != top:
                    del self.revisions[rev]
                    self.revisions[top + 1] = image
                break
        else:
            self.revisions[top + 1] = image
        self.image = image

    # -- daemon restarts around a write --

    def restart(self, dm):
        dm.start()
        if self.rng.random() < 0.2:  # and again while it resyncs
            time.sleep(self.rng.uniform(0, 0.3))
            self.note("sigkill right after the restart")
            dm.sigkill()
            time.sleep(self.rng.uniform(0, 0.3))
            dm.start()

    def crash(self, dm, why):
        self.note("sigkill " + why)
        dm.sigkill()
        time.sleep(self.rng.uniform(0, 1.0))  # services run on, unwatched
        self.restart(dm)

    def deployment(self, dm):
        r = dm.req("GET", APPS + "/deployments/" + NAME)
        if r.status_code != 200:
            raise Violation("GET deployment: %d %s" % (r.status_code, r.text))
        return r.json()

    def write(self, dm, do, applied, kill_during):
        """Runs do() (one write) until applied() says the Deployment has it;
        with kill_during, SIGKILLs the daemon while do() runs."""
        for attempt in range(5):
            if kill_during and attempt == 0:
                t = threading.Thread(target=lambda: self.quiet(do))
                t.start()
                time.sleep(self.rng.uniform(0, 0.03))
                self.note("sigkill during the write")
                dm.sigkill()
                t.join(timeout=40)
                self.restart(dm)
            else:
                self.quiet(do)
            if applied():
                return
        raise Violation("a write was not applied after 5 attempts")

    @staticmethod
    def quiet(do):
        try:
            do()
        except (requests.exceptions.RequestException, subprocess.TimeoutExpired,
                ValueError, Violation):
            pass  # the daemon was killed under it: read back and retry

    def put(self, dm, change):
        for _ in range(20):
            cur = self.deployment(dm)
            change(cur)
            r = dm.req("PUT", APPS + "/deployments/" + NAME, cur)
            if r.status_code != 409:
                return r
        return r

    # -- the trial --

    def run(self, dm, obs):
        rng = self.rng
        replicas = rng.randint(2, self.max_replicas)
        surge = rng.randint(0, 2)
        unavail = rng.randint(0 if surge else 1, 1)
        delay = rng.choice([0, 300, 1000])
        self.note("replicas %d maxSurge %d maxUnavailable %d startDelay %dms"
                  % (replicas, surge, unavail, delay))
        image = self.new_image()
        body = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": NAME},
                "spec": {"replicas": replicas, "progressDeadlineSeconds": 600,
                         "revisionHistoryLimit": 50,
                         "selector": {"matchLabels": {"app": NAME}},
                         "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                             "maxSurge": surge, "maxUnavailable": unavail}},
                         "template": template(self.example, image.split(":")[1], delay)}}
        obs.bounds(replicas + surge, None)
        self.note("create %s" % image)
        r = dm.req("POST", APPS + "/deployments", body)
        if r.status_code != 201:
            raise Violation("create: %d %s" % (r.status_code, r.text))
        self.model_template(image)
        if rng.random() < 0.5:
            time.sleep(rng.uniform(0, 0.05))
            self.crash(dm, "right after the create")
        self.wait_complete(dm, replicas)
        obs.bounds(replicas + surge, replicas - unavail)

        for _ in range(self.n_actions):
            kind = rng.choice(["update", "update", "scale", "undo"])
            if kind == "undo" and len(self.revisions) < 2:
                kind = "update"
            kill = rng.choice(["none", "after-write", "during-write", "mid-rollout"])
            self.note("%s (kill: %s)" % (kind, kill))
            if kind == "update":
                image = self.new_image()

                def do(img=image):
                    self.put(dm, lambda d: d["spec"]["template"].update(
                        template(self.example, img.split(":")[1], delay)))
                self.write(dm, do, lambda img=image: image_of(self.deployment(dm)) == img,
                           kill == "during-write")
                self.model_template(image)
            elif kind == "scale":
                new = rng.choice([n for n in range(1, self.max_replicas + 2)
                                  if n != replicas])
                obs.bounds(max(replicas, new) + surge, min(replicas, new) - unavail)

                def do(n=new):
                    self.put(dm, lambda d: d["spec"].__setitem__("replicas", n))
                self.write(dm, do, lambda n=new: self.deployment(dm)["spec"]["replicas"] == n,
                           kill == "during-write")
                self.note("scaled %d -> %d" % (replicas, new))
                replicas = new
            else:  # undo to the revision before the current one
                target = self.revisions[sorted(self.revisions)[-2]]

                def do():
                    p = dm.cli("rollout", "undo", "deployment/" + NAME)
                    try:
                        out, err = p.communicate(timeout=30)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.communicate()
                        raise
                    self.note("undo: exit %d %s%s" % (p.returncode, out.strip(), err.strip()))
                self.write(dm, do, lambda: image_of(self.deployment(dm)) == target,
                           kill == "during-write")
                self.model_template(target)
            if kill == "after-write":
                time.sleep(rng.uniform(0, 0.05))
                self.crash(dm, "right after the write")
            elif kill == "mid-rollout":
                time.sleep(rng.uniform(0.05, 2.0))
                self.crash(dm, "during the rollout")
            # the controller has taken the change in (the revision exists)
            poll(lambda: self.observed(dm), 60, "observedGeneration to reach generation")
            if rng.random() < 0.4:
                self.wait_complete(dm, replicas)
                obs.bounds(replicas + surge, replicas - unavail)
        self.wait_complete(dm, replicas)
        obs.bounds(replicas + surge, replicas - unavail)
        self.check_processes(dm, replicas)
        self.check_revisions(dm)

    def observed(self, dm):
        try:
            d = self.deployment(dm)
        except requests.exceptions.RequestException:
            return False
        return d.get("status", {}).get("observedGeneration", 0) >= d["metadata"]["generation"]

    def wait_complete(self, dm, replicas):
        """Kubernetes' complete: observedGeneration == generation, updated ==
        available == replicas (no old pod left), Available True and
        Progressing True with reason NewReplicaSetAvailable."""
        last = {}

        def complete():
            d = self.deployment(dm)
            st = d.get("status", {})
            conds = {c["type"]: c for c in st.get("conditions", [])}
            last["status"] = st
            last["generation"] = d["metadata"]["generation"]
            return (st.get("observedGeneration") == d["metadata"]["generation"] and
                    d["spec"]["replicas"] == replicas and
                    st.get("updatedReplicas", 0) == replicas and
                    st.get("availableReplicas", 0) == replicas and
                    st.get("replicas", 0) == replicas and
                    image_of(d) == self.image and
                    conds.get("Available", {}).get("status") == "True" and
                    conds.get("Progressing", {}).get("reason") == "NewReplicaSetAvailable")
        try:
            poll(complete, 60, "the rollout of %s at %d replicas to complete"
                 % (self.image, replicas))
        except Violation as e:
            raise Violation("%s; last status (generation %s): %s"
                            % (e, last.get("generation"), last.get("status")))

    def check_processes(self, dm, replicas, timeout=30):
        """No duplicate or orphan: once no pod is terminating, the service
        processes of the data dir are exactly the running containers the
        pods report, one per replica, each running the current template."""
        state = {}

        def exact():
            pods = dm.req("GET", CORE + "/pods").json()["items"]
            reported = running_pids(pods)
            procs = service_pids(dm.dir, with_proxy=False)
            state.update(pods=len(pods), reported=reported, procs=procs)
            return (len(pods) == replicas and reported == procs and
                    len(procs) == replicas and
                    all(environ(p).get("DROVER_IMAGE") == self.image for p in procs))
        try:
            poll(exact, timeout, "the service processes to be exactly the pods'")
        except Violation:
            dup = sorted(set(state["procs"]) - set(state["reported"]))
            lost = sorted(set(state["reported"]) - set(state["procs"]))
            raise Violation("processes are not the pods': %d pods, reported %s, "
                            "running %s (not reported: %s, reported but gone: %s)"
                            % (state["pods"], state["reported"], state["procs"], dup, lost))

    def check_revisions(self, dm):
        """The annotation is the top revision; `drover rollout history`
        and the ReplicaSets list each revision the trial made, in order,
        each with its template."""
        want = sorted(self.revisions)
        d = self.deployment(dm)
        got = d["metadata"].get("annotations", {}).get(REVISION)
        if got != str(want[-1]):
            raise Violation("revision annotation %s, want %d" % (got, want[-1]))
        rss = dm.req("GET", APPS + "/replicasets").json()["items"]
        have = {}
        for rs in rss:
            rev = rs["metadata"].get("annotations", {}).get(REVISION)
            have[int(rev) if rev else -1] = image_of(rs)
        if have != self.revisions:
            raise Violation("ReplicaSets by revision %s, want %s"
                            % (sorted(have.items()), sorted(self.revisions.items())))
        p = dm.cli("rollout", "history", "deployment/" + NAME)
        out, err = p.communicate(timeout=30)
        listed = [int(l.split()[0]) for l in out.splitlines()[2:] if l.strip()]
        if p.returncode != 0 or listed != want:
            raise Violation("rollout history lists %s (exit %d %s), want %s"
                            % (listed, p.returncode, err.strip(), want))


class Load:
    """wrk sending keep-alive requests through the Service's port (8
    connections, as fast as they are answered) until result()."""

    def __init__(self, port):
        wrk = shutil.which("wrk")
        if wrk is None:
            raise Violation("wrk is not installed (scripts/deps.sh test)")
        self.p = subprocess.Popen(
            [wrk, "-t1", "-c8", "-d3600s", "--timeout", "5s",
             "http://127.0.0.1:%d/" % port],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def result(self):
        """(requests, non-2xx, socket errors, wrk's text)."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        out = self.p.communicate(timeout=60)[0]
        m = re.search(r"(\d+) requests in", out)
        sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), "
                         r"timeout (\d+)", out)
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        if m is None:
            raise Violation("wrk said: " + out[-500:])
        return (int(m.group(1)), int(bad.group(1)) if bad else 0,
                sum(int(x) for x in sock.groups()) if sock else 0, out)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class TrafficTrial(Trial):
    """Requests through a Service while the daemon is killed right after
    rollouts: a Deployment with maxUnavailable 0 (a ready endpoint is
    always there), appProtocol http, wrk all along; every answer must be
    2xx (issue 32, item 3)."""

    requests = non2xx = sock_errors = 0

    def run(self, dm, obs):
        rng = self.rng
        replicas = rng.randint(2, max(2, self.max_replicas))
        delay = rng.choice([0, 300])
        self.note("traffic: replicas %d maxSurge 1 maxUnavailable 0 startDelay %dms"
                  % (replicas, delay))
        image = self.new_image()
        body = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": NAME},
                "spec": {"replicas": replicas, "progressDeadlineSeconds": 600,
                         "revisionHistoryLimit": 50,
                         "selector": {"matchLabels": {"app": NAME}},
                         "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                             "maxSurge": 1, "maxUnavailable": 0}},
                         "template": template(self.example, image.split(":")[1], delay)}}
        port = free_port()
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": NAME},
               "spec": {"selector": {"app": NAME}, "ports": [{
                   "name": "http", "port": port, "targetPort": "http",
                   "appProtocol": "http"}]}}
        obs.bounds(replicas + 1, None)
        for path, obj in ((APPS + "/deployments", body), (CORE + "/services", svc)):
            r = dm.req("POST", path, obj)
            if r.status_code != 201:
                raise Violation("create %s: %d %s" % (path, r.status_code, r.text))
        self.model_template(image)
        self.wait_complete(dm, replicas)
        obs.bounds(replicas + 1, replicas)
        poll(lambda: self.answers(port), 30, "the Service to answer")
        load = Load(port)
        try:
            time.sleep(0.5)  # load before the first change
            for _ in range(self.n_actions):
                image = self.new_image()
                self.put(dm, lambda d, img=image: d["spec"]["template"].update(
                    template(self.example, img.split(":")[1], delay)))
                self.model_template(image)
                time.sleep(rng.uniform(0, 1.5))
                self.crash(dm, "after a rollout began, under load")
                poll(lambda: self.observed(dm), 60,
                     "observedGeneration to reach generation")
                self.wait_complete(dm, replicas)
            time.sleep(0.5)  # and after the last
        finally:
            n, bad, sock, text = load.result()
        TrafficTrial.requests += n
        TrafficTrial.non2xx += bad
        TrafficTrial.sock_errors += sock
        self.note("traffic: %d requests, %d non-2xx, %d socket errors" % (n, bad, sock))
        if bad or sock:
            raise Violation("%d of %d requests through the Service answered non-2xx, "
                            "%d socket errors: %s" % (bad, n, sock, text.strip()[-400:]))
        self.check_processes(dm, replicas)
        self.check_revisions(dm)

    @staticmethod
    def answers(port):
        try:
            return requests.get("http://127.0.0.1:%d/" % port, timeout=2).status_code == 200
        except requests.exceptions.RequestException:
            return False


TRAFFIC_ONLY = False  # --traffic: every scenario is a traffic trial
HOST_PORTS = []  # --host-port-range A-B: the daemons' pods' ports


def is_traffic(seed):
    """Which scenarios are traffic trials: every third (the others' seeds
    keep their scenarios), or all of them with --traffic."""
    return TRAFFIC_ONLY or seed % 3 == 0


# ---- the campaign -------------------------------------------------------

def clean_up(dm, failures_of_trial):
    """Deletes the workloads, waits for every service process to go, then
    stops the daemon; kills by PID (and reports) any process left."""
    try:
        if not dm.up():
            dm.start()
        dm.req("DELETE", CORE + "/services/" + NAME)  # its proxy ends with it
        dm.req("DELETE", APPS + "/deployments/" + NAME)
        for p in dm.req("GET", CORE + "/pods").json()["items"]:
            dm.req("DELETE", CORE + "/pods/" + p["metadata"]["name"])
        poll(lambda: not dm.req("GET", CORE + "/pods").json()["items"] and
             not service_pids(dm.dir), 30, "every pod and process to go")
    except (Violation, requests.exceptions.RequestException, ValueError) as e:
        failures_of_trial.append("clean-up: %s" % e)
    try:
        if dm.proc is not None:
            dm.stop()
    except Violation as e:
        failures_of_trial.append(str(e))
    left = stop_left(dm.dir)
    if left:
        failures_of_trial.append("processes left behind (killed): %s" % left)


def keep_logs(data_dir, seed):
    """Copies the logs of a failed trial (the daemon's, the proxy's, the
    pods') to a directory of the system's temporary one; its path, or
    None."""
    dest = os.path.join(tempfile.gettempdir(), "drover-chaos-failed", str(seed))
    try:
        for root, _, files in os.walk(data_dir):
            for f in files:
                if f.endswith(".log"):
                    rel = os.path.relpath(os.path.join(root, f), data_dir)
                    os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                    shutil.copyfile(os.path.join(root, f), os.path.join(dest, rel))
    except OSError:
        return None
    return dest


def run_trial(seed, drover, example, actions, log, max_replicas):
    """Returns (failures, kills, samples) of one trial."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="drover-chaos-") as d:
        dm = Daemon(drover, d)
        kind = TrafficTrial if is_traffic(seed) else Trial
        trial = kind(seed, drover, example, actions, log, max_replicas)
        obs = None
        try:
            dm.start()
            obs = Observer(dm)
            trial.run(dm, obs)
        except Violation as e:
            failures.append(str(e))
        except Exception as e:  # noqa: BLE001 - an error is a failed trial too
            failures.append("error: %r" % e)
        finally:
            if obs is not None:
                obs.close()
                failures.extend(obs.violations[:5])
                if len(obs.violations) > 5:
                    failures.append("... %d more budget violations"
                                    % (len(obs.violations) - 5))
            clean_up(dm, failures)
        if failures:
            failures.append("scenario: " + "; ".join(trial.events))
            kept = keep_logs(d, seed)
            if kept:
                failures.append("logs: " + kept)
        elif os.environ.get("CHAOS_VERBOSE"):
            log("    scenario: " + "; ".join(trial.events))
        samples = (obs.samples, obs.down_samples, obs.min_ready, obs.max_pods) if obs else None
    return failures, dm.kills, samples


def campaign(seconds, seed, build, trials=None, actions=4, log=print, max_replicas=4):
    """Runs trials until seconds have passed (or trials are done); returns
    a summary dict."""
    build = os.path.abspath(build)  # pods run elsewhere: no relative path
    drover = os.path.join(build, "drover")
    example = os.path.join(build, "examples", "service", "drover-example-web")
    for f in (drover, example):
        if not os.access(f, os.X_OK):
            raise SystemExit("not built: " + f)
    end = time.monotonic() + seconds
    out = {"seed": seed, "trials": 0, "kills": 0, "failed": [], "samples": 0,
           "down_samples": 0, "traffic_trials": 0, "traffic_kills": 0,
           "longest_clean": 0}
    clean = 0
    TrafficTrial.requests = TrafficTrial.non2xx = TrafficTrial.sock_errors = 0
    i = 0
    while (trials is None or i < trials) and (time.monotonic() < end or i == 0):
        s = seed + i
        t0 = time.monotonic()
        failures, kills, samples = run_trial(s, drover, example, actions, log,
                                             max_replicas)
        out["trials"] += 1
        out["traffic_trials"] += is_traffic(s)
        out["kills"] += kills
        if is_traffic(s):
            out["traffic_kills"] += kills
        clean = 0 if failures else clean + 1
        out["longest_clean"] = max(out["longest_clean"], clean)
        if samples:
            out["samples"] += samples[0]
            out["down_samples"] += samples[1]
        status = ("ok" if not failures else "FAILED") + (
            " (traffic)" if is_traffic(s) else "")
        log("trial %d seed %d: %s, %d kills, %.1fs, %s samples (%s while down), "
            "min ready %s, max pods %s" % (
                i, s, status, kills, time.monotonic() - t0,
                samples and samples[0], samples and samples[1],
                samples and samples[2], samples and samples[3]))
        for f in failures:
            log("    " + f)
        if failures:
            out["failed"].append((s, failures))
        i += 1
    out["requests"] = TrafficTrial.requests
    out["non2xx"] = TrafficTrial.non2xx
    out["sock_errors"] = TrafficTrial.sock_errors
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--trials", type=int, default=None)
    ap.add_argument("--actions", type=int, default=4, help="changes per trial")
    ap.add_argument("--max-replicas", type=int, default=4)
    ap.add_argument("--traffic", action="store_true",
                    help="every trial a traffic trial")
    ap.add_argument("--host-port-range", metavar="A-B",
                    help="the pods' host ports (campaigns run side by side "
                    "each need their own range)")
    ap.add_argument("--build", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "build"))
    a = ap.parse_args()
    global TRAFFIC_ONLY
    TRAFFIC_ONLY = a.traffic
    if a.host_port_range:
        HOST_PORTS[:] = ["--host-port-range", a.host_port_range]
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10**6)
    print("crash campaign: %gs, seed %d, build %s" % (a.seconds, seed, a.build), flush=True)
    t0 = time.monotonic()
    out = campaign(a.seconds, seed, a.build, a.trials, a.actions,
                   log=lambda s: print(s, flush=True), max_replicas=a.max_replicas)
    print("\n%d trials, %d SIGKILLs, %d observer samples (%d while the daemon was down), "
          "%d failed, %.0fs" % (out["trials"], out["kills"], out["samples"],
                                out["down_samples"], len(out["failed"]),
                                time.monotonic() - t0))
    print("%d traffic trials (%d SIGKILLs under load): %d requests through the "
          "Service, %d non-2xx, %d socket errors" % (
              out["traffic_trials"], out["traffic_kills"], out["requests"],
              out["non2xx"], out["sock_errors"]))
    print("longest run of consecutive trials without a failure: %d"
          % out["longest_clean"])
    for s, f in out["failed"]:
        print("  failed: seed %d (replay: make chaos CHAOS_SEED=%d CHAOS_TRIALS=1): %s"
              % (s, s, f[0]))
    sys.exit(1 if out["failed"] else 0)


if __name__ == "__main__":
    main()
