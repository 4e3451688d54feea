"""test_cli.py - the client verbs of the drover command (apply, get,
describe, delete, scale, set image, rollout) against a live `drover
serve`, checking kubectl's output, messages and exit codes."""
import json
import os
import re
import select
import signal
import time

import pytest
import yaml

from conftest import poll

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


def manifest(name="web", replicas=2, image="nginx:1", labels=None,
             extra_spec=None, env=None):
    c = {"name": "app", "image": image, "command": ["sleep", "1000"]}
    if env:
        c["env"] = env
    d = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": name, "labels": labels or {"app": name}},
         "spec": {"replicas": replicas,
                  "selector": {"matchLabels": {"app": name}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"containers": [c]}}}}
    d["spec"].update(extra_spec or {})
    return d


def write(tmp_path, name, *docs):
    p = tmp_path / name
    p.write_text("---\n".join(yaml.safe_dump(d) for d in docs))
    return str(p)


def apply(drover, tmp_path, *docs, name="m.yaml"):
    return drover.run("apply", "-f", write(tmp_path, name, *docs))


def deploy(drover, name):
    return drover.get(APPS + "/deployments/" + name)


def rs_of(drover, name):
    items = drover.get(APPS + "/replicasets")["items"]
    return [r for r in items if r["metadata"]["name"].startswith(name + "-")]


def rows(out):
    """A table's lines split into cells (columns are 3+ spaces apart)."""
    return [re.split(r"\s{2,}", l.strip()) for l in out.strip().splitlines()]


def rolled_out(drover, name):
    d = deploy(drover, name)
    st, spec = d.get("status", {}), d["spec"]
    return (st.get("observedGeneration") == d["metadata"]["generation"] and
            st.get("updatedReplicas") == spec["replicas"] and
            st.get("availableReplicas") == spec["replicas"] and
            st.get("replicas") == spec["replicas"])


def roll(drover, name):
    """Marks pods ready until the deployment has rolled out."""
    def step():
        drover.ready_all(name + "-")
        return rolled_out(drover, name)
    poll(step, timeout=20, what=name + " to roll out")


# ---- apply ----

def test_apply_create_configure_unchanged(drover, tmp_path):
    r = apply(drover, tmp_path, manifest())
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "deployment.apps/web created\n", "")
    d = deploy(drover, "web")
    la = d["metadata"]["annotations"][
        "kubectl.kubernetes.io/last-applied-configuration"]
    assert json.loads(la) == manifest()

    r = apply(drover, tmp_path, manifest())
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web unchanged\n")

    # a change made by someone else is kept when the manifest does not
    # name the field
    st, _ = drover.api("PATCH", APPS + "/deployments/web",
                       {"spec": {"paused": True}},
                       "application/merge-patch+json")
    assert st == 200
    r = apply(drover, tmp_path, manifest(replicas=3))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web configured\n")
    d = deploy(drover, "web")
    assert d["spec"]["replicas"] == 3 and d["spec"]["paused"] is True
    assert d["spec"]["template"]["spec"]["containers"][0][
        "imagePullPolicy"] == "IfNotPresent"


