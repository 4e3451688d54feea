#!/usr/bin/python3
"""bench/proxy/proxy.py - drover's Service proxy next to haproxy, in one run.

Two drover-example-web backends on 127.0.0.1; in front of them haproxy
(nbthread 1, maxconn below the descriptor limit, balance roundrobin; http
mode with http-reuse always) and drover's proxy (bench/proxy/harness.c: the
proxy library on its thread, one service), in tcp mode and in http mode.
The same wrk load for each (wrk -t1 -c32 -d5s --latency, keep-alive),
three runs each, interleaved (who goes first alternates); the medians of req/s, p50, p99 and CPU per
request, and drover's ratios to haproxy beside the targets (throughput >=
1.0x, p99 <= 1.1x). One direct run to one backend shows the ceiling.

Usage: bench/proxy/proxy.py BUILD_DIR   (after `make bench` or a build of
drover-example-web and proxy-harness). Env: PROXY_BENCH_DURATION (5),
PROXY_BENCH_CONNS (32), PROXY_BENCH_RUNS (3).
Every process started here is stopped by its PID on exit.
"""
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

DUR = int(os.environ.get("PROXY_BENCH_DURATION", "5"))
CONNS = int(os.environ.get("PROXY_BENCH_CONNS", "32"))
RUNS = int(os.environ.get("PROXY_BENCH_RUNS", "3"))
TICK = os.sysconf("SC_CLK_TCK")
procs = []


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc, what):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit(f"bench/proxy: {what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"bench/proxy: {what} did not listen on {port}")


def start(argv, what, port, **kw):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                         stderr=kw.pop("stderr", subprocess.DEVNULL), **kw)
    procs.append(p)
    wait_port(port, p, what)
    return p


def stop_all():
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def to_ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    x = float(m.group(1))
    return {"us": x / 1000, "ms": x, "s": x * 1000}[m.group(2)]


def wrk(port, pid):
    c0 = cpu_seconds(pid) if pid else 0
    out = subprocess.run(
        ["wrk", "-t1", f"-c{CONNS}", f"-d{DUR}s", "--latency",
         f"http://127.0.0.1:{port}/"],
        capture_output=True, text=True, timeout=DUR + 30).stdout
    c1 = cpu_seconds(pid) if pid else 0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
    errs = re.search(r"Socket errors: (.*)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rps, "p50": to_ms(lat["50"]), "p99": to_ms(lat["99"]),
            "us_per_req": (c1 - c0) / total * 1e6 if pid and total else 0,
            "bad": (errs.group(1) if errs else "") +
                   (f" non-2xx {non2xx.group(1)}" if non2xx else "")}


HAPROXY_CFG = """global
    nbthread 1
    maxconn 4000
defaults
    mode {mode}
    timeout connect 1s
    timeout client 30s
    timeout server 30s
frontend fe
    bind 127.0.0.1:{port}
    default_backend be
backend be
    balance roundrobin
{reuse}    server a 127.0.0.1:{b1}
    server b 127.0.0.1:{b2}
"""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/proxy/proxy.py BUILD_DIR")
    build = sys.argv[1]
    for tool in ("wrk", "haproxy"):
        if shutil.which(tool) is None:
            print(f"== bench/proxy: {tool} not installed "
                  "(scripts/deps.sh bench): skipped")
            return
    web = os.path.join(build, "examples/service/drover-example-web")
    harness = os.path.join(build, "bench/proxy/proxy-harness")
    tmp = tempfile.mkdtemp(prefix="drover-proxybench.")
    try:
        b = [free_port(), free_port()]
        for i, port in enumerate(b):
            start([web, "--port", str(port)], f"backend {i}", port,
                  env=dict(os.environ, VERSION=f"v{i}"))
        targets = {}
        for mode in ("tcp", "http"):
            hp = free_port()
            cfg = os.path.join(tmp, f"haproxy-{mode}.cfg")
            with open(cfg, "w") as f:
                f.write(HAPROXY_CFG.format(
                    mode=mode, port=hp, b1=b[0], b2=b[1],
                    reuse="    http-reuse always\n" if mode == "http"
                    else ""))
            h = start(["haproxy", "-db", "-f", cfg], f"haproxy {mode}", hp)
            dp = free_port()
            d = start([harness, str(dp), mode, "rr", str(b[0]), str(b[1])],
                      f"drover proxy {mode}", dp)
            targets[mode] = {"haproxy": (hp, h.pid), "drover": (dp, d.pid)}
        print(f"== bench/proxy: wrk -t1 -c{CONNS} -d{DUR}s --latency, "
              f"{RUNS} runs each, interleaved; backends: 2 x "
              "drover-example-web")
        direct = wrk(b[0], None)
        res = {(m, w): [] for m in targets for w in ("haproxy", "drover")}
        for r in range(RUNS):
            for mode in targets:
                # who goes first alternates, so that a drift of the
                # machine's speed favours neither
                order = ("haproxy", "drover") if r % 2 == 0 else \
                    ("drover", "haproxy")
                for who in order:
                    port, pid = targets[mode][who]
                    x = wrk(port, pid)
                    res[(mode, who)].append(x)
                    print(f"-- run {r + 1} {who:7} {mode:4}: "
                          f"{x['rps']:9.0f} req/s  p50 {x['p50']:.3f} ms  "
                          f"p99 {x['p99']:.3f} ms  "
                          f"{x['us_per_req']:.1f} us CPU/req {x['bad']}",
                          flush=True)
        print()
        print(f"direct to one backend (ceiling): {direct['rps']:.0f} req/s, "
              f"p50 {direct['p50']:.3f} ms, p99 {direct['p99']:.3f} ms")
        print(f"{'row':14} | {'req/s (median; runs)':34} | {'p50 ms':7} | "
              f"{'p99 ms':7} | {'us CPU/req':10}")
        med = {}
        for (mode, who), xs in res.items():
            m = {k: statistics.median(x[k] for x in xs)
                 for k in ("rps", "p50", "p99", "us_per_req")}
            med[(mode, who)] = m
            runs = ", ".join(f"{x['rps'] / 1000:.1f}k" for x in xs)
            print(f"{who + ' ' + mode:14} | {m['rps']:8.0f} ({runs:22}) | "
                  f"{m['p50']:7.3f} | {m['p99']:7.3f} | "
                  f"{m['us_per_req']:10.1f}")
        print()
        # Ratios of runs made side by side (the machine's speed drifts
        # between runs; a pair shares its moment), then their median.
        for mode in targets:
            pairs = list(zip(res[(mode, "drover")], res[(mode, "haproxy")]))
            tr = statistics.median(d["rps"] / h["rps"] for d, h in pairs)
            pr = statistics.median(d["p99"] / h["p99"] for d, h in pairs)
            print(f"{mode:4}: throughput {tr:.3f}x haproxy (target >= 1.0x: "
                  f"{'met' if tr >= 1.0 else 'MISSED'}), p99 {pr:.3f}x "
                  f"(target <= 1.1x: {'met' if pr <= 1.1 else 'MISSED'}); "
                  "median of the paired runs' ratios")
    finally:
        stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        stop_all()
        sys.exit(130)
