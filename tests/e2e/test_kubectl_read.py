"""test_kubectl_read.py - the real kubectl (1.20 and the newest cloud SDK
kubectl, kubectl_bins.py) against `drover serve`: discovery
(api-resources, api-versions), get with the server-side Table (every
kind, -o wide, --show-labels, -L, -A, -l, the -o formats), get -w,
explain (OpenAPI v3, and v2 as protobuf for 1.20), apply twice, create -f, and an unknown field refused.

kubectl reaches `drover serve --listen 127.0.0.1:0` over HTTPS with the
kubeconfig the daemon writes (KUBECONFIG=DIR/kubeconfig, nothing else);
the test reads and writes through the daemon's unix socket. Each kubectl
gets its own --cache-dir (kubectl caches discovery on disk)."""
import json
import os
import re
import select
import subprocess
import tempfile
import time

import pytest
import yaml

from conftest import Drover, UnixHTTPConnection, poll
from kubectl_bins import kubectl_bins

BINS = kubectl_bins()
APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


@pytest.fixture
def drover():
    """A fresh `drover serve` per test, on its socket and on HTTPS (its
    kubeconfig written once it listens), stopped (and checked gone)
    after."""
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d, extra=["--listen", "127.0.0.1:0"])
        try:
            dm.kubeconfig = os.path.join(d, "kubeconfig")
            poll(lambda: os.path.exists(dm.kubeconfig),
                 what="the kubeconfig")
            yield dm
        finally:
            dm.stop()


def kube_env(drover, tmp_path):
    """kubectl's environment: the kubeconfig, a HOME of its own."""
    return {"HOME": str(tmp_path), "PATH": os.environ["PATH"],
            "KUBECONFIG": drover.kubeconfig}


@pytest.fixture(params=BINS, ids=[b[0] for b in BINS])
def kc(request, drover, tmp_path):
    """(run, label): run(*args) runs that kubectl against the daemon."""
    label, binary = request.param
    cache = str(tmp_path / "kube-cache")

    def run(*args, input=None, timeout=30):
        return subprocess.run(
            [binary, "--cache-dir", cache, "-n", "default"] + list(args),
            input=input, capture_output=True, text=True, timeout=timeout,
            env=kube_env(drover, tmp_path))
    run.label, run.binary, run.cache = label, binary, cache
    try:
        yield run
    finally:
        # the workloads go before the daemon does
        for path in (APPS + "/deployments", CORE + "/services"):
            for it in drover.get(path)["items"]:
                drover.api("DELETE", path + "/" + it["metadata"]["name"])
        poll(lambda: not drover.get(APPS + "/deployments")["items"] and
             not drover.get(CORE + "/pods")["items"],
             what="workloads deleted")


def deployment(name="web", replicas=2, image="nginx:1", extra_spec=None):
    spec = {"replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [
                             {"name": name, "image": image}]}}}
    spec.update(extra_spec or {})
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": spec}


SERVICE = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "web"},
           "spec": {"selector": {"app": "web"},
                    "ports": [{"name": "http", "port": 18080,
                               "targetPort": 8080}]}}


def write(tmp_path, name, *docs):
    p = tmp_path / name
    p.write_text("---\n".join(yaml.safe_dump(d) for d in docs))
    return str(p)


def table(out):
    """Rows of kubectl's table output, cells split on 2+ spaces."""
    return [re.split(r"\s{2,}", l.strip()) for l in out.splitlines()
            if l.strip()]


def ok(r):
    assert r.returncode == 0, (r.args, r.stdout, r.stderr)
    return r.stdout


# ---- discovery ----

def test_api_resources_and_versions(kc):
    rows = {r[0]: r for r in table(ok(kc("api-resources")))[1:]}
    assert rows["deployments"] == ["deployments", "deploy", "apps/v1",
                                   "true", "Deployment"]
    assert rows["pods"] == ["pods", "po", "v1", "true", "Pod"]
    assert rows["nodes"] == ["nodes", "no", "v1", "false", "Node"]
    assert rows["endpointslices"][1:] == ["discovery.k8s.io/v1", "true",
                                          "EndpointSlice"]
    assert "deployments/scale" not in rows  # subresources are not listed
    if kc.label != "1.20":  # 1.20 has no --categories
        # what `kubectl get all` gets: Kubernetes' category "all"
        names = ok(kc("api-resources", "--categories=all", "-o",
                      "name")).split()
        assert sorted(names) == ["deployments.apps", "pods",
                                 "replicasets.apps", "replicationcontrollers",
                                 "services"]
    assert rows["poddisruptionbudgets"] == [
        "poddisruptionbudgets", "pdb", "policy/v1", "true",
        "PodDisruptionBudget"]
    assert ok(kc("api-versions")).split() == [
        "apps/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "policy/v1",
        "v1"]