def test_apply_removes_fields_dropped_from_manifest(drover, tmp_path):
    full = manifest(labels={"app": "web", "tier": "fe"},
                    extra_spec={"minReadySeconds": 2},
                    env=[{"name": "A", "value": "1"},
                         {"name": "B", "value": "2"}])
    assert apply(drover, tmp_path, full).returncode == 0
    d = deploy(drover, "web")
    assert d["metadata"]["labels"] == {"app": "web", "tier": "fe"}
    assert d["spec"]["minReadySeconds"] == 2

    less = manifest(env=[{"name": "A", "value": "1"}])
    r = apply(drover, tmp_path, less)
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web configured\n")
    d = deploy(drover, "web")
    assert d["metadata"]["labels"] == {"app": "web"}
    assert d["spec"].get("minReadySeconds", 0) == 0
    assert d["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "A", "value": "1"}]
    assert apply(drover, tmp_path, less).stdout == \
        "deployment.apps/web unchanged\n"


def test_apply_invalid_manifest_refused_field_by_field(drover, tmp_path):
    bad = manifest(name="bad", replicas=-1,
                   extra_spec={"minReadySeconds": -3})
    bad["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
    good = manifest(name="good")
    r = apply(drover, tmp_path, good, bad)
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0] == 'The Deployment "bad" is invalid:'
    assert "* spec.replicas: Invalid value: -1: must be greater than or " \
           "equal to 0" in lines
    assert any(l.startswith("* spec.minReadySeconds: Invalid value: -3")
               for l in lines)
    assert any(l.startswith("* spec.template.metadata.labels: Invalid value")
               for l in lines)
    # nothing was sent, not even the valid document
    st, _ = drover.api("GET", APPS + "/deployments/good")
    assert st == 404


def test_apply_server_side_invalid_printed_field_by_field(drover, tmp_path):
    assert apply(drover, tmp_path, manifest()).returncode == 0
    # switching to Recreate while the server-defaulted rollingUpdate is
    # live works, as with kubectl: the patch carries "$retainKeys"
    # (DeploymentSpec.strategy's patchStrategy) and the server drops
    # rollingUpdate
    r = apply(drover, tmp_path,
              manifest(extra_spec={"strategy": {"type": "Recreate"}}))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web configured\n")
    assert deploy(drover, "web")["spec"]["strategy"] == {"type": "Recreate"}
    # a change only the server can refuse: the selector is immutable
    m = manifest(extra_spec={"strategy": {"type": "Recreate"}})
    m["spec"]["selector"]["matchLabels"]["tier"] = "x"
    m["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    r = apply(drover, tmp_path, m)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == 'The Deployment "web" is invalid:'
    assert lines[1].startswith("* spec.selector: Invalid value: ")
    assert lines[1].endswith(": field is immutable")


def test_apply_directory_list_and_stdin(drover, tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    (d / "a.yaml").write_text(yaml.safe_dump(manifest(name="a")))
    (d / "b.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List",
         "items": [manifest(name="b"), manifest(name="c")]}))
    (d / "notes.txt").write_text("not a manifest")
    r = drover.run("apply", "-f", str(d))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/a created\n"
                                           "deployment.apps/b created\n"
                                           "deployment.apps/c created\n")
    r = drover.run("apply", "-f", "-", input=yaml.safe_dump(manifest("a")))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/a unchanged\n")


# ---- get ----

