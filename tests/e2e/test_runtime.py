"""test_runtime.py - pods as real processes (`drover serve --runtime
process`) with the example service: env and $(VAR) expansion, the
downward API, log files, a rolling update replacing processes within the
budget, graceful stop (SIGTERM, then SIGKILL after the grace period),
restarts with CrashLoopBackOff, and no process left behind."""
import os
import sys
import subprocess
import signal
import tempfile
import time

import pytest
import requests

from test_api import APPS, CORE, Daemon, Observer, update, wait_for

# The service processes a daemon started, found by their pod logs under
# its data directory: one definition, the crash campaign's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "chaos"))
from chaos import service_pids, stop_left  # noqa: E402,F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.environ.get("DROVER_EXAMPLE_WEB", os.path.join(
    os.path.dirname(os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))),
    "examples", "service", "drover-example-web"))


def delete_deployments(dm, timeout):
    """Deletes every Deployment and waits for every pod to go."""
    for x in dm.req("GET", APPS + "/deployments").json()["items"]:
        dm.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
    wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
             timeout=timeout, what="every pod to go")


def kill_and_check_left(dm):
    """Stops the daemon, then any service process it left by PID: the
    test fails if there was one."""
    try:
        dm.kill()
    finally:
        left = stop_left(dm.dir)  # never leave one behind
        assert not left, "processes left behind: %s" % sorted(left)


@pytest.fixture
def rt():
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            yield dm
        finally:
            # Services outlive the daemon by design: stop them through the
            # API first, then check that every process is gone.
            # The API part may fail when the test failed with the daemon
            # down: the processes are stopped by PID all the same.
            pids = []
            try:
                pids = all_pids(dm)
                for x in dm.req("GET", APPS + "/deployments").json()["items"]:
                    dm.req("DELETE", APPS + "/deployments/" + x["metadata"]["name"])
                for p in dm.req("GET", CORE + "/pods").json()["items"]:
                    dm.req("DELETE", CORE + "/pods/" + p["metadata"]["name"],
                           params={"gracePeriodSeconds": "1"})
                wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                         timeout=15, what="every pod to go")
                for pid in pids:
                    wait_for(lambda: not alive(pid), what="pid %d to exit" % pid)
            finally:
                kill_and_check_left(dm)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def pids_of(pod):
    out = []
    for cs in pod.get("status", {}).get("containerStatuses", []):
        cid = cs.get("containerID", "")
        if cid.startswith("drover://") and "running" in cs.get("state", {}):
            out.append(int(cid[len("drover://"):].split("-")[0]))
    return out


def all_pids(dm):
    pods = dm.req("GET", "/api/v1/pods").json().get("items", [])
    return [p for pod in pods for p in pids_of(pod)]


def environ(pid):
    with open("/proc/%d/environ" % pid, "rb") as f:
        return dict(kv.split("=", 1) for kv in f.read().decode().split("\0") if "=" in kv)


def web(version, replicas=3, **extra_env):
    env = [{"name": "VERSION", "value": version},
           {"name": "MYPORT", "value": "0"},
           {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
    env += [{"name": k, "value": v} for k, v in extra_env.items()]
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": "web"}},
                     "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"terminationGracePeriodSeconds": 5,
                                           "containers": [{
                                               "name": "web", "image": "web:" + version,
                                               "command": [EXAMPLE],
                                               "args": ["--port", "$(MYPORT)"],
                                               "env": env}]}}}}


def running_pods(dm):
    pods = [p for p in dm.req("GET", CORE + "/pods").json()["items"]
            if not p["metadata"].get("deletionTimestamp")]
    return pods


def rolled_out(dm, version, n):
    d = dm.req("GET", APPS + "/deployments/web").json()
    st = d.get("status", {})
    pods = running_pods(dm)
    return (st.get("updatedReplicas") == n and st.get("availableReplicas") == n and
            st.get("replicas") == n and len(pods) == n and
            all(p["spec"]["containers"][0]["image"] == "web:" + version and
                p["status"].get("phase") == "Running" for p in pods))


