"""test_rc_rolling_update.py - ReplicationControllers and `drover
rolling-update` (kubectl's legacy client-side rolling update), end to end.

1. A full rolling update of a 3-replica RC of real processes
   (drover-example-web) with and without a NEW name, under keep-alive
   load (wrk) through a Service selecting the labels both sets of pods
   share: at every sample at most 4 live pods and at least 3 Ready, 0
   failed requests, and the final controller named as promised.
2. The client killed with SIGKILL in each phase, deterministically: the
   hidden hook DROVER_TEST_CRASH_AT=STEP makes `drover rolling-update`
   SIGKILL itself right after the write of that step (create-next: NEXT
   created; scale-old: mid-rollout; delete-old: between deleting OLD and
   recreating it in the rename; orphan-next, create-final: later in the
   rename). Running the same command again completes the update: 3
   replicas, no pod lost or created twice (the pods at the end are the 3
   NEXT created, each once), the final controller named OLD.
3. --rollback midway; a stale partner annotation refused with a clear
   message; --timeout firing (exit status 3) when the new pods never
   become ready, the old pods still serving.

4. The design's names written (kubernetes.io/desired-replicas,
   update-partner, the label kubernetes.io/deployment) and an update a
   real kubectl 1.17 began (its names) finished; --rollback with no
   update to roll back an error; desired-replicas refilled from
   original-replicas; a NEW made by hand taken in or refused; the
   --timeout error naming what it waited for.

The crash, rollback and refusal tests use pods as objects (--runtime none,
the test marks them Ready), which keeps them fast; the load and timeout
tests run real processes. Every test deletes its controllers and waits
for the pods to go before the daemon stops."""
import json
import os
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import Drover, poll
from test_api import BIN, CORE, Daemon, wait_for
from test_runtime import EXAMPLE
from test_service_traffic import Load, answers, free_port
from test_services import stop_cluster

RCS = CORE + "/replicationcontrollers"
FAST = ["--update-period=0.2s", "--poll-interval=0.1s"]


def rc(name, image="web:1", replicas=3, labels=None, probe=None, env="v1"):
    labels = labels or {"app": "web"}
    c = {"name": "web", "image": image, "command": [EXAMPLE],
         "args": ["--port", "$(PORT)"],
         "env": [{"name": "VERSION", "value": env}],
         "ports": [{"name": "http", "containerPort": 8080}],
         "readinessProbe": probe or {"httpGet": {"path": "/healthz",
                                                 "port": "http"},
                                     "periodSeconds": 1}}
    return {"apiVersion": "v1", "kind": "ReplicationController",
            "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": labels,
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"terminationGracePeriodSeconds": 2,
                                           "containers": [c]}}}}


def ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in p.get("status", {}).get("conditions", []))


def live(pods):
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def owner(p):
    refs = p["metadata"].get("ownerReferences") or [{}]
    return refs[0].get("name")


class Sampler(threading.Thread):
    """Reads the pods every 50 ms: the most live pods and the fewest
    Ready live pods seen."""

    def __init__(self, list_pods):
        super().__init__()
        self.list_pods = list_pods
        self.max_live = 0
        self.min_ready = 1 << 30
        self.samples = 0
        self.seen = set()  # names of every pod ever seen
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            pods = live(self.list_pods())
            self.seen.update(p["metadata"]["name"] for p in pods)
            self.max_live = max(self.max_live, len(pods))
            self.min_ready = min(self.min_ready,
                                 sum(1 for p in pods if ready(p)))
            self.samples += 1
            time.sleep(0.05)

    def stop(self):
        self.halt.set()
        self.join()


# ---- 1. real processes under load ----

@pytest.fixture
def cluster():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            yield dm
        finally:
            for x in dm.req("GET", RCS).json().get("items", []):
                dm.req("DELETE", RCS + "/" + x["metadata"]["name"])
            stop_cluster(dm)


def cli(dm, *args, env=None, timeout=120):
    e = dict(os.environ, DROVER_SERVER=dm.dir + "/drover.sock")
    e.pop("DROVER_TEST_CRASH_AT", None)
    e.update(env or {})
    return subprocess.run([BIN] + list(args), capture_output=True, text=True,
                          env=e, timeout=timeout)


def service(port):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"},
                     "ports": [{"name": "http", "port": port,
                                "targetPort": "http", "appProtocol": "http"}]}}


