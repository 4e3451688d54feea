"""test_security_context.py - pods run with the rights they ask for
(real processes, the daemon running as root): runAsUser, runAsGroup,
supplementalGroups, allowPrivilegeEscalation: false (no_new_privs),
capabilities drop/add and privileged (containerd's sets, every
combination), file capabilities, the open-files limit, as /proc/PID
shows them;
runAsNonRoot refused with the kubelet's message; --default-user; the
log file belongs to the pod's user, mode 0600, and is read through the
API."""
import os
import signal
import stat
import subprocess
import tempfile

import pytest

from test_api import CORE, Daemon, wait_for
from test_runtime import alive, pids_of

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="changing users needs root")

NOBODY = 65534


def sleeper(name, pod_sc=None, sc=None):
    c = {"name": "app", "image": "sleep:1",
         "command": ["/bin/sh", "-c", "echo started; exec sleep 300"]}
    if sc is not None:
        c["securityContext"] = sc
    spec = {"terminationGracePeriodSeconds": 1, "containers": [c]}
    if pod_sc is not None:
        spec["securityContext"] = pod_sc
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": spec}


@pytest.fixture
def daemons():
    """Starts daemons on demand; deletes their pods, checks every process
    is gone, then stops them."""
    made = []

    def start(*extra):
        d = tempfile.TemporaryDirectory()
        dm = Daemon(d.name, extra=["--runtime", "process", *extra])
        made.append((d, dm))
        return dm
    yield start
    for d, dm in made:
        pids = [p for pod in dm.req("GET", CORE + "/pods").json()["items"]
                for p in pids_of(pod)]
        try:
            for p in dm.req("GET", CORE + "/pods").json()["items"]:
                dm.req("DELETE", CORE + "/pods/" + p["metadata"]["name"])
            wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                     timeout=15, what="every pod to go")
            for pid in pids:
                wait_for(lambda: not alive(pid), what="pid %d to exit" % pid)
        finally:
            dm.kill()
            for pid in pids:
                if alive(pid):
                    os.killpg(pid, signal.SIGKILL)
            d.cleanup()


def running_pid(dm, name):
    def get():
        p = dm.req("GET", CORE + "/pods/" + name).json()
        pids = pids_of(p)
        return pids[0] if pids else None
    return wait_for(get, timeout=10, what=name + " to run")


def status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.split()
    return out


def caps(pid, which):
    return int(status(pid)[which][0], 16)


def waiting(dm, name):
    def get():
        p = dm.req("GET", CORE + "/pods/" + name).json()
        for cs in p.get("status", {}).get("containerStatuses", []):
            w = cs.get("state", {}).get("waiting")
            if w and w.get("reason") != "ContainerCreating":
                return w
    return wait_for(get, timeout=10, what=name + " to wait")


def log_path(dm, name):
    p = dm.req("GET", CORE + "/pods/" + name).json()
    m = p["metadata"]
    return os.path.join(dm.dir, "pods", "%s_%s_%s_app.log" % (
        m["namespace"], m["name"], m["uid"]))


def test_user_groups_no_new_privs_and_log_owner(daemons):
    dm = daemons()
    assert dm.req("POST", CORE + "/pods", sleeper(
        "ids", pod_sc={"runAsUser": 1000, "supplementalGroups": [2001, 2002]},
        sc={"runAsUser": NOBODY, "runAsGroup": 3000,
            "allowPrivilegeEscalation": False})).status_code == 201
    pid = running_pid(dm, "ids")
    st = status(pid)
    assert st["Uid"] == [str(NOBODY)] * 4  # the container's overrides the pod's
    assert st["Gid"] == ["3000"] * 4
    assert {"2001", "2002", "3000"} <= set(st["Groups"])
    assert "0" not in st["Groups"]
    assert caps(pid, "CapEff") == 0 and caps(pid, "CapPrm") == 0
    assert st["NoNewPrivs"] == ["1"]
    # the log belongs to the pod's user, 0600, and the API reads it
    path = log_path(dm, "ids")
    s = os.stat(path)
    assert (s.st_uid, s.st_gid) == (NOBODY, 3000)
    assert stat.S_IMODE(s.st_mode) == 0o600
    wait_for(lambda: dm.req("GET", CORE + "/pods/ids/log").text == "started\n",
             what="the log through the API")
    # an exec probe runs with the container's rights too
    pod = sleeper("probed", sc={"runAsUser": NOBODY})
    pod["spec"]["containers"][0]["readinessProbe"] = {
        "exec": {"command": ["sh", "-c", "test $(id -u) = %d" % NOBODY]},
        "periodSeconds": 1}
    assert dm.req("POST", CORE + "/pods", pod).status_code == 201

    def ready():
        p = dm.req("GET", CORE + "/pods/probed").json()
        return any(c["type"] == "Ready" and c["status"] == "True"
                   for c in p.get("status", {}).get("conditions", []))
    wait_for(ready, timeout=10, what="the exec probe as the pod's user")
    # no securityContext: the process keeps the daemon's user, no
    # no_new_privs
    assert dm.req("POST", CORE + "/pods", sleeper("plain")).status_code == 201
    st = status(running_pid(dm, "plain"))
    assert st["Uid"][0] == "0" and st["NoNewPrivs"] == ["0"]


