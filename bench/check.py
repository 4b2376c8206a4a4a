"""Benchmark: `fedgate check` for one changed app in a 1,000-app repository, warm and cold.

    .venv/bin/python bench/check.py [--apps 1000] [--hand-written 50] [--repeat 5]
                                    [--baseline DIR] [--no-bytecode]

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

fedgate runs as `python -m compiler` with this checkout first on PYTHONPATH. --baseline DIR
runs the same workload with another checkout's code (DIR on PYTHONPATH instead, this venv's
packages), side by side: each checkout in its own copy of the repository (the compile cache
holds one code version's results, so two versions taking turns in one repository would each
find it cold), one run of each in turn, the order swapped every round, so a busy minute costs
both alike.

Python's bytecode is cached (under a scratch PYTHONPYCACHEPREFIX, never in the checkouts), as
in an installed fedgate (pip compiles it at install time); --no-bytecode compiles every module
from source on every run instead (PYTHONDONTWRITEBYTECODE=1, as some sandboxes set).

Each run's CPU time (user + system, from the kernel's accounting of the child) is printed
beside its wall time: on a busy shared machine the wall time moves with the load, the CPU
time much less, and on a quiet one they are close. It also prints where a check's start-up
goes (`python -X importtime` of that check, the largest imports).
"""

from __future__ import annotations

import argparse
import os
import re
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


def timed(
    cwd: Path, command: list[str], repeat: int, expect: int = 0, env: dict[str, str] = ENV
) -> float:
    return statistics.median(once(cwd, command, expect, env) for _ in range(repeat))


CPU: list[float] = []
"""The CPU seconds (user + system) of each run of ``once``, in order: on a shared machine
the wall time of a run moves with the load, its CPU time much less."""


