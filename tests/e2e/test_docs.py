"""test_docs.py - the documentation runs: every shell block of README.md
and docs/*.md marked runnable is run against a real `drover serve`, so
that the docs cannot drift from the binary; and every relative link of
those pages points at a file (and a heading) that exists.

The marker is an HTML comment on the line right before the fence (GitHub
does not render it):

    <!-- runnable -->
    ```sh
    drover get pods
    ```

A ```sh block is a script: bash runs it with `set -euo pipefail` and it
must exit 0. A ```console block is a session: each `$ ` line is a
command (continued on the next line after a trailing `\\` or `|`), the
lines up to the next `$ ` are its output (stdout and stderr), which must
match; a line `...` stands for any number of lines. Its exit status is
not checked: the output says what happened.

Each page runs on a daemon of its own (`drover serve --listen
127.0.0.1:0`, the process runtime), its blocks in order, each in a bash
of its own, from a directory that looks like the top of the source tree
(`examples`, `tests`, ... and `build`, the directory of DROVER_BIN).
The commands find the daemon as a reader's do: `drover` through PATH and
the default data directory, which is $HOME/.local/share/drover for a
user who is not root; HOME is a temporary directory and DROVER_DATA_DIR
names the same place (the default for root is /var/lib/drover). `kubectl`
on PATH is the newest of the cloud SDK's. After a page every workload is
deleted and its processes waited for before the daemon stops, and the
test fails if any process was left behind."""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from kubectl_bins import newest_cloud_sdk_kubectl
from test_api import BIN, ROOT, Daemon, wait_for
from test_runtime import EXAMPLE, kill_and_check_left
from test_services import proxy_pid

MARK = "<!-- runnable -->"
VERBOSE = os.environ.get("DROVER_DOCS_VERBOSE") == "1"  # print what each block printed
BLOCK_TIMEOUT = 120  # seconds; a block that takes longer has hung


def pages():
    """README.md and docs/*.md, as paths relative to ROOT."""
    docs = os.path.join(ROOT, "docs")
    out = ["README.md"]
    if os.path.isdir(docs):
        out += sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))
    return out


