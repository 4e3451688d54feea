"""test_lease.py - the node's Lease (coordination.k8s.io/v1): the agent
of `drover serve` holds kube-node-lease/NODE (holderIdentity the node,
40 s, owned by the Node) and renews it at every heartbeat, with
metav1.MicroTime's six fractional digits; `drover get leases` prints
Kubernetes' columns; a bad Lease is refused with Kubernetes' message."""
import re

from test_runtime import rt  # noqa: F401
from conftest import poll

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


def test_the_node_lease_is_renewed(rt):
    node = rt.req("GET", "/api/v1/nodes").json()["items"][0]
    name = node["metadata"]["name"]
    lease = poll(lambda: rt.req("GET", LEASES + "/" + name).json()
                 if rt.req("GET", LEASES + "/" + name).status_code == 200
                 else None, what="the node's Lease")
    spec = lease["spec"]
    assert spec["holderIdentity"] == name
    assert spec["leaseDurationSeconds"] == 40
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z",
                        spec["renewTime"]), spec
    ref = lease["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["name"], ref["uid"]) == (
        "Node", name, node["metadata"]["uid"])
    # renewed at the next heartbeat (every 10 s)
    poll(lambda: rt.req("GET", LEASES + "/" + name).json()["spec"][
        "renewTime"] > spec["renewTime"], timeout=15, what="a renewal")
    # a bad one is refused as Kubernetes refuses it
    r = rt.req("POST", LEASES, {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "bad"}, "spec": {"leaseDurationSeconds": 0}})
    assert r.status_code == 422
    assert r.json()["message"].endswith(
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than "
        "0"), r.json()
