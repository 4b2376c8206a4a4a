"""Benchmark: `fedgate compile` and `--check` at N apps, against a floor measured in the same run.

    .venv/bin/python bench/compile.py [--sizes 100,1000,5000] [--repeat 3]

For each N it generates N app specs (a mix of the example shapes) and a bundle big enough to
hold them, then times, each in a fresh process (start-up included, as a user runs it):

- compile:  `fedgate compile` into an empty directory, no cache (every spec compiled);
- check:    `fedgate compile --check` with nothing changed, no cache;
- recompile: `fedgate compile` after one spec changed, with the compile cache warm (what a
            developer's second run costs);
- floor:    the same objects, unpickled, dumped with PyYAML's C dumper into files: no loading,
            validation, rendering or manifest. The ratio compile/floor is what fedgate costs.

It prints the median wall time of --repeat runs, the largest peak RSS of the child (a child's
peak starts at its parent's, so this script imports nothing heavy), and the time per app, so
linear growth shows as a flat column.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TENANTS = 10
SHAPES = [
    """  replicas: {replicas}
  ports: [8080]
  resources: {{requests: {{cpu: 100m, memory: 128Mi}}, limits: {{cpu: 500m, memory: 256Mi}}}}
  readinessProbe: {{httpGet: {{path: /ready, port: 8080}}}}
  envFrom: {{configMaps: [{name}-config], secrets: [{name}-db]}}
  placement:
    clusters: [cluster-a, cluster-b]
    replicas: Divided
    weights: {{cluster-a: 2, cluster-b: 1}}
  overrides:
    - clusters: [cluster-b]
      imageRegistry: mirror.example.cn
      annotations: {{ingress.example.com/class: internal}}
  failover: {{purge: graceful, tolerationSeconds: 120}}
""",
    """  resources: {{requests: {{cpu: 200m, memory: 256Mi}}}}
  placement:
    clusterLabels: {{residency: eu}}
    replicas: Divided
  autoscaling: {{owner: federated-hpa, minReplicas: 2, maxReplicas: 10}}
""",
    """  replicas: {replicas}
  resources: {{requests: {{cpu: 50m, memory: 64Mi}}}}
  envFrom: {{configMaps: [{name}-config]}}
  placement:
    clusters: [cluster-a, cluster-b, cluster-c]
    replicas: Duplicated
""",
    """  resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
  placement:
    clusters: [cluster-a, cluster-c]
  autoscaling: {{owner: member-hpa, maxReplicas: 4}}
""",
]


def generate(directory: Path, count: int) -> tuple[Path, Path]:
    policies, apps = directory / "policies", directory / "apps"
    shutil.copytree(ROOT / "policies", policies)
    tenants = ["tenants:"]
    for t in range(TENANTS):
        tenants += [
            f"  - name: team-{t}",
            f"    namespaces: [ns-{t}]",
            "    clusters: [cluster-a, cluster-b, cluster-c]",
            f"    registries: [registry.example.com/team-{t}/, mirror.example.cn/team-{t}/]",
        ]
    (policies / "tenants.yaml").write_text("\n".join(tenants) + "\n")
    for i in range(count):
        name, tenant = f"app-{i:05d}", i % TENANTS
        folder = apps / f"team-{tenant}"
        folder.mkdir(parents=True, exist_ok=True)
        body = SHAPES[i % len(SHAPES)].format(name=name, replicas=1 + i % 7)
        (folder / f"{name}.yaml").write_text(
            f"apiVersion: fedgate.dev/v1alpha1\nkind: App\nmetadata:\n  name: {name}\n"
            f"  namespace: ns-{tenant}\nspec:\n  tenant: team-{tenant}\n"
            f"  image: registry.example.com/team-{tenant}/{name}:1.{i}\n{body}"
        )
    return policies, apps


PREPARE = """
import pickle, sys
from pathlib import Path
from compiler.commands.compile import compile_paths
compiled = compile_paths([Path(sys.argv[1])], Path(sys.argv[2]))
objects = [(p, o) for r in compiled.rendered for p, o in r.files().items()]
Path(sys.argv[3]).write_bytes(pickle.dumps(objects))
"""

FLOOR = """
import pickle, sys, yaml
from pathlib import Path
out = Path(sys.argv[2])
for path, obj in pickle.loads(Path(sys.argv[1]).read_bytes()):
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.dump(obj, Dumper=yaml.CSafeDumper, sort_keys=False))
"""


def timed(command: list[str], expect: int = 0, cwd: Path = ROOT) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != expect:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return elapsed, usage.ru_maxrss / 1024


def measure(count: int, repeat: int) -> dict[str, tuple[float, float]]:
    fedgate = str(Path(sys.executable).with_name("fedgate"))
    with tempfile.TemporaryDirectory(prefix="fedgate-bench-") as scratch:
        work = Path(scratch)
        policies, apps = generate(work, count)
        # The parent stays small: a child's peak RSS starts at its parent's (fork).
        timed(
            [sys.executable, "-c", PREPARE, str(apps), str(policies), str(work / "objects.pickle")]
        )
        results: dict[str, list[tuple[float, float]]] = {
            "floor": [],
            "compile": [],
            "check": [],
            "recompile": [],
        }
        tree = [str(apps), "--policies", str(policies)]
        for run in range(repeat):
            out = work / f"out-{run}"
            results["floor"].append(
                timed(
                    [sys.executable, "-c", FLOOR, str(work / "objects.pickle"), str(work / "floor")]
                )
            )
            shutil.rmtree(work / "floor")
            # Full work every time: no compile cache (it lives in a git directory's .git).
            results["compile"].append(
                timed([fedgate, "compile", *tree, "--out", str(out), "--no-cache"], cwd=work)
            )
            results["check"].append(
                timed(
                    [fedgate, "compile", *tree, "--out", str(out), "--check", "--no-cache"],
                    cwd=work,
                )
            )
        # Incremental: a git repository, its cache warm, one spec changed, compile again.
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        timed([fedgate, "compile", *tree, "--out", str(work / "out-0")], cwd=work)
        changed = next(apps.rglob("app-00002.yaml"))  # replicas: 3
        for run in range(repeat):
            changed.write_text(
                changed.read_text().replace(f"replicas: {3 + run}", f"replicas: {4 + run}")
            )
            results["recompile"].append(
                timed([fedgate, "compile", *tree, "--out", str(work / "out-0")], cwd=work)
            )
        return {
            k: (statistics.median(t for t, _ in v), max(m for _, m in v))
            for k, v in results.items()
        }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'apps':>6} {'what':8} {'median s':>9} {'ms/app':>7} {'peak MiB':>9} {'x floor':>8}")
    for count in (int(n) for n in args.sizes.split(",")):
        results = measure(count, args.repeat)
        floor = results["floor"][0]
        for what, (seconds, peak) in results.items():
            print(
                f"{count:>6} {what:8} {seconds:9.2f} {seconds / count * 1000:7.2f} "
                f"{peak:9.0f} {seconds / floor:8.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
