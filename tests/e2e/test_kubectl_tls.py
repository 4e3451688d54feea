"""test_kubectl_tls.py - the real kubectl reaches `drover serve --listen
127.0.0.1:0` over HTTPS with nothing but KUBECONFIG=DIR/kubeconfig (the
server URL with the real port, drover's CA, the token): version, get pods,
create -f, get deploy -o json, scale, delete, with each kubectl of
kubectl_bins.py (Debian's 1.20 and the cloud SDK's newest). A kubeconfig
that trusts other CAs is refused by kubectl (the certificate really is
checked), and `drover` itself uses the same kubeconfig."""
import json
import os
import subprocess
import tempfile

import pytest
import yaml

from kubectl_bins import kubectl_bins
from test_api import APPS, CORE, BIN, Daemon, deployment, wait_for

BINS = kubectl_bins()


@pytest.fixture(scope="module")
def daemon():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            yield dm
        finally:
            dm.kill()


def kubectl(dm, kbin, cache, *args, kubeconfig=None, input=None):
    env = dm.env()
    if kubeconfig:
        env["KUBECONFIG"] = kubeconfig
    env["HOME"] = cache  # nothing read from or written to ~/.kube
    return subprocess.run([kbin, "--cache-dir", os.path.join(cache, "kc")]
                          + list(args), capture_output=True, text=True,
                          env=env, input=input, timeout=60)