def test_run_as_non_root_is_refused_with_the_kubelets_message(daemons):
    dm = daemons()
    assert dm.req("POST", CORE + "/pods", sleeper(
        "nr", pod_sc={"runAsNonRoot": True})).status_code == 201
    w = waiting(dm, "nr")
    uid = dm.req("GET", CORE + "/pods/nr").json()["metadata"]["uid"]
    assert w["reason"] == "CreateContainerConfigError"
    assert w["message"] == ('container has runAsNonRoot and image will run as '
                            'root (pod: "nr_default(%s)", container: app)' % uid)
    assert dm.req("POST", CORE + "/pods", sleeper(
        "nr0", sc={"runAsNonRoot": True, "runAsUser": 0})).status_code == 201
    w = waiting(dm, "nr0")
    uid = dm.req("GET", CORE + "/pods/nr0").json()["metadata"]["uid"]
    assert w["message"] == ("container's runAsUser breaks non-root policy "
                            '(pod: "nr0_default(%s)", container: app)' % uid)
    # with a user, it runs
    assert dm.req("POST", CORE + "/pods", sleeper(
        "nr1", pod_sc={"runAsNonRoot": True, "runAsUser": NOBODY})).status_code == 201
    assert status(running_pid(dm, "nr1"))["Uid"][0] == str(NOBODY)


NET_BIND_SERVICE = 1 << 10
NET_RAW = 1 << 13
# containerd's default list: CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL,
# SETGID, SETUID, SETPCAP, NET_BIND_SERVICE, NET_RAW, SYS_CHROOT, MKNOD,
# AUDIT_WRITE, SETFCAP
DEFAULT_CAPS = sum(1 << n for n in (0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 27,
                                    29, 31))


def all_caps():
    with open("/proc/sys/kernel/cap_last_cap") as f:
        return (1 << (int(f.read()) + 1)) - 1


def expected_bounding(add, drop, privileged):
    """containerd's WithCapabilities over its default list: add ALL, drop
    ALL, then each add, then each drop (drop wins)."""
    if privileged:
        return all_caps()
    s = DEFAULT_CAPS
    if "ALL" in add:
        s = all_caps()
    if "ALL" in drop:
        s = 0
    for c in add:
        if c != "ALL":
            s |= 1 << CAP_NUMBERS[c]
    for c in drop:
        if c != "ALL":
            s &= ~(1 << CAP_NUMBERS[c])
    return s


CAP_NUMBERS = {"NET_BIND_SERVICE": 10, "NET_RAW": 13}


def test_capabilities_every_combination(daemons):
    """Every combination of user, add, drop and allowPrivilegeEscalation,
    and privileged: the process holds the bounding set containerd gives,
    the permitted and effective sets only as root, never an inheritable
    or ambient capability, and no_new_privs exactly when escalation is
    refused."""
    dm = daemons()
    daemon_bounding = caps(os.getpid(), "CapBnd")
    cases = []
    for uid in (0, NOBODY):
        for add in ([], ["NET_BIND_SERVICE"], ["ALL"]):
            for drop in ([], ["NET_RAW"], ["ALL"]):
                for ape in (None, False):
                    cases.append((uid, add, drop, ape, False))
        cases.append((uid, [], [], None, True))
    for i, (uid, add, drop, ape, priv) in enumerate(cases):
        sc = {"runAsUser": uid}
        if add or drop:
            sc["capabilities"] = {}
            if add:
                sc["capabilities"]["add"] = add
            if drop:
                sc["capabilities"]["drop"] = drop
        if ape is not None:
            sc["allowPrivilegeEscalation"] = ape
        if priv:
            sc["privileged"] = True
        assert dm.req("POST", CORE + "/pods",
                      sleeper("c%d" % i, sc=sc)).status_code == 201
    for i, (uid, add, drop, ape, priv) in enumerate(cases):
        pid = running_pid(dm, "c%d" % i)
        st = status(pid)
        want = expected_bounding(add, drop, priv) & daemon_bounding
        got = {k: int(st[k][0], 16) for k in
               ("CapBnd", "CapPrm", "CapEff", "CapInh", "CapAmb")}
        what = "user %d add %s drop %s allowPrivilegeEscalation %s " \
            "privileged %s: %s" % (uid, add, drop, ape, priv, got)
        assert st["Uid"] == [str(uid)] * 4, what
        assert got["CapBnd"] == want, what
        assert got["CapPrm"] == (want if uid == 0 else 0), what
        assert got["CapEff"] == (want if uid == 0 else 0), what
        assert got["CapInh"] == 0 and got["CapAmb"] == 0, what
        assert st["NoNewPrivs"] == (["1"] if ape is False else ["0"]), what


