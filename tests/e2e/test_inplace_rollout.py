"""test_inplace_rollout.py - the InPlaceUpdate strategy on real processes
(issue 11): a Deployment's pods get the new image or command in place,
keeping their names, uids and host ports, without a Pod being created or
deleted.

- 5 replicas behind a Service under keep-alive load (wrk): the image
  changes; a watch on pods sees no ADDED or DELETED; a sampler never
  sees more than maxUnavailable pods unavailable; 0 failed requests;
  every process ends on the new image; `rollout undo` goes back in place.
- A full host (the scheduler's capacity: cpu 3, three pods of 1 cpu):
  a RollingUpdate waits for room for its surge pod; switched to
  InPlaceUpdate, the same change completes in place.
- The daemon killed (as SIGKILL does, DROVER_CRASHPOINT, crashpoint.h)
  at each step of one pod's update: before the transaction, after the
  intent is stored, after the SIGTERM, after the new process starts.
  The restarted daemon completes the update: same pods, one process per
  container, each on the new image, both ReplicaSets sized right.

Every workload is deleted before its daemon stops; no process is left."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from test_api import APPS, BIN, CORE, Daemon, wait_for
from test_runtime import EXAMPLE, all_pids, environ, pids_of, service_pids
from test_service_traffic import Load, answers, free_port, service
from test_services import stop_cluster

GRACE = 4
STRATEGY = {"type": "InPlaceUpdate", "inPlaceUpdate": {"maxUnavailable": 1}}


def web(image, replicas=5, strategy=None, cpu=None):
    c = {"name": "web", "image": image, "command": [EXAMPLE],
         "args": ["--port", "$(PORT)"],
         "ports": [{"name": "http", "containerPort": 8080}],
         "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                            "periodSeconds": 1}}
    if cpu:
        c["resources"] = {"requests": {"cpu": cpu}}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": "web"}},
                     "strategy": strategy or STRATEGY,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"terminationGracePeriodSeconds": GRACE,
                                           "containers": [c]}}}}


def pods(dm):
    return dm.req("GET", CORE + "/pods").json()["items"]


def is_ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in p.get("status", {}).get("conditions", []))


def done(dm, image, n):
    """n pods on image, Ready, none leaving; the Deployment rolled out."""
    ps = pods(dm)
    d = dm.req("GET", APPS + "/deployments/web").json()
    st = d.get("status", {})
    return (len(ps) == n and
            all(p["spec"]["containers"][0]["image"] == image and
                p["status"].get("containerStatuses", [{}])[0].get("image") == image and
                not p["metadata"].get("deletionTimestamp") and is_ready(p)
                for p in ps) and
            st.get("observedGeneration") == d["metadata"]["generation"] and
            st.get("updatedReplicas") == n and st.get("availableReplicas") == n and
            st.get("replicas") == n)


def identity(dm):
    """name -> (uid, host port) of every pod."""
    return {p["metadata"]["name"]: (
        p["metadata"]["uid"],
        p["status"]["containerStatuses"][0]["ports"][0]["hostPort"])
        for p in pods(dm)}


def put_template(dm, image, strategy=None):
    for _ in range(20):
        d = dm.req("GET", APPS + "/deployments/web").json()
        d["spec"]["template"]["spec"]["containers"][0]["image"] = image
        if strategy:
            d["spec"]["strategy"] = strategy
        r = dm.req("PUT", APPS + "/deployments/web", d)
        if r.status_code != 409:
            assert r.status_code == 200, r.text
            return
    pytest.fail("the Deployment kept changing")


def replica_sets(dm):
    """image -> (spec.replicas, status.replicas) of each RS."""
    return {rs["spec"]["template"]["spec"]["containers"][0]["image"]:
            (rs["spec"]["replicas"], rs.get("status", {}).get("replicas", 0))
            for rs in dm.req("GET", APPS + "/replicasets").json()["items"]}


def on_image(dm, image):
    """Every pod's process runs image (the agent passes it as
    DROVER_IMAGE): the process, not only the status, was replaced."""
    return all(environ(pid).get("DROVER_IMAGE") == image for pid in all_pids(dm))


class PodWatch:
    """The event types of watches on pods from resourceVersion rv, read in
    a thread until stop(). Each watch reads with a 1 s timeout and is
    resumed from the last event's resourceVersion, so stop() is seen
    within a second."""

    def __init__(self, dm, rv):
        self.dm, self.rv, self.types = dm, rv, []
        self.stopped = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stopped.is_set():
            try:
                with requests.get(
                        self.dm.url(CORE + "/pods"), stream=True, timeout=(5, 1),
                        params={"watch": "true", "resourceVersion": self.rv},
                        headers={"Authorization": "Bearer " + self.dm.token},
                        verify=self.dm.ca) as r:
                    assert r.status_code == 200, r.text
                    for line in r.iter_lines():
                        ev = json.loads(line) if line else None
                        if ev:
                            self.types.append(ev["type"])
                            self.rv = ev["object"]["metadata"]["resourceVersion"]
                        if self.stopped.is_set():
                            return
            except requests.RequestException:
                pass  # the read timed out: resume from self.rv

    def stop(self):
        self.stopped.set()
        self.t.join(timeout=10)
        assert not self.t.is_alive()
        return self.types


class Sampler:
    """The most pods seen unavailable (not Ready, or missing) at once."""

    def __init__(self, dm, n):
        self.dm, self.n, self.worst, self.samples = dm, n, 0, 0
        self.stopped = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stopped.is_set():
            ps = pods(self.dm)
            ready = sum(1 for p in ps if is_ready(p) and
                        not p["metadata"].get("deletionTimestamp"))
            self.worst = max(self.worst, self.n - ready)
            self.samples += 1
            self.stopped.wait(0.05)

    def stop(self):
        self.stopped.set()
        self.t.join(timeout=10)
        return self.worst


@pytest.fixture
def cluster():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process",
                              "--allocatable", "cpu=3"])
        try:
            yield dm
        finally:
            stop_cluster(dm)


def rollout_in_place(dm, port, image):
    """Changes the image under load and checks the in-place promises."""
    before = identity(dm)
    rv = dm.req("GET", CORE + "/pods").json()["metadata"]["resourceVersion"]
    watch = PodWatch(dm, rv)
    sampler = Sampler(dm, 5)
    load = Load(port, 60)
    time.sleep(1)  # load before the change (a span of time, not a wait)
    put_template(dm, image)
    t0 = time.monotonic()
    wait_for(lambda: done(dm, image, 5), timeout=60, what="the update to " + image)
    took = time.monotonic() - t0
    time.sleep(1)  # and load after it
    worst = sampler.stop()
    r = load.result()
    types = watch.stop()
    print("in place to %s in %.1f s: %d requests, %d socket errors, "
          "%d non-2xx; at most %d unavailable in %d samples; watch %s" % (
              image, took, r["requests"], r["socket_errors"], r["non2xx"],
              worst, sampler.samples, sorted(set(types))))
    assert identity(dm) == before  # names, uids, host ports
    assert "ADDED" not in types and "DELETED" not in types, types
    assert "MODIFIED" in types
    assert worst <= 1, worst
    assert r["requests"] > 100, r["text"]
    assert r["socket_errors"] == 0, r["text"]
    assert r["non2xx"] == 0, r["text"]
    assert on_image(dm, image)
    for p in pods(dm):
        cs = p["status"]["containerStatuses"][0]
        assert cs["restartCount"] == 0, cs
        assert cs["lastState"]["terminated"]["reason"] == "InPlaceUpdate", cs
        # the intent went with the status write that ended the update
        assert "drover.io/in-place-update-to" not in \
            p["metadata"].get("annotations", {}), p["metadata"]


def test_in_place_under_load_and_undo(cluster):
    dm = cluster
    port = free_port()
    assert dm.req("POST", APPS + "/deployments", web("web:1")).status_code == 201
    assert dm.req("POST", CORE + "/services", service(port, "http")).status_code == 201
    wait_for(lambda: done(dm, "web:1", 5), timeout=30, what="web:1")
    wait_for(lambda: answers(port), timeout=10, what="the Service to answer")

    # a change in-place cannot make: refused on its path, nothing stored
    d = dm.req("GET", APPS + "/deployments/web").json()
    d["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "COLOR", "value": "blue"}]
    r = dm.req("PUT", APPS + "/deployments/web", d)
    assert r.status_code == 422, r.text
    cause = r.json()["details"]["causes"][0]
    assert cause["field"] == "spec.template.spec.containers[0].env", cause
    assert "may change only image, command and args" in cause["message"]
    after = dm.req("GET", APPS + "/deployments/web").json()
    assert after["metadata"]["resourceVersion"] == d["metadata"]["resourceVersion"]
    assert "env" not in after["spec"]["template"]["spec"]["containers"][0]

    rollout_in_place(dm, port, "web:2")
    assert requests.get("http://127.0.0.1:%d/" % port, timeout=5).text == "web:2\n"
    assert replica_sets(dm) == {"web:1": (0, 0), "web:2": (5, 5)}
    env = dict(os.environ, DROVER_SERVER=dm.dir + "/drover.sock")
    out = subprocess.run([BIN, "rollout", "history", "deployment/web"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    revs = [ln.split()[0] for ln in out.stdout.splitlines()
            if ln.strip() and ln.split()[0].isdigit()]
    assert revs == ["1", "2"], out.stdout

    # rollout undo: back to revision 1, in place as well
    before = identity(dm)
    out = subprocess.run([BIN, "rollout", "undo", "deployment/web"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    wait_for(lambda: done(dm, "web:1", 5), timeout=60, what="the undo")
    assert identity(dm) == before
    assert on_image(dm, "web:1")
    assert replica_sets(dm) == {"web:1": (5, 5), "web:2": (0, 0)}
    out = subprocess.run([BIN, "rollout", "status", "deployment/web"],
                         capture_output=True, text=True, env=env, timeout=30)
    assert out.returncode == 0 and "successfully rolled out" in out.stdout, out


def unschedulable(dm):
    return [p["metadata"]["name"] for p in pods(dm)
            if any(c["type"] == "PodScheduled" and c["status"] == "False" and
                   c.get("reason") == "Unschedulable"
                   for c in p.get("status", {}).get("conditions", []))]


def test_full_host_completes_in_place(cluster):
    dm = cluster
    rolling = {"type": "RollingUpdate",
               "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    assert dm.req("POST", APPS + "/deployments",
                  web("web:1", replicas=3, strategy=rolling, cpu="1")).status_code == 201
    wait_for(lambda: done(dm, "web:1", 3), timeout=30, what="web:1")
    before = identity(dm)

    # RollingUpdate: the surge pod finds no room and the rollout waits
    put_template(dm, "web:2")
    stuck = wait_for(lambda: unschedulable(dm), timeout=20,
                     what="the surge pod to be unschedulable")
    assert len(stuck) == 1
    d = dm.req("GET", APPS + "/deployments/web").json()
    assert d["status"].get("updatedReplicas", 0) < 3
    olds = [p for p in pods(dm) if p["metadata"]["name"] in before]
    assert len(olds) == 3 and all(
        p["spec"]["containers"][0]["image"] == "web:1" and is_ready(p) for p in olds)

    # InPlaceUpdate: the same change goes through in place
    put_template(dm, "web:2", strategy=STRATEGY)
    wait_for(lambda: done(dm, "web:2", 3), timeout=60, what="the in-place update")
    assert identity(dm) == before
    assert on_image(dm, "web:2")


CRASHPOINTS = ["inplace-before-txn", "inplace-intent-seen",
               "inplace-after-sigterm", "inplace-after-start"]


@pytest.mark.parametrize("point", CRASHPOINTS)
def test_sigkill_at_each_step_of_an_update(point, monkeypatch):
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        # the first daemon dies at `point`; the second runs without it
        monkeypatch.setenv("DROVER_CRASHPOINT", point)
        port_range = {p: "%d-%d" % (22000 + 100 * i, 22099 + 100 * i)
                      for i, p in enumerate(CRASHPOINTS)}[point]
        dm = Daemon(d, extra=["--runtime", "process",
                              "--host-port-range", port_range])
        before_pids = set(service_pids(dm.dir))
        try:
            assert dm.req("POST", APPS + "/deployments",
                          web("web:1", replicas=2)).status_code == 201
            wait_for(lambda: done(dm, "web:1", 2), timeout=30, what="web:1")
            before = identity(dm)
            try:
                put_template(dm, "web:2")
            except requests.ConnectionError:
                # the daemon died before it answered: the controllers
                # act on a write once it is committed, so it is stored
                pass
            wait_for(lambda: dm.proc.poll() is not None, timeout=30,
                     what="the daemon to die at " + point)
            assert dm.proc.returncode == -signal.SIGKILL
            assert ("crashpoint " + point) in open(
                os.path.join(d, "serve.log"), errors="replace").read()
            dm.kill(signal.SIGKILL)  # closes the log, checks the sanitizers
            monkeypatch.delenv("DROVER_CRASHPOINT")
            dm.start()
            wait_for(lambda: done(dm, "web:2", 2), timeout=60,
                     what="the update after a crash at " + point)
            assert identity(dm) == before
            assert on_image(dm, "web:2")
            # an update, not a crash: the new process started once, on
            # its port (a start before a stray of the new spec had let
            # go of the port failed, and counted a restart)
            for p in pods(dm):
                cs = p["status"]["containerStatuses"][0]
                assert cs["restartCount"] == 0, cs
                assert cs["lastState"]["terminated"]["reason"] == \
                    "InPlaceUpdate", cs
            if point == "inplace-after-start":
                # the new process the dead daemon started was stopped
                # (and gone, its port free) before the container started
                # again, not after
                log = open(os.path.join(d, "serve.log"),
                           errors="replace").read()
                assert "SIGKILL before the container starts again" in log
            # one process per container: nothing duplicated, nothing lost
            mine = sorted(set(service_pids(dm.dir)) - before_pids)
            assert mine == sorted(all_pids(dm)) and len(mine) == 2, mine
            assert replica_sets(dm) == {"web:1": (0, 0), "web:2": (2, 2)}
        finally:
            if dm.proc.poll() is not None:  # failed with the daemon down
                monkeypatch.delenv("DROVER_CRASHPOINT", raising=False)
                dm.kill(signal.SIGKILL)
                dm.start()
            stop_cluster(dm)
