#!/usr/bin/python3
"""watch_latency.py - write -> watch event latency, one client.

Opens a watch, then makes N sequential writes; each write's send time is
taken just before the request goes out, and the matching event (matched
by resourceVersion / etcd revision, read by a second thread) ends it.
The next write starts once both the reply and the event are in. Prints
one machine-readable line:

  RESULT n=.. lost=.. p50_ms=.. p99_ms=.. max_ms=.. reply_p50_ms=.. reply_p99_ms=..

reply_* is the write's own round trip (send -> reply), for comparison.

  watch_latency.py drover URL TOKEN N     (URL: http://127.0.0.1:PORT)
  watch_latency.py etcd URL N             (URL: etcd's client URL)

For drover the object is the Pod bench-watch (created here), written by
JSON merge patches of an annotation; for etcd the key bench-watch, by
/v3/kv/put through the gRPC-JSON gateway, watched with /v3/watch.
Debian's python3 and python3-requests only."""
import base64
import json
import os
import sys
import threading
import time

import requests

EVENT_TIMEOUT = 1.0  # an event later than this counts as lost
WRITE_TIMEOUT = 5.0  # a write without a reply by then stops the run
MAX_LOST = 3  # then the run stops: the watch is stalled


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


class Arrivals:
    """resourceVersion -> monotonic arrival time, filled by the reader."""

    def __init__(self):
        self.cv = threading.Condition()
        self.at = {}
        self.error = None

    def add(self, rv, t):
        with self.cv:
            self.at[rv] = t
            self.cv.notify_all()

    def wait(self, rv, timeout):
        end = time.monotonic() + timeout
        with self.cv:
            while rv not in self.at and self.error is None:
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)
            return self.at.get(rv)


def reader(resp, arrivals, rvs_of):
    try:
        for line in resp.iter_lines(chunk_size=65536):
            t = time.monotonic()
            if not line:
                continue
            for rv in rvs_of(json.loads(line)):
                arrivals.add(rv, t)
    except Exception as e:  # the stream is closed at the end
        with arrivals.cv:
            arrivals.error = e
            arrivals.cv.notify_all()


def drover(url, token, n):
    core = url + "/api/v1/namespaces/default/pods"
    h = {"Authorization": "Bearer " + token}
    s = requests.Session()
    s.headers.update(h)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "bench-watch"},
           "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
    r = s.post(core, json=pod, timeout=10)
    if r.status_code != 201:
        sys.exit("create bench-watch: %d %s" % (r.status_code, r.text))
    rv = r.json()["metadata"]["resourceVersion"]
    w = requests.get(core, headers=h, stream=True, timeout=(10, 60),
                     params={"watch": "true", "resourceVersion": rv,
                             "fieldSelector": "metadata.name=bench-watch"})
    if w.status_code != 200:
        sys.exit("watch: %d %s" % (w.status_code, w.text))

    def rvs_of(ev):
        return [ev.get("object", {}).get("metadata", {}).get("resourceVersion")]

    def write(i):
        r = s.patch(core + "/bench-watch", timeout=WRITE_TIMEOUT,
                    data=json.dumps({"metadata": {"annotations": {
                        "bench/seq": str(i)}}}),
                    headers={"Content-Type": "application/merge-patch+json"})
        if r.status_code != 200:
            sys.exit("patch: %d %s" % (r.status_code, r.text))
        return r.json()["metadata"]["resourceVersion"]
    return measure(w, rvs_of, write, n)


def etcd(url, n):
    key = base64.b64encode(b"bench-watch").decode()
    s = requests.Session()
    w = requests.post(url + "/v3/watch", stream=True, timeout=(10, 60),
                      data=json.dumps({"create_request": {"key": key}}))
    if w.status_code != 200:
        sys.exit("watch: %d %s" % (w.status_code, w.text))
    lines = w.iter_lines(chunk_size=65536)
    first = json.loads(next(lines))  # the "created" acknowledgement
    if not first.get("result", {}).get("created"):
        sys.exit("watch not created: %r" % first)

    def rvs_of(ev):
        return [e.get("kv", {}).get("mod_revision")
                for e in ev.get("result", {}).get("events", [])]

    def write(i):
        v = base64.b64encode(json.dumps({"bench/seq": str(i)}).encode())
        r = s.post(url + "/v3/kv/put", timeout=WRITE_TIMEOUT,
                   data=json.dumps({"key": key, "value": v.decode()}))
        if r.status_code != 200:
            sys.exit("put: %d %s" % (r.status_code, r.text))
        return r.json()["header"]["revision"]

    class Resp:  # hands the already-started line iterator to reader()
        def iter_lines(self, chunk_size):
            return lines
    return measure(Resp(), rvs_of, write, n)


def measure(stream, rvs_of, write, n):
    arrivals = Arrivals()
    t = threading.Thread(target=reader, args=(stream, arrivals, rvs_of),
                         daemon=True)
    t.start()
    lat, reply, lost = [], [], 0
    for i in range(n):
        t0 = time.monotonic()
        try:
            rv = write(i)
        except requests.RequestException as e:
            print("STALLED: write %d got no reply: %s" % (i + 1, e),
                  file=sys.stderr)
            lost += 1
            break
        t1 = time.monotonic()
        at = arrivals.wait(rv, EVENT_TIMEOUT)
        reply.append((t1 - t0) * 1000)
        if at is None:
            lost += 1
            if arrivals.error is not None:
                sys.exit("watch stream ended: %r" % arrivals.error)
            if lost >= MAX_LOST:
                print("STALLED: %d of %d events not delivered within %.0f s"
                      % (lost, i + 1, EVENT_TIMEOUT), file=sys.stderr)
                break
        else:
            lat.append((at - t0) * 1000)
    return lat, reply, lost


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "drover":
        lat, reply, lost = drover(sys.argv[2].rstrip("/"), sys.argv[3],
                                  int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "etcd":
        lat, reply, lost = etcd(sys.argv[2].rstrip("/"), int(sys.argv[3]))
    else:
        sys.exit(__doc__)
    print("RESULT n=%d lost=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
          "reply_p50_ms=%.3f reply_p99_ms=%.3f" % (
              len(lat) + lost, lost, pct(lat, 50), pct(lat, 99),
              max(lat) if lat else float("nan"), pct(reply, 50),
              pct(reply, 99)))
    sys.stdout.flush()
    # The watch streams are not closed (a requests close may wait on the
    # stream): the process just ends, which closes the sockets.
    os._exit(0)


if __name__ == "__main__":
    main()
