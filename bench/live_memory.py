"""Memory per worker of ``fedgate serve --kubeconfig`` beside a real API server holding N objects.

One etcd and one kube-apiserver on 127.0.0.1, started by the e2e harness's own functions
(``tests/e2e/controlplane.py``: binaries from ``python -m tests.e2e.build``, etcd from Debian's
``etcd-server``), with the Karmada CRDs the live index watches and
``deploy/karmada/live-index-rbac.yaml``. For each size N (objects: N/2 Deployments shaped like
the examples' web-frontend with a second container, and N/2 PropagationPolicies shaped like
``examples/requests``' demo-http, one per Deployment, across ``NAMESPACES`` namespaces, each
written as Argo CD writes it: by server-side apply (``managedFields`` as the API server records
them) with kubectl's last-applied annotation, and each Deployment given a status as Karmada
aggregates it) it starts ``fedgate serve`` as the harness does (2 workers, ``policies/``,
``--kubeconfig`` of the read-only live-index user), waits until every worker's index is
synced (``/readyz`` answers 200 on ``READY_STREAK`` fresh connections in a row: it answers 503
until every kind is listed), and reports:

- each gunicorn worker's VmRSS (``/proc/PID/status``; the workers are the master's children),
  and master + workers' PSS (``/proc/PID/smaps_rollup``: shared pages counted once, which is
  what the pod's memory limit sees);
- the time from starting ``fedgate serve`` to synced;
- the review latency of one Deployment UPDATE (``bench/webhook.py``'s request), median and p90
  of ``--reviews`` sent one after another on one keep-alive TLS connection;
- each worker's VmRSS again after ``--churn-seconds`` of watch churn (10% of the objects
  patched, evenly spread over the time, both kinds).

Sizes run in ascending order on the same API server (objects are added, never removed), each
with a fresh ``fedgate serve``; with ``--baseline DIR`` (a checkout of another commit, e.g.
``git archive main | tar -x -C DIR``) each size is measured first with that commit's code
(``PYTHONPATH``, ahead of this checkout's editable install) and then with this one's.
``--tracemalloc`` lists and builds, in this process, the index a worker holds at the last size
and prints tracemalloc's top 10 lines. Everything started is
recorded in the harness's state.json and stopped by pid at the end (``controlplane.down``).

    .venv/bin/python bench/live_memory.py [--sizes 0,1000,5000,20000] [--reviews 200]
        [--churn-seconds 60] [--tracemalloc] [--json FILE] [--dir DIR] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import copy
import gc
import http.client
import json
import os
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # bench/webhook.py would shadow the webhook package

from bench.live_index import listed_and_built  # noqa: E402
from bench.webhook import REQUESTS  # noqa: E402
from tests.e2e import build  # noqa: E402
from tests.e2e import controlplane as cp  # noqa: E402
from webhook.shell.kubeapi import ApiServer, from_kubeconfig  # noqa: E402

NAMESPACES = 20
READY_STREAK = 20
"""/readyz answers on this many fresh connections in a row: SO_REUSEPORT spreads new
connections over the workers, so a worker still listing is missed with odds of 2**-20."""
SYNC_SECONDS = 900
LIMIT = 512 * 2**20
"""The chart's memory limit (``deploy/chart/fedgate/values.yaml``), the container's."""
CREATE_THREADS = 4
CHURN_THREADS = 2
UNAVAILABLE = 77
"""The exit status when the binaries or etcd are missing (automake's "skipped")."""
KARMADA_GROUPS = ("policy.karmada.io", "autoscaling.karmada.io")
"""The groups of the Karmada kinds the live index watches (webhook/bundle/live.py: WATCHED)."""
MANAGER = "argocd-controller"
"""The field manager of the server-side applies that write the objects (Argo CD's)."""
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DEPLOYMENT_UPDATE = ROOT / "examples" / "requests" / REQUESTS["Deployment UPDATE"]
POLICY_CREATE = ROOT / "examples" / "requests" / REQUESTS["PropagationPolicy CREATE"]


# --- the objects ----------------------------------------------------------------------------


def _example(path: Path) -> dict[str, Any]:
    return dict(orjson.loads(path.read_bytes())["request"]["object"])


class Shapes:
    """The examples' objects, renamed: a Deployment with a second container and a policy."""

    def __init__(self) -> None:
        self.deployment = _example(DEPLOYMENT_UPDATE)
        sidecar = copy.deepcopy(self.deployment["spec"]["template"]["spec"]["containers"][0])
        sidecar.update(
            name="log-shipper",
            image="registry.example.com/platform/log-shipper:1.4.2",
            ports=[{"containerPort": 9102}],
            env=[{"name": "LOG_FORMAT", "value": "json"}, {"name": "LOG_LEVEL", "value": "info"}],
        )
        self.deployment["spec"]["template"]["spec"]["containers"].append(sidecar)
        self.policy = _example(POLICY_CREATE)

    @staticmethod
    def namespace(i: int) -> str:
        return f"bench-{i % NAMESPACES:02d}"

    def template(self, i: int) -> dict[str, Any]:
        made = copy.deepcopy(self.deployment)
        name, namespace = f"app-{i:05d}", self.namespace(i)
        metadata = made["metadata"]
        metadata.update(name=name, namespace=namespace)
        metadata["labels"].update(
            {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": f"suite-{i % 50}"}
        )
        metadata["annotations"]["argocd.argoproj.io/tracking-id"] = (
            f"{name}:apps/Deployment:{namespace}/{name}"
        )
        selector = {"app.kubernetes.io/name": name}
        made["spec"]["selector"] = {"matchLabels": selector}
        made["spec"]["template"]["metadata"]["labels"] = dict(selector)
        made["spec"]["template"]["spec"]["containers"][0]["name"] = name
        return applied(made)

    def propagation(self, i: int) -> dict[str, Any]:
        made = copy.deepcopy(self.policy)
        name, namespace = f"app-{i:05d}", self.namespace(i)
        made["metadata"].update(name=name, namespace=namespace)
        made["metadata"]["labels"]["app.kubernetes.io/name"] = name
        made["spec"]["resourceSelectors"] = [
            {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": namespace, "name": name}
        ]
        return applied(made)

    @staticmethod
    def status(replicas: int) -> dict[str, Any]:
        """A Deployment template's status as Karmada aggregates it from the members."""
        when = "2026-12-02T10:00:00Z"
        condition = {"lastTransitionTime": when, "lastUpdateTime": when, "status": "True"}
        return {
            "status": {
                "observedGeneration": 1,
                "replicas": replicas,
                "updatedReplicas": replicas,
                "readyReplicas": replicas,
                "availableReplicas": replicas,
                "conditions": [
                    {
                        **condition,
                        "type": "Available",
                        "reason": "MinimumReplicasAvailable",
                        "message": "Deployment has minimum availability.",
                    },
                    {
                        **condition,
                        "type": "Progressing",
                        "reason": "NewReplicaSetAvailable",
                        "message": "ReplicaSet has successfully progressed.",
                    },
                ],
            }
        }


def applied(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with kubectl's last-applied annotation: itself, as JSON (kubectl's copy)."""
    annotations = obj["metadata"].setdefault("annotations", {})
    annotations[LAST_APPLIED] = orjson.dumps(obj).decode() + "\n"
    return obj


def deployments(namespace: str) -> str:
    return f"/apis/apps/v1/namespaces/{namespace}/deployments"


def policies(namespace: str) -> str:
    return f"/apis/policy.karmada.io/v1alpha1/namespaces/{namespace}/propagationpolicies"


def apply_path(collection: str, name: str) -> str:
    """Server-side apply of ``name`` in ``collection``, as Argo CD's manager, taking every field."""
    return f"{collection}/{name}?fieldManager={MANAGER}&force=true"


APPLY = "application/apply-patch+yaml"
"""Server-side apply's content type (JSON is YAML)."""


# --- HTTPS on keep-alive connections --------------------------------------------------------


class Client:
    """Requests to one HTTPS server, one keep-alive connection per thread."""

    def __init__(self, url: str, context: ssl.SSLContext, timeout: float = 30) -> None:
        host, _, port = url.removeprefix("https://").partition(":")
        self.host, self.port, self.context, self.timeout = host, int(port), context, timeout
        self.local = threading.local()

    def call(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json",
    ) -> dict[str, Any]:
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = http.client.HTTPSConnection(
                self.host, self.port, context=self.context, timeout=self.timeout
            )
            self.local.connection = connection
        try:
            headers = {"Content-Type": content_type} if body is not None else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            self.local.connection = None
            raise
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:400]!r}")
        return dict(orjson.loads(data)) if data else {}

    def close(self) -> None:
        connection = getattr(self.local, "connection", None)
        if connection is not None:
            connection.close()


def _in_threads(threads: int, work: Callable[[int], None], items: range) -> None:
    with ThreadPoolExecutor(threads) as pool:
        for done in pool.map(work, items):
            del done


# --- the processes --------------------------------------------------------------------------


def workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return sorted(int(pid) for pid in children)


def vm_rss(pid: int) -> int:
    """Resident bytes (VmRSS) of pid."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def pss(pid: int) -> int:
    """Proportional set size: shared pages divided among the processes sharing them."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no Pss for {pid}")


