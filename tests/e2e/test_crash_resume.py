"""test_crash_resume.py - a change the API accepted is always rolled out,
even when `drover serve` is killed with SIGKILL right after it answered:
the controllers and the agent start from a full list of what they own
and sync every object once, so a stored change whose controller writes
were lost in the crash is picked up by the next daemon."""
import random
import signal
import time

from test_api import APPS, CORE, wait_for
from test_live_restore import box, example_pids  # noqa: F401
from test_probes import complete, deployment, put_template
from test_runtime import all_pids

TRIALS = 40


def web(version):
    """Two replicas of the example service, ready once running (no probe:
    these trials are about the controllers, not readiness)."""
    d = deployment(version, replicas=2)
    del d["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    return d


def generation_observed(box):
    d = box.req("GET", APPS + "/deployments/web").json()
    return d["status"].get("observedGeneration") == d["metadata"]["generation"]


def test_sigkill_right_after_a_write_still_rolls_out(box):
    rng = random.Random(8)
    version = None
    for i in range(TRIALS):
        new = "t%d" % i
        if i % 5 == 0:
            if version is not None:
                assert box.req("DELETE", APPS + "/deployments/web").status_code == 200
                wait_for(lambda: not box.req("GET", CORE + "/pods").json()["items"],
                         timeout=20, what="the old pods to go (trial %d)" % i)
            r = box.req("POST", APPS + "/deployments", web(new))
            assert r.status_code == 201, r.text
        else:
            put_template(box, web(new))
        # The daemon dies 0-50 ms after it accepted the change, before
        # or while its controllers act on it.
        time.sleep(rng.uniform(0, 0.05))
        box.kill(signal.SIGKILL)
        box.start()
        version = new
        wait_for(lambda: complete(box, version, 2) and generation_observed(box),
                 timeout=30, what="the rollout of trial %d (%s)" % (i, version))
    # no service process is left over or duplicated: once the old pods are
    # gone the example processes of this test are exactly the pods'
    wait_for(lambda: sorted(set(example_pids(box)) - box.before) == sorted(all_pids(box)),
             timeout=20, what="exactly the pods' processes")
