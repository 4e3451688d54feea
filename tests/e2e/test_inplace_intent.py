"""test_inplace_intent.py - the annotation drover.io/in-place-update-to
(the intent of an InPlaceUpdate, written with the pod's move to the new
ReplicaSet) lives only while the pod's update is under way: the status
write that reports it done (Ready, on the new spec) drops it, in the same
write, so no pod keeps it after the rollout. Pods are objects here
(`--runtime none`): the test writes their statuses as the agent would,
with the hash of each run as imageID; a status that still reports the
old run keeps the annotation."""
import time

from conftest import poll

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
ANN = "drover.io/in-place-update-to"


def deployment(image):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "strategy": {"type": "InPlaceUpdate",
                                  "inPlaceUpdate": {"maxUnavailable": 1}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [
                                      {"name": "web", "image": image}]}}}}


def ready_status(pod, image_id=None):
    """Running and Ready; the container reports the run image_id (None:
    no imageID, taken as the spec's own)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
    cs = {"name": "web", "image": pod["spec"]["containers"][0]["image"],
          "ready": True, "restartCount": 0, "started": True,
          "state": {"running": {"startedAt": now}}}
    if image_id:
        cs["imageID"] = image_id
    pod["status"] = {"phase": "Running",
                     "conditions": [{"type": "Ready", "status": "True",
                                     "lastTransitionTime": now}],
                     "containerStatuses": [cs]}
    return pod


def put_status(d, pod):
    st, body = d.api("PUT", "%s/pods/%s/status" % (CORE, pod["metadata"]["name"]),
                     pod)
    assert st == 200, body
    return body


def test_the_intent_goes_with_the_status_that_ends_the_update(drover):
    d = drover
    st, body = d.api("POST", APPS + "/deployments", deployment("web:1"))
    assert st == 201, body
    poll(lambda: len(d.pods("web-")) == 2, what="two pods")
    for p in d.pods("web-"):
        put_status(d, ready_status(p))
    dep = d.get(APPS + "/deployments/web")
    dep["spec"]["template"]["spec"]["containers"][0]["image"] = "web:2"
    st, body = d.api("PUT", APPS + "/deployments/web", dep)
    assert st == 200, body

    def updating():
        return [p for p in d.pods("web-")
                if p["metadata"].get("annotations", {}).get(ANN)]
    first = poll(updating, what="a pod updated in place")[0]
    name = first["metadata"]["name"]
    owner = first["metadata"]["ownerReferences"][0]["name"]
    assert first["metadata"]["annotations"][ANN] == owner
    assert first["spec"]["containers"][0]["image"] == "web:2"

    # Still the old run (another spec's hash): the intent stays.
    body = put_status(d, ready_status(first, "drover-spec://00000000000000aa"))
    assert body["metadata"]["annotations"].get(ANN) == owner, body["metadata"]

    # The run of the new spec, Ready: done, and the intent is gone in
    # that very write.
    body = put_status(d, ready_status(d.get(CORE + "/pods/" + name)))
    assert ANN not in body["metadata"].get("annotations", {}), body["metadata"]
    assert d.get(CORE + "/pods/" + name)["metadata"].get(
        "annotations", {}).get(ANN) is None

    # The other pod follows; after the rollout no pod has the annotation.
    def all_done():
        for p in d.pods("web-"):
            if p["spec"]["containers"][0]["image"] != "web:2":
                return False
            if p["metadata"].get("annotations", {}).get(ANN):
                put_status(d, ready_status(p))
                return False
        return True
    poll(all_done, timeout=20, what="the rollout")
    assert all(ANN not in p["metadata"].get("annotations", {})
               for p in d.pods("web-"))
    st, _ = d.api("DELETE", APPS + "/deployments/web")
    assert st == 200
    poll(lambda: not d.pods("web-"), what="the pods to go")
