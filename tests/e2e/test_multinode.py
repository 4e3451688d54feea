"""test_multinode.py - many hosts on one machine: `drover serve --no-agent`
(a control plane only) and `drover agent` processes, each with its own
loopback address (127.0.0.2, ...), data directory and host-port range,
joined with `drover token create`. The helpers here serve
test_multinode_traffic.py too.

- joining: the token printed once, listed and deleted; an unknown,
  expired or deleted token, a CA that does not match, a server that is
  not drover and a node name a live agent holds are each refused with one
  line and no Node left behind;
- NodeRestriction: an agent's credential writes its own Node, Lease and
  pods' status, and gets 403 (nothing changed) for another node's, for
  a Deployment, for join tokens;
- logs: the API reaches the logs of a pod on a joined host through that
  host's agent (HTTPS with a certificate the CA signed for the node's
  address, the node's credential as the bearer), for the API, `drover
  logs` and its options; the agent's port refuses anyone else."""
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading

import pytest
import requests

from conftest import listening_port
from kubectl_bins import kubectl_bins
from test_api import APPS, BIN, CORE, wait_for
import test_runtime  # noqa: F401 (puts the crash campaign on the path)
from chaos import service_pids, stop_left

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


class ControlPlane:
    """`drover serve --no-agent --listen 127.0.0.1:PORT` on dir; the port
    is the kernel's at the first start and kept for restarts (the agents
    know the URL)."""

    def __init__(self, d):
        self.dir, self.port, self.proc = d, 0, None
        self.start()

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, "serve.log")
        log = open(path, "ab")
        offset = log.tell()
        self.proc = subprocess.Popen(
            [BIN, "serve", "--data-dir", self.dir, "--no-agent",
             "--listen", "127.0.0.1:%d" % self.port], stdout=log, stderr=log)
        log.close()
        self.port = listening_port(path, offset, self.proc)
        self.token = open(os.path.join(self.dir, "token")).read().strip()
        self.ca = os.path.join(self.dir, "tls", "ca.crt")
        self.url = "https://127.0.0.1:%d" % self.port

    def req(self, method, path, body=None, token=None,
            ct="application/json"):
        return requests.request(
            method, self.url + path,
            data=json.dumps(body) if body is not None else None,
            headers={"Authorization": "Bearer " + (token or self.token),
                     "Content-Type": ct},
            timeout=10, verify=self.ca)

    def cli(self, *args):
        return subprocess.run([BIN] + list(args) + [
            "--server", os.path.join(self.dir, "drover.sock")],
            capture_output=True, text=True, timeout=30)

    def new_token(self, *flags):
        r = self.cli("token", "create", *flags)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    def nodes(self):
        return sorted(n["metadata"]["name"]
                      for n in self.req("GET", "/api/v1/nodes").json()["items"])

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=15)
            # a clean stop: a crash while shutting down (a handle closed
            # twice) would otherwise go unseen
        text = open(os.path.join(self.dir, "serve.log"), errors="replace").read()
        assert sig != signal.SIGTERM or self.proc.returncode == 0, \
            (self.proc.returncode, text[-3000:])
        for bad in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                    "runtime error:"):
            assert bad not in text, text[-4000:]


class Agent:
    """`drover agent` for node name at address, in dir."""

    def __init__(self, cp, name, address, d, ports, token=None,
                 runtime="process"):
        self.cp, self.name, self.address, self.dir = cp, name, address, d
        self.ports, self.runtime, self.proc = ports, runtime, None
        self.start(token)

    def args(self, token):
        # --port 0: the logs on any free port (test files that run at
        # once may give agents the same loopback address)
        a = [BIN, "agent", "--data-dir", self.dir, "--node-name", self.name,
             "--address", self.address, "--host-port-range", self.ports,
             "--runtime", self.runtime, "--port", "0"]
        if token:
            a += ["--server", self.cp.url, "--token", token]
        return a

    def start(self, token=None):
        self.log = os.path.join(self.dir, "agent.log")
        os.makedirs(self.dir, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.args(token), stdout=log,
                                         stderr=log)
        wait_for(lambda: self.ready(), timeout=20,
                 what="node %s to be Ready" % self.name)

    def ready(self):
        assert self.proc.poll() is None, open(self.log).read()[-2000:]
        r = self.cp.req("GET", "/api/v1/nodes/" + self.name)
        return r.status_code == 200 and any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in r.json()["status"].get("conditions", []))

    def credential(self):
        return json.load(open(os.path.join(self.dir, "agent.json")))["token"]

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=15)
        text = open(self.log, errors="replace").read()
        for bad in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                    "runtime error:"):
            assert bad not in text, text[-4000:]


