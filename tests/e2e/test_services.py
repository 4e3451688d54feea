"""test_services.py - Services with the real daemon and real processes
(--runtime process, the example service with a named port): a
Deployment of 2 and a Service selecting it get an EndpointSlice per host
port whose endpoints are the pods, ready, on the host ports their status
reports, and an Endpoints object that agrees; a deleted pod shows as
terminating or goes, and its replacement appears; a second Service on the
same port is refused (422, spec.ports[0].port) and nothing is stored, and
so is a targetPort name that none of the selected pods declares;
`drover get svc`, `describe svc` and `get ep` print what they should;
deleting the Service deletes its slices and its Endpoints. A Service
whose port another program holds says so (an Event, `describe svc`,
/metrics) and listens within the proxy's back-off once it is free. Everything is
deleted before the daemon stops, and no process is left behind."""
import os
import re
import socket
import subprocess
import time

import pytest

from test_api import APPS, BIN, CORE, Daemon, wait_for
from test_runtime import EXAMPLE, alive, all_pids, kill_and_check_left

DISC = "/apis/discovery.k8s.io/v1/namespaces/default"
PORT = 18181  # the Service's port: only a number in the store here


def web(replicas=2):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"terminationGracePeriodSeconds": 2,
                                           "containers": [{
                                               "name": "web", "image": "web:1",
                                               "command": [EXAMPLE],
                                               "args": ["--port", "$(PORT)"],
                                               "ports": [{"name": "http",
                                                          "containerPort": 8080}],
                                               "readinessProbe": {
                                                   "httpGet": {"path": "/healthz",
                                                               "port": "http"},
                                                   "periodSeconds": 1}}]}}}}


def service(name="web", port=PORT):
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name},
            "spec": {"selector": {"app": "web"},
                     "ports": [{"name": "http", "port": port,
                                "targetPort": "http", "appProtocol": "http"}]}}


def proxy_pid(dm):
    """The proxy process of this daemon: it writes to DIR/proxy.log."""
    log = os.path.realpath(dm.dir) + "/proxy.log"
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                if os.readlink("/proc/%s/fd/1" % e) == log:
                    return int(e)
            except OSError:
                continue
    return None


def stop_cluster(dm):
    """Deletes the Services, the Deployments and the pods left, waits for
    every pod, slice, service process and the proxy process to go, and
    checks that the proxy process reported nothing under the sanitizers;
    then stops the daemon and fails if a process was left behind."""
    try:
        pids = all_pids(dm)
        for x in dm.req("GET", CORE + "/services").json()["items"]:
            dm.req("DELETE", CORE + "/services/" + x["metadata"]["name"])
        for x in dm.req("GET", APPS + "/deployments").json()["items"]:
            dm.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
        for p in dm.req("GET", CORE + "/pods").json()["items"]:
            if not p["metadata"].get("ownerReferences"):
                dm.req("DELETE", CORE + "/pods/" + p["metadata"]["name"],
                       params={"gracePeriodSeconds": "1"})
        wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                 timeout=30, what="every pod to go")
        wait_for(lambda: not dm.req("GET", DISC + "/endpointslices")
                 .json()["items"], what="every slice to go")
        for pid in pids:
            wait_for(lambda: not alive(pid), what="pid %d to exit" % pid)
        wait_for(lambda: proxy_pid(dm) is None, what="the proxy to exit")
        log = os.path.join(dm.dir, "proxy.log")
        text = open(log, errors="replace").read() if os.path.exists(log) else ""
        for bad in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                    "runtime error:"):
            assert bad not in text, text[-4000:]
    finally:
        kill_and_check_left(dm)


@pytest.fixture
def dm():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            yield dm
        finally:
            stop_cluster(dm)


def host_port(pod):
    """The host port the agent reports for the pod's "http" port."""
    for cs in pod.get("status", {}).get("containerStatuses", []):
        for p in cs.get("ports", []):
            if p.get("name") == "http" and p.get("hostPort"):
                return p["hostPort"]
    return None


def live_pods(dm):
    return [p for p in dm.req("GET", CORE + "/pods").json()["items"]
            if not p["metadata"].get("deletionTimestamp")]


def slices(dm):
    r = dm.req("GET", DISC + "/endpointslices",
               params={"labelSelector": "kubernetes.io/service-name=web"})
    assert r.status_code == 200, r.text
    return r.json()["items"]


def endpoints_by_pod(dm):
    """{pod name: (address, port, conditions)} over the Service's slices."""
    out = {}
    for s in slices(dm):
        assert s["addressType"] == "IPv4"
        assert len(s["ports"]) == 1
        port = s["ports"][0]
        assert port["name"] == "http" and port["protocol"] == "TCP"
        assert port["appProtocol"] == "http"
        for e in s["endpoints"]:
            out[e["targetRef"]["name"]] = (e["addresses"][0], port["port"],
                                           e["conditions"])
    return out


