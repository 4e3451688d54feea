"""test_api.py - the Kubernetes-shaped API of `drover serve`, end to end:
the real binary on 127.0.0.1 with a bearer token, every verb, watch
resume, 409 and 410, the invalid-manifest corpus, durability across
kill -9, and the controllers rolling a Deployment whose pods the test
marks ready through the status subresource (nothing runs pods yet)."""
import glob
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import listening_port
import requests
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


def wait_for(pred, timeout=10.0, what="condition"):
    """Polls pred() until it returns a truthy value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)


class Daemon:
    """One `drover serve` on a temporary data dir, HTTPS on a free port
    (the daemon's own CA in DIR/tls/ca.crt, DIR/kubeconfig for clients)."""

    def __init__(self, data_dir, history=None, extra=None):
        self.dir = data_dir
        self.history = history
        # These tests use pods as objects only: they mark them ready
        # themselves. Tests of real processes pass --runtime process.
        self.extra = extra or ["--runtime", "none"]
        self.proc = None
        self.start()

    def start(self):
        args = [BIN, "serve", "--data-dir", self.dir,
                "--listen", "127.0.0.1:0"]
        if self.history:
            args += ["--watch-history", str(self.history)]
        args += self.extra
        path = os.path.join(self.dir, "serve.log")
        self.log = open(path, "ab")
        offset = self.log.tell()
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)
        self.port = listening_port(path, offset, self.proc)
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "token")) and
                 self._up(), what="drover serve to listen")
        self.token = open(os.path.join(self.dir, "token")).read().strip()
        self.ca = os.path.join(self.dir, "tls", "ca.crt")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")

    def env(self):
        """The environment of a drover (or kubectl) command that reaches
        this daemon over HTTPS through its kubeconfig."""
        e = dict(os.environ, KUBECONFIG=self.kubeconfig)
        e.pop("DROVER_SERVER", None)
        e.pop("DROVER_TOKEN", None)
        return e

    def _up(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            return True
        except OSError:
            assert self.proc.poll() is None, "drover serve exited"
            return False

    def url(self, path):
        return "https://127.0.0.1:%d%s" % (self.port, path)

    def req(self, method, path, body=None, ct="application/json",
            params=None, token=True, raw=None):
        h = {"Content-Type": ct}
        if token:
            h["Authorization"] = "Bearer " + self.token
        data = raw if raw is not None else (
            json.dumps(body) if body is not None else None)
        return requests.request(method, self.url(path), data=data,
                                headers=h, params=params, timeout=10,
                                verify=self.ca)

    def kill(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=10)
        self.log.close()
        # Under the sanitizers (make test SANITIZE=1) a report fails the
        # test even though the daemon kept serving.
        text = open(os.path.join(self.dir, "serve.log"), errors="replace").read()
        assert "ERROR: AddressSanitizer" not in text, text[-4000:]
        assert "ERROR: LeakSanitizer" not in text, text[-4000:]
        assert "runtime error:" not in text, text[-4000:]
        if sig == signal.SIGTERM:
            assert self.proc.returncode == 0, text[-2000:]


@pytest.fixture
def api():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            yield dm
        finally:
            dm.kill()
            assert dm.proc.poll() is not None


def update(api, path, mutate, tries=20):
    """GET, change, PUT with the resourceVersion read; again on a 409 (the
    controllers write the same objects), as every careful client does."""
    for _ in range(tries):
        obj = api.req("GET", path).json()
        mutate(obj)
        r = api.req("PUT", path, obj)
        if r.status_code != 409:
            return r
    return r


def deployment(name="web", replicas=3, image="web:1", strategy=None, **spec):
    d = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": name, "labels": {"app": name}},
         "spec": {"replicas": replicas,
                  "selector": {"matchLabels": {"app": name}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"containers": [
                                   {"name": "web", "image": image}]}}}}
    if strategy:
        d["spec"]["strategy"] = strategy
    d["spec"].update(spec)
    return d


