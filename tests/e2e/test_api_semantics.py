"""test_api_semantics.py - the API means what Kubernetes means: dryRun=All
on every verb (answered as a real request, nothing stored, no
resourceVersion used, no watch event), the 400s and 415s of malformed
requests with Kubernetes' messages, int32 fields, and downward-API
fieldRefs (refused when Kubernetes refuses them, expanded in the
environment of real processes)."""
import json
import os
import shutil


from test_api import APPS, CORE, api, deployment, read_events, wait_for  # noqa: F401
from test_runtime import EXAMPLE, environ, pids_of, rt  # noqa: F401

DRY = {"dryRun": "All"}


def list_rv(api, path):
    r = api.req("GET", path)
    assert r.status_code == 200, r.text
    return int(r.json()["metadata"]["resourceVersion"])


def node_rvs(api):
    return sorted((n["metadata"]["name"], n["metadata"]["resourceVersion"])
                  for n in api.req("GET", "/api/v1/nodes").json()["items"])


def first_events(api, path, rv, n):
    """The first n events of a watch from rv (bookmarks asked for, so
    that the end of the replayed history shows as a BOOKMARK)."""
    return read_events(api, path, {"watch": "true", "resourceVersion": str(rv),
                                   "allowWatchBookmarks": "true"}, n)


def settled(api, name):
    d = api.req("GET", APPS + "/deployments/" + name).json()
    return d.get("status", {}).get("observedGeneration") == d["metadata"]["generation"]


def dry_runs(api, web):
    """Every verb with dryRun=All against the stored Deployment `web`;
    each answer is checked against what the real request would answer."""
    path = APPS + "/deployments/web"
    rv = web["metadata"]["resourceVersion"]
    # create: the would-be object, defaulted, with uid and
    # creationTimestamp but no resourceVersion
    r = api.req("POST", APPS + "/deployments", deployment("dry", replicas=2),
                params=DRY)
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["metadata"]["uid"] and d["metadata"]["creationTimestamp"]
    assert d["metadata"]["generation"] == 1
    assert "resourceVersion" not in d["metadata"]
    assert d["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": "25%",
                                                      "maxUnavailable": "25%"}
    assert d["spec"]["revisionHistoryLimit"] == 10
    assert d["spec"]["progressDeadlineSeconds"] == 600
    # create of an existing name: the same 409 as a real one
    real = api.req("POST", APPS + "/deployments", deployment("web", replicas=0))
    r = api.req("POST", APPS + "/deployments", deployment("web", replicas=0),
                params=DRY)
    assert (r.status_code, r.json()) == (409, real.json())
    # an invalid create: the same 422 Status as a real one
    bad = deployment("bad", replicas=-1)
    real = api.req("POST", APPS + "/deployments", bad)
    r = api.req("POST", APPS + "/deployments", bad, params=DRY)
    assert r.status_code == 422 and r.json() == real.json()
    # update: the object as it would be, generation bumped, the rv it has
    upd = json.loads(json.dumps(web))
    upd["spec"]["replicas"] = 3
    r = api.req("PUT", path, upd, params=DRY)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["replicas"] == 3
    assert r.json()["metadata"]["generation"] == web["metadata"]["generation"] + 1
    assert r.json()["metadata"]["resourceVersion"] == rv
    # an update from a stale rv: the same 409 as a real one
    stale = json.loads(json.dumps(upd))
    stale["metadata"]["resourceVersion"] = str(int(rv) - 1)
    r = api.req("PUT", path, stale, params=DRY)
    assert r.status_code == 409, r.text
    # patches of every type, and the scale subresource
    r = api.req("PATCH", path, {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "web:2"}]}}}},
        ct="application/strategic-merge-patch+json", params=DRY)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["template"]["spec"]["containers"][0]["image"] == "web:2"
    r = api.req("PATCH", path, [{"op": "add", "path": "/spec/paused",
                                 "value": True}],
                ct="application/json-patch+json", params=DRY)
    assert r.status_code == 200 and r.json()["spec"]["paused"] is True
    r = api.req("PATCH", path + "/scale", {"spec": {"replicas": 7}},
                ct="application/merge-patch+json", params=DRY)
    assert r.status_code == 200, r.text
    assert r.json()["kind"] == "Scale" and r.json()["spec"]["replicas"] == 7
    # delete, by the query and by the DeleteOptions body
    r = api.req("DELETE", path, params=DRY)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["deletionTimestamp"]
    r = api.req("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1",
                                 "propagationPolicy": "Foreground",
                                 "dryRun": ["All"]})
    assert r.status_code == 200, r.text
    assert "foregroundDeletion" in r.json()["metadata"]["finalizers"]
    # a pod: created as it would be, never scheduled
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dry-pod"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    r = api.req("POST", CORE + "/pods", pod, params=DRY)
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["restartPolicy"] == "Always"
    assert r.json()["status"]["phase"] == "Pending"


