"""test_host_ports.py - host ports come from the agent's range: 500 pods
started in one burst get 500 distinct ports and all become Ready (a
readiness probe on the port: a pod whose service could not bind its port
never does), a port in use on the host is skipped, an exhausted range
makes the container wait with a message, and the allocation table is
rebuilt from the pods when the daemon comes back after a SIGKILL (the
pods keep their ports, new pods do not get them). A port another process
took before the container bound it is replaced at the restart (an Event
says so), so two agents given one range end with every pod Ready on a
port of its own; two pods declaring one hostPort are not bound to the
same node (the second stays Pending with kube-scheduler's message).
Every process is gone at the end."""
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from test_api import APPS, CORE, Daemon, wait_for
from test_runtime import (EXAMPLE, alive, all_pids, kill_and_check_left,
                          service_pids)

N = 500
LO, HI = 20000, 20999  # outside Linux's default ephemeral range


# The example under another spelling of its path: the other end-to-end
# files, which may run at the same time (ctest -j), look for their
# processes by the example's argv[0] and must not count these.
PROGRAM = os.path.join(os.path.dirname(EXAMPLE), ".", os.path.basename(EXAMPLE))


def start(d, *extra):
    return Daemon(d, extra=["--runtime", "process", *extra])


def cleanup(dm):
    """Deletes every workload, waits for every process to exit, stops the
    daemon; fails if a process was left behind."""
    try:
        for x in dm.req("GET", APPS + "/deployments").json()["items"]:
            dm.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
        for p in dm.req("GET", CORE + "/pods").json()["items"]:
            if not p["metadata"].get("ownerReferences"):
                dm.req("DELETE", CORE + "/pods/" + p["metadata"]["name"])
        wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                 timeout=30, what="every pod to go")
        wait_for(lambda: not service_pids(dm.dir), timeout=10,
                 what="every service process to exit")
    finally:
        kill_and_check_left(dm)


@pytest.fixture
def before():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)


def container(**extra):
    c = {"name": "web", "image": "web:v1", "command": [PROGRAM],
         "ports": [{"name": "http", "containerPort": 8080}],
         "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 1}}
    c.update(extra)
    return c


def deployment(replicas):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "burst"},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": "burst"}},
                     "template": {"metadata": {"labels": {"app": "burst"}},
                                  "spec": {"terminationGracePeriodSeconds": 2,
                                           "containers": [container()]}}}}


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 2,
                     "containers": [container()]}}


def host_port(p):
    for cs in p.get("status", {}).get("containerStatuses", []):
        for port in cs.get("ports", []):
            return port.get("hostPort")
    return None


def pods(dm):
    return dm.req("GET", CORE + "/pods").json()["items"]


def listening():
    """TCP ports in LISTEN on this host (IPv4)."""
    out = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if cols[3] == "0A":
                out.add(int(cols[1].split(":")[1], 16))
    return out


def ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in p.get("status", {}).get("conditions", []))


def test_burst_of_500_pods_gets_distinct_ports_and_all_ready(before):
    with tempfile.TemporaryDirectory() as d:
        dm = start(d, "--host-port-range", "%d-%d" % (LO, HI))
        try:
            t0 = time.monotonic()
            assert dm.req("POST", APPS + "/deployments",
                          deployment(N)).status_code == 201

            def all_available():
                st = dm.req("GET", APPS + "/deployments/burst").json().get("status", {})
                return st.get("availableReplicas") == N
            wait_for(all_available, timeout=50, what="%d pods available" % N)
            took = time.monotonic() - t0
            items = pods(dm)
            assert len(items) == N
            ports = [host_port(p) for p in items]
            assert None not in ports
            assert len(set(ports)) == N, "duplicate host ports"
            assert all(LO <= p <= HI for p in ports), "a port outside the range"
            assert all(ready(p) for p in items)
            # no service lost the race for its port and restarted
            assert all(cs["restartCount"] == 0 for p in items
                       for cs in p["status"]["containerStatuses"])
            assert set(ports) <= listening()
            assert len(service_pids(d)) == N
            print("%d pods Ready in %.1f s" % (N, took))
        finally:
            pids = all_pids(dm)
            cleanup(dm)
        assert not [p for p in pids if alive(p)]


