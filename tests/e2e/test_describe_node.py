"""test_describe_node.py - `drover describe node` prints what the real
kubectl (the cloud SDK's 1.28 and later, kubectl_bins.py) prints for the
same node, line for line, save for what differs with the time the two
ran: the pods' Age column and the Events' Age.

Three nodes on one `drover serve --runtime none`: its own (a Lease, a
Ready condition, system info, the kubelet's Starting Event); one posted
with roles, taints, long and multi-line annotations, a pod CIDR, and
extended and hugepages resources, carrying pods whose requests and
limits kubectl sums and prints as quantities ("64Mi" + "100M" is
"167108864", "1000000" pods is "1M"), and a Succeeded pod it leaves out;
one with a capacity and no allocatable, conditions without times and no
Lease. `describe nodes` describes all three. Every pod and posted node
is deleted and the daemon stopped at the end."""
import glob
import os
import re
import subprocess
import tempfile

import pytest

from test_api import CORE, Daemon

BIN = os.environ.get("DROVER_BIN", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), "build", "drover"))


def cloud_sdk_kubectls(oldest=28):
    """[(label, path)] of the cloud SDK's kubectl.1.NN, NN >= oldest."""
    out = []
    for p in glob.glob("/usr/lib/google-cloud-sdk/bin/kubectl.1.*"):
        m = re.search(r"kubectl\.1\.(\d+)$", p)
        if m and int(m.group(1)) >= oldest and os.access(p, os.X_OK):
            out.append((int(m.group(1)), p))
    return [("1.%d" % n, p) for n, p in sorted(out)]


BINS = cloud_sdk_kubectls()

N2 = {"apiVersion": "v1", "kind": "Node", "metadata": {
    "name": "n2",
    "labels": {"node-role.kubernetes.io/control-plane": "",
               "node-role.kubernetes.io/worker": "",
               "kubernetes.io/role": "infra", "disk": "ssd"},
    "annotations": {"a.example.com/short": "x",
                    "m.example.com/multi": "line one\nline two\n",
                    "z.example.com/long": "0123456789" * 16}},
    "spec": {"taints": [{"key": "dedicated", "value": "gpu",
                         "effect": "NoSchedule"},
                        {"key": "a-key", "effect": "NoExecute"},
                        {"key": "zz", "effect": "NoSchedule"}],
             "podCIDR": "10.1.0.0/24", "providerID": "drover://n2"},
    "status": {
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "1000000",
                     "example.com/gpu": "2", "hugepages-2Mi": "1Gi",
                     "ephemeral-storage": "100Gi"},
        "allocatable": {"cpu": "3500m", "memory": "7Gi", "pods": "110",
                        "example.com/gpu": "2", "hugepages-2Mi": "1Gi",
                        "ephemeral-storage": "90Gi"},
        "addresses": [{"type": "InternalIP", "address": "10.0.0.2"},
                      {"type": "Hostname", "address": "n2"}]}}

N3 = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"},
      "status": {"capacity": {"pods": "10", "memory": "1000"},
                 "conditions": [{"type": "Ready", "status": "False"},
                                {"type": "MemoryPressure",
                                 "status": "Unknown", "reason": "R",
                                 "message": "m m"}]}}


