"""test_describe_pod.py - `drover describe pod` says what each container
is doing, as kubectl describes it: State (Running with its start,
Waiting with its reason), Last State (Terminated with reason, exit code,
start and finish) once it has restarted, Ready and Restart Count. Real
processes; every pod is deleted and every process gone at the end."""
import os
import re
import subprocess
import tempfile

from test_api import CORE, Daemon, wait_for
from test_host_ports import cleanup

BIN = os.environ.get("DROVER_BIN", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), "build", "drover"))


def describe(dm, name):
    r = subprocess.run([BIN, "describe", "pod", name], capture_output=True,
                       text=True, env=dm.env(), timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def pod(name, script):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 1, "containers": [{
                "name": "app", "image": "sh:1",
                "command": ["/bin/sh", "-c", script]}]}}


def restarts(dm, name):
    p = dm.req("GET", CORE + "/pods/" + name).json()
    for cs in p.get("status", {}).get("containerStatuses", []):
        if cs.get("restartCount", 0) >= 1 and "running" in cs.get("state", {}):
            return cs
    return None


def test_describe_pod_shows_container_state():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d, extra=["--runtime", "process"])
        try:
            # exits 3 on its first run, then stays up
            flag = os.path.join(d, "ran-once")
            assert dm.req("POST", CORE + "/pods", pod(
                "crashed", "if [ -e %s ]; then exec sleep 300; fi; "
                "touch %s; exit 3" % (flag, flag))).status_code == 201
            assert dm.req("POST", CORE + "/pods", pod(
                "bad", "exec sleep 300")).status_code == 201
            wait_for(lambda: restarts(dm, "crashed"), timeout=30,
                     what="a restart after exit 3")
            out = describe(dm, "crashed")
            block = out[out.index("   app:"):]
            assert re.search(r"^    State:\s+Running\n      Started:\s+\w{3}, "
                             r"\d\d \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$",
                             block, re.M), out
            assert re.search(r"^    Last State:\s+Terminated\n"
                             r"      Reason:\s+Error\n"
                             r"      Exit Code:\s+3\n"
                             r"      Started:\s+\w{3}, .*\n"
                             r"      Finished:\s+\w{3}, .*$", block, re.M), out
            assert re.search(r"^    Ready:\s+True$", block, re.M), out
            assert re.search(r"^    Restart Count:\s+1$", block, re.M), out
            # a container that cannot start waits, with the reason
            dm.req("DELETE", CORE + "/pods/bad")
            wait_for(lambda: dm.req("GET", CORE + "/pods/bad").status_code
                     == 404, timeout=15, what="bad to go")
            bad = pod("bad", "exec sleep 300")
            bad["spec"]["containers"][0]["command"] = ["/no/such/program"]
            assert dm.req("POST", CORE + "/pods", bad).status_code == 201

            def waiting():
                out = describe(dm, "bad")
                return out if re.search(r"^    State:\s+Waiting\n"
                                        r"      Reason:\s+\w+", out,
                                        re.M) else None
            out = wait_for(waiting, timeout=15, what="a waiting reason")
            assert re.search(r"^    Ready:\s+False$", out, re.M), out
        finally:
            cleanup(dm)