def fences(path):
    """[(line, info, text, marked)] of every fenced block of a page; line
    is the 1-based line of its opening fence."""
    lines = open(os.path.join(ROOT, path)).read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)(```+)(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        marked = i > 0 and lines[i - 1].strip() == MARK
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r"^ *" + fence + r"\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        out.append((i + 1, info, "\n".join(body) + "\n", marked))
        i = j + 1
    return out


def prose(path):
    """[(line, text)] of the page's lines outside fenced blocks."""
    inside = set()
    for n, _, text, _ in fences(path):
        inside.update(range(n, n + text.count("\n") + 2))
    lines = open(os.path.join(ROOT, path)).read().split("\n")
    return [(n, l) for n, l in enumerate(lines, 1) if n not in inside]


def runnable(path):
    """The runnable blocks of a page; a marker that does not stand right
    before a ```sh or ```console fence is an error (one inside a fence is
    an example of the convention)."""
    marks = [n for n, l in prose(path) if l.strip() == MARK]
    blocks = [(n, info, text) for n, info, text, marked in fences(path) if marked]
    starts = {n - 1 for n, _, _ in blocks}
    for m in marks:
        assert m in starts, "%s:%d: %s is not right before a fence" % (path, m, MARK)
    for n, info, _ in blocks:
        assert info in ("sh", "console"), \
            "%s:%d: a runnable block must be ```sh or ```console, not ```%s" % (path, n, info)
    return blocks


def session(text):
    """A console block as [(command, [expected output lines])]."""
    out = []
    more = False    # the command goes on on the next line
    heredoc = None  # the word that ends a here-document being read
    for line in text.rstrip("\n").split("\n"):
        if heredoc is not None:
            out[-1][0].append(line)
            if line == heredoc:
                heredoc = None
            continue
        if more or line.startswith("$ "):
            if more:
                out[-1][0].append(line)
            else:
                line = line[2:]
                out.append(([line], []))
            more = line.endswith("\\") or line.endswith("|")
            m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
            heredoc = m.group(1) if m else None
            continue
        assert out, "console block: output before the first $ command"
        out[-1][1].append(line.rstrip())
    return [("\n".join(c), want) for c, want in out]


def matches(want, got):
    """got (lines) matches want, where a line "..." stands for any
    number of lines."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


PAGES = [p for p in pages() if runnable(p)]
KUBECTL = newest_cloud_sdk_kubectl()


class Reader:
    """What a reader has: a shell in the source tree with drover (and
    kubectl) on PATH, and a daemon on the default data directory."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.home = os.path.join(tmp, "home")
        self.data = os.path.join(self.home, ".local", "share", "drover")
        os.makedirs(self.data)
        self.work = os.path.join(tmp, "src")
        os.makedirs(self.work)
        for e in os.listdir(ROOT):
            if e not in ("build", ".git") and not e.startswith("build-"):
                os.symlink(os.path.join(ROOT, e), os.path.join(self.work, e))
        os.symlink(os.path.dirname(os.path.abspath(BIN)), os.path.join(self.work, "build"))
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        os.symlink(os.path.abspath(BIN), os.path.join(self.bin, "drover"))
        if KUBECTL:
            os.symlink(KUBECTL, os.path.join(self.bin, "kubectl"))
        self.env = dict(os.environ, HOME=self.home, DROVER_DATA_DIR=self.data,
                        PATH=self.bin + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
        for k in ("DROVER_SERVER", "DROVER_TOKEN", "KUBECONFIG"):
            self.env.pop(k, None)

    def bash(self, args, script):
        """Runs bash in a session of its own; returns (status, output).
        Whatever the block left running in its session is killed, by
        PID, and is an error."""
        p = subprocess.Popen(["bash"] + args, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             cwd=self.work, env=self.env, text=True,
                             start_new_session=True)
        try:
            out = p.communicate(script, timeout=BLOCK_TIMEOUT)[0]
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out = p.communicate()[0]
            return -1, out + "\n(timed out after %d s)" % BLOCK_TIMEOUT
        left = in_session(p.pid)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if left:
            return -1, out + "\n(the block left processes running: %s)" % left
        return p.returncode, out


def in_session(sid):
    """Processes of session sid (bash's own session, see Reader.bash)."""
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open("/proc/%s/stat" % e) as f:
                    st = f.read().rsplit(")", 1)[1].split()
                if int(st[3]) == sid and st[0] != "Z":
                    out.append(int(e))
            except (OSError, IndexError, ValueError):
                continue
    return out


def clean_up(dm):
    """Deletes every workload in every namespace, waits for the pods, the
    service processes and the proxy to go, then stops the daemon and fails
    if a process was left behind."""
    try:
        for path in ("/api/v1/services", "/apis/apps/v1/deployments",
                     "/api/v1/replicationcontrollers", "/apis/apps/v1/replicasets",
                     "/api/v1/pods"):
            for x in dm.req("GET", path).json().get("items", []):
                m = x["metadata"]
                if m.get("deletionTimestamp"):
                    continue
                base, res = path.rsplit("/", 1)
                dm.req("DELETE", "%s/namespaces/%s/%s/%s" % (base, m["namespace"], res, m["name"]))
        wait_for(lambda: not dm.req("GET", "/api/v1/pods").json()["items"],
                 timeout=60, what="every pod to go")
        wait_for(lambda: proxy_pid(dm) is None, timeout=10, what="the proxy to exit")
    finally:
        kill_and_check_left(dm)


@pytest.mark.parametrize("page", PAGES)
def test_runnable_blocks(page):
    """Runs the page's runnable blocks in order against a fresh daemon."""
    if not os.path.exists(EXAMPLE):
        pytest.fail("example service not built: " + EXAMPLE)
    blocks = runnable(page)
    if any(re.search(r"\bkubectl\b", t) for _, _, t in blocks) and not KUBECTL:
        pytest.skip("no kubectl binary (kubectl_bins.py)")
    tmp = tempfile.mkdtemp(prefix="drover-docs-")
    try:
        reader = Reader(tmp)
        dm = Daemon(reader.data, extra=["--runtime", "process"])
        try:
            for line, info, text in blocks:
                where = "%s:%d" % (page, line)
                if info == "sh":
                    t0 = time.monotonic()
                    st, out = reader.bash(["-euo", "pipefail", "-s"], text)
                    if VERBOSE:
                        print("== %s (%.1f s)\n%s" % (where, time.monotonic() - t0, out))
                    assert st == 0, "%s: the block exited %d after %.1f s\n--- block\n%s--- output\n%s" % (
                        where, st, time.monotonic() - t0, text, out)
                    continue
                for cmd, want in session(text):
                    st, out = reader.bash(["-o", "pipefail", "-s"], cmd + "\n")
                    got = [l.rstrip() for l in out.rstrip("\n").split("\n")] if out.strip() else []
                    assert st != -1 and matches(want, got), \
                        "%s: $ %s\n--- expected\n%s\n--- got (exit %d)\n%s" % (
                            where, cmd, "\n".join(want), st, out)
        except AssertionError as e:
            log = open(os.path.join(reader.data, "serve.log"), errors="replace").read()
            raise AssertionError("%s\n--- drover serve's log (end)\n%s" % (e, log[-3000:])) from None
        finally:
            clean_up(dm)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def anchors(path):
    """GitHub's anchors of a page's headings."""
    out = set()
    seen = {}
    for _, l in prose(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", l)
        if not m:
            continue
        a = m.group(1).strip().lower()
        a = re.sub(r"[^\w\- ]", "", a).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else "%s-%d" % (a, n))
    return out


def links(path):
    """[(line, target)] of the page's Markdown links, outside code."""
    out = []
    for n, l in prose(path):
        l = re.sub(r"`[^`]*`", "", l)
        for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", l):
            out.append((n, m.group(1)))
    return out


def test_links_point_at_what_exists():
    """Every relative link of README.md and docs/*.md names a file or
    directory of the tree, and its #anchor a heading of that page."""
    bad = []
    for page in pages():
        for n, target in links(page):
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
            if not os.path.exists(os.path.join(ROOT, dest)):
                bad.append("%s:%d: %s: no such file" % (page, n, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append("%s:%d: %s: no such heading in %s" % (page, n, target, dest))
    assert not bad, "\n".join(bad)


def test_readme_is_short():
    """The README is what drover is, the two commands, a tour and links."""
    n = open(os.path.join(ROOT, "README.md")).read().count("\n")
    assert n <= 250, "README.md has %d lines: topics belong in docs/" % n