def pod(name, node, *resources, ns="default"):
    """A pod bound to node; it tolerates n2's NoExecute taint, or the
    taint manager would mark it for deletion while the fixture writes
    its status."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"nodeName": node,
                     "tolerations": [{"key": "a-key", "operator": "Exists",
                                      "effect": "NoExecute"}],
                     "containers": [
                         {"name": "c%d" % i, "image": "x", "resources": r}
                         for i, r in enumerate(resources or [{}])]}}


PODS = [
    pod("p1", "n2",
        {"requests": {"cpu": "250m", "memory": "64Mi",
                      "example.com/gpu": "1", "hugepages-2Mi": "128Mi",
                      "ephemeral-storage": "1Gi"},
         "limits": {"cpu": "1", "memory": "128Mi", "example.com/gpu": "1",
                    "hugepages-2Mi": "128Mi"}},
        {"requests": {"cpu": "0.1", "memory": "100M"}}),
    pod("p2", "n2", {"limits": {"cpu": "1.5", "memory": "1Gi"}},
        ns="kube-system"),
    pod("p3", "n2"),
    pod("done", "n2", {"requests": {"cpu": "1"}}),
    pod("p4", "n3", {"requests": {"cpu": "+1", "memory": "+1000"},
                     "limits": {"cpu": "+1", "memory": "1000"}}),
]


@pytest.fixture(scope="module")
def cluster():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            for n in (N2, N3):
                r = dm.req("POST", "/api/v1/nodes", n)
                assert r.status_code == 201, r.text
            for p in PODS:
                path = "/api/v1/namespaces/%s/pods" % p["metadata"][
                    "namespace"]
                r = dm.req("POST", path, p)
                assert r.status_code == 201, r.text
            # a pod that ran to completion is not on the node any more
            done = dm.req("GET", CORE + "/pods/done").json()
            done["status"] = {"phase": "Succeeded"}
            r = dm.req("PUT", CORE + "/pods/done/status", done)
            assert r.status_code == 200, r.text
            yield dm
        finally:
            for p in PODS:
                dm.req("DELETE", "/api/v1/namespaces/%s/pods/%s" % (
                    p["metadata"]["namespace"], p["metadata"]["name"]))
            for n in (N2, N3):
                dm.req("DELETE", "/api/v1/nodes/" + n["metadata"]["name"])
            dm.kill()


def own_node(dm):
    names = [n["metadata"]["name"] for n in
             dm.req("GET", "/api/v1/nodes").json()["items"]]
    return [n for n in names if n not in ("n2", "n3")][0]


AGE = r"(<unknown>|<invalid>|\d+[smhdy](\d+[smh])?)"


def masked(text):
    """The lines, each with what depends on the time it ran masked: the
    pods' Age (their table's last column) and the Events' Age; in the
    Events table the spaces are squeezed too (an Age one character
    wider widens the column). The rest is compared as printed."""
    out, section = [], None
    for line in text.split("\n"):
        if re.match(r"^(Name|Non-terminated Pods|Allocated resources|"
                    r"Events):", line):
            section = line.split(":")[0]
        if section == "Non-terminated Pods" and line.startswith("  ") and \
                not line.lstrip().startswith(("Namespace", "---")):
            line = re.sub(AGE + "$", "AGE", line)
        elif section == "Events":
            line = re.sub(r"\s+", " ", re.sub(
                r"(?<!\S)%s( \(x\d+ over %s\))?" % (AGE, AGE), "AGE", line))
        out.append(line)
    return out


def compare(dm, binary, tmp, *args):
    """The two outputs of describe ARGS, masked; again (up to three
    times) while they differ, as a Lease renewal or heartbeat between
    the two commands changes a time."""
    for _ in range(3):
        k = subprocess.run([binary, "--cache-dir", str(tmp), "describe"]
                           + list(args), capture_output=True, text=True,
                           env=dict(dm.env(), HOME=str(tmp)), timeout=60)
        d = subprocess.run([BIN, "describe"] + list(args),
                           capture_output=True, text=True, env=dm.env(),
                           timeout=60)
        assert k.returncode == 0, k.stderr
        assert d.returncode == 0, d.stderr
        want, got = masked(k.stdout), masked(d.stdout)
        if want == got:
            return d.stdout
    for i, (w, g) in enumerate(zip(want, got)):
        assert g == w, "line %d: drover %r, kubectl %r\n%s" % (
            i + 1, g, w, d.stdout)
    assert len(got) == len(want), d.stdout


@pytest.mark.skipif(not BINS, reason="no cloud SDK kubectl 1.28+")
@pytest.mark.parametrize("label,binary", BINS, ids=[b[0] for b in BINS])
def test_describe_node_as_kubectl(cluster, label, binary, tmp_path):
    own = own_node(cluster)
    out = compare(cluster, binary, tmp_path, "node", own)
    # the fields drover fills are there, not only equal
    assert re.search(r"^  HolderIdentity:\s+%s$" % re.escape(own), out, re.M)
    assert re.search(r"^  Ready\s+True\s+", out, re.M), out
    assert re.search(r"Normal\s+Starting\s+\S+\s+kubelet\s+Starting "
                     r"kubelet\.", out), out
    out = compare(cluster, binary, tmp_path, "node", "n2")
    assert re.search(r"^Roles:\s+control-plane,infra,worker$", out, re.M)
    assert re.search(r"^Non-terminated Pods:\s+\(3 in total\)$", out, re.M)
    assert re.search(r"^  memory\s+167108864 \(2%\)\s+1152Mi \(16%\)$", out,
                     re.M), out
    assert re.search(r"^  example.com/gpu\s+1\s+1$", out, re.M), out
    assert re.search(r"^Lease:\s+Failed to get lease: ", out, re.M), out
    out = compare(cluster, binary, tmp_path, "node", "n3")
    assert "+1 (-9223372036854775808%)" in out
    out = compare(cluster, binary, tmp_path, "nodes")
    assert out.count("\n\n\nName:") == 2, out
