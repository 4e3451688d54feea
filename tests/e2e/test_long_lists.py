"""test_long_lists.py - a long list is sent in pieces, printed a piece at
a time between other requests: it arrives whole and valid (every item as
GET serves it, one resourceVersion), other requests are answered while a
slow client reads it, and a client that leaves in the middle costs the
daemon nothing."""
import json
import socket
import ssl
import tempfile
import threading
import time

import requests

from test_api import APPS, CORE, Daemon, deployment, wait_for

N = 3000


def test_long_list_streams_whole_and_lets_others_in():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            assert dm.req("POST", APPS + "/deployments",
                          deployment("big", replicas=N)).status_code == 201
            wait_for(lambda: len(dm.req("GET", CORE + "/pods").json()["items"]) == N,
                     timeout=120, what="%d pods" % N)
            h = {"Authorization": "Bearer " + dm.token}

            # a slow reader: 4 KiB, a pause (in which /version is asked
            # and answered), then the rest
            with requests.get(dm.url(CORE + "/pods"), headers=h, stream=True,
                              timeout=30, verify=dm.ca) as r:
                assert r.status_code == 200
                assert r.headers.get("Transfer-Encoding") == "chunked"
                it = r.iter_content(4096)
                first = next(it)
                answered = dm.req("GET", "/version")
                assert answered.status_code == 200
                body = first + b"".join(it)
            lst = json.loads(body)
            assert lst["kind"] == "PodList" and lst["apiVersion"] == "v1"
            assert int(lst["metadata"]["resourceVersion"]) > 0
            items = lst["items"]
            assert len(items) == N
            assert len({i["metadata"]["name"] for i in items}) == N
            for i in items[:: N // 10]:
                one = dm.req("GET", CORE + "/pods/" + i["metadata"]["name"]).json()
                assert i == one
            # with a label selector and a field selector, in pieces too
            sel = dm.req("GET", CORE + "/pods", params={
                "labelSelector": "app=big",
                "fieldSelector": "metadata.name!=" + items[0]["metadata"]["name"]})
            assert len(sel.json()["items"]) == N - 1

            # clients that leave after the first bytes
            for _ in range(5):
                s = ssl.create_default_context(cafile=dm.ca).wrap_socket(
                    socket.create_connection(("127.0.0.1", dm.port), 5),
                    server_hostname="127.0.0.1")
                s.sendall(("GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n"
                           "Authorization: Bearer %s\r\n\r\n" % dm.token).encode())
                assert s.recv(1024).startswith(b"HTTP/1.1 200")
                s.close()
            assert dm.req("GET", "/version").status_code == 200
            assert len(dm.req("GET", CORE + "/pods").json()["items"]) == N

            assert dm.req("DELETE", APPS + "/deployments/big").status_code == 200
            wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                     timeout=120, what="the pods to go")
        finally:
            dm.kill()