@dataclass
class Row:
    code: str
    """Whose code served: ``this <commit>``, or ``baseline <commit>`` (``--baseline``)."""
    objects: int
    templates: int
    held: int
    """Objects the index holds (fedgate_index_objects, summed over kinds, worst worker)."""
    sync_seconds: float
    worker_rss: list[int]
    master_rss: int
    pod_pss: int
    review_ms_p50: float
    review_ms_p90: float
    churned: int
    churn_seconds: float
    worker_rss_after_churn: list[int] = field(default_factory=list)
    pod_pss_after_churn: int = 0


class Bench:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        state = cp.State(directory)
        state.save()
        self.federation = cp.Federation(
            directory,
            ROOT / "policies",
            "admin",
            state,
            cp.Launcher(state),
            cp.Pki(directory / "pki"),
        )
        self.shapes = Shapes()
        self.created = 0

    # -- the API server --

    def up(self) -> None:
        federation = self.federation
        (self.directory / "kubeconfigs").mkdir(exist_ok=True)
        harness = federation.pki.issue(cp.HARNESS_USER, cp.HARNESS_USER, cp.MASTERS)
        url = federation.start_apiserver("karmada-apiserver", federation.start_etcd())
        federation.wait_apiserver("karmada-apiserver", url)
        self.karmada_url = url
        federation.admin = cp.write_kubeconfig(
            self.directory / "kubeconfigs" / "karmada.yaml", url, federation.pki.ca_file, harness
        )
        crds = [
            document
            for document in cp.crd_documents("https://127.0.0.1:1", federation.pki.ca_bundle())
            if document["spec"]["group"] in KARMADA_GROUPS
        ]
        cp.apply_documents(federation.admin, crds, "--server-side")
        cp.kubectl(
            federation.admin,
            "wait",
            "--for=condition=Established",
            "crd",
            *(document["metadata"]["name"] for document in crds),
            "--timeout=120s",
        )
        cp.kubectl(
            federation.admin, "apply", "-f", str(ROOT / "deploy/karmada/live-index-rbac.yaml")
        )
        context = ssl.create_default_context(cafile=str(federation.pki.ca_file))
        context.load_cert_chain(str(harness.cert), str(harness.key))
        self.api = Client(url, context)
        for n in range(NAMESPACES):
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"bench-{n:02d}"}}
            self.api.call("POST", "/api/v1/namespaces", orjson.dumps(body))

    def grow(self, objects: int) -> None:
        """Create templates and their policies until the API server holds ``objects``."""
        templates = objects // 2

        def create(i: int) -> None:
            namespace, name = Shapes.namespace(i), f"app-{i:05d}"
            template = self.shapes.template(i)
            self.api.call(
                "PATCH", apply_path(deployments(namespace), name), orjson.dumps(template), APPLY
            )
            self.api.call(
                "PATCH",
                f"{deployments(namespace)}/{name}/status?fieldManager=karmada-controller-manager",
                orjson.dumps(Shapes.status(int(template["spec"].get("replicas", 1)))),
                "application/merge-patch+json",
            )
            policy = orjson.dumps(self.shapes.propagation(i))
            self.api.call("PATCH", apply_path(policies(namespace), name), policy, APPLY)

        _in_threads(CREATE_THREADS, create, range(self.created, templates))
        self.created = max(self.created, templates)

    def churn(self, seconds: float) -> int:
        """Patch 10% of the objects (templates and policies alike), evenly over ``seconds``."""
        count = self.created // 10
        if count == 0 or seconds <= 0:
            return 0
        started = time.monotonic()
        mark = str(time.time_ns())

        def patch(i: int) -> None:
            time.sleep(max(0.0, started + seconds * i / count - time.monotonic()))
            namespace = Shapes.namespace(i)
            body = orjson.dumps({"metadata": {"annotations": {"bench.fedgate.dev/churn": mark}}})
            for path in (deployments(namespace), policies(namespace)):
                self.api.call("PATCH", f"{path}/app-{i:05d}", body, "application/merge-patch+json")

        _in_threads(CHURN_THREADS, patch, range(count))
        return 2 * count

    # -- fedgate serve --

    @contextmanager
    def serving(self, code: Path | None = None) -> Iterator[tuple[int, float, Client]]:
        """fedgate serve as the harness starts it (with ``code``'s packages ahead of this
        checkout's, when given); yields its master pid, the seconds it took to be synced and a
        client of its TLS port."""
        started = time.monotonic()
        saved = dict(os.environ)
        if code is not None:  # the harness's launcher passes this process's environment on
            os.environ["PYTHONPATH"] = str(code)
        try:
            url, _ = self.federation.start_fedgate(self.karmada_url)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        context = ssl.create_default_context(cafile=str(self.federation.pki.ca_file))
        try:
            self.synced(url, context)
            seconds = time.monotonic() - started
            master = int(self.federation.state.processes["fedgate"]["pid"])
            yield master, seconds, Client(url, context)
        finally:
            cp.stop(self.directory, "fedgate")

    def synced(self, url: str, context: ssl.SSLContext) -> None:
        deadline = time.monotonic() + SYNC_SECONDS
        streak = 0
        while streak < READY_STREAK:
            if time.monotonic() > deadline:
                raise cp.UpError(f"fedgate's live index not synced after {SYNC_SECONDS} s")
            self.federation.launcher.check_running("fedgate")
            try:
                ready = cp.https_get(f"{url}/readyz", self.federation.pki.ca_file) == 200
            except (OSError, http.client.HTTPException):
                ready = False
            streak = streak + 1 if ready else 0
            if not ready:
                time.sleep(0.2)

    def held(self, client: Client) -> int:
        """Objects held, summed over kinds (the gauge is each kind's worst worker)."""
        connection = http.client.HTTPSConnection(
            client.host, client.port, context=client.context, timeout=10
        )
        try:
            connection.request("GET", "/metrics")
            text = connection.getresponse().read().decode()
        finally:
            connection.close()
        return sum(
            int(float(line.rsplit(" ", 1)[1]))
            for line in text.splitlines()
            if line.startswith("fedgate_index_objects{")
        )

    def measure(
        self, objects: int, reviews: int, churn_seconds: float, code: Path | None = None
    ) -> Row:
        self.grow(objects)
        with self.serving(code) as (master, seconds, client):
            pids = workers(master)
            if len(pids) != 2:
                raise cp.UpError(f"fedgate serve runs {len(pids)} workers, not 2: {pids}")
            latencies = review_latencies(client, reviews)
            row = Row(
                code=f"baseline {commit(code)}" if code is not None else f"this {commit()}",
                objects=2 * self.created,
                templates=self.created,
                held=self.held(client),
                sync_seconds=round(seconds, 2),
                worker_rss=[vm_rss(pid) for pid in pids],
                master_rss=vm_rss(master),
                pod_pss=sum(pss(pid) for pid in [master, *pids]),
                review_ms_p50=round(statistics.median(latencies), 2),
                review_ms_p90=round(statistics.quantiles(latencies, n=10)[-1], 2),
                churned=0,
                churn_seconds=churn_seconds,
            )
            churn_started = time.monotonic()
            row.churned = self.churn(churn_seconds)
            time.sleep(max(0.0, churn_seconds - (time.monotonic() - churn_started)) + 3)
            row.worker_rss_after_churn = [vm_rss(pid) for pid in workers(master)]
            row.pod_pss_after_churn = sum(pss(pid) for pid in [master, *workers(master)])
            client.close()
        return row

    def heap_top(self, limit: int = 10) -> tuple[int, int, list[str]]:
        """A worker's index, listed and built in this process under tracemalloc: bytes held,
        objects and the top ``limit`` lines."""
        reader = self.directory / "kubeconfigs" / "fedgate-live-index.yaml"
        source = ApiServer(from_kubeconfig(reader))
        gc.collect()
        tracemalloc.start()
        live, _built = listed_and_built(source)  # the index built, held until measured
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        objects = sum(len(state.objects) for state in live.kinds)
        top = [str(stat) for stat in snapshot.statistics("lineno")[:limit]]
        return held, objects, top


