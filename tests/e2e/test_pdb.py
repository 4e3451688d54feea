"""test_pdb.py - policy/v1 PodDisruptionBudgets through the API and the
real kubectl (every version the suite unpacks): created with apply,
listed with Kubernetes' columns (N/A for the bound not set), refused with
Kubernetes' messages (both bounds, a percent over 100%, an unknown
eviction policy) and the store unchanged, generation 1 at create and one
more per spec change only, and the status written through /status alone
(a status in a main-resource write is ignored, a spec in a status write
too, with the disruption controller left out by --controllers); and the
disruption controller's status: expected, desired and current healthy
pods and disruptions allowed as Kubernetes computes them, following the
pods' readiness, the spec (observedGeneration) and the ReplicaSet's
scale, and a NoPods Event for a budget that selects nothing."""
import json
import os
import subprocess
import tempfile

import pytest

from conftest import Drover, poll
from kubectl_bins import kubectl_bins

BINS = kubectl_bins()
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"


@pytest.fixture
def drover():
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d, extra=["--listen", "127.0.0.1:0"])
        try:
            dm.kubeconfig = os.path.join(d, "kubeconfig")
            poll(lambda: os.path.exists(dm.kubeconfig), what="the kubeconfig")
            yield dm
        finally:
            for it in dm.get(PDBS)["items"]:
                dm.api("DELETE", PDBS + "/" + it["metadata"]["name"])
            dm.stop()


@pytest.fixture(params=BINS, ids=[b[0] for b in BINS])
def kc(request, drover, tmp_path):
    label, binary = request.param

    def run(*args, input=None):
        return subprocess.run(
            [binary, "--cache-dir", str(tmp_path / "cache"), "-n", "default"]
            + list(args), input=input, capture_output=True, text=True,
            timeout=30, env={"HOME": str(tmp_path), "PATH": os.environ["PATH"],
                             "KUBECONFIG": drover.kubeconfig})
    run.label = label
    return run


def ok(p):
    assert p.returncode == 0, p.stderr
    return p.stdout


def pdb(name, **spec):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name},
            "spec": dict(spec, selector={"matchLabels": {"app": name}})}


def test_kubectl_apply_get_and_refusals(kc, drover):
    ok(kc("apply", "-f", "-", input=json.dumps(pdb("web", minAvailable=5))))
    ok(kc("apply", "-f", "-", input=json.dumps(pdb("api", maxUnavailable="25%"))))
    rows = [l.split() for l in ok(kc("get", "pdb")).splitlines()]
    assert rows[0] == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE",
                       "ALLOWED", "DISRUPTIONS", "AGE"]
    assert [r[:4] for r in rows[1:]] == [["api", "N/A", "25%", "0"],
                                        ["web", "5", "N/A", "0"]]
    got = json.loads(ok(kc("get", "pdb", "web", "-o", "json")))
    assert got["spec"] == {"minAvailable": 5,
                           "selector": {"matchLabels": {"app": "web"}}}
    assert got["metadata"]["generation"] == 1
    # the disruption controller: no pod selected, nothing allowed
    poll(lambda: json.loads(ok(kc("get", "pdb", "web", "-o", "json")))[
        "status"].get("desiredHealthy") == 5, what="the budget's status")
    before = drover.get(PDBS)
    for spec, msg in (
            ({"minAvailable": 2, "maxUnavailable": 1},
             'spec: Invalid value: {"minAvailable":2,"maxUnavailable":1}: '
             "minAvailable and maxUnavailable cannot be both set"),
            ({"minAvailable": "150%"},
             'spec.minAvailable: Invalid value: "150%": must not be greater '
             "than 100%"),
            ({"maxUnavailable": 1, "unhealthyPodEvictionPolicy": "Sometimes"},
             'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": '
             'supported values: "AlwaysAllow", "IfHealthyBudget"')):
        p = kc("apply", "-f", "-", input=json.dumps(pdb("web", **spec)))
        assert p.returncode != 0
        assert msg in p.stderr, p.stderr
    assert drover.get(PDBS) == before


@pytest.fixture
def no_disruption():
    """drover serve without the disruption controller: the status is
    what clients write."""
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d, extra=["--controllers", "*,-disruption"])
        try:
            yield dm
        finally:
            for it in dm.get(PDBS)["items"]:
                dm.api("DELETE", PDBS + "/" + it["metadata"]["name"])
            dm.stop()


