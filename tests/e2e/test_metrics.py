"""test_metrics.py - GET /metrics, end to end: refused without the token
over TCP, served over the unix socket; the text is Prometheus' format
0.0.4 (every sample line `name{labels} value`, HELP and TYPE before each
family, one family's samples together) and its counters grow after a
write; and the real Prometheus (Debian's `prometheus`, installed by
scripts/deps.sh test) scrapes it with the bearer token every second and
answers a query for the Deployment controller's queue. Prometheus is
stopped by its PID and the workload deleted before the daemon stops."""
import math
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import requests

from conftest import UnixHTTPConnection
from test_api import APPS, Daemon, wait_for

CT = "text/plain; version=0.0.4; charset=utf-8"
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:\\[\\"n]|[^"\\\n])*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s)(?:,%s)*\})? (\S+)$" % (NAME, LABEL, LABEL))


@pytest.fixture
def api():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            yield dm
        finally:
            for x in dm.req("GET", APPS + "/deployments").json()["items"]:
                dm.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
            wait_for(lambda: not dm.req("GET", APPS + "/deployments")
                     .json()["items"], what="the deployments to go")
            dm.kill()


def deployment(name):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {"replicas": 2,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [
                                      {"name": "web", "image": "web:1",
                                       "command": ["/bin/true"]}]}}}}


def parse(text):
    """The exposition as {family: {"type", "help", "samples": [(name,
    labels dict, value)]}}; asserts the format's rules on the way."""
    families, order, current = {}, [], None
    for line in text.splitlines():
        assert line, "an empty line in the exposition"
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            assert name not in families, "family %s appears twice" % name
            families[name] = {"help": line.split(" ", 3)[3], "type": None,
                              "samples": []}
            order.append(name)
            current = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ")
            assert name == current, "TYPE %s without its HELP" % name
            assert typ in ("counter", "gauge", "histogram", "summary",
                           "untyped")
            families[name]["type"] = typ
            continue
        assert not line.startswith("#"), line
        m = SAMPLE.match(line)
        assert m, "not `name{labels} value`: %r" % line
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        v = float(value)  # +Inf, NaN and exponents parse too
        fam = current
        if families[current]["type"] == "histogram":
            assert name in (current + "_bucket", current + "_sum",
                            current + "_count"), (current, line)
        else:
            assert name == current, "sample %s outside its family %s" % (
                name, current)
        lab = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"',
                              labels))
        families[fam]["samples"].append((name, lab, v))
    for name in order:
        assert families[name]["type"], "no TYPE for " + name
    return families


def value(fams, family, sample=None, **labels):
    """The value of family's sample (default: the family's name) with
    these labels, or None."""
    for n, lab, v in fams[family]["samples"]:
        if n == (sample or family) and all(lab.get(k) == x
                                         for k, x in labels.items()):
            return v
    return None


