#!/usr/bin/python3
"""bench/reload/reload.py - drover against pm2 during a reload under load.

The same Node.js service (examples/node/server.js), 4 instances, the same
keep-alive wrk load (wrk -t1 -c16 --latency, at full speed) while every
instance is replaced by a new version (VERSION v1 -> v2):

- pm2 5 in cluster mode (its own PM2_HOME in a temp dir, an ecosystem
  file with wait_ready, listen_timeout and kill_timeout as pm2's docs
  recommend for a graceful reload), `pm2 reload` under the load; the
  reload is done when the command has returned, 4 instances are online,
  none of the old PIDs is left and / answers v2.
- drover: `drover serve --runtime process` in a temp data dir, a
  Deployment of 4 replicas of `node server.js` (readiness httpGet
  /healthz, terminationGracePeriodSeconds 10, RollingUpdate maxSurge 1
  maxUnavailable 0) behind a Service with appProtocol http, the
  template's VERSION changed by a PUT under the load; the rollout is done
  when the Deployment's status says so, the 4 pods are v2 and ready, and
  every old pod's process has exited.

The load starts 1 s before the change and stops 1 s after it is done.
Printed side by side: failed requests (socket errors + non-2xx), p99,
requests/s, the wall time of the reload/rollout; and the target line
`drover failed requests: N  target 0  ok/OVER`.

pm2 is installed from the npm registry into bench/reload/node_modules if
missing (npm install --prefix bench/reload pm2@5). Every wait is bounded;
only PIDs started here are stopped (pm2's daemon and workers through
`pm2 kill`, then checked gone; drover's pods through the API, then
checked gone). A benchmark, never a test: no figure fails it.

usage: /usr/bin/python3 bench/reload/reload.py BUILD_DIR
env: RELOAD_BENCH_TIMELINE=1 prints how drover's pods changed (printed
anyway when the rollout took over 15 s or a request failed);
RELOAD_BENCH_MAX_SECONDS (120, the bound on each reload and on the
load); RELOAD_BENCH_PM2_DEFAULTS=1 leaves out pm2's graceful settings
(wait_ready, listen_timeout, kill_timeout), to see what they buy"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVER = os.path.join(ROOT, "examples", "node", "server.js")
PM2 = os.path.join(HERE, "node_modules", ".bin", "pm2")
sys.path.insert(0, os.path.join(ROOT, "tests", "chaos"))
from chaos import service_pids  # noqa: E402

INSTANCES = 4
CONNS = 16
GRACE = 10  # terminationGracePeriodSeconds; pm2's kill_timeout the same
MAX = int(os.environ.get("RELOAD_BENCH_MAX_SECONDS", "120"))
APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


def say(*a):
    print("bench/reload:", *a, flush=True)


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise SystemExit("bench/reload: timed out waiting for " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def get_root(port):
    """The body of GET / on port (a new connection), or None."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", "/")
        r = c.getresponse()
        body = r.read().decode().strip()
        c.close()
        return body if r.status == 200 else None
    except OSError:
        return None


def to_ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)$", v)
    x = float(m.group(1))
    return {"us": x / 1000, "ms": x, "s": x * 1000}[m.group(2)]