def test_dry_run_stores_nothing(api):
    path = APPS + "/deployments/web"
    assert api.req("POST", APPS + "/deployments",
                   deployment("web", replicas=0)).status_code == 201
    wait_for(lambda: settled(api, "web"), what="the controller to sync web")
    for attempt in range(3):
        nodes = node_rvs(api)
        web = api.req("GET", path).json()
        rv0 = list_rv(api, APPS + "/deployments")
        dry_runs(api, web)
        # nothing changed
        now = api.req("GET", path).json()
        assert now == web
        assert api.req("GET", APPS + "/deployments/dry").status_code == 404
        assert api.req("GET", CORE + "/pods/dry-pod").status_code == 404
        # the next real write takes the next resourceVersion, and it is
        # the first event after rv0
        r = api.req("PATCH", path, {"metadata": {"labels": {"n": str(attempt)}}},
                    ct="application/merge-patch+json")
        assert r.status_code == 200, r.text
        rv1 = int(r.json()["metadata"]["resourceVersion"])
        evs = first_events(api, APPS + "/deployments", rv0, 1)
        assert evs[0]["type"] == "MODIFIED", evs
        assert evs[0]["object"]["metadata"]["name"] == "web"
        assert int(evs[0]["object"]["metadata"]["resourceVersion"]) == rv1
        assert first_events(api, CORE + "/pods", rv0, 1)[0]["type"] == "BOOKMARK"
        if node_rvs(api) != nodes:
            continue  # the node's heartbeat wrote in between: again
        assert rv1 == rv0 + 1
        break
    else:
        raise AssertionError("a heartbeat in every attempt")
    # no controller acted on the dry-run Deployment
    rs = api.req("GET", APPS + "/replicasets").json()["items"]
    assert [x["metadata"]["name"].split("-")[0] for x in rs] == ["web"]
    assert api.req("DELETE", path).status_code == 200


def without_rv(metadata):
    return {k: v for k, v in metadata.items() if k != "resourceVersion"}


def test_dry_run_cli(api, tmp_path):
    import subprocess
    from test_api import BIN
    env = api.env()  # HTTPS through DIR/kubeconfig

    def drover(*args):
        return subprocess.run([BIN] + list(args), capture_output=True,
                              text=True, env=env, timeout=30)
    f = tmp_path / "web.json"
    f.write_text(json.dumps(deployment("web", replicas=2)))
    r = drover("apply", "-f", str(f), "--dry-run=server")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web created (server dry run)\n"), r.stderr
    r = drover("apply", "-f", str(f), "--dry-run=client")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/web created (dry run)\n"), r.stderr
    assert api.req("GET", APPS + "/deployments/web").status_code == 404
    r = drover("apply", "-f", str(f), "--dry-run=sometimes")
    assert r.returncode == 1
    assert r.stderr == ('error: Invalid dry-run value (sometimes). Must be "none", '
                        '"server", or "client".\n')
    assert drover("apply", "-f", str(f)).returncode == 0
    before = api.req("GET", APPS + "/deployments/web").json()
    for mode, suffix in (("server", "(server dry run)"), ("client", "(dry run)")):
        r = drover("scale", "--replicas=5", "deploy/web", "--dry-run=" + mode)
        assert r.stdout == "deployment.apps/web scaled %s\n" % suffix, r.stderr
        r = drover("set", "image", "deploy/web", "web=web:2", "--dry-run=" + mode)
        assert r.stdout == "deployment.apps/web image updated %s\n" % suffix, r.stderr
        r = drover("delete", "deploy", "web", "--dry-run=" + mode)
        assert r.stdout == 'deployment.apps "web" deleted %s\n' % suffix, r.stderr
        # Nothing the dry runs said was done; the controller may still be
        # writing the status (a new resourceVersion), never the spec.
        now = api.req("GET", APPS + "/deployments/web").json()
        assert now["spec"] == before["spec"]
        assert without_rv(now["metadata"]) == without_rv(before["metadata"])
    # a server dry run is checked by the server: an invalid scale fails
    r = drover("delete", "deploy", "nothere", "--dry-run=client")
    assert r.returncode == 1 and "NotFound" in r.stderr
    assert drover("delete", "deploy", "web").returncode == 0