def scrape(dm):
    r = dm.req("GET", "/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == CT
    return parse(r.text)


def test_metrics_needs_the_token_and_parses_and_counts_writes(api):
    r = api.req("GET", "/metrics", token=False)
    assert r.status_code == 401
    assert "drover_" not in r.text

    before = scrape(api)
    for fam, typ in [("drover_workqueue_depth", "gauge"),
                     ("drover_workqueue_adds_total", "counter"),
                     ("drover_workqueue_retries_total", "counter"),
                     ("drover_workqueue_work_duration_seconds", "histogram"),
                     ("drover_apiserver_request_total", "counter"),
                     ("drover_apiserver_request_duration_seconds",
                      "histogram"),
                     ("drover_store_writes_total", "counter"),
                     ("drover_store_commits_total", "counter"),
                     ("drover_store_fsync_duration_seconds", "histogram"),
                     ("drover_event_loop_turn_cpu_seconds", "histogram"),
                     ("process_resident_memory_bytes", "gauge"),
                     ("process_cpu_seconds_total", "counter"),
                     ("process_start_time_seconds", "gauge"),
                     ("process_open_fds", "gauge")]:
        assert before[fam]["type"] == typ, fam
    assert value(before, "process_resident_memory_bytes") > 1 << 20
    assert value(before, "process_open_fds") >= 3
    # the loop has turned (every request is answered in a turn)
    assert value(before, "drover_event_loop_turn_cpu_seconds",
                 "drover_event_loop_turn_cpu_seconds_count") > 0
    start = value(before, "process_start_time_seconds")
    assert abs(start - time.time()) < 600, start
    # a histogram: cumulative buckets ending in +Inf == _count
    h = [(lab, v) for n, lab, v in
         before["drover_apiserver_request_duration_seconds"]["samples"]
         if n.endswith("_bucket") and lab["verb"] == "LIST"
         and lab["resource"] == "pods"]
    assert h and h[-1][0]["le"] == "+Inf"
    assert [v for _, v in h] == sorted(v for _, v in h)
    assert h[-1][1] == value(before,
                             "drover_apiserver_request_duration_seconds",
                             "drover_apiserver_request_duration_seconds_count",
                             verb="LIST", resource="pods")

    creates0 = value(before, "drover_apiserver_request_total", verb="CREATE",
                     resource="deployments", code="201") or 0
    writes0 = value(before, "drover_store_writes_total", operation="create")
    adds0 = value(before, "drover_workqueue_adds_total",
                  name="deployment") or 0
    r = api.req("POST", APPS + "/deployments", deployment("count"))
    assert r.status_code == 201, r.text

    def grown():
        f = scrape(api)
        return f if (value(f, "drover_workqueue_adds_total",
                           name="deployment") or 0) > adds0 else None
    after = wait_for(grown, what="the deployment queue to count an add")
    assert value(after, "drover_apiserver_request_total", verb="CREATE",
                 resource="deployments", code="201") == creates0 + 1
    # the deployment, then its ReplicaSet and pods
    assert value(after, "drover_store_writes_total",
                 operation="create") >= writes0 + 2
    assert value(after, "drover_store_commits_total") >= value(
        before, "drover_store_commits_total") + 1
    assert value(after, "drover_workqueue_work_duration_seconds",
                 "drover_workqueue_work_duration_seconds_count",
                 name="deployment") >= 1
    # a refusal is counted with its code
    r = api.req("POST", APPS + "/deployments", deployment("count"))
    assert r.status_code == 409
    f = scrape(api)
    assert value(f, "drover_apiserver_request_total", verb="CREATE",
                 resource="deployments", code="409") == 1

    # the unix socket needs no token, as for every other path
    c = UnixHTTPConnection(os.path.join(api.dir, "drover.sock"))
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode()
        assert r.status == 200
        assert r.getheader("Content-Type") == CT
        parse(body)
    finally:
        c.close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Prometheus:
    """`prometheus` on 127.0.0.1, scraping drover every second over HTTPS
    (trusting drover's CA) with the bearer token read from drover's token
    file."""

    def __init__(self, d, target, token_file, ca_file):
        binary = shutil.which("prometheus")
        if binary is None:
            pytest.fail("prometheus is not installed (scripts/deps.sh test "
                        "installs Debian's prometheus)")
        self.dir = d
        cfg = os.path.join(d, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n"
                    "  scrape_interval: 1s\n"
                    "  evaluation_interval: 1s\n"
                    "scrape_configs:\n"
                    "  - job_name: drover\n"
                    "    scrape_interval: 1s\n"
                    "    metrics_path: /metrics\n"
                    "    scheme: https\n"
                    "    tls_config:\n"
                    "      ca_file: %s\n"
                    "    authorization:\n"
                    "      type: Bearer\n"
                    "      credentials_file: %s\n"
                    "    static_configs:\n"
                    "      - targets: ['%s']\n" % (ca_file, token_file,
                                                  target))
        self.log = open(os.path.join(d, "prometheus.log"), "ab")
        self.proc = None
        # The port is chosen here, so another process may take it first:
        # then prometheus exits and the next port is tried.
        for _ in range(5):
            self.port = free_port()
            self.proc = subprocess.Popen(
                [binary, "--config.file=" + cfg,
                 "--storage.tsdb.path=" + os.path.join(d, "data"),
                 "--web.listen-address=127.0.0.1:%d" % self.port],
                stdout=self.log, stderr=self.log)
            try:
                wait_for(self._ready, timeout=30, what="prometheus to be ready")
                return
            except AssertionError:
                if self.proc.poll() is None:
                    self.stop()
                    raise
                self.proc.wait()
        raise AssertionError("prometheus did not start: " + self.text())

    def text(self):
        return open(os.path.join(self.dir, "prometheus.log"),
                    errors="replace").read()[-3000:]

    def _ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("prometheus exited: " + self.text())
        try:
            return requests.get("http://127.0.0.1:%d/-/ready" % self.port,
                                timeout=1).status_code == 200
        except requests.RequestException:
            return False

    def query(self, q):
        r = requests.get("http://127.0.0.1:%d/api/v1/query" % self.port,
                         params={"query": q}, timeout=5)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "success", body
        return body["data"]["result"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        try:
            os.kill(self.proc.pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        assert not alive, "prometheus (pid %d) is still there" % self.proc.pid


def test_prometheus_scrapes_drover_with_the_token(api):
    with tempfile.TemporaryDirectory() as d:
        prom = Prometheus(d, "127.0.0.1:%d" % api.port,
                          os.path.join(api.dir, "token"), api.ca)
        try:
            r = api.req("POST", APPS + "/deployments", deployment("scraped"))
            assert r.status_code == 201, r.text

            def deployment_queue():
                for s in prom.query("drover_workqueue_adds_total"):
                    m = s["metric"]
                    if (m.get("name") == "deployment" and
                            m.get("job") == "drover" and
                            float(s["value"][1]) > 0):
                        return s
                return None
            s = wait_for(deployment_queue, timeout=60,
                         what="prometheus to scrape the deployment queue")
            assert s["metric"]["instance"] == "127.0.0.1:%d" % api.port
            up = prom.query('up{job="drover"}')
            assert len(up) == 1 and up[0]["value"][1] == "1", up
            # a histogram Prometheus can compute a quantile from
            q = prom.query('histogram_quantile(0.99, drover_apiserver_'
                           'request_duration_seconds_bucket{verb="CREATE",'
                           'resource="deployments"})')
            assert q and math.isfinite(float(q[0]["value"][1])), q
        finally:
            prom.stop()
