"""A live Karmada federation on 127.0.0.1: started, waited for, described and stopped.

    python -m tests.e2e.controlplane up --dir DIR [--policies P] [--identities per-component|admin]
    python -m tests.e2e.controlplane down --dir DIR

``up`` starts one etcd; the Karmada API server (kube-apiserver with Karmada's CRDs, Karmada's
aggregated API server for clusters, Karmada's webhook registered as its installers register it);
one member kube-apiserver per cluster of the bundle's clusters.yaml, joined in Push mode; Karmada's
controller-manager and scheduler; kube-controller-manager against the Karmada API server, as
Karmada's installers run it; and ``fedgate serve`` over TLS, registered through
deploy/karmada/validating-webhook.yaml with only its URL and caBundle changed. It returns when
Karmada reports every member Ready, having written ``DIR/env.json`` (see tests/e2e/README.md).
Every process it starts is recorded in ``DIR/state.json`` the moment it starts; ``down`` stops
those, by pid, and nothing else. A failed ``up`` stops what it started and says why.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trustme
import yaml

from tests.e2e import build

REPO = Path(__file__).resolve().parents[2]
FEDGATE = str(Path(sys.executable).with_name("fedgate"))
IDENTITIES = ("per-component", "admin")
# The users the community installers give Karmada's components (hack/deploy-karmada.sh makes a
# client certificate per component, CN system:karmada:<component>, O system:masters; the Helm
# chart and `karmadactl init` give every component the one CN system:admin, O system:masters).
COMPONENT_USERS = {
    "controller-manager": "system:karmada:karmada-controller-manager",
    "scheduler": "system:karmada:karmada-scheduler",
    "webhook": "system:karmada:karmada-webhook",
    "aggregated-apiserver": "system:karmada:karmada-aggregated-apiserver",
}
ADMIN_USER = "system:admin"
MASTERS = "system:masters"
# The harness's own user (tests, kubectl): in system:masters, so it may impersonate anyone.
# kube-controller-manager against the Karmada API server, as every Karmada installer runs it
# (artifacts/deploy/kube-controller-manager.yaml, which hack/deploy-karmada.sh applies; the Helm
# chart's templates/kube-controller-manager.yaml with values.yaml's controllers;
# pkg/karmadactl/cmdinit/kubernetes/command.go): these controllers, leader election on, and
# --use-service-account-credentials, so each controller writes as its own service account in
# kube-system (namespace-controller, generic-garbage-collector, ttl-after-finished-controller).
# Its own kubeconfig is the admin's in every installer (hack/deploy-karmada.sh's `client`
# certificate, CN system:admin, O system:masters; the chart's and karmadactl init's karmada
# config), in both identity layouts.
KUBE_CONTROLLERS = (
    "namespace,garbagecollector,serviceaccount-token,ttl-after-finished,bootstrapsigner,"
    "tokencleaner,csrcleaner,csrsigning,clusterrole-aggregation"
)
HARNESS_USER = "fedgate-e2e-admin"
LIVE_INDEX_USER = "fedgate-live-index"
"""fedgate's own user on the Karmada API server: what deploy/karmada/live-index-rbac.yaml binds."""
READY_SECONDS = 180
# Cluster failover on, as policies/karmada.yaml describes it to `fedgate plan --fail`
# (docs/failover.md): the controller-manager's flags (cmd/controller-manager/app/options:
# cluster_failover.go, options.go) and the ClusterTaintPolicy `up` leaves to the test.
# The gate and flags change nothing until a NoExecute taint lands on a cluster, and only a
# ClusterTaintPolicy puts one there (the cluster controller adds NoSchedule only), so every
# other test sees Karmada as before; the thresholds stay v1.18's defaults (a member goes
# NotReady 30-40 s after its API server stops) so a loaded machine does not flap a member.
FAILOVER = {
    "featureGates": {"Failover": True},
    "enableTaintManager": True,
    "enableNoExecuteTaintEviction": True,
    "noExecuteTaintEvictionPurgeMode": "Gracefully",
    "resourceEvictionRate": 10,
    "clusterFailureThreshold": "30s",
    "clusterStatusUpdateFrequency": "10s",
}
FAILOVER_FLAGS = (
    "--feature-gates=Failover=true",
    "--enable-taint-manager=true",
    "--enable-no-execute-taint-eviction=true",
    "--no-execute-taint-eviction-purge-mode=Gracefully",
    f"--resource-eviction-rate={FAILOVER['resourceEvictionRate']}",
    f"--cluster-failure-threshold={FAILOVER['clusterFailureThreshold']}",
    f"--cluster-status-update-frequency={FAILOVER['clusterStatusUpdateFrequency']}",
)
NOT_READY_POLICY = {
    "name": "evict-when-not-ready",
    "addOnConditions": [
        {"conditionType": "Ready", "operator": "In", "statusValues": ["False", "Unknown"]}
    ],
    "removeOnConditions": [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}],
    "taints": [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
}