def test_discovery_and_auth(api):
    v = api.req("GET", "/version").json()
    assert v["major"] == "1"
    assert api.req("GET", "/api").json()["versions"] == ["v1"]
    groups = api.req("GET", "/apis").json()["groups"]
    assert groups[0]["name"] == "apps"
    res = {r["name"]: r for r in api.req("GET", "/apis/apps/v1").json()["resources"]}
    assert res["deployments"]["shortNames"] == ["deploy"]
    assert res["deployments/scale"]["kind"] == "Scale"
    assert "deployments/status" in res and "replicasets" in res
    pods = {r["name"] for r in api.req("GET", "/api/v1").json()["resources"]}
    assert {"pods", "pods/status", "pods/log", "pods/binding", "nodes",
            "nodes/status"} <= pods
    assert "pods/scale" not in pods
    g = api.req("GET", "/apis/apps").json()
    assert g["kind"] == "APIGroup" and g["preferredVersion"]["groupVersion"] == "apps/v1"
    assert api.req("GET", "/apis/apps/v2").status_code == 404
    assert api.req("GET", "/apis/nothing").status_code == 404
    r = api.req("GET", "/api/v1/pods", token=False)
    assert r.status_code == 401 and r.json()["reason"] == "Unauthorized"
    assert api.req("GET", "/api/v1/pods").status_code == 200
    assert api.req("GET", "/apis/apps/v1/namespaces/default/nothings").status_code == 404
    mode = os.stat(os.path.join(api.dir, "drover.sock")).st_mode & 0o777
    assert mode == 0o600
    assert os.stat(os.path.join(api.dir, "token")).st_mode & 0o777 == 0o600


def test_crud_generation_and_conflicts(api):
    r = api.req("POST", APPS + "/deployments", deployment())
    assert r.status_code == 201, r.text
    d = r.json()
    md = d["metadata"]
    assert md["generation"] == 1 and md["uid"] and md["creationTimestamp"]
    assert d["spec"]["strategy"]["rollingUpdate"] == {"maxUnavailable": "25%", "maxSurge": "25%"}
    rv1 = md["resourceVersion"]
    r = api.req("POST", APPS + "/deployments", deployment())
    assert r.status_code == 409 and r.json()["reason"] == "AlreadyExists"
    assert r.json()["message"] == 'deployments.apps "web" already exists'
    # PUT with the current rv: spec change bumps the generation; status
    # written through the main resource is ignored.
    def change(d):
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "web:2"
        d["status"] = {"replicas": 99}
    r = update(api, APPS + "/deployments/web", change)
    assert r.status_code == 200, r.text
    d = r.json()
    d["status"] = {"replicas": 99}
    assert r.json()["metadata"]["generation"] >= 2
    assert r.json()["status"].get("replicas") != 99
    # stale resourceVersion: 409 Conflict, store unchanged
    d["metadata"]["resourceVersion"] = rv1
    r = api.req("PUT", APPS + "/deployments/web", d)
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"
    assert "the object has been modified" in r.json()["message"]
    # the selector of a Deployment is immutable
    d["metadata"]["resourceVersion"] = ""
    sel = d["spec"]["selector"]
    d["spec"]["selector"] = {"matchLabels": {"app": "web", "x": "y"}}
    d["spec"]["template"]["metadata"]["labels"]["x"] = "y"
    r = api.req("PUT", APPS + "/deployments/web", d)
    assert r.status_code == 422
    assert r.json()["details"]["causes"][0]["field"] == "spec.selector"
    assert r.json()["details"]["kind"] == "Deployment"
    assert "field is immutable" in r.json()["message"]
    d["spec"]["selector"] = sel
    # name mismatch
    d["metadata"]["name"] = "other"
    assert api.req("PUT", APPS + "/deployments/web", d).status_code == 400
    # 404
    r = api.req("GET", APPS + "/deployments/nope")
    assert r.status_code == 404
    assert r.json()["message"] == 'deployments.apps "nope" not found'
    assert r.json()["details"] == {"name": "nope", "group": "apps", "kind": "deployments"}


