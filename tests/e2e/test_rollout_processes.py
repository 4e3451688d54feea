"""test_rollout_processes.py - the rollout rules with real processes:
Recreate never overlaps old and new processes, minReadySeconds delays
availability, pause holds a template change, scaling mid-rollout, and a
version that never becomes ready stops within the budget while the old
processes keep serving and `drover rollout status` fails."""
import os
import subprocess
import threading
import time

import requests

from test_api import APPS, CORE, wait_for
from test_probes import complete, deployment, put_template
from test_runtime import ROOT, alive, all_pids, pids_of, rt  # noqa: F401

CLK_TCK = os.sysconf("SC_CLK_TCK")


def start_seconds(pid):
    """Seconds since boot at which pid started (/proc/PID/stat field 22)."""
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[19]) / CLK_TCK


def cli(rt, *args, timeout=30):
    env = dict(os.environ, DROVER_SERVER=os.path.join(rt.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
    return subprocess.run([bin_, *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_recreate_never_overlaps(rt):
    d = deployment("v1", replicas=3)
    d["spec"]["strategy"] = {"type": "Recreate"}
    assert rt.req("POST", APPS + "/deployments", d).status_code == 201
    wait_for(lambda: complete(rt, "v1", 3), timeout=30, what="v1")
    old = all_pids(rt)
    last_alive = {}
    stop = False

    def watch():  # when was each old process last seen alive (boot clock)
        while not stop:
            t = time.clock_gettime(time.CLOCK_BOOTTIME)
            for p in old:
                if alive(p):
                    last_alive[p] = t
            time.sleep(0.005)
    th = threading.Thread(target=watch)
    th.start()
    try:
        d2 = deployment("v2", replicas=3)
        d2["spec"]["strategy"] = {"type": "Recreate"}
        put_template(rt, d2)
        wait_for(lambda: complete(rt, "v2", 3), timeout=30, what="v2")
    finally:
        stop = True
        th.join()
    new = all_pids(rt)
    assert not set(new) & set(old)
    gone = max(last_alive.values())
    for p in new:  # every new process started after the last old one died
        assert start_seconds(p) >= gone - 1.0 / CLK_TCK, (p, start_seconds(p), gone)


def test_min_ready_seconds(rt):
    d = deployment("v1", replicas=2, surge=1, unavail=0)
    d["spec"]["minReadySeconds"] = 2
    t0 = time.monotonic()
    assert rt.req("POST", APPS + "/deployments", d).status_code == 201
    wait_for(lambda: rt.req("GET", APPS + "/deployments/web").json()
             .get("status", {}).get("readyReplicas") == 2, timeout=20,
             what="ready")
    assert rt.req("GET", APPS + "/deployments/web").json()["status"] \
        .get("availableReplicas", 0) == 0
    wait_for(lambda: complete(rt, "v1", 2), timeout=20, what="available")
    assert time.monotonic() - t0 >= 2


def test_pause_resume_and_scale_mid_rollout(rt):
    assert rt.req("POST", APPS + "/deployments",
                  deployment("v1", replicas=3)).status_code == 201
    wait_for(lambda: complete(rt, "v1", 3), timeout=30, what="v1")
    assert cli(rt, "rollout", "pause", "deploy/web").returncode == 0
    put_template(rt, deployment("v2", replicas=3, env={"START_DELAY_MS": "500"}))
    time.sleep(1.0)  # nothing may happen while paused: no condition to poll
    rs = rt.req("GET", APPS + "/replicasets").json()["items"]
    assert len(rs) == 1
    assert all(p["spec"]["containers"][0]["image"] == "web:v1"
               for p in rt.req("GET", CORE + "/pods").json()["items"])
    r = cli(rt, "rollout", "resume", "deploy/web")
    assert r.returncode == 0 and "resumed" in r.stdout
    wait_for(lambda: any(p["spec"]["containers"][0]["image"] == "web:v2"
                         for p in rt.req("GET", CORE + "/pods").json()["items"]),
             timeout=20, what="the rollout to start")
    assert cli(rt, "scale", "deploy/web", "--replicas=5").returncode == 0
    wait_for(lambda: complete(rt, "v2", 5), timeout=40, what="v2 x5")
    r = cli(rt, "rollout", "status", "deploy/web", "--timeout=5s")
    assert r.returncode == 0 and 'successfully rolled out' in r.stdout


def test_never_ready_stops_within_budget_and_old_serves(rt):
    assert rt.req("POST", APPS + "/deployments",
                  deployment("v1", replicas=4)).status_code == 201
    wait_for(lambda: complete(rt, "v1", 4), timeout=30, what="v1")
    put_template(rt, deployment("v2", replicas=4, env={"NEVER_READY": "1"},
                                deadline=3))
    r = cli(rt, "rollout", "status", "deploy/web", "--timeout=30s", timeout=40)
    assert r.returncode == 1
    assert 'error: deployment "web" exceeded its progress deadline' in r.stderr
    pods = rt.req("GET", CORE + "/pods").json()["items"]
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    assert len(live) <= 5  # replicas + maxSurge
    old = [p for p in live if p["spec"]["containers"][0]["image"] == "web:v1"]
    assert len(old) >= 3  # replicas - maxUnavailable
    for p in old:  # the old processes keep serving
        port = p["status"]["containerStatuses"][0]["ports"][0]["hostPort"]
        assert requests.get("http://127.0.0.1:%d/" % port, timeout=5).text == "v1\n"
    r = cli(rt, "rollout", "undo", "deploy/web")
    assert r.returncode == 0 and "rolled back" in r.stdout
    wait_for(lambda: complete(rt, "v1", 4), timeout=40, what="undo to v1")