def status(r, code):
    assert r.status_code == code, (r.status_code, r.text)
    return r.json()


def test_refusals_with_kubernetes_messages(api):
    path = APPS + "/deployments/web"
    assert api.req("POST", APPS + "/deployments", deployment("web", replicas=0)).status_code == 201
    # an unknown dryRun value, in the query or the DeleteOptions body
    st = status(api.req("POST", APPS + "/deployments", deployment("x"),
                        params={"dryRun": "Some"}), 422)
    assert st["message"] == ('CreateOptions.meta.k8s.io "" is invalid: dryRun: '
                             'Unsupported value: []string{"Some"}: supported values: "All"')
    assert st["details"]["causes"] == [{"reason": "FieldValueNotSupported",
                                        "field": "dryRun",
                                        "message": 'Unsupported value: []string{"Some"}: '
                                                   'supported values: "All"'}]
    st = status(api.req("DELETE", path, {"dryRun": ["All", "Everything"]}), 422)
    assert st["message"].startswith('DeleteOptions.meta.k8s.io "" is invalid: dryRun: '
                                    'Unsupported value: []string{"All", "Everything"}')
    st = status(api.req("DELETE", path, params={"propagationPolicy": "Sideways"}), 422)
    assert st["message"] == ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: '
                             'Unsupported value: "Sideways": supported values: "Foreground", '
                             '"Background", "Orphan", "nil"')
    # bodies of a media type the endpoint does not take
    st = status(api.req("POST", APPS + "/deployments", deployment("x"),
                        ct="text/plain"), 415)
    assert st["reason"] == "UnsupportedMediaType"
    assert st["message"] == ("the body of the request was in an unknown format - "
                             "accepted media types include: application/json")
    web = api.req("GET", path).json()
    status(api.req("PUT", path, web, ct="application/xml"), 415)
    st = status(api.req("PATCH", path, {"spec": {"paused": True}}, ct="application/json"), 415)
    assert st["message"] == ("the body of the request was in an unknown format - accepted "
                             "media types include: application/json-patch+json, "
                             "application/merge-patch+json, "
                             "application/strategic-merge-patch+json")
    status(api.req("DELETE", path, {"propagationPolicy": "Orphan"}, ct="text/plain"), 415)
    # malformed DeleteOptions: 400 and nothing deleted
    st = status(api.req("DELETE", path, raw="{not json"), 400)
    assert st["reason"] == "BadRequest"
    st = status(api.req("DELETE", path, {"gracePeriodSeconds": "soon"}), 400)
    assert st["message"] == ("json: cannot unmarshal string into Go struct field "
                             "DeleteOptions.gracePeriodSeconds of type int64")
    status(api.req("DELETE", path, ["Orphan"]), 400)
    status(api.req("DELETE", path, params={"gracePeriodSeconds": "x"}), 400)
    assert api.req("GET", path).json()["metadata"] == web["metadata"]
    # an unknown $patch directive
    st = status(api.req("PATCH", path, {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "$patch": "remove"}]}}}},
        ct="application/strategic-merge-patch+json"), 400)
    assert st["message"] == "unknown patch type: remove in map: map[$patch:remove name:web]"
    st = status(api.req("PATCH", path, {"spec": {"template": {"spec": {"containers": [
        {"$patch": "merge"}]}}}}, ct="application/strategic-merge-patch+json"), 400)
    assert st["message"] == "merging lists cannot yet be specified in the patch"
    assert api.req("GET", path).json()["metadata"] == web["metadata"]
    # ... while the known ones work: replace a list, replace a map
    r = api.req("PATCH", path, {"spec": {"template": {"spec": {"containers": [
        {"name": "other", "image": "other:1"}, {"$patch": "replace"}]}}}},
        ct="application/strategic-merge-patch+json")
    assert r.status_code == 200, r.text
    assert [c["name"] for c in r.json()["spec"]["template"]["spec"]["containers"]] == ["other"]
    r = api.req("PATCH", path, {"metadata": {"labels": {"$patch": "replace", "k": "v"}}},
                ct="application/strategic-merge-patch+json")
    assert r.status_code == 200 and r.json()["metadata"]["labels"] == {"k": "v"}
    # malformed field selectors, and labels a kind does not support
    for sel, msg in (("foo", "invalid selector: 'foo'; can't understand 'foo'"),
                     ("metadata.name=a=b",
                      "invalid field selector: unescaped character in value: 61"),
                     ("metadata.name=a\\x",
                      "invalid field selector: invalid escape sequence: \\x"),
                     ("metadata.name=a\\",
                      "invalid field selector: invalid escape sequence: \\"),
                     ("spec.replicas=1", "field label not supported: spec.replicas")):
        st = status(api.req("GET", APPS + "/deployments", params={"fieldSelector": sel}), 400)
        assert st["message"] == msg, sel
        status(api.req("GET", APPS + "/deployments",
                       params={"fieldSelector": sel, "watch": "true"}), 400)
    r = api.req("GET", APPS + "/deployments",
                params={"fieldSelector": "metadata.name=web,metadata.namespace!=x"})
    assert [d["metadata"]["name"] for d in r.json()["items"]] == ["web"]
    r = api.req("GET", APPS + "/deployments", params={"fieldSelector": "metadata.name=a\\,b"})
    assert r.status_code == 200 and r.json()["items"] == []
    r = api.req("GET", CORE + "/pods", params={"fieldSelector": "status.phase=Running"})
    assert r.status_code == 200
    # a resourceVersion that is not a number
    for rv, why in (("abc", "invalid syntax"), ("-1", "invalid syntax"),
                    ("99999999999999999999", "value out of range")):
        st = status(api.req("GET", APPS + "/deployments",
                            params={"watch": "true", "resourceVersion": rv}), 400)
        assert st["message"] == ('resourceVersion: Invalid value: "%s": strconv.ParseUint: '
                                 'parsing "%s": %s' % (rv, rv, why))
        status(api.req("GET", APPS + "/deployments", params={"resourceVersion": rv}), 400)
    assert api.req("DELETE", path).status_code == 200