def test_processes_env_logs_and_rolling_update(rt):
    assert rt.req("POST", APPS + "/deployments", web("v1")).status_code == 201
    wait_for(lambda: rolled_out(rt, "v1", 3), timeout=20, what="v1 to run")
    v1 = running_pods(rt)
    old_pids = []
    for pod in v1:
        pid = pids_of(pod)[0]
        old_pids.append(pid)
        assert os.getpgid(pid) == pid  # its own process group
        env = environ(pid)
        assert env["VERSION"] == "v1"
        assert env["POD"] == pod["metadata"]["name"]
        assert env["DROVER_IMAGE"] == "web:v1"
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            assert f.read().split(b"\0")[1:3] == [b"--port", b"0"]  # $(MYPORT)
        log = os.path.join(rt.dir, "pods", "default_%s_%s_web.log" % (
            pod["metadata"]["name"], pod["metadata"]["uid"]))
        wait_for(lambda: "listening on" in open(log).read(), what="the log")
        # its stdout names the log: the sweep of live restore finds a
        # process by it (the file was made unnamed, then linked)
        assert os.readlink("/proc/%d/fd/1" % pid) == os.path.realpath(log)
    obs = Observer(rt, "web")
    try:
        r = update(rt, APPS + "/deployments/web",
                   lambda d: d["spec"].update(template=web("v2")["spec"]["template"]))
        assert r.status_code == 200, r.text
        wait_for(lambda: rolled_out(rt, "v2", 3), timeout=30, what="v2 to run")
    finally:
        obs.close()
    assert max(n for n, _ in obs.samples) <= 4  # replicas + maxSurge
    assert min(r for _, r in obs.samples) >= 3  # maxUnavailable 0
    for pid in old_pids:  # old processes stopped gracefully
        wait_for(lambda: not alive(pid), what="old pid %d to exit" % pid)
    for pod in running_pods(rt):
        assert environ(pids_of(pod)[0])["VERSION"] == "v2"
    # the old pods' logs went with them (10 to 20 s later: kept for a
    # follower's last read); the new pods' are there
    def logs():
        return sorted(f for f in os.listdir(os.path.join(rt.dir, "pods"))
                      if f.startswith("default_web-"))
    wait_for(lambda: not any(p["metadata"]["uid"] in f for f in logs()
                             for p in v1), timeout=30,
             what="the old pods' logs to go")
    assert len(logs()) == 3


