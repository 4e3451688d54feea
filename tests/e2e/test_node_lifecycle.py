"""test_node_lifecycle.py - the node lifecycle controller and the default
tolerations over three `drover agent` hosts, with a short
--node-monitor-grace-period (12 s: longer than the agents' 10 s Lease
renewal, as Kubernetes' 40 s is) and short default tolerations:

- an agent SIGKILLed: its Node goes Ready Unknown ("Kubelet stopped
  posting node status.") with node.kubernetes.io/unreachable:NoExecute;
  its pods, which tolerate that for 3 s (DefaultTolerationSeconds), are
  marked not ready and deleted (DisruptionTarget DeletionByTaintManager,
  TaintManagerEviction events) and replaced on the two other nodes; the
  agent started again: the node is Ready, the taints go, the processes
  of the pods deleted while it was away are stopped and no pod runs
  twice;
- every agent SIGKILLed: full disruption, no pod is deleted, and the
  controller's NoExecute taints are removed."""
import os
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import listening_port
from test_api import APPS, BIN, wait_for
from test_multinode import ControlPlane, Agent, stop_cluster
from test_multinode_traffic import web
from test_runtime import EXAMPLE
from chaos import service_pids

GRACE_S = 12


class LifecycleControlPlane(ControlPlane):
    """test_multinode's control plane with extra `drover serve` flags."""

    def __init__(self, d, extra):
        self.extra = extra
        ControlPlane.__init__(self, d)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, "serve.log")
        log = open(path, "ab")
        offset = log.tell()
        self.proc = subprocess.Popen(
            [BIN, "serve", "--data-dir", self.dir, "--no-agent",
             "--listen", "127.0.0.1:%d" % self.port] + self.extra,
            stdout=log, stderr=log)
        log.close()
        self.port = listening_port(path, offset, self.proc)
        self.token = open(os.path.join(self.dir, "token")).read().strip()
        self.ca = os.path.join(self.dir, "tls", "ca.crt")
        self.url = "https://127.0.0.1:%d" % self.port


def cluster(d, toleration_s):
    cp = LifecycleControlPlane(os.path.join(d, "cp"), [
        "--node-monitor-grace-period", "%ds" % GRACE_S,
        "--node-monitor-period", "1s",
        "--default-not-ready-toleration-seconds", str(toleration_s),
        "--default-unreachable-toleration-seconds", str(toleration_s)])
    cp.root, cp.agents = d, []
    return cp


def join(cp, runtime):
    tok = cp.new_token()
    for i, n in enumerate(["n1", "n2", "n3"]):
        cp.agents.append(Agent(cp, n, "127.0.0.%d" % (i + 2),
                               os.path.join(cp.root, n),
                               "%d-%d" % (27000 + 100 * i, 27099 + 100 * i),
                               token=tok, runtime=runtime))


def node(cp, name):
    return cp.req("GET", "/api/v1/nodes/" + name).json()


def ready(n):
    for c in n["status"].get("conditions", []):
        if c["type"] == "Ready":
            return c
    return None


def taints(n):
    return sorted((t["key"], t["effect"]) for t in n["spec"].get("taints", []))


def pods(cp):
    return cp.req("GET", "/api/v1/pods").json()["items"]


def is_ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in p.get("status", {}).get("conditions", []))


def live_spread(cp):
    """{node: [pod]} of the pods not being deleted, all Ready; None if
    one is not Ready."""
    out = {}
    for p in pods(cp):
        if p["metadata"].get("deletionTimestamp"):
            continue
        if not is_ready(p):
            return None
        out.setdefault(p["spec"].get("nodeName"), []).append(
            p["metadata"]["name"])
    return out


def placed(cp):
    """{node: [pod]} of the pods not being deleted (--runtime none: pods
    are objects only, never Ready)."""
    out = {}
    for p in pods(cp):
        if not p["metadata"].get("deletionTimestamp"):
            out.setdefault(p["spec"].get("nodeName"), []).append(
                p["metadata"]["name"])
    return out


def events(cp, reason):
    return [e for e in cp.req("GET", "/api/v1/events").json()["items"]
            if e["reason"] == reason]


