"""test_cli_ports.py - the ports users see, with the process runtime:
`drover describe pod` shows each container port with its name
(`Port: 8080/TCP (http)`) and the host port the agent allocated from
the pod's status (`Host Port: 31234/TCP`, not kubectl's 0/TCP of the
spec), and `drover get pods -o wide` has a PORTS column (`http:31234`,
the port's number when it has no name, `<none>` before any is
allocated). Every workload is deleted and every process gone at the
end."""
import os
import re
import subprocess
import tempfile

import pytest

from test_api import APPS, CORE, Daemon, wait_for
from test_host_ports import PROGRAM, before, cleanup  # noqa: F401

BIN = os.environ.get("DROVER_BIN", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), "build", "drover"))


def drover(dm, *args):
    r = subprocess.run([BIN] + list(args), capture_output=True, text=True,
                       env=dm.env(), timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def rows(out):
    return [re.split(r"\s{2,}", l.strip()) for l in out.strip().splitlines()]


def host_ports(p):
    """{containerPort: hostPort} of the pod's status, once all are there."""
    out = {}
    for cs in p.get("status", {}).get("containerStatuses", []):
        for port in cs.get("ports", []):
            if port.get("hostPort"):
                out[port["containerPort"]] = port["hostPort"]
    return out


def test_describe_and_wide_show_allocated_host_ports(before):
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            web = {"name": "web", "image": "web:v1", "command": [PROGRAM],
                   "args": ["--port", "$(PORT)"],
                   "ports": [{"name": "http", "containerPort": 8080}]}
            dep = {"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "ports"},
                   "spec": {"replicas": 1,
                            "selector": {"matchLabels": {"app": "ports"}},
                            "template": {
                                "metadata": {"labels": {"app": "ports"}},
                                "spec": {"terminationGracePeriodSeconds": 2,
                                         "containers": [web]}}}}
            r = dm.req("POST", APPS + "/deployments", dep)
            assert r.status_code == 201, r.text
            # two ports, one without a name; a process that ignores them
            multi = {"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "multi"},
                     "spec": {"terminationGracePeriodSeconds": 2,
                              "containers": [{
                                  "name": "sleeper", "image": "sleep:1",
                                  "command": ["/bin/sleep", "1000"],
                                  "ports": [{"name": "metrics",
                                             "containerPort": 9090},
                                            {"containerPort": 9091}]}]}}
            r = dm.req("POST", CORE + "/pods", multi)
            assert r.status_code == 201, r.text
            # a pod the agent has not run: no ports yet
            bare = {"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "bare"},
                    "spec": {"nodeName": "no-such-node",
                             "containers": [{"name": "c", "image": "x:1",
                                             "command": ["/bin/true"],
                                             "ports": [{"containerPort":
                                                        80}]}]}}
            r = dm.req("POST", CORE + "/pods", bare)
            assert r.status_code == 201, r.text

            def allocated():
                items = dm.req("GET", CORE + "/pods").json()["items"]
                web_pods = [p for p in items
                            if p["metadata"]["name"].startswith("ports-")]
                m = [p for p in items if p["metadata"]["name"] == "multi"]
                if (len(web_pods) == 1 and host_ports(web_pods[0]) and m and
                        len(host_ports(m[0])) == 2):
                    return web_pods[0], m[0]
                return None
            web_pod, multi_pod = wait_for(allocated, timeout=30,
                                          what="host ports in the statuses")
            name = web_pod["metadata"]["name"]
            hp = host_ports(web_pod)[8080]
            mp = host_ports(multi_pod)
            assert 30000 <= hp <= 32767

            out = drover(dm, "describe", "pod", name)
            assert re.search(r"^    Port:\s+8080/TCP \(http\)$", out,
                             re.M), out
            assert re.search(r"^    Host Port:\s+%d/TCP$" % hp, out,
                             re.M), out
            out = drover(dm, "describe", "pod", "multi")
            assert re.search(r"^    Ports:\s+9090/TCP \(metrics\), 9091/TCP$",
                             out, re.M), out
            assert re.search(r"^    Host Ports:\s+%d/TCP, %d/TCP$"
                             % (mp[9090], mp[9091]), out, re.M), out
            # a template shows the spec (no host port allocated there)
            out = drover(dm, "describe", "deploy", "ports")
            assert re.search(r"^    Port:\s+8080/TCP \(http\)$", out,
                             re.M), out
            assert re.search(r"^    Host Port:\s+0/TCP$", out, re.M), out

            t = rows(drover(dm, "get", "pods", "-o", "wide"))
            assert t[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE",
                            "IP", "NODE", "NOMINATED NODE",
                            "READINESS GATES", "PORTS"]
            by_name = {x[0]: x for x in t[1:]}
            assert by_name[name][-1] == "http:%d" % hp
            assert by_name["multi"][-1] == "metrics:%d,9091:%d" % (
                mp[9090], mp[9091])
            assert by_name["bare"][-1] == "<none>"
            # the plain table is unchanged
            t = rows(drover(dm, "get", "pods"))
            assert t[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        finally:
            # no agent runs the bare pod's node: it goes at once only
            # with a zero grace period (kubectl delete --force)
            dm.req("DELETE", CORE + "/pods/bare",
                   params={"gracePeriodSeconds": "0"})
            cleanup(dm)
