"""test_drain.py - `drover cordon`, `uncordon` and `drain` on a node that
runs real processes (`drover serve --runtime process`), with a
PodDisruptionBudget: drain refuses a pod that declares no controller
(kubectl's message) after cordoning; with the budget at minAvailable 2
of 3, it evicts one pod, is refused (429, printed as kubectl prints it,
tried again every 5 s) for the others while the replacement cannot run
(the only node is cordoned), and gives up at --timeout; the budget is
never broken; uncordon lets the replacement run."""
import json
import os
import subprocess
import time

from test_runtime import ROOT, rt, web  # noqa: F401
from conftest import poll

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"


def cli(dm, *args, timeout=60):
    env = dict(os.environ, DROVER_SERVER=os.path.join(dm.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
    return subprocess.run([bin_, *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def ready(dm):
    out = []
    for p in dm.req("GET", CORE + "/pods").json()["items"]:
        if p["metadata"].get("deletionTimestamp") or \
                not p["metadata"]["name"].startswith("web-"):
            continue
        if any(c["type"] == "Ready" and c["status"] == "True"
               for c in p.get("status", {}).get("conditions", [])):
            out.append(p["metadata"]["name"])
    return out


def test_drain_honours_the_budget(rt):
    node = rt.req("GET", "/api/v1/nodes").json()["items"][0]["metadata"]["name"]
    assert rt.req("POST", APPS + "/deployments", web("v1", replicas=3)).status_code == 201
    poll(lambda: len(ready(rt)) == 3, timeout=30, what="3 pods ready")
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "web"},
           "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}
    assert rt.req("POST", PDBS, pdb).status_code == 201
    poll(lambda: rt.req("GET", PDBS + "/web").json()["status"].get(
        "disruptionsAllowed") == 1, what="the budget to allow 1")
    solo = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x",
                     "command": ["/bin/sleep", "300"]}]}}
    assert rt.req("POST", CORE + "/pods", solo).status_code == 201

    # a pod without a controller stops the drain before any eviction
    p = cli(rt, "drain", node)
    assert p.returncode == 1, p
    assert p.stdout == "node/%s cordoned\n" % node
    assert ('error: unable to drain node "%s" due to error:cannot delete Pods '
            "declare no controller (use --force to override): default/solo, "
            "continuing command...\n" % node) in p.stderr, p.stderr
    assert "There are pending nodes to be drained:\n %s\n" % node in p.stderr
    assert len(ready(rt)) == 3
    rt.req("DELETE", CORE + "/pods/solo", params={"gracePeriodSeconds": "0"})
    poll(lambda: rt.req("GET", CORE + "/pods/solo").status_code == 404,
         what="solo to go")

    # the budget lets one pod go; the others wait, and the drain times out
    lowest = [3]
    t0 = time.monotonic()
    p = subprocess.Popen(
        [os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover")),
         "drain", node, "--timeout", "12s"],
        env=dict(os.environ, DROVER_SERVER=os.path.join(rt.dir, "drover.sock")),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while p.poll() is None and time.monotonic() - t0 < 60:
        lowest[0] = min(lowest[0], len(ready(rt)))
        time.sleep(0.05)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1, (out, err)
    assert out.startswith("node/%s already cordoned\n" % node), out
    assert out.count("evicting pod default/web-") >= 3, out
    assert out.count(" evicted\n") == 1, out
    assert ("(will retry after 5s): Cannot evict pod as it would violate the "
            "pod's disruption budget.\n") in err, err
    assert "global timeout reached: 12s" in err, err
    assert lowest[0] >= 2, "the budget was broken: %d ready" % lowest[0]
    pending = [x for x in rt.req("GET", CORE + "/pods").json()["items"]
               if not x["spec"].get("nodeName")]
    assert len(pending) == 1  # the replacement: nowhere to run

    # uncordon: the replacement runs, and the budget allows one again
    p = cli(rt, "uncordon", node)
    assert (p.returncode, p.stdout) == (0, "node/%s uncordoned\n" % node), p
    assert rt.req("GET", "/api/v1/nodes/" + node).json()["spec"].get(
        "unschedulable") in (None, False)
    poll(lambda: len(ready(rt)) == 3, timeout=30, what="3 pods ready again")
    p = cli(rt, "uncordon", node)
    assert p.stdout == "node/%s already uncordoned\n" % node
    rt.req("DELETE", PDBS + "/web")


def test_kubectl_cordon_and_drain(rt):
    """The real kubectl's drain and uncordon (each version the suite
    unpacks): its evictions go through the eviction subresource, so the
    budget holds for it too: with minAvailable 2 of 2 it is refused
    until its --timeout; without the budget the node is drained."""
    from kubectl_bins import kubectl_bins
    node = rt.req("GET", "/api/v1/nodes").json()["items"][0]["metadata"]["name"]
    assert rt.req("POST", APPS + "/deployments", web("v1", replicas=2)).status_code == 201
    poll(lambda: len(ready(rt)) == 2, timeout=30, what="2 pods ready")
    env = dict(os.environ, KUBECONFIG=os.path.join(rt.dir, "kubeconfig"),
               HOME=rt.dir)
    for label, binary in kubectl_bins():
        if label == "1.20":  # its drain predates policy/v1 evictions
            continue
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "web"},
               "spec": {"minAvailable": 2,
                        "selector": {"matchLabels": {"app": "web"}}}}
        assert rt.req("POST", PDBS, pdb).status_code == 201
        poll(lambda: rt.req("GET", PDBS + "/web").json()["status"].get(
            "expectedPods") == 2, what="the budget's status")
        p = subprocess.run([binary, "drain", node, "--timeout=7s"], env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1, (label, p.stdout, p.stderr)
        assert "Cannot evict pod as it would violate the pod's disruption " \
            "budget." in p.stderr, (label, p.stderr)
        assert len(ready(rt)) == 2
        rt.req("DELETE", PDBS + "/web")
        poll(lambda: rt.req("GET", PDBS + "/web").status_code == 404,
             what="the budget gone")
        p = subprocess.run([binary, "drain", node, "--timeout=60s"], env=env,
                           capture_output=True, text=True, timeout=90)
        assert p.returncode == 0, (label, p.stdout, p.stderr)
        assert p.stdout.endswith("node/%s drained\n" % node), p.stdout
        assert p.stdout.count(" evicted\n") == 2, p.stdout
        p = subprocess.run([binary, "uncordon", node], env=env,
                           capture_output=True, text=True, timeout=30)
        assert p.stdout == "node/%s uncordoned\n" % node, p
        poll(lambda: len(ready(rt)) == 2, timeout=30, what="2 pods back")
