"""test_full_disk.py - a full disk is an error, not an exit.

`drover serve --runtime none` keeps its data directory on a 2 MiB tmpfs
(mounted here; the tests run as root and fail if the mount does). A
filler file takes the free space: writes then answer a 5xx Status in
Kubernetes' InternalError shape while the daemon keeps answering reads;
no HTTP watcher sees a write that was refused; once the filler is gone,
writes succeed again without a restart; and after a SIGKILL every write
that was answered 2xx is there and none that was refused. A daemon
started on a full disk comes up read-only (503 on writes, reads served)
and takes writes again once there is room."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import DROVER_BIN, Drover, UnixHTTPConnection, poll

PODS = "/api/v1/namespaces/default/pods"


class Serve(Drover):
    """A drover serve whose log is kept off the small disk."""

    def __init__(self, data_dir, log_path):
        self.dir = data_dir
        self.sock = os.path.join(data_dir, "drover.sock")
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [DROVER_BIN, "serve", "--data-dir", data_dir, "--runtime", "none"],
            stdout=self.log, stderr=self.log)
        poll(self._answers, what="drover serve to answer on " + self.sock)

    def _answers(self):
        assert self.proc.poll() is None, "drover serve exited early"
        try:
            return self.api("GET", "/version")[0] == 200
        except OSError:
            return False

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.log.close()

    def logged(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")


@pytest.fixture
def small_disk():
    """A 2 MiB tmpfs (unmounted at the end) and a directory for logs."""
    with tempfile.TemporaryDirectory() as mnt, \
            tempfile.TemporaryDirectory() as logs:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs",
                            mnt], capture_output=True, text=True)
        assert r.returncode == 0, "mount tmpfs: " + r.stderr
        try:
            yield os.path.join(mnt, "data"), os.path.join(mnt, "filler"), logs
        finally:
            subprocess.run(["umount", "-l", mnt], check=True)


def fill(path):
    """Writes path until the disk is full."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as e:
        assert e.errno == 28, e  # ENOSPC
    finally:
        os.close(fd)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "fd"}},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "command": ["sleep", "60"],
                                     "env": [{"name": "PAD",
                                              "value": "x" * 2000}]}]}}


def names(d):
    return {p["metadata"]["name"] for p in d.pods()}


def assert_internal_error(st, body):
    assert st == 500, (st, body)
    assert body["kind"] == "Status" and body["apiVersion"] == "v1", body
    assert body["status"] == "Failure" and body["code"] == 500, body
    assert body["reason"] == "InternalError", body
    assert body["message"].startswith("Internal error occurred: "), body
    cause = body["details"]["causes"][0]["message"]
    assert cause and cause in body["message"], body


class Watcher(threading.Thread):
    """An HTTP watch on pods from rv, collecting (type, name) until the
    server ends it (timeoutSeconds)."""

    def __init__(self, sock, rv, seconds):
        super().__init__(daemon=True)
        self.c = UnixHTTPConnection(sock, timeout=seconds + 10)
        self.c.request("GET", "%s?watch=true&resourceVersion=%s"
                       "&timeoutSeconds=%d" % (PODS, rv, seconds))
        self.r = self.c.getresponse()
        assert self.r.status == 200
        self.events = []
        self.start()

    def run(self):
        for line in self.r:
            ev = json.loads(line)
            self.events.append((ev["type"], ev["object"]["metadata"]["name"]))
        self.c.close()


def delete_all(d):
    for n in names(d):
        d.api("DELETE", "%s/%s" % (PODS, n), {"gracePeriodSeconds": 0})
    poll(lambda: not names(d), timeout=20, what="the pods to go")


