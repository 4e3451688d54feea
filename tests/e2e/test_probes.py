"""test_probes.py - host ports, readiness-gated rollouts, liveness
restarts and the progress deadline with real processes (`--runtime
process`, the example service)."""
import os
import time

import requests

from test_api import APPS, CORE, update, wait_for
from test_runtime import EXAMPLE, alive, environ, pids_of, rt  # noqa: F401


def probe(path="/healthz", port="http", period=1, **kw):
    p = {"httpGet": {"path": path, "port": port}, "periodSeconds": period,
         "timeoutSeconds": 1}
    p.update(kw)
    return p


def pod(name, env=None, **container):
    c = {"name": "web", "image": "web:1", "command": [EXAMPLE],
         "args": ["--port", "$(PORT)"],
         "ports": [{"name": "http", "containerPort": 8080}],
         "env": [{"name": k, "value": v} for k, v in (env or {}).items()]}
    c.update(container)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 2, "containers": [c]}}


def status_of(rt, name):
    return rt.req("GET", CORE + "/pods/" + name).json().get("status", {})


def ready(rt, name):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in status_of(rt, name).get("conditions", []))


def test_host_ports_env_and_probe_port_by_name(rt):
    assert rt.req("POST", CORE + "/pods",
                  pod("p", env={"VERSION": "v7"},
                      readinessProbe=probe())).status_code == 201
    wait_for(lambda: ready(rt, "p"), timeout=10, what="readiness")
    cs = status_of(rt, "p")["containerStatuses"][0]
    port = cs["ports"][0]["hostPort"]
    assert cs["ports"][0]["containerPort"] == 8080 and port > 0
    env = environ(pids_of(rt.req("GET", CORE + "/pods/p").json())[0])
    assert env["PORT"] == env["PORT_HTTP"] == str(port)
    r = requests.get("http://127.0.0.1:%d/" % port, timeout=5)
    assert r.text == "v7\n"


def test_readiness_gates_ready(rt):
    assert rt.req("POST", CORE + "/pods",
                  pod("slow", env={"START_DELAY_MS": "1500"},
                      readinessProbe=probe())).status_code == 201
    wait_for(lambda: status_of(rt, "slow").get("phase") == "Running",
             what="running")
    t0 = time.monotonic()
    assert not ready(rt, "slow")
    wait_for(lambda: ready(rt, "slow"), timeout=10, what="readiness")
    assert time.monotonic() - t0 >= 0.5
    cs = status_of(rt, "slow")["containerStatuses"][0]
    assert cs["ready"] is True and cs["started"] is True
    # tcpSocket and exec probes too
    assert rt.req("POST", CORE + "/pods", pod(
        "tcp", readinessProbe={"tcpSocket": {"port": 8080}, "periodSeconds": 1})).status_code == 201
    assert rt.req("POST", CORE + "/pods", pod(
        "ex", readinessProbe={"exec": {"command": ["/bin/true"]}, "periodSeconds": 1})).status_code == 201
    assert rt.req("POST", CORE + "/pods", pod(
        "exf", readinessProbe={"exec": {"command": ["/bin/false"]}, "periodSeconds": 1})).status_code == 201
    wait_for(lambda: ready(rt, "tcp") and ready(rt, "ex"), timeout=10, what="tcp and exec")
    assert not ready(rt, "exf")