def ready_on_status_ports(dm, n):
    """n live pods, all Ready, each listed ready in a slice on the host
    port its status reports; returns the pods."""
    pods = live_pods(dm)
    if len(pods) != n or any(host_port(p) is None for p in pods):
        return None
    eps = endpoints_by_pod(dm)
    for p in pods:
        e = eps.get(p["metadata"]["name"])
        if e is None or e[1] != host_port(p) or e[0] != "127.0.0.1":
            return None
        if not e[2].get("ready") or not e[2].get("serving"):
            return None
    return pods


def cli(dm, *args, input=None):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True,
                          env=dm.env(), timeout=30, input=input)


def test_discovery(dm):
    core = {r["name"]: r for r in dm.req("GET", "/api/v1").json()["resources"]}
    assert core["services"]["shortNames"] == ["svc"]
    assert core["services"]["namespaced"] is True
    assert core["endpoints"]["shortNames"] == ["ep"]
    groups = [g["name"] for g in dm.req("GET", "/apis").json()["groups"]]
    assert "discovery.k8s.io" in groups
    disc = dm.req("GET", "/apis/discovery.k8s.io/v1").json()
    assert disc["groupVersion"] == "discovery.k8s.io/v1"
    assert [r["name"] for r in disc["resources"]] == ["endpointslices"]


