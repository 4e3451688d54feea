"""test_multinode_traffic.py - three joined hosts under load (the helpers
are test_multinode.py's): a 6-replica Deployment spread 2/2/2 behind a
Service; a rolling update under keep-alive load through one node's
address with 0 failed requests, pods replaced on every node and served
across nodes; a SIGKILL of the control plane that every pod and proxy
outlives, the agents carrying on with the control plane that returns;
and `drover drain` of one node under load with a PodDisruptionBudget
that holds at every sample."""
import os
import signal
import threading
import time

import pytest
import requests

from test_api import APPS, CORE, wait_for
from test_multinode import LEASES, Agent, cp  # noqa: F401,F811 (the fixture)
from test_runtime import EXAMPLE
from test_service_traffic import Load
from chaos import service_pids


def web(replicas, version):
    """The example service, bound to its pod's IP (its node's address),
    naming itself in X-Pod-Name."""
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                "maxSurge": 1, "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "terminationGracePeriodSeconds": 10,
                    "containers": [{
                        "name": "web", "image": os.path.dirname(EXAMPLE),
                        "command": ["./drover-example-web"],
                        "args": ["--host", "$(POD_IP)", "--port", "$(PORT)"],
                        "env": [
                            {"name": "VERSION", "value": version},
                            {"name": "POD_IP", "valueFrom": {"fieldRef": {
                                "fieldPath": "status.podIP"}}},
                            {"name": "POD_NAME", "valueFrom": {"fieldRef": {
                                "fieldPath": "metadata.name"}}}],
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "readinessProbe": {
                            "httpGet": {"path": "/healthz", "port": "http"},
                            "periodSeconds": 1}}]}}}}


def spread(cp, version):
    """{node: [pod]} of ready pods at version, none terminating."""
    out = {}
    for p in cp.req("GET", "/api/v1/pods").json()["items"]:
        if p["metadata"].get("deletionTimestamp"):
            return None
        if p["spec"]["containers"][0]["env"][0]["value"] != version:
            return None
        if not any(c["type"] == "Ready" and c["status"] == "True"
                   for c in p.get("status", {}).get("conditions", [])):
            return None
        out.setdefault(p["spec"].get("nodeName"), []).append(
            p["metadata"]["name"])
    return out


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_three_nodes_roll_under_load_and_outlive_the_control_plane(cp):
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    tok = cp.new_token()
    names = ["n1", "n2", "n3"]
    for i, n in enumerate(names):
        cp.agents.append(Agent(cp, n, "127.0.0.%d" % (i + 2),
                               os.path.join(cp.root, n),
                               "%d-%d" % (26000 + 100 * i, 26099 + 100 * i),
                               token=tok))
    port = free_port()
    assert cp.req("POST", APPS + "/deployments", web(6, "v1")).status_code == 201
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
           "spec": {"selector": {"app": "web"}, "ports": [{
               "name": "http", "port": port, "targetPort": "http",
               "appProtocol": "http"}]}}
    assert cp.req("POST", CORE + "/services", svc).status_code == 201
    first = wait_for(lambda: (lambda s: s if s and sum(map(len, s.values())) == 6
                              else None)(spread(cp, "v1")),
                     timeout=60, what="6 ready pods")
    assert sorted(len(v) for v in first.values()) == [2, 2, 2], first
    assert sorted(first) == names

    # every node's address reaches the Service, and pods on other nodes
    def served_by(addr, n=30):
        seen = set()
        s = requests.Session()
        for _ in range(n):
            try:
                r = s.get("http://%s:%d/" % (addr, port), timeout=5,
                          headers={"Connection": "close"})
            except requests.ConnectionError:
                return None  # the node's proxy is not listening yet
            assert r.status_code == 200
            seen.add(r.headers.get("X-Pod-Name"))
        return seen
    node_of = {p: n for n, ps in first.items() for p in ps}
    for i, n in enumerate(names):
        addr = "127.0.0.%d" % (i + 2)
        seen = wait_for(lambda: served_by(addr), timeout=20,
                        what="node %s's proxy" % n)
        assert any(node_of.get(p) != n for p in seen), (n, seen)

    # a rolling update under load through n1's address
    load = Load(port, 120, host="127.0.0.2")
    time.sleep(0.5)  # load before the change
    r = cp.req("PATCH", APPS + "/deployments/web",
               {"spec": {"template": {"spec": {"containers": [{
                   "name": "web", "env": [{"name": "VERSION", "value": "v2"}]}]}}}},
               ct="application/strategic-merge-patch+json")
    assert r.status_code == 200, r.text
    second = wait_for(lambda: (lambda s: s if s and sum(map(len, s.values())) == 6
                               else None)(spread(cp, "v2")),
                      timeout=90, what="the rollout to v2")
    res = load.result()
    assert res["requests"] > 1000, res["text"]
    assert res["non2xx"] == 0 and res["socket_errors"] == 0, res["text"]
    assert sorted(second) == names  # replaced on every node
    assert not set(first[names[0]]) & set(second[names[0]])

    # SIGKILL the control plane: everything keeps serving, nothing restarts
    pids = {a.name: service_pids(a.dir, with_proxy=True) for a in cp.agents}
    cp.stop(signal.SIGKILL)
    for i in range(3):
        assert len(served_by("127.0.0.%d" % (i + 2), 12)) >= 1
    cp.start()
    renewed = {n: cp.req("GET", LEASES + "/" + n).json()["spec"]["renewTime"]
               for n in names}
    wait_for(lambda: all(
        cp.req("GET", LEASES + "/" + n).json()["spec"]["renewTime"] != renewed[n]
        for n in names), timeout=30, what="every agent to renew its Lease")
    for a in cp.agents:
        assert a.proc.poll() is None
        assert service_pids(a.dir, with_proxy=True) == pids[a.name]
    assert spread(cp, "v2") == second
    for i in range(3):
        assert len(served_by("127.0.0.%d" % (i + 2), 12)) >= 1


