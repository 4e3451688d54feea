"""test_finalizers.py - an object that finalizers hold while it is being
deleted stays still, as in Kubernetes: its deletionTimestamp is kept,
deletionGracePeriodSeconds is 0, nothing writes it again (the agent,
which finishes a pod's deletion at each of its events, used to rewrite it
thousands of times a second), its status can be written, a second DELETE
answers 200 without a write, and removing the last finalizer deletes it.
The daemon's hot-write guard (src/client/guard.h) has nothing to report:
drover_controller_hot_writes_total stays 0. With real processes the
agent stops the pod first, then it stays still the same way."""
import json
import re

from conftest import UnixHTTPConnection, poll

PODS = "/api/v1/namespaces/default/pods"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"


def held_pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "finalizers": ["example.com/hold"]},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "command": ["sleep", "60"]}]}}


def events_for(d, path, rv, seconds=1):
    """The watch events of path's collection after rv for `seconds` (the
    server ends the stream at timeoutSeconds)."""
    c = UnixHTTPConnection(d.sock, timeout=seconds + 10)
    try:
        c.request("GET", "%s?watch=true&resourceVersion=%s&timeoutSeconds=%d"
                  % (path, rv, seconds))
        r = c.getresponse()
        assert r.status == 200
        return [json.loads(line) for line in r.read().splitlines()
                if line.strip()]
    finally:
        c.close()


def hot_writes(d):
    c = UnixHTTPConnection(d.sock)
    try:
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
    finally:
        c.close()
    found = dict(re.findall(
        r'^drover_controller_hot_writes_total\{controller="([^"]*)"\} (\S+)$',
        text, re.M))
    # The agent's guard and every controller's are there.
    assert {"kubelet", "garbage-collector", "replicaset-controller"} \
        <= set(found), text
    return sum(float(v) for v in found.values())


def test_a_held_pod_stays_still_until_its_finalizer_goes(drover):
    st, body = drover.api("POST", PODS, held_pod("h"))
    assert st == 201, body
    poll(lambda: drover.get(PODS + "/h")["spec"].get("nodeName"),
         what="the pod to be bound")
    st, body = drover.api("DELETE", PODS + "/h", {"gracePeriodSeconds": 0})
    assert st == 200, body
    pod = drover.get(PODS + "/h")
    md = pod["metadata"]
    assert md["deletionTimestamp"] and md["deletionGracePeriodSeconds"] == 0
    rv = md["resourceVersion"]

    # Still for a whole second: no event, the same version.
    evs = events_for(drover, PODS, rv)
    assert evs == [], [(e["type"], e["object"]["metadata"].get(
        "resourceVersion")) for e in evs[:5]]
    again = drover.get(PODS + "/h")["metadata"]
    assert again["resourceVersion"] == rv
    assert again["deletionTimestamp"] == md["deletionTimestamp"]

    # A second DELETE changes nothing and writes nothing.
    st, body = drover.api("DELETE", PODS + "/h", {"gracePeriodSeconds": 0})
    assert st == 200 and body["metadata"]["resourceVersion"] == rv, body
    st, body = drover.api("DELETE", PODS + "/h")
    assert st == 200 and body["metadata"]["resourceVersion"] == rv, body

    # Its status is writable with the version just read.
    pod["status"] = {"phase": "Failed", "reason": "Held",
                     "message": "held by example.com/hold"}
    st, body = drover.api("PUT", PODS + "/h/status", pod)
    assert st == 200, body
    assert body["status"]["reason"] == "Held"
    assert body["metadata"]["deletionTimestamp"] == md["deletionTimestamp"]
    rv2 = body["metadata"]["resourceVersion"]
    assert events_for(drover, PODS, rv2) == []

    # Removing the finalizer deletes it.
    st, body = drover.api("PATCH", PODS + "/h",
                          {"metadata": {"finalizers": None}},
                          ct="application/merge-patch+json")
    assert st == 200, body
    poll(lambda: drover.api("GET", PODS + "/h")[0] == 404,
         what="the pod to be deleted")
    assert hot_writes(drover) == 0