def catches_sigterm(pid):
    """The process has a handler for SIGTERM (SigCgt in /proc/PID/status)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


def test_graceful_stop_then_sigkill(rt):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stubborn"},
           "spec": {"terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "c", "image": "x", "command": [EXAMPLE],
                                    "args": ["--port", "0"],
                                    "env": [{"name": "IGNORE_SIGTERM", "value": "1"}]}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201
    p = wait_for(lambda: (lambda x: x if pids_of(x) else None)(
        rt.req("GET", CORE + "/pods/stubborn").json()), what="the pod to run")
    pid = pids_of(p)[0]
    # The service catches SIGTERM once it has started: before that, the
    # signal's default action would end it at once (a slow start, as under
    # the sanitizers).
    wait_for(lambda: catches_sigterm(pid), what="the service to catch SIGTERM")
    t0 = time.monotonic()
    assert rt.req("DELETE", CORE + "/pods/stubborn").status_code == 200
    wait_for(lambda: rt.req("GET", CORE + "/pods/stubborn").status_code == 404,
             timeout=10, what="the pod to go")
    assert not alive(pid)
    assert time.monotonic() - t0 >= 0.9  # it waited for the grace period


def test_restart_and_crash_loop_backoff(rt):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "crashy"},
           "spec": {"containers": [{"name": "c", "image": "x", "command": [EXAMPLE],
                                    "args": ["--port", "0"],
                                    "env": [{"name": "CRASH_AFTER_MS", "value": "50"}]}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201

    def backoff():
        p = rt.req("GET", CORE + "/pods/crashy").json()
        for cs in p.get("status", {}).get("containerStatuses", []):
            w = cs.get("state", {}).get("waiting")
            if w and w.get("reason") == "CrashLoopBackOff":
                return cs
    cs = wait_for(backoff, timeout=10, what="CrashLoopBackOff")
    assert cs["restartCount"] >= 1
    assert cs["lastState"]["terminated"]["exitCode"] == 3
    assert "back-off 10s restarting failed container=c pod=crashy" in cs["state"]["waiting"]["message"]


def test_missing_program_is_reported(rt):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nocmd"},
           "spec": {"containers": [{"name": "c", "image": "web:1"}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201

    def waiting():
        p = rt.req("GET", CORE + "/pods/nocmd").json()
        for cs in p.get("status", {}).get("containerStatuses", []):
            return cs.get("state", {}).get("waiting")
    w = wait_for(waiting, what="a waiting reason")
    assert w["reason"] == "CreateContainerConfigError"


def test_logs_current_previous_tail_follow(rt):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "talky"},
           "spec": {"containers": [{"name": "c", "image": "x", "command": [EXAMPLE],
                                    "args": ["--port", "0"],
                                    "env": [{"name": "CRASH_AFTER_MS", "value": "200"}]}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201
    env = dict(os.environ, DROVER_SERVER=os.path.join(rt.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))

    def logs(*args):
        return subprocess.run([bin_, "logs", *args, "talky"], env=env,
                              capture_output=True, text=True, timeout=10)
    wait_for(lambda: "crashing with exit status 3" in logs("--previous").stdout,
             timeout=10, what="a previous run's log")
    cur = wait_for(lambda: (lambda r: r.stdout if "listening on" in r.stdout
                            else None)(logs()), what="the current log")
    assert cur.startswith("listening on 127.0.0.1:")
    assert logs("--tail", "1").stdout.count("\n") == 1
    r = subprocess.run([bin_, "logs", "nope"], env=env, capture_output=True,
                       text=True, timeout=10)
    assert r.returncode == 1 and 'pods "nope" not found' in r.stderr
    # -f prints what the process writes later (the next crash line)
    p = subprocess.Popen([bin_, "logs", "-f", "talky"], env=env,
                         stdout=subprocess.PIPE, text=True)
    try:
        seen = ""
        end = time.monotonic() + 15
        while "crashing" not in seen and time.monotonic() < end:
            seen += p.stdout.readline()
        assert "crashing with exit status 3" in seen
    finally:
        p.terminate()
        p.wait(timeout=10)
        p.stdout.close()


def test_logs_follow_ends_with_the_last_lines_of_a_deleted_pod(rt):
    """drover logs -f on a pod that is deleted prints what the process
    wrote while it stopped (after the follower's last poll, before the
    pod was gone) and then ends by itself."""
    script = ("trap 'sleep 0.3; echo last words; exit 0' TERM; "
              "echo started; while :; do sleep 0.05; done")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bye"},
           "spec": {"terminationGracePeriodSeconds": 5,
                    "containers": [{"name": "c", "image": "x",
                                    "command": ["/bin/sh", "-c", script]}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201
    env = dict(os.environ, DROVER_SERVER=os.path.join(rt.dir, "drover.sock"))
    bin_ = os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover"))
    wait_for(lambda: "started" in subprocess.run(
        [bin_, "logs", "bye"], env=env, capture_output=True, text=True,
        timeout=10).stdout, what="the first line")
    p = subprocess.Popen([bin_, "logs", "-f", "bye"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline() == "started\n"
        assert rt.req("DELETE", CORE + "/pods/bye").status_code == 200
        out, err = p.communicate(timeout=20)  # it ends by itself
        assert "last words\n" in out, (out, err)
        assert p.returncode == 0 and err == "", err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=10)


def test_a_finished_pod_is_deleted_at_once(rt):
    """A Failed (or Succeeded) pod has nothing left to stop: its DELETE
    removes it at once, as Kubernetes' pod strategy does, whatever its
    grace period."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "done"},
           "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 60,
                    "containers": [{"name": "c", "image": "x", "command": [EXAMPLE],
                                    "args": ["--port", "0"],
                                    "env": [{"name": "CRASH_AFTER_MS", "value": "50"}]}]}}
    assert rt.req("POST", CORE + "/pods", pod).status_code == 201
    wait_for(lambda: rt.req("GET", CORE + "/pods/done").json()["status"].get("phase")
             == "Failed", what="the pod to fail")
    assert rt.req("DELETE", CORE + "/pods/done").status_code == 200
    assert rt.req("GET", CORE + "/pods/done").status_code == 404
