"""fleet.py - bench/fleet: one control plane (`drover serve --no-agent
--listen`) in front of a fleet of hollow nodes in one process (`drover
agent --hollow-nodes N --runtime none`, Kubemark's way: each node joins
with the token and runs its own agent, client, pod watch and Lease
renewals every 10 s; its pods are reported running and ready at once),
measured at each fleet size (FLEET_SIZES, default "100 1000"):

- control-plane CPU per node-second at idle (the Lease renewals and the
  Node status writes), over IDLE_S seconds (default 20);
- API latency p99 of single-object calls made while the fleet runs:
  a mutating one (PATCH of a Deployment's annotation) and a read (GET of
  a Node), 200 each, over HTTPS with the admin token; Kubernetes' SLO is
  1 s for both;
- watch-event delivery p99 to an agent-like watch (pods of one node,
  fieldSelector spec.nodeName): from the answer of a PATCH of a pod to
  the event on the watch, 100 samples;
- a Deployment of REPLICAS (default 10,000) spread over the fleet:
  the time to have them all available, then a rolling update (25%/25%)
  timed against `drover plan --simulate` (pods ready at once) for the
  same Deployment and ReplicaSets: with pods ready at once the
  prediction is 0 s in its steps, and the time is what the steps cost.

Every process it starts is stopped by PID; the directories are removed.

usage: /usr/bin/python3 bench/fleet/fleet.py BUILD_DIR"""
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

build = os.path.abspath(sys.argv[1])
drover = os.path.join(build, "drover")
SIZES = [int(x) for x in os.environ.get("FLEET_SIZES", "100 1000").split()]
IDLE_S = float(os.environ.get("IDLE_S", "20"))
REPLICAS = int(os.environ.get("REPLICAS", "10000"))
DEPS = "/apis/apps/v1/namespaces/default/deployments"
PODS = "/api/v1/namespaces/default/pods"


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    sys.exit("fleet: timed out waiting for " + what)


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))]


def deployment(image):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": REPLICAS,
                     "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [
                                      {"name": "c", "image": image}]}}}}