def test_get_tables_and_formats(drover, tmp_path):
    r = drover.run("get", "deployments")
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "", "No resources found in default namespace.\n")
    assert apply(drover, tmp_path, manifest(name="web", replicas=2),
                 manifest(name="api", replicas=1)).returncode == 0
    poll(lambda: len(drover.pods()) == 3, what="3 pods")

    r = drover.run("get", "deploy")
    assert r.returncode == 0
    t = rows(r.stdout)
    assert t[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert [x[0] for x in t[1:]] == ["api", "web"]
    web = t[2]
    assert web[1] == "0/2" and re.fullmatch(r"\d+s", web[4])
    # columns are aligned: every header starts where its cells start
    lines = r.stdout.splitlines()
    assert lines[0].index("READY") == lines[1].index("0/1")

    r = drover.run("get", "deployments", "-o", "wide")
    t = rows(r.stdout)
    assert t[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE",
                    "CONTAINERS", "IMAGES", "SELECTOR"]
    assert t[2][5:] == ["app", "nginx:1", "app=web"]

    r = drover.run("get", "rs")
    t = rows(r.stdout)
    assert t[0] == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert len(t) == 3

    r = drover.run("get", "po", "-l", "app=web", "-o", "wide")
    t = rows(r.stdout)
    assert t[0][:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP",
                        "NODE"]
    assert len(t) == 3 and all(x[0].startswith("web-") for x in t[1:])
    assert all(x[1:4] == ["0/1", "Pending", "0"] for x in t[1:])
    pod = t[1][0]
    drover.mark_ready(drover.get(CORE + "/pods/" + pod))
    t = rows(drover.run("get", "pod", pod).stdout)
    assert t[1][:4] == [pod, "1/1", "Running", "0"]

    r = drover.run("get", "deploy", "web", "-o", "json")
    obj = json.loads(r.stdout)
    assert obj["kind"] == "Deployment" and obj["metadata"]["name"] == "web"
    r = drover.run("get", "deploy", "-o", "json")
    lst = json.loads(r.stdout)
    assert lst["kind"] == "List" and lst["apiVersion"] == "v1"
    assert [i["metadata"]["name"] for i in lst["items"]] == ["api", "web"]
    r = drover.run("get", "deploy", "-o", "yaml")
    lst = yaml.safe_load(r.stdout)
    assert lst["kind"] == "List" and len(lst["items"]) == 2
    r = drover.run("get", "deploy/web", "-o", "yaml")
    assert yaml.safe_load(r.stdout)["spec"]["replicas"] == 2
    r = drover.run("get", "deploy", "-o", "name")
    assert r.stdout == "deployment.apps/api\ndeployment.apps/web\n"

    r = drover.run("get", "deploy", "-l", "app=nothing")
    assert r.stdout == "" and "No resources found" in r.stderr

    r = drover.run("get", "deploy", "nope")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", 'Error from server (NotFound): deployments.apps "nope" not '
               'found\n')
    r = drover.run("get", "po", "nope")
    assert r.stderr == 'Error from server (NotFound): pods "nope" not found\n'

    r = drover.run("get", "widgets")
    assert r.returncode == 1
    r = drover.run("get")
    assert r.returncode == 2 and "usage" in r.stderr
    r = drover.run("get", "deploy", "-o", "toml")
    assert r.returncode == 2


class Lines:
    """Reads a process's stdout line by line, with a timeout per line
    (unbuffered, so select() sees every byte)."""

    def __init__(self, p):
        self.fd, self.buf = p.stdout.fileno(), b""

    def __call__(self, timeout=10):
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return ""
            chunk = os.read(self.fd, 4096)
            if not chunk:
                return ""
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode() + "\n"