def join_fails(cp, d, token, name="x1", server=None):
    """An agent that must not join: its exit status and message."""
    r = subprocess.run(
        [BIN, "agent", "--data-dir", d, "--node-name", name,
         "--runtime", "none", "--address", "127.0.0.9",
         "--server", server or cp.url, "--token", token],
        capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture
def cp():
    with tempfile.TemporaryDirectory() as d:
        c = ControlPlane(os.path.join(d, "cp"))
        c.root = d
        c.agents = []
        try:
            yield c
        finally:
            stop_cluster(c)


def stop_cluster(cp):
    """Deletes every workload and waits for the pods to go, then stops the
    agents and the control plane; fails if a process was left."""
    left = []
    try:
        if cp.proc.poll() is None:
            for x in cp.req("GET", "/api/v1/services").json()["items"]:
                cp.req("DELETE", CORE + "/services/" + x["metadata"]["name"])
            for x in cp.req("GET", APPS + "/deployments").json()["items"]:
                cp.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
            wait_for(lambda: not cp.req("GET", "/api/v1/pods").json()["items"],
                     timeout=40, what="every pod to go")
            for a in cp.agents:
                wait_for(lambda: not service_pids(a.dir), timeout=20,
                         what="the processes of %s to exit" % a.name)
    finally:
        for a in cp.agents:
            try:
                a.stop()
            finally:
                left += stop_left(a.dir)
        cp.stop()
    assert not left, "processes left behind: %s" % sorted(left)


def test_join_refusals_leave_nothing(cp):
    d = cp.root
    tok = cp.new_token("--ttl", "1h", "--description", "first host")
    assert re.fullmatch(r"[a-z0-9]{6}\.[a-z0-9]{16}::sha256:[0-9a-f]{64}", tok)
    listed = cp.cli("token", "list")
    assert listed.returncode == 0
    assert tok.split(".")[0] in listed.stdout and "first host" in listed.stdout
    assert tok.split(".")[1].split("::")[0] not in listed.stdout  # shown once
    tok_file = json.load(open(os.path.join(cp.dir, "join-tokens.json")))
    assert tok.split("::")[0].split(".")[1] not in json.dumps(tok_file)
    assert oct(os.stat(os.path.join(cp.dir, "join-tokens.json")).st_mode)[-3:] == "600"

    # never joined, no token
    r = subprocess.run([BIN, "agent", "--data-dir", os.path.join(d, "a0"),
                        "--runtime", "none"], capture_output=True, text=True)
    assert r.returncode == 1 and "has not joined yet" in r.stderr
    assert "expected the join token" in join_fails(cp, os.path.join(d, "a0"),
                                                   "nonsense")
    # an unknown secret, a CA that is not this cluster's
    bad = tok[:7] + "0" * 16 + tok[23:]
    assert "join token was refused" in join_fails(cp, os.path.join(d, "a1"), bad)
    other = tok[:-64] + "0" * 64
    assert "is not the one the token names" in join_fails(
        cp, os.path.join(d, "a2"), other)
    # a server that is not drover (this test's own HTTP server)
    srv = subprocess.Popen(["/usr/bin/python3", "-m", "http.server", "--bind",
                            "127.0.0.1", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=d)
    try:
        port = wait_for(lambda: re.search(r"port (\d+)", srv.stdout.readline()),
                        what="the HTTP server").group(1)
        assert "is not a drover control plane" in join_fails(
            cp, os.path.join(d, "a3"), tok, server="http://127.0.0.1:" + port)
    finally:
        srv.terminate()
        srv.wait()
    # expired, and deleted
    short = cp.new_token("--ttl", "1s")
    wait_for(lambda: "<invalid>" in cp.cli("token", "list").stdout,
             timeout=5, what="the 1 s token to expire")
    assert "join token was refused" in join_fails(cp, os.path.join(d, "a4"), short)
    gone = cp.new_token()
    r = cp.cli("token", "delete", gone.split(".")[0])
    assert r.returncode == 0, r.stderr
    assert gone.split(".")[0] not in cp.cli("token", "list").stdout
    assert "join token was refused" in join_fails(cp, os.path.join(d, "a5"), gone)
    assert cp.nodes() == []

    # a node name held by a live agent
    a = Agent(cp, "n1", "127.0.0.2", os.path.join(d, "n1"), "26000-26099",
              token=tok, runtime="none")
    cp.agents.append(a)
    msg = join_fails(cp, os.path.join(d, "a6"), tok, name="n1")
    assert 'node "n1" is held by a live agent' in msg
    assert cp.nodes() == ["n1"]
    # the joined agent restarts without --server or --token
    a.stop()
    a.start()
    # the credential file is the agent's alone
    assert oct(os.stat(os.path.join(a.dir, "agent.json")).st_mode)[-3:] == "600"


def test_node_restriction(cp):
    tok = cp.new_token()
    n1 = Agent(cp, "n1", "127.0.0.2", os.path.join(cp.root, "n1"),
               "26000-26099", token=tok, runtime="none")
    n2 = Agent(cp, "n2", "127.0.0.3", os.path.join(cp.root, "n2"),
               "26100-26199", token=tok, runtime="none")
    cp.agents += [n1, n2]
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web"},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "c",
                                                          "image": "x"}]}}}}
    assert cp.req("POST", APPS + "/deployments", dep).status_code == 201
    pods = wait_for(lambda: (lambda p: p if len(p) == 2 and all(
        x["spec"].get("nodeName") for x in p) else None)(
        cp.req("GET", "/api/v1/pods").json()["items"]), what="2 pods bound")
    by_node = {p["spec"]["nodeName"]: p["metadata"]["name"] for p in pods}
    assert sorted(by_node) == ["n1", "n2"]
    cred = n1.credential()
    patch = {"metadata": {"labels": {"touched": "yes"}}}
    mp = "application/merge-patch+json"

    def forbidden(r, text):
        assert r.status_code == 403, r.text
        body = r.json()
        assert body["kind"] == "Status" and body["reason"] == "Forbidden"
        assert text in body["message"], body["message"]

    other = by_node["n2"]
    before = cp.req("GET", CORE + "/pods/" + other).json()
    forbidden(cp.req("PATCH", CORE + "/pods/%s/status" % other, patch,
                     token=cred, ct=mp),
              'pods "%s" is forbidden: node "n1" can only update pod status '
              'for pods with spec.nodeName set to itself' % other)
    forbidden(cp.req("DELETE", CORE + "/pods/" + other, token=cred),
              'node "n1" can only delete pods with spec.nodeName set to itself')
    after = cp.req("GET", CORE + "/pods/" + other).json()
    assert after["metadata"]["resourceVersion"] == \
        before["metadata"]["resourceVersion"]
    forbidden(cp.req("PATCH", "/api/v1/nodes/n2", patch, token=cred, ct=mp),
              'nodes "n2" is forbidden: node "n1" is not allowed to modify '
              'node "n2"')
    assert "touched" not in cp.req("GET", "/api/v1/nodes/n2").json()[
        "metadata"].get("labels", {})
    forbidden(cp.req("DELETE", LEASES + "/n2", token=cred),
              "can only access node lease with the same name as the "
              "requesting node")
    dep2 = dict(dep, metadata={"name": "sneaky"})
    forbidden(cp.req("POST", APPS + "/deployments", dep2, token=cred),
              'deployments.apps is forbidden: User "system:node:n1" cannot '
              'create resource "deployments" in API group "apps" in the '
              'namespace "default"')
    assert cp.req("GET", APPS + "/deployments/sneaky").status_code == 404
    forbidden(cp.req("PATCH", APPS + "/deployments/web",
                     {"spec": {"replicas": 5}}, token=cred, ct=mp),
              'User "system:node:n1" cannot patch resource "deployments"')
    assert cp.req("GET", "/drover/v1/jointokens", token=cred).status_code == 403
    # what is its own: allowed
    mine = by_node["n1"]
    r = cp.req("PATCH", CORE + "/pods/%s/status" % mine, patch, token=cred,
               ct=mp)
    assert r.status_code == 200, r.text
    r = cp.req("PATCH", "/api/v1/nodes/n1", patch, token=cred, ct=mp)
    assert r.status_code == 200, r.text
    assert cp.req("GET", "/api/v1/pods", token=cred).status_code == 200
    # a credential that is not one
    r = cp.req("GET", "/api/v1/pods", token=cred[:-1] + ("0" if cred[-1] != "0"
                                                            else "1"))
    assert r.status_code == 401


