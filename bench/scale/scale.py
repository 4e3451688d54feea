"""scale.py - bench/scale: how the control plane's cost grows with the
number of pods, with pods as objects (`drover serve --runtime none`: no
processes, so only the API, the store and the controllers are timed).

For each size N (default 1,000, 5,000 and 20,000; SCALE_SIZES="a,b,..."),
on a fresh daemon:
  - create: a Deployment of N replicas, until its ReplicaSet has N pods;
  - rollout: its template changes (maxSurge 0, maxUnavailable 100%: no
    readiness needed, so the figure is the controllers' and the store's
    work alone), until the new ReplicaSet has N pods and the old one none;
  - RSS of the daemon before and after the rollout (settled: 2 s of
    quiet, then one small write, as a heartbeat makes), and the size of
    its database (state.db + its WAL);
  - GET /version latency (p50, p99, max; one keep-alive connection, every
    5 ms) while the whole list of N pods is fetched 3 times.

Then the template of 200 two-replica Deployments is changed at once (one
PATCH each, one connection), timed until every one has rolled (the time
the event that completes them arrives on a watch of the ReplicaSets; no
list is polled meanwhile), with pods
as objects and then with pods as processes of the example service
(`--runtime process`: 400 processes started and 400 stopped);
SCALE_MANY=0 skips it.

Targets (issue 9) are printed beside the figures: the 20,000-pod rollout
in at most 30 s and at most 5.5 times the 5,000-pod one (linear cost would
be 4 times), /version p99 at most 50 ms while a 20,000-pod list is served,
RSS after the rollout at most 1.5 times its value before, the 200
Deployments rolled within 3 s.

usage: /usr/bin/python3 bench/scale/scale.py BUILD_DIR"""
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time

build = os.path.abspath(sys.argv[1])
drover = os.path.join(build, "drover")
SIZES = [int(x) for x in os.environ.get("SCALE_SIZES", "1000,5000,20000").split(",")]
APPS = "/apis/apps/v1/namespaces/default"


def deployment(n, version):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "big"},
            "spec": {"replicas": n,
                     "selector": {"matchLabels": {"app": "big"}},
                     "strategy": {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxSurge": 0,
                                                    "maxUnavailable": "100%"}},
                     "template": {"metadata": {"labels": {"app": "big"}},
                                  "spec": {"containers": [{
                                      "name": "c", "image": "example",
                                      "command": ["/bin/true"],
                                      "env": [{"name": "VERSION",
                                               "value": version}]}]}}}}


class Daemon:
    def __init__(self, runtime="none"):
        self.dir = tempfile.mkdtemp(prefix="drover-scale-")
        self.log = open(os.path.join(self.dir, "serve.log"), "w+")
        self.p = subprocess.Popen(
            [drover, "serve", "--data-dir", self.dir, "--runtime", runtime,
             "--listen", "127.0.0.1:0"],
            stdout=self.log, stderr=self.log, start_new_session=True)
        self.port = None
        self.ctx = None
        end = time.monotonic() + 10
        while self.port is None and time.monotonic() < end:
            self.log.seek(0)
            m = re.search(r"listening on https://[0-9.]+:([0-9]+)", self.log.read())
            if m:
                self.port = int(m.group(1))
            time.sleep(0.05)
        tok = os.path.join(self.dir, "token")
        while not os.path.exists(tok) and time.monotonic() < end:
            time.sleep(0.05)
        if self.port is None or not os.path.exists(tok):
            self.stop()
            raise SystemExit("bench/scale: drover serve did not start")
        self.token = open(tok).read().strip()

    def conn(self):
        # HTTPS, trusting the daemon's own CA (DIR/tls/ca.crt)
        if self.ctx is None:
            self.ctx = ssl.create_default_context(
                cafile=os.path.join(self.dir, "tls", "ca.crt"))
        return http.client.HTTPSConnection("127.0.0.1", self.port,
                                           timeout=120, context=self.ctx)

    def req(self, method, path, body=None, ct="application/json", c=None):
        own = c is None
        c = c or self.conn()
        try:
            c.request(method, path, None if body is None else json.dumps(body),
                      {"Content-Type": ct,
                       "Authorization": "Bearer " + self.token})
            r = c.getresponse()
            out = r.read()
        finally:
            if own:
                c.close()
        return r.status, out

    def json(self, method, path, body=None, ct="application/json"):
        st, out = self.req(method, path, body, ct)
        if st >= 300:
            raise SystemExit("bench/scale: %s %s: %d %s" % (method, path, st, out[:300]))
        return json.loads(out) if out else {}

    def rss_mb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def db_mb(self):
        total = 0
        for name in ("state.db", "state.db-wal"):
            p = os.path.join(self.dir, name)
            if os.path.exists(p):
                total += os.path.getsize(p)
        return total / 1e6

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    raise SystemExit("bench/scale: timed out waiting for " + what)


