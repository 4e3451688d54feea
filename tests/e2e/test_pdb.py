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
    # the items with their resourceVersions (the list's own moves with
    # the node's Lease)
    assert drover.get(PDBS)["items"] == before["items"]


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


def test_kubectl_create_pdb(kc, drover):
    """kubectl create pdb: a typed body, in protobuf from kubectl 1.32 on
    (1.20's is policy/v1beta1, which drover does not serve)."""
    if kc.label == "1.20":
        p = kc("create", "pdb", "gen-min", "--selector=app=web",
               "--min-available=2")
        assert p.returncode == 1 and 'no matches for kind ' \
            '"PodDisruptionBudget" in version "policy/v1beta1"' in p.stderr
        return
    ok(kc("create", "pdb", "gen-min", "--selector=app=web",
          "--min-available=2"))
    ok(kc("create", "pdb", "gen-max", "--selector=app=web",
          "--max-unavailable=30%"))
    got = {n: json.loads(ok(kc("get", "pdb", n, "-o", "json")))["spec"]
           for n in ("gen-min", "gen-max")}
    assert got == {
        "gen-min": {"minAvailable": 2,
                    "selector": {"matchLabels": {"app": "web"}}},
        "gen-max": {"maxUnavailable": "30%",
                    "selector": {"matchLabels": {"app": "web"}}}}, got


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
        # kubectl's describe of a budget
        out = drover.run("describe", "pdb", "web").stdout
        lines = [" ".join(l.split()) for l in out.splitlines()]
        assert lines[:9] == [
            "Name: web", "Namespace: default", "Max unavailable: 50%",
            "Selector: app=web", "Status:", "Allowed disruptions: 0",
            "Current: 2", "Desired: 2", "Total: 5"], out
        assert out.splitlines()[5].startswith("    Allowed disruptions:")
    finally:
        drover.api("DELETE", APPS + "/replicasets/web")
        poll(lambda: not drover.pods("web"), what="the pods to go")


def evict(dm, pod, dry=False, name=None):
    return dm.api("POST", CORE + "/pods/%s/eviction%s" % (
        pod, "?dryRun=All" if dry else ""), {
        "apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": name or pod, "namespace": "default"}})


def ready_pods(dm):
    return sorted(p["metadata"]["name"] for p in dm.pods("web")
                  if not p["metadata"].get("deletionTimestamp") and
                  any(c["type"] == "Ready" and c["status"] == "True"
                      for c in p["status"].get("conditions", [])))


def test_eviction_honours_the_budget(drover):
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
        poll(lambda: drover.ready_all("web") == 0 and
             len(ready_pods(drover)) == 3, what="the pods Ready")
        st, _ = drover.api("POST", PDBS, pdb("web", minAvailable=2))
        assert st == 201
        poll(lambda: status_of(drover, "web")[3] == 1, what="1 allowed")
        first, second = ready_pods(drover)[:2]
        # the name in the URL and in the body must agree
        st, out = evict(drover, first, name="other")
        assert st == 400 and out["message"] == \
            "name in URL does not match name in Eviction object", out
        # a dry run decides and changes nothing
        st, out = evict(drover, first, dry=True)
        assert (st, out["status"]) == (201, "Success"), out
        assert first in ready_pods(drover)
        assert drover.get(PDBS + "/web")["status"]["disruptionsAllowed"] == 1
        # the one disruption the budget allows
        st, out = evict(drover, first)
        assert (st, out) == (201, {"kind": "Status", "apiVersion": "v1",
                                   "metadata": {}, "status": "Success"}), out
        assert first not in ready_pods(drover)
        # the next one waits: 429 with the budget's words
        st, out = evict(drover, second)
        assert st == 429, out
        assert out["reason"] == "TooManyRequests"
        assert out["message"] == ("Cannot evict pod as it would violate the "
                                  "pod's disruption budget.")
        assert out["details"]["causes"] == [{
            "reason": "DisruptionBudget",
            "message": "The disruption budget web needs 2 healthy pods and "
                       "has 2 currently"}], out
        assert second in ready_pods(drover)
        # the replacement becomes Ready: the budget allows one again
        poll(lambda: drover.ready_all("web") == 0 and
             len(ready_pods(drover)) == 3, what="the replacement Ready")
        poll(lambda: status_of(drover, "web")[3] == 1, what="1 allowed again")
        st, out = evict(drover, second)
        assert st == 201, out
        # two budgets over one pod: 500
        st, _ = drover.api("POST", PDBS, pdb("web2", minAvailable=1) | {
            "spec": {"minAvailable": 1,
                     "selector": {"matchLabels": {"app": "web"}}}})
        assert st == 201
        st, out = evict(drover, ready_pods(drover)[0])
        assert st == 500 and out["message"] == (
            "This pod has more than one PodDisruptionBudget, which the "
            "eviction subresource does not support."), out
    finally:
        drover.api("DELETE", APPS + "/replicasets/web")
        poll(lambda: not drover.pods("web"), what="the pods to go")


def test_a_stale_disruption_target_is_reset(drover):
    """A DisruptionTarget condition an eviction set True on a pod that was
    not deleted is set False after 2 minutes; the kubelet's stays."""
    import time as _t
    old = _t.strftime("%Y-%m-%dT%H:%M:%SZ", _t.gmtime(_t.time() - 180))
    try:
        for name, reason in (("evicted", "EvictionByEvictionAPI"),
                             ("kubelets", "TerminationByKubelet")):
            p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                 "spec": {"containers": [{"name": "c", "image": "i"}]}}
            st, p = drover.api("POST", CORE + "/pods", p)
            assert st == 201
            p["metadata"].pop("resourceVersion")
            p["status"] = {"phase": "Running", "conditions": [{
                "type": "DisruptionTarget", "status": "True",
                "reason": reason, "message": "x", "lastTransitionTime": old}]}
            st, _ = drover.api("PUT", CORE + "/pods/%s/status" % name, p)
            assert st == 200

        def cond(name):
            c = [x for x in drover.get(CORE + "/pods/" + name)["status"][
                "conditions"] if x["type"] == "DisruptionTarget"][0]
            return c["status"], c.get("reason")
        poll(lambda: cond("evicted") == ("False", None),
             what="the stale condition reset")
        assert cond("kubelets") == ("True", "TerminationByKubelet")
    finally:
        for name in ("evicted", "kubelets"):
            drover.api("DELETE", CORE + "/pods/" + name)
