"""test_data_dir.py - the data directory is private and locked.

The directory drover creates is 0700, and state.db, its -wal and -shm
files and the lock are 0600 even under umask 000. A second `drover
serve` on the same data directory refuses at once (exit 1, a message
naming the first one's pid) and touches nothing of the first: its socket
still answers, and is the same file. Once the first is gone (even by
SIGKILL) the directory can be used again.

The API socket is claimed the same way (a lock on PATH.lock): a daemon
on another data directory given a socket another drover serve holds, or
one that answers, exits 1 and leaves it alone; a socket left behind with
no one serving it is taken; at exit a daemon unlinks only the socket it
made, not a file put in its place."""
import os
import signal
import socket
import stat
import subprocess
import tempfile

from conftest import DROVER_BIN, Drover, poll

PODS = "/api/v1/namespaces/default/pods"


class Serve(Drover):
    """A drover serve started under umask 000, its log outside DIR."""

    def __init__(self, data_dir, log_path, extra=(), sock=None):
        self.dir = data_dir
        self.sock = sock or os.path.join(data_dir, "drover.sock")
        if sock:
            extra = ["--socket", sock] + list(extra)
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [DROVER_BIN, "serve", "--data-dir", data_dir, "--runtime",
             "none"] + list(extra),
            stdout=self.log, stderr=self.log, preexec_fn=lambda: os.umask(0))
        poll(self._up, what="drover serve to listen on " + self.sock)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "command": ["sleep", "60"]}]}}


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def delete_pods(d):
    for p in d.pods():
        d.api("DELETE", "%s/%s" % (PODS, p["metadata"]["name"]),
              {"gracePeriodSeconds": 0})
    poll(lambda: not d.pods(), what="the pods to go")


def test_files_are_private_under_any_umask():
    with tempfile.TemporaryDirectory() as top:
        data = os.path.join(top, "a", "data")
        d = Serve(data, os.path.join(top, "serve.log"))
        try:
            st, body = d.api("POST", PODS, pod("p"))
            assert st == 201, body
            assert mode(data) == 0o700
            assert mode(os.path.join(top, "a")) == 0o700
            for f in ("state.db", "state.db-wal", "state.db-shm", "lock"):
                assert mode(os.path.join(data, f)) == 0o600, f
            delete_pods(d)
        finally:
            d.stop()


def test_a_second_daemon_refuses_and_touches_nothing():
    with tempfile.TemporaryDirectory() as top:
        data = os.path.join(top, "data")
        first = Serve(data, os.path.join(top, "serve.log"))
        try:
            st, body = first.api("POST", PODS, pod("p"))
            assert st == 201, body
            sock_ino = os.stat(first.sock).st_ino
            for extra in ([], ["--socket", os.path.join(top, "other.sock")]):
                r = subprocess.run(
                    [DROVER_BIN, "serve", "--data-dir", data, "--runtime",
                     "none"] + extra,
                    capture_output=True, text=True, timeout=10)
                assert r.returncode == 1, r
                assert ("drover serve: data directory %s is in use by "
                        "another drover serve (pid %d)"
                        % (data, first.proc.pid)) in r.stderr, r.stderr
                assert not os.path.exists(os.path.join(top, "other.sock"))
            # The first one's socket is the same file, and answers.
            assert os.stat(first.sock).st_ino == sock_ino
            assert [p["metadata"]["name"] for p in first.pods()] == ["p"]
            assert first.proc.poll() is None
            # A SIGKILL frees the directory: the next one starts.
            first.proc.send_signal(signal.SIGKILL)
            first.proc.wait(timeout=10)
            first.log.close()
            first = Serve(data, os.path.join(top, "serve2.log"))
            assert [p["metadata"]["name"] for p in first.pods()] == ["p"]
            delete_pods(first)
        finally:
            first.stop()


def serve_exit(data, sock):
    """Runs a drover serve that should refuse at once: (status, stderr).
    One that starts instead is killed by PID after 10 s."""
    p = subprocess.Popen(
        [DROVER_BIN, "serve", "--data-dir", data, "--runtime", "none",
         "--socket", sock], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.terminate()
        _, err = p.communicate(timeout=10)
        return None, err
    return p.returncode, err


def answers(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def test_a_socket_in_use_is_refused_and_left_alone():
    with tempfile.TemporaryDirectory() as top:
        sock = os.path.join(top, "api.sock")
        first = Serve(os.path.join(top, "a"), os.path.join(top, "a.log"),
                      sock=sock)
        try:
            st, body = first.api("POST", PODS, pod("p"))
            assert st == 201, body
            ino = os.stat(sock).st_ino
            # Another data directory, the first one's socket.
            rc, err = serve_exit(os.path.join(top, "b"), sock)
            assert rc == 1, err
            assert ("drover serve: socket %s is in use by another drover "
                    "serve (pid %d)" % (sock, first.proc.pid)) in err, err
            assert os.stat(sock).st_ino == ino and answers(sock)
            assert [p["metadata"]["name"] for p in first.pods()] == ["p"]

            # A socket another program serves (no lock) answers: refused.
            other = os.path.join(top, "other.sock")
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            srv.bind(other)
            srv.listen(4)
            try:
                other_ino = os.stat(other).st_ino
                rc, err = serve_exit(os.path.join(top, "c"), other)
                assert rc == 1, err
                assert ("drover serve: socket %s answers: another server "
                        "listens on it" % other) in err, err
                assert os.stat(other).st_ino == other_ino
            finally:
                srv.close()
            # A file that is not a socket is not removed either.
            plain = os.path.join(top, "plain")
            open(plain, "w").write("keep")
            rc, err = serve_exit(os.path.join(top, "d"), plain)
            assert rc == 1 and "is there and is not a socket" in err, err
            assert open(plain).read() == "keep"
            delete_pods(first)
        finally:
            first.stop()
        # Stopped, it unlinked its own socket.
        assert not os.path.exists(sock)


def test_a_stale_socket_is_taken_and_only_ones_own_unlinked():
    with tempfile.TemporaryDirectory() as top:
        sock = os.path.join(top, "api.sock")
        # A socket whose server is gone: nothing answers, no lock held.
        dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        dead.bind(sock)
        dead.close()
        assert os.path.exists(sock) and not answers(sock)
        d = Serve(os.path.join(top, "a"), os.path.join(top, "a.log"),
                  sock=sock)
        try:
            assert answers(sock)
            assert d.pods() == []
            # Something else put in its place stays when the daemon stops.
            os.unlink(sock)
            open(sock, "w").write("someone else's")
        finally:
            d.stop()
        assert open(sock).read() == "someone else's"