def test_a_plain_pod_gets_the_default_set(daemons):
    """A pod that asks for nothing from a root daemon holds containerd's
    default list, not the daemon's capabilities."""
    dm = daemons()
    assert dm.req("POST", CORE + "/pods", sleeper("plain")).status_code == 201
    pid = running_pid(dm, "plain")
    want = DEFAULT_CAPS & caps(os.getpid(), "CapBnd")
    assert caps(pid, "CapEff") == want and caps(pid, "CapBnd") == want
    assert caps(pid, "CapAmb") == 0 and caps(pid, "CapInh") == 0
    # the token, the CA key and the store are out of its reach as nobody
    assert dm.req("POST", CORE + "/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "reader"},
        "spec": {"terminationGracePeriodSeconds": 1, "containers": [{
            "name": "app", "image": "sh", "securityContext": {
                "runAsUser": NOBODY,
                "capabilities": {"add": ["NET_BIND_SERVICE"]}},
            "command": ["/bin/sh", "-c",
                        "cat %s/state.db >/dev/null 2>&1 && echo read "
                        "|| echo refused; exec sleep 300" % dm.dir]}]}
    }).status_code == 201
    running_pid(dm, "reader")
    wait_for(lambda: dm.req("GET", CORE + "/pods/reader/log").text ==
             "refused\n", what="the read of state.db to be refused")


def test_file_capabilities_and_no_new_privs(daemons):
    """A user other than root holds a capability only through a file that
    carries it (setcap), within the bounding set, and not with
    allowPrivilegeEscalation: false."""
    d = tempfile.TemporaryDirectory(dir="/tmp")  # nobody can reach it
    os.chmod(d.name, 0o755)
    prog = os.path.join(d.name, "sleep")
    with open("/bin/sleep", "rb") as src, open(prog, "wb") as dst:
        dst.write(src.read())
    os.chmod(prog, 0o755)
    subprocess.run(["setcap", "cap_net_bind_service+ep", prog], check=True)
    dm = daemons()
    for name, ape in (("filecap", None), ("filecap-nnp", False)):
        sc = {"runAsUser": NOBODY, "capabilities": {
            "drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}}
        if ape is not None:
            sc["allowPrivilegeEscalation"] = ape
        pod = sleeper(name, sc=sc)
        pod["spec"]["containers"][0]["command"] = [prog, "300"]
        assert dm.req("POST", CORE + "/pods", pod).status_code == 201
    pid = running_pid(dm, "filecap")
    assert caps(pid, "CapEff") == NET_BIND_SERVICE
    assert caps(pid, "CapBnd") == NET_BIND_SERVICE
    pid = running_pid(dm, "filecap-nnp")
    assert caps(pid, "CapEff") == 0 and caps(pid, "CapPrm") == 0
    d.cleanup()


def test_open_files_limit_is_the_daemons_initial_one(daemons):
    """The daemon raises its own soft open-files limit; its pods start
    with the limits it was started with."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= hard:
        soft = min(1024, hard)
    old = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        dm = daemons()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, old)
    for name, sc in (("as-root", None), ("as-nobody", {"runAsUser": NOBODY})):
        assert dm.req("POST", CORE + "/pods",
                      sleeper(name, sc=sc)).status_code == 201
        pid = running_pid(dm, name)
        with open("/proc/%d/limits" % pid) as f:
            line = [x for x in f if x.startswith("Max open files")][0]
        assert line.split()[3:5] == [str(soft), str(hard)], line
    with open("/proc/%d/limits" % dm.proc.pid) as f:
        line = [x for x in f if x.startswith("Max open files")][0]
    assert line.split()[3] == str(hard), line


def test_default_user(daemons):
    dm = daemons("--default-user", "nobody")
    assert dm.req("POST", CORE + "/pods", sleeper("d")).status_code == 201
    assert dm.req("POST", CORE + "/pods", sleeper(
        "r", sc={"runAsUser": 0})).status_code == 201
    assert dm.req("POST", CORE + "/pods", sleeper(
        "nr", pod_sc={"runAsNonRoot": True})).status_code == 201
    st = status(running_pid(dm, "d"))
    assert st["Uid"] == [str(NOBODY)] * 4
    assert caps(running_pid(dm, "d"), "CapEff") == 0
    assert caps(running_pid(dm, "d"), "CapAmb") == 0
    s = os.stat(log_path(dm, "d"))
    assert s.st_uid == NOBODY and stat.S_IMODE(s.st_mode) == 0o600
    # a pod that names a user runs as that user
    assert status(running_pid(dm, "r"))["Uid"][0] == "0"
    # runAsNonRoot is satisfied by the default user
    assert status(running_pid(dm, "nr"))["Uid"][0] == str(NOBODY)


def test_default_user_must_exist():
    from test_api import BIN
    r = subprocess.run([BIN, "serve", "--default-user", "no-such-user-here"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 2
    assert 'error: --default-user: "no-such-user-here": no such user' in r.stderr