def settled(pods, n, image):
    pods = pods if isinstance(pods, list) else []
    return (len(pods) == n and
            all(not p["metadata"].get("deletionTimestamp") and ready(p) and
                p["spec"]["containers"][0]["image"] == image for p in pods))


@pytest.mark.parametrize("named", [False, True])
def test_rolling_update_under_load(cluster, named):
    dm = cluster
    port = free_port()
    pods = lambda: dm.req("GET", CORE + "/pods").json()["items"]
    assert dm.req("POST", RCS, rc("web")).status_code == 201
    assert dm.req("POST", CORE + "/services", service(port)).status_code == 201
    wait_for(lambda: settled(pods(), 3, "web:1"), timeout=30, what="3 pods")
    wait_for(lambda: answers(port), timeout=10, what="the Service")
    load = Load(port, 60)
    sampler = Sampler(pods)
    sampler.start()
    try:
        time.sleep(1)
        args = ["rolling-update", "web"] + (["web-v2"] if named else []) + \
            ["--image=web:2"] + FAST
        r = cli(dm, *args)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "keep 3 pods available, don't exceed 4 pods" in r.stdout
        final = "web-v2" if named else "web"
        wait_for(lambda: settled(pods(), 3, "web:2"), timeout=30,
                 what="3 pods of web:2")
        time.sleep(1)
    finally:
        sampler.stop()
    res = load.result()
    print("rolling-update (named=%s): %d requests, %d socket errors, "
          "%d non-2xx; %d samples, at most %d live pods, at least %d ready"
          % (named, res["requests"], res["socket_errors"], res["non2xx"],
             sampler.samples, sampler.max_live, sampler.min_ready))
    assert res["requests"] > 100, res["text"]
    assert res["socket_errors"] == 0, res["text"]
    assert res["non2xx"] == 0, res["text"]
    assert sampler.samples > 10
    assert sampler.max_live <= 4
    assert sampler.min_ready >= 3
    names = [x["metadata"]["name"] for x in dm.req("GET", RCS).json()["items"]]
    assert names == [final]
    got = dm.req("GET", RCS + "/" + final).json()
    assert got["spec"]["replicas"] == 3
    assert not any(k.startswith("kubectl.kubernetes.io/")
                   for k in got["metadata"].get("annotations", {}))
    assert all(owner(p) == final for p in pods())
    assert len(sampler.seen) == 6  # 3 old, 3 new: none created twice


def test_timeout_when_new_pods_never_ready(cluster):
    dm = cluster
    port = free_port()
    pods = lambda: dm.req("GET", CORE + "/pods").json()["items"]
    old = rc("web", replicas=2, labels={"app": "web", "track": "v1"})
    assert dm.req("POST", RCS, old).status_code == 201
    assert dm.req("POST", CORE + "/services", service(port)).status_code == 201
    wait_for(lambda: settled(pods(), 2, "web:1"), timeout=30, what="2 pods")
    new = rc("web-bad", image="web:bad", replicas=2,
             labels={"app": "web", "track": "v2"},
             probe={"httpGet": {"path": "/healthz", "port": 1},
                    "periodSeconds": 1})
    path = os.path.join(dm.dir, "web-bad.json")
    with open(path, "w") as f:
        json.dump(new, f)
    t0 = time.monotonic()
    r = cli(dm, "rolling-update", "web", "-f", path, "--timeout=3s", *FAST)
    took = time.monotonic() - t0
    assert r.returncode == 3, r.stdout + r.stderr
    assert "timed out waiting for any update progress to be made" in r.stderr
    assert took < 20
    # the old pods kept serving: both there and Ready, the Service answers
    got = dm.req("GET", RCS + "/web").json()
    assert got["spec"]["replicas"] == 2
    olds = [p for p in live(pods()) if owner(p) == "web"]
    assert len(olds) == 2 and all(ready(p) for p in olds)
    assert answers(port)
    bad = [p for p in live(pods()) if owner(p) == "web-bad"]
    assert len(bad) == 1 and not ready(bad[0])


# ---- 2. and 3. pods as objects ----