def test_a_held_pod_deleted_with_grace_keeps_its_grace_until_cut(drover):
    st, body = drover.api("POST", PODS, held_pod("g"))
    assert st == 201, body
    poll(lambda: drover.get(PODS + "/g")["spec"].get("nodeName"),
         what="the pod to be bound")
    # --runtime none: the agent finishes the graceful deletion at once
    # (gracePeriodSeconds 0), which the finalizer holds: deletionTimestamp
    # goes back to when the deletion was asked, and then nothing moves.
    st, body = drover.api("DELETE", PODS + "/g", {"gracePeriodSeconds": 30})
    assert st == 200, body
    asked = body["metadata"]["deletionTimestamp"]

    def cut():
        md = drover.get(PODS + "/g")["metadata"]
        return md if md.get("deletionGracePeriodSeconds") == 0 else None
    md = poll(cut, what="the agent to finish the deletion")
    assert md["deletionTimestamp"] < asked
    assert events_for(drover, PODS, md["resourceVersion"]) == []
    st, body = drover.api("PATCH", PODS + "/g",
                          {"metadata": {"finalizers": []}},
                          ct="application/merge-patch+json")
    assert st == 200, body
    poll(lambda: drover.api("GET", PODS + "/g")[0] == 404,
         what="the pod to be deleted")


def test_a_held_deployment_stays_still(drover):
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "finalizers": ["example.com/hold"]},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                    "template": {"metadata": {"labels": {"app": "d"}},
                                 "spec": {"containers": [{"name": "c",
                                                          "image": "x"}]}}}}
    st, body = drover.api("POST", DEPLOYS, dep)
    assert st == 201, body
    poll(lambda: drover.pods("d-"), what="the Deployment's pod")
    st, body = drover.api("DELETE", DEPLOYS + "/d")
    assert st == 200, body
    md = drover.get(DEPLOYS + "/d")["metadata"]
    assert md["deletionTimestamp"] and md["deletionGracePeriodSeconds"] == 0
    # As in Kubernetes, its ReplicaSet and pod stay (Background: the
    # garbage collector deletes dependents once the owner is gone).
    md = drover.get(DEPLOYS + "/d")["metadata"]
    assert events_for(drover, DEPLOYS, md["resourceVersion"]) == []
    st, body = drover.api("PATCH", DEPLOYS + "/d",
                          {"metadata": {"finalizers": None}},
                          ct="application/merge-patch+json")
    assert st == 200, body
    poll(lambda: drover.api("GET", DEPLOYS + "/d")[0] == 404,
         what="the Deployment to be deleted")
    poll(lambda: not drover.pods("d-"), what="its pods to go")
    assert hot_writes(drover) == 0


def test_a_held_pod_of_processes_is_stopped_then_stays_still():
    """--runtime process: the agent stops the pod's process (SIGTERM,
    the grace period), finishes the deletion, which the finalizer holds,
    and then writes it no more; no process is left."""
    import os
    import tempfile

    from test_api import CORE, Daemon, wait_for
    from test_runtime import kill_and_check_left, pids_of

    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            pod = held_pod("p")
            pod["spec"]["terminationGracePeriodSeconds"] = 1
            pod["spec"]["containers"][0]["image"] = "/bin/sleep"
            pod["spec"]["containers"][0]["command"] = ["/bin/sleep", "600"]
            assert dm.req("POST", CORE + "/pods", pod).status_code == 201
            pids = wait_for(lambda: pids_of(dm.req(
                "GET", CORE + "/pods/p").json()), what="the process")
            assert dm.req("DELETE", CORE + "/pods/p").status_code == 200

            def finished():
                md = dm.req("GET", CORE + "/pods/p").json()["metadata"]
                return md if md.get("deletionGracePeriodSeconds") == 0 \
                    else None
            md = wait_for(finished, timeout=20, what="the stop")
            assert not os.path.exists("/proc/%d" % pids[0]) or \
                open("/proc/%d/stat" % pids[0]).read().split()[2] == "Z"
            rv = md["resourceVersion"]
            r = dm.req("GET", CORE + "/pods", params={
                "watch": "true", "resourceVersion": rv, "timeoutSeconds": "1"})
            assert r.status_code == 200 and r.text.strip() == "", r.text[:500]
            r = dm.req("PATCH", CORE + "/pods/p",
                       {"metadata": {"finalizers": None}},
                       ct="application/merge-patch+json")
            assert r.status_code == 200, r.text
            wait_for(lambda: dm.req("GET", CORE + "/pods/p").status_code
                     == 404, what="the pod to be deleted")
        finally:
            kill_and_check_left(dm)