class Load:
    """wrk against port in the background, for at most MAX + 30 s, until
    result() stops it (SIGINT: wrk stops and reports)."""

    def __init__(self, port):
        self.p = subprocess.Popen(
            ["wrk", "-t1", "-c%d" % CONNS, "-d%ds" % (MAX + 30), "--latency",
             "http://127.0.0.1:%d/" % port],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def result(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            out = self.p.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            self.p.kill()
            out = self.p.communicate()[0]
        m = re.search(r"(\d+) requests in", out)
        if not m:
            raise SystemExit("bench/reload: wrk said:\n" + out)
        sock = re.search(r"Socket errors: connect (\d+), read (\d+), "
                         r"write (\d+), timeout (\d+)", out)
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
        rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
        errs = dict(zip(("connect", "read", "write", "timeout"),
                        (int(x) for x in sock.groups()))) if sock else {}
        return {"requests": int(m.group(1)), "errors": errs,
                "socket_errors": sum(errs.values()),
                "non2xx": int(non2xx.group(1)) if non2xx else 0,
                "p99": to_ms(p99.group(1)), "rps": float(rps.group(1)),
                "text": out}


def under_load(port, change, done):
    """Load from 1 s before change() to 1 s after done() holds; returns
    wrk's figures and the seconds from change() to done()."""
    load = Load(port)
    try:
        time.sleep(1)  # load before the change (a span, not a wait)
        if load.p.poll() is not None:
            raise SystemExit("bench/reload: wrk ended early:\n" +
                             load.p.communicate()[0])
        t0 = time.monotonic()
        change()
        wait_for(done, MAX, "the reload to be done")
        took = time.monotonic() - t0
        time.sleep(1)  # and after it
        if load.p.poll() is not None:
            say("warning: wrk ended before the reload was done")
    finally:
        r = load.result()
    r["took"] = took
    return r


# ---- pm2 -------------------------------------------------------------

ECOSYSTEM = """module.exports = {{ apps: [{{
  name: "web",
  script: {script},
  exec_mode: "cluster",
  instances: {n},
{graceful}  env: {{ PORT: "{port}", VERSION: "{version}" }},
}}] }};
"""
# graceful reload, as pm2's docs recommend: the new worker counts as up
# once it sends 'ready' (after listen), bounded by listen_timeout; the old
# one gets SIGINT and kill_timeout ms before SIGKILL (pm2's default: 1600)
GRACEFUL = """  wait_ready: true,
  listen_timeout: 10000,
  kill_timeout: {kill_ms},
"""
PM2_DEFAULTS = os.environ.get("RELOAD_BENCH_PM2_DEFAULTS") == "1"


def ensure_pm2():
    if os.path.exists(PM2):
        return True
    if shutil.which("npm") is None:
        say("npm not installed (scripts/deps.sh bench): pm2 skipped")
        return False
    say("installing pm2@5 into bench/reload/node_modules")
    r = subprocess.run(["npm", "install", "--prefix", HERE, "--no-audit",
                        "--no-fund", "pm2@5"], timeout=600)
    return r.returncode == 0 and os.path.exists(PM2)


def bench_pm2(tmp):
    home = os.path.join(tmp, "pm2home")
    os.mkdir(home)
    env = dict(os.environ, PM2_HOME=home)
    port = free_port()
    eco = os.path.join(tmp, "ecosystem.config.js")

    def write(version):
        with open(eco, "w") as f:
            f.write(ECOSYSTEM.format(script=json.dumps(SERVER), n=INSTANCES,
                                     graceful="" if PM2_DEFAULTS else
                                     GRACEFUL.format(kill_ms=GRACE * 1000),
                                     port=port, version=version))

    def pm2(*args, timeout=60):
        return subprocess.run([PM2] + list(args), env=env, cwd=tmp,
                              capture_output=True, text=True, timeout=timeout)

    def workers():
        r = pm2("jlist")
        try:
            procs = json.loads(r.stdout[r.stdout.find("["):])
        except ValueError:
            return []
        return [(p["pid"], p["pm2_env"]["status"]) for p in procs]

    def daemon_pid():
        try:
            with open(os.path.join(home, "pm2.pid")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    write("v1")
    god = None
    started = []
    try:
        r = pm2("start", eco)
        god = daemon_pid()
        if r.returncode != 0:
            raise SystemExit("bench/reload: pm2 start failed:\n" + r.stdout +
                             r.stderr)
        wait_for(lambda: len([w for w in workers() if w[1] == "online"])
                 == INSTANCES, 30, "4 pm2 workers online")
        wait_for(lambda: get_root(port) == "v1", 10, "pm2's v1 to answer")
        old = [w[0] for w in workers()]
        started += old
        reload = {}

        def change():
            write("v2")
            reload["proc"] = subprocess.Popen(
                [PM2, "reload", eco, "--update-env"], env=env, cwd=tmp,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def done():
            if reload["proc"].poll() is None:
                return False
            ws = workers()
            started.extend(w[0] for w in ws)
            return (len(ws) == INSTANCES and
                    all(s == "online" and p not in old for p, s in ws) and
                    not any(alive(p) for p in old) and
                    all(get_root(port) == "v2" for _ in range(8)))
        r = under_load(port, change, done)
        out = reload["proc"].communicate()[0]
        if reload["proc"].returncode != 0:
            say("pm2 reload exited %d:\n%s" % (reload["proc"].returncode,
                                                out))
        return r
    finally:
        pm2("kill", timeout=60)
        left = [p for p in set(started) | ({god} if god else set())
                if alive(p)]
        try:
            wait_for(lambda: not any(alive(p) for p in left), 15,
                     "pm2's daemon and workers to exit")
        except SystemExit:
            for p in left:  # ours: started by this run's pm2
                if alive(p):
                    os.kill(p, signal.SIGKILL)
            say("pm2 kill left %s: killed" % left)


# ---- drover ----------------------------------------------------------

class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=30)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def deployment(node, version):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": INSTANCES,
                     "selector": {"matchLabels": {"app": "web"}},
                     "strategy": {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxSurge": 1,
                                                    "maxUnavailable": 0}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"terminationGracePeriodSeconds": GRACE,
                                           "containers": [{
                                               "name": "web", "image": "node",
                                               "command": [node],
                                               "args": [SERVER],
                                               "env": [{"name": "VERSION",
                                                        "value": version}],
                                               "ports": [{"name": "http",
                                                          "containerPort": 8080}],
                                               "readinessProbe": {
                                                   "httpGet": {"path": "/healthz",
                                                               "port": "http"},
                                                   "periodSeconds": 1}}]}}}}