def test_busy_port_skipped_and_exhausted_range_waits(before):
    with tempfile.TemporaryDirectory() as d:
        # something else on the host listens on the range's first port
        other = socket.socket()
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", LO))
        other.listen(1)
        dm = start(d, "--host-port-range", "%d-%d" % (LO, LO + 2))
        try:
            for name in ("a", "b"):
                assert dm.req("POST", CORE + "/pods", pod(name)).status_code == 201
            wait_for(lambda: sum(ready(p) for p in pods(dm)) == 2, timeout=15,
                     what="two pods ready")
            got = sorted(host_port(p) for p in pods(dm))
            assert got == [LO + 1, LO + 2]
            # the range is exhausted: the third waits, with the reason
            assert dm.req("POST", CORE + "/pods", pod("c")).status_code == 201

            def waiting():
                p = dm.req("GET", CORE + "/pods/c").json()
                for cs in p.get("status", {}).get("containerStatuses", []):
                    w = cs.get("state", {}).get("waiting")
                    if w and w.get("reason") == "CreateContainerError":
                        return w
            w = wait_for(waiting, timeout=10, what="c to wait for a port")
            assert "no free host port in %d-%d" % (LO, LO + 2) in w["message"]
            # and it does not start while the others hold theirs
            time.sleep(2.5)
            assert waiting()
        finally:
            cleanup(dm)
            other.close()


def test_ports_kept_across_sigkill_and_never_handed_out_twice(before):
    with tempfile.TemporaryDirectory() as d:
        rng = ["--host-port-range", "%d-%d" % (LO, LO + 9)]
        dm = start(d, *rng)
        try:
            for name in ("a", "b"):
                assert dm.req("POST", CORE + "/pods", pod(name)).status_code == 201
            wait_for(lambda: sum(ready(p) for p in pods(dm)) == 2, timeout=15,
                     what="two pods ready")
            old = {p["metadata"]["name"]: host_port(p) for p in pods(dm)}
            dm.kill(signal.SIGKILL)
            dm.extra = ["--runtime", "process", *rng]
            dm.start()
            # new pods after the restart get other ports than the adopted ones
            for name in ("c", "d"):
                assert dm.req("POST", CORE + "/pods", pod(name)).status_code == 201
            wait_for(lambda: sum(ready(p) for p in pods(dm)) == 4, timeout=15,
                     what="four pods ready")
            now = {p["metadata"]["name"]: host_port(p) for p in pods(dm)}
            assert {k: now[k] for k in old} == old
            assert len(set(now.values())) == 4
            assert all(cs["restartCount"] == 0 for p in pods(dm)
                       for cs in p["status"]["containerStatuses"])
        finally:
            cleanup(dm)


