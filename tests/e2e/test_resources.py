"""test_resources.py - the scheduler honours resources.requests against
the node's status.allocatable (kube-scheduler's NodeResourcesFit): pods as
objects (`--runtime none`) on a node given `--allocatable
cpu=2,memory=1Gi,pods=110`. A Deployment of 3 pods requesting 1 cpu each
gets 2 pods bound and 1 Pending with PodScheduled False/Unschedulable and
kube-scheduler's message, written once; scaled to 2, every pod is bound.
Also: the flag's errors, and requests above limits refused by the API."""
import subprocess
import tempfile

import pytest
import yaml

from conftest import DROVER_BIN, Drover, poll

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
MSG = "0/1 nodes are available: 1 Insufficient cpu."


def deployment(name, replicas, cpu):
    c = {"name": "app", "image": "nginx:1", "command": ["sleep", "1000"],
         "resources": {"requests": {"cpu": cpu, "memory": "64Mi"},
                       "limits": {"cpu": cpu}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [c]}}}}


@pytest.fixture
def small():
    """A daemon whose node offers 2 cpu, 1Gi and 110 pods."""
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d, ["--allocatable", "cpu=2,memory=1Gi,pods=110"])
        try:
            yield dm
        finally:
            dm.stop()


def sched_cond(p):
    for c in p.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled":
            return c
    return None


def test_node_reports_allocatable(small):
    nodes = small.get("/api/v1/nodes")["items"]
    assert len(nodes) == 1
    st = nodes[0]["status"]
    assert st["allocatable"]["cpu"] == "2"
    assert st["allocatable"]["memory"] == "1Gi"
    assert st["allocatable"]["pods"] == "110"
    assert st["capacity"]["pods"] == "110"
    # capacity stays the host's
    assert int(st["capacity"]["cpu"]) >= 1
    assert st["capacity"]["memory"].endswith("Ki")


def test_third_pod_does_not_fit_until_scaled_down(small):
    st, body = small.api("POST", APPS + "/deployments",
                         deployment("web", 3, "1"))
    assert st == 201, body

    def settled():
        ps = small.pods("web-")
        bound = [p for p in ps if p["spec"].get("nodeName")]
        pending = [p for p in ps if not p["spec"].get("nodeName")
                   and sched_cond(p)]
        return len(ps) == 3 and len(bound) == 2 and len(pending) == 1
    poll(settled, what="2 pods bound, 1 unschedulable")
    pend = [p for p in small.pods("web-") if not p["spec"].get("nodeName")][0]
    c = sched_cond(pend)
    assert c["status"] == "False"
    assert c["reason"] == "Unschedulable"
    assert c["message"] == MSG
    assert pend["status"].get("phase", "Pending") == "Pending"
    name = pend["metadata"]["name"]

    # written once: a node change puts the pod back in the queue, ahead
    # of a pod created after it; once that later pod has its condition,
    # the retry has run, and it did not write the same status again
    rv = pend["metadata"]["resourceVersion"]
    node = small.get("/api/v1/nodes")["items"][0]["metadata"]["name"]
    st, _ = small.api("PATCH", "/api/v1/nodes/" + node,
                      {"metadata": {"labels": {"touched": "yes"}}},
                      ct="application/merge-patch+json")
    assert st == 200
    st, _ = small.api("POST", APPS + "/deployments", deployment("late", 1, "1"))
    assert st == 201
    poll(lambda: any(sched_cond(p) for p in small.pods("late-")),
         what="the later pod's condition")
    assert small.get(CORE + "/pods/" + name)["metadata"]["resourceVersion"] == rv
    st, _ = small.api("DELETE", APPS + "/deployments/late")
    assert st == 200
    poll(lambda: small.pods("late-") == [], what="the later pod gone")

    # drover describe pod shows why
    r = small.run("describe", "pod", name)
    assert r.returncode == 0, r.stderr
    assert "FailedScheduling" in r.stdout and MSG in r.stdout, r.stdout
    assert "PodScheduled" in r.stdout
    assert "Requests:" in r.stdout, r.stdout
    assert [l.split() for l in r.stdout.splitlines()
            if l.startswith("QoS Class:")] == [["QoS", "Class:", "Burstable"]]

    # scale to 2: the ReplicaSet removes a pod (the pending one first, as
    # Kubernetes ranks unscheduled pods first), and all left are bound
    st, _ = small.api("PATCH", APPS + "/deployments/web/scale",
                      {"spec": {"replicas": 2}},
                      ct="application/merge-patch+json")
    assert st == 200

    def all_bound():
        ps = [p for p in small.pods("web-")
              if not p["metadata"].get("deletionTimestamp")]
        return len(ps) == 2 and all(p["spec"].get("nodeName") for p in ps)
    poll(all_bound, what="2 pods, both bound")
    small_cleanup(small)


def test_room_freed_by_a_deleted_pod_is_reused(small):
    """A pod that fits nowhere is retried when a pod lets go of the
    node's resources, not only when a node changes."""
    st, _ = small.api("POST", APPS + "/deployments", deployment("big", 1, "1500m"))
    assert st == 201
    poll(lambda: any(p["spec"].get("nodeName") for p in small.pods("big-")),
         what="the big pod bound")
    st, _ = small.api("POST", APPS + "/deployments", deployment("other", 1, "1"))
    assert st == 201
    poll(lambda: any(sched_cond(p) and sched_cond(p)["reason"] == "Unschedulable"
                     for p in small.pods("other-")),
         what="the other pod unschedulable")
    st, _ = small.api("PATCH", APPS + "/deployments/big/scale",
                      {"spec": {"replicas": 0}},
                      ct="application/merge-patch+json")
    assert st == 200
    poll(lambda: [p["spec"].get("nodeName") for p in small.pods("other-")]
         not in ([], [None]) and all(p["spec"].get("nodeName")
                                     for p in small.pods("other-")),
         what="the other pod bound once the big one is gone")
    small_cleanup(small)


def test_requests_above_limits_refused(small):
    d = deployment("bad", 1, "1")
    d["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    st, body = small.api("POST", APPS + "/deployments", d)
    assert st == 422, body
    assert ("spec.template.spec.containers[0].resources.requests: Invalid "
            "value: \"2\": must be less than or equal to cpu limit of 1"
            in body["message"]), body
    st, _ = small.api("GET", APPS + "/deployments/bad")
    assert st == 404


@pytest.mark.parametrize("arg,err", [
    ("cpu=two", "error: --allocatable: cpu: \"two\": expected a quantity"),
    ("gpu=1", "error: --allocatable: \"gpu\": not one of cpu, memory, pods"),
    ("pods=1.5", "error: --allocatable: pods: \"1.5\": expected a whole number"),
])
def test_allocatable_flag_errors(arg, err):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([DROVER_BIN, "serve", "--data-dir", d,
                            "--runtime", "none", "--allocatable", arg],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 2
        assert r.stderr.startswith(err), r.stderr


def small_cleanup(dm):
    """Deletes every Deployment and waits until no pod is left."""
    for d in dm.get(APPS + "/deployments")["items"]:
        st, _ = dm.api("DELETE", APPS + "/deployments/" + d["metadata"]["name"])
        assert st == 200
    poll(lambda: dm.pods() == [], timeout=20, what="every pod gone")