def karmada_settings() -> dict[str, Any]:
    """policies/karmada.yaml for this federation: its controller-manager's failover flags and
    the ClusterTaintPolicy `cluster_taint_policy` makes."""
    return {"controllerManager": dict(FAILOVER), "clusterTaintPolicies": [NOT_READY_POLICY]}


def cluster_taint_policy() -> dict[str, Any]:
    """The ClusterTaintPolicy object of NOT_READY_POLICY (policy.karmada.io/v1alpha1, a CRD
    `up` installs): NoExecute `cluster.karmada.io/not-ready` while Ready is False/Unknown."""
    spec = {k: v for k, v in NOT_READY_POLICY.items() if k != "name"}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterTaintPolicy",
        "metadata": {"name": NOT_READY_POLICY["name"]},
        "spec": spec,
    }


class UpError(RuntimeError):
    """`up` could not bring the federation up; the message says which part and why."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- processes ------------------------------------------------------------------------------


@dataclass
class State:
    """What `up` started, written to DIR/state.json after every change."""

    directory: Path
    processes: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.directory / "state.json"

    def save(self) -> None:
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps({"processes": self.processes}, indent=2))
        partial.replace(self.path)

    @classmethod
    def load(cls, directory: Path) -> State:
        data = json.loads((directory / "state.json").read_text())
        return cls(directory, dict(data.get("processes", {})))


# The processes this Python process started (``up`` in-process, as the test fixture runs it):
# kept so none is collected while running, and waited for once stopped.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), None when gone or a zombie: with the
    pid it names one process, whatever the pid is reused for later."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after "pid (comm)": state is field 3
    return None if fields[0] in {"Z", "X"} else fields[19]


def _alive(pid: int, started: str) -> bool:
    """Whether pid is still the process we started (not exited, not a reused pid)."""
    child = _CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        return False
    return _started(pid) == started


def _signal_group(pid: int, signum: int) -> bool:
    """Signal the process group the harness gave the process (it started a session of its
    own, so the group is it and its children, e.g. gunicorn's workers); False when none is left."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        return False
    return True


def stop_process(entry: dict[str, Any], timeout: float = 15.0) -> None:
    """SIGTERM to the process's group, SIGKILL to what is left of it after ``timeout``: a
    gunicorn master killed alone would leave its workers serving kept-alive connections."""
    pid, started = int(entry["pid"]), str(entry["started"])
    if not _alive(pid, started):
        return
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid, started):
        time.sleep(0.1)
    _signal_group(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _signal_group(pid, 0):
        _alive(pid, started)  # reaps the leader when it is this process's child
        time.sleep(0.1)


def down(directory: Path) -> list[str]:
    """Stop every process DIR/state.json records (reverse start order); returns their names."""
    if not (directory / "state.json").is_file():
        return []
    state = State.load(directory)
    stopped = []
    for name, entry in reversed(list(state.processes.items())):
        stop_process(entry)
        child = _CHILDREN.pop(int(entry["pid"]), None)
        if child is not None:
            child.wait(timeout=5)
        stopped.append(name)
    state.processes.clear()
    state.save()
    return stopped


def stop(directory: Path, name: str) -> None:
    """Stop one process of the federation (a fault for a test); `restart` starts it again."""
    entry = State.load(directory).processes[name]
    stop_process(entry)
    child = _CHILDREN.pop(int(entry["pid"]), None)
    if child is not None:
        child.wait(timeout=5)


def restart(directory: Path, name: str) -> None:
    """Start one process of the federation again, as `up` started it (same ports, same files);
    the caller waits for it to be ready."""
    stop(directory, name)
    state = State.load(directory)
    entry = state.processes[name]
    stdout = Path(entry["stdout"]) if entry.get("stdout") else None
    Launcher(state).start(name, entry["argv"], dict(entry.get("env") or {}), stdout)


class Launcher:
    def __init__(self, state: State) -> None:
        self.state = state
        self.logs = state.directory / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)

    def start(
        self,
        name: str,
        argv: Sequence[str],
        env: dict[str, str] | None = None,
        stdout: Path | None = None,
    ) -> Path:
        """Start argv in a session of its own, its output in logs/NAME.log (standard output to
        ``stdout`` when given), and record it at once."""
        log = self.logs / f"{name}.log"
        with open(log, "ab") as sink, open(stdout or log, "ab") as out:
            process = subprocess.Popen(
                list(argv),
                stdout=out,
                stderr=sink,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
                start_new_session=True,  # a terminal's Ctrl-C reaches the harness, not these
            )
        _CHILDREN[process.pid] = process
        self.state.processes[name] = {
            "pid": process.pid,
            "started": _started(process.pid),
            "program": argv[0],
            "log": str(log),
            "argv": list(argv),
            "env": env or {},
            "stdout": str(stdout) if stdout else None,
        }
        self.state.save()
        return log

    def check_running(self, name: str) -> None:
        entry = self.state.processes[name]
        if not _alive(int(entry["pid"]), str(entry["started"])):
            tail = Path(entry["log"]).read_text(errors="replace").splitlines()[-25:]
            raise UpError(f"{name} exited during start-up; its log ends:\n" + "\n".join(tail))