def test_get_knows_every_kind_of_the_registry(drover):
    # Nodes come from the same kind registry as the API: cluster-scoped,
    # so the namespace flag does not change the path.
    poll(lambda: drover.run("get", "nodes", "-o", "name").stdout.strip(),
         what="the agent's node")
    names = drover.run("get", "no", "-n", "other", "-o", "name").stdout.split()
    assert len(names) == 1 and names[0].startswith("node/"), names
    # Kubernetes' Node columns (src/core/apis/core/core_columns_net.c)
    r = drover.run("get", "nodes")
    assert r.returncode == 0 and rows(r.stdout)[0] == [
        "NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert rows(r.stdout)[1][1:3] == ["Ready", "<none>"]
    r = drover.run("get", "nodes", "-o", "wide")
    assert r.returncode == 0 and rows(r.stdout)[0] == [
        "NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP",
        "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    assert rows(r.stdout)[1][5] == "127.0.0.1"
    assert drover.run("get", "deployments.apps").returncode == 0
    r = drover.run("get", "nothings")
    assert r.returncode != 0 and "nothings" in r.stderr


def test_get_watch_streams_rows(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=1)).returncode == 0
    p = drover.popen("get", "deploy", "web", "-w")
    readline = Lines(p)
    try:
        header = readline()
        first = readline()
        assert header.split()[:2] == ["NAME", "READY"]
        assert first.split()[:2] == ["web", "0/1"]
        assert drover.run("scale", "deploy/web", "--replicas=3").returncode == 0
        end = time.monotonic() + 10
        seen = []
        while time.monotonic() < end:
            line = readline(0.2)
            seen.append(line)
            if line.split()[:2] == ["web", "0/3"]:
                break
        assert seen[-1].split()[:2] == ["web", "0/3"], seen
        assert header.index("READY") == first.index("0/1")
    finally:
        os.kill(p.pid, signal.SIGTERM)
        p.wait(timeout=10)
        p.stdout.close()
        p.stderr.close()
    assert p.poll() is not None


# ---- describe ----

def test_describe_deployment(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=2)).returncode == 0
    poll(lambda: len(drover.pods("web-")) == 2, what="2 pods")
    poll(lambda: deploy(drover, "web").get("status", {}).get("replicas") == 2,
         what="status")
    r = drover.run("describe", "deployment", "web")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert re.search(r"^Name:\s+web$", out, re.M)
    assert re.search(r"^Namespace:\s+default$", out, re.M)
    assert re.search(r"^CreationTimestamp:\s+\w{3}, \d\d \w{3} \d{4}", out,
                     re.M)
    assert re.search(r"^Labels:\s+app=web$", out, re.M)
    assert re.search(r"^Selector:\s+app=web$", out, re.M)
    assert re.search(r"^Replicas:\s+2 desired \| 2 updated \| 2 total \| "
                     r"0 available \| 2 unavailable$", out, re.M)
    assert re.search(r"^StrategyType:\s+RollingUpdate$", out, re.M)
    assert re.search(r"^MinReadySeconds:\s+0$", out, re.M)
    assert re.search(r"^RollingUpdateStrategy:\s+25% max unavailable, "
                     r"25% max surge$", out, re.M)
    assert re.search(r"^    Image:\s+nginx:1$", out, re.M)
    assert "    Command:\n      sleep\n      1000\n" in out
    assert re.search(r"^  Progressing\s+True\s+ReplicaSetUpdated$", out, re.M)
    assert re.search(r"^OldReplicaSets:\s+<none>$", out, re.M)
    assert re.search(r"^NewReplicaSet:\s+web-\w+ \(2/2 replicas created\)$",
                     out, re.M)
    # the last-applied annotation is not shown, as kubectl hides it
    assert "last-applied-configuration" not in out
    rs = rs_of(drover, "web")[0]["metadata"]["name"]
    out = drover.run("describe", "rs/" + rs).stdout
    assert re.search(r"^Controlled By:\s+Deployment/web$", out, re.M)
    assert re.search(r"^Pods Status:\s+0 Running / 2 Waiting", out, re.M)
    out = drover.run("describe", "pods").stdout
    assert out.count("Name:") == 2
    r = drover.run("describe", "deploy", "nope")
    assert r.returncode == 1 and "NotFound" in r.stderr


# ---- scale and set image ----

def test_scale(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=1)).returncode == 0
    r = drover.run("scale", "--replicas=4", "deploy/web")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web scaled\n")
    assert deploy(drover, "web")["spec"]["replicas"] == 4
    poll(lambda: len(drover.pods("web-")) == 4, what="4 pods")
    r = drover.run("scale", "deployment", "web", "--replicas", "2")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web scaled\n")
    r = drover.run("scale", "deploy/nope", "--replicas=1")
    assert r.returncode == 1 and "NotFound" in r.stderr
    r = drover.run("scale", "deploy/web")
    assert r.returncode == 2


def test_set_image_creates_new_replicaset(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=2)).returncode == 0
    poll(lambda: len(rs_of(drover, "web")) == 1, what="first rs")
    r = drover.run("set", "image", "deploy/web", "app=nginx:2")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web image updated\n")
    d = deploy(drover, "web")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"
    assert d["spec"]["template"]["spec"]["containers"][0]["command"] == \
        ["sleep", "1000"]
    poll(lambda: len(rs_of(drover, "web")) == 2, what="a new replicaset")
    images = {r["spec"]["template"]["spec"]["containers"][0]["image"]
              for r in rs_of(drover, "web")}
    assert images == {"nginx:1", "nginx:2"}
    r = drover.run("set", "image", "deploy/web", "nope=x:1")
    assert (r.returncode, r.stderr) == (
        1, 'error: unable to find container named "nope"\n')
    r = drover.run("set", "image", "deploy/web")
    assert r.returncode == 2


