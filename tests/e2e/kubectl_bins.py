"""kubectl_bins.py - the real kubectl binaries the kubectl tests run:
Debian's kubectl 1.20 (package kubernetes-client, unpacked by
scripts/fetch-kubectl.sh into $DROVER_KUBECTL_CACHE, default
/var/tmp/drover-kubectl: `scripts/deps.sh test` fetches it) and the newest
of the cloud SDK's /usr/lib/google-cloud-sdk/bin/kubectl.1.NN. Not
/usr/bin/kubectl: that is a dispatcher that picks a version from the
server's /version (kubectl-compat.md, pitfall 6)."""
import glob
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CACHE = os.environ.get("DROVER_KUBECTL_CACHE", "/var/tmp/drover-kubectl")


def debian_kubectl(fetch=True):
    """Path of Debian's kubectl 1.20, fetched if missing and fetch is
    true; None if it cannot be had (no mirror)."""
    path = os.path.join(CACHE, "usr", "bin", "kubectl")
    if not os.access(path, os.X_OK) and fetch:
        subprocess.run([os.path.join(ROOT, "scripts", "fetch-kubectl.sh"),
                        CACHE], capture_output=True, timeout=300)
    return path if os.access(path, os.X_OK) else None


def newest_cloud_sdk_kubectl():
    """The cloud SDK's kubectl.1.NN with the largest NN, or None."""
    best = None
    for p in glob.glob("/usr/lib/google-cloud-sdk/bin/kubectl.1.*"):
        m = re.search(r"kubectl\.1\.(\d+)$", p)
        if m and os.access(p, os.X_OK) and (
                best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), p)
    return best[1] if best else None


def kubectl_bins():
    """[(label, path)] of every kubectl to test, oldest first: "1.20" and
    "1.NN". Those missing are left out."""
    out = []
    p = debian_kubectl()
    if p:
        out.append(("1.20", p))
    p = newest_cloud_sdk_kubectl()
    if p:
        out.append(("1." + p.rsplit(".", 1)[1], p))
    return out


if __name__ == "__main__":
    for label, path in kubectl_bins():
        print(label, path)