def test_int32_fields(api):
    big = deployment("big", replicas=2147483648)
    st = status(api.req("POST", APPS + "/deployments", big), 422)
    assert st["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "spec.replicas",
        "message": "Invalid value: 2147483648: cannot unmarshal number into a field "
                   "of type int32"}]
    # the largest int32 is valid (a dry run: nothing to roll out)
    big["spec"]["replicas"] = 2147483647
    r = api.req("POST", APPS + "/deployments", big, params=DRY)
    assert r.status_code == 201 and r.json()["spec"]["replicas"] == 2147483647
    for field, v in (("minReadySeconds", -2147483649), ("revisionHistoryLimit", 2 ** 40),
                     ("progressDeadlineSeconds", 2147483648)):
        d = deployment("big", **{field: v})
        st = status(api.req("POST", APPS + "/deployments", d), 422)
        assert "spec.%s: Invalid value: %d: cannot unmarshal number" % (field, v) in st["message"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"terminationGracePeriodSeconds": 2147483648,  # int64: fine
                    "containers": [{"name": "c", "image": "x",
                                    "ports": [{"containerPort": 2 ** 32 + 80}]}]}}
    st = status(api.req("POST", CORE + "/pods", pod, params=DRY), 422)
    assert st["details"]["causes"][0]["field"] == "spec.containers[0].ports[0].containerPort"
    assert len(st["details"]["causes"]) == 1
    # the scale subresource too
    assert api.req("POST", APPS + "/deployments", deployment("web", replicas=0)).status_code == 201
    st = status(api.req("PATCH", APPS + "/deployments/web/scale",
                        {"spec": {"replicas": 2147483648}},
                        ct="application/merge-patch+json"), 422)
    assert "spec.replicas: Invalid value: 2147483648" in st["message"]
    assert api.req("GET", APPS + "/deployments/web").json()["spec"]["replicas"] == 0
    assert api.req("DELETE", APPS + "/deployments/web").status_code == 200