def test_set_env_sets_and_removes_variables(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=1)).returncode == 0
    poll(lambda: len(rs_of(drover, "web")) == 1, what="first rs")

    def env():
        c = deploy(drover, "web")["spec"]["template"]["spec"]["containers"][0]
        return {e["name"]: e.get("value") for e in c.get("env", [])}
    r = drover.run("set", "env", "deploy/web", "VERSION=v2", "MODE=fast")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web env updated\n")
    assert env() == {"VERSION": "v2", "MODE": "fast"}
    poll(lambda: len(rs_of(drover, "web")) == 2, what="a new replicaset")
    r = drover.run("set", "env", "deploy/web", "MODE-", "VERSION=v3", "-c", "app")
    assert r.returncode == 0, r.stderr
    assert env() == {"VERSION": "v3"}
    r = drover.run("set", "env", "deploy/web", "X=1", "-c", "nope")
    assert (r.returncode, r.stderr) == (
        1, 'error: unable to find container named "nope"\n')
    r = drover.run("set", "env", "deploy/web", "=1")
    assert r.returncode == 2 and "expected NAME=VALUE or NAME-" in r.stderr
    r = drover.run("set", "env", "deploy/web", "--dry-run=server", "X=1")
    assert r.stdout == "deployment.apps/web env updated (server dry run)\n"
    assert env() == {"VERSION": "v3"}


# ---- rollout ----

def two_image_changes(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=2)).returncode == 0
    for img in ("nginx:2", "nginx:3"):
        poll(lambda: rolled_out(drover, "web") or drover.ready_all("web-")
             or rolled_out(drover, "web"), what="rollout")
        assert drover.run("set", "image", "deploy/web",
                          "app=" + img).returncode == 0
    poll(lambda: len(rs_of(drover, "web")) == 3, what="3 replicasets")
    roll(drover, "web")


def test_rollout_history(drover, tmp_path):
    assert apply(drover, tmp_path, manifest()).returncode == 0
    two_image_changes(drover, tmp_path)
    r = drover.run("rollout", "history", "deploy/web")
    assert r.returncode == 0
    assert r.stdout == ("deployment.apps/web\n"
                        "REVISION  CHANGE-CAUSE\n"
                        "1         <none>\n"
                        "2         <none>\n"
                        "3         <none>\n\n")
    r = drover.run("rollout", "history", "deployment", "web", "--revision=2")
    assert r.returncode == 0
    assert r.stdout.startswith("deployment.apps/web with revision #2\n"
                               "Pod Template:\n")
    assert re.search(r"^    Image:\s+nginx:2$", r.stdout, re.M)
    r = drover.run("rollout", "history", "deploy/web", "--revision=9")
    assert (r.returncode, r.stderr) == (
        1, "error: unable to find the specified revision\n")


def test_rollout_history_none(drover, tmp_path):
    # a deployment scaled to zero from the start still gets revision 1;
    # an unknown one is NotFound
    r = drover.run("rollout", "history", "deploy/nope")
    assert r.returncode == 1
    assert r.stderr == 'Error from server (NotFound): deployments.apps ' \
                       '"nope" not found\n'


