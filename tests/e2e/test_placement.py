"""test_placement.py - where the scheduler puts pods on several nodes
(`--runtime none`: pods are objects only; two more Nodes are registered
through the API, Ready, as an agent would register them). A Deployment
of 6 replicas lands 2/2/2 on 3 nodes although other pods already sit
3/0/1 on them (the spread counts the pods of the same owner first). A
pod whose required node affinity matches no node stays Pending with
kube-scheduler's message, and is bound once a node is labelled to match;
its affinity, podAntiAffinity included, reads back as written. A bad
operator is refused with Kubernetes' message."""
import tempfile

import pytest

from conftest import Drover, poll

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


@pytest.fixture
def three():
    """A daemon and its own node, plus nodes n2 and n3."""
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d)
        try:
            poll(lambda: dm.get("/api/v1/nodes")["items"],
                 what="the daemon's node")
            for name in ("n2", "n3"):
                add_node(dm, name)
            yield dm
        finally:
            dm.stop()


def add_node(dm, name):
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}
    st, body = dm.api("POST", "/api/v1/nodes", node)
    assert st == 201, body
    body["status"] = {
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}
    st, body = dm.api("PUT", "/api/v1/nodes/%s/status" % name, body)
    assert st == 200, body


def node_names(dm):
    return sorted(n["metadata"]["name"] for n in dm.get("/api/v1/nodes")["items"])


def deployment(name, replicas, affinity=None):
    spec = {"containers": [{"name": "app", "image": "nginx:1",
                            "command": ["sleep", "1000"]}]}
    if affinity:
        spec["affinity"] = affinity
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": spec}}}


def bare_pod(name, node):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node,
                     "containers": [{"name": "app", "image": "nginx:1",
                                     "command": ["sleep", "1000"]}]}}


def sched_cond(p):
    for c in p.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled":
            return c
    return None


def test_one_owner_spreads_evenly(three):
    names = node_names(three)
    assert len(names) == 3, names
    first, _, last = names
    # other pods sit unevenly: 3 on the first node, 1 on the last
    for i, node in enumerate([first, first, first, last]):
        st, body = three.api("POST", CORE + "/pods", bare_pod("other-%d" % i, node))
        assert st == 201, body
    st, body = three.api("POST", APPS + "/deployments", deployment("web", 6))
    assert st == 201, body

    def placed():
        ps = three.pods("web-")
        on = [p["spec"].get("nodeName") for p in ps]
        return len(ps) == 6 and all(on) and on
    on = poll(placed, what="6 pods bound")
    assert sorted(on.count(n) for n in names) == [2, 2, 2], on


def test_required_node_affinity(three):
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In",
                                       "values": ["z1", "z2"]}]},
                {"matchFields": [{"key": "metadata.name", "operator": "In",
                                  "values": ["nowhere"]}]}]}},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": {
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"app": "pinned"}}}}]}}
    st, body = three.api("POST", APPS + "/deployments",
                         deployment("pinned", 1, affinity))
    assert st == 201, body
    got = three.get(APPS + "/deployments/pinned")["spec"]["template"]["spec"]
    assert got["affinity"] == affinity, got["affinity"]

    def pending():
        ps = three.pods("pinned-")
        return len(ps) == 1 and sched_cond(ps[0]) and ps[0]
    p = poll(pending, what="the pod unschedulable")
    c = sched_cond(p)
    assert c["reason"] == "Unschedulable"
    assert c["message"] == ("0/3 nodes are available: 3 node(s) didn't match "
                            "Pod's node affinity/selector.")
    assert not p["spec"].get("nodeName")
    # a node labelled into the zone takes it
    st, _ = three.api("PATCH", "/api/v1/nodes/n3",
                      {"metadata": {"labels": {"zone": "z2"}}},
                      ct="application/merge-patch+json")
    assert st == 200
    poll(lambda: [q["spec"].get("nodeName") for q in three.pods("pinned-")] == ["n3"],
         what="the pod bound to n3")


def test_bad_operator_refused(three):
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "Foo", "values": ["z1"]}]}]}}}
    st, body = three.api("POST", APPS + "/deployments",
                         deployment("bad", 1, affinity))
    assert st == 422, body
    assert ("spec.template.spec.affinity.nodeAffinity."
            "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[0].operator: Invalid value: \"Foo\": not a valid "
            "selector operator" in body["message"]), body