def probe_sleepers(arg):
    """Pids of processes running `sleep ARG` (an exec probe's command)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if f.read().split(b"\0")[:2] == [b"sleep", arg.encode()]:
                    found.append(int(d))
        except OSError:
            pass
    return found


def test_exec_probe_timeout_ends_the_command(rt):
    """An exec probe that outlives timeoutSeconds fails and its command is
    killed: one check at a time, none left once the pod is gone."""
    arg = "31.%d" % os.getpid()  # no other test runs this command
    assert rt.req("POST", CORE + "/pods", pod("hang", readinessProbe={
        "exec": {"command": ["sleep", arg]}, "periodSeconds": 1,
        "timeoutSeconds": 1})).status_code == 201
    # each read of /proc once: a check may end between two reads
    first = wait_for(lambda: probe_sleepers(arg), timeout=10,
                     what="the first check")[0]
    wait_for(lambda: any(p != first for p in probe_sleepers(arg)),
             timeout=10, what="the second check, after the first's timeout")
    assert not alive(first)
    assert len(probe_sleepers(arg)) <= 1
    assert not ready(rt, "hang")
    assert rt.req("DELETE", CORE + "/pods/hang").status_code == 200
    wait_for(lambda: not probe_sleepers(arg), timeout=10,
             what="the last check to be ended")


def test_liveness_restarts(rt):
    assert rt.req("POST", CORE + "/pods", pod(
        "live", env={"FAIL_LIVENESS_AFTER_MS": "300"},
        livenessProbe=probe(failureThreshold=1))).status_code == 201

    def restarted():
        for cs in status_of(rt, "live").get("containerStatuses", []):
            if cs["restartCount"] >= 1:
                return cs
    cs = wait_for(restarted, timeout=15, what="a liveness restart")
    assert cs["lastState"]["terminated"]


def deployment(version, replicas=5, env=None, deadline=600, surge=1, unavail=1):
    env = dict(env or {}, VERSION=version)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "progressDeadlineSeconds": deadline,
                     "selector": {"matchLabels": {"app": "web"}},
                     "strategy": {"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavail}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": pod("x", env=env, image="web:" + version,
                                              readinessProbe=probe())["spec"]}}}


def put_template(rt, d):
    def change(cur):
        cur["spec"]["template"] = d["spec"]["template"]
        cur["spec"]["progressDeadlineSeconds"] = d["spec"]["progressDeadlineSeconds"]
    r = update(rt, APPS + "/deployments/web", change)
    assert r.status_code == 200, r.text


def available(rt):
    return rt.req("GET", APPS + "/deployments/web").json().get("status", {})


def complete(rt, version, n=5):
    st = available(rt)
    pods = [p for p in rt.req("GET", CORE + "/pods").json()["items"]
            if not p["metadata"].get("deletionTimestamp")]
    return (st.get("updatedReplicas") == n and st.get("availableReplicas") == n and
            st.get("replicas") == n and len(pods) == n and
            all(p["spec"]["containers"][0]["image"] == "web:" + version for p in pods))


def test_rollout_budget_with_readiness_then_deadline_and_undo(rt):
    from test_api import Observer
    assert rt.req("POST", APPS + "/deployments", deployment("v1")).status_code == 201
    wait_for(lambda: complete(rt, "v1"), timeout=30, what="v1 available")
    obs = Observer(rt, "web")
    try:
        put_template(rt, deployment("v2", env={"START_DELAY_MS": "300"}))
        wait_for(lambda: complete(rt, "v2"), timeout=40, what="v2 available")
    finally:
        obs.close()
    assert max(n for n, _ in obs.samples) <= 6   # 5 + maxSurge 1
    assert min(r for _, r in obs.samples) >= 4   # 5 - maxUnavailable 1
    for p in rt.req("GET", CORE + "/pods").json()["items"]:
        if not p["metadata"].get("deletionTimestamp") and pids_of(p):
            assert environ(pids_of(p)[0])["VERSION"] == "v2"
    # a version that never becomes ready: the rollout stops within the
    # budget, the deadline passes, the old pods keep serving
    put_template(rt, deployment("v3", env={"NEVER_READY": "1"}, deadline=3))

    def exceeded():
        for c in available(rt).get("conditions", []):
            if c["type"] == "Progressing" and c["reason"] == "ProgressDeadlineExceeded":
                return True
    wait_for(exceeded, timeout=20, what="ProgressDeadlineExceeded")
    st = available(rt)
    assert st["availableReplicas"] >= 4 and st["replicas"] <= 6
    # undo: back to v2's template
    rs = [r for r in rt.req("GET", APPS + "/replicasets").json()["items"]
          if r["spec"]["template"]["spec"]["containers"][0]["image"] == "web:v2"][0]
    tmpl = rs["spec"]["template"]
    tmpl["metadata"]["labels"].pop("pod-template-hash")
    r = rt.req("PATCH", APPS + "/deployments/web",
               [{"op": "replace", "path": "/spec/template", "value": tmpl}],
               ct="application/json-patch+json")
    assert r.status_code == 200
    wait_for(lambda: complete(rt, "v2"), timeout=40, what="undo to v2")