@pytest.fixture
def objs():
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d)
        halt = threading.Event()
        only = {"image": None}  # mark only this image Ready (None: all)

        def readier():
            while not halt.is_set():
                try:
                    for p in dm.pods():
                        if (only["image"] and p["spec"]["containers"][0]
                                ["image"] != only["image"]):
                            continue
                        if not p["metadata"].get("deletionTimestamp") and \
                                not ready(p):
                            dm.mark_ready(p)
                except Exception:
                    pass
                time.sleep(0.03)
        t = threading.Thread(target=readier)
        t.start()
        dm.only = only
        try:
            yield dm
        finally:
            halt.set()
            t.join()
            for x in dm.get(RCS)["items"]:
                dm.api("DELETE", RCS + "/" + x["metadata"]["name"])
            poll(lambda: not dm.pods(), timeout=20, what="every pod to go")
            dm.stop()


def ru(dm, *args, crash=None):
    env = dm.env()
    env.pop("DROVER_TEST_CRASH_AT", None)
    if crash:
        env["DROVER_TEST_CRASH_AT"] = crash
    return subprocess.run([BIN, "rolling-update"] + list(args) + FAST,
                          capture_output=True, text=True, env=env, timeout=60)


def rcs(dm):
    return sorted(x["metadata"]["name"] for x in dm.get(RCS)["items"])


def start_web(dm):
    st, _ = dm.api("POST", RCS, rc("web"))
    assert st == 201
    poll(lambda: len(live(dm.pods())) == 3 and all(map(ready, dm.pods())),
         what="3 ready pods")


@pytest.mark.parametrize("phase", ["create-next", "scale-old", "delete-old",
                                   "orphan-next", "create-final"])
def test_resume_after_sigkill(objs, phase):
    dm = objs
    start_web(dm)
    sampler = Sampler(dm.pods)
    sampler.start()
    try:
        r = ru(dm, "web", "--image=web:2", crash=phase)
        assert r.returncode == -9, r.stdout + r.stderr
        mid = rcs(dm)
        if phase == "delete-old":  # killed between delete and recreate
            assert "web" not in mid and len(mid) == 1
        r = ru(dm, "web", "--image=web:2")
        assert r.returncode == 0, r.stdout + r.stderr
        poll(lambda: len(dm.pods()) == 3, what="3 pods")
    finally:
        sampler.stop()
    assert rcs(dm) == ["web"]
    got = dm.get(RCS + "/web")
    assert got["spec"]["replicas"] == 3
    assert got["spec"]["selector"]["kubernetes.io/deployment"] != ""
    pods = dm.pods()
    assert all(p["spec"]["containers"][0]["image"] == "web:2" for p in pods)
    assert all(owner(p) == "web" for p in pods)
    # no pod lost or duplicated: 3 old, 3 new, each created once
    assert len(sampler.seen) == 6, sorted(sampler.seen)
    assert sampler.max_live <= 4
    assert sampler.min_ready >= 3


def test_rollback_midway(objs):
    dm = objs
    start_web(dm)
    r = ru(dm, "web", "--image=web:2", crash="scale-old")
    assert r.returncode == -9
    nxt = [n for n in rcs(dm) if n != "web"]
    assert len(nxt) == 1
    r = ru(dm, "web", "--rollback")
    assert r.returncode == 0, r.stdout + r.stderr
    assert ('rolling updated to "web"') in r.stdout
    poll(lambda: len(dm.pods()) == 3, what="3 pods")
    assert rcs(dm) == ["web"]
    got = dm.get(RCS + "/web")
    assert got["spec"]["replicas"] == 3
    assert not any(k.startswith("kubectl.kubernetes.io/")
                   for k in got["metadata"].get("annotations", {}))
    assert all(p["spec"]["containers"][0]["image"] == "web:1"
               for p in dm.pods())
    # nothing left to roll back
    r = ru(dm, "web", "--rollback")
    assert r.returncode == 1
    assert "nothing to roll back" in r.stderr