def test_logs_of_a_pod_on_a_joined_host(cp):
    tok = cp.new_token()
    a1 = Agent(cp, "a1", "127.0.0.2", os.path.join(cp.root, "a1"),
               "26200-26299", token=tok)
    cp.agents.append(a1)
    port = wait_for(lambda: cp.req("GET", "/api/v1/nodes/a1").json()[
        "status"].get("daemonEndpoints", {}).get("kubeletEndpoint", {}).get(
        "Port"), what="the Node's log port")
    assert 0 < port < 65536
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "talk"},
           "spec": {"nodeName": "a1", "containers": [{
               "name": "c", "image": "x",
               "command": ["sh", "-c",
                           "echo hello from a1; echo second; exec sleep 600"]}]}}
    assert cp.req("POST", CORE + "/pods", pod).status_code == 201
    log = CORE + "/pods/talk/log"
    try:
        wait_for(lambda: cp.req("GET", log).text == "hello from a1\nsecond\n",
                 timeout=20, what="the pod's two lines through the API")
        r = cp.req("GET", log + "?tailLines=1")
        assert r.status_code == 200 and r.text == "second\n", r.text
        r = cp.req("GET", log + "?limitBytes=5")
        assert r.status_code == 200 and r.text == "hello", r.text
        r = cp.req("GET", log + "?container=nope")
        assert r.status_code == 400, r.text
        r = cp.req("GET", log + "?previous=true")
        assert r.status_code == 400, r.text  # no run before this one
        r = cp.cli("logs", "talk")
        assert r.returncode == 0 and r.stdout == "hello from a1\nsecond\n", \
            (r.stdout, r.stderr)
        for label, kbin in kubectl_bins():
            r = subprocess.run(
                [kbin, "--kubeconfig", os.path.join(cp.dir, "kubeconfig"),
                 "logs", "talk", "--tail=1"], capture_output=True,
                text=True, timeout=30, env=dict(os.environ, HOME=cp.root))
            assert (r.returncode, r.stdout) == (0, "second\n"), \
                (label, r.stdout, r.stderr)
        # The agent's own port: HTTPS with the cluster's CA, for the
        # node's credential only.
        uid = cp.req("GET", CORE + "/pods/talk").json()["metadata"]["uid"]
        url = "https://127.0.0.2:%d/containerLogs/default/talk/c?uid=%s" % (
            port, uid)
        for bearer in (None, cp.token, tok):
            h = {"Authorization": "Bearer " + bearer} if bearer else {}
            r = requests.get(url, headers=h, verify=cp.ca, timeout=10)
            assert r.status_code == 401, (bearer, r.status_code)
        r = requests.get(url, verify=cp.ca, timeout=10, headers={
            "Authorization": "Bearer " + a1.credential()})
        assert r.status_code == 200 and r.text.startswith("hello"), r.text
        # An agent that is away: a 500 naming where the API asked.
        a1.stop(signal.SIGKILL)
        r = cp.req("GET", log)
        assert r.status_code == 500, r.text
        assert "127.0.0.2:%d/containerLogs/default/talk/c" % port in \
            r.json()["message"], r.text
        a1.start()
        wait_for(lambda: cp.req("GET", log).status_code == 200, timeout=20,
                 what="the logs again after the agent's restart")
    finally:
        assert cp.req("DELETE", CORE + "/pods/talk").status_code == 200


