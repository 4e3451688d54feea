"""test_kubectl_verbs.py - the real kubectl drives rollouts of real
processes on `drover serve --listen` over HTTPS, with nothing but
KUBECONFIG=DIR/kubeconfig, for each kubectl of kubectl_bins.py (Debian's
1.20 and the cloud SDK's newest):

  apply -f (twice: "unchanged"), rollout status, get (server-side Table),
  set image (a rollout that completes on real processes: every process
  runs the new image), rollout history, rollout undo (the previous
  revision back), set env, scale, label (a pod labeled out of its
  ReplicaSet is released and replaced), annotate, edit, diff, rollout
  pause / resume / restart, wait --for=condition=Available, describe (with
  Events), delete; errors as kubectl prints Kubernetes' (404 NotFound,
  409 AlreadyExists, 422 Invalid with the field), apply --server-side
  refused with kubectl's own message (drover serves client-side apply);
  and `rollout status` exits non-zero when a rollout passes its progress
  deadline.

Each kubectl works on its own Deployments, deleted before the daemon
stops; no process is left behind."""
import json
import os
import subprocess
import tempfile

import pytest

from kubectl_bins import kubectl_bins
from test_api import APPS, CORE, Daemon, wait_for
from test_runtime import (EXAMPLE, delete_deployments, environ,
                          kill_and_check_left, pids_of)

BINS = kubectl_bins()


def test_both_kubectl_versions_are_here():
    """The suite below runs for each binary: none may be missing."""
    labels = [b[0] for b in BINS]
    assert "1.20" in labels and len(labels) == 2, BINS


@pytest.fixture(scope="module")
def daemon():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process",
                              "--host-port-range", "23000-23199"])
        try:
            yield dm
        finally:
            try:
                delete_deployments(dm, timeout=30)
            finally:
                kill_and_check_left(dm)


class Kubectl:
    def __init__(self, dm, kbin, home):
        self.dm, self.kbin, self.home = dm, kbin, home

    def run(self, *args, input=None, env=None, timeout=90):
        e = self.dm.env()  # KUBECONFIG=DIR/kubeconfig, nothing else
        e["HOME"] = self.home  # no ~/.kube of the machine
        e.update(env or {})
        return subprocess.run([self.kbin, "--cache-dir",
                               os.path.join(self.home, "cache")] + list(args),
                              capture_output=True, text=True, env=e,
                              input=input, timeout=timeout)

    def ok(self, *args, **kw):
        r = self.run(*args, **kw)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout


def manifest(name, image="web:1", replicas=2, deadline=None, never_ready=False):
    args = ["--port", "$(PORT)"] + (["--never-ready"] if never_ready else [])
    d = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": name, "labels": {"app": name}},
         "spec": {"replicas": replicas,
                  "selector": {"matchLabels": {"app": name}},
                  "strategy": {"type": "RollingUpdate",
                               "rollingUpdate": {"maxSurge": 1,
                                                 "maxUnavailable": 0}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"terminationGracePeriodSeconds": 3,
                                        "containers": [{
                                            "name": "web", "image": image,
                                            "command": [EXAMPLE], "args": args,
                                            "ports": [{"name": "http",
                                                       "containerPort": 8080}],
                                            "readinessProbe": {
                                                "httpGet": {"path": "/healthz",
                                                            "port": "http"},
                                                "periodSeconds": 1}}]}}}}
    if deadline:
        d["spec"]["progressDeadlineSeconds"] = deadline
    return json.dumps(d)


def images_running(dm, name):
    """The images the processes of Deployment name's pods were started
    with (DROVER_IMAGE), sorted: the processes, not only the statuses."""
    pods = dm.req("GET", CORE + "/pods",
                  params={"labelSelector": "app=" + name}).json()["items"]
    out = []
    for p in pods:
        if p["metadata"].get("deletionTimestamp"):
            continue
        for pid in pids_of(p):
            try:
                out.append(environ(pid).get("DROVER_IMAGE"))
            except OSError:
                out.append(None)  # gone meanwhile: asked again
    return sorted(out)


