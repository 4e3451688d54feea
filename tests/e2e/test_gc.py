"""test_gc.py - the garbage collector and new objects: a pod created with
ownerReferences whose owners are all gone is deleted (Kubernetes'
"dangling" owner), one whose owner is there stays until the owner goes
(Background deletion), and one owner of a kind drover does not cache
keeps the pod (it cannot tell whether that owner is gone)."""
from conftest import poll

PODS = "/api/v1/namespaces/default/pods"
SVCS = "/api/v1/namespaces/default/services"


def pod(name, refs):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "ownerReferences": refs},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def ref(kind, name, uid, api="v1"):
    return {"apiVersion": api, "kind": kind, "name": name, "uid": uid}


def test_owners_gone_or_going_take_their_new_dependents(drover):
    st, body = drover.api("POST", SVCS, {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "owner"},
        "spec": {"ports": [{"port": 8080}]}})
    assert st == 201, body
    owner = body["metadata"]["uid"]
    gone = "0b2c9d4e-0000-4000-8000-00000000dead"
    # owned by the Service, by a ReplicaSet that never was, by both, and
    # by the gone ReplicaSet and a kind the garbage collector does not cache
    for name, refs in [
            ("kept", [ref("Service", "owner", owner)]),
            ("dangling", [ref("ReplicaSet", "gone", gone, "apps/v1")]),
            ("both", [ref("Service", "owner", owner),
                      ref("ReplicaSet", "gone", gone, "apps/v1")]),
            ("unknown", [ref("ReplicaSet", "gone", gone, "apps/v1"),
                         ref("Widget", "w", gone, "example.com/v1")])]:
        st, body = drover.api("POST", PODS, pod(name, refs))
        assert st == 201, body
    poll(lambda: drover.api("GET", PODS + "/dangling")[0] == 404,
         what="the pod whose owner is gone to be collected")
    # Created before and after "dangling", whose deletion the collector
    # has done: it had judged them already.
    for name in ("kept", "both", "unknown"):
        assert drover.api("GET", PODS + "/" + name)[0] == 200, name
    st, body = drover.api("DELETE", SVCS + "/owner")
    assert st == 200, body
    poll(lambda: drover.api("GET", PODS + "/kept")[0] == 404
         and drover.api("GET", PODS + "/both")[0] == 404,
         what="the Service's dependents to be collected")
    assert drover.api("GET", PODS + "/unknown")[0] == 200
    st, body = drover.api("DELETE", PODS + "/unknown")
    assert st == 200, body