def test_rollout_undo(drover, tmp_path):
    two_image_changes(drover, tmp_path)
    r = drover.run("rollout", "undo", "deploy/web")
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "deployment.apps/web rolled back\n", "")
    d = deploy(drover, "web")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"
    assert "pod-template-hash" not in d["spec"]["template"]["metadata"]["labels"]
    roll(drover, "web")
    # revision 2 became 4; 1 is still there
    r = drover.run("rollout", "undo", "deploy/web", "--to-revision=1")
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "deployment.apps/web rolled back\n", "")
    d = deploy(drover, "web")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1"
    roll(drover, "web")
    r = drover.run("rollout", "history", "deploy/web")
    assert [l.split()[0] for l in r.stdout.splitlines()[2:] if l] == \
        ["3", "4", "5"]
    r = drover.run("rollout", "undo", "deploy/web", "--to-revision=5")
    assert (r.returncode, r.stdout) == (
        0, "deployment.apps/web skipped rollback (current template already "
           "matches revision 5)\n")
    r = drover.run("rollout", "undo", "deploy/web", "--to-revision=42")
    assert (r.returncode, r.stderr) == (
        1, "error: unable to find specified revision 42 in history\n")


def test_rollout_undo_without_history(drover, tmp_path):
    assert apply(drover, tmp_path, manifest()).returncode == 0
    poll(lambda: rs_of(drover, "web"), what="rs")
    r = drover.run("rollout", "undo", "deploy/web")
    assert (r.returncode, r.stderr) == (
        1, 'error: no rollout history found for deployment "web"\n')


def test_pause_resume_restart(drover, tmp_path):
    assert apply(drover, tmp_path, manifest()).returncode == 0
    r = drover.run("rollout", "pause", "deploy/web")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web paused\n")
    assert deploy(drover, "web")["spec"]["paused"] is True
    r = drover.run("rollout", "pause", "deploy/web")
    assert (r.returncode, r.stderr) == (
        1, 'error: deployments.apps "web" is already paused\n')
    r = drover.run("rollout", "restart", "deploy/web")
    assert (r.returncode, r.stderr) == (
        1, "error: can't restart paused deployment (run rollout resume "
           "first)\n")
    r = drover.run("rollout", "undo", "deploy/web")
    assert r.returncode == 1
    r = drover.run("rollout", "resume", "deploy/web")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web resumed\n")
    assert not deploy(drover, "web")["spec"].get("paused")
    r = drover.run("rollout", "resume", "deploy/web")
    assert (r.returncode, r.stderr) == (
        1, 'error: deployments.apps "web" is not paused\n')
    poll(lambda: len(rs_of(drover, "web")) == 1, what="rs")
    r = drover.run("rollout", "restart", "deploy/web")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web restarted\n")
    ann = deploy(drover, "web")["spec"]["template"]["metadata"]["annotations"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)",
                        ann["kubectl.kubernetes.io/restartedAt"])
    poll(lambda: len(rs_of(drover, "web")) == 2, what="restart's new rs")


def test_rollout_status_no_watch(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=2)).returncode == 0
    poll(lambda: rs_of(drover, "web"), what="rs")
    poll(lambda: deploy(drover, "web").get("status", {}).get(
        "updatedReplicas") == 2, what="status")
    r = drover.run("rollout", "status", "deploy/web", "--watch=false")
    assert (r.returncode, r.stdout) == (
        0, 'Waiting for deployment "web" rollout to finish: 0 of 2 updated '
           'replicas are available...\n')
    roll(drover, "web")
    r = drover.run("rollout", "status", "deploy/web", "--watch=false")
    assert (r.returncode, r.stdout) == (
        0, 'deployment "web" successfully rolled out\n')
    r = drover.run("rollout", "status", "deploy/nope")
    assert r.returncode == 1 and "NotFound" in r.stderr


def test_rollout_status_watches_until_rolled_out(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=3)).returncode == 0
    roll(drover, "web")
    assert drover.run("set", "image", "deploy/web",
                      "app=nginx:2").returncode == 0
    p = drover.popen("rollout", "status", "deployment/web", "--timeout=30s")
    try:
        def step():
            drover.ready_all("web-")
            return p.poll() is not None
        poll(step, timeout=25, what="rollout status to exit", interval=0.05)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGTERM)
            p.communicate(timeout=10)
    assert p.returncode == 0, err
    lines = out.splitlines()
    assert lines[-1] == 'deployment "web" successfully rolled out'
    assert len(lines) >= 2
    assert all(l.startswith('Waiting for deployment "web" rollout to '
                            'finish: ') or
               l == "Waiting for deployment spec update to be observed..."
               for l in lines[:-1]), lines


