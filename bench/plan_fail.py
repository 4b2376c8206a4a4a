"""Benchmark: `fedgate plan --fail cluster-a` of a 1,000-app repository.

    .venv/bin/python bench/plan_fail.py [--apps 1000] [--hand-written 50] [--repeat 5]

Builds a git repository with N generated apps (bench/compile.py's shapes) and --hand-written
manifests (bench/check.py's), compiled and committed, as bench/plan.py does; declares each
cluster's allocatable in policies/clusters.yaml and turns cluster failover on in
policies/karmada.yaml (the Failover gate, NoExecute eviction, a ClusterTaintPolicy tainting a
cluster whose Ready is False), so every template on cluster-a is evicted, rescheduled and
counted in the storm. Then it times, each in a new process with the compile cache warm, the
median of --repeat runs of `plan --fail cluster-a` (text), `--output json`, and the text with
v1.18's defaults (no karmada.yaml: nothing evicted), and prints the wall and CPU seconds, the
lines and the exit status.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.check import ENV, hand_written, sh  # noqa: E402
from bench.compile import generate  # noqa: E402

KARMADA = """\
controllerManager:
  featureGates: {Failover: true}
  enableNoExecuteTaintEviction: true
clusterTaintPolicies:
  - name: evict-when-not-ready
    addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}]
    taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
"""
ALLOCATABLE = "    allocatable: {cpu: '400', memory: 1600Gi, pods: 3000}\n"


def repository(scratch: Path, apps: int, hand: int) -> Path:
    repo = scratch / "repo"
    repo.mkdir()
    policies, _ = generate(repo, apps)
    clusters = policies / "clusters.yaml"
    text = clusters.read_text()
    for region in ("eu-west", "eu-central", "us-east"):
        text = text.replace(f"    region: {region}\n", f"    region: {region}\n{ALLOCATABLE}")
    clusters.write_text(text)
    fedgate = str(Path(sys.executable).with_name("fedgate"))
    sh(repo, "git", "init", "-q")
    sh(repo, fedgate, "compile")
    hand_written(repo / "rendered", hand)
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "init")
    return repo


def run(repo: Path, command: list[str]) -> tuple[float, float, str, int]:
    """(wall seconds, CPU seconds of the process, stdout, exit status): on a shared machine the
    CPU time is the steadier measure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=repo, capture_output=True, env=ENV, timeout=900, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, result.stdout.decode(), result.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--hand-written", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    fedgate = str(Path(sys.executable).with_name("fedgate"))
    views = {
        "--fail cluster-a (defaults)": [fedgate, "plan", "--fail", "cluster-a"],
        "--fail cluster-a": [fedgate, "plan", "--fail", "cluster-a"],
        "--fail cluster-a --output json": [
            fedgate,
            "plan",
            "--fail",
            "cluster-a",
            "--output",
            "json",
        ],
    }
    with tempfile.TemporaryDirectory(prefix="fedgate-plan-fail-bench-") as scratch:
        repo = repository(Path(scratch), args.apps, args.hand_written)
        # a copy with failover on: a change of the bundle makes the compile cache cold, so the
        # two settings each keep their own repository
        on = Path(scratch) / "failover-on"
        shutil.copytree(repo, on, symlinks=True)
        (on / "policies" / "karmada.yaml").write_text(KARMADA)
        where = {view: repo if view.endswith("(defaults)") else on for view in views}
        for copy in (repo, on):
            run(copy, views["--fail cluster-a"])  # warm its compile cache
        samples: dict[str, list[float]] = {}
        cpus: dict[str, list[float]] = {}
        shapes: dict[str, tuple[int, int]] = {}
        for _ in range(args.repeat):
            for view, command in views.items():
                seconds, cpu, stdout, status = run(where[view], command)
                samples.setdefault(view, []).append(seconds)
                cpus.setdefault(view, []).append(cpu)
                shapes[view] = (len(stdout.splitlines()), status)
    print(
        f"{args.apps} apps and {args.hand_written} hand-written manifests; "
        f"medians of {args.repeat}:"
    )
    print(f"  {'plan':34} {'wall s':>8} {'cpu s':>8} {'lines':>7} {'exit':>4}")
    for view, times in samples.items():
        lines, status = shapes[view]
        print(
            f"  {view:34} {statistics.median(times):8.2f} {statistics.median(cpus[view]):8.2f} "
            f"{lines:7} {status:4}"
        )


if __name__ == "__main__":
    main()
