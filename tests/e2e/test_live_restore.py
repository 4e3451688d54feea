"""test_live_restore.py - killing `drover serve` with SIGKILL kills no
service: on restart the agent re-adopts every process (pidfd and start
time), never starts a duplicate, restarts what died meanwhile by its
policy, and a rollout in flight completes."""
import os
import signal
import subprocess
import tempfile

import pytest

from test_api import APPS, CORE, Daemon, wait_for
from test_probes import complete, deployment, put_template
from test_runtime import (EXAMPLE, alive, all_pids, delete_deployments,
                          kill_and_check_left, pids_of, service_pids)


def example_pids(dm):
    """The service processes the daemon dm started (service_pids)."""
    return service_pids(dm.dir)


@pytest.fixture
def box():
    with tempfile.TemporaryDirectory() as d:
        # A host port range of its own: while the daemon is down a port
        # of a dead service is free, and the other test files' daemons
        # (parallel, default range) must not take it before the restart.
        dm = Daemon(d, extra=["--runtime", "process",
                              "--host-port-range", "21000-21099"])
        before = set(example_pids(dm))
        dm.before = before
        try:
            yield dm
        finally:
            # The API part may fail when the test failed with the daemon
            # down: the processes are stopped by PID all the same.
            try:
                delete_deployments(dm, timeout=20)
            finally:
                kill_and_check_left(dm)


def test_sigkill_restart_readopts_and_rollout_completes(box):
    assert box.req("POST", APPS + "/deployments",
                   deployment("v1", replicas=3)).status_code == 201
    wait_for(lambda: complete(box, "v1", 3), timeout=30, what="v1")
    pids = sorted(all_pids(box))
    assert len(pids) == 3
    box.kill(signal.SIGKILL)
    assert all(alive(p) for p in pids)  # the services outlived the daemon
    # one service dies while the daemon is down
    victim = pids[0]
    os.killpg(victim, signal.SIGKILL)
    wait_for(lambda: not alive(victim), what="the victim to die")
    box.start()
    # the other two are re-adopted (same pids), the dead one restarted
    def settled():
        now = sorted(all_pids(box))
        return now if len(now) == 3 and victim not in now else None
    now = wait_for(settled, timeout=20, what="adoption and restart")
    assert set(pids[1:]) <= set(now)
    assert sorted(set(example_pids(box)) - box.before) == now  # no duplicate
    restarted = [p for p in box.req("GET", CORE + "/pods").json()["items"]
                 if p["status"]["containerStatuses"][0]["restartCount"] >= 1]
    assert len(restarted) == 1
    # its end was not seen: reported as the kubelet reports a container
    # it cannot find
    last = restarted[0]["status"]["containerStatuses"][0]["lastState"]["terminated"]
    assert (last["reason"], last["exitCode"]) == ("ContainerStatusUnknown", 137)
    assert "could not be located when the agent restarted" in last["message"]
    # an adopted process that dies is not the agent's child either
    adopted = pids[1]
    os.killpg(adopted, signal.SIGKILL)

    def restarted_again():
        for p in box.req("GET", CORE + "/pods").json()["items"]:
            cs = p["status"]["containerStatuses"][0]
            if (adopted not in pids_of(p) and cs["restartCount"] == 1 and
                    "running" in cs["state"] and
                    "while adopted" in cs["lastState"].get("terminated", {}).get("message", "")):
                return cs
    cs = wait_for(restarted_again, timeout=20, what="the adopted process's restart")
    assert cs["lastState"]["terminated"]["reason"] == "ContainerStatusUnknown"
    assert len(all_pids(box)) == 3
    # a rollout, with another SIGKILL in the middle of it
    put_template(box, deployment("v2", replicas=3, env={"START_DELAY_MS": "400"}))
    wait_for(lambda: any(p["spec"]["containers"][0]["image"] == "web:v2"
                         for p in box.req("GET", CORE + "/pods").json()["items"]),
             timeout=20, what="the first v2 pod")
    box.kill(signal.SIGKILL)
    box.start()
    wait_for(lambda: complete(box, "v2", 3), timeout=40, what="v2 after restart")
    final = sorted(all_pids(box))
    assert len(final) == 3
    # no duplicates: once the old pods are gone, the processes of this
    # test are exactly the pods' processes
    mine = lambda: sorted(set(example_pids(box)) - box.before)
    wait_for(lambda: mine() == final, timeout=20,
             what="exactly the pods' processes")


def test_processes_of_pods_deleted_while_down_are_stopped(box):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gone"},
           "spec": {"containers": [{"name": "c", "image": "x", "command": [EXAMPLE],
                                    "args": ["--port", "0"]}]}}
    assert box.req("POST", CORE + "/pods", pod).status_code == 201
    p = wait_for(lambda: (lambda x: x if pids_of(x) else None)(
        box.req("GET", CORE + "/pods/gone").json()), what="the pod to run")
    pid = pids_of(p)[0]
    box.kill(signal.SIGKILL)
    # While no process runtime looks after this node, the pod object is
    # deleted (an agent without a runtime finishes the deletion at once).
    box.extra = ["--runtime", "none"]
    box.start()
    box.req("DELETE", CORE + "/pods/gone")
    wait_for(lambda: box.req("GET", CORE + "/pods/gone").status_code == 404,
             what="the object to go")
    assert alive(pid)
    box.kill()
    box.extra = ["--runtime", "process"]
    box.start()  # the agent finds in its journal a pod that is gone
    wait_for(lambda: not alive(pid), timeout=10, what="the orphan to be stopped")


def test_process_started_without_a_journal_line_is_stopped(box):
    """A start cut short by a crash between the exec and the journal line:
    the service process exists, writes to a pod log of this node, and no
    pod or journal knows it. The next agent finds it by its log and
    stops it, so that a container never runs twice."""
    os.makedirs(os.path.join(box.dir, "pods"), exist_ok=True)
    log = os.path.join(box.dir, "pods",
                       "default_lost_00000000-0000-0000-0000-000000000001_c.log")
    with open(log, "ab") as out:
        stray = subprocess.Popen([EXAMPLE, "--port", "0"], stdout=out, stderr=out,
                                 start_new_session=True)
    try:
        wait_for(lambda: "listening on" in open(log).read(), what="the stray to start")
        box.kill()
        box.start()
        wait_for(lambda: stray.poll() is not None, timeout=10,
                 what="the stray process to be stopped")
        assert stray.returncode == -signal.SIGKILL
    finally:
        if stray.poll() is None:
            stray.kill()
            stray.wait()
