"""test_python_client.py - Debian's python3-kubernetes (the official Python
client) works against `drover serve --listen 127.0.0.1:0` through
DIR/kubeconfig alone (HTTPS, drover's CA, the token): AppsV1Api creates,
lists, watches (ADDED then MODIFIED, from a list's resourceVersion, with a
timeout), patches (a strategic merge patch of the image that keeps the
other container), scales (patch of the scale subresource) and deletes a
Deployment; an unknown name is an ApiException with 404."""
import tempfile

import pytest

from test_api import APPS, CORE, Daemon, deployment, wait_for

kubernetes = pytest.importorskip(
    "kubernetes", reason="python3-kubernetes (scripts/deps.sh test)")
from kubernetes import client, config, watch  # noqa: E402


@pytest.fixture
def apps():
    with tempfile.TemporaryDirectory() as d:
        dm = Daemon(d)
        try:
            config.load_kube_config(config_file=dm.kubeconfig)
            yield dm, client.AppsV1Api()
        finally:
            # nothing of the test's left before the daemon stops
            for dep in dm.req("GET", APPS + "/deployments").json()["items"]:
                dm.req("DELETE", APPS + "/deployments/" +
                       dep["metadata"]["name"])
            wait_for(lambda: not dm.req("GET", CORE + "/pods").json()["items"],
                     timeout=30, what="the pods to go")
            dm.kill()


def test_python_client_deployment_lifecycle(apps):
    dm, api = apps
    body = deployment("web", replicas=2, image="web:1")
    body["spec"]["template"]["spec"]["containers"].append(
        {"name": "side", "image": "side:1"})
    start = api.list_namespaced_deployment("default")
    assert start.items == []
    rv0 = start.metadata.resource_version

    made = api.create_namespaced_deployment("default", body)
    assert made.metadata.name == "web"
    assert made.metadata.uid
    assert made.spec.replicas == 2

    got = api.list_namespaced_deployment("default", label_selector="app=web")
    assert [d.metadata.name for d in got.items] == ["web"]
    assert got.items[0].spec.template.spec.containers[0].image == "web:1"

    # strategic merge patch: the container merged by name, the sidecar kept
    patched = api.patch_namespaced_deployment(
        "web", "default",
        {"spec": {"template": {"spec": {"containers": [
            {"name": "web", "image": "web:2"}]}}}})
    images = {c.name: c.image for c in patched.spec.template.spec.containers}
    assert images == {"web": "web:2", "side": "side:1"}
    assert patched.metadata.generation == 2

    # the watch from before the create sees both changes, in order
    seen = []
    w = watch.Watch()
    for ev in w.stream(api.list_namespaced_deployment, "default",
                       resource_version=rv0, timeout_seconds=10):
        obj = ev["object"]
        if obj.metadata.name != "web":
            continue
        seen.append((ev["type"],
                     obj.spec.template.spec.containers[0].image))
        if ("MODIFIED", "web:2") in seen:
            w.stop()
    assert seen[0] == ("ADDED", "web:1"), seen
    assert ("MODIFIED", "web:2") in seen, seen

    scaled = api.patch_namespaced_deployment_scale(
        "web", "default", {"spec": {"replicas": 4}})
    assert scaled.kind == "Scale" and scaled.spec.replicas == 4
    assert api.read_namespaced_deployment_scale("web", "default") \
        .spec.replicas == 4
    assert api.read_namespaced_deployment("web", "default").spec.replicas == 4
    # the controller follows: the new ReplicaSet (web:2) is scaled too
    # (proportionally: pods never become ready with --runtime none)
    def new_rs_grown():
        for rs in api.list_namespaced_replica_set("default").items:
            img = rs.spec.template.spec.containers[0].image
            if img == "web:2" and rs.spec.replicas >= 2:
                return True
        return False
    wait_for(new_rs_grown, timeout=30, what="the new ReplicaSet to grow")

    api.delete_namespaced_deployment("web", "default")
    with pytest.raises(client.exceptions.ApiException) as e:
        api.read_namespaced_deployment("web", "default")
    assert e.value.status == 404
    assert api.list_namespaced_deployment("default").items == []


def test_python_client_nodes_and_service_status(apps):
    """CoreV1Api reads the Node (every nodeInfo field the client requires:
    it refuses a None), and a Service created with the status kubectl
    expose sends ({loadBalancer: {}}) keeps Kubernetes' shape."""
    dm, _ = apps
    core = client.CoreV1Api()
    nodes = wait_for(lambda: core.list_node().items, what="the node")
    info = nodes[0].status.node_info
    assert info.operating_system == "linux"
    assert info.container_runtime_version.startswith("drover-process://")
    assert info.kernel_version and info.boot_id and info.os_image
    assert info.architecture and info.kubelet_version
    assert info.kube_proxy_version is not None
    assert info.system_uuid is not None and info.machine_id is not None
    svc = core.create_namespaced_service("default", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 18080}]},
        "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.9"}]}}})
    assert svc.status.load_balancer.ingress is None  # the client's is dropped
    assert core.read_namespaced_service("web", "default").spec.ports[0].port \
        == 18080
    core.delete_namespaced_service("web", "default")