def test_bad_range_is_refused():
    from test_api import BIN
    for bad in ("5-3", "0-10", "1-65536", "30000", "a-b"):
        r = subprocess.run([BIN, "serve", "--host-port-range", bad],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 2, bad
        assert "error: --host-port-range: \"%s\"" % bad in r.stderr


def test_released_port_held_back_across_a_restart(before):
    """A port released just before a crash is not handed out when the
    daemon comes back: the journal of started processes records it."""
    with tempfile.TemporaryDirectory() as d:
        rng = ["--host-port-range", "%d-%d" % (LO, LO + 9)]
        dm = start(d, *rng)
        try:
            assert dm.req("POST", CORE + "/pods", pod("a")).status_code == 201
            wait_for(lambda: any(ready(p) for p in pods(dm)), timeout=15,
                     what="a ready")
            assert host_port(pods(dm)[0]) == LO
            dm.req("DELETE", CORE + "/pods/a")
            wait_for(lambda: not pods(dm), timeout=15, what="a to go")
            dm.kill(signal.SIGKILL)
            dm.extra = ["--runtime", "process", *rng]
            dm.start()
            assert dm.req("POST", CORE + "/pods", pod("b")).status_code == 201
            wait_for(lambda: any(ready(p) for p in pods(dm)), timeout=15,
                     what="b ready")
            assert host_port(pods(dm)[0]) != LO
        finally:
            cleanup(dm)


def pod_events(dm, name, reason):
    return [e for e in dm.req("GET", CORE + "/events").json()["items"]
            if e["involvedObject"].get("name") == name and e["reason"] == reason]


def test_port_taken_before_bind_is_picked_again(before):
    """A port of the range that another process binds between its
    allocation and the container's bind: the container exits (the bind
    fails), and its restart gets another port, with a Warning Event,
    instead of crash-looping on the taken one for ever."""
    with tempfile.TemporaryDirectory() as d:
        dm = start(d, "--host-port-range", "%d-%d" % (LO, LO + 9))
        other = socket.socket()
        try:
            # the process binds 1.5 s after it starts: time for the test
            # to take its port first, as a second agent's process would
            # (an HTTP probe: the test's socket would pass a TCP one)
            p = pod("late")
            p["spec"]["containers"][0].update(
                command=["/bin/sh", "-c", "sleep 1.5; exec %s --port $PORT"
                         % PROGRAM],
                readinessProbe={"httpGet": {"path": "/healthz", "port": "http"},
                                "periodSeconds": 1})
            assert dm.req("POST", CORE + "/pods", p).status_code == 201
            first = wait_for(lambda: host_port(dm.req("GET", CORE + "/pods/late").json()),
                             timeout=10, what="late's host port")
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            other.bind(("127.0.0.1", first))
            other.listen(1)
            got = wait_for(lambda: ready(dm.req("GET", CORE + "/pods/late").json()) and
                           dm.req("GET", CORE + "/pods/late").json(),
                           timeout=20, what="late ready on another port")
            now = host_port(got)
            assert now != first and LO <= now <= LO + 9, (first, now)
            assert now in listening()
            ev = wait_for(lambda: pod_events(dm, "late", "HostPortInUse"),
                          what="a HostPortInUse Event")[0]
            assert ev["type"] == "Warning"
            assert ("Host port %d of container port 8080 (http) is in use by "
                    "another process on the host: the container gets host "
                    "port %d" % (first, now)) == ev["message"], ev["message"]
        finally:
            other.close()
            cleanup(dm)


def test_two_agents_with_one_range_give_each_port_once(before):
    """Two daemons given the same --host-port-range start 20 pods each at
    once: they hand out the same ports in the same order, and the process
    that loses a port's race picks another at its restart; every pod ends
    Ready on a port of its own."""
    n, hi = 20, LO + 59
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        rng = ["--host-port-range", "%d-%d" % (LO, hi)]
        dms = [start(d1, *rng)]
        try:
            dms.append(start(d2, *rng))
            # both bursts at the same moment, as the race needs
            codes = []
            posts = [threading.Thread(target=lambda dm=dm: codes.append(
                dm.req("POST", APPS + "/deployments", deployment(n)).status_code))
                for dm in dms]
            for t in posts:
                t.start()
            for t in posts:
                t.join()
            assert codes == [201, 201]

            def all_ready():
                return all(sum(ready(p) for p in pods(dm)) == n for dm in dms)
            wait_for(all_ready, timeout=60, what="%d pods ready in each daemon" % n)
            ports = [host_port(p) for dm in dms for p in pods(dm)]
            assert len(set(ports)) == 2 * n, sorted(ports)
            moved = sum(len(pod_events(dm, p["metadata"]["name"], "HostPortInUse"))
                        for dm in dms for p in pods(dm))
            print("%d of %d pods moved to another port" % (moved, 2 * n))
        finally:
            for dm in dms:
                cleanup(dm)


def hostport_pod(name, port):
    p = pod(name)
    c = p["spec"]["containers"][0]
    c["ports"][0]["hostPort"] = port
    c["command"] = [PROGRAM, "--port", "$(PORT)"]
    return p


def test_second_pod_on_a_taken_host_port_stays_pending(before):
    """Two pods declaring the same hostPort on one node: the second is not
    bound (kube-scheduler's NodePorts), says why, and is placed once the
    first is gone."""
    port = LO + 900
    with tempfile.TemporaryDirectory() as d:
        dm = start(d, "--host-port-range", "%d-%d" % (LO, LO + 9))
        try:
            assert dm.req("POST", CORE + "/pods", hostport_pod("a", port)).status_code == 201
            wait_for(lambda: ready(dm.req("GET", CORE + "/pods/a").json()),
                     timeout=15, what="a ready")
            assert dm.req("POST", CORE + "/pods", hostport_pod("b", port)).status_code == 201

            def unschedulable():
                p = dm.req("GET", CORE + "/pods/b").json()
                for c in p.get("status", {}).get("conditions", []):
                    if c["type"] == "PodScheduled" and c["status"] == "False":
                        return p, c
            p, cond = wait_for(unschedulable, what="b Unschedulable")
            assert cond["reason"] == "Unschedulable"
            assert cond["message"] == ("0/1 nodes are available: 1 node(s) didn't "
                                       "have free ports for the requested pod ports.")
            assert not p["spec"].get("nodeName")
            assert p["status"]["phase"] == "Pending"
            ev = wait_for(lambda: pod_events(dm, "b", "FailedScheduling"),
                          what="FailedScheduling")[0]
            assert ev["message"] == cond["message"]
            # b is not started meanwhile: the port stays a's
            time.sleep(1)
            assert not dm.req("GET", CORE + "/pods/b").json()["spec"].get("nodeName")
            dm.req("DELETE", CORE + "/pods/a")
            wait_for(lambda: ready(dm.req("GET", CORE + "/pods/b").json()),
                     timeout=20, what="b ready once a is gone")
            assert host_port(dm.req("GET", CORE + "/pods/b").json()) == port
        finally:
            cleanup(dm)
