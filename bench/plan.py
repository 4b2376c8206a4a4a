"""Benchmark: `fedgate plan` of a 2,000-app repository with one app changed, as a reviewer reads it.

    .venv/bin/python bench/plan.py [--apps 2000] [--hand-written 50] [--repeat 3]
                                   [--fedgate PATH ...]

Builds a git repository with N generated apps (bench/compile.py's shapes) and --hand-written
manifests beside fedgate's files (bench/check.py's), compiled and committed, then changes one app
(one more replica, or a higher HPA bound) and compiles it, so the working tree differs from HEAD
by one app, as in a pull request. Then, for each --fedgate given (default: this checkout's; give
another checkout's to compare side by side, runs interleaved, each in its own copy of the
repository), it runs, each in a new process with the compile cache warm, the median of
--repeat runs of:

- `fedgate plan` (text, the default view);
- `fedgate plan --all` (text, every app; skipped by a fedgate without --all);
- `fedgate plan --output json`;
- `fedgate plan --output markdown` and `--output html` (the pull-request comment and the page;
  skipped by a fedgate without them);

and prints the wall time, the lines and characters on stdout, the widest line and the exit
status.
"""

from __future__ import annotations

import argparse
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

VIEWS = {
    "plan": ["plan"],
    "plan --all": ["plan", "--all"],
    "plan --output json": ["plan", "--output", "json"],
    "plan --output markdown": ["plan", "--output", "markdown"],
    "plan --output html": ["plan", "--output", "html"],
}


def repository(scratch: Path, apps: int, hand: int) -> Path:
    """The repository, committed, with app-00007 changed and compiled (not committed)."""
    repo = scratch / "repo"
    repo.mkdir()
    generate(repo, apps)
    fedgate = str(Path(sys.executable).with_name("fedgate"))
    sh(repo, "git", "init", "-q")
    sh(repo, fedgate, "compile")
    hand_written(repo / "rendered", hand)
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "init")
    spec = next((repo / "apps").rglob("app-00007.yaml"))
    text = spec.read_text()
    marker = "maxReplicas: " if "maxReplicas: " in text else "\n  replicas: "
    start = text.index(marker) + len(marker)
    end = start + len(text[start:].split("\n", 1)[0].split(",", 1)[0].rstrip("}").strip())
    spec.write_text(text[:start] + str(int(text[start:end]) + 1) + text[end:])
    sh(repo, fedgate, "compile")
    return repo


def run(repo: Path, command: list[str]) -> tuple[float, str, int]:
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=repo, capture_output=True, env=ENV, timeout=900, check=False
    )
    return time.perf_counter() - start, result.stdout.decode(), result.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--apps", type=int, default=2000)
    parser.add_argument("--hand-written", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fedgate", action="append", type=Path, default=[])
    args = parser.parse_args()
    binaries = [b.absolute() for b in args.fedgate] or [Path(sys.executable).with_name("fedgate")]
    with tempfile.TemporaryDirectory(prefix="fedgate-plan-bench-") as scratch:
        repo = repository(Path(scratch), args.apps, args.hand_written)
        # a copy per fedgate: the compile cache holds one code version's results, so two
        # versions taking turns in one repository would each find it cold
        copies = {}
        for number, binary in enumerate(binaries):
            copies[binary] = Path(scratch) / f"copy-{number}"
            shutil.copytree(repo, copies[binary], symlinks=True)
            run(copies[binary], [str(binary), "plan"])  # warm its compile cache
        samples: dict[tuple[Path, str], list[float]] = {}
        shapes: dict[tuple[Path, str], tuple[int, int, int, int]] = {}
        for _ in range(args.repeat):
            for view, words in VIEWS.items():
                for binary in binaries:
                    seconds, stdout, status = run(copies[binary], [str(binary), *words])
                    if status == 2:  # this fedgate has no such option
                        continue
                    lines = stdout.splitlines()
                    samples.setdefault((binary, view), []).append(seconds)
                    shapes[(binary, view)] = (
                        len(lines),
                        len(stdout),
                        max((len(line) for line in lines), default=0),
                        status,
                    )
    print(
        f"{args.apps} apps and {args.hand_written} hand-written manifests, one app changed; "
        f"medians of {args.repeat}, interleaved:"
    )
    print(
        f"  {'fedgate':44} {'view':24} {'seconds':>8} {'lines':>7} {'chars':>9} {'widest':>7} "
        f"{'exit':>4}"
    )
    for (binary, view), times in samples.items():
        lines, chars, widest, status = shapes[(binary, view)]
        print(
            f"  {str(binary)[-44:]:44} {view:24} {statistics.median(times):8.2f} "
            f"{lines:7} {chars:9} {widest:7} {status:4}"
        )


if __name__ == "__main__":
    main()