def test_a_lost_node_is_tainted_its_pods_replaced_and_it_comes_back():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        cp = cluster(d, 3)
        try:
            join(cp, "process")
            assert cp.req("POST", APPS + "/deployments",
                          web(6, "v1")).status_code == 201
            first = wait_for(
                lambda: (lambda s: s if s and sum(map(len, s.values())) == 6
                         else None)(live_spread(cp)),
                timeout=60, what="6 ready pods")
            assert sorted(len(v) for v in first.values()) == [2, 2, 2], first
            # every pod got the default tolerations, kubectl's way
            p = pods(cp)[0]
            assert sorted((t["key"], t["operator"], t["effect"],
                           t["tolerationSeconds"])
                          for t in p["spec"]["tolerations"]) == [
                ("node.kubernetes.io/not-ready", "Exists", "NoExecute", 3),
                ("node.kubernetes.io/unreachable", "Exists", "NoExecute", 3)]
            r = cp.cli("describe", "pod", p["metadata"]["name"])
            assert r.returncode == 0, r.stderr
            lines = [x.split() for x in r.stdout.splitlines()]
            i = [x[:1] for x in lines].index(["Tolerations:"])
            assert lines[i][1:] == ["node.kubernetes.io/not-ready:NoExecute",
                                    "op=Exists", "for", "3s"], r.stdout
            assert lines[i + 1] == ["node.kubernetes.io/unreachable:NoExecute",
                                    "op=Exists", "for", "3s"], r.stdout
            # the ReplicaSet's template has none: its hash is unchanged
            rs = cp.req("GET", APPS + "/replicasets").json()["items"][0]
            assert "tolerations" not in rs["spec"]["template"]["spec"]

            n2 = cp.agents[1]
            lost = sorted(first["n2"])
            pids = service_pids(n2.dir, with_proxy=False)
            assert len(pids) == 2, pids
            n2.proc.send_signal(signal.SIGKILL)
            n2.proc.wait(timeout=10)
            killed = time.monotonic()

            def unreachable():
                n = node(cp, "n2")
                c = ready(n)
                return (c["status"] == "Unknown" and
                        ("node.kubernetes.io/unreachable", "NoExecute")
                        in taints(n)) and n
            n = wait_for(unreachable, timeout=GRACE_S + 10,
                         what="n2 Ready Unknown and tainted")
            # within the grace period (and a pass or two) of the kill
            assert time.monotonic() - killed < GRACE_S + 5
            c = ready(n)
            assert (c["reason"], c["message"]) == (
                "NodeStatusUnknown", "Kubelet stopped posting node status.")
            assert ("node.kubernetes.io/unreachable", "NoSchedule") in \
                taints(n)
            assert all(t.get("timeAdded") for t in n["spec"]["taints"]), n
            for other in ("n1", "n3"):
                assert ready(node(cp, other))["status"] == "True"
                assert taints(node(cp, other)) == []

            # its pods: not ready, then deleted after 3 s, and replaced
            def replaced():
                s = live_spread(cp)
                dep = cp.req("GET", APPS + "/deployments/web").json()
                return (s and sorted(s) == ["n1", "n3"] and
                        sum(map(len, s.values())) == 6 and
                        dep["status"].get("availableReplicas") == 6 and s)
            after = wait_for(replaced, timeout=60,
                             what="6 ready pods on n1 and n3")
            assert sorted(len(v) for v in after.values()) == [3, 3], after
            gone = {p["metadata"]["name"]: p for p in pods(cp)
                    if p["spec"]["nodeName"] == "n2"}
            assert sorted(gone) == lost, gone
            for p in gone.values():
                assert p["metadata"].get("deletionTimestamp"), p
                conds = {c["type"]: c for c in p["status"]["conditions"]}
                assert conds["Ready"]["status"] == "False"
                assert (conds["DisruptionTarget"]["status"],
                        conds["DisruptionTarget"]["reason"]) == (
                    "True", "DeletionByTaintManager")
            marked = wait_for(
                lambda: (lambda e: e if sorted(
                    x["involvedObject"]["name"] for x in e) == lost else
                    None)(events(cp, "TaintManagerEviction")),
                timeout=10, what="TaintManagerEviction events")
            assert sorted(x["message"] for x in marked) == [
                "Marking for deletion Pod default/" + p for p in lost]
            assert {x["source"]["component"] for x in marked} == {
                "taint-eviction-controller"}
            nr = wait_for(lambda: [e for e in events(cp, "NodeNotReady")
                                   if e["involvedObject"]["kind"] == "Pod"],
                          timeout=10, what="NodeNotReady on the pods")
            assert sorted(e["involvedObject"]["name"] for e in nr) == lost
            assert {(e["type"], e["message"]) for e in nr} == {
                ("Warning", "Node is not ready")}
            ne = [e for e in events(cp, "NodeNotReady")
                  if e["involvedObject"]["kind"] == "Node"]
            assert [e["message"] for e in ne] == [
                "Node n2 status is now: NodeNotReady"]
            # the old processes still run on the lost host
            assert service_pids(n2.dir, with_proxy=False) == pids

            # the agent comes back with its credential
            n2.start()
            wait_for(lambda: taints(node(cp, "n2")) == [], timeout=15,
                     what="n2's taints removed")
            wait_for(lambda: not [p for p in pods(cp)
                                  if p["spec"]["nodeName"] == "n2"],
                     timeout=30, what="the deleted pods to finish")
            wait_for(lambda: not service_pids(n2.dir, with_proxy=False),
                     timeout=20, what="n2's old processes to stop")
            # nothing doubled: the same 6 pods, none on n2
            s = live_spread(cp)
            assert s == after, (s, after)
            assert ready(node(cp, "n2"))["status"] == "True"
        finally:
            stop_cluster(cp)


