"""test_smp.py - strategic merge patches against the real daemon: the exact
bodies kubectl sends for `set image`, `rollout pause/resume/restart` and
an `apply` that switches RollingUpdate to Recreate with "$retainKeys"
(notes/kubectl-compat.md §7), finalizers through
"$deleteFromPrimitiveList", Kubernetes' 400s for bad directives, and the
real kubectl (`set image`, `rollout undo`, `apply`) through a socat
bridge from loopback TCP to the daemon's unix socket (which needs no
token)."""
import json
import os
import shutil
import socket
import subprocess

import pytest

from conftest import poll

APPS = "/apis/apps/v1/namespaces/default"
SMP = "application/strategic-merge-patch+json"


def deployment(containers, name="web"):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {"replicas": 1,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": containers}}}}


def container(name, image, **extra):
    c = {"name": name, "image": image, "command": ["sleep", "1000"]}
    c.update(extra)
    return c


def patch(drover, body, name="web"):
    st, obj = drover.api("PATCH", APPS + "/deployments/" + name, body, ct=SMP)
    assert st == 200, (st, obj)
    return obj


def replicasets(drover, name="web"):
    return [r for r in drover.get(APPS + "/replicasets")["items"]
            if r["metadata"]["name"].startswith(name + "-")]


def delete_and_wait(drover, name="web"):
    st, _ = drover.api("DELETE", APPS + "/deployments/" + name)
    assert st == 200
    poll(lambda: drover.api("GET", APPS + "/deployments/" + name)[0] == 404
         and not replicasets(drover, name) and not drover.pods(name + "-"),
         what="the Deployment, its ReplicaSets and pods to go")


def test_kubectl_bodies(drover):
    st, _ = drover.api("POST", APPS + "/deployments", deployment([
        container("web", "v1", ports=[{"containerPort": 8080, "name": "http"}],
                  env=[{"name": "A", "value": "1"}]),
        container("side", "s1")]))
    assert st == 201
    poll(lambda: len(replicasets(drover)) == 1, what="the first ReplicaSet")

    # kubectl set image deploy/web web=v2, byte for byte (kubectl lists the
    # names of every container in $setElementOrder; with only "web" listed
    # the other container keeps its place after it)
    d = patch(drover, {"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "web"}],
        "containers": [{"image": "v2", "name": "web"}]}}}})
    cs = d["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in cs] == [("web", "v2"),
                                                      ("side", "s1")]
    assert cs[0]["ports"] == [{"containerPort": 8080, "name": "http",
                               "protocol": "TCP"}]
    assert cs[0]["env"] == [{"name": "A", "value": "1"}]
    assert "$setElementOrder/containers" not in d["spec"]["template"]["spec"]
    # the template changed: a second ReplicaSet, the stored object as sent
    poll(lambda: len(replicasets(drover)) == 2, what="the new ReplicaSet")
    stored = drover.get(APPS + "/deployments/web")
    assert stored["spec"]["template"] == d["spec"]["template"]

    # both names listed, reversed: the merged list takes that order
    d = patch(drover, {"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "side"}, {"name": "web"}],
        "containers": [{"image": "v3", "name": "web"}]}}}})
    assert [(c["name"], c["image"])
            for c in d["spec"]["template"]["spec"]["containers"]] == [
        ("side", "s1"), ("web", "v3")]

    # kubectl rollout pause / resume / restart
    assert patch(drover, {"spec": {"paused": True}})["spec"]["paused"] is True
    assert "paused" not in patch(drover, {"spec": {"paused": None}})["spec"]
    d = patch(drover, {"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": "2026-11-22T06:58:33Z"}}}}})
    md = d["spec"]["template"]["metadata"]
    assert (md["labels"], md["annotations"]) == (
        {"app": "web"},
        {"kubectl.kubernetes.io/restartedAt": "2026-11-22T06:58:33Z"})

    # kubectl apply switching to Recreate, with a container removed and
    # fields dropped (the second example of §7)
    assert drover.get(APPS + "/deployments/web")["spec"]["strategy"][
        "rollingUpdate"] == {"maxUnavailable": "25%", "maxSurge": "25%"}
    d = patch(drover, {
        "metadata": {"labels": {"tier": "front"}},
        "spec": {"replicas": 2,
                 "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
                 "template": {"spec": {
                     "$setElementOrder/containers": [{"name": "web"}],
                     "containers": [{"env": None, "image": "v4", "name": "web",
                                     "ports": None},
                                    {"$patch": "delete", "name": "side"}]}}}})
    assert d["spec"]["strategy"] == {"type": "Recreate"}
    assert d["spec"]["replicas"] == 2
    assert d["metadata"]["labels"] == {"tier": "front"}
    cs = d["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in cs] == ["web"]
    assert cs[0]["image"] == "v4" and "env" not in cs[0] and "ports" not in cs[0]

    # finalizers merge as a set; $deleteFromPrimitiveList removes by value
    d = patch(drover, {"metadata": {"finalizers": ["example.com/a"]}})
    assert d["metadata"]["finalizers"] == ["example.com/a"]
    d = patch(drover, {"metadata": {"finalizers": ["example.com/b"]}})
    assert d["metadata"]["finalizers"] == ["example.com/b", "example.com/a"]
    d = patch(drover, {"metadata": {"$deleteFromPrimitiveList/finalizers": [
        "example.com/a", "example.com/b"]}})
    assert "finalizers" not in d["metadata"]

    # bad directives: 400 with Kubernetes' text, nothing stored
    before = drover.get(APPS + "/deployments/web")
    for body, msg in (
            ({"spec": {"strategy": {"$retainKeys": ["type"],
                                    "rollingUpdate": {"maxSurge": 1}}}},
             "invalid patch format of retainKeys"),
            ({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "x"}],
                "containers": [{"name": "web", "image": "v9"}]}}}},
             "The order in patch list:\n[map[image:v9 name:web]]\n doesn't "
             "match $setElementOrder list:\n[map[name:x]]\n"),
            ({"spec": {"template": {"spec": {"containers": [
                {"image": "v9"}]}}}},
             "map: map[image:v9] does not contain declared merge key: name"),
            ({"metadata": {"$patch": "keep"}},
             "unknown patch type: keep in map: map[$patch:keep]")):
        st, obj = drover.api("PATCH", APPS + "/deployments/web", body, ct=SMP)
        assert (st, obj["reason"], obj["message"]) == (400, "BadRequest", msg)
    assert drover.get(APPS + "/deployments/web") == before

    delete_and_wait(drover)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.skipif(not (shutil.which("kubectl") and shutil.which("socat")),
                    reason="needs kubectl and socat")
