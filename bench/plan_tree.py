"""Benchmark: `fedgate plan --tree` grows linearly with the templates of the tree.

    .venv/bin/python bench/plan_tree.py [--sizes 500,1000,2000,5000] [--cluster-policies 20]
                                        [--repeat 3]

For each size N it writes a tree of N resource templates (Deployments, StatefulSets,
ConfigMaps and Services across ten tenant namespaces, a PropagationPolicy per Deployment and
StatefulSet, and a ClusterPropagationPolicy for the ConfigMaps and Services), with
--cluster-policies ClusterOverridePolicies that every template meets (image registries per
region, labels and annotations, a fieldOverrider on the ConfigMaps), and times, each in a
fresh process, the median of --repeat runs of `fedgate plan --tree DIR --output json`. It
prints the time and the time per template: linear growth shows as a flat column.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.compile import generate  # noqa: E402

BIN = Path(sys.executable).parent
TENANTS = 10


def _template(i: int) -> str:
    namespace = f"ns-{i % TENANTS}"
    kind = i % 4
    if kind == 0:
        return (
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n"
            f"  namespace: {namespace}\n  labels: {{tier: web}}\nspec:\n  replicas: {1 + i % 6}\n"
            f"  selector: {{matchLabels: {{app: web-{i}}}}}\n  template:\n"
            f"    metadata: {{labels: {{app: web-{i}}}}}\n    spec:\n      containers:\n"
            "        - name: web\n"
            f"          image: registry.example.com/team-{i % TENANTS}/web:{i}\n"
            "          resources: {requests: {cpu: 100m, memory: 128Mi}}\n"
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
            f"metadata: {{name: web-{i}, namespace: {namespace}}}\nspec:\n"
            f"  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web-{i}}}]\n"
            "  placement:\n    clusterAffinity: {clusterNames: [cluster-a, cluster-b, cluster-c]}\n"
            "    replicaScheduling: {replicaSchedulingType: Divided}\n"
        )
    if kind == 1:
        return (
            f"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db-{i}, "
            f"namespace: {namespace}}}\nspec:\n  replicas: 2\n  serviceName: db-{i}\n"
            f"  selector: {{matchLabels: {{app: db-{i}}}}}\n  template:\n"
            f"    metadata: {{labels: {{app: db-{i}}}}}\n    spec:\n      containers:\n"
            f"        - name: db\n          image: registry.example.com/team-{i % TENANTS}/db:1\n"
            "          resources: {requests: {cpu: 200m, memory: 256Mi}}\n"
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
            f"metadata: {{name: db-{i}, namespace: {namespace}}}\nspec:\n"
            f"  resourceSelectors: [{{apiVersion: apps/v1, kind: StatefulSet, name: db-{i}}}]\n"
            "  placement:\n    clusterAffinity: {clusterNames: [cluster-a, cluster-b]}\n"
        )
    if kind == 2:
        return (
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg-{i}, namespace: "
            f"{namespace}}}\ndata:\n  app.yaml: |\n    region: none\n    level: {i}\n"
        )
    return (
        f"apiVersion: v1\nkind: Service\nmetadata: {{name: svc-{i}, namespace: {namespace}}}\n"
        f"spec:\n  selector: {{app: web-{i}}}\n  ports: [{{port: 80}}]\n"
    )


def _cluster_policies(count: int) -> str:
    documents = [
        "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\n"
        "metadata: {name: data}\nspec:\n  resourceSelectors:\n"
        "    - {apiVersion: v1, kind: ConfigMap}\n    - {apiVersion: v1, kind: Service}\n"
        "  placement: {clusterAffinity: {clusterNames: [cluster-a, cluster-b]}}\n"
    ]
    for i in range(count):
        region = ("eu", "us")[i % 2]
        documents.append(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\n"
            f"metadata: {{name: regional-{i:02d}}}\nspec:\n  resourceSelectors:\n"
            "    - {apiVersion: apps/v1, kind: Deployment}\n"
            "    - {apiVersion: apps/v1, kind: StatefulSet}\n"
            "    - {apiVersion: v1, kind: ConfigMap}\n"
            "  overrideRules:\n"
            f"    - targetCluster: {{labelSelector: {{matchLabels: {{residency: {region}}}}}}}\n"
            "      overriders:\n"
            f"        labelsOverrider: [{{operator: add, value: {{policy-{i}: applied}}}}]\n"
            f"        annotationsOverrider: [{{operator: add, value: {{note-{i}: x}}}}]\n"
            + (
                "        fieldOverrider:\n          - fieldPath: /data/app.yaml\n"
                f"            yaml: [{{subPath: /region, operator: replace, value: {region}}}]\n"
                if i % 5 == 0
                else ""
            )
        )
    return "---\n".join(documents)


def write_tree(directory: Path, templates: int, cluster_policies: int) -> None:
    for i in range(templates):
        folder = directory / f"ns-{i % TENANTS}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"t-{i:05d}.yaml").write_text(_template(i))
    (directory / "platform.yaml").write_text(_cluster_policies(cluster_policies))


def timed(command: list[str], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, timeout=3600, check=False)
        samples.append(time.perf_counter() - start)
        if result.returncode not in (0, 1):
            raise SystemExit(f"{command} exited {result.returncode}:\n{result.stderr.decode()}")
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="500,1000,2000,5000")
    parser.add_argument("--cluster-policies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    fedgate = str(BIN / "fedgate")
    print(
        f"plan --tree, {args.cluster_policies} ClusterOverridePolicies, medians of "
        f"{args.repeat} (load average {os.getloadavg()[0]:.1f}):"
    )
    print(f"  {'templates':>9}  {'seconds':>8}  {'ms per template':>15}")
    with tempfile.TemporaryDirectory(prefix="fedgate-plan-tree-") as scratch:
        generate(Path(scratch) / "bundle", 10)  # the bundle of bench/compile.py's tenants
        policies = Path(scratch) / "bundle" / "policies"
        for size in (int(s) for s in args.sizes.split(",")):
            tree = Path(scratch) / f"tree-{size}"
            write_tree(tree, size, args.cluster_policies)
            seconds = timed(
                [
                    fedgate,
                    "plan",
                    "--tree",
                    str(tree),
                    "--policies",
                    str(policies),
                    "--output",
                    "json",
                ],
                args.repeat,
            )
            print(f"  {size:9}  {seconds:8.2f}  {seconds / size * 1000:15.2f}")


if __name__ == "__main__":
    main()
