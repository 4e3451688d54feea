"""test_inplace_restart.py - a Pod's container restarted in place when
its image or args change (issue 11, "Updating one pod"): a bare Pod with a
readiness probe, run as a process (`--runtime process`, the example
service). The PATCH keeps the pod's name, uid and host port; a new process
(new pid) runs the new args; restartCount stays 0 and lastState says
InPlaceUpdate; `drover logs --previous` shows the old run; a change of
anything else (env) is refused with 422 on its field path. The pod is
deleted at the end and no process is left (the rt fixture checks)."""
import os
import signal
import subprocess

import pytest
import requests

from test_api import CORE, wait_for
from test_probes import pod, probe, ready, status_of
from test_runtime import ROOT, alive, pids_of, rt, service_pids  # noqa: F401
from test_live_restore import box  # noqa: F401
from test_service_traffic import (answers, cluster, free_port,  # noqa: F401
                                  service, under_load)

SMP = "application/strategic-merge-patch+json"


def cmdline(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read().decode().split("\0")


def test_patch_image_and_args_restarts_in_place(rt):
    assert rt.req("POST", CORE + "/pods",
                  pod("p", readinessProbe=probe())).status_code == 201
    wait_for(lambda: ready(rt, "p"), timeout=10, what="readiness")
    before = rt.req("GET", CORE + "/pods/p").json()
    cs = before["status"]["containerStatuses"][0]
    uid, port = before["metadata"]["uid"], cs["ports"][0]["hostPort"]
    old_pid = pids_of(before)[0]
    # no VERSION in the env: the example answers its DROVER_IMAGE, or its
    # --version-string once the args give one
    assert requests.get("http://127.0.0.1:%d/" % port, timeout=5).text == "web:1\n"

    # a forbidden change first: refused, nothing happens
    r = rt.req("PATCH", CORE + "/pods/p",
               {"spec": {"containers": [{"name": "web", "env": [
                   {"name": "VERSION", "value": "v9"}]}]}}, ct=SMP)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid"
    causes = body["details"]["causes"]
    assert causes[0]["field"] == "spec.containers[0].env", causes
    assert causes[0]["reason"] == "FieldValueForbidden"
    assert "pod updates may not change fields other than" in causes[0]["message"]

    # image and an env-independent arg
    r = rt.req("PATCH", CORE + "/pods/p",
               {"spec": {"containers": [{"name": "web", "image": "web:2",
                                         "args": ["--port", "$(PORT)",
                                                  "--version-string", "v2"]}]}},
               ct=SMP)
    assert r.status_code == 200, r.text

    def updated():
        p = rt.req("GET", CORE + "/pods/p").json()
        c = p["status"]["containerStatuses"][0]
        pids = pids_of(p)
        if (c.get("image") == "web:2" and pids and pids[0] != old_pid and
                ready(rt, "p")):
            return p
        return None
    after = wait_for(updated, timeout=15, what="the in-place update")
    cs = after["status"]["containerStatuses"][0]
    assert after["metadata"]["uid"] == uid
    assert after["metadata"]["name"] == "p"
    assert cs["ports"][0]["hostPort"] == port
    assert cs["restartCount"] == 0
    assert cs["lastState"]["terminated"]["reason"] == "InPlaceUpdate"
    assert "running" in cs["state"]
    new_pid = pids_of(after)[0]
    assert "--version-string" in cmdline(new_pid)
    assert not alive(old_pid)
    assert requests.get("http://127.0.0.1:%d/" % port, timeout=5).text == "v2\n"

    # the previous run's log: the old process, drained and gone
    env = dict(os.environ, DROVER_SERVER=os.path.join(rt.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
    prev = subprocess.run([bin_, "logs", "--previous", "p"], env=env,
                          capture_output=True, text=True, timeout=10)
    assert prev.returncode == 0, prev.stderr
    assert "listening on 127.0.0.1:%d" % port in prev.stdout
    assert "draining" in prev.stdout

    assert rt.req("DELETE", CORE + "/pods/p",
                  params={"gracePeriodSeconds": "1"}).status_code == 200
    wait_for(lambda: rt.req("GET", CORE + "/pods/p").status_code == 404,
             timeout=15, what="the pod to go")
    wait_for(lambda: not alive(new_pid), what="the new process to exit")


def logs_of(dm, name, *args):
    env = dict(os.environ, DROVER_SERVER=os.path.join(dm.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
    return subprocess.run([bin_, "logs", *args, name], env=env,
                          capture_output=True, text=True, timeout=10).stdout


def test_sigkill_in_the_middle_of_an_update_finishes_it(box):  # noqa: F811
    """The daemon is SIGKILLed after the old process got its SIGTERM (it
    ignores it) and before the new one starts: the next agent finishes
    the update, with one process for the container, no restart counted."""
    spec = pod("u", env={"IGNORE_SIGTERM": "1"}, readinessProbe=probe())
    spec["spec"]["terminationGracePeriodSeconds"] = 3
    assert box.req("POST", CORE + "/pods", spec).status_code == 201
    try:
        wait_for(lambda: ready(box, "u"), timeout=10, what="readiness")
        before = box.req("GET", CORE + "/pods/u").json()
        uid = before["metadata"]["uid"]
        port = before["status"]["containerStatuses"][0]["ports"][0]["hostPort"]
        old_pid = pids_of(before)[0]
        r = box.req("PATCH", CORE + "/pods/u",
                    {"spec": {"containers": [{"name": "web", "image": "web:2"}]}},
                    ct=SMP)
        assert r.status_code == 200, r.text
        # SIGTERM sent (and ignored), SIGKILL due in 3 s: kill the daemon
        wait_for(lambda: "ignoring SIGTERM" in logs_of(box, "u"), timeout=5,
                 what="the SIGTERM of the update")
        box.kill(signal.SIGKILL)
        assert alive(old_pid)
        box.start()

        def finished():
            p = box.req("GET", CORE + "/pods/u").json()
            c = p["status"]["containerStatuses"][0]
            pids = pids_of(p)
            if c.get("image") == "web:2" and pids and pids[0] != old_pid and \
                    ready(box, "u"):
                return p
            return None
        after = wait_for(finished, timeout=20, what="the update to finish")
        cs = after["status"]["containerStatuses"][0]
        assert after["metadata"]["uid"] == uid
        assert cs["ports"][0]["hostPort"] == port
        assert cs["restartCount"] == 0
        assert cs["lastState"]["terminated"]["reason"] == "InPlaceUpdate"
        new_pid = pids_of(after)[0]
        wait_for(lambda: not alive(old_pid), what="the old process to go")
        assert service_pids(box.dir) == [new_pid]  # one process, no duplicate
        assert requests.get("http://127.0.0.1:%d/" % port,
                            timeout=5).text == "web:2\n"
    finally:
        box.req("DELETE", CORE + "/pods/u", params={"gracePeriodSeconds": "1"})
        wait_for(lambda: box.req("GET", CORE + "/pods/u").status_code == 404,
                 timeout=15, what="the pod to go")


@pytest.mark.parametrize("mode", ["tcp", "http"])
def test_zero_failed_requests_through_a_service_while_updated(cluster, mode):  # noqa: F811
    """Two bare pods behind a Service under wrk: one is updated in place;
    it leaves the endpoints before its SIGTERM and comes back once ready
    again, and no request fails."""
    dm = cluster
    port = free_port()
    for name in ("a", "b"):
        spec = pod(name, readinessProbe=probe())
        spec["metadata"]["labels"] = {"app": "web"}
        spec["spec"]["terminationGracePeriodSeconds"] = 4
        assert dm.req("POST", CORE + "/pods", spec).status_code == 201
    try:
        assert dm.req("POST", CORE + "/services",
                      service(port, mode)).status_code == 201
        wait_for(lambda: ready(dm, "a") and ready(dm, "b"), timeout=10,
                 what="both pods ready")
        wait_for(lambda: answers(port), timeout=10, what="the Service to answer")
        old_pid = pids_of(dm.req("GET", CORE + "/pods/a").json())[0]

        def patch():
            r = dm.req("PATCH", CORE + "/pods/a",
                       {"spec": {"containers": [{"name": "web",
                                                 "image": "web:2"}]}}, ct=SMP)
            assert r.status_code == 200, r.text

        def done():
            p = dm.req("GET", CORE + "/pods/a").json()
            c = p["status"]["containerStatuses"][0]
            return (c.get("image") == "web:2" and c.get("ready") and
                    pids_of(p)[0] != old_pid and c["restartCount"] == 0 and
                    c.get("lastState", {}).get("terminated", {}).get(
                        "reason") == "InPlaceUpdate")
        under_load(dm, port, 20, patch, done, "the in-place update of a")
        assert not alive(old_pid)
    finally:
        for name in ("a", "b"):
            dm.req("DELETE", CORE + "/pods/" + name,
                   params={"gracePeriodSeconds": "1"})


def test_update_ends_a_crash_loop_at_once(rt):  # noqa: F811
    """A container in CrashLoopBackOff whose args are fixed starts at once
    with them (a new spec is a new try), not after its back-off, and the
    update counts no restart."""
    assert rt.req("POST", CORE + "/pods",
                  pod("c", args=["--port", "$(PORT)", "--crash-after-ms",
                                 "100"])).status_code == 201

    def backoff():
        cs = status_of(rt, "c").get("containerStatuses", [{}])[0]
        w = cs.get("state", {}).get("waiting", {})
        return cs if w.get("reason") == "CrashLoopBackOff" else None
    cs = wait_for(backoff, timeout=10, what="CrashLoopBackOff")
    restarts = cs["restartCount"]
    r = rt.req("PATCH", CORE + "/pods/c",
               {"spec": {"containers": [{"name": "web",
                                         "args": ["--port", "$(PORT)"]}]}},
               ct=SMP)
    assert r.status_code == 200, r.text
    # the back-off is 10 s now: well before, it runs the new args
    p = wait_for(lambda: (lambda p: p if pids_of(p) else None)(
        rt.req("GET", CORE + "/pods/c").json()), timeout=5,
        what="the fixed container to run")
    assert "--crash-after-ms" not in cmdline(pids_of(p)[0])
    assert p["status"]["containerStatuses"][0]["restartCount"] == restarts
