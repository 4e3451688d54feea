"""test_pdb.py - policy/v1 PodDisruptionBudgets through the API and the
real kubectl (every version the suite unpacks): created with apply,
listed with Kubernetes' columns (N/A for the bound not set), refused with
Kubernetes' messages (both bounds, a percent over 100%, an unknown
eviction policy) and the store unchanged, generation 1 at create and one
more per spec change only, and the status written through /status alone
(a status in a main-resource write is ignored, a spec in a status write
too)."""
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
    assert got["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0,
                             "desiredHealthy": 0, "expectedPods": 0}
    assert got["metadata"]["generation"] == 1
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


def test_generation_and_status_subresource(drover):
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