class ReadySampler:
    """Counts the ready, not terminating pods every 50 ms in a thread; the
    lowest count seen is the budget's test."""

    def __init__(self, cp):
        self.cp, self.low, self.samples, self.stop = cp, None, 0, False
        self.t = threading.Thread(target=self.run)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                pods = self.cp.req("GET", "/api/v1/pods").json()["items"]
            except requests.RequestException:
                continue
            n = sum(1 for p in pods
                    if not p["metadata"].get("deletionTimestamp") and any(
                        c["type"] == "Ready" and c["status"] == "True"
                        for c in p.get("status", {}).get("conditions", [])))
            self.low = n if self.low is None else min(self.low, n)
            self.samples += 1
            time.sleep(0.05)

    def end(self):
        self.stop = True
        self.t.join()
        return self.low


def test_drain_a_node_under_load_with_a_budget(cp):
    """`drover drain n1` with a PodDisruptionBudget of minAvailable 5 of 6,
    under load through n2's address: the evictions wait on 429 while a
    replacement starts elsewhere, the budget holds at every sample, n1 ends
    with no pod, 0 requests fail; uncordon makes n1 schedulable again."""
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    tok = cp.new_token()
    names = ["n1", "n2", "n3"]
    for i, n in enumerate(names):
        cp.agents.append(Agent(cp, n, "127.0.0.%d" % (i + 2),
                               os.path.join(cp.root, n),
                               "%d-%d" % (26300 + 100 * i, 26399 + 100 * i),
                               token=tok))
    port = free_port()
    assert cp.req("POST", APPS + "/deployments", web(6, "v1")).status_code == 201
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
           "spec": {"selector": {"app": "web"}, "ports": [{
               "name": "http", "port": port, "targetPort": "http",
               "appProtocol": "http"}]}}
    assert cp.req("POST", CORE + "/services", svc).status_code == 201
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "web"},
           "spec": {"minAvailable": 5,
                    "selector": {"matchLabels": {"app": "web"}}}}
    r = cp.req("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               pdb)
    assert r.status_code == 201, r.text
    first = wait_for(lambda: (lambda s: s if s and sum(map(len, s.values())) == 6
                              else None)(spread(cp, "v1")),
                     timeout=60, what="6 ready pods")
    assert sorted(len(v) for v in first.values()) == [2, 2, 2], first
    wait_for(lambda: cp.req(
        "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")
        .json().get("status", {}).get("disruptionsAllowed") == 1,
        what="the budget to allow one disruption")
    wait_for(lambda: answers_on("127.0.0.3", port), what="n2's proxy")

    load = Load(port, 120, host="127.0.0.3")
    sampler = ReadySampler(cp)
    d = cp.cli("drain", "n1", "--timeout", "90s")
    low = sampler.end()
    res = load.result()
    assert d.returncode == 0, d.stdout + d.stderr
    assert d.stdout.rstrip().endswith("node/n1 drained"), d.stdout
    for p in first["n1"]:
        assert "evicting pod default/%s" % p in d.stdout + d.stderr
    assert "Cannot evict pod as it would violate the pod's disruption budget" \
        in d.stdout + d.stderr  # it waited on a 429 at least once
    assert sampler.samples >= 5 and low >= 5, (low, sampler.samples)
    assert res["requests"] > 1000, res["text"]
    assert res["non2xx"] == 0 and res["socket_errors"] == 0, res["text"]
    after = wait_for(lambda: (lambda s: s if s and sum(map(len, s.values())) == 6
                              else None)(spread(cp, "v1")),
                     timeout=30, what="6 ready pods again")
    assert "n1" not in after and sorted(after) == ["n2", "n3"], after
    assert cp.req("GET", "/api/v1/nodes/n1").json()["spec"]["unschedulable"]

    r = cp.cli("uncordon", "n1")
    assert r.returncode == 0 and "node/n1 uncordoned" in r.stdout, r.stderr
    assert not cp.req("GET", "/api/v1/nodes/n1").json()["spec"].get(
        "unschedulable")
    r = cp.req("PATCH", APPS + "/deployments/web/scale",
               {"spec": {"replicas": 7}}, ct="application/merge-patch+json")
    assert r.status_code == 200, r.text
    grown = wait_for(lambda: (lambda s: s if s and sum(map(len, s.values())) == 7
                              else None)(spread(cp, "v1")),
                     timeout=30, what="the 7th pod")
    assert len(grown.get("n1", [])) == 1, grown  # the emptiest node again


def answers_on(addr, port):
    try:
        return requests.get("http://%s:%d/" % (addr, port),
                            timeout=2).status_code == 200
    except requests.RequestException:
        return False