def test_generation_and_status_subresource(no_disruption):
    drover = no_disruption
    st, web = drover.api("POST", PDBS, dict(pdb("web", minAvailable=1),
                                            status={"expectedPods": 9}))
    assert st == 201, web
    assert web["metadata"]["generation"] == 1
    assert web["status"]["expectedPods"] == 0  # a create's status is dropped
    # /status writes the status alone, and the generation stays
    st, out = drover.api("PUT", PDBS + "/web/status", dict(
        web, spec={"minAvailable": 3},
        status={"observedGeneration": 1, "disruptionsAllowed": 2,
                "currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
                "disruptedPods": {"web-1": "2026-11-28T10:00:00Z"},
                "conditions": [{"type": "DisruptionAllowed", "status": "True",
                                "observedGeneration": 1,
                                "lastTransitionTime": "2026-11-28T10:00:00Z",
                                "reason": "SufficientPods", "message": ""}]}))
    assert st == 200, out
    assert out["spec"]["minAvailable"] == 1
    assert out["metadata"]["generation"] == 1
    assert out["status"]["disruptedPods"] == {"web-1": "2026-11-28T10:00:00Z"}
    assert out["status"]["conditions"][0]["observedGeneration"] == 1
    # a negative count is refused
    st, bad = drover.api("PATCH", PDBS + "/web/status",
                         {"status": {"disruptionsAllowed": -1}},
                         ct="application/merge-patch+json")
    assert st == 422 and "status.disruptionsAllowed" in bad["message"], bad
    # a spec change bumps the generation, a status in it is ignored
    st, out = drover.api("PATCH", PDBS + "/web",
                         {"spec": {"minAvailable": 2},
                          "status": {"expectedPods": 100}},
                         ct="application/merge-patch+json")
    assert st == 200, out
    assert out["metadata"]["generation"] == 2
    assert out["status"]["expectedPods"] == 3
    # an identical write changes nothing
    st, same = drover.api("PATCH", PDBS + "/web", {"spec": {"minAvailable": 2}},
                          ct="application/merge-patch+json")
    assert st == 200 and same["metadata"]["generation"] == 2
    assert same["metadata"]["resourceVersion"] == out["metadata"]["resourceVersion"]


APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


def status_of(dm, name):
    s = dm.get(PDBS + "/" + name)["status"]
    conds = {c["type"]: c for c in s.get("conditions", [])}
    c = conds.get("DisruptionAllowed", {})
    return (s["expectedPods"], s["desiredHealthy"], s["currentHealthy"],
            s["disruptionsAllowed"], c.get("status"), c.get("reason"),
            s.get("observedGeneration"))


def events_of(dm, name):
    return [(e["type"], e["reason"], e["message"])
            for e in dm.get(CORE + "/events")["items"]
            if e["involvedObject"]["name"] == name and
            e["involvedObject"]["kind"] == "PodDisruptionBudget"]


def test_disruption_controller_keeps_the_status(drover):
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web"},
          "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}},
                                "spec": {"containers": [{"name": "c",
                                                         "image": "i"}]}}}}
    try:
        st, _ = drover.api("POST", APPS + "/replicasets", rs)
        assert st == 201
        poll(lambda: len(drover.pods("web")) == 3, what="3 pods")
        poll(lambda: drover.ready_all("web") == 0 and all(
            any(c["type"] == "Ready" and c["status"] == "True"
                for c in p["status"].get("conditions", []))
            for p in drover.pods("web")), what="the pods Ready")
        st, _ = drover.api("POST", PDBS, pdb("web", minAvailable=2))
        assert st == 201
        # an integer minAvailable: the pods are the expected count
        poll(lambda: status_of(drover, "web") ==
             (3, 2, 3, 1, "True", "SufficientPods", 1),
             what="the budget's status")
        # a pod no longer Ready: nothing may be disrupted
        p = drover.pods("web")[0]
        p["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
        st, _ = drover.api("PUT", CORE + "/pods/%s/status"
                           % p["metadata"]["name"], p)
        assert st == 200
        poll(lambda: status_of(drover, "web") ==
             (3, 2, 2, 0, "False", "InsufficientPods", 1),
             what="the budget to see the pod not Ready")
        # maxUnavailable: the ReplicaSet's scale; the generation followed
        st, _ = drover.api("PUT", PDBS + "/web", dict(
            drover.get(PDBS + "/web"),
            spec={"maxUnavailable": "50%",
                  "selector": {"matchLabels": {"app": "web"}}}))
        assert st == 200
        poll(lambda: status_of(drover, "web") ==
             (3, 1, 2, 1, "True", "SufficientPods", 2),
             what="the status of generation 2")
        # the ReplicaSet scaled to 5: the expected count follows
        st, _ = drover.api("PATCH", APPS + "/replicasets/web/scale",
                           {"spec": {"replicas": 5}},
                           ct="application/merge-patch+json")
        assert st == 200
        poll(lambda: status_of(drover, "web")[:2] == (5, 2),
             what="the expected count of the new scale")
        # a budget that selects nothing says so
        st, _ = drover.api("POST", PDBS, pdb("none", minAvailable=1))
        assert st == 201
        poll(lambda: ("Normal", "NoPods", "No matching pods found")
             in events_of(drover, "none"), what="the NoPods Event")
        assert status_of(drover, "none") == (0, 1, 0, 0, "False",
                                             "InsufficientPods", 1)
    finally:
        drover.api("DELETE", APPS + "/replicasets/web")
        poll(lambda: not drover.pods("web"), what="the pods to go")
