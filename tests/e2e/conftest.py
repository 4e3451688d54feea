"""conftest.py - shared e2e fixtures: a real `drover serve` on a temporary
data dir (unix socket), a way to run the drover command against it, a
small HTTP client over the socket, and a helper that marks pods Ready
through the status subresource (nothing runs pods in this version)."""
import http.client
import json
import os
import socket
import subprocess
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DROVER_BIN = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))


def listening_port(log_path, offset, proc, timeout=10.0):
    """The TCP port a `drover serve --listen 127.0.0.1:0` started on: the
    kernel chooses it and the daemon logs it (`listening on
    https://ADDR:PORT`, or http:// with --insecure-http) once it listens. A port chosen by the test and
    then passed would race with the client sockets of other tests running
    at the same time. offset: the log's size before this start."""
    import re

    def found():
        assert proc.poll() is None, "drover serve exited: " + open(
            log_path, errors="replace").read()[offset:][-2000:]
        with open(log_path, errors="replace") as f:
            f.seek(offset)
            m = re.search(r"listening on https?://[0-9.]+:([0-9]+)", f.read())
        return int(m.group(1)) if m else None
    return poll(found, timeout=timeout, what="drover serve to listen on TCP")


def poll(pred, timeout=10.0, what="condition", interval=0.02):
    """Polls pred() until it returns a truthy value, which is returned."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError("timed out waiting for " + what)


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=10):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.path)
        self.sock = s


class Drover:
    """One `drover serve` on a temporary data dir, reached by its socket."""

    def __init__(self, data_dir, extra=()):
        self.dir = data_dir
        self.sock = os.path.join(data_dir, "drover.sock")
        self.log = open(os.path.join(data_dir, "serve.log"), "ab")
        self.proc = subprocess.Popen(
            [DROVER_BIN, "serve", "--data-dir", data_dir, "--runtime", "none"]
            + list(extra),
            stdout=self.log, stderr=self.log)
        poll(self._up, what="drover serve to listen on " + self.sock)

    def _up(self):
        assert self.proc.poll() is None, "drover serve exited early"
        if not os.path.exists(self.sock):
            return False
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(self.sock)
            s.close()
            return True
        except OSError:
            return False

    def stop(self):
        """Kills the daemon by PID and checks that it is gone."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        assert self.proc.poll() is not None
        try:
            os.kill(self.proc.pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        assert not alive, "drover serve (pid %d) is still there" % self.proc.pid

    # ---- the drover command ----

    def env(self):
        e = dict(os.environ)
        e["DROVER_SERVER"] = self.sock
        e.pop("DROVER_TOKEN", None)
        return e

    def run(self, *args, input=None, timeout=30):
        """Runs `drover ARGS...`; returns the CompletedProcess (text)."""
        return subprocess.run([DROVER_BIN] + [str(a) for a in args],
                              input=input, capture_output=True, text=True,
                              env=self.env(), timeout=timeout)

    def popen(self, *args):
        return subprocess.Popen([DROVER_BIN] + [str(a) for a in args],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env=self.env())

    # ---- the API, directly ----

    def api(self, method, path, body=None, ct="application/json"):
        """Returns (status, parsed JSON body or None)."""
        c = UnixHTTPConnection(self.sock)
        try:
            data = json.dumps(body) if body is not None else None
            headers = {"Content-Type": ct} if data is not None else {}
            c.request(method, path, body=data, headers=headers)
            r = c.getresponse()
            raw = r.read()
            try:
                return r.status, json.loads(raw) if raw else None
            except ValueError:
                return r.status, None
        finally:
            c.close()

    def get(self, path):
        st, body = self.api("GET", path)
        assert st == 200, (path, st, body)
        return body

    def pods(self, prefix=""):
        items = self.get("/api/v1/namespaces/default/pods")["items"]
        return [p for p in items
                if p["metadata"]["name"].startswith(prefix)]

    def mark_ready(self, pod):
        """Marks one pod Running and Ready through the status subresource:
        PUT /api/v1/namespaces/default/pods/NAME/status with a Ready
        condition, phase Running and ready, running container statuses.
        Returns True if the server took it."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
        pod = dict(pod)
        pod["status"] = {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True",
                            "lastTransitionTime": now}],
            "containerStatuses": [
                {"name": c["name"], "image": c["image"], "ready": True,
                 "restartCount": 0, "state": {"running": {"startedAt": now}}}
                for c in pod["spec"]["containers"]],
        }
        st, _ = self.api("PUT", "/api/v1/namespaces/default/pods/%s/status"
                         % pod["metadata"]["name"], pod)
        return st == 200

    def ready_all(self, prefix=""):
        """Marks every live pod whose name starts with prefix Ready; returns
        how many it marked."""
        n = 0
        for p in self.pods(prefix):
            if p["metadata"].get("deletionTimestamp"):
                continue
            conds = p.get("status", {}).get("conditions", [])
            if any(c["type"] == "Ready" and c["status"] == "True"
                   for c in conds):
                continue
            if self.mark_ready(p):
                n += 1
        return n


@pytest.fixture
def drover():
    """A fresh `drover serve` per test, stopped (and checked gone) after."""
    with tempfile.TemporaryDirectory() as d:
        dm = Drover(d)
        try:
            yield dm
        finally:
            dm.stop()