def test_service_endpoints_follow_pods(dm):
    assert dm.req("POST", APPS + "/deployments", web()).status_code == 201
    # through the registry: apply creates it, a second apply changes
    # nothing (the three-way merge of its ports by "port")
    import json
    out = cli(dm, "apply", "-f", "-", input=json.dumps(service()))
    assert out.returncode == 0 and out.stdout.strip() == "service/web created", \
        (out.stdout, out.stderr)
    out = cli(dm, "apply", "-f", "-", input=json.dumps(service()))
    assert out.stdout.strip() == "service/web unchanged", (out.stdout,
                                                            out.stderr)
    svc = dm.req("GET", CORE + "/services/web").json()
    assert svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["ports"][0]["protocol"] == "TCP"

    pods = wait_for(lambda: ready_on_status_ports(dm, 2), timeout=30,
                    what="2 ready endpoints on the pods' host ports")
    # the slices belong to the Service (the garbage collector's link)
    for s in slices(dm):
        ref = s["metadata"]["ownerReferences"][0]
        assert (ref["kind"], ref["name"], ref["uid"], ref["controller"]) == \
            ("Service", "web", svc["metadata"]["uid"], True)
    # the Endpoints object agrees
    want = sorted("127.0.0.1:%d" % host_port(p) for p in pods)

    def endpoints_agree():
        ep = dm.req("GET", CORE + "/endpoints/web")
        if ep.status_code != 200:
            return None
        got = sorted("%s:%d" % (a["ip"], sub["ports"][0]["port"])
                     for sub in ep.json().get("subsets", [])
                     for a in sub.get("addresses", []))
        return got == want and ep.json()
    ep = wait_for(endpoints_agree, what="the Endpoints object to agree")
    names = sorted(a["targetRef"]["name"] for sub in ep["subsets"]
                   for a in sub["addresses"])
    assert names == sorted(p["metadata"]["name"] for p in pods)

    # the CLI
    out = cli(dm, "get", "svc")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP",
                                "PORT(S)", "AGE"]
    assert lines[1].split()[:5] == ["web", "ClusterIP", "127.0.0.1", "<none>",
                                    "%d/TCP" % PORT]
    out = cli(dm, "get", "services", "-o", "wide")
    assert out.stdout.splitlines()[0].split()[-1] == "SELECTOR"
    assert out.stdout.splitlines()[1].split()[-1] == "app=web"
    out = cli(dm, "get", "ep")
    assert out.returncode == 0, out.stderr
    row = out.stdout.splitlines()[1].split()
    assert row[0] == "web" and sorted(row[1].split(",")) == want
    out = cli(dm, "get", "endpointslices")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split() == [
        "NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert sorted(int(l.split()[2]) for l in out.stdout.splitlines()[1:]) == \
        sorted(host_port(p) for p in pods)
    out = cli(dm, "describe", "svc", "web")
    assert out.returncode == 0, out.stderr
    d = dict((l.split(":", 1)[0], l.split(":", 1)[1].strip())
             for l in out.stdout.splitlines() if ":" in l)
    assert d["Selector"] == "app=web"
    assert d["Type"] == "ClusterIP"
    assert d["Port"].split() == ["http", "%d/TCP" % PORT]
    assert d["TargetPort"] == "http/TCP"
    assert sorted(d["Endpoints"].split(",")) == want
    # describe pod names the Services that route to the pod
    out = cli(dm, "describe", "pod", pods[0]["metadata"]["name"])
    assert out.returncode == 0, out.stderr
    assert [l.split(":", 1)[1].strip() for l in out.stdout.splitlines()
            if l.startswith("Services:")] == ["web"], out.stdout

    # a second Service on the same port: refused, nothing stored
    r = dm.req("POST", CORE + "/services", service("other"))
    assert r.status_code == 422, r.text
    causes = r.json()["details"]["causes"]
    assert causes == [{"reason": "FieldValueInvalid",
                       "message": "Invalid value: %d: provided port is "
                                  "already allocated" % PORT,
                       "field": "spec.ports[0].port"}], causes
    assert dm.req("GET", CORE + "/services/other").status_code == 404
    # nor may an update take it
    other = service("other", PORT + 1)
    assert dm.req("POST", CORE + "/services", other).status_code == 201
    cur = dm.req("GET", CORE + "/services/other").json()
    cur["spec"]["ports"][0]["port"] = PORT
    r = dm.req("PUT", CORE + "/services/other", cur)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"][0]["field"] == "spec.ports[0].port"
    assert dm.req("GET", CORE + "/services/other").json()["spec"]["ports"][0][
        "port"] == PORT + 1
    assert dm.req("DELETE", CORE + "/services/other").status_code == 200

    # a targetPort name the selected pods do not declare: refused with its
    # field path, nothing stored (a Service with no pods yet is accepted)
    bad = service("typo", PORT + 2)
    bad["spec"]["ports"][0]["targetPort"] = "htp"
    r = dm.req("POST", CORE + "/services", bad)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"] == [{
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "htp": no container port of the pods '
                   'this Service selects is named "htp"',
        "field": "spec.ports[0].targetPort"}], r.text
    assert dm.req("GET", CORE + "/services/typo").status_code == 404
    bad["spec"]["selector"] = {"app": "nothing-yet"}
    assert dm.req("POST", CORE + "/services", bad).status_code == 201
    assert dm.req("DELETE", CORE + "/services/typo").status_code == 200

    # a port another program listens on: the Service is stored (the API
    # cannot know), its proxy listener cannot open, and the daemon says so
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    held = blocker.getsockname()[1]
    try:
        assert dm.req("POST", CORE + "/services",
                      service("taken", held)).status_code == 201
        wait_for(lambda: "Service default/taken: cannot listen on 127.0.0.1:%d"
                 % held in open(os.path.join(dm.dir, "serve.log")).read(),
                 what="the listen error in the daemon's log")
        assert dm.req("DELETE", CORE + "/services/taken").status_code == 200
    finally:
        blocker.close()

    # a pod deleted: terminating (serving, not ready) or gone; its
    # replacement appears ready on its own host port
    victim = pods[0]["metadata"]["name"]
    r = dm.req("DELETE", CORE + "/pods/" + victim)
    assert r.status_code == 200
    seen = {}

    def replaced():
        eps = endpoints_by_pod(dm)
        if victim in eps:
            c = eps[victim][2]
            if c.get("terminating"):
                seen["terminating"] = c
            return None
        new = ready_on_status_ports(dm, 2)
        return new if new and victim not in [
            p["metadata"]["name"] for p in new] else None
    new = wait_for(replaced, timeout=30, what="the replacement's endpoint")
    if "terminating" in seen:
        assert seen["terminating"]["ready"] is False
    new_names = sorted(p["metadata"]["name"] for p in new)

    def endpoints_name_new_pods():
        ep = dm.req("GET", CORE + "/endpoints/web").json()
        return sorted(a["targetRef"]["name"] for sub in ep.get("subsets", [])
                      for a in sub.get("addresses", [])
                      + sub.get("notReadyAddresses", [])) == new_names
    wait_for(endpoints_name_new_pods,
             what="the Endpoints object to list the pods after the change")
    assert len(new) == 2

    # the Service deleted: its slices and its Endpoints go
    out = cli(dm, "delete", "svc", "web")
    assert out.stdout.strip() == 'service "web" deleted', (out.stdout,
                                                           out.stderr)
    wait_for(lambda: not slices(dm), what="the slices to go")
    wait_for(lambda: dm.req("GET", CORE + "/endpoints/web").status_code == 404,
             what="the Endpoints object to go")