def test_patch_types_and_subresources(api):
    api.req("POST", APPS + "/deployments", deployment(replicas=2))
    gen = api.req("GET", APPS + "/deployments/web").json()["metadata"]["generation"]
    r = api.req("PATCH", APPS + "/deployments/web", {"spec": {"replicas": 4}},
                ct="application/merge-patch+json")
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 4
    assert r.json()["metadata"]["generation"] == gen + 1
    r = api.req("PATCH", APPS + "/deployments/web",
                [{"op": "replace", "path": "/spec/replicas", "value": 5},
                 {"op": "add", "path": "/metadata/labels/tier", "value": "x"}],
                ct="application/json-patch+json")
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["replicas"] == 5
    assert r.json()["metadata"]["labels"]["tier"] == "x"
    r = api.req("PATCH", APPS + "/deployments/web",
                {"spec": {"template": {"spec": {"containers": [
                    {"name": "web", "image": "web:9"}]}}}},
                ct="application/strategic-merge-patch+json")
    c = r.json()["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "web:9" and c["name"] == "web"
    assert api.req("PATCH", APPS + "/deployments/web", {},
                   ct="text/plain").status_code == 415
    # scale subresource
    s = api.req("GET", APPS + "/deployments/web/scale").json()
    assert s["kind"] == "Scale" and s["spec"]["replicas"] == 5
    assert s["status"]["selector"] == "app=web"
    s["spec"]["replicas"] = 1
    s["metadata"].pop("resourceVersion")  # unconditional: no race with the controller
    assert api.req("PUT", APPS + "/deployments/web/scale", s).status_code == 200
    assert api.req("GET", APPS + "/deployments/web").json()["spec"]["replicas"] == 1
    r = api.req("PATCH", APPS + "/deployments/web/scale", {"spec": {"replicas": 2}},
                ct="application/merge-patch+json")
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 2
    # status subresource: spec is ignored, status and annotations kept
    # (the controller writes this status too: retry on a conflict, as any
    # client of a resourceVersion must)
    for _ in range(20):
        d = api.req("GET", APPS + "/deployments/web").json()
        gen = d["metadata"]["generation"]
        d["spec"]["replicas"] = 77
        d["status"] = {"observedGeneration": gen, "replicas": 2}
        d["metadata"]["annotations"] = {"note": "via-status"}
        r = api.req("PUT", APPS + "/deployments/web/status", d)
        if r.status_code != 409:
            break
    assert r.status_code == 200, r.text
    got = api.req("GET", APPS + "/deployments/web").json()
    assert got["spec"]["replicas"] == 2
    assert got["metadata"]["annotations"]["note"] == "via-status"
    assert got["metadata"]["generation"] == gen


def test_list_selectors(api):
    for name, tier in (("a", "front"), ("b", "back"), ("c", "front")):
        d = deployment(name)
        d["metadata"]["labels"]["tier"] = tier
        assert api.req("POST", APPS + "/deployments", d).status_code == 201
    lst = api.req("GET", APPS + "/deployments").json()
    assert lst["kind"] == "DeploymentList" and lst["apiVersion"] == "apps/v1"
    assert int(lst["metadata"]["resourceVersion"]) > 0
    names = lambda q: [i["metadata"]["name"] for i in
                       api.req("GET", APPS + "/deployments", params=q).json()["items"]]
    assert names({"labelSelector": "tier=front"}) == ["a", "c"]
    assert names({"labelSelector": "tier in (back),app"}) == ["b"]
    assert names({"labelSelector": "tier!=front"}) == ["b"]
    assert names({"fieldSelector": "metadata.name=c"}) == ["c"]
    # the query decoded as a form: %XX and '+' alike, either case of hex
    raw = api.req("GET", APPS + "/deployments?labelSelector=tier%20in+%28back%29"
                  "&fieldSelector=metadata.name%3db").json()["items"]
    assert [i["metadata"]["name"] for i in raw] == ["b"]
    assert len(api.req("GET", "/apis/apps/v1/deployments").json()["items"]) == 3
    # a list's items are the objects as GET serves them (the list splices
    # the stored text; a field selector parses it)
    for q in ({}, {"labelSelector": "tier=front"}, {"fieldSelector": "metadata.name!=b"}):
        for item in api.req("GET", APPS + "/deployments", params=q).json()["items"]:
            one = api.req("GET", APPS + "/deployments/" + item["metadata"]["name"]).json()
            assert item == one
    assert api.req("GET", APPS + "/deployments",
                   params={"labelSelector": "in in in"}).status_code == 400


def read_events(api, path, params, n, timeout=5):
    """Reads n watch events from a streaming GET."""
    h = {"Authorization": "Bearer " + api.token}
    out = []
    with requests.get(api.url(path), params=params, headers=h, stream=True,
                      timeout=timeout, verify=api.ca) as r:
        assert r.status_code == 200, r.text
        for line in r.iter_lines():
            if line:
                out.append(json.loads(line))
                if len(out) == n:
                    break
    return out


def test_watch_and_resume(api):
    api.req("POST", APPS + "/deployments", deployment("w1", replicas=0))
    evs = read_events(api, APPS + "/deployments",
                      {"watch": "true", "fieldSelector": "metadata.name=w1"}, 1)
    assert evs[0]["type"] == "ADDED"  # synthetic: the current state
    rv = evs[0]["object"]["metadata"]["resourceVersion"]
    got = []

    def watcher():
        got.extend(read_events(api, APPS + "/deployments",
                               {"watch": "true", "resourceVersion": rv,
                                "fieldSelector": "metadata.name=w1"}, 2))
    t = threading.Thread(target=watcher)
    t.start()
    api.req("PATCH", APPS + "/deployments/w1", {"spec": {"replicas": 0, "paused": True}},
            ct="application/merge-patch+json")
    api.req("DELETE", APPS + "/deployments/w1")
    t.join(10)
    assert [e["type"] for e in got][:1] == ["MODIFIED"]
    assert "DELETED" in [e["type"] for e in got] or len(got) == 2
    # bookmarks: asked for, one comes at once with the current rv
    marks = []
    with requests.get(api.url(APPS + "/deployments"),
                      params={"watch": "true", "allowWatchBookmarks": "true",
                              "resourceVersion": rv},
                      headers={"Authorization": "Bearer " + api.token},
                      stream=True, timeout=5, verify=api.ca) as r:
        for line in r.iter_lines():
            if line and json.loads(line)["type"] == "BOOKMARK":
                marks.append(json.loads(line))
                break
    assert marks and int(marks[0]["object"]["metadata"]["resourceVersion"]) >= int(rv)
    assert marks[0]["object"]["kind"] == "Deployment"
    # resume from the first rv again: the same events come back
    again = read_events(api, APPS + "/deployments",
                        {"watch": "true", "resourceVersion": rv,
                         "fieldSelector": "metadata.name=w1"}, 2)
    assert again[0]["object"]["metadata"]["resourceVersion"] == \
        got[0]["object"]["metadata"]["resourceVersion"]


def test_watch_gone():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, history=3)
        try:
            for i in range(8):
                dm.req("POST", CORE + "/pods", {
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "p%d" % i},
                    "spec": {"containers": [{"name": "c", "image": "i"}]}})
            r = dm.req("GET", CORE + "/pods",
                       params={"watch": "true", "resourceVersion": "1"})
            assert r.status_code == 410
            assert r.json()["reason"] == "Expired"
        finally:
            dm.kill()