@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_kubectl_verbs_roll_real_processes(daemon, label, kbin):
    name = "web-" + label.replace(".", "-")
    with tempfile.TemporaryDirectory() as home:
        k = Kubectl(daemon, kbin, home)
        # apply, twice
        out = k.ok("apply", "-f", "-", input=manifest(name))
        assert out.strip() == "deployment.apps/%s created" % name
        out = k.ok("apply", "-f", "-", input=manifest(name))
        assert out.strip() == "deployment.apps/%s unchanged" % name
        out = k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        assert "successfully rolled out" in out
        out = k.ok("get", "deploy", name)
        head, row = out.splitlines()[:2]
        assert head.split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
        assert row.split()[:4] == [name, "2/2", "2", "2"]
        assert images_running(daemon, name) == ["web:1", "web:1"]

        # set image: a rollout of real processes
        out = k.ok("set", "image", "deployment/" + name, "web=web:2")
        assert out.strip() == "deployment.apps/%s image updated" % name
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        wait_for(lambda: images_running(daemon, name) == ["web:2", "web:2"],
                 timeout=30, what="the processes on web:2")
        out = k.ok("rollout", "history", "deployment/" + name)
        assert [ln.split()[0] for ln in out.splitlines()
                if ln.split() and ln.split()[0].isdigit()] == ["1", "2"], out

        # rollout undo: revision 1 again
        out = k.ok("rollout", "undo", "deployment/" + name)
        assert out.strip() == "deployment.apps/%s rolled back" % name
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        wait_for(lambda: images_running(daemon, name) == ["web:1", "web:1"],
                 timeout=30, what="the processes on web:1 again")

        # set env, scale, label, annotate, edit
        out = k.ok("set", "env", "deployment/" + name, "COLOR=blue")
        assert out.strip() == "deployment.apps/%s env updated" % name
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        out = k.ok("scale", "deployment/" + name, "--replicas=3")
        assert out.strip() == "deployment.apps/%s scaled" % name
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")

        # a pod labeled out of the selector (taken aside to debug it) is
        # released: no owner, its process runs on, and a new pod takes
        # its place (ClaimPods' release)
        def live_pods(selector):
            return [p for p in daemon.req(
                "GET", CORE + "/pods", params={"labelSelector": selector})
                .json()["items"] if not p["metadata"].get("deletionTimestamp")]
        aside = live_pods("app=" + name)[0]
        victim, aside_pids = aside["metadata"]["name"], pids_of(aside)
        assert aside_pids
        assert k.ok("label", "pod", victim, "app=aside-" + name,
                    "--overwrite").strip() == "pod/%s labeled" % victim

        def released():
            p = daemon.req("GET", CORE + "/pods/" + victim).json()
            d = daemon.req("GET", APPS + "/deployments/" + name).json()
            mine = live_pods("app=" + name)
            return (not p["metadata"].get("ownerReferences") and
                    len(mine) == 3 and victim not in
                    [q["metadata"]["name"] for q in mine] and
                    d["status"].get("availableReplicas") == 3)
        wait_for(released, timeout=30, what="the pod released and replaced")
        assert pids_of(daemon.req("GET", CORE + "/pods/" + victim).json()) \
            == aside_pids
        for pid in aside_pids:
            os.kill(pid, 0)  # the process runs on
        k.ok("delete", "pod", victim, "--timeout=30s")

        assert k.ok("label", "deployment", name, "tier=front").strip() == \
            "deployment.apps/%s labeled" % name
        assert k.ok("annotate", "deployment", name, "note=hi").strip() == \
            "deployment.apps/%s annotated" % name
        out = k.ok("edit", "deployment/" + name,
                   env={"EDITOR": "sed -i s/replicas:\\ 3/replicas:\\ 2/",
                        "KUBE_EDITOR": ""})
        assert out.strip() == "deployment.apps/%s edited" % name
        d = daemon.req("GET", APPS + "/deployments/" + name).json()
        assert d["spec"]["replicas"] == 2
        assert d["metadata"]["labels"]["tier"] == "front"
        assert d["metadata"]["annotations"]["note"] == "hi"
        assert d["spec"]["template"]["spec"]["containers"][0]["env"] == [
            {"name": "COLOR", "value": "blue"}]

        # diff: a change shows, exit 1
        r = k.run("diff", "-f", "-", input=manifest(name, image="web:9"))
        assert r.returncode == 1, (r.stdout, r.stderr)
        assert "-        image: web:1" in r.stdout and "+        image: web:9" in r.stdout

        # pause, resume, restart, wait
        assert k.ok("rollout", "pause", "deployment/" + name).strip() == \
            "deployment.apps/%s paused" % name
        assert daemon.req("GET", APPS + "/deployments/" + name).json()["spec"]["paused"]
        assert k.ok("rollout", "resume", "deployment/" + name).strip() == \
            "deployment.apps/%s resumed" % name
        assert k.ok("rollout", "restart", "deployment/" + name).strip() == \
            "deployment.apps/%s restarted" % name
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        out = k.ok("wait", "--for=condition=Available", "deployment/" + name,
                   "--timeout=30s")
        assert out.strip() == "deployment.apps/%s condition met" % name
        out = k.ok("describe", "deployment", name)
        assert "Events:" in out and "ScalingReplicaSet" in out, out

        # errors as kubectl prints Kubernetes' errors
        r = k.run("create", "-f", "-", input=manifest(name))
        assert r.returncode != 0
        assert 'Error from server (AlreadyExists)' in r.stderr, r.stderr
        assert 'deployments.apps "%s" already exists' % name in r.stderr
        r = k.run("get", "deployment", "nope-" + name)
        assert r.returncode != 0
        assert r.stderr.strip() == \
            'Error from server (NotFound): deployments.apps "nope-%s" not found' % name
        bad = json.loads(manifest("bad-" + name))
        bad["spec"]["replicas"] = -1
        r = k.run("apply", "--validate=false", "-f", "-", input=json.dumps(bad))
        assert r.returncode != 0
        assert 'The Deployment "bad-%s" is invalid' % name in r.stderr, r.stderr
        assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" \
            in r.stderr
        r = k.run("apply", "--server-side", "-f", "-", input=manifest(name))
        assert r.returncode != 0
        assert "apply" in r.stderr.lower(), r.stderr

        out = k.ok("delete", "deployment", name)
        assert out.strip() == 'deployment.apps "%s" deleted' % name
        wait_for(lambda: not daemon.req(
            "GET", CORE + "/pods", params={"labelSelector": "app=" + name})
            .json()["items"], timeout=30, what="the pods of " + name)