def test_the_kubeconfig(daemon):
    path = daemon.kubeconfig
    assert os.stat(path).st_mode & 0o777 == 0o600
    kc = yaml.safe_load(open(path))
    assert kc["current-context"] == "drover"
    cluster = kc["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:%d" % daemon.port
    import base64
    assert base64.b64decode(cluster["certificate-authority-data"]).decode() \
        == open(daemon.ca).read()
    assert kc["users"][0]["user"]["token"] == daemon.token
    for name in ("ca.key", "server.key"):
        st = os.stat(os.path.join(daemon.dir, "tls", name))
        assert st.st_mode & 0o777 == 0o600, name


@pytest.mark.skipif(not BINS, reason="no kubectl binary (kubectl_bins.py)")
@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_kubectl_smoke(daemon, label, kbin):
    name = "web" + label.replace(".", "-")
    with tempfile.TemporaryDirectory() as cache:
        r = kubectl(daemon, kbin, cache, "version")
        assert r.returncode == 0, r.stderr
        git = daemon.req("GET", "/version").json()["gitVersion"]
        assert "Server Version" in r.stdout and git in r.stdout, r.stdout

        r = kubectl(daemon, kbin, cache, "get", "pods")
        assert r.returncode == 0, r.stderr
        assert "No resources found in default namespace." in r.stderr

        # create -f (no OpenAPI on the server yet: --validate=false)
        r = kubectl(daemon, kbin, cache, "create", "--validate=false", "-f",
                    "-", input=json.dumps(deployment(name, replicas=2)))
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "deployment.apps/%s created" % name

        r = kubectl(daemon, kbin, cache, "get", "deploy", "-o", "json")
        assert r.returncode == 0, r.stderr
        got = {d["metadata"]["name"]: d for d in json.loads(r.stdout)["items"]}
        assert got[name]["spec"]["replicas"] == 2
        assert got[name]["kind"] == "Deployment"

        r = kubectl(daemon, kbin, cache, "scale", "deploy/" + name,
                    "--replicas=3")
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "deployment.apps/%s scaled" % name
        assert daemon.req("GET", APPS + "/deployments/" + name).json()[
            "spec"]["replicas"] == 3

        def three_pods():
            r = kubectl(daemon, kbin, cache, "get", "pods")
            assert r.returncode == 0, r.stderr
            rows = [l.split()[0] for l in r.stdout.splitlines()[1:]]
            return len([p for p in rows if p.startswith(name + "-")]) == 3
        wait_for(three_pods, timeout=30, what="kubectl to list 3 pods")

        r = kubectl(daemon, kbin, cache, "delete", "deploy", name)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == 'deployment.apps "%s" deleted' % name
        assert daemon.req("GET", APPS + "/deployments/" + name) \
            .status_code == 404
        wait_for(lambda: not [
            p for p in daemon.req("GET", CORE + "/pods").json()["items"]
            if p["metadata"]["name"].startswith(name + "-")],
            timeout=30, what="the pods to go")


@pytest.mark.skipif(not BINS, reason="no kubectl binary (kubectl_bins.py)")
@pytest.mark.parametrize("label,kbin", BINS, ids=[b[0] for b in BINS])
def test_kubectl_checks_the_certificate(daemon, label, kbin):
    with tempfile.TemporaryDirectory() as cache:
        kc = yaml.safe_load(open(daemon.kubeconfig))
        c = kc["clusters"][0]["cluster"]
        del c["certificate-authority-data"]
        c["certificate-authority"] = "/etc/ssl/certs/ca-certificates.crt"
        other = os.path.join(cache, "other-ca")
        with open(other, "w") as f:
            yaml.safe_dump(kc, f)
        r = kubectl(daemon, kbin, cache, "get", "pods", kubeconfig=other)
        assert r.returncode != 0
        assert "certificate signed by unknown authority" in r.stderr, r.stderr


def test_drover_uses_the_kubeconfig(daemon):
    env = daemon.env()
    r = subprocess.run([BIN, "get", "deploy"], capture_output=True,
                       text=True, env=env, timeout=30)
    assert r.returncode == 0, r.stderr
    # --server overrides the kubeconfig's server, which still gives the
    # CA and the token: "localhost" is one of the certificate's names
    r = subprocess.run([BIN, "get", "deploy", "--server",
                        "https://localhost:%d" % daemon.port],
                       capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 0, r.stderr
    # without the CA the server is not trusted
    env2 = dict(env)
    env2.pop("KUBECONFIG")
    r = subprocess.run([BIN, "get", "deploy", "--server",
                        "https://127.0.0.1:%d" % daemon.port, "--token",
                        daemon.token], capture_output=True, text=True,
                       env=env2, timeout=30)
    assert r.returncode == 1
    assert "Unable to connect to the server" in r.stderr, r.stderr
    r = subprocess.run([BIN, "get", "deploy", "--server",
                        "https://127.0.0.1:%d" % daemon.port, "--token",
                        daemon.token, "--certificate-authority", daemon.ca],
                       capture_output=True, text=True, env=env2, timeout=30)
    assert r.returncode == 0, r.stderr


def test_restart_keeps_the_ca_and_follows_the_listen_address():
    """A restart on the same address keeps both certificates; one on
    another address gets a new server certificate from the same CA, and
    a kubeconfig with the new port, that a client trusting the old CA
    still verifies."""
    import ssl
    import urllib.request
    from conftest import listening_port

    def serve(d, addr):
        log = open(os.path.join(d, "serve.log"), "ab")
        off = log.tell()
        p = subprocess.Popen([BIN, "serve", "--data-dir", d, "--runtime",
                              "none", "--listen", addr + ":0"],
                             stdout=log, stderr=log)
        log.close()
        return p, listening_port(os.path.join(d, "serve.log"), off, p)

    def stop(p):
        p.terminate()
        assert p.wait(timeout=10) == 0

    def files(d):
        return {n: open(os.path.join(d, "tls", n)).read()
                for n in ("ca.crt", "server.crt")}

    with tempfile.TemporaryDirectory() as d:
        p, _ = serve(d, "127.0.0.1")
        stop(p)
        first = files(d)
        p, _ = serve(d, "127.0.0.1")
        stop(p)
        assert files(d) == first
        p, port = serve(d, "127.0.0.2")
        try:
            now = files(d)
            assert now["ca.crt"] == first["ca.crt"]
            assert now["server.crt"] != first["server.crt"]
            kc = yaml.safe_load(open(os.path.join(d, "kubeconfig")))
            assert kc["clusters"][0]["cluster"]["server"] == \
                "https://127.0.0.2:%d" % port
            ctx = ssl.create_default_context()
            ctx.load_verify_locations(cadata=first["ca.crt"])
            tok = open(os.path.join(d, "token")).read().strip()
            req = urllib.request.Request(
                "https://127.0.0.2:%d/version" % port,
                headers={"Authorization": "Bearer " + tok})
            with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
                assert json.loads(r.read())["major"] == "1"
        finally:
            stop(p)
