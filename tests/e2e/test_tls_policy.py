"""test_tls_policy.py - the TLS versions and cipher suites of drover's
HTTPS, on both ends, as kube-apiserver and client-go: TLS 1.2 at least,
and for 1.2 only ECDHE with AES-GCM or ChaCha20-Poly1305.

The server: a client that offers only TLS 1.0 or 1.1 (everything else
allowed, OpenSSL's security level 0) fails its handshake; 1.2 and 1.3 are
accepted; a 1.2 client that offers only a CBC suite, or only RSA key
exchange, fails. The client (`drover get` through --server): a server
that speaks only TLS 1.1, or TLS 1.2 with a CBC suite, is refused before
any request is sent; one with an AEAD suite gets the request."""
import http.server
import os
import socket
import ssl
import subprocess
import tempfile
import threading

import pytest

from test_api import BIN, Daemon

# TLS 1.0 and 1.1 are deprecated in Python's ssl: offering them is the test.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

AEAD = {"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305"}


@pytest.fixture(scope="module")
def daemon():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            yield dm
        finally:
            dm.kill()


def context(version, ciphers="ALL:@SECLEVEL=0"):
    """A client context pinned to one TLS version, offering every suite
    OpenSSL has (so that only the server's policy can refuse)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_ciphers(ciphers)
    ctx.minimum_version = version
    ctx.maximum_version = version
    return ctx


def handshake(port, ctx):
    """(protocol, cipher) of a completed handshake, or the SSLError."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        try:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                return s.version(), s.cipher()[0]
        except (ssl.SSLError, ConnectionResetError) as e:
            return e


def refused(r):
    return isinstance(r, (ssl.SSLError, ConnectionResetError))


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1,
                                     ssl.TLSVersion.TLSv1_1],
                         ids=["tls1.0", "tls1.1"])
def test_tls_below_1_2_is_refused(daemon, version):
    r = handshake(daemon.port, context(version))
    assert refused(r), "negotiated %s with a %s-only client" % (r, version)


def test_tls_1_2_and_1_3_are_accepted(daemon):
    r = handshake(daemon.port, context(ssl.TLSVersion.TLSv1_2))
    assert r[0] == "TLSv1.2" and r[1] in AEAD, r
    r = handshake(daemon.port, context(ssl.TLSVersion.TLSv1_3))
    assert r[0] == "TLSv1.3", r
    # and the API answers over them
    assert daemon.req("GET", "/version").status_code == 200


@pytest.mark.parametrize("suite", ["ECDHE-ECDSA-AES128-SHA",
                                   "ECDHE-ECDSA-AES256-SHA384",
                                   "ECDHE-ECDSA-AES128-SHA256",
                                   "AES128-GCM-SHA256", "AES256-SHA"])
def test_cbc_and_rsa_kx_suites_are_refused(daemon, suite):
    ctx = context(ssl.TLSVersion.TLSv1_2, suite + ":@SECLEVEL=0")
    r = handshake(daemon.port, ctx)
    assert refused(r), "negotiated %s offering only %s" % (r, suite)


class _Hits(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        _Hits.hits.append(self.path)
        body = b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def serve_once(daemon, version, ciphers):
    """An HTTPS server with the daemon's certificate that speaks only the
    given version and suites; the drover CLI is pointed at it."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(daemon.dir, "tls", "server.crt"),
                        os.path.join(daemon.dir, "tls", "server.key"))
    ctx.set_ciphers(ciphers)
    ctx.minimum_version = version
    ctx.maximum_version = version
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Hits)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    _Hits.hits = []
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    env.pop("DROVER_SERVER", None)
    try:
        r = subprocess.run(
            [BIN, "get", "pods", "--server",
             "https://127.0.0.1:%d" % srv.server_address[1],
             "--certificate-authority", daemon.ca, "--token", "t"],
            capture_output=True, text=True, env=env, timeout=30)
    finally:
        srv.shutdown()
        srv.server_close()
        t.join()
    return r, list(_Hits.hits)


@pytest.mark.parametrize("version,ciphers", [
    (ssl.TLSVersion.TLSv1_1, "ALL:@SECLEVEL=0"),
    (ssl.TLSVersion.TLSv1_2, "ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0"),
], ids=["tls1.1", "tls1.2-cbc"])
def test_the_client_refuses_weak_servers(daemon, version, ciphers):
    r, hits = serve_once(daemon, version, ciphers)
    assert r.returncode != 0 and not hits, (r.stdout, r.stderr, hits)


def test_the_client_reaches_an_aead_server(daemon):
    r, hits = serve_once(daemon, ssl.TLSVersion.TLSv1_2,
                         "ECDHE-ECDSA-AES128-GCM-SHA256")
    assert r.returncode == 0, r.stderr
    assert hits and hits[0].startswith("/api/v1/namespaces/default/pods"), hits
