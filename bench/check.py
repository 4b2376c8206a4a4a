"""Benchmark: `fedgate check` for one changed app in a 1,000-app repository, cold.

    .venv/bin/python bench/check.py [--apps 1000] [--hand-written 50] [--repeat 5]

Builds a git repository with N generated apps (bench/compile.py's shapes) and the Argo CD
Applications that sync them, plus --hand-written manifests beside fedgate's files in the
tenants' namespaces (ConfigMaps, Services, StatefulSets and OverridePolicies, which check
reads, selects through the Applications' globs and reviews), compiled and committed, and the
compile cache warm (as on a developer's machine after the first run). Then it changes one app,
re-renders it, and times, each in a new process (imports included), the median of --repeat
runs of:

- `python -c pass`: the interpreter's start-up, the floor of any hook;
- `yamllint` on the changed files (the spec and its rendered manifests), the usual YAML hook;
- `fedgate check` with those files, as pre-commit calls it;
- `fedgate check` with a cold cache (a fresh clone, or after a bundle change).

It also prints where fedgate's start-up goes (`python -X importtime`, the largest imports).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}


def sh(cwd: Path, *command: str) -> None:
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=ENV, timeout=600)


def timed(cwd: Path, command: list[str], repeat: int, expect: int = 0) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(
            command, cwd=cwd, capture_output=True, env=ENV, timeout=600, check=False
        )
        samples.append(time.perf_counter() - start)
        if result.returncode != expect:
            raise SystemExit(
                f"{command} exited {result.returncode}:\n"
                f"{result.stdout.decode()}{result.stderr.decode()}"
            )
    return statistics.median(samples)


def hand_written(tree: Path, count: int) -> None:
    """``count`` manifests written by hand beside fedgate's, in the tenants' namespaces."""
    for i in range(count):
        namespace = f"ns-{i % 10}"
        folder = tree / namespace / "platform"
        folder.mkdir(parents=True, exist_ok=True)
        kind = i % 5
        if kind in (0, 1):
            text = (
                f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: hand-{i}, namespace: "
                f"{namespace}}}\ndata: {{greeting: hello-{i}}}\n"
            )
        elif kind == 2:
            text = (
                f"apiVersion: v1\nkind: Service\nmetadata: {{name: hand-{i}, namespace: "
                f"{namespace}}}\nspec:\n  selector: {{app: hand-{i}}}\n  ports: [{{port: 80}}]\n"
            )
        elif kind == 3:
            text = (
                f"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: hand-{i}, "
                f"namespace: {namespace}}}\nspec:\n  replicas: 2\n  serviceName: hand-{i}\n"
                f"  selector: {{matchLabels: {{app: hand-{i}}}}}\n  template:\n"
                f"    metadata: {{labels: {{app: hand-{i}}}}}\n    spec:\n      containers:\n"
                f"        - name: db\n          image: registry.example.com/team-{i % 10}/db:1.0\n"
                f"          resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}\n"
            )
        else:
            text = (
                "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\n"
                f"metadata: {{name: hand-{i}, namespace: {namespace}}}\nspec:\n"
                f"  resourceSelectors: [{{apiVersion: apps/v1, kind: StatefulSet, "
                f"name: hand-{i - 1}}}]\n  overrideRules:\n    - targetCluster: "
                "{clusterNames: [cluster-b]}\n      overriders:\n        labelsOverrider: "
                "[{operator: add, value: {zone: b}}]\n"
            )
        (folder / f"hand-{i}.yaml").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--hand-written", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("git") is None or not (BIN / "yamllint").exists():
        raise SystemExit("needs git and yamllint (pip install -e '.[bench]')")
    with tempfile.TemporaryDirectory(prefix="fedgate-check-bench-") as scratch:
        repo = Path(scratch)
        generate(repo, args.apps)
        fedgate = str(BIN / "fedgate")
        sh(repo, "git", "init", "-q")
        sh(repo, fedgate, "compile")
        hand_written(repo / "rendered", args.hand_written)
        sh(repo, "git", "add", "-A")
        sh(repo, "git", "commit", "-qm", "init")
        spec = next((repo / "apps").rglob("app-00007.yaml"))
        text = spec.read_text()  # one more replica (or a higher HPA bound): a real change
        counted = re.search(r"(\n  replicas: |maxReplicas: )(\d+)", text)
        assert counted is not None
        spec.write_text(
            text[: counted.start(2)] + str(int(counted[2]) + 1) + text[counted.end(2) :]
        )
        sh(repo, fedgate, "compile")
        changed = [
            str(spec.relative_to(repo)),
            *(
                str(p.relative_to(repo))
                for p in (repo / "rendered").rglob("*.yaml")
                if "app-00007" in str(p)
            ),
        ]
        floor = timed(repo, [sys.executable, "-c", "pass"], args.repeat)
        lint = timed(repo, [str(BIN / "yamllint"), "-d", "relaxed", *changed], args.repeat)
        warm = timed(repo, [fedgate, "check", *changed], args.repeat)
        cache = repo / ".git" / "fedgate"
        cold_samples = []
        for _ in range(max(args.repeat // 2, 1)):
            shutil.rmtree(cache, ignore_errors=True)
            cold_samples.append(timed(repo, [fedgate, "check", *changed], 1))
        cold = statistics.median(cold_samples)
        imports = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import compiler.commands.check"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
    print(
        f"{args.apps} apps and {args.hand_written} hand-written manifests, one app changed "
        f"({len(changed)} files), medians of {args.repeat}:"
    )
    for label, seconds in (
        ("python -c pass", floor),
        ("yamllint (changed files)", lint),
        ("fedgate check (warm cache)", warm),
        ("fedgate check (cold cache)", cold),
    ):
        print(f"  {label:28} {seconds:7.3f} s  {seconds / floor:6.1f}x python")
    costs = sorted(
        (
            (int(m[2]), m[3].strip())
            for m in re.finditer(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", imports)
        ),
        reverse=True,
    )
    costs = sorted(
        (
            (int(cumulative), name.strip())
            for _, cumulative, _, name in re.findall(
                r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", imports
            )
        ),
        reverse=True,
    )[:8]
    print(
        "  largest imports (cumulative ms): "
        + ", ".join(f"{name} {us / 1000:.0f}" for us, name in costs)
    )


if __name__ == "__main__":
    main()