# ---- apply, create, get ----

def test_apply_create_and_get(kc, drover, tmp_path):
    f = write(tmp_path, "web.yaml", deployment(), SERVICE)
    assert ok(kc("apply", "-f", f)).splitlines() == [
        "deployment.apps/web created", "service/web created"]
    assert ok(kc("apply", "-f", f)).splitlines() == [
        "deployment.apps/web unchanged", "service/web unchanged"]
    g = write(tmp_path, "api.yaml", deployment("api", 1, "busybox:1"))
    assert ok(kc("create", "-f", g)) == "deployment.apps/api created\n"
    r = kc("create", "-f", g)
    assert r.returncode == 1 and "AlreadyExists" in r.stderr and \
        '"api" already exists' in r.stderr
    poll(lambda: len(drover.get(CORE + "/pods")["items"]) == 3,
         what="3 pods")
    web = sorted(p["metadata"]["name"]
                 for p in drover.get(CORE + "/pods")["items"]
                 if p["metadata"]["name"].startswith("web-"))
    assert drover.mark_ready(drover.get(CORE + "/pods/" + web[0]))

    t = table(ok(kc("get", "deploy")))
    assert t[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert [r[0] for r in t[1:]] == ["api", "web"]
    assert re.fullmatch(r"\d+s", t[2][4]), t
    t = table(ok(kc("get", "deployments", "-o", "wide")))
    assert t[0][5:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert t[2][0] == "web" and t[2][5:] == ["web", "nginx:1", "app=web"]
    t = table(ok(kc("get", "deploy", "web")))
    assert len(t) == 2 and t[1][0] == "web"

    t = table(ok(kc("get", "rs", "-L", "app")))
    assert t[0] == ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "APP"]
    assert sorted((r[1], r[5]) for r in t[1:]) == [("1", "api"),
                                                   ("2", "web")]

    t = table(ok(kc("get", "pods", "-l", "app=web", "-o", "wide")))
    assert t[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP",
                    "NODE", "NOMINATED NODE", "READINESS GATES", "PORTS"]
    assert sorted(r[0] for r in t[1:]) == web
    ready = [r for r in t[1:] if r[0] == web[0]][0]
    assert ready[1:4] == ["1/1", "Running", "0"]
    t = table(ok(kc("get", "pods", "--show-labels")))
    assert t[0][-1] == "LABELS" and len(t) == 4
    assert all(r[-1].startswith("app=") and "pod-template-hash=" in r[-1]
               for r in t[1:])
    t = table(ok(kc("get", "deploy", "-A")))
    assert t[0][:2] == ["NAMESPACE", "NAME"] and \
        [r[:2] for r in t[1:]] == [["default", "api"], ["default", "web"]]
    r = kc("get", "deploy", "-l", "app=nothing")
    assert r.returncode == 0 and r.stdout == "" and \
        "No resources found" in r.stderr

    t = table(ok(kc("get", "svc")))
    assert t[0] == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)",
                    "AGE"]
    assert t[1][:5] == ["web", "ClusterIP", "127.0.0.1", "<none>",
                        "18080/TCP"]
    assert table(ok(kc("get", "svc", "-o", "wide")))[1][-1] == "app=web"
    poll(lambda: drover.api("GET", CORE + "/endpoints/web")[0] == 200,
         what="the Endpoints of web")
    t = table(ok(kc("get", "ep")))
    assert t[0] == ["NAME", "ENDPOINTS", "AGE"] and t[1][0] == "web"
    t = table(ok(kc("get", "nodes")))
    assert t[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert t[1][1:3] == ["Ready", "<none>"]
    t = table(ok(kc("get", "nodes", "-o", "wide")))
    assert t[0][5:] == ["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
                        "KERNEL-VERSION", "CONTAINER-RUNTIME"]

    lst = json.loads(ok(kc("get", "deploy", "-o", "json")))
    assert lst["kind"] == "List" and \
        [i["metadata"]["name"] for i in lst["items"]] == ["api", "web"]
    one = yaml.safe_load(ok(kc("get", "deploy", "web", "-o", "yaml")))
    assert (one["kind"], one["spec"]["replicas"]) == ("Deployment", 2)
    assert ok(kc("get", "deploy", "-o", "name")) == \
        "deployment.apps/api\ndeployment.apps/web\n"
    assert ok(kc("get", "deploy", "web", "-o",
                 "jsonpath={.spec.template.spec.containers[0].image}")) == \
        "nginx:1"
    t = table(ok(kc("get", "deploy", "-o",
                    "custom-columns=N:.metadata.name,R:.spec.replicas")))
    assert t == [["N", "R"], ["api", "1"], ["web", "2"]]
    t = table(ok(kc("get", "all")))
    kinds = {r[0].split("/")[0] for r in t if "/" in r[0]}
    assert kinds == {"pod", "service", "deployment.apps",
                     "replicaset.apps"}, t


def test_unknown_field_refused(kc, drover, tmp_path):
    """kubectl 1.20 validates against the OpenAPI v2 schemas itself, as
    against Kubernetes; newer ones find fieldValidation in the v3 document
    and leave it to the server (which refuses unknown fields)."""
    f = write(tmp_path, "bad.yaml",
              deployment("bad", extra_spec={"foo": 1}))
    for verb in ("apply", "create"):
        r = kc(verb, "-f", f)
        assert r.returncode == 1, (verb, r.stdout, r.stderr)
        if kc.label == "1.20":
            assert r.stderr.startswith(
                'error: error validating "%s": error validating data: '
                'ValidationError(Deployment.spec): unknown field "foo" in '
                'io.k8s.api.apps.v1.DeploymentSpec' % f), r.stderr
        else:
            assert 'The Deployment "bad" is invalid: spec.foo: Unknown ' \
                'field' in r.stderr, (verb, r.stderr)
    assert drover.api("GET", APPS + "/deployments/bad")[0] == 404


# ---- watch ----

def deployment_watches(drover):
    """How many watches of Deployments the daemon has opened, from its
    /metrics (the controllers' own among them)."""
    c = UnixHTTPConnection(drover.sock)
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        text = r.read().decode()
        assert r.status == 200, text
    finally:
        c.close()
    m = re.search(r'^drover_apiserver_request_total\{verb="WATCH",'
                  r'resource="deployments",subresource="",code="200"\} '
                  r'(\d+)$', text, re.M)
    return int(m.group(1)) if m else 0


def test_get_watch_prints_the_change(kc, drover, tmp_path):
    ok(kc("apply", "-f", write(tmp_path, "w.yaml", deployment(replicas=1))))
    watches = deployment_watches(drover)
    p = subprocess.Popen(
        [kc.binary, "--cache-dir", kc.cache, "-n", "default", "get",
         "deploy", "web", "-w"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=kube_env(drover, tmp_path))
    out = b""
    try:
        def read_until(pred, timeout=15):
            nonlocal out
            end = time.monotonic() + timeout
            while not pred(out.decode()):
                left = end - time.monotonic()
                assert left > 0, out.decode()
                if select.select([p.stdout], [], [], left)[0]:
                    chunk = os.read(p.stdout.fileno(), 4096)
                    assert chunk, (out.decode(), p.stderr.read())
                    out += chunk
        read_until(lambda s: re.search(r"^web\s+0/1\s", s, re.M))
        # kubectl prints what it GETs, then watches from "any" version
        # and skips that watch's first event (the state it printed): a
        # change made before its watch is open would never be shown.
        poll(lambda: deployment_watches(drover) > watches,
             what="kubectl's watch open")
        assert drover.api("PATCH", APPS + "/deployments/web",
                          {"spec": {"replicas": 3}},
                          ct="application/merge-patch+json")[0] == 200
        read_until(lambda s: re.search(r"^web\s+0/3\s", s, re.M))
        assert table(out.decode())[0][:2] == ["NAME", "READY"]
    finally:
        p.kill()
        p.wait(timeout=10)
        p.stdout.close()
        p.stderr.close()


# ---- explain (OpenAPI v3; v2 as protobuf for 1.20) ----

def test_explain(kc):
    out = ok(kc("explain", "deployment.spec.replicas"))
    assert re.search(r"FIELD:\s+replicas <integer>", out), out
    assert "Number of desired pods" in out
    out = ok(kc("explain", "deployment.spec.strategy"))
    assert re.search(r"rollingUpdate\t<(Object|RollingUpdateDeployment)>",
                     out), out
    assert "Type of deployment" in out
    out = ok(kc("explain", "pods.spec.containers"))
    assert "image\t<string>" in out
    assert "drover: the release the process runs" in out