def rs_state(rs):
    """(VERSION env of the template, status.replicas) of a ReplicaSet."""
    return (rs["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"],
            rs.get("status", {}).get("replicas", 0))


class RSWatch:
    """A watch on every ReplicaSet from resourceVersion rv, on a thread:
    keeps {name: rs_state} (from `state`, the list rv came with) and
    records the monotonic time of the first event after which done(state)
    holds."""

    def __init__(self, d, rv, state, done):
        self.at = None
        self.state = dict(state)
        self.error = None
        c = d.conn()
        c.request("GET", APPS + "/replicasets?watch=true&resourceVersion=" + rv,
                  headers={"Authorization": "Bearer " + d.token})
        self.r = c.getresponse()
        if self.r.status != 200:
            raise SystemExit("bench/scale: watch: %d" % self.r.status)
        self.c = c

        def run():
            try:
                for line in self.r:
                    e = json.loads(line)
                    o = e["object"]
                    if e["type"] == "DELETED":
                        self.state.pop(o["metadata"]["name"], None)
                    elif e["type"] in ("ADDED", "MODIFIED"):
                        self.state[o["metadata"]["name"]] = rs_state(o)
                    else:
                        self.error = line
                        return
                    if done(self.state):
                        self.at = time.monotonic()
                        return
            except Exception as ex:  # the stream broke: reported by wait
                self.error = repr(ex)
        self.th = threading.Thread(target=run, daemon=True)
        self.th.start()

    def wait(self, timeout, what):
        self.th.join(timeout)
        self.c.close()
        if self.at is None:
            raise SystemExit("bench/scale: the watch never saw %s (%s)" % (what, self.error))
        return self.at


def replicas_by_version(d):
    """{VERSION env of the template: status.replicas} of the ReplicaSets."""
    out = {}
    for rs in d.json("GET", APPS + "/replicasets")["items"]:
        v = rs["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"]
        out[v] = rs.get("status", {}).get("replicas", 0)
    return out


def version_latency_during_lists(d, n_lists=3):
    """GET /version every 5 ms on one connection while the pod list is
    fetched n_lists times; returns (p50, p99, max) in ms and the list's
    mean time in s."""
    lat, stop = [], threading.Event()

    def probe():
        c = d.conn()
        while not stop.is_set():
            t = time.monotonic()
            d.req("GET", "/version", c=c)
            lat.append((time.monotonic() - t) * 1000)
            time.sleep(0.005)
        c.close()

    th = threading.Thread(target=probe)
    th.start()
    t0 = time.monotonic()
    for _ in range(n_lists):
        st, out = d.req("GET", "/api/v1/pods")
        if st != 200:
            raise SystemExit("bench/scale: list: %d" % st)
    took = (time.monotonic() - t0) / n_lists
    stop.set()
    th.join()
    lat.sort()
    return (lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            lat[-1], took, len(lat))


def one(n):
    d = Daemon()
    try:
        t0 = time.monotonic()
        d.json("POST", APPS + "/deployments", deployment(n, "v1"))
        wait_for(lambda: replicas_by_version(d).get("v1") == n, 3600, "%d pods" % n)
        create = time.monotonic() - t0
        time.sleep(1)
        rss0, db0 = d.rss_mb(), d.db_mb()
        t0 = time.monotonic()
        d.json("PATCH", APPS + "/deployments/big",
               {"spec": {"template": {"spec": {"containers": [
                   {"name": "c", "env": [{"name": "VERSION", "value": "v2"}]}]}}}},
               ct="application/strategic-merge-patch+json")
        wait_for(lambda: replicas_by_version(d) == {"v1": 0, "v2": n}, 3600,
                 "the rollout of %d pods" % n)
        rollout = time.monotonic() - t0
        # settled: 2 s of quiet (the store's checkpointer copies the WAL
        # back after 1 s), then one small write (as the agent's heartbeat
        # makes every 10 s), which starts the WAL over
        time.sleep(2)
        d.json("PATCH", APPS + "/deployments/big",
               {"metadata": {"labels": {"settled": "yes"}}},
               ct="application/merge-patch+json")
        time.sleep(0.2)
        rss1, db1 = d.rss_mb(), d.db_mb()
        p50, p99, mx, list_s, probes = version_latency_during_lists(d)
        d.json("DELETE", APPS + "/deployments/big")
        wait_for(lambda: not d.json("GET", "/api/v1/pods?limit=1")["items"], 3600,
                 "the pods to go")
        return dict(n=n, create=create, rollout=rollout, rss0=rss0, rss1=rss1,
                    db0=db0, db1=db1, p50=p50, p99=p99, max=mx, list_s=list_s,
                    probes=probes)
    finally:
        d.stop()