def test_every_node_lost_is_a_full_disruption_and_deletes_nothing():
    with tempfile.TemporaryDirectory() as d:
        # the tolerations outlast the agents' 10 s spread of renewals
        cp = cluster(d, 20)
        try:
            join(cp, "none")
            assert cp.req("POST", APPS + "/deployments",
                          web(6, "v1")).status_code == 201
            wait_for(lambda: (lambda s: sum(map(len, s.values())) == 6
                              and None not in s and len(s) == 3)(placed(cp)),
                     timeout=60, what="6 pods on 3 nodes")
            names = sorted(p["metadata"]["name"] for p in pods(cp))
            for a in cp.agents:
                a.proc.send_signal(signal.SIGKILL)
            for a in cp.agents:
                a.proc.wait(timeout=10)
            killed = time.monotonic()
            wait_for(lambda: all(ready(node(cp, n))["status"] == "Unknown"
                                 for n in ("n1", "n2", "n3")),
                     timeout=GRACE_S + 15, what="every node Ready Unknown")
            # no NoExecute taint is left: the controller removed any
            wait_for(lambda: not any(
                e == "NoExecute" for n in ("n1", "n2", "n3")
                for _, e in taints(node(cp, n))),
                timeout=10, what="no NoExecute taint")
            log = os.path.join(cp.dir, "serve.log")
            wait_for(lambda: "entering full disruption mode" in open(
                log, errors="replace").read(), timeout=5,
                what="full disruption mode")

            # past the tolerations of the first node lost, nothing was
            # deleted
            def untouched():
                ps = pods(cp)
                assert sorted(p["metadata"]["name"] for p in ps) == names
                assert not any(p["metadata"].get("deletionTimestamp")
                               for p in ps)
                assert not [e for e in events(cp, "TaintManagerEviction")
                            if e["message"].startswith("Marking")]
                return time.monotonic() - killed > GRACE_S + 20 + 4
            wait_for(untouched, timeout=60, what="the tolerations to pass")
            # the agents come back: the same pods, the nodes Ready
            for a in cp.agents:
                a.start()
            assert sorted(p["metadata"]["name"] for p in pods(cp)) == names
            assert sum(map(len, placed(cp).values())) == 6
        finally:
            stop_cluster(cp)
