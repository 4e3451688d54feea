"""test_restore_state.py - a restart of `drover serve` keeps what the
status said of a running container's last run: a container that exited 3
and was restarted still shows lastState.terminated exitCode 3 (and its
restartCount) once the restarted agent has re-adopted its process and
written the pod's status again (here: when the pod turns Ready, which the
test sets off after the restart). Both a SIGTERM and a SIGKILL of the
daemon; the pod is deleted and no process is left."""
import os
import signal
import tempfile

import pytest

from test_api import CORE, Daemon, wait_for
from test_runtime import kill_and_check_left, pids_of


def flaky_pod(d):
    """Exits 3 on its first run; then runs, Ready once d/ready exists."""
    script = ('if [ ! -e %s/ran ]; then touch %s/ran; exit 3; fi; '
              'exec sleep 600' % (d, d))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"terminationGracePeriodSeconds": 1,
                     "containers": [{
                         "name": "c", "image": "/bin/sh",
                         "command": ["/bin/sh", "-c", script],
                         "readinessProbe": {
                             "exec": {"command": ["test", "-e",
                                                  d + "/ready"]},
                             "periodSeconds": 1}}]}}


def status(dm):
    return dm.req("GET", CORE + "/pods/p").json()["status"]


def ready(st):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in st.get("conditions", []))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL],
                         ids=["sigterm", "sigkill"])
def test_last_state_survives_a_daemon_restart(sig):
    with tempfile.TemporaryDirectory() as d:
        work = os.path.join(d, "work")
        os.mkdir(work)
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            assert dm.req("POST", CORE + "/pods",
                          flaky_pod(work)).status_code == 201

            def restarted():
                st = status(dm)
                cs = st.get("containerStatuses", [{}])[0]
                return (cs.get("restartCount") == 1 and
                        "running" in cs.get("state", {}) and
                        cs.get("lastState", {}).get("terminated") and st)
            st = wait_for(restarted, timeout=30, what="the restart")
            cs = st["containerStatuses"][0]
            assert cs["lastState"]["terminated"]["exitCode"] == 3, cs
            before = cs["lastState"]["terminated"]
            pid = pids_of({"status": st})[0]

            dm.kill(sig)
            dm.start()
            open(os.path.join(work, "ready"), "w").close()
            st = wait_for(lambda: ready(status(dm)) and status(dm),
                          timeout=30, what="Ready after the restart")
            cs = st["containerStatuses"][0]
            assert pids_of({"status": st}) == [pid]  # re-adopted
            assert cs["restartCount"] == 1, cs
            last = cs.get("lastState", {}).get("terminated")
            assert last, cs
            for k in ("exitCode", "reason", "startedAt", "finishedAt"):
                assert last.get(k) == before.get(k), (k, last, before)
            assert dm.req("DELETE", CORE + "/pods/p").status_code == 200
            wait_for(lambda: dm.req("GET", CORE + "/pods/p").status_code == 404,
                     timeout=20, what="the pod to go")
        finally:
            kill_and_check_left(dm)