def env_ref(name, path):
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def test_field_refs_refused_and_expanded(rt):
    # A copy of the example service, so that tests that count the
    # example's processes while this one runs beside them do not see it.
    prog = os.path.join(rt.dir, "downward-web")
    shutil.copy(EXAMPLE, prog)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "downward", "labels": {"app": "web", "tier": "front"},
                        "annotations": {"example.com/team": "core"}},
           "spec": {"containers": [{"name": "c", "image": "x", "command": [prog],
                                    "args": ["--port", "0"], "env": []}]}}
    env = pod["spec"]["containers"][0]["env"]
    # refused as Kubernetes refuses them
    env[:] = [env_ref("L", "metadata.labels"), env_ref("P", "status.phase"),
              env_ref("S", "spec.containers"), env_ref("K", "metadata.labels['a b']")]
    st = status(rt.req("POST", CORE + "/pods", pod), 422)
    causes = [(c["field"], c["message"]) for c in st["details"]["causes"]]
    supported = ('supported values: "metadata.name", "metadata.namespace", "metadata.uid", '
                 '"spec.nodeName", "spec.serviceAccountName", "status.hostIP", '
                 '"status.hostIPs", "status.podIP", "status.podIPs"')
    f = "spec.containers[0].env[%d].valueFrom.fieldRef"
    assert (f % 0 + ".fieldPath", 'Unsupported value: "metadata.labels": ' + supported) in causes
    assert (f % 1 + ".fieldPath", 'Unsupported value: "status.phase": ' + supported) in causes
    assert (f % 2 + ".fieldPath", 'Invalid value: "spec.containers": error converting '
            'fieldPath: field label not supported: spec.containers') in causes
    assert any(c[0] == f % 3 and c[1].startswith('Invalid value: "a b": name part must')
               for c in causes), causes
    # the supported ones, expanded in the process' environment
    refs = {"NAME": "metadata.name", "NS": "metadata.namespace", "UID": "metadata.uid",
            "APP": "metadata.labels['app']", "NOLABEL": "metadata.labels['none']",
            "TEAM": "metadata.annotations['example.com/team']",
            "NODE": "spec.nodeName", "SA": "spec.serviceAccountName",
            "HOSTIP": "status.hostIP", "HOSTIPS": "status.hostIPs",
            "PODIP": "status.podIP", "PODIPS": "status.podIPs"}
    env[:] = [env_ref(k, v) for k, v in refs.items()]
    env.append({"name": "BOTH", "value": "$(APP)/$(TEAM)"})
    r = rt.req("POST", CORE + "/pods", pod)
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["containers"][0]["env"][0]["valueFrom"]["fieldRef"] == {
        "apiVersion": "v1", "fieldPath": "metadata.name"}
    p = wait_for(lambda: (lambda x: x if pids_of(x) else None)(
        rt.req("GET", CORE + "/pods/downward").json()), timeout=15, what="the pod to run")
    e = environ(pids_of(p)[0])
    assert {k: e.get(k) for k in refs} == {
        "NAME": "downward", "NS": "default", "UID": p["metadata"]["uid"],
        "APP": "web", "NOLABEL": "", "TEAM": "core", "NODE": p["spec"]["nodeName"],
        "SA": "default", "HOSTIP": "127.0.0.1", "HOSTIPS": "127.0.0.1",
        "PODIP": "127.0.0.1", "PODIPS": "127.0.0.1"}
    assert e["BOTH"] == "web/core"