def test_invalid_corpus_store_unchanged(api):
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "invalid", "*.yaml")))
    assert len(files) >= 50
    every = (("d", "/apis/apps/v1/deployments"),
             ("r", "/apis/apps/v1/replicasets"), ("p", "/api/v1/pods"))
    before = {k: api.req("GET", p).json() for k, p in every}
    for f in files:
        text = open(f).read()
        expects = re.findall(r"^# expect: (.*)$", text, re.M)
        doc = yaml.safe_load(text)
        kind = doc.get("kind")
        md = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        ns = md.get("namespace") or "default"
        # a misspelled kind is still POSTed somewhere: to deployments
        path = {"ReplicaSet": "/apis/apps/v1/namespaces/%s/replicasets",
                "ReplicationController":
                    "/api/v1/namespaces/%s/replicationcontrollers",
                "Pod": "/api/v1/namespaces/%s/pods"}.get(
                    kind, "/apis/apps/v1/namespaces/%s/deployments") % \
            requests.utils.quote(ns, safe="")
        r = api.req("POST", path, doc)
        assert r.status_code in (400, 422), (f, r.status_code, r.text)
        st = r.json()
        assert st["kind"] == "Status" and st["status"] == "Failure"
        if r.status_code == 422:
            causes = st["details"]["causes"]
            lines = ["%s: %s" % (c["field"], c["message"]) for c in causes]
            for e in expects:
                assert e in lines or e in st["message"], (f, e, lines)
    after = {k: api.req("GET", p).json() for k, p in every}
    for k, p in every:
        assert before[k]["items"] == after[k]["items"]
        # nothing was written and undone either: a watch from before
        # the corpus sees no event of these kinds (the store's rv itself
        # moves with the node's Lease, renewed every 10 s)
        r = requests.get(api.url(p), params={
            "watch": "true", "timeoutSeconds": "1",
            "resourceVersion": before[k]["metadata"]["resourceVersion"]},
            headers={"Authorization": "Bearer " + api.token},
            verify=api.ca, timeout=10)
        assert r.status_code == 200, r.text
        events = [json.loads(x) for x in r.text.splitlines() if x.strip()]
        assert [e for e in events if e["type"] != "BOOKMARK"] == [], events
    # the daemon is still serving
    assert api.req("GET", "/version").status_code == 200