def test_real_kubectl_set_image_and_undo(drover, tmp_path):
    port = free_port()
    bridge = subprocess.Popen(
        ["socat", "TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork" % port,
         "UNIX-CONNECT:" + drover.sock],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def up():
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                return True
            except OSError:
                return False
        poll(up, what="the socat bridge")
        env = dict(os.environ, KUBECONFIG=str(tmp_path / "none"))

        def kubectl(*args):
            r = subprocess.run(
                ["kubectl", "--server", "http://127.0.0.1:%d" % port,
                 "-n", "default"] + list(args),
                capture_output=True, text=True, env=env, timeout=60)
            assert r.returncode == 0, (args, r.stdout, r.stderr)
            return r.stdout

        m = tmp_path / "web.json"
        m.write_text(json.dumps(deployment([
            container("web", "v1", env=[{"name": "A", "value": "1"}]),
            container("side", "s1")])))
        assert kubectl("apply", "--validate=false", "-f", str(m)) == \
            "deployment.apps/web created\n"
        assert kubectl("set", "image", "deploy/web", "web=v2") == \
            "deployment.apps/web image updated\n"
        d = drover.get(APPS + "/deployments/web")
        cs = d["spec"]["template"]["spec"]["containers"]
        assert [(c["name"], c["image"]) for c in cs] == [("web", "v2"),
                                                          ("side", "s1")]
        assert cs[0]["env"] == [{"name": "A", "value": "1"}]
        poll(lambda: len(replicasets(drover)) == 2, what="revision 2")
        poll(lambda: drover.get(APPS + "/deployments/web")["metadata"][
            "annotations"].get("deployment.kubernetes.io/revision") == "2",
            what="the revision annotation")
        assert kubectl("rollout", "undo", "deploy/web") == \
            "deployment.apps/web rolled back\n"
        cs = drover.get(APPS + "/deployments/web")["spec"]["template"][
            "spec"]["containers"]
        assert [(c["name"], c["image"]) for c in cs] == [("web", "v1"),
                                                          ("side", "s1")]
        # kubectl apply: one container and Recreate
        d3 = deployment([container("web", "v3")])
        d3["spec"]["strategy"] = {"type": "Recreate"}
        m.write_text(json.dumps(d3))
        assert kubectl("apply", "--validate=false", "-f", str(m)) == \
            "deployment.apps/web configured\n"
        d = drover.get(APPS + "/deployments/web")
        assert d["spec"]["strategy"] == {"type": "Recreate"}
        assert [(c["name"], c["image"]) for c in
                d["spec"]["template"]["spec"]["containers"]] == [("web", "v3")]
        assert "env" not in d["spec"]["template"]["spec"]["containers"][0]
        assert kubectl("apply", "--validate=false", "-f", str(m)) == \
            "deployment.apps/web unchanged\n"
        delete_and_wait(drover)
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
    # socat's per-connection children end with their connections
    poll(lambda: not socat_children(bridge.pid), what="socat's children")


def socat_children(pid):
    """Processes whose parent is pid (socat forks one per connection)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out