def test_full_disk_writes_fail_reads_work_nothing_accepted_is_lost(small_disk):
    data, filler, logs = small_disk
    d = Serve(data, os.path.join(logs, "serve.log"))
    accepted, refused = [], []
    try:
        for i in range(3):
            st, body = d.api("POST", PODS, pod("before-%d" % i))
            assert st == 201, body
            accepted.append("before-%d" % i)
        rv = d.get(PODS)["metadata"]["resourceVersion"]
        w = Watcher(d.sock, rv, 8)
        fill(filler)
        # Write until the store cannot commit: a 5xx Status, not an exit.
        # (The WAL may have room to reuse after a checkpoint; the pods
        # themselves fill the 2 MB well before 2,000.)
        for i in range(2000):
            name = "full-%d" % i
            st, body = d.api("POST", PODS, pod(name))
            if st == 201:
                accepted.append(name)
                continue
            assert_internal_error(st, body)
            refused.append(name)
            break
        assert refused, "no write failed on a full disk"
        # It stays up, answers reads, and keeps refusing while it is full.
        for i in range(3):
            assert d.proc.poll() is None
            assert d.api("GET", "/version")[0] == 200
            assert names(d) == set(accepted)
            st, body = d.api("GET", "%s/%s" % (PODS, refused[0]))
            assert st == 404, body
            name = "again-%d" % i
            st, body = d.api("POST", PODS, pod(name))
            assert st >= 500, (st, body)
            refused.append(name)
        # A delete and a patch fail the same way, and change nothing.
        st, body = d.api("DELETE", "%s/%s" % (PODS, accepted[0]))
        assert_internal_error(st, body)
        st, body = d.api("PATCH", "%s/%s" % (PODS, accepted[1]),
                         {"metadata": {"labels": {"x": "y"}}},
                         ct="application/merge-patch+json")
        assert_internal_error(st, body)
        assert names(d) == set(accepted)
        assert "x" not in d.get("%s/%s" % (PODS, accepted[1]))[
            "metadata"]["labels"]
        assert "cannot commit" in d.logged()
        # Room again: writes succeed, without a restart.
        os.unlink(filler)
        for i in range(3):
            st, body = d.api("POST", PODS, pod("after-%d" % i))
            assert st == 201, body
            accepted.append("after-%d" % i)
        st, body = d.api("DELETE", "%s/%s" % (PODS, accepted[0]),
                         {"gracePeriodSeconds": 0})
        assert st == 200, body
        poll(lambda: accepted[0] not in names(d), what="the delete")
        gone = accepted.pop(0)
        # The HTTP watcher saw every accepted write and no refused one.
        w.join(timeout=20)
        added = {n for t, n in w.events if t == "ADDED"}
        assert added == set(accepted) - {"before-0", "before-1", "before-2"}, \
            w.events
        assert not set(refused) & {n for _, n in w.events}, w.events
        # Full again, SIGKILL, and a start on the full disk: reads work.
        fill(filler)
        d.kill()
        d = Serve(data, os.path.join(logs, "serve2.log"))
        assert names(d) == set(accepted)
        st, body = d.api("POST", PODS, pod("restart-full"))
        assert st >= 500, (st, body)
        refused.append("restart-full")
        os.unlink(filler)
        st = poll(lambda: d.api("POST", PODS, pod("restart-room"))[0] == 201,
                  timeout=15, what="writes after room on the restarted daemon")
        accepted.append("restart-room")
        # Every write answered 2xx is on disk, and none answered 5xx.
        d.kill()
        d = Serve(data, os.path.join(logs, "serve3.log"))
        assert names(d) == set(accepted)
        assert gone not in names(d)
        delete_all(d)
    finally:
        if d.proc.poll() is None:
            if os.path.exists(filler):
                os.unlink(filler)
            d.stop()


def test_start_on_a_full_disk_is_read_only(small_disk):
    data, filler, logs = small_disk
    d = Serve(data, os.path.join(logs, "serve.log"))
    try:
        for i in range(3):
            st, body = d.api("POST", PODS, pod("ro-%d" % i))
            assert st == 201, body
        d.stop()  # a clean stop: the WAL is checkpointed and removed
        fill(filler)
        d = Serve(data, os.path.join(logs, "serve2.log"))
        assert "READ-ONLY" in d.logged()
        # The operator can look ...
        assert names(d) == {"ro-0", "ro-1", "ro-2"}
        assert d.get("%s/ro-1" % PODS)["metadata"]["name"] == "ro-1"
        # ... and is told clearly why writes fail.
        for method, path, body in (("POST", PODS, pod("ro-new")),
                                   ("DELETE", PODS + "/ro-0", None)):
            st, b = d.api(method, path, body)
            assert st == 503, (st, b)
            assert b["reason"] == "ServiceUnavailable", b
            assert "read-only" in b["message"], b
        # Room again: it takes writes (it retries every 2 s).
        os.unlink(filler)
        poll(lambda: d.api("POST", PODS, pod("ro-new"))[0] == 201,
             timeout=15, what="writes once there is room")
        assert "writable again" in d.logged()
        assert names(d) == {"ro-0", "ro-1", "ro-2", "ro-new"}
        delete_all(d)
    finally:
        if d.proc.poll() is None:
            if os.path.exists(filler):
                os.unlink(filler)
            d.stop()