def run(n):
    d = tempfile.mkdtemp(prefix="drover-fleet-")
    sock = os.path.join(d, "drover.sock")
    log = open(os.path.join(d, "serve.log"), "w")
    cp = subprocess.Popen(
        [drover, "serve", "--data-dir", d, "--no-agent", "--listen",
         "127.0.0.1:0", "--max-unauthenticated", "8192",
         "--max-unauthenticated-per-address", "8192", "--header-timeout", "10"],
        stdout=log, stderr=log, start_new_session=True)
    fleet = None

    def req(method, path, body=None, ct="application/json"):
        c = UnixHTTPConnection(sock)
        try:
            c.request(method, path, None if body is None else json.dumps(body),
                      {"Content-Type": ct})
            r = c.getresponse()
            out = r.read()
        finally:
            c.close()
        return json.loads(out) if out else {}

    try:
        url = wait_for(lambda: next(
            (w for w in open(os.path.join(d, "serve.log")).read().split()
             if w.startswith("https://127.0.0.1:")), None), 20, "the listener")
        token = subprocess.run([drover, "token", "create", "--server", sock],
                               capture_output=True, text=True,
                               check=True).stdout.strip()
        flog = open(os.path.join(d, "fleet.log"), "w")
        t0 = time.monotonic()
        fleet = subprocess.Popen(
            [drover, "agent", "--server", url, "--token", token,
             "--node-name", "h", "--runtime", "none", "--address",
             "127.0.0.1", "--hollow-nodes", str(n)],
            stdout=flog, stderr=flog, start_new_session=True)

        def ready_nodes():
            items = req("GET", "/api/v1/nodes")["items"]
            return sum(1 for x in items if any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in x["status"].get("conditions", [])))
        wait_for(lambda: fleet.poll() is None and ready_nodes() == n,
                 60 + n * 0.2, "%d nodes Ready" % n)
        joined = time.monotonic() - t0

        # idle: Leases and Node statuses only
        time.sleep(3)
        c0, w0 = cpu_seconds(cp.pid), time.monotonic()
        time.sleep(IDLE_S)
        idle = (cpu_seconds(cp.pid) - c0) / (time.monotonic() - w0) / n

        # API latency over HTTPS with the admin token
        host, port = url[len("https://"):].split(":")
        ctx = ssl.create_default_context(cafile=os.path.join(d, "tls", "ca.crt"))
        admin = open(os.path.join(d, "token")).read().strip()
        hc = http.client.HTTPSConnection(host, int(port), context=ctx,
                                         timeout=30)
        h = {"Authorization": "Bearer " + admin}
        req("POST", DEPS, dict(deployment("web:1"),
                               spec=dict(deployment("web:1")["spec"],
                                         replicas=0)))
        mut, read = [], []
        for i in range(200):
            t = time.monotonic()
            hc.request("PATCH", DEPS + "/web", json.dumps(
                {"metadata": {"annotations": {"bench": str(i)}}}),
                dict(h, **{"Content-Type": "application/merge-patch+json"}))
            r = hc.getresponse()
            r.read()
            mut.append(time.monotonic() - t)
            assert r.status == 200, r.status
            t = time.monotonic()
            hc.request("GET", "/api/v1/nodes/h-%04d" % (i % n + 1), headers=h)
            r = hc.getresponse()
            r.read()
            read.append(time.monotonic() - t)
            assert r.status == 200, r.status
        req("DELETE", DEPS + "/web")

        # watch delivery to an agent-like watch (one node's pods)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
               "spec": {"nodeName": "h-0001",
                        "containers": [{"name": "c", "image": "x"}]}}
        req("POST", PODS, pod)
        seen = {}
        got = threading.Condition()
        wc = UnixHTTPConnection(sock)
        wc.request("GET", "/api/v1/pods?watch=true&fieldSelector="
                   "spec.nodeName%3Dh-0001&timeoutSeconds=120")
        wr = wc.getresponse()

        def reader():
            try:
                for line in wr:
                    ev = json.loads(line)
                    v = ev["object"]["metadata"].get(
                        "annotations", {}).get("seq")
                    if v is not None:
                        with got:
                            seen.setdefault(int(v), time.monotonic())
                            got.notify_all()
            except (OSError, AttributeError, ValueError):
                pass  # closed at the end
        threading.Thread(target=reader, daemon=True).start()
        time.sleep(0.5)
        delivery = []
        for i in range(100):
            req("PATCH", PODS + "/probe",
                {"metadata": {"annotations": {"seq": str(i)}}},
                ct="application/merge-patch+json")
            t = time.monotonic()
            with got:
                got.wait_for(lambda: i in seen, timeout=10)
            if i not in seen:
                sys.exit("fleet: the watch missed an event")
            delivery.append(max(0.0, seen[i] - t))
        wc.close()
        req("DELETE", PODS + "/probe?gracePeriodSeconds=0")

        # a Deployment over the fleet, then a rolling update
        def done(image):
            st = req("GET", DEPS + "/web").get("status", {})
            dep = req("GET", DEPS + "/web")
            return (dep.get("metadata", {}).get("generation") ==
                    st.get("observedGeneration") and
                    st.get("updatedReplicas") == REPLICAS and
                    st.get("availableReplicas") == REPLICAS and
                    st.get("replicas") == REPLICAS)
        t = time.monotonic()
        req("POST", DEPS, deployment("web:1"))
        wait_for(lambda: done("web:1"), 1800, "%d replicas" % REPLICAS)
        up = time.monotonic() - t
        dep = req("GET", DEPS + "/web")
        dep["spec"]["template"] = deployment("web:2")["spec"]["template"]
        rs = req("GET", "/apis/apps/v1/namespaces/default/replicasets")["items"]
        for x in rs:
            x.update(apiVersion="apps/v1", kind="ReplicaSet")
        state = os.path.join(d, "state.json")
        json.dump({"apiVersion": "v1", "kind": "List", "items": [dep] + rs},
                  open(state, "w"))
        sim = json.loads(subprocess.run(
            [drover, "plan", "--simulate", "-f", state, "--pod-ready-seconds",
             "0", "-o", "json"], capture_output=True, text=True,
            check=True).stdout)
        c0 = cpu_seconds(cp.pid)
        t = time.monotonic()
        req("PUT", DEPS + "/web", dep)
        wait_for(lambda: done("web:2"), 1800, "the rolling update")
        roll = time.monotonic() - t
        roll_cpu = cpu_seconds(cp.pid) - c0
        req("DELETE", DEPS + "/web")
        wait_for(lambda: not req("GET", PODS + "?limit=1")["items"], 600,
                 "the pods to go")
        return {"nodes": n, "joined": joined, "idle": idle,
                "mut": p99(mut), "read": p99(read), "watch": p99(delivery),
                "up": up, "roll": roll, "roll_cpu": roll_cpu,
                "steps": len(sim["steps"]) if isinstance(sim["steps"], list)
                else sim["steps"], "predicted": sim["durationSeconds"]}
    finally:
        for p in (fleet, cp):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        subprocess.run(["rm", "-rf", d])


results = [run(n) for n in SIZES]
print("fleet of hollow nodes, %d replicas (one machine: the control plane "
      "and every node share its cores)" % REPLICAS)
print("%-48s" % "" + "".join("%14s" % ("%d nodes" % r["nodes"]) for r in results))
rows = [
    ("all nodes joined and Ready (s)", "joined", "%14.1f"),
    ("control-plane CPU per node-second at idle (ms)", "idle", None),
    ("API p99, PATCH a Deployment (ms; SLO 1000)", "mut", None),
    ("API p99, GET a Node (ms; SLO 1000)", "read", None),
    ("watch delivery p99 to a node's watch (ms)", "watch", None),
    ("%d replicas available (s)" % REPLICAS, "up", "%14.1f"),
    ("rolling update 25%/25% (s)", "roll", "%14.1f"),
    ("  drover plan --simulate, pods ready at once (s)", "predicted",
     "%14.1f"),
    ("  its steps (each a sync the controllers make)", "steps", "%14d"),
    ("  control-plane CPU of the update (s)", "roll_cpu", "%14.1f"),
]
for label, key, fmt in rows:
    cells = []
    for r in results:
        v = r[key]
        cells.append(fmt % v if fmt else "%14.3f" % (v * 1000))
    print("%-48s" % label + "".join(cells))