def many(count=200, replicas=2, runtime="none"):
    """The template of `count` small Deployments changed at once: the
    time until every one has rolled (new ReplicaSets at `replicas` pods,
    old ones at 0). With runtime "process" each pod is a process of the
    example service, started and stopped (SIGTERM) for real."""
    d = Daemon(runtime)
    try:
        for i in range(count):
            m = deployment(replicas, "v1")
            if runtime == "process":
                c = m["spec"]["template"]["spec"]["containers"][0]
                c["image"] = os.path.join(build, "examples", "service")
                c["command"] = ["./drover-example-web"]
                c["args"] = ["--port", "$(PORT)"]
                c["ports"] = [{"name": "http", "containerPort": 8080}]
                m["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 5
            m["metadata"]["name"] = "d%03d" % i
            m["spec"]["selector"]["matchLabels"]["app"] = "d%03d" % i
            m["spec"]["template"]["metadata"]["labels"]["app"] = "d%03d" % i
            d.json("POST", APPS + "/deployments", m)

        def rolled(version, rss):
            n = {}
            for v, r in rss.values():
                if (v == version) != (r == replicas):
                    return False
                n[v] = n.get(v, 0) + 1
            return n.get(version) == count

        def listed():
            items = d.json("GET", APPS + "/replicasets")
            return items, {rs["metadata"]["name"]: rs_state(rs) for rs in items["items"]}
        wait_for(lambda: rolled("v1", listed()[1]), 600, "%d Deployments" % count)
        # the end is the watch event that completes the rollouts, taken as
        # it arrives: no list polled meanwhile (400 ReplicaSets every 0.2 s
        # cost the daemon CPU and put up to 0.2 s on the figure)
        items, rss = listed()
        w = RSWatch(d, items["metadata"]["resourceVersion"], rss,
                    lambda st: rolled("v2", st))
        c = d.conn()
        t0 = time.monotonic()
        for i in range(count):
            d.req("PATCH", APPS + "/deployments/d%03d" % i,
                  {"spec": {"template": {"spec": {"containers": [
                      {"name": "c", "env": [{"name": "VERSION", "value": "v2"}]}]}}}},
                  ct="application/strategic-merge-patch+json", c=c)
        c.close()
        at = w.wait(600, "the %d rollouts" % count)
        wait_for(lambda: rolled("v2", listed()[1]), 60, "the %d rollouts, listed" % count)
        took = at - t0
        for i in range(count):
            d.json("DELETE", APPS + "/deployments/d%03d" % i)
        wait_for(lambda: not d.json("GET", "/api/v1/pods?limit=1")["items"], 600,
                 "the pods to go")
        return took
    finally:
        d.stop()


def main():
    rows = []
    print("bench/scale: pods as objects (--runtime none), sizes %s" % SIZES)
    print("%8s %9s %9s %8s %8s %8s %8s %8s %14s" % (
        "pods", "create s", "rollout s", "RSS0 MB", "RSS1 MB", "db0 MB",
        "db1 MB", "list s", "/version p50/p99/max ms"))
    for n in SIZES:
        r = one(n)
        rows.append(r)
        print("%8d %9.1f %9.1f %8.1f %8.1f %8.1f %8.1f %8.2f %6.1f/%.1f/%.1f" % (
            n, r["create"], r["rollout"], r["rss0"], r["rss1"], r["db0"], r["db1"],
            r["list_s"], r["p50"], r["p99"], r["max"]), flush=True)
    by = {r["n"]: r for r in rows}
    print()

    def verdict(ok):
        return "ok" if ok else "OVER"
    if 20000 in by:
        r = by[20000]
        print("rollout of 20,000 pods          %7.1f s   target <= 30 s    %s" % (
            r["rollout"], verdict(r["rollout"] <= 30)))
        if 5000 in by:
            k = r["rollout"] / by[5000]["rollout"]
            print("20,000 / 5,000 rollout time      %7.2f x   target <= 5.5 x   %s"
                  "  (linear: 4 x)" % (k, verdict(k <= 5.5)))
        print("/version p99 during a 20k list   %7.1f ms  target <= 50 ms   %s" % (
            r["p99"], verdict(r["p99"] <= 50)))
        k = r["rss1"] / r["rss0"]
        print("RSS after / before the rollout   %7.2f x   target <= 1.5 x   %s" % (
            k, verdict(k <= 1.5)))
        k = r["db1"] / r["db0"] if r["db0"] else 0
        print("state.db after / before          %7.2f x   (was 3 x)" % k)
    if os.environ.get("SCALE_MANY", "1") != "0":
        for runtime in ("none", "process"):
            t = many(runtime=runtime)
            print("template of 200 two-replica Deployments changed (--runtime "
                  "%s): all rolled in %.2f s  target <= 3 s  %s" % (
                      runtime, t, verdict(t <= 3)), flush=True)


main()