def test_cluster_ip_is_the_nodes_address(dm):
    """spec.clusterIP is set at create to the address of the API server's
    node (where a client on this host reaches the Service), kept by an
    update that leaves it out, and refused when another address is asked
    for or it is changed."""
    r = dm.req("POST", CORE + "/services", service("cip", PORT + 7))
    assert r.status_code == 201, r.text
    svc = r.json()
    assert svc["spec"]["clusterIP"] == "127.0.0.1"
    assert svc["spec"]["clusterIPs"] == ["127.0.0.1"]
    # a PUT without it keeps it, and writes nothing new
    del svc["spec"]["clusterIP"], svc["spec"]["clusterIPs"]
    r = dm.req("PUT", CORE + "/services/cip", svc)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["clusterIP"] == "127.0.0.1"
    svc = r.json()
    svc["spec"]["clusterIP"] = "127.0.0.9"
    svc["spec"]["clusterIPs"] = ["127.0.0.9"]
    r = dm.req("PUT", CORE + "/services/cip", svc)
    assert r.status_code == 422
    assert 'spec.clusterIP: Invalid value: "127.0.0.9": field is immutable' \
        in r.json()["message"]
    other = service("other", PORT + 8)
    other["spec"]["clusterIP"] = "10.96.0.5"
    r = dm.req("POST", CORE + "/services", other)
    assert r.status_code == 422
    assert 'spec.clusterIP: Invalid value: "10.96.0.5": drover sets it' \
        in r.json()["message"]
    other["spec"]["clusterIP"] = "10.0.0"
    r = dm.req("POST", CORE + "/services", other)
    assert r.status_code == 422
    assert 'spec.clusterIP: Invalid value: "10.0.0": must be a valid IP ' \
        'address' in r.json()["message"]
    assert dm.req("GET", CORE + "/services/other").status_code == 404
    assert dm.req("DELETE", CORE + "/services/cip").status_code == 200


def test_proxy_ends_when_the_only_service_goes_at_once(dm):
    """A Service deleted while its proxy process is still starting (not
    yet listening, or its agent's connect under way) still ends that
    process: nothing routes, nothing is left. Each round waits for the
    proxy to be gone before the next."""
    for i in range(6):
        r = dm.req("POST", CORE + "/services", service("brief", PORT + 9))
        assert r.status_code == 201, r.text
        if i % 2:  # odd rounds: let the proxy come up first
            wait_for(lambda: proxy_pid(dm), what="the proxy to start")
        assert dm.req("DELETE", CORE + "/services/brief").status_code == 200
        wait_for(lambda: proxy_pid(dm) is None,
                 what="the proxy to exit (round %d)" % i)


def service_events(dm, reason):
    """The Events recorded on the Service web with this reason."""
    return [e for e in dm.req("GET", CORE + "/events").json()["items"]
            if e["involvedObject"].get("kind") == "Service" and
            e["involvedObject"].get("name") == "web" and e["reason"] == reason]


def answers_200(port):
    try:
        with socket.create_connection(("127.0.0.1", port), 0.5) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def test_service_port_held_elsewhere_listens_once_freed(dm):
    """A Service whose port another program holds is accepted, says why it
    does not listen (a Warning Event on the Service, `describe svc`,
    drover_proxy_listener_up 0), and listens within the proxy's back-off
    (at most 2 s) once the port is free: traffic flows."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        assert dm.req("POST", APPS + "/deployments", web(1)).status_code == 201
        assert dm.req("POST", CORE + "/services",
                      service(port=port)).status_code == 201
        wait_for(lambda: ready_on_status_ports(dm, 1), timeout=30,
                 what="a ready endpoint")
        ev = wait_for(lambda: service_events(dm, "FailedToListen"), timeout=10,
                      what="a FailedToListen Event on the Service")[0]
        assert ev["type"] == "Warning"
        assert ("cannot listen on 127.0.0.1:%d: address already in use" % port
                in ev["message"]), ev["message"]
        out = cli(dm, "describe", "svc", "web")
        assert ("Listener:" in out.stdout and "cannot listen on 127.0.0.1:%d: "
                "address already in use (trying again)" % port in out.stdout), \
            out.stdout
        wait_for(lambda: re.search(
            r'drover_proxy_listener_up\{service="default/web"\} 0\n',
            dm.req("GET", "/metrics").text), what="listener_up 0 on /metrics")
        # the proxy keeps trying: several back-offs pass, nothing else
        # is recorded while the reason stays the same
        time.sleep(2.5)
        assert len(service_events(dm, "FailedToListen")) == 1
        assert not answers_200(port)
    finally:
        holder.close()
    t0 = time.monotonic()
    wait_for(lambda: answers_200(port), timeout=5,
             what="the Service to listen once its port is free")
    took = time.monotonic() - t0
    print("the freed Service port listened after %.2f s" % took)
    assert took < 3.0, took  # the back-off's ceiling, 2 s, and slack
    ev = wait_for(lambda: service_events(dm, "Listening"), timeout=10,
                  what="a Listening Event")[0]
    assert ev["type"] == "Normal"
    wait_for(lambda: re.search(r"Listener:\s+\S+: listening",
                               cli(dm, "describe", "svc", "web").stdout),
             what="describe svc to say listening")