def test_a_log_request_held_by_a_silent_agent_ends_with_the_server(cp):
    """A node whose agent accepts connections and never answers: the
    API holds the pods/log request (its answer comes later), and a
    SIGTERM of the control plane answers it 503 and exits 0."""
    silent = socket.socket()
    silent.bind(("127.0.0.5", 0))
    silent.listen(8)
    try:
        port = silent.getsockname()[1]
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": "ghost"}}
        assert cp.req("POST", "/api/v1/nodes", node).status_code == 201
        r = cp.req("PATCH", "/api/v1/nodes/ghost/status", {"status": {
            "addresses": [{"type": "InternalIP", "address": "127.0.0.5"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}},
            ct="application/merge-patch+json")
        assert r.status_code == 200, r.text
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"nodeName": "ghost",
                        "containers": [{"name": "c", "image": "x"}]}}
        assert cp.req("POST", CORE + "/pods", pod).status_code == 201
        out = {}

        def ask():
            try:
                out["r"] = cp.req("GET", CORE + "/pods/p/log")
            except requests.RequestException as e:
                out["e"] = e
        t = threading.Thread(target=ask)
        t.start()
        conn, _ = silent.accept()  # the API's connection to the "agent"
        cp.proc.send_signal(signal.SIGTERM)
        assert cp.proc.wait(timeout=15) == 0
        t.join(15)
        assert "r" in out, out
        assert out["r"].status_code == 503, out["r"].text
        conn.close()
    finally:
        silent.close()


def test_an_agent_without_a_runtime_watches_again_after_a_restart(cp):
    """`--runtime none` keeps no cache, only a watch of its pods: when the
    watch ends (here the control plane's restart) it is opened again, so
    the agent still finishes the deletion of a pod bound to it."""
    a = Agent(cp, "quiet", "127.0.0.8", os.path.join(cp.root, "quiet"),
              "31700-31710", token=cp.new_token(), runtime="none")
    cp.agents.append(a)
    cp.stop()
    cp.start()
    st = cp.req("POST", CORE + "/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"nodeName": "quiet",
                 "containers": [{"name": "c", "image": "x"}]}})
    assert st.status_code == 201, st.text
    st = cp.req("DELETE", CORE + "/pods/p")
    assert st.status_code == 200, st.text
    wait_for(lambda: cp.req("GET", CORE + "/pods/p").status_code == 404,
             timeout=20, what="the agent to finish the pod's deletion")