def test_refusals_and_dry_run(objs):
    dm = objs
    start_web(dm)
    # a stale partner: web-next claims an earlier "web"
    stale = rc("web-next", labels={"app": "web", "deployment": "x"})
    stale["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/update-source-id": "web:0000-earlier",
        "kubectl.kubernetes.io/desired-replicas": "3"}
    stale["spec"]["replicas"] = 0
    assert dm.api("POST", RCS, stale)[0] == 201
    r = ru(dm, "web", "web-next", "--image=web:2")
    assert r.returncode == 1
    assert "stale" in r.stderr and "0000-earlier" in r.stderr, r.stderr
    assert dm.get(RCS + "/web")["spec"]["replicas"] == 3
    dm.api("DELETE", RCS + "/web-next")
    # the preview writes nothing
    before = dm.get(RCS + "/web")["metadata"]["resourceVersion"]
    r = ru(dm, "web", "--image=web:2", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "Scaling up web-" in r.stdout and "Update complete: web" in r.stdout
    assert dm.get(RCS + "/web")["metadata"]["resourceVersion"] == before
    assert rcs(dm) == ["web"]
    # usage errors: exit status 2
    r = subprocess.run([BIN, "rolling-update", "web"], capture_output=True,
                       text=True, env=dm.env())
    assert r.returncode == 2
    # validation of the kind: the selector must match the template
    bad = rc("bad")
    bad["spec"]["selector"] = {"app": "other"}
    st, body = dm.api("POST", RCS, bad)
    assert st == 422
    assert ("spec.template.metadata.labels: Invalid value: "
            "map[string]string{\"app\":\"web\"}: `selector` does not match "
            "template `labels`") in body["message"]


# ---- 4. issue 33: the seed's names, rollback, desired, partners ----

ANN = "kubernetes.io/"
KUBECTL = "kubectl.kubernetes.io/"


def anns(obj):
    return obj["metadata"].get("annotations") or {}


def test_seed_names_written(objs):
    """The update writes the seed's annotation names and label key."""
    dm = objs
    start_web(dm)
    r = ru(dm, "web", "--image=web:2", crash="scale-old")
    assert r.returncode == -9, r.stdout + r.stderr
    nxt = [n for n in rcs(dm) if n != "web"][0]
    old, new = dm.get(RCS + "/web"), dm.get(RCS + "/" + nxt)
    assert anns(new)[ANN + "desired-replicas"] == "3"
    assert anns(new)[ANN + "update-partner"] == "web"
    assert anns(old)[ANN + "update-partner"] == nxt
    assert anns(old)[KUBECTL + "original-replicas"] == "3"
    assert KUBECTL + "desired-replicas" not in anns(new)
    assert KUBECTL + "next-controller-id" not in anns(old)
    key = ANN + "deployment"
    assert old["spec"]["selector"][key].endswith("-orig")
    assert new["spec"]["selector"][key] == nxt[len("web-"):]
    assert all(p["metadata"]["labels"].get(key) for p in dm.pods())
    # resumed without NEW on the command line: kubectl's line first
    r = ru(dm, "web", "--image=web:2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(
        "Continuing update with existing controller %s.\n" % nxt), r.stdout
    poll(lambda: rcs(dm) == ["web"], what="web renamed")
    assert not any(k.startswith((ANN, KUBECTL))
                   for k in anns(dm.get(RCS + "/web")))


def test_resume_update_kubectl_began(objs):
    """An update a real kubectl 1.17 began (its annotation names, its
    label key "deployment") and left at web 3, web-b 1 is finished."""
    dm = objs
    old = rc("web", labels={"app": "web", "deployment": "a1-orig"})
    assert dm.api("POST", RCS, old)[0] == 201
    poll(lambda: len(live(dm.pods())) == 3 and all(map(ready, dm.pods())),
         what="3 ready pods")
    uid = dm.get(RCS + "/web")["metadata"]["uid"]
    new = rc("web-b", image="web:2", replicas=1,
             labels={"app": "web", "deployment": "b2"})
    new["metadata"]["annotations"] = {
        KUBECTL + "desired-replicas": "3",
        KUBECTL + "update-source-id": "web:" + uid}
    assert dm.api("POST", RCS, new)[0] == 201
    got = dm.get(RCS + "/web")
    got["metadata"]["annotations"] = {KUBECTL + "next-controller-id": "web-b",
                                      KUBECTL + "original-replicas": "3"}
    assert dm.api("PUT", RCS + "/web", got)[0] == 200
    r = ru(dm, "web", "--image=web:2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Continuing update with existing controller web-b." in r.stdout
    assert "Scaling up web-b from 1 to 3" in r.stdout
    poll(lambda: rcs(dm) == ["web"] and len(dm.pods()) == 3, what="web")
    got = dm.get(RCS + "/web")
    assert got["spec"]["selector"] == {"app": "web", "deployment": "b2"}
    assert got["spec"]["replicas"] == 3
    assert not any(k.startswith((ANN, KUBECTL)) for k in anns(got))
    assert all(p["spec"]["containers"][0]["image"] == "web:2"
               for p in dm.pods())


def test_rollback_when_new_missing(objs):
    """--rollback naming a NEW that does not exist is an error."""
    dm = objs
    start_web(dm)
    before = dm.get(RCS + "/web")["metadata"]["resourceVersion"]
    r = ru(dm, "web", "web-v2", "--rollback")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr == (
        'error: replicationcontrollers "web-v2" not found: nothing to roll '
        'back; you may want to simply do a new rollout with the old '
        'version\n')
    assert "already replaced" not in r.stdout
    assert dm.get(RCS + "/web")["metadata"]["resourceVersion"] == before


def test_desired_refilled_from_original(objs):
    """NEXT's desired-replicas lost after OLD shrank (3 -> 2): the update
    ends at the 3 OLD had, recorded in its original-replicas."""
    dm = objs
    start_web(dm)
    r = ru(dm, "web", "--image=web:2", crash="scale-old")
    assert r.returncode == -9
    assert dm.get(RCS + "/web")["spec"]["replicas"] == 2
    nxt = [n for n in rcs(dm) if n != "web"][0]
    got = dm.get(RCS + "/" + nxt)
    for k in (ANN + "desired-replicas", KUBECTL + "desired-replicas"):
        anns(got).pop(k, None)
    assert dm.api("PUT", RCS + "/" + nxt, got)[0] == 200
    r = ru(dm, "web", "--image=web:2")
    assert r.returncode == 0, r.stdout + r.stderr
    poll(lambda: rcs(dm) == ["web"] and len(dm.pods()) == 3, what="web")
    assert dm.get(RCS + "/web")["spec"]["replicas"] == 3


def test_next_made_by_hand(objs):
    """A NEW that exists without partner annotations: taken into the
    update when its selector is apart from OLD's and it runs the image
    asked for; refused, saying what to do, when it is not."""
    dm = objs
    st, _ = dm.api("POST", RCS, rc("web", labels={"app": "web",
                                                   "track": "v1"}))
    assert st == 201
    poll(lambda: len(live(dm.pods())) == 3 and all(map(ready, dm.pods())),
         what="3 ready pods")
    # overlapping selector: refused, nothing written
    same = rc("web-same", image="web:2", replicas=0,
              labels={"app": "web", "track": "v1"})
    assert dm.api("POST", RCS, same)[0] == 201
    r = ru(dm, "web", "web-same", "--image=web:2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "does not keep its pods apart" in r.stderr, r.stderr
    assert "choose another name for the new controller" in r.stderr
    assert not anns(dm.get(RCS + "/web-same"))
    dm.api("DELETE", RCS + "/web-same")
    # another image: refused
    v2 = rc("web-v2", image="web:2", replicas=0,
            labels={"app": "web", "track": "v2"})
    assert dm.api("POST", RCS, v2)[0] == 201
    r = ru(dm, "web", "web-v2", "--image=web:3")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "its container web runs web:2, not web:3" in r.stderr, r.stderr
    # the image asked for: a partial rollout, finished
    r = ru(dm, "web", "web-v2", "--image=web:2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(
        "Continuing update with existing controller web-v2.\n"), r.stdout
    assert "Taking web-v2 into the update of web: desired replicas 3" \
        in r.stdout
    poll(lambda: rcs(dm) == ["web-v2"] and len(dm.pods()) == 3,
         what="web-v2 alone")
    assert dm.get(RCS + "/web-v2")["spec"]["replicas"] == 3
    assert all(p["spec"]["containers"][0]["image"] == "web:2"
               for p in dm.pods())


def test_timeout_says_what_it_waited_for(objs):
    """--timeout's error names what no progress was made on."""
    dm = objs
    start_web(dm)
    dm.only["image"] = "web:1"  # the new pods never become Ready
    r = ru(dm, "web", "--image=web:2", "--timeout=1s")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "()" not in r.stderr, r.stderr
    assert ("timed out waiting for any update progress to be made "
            "(waiting for the pods of web-") in r.stderr, r.stderr
    assert "to become available" in r.stderr
    dm.only["image"] = None