def service(port):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"},
                     "ports": [{"name": "http", "port": port,
                                "targetPort": "http", "appProtocol": "http"}]}}


def pod_pids(pod):
    out = []
    for cs in pod.get("status", {}).get("containerStatuses", []):
        cid = cs.get("containerID", "")
        if cid.startswith("drover://") and "running" in cs.get("state", {}):
            out.append(int(cid[len("drover://"):].split("-")[0]))
    return out


def bench_drover(build, tmp):
    drover = os.path.join(build, "drover")
    node = shutil.which("node")
    d = os.path.join(tmp, "drover")
    os.mkdir(d)
    sock = os.path.join(d, "drover.sock")
    log = open(os.path.join(d, "serve.log"), "w")
    daemon = subprocess.Popen([drover, "serve", "--data-dir", d,
                               "--runtime", "process"],
                              stdout=log, stderr=log, start_new_session=True)

    def req(method, path, body=None):
        c = UnixHTTPConnection(sock)
        try:
            c.request(method, path, None if body is None else json.dumps(body),
                      {"Content-Type": "application/json"})
            r = c.getresponse()
            out = r.read()
        finally:
            c.close()
        if r.status >= 300 and not (method == "DELETE" and r.status == 404):
            raise SystemExit("bench/reload: %s %s: %d %s" % (
                method, path, r.status, out.decode()))
        return json.loads(out) if out else {}

    def pods():
        return req("GET", CORE + "/pods")["items"]

    def settled(version):
        ps = pods()
        dep = req("GET", APPS + "/deployments/web")
        st = dep.get("status", {})
        return (len(ps) == INSTANCES and
                all(p["spec"]["containers"][0]["env"][0]["value"] == version
                    and not p["metadata"].get("deletionTimestamp") and
                    any(c["type"] == "Ready" and c["status"] == "True"
                        for c in p.get("status", {}).get("conditions", []))
                    for p in ps) and
                st.get("observedGeneration") == dep["metadata"]["generation"]
                and st.get("updatedReplicas") == INSTANCES and
                st.get("availableReplicas") == INSTANCES and
                st.get("replicas") == INSTANCES)

    started = []
    try:
        def up():
            if daemon.poll() is not None:
                raise SystemExit("bench/reload: drover serve exited with %d "
                                 "(see its log)" % daemon.returncode)
            try:
                return req("GET", "/version")
            except OSError:  # no socket yet, or not listening yet
                return None
        wait_for(up, 10, "drover's API")
        port = free_port()
        req("POST", APPS + "/deployments", deployment(node, "v1"))
        req("POST", CORE + "/services", service(port))
        wait_for(lambda: settled("v1"), 60, "drover's v1")
        wait_for(lambda: get_root(port) == "v1", 10, "the Service to answer")
        old = [p for pod in pods() for p in pod_pids(pod)]
        started += old

        def change():
            dep = req("GET", APPS + "/deployments/web")
            dep["spec"]["template"] = deployment(node, "v2")["spec"]["template"]
            req("PUT", APPS + "/deployments/web", dep)

        seen = {}  # pod name -> what was last said of it
        timeline = []
        t_start = []

        def watch_pods():
            """One line per change of a pod (version, phase, ready,
            restarts, terminating) since the change; polled with done()."""
            now = time.monotonic() - t_start[0] if t_start else 0.0
            ps = pods()
            names = set()
            for p in ps:
                n = p["metadata"]["name"]
                names.add(n)
                st = p.get("status", {})
                ready = any(c["type"] == "Ready" and c["status"] == "True"
                            for c in st.get("conditions", []))
                restarts = sum(c.get("restartCount", 0)
                               for c in st.get("containerStatuses", []))
                what = "%s %s%s restarts %d%s" % (
                    p["spec"]["containers"][0]["env"][0]["value"],
                    st.get("phase", "?"), " Ready" if ready else "",
                    restarts, " terminating" if
                    p["metadata"].get("deletionTimestamp") else "")
                if seen.get(n) != what:
                    seen[n] = what
                    timeline.append("%6.2f s  %s: %s" % (now, n, what))
            for n in list(seen):
                if n not in names:
                    del seen[n]
                    timeline.append("%6.2f s  %s: gone" % (now, n))
            return ps

        def done():
            if not t_start:
                t_start.append(time.monotonic())
            watch_pods()
            if not settled("v2"):
                return False
            started.extend(p for pod in pods() for p in pod_pids(pod))
            return not any(alive(p) for p in old)
        watch_pods()
        r = under_load(port, change, done)
        if r["took"] > 15 or r["socket_errors"] or r["non2xx"] or \
                os.environ.get("RELOAD_BENCH_TIMELINE") == "1":
            say("drover's pods during the rollout (from the first poll "
                "after the PUT):\n  " + "\n  ".join(timeline))
        if not all(get_root(port) == "v2" for _ in range(8)):
            say("warning: drover's Service does not answer v2 after the "
                "rollout")
        return r
    finally:
        try:
            if daemon.poll() is None:
                started.extend(p for pod in pods() for p in pod_pids(pod))
                req("DELETE", CORE + "/services/web")
                req("DELETE", APPS + "/deployments/web")
                wait_for(lambda: not pods(), GRACE + 30, "drover's pods to go")
                wait_for(lambda: not any(alive(p) for p in started), 15,
                         "the pods' processes to exit")
                wait_for(lambda: not service_pids(d), 15,
                         "the proxy process to exit")
        finally:
            if daemon.poll() is None:
                daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
            log.close()
            left = service_pids(d)
            for p in left:  # started by this daemon: never leave one
                try:
                    os.killpg(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if left:
                say("processes left behind by drover (killed): %s" % left)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/reload/reload.py BUILD_DIR")
    build = os.path.abspath(sys.argv[1])
    for tool in ("wrk", "node"):
        if shutil.which(tool) is None:
            say("%s not installed (scripts/deps.sh bench): skipped" % tool)
            return
    if not ensure_pm2():
        say("pm2 could not be installed: skipped")
        return
    tmp = tempfile.mkdtemp(prefix="drover-reloadbench.")
    try:
        say("%d instances of examples/node/server.js, v1 -> v2 under "
            "wrk -t1 -c%d --latency (keep-alive)" % (INSTANCES, CONNS))
        res = {"pm2": bench_pm2(tmp), "drover": bench_drover(build, tmp)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for who, r in res.items():
        e = r["errors"]
        say("%s: %d requests; socket errors connect %d read %d write %d "
            "timeout %d; non-2xx %d" % (who, r["requests"], e.get("connect", 0),
                                        e.get("read", 0), e.get("write", 0),
                                        e.get("timeout", 0), r["non2xx"]))
    print()
    print("%-34s %16s %8s" % ("", "pm2 5" + (" (defaults)" if PM2_DEFAULTS
                                               else ""), "drover"))
    rows = [("failed requests (socket + non-2xx)",
             lambda r: "%d" % (r["socket_errors"] + r["non2xx"])),
            ("  of which socket errors", lambda r: "%d" % r["socket_errors"]),
            ("  of which non-2xx", lambda r: "%d" % r["non2xx"]),
            ("requests", lambda r: "%d" % r["requests"]),
            ("p99 latency, ms", lambda r: "%.2f" % r["p99"]),
            ("requests/s", lambda r: "%.0f" % r["rps"]),
            ("reload/rollout wall time, s", lambda r: "%.2f" % r["took"])]
    for name, f in rows:
        print("%-34s %16s %8s" % (name, f(res["pm2"]), f(res["drover"])))
    n = res["drover"]["socket_errors"] + res["drover"]["non2xx"]
    print()
    print("drover failed requests: %d  target 0  %s" % (n, "ok" if n == 0
                                                          else "OVER"))


if __name__ == "__main__":
    main()