def wait_for(what: str, probe: Callable[[], bool], launcher: Launcher, name: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        launcher.check_running(name)
        try:
            if probe():
                return
        except (OSError, ssl.SSLError, http.client.HTTPException, subprocess.SubprocessError):
            pass
        time.sleep(0.5)
    raise UpError(f"{what} not ready after {READY_SECONDS} s (log: {launcher.logs}/{name}.log)")


# --- certificates and kubeconfigs -------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    cert: Path
    key: Path


class Pki:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.ca = trustme.CA(organization_name="fedgate e2e")
        self.ca_file = directory / "ca.crt"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.ca_key = directory / "ca.key"
        self.ca.private_key_pem.write_to_path(str(self.ca_key))
        self.ca_key.chmod(0o600)

    def issue(
        self, name: str, common_name: str, organization: str | None = None, *hosts: str
    ) -> Pair:
        leaf = self.ca.issue_cert(
            "127.0.0.1",
            "localhost",
            *hosts,
            common_name=common_name,
            organization_name=organization,
        )
        pair = Pair(self.directory / f"{name}.crt", self.directory / f"{name}.key")
        pair.cert.write_bytes(b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
        leaf.private_key_pem.write_to_path(str(pair.key))
        pair.key.chmod(0o600)
        return pair

    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_file.read_bytes()).decode()


def write_kubeconfig(
    path: Path, server: str, ca: Path, pair: Pair | None = None, token: str | None = None
) -> Path:
    user: dict[str, str] = {}
    if pair is not None:
        user = {"client-certificate": str(pair.cert), "client-key": str(pair.key)}
    if token is not None:
        user = {"token": token}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "e2e", "cluster": {"server": server, "certificate-authority": str(ca)}}
        ],
        "users": [{"name": "e2e", "user": user}],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e"}}],
        "current-context": "e2e",
    }
    path.write_text(yaml.safe_dump(config))
    path.chmod(0o600)
    return path


def https_get(url: str, ca: Path, pair: Pair | None = None, timeout: float = 5.0) -> int:
    context = ssl.create_default_context(cafile=str(ca))
    if pair is not None:
        context.load_cert_chain(str(pair.cert), str(pair.key))
    host, _, rest = url.removeprefix("https://").partition("/")
    hostname, _, port = host.partition(":")
    conn = http.client.HTTPSConnection(hostname, int(port), context=context, timeout=timeout)
    try:
        conn.request("GET", "/" + rest)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def http_get(url: str, timeout: float = 5.0) -> int:
    host, _, rest = url.removeprefix("http://").partition("/")
    hostname, _, port = host.partition(":")
    conn = http.client.HTTPConnection(hostname, int(port), timeout=timeout)
    try:
        conn.request("GET", "/" + rest)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


# --- kubectl ----------------------------------------------------------------------------------


def kubectl_binary() -> str:
    return str(build.binaries()["kubectl"])