def once(cwd: Path, command: list[str], expect: int = 0, env: dict[str, str] = ENV) -> float:
    """Seconds of one run of ``command`` (its CPU seconds appended to CPU); exits when it
    does not exit ``expect``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=cwd, capture_output=True, env=env, timeout=600, check=False
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if result.returncode != expect:
        raise SystemExit(
            f"{command} exited {result.returncode}:\n"
            f"{result.stdout.decode()}{result.stderr.decode()}"
        )
    return seconds


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


def repository(repo: Path, apps: int, hand: int) -> list[str]:
    """The repository, committed, with app-00007 changed and compiled (not committed); the
    files pre-commit would pass (the spec and its rendered manifests)."""
    generate(repo, apps)
    fedgate = str(BIN / "fedgate")
    sh(repo, "git", "init", "-q")
    sh(repo, fedgate, "compile")
    hand_written(repo / "rendered", hand)
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "init")
    spec = next((repo / "apps").rglob("app-00007.yaml"))
    text = spec.read_text()  # one more replica (or a higher HPA bound): a real change
    counted = re.search(r"(\n  replicas: |maxReplicas: )(\d+)", text)
    assert counted is not None
    spec.write_text(text[: counted.start(2)] + str(int(counted[2]) + 1) + text[counted.end(2) :])
    sh(repo, fedgate, "compile")
    return [
        str(spec.relative_to(repo)),
        *(
            str(p.relative_to(repo))
            for p in sorted((repo / "rendered").rglob("*.yaml"))
            if "app-00007" in str(p)
        ),
    ]


def largest_imports(stderr: str, count: int = 8) -> str:
    """The ``count`` largest cumulative imports of ``python -X importtime`` output, in ms."""
    costs = sorted(
        (
            (int(cumulative), name.strip())
            for _, cumulative, name in re.findall(
                r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", stderr
            )
        ),
        reverse=True,
    )[:count]
    return ", ".join(f"{name} {us / 1000:.0f}" for us, name in costs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--hand-written", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR", help="another checkout to run side by side"
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="compile every module on every run"
    )
    args = parser.parse_args()
    if shutil.which("git") is None or not (BIN / "yamllint").exists():
        raise SystemExit("needs git and yamllint (pip install -e '.[bench]')")
    checkouts = {"this checkout": ROOT}
    if args.baseline is not None:
        if not (args.baseline / "compiler" / "cli.py").is_file():
            raise SystemExit(f"--baseline {args.baseline}: not a fedgate checkout")
        checkouts[f"baseline {args.baseline}"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="fedgate-check-bench-") as scratch:
        env = {k: v for k, v in ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env["PYTHONPYCACHEPREFIX"] = str(Path(scratch) / "pycache")
        repo = Path(scratch) / "repo"
        changed = repository(repo, args.apps, args.hand_written)
        copies, envs = {}, {}
        for number, (label, code) in enumerate(checkouts.items()):
            copies[label] = Path(scratch) / f"copy-{number}"
            shutil.copytree(repo, copies[label], symlinks=True)
            envs[label] = {**env, "PYTHONPATH": str(code)}
        check = [sys.executable, "-m", "compiler", "check", *changed]
        for label in checkouts:  # its bytecode written, its compile cache warm
            once(copies[label], check, env=envs[label])
        floor = timed(repo, [sys.executable, "-c", "pass"], args.repeat, env=env)
        lint = timed(repo, [str(BIN / "yamllint"), "-d", "relaxed", *changed], args.repeat, env=env)
        warm: dict[str, list[float]] = {label: [] for label in checkouts}
        cold: dict[str, list[float]] = {label: [] for label in checkouts}
        cpu: dict[tuple[str, str], list[float]] = {}
        for round_ in range(args.repeat):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            for label in order:
                warm[label].append(once(copies[label], check, env=envs[label]))
                cpu.setdefault((label, "warm"), []).append(CPU[-1])
        for round_ in range(max(args.repeat // 2, 1)):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            for label in order:
                shutil.rmtree(copies[label] / ".git" / "fedgate", ignore_errors=True)
                cold[label].append(once(copies[label], check, env=envs[label]))
                cpu.setdefault((label, "cold"), []).append(CPU[-1])
        imports = {
            label: subprocess.run(
                [sys.executable, "-X", "importtime", *check[1:]],
                cwd=copies[label],
                capture_output=True,
                text=True,
                env=envs[label],
                check=True,
            ).stderr
            for label in checkouts
        }
    report(args, changed, (floor, lint), list(checkouts), (warm, cold, cpu), imports)


def report(  # noqa: PLR0917 - the pieces main measured
    args: argparse.Namespace,
    changed: list[str],
    floors: tuple[float, float],
    checkouts: list[str],
    measured: tuple[
        dict[str, list[float]], dict[str, list[float]], dict[tuple[str, str], list[float]]
    ],
    imports: dict[str, str],
) -> None:
    """Print the medians, side by side, and the largest imports."""
    (floor, lint), (warm, cold, cpu) = floors, measured
    print(
        f"{args.apps} apps and {args.hand_written} hand-written manifests, one app changed "
        f"({len(changed)} files), medians of {args.repeat}"
        + (", alternating" if len(checkouts) > 1 else "")
        + (", no bytecode cache" if args.no_bytecode else "")
        + f"; load average {os.getloadavg()[0]:.1f}:"
    )
    rows = [("python -c pass", floor, None), ("yamllint (changed files)", lint, None)]
    for label in checkouts:
        for kind, samples in (("warm", warm), ("cold", cold)):
            rows.append(
                (
                    f"check, {kind} cache ({label})",
                    statistics.median(samples[label]),
                    statistics.median(cpu[(label, kind)]),
                )
            )
    width = max(len(label) for label, _, _ in rows)
    print(f"  {'':{width}} {'wall':>9}  {'':>13} {'CPU (user+sys)':>14}")
    for label, seconds, used in rows:
        spent = f"{used:7.3f} s" if used is not None else ""
        print(f"  {label:{width}} {seconds:7.3f} s  {seconds / floor:6.1f}x python  {spent:>12}")
    if len(checkouts) > 1:
        mine, base = list(checkouts)
        for kind, samples in (("warm", warm), ("cold", cold)):
            ratio = statistics.median(samples[mine]) / statistics.median(samples[base])
            used = statistics.median(cpu[(mine, kind)]) / statistics.median(cpu[(base, kind)])
            print(
                f"  {kind}: this checkout takes {ratio:.2f}x the baseline's wall time, "
                f"{used:.2f}x its CPU time"
            )
    for label in checkouts:
        print(f"  largest imports of a check, cumulative ms ({label}):")
        print(f"    {largest_imports(imports[label])}")


if __name__ == "__main__":
    main()