def test_rollout_status_timeout_and_deadline(drover, tmp_path):
    assert apply(drover, tmp_path, manifest(replicas=1)).returncode == 0
    t0 = time.monotonic()
    r = drover.run("rollout", "status", "deploy/web", "--timeout=1s")
    assert time.monotonic() - t0 < 5
    assert r.returncode == 1
    assert r.stderr.endswith("error: timed out waiting for the condition\n")
    assert "Waiting for deployment" in r.stdout

    assert apply(drover, tmp_path,
                 manifest(name="slow", replicas=1,
                          extra_spec={"progressDeadlineSeconds": 1}),
                 name="slow.yaml").returncode == 0
    r = drover.run("rollout", "status", "deploy/slow", "--timeout=20s")
    assert r.returncode == 1
    assert r.stderr == \
        'error: deployment "slow" exceeded its progress deadline\n'


# ---- delete ----

def owned_by(rs, uid):
    return any(o.get("uid") == uid
               for o in rs["metadata"].get("ownerReferences", []))


@pytest.mark.parametrize("cascade", ["background", "foreground", "orphan"])
def test_delete_cascade(drover, tmp_path, cascade):
    assert apply(drover, tmp_path, manifest(replicas=2)).returncode == 0
    poll(lambda: len(drover.pods("web-")) == 2, what="pods")
    uid = deploy(drover, "web")["metadata"]["uid"]
    r = drover.run("delete", "deployment", "web", "--cascade=" + cascade)
    assert (r.returncode, r.stdout) == (0, 'deployment.apps "web" deleted\n')
    st, _ = drover.api("GET", APPS + "/deployments/web")
    assert st == 404
    if cascade == "orphan":
        time.sleep(0.3)
        rs = rs_of(drover, "web")
        assert len(rs) == 1 and not owned_by(rs[0], uid)
        assert len(drover.pods("web-")) == 2
    else:
        poll(lambda: not rs_of(drover, "web") and not drover.pods("web-"),
             what="dependents to go")


def test_delete_names_files_and_errors(drover, tmp_path):
    f = write(tmp_path, "two.yaml", manifest(name="a"), manifest(name="b"))
    assert drover.run("apply", "-f", f).returncode == 0
    r = drover.run("delete", "-f", f)
    assert (r.returncode, r.stdout) == (0, 'deployment.apps "a" deleted\n'
                                           'deployment.apps "b" deleted\n')
    r = drover.run("delete", "deploy", "a")
    assert (r.returncode, r.stderr) == (
        1, 'Error from server (NotFound): deployments.apps "a" not found\n')
    assert drover.run("delete", "deploy", "a",
                      "--ignore-not-found").returncode == 0
    assert drover.run("delete", "deploy/a",
                      "--cascade=sideways").returncode == 2
    assert drover.run("delete").returncode == 2


# ---- global flags ----

def test_global_flags_and_usage(drover, tmp_path):
    assert apply(drover, tmp_path, manifest()).returncode == 0
    env_less = ["--server", drover.sock]
    r = drover.run("get", "deploy", *env_less, "-n", "default", "-o", "name")
    assert r.stdout == "deployment.apps/web\n"
    r = drover.run("get", "deploy", "-n", "other")
    assert r.stderr == "No resources found in other namespace.\n"
    r = drover.run("get", "deploy", "-A")
    assert rows(r.stdout)[0][:2] == ["NAMESPACE", "NAME"]
    r = drover.run("get", "deploy", "--server=/nonexistent/sock")
    assert r.returncode == 1
    assert r.stderr.startswith("Unable to connect to the server:")
    r = drover.run("rollout", "sideways", "deploy/web")
    assert r.returncode == 2 and "usage" in r.stderr
    r = drover.run("rollout", "status", "rs/web")
    assert r.returncode == 1