@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_rollout_status_fails_on_progress_deadline(daemon, label, kbin):
    name = "stuck-" + label.replace(".", "-")
    with tempfile.TemporaryDirectory() as home:
        k = Kubectl(daemon, kbin, home)
        k.ok("apply", "-f", "-", input=manifest(name, replicas=1))
        k.ok("rollout", "status", "deployment/" + name, "--timeout=60s")
        # the next revision never becomes ready: past the deadline
        k.ok("apply", "-f", "-",
             input=manifest(name, image="web:2", replicas=1, deadline=2,
                            never_ready=True))
        r = k.run("rollout", "status", "deployment/" + name, "--timeout=60s")
        assert r.returncode != 0
        assert 'deployment "%s" exceeded its progress deadline' % name in r.stderr, \
            (r.stdout, r.stderr)
        k.ok("delete", "deployment", name)


@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_expose_and_create_service(daemon, label, kbin):
    """kubectl expose and kubectl create service send a Service with
    status {loadBalancer: {}}: accepted, the status Kubernetes' shape."""
    name = "exp-" + label.replace(".", "-")
    port = {"1.20": 23297}.get(label, 23298)
    with tempfile.TemporaryDirectory() as home:
        k = Kubectl(daemon, kbin, home)
        # kubectl 1.32 and later send this one in Kubernetes' protobuf
        k.ok("create", "service", "clusterip", name, "--tcp=%d:8080" % port)
        svc = json.loads(k.ok("get", "svc", name, "-o", "json"))
        assert svc["status"] == {"loadBalancer": {}}
        assert svc["spec"]["ports"][0]["port"] == port
        assert svc["spec"]["ports"][0]["targetPort"] == 8080
        assert svc["spec"]["selector"] == {"app": name}
        k.ok("delete", "svc", name)
        daemon_apply = manifest(name, replicas=0)
        k.ok("apply", "-f", "-", input=daemon_apply)
        k.ok("expose", "deployment", name, "--port", str(port),
             "--target-port", "8080")
        svc = json.loads(k.ok("get", "svc", name, "-o", "json"))
        assert svc["status"] == {"loadBalancer": {}}
        assert svc["spec"]["selector"] == {"app": name}
        k.ok("delete", "svc", name)
        k.ok("delete", "deployment", name)


@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_create_deployment(daemon, label, kbin):
    """kubectl create deployment (a typed Deployment: in protobuf from
    kubectl 1.32 on): its image, command, port and replicas arrive, and a
    replicas of 0 stays 0 (a pointer field: present when set)."""
    name = "gen-" + label.replace(".", "-")
    with tempfile.TemporaryDirectory() as home:
        k = Kubectl(daemon, kbin, home)
        k.ok("create", "deployment", name, "--image=web:1", "--port=8080",
             "--replicas=2", "--", "sleep", "60")
        d = json.loads(k.ok("get", "deployment", name, "-o", "json"))
        c = d["spec"]["template"]["spec"]["containers"][0]
        assert d["spec"]["replicas"] == 2
        assert d["spec"]["selector"] == {"matchLabels": {"app": name}}
        assert (c["image"], c["command"]) == ("web:1", ["sleep", "60"])
        assert c["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
        k.ok("delete", "deployment", name)
        k.ok("create", "deployment", name + "-z", "--image=web:1",
             "--replicas=0")
        d = json.loads(k.ok("get", "deployment", name + "-z", "-o", "json"))
        assert d["spec"]["replicas"] == 0
        k.ok("delete", "deployment", name + "-z")
