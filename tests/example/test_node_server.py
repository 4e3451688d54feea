"""test_node_server.py - the Node.js example (examples/node/server.js) by
itself on loopback: its answers, and its graceful stop on SIGTERM and
SIGINT (a request on an open keep-alive connection within the linger is
answered with `Connection: close`; an idle one is closed after the
linger, not before; the process exits 0). Needs node (Debian's nodejs,
which `make test` installs): without it the tests fail, never skip.

Each test starts its own process with PORT=0 and reads the bound port
from its "listening on" line; every process is killed by PID and reaped
when the test ends."""
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.path.join(ROOT, "examples", "node", "server.js")
NODE = shutil.which("node")
LINGER = 1.0  # server.js's LINGER_MS


@pytest.fixture(autouse=True)
def node_installed():
    if NODE is None:
        pytest.fail("node is not installed (scripts/deps.sh test installs nodejs)")


def wait_for(pred, timeout=5.0, what="condition"):
    """Polls pred() until it returns a truthy value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


@pytest.fixture
def server(tmp_path):
    """Starts server.js with VERSION v7; yields (process, port)."""
    log = tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "VERSION")}
    env.update(PORT="0", VERSION="v7")
    with open(log, "wb") as f:
        p = subprocess.Popen([NODE, SERVER], env=env, stdout=f, stderr=f)
    try:
        m = wait_for(lambda: re.search(r"listening on 127\.0\.0\.1:(\d+)",
                                       log.read_text()),
                     what="the listening line")
        yield p, int(m.group(1))
    finally:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=5)


def refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), 0.5).close()
        return False
    except ConnectionRefusedError:
        return True


def test_answers_version_and_health(server):
    _, port = server
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/")
    r = c.getresponse()
    assert (r.status, r.read()) == (200, b"v7\n")
    assert r.getheader("Connection") == "keep-alive"
    c.request("GET", "/healthz")  # the same connection: keep-alive
    r = c.getresponse()
    assert (r.status, r.read()) == (200, b"ok\n")
    c.request("GET", "/nope")
    r = c.getresponse()
    assert r.status == 404
    r.read()
    c.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_graceful_stop_answers_then_closes(server, sig):
    p, port = server
    busy = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    busy.request("GET", "/")
    assert busy.getresponse().read() == b"v7\n"
    idle = socket.create_connection(("127.0.0.1", port), 5)
    idle.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"v7" in idle.recv(4096)
    t0 = time.monotonic()
    os.kill(p.pid, sig)
    wait_for(lambda: refused(port), what="the listener to close")
    # within the linger: answered, with Connection: close, then closed
    busy.request("GET", "/")
    r = busy.getresponse()
    assert r.status == 200 and r.read() == b"v7\n"
    assert r.getheader("Connection") == "close"
    busy.close()
    # the idle connection is closed after the linger, not before
    idle.settimeout(5)
    assert idle.recv(4096) == b""
    assert time.monotonic() - t0 >= LINGER * 0.9
    idle.close()
    assert p.wait(timeout=5) == 0


def test_connection_without_request_does_not_hold_the_stop(server):
    """A connection that never sends a request (one a proxy or a prober
    opened) is closed at the end of the linger too; the process does not
    wait for Node's headersTimeout (60 s)."""
    p, port = server
    quiet = socket.create_connection(("127.0.0.1", port), 5)
    # a request answered on a later connection: the quiet one, queued
    # first, has been accepted by then
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/")
    assert c.getresponse().read() == b"v7\n"
    c.close()
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGTERM)
    quiet.settimeout(5)
    assert quiet.recv(4096) == b""
    assert time.monotonic() - t0 >= LINGER * 0.9
    quiet.close()
    assert p.wait(timeout=5) == 0