def review_latencies(client: Client, count: int) -> list[float]:
    """Milliseconds of each Deployment UPDATE review, one after another on one connection."""
    body = DEPLOYMENT_UPDATE.read_bytes()
    for _ in range(10):  # warm-up: the worker's first reviews, the TLS session
        client.call("POST", "/validate", body)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        answer = client.call("POST", "/validate", body)
        times.append((time.perf_counter() - started) * 1000)
        if "allowed" not in answer.get("response", {}):
            raise RuntimeError(f"not an AdmissionReview answer: {answer}")
    return times


def unavailable() -> str | None:
    """Why this benchmark cannot run here, or None: it needs the harness's kube-apiserver,
    kubectl and Karmada's CRDs (``python -m tests.e2e.build``) and etcd (``etcd-server``)."""
    binaries = build.binaries()
    needed = [binaries["kube-apiserver"], binaries["kubectl"], cp.karmada_artifacts() / "crds"]
    missing = [str(path) for path in needed if not path.exists()]
    if shutil.which("etcd") is None:
        missing.append("etcd (Debian: etcd-server)")
    return f"not built or installed: {', '.join(missing)}" if missing else None


def mib(value: int) -> str:
    return f"{value / 2**20:.1f}"


def commit(checkout: Path | None = None) -> str:
    """The short commit of this checkout, or of ``checkout`` (a ``git archive``'s: its
    ``COMMIT`` file, else what ``git`` says of it)."""
    stamp = checkout / "COMMIT" if checkout is not None else None
    if stamp is not None and stamp.is_file():
        return stamp.read_text().strip()[:7]
    result = subprocess.run(
        ["git", "-C", str(checkout or ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or "unknown"


def print_table(rows: list[Row]) -> None:
    print(
        "| code | objects (templates) | held | sync s | worker RSS MiB | master RSS MiB "
        "| pod PSS MiB | review p50 / p90 ms | after churn: worker RSS MiB | pod PSS MiB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row.code} | {row.objects:,} ({row.templates:,}) | {row.held:,} "
            f"| {row.sync_seconds:.1f} "
            f"| {', '.join(mib(r) for r in row.worker_rss)} | {mib(row.master_rss)} "
            f"| {mib(row.pod_pss)} | {row.review_ms_p50:.2f} / {row.review_ms_p90:.2f} "
            f"| {', '.join(mib(r) for r in row.worker_rss_after_churn)} "
            f"| {mib(row.pod_pss_after_churn)} |"
        )
    for code in dict.fromkeys(row.code for row in rows):
        mine = [row for row in rows if row.code == code]
        first, last = mine[0], mine[-1]
        if last.objects <= first.objects:
            continue
        grown = statistics.mean(last.worker_rss) - statistics.mean(first.worker_rss)
        per = grown / (last.objects - first.objects)
        pod = (last.pod_pss - first.pod_pss) / (last.objects - first.objects)
        holds = (LIMIT - (first.pod_pss - pod * first.objects)) / pod if pod > 0 else 0
        print(
            f"{code}: worker RSS growth {per:,.0f} bytes per object, pod PSS {pod:,.0f}"
            f" ({first.objects:,} -> {last.objects:,} objects): 512Mi holds about"
            f" {holds:,.0f} objects"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="0,1000,5000,20000", help="objects held, ascending")
    parser.add_argument("--reviews", type=int, default=200)
    parser.add_argument("--churn-seconds", type=float, default=60)
    parser.add_argument("--tracemalloc", action="store_true", help="top 10 lines of the index")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--dir", type=Path, help="work directory (default: a new temporary one)")
    parser.add_argument(
        "--baseline", type=Path, help="a checkout of another commit, measured first at each size"
    )
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    problem = unavailable()
    if problem:
        print(problem, file=sys.stderr)
        return UNAVAILABLE
    directory = (args.dir or Path(tempfile.mkdtemp(prefix="fedgate-livemem-"))).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    bench = Bench(directory)
    rows: list[Row] = []
    heap: dict[str, Any] = {}
    try:
        bench.up()
        for size in sizes:
            for code in ([args.baseline.resolve()] if args.baseline else []) + [None]:
                rows.append(bench.measure(size, args.reviews, args.churn_seconds, code))
                print(f"measured {size:,} objects: {asdict(rows[-1])}", file=sys.stderr, flush=True)
        if args.tracemalloc:
            held, objects, top = bench.heap_top()
            heap = {"bytes": held, "objects": objects, "top": top}
    except cp.UpError as error:
        print(f"failed (everything started is stopped; logs in {directory}/logs): {error}")
        return 1
    finally:
        cp.down(directory)
    load_after = os.getloadavg()
    result = {
        "commit": commit(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "rows": [asdict(row) for row in rows],
        "heap": heap,
    }
    print(f"commit {result['commit']}, load average {load_before[0]:.1f} -> {load_after[0]:.1f}")
    print_table(rows)
    if heap:
        print(
            f"tracemalloc: {heap['bytes'] / 2**20:.1f} MiB held for {heap['objects']:,} objects "
            f"({heap['bytes'] / max(1, heap['objects']):,.0f} bytes each); top 10:"
        )
        for line in heap["top"]:
            print(f"  {line}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if args.dir is None:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
