"""test_events.py - Kubernetes Events from drover's controllers and agent:
a rolling update of real processes records ScalingReplicaSet on the
Deployment, SuccessfulCreate and SuccessfulDelete on its ReplicaSets,
Scheduled, Created, Started and Killing on the pods; a readiness probe
that keeps failing records one Unhealthy Warning whose count grows; the
API answers kubectl describe's field selector; `drover describe` and
`drover get events` print them as kubectl does; and `--event-ttl`
expires them."""
import datetime
import re
import tempfile

import pytest  # noqa: F401

from test_api import APPS, CORE, Daemon, wait_for
from test_probes import complete, deployment, pod, put_template
from test_rollout_processes import cli
from test_runtime import rt  # noqa: F401

EVENTS = CORE + "/events"


def events(dm, **selector):
    """The Events of the default namespace, with a field selector built
    from selector (involvedObject_name=... -> involvedObject.name=...)."""
    fs = ",".join("%s=%s" % (k.replace("_", "."), v)
                  for k, v in sorted(selector.items()))
    r = dm.req("GET", EVENTS, params={"fieldSelector": fs} if fs else None)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "EventList"
    return body["items"]


def reasons(evs):
    return {e["reason"] for e in evs}


def test_rollout_records_events_and_describe_shows_them(rt):
    assert rt.req("POST", APPS + "/deployments",
                  deployment("v1", replicas=2)).status_code == 201
    wait_for(lambda: complete(rt, "v1", 2), timeout=30, what="v1")
    rs_v1 = [x for x in rt.req("GET", APPS + "/replicasets").json()["items"]]
    assert len(rs_v1) == 1
    rs_v1 = rs_v1[0]["metadata"]
    v1_pods = [p["metadata"] for p in rt.req("GET", CORE + "/pods").json()["items"]]
    put_template(rt, deployment("v2", replicas=2))
    wait_for(lambda: complete(rt, "v2", 2), timeout=30, what="v2")
    d = rt.req("GET", APPS + "/deployments/web").json()["metadata"]

    # the Deployment: kubectl describe's exact query
    def scaled():
        evs = events(rt, involvedObject_name="web",
                     involvedObject_namespace="default",
                     involvedObject_kind="Deployment",
                     involvedObject_uid=d["uid"])
        msgs = [e["message"] for e in evs]
        up = [m for m in msgs if m.startswith("Scaled up replica set")]
        down = [m for m in msgs if m.startswith("Scaled down replica set")]
        return evs if up and down else None
    evs = wait_for(scaled, timeout=10, what="ScalingReplicaSet up and down")
    for e in evs:
        assert e["reason"] == "ScalingReplicaSet" and e["type"] == "Normal"
        assert e["source"]["component"] == "deployment-controller"
        assert e["involvedObject"]["apiVersion"] == "apps/v1"
        assert e["metadata"]["name"].startswith("web.")
        assert e["count"] >= 1 and e["firstTimestamp"] and e["lastTimestamp"]
    assert any(re.fullmatch(r"Scaled down replica set %s to \d+ from \d+"
                            % rs_v1["name"], e["message"]) for e in evs), evs

    # the old ReplicaSet created and deleted pods
    def rs_events():
        evs = events(rt, involvedObject_kind="ReplicaSet",
                     involvedObject_name=rs_v1["name"])
        return evs if {"SuccessfulCreate", "SuccessfulDelete"} <= reasons(evs) else None
    evs = wait_for(rs_events, timeout=10, what="the old RS's events")
    assert all(e["source"]["component"] == "replicaset-controller" for e in evs)
    assert "Created pod: " + v1_pods[0]["name"] in [e["message"] for e in evs]

    # an old pod: scheduled, created, started, then stopped
    p = v1_pods[0]

    def pod_events():
        evs = events(rt, involvedObject_uid=p["uid"])
        want = {"Scheduled", "Created", "Started", "Killing"}
        return evs if want <= reasons(evs) else None
    evs = wait_for(pod_events, timeout=15, what="the old pod's events")
    by = {e["reason"]: e for e in evs}
    assert by["Scheduled"]["message"].startswith(
        "Successfully assigned default/%s to " % p["name"])
    assert by["Scheduled"]["source"]["component"] == "default-scheduler"
    assert by["Started"]["message"] == "Started container web"
    assert by["Started"]["source"]["component"] == "kubelet"
    assert by["Started"]["source"]["host"]
    assert by["Started"]["involvedObject"]["fieldPath"] == "spec.containers{web}"
    assert by["Killing"]["message"] == "Stopping container web"

    # drover describe prints the Deployment's events like kubectl
    r = cli(rt, "describe", "deploy", "web")
    assert r.returncode == 0, r.stderr
    text = r.stdout[r.stdout.index("Events:"):]
    lines = text.splitlines()
    assert lines[1].split() == ["Type", "Reason", "Age", "From", "Message"]
    assert "ScalingReplicaSet" in text and "deployment-controller" in text
    assert "Scaled down replica set " + rs_v1["name"] in text

    # the node: the kubelet's first Event, found by describe node
    node = rt.req("GET", "/api/v1/nodes").json()["items"][0]["metadata"]["name"]
    r = cli(rt, "describe", "node", node)
    assert r.returncode == 0, r.stderr
    # From is the component alone, as kubectl's describe prints it
    assert re.search(r"Normal\s+Starting\s+\S+\s+kubelet\s+Starting kubelet\.",
                     r.stdout), r.stdout

    # drover get events: kubectl's columns
    r = cli(rt, "get", "events")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split() == [
        "LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert "deployment/web" in r.stdout and "Scaled up replica set" in r.stdout
    # the short name and a type selector
    r = cli(rt, "get", "ev")
    assert r.returncode == 0 and "pod/" + p["name"] in r.stdout, r.stdout
    assert rt.req("DELETE", APPS + "/deployments/web").status_code == 200


def test_failing_readiness_probe_is_one_aggregated_warning(rt):
    assert rt.req("POST", CORE + "/pods", pod(
        "unready", readinessProbe={"exec": {"command": ["/bin/false"]},
                                   "periodSeconds": 1})).status_code == 201
    uid = rt.req("GET", CORE + "/pods/unready").json()["metadata"]["uid"]

    def counted():
        evs = events(rt, involvedObject_uid=uid, reason="Unhealthy")
        return evs if evs and evs[0]["count"] >= 3 else None
    evs = wait_for(counted, timeout=20, what="Unhealthy with count >= 3")
    assert len(evs) == 1, evs  # one Event, its count bumped
    e = evs[0]
    assert e["type"] == "Warning"
    assert e["message"] == "Readiness probe failed: exit status 1"
    assert e["lastTimestamp"] >= e["firstTimestamp"]
    # type=Warning selects it too; Normal ones are left out
    warn = events(rt, involvedObject_uid=uid, type="Warning")
    assert {x["reason"] for x in warn} == {"Unhealthy"}
    r = cli(rt, "describe", "pod", "unready")
    assert r.returncode == 0, r.stderr
    row = [l for l in r.stdout.splitlines() if "Unhealthy" in l]
    assert row and re.search(r"\(x\d+ over \d+s\)", row[0]), r.stdout
    assert re.search(r"\)\s+kubelet\s+Readiness", row[0]), row[0]
    # an unsupported field is refused as Kubernetes refuses it
    r = rt.req("GET", EVENTS, params={"fieldSelector": "spec.nodeName=x"})
    assert r.status_code == 400 and "field label not supported" in r.text


def test_event_ttl_deletes_old_events():
    with tempfile.TemporaryDirectory() as tmp:
        dm = Daemon(tmp, extra=["--runtime", "none", "--event-ttl", "2s"])
        try:
            assert dm.req("POST", APPS + "/deployments",
                          deployment("v1", replicas=1)).status_code == 201
            wait_for(lambda: any(e["reason"] == "ScalingReplicaSet"
                                 for e in events(dm)),
                     timeout=10, what="an event")
            assert dm.req("DELETE", APPS + "/deployments/web").status_code == 200
            wait_for(lambda: not events(dm), timeout=15,
                     what="the events to expire")
            wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                     timeout=15, what="the pods to go")
        finally:
            dm.kill()


