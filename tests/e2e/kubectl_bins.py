"""kubectl_bins.py - the real kubectl binaries the kubectl tests drive:
kubectl 1.20 (Debian's kubernetes-client, unpacked with dpkg-deb -x: its
package would clash with the cloud SDK's /usr/bin/kubectl) and the newest
/usr/lib/google-cloud-sdk/bin/kubectl.1.NN. Not /usr/bin/kubectl: that is
a dispatcher that runs the kubectl of the server's /version minor.
Self-contained (no fixtures), so that any test file can import it."""
import glob
import os
import re
import subprocess
import tempfile

SDK = "/usr/lib/google-cloud-sdk/bin"


def _unpacked_debian_kubectl():
    """DIR/usr/bin/kubectl of the kubernetes-client package, unpacked once
    per user into the temp dir; the .deb is apt's cached one, else
    downloaded with `apt-get download`. None if neither works."""
    root = os.path.join(tempfile.gettempdir(),
                        "drover-kubectl-%d" % os.getuid())
    binary = os.path.join(root, "usr", "bin", "kubectl")
    if os.access(binary, os.X_OK):
        return binary
    os.makedirs(root, exist_ok=True)
    debs = glob.glob("/var/cache/apt/archives/kubernetes-client_*.deb") + \
        glob.glob(os.path.join(root, "kubernetes-client_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", "kubernetes-client"],
                       cwd=root, capture_output=True, timeout=300)
        debs = glob.glob(os.path.join(root, "kubernetes-client_*.deb"))
    if not debs:
        return None
    subprocess.run(["dpkg-deb", "-x", sorted(debs)[-1], root], check=True,
                   timeout=120)
    return binary if os.access(binary, os.X_OK) else None


def _newest_sdk_kubectl():
    best = None
    for p in glob.glob(os.path.join(SDK, "kubectl.1.*")):
        m = re.fullmatch(r"kubectl\.1\.(\d+)", os.path.basename(p))
        if m and os.access(p, os.X_OK) and (
                best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), p)
    return ("1.%d" % best[0], best[1]) if best else None


def kubectl_binaries():
    """[(label, path)]: ("1.20", ...) and ("1.NN", ...) for the newest cloud
    SDK kubectl, those that are present."""
    out = []
    deb = _unpacked_debian_kubectl()
    if deb:
        out.append(("1.20", deb))
    sdk = _newest_sdk_kubectl()
    if sdk:
        out.append(sdk)
    return out
