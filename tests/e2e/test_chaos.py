"""test_chaos.py - a short crash campaign (tests/chaos/chaos.py, the code
`make chaos` runs for ten minutes): a few trials of rollouts, scales and
undos of real processes with SIGKILLs of the daemon, the budget observed
throughout, each trial ending complete, with exactly the pods' processes
and every revision; one of them is a traffic trial (requests through a
Service in HTTP mode while the daemon is killed right after rollouts,
every answer 2xx). And the campaign's own checks fail when they must,
and only then: a lower bound raised while a scale-up is still starting
its pods is judged once it is reached (seed 103619 failed on it)."""
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "chaos"))

import chaos  # noqa: E402
from test_runtime import ROOT  # noqa: E402

BUILD = os.path.dirname(os.environ.get("DROVER_BIN", os.path.join(ROOT, "build", "drover")))
# Scenarios chosen to kill during writes, rollouts, scales and undos; the
# long campaign draws new ones each run.
SEED = 100


def test_short_campaign():
    lines = []
    out = chaos.campaign(45, SEED, BUILD, trials=4, actions=3, log=lines.append)
    print("\n".join(lines))
    assert out["trials"] >= 3, lines
    assert out["kills"] >= 8, lines
    assert out["down_samples"] > 0, lines  # observed while the daemon was down
    assert out["traffic_trials"] >= 1 and out["requests"] > 1000, lines
    assert not out["failed"], "\n".join(lines)


@pytest.fixture
def deployed():
    """A Deployment of 2 ready replicas (maxUnavailable 0) and an observer
    holding it to replicas - 0; cleaned up like a trial."""
    with tempfile.TemporaryDirectory(prefix="drover-chaos-") as d:
        dm = chaos.Daemon(os.path.join(BUILD, "drover"), d)
        failures = []
        obs = None
        try:
            dm.start()
            trial = chaos.Trial(1, dm.bin, os.path.join(
                BUILD, "examples", "service", "drover-example-web"), 0, print)
            body = {"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": chaos.NAME},
                    "spec": {"replicas": 2,
                             "selector": {"matchLabels": {"app": chaos.NAME}},
                             "strategy": {"rollingUpdate": {"maxSurge": 1,
                                                            "maxUnavailable": 0}},
                             "template": chaos.template(trial.example, "v1", 1500)}}
            assert dm.req("POST", chaos.APPS + "/deployments", body).status_code == 201
            trial.model_template("web:v1")
            trial.wait_complete(dm, 2)
            obs = chaos.Observer(dm)
            obs.bounds(3, 2)
            yield dm, trial, obs
        finally:
            if obs is not None:
                obs.close()
            chaos.clean_up(dm, failures)
            assert not failures


def test_observer_sees_a_lost_ready_process(deployed):
    dm, trial, obs = deployed
    chaos.poll(lambda: obs.samples >= 3, 10, "the observer's first samples")
    assert not obs.violations
    # restarted by the agent at once, ready 1.5 s later
    os.killpg(chaos.service_pids(dm.dir)[0], signal.SIGKILL)
    chaos.poll(lambda: obs.violations, 10, "the observer to see it")
    assert "ready service processes < replicas - maxUnavailable = 2" in obs.violations[0]
    # and more pods than the bound, read from the API
    obs.bounds(1, None)
    chaos.poll(lambda: any("pods that count > replicas + maxSurge = 1" in v
                           for v in obs.violations), 10, "the observer to see them")


def test_checks_see_a_stray_process_and_a_lost_revision(deployed):
    dm, trial, obs = deployed
    trial.check_processes(dm, 2)
    trial.check_revisions(dm)
    # a revision the Deployment does not have
    trial.revisions[2] = "web:v2"
    with pytest.raises(chaos.Violation, match="revision annotation 1, want 2"):
        trial.check_revisions(dm)
    # a service process no pod reports, writing to a pod log of this node
    log = os.path.join(dm.dir, "pods", "default_stray_0_c.log")
    with open(log, "ab") as f:
        stray = subprocess.Popen([os.path.join(BUILD, "examples", "service",
                                               "drover-example-web"), "--port", "0"],
                                 stdout=f, stderr=f, start_new_session=True)
    try:
        chaos.poll(lambda: stray.pid in chaos.service_pids(dm.dir), 5, "the stray")
        with pytest.raises(chaos.Violation, match="not reported: \\[%d\\]" % stray.pid):
            trial.check_processes(dm, 2, timeout=1)
    finally:
        stray.kill()
        stray.wait()


def test_raised_bound_waits_for_the_scale_up(deployed):
    """After a scale from 2 to 4 that nobody waited for, the next change
    raises the lower bound to 4 while 2 pods are still starting (1.5 s):
    no violation then; the bound holds once 4 are ready."""
    dm, trial, obs = deployed
    assert dm.req("PATCH", chaos.APPS + "/deployments/" + chaos.NAME + "/scale",
                  {"spec": {"replicas": 4}},
                  ct="application/merge-patch+json").status_code == 200
    obs.bounds(5, 4)
    time.sleep(1.0)  # the new pods are not ready yet (start delay 1.5 s)
    assert len(chaos.ready_processes(dm.dir, obs.session)) < 4
    assert not obs.violations, obs.violations
    chaos.poll(lambda: obs.lo == 4, 30, "the raised bound to be in force")
    assert not obs.violations, obs.violations
    os.killpg(chaos.service_pids(dm.dir, with_proxy=False)[0], signal.SIGKILL)
    chaos.poll(lambda: obs.violations, 10, "the observer to see it")
    assert "ready service processes < replicas - maxUnavailable = 4" in obs.violations[0]


def test_raised_bound_never_reached_is_a_violation(deployed):
    dm, trial, obs = deployed
    obs.lo_deadline = 1
    obs.bounds(3, 3)  # 2 replicas: never 3 ready
    chaos.poll(lambda: obs.violations, 10, "the deadline to pass")
    assert "still below replicas - maxUnavailable = 3 1s after" in obs.violations[0]
