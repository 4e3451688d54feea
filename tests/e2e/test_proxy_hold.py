"""test_proxy_hold.py - the proxy process keeps routing on the table in
force while a new agent's tables would take a Service's last ready
endpoint away (issue 32, item 3: a burst of 503s after a daemon SIGKILL).

The test plays the agent: it starts `drover __proxy` itself, feeds it
tables over its control socket (src/proxy/wire.h), and sends HTTP
requests through the Service's port to two small backends. What it
checks:
  - agent A's table is applied (answered "busy" with its generation);
  - agent B (a new connection) sends a table where the Service's
    endpoints are all draining: held, requests keep answering 200 and no
    busy message names it; B's next table with a ready endpoint is
    applied at once;
  - agent C's starving table, never followed by a better one, is applied
    when the hold ends (--hold-ms), and requests then answer 503;
  - once an agent has a table applied, its starving tables are applied at
    once (an outage shows as it happens)."""
import http.client
import http.server
import json
import signal
import socket
import subprocess
import tempfile
import threading
import time

from conftest import DROVER_BIN, poll

HOLD_MS = 1500


class Backend:
    """An HTTP server on 127.0.0.1 answering 200 with its name."""

    def __init__(self, name):
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                body = name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        self.t = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.t.start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Agent:
    """One control connection to the proxy process."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.s.settimeout(0.05)
        self.buf = b""

    def table(self, gen, port, backends):
        """backends: [(Backend, state)]."""
        eps = [{"address": "127.0.0.1", "port": b.port, "key": "default/%s/uid-%s" % (n, n),
                "revision": "", "state": st}
               for n, (b, st) in ((str(i), x) for i, x in enumerate(backends))]
        msg = {"op": "table", "gen": gen, "services": [{
            "name": "default/web", "address": "127.0.0.1", "port": port,
            "mode": "http", "balance": "round-robin", "endpoints": eps}]}
        self.s.sendall(json.dumps(msg).encode() + b"\n")

    def messages(self):
        """The control messages received so far (busy ones only)."""
        out = []
        while True:
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            m = json.loads(line)
            if m.get("op") == "busy":
                out.append(m)
        return out

    def close(self):
        self.s.close()


def connect(sock):
    """An Agent connected to sock, or None while the proxy does not
    listen yet (the file exists from its bind, before its listen)."""
    try:
        return Agent(sock)
    except OSError:
        return None


def status(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        c.request("GET", "/")
        r = c.getresponse()
        r.read()
        return r.status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        c.close()


def wait_busy(agent, gen, seen):
    """Polls until a busy message names gen; seen collects every gen."""
    def got():
        seen.extend(m["gen"] for m in agent.messages())
        return gen in seen
    poll(got, timeout=10, what="the busy message of table %d" % gen)


def test_new_agents_starving_table_is_held(tmp_path):
    sock = str(tmp_path / "proxy.sock")
    log = open(tmp_path / "proxy.log", "ab")
    proc = subprocess.Popen([DROVER_BIN, "__proxy", "--socket", sock,
                             "--hold-ms", str(HOLD_MS)], stdout=log, stderr=log)
    b1, b2 = Backend("one"), Backend("two")
    port = free_port()
    agents = []
    try:
        a = poll(lambda: connect(sock), what="the control socket")
        agents.append(a)
        seen = []
        a.table(1, port, [(b1, "ready"), (b2, "ready")])
        wait_busy(a, 1, seen)
        poll(lambda: status(port) == 200, what="the Service to answer")

        # Agent B: a new connection whose first table starves the Service.
        a.close()
        b = Agent(sock)
        agents.append(b)
        seen = []
        b.table(1, port, [(b1, "draining"), (b2, "draining")])
        t0 = time.monotonic()
        poll(lambda: "held, the table in force kept" in open(
            tmp_path / "proxy.log", errors="replace").read(), what="the hold")
        for _ in range(20):
            assert status(port) == 200, "a held table must not be applied"
        assert time.monotonic() - t0 < HOLD_MS / 1000, "the test was too slow"
        seen.extend(m["gen"] for m in b.messages())
        assert 1 not in seen, "a held table is not acknowledged"
        b.table(2, port, [(b1, "ready"), (b2, "draining")])
        wait_busy(b, 2, seen)
        assert status(port) == 200
        assert 1 not in seen, "the held table was dropped, never applied"

        # Agent C: its starving table alone is applied when the hold ends.
        b.close()
        c = Agent(sock)
        agents.append(c)
        seen = []
        c.table(7, port, [(b1, "draining"), (b2, "draining")])
        t0 = time.monotonic()
        assert status(port) == 200
        wait_busy(c, 7, seen)
        held = time.monotonic() - t0
        assert held >= HOLD_MS / 1000 * 0.9, "applied after %.3fs" % held
        poll(lambda: status(port) == 503, what="503 once the hold ended")

        # C's tables are applied at once now: ready, then starved again.
        c.table(8, port, [(b1, "ready"), (b2, "ready")])
        wait_busy(c, 8, seen)
        assert status(port) == 200
        c.table(9, port, [(b1, "draining"), (b2, "draining")])
        t0 = time.monotonic()
        wait_busy(c, 9, seen)
        assert time.monotonic() - t0 < HOLD_MS / 1000 / 2
        assert status(port) == 503
        text = open(tmp_path / "proxy.log", errors="replace").read()
        assert "table 2 ends the hold of table 1" in text
        assert "table 7 applied after a hold" in text
        c.s.sendall(b'{"op":"exit"}\n')
        proc.wait(timeout=10)
        assert proc.returncode == 0
    finally:
        for x in agents:
            x.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
        b1.close()
        b2.close()
        log.close()
