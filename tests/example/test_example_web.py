"""test_example_web.py - the example service (examples/service/web.c) on
loopback: version and pod name on /, readiness and liveness switches, the
crash switch, graceful SIGTERM with a /slow request in flight, SIGTERM
ignored until SIGKILL, SIGINT, and the request reader's edge cases.

Each test starts its own process with PORT=0 (or a free port chosen here)
and reads the bound port from the "listening on" log line; every process
is killed by PID and reaped when the test ends."""
import http.client
import os
import re
import signal
import socket
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("DROVER_EXAMPLE_WEB",
                     os.path.join(ROOT, "build", "examples", "service",
                                  "drover-example-web"))
# Variables the service reads; cleared so the caller's shell cannot leak in.
SERVICE_ENV = ("PORT", "VERSION", "DROVER_IMAGE", "POD_NAME",
               "START_DELAY_MS", "NEVER_READY", "CRASH_AFTER_MS",
               "EXIT_CODE", "FAIL_LIVENESS_AFTER_MS", "IGNORE_SIGTERM")


def wait_for(pred, timeout=5.0, what="condition"):
    """Polls pred() until it returns a truthy value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


class Web:
    """One drover-example-web process, its log in a file under tmp_path."""

    def __init__(self, tmp_path, env=None, args=()):
        e = {k: v for k, v in os.environ.items() if k not in SERVICE_ENV}
        e["PORT"] = "0"
        e.update(env or {})
        self.log_path = tmp_path / ("web-%d.log" % time.monotonic_ns())
        with open(self.log_path, "wb") as log:
            self.started = time.monotonic()
            self.proc = subprocess.Popen([BIN] + list(args), env=e,
                                         stdout=log, stderr=log)
        m = wait_for(lambda: self.proc.poll() is None and re.search(
            r"^listening on 127\.0\.0\.1:(\d+) version (.*)$", self.log(),
            re.M), what="the listening line in " + str(self.log_path))
        self.port = int(m.group(1))
        self.version = m.group(2)

    def log(self):
        return self.log_path.read_text()

    def wait_log(self, line):
        wait_for(lambda: re.search("^" + re.escape(line) + "$", self.log(),
                                   re.M), what="log line " + repr(line))

    def http(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)

    def get(self, path, conn=None):
        """GET path: (status, body, response)."""
        c = conn or self.http()
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read().decode(), r
        finally:
            if conn is None:
                c.close()

    def raw(self, data, timeout=5.0):
        """Sends raw bytes, reads until the server closes; returns them."""
        with socket.create_connection(("127.0.0.1", self.port),
                                      timeout=timeout) as s:
            s.sendall(data)
            return recv_all(s)

    def wait(self, timeout=5.0):
        return self.proc.wait(timeout=timeout)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=5)


def recv_all(s):
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            return out
        out += b


@pytest.fixture(scope="session", autouse=True)
def binary():
    if not os.access(BIN, os.X_OK):
        pytest.fail("no executable at %s: build drover-example-web or set "
                    "DROVER_EXAMPLE_WEB" % BIN)


@pytest.fixture
def web(tmp_path):
    """Factory: web(env={...}, args=[...]) starts a service; all are
    killed by PID at teardown, and none may be left running."""
    started = []

    def start(env=None, args=()):
        w = Web(tmp_path, env, args)
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()
    for w in started:  # a sanitizer build reports into the log
        for bad in ("Sanitizer", "runtime error:"):
            assert bad not in w.log(), w.log()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Version, pod name, keep-alive.

def test_version_pod_name_and_keep_alive(web):
    w = web(env={"VERSION": "v1", "POD_NAME": "web-7d4f-abcde"})
    assert w.version == "v1"
    c = w.http()
    for _ in range(3):  # one connection, three requests
        status, body, r = w.get("/", conn=c)
        assert (status, body) == (200, "v1\n")
        assert r.getheader("Content-Type") == "text/plain"
        assert r.getheader("X-Pod-Name") == "web-7d4f-abcde"
        assert r.getheader("Connection") is None
    c.close()


@pytest.mark.parametrize("env,args,want", [
    ({"VERSION": "v1", "DROVER_IMAGE": "web:9"}, ["--version-string", "v2"],
     "v1"),
    ({"DROVER_IMAGE": "web:9"}, ["--version-string", "v2"], "v2"),
    ({"DROVER_IMAGE": "web:9"}, [], "web:9"),
    ({}, [], "dev"),
])
def test_version_precedence(web, env, args, want):
    w = web(env=env, args=args)
    assert w.get("/")[:2] == (200, want + "\n")
    assert w.get("/")[2].getheader("X-Pod-Name") is None


def test_port_flag_overrides_env(web):
    port = free_port()
    w = web(env={"PORT": "1"}, args=["--port", str(port)])
    assert w.port == port
    assert w.get("/healthz")[:2] == (200, "ok\n")


# Readiness and liveness switches.

def test_start_delay_opens_port_but_not_ready(web):
    w = web(env={"START_DELAY_MS": "1000"})
    assert w.get("/healthz")[:2] == (503, "not ready\n")
    assert w.get("/")[0] == 200  # the port answers while not ready
    wait_for(lambda: w.get("/healthz")[0] == 200, what="ready")
    assert time.monotonic() - w.started >= 0.95
    w.wait_log("ready")


@pytest.mark.parametrize("env,args", [({"NEVER_READY": "1"}, []),
                                      ({}, ["--never-ready"])])
def test_never_ready(web, env, args):
    w = web(env=env, args=args)
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        assert w.get("/healthz")[:2] == (503, "not ready\n")
    assert "ready" not in w.log().splitlines()


def test_fail_liveness_after(web):
    w = web(env={"FAIL_LIVENESS_AFTER_MS": "300"})
    assert w.get("/healthz")[0] == 200
    wait_for(lambda: w.get("/healthz")[0] == 500, what="liveness to fail")
    assert w.get("/healthz")[1] == "unhealthy\n"
    w.wait_log("liveness failing")


# Crash switch.

@pytest.mark.parametrize("env,args,code", [
    ({"CRASH_AFTER_MS": "300"}, [], 3),
    ({"CRASH_AFTER_MS": "300", "EXIT_CODE": "7"}, [], 7),
    ({}, ["--crash-after-ms", "200", "--exit-code", "42"], 42),
])
def test_crash_after(web, env, args, code):
    w = web(env=env, args=args)
    assert w.wait() == code
    assert time.monotonic() - w.started >= 0.15
    assert "crashing with exit status %d" % code in w.log()


# Signals.

def test_graceful_sigterm_finishes_slow_request(web):
    w = web(env={"VERSION": "v1"})
    busy, idle = w.http(), w.http()
    # A request on each first, so the server has accepted both connections.
    assert w.get("/", conn=busy)[0] == 200
    assert w.get("/", conn=idle)[0] == 200
    t0 = time.monotonic()
    busy.request("GET", "/slow?ms=500")  # in the server's socket buffer
    os.kill(w.proc.pid, signal.SIGTERM)
    w.wait_log("draining")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", w.port), timeout=2).close()
    os.kill(w.proc.pid, signal.SIGTERM)  # a second one changes nothing
    assert w.proc.poll() is None
    r = busy.getresponse()
    assert (r.status, r.read()) == (200, b"slept 500 ms\n")
    assert r.getheader("Connection") == "close"
    assert time.monotonic() - t0 >= 0.45
    assert w.wait() == 0
    lines = w.log().splitlines()
    assert lines[-2:] == ["draining", "exiting"]
    # The idle keep-alive connection was closed by the drain, unanswered.
    idle.sock.settimeout(2)
    assert idle.sock.recv(1) == b""
    busy.close()
    idle.close()


def test_sigterm_answers_a_request_on_an_idle_connection_then_closes(web):
    """A request already on its way to an idle keep-alive connection when
    SIGTERM comes is answered (with Connection: close), not reset."""
    w = web(env={"VERSION": "v1"})
    idle, quiet = w.http(), w.http()
    assert w.get("/", conn=idle)[0] == 200
    assert w.get("/", conn=quiet)[0] == 200
    os.kill(w.proc.pid, signal.SIGTERM)
    w.wait_log("draining")
    t0 = time.monotonic()
    r = w.get("/", conn=idle)
    assert r[0] == 200
    assert r[2].getheader("Connection") == "close"
    # The connection that sends nothing is closed after the linger.
    quiet.sock.settimeout(3)
    assert quiet.sock.recv(1) == b""
    assert time.monotonic() - t0 >= 0.5
    assert w.wait() == 0
    idle.close()
    quiet.close()


def test_sigterm_when_idle_exits_at_once(web):
    w = web()
    os.kill(w.proc.pid, signal.SIGTERM)
    assert w.wait() == 0
    assert w.log().splitlines()[-2:] == ["draining", "exiting"]


def test_ignore_sigterm_needs_sigkill(web):
    w = web(env={"IGNORE_SIGTERM": "1"})
    os.kill(w.proc.pid, signal.SIGTERM)
    w.wait_log("ignoring SIGTERM")
    assert w.get("/")[0] == 200  # still serving after handling it
    with pytest.raises(subprocess.TimeoutExpired):
        w.wait(timeout=0.3)
    os.kill(w.proc.pid, signal.SIGKILL)
    assert w.wait() == -signal.SIGKILL
    assert "draining" not in w.log()


def test_sigint_exits_immediately_even_while_draining(web):
    w = web()
    c = w.http()
    c.request("GET", "/slow?ms=3000")
    os.kill(w.proc.pid, signal.SIGTERM)
    w.wait_log("draining")
    t0 = time.monotonic()
    os.kill(w.proc.pid, signal.SIGINT)
    assert w.wait() == 130
    assert time.monotonic() - t0 < 1.0
    c.close()


# Concurrency and the request reader.

def test_slow_does_not_block_other_connections(web):
    w = web(env={"VERSION": "v1"})
    a = w.http()
    assert w.get("/", conn=a)[0] == 200  # accepted by the server
    t0 = time.monotonic()
    a.request("GET", "/slow?ms=800")  # sent before the next connect
    assert w.get("/")[:2] == (200, "v1\n")
    assert time.monotonic() - t0 < 0.5
    r = a.getresponse()
    assert (r.status, r.read()) == (200, b"slept 800 ms\n")
    assert time.monotonic() - t0 >= 0.75
    a.close()


def test_split_reads_and_pipelining(web):
    w = web(env={"VERSION": "v1"})
    with socket.create_connection(("127.0.0.1", w.port), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        for i in range(len(req)):  # one byte per segment
            s.sendall(req[i:i + 1])
            time.sleep(0.002)
        # Then two pipelined requests with a body, the last one closing.
        s.sendall(b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
                  b"HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n")
        out = recv_all(s).decode()
    assert out.count("HTTP/1.1 200 OK") == 3
    assert out.endswith("Content-Length: 3\r\nConnection: close\r\n\r\n")
    assert "ok\n" in out and "\r\n\r\nv1\n" in out


def test_http10_closes_unless_keep_alive(web):
    w = web(env={"VERSION": "v1"})
    out = w.raw(b"GET / HTTP/1.0\r\n\r\n").decode()
    assert out.startswith("HTTP/1.1 200 OK") and "Connection: close" in out
    with socket.create_connection(("127.0.0.1", w.port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        first = s.recv(4096).decode()
        assert "Connection: keep-alive" in first and first.endswith("v1\n")
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        assert recv_all(s).decode().endswith("ok\n")


@pytest.mark.parametrize("req,status", [
    (b"garbage\r\n\r\n", 400),
    (b"GET / HTTP/2.0\r\n\r\n", 400),
    (b"GET nope HTTP/1.1\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nA: \x00\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
    (b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    # Exactly 8 KiB with no end of header: all read, so no reset.
    (b"GET / HTTP/1.1\r\nX: ".ljust(8192, b"a"), 431),
    (b"GET /slow?ms=oops HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nConnection: close\r\n\r\n", 405),
    (b"GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n", 404),
])
def test_bad_requests_answered_and_closed(web, req, status):
    w = web()
    out = w.raw(req).decode(errors="replace")
    assert out.startswith("HTTP/1.1 %d " % status), out
    assert "Connection: close\r\n" in out
    assert w.get("/")[0] == 200  # and the server is fine