def test_body_limits_and_garbage(api):
    # Refused on its Content-Length alone, before the body is sent (a
    # client that goes on writing after the answer finds the connection
    # closed: over TLS that is an error, not the 413)
    ctx = ssl.create_default_context(cafile=api.ca)
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", api.port), 5),
                         server_hostname="127.0.0.1") as s:
        s.sendall(("POST %s/deployments HTTP/1.1\r\nHost: x\r\n"
                   "Authorization: Bearer %s\r\nContent-Type: application/json"
                   "\r\nContent-Length: %d\r\n\r\n" %
                   (APPS, api.token, 3 * 1024 * 1024 + 10)).encode())
        assert s.recv(4096).startswith(b"HTTP/1.1 413")
    # sent in chunks (no Content-Length): read to the end, then refused
    r = api.req("POST", APPS + "/deployments",
                raw=(b"x" * 65536 for _ in range(49)))
    assert r.status_code == 413
    r = api.req("POST", APPS + "/deployments", raw="{not json")
    assert r.status_code == 400 and r.json()["kind"] == "Status"
    r = api.req("POST", APPS + "/deployments", {"apiVersion": "v1", "kind": "Deployment"})
    assert r.status_code == 400
    assert api.req("GET", "/version").status_code == 200


def test_durable_after_kill9():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            r = dm.req("POST", APPS + "/deployments", deployment("keep", replicas=0))
            assert r.status_code == 201
            dm.kill(signal.SIGKILL)  # right after the reply
            dm.start()
            got = dm.req("GET", APPS + "/deployments/keep")
            assert got.status_code == 200
            assert got.json()["metadata"]["uid"] == r.json()["metadata"]["uid"]
            assert int(got.json()["metadata"]["resourceVersion"]) >= \
                int(r.json()["metadata"]["resourceVersion"])
        finally:
            dm.kill()


def test_delete_propagation(api):
    api.req("POST", APPS + "/deployments", deployment("bg", replicas=1))
    api.req("POST", APPS + "/deployments", deployment("orph", replicas=1))
    api.req("POST", APPS + "/deployments", deployment("fg", replicas=1))
    rs_of = lambda n: [r for r in api.req("GET", APPS + "/replicasets").json()["items"]
                       if r["metadata"]["name"].startswith(n + "-")]
    for n in ("bg", "orph", "fg"):
        wait_for(lambda: rs_of(n), what="a ReplicaSet of " + n)
    assert api.req("DELETE", APPS + "/deployments/bg").status_code == 200
    wait_for(lambda: not rs_of("bg"), what="background cascade")
    r = api.req("DELETE", APPS + "/deployments/orph",
                params={"propagationPolicy": "Orphan"})
    assert r.status_code == 200
    wait_for(lambda: api.req("GET", APPS + "/deployments/orph").status_code == 404,
             what="orphan delete")
    assert rs_of("orph") and not rs_of("orph")[0]["metadata"].get("ownerReferences")
    r = api.req("DELETE", APPS + "/deployments/fg",
                body={"kind": "DeleteOptions", "apiVersion": "v1",
                      "propagationPolicy": "Foreground"})
    assert r.status_code == 200
    wait_for(lambda: api.req("GET", APPS + "/deployments/fg").status_code == 404,
             what="foreground delete")
    assert not rs_of("fg")
    r = api.req("DELETE", APPS + "/deployments/x",
                params={"propagationPolicy": "Sideways"})
    assert r.status_code == 422


def pods_of(api, prefix):
    return [p for p in api.req("GET", CORE + "/pods").json()["items"]
            if p["metadata"]["name"].startswith(prefix)]