def test_pod_log_asks_the_agent_of_the_pods_node(api):
    """pods/log is answered by the agent of the pod's node, as the kubelet
    answers the API server: with --runtime none this host's agent keeps no
    logs and does not serve them, so a bound pod's log is 404; an unbound
    pod has no node to ask."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "quiet"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    assert api.req("POST", CORE + "/pods", pod).status_code == 201
    wait_for(lambda: api.req("GET", CORE + "/pods/quiet").json()["spec"].get("nodeName"),
             what="the pod to be bound")
    r = api.req("GET", CORE + "/pods/quiet/log")
    assert r.status_code == 404, r.text
    assert r.json()["message"] == ("pod logs are kept by the agent of the pod's "
                                   "node, which does not serve them to this server")
    r = api.req("GET", CORE + "/pods/quiet/log", params={"container": "other"})
    assert r.status_code == 400
    assert r.json()["message"] == "container other is not valid for pod quiet"
    assert api.req("DELETE", CORE + "/pods/quiet").status_code == 200


def raw_get(api, path):
    """A GET of path exactly as written ("..": requests would resolve it
    away): (status, answer)."""
    import http.client
    import ssl
    c = http.client.HTTPSConnection(
        "127.0.0.1", api.port, timeout=10,
        context=ssl.create_default_context(cafile=api.ca))
    try:
        c.request("GET", path, headers={"Authorization": "Bearer " + api.token})
        r = c.getresponse()
        return r.status, json.loads(r.read())
    finally:
        c.close()


def b64url(text):
    import base64
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


LABEL_VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def test_query_parameters_refused_as_kubernetes_refuses_them(api):
    web = deployment("web", replicas=0)
    assert api.req("POST", APPS + "/deployments", web).status_code == 201
    wait_for(lambda: settled(api, "web"), what="web to settle")
    before = list_rv(api, APPS + "/deployments")
    lists = [APPS + "/deployments", CORE + "/pods", "/api/v1/pods"]
    # label selectors: labels.Parse's texts (values checked as a sorted set)
    for sel, msg in (
            ("a=$$$", 'values[0][a]: Invalid value: "$$$": ' + LABEL_VALUE_RULE),
            ("a in (x,-b,$)", '[values[0][a]: Invalid value: "$": %s, '
             'values[1][a]: Invalid value: "-b": %s]' % (LABEL_VALUE_RULE,
                                                         LABEL_VALUE_RULE)),
            ("a$", '<nil>: Invalid value: "a$": name part must consist of '
             "alphanumeric characters, '-', '_' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
             "'123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")):
        for path in lists:
            for watch in ({}, {"watch": "true"}):
                st = status(api.req("GET", path, params=dict(
                    watch, labelSelector=sel)), 400)
                assert st["reason"] == "BadRequest"
                assert st["message"] == "unable to parse requirement: " + msg
    r = api.req("GET", APPS + "/deployments", params={"labelSelector": "a in (),b="})
    assert r.status_code == 200 and r.json()["items"] == []
    # numbers: strconv.ParseInt's text, lists and watches alike
    for key in ("timeoutSeconds", "limit"):
        for watch in ({}, {"watch": "true"}):
            st = status(api.req("GET", APPS + "/deployments",
                                params=dict(watch, **{key: "abc"})), 400)
            assert st["message"] == 'strconv.ParseInt: parsing "abc": invalid syntax'
    r = api.req("GET", APPS + "/deployments", params={"limit": "1", "timeoutSeconds": "5"})
    assert r.status_code == 200 and len(r.json()["items"]) == 1
    # continue tokens: storage.DecodeContinue's texts; drover hands out
    # none, so a well-formed one is expired
    bad = "invalid continue token: continue key is not valid"
    for token, msg in (
            ("garbage!", bad + ": illegal base64 data at input byte 7"),
            ("a", bad + ": illegal base64 data at input byte 0"),
            ("abc", bad + ": invalid character 'i' looking for beginning of value"),
            (b64url("[1]"), bad + ": json: cannot unmarshal array into Go value "
             "of type storage.continueToken"),
            (b64url('{"rv":"1"}'), bad + ": json: cannot unmarshal string into "
             "Go struct field continueToken.rv of type int64"),
            (b64url('{"v":"x"}'), bad + ": server does not recognize this "
             "encoded version x"),
            (b64url('{"v":"meta.k8s.io/v1","start":"a"}'), bad + ": incorrect "
             "encoded start resourceVersion (version meta.k8s.io/v1)"),
            (b64url('{"v":"meta.k8s.io/v1","rv":3}'), bad + ": encoded start "
             "key empty (version meta.k8s.io/v1)")):
        st = status(api.req("GET", APPS + "/deployments",
                            params={"continue": token}), 400)
        assert st["message"] == msg, token
    st = status(api.req("GET", APPS + "/deployments", params={
        "continue": b64url('{"v":"meta.k8s.io/v1","rv":3,"start":"default/web\\u0000"}')}),
        410)
    assert st["reason"] == "Expired"
    # a namespace "..": the storage key's refusal (a 500 without a
    # reason, as kube-apiserver answers it); a name "..": the registry's
    for path in ("/api/v1/namespaces/../pods", "/api/v1/namespaces/../pods?watch=true",
                 "/apis/apps/v1/namespaces/./deployments/web"):
        code, st = raw_get(api, path)
        key = "/deployments/./web" if "deployments" in path else "/pods/.."
        assert (code, st) == (500, {"kind": "Status", "apiVersion": "v1",
                                    "metadata": {}, "status": "Failure",
                                    "message": 'invalid key: "%s"' % key,
                                    "code": 500}), path
    code, st = raw_get(api, "/api/v1/namespaces/default/pods/..")
    assert code == 400 and st["message"] == (
        'Name parameter invalid: "..": may not be \'..\'')
    # pods/log: PodLogOptions decoded (400), then validated (422), before
    # the pod is looked at
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "quiet"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    assert api.req("POST", CORE + "/pods", pod).status_code == 201
    for q in ({"tailLines": "abc"}, {"sinceSeconds": "x"}, {"limitBytes": "1.5"}):
        st = status(api.req("GET", CORE + "/pods/quiet/log", params=q), 400)
        v = list(q.values())[0]
        assert st["message"] == 'strconv.ParseInt: parsing "%s": invalid syntax' % v
    for q, field, msg in (
            ({"limitBytes": "-1"}, "limitBytes", "Invalid value: -1: must be greater than 0"),
            ({"limitBytes": "0"}, "limitBytes", "Invalid value: 0: must be greater than 0"),
            ({"tailLines": "-1"}, "tailLines",
             "Invalid value: -1: must be greater than or equal to 0"),
            ({"sinceSeconds": "0"}, "sinceSeconds",
             "Invalid value: 0: must be greater than 0")):
        for name in ("quiet", "nothere"):
            st = status(api.req("GET", CORE + "/pods/%s/log" % name, params=q), 422)
            assert st["message"] == 'PodLogOptions "%s" is invalid: %s: %s' % (
                name, field, msg)
            assert st["details"] == {"name": name, "kind": "PodLogOptions",
                                     "causes": [{"reason": "FieldValueInvalid",
                                                 "message": msg, "field": field}]}
    assert api.req("DELETE", CORE + "/pods/quiet",
                   params={"gracePeriodSeconds": "0"}).status_code == 200
    # nothing was written by the refusals
    assert list_rv(api, APPS + "/deployments") >= before
    assert api.req("DELETE", APPS + "/deployments/web").status_code == 200


def test_writes_that_change_nothing_write_nothing(api):
    """GuaranteedUpdate does not write an object whose new text is the
    stored one: no new resourceVersion, no watch event."""
    path = APPS + "/deployments/web"
    assert api.req("POST", APPS + "/deployments",
                   deployment("web", replicas=0)).status_code == 201
    wait_for(lambda: settled(api, "web"), what="web to settle")
    web = api.req("GET", path).json()
    rv = web["metadata"]["resourceVersion"]
    writes = (
        ("PUT", path, web, "application/json"),
        ("PATCH", path, {}, "application/merge-patch+json"),
        ("PATCH", path, {"metadata": {}}, "application/strategic-merge-patch+json"),
        ("PATCH", path, [{"op": "test", "path": "/spec/replicas", "value": 0}],
         "application/json-patch+json"),
        ("PUT", path + "/status", web, "application/json"),
        ("PUT", path + "/scale", {"kind": "Scale", "apiVersion": "autoscaling/v1",
                                  "metadata": {"name": "web"},
                                  "spec": {"replicas": 0}}, "application/json"),
        ("PATCH", path + "/scale", {"spec": {"replicas": 0}},
         "application/merge-patch+json"))
    for method, p, body, ct in writes:
        r = api.req(method, p, body, ct=ct)
        assert r.status_code == 200, (method, p, r.text)
        assert r.json()["metadata"]["resourceVersion"] == rv, (method, p)
    assert api.req("GET", path).json() == web
    # a change is written, once: the first event after rv is its own
    r = api.req("PATCH", path, {"metadata": {"labels": {"x": "1"}}},
                ct="application/merge-patch+json")
    assert r.status_code == 200
    new_rv = r.json()["metadata"]["resourceVersion"]
    assert int(new_rv) > int(rv)
    evs = read_events(api, APPS + "/deployments",
                      {"watch": "true", "resourceVersion": rv,
                       "fieldSelector": "metadata.name=web"}, 1)
    assert evs[0]["type"] == "MODIFIED"
    assert evs[0]["object"]["metadata"]["resourceVersion"] == new_rv
    assert api.req("DELETE", path).status_code == 200