def event_at(name, when):
    """An Event about a pod "p", last written at `when` (a datetime)."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name},
            "involvedObject": {"kind": "Pod", "name": "p",
                               "namespace": "default"},
            "reason": "Test", "message": name, "type": "Normal",
            "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1}


def test_an_event_written_again_lives_from_its_last_write():
    """The sweep keeps a heap of the writes it saw: an Event written at
    now-2s and bumped to now+60s has an entry for each; the sweep that
    deletes an Event last written at now-2s pops the bumped one's first
    entry too, and must leave it (TTL 2 s)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    with tempfile.TemporaryDirectory() as tmp:
        dm = Daemon(tmp, extra=["--runtime", "none", "--event-ttl", "2s"])
        try:
            for name in ("old", "bumped"):
                r = dm.req("POST", EVENTS,
                           event_at(name, now - datetime.timedelta(seconds=2)))
                assert r.status_code == 201, r.text
            later = (now + datetime.timedelta(seconds=60)).strftime(
                "%Y-%m-%dT%H:%M:%SZ")
            r = dm.req("PATCH", EVENTS + "/bumped",
                       {"lastTimestamp": later, "count": 2},
                       ct="application/merge-patch+json")
            assert r.status_code == 200, r.text
            wait_for(lambda: dm.req("GET", EVENTS + "/old").status_code == 404,
                     timeout=15, what="the old Event to expire")
            r = dm.req("GET", EVENTS + "/bumped")
            assert r.status_code == 200, r.text
            assert r.json()["count"] == 2
            assert dm.req("DELETE", EVENTS + "/bumped").status_code == 200
        finally:
            dm.kill()