def kubectl(
    kubeconfig: Path, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [kubectl_binary(), "--kubeconfig", str(kubeconfig), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check and result.returncode != 0:
        raise UpError(f"kubectl {' '.join(args)} failed:\n{result.stderr.strip()}")
    return result


def apply_documents(kubeconfig: Path, documents: list[dict[str, Any]], *extra: str) -> None:
    text = yaml.safe_dump_all(documents)
    kubectl(kubeconfig, "apply", "-f", "-", *extra, stdin=text, timeout=120)


# --- the federation ---------------------------------------------------------------------------


def mount(source: Path, volume: Path) -> None:
    """``source``'s files as the kubelet mounts a ConfigMap volume, and as it changes one: a
    new timestamped directory, the ``..data`` symlink swapped to it atomically (a rename), each
    entry a symlink through ``..data``; the directories it replaced are removed. fedgate serve
    reads the bundle through such a mount in a cluster, and here too."""
    volume.mkdir(parents=True, exist_ok=True)
    stamp = volume / f"..{time.strftime('%Y_%m_%d_%H_%M_%S')}.{time.time_ns()}"
    shutil.copytree(source, stamp, symlinks=False)
    swap = volume / "..data_tmp"
    swap.unlink(missing_ok=True)
    swap.symlink_to(stamp.name)
    os.replace(swap, volume / "..data")
    for entry in stamp.iterdir():
        link = volume / entry.name
        if not link.is_symlink():
            link.symlink_to(Path("..data") / entry.name)
    for old in volume.glob("..2*"):
        if old != stamp:
            shutil.rmtree(old)


def load_clusters(policies: Path) -> list[dict[str, Any]]:
    clusters = yaml.safe_load((policies / "clusters.yaml").read_text())["clusters"]
    return [dict(cluster) for cluster in clusters]


def karmada_artifacts() -> Path:
    """Karmada's CRDs and webhook configuration, copied from its module by tests/e2e/build.py."""
    return build.binaries()["karmada-controller-manager"].parent / "artifacts"


def crd_documents(webhook_url: str, ca_bundle: str) -> list[dict[str, Any]]:
    """Karmada's CRDs as its installers apply them: the chart's bases, with the two binding
    CRDs converting through karmada-webhook (charts/karmada/_crds/patches)."""
    crds = karmada_artifacts() / "crds"
    kustomization = yaml.safe_load((crds / "kustomization.yaml").read_text())
    documents = [yaml.safe_load((crds / path).read_text()) for path in kustomization["resources"]]
    converted = {
        yaml.safe_load((crds / patch["path"]).read_text())["metadata"]["name"]
        for patch in kustomization.get("patches", [])
    }
    for document in documents:
        if document["metadata"]["name"] in converted:
            document["spec"]["conversion"] = {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {"url": f"{webhook_url}/convert", "caBundle": ca_bundle},
                    "conversionReviewVersions": ["v1"],
                },
            }
    return documents


def karmada_webhook_configurations(webhook_url: str, ca_bundle: str) -> list[dict[str, Any]]:
    text = (karmada_artifacts() / "webhook-configuration.yaml").read_text()
    text = text.replace("https://karmada-webhook.karmada-system.svc:443", webhook_url)
    text = text.replace("{{caBundle}}", ca_bundle)
    return [document for document in yaml.safe_load_all(text) if document]


def fedgate_webhook_configuration(url: str, ca_bundle: str) -> dict[str, Any]:
    """deploy/karmada/validating-webhook.yaml with only the URL and caBundle changed."""
    document = yaml.safe_load((REPO / "deploy/karmada/validating-webhook.yaml").read_text())
    for hook in document["webhooks"]:
        hook["clientConfig"] = {"url": url, "caBundle": ca_bundle}
    return dict(document)


@dataclass
class Federation:
    directory: Path
    policies: Path
    identities: str
    state: State
    launcher: Launcher
    pki: Pki
    ports: dict[str, int] = field(default_factory=dict)
    admin: Path = Path()

    def port(self, name: str) -> int:
        if name not in self.ports:
            self.ports[name] = free_port()
        return self.ports[name]

    # -- etcd and API servers --

    def start_etcd(self) -> str:
        etcd = shutil.which("etcd")
        if etcd is None:
            raise UpError("etcd is not installed (Debian: apt-get install -y etcd-server)")
        client, peer = self.port("etcd"), self.port("etcd-peer")
        self.launcher.start(
            "etcd",
            [
                etcd,
                "--name=e2e",
                f"--data-dir={self.directory / 'etcd'}",
                f"--listen-client-urls=http://127.0.0.1:{client}",
                f"--advertise-client-urls=http://127.0.0.1:{client}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-cluster=e2e=http://127.0.0.1:{peer}",
                "--logger=zap",
                "--log-level=warn",
            ],
        )
        url = f"http://127.0.0.1:{client}"
        wait_for("etcd", lambda: http_get(f"{url}/health") == 200, self.launcher, "etcd")
        return url

    def start_apiserver(self, name: str, etcd: str, extra: Sequence[str] = ()) -> str:
        port = self.port(name)
        serving = self.pki.issue(f"{name}-serving", name)
        sa_key = self.directory / "pki" / "service-account.key"
        if not sa_key.is_file():
            self.pki.issue("service-account", "service-account")
        self.launcher.start(
            name,
            [
                str(build.binaries()["kube-apiserver"]),
                f"--etcd-servers={etcd}",
                f"--etcd-prefix=/{name}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={port}",
                f"--tls-cert-file={serving.cert}",
                f"--tls-private-key-file={serving.key}",
                f"--client-ca-file={self.pki.ca_file}",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                f"--service-account-key-file={sa_key}",
                f"--service-account-signing-key-file={sa_key}",
                "--service-cluster-ip-range=10.96.0.0/12",
                "--authorization-mode=RBAC",
                "--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount",
                "--endpoint-reconciler-type=none",
                "--enable-priority-and-fairness=false",
                "--profiling=false",
                "--allow-privileged=true",
                *extra,
            ],
        )
        return f"https://127.0.0.1:{port}"

    def wait_apiserver(self, name: str, url: str) -> None:
        pair = Pair(
            self.directory / "pki" / f"{HARNESS_USER}.crt",
            self.directory / "pki" / f"{HARNESS_USER}.key",
        )
        wait_for(
            f"{name} (kube-apiserver)",
            lambda: https_get(f"{url}/readyz", self.pki.ca_file, pair) == 200,
            self.launcher,
            name,
        )

    def component_kubeconfig(self, component: str, server: str) -> Path:
        user = COMPONENT_USERS[component] if self.identities == "per-component" else ADMIN_USER
        pair = self.pki.issue(f"client-{component}", user, MASTERS)
        return write_kubeconfig(
            self.directory / "kubeconfigs" / f"karmada-{component}.yaml",
            server,
            self.pki.ca_file,
            pair,
        )

    # -- the whole --

    def up(self) -> dict[str, Any]:
        for program, path in build.binaries().items():
            if not path.is_file():
                raise UpError(f"{program} is not built: run `python -m tests.e2e.build` ({path})")
        clusters = load_clusters(self.policies)
        (self.directory / "kubeconfigs").mkdir(exist_ok=True)
        harness = self.pki.issue(HARNESS_USER, HARNESS_USER, MASTERS)
        front_proxy = self.pki.issue("front-proxy-client", "front-proxy-client")
        etcd = self.start_etcd()

        karmada_url = self.start_apiserver(
            "karmada-apiserver",
            etcd,
            [
                f"--proxy-client-cert-file={front_proxy.cert}",
                f"--proxy-client-key-file={front_proxy.key}",
                f"--requestheader-client-ca-file={self.pki.ca_file}",
                "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-username-headers=X-Remote-User",
            ],
        )
        tokens = self.directory / "pki" / "member-tokens.csv"
        member_token = base64.b32encode(os.urandom(20)).decode().lower()
        # Push mode: karmadactl join gives Karmada a member service account bound to
        # cluster-admin; a static token in system:masters is the same power, minus the token
        # controller a member would need.
        tokens.write_text(f"{member_token},karmada-member-agent,karmada-member-agent,{MASTERS}\n")
        tokens.chmod(0o600)
        members = {
            cluster["name"]: self.start_apiserver(
                f"member-{cluster['name']}", etcd, [f"--token-auth-file={tokens}"]
            )
            for cluster in clusters
        }
        self.wait_apiserver("karmada-apiserver", karmada_url)
        self.admin = write_kubeconfig(
            self.directory / "kubeconfigs" / "karmada.yaml", karmada_url, self.pki.ca_file, harness
        )
        ca_bundle = self.pki.ca_bundle()
        kubectl(self.admin, "create", "namespace", "karmada-system")
        kubectl(self.admin, "create", "namespace", "karmada-cluster")

        webhook_url = f"https://127.0.0.1:{self.port('karmada-webhook')}"
        apply_documents(self.admin, crd_documents(webhook_url, ca_bundle), "--server-side")
        self.start_aggregated_apiserver(etcd, karmada_url, ca_bundle)
        self.start_karmada_webhook(karmada_url)
        apply_documents(self.admin, karmada_webhook_configurations(webhook_url, ca_bundle))
        kubectl(self.admin, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
        kubectl(self.admin, "apply", "-f", str(REPO / "deploy/karmada/live-index-rbac.yaml"))
        fedgate_url, audit = self.start_fedgate(karmada_url)
        apply_documents(
            self.admin, [fedgate_webhook_configuration(f"{fedgate_url}/validate", ca_bundle)]
        )
        kubectl(
            self.admin,
            "apply",
            "-f",
            str(REPO / "deploy/karmada/resource-interpreter-customizations.yaml"),
        )
        self.start_karmada_controllers(karmada_url)
        self.start_kube_controller_manager(karmada_url)

        member_configs = {}
        for cluster in clusters:
            name = cluster["name"]
            self.wait_apiserver(f"member-{name}", members[name])
            member_configs[name] = write_kubeconfig(
                self.directory / "kubeconfigs" / f"member-{name}.yaml",
                members[name],
                self.pki.ca_file,
                harness,
            )
            self.join(cluster, members[name], member_token, ca_bundle)
        self.wait_members_ready([cluster["name"] for cluster in clusters])
        self.start_rollouts(member_configs)
        env = {
            "karmada": {"kubeconfig": str(self.admin)},
            "members": {name: {"kubeconfig": str(path)} for name, path in member_configs.items()},
            "webhook": {
                "url": f"{fedgate_url}/validate",
                "audit": str(audit),
                "bundle": str(self.bundle),
            },
            "identities": self.identities,
            "policies": str(self.policies),
        }
        (self.directory / "env.json").write_text(json.dumps(env, indent=2) + "\n")
        return env

    def start_aggregated_apiserver(self, etcd: str, karmada_url: str, ca_bundle: str) -> None:
        name = "karmada-aggregated-apiserver"
        port = self.port(name)
        config = self.component_kubeconfig("aggregated-apiserver", karmada_url)
        # The aggregator checks the serving certificate against the Service's name.
        serving = self.pki.issue(f"{name}-serving", name, None, f"{name}.karmada-system.svc")
        self.launcher.start(
            name,
            [
                str(build.binaries()[name]),
                f"--kubeconfig={config}",
                f"--authentication-kubeconfig={config}",
                f"--authorization-kubeconfig={config}",
                f"--etcd-servers={etcd}",
                "--etcd-prefix=/karmada-apiserver",
                f"--tls-cert-file={serving.cert}",
                f"--tls-private-key-file={serving.key}",
                "--bind-address=127.0.0.1",
                f"--secure-port={port}",
                "--audit-log-path=-",
                "--audit-log-maxage=0",
                "--audit-log-maxbackup=0",
            ],
        )
        # As artifacts/deploy/karmada-aggregated-apiserver-apiservice.yaml: an ExternalName
        # Service the API server's aggregator resolves to the aggregated API server.
        apply_documents(
            self.admin,
            [
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": name, "namespace": "karmada-system"},
                    "spec": {
                        "type": "ExternalName",
                        "externalName": "localhost",
                        "ports": [{"port": port, "protocol": "TCP", "targetPort": port}],
                    },
                },
                {
                    "apiVersion": "apiregistration.k8s.io/v1",
                    "kind": "APIService",
                    "metadata": {"name": "v1alpha1.cluster.karmada.io"},
                    "spec": {
                        "caBundle": ca_bundle,
                        "group": "cluster.karmada.io",
                        "groupPriorityMinimum": 2000,
                        "service": {"name": name, "namespace": "karmada-system", "port": port},
                        "version": "v1alpha1",
                        "versionPriority": 10,
                    },
                },
            ],
        )
        wait_for(
            "Karmada's aggregated API server (cluster.karmada.io)",
            lambda: kubectl(self.admin, "get", "clusters", check=False).returncode == 0,
            self.launcher,
            name,
        )

    def start_karmada_webhook(self, karmada_url: str) -> None:
        name = "karmada-webhook"
        cert_dir = self.directory / "karmada-webhook-certs"
        cert_dir.mkdir(exist_ok=True)
        serving = self.pki.issue(f"{name}-serving", name)
        shutil.copy(serving.cert, cert_dir / "tls.crt")
        shutil.copy(serving.key, cert_dir / "tls.key")
        health = self.port("karmada-webhook-health")
        self.launcher.start(
            name,
            [
                str(build.binaries()[name]),
                f"--kubeconfig={self.component_kubeconfig('webhook', karmada_url)}",
                "--bind-address=127.0.0.1",
                f"--secure-port={self.port(name)}",
                f"--cert-dir={cert_dir}",
                f"--metrics-bind-address=127.0.0.1:{self.port('karmada-webhook-metrics')}",
                f"--health-probe-bind-address=127.0.0.1:{health}",
                "--allow-no-execute-taint-policy=true",
            ],
        )
        # karmada-webhook registers no health check: ready is its TLS port answering.
        url = f"https://127.0.0.1:{self.port(name)}/"
        wait_for(
            "karmada-webhook", lambda: https_get(url, self.pki.ca_file) > 0, self.launcher, name
        )

    @property
    def bundle(self) -> Path:
        """The bundle fedgate serves: ``policies`` mounted as a ConfigMap volume is."""
        return self.directory / "bundle"

    def start_fedgate(self, karmada_url: str) -> tuple[str, Path]:
        mount(self.policies, self.bundle)
        """fedgate serve, its live index watching the Karmada API server as the user that
        deploy/karmada/live-index-rbac.yaml binds (read only)."""
        name = "fedgate"
        reader = self.pki.issue("client-fedgate-live-index", LIVE_INDEX_USER)
        watcher = write_kubeconfig(
            self.directory / "kubeconfigs" / "fedgate-live-index.yaml",
            karmada_url,
            self.pki.ca_file,
            reader,
        )
        pem = self.directory / "pki" / "fedgate-serving.pem"
        serving = self.pki.issue("fedgate-serving", "fedgate-webhook")
        pem.write_bytes(serving.key.read_bytes() + serving.cert.read_bytes())
        pem.chmod(0o600)
        port = self.port(name)
        metrics = self.directory / "fedgate-metrics"
        metrics.mkdir(exist_ok=True)
        audit = self.directory / "audit.jsonl"
        self.launcher.start(
            name,
            [
                FEDGATE,
                "serve",
                "--bind",
                f"127.0.0.1:{port}",
                "--certfile",
                str(pem),
                "--keyfile",
                str(pem),
                "--workers",
                "2",
                "--policies",
                str(self.bundle),
                "--kubeconfig",
                str(watcher),
            ],
            env={"PROMETHEUS_MULTIPROC_DIR": str(metrics)},
            stdout=audit,
        )
        url = f"https://127.0.0.1:{port}"
        wait_for(
            "fedgate serve",
            lambda: https_get(f"{url}/readyz", self.pki.ca_file) == 200,
            self.launcher,
            name,
        )
        return url, audit

    def start_karmada_controllers(self, karmada_url: str) -> None:
        self.launcher.start(
            "karmada-controller-manager",
            [
                str(build.binaries()["karmada-controller-manager"]),
                f"--kubeconfig={self.component_kubeconfig('controller-manager', karmada_url)}",
                "--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer",
                f"--metrics-bind-address=127.0.0.1:{self.port('cm-metrics')}",
                f"--health-probe-bind-address=127.0.0.1:{self.port('cm-health')}",
                *FAILOVER_FLAGS,
            ],
        )
        self.launcher.start(
            "karmada-scheduler",
            [
                str(build.binaries()["karmada-scheduler"]),
                f"--kubeconfig={self.component_kubeconfig('scheduler', karmada_url)}",
                f"--metrics-bind-address=127.0.0.1:{self.port('scheduler-metrics')}",
                f"--health-probe-bind-address=127.0.0.1:{self.port('scheduler-health')}",
            ],
        )

    def start_kube_controller_manager(self, karmada_url: str) -> None:
        """kube-controller-manager with the flags and controllers of Karmada's installers
        (KUBE_CONTROLLERS); ready when its /healthz answers 200."""
        name = "kube-controller-manager"
        pair = self.pki.issue(f"client-{name}", ADMIN_USER, MASTERS)
        config = write_kubeconfig(
            self.directory / "kubeconfigs" / f"karmada-{name}.yaml",
            karmada_url,
            self.pki.ca_file,
            pair,
        )
        serving = self.pki.issue(f"{name}-serving", name)
        pki = self.directory / "pki"
        port = self.port(name)
        self.launcher.start(
            name,
            [
                str(build.binaries()[name]),
                "--allocate-node-cidrs=true",
                f"--kubeconfig={config}",
                f"--authentication-kubeconfig={config}",
                f"--authorization-kubeconfig={config}",
                "--bind-address=127.0.0.1",
                f"--secure-port={port}",
                f"--tls-cert-file={serving.cert}",
                f"--tls-private-key-file={serving.key}",
                f"--client-ca-file={self.pki.ca_file}",
                "--cluster-cidr=10.244.0.0/16",
                "--cluster-name=karmada",
                f"--cluster-signing-cert-file={self.pki.ca_file}",
                f"--cluster-signing-key-file={self.pki.ca_key}",
                f"--controllers={KUBE_CONTROLLERS}",
                "--leader-elect=true",
                "--node-cidr-mask-size=24",
                f"--root-ca-file={self.pki.ca_file}",
                f"--service-account-private-key-file={pki / 'service-account.key'}",
                "--service-cluster-ip-range=10.96.0.0/12",
                "--use-service-account-credentials=true",
                "--v=2",
            ],
        )
        url = f"https://127.0.0.1:{port}/healthz"
        wait_for(
            "kube-controller-manager (/healthz)",
            lambda: https_get(url, self.pki.ca_file) == 200,
            self.launcher,
            name,
        )

    def join(self, cluster: dict[str, Any], url: str, token: str, ca_bundle: str) -> None:
        """Push mode, as `karmadactl join`: Secrets with the member's credentials in
        karmada-cluster (the controllers' and the impersonator's, which Karmada's cluster proxy
        uses to act on a member as the user who called it) and a Cluster object naming its
        endpoint. Both carry the static token (system:masters: it may impersonate)."""
        name = cluster["name"]
        spec: dict[str, Any] = {
            "syncMode": "Push",
            "apiEndpoint": url,
            "secretRef": {"namespace": "karmada-cluster", "name": name},
            "impersonatorSecretRef": {
                "namespace": "karmada-cluster",
                "name": f"{name}-impersonator",
            },
        }
        for key in ("provider", "region", "zone"):
            if cluster.get(key):
                spec[key] = cluster[key]
        apply_documents(
            self.admin,
            [
                {
                    "apiVersion": "v1",
                    "kind": "Secret",
                    "metadata": {"name": name, "namespace": "karmada-cluster"},
                    "data": {
                        "token": base64.b64encode(token.encode()).decode(),
                        "caBundle": ca_bundle,
                    },
                },
                {
                    "apiVersion": "v1",
                    "kind": "Secret",
                    "metadata": {"name": f"{name}-impersonator", "namespace": "karmada-cluster"},
                    "data": {"token": base64.b64encode(token.encode()).decode()},
                },
                {
                    "apiVersion": "cluster.karmada.io/v1alpha1",
                    "kind": "Cluster",
                    "metadata": {"name": name, "labels": dict(cluster.get("labels") or {})},
                    "spec": spec,
                },
            ],
        )

    def start_rollouts(self, member_configs: dict[str, Path]) -> None:
        """What the members' controllers and kubelets would report: each Deployment and
        StatefulSet copy rolled out 20 s after its spec last changed (``rollouts.py``)."""
        self.launcher.start(
            "member-rollouts",
            [
                sys.executable,
                "-m",
                "tests.e2e.rollouts",
                "--kubectl",
                kubectl_binary(),
                *(f"--member={name}={path}" for name, path in member_configs.items()),
            ],
            {"PYTHONPATH": str(REPO)},
        )

    def wait_members_ready(self, names: list[str]) -> None:
        def ready() -> bool:
            result = kubectl(self.admin, "get", "clusters", "-o", "json", check=False)
            if result.returncode != 0:
                return False
            items = json.loads(result.stdout)["items"]
            ready_names = {
                item["metadata"]["name"]
                for item in items
                for condition in item.get("status", {}).get("conditions", [])
                if condition["type"] == "Ready" and condition["status"] == "True"
            }
            return set(names) <= ready_names

        wait_for(
            "every member Ready in Karmada", ready, self.launcher, "karmada-controller-manager"
        )
        for process in (
            "karmada-scheduler",
            "fedgate",
            "karmada-webhook",
            "kube-controller-manager",
        ):
            self.launcher.check_running(process)


def up(directory: Path, policies: Path, identities: str) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    if (directory / "state.json").is_file():
        running = [
            name
            for name, entry in State.load(directory).processes.items()
            if _alive(int(entry["pid"]), str(entry["started"]))
        ]
        if running:
            raise UpError(
                f"{directory} holds a federation that is (partly) running ({', '.join(running)}):"
                f" run `python -m tests.e2e.controlplane down --dir {directory}` first"
            )
    for stale in ("etcd", "env.json", "state.json", "audit.jsonl", "pki", "kubeconfigs", "logs"):
        path = directory / stale
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    state = State(directory)
    state.save()
    federation = Federation(
        directory, policies, identities, state, Launcher(state), Pki(directory / "pki")
    )
    try:
        return federation.up()
    except BaseException:
        down(directory)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.controlplane")
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("up", help="start the federation and write DIR/env.json")
    start.add_argument("--dir", type=Path, required=True)
    start.add_argument("--policies", type=Path, default=REPO / "policies")
    start.add_argument("--identities", choices=IDENTITIES, default="per-component")
    stop = sub.add_parser("down", help="stop every process `up` started in DIR")
    stop.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args(argv)
    directory = args.dir.resolve()
    if args.command == "down":
        stopped = down(directory)
        print(f"stopped: {', '.join(stopped) or 'nothing'}")
        return 0
    started = time.monotonic()
    try:
        env = up(directory, args.policies.resolve(), args.identities)
    except UpError as error:
        print(f"up failed (everything it started is stopped): {error}", file=sys.stderr)
        return 1
    print(json.dumps(env, indent=2))
    print(f"up in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