def mark_ready(api, pod):
    """Marks a pod Running and Ready through the status subresource."""
    pod["status"] = {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True",
         "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))}]}
    r = api.req("PUT", CORE + "/pods/%s/status" % pod["metadata"]["name"], pod)
    return r.status_code == 200


class Observer:
    """Samples the API every 20 ms; records pods and available counts."""

    def __init__(self, api, name):
        self.api, self.name, self.samples, self.stop = api, name, [], False
        self.images = []
        self.sample()  # the state before the change, synchronously
        self.t = threading.Thread(target=self.run)
        self.t.start()

    def run(self):
        while not self.stop:
            self.sample()
            time.sleep(0.02)

    def sample(self):
        if True:
            pods = [p for p in pods_of(self.api, self.name + "-")
                    if not p["metadata"].get("deletionTimestamp")]
            ready = [p for p in pods if any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in p.get("status", {}).get("conditions", []))]
            images = {p["spec"]["containers"][0]["image"] for p in pods}
            self.samples.append((len(pods), len(ready)))
            self.images.append(images)

    def close(self):
        self.stop = True
        self.t.join()
        self.sample()  # and the state after it, however fast it went


def roll(api, name, replicas, until_image):
    """Marks new pods ready until the Deployment has fully rolled out."""
    def step():
        for p in pods_of(api, name + "-"):
            conds = p.get("status", {}).get("conditions", [])
            if not any(c["type"] == "Ready" for c in conds):
                mark_ready(api, p)
        d = api.req("GET", APPS + "/deployments/" + name).json()
        st = d.get("status", {})
        images = {p["spec"]["containers"][0]["image"] for p in pods_of(api, name + "-")}
        return (st.get("updatedReplicas") == replicas and
                st.get("availableReplicas") == replicas and
                st.get("replicas") == replicas and
                st.get("observedGeneration") == d["metadata"]["generation"] and
                images == {until_image})
    wait_for(step, timeout=30, what="%s to roll out %s" % (name, until_image))


