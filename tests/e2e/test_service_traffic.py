"""test_service_traffic.py - zero failed requests through a Service while
its pods change: wrk sends keep-alive requests at full speed to the
Service's port (the proxy process) during a RollingUpdate of 5 replicas,
`rollout undo`, a scale from 5 to 2, the deletion of a pod, and a SIGKILL
and restart of the daemon, in TCP mode and in HTTP mode
(`appProtocol: http`). Each run must end with 0 socket errors and 0
non-2xx responses. The Recreate strategy's downtime is measured and
printed, not asserted. Every workload is deleted before the daemon
stops, the proxy process ends with the last Service, and no process is
left behind."""
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from test_api import APPS, BIN, CORE, Daemon, wait_for
from test_runtime import EXAMPLE
from test_services import proxy_pid, stop_cluster

REPLICAS = 5
GRACE = 4  # terminationGracePeriodSeconds of the example pods


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def web(version, replicas=REPLICAS, strategy=None):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": "web"}},
                     "strategy": strategy or {
                         "type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"terminationGracePeriodSeconds": GRACE,
                                           "containers": [{
                                               "name": "web", "image": "web:1",
                                               "command": [EXAMPLE],
                                               "args": ["--port", "$(PORT)"],
                                               "env": [{"name": "VERSION",
                                                        "value": version}],
                                               "ports": [{"name": "http",
                                                          "containerPort": 8080}],
                                               "readinessProbe": {
                                                   "httpGet": {"path": "/healthz",
                                                               "port": "http"},
                                                   "periodSeconds": 1}}]}}}}


def service(port, mode):
    p = {"name": "http", "port": port, "targetPort": "http"}
    if mode == "http":
        p["appProtocol"] = "http"
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [p]}}


class Load:
    """wrk against the Service for at most `seconds`, in the background,
    until result() ends it (SIGINT: wrk stops and reports)."""

    def __init__(self, port, seconds, host="127.0.0.1"):
        self.p = subprocess.Popen(
            ["wrk", "-t1", "-c8", "-d%ds" % seconds, "--timeout", "5s",
             "http://%s:%d/" % (host, port)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def running(self):
        return self.p.poll() is None

    def result(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        out = self.p.communicate(timeout=120)[0]
        m = re.search(r"(\d+) requests in", out)
        assert m, out
        sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), "
                         r"timeout (\d+)", out)
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        return {"requests": int(m.group(1)),
                "socket_errors": sum(int(x) for x in sock.groups()) if sock else 0,
                "non2xx": int(non2xx.group(1)) if non2xx else 0,
                "text": out}


def versions(dm):
    return sorted(p["spec"]["containers"][0]["env"][0]["value"]
                  for p in dm.req("GET", CORE + "/pods").json()["items"])


def settled(dm, version, n):
    """n pods, all at version, Ready, none terminating; the Deployment
    rolled out."""
    pods = dm.req("GET", CORE + "/pods").json()["items"]
    d = dm.req("GET", APPS + "/deployments/web").json()
    st = d.get("status", {})
    return (len(pods) == n and
            all(p["spec"]["containers"][0]["env"][0]["value"] == version and
                not p["metadata"].get("deletionTimestamp") and
                any(c["type"] == "Ready" and c["status"] == "True"
                    for c in p.get("status", {}).get("conditions", []))
                for p in pods) and
            st.get("observedGeneration") == d["metadata"]["generation"] and
            st.get("updatedReplicas") == n and st.get("availableReplicas") == n)


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), 0.5) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


@pytest.fixture
def cluster():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            yield dm
        finally:
            stop_cluster(dm)


def under_load(dm, port, seconds, action, done, what):
    """Runs action() under load, waits (at most `seconds`) for done(),
    keeps the load on for one more second, then stops it. Asserts that the
    load outlasted the action and that no request failed."""
    load = Load(port, seconds + 10)
    time.sleep(1)  # load before the change (a span of time, not a wait)
    t0 = time.monotonic()
    action()
    wait_for(done, timeout=seconds, what=what)
    took = time.monotonic() - t0
    time.sleep(1)  # and load after it
    assert load.running(), "the load ended before %s was done" % what
    r = load.result()
    print("%s: %d requests, %d socket errors, %d non-2xx, done in %.1f s" % (
        what, r["requests"], r["socket_errors"], r["non2xx"], took))
    assert r["requests"] > 100, r["text"]
    assert r["socket_errors"] == 0, r["text"]
    assert r["non2xx"] == 0, r["text"]


@pytest.mark.parametrize("mode", ["tcp", "http"])
def test_zero_failed_requests_while_pods_change(cluster, mode):
    dm = cluster
    port = free_port()
    assert dm.req("POST", APPS + "/deployments", web("v1")).status_code == 201
    assert dm.req("POST", CORE + "/services", service(port, mode)).status_code == 201
    wait_for(lambda: settled(dm, "v1", REPLICAS), timeout=30, what="v1")
    wait_for(lambda: answers(port), timeout=10, what="the Service to answer")

    def put(version):
        d = dm.req("GET", APPS + "/deployments/web").json()
        d["spec"]["template"] = web(version)["spec"]["template"]
        assert dm.req("PUT", APPS + "/deployments/web", d).status_code == 200

    # 1. a rolling update, every old pod stopped under load
    under_load(dm, port, 30, lambda: put("v2"),
               lambda: settled(dm, "v2", REPLICAS), "the rolling update")
    # 2. rollout undo
    env = dict(os.environ, DROVER_SERVER=dm.dir + "/drover.sock")

    def undo():
        r = subprocess.run([BIN, "rollout", "undo", "deployment/web"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
    under_load(dm, port, 30, undo, lambda: settled(dm, "v1", REPLICAS),
               "rollout undo")
    # 3. scale 5 -> 2
    under_load(dm, port, 20,
               lambda: dm.req("PATCH", APPS + "/deployments/web/scale",
                              {"spec": {"replicas": 2}},
                              ct="application/merge-patch+json"),
               lambda: settled(dm, "v1", 2), "the scale-down")
    # 4. a pod deleted (its ReplicaSet replaces it)
    victim = dm.req("GET", CORE + "/pods").json()["items"][0]["metadata"]["name"]

    def replaced():
        names = [p["metadata"]["name"]
                 for p in dm.req("GET", CORE + "/pods").json()["items"]]
        return victim not in names and settled(dm, "v1", 2)
    under_load(dm, port, 20,
               lambda: dm.req("DELETE", CORE + "/pods/" + victim), replaced,
               "the pod deletion")
    # 5. SIGKILL of the daemon, and a restart: the proxy process keeps the
    # port and its connections; the new agent takes it over.
    proxy = proxy_pid(dm)
    assert proxy is not None

    def crash():
        dm.proc.send_signal(signal.SIGKILL)
        dm.proc.wait(timeout=10)
        dm.log.close()
        time.sleep(0.5)  # half a second without a daemon, under load
        dm.start()
    under_load(dm, port, 15, crash, lambda: settled(dm, "v1", 2),
               "the daemon's SIGKILL and restart")
    assert proxy_pid(dm) == proxy, "the proxy process was replaced"

    # The proxy's counters reach /metrics (through the agent, each second).
    def counted():
        text = dm.req("GET", "/metrics").text
        want = (r'drover_proxy_requests_total\{service="default/web",'
                r'revision="[0-9a-f]+",code="2xx"\} ([0-9]+)' if mode == "http" else
                r'drover_proxy_connections_total\{service="default/web"\} ([0-9]+)')
        m = re.search(want, text)
        return m and int(m.group(1)) > 0
    wait_for(counted, timeout=10, what="the proxy's counters on /metrics")


def test_recreate_downtime_is_measured(cluster):
    """Recreate stops every old pod before it starts a new one: requests
    fail meanwhile. The window is printed, never asserted away."""
    dm = cluster
    port = free_port()
    assert dm.req("POST", APPS + "/deployments",
                  web("v1", 2, {"type": "Recreate"})).status_code == 201
    assert dm.req("POST", CORE + "/services", service(port, "http")).status_code == 201
    wait_for(lambda: settled(dm, "v1", 2), timeout=30, what="v1")
    wait_for(lambda: answers(port), timeout=10, what="the Service to answer")
    fails, stop = [], threading.Event()

    def probe():
        while not stop.is_set():
            if not answers(port):
                fails.append(time.monotonic())
            time.sleep(0.01)
    t = threading.Thread(target=probe)
    t.start()
    try:
        d = dm.req("GET", APPS + "/deployments/web").json()
        d["spec"]["template"] = web("v2")["spec"]["template"]
        assert dm.req("PUT", APPS + "/deployments/web", d).status_code == 200
        wait_for(lambda: settled(dm, "v2", 2), timeout=30, what="v2")
        wait_for(lambda: answers(port), timeout=10, what="v2 to answer")
    finally:
        stop.set()
        t.join()
    window = fails[-1] - fails[0] if fails else 0.0
    print("Recreate: requests failed for %.2f s (%d failed probes)" % (
        window, len(fails)))
    assert fails, "Recreate had no downtime at all: the probe saw nothing"