def test_controllers_rolling_update_budget_and_undo(api):
    d = deployment("roll", replicas=4, image="web:1",
                   strategy={"type": "RollingUpdate",
                             "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}})
    assert api.req("POST", APPS + "/deployments", d).status_code == 201
    roll(api, "roll", 4, "web:1")
    obs = Observer(api, "roll")
    try:
        r = api.req("PATCH", APPS + "/deployments/roll",
                    {"spec": {"template": {"spec": {"containers": [
                        {"name": "web", "image": "web:2"}]}}}},
                    ct="application/strategic-merge-patch+json")
        assert r.status_code == 200
        roll(api, "roll", 4, "web:2")
    finally:
        obs.close()
    assert obs.samples
    assert max(n for n, _ in obs.samples) <= 5      # replicas + maxSurge
    assert min(r for _, r in obs.samples) >= 3      # replicas - maxUnavailable
    rs = api.req("GET", APPS + "/replicasets").json()["items"]
    revs = sorted(int(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"])
                  for r in rs if r["metadata"]["name"].startswith("roll-"))
    assert revs == [1, 2]
    dep = api.req("GET", APPS + "/deployments/roll").json()
    conds = {c["type"]: c for c in dep["status"]["conditions"]}
    assert conds["Progressing"]["reason"] == "NewReplicaSetAvailable"
    assert conds["Available"]["status"] == "True"
    # rollout undo, the client-side way: replace the template with the
    # old RS's (without its hash label); the old RS becomes revision 3.
    old = [r for r in rs if r["metadata"]["annotations"][
        "deployment.kubernetes.io/revision"] == "1"][0]
    tmpl = old["spec"]["template"]
    tmpl["metadata"]["labels"].pop("pod-template-hash")
    r = api.req("PATCH", APPS + "/deployments/roll",
                [{"op": "replace", "path": "/spec/template", "value": tmpl}],
                ct="application/json-patch+json")
    assert r.status_code == 200, r.text
    roll(api, "roll", 4, "web:1")
    back = api.req("GET", APPS + "/replicasets/" + old["metadata"]["name"]).json()
    assert back["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert back["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"


def test_controllers_recreate(api):
    d = deployment("rec", replicas=2, image="web:1", strategy={"type": "Recreate"})
    assert api.req("POST", APPS + "/deployments", d).status_code == 201
    roll(api, "rec", 2, "web:1")
    obs = Observer(api, "rec")
    try:
        api.req("PATCH", APPS + "/deployments/rec",
                {"spec": {"template": {"spec": {"containers": [
                    {"name": "web", "image": "web:2"}]}}}},
                ct="application/strategic-merge-patch+json")
        roll(api, "rec", 2, "web:2")
    finally:
        obs.close()
    # never old and new pods at once
    assert max(n for n, _ in obs.samples) <= 2
    assert all(len(i) <= 1 for i in obs.images)
    assert {"web:1"} in obs.images and {"web:2"} in obs.images


def test_node_scheduling_and_graceful_delete(api):
    nodes = api.req("GET", "/api/v1/nodes").json()["items"]
    assert len(nodes) == 1
    node = nodes[0]["metadata"]["name"]
    ready = [c for c in nodes[0]["status"]["conditions"] if c["type"] == "Ready"]
    assert ready[0]["status"] == "True" and ready[0]["lastHeartbeatTime"]
    assert "cpu" in nodes[0]["status"]["capacity"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sel"},
           "spec": {"nodeSelector": {"disk": "ssd"},
                    "containers": [{"name": "c", "image": "i"}]}}
    assert api.req("POST", CORE + "/pods", pod).status_code == 201

    def cond():
        p = api.req("GET", CORE + "/pods/sel").json()
        for c in p.get("status", {}).get("conditions", []):
            if c["type"] == "PodScheduled":
                return c
    c = wait_for(cond, what="PodScheduled=False")
    assert c["status"] == "False" and c["reason"] == "Unschedulable"
    assert c["message"] == ("0/1 nodes are available: 1 node(s) didn't match "
                            "Pod's node affinity/selector.")
    # labelling the node lets the scheduler bind it
    r = api.req("PATCH", "/api/v1/nodes/" + node,
                {"metadata": {"labels": {"disk": "ssd"}}},
                ct="application/merge-patch+json")
    assert r.status_code == 200
    wait_for(lambda: api.req("GET", CORE + "/pods/sel").json()["spec"].get("nodeName") == node,
             what="the pod to be bound")
    # bound once
    r = api.req("POST", CORE + "/pods/sel/binding",
                {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "sel"},
                 "target": {"kind": "Node", "name": "other"}})
    assert r.status_code == 409
    # a bound pod is deleted gracefully, and the agent finishes it
    r = api.req("DELETE", CORE + "/pods/sel")
    assert r.status_code == 200 and r.json()["metadata"]["deletionTimestamp"]
    wait_for(lambda: api.req("GET", CORE + "/pods/sel").status_code == 404,
             what="the agent to finish the deletion")
    # a cordoned node takes no new pods
    api.req("PATCH", "/api/v1/nodes/" + node, {"spec": {"unschedulable": True}},
            ct="application/merge-patch+json")
    pod["metadata"]["name"] = "cordoned"
    del pod["spec"]["nodeSelector"]
    assert api.req("POST", CORE + "/pods", pod).status_code == 201
    c = wait_for(lambda: (lambda p: [c for c in p.get("status", {}).get("conditions", [])
                                     if c["type"] == "PodScheduled"])(
        api.req("GET", CORE + "/pods/cordoned").json()), what="Unschedulable")
    assert "1 node(s) were unschedulable" in c[0]["message"]


def test_watch_event_arrives_without_further_requests(api):
    """An event must reach a suspended watch at once, not with the next
    request; a watch the client abandoned must not break later writes."""
    api.req("POST", APPS + "/deployments", deployment("live", replicas=0))
    rv = api.req("GET", APPS + "/deployments/live").json()["metadata"]["resourceVersion"]
    # an abandoned watch
    h = {"Authorization": "Bearer " + api.token}
    with requests.get(api.url(APPS + "/deployments"),
                      params={"watch": "true", "resourceVersion": rv},
                      headers=h, stream=True, timeout=5, verify=api.ca) as r:
        assert r.status_code == 200
    got = []

    def watcher():
        got.extend(read_events(api, APPS + "/deployments",
                               {"watch": "true", "resourceVersion": rv,
                                "fieldSelector": "metadata.name=live"}, 1))
    t = threading.Thread(target=watcher)
    t.start()
    time.sleep(0.2)  # let the watch become idle (suspended); no condition to poll
    sent = time.monotonic()
    for i in range(2):
        r = api.req("PATCH", APPS + "/deployments/live",
                    {"metadata": {"labels": {"n": str(i)}}},
                    ct="application/merge-patch+json")
        assert r.status_code == 200
        if i == 0:
            t.join(3)
            assert got and time.monotonic() - sent < 2.5
    assert got[0]["type"] == "MODIFIED"
