"""Benchmark: the worst cases of Argo CD's glob matching, the Python port against gobwas/glob.

    .venv/bin/python bench/argocd_glob.py [--repeat 3] [--timeout 60] [--gobwas MIRROR]

Adversarial patterns (about 200 characters) against a 10,000-byte text (one shorter case
shows how both grow where gobwas is exponential): repeated stars, a
long run of ``?``, alternatives, negated lists, multi-byte runes. Each match (compile
included, cache cold) runs in its own process with a timeout, since gobwas itself takes
exponential time on some of them (``*a`` repeated). The port must keep gobwas's complexity:
not a backtracking regex (a 3-star pattern took > 30 s with the old regex translation).

With Go on PATH and the gobwas/glob git mirror (``--gobwas``, default
/work/.mirror/gobwas+glob/repo), it also builds a small Go program with gobwas v0.2.3 and
times the same cases side by side (Go's ``filepath.Match`` for the last one); it prints the
medians and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = 10_000

CASES = [
    # name, pattern, text, separators ("PATH": filepath.Match)
    ("'*a' x 100 (matches)", "*a" * 100, "a" * N, ""),
    ("'*a' x 14, text a^300 (matches)", "*a" * 14, "a" * 300, ""),
    ("'*a' x 99 + '*b'", "*a" * 99 + "*b", "a" * N, ""),
    ("'*é' x 100", "*é" * 100, "é" * (N // 2), ""),
    ("padded '*a*b'", "a" * 196 + "*a*b", "a" * N, ""),
    ("padded '*a*a*b'", "a" * 194 + "*a*a*b", "a" * N, ""),
    ("padded '*a*a*a*b'", "a" * 192 + "*a*a*a*b", "a" * N, ""),
    ("padded '*a*a*b', separator /", "a" * 194 + "*a*a*b", "a" * N, "/"),
    ("padded '**a**a**b'", "a" * 191 + "**a**a**b", "a" * N, ""),
    ("'?' x 199 + '*'", "?" * 199 + "*", "a" * N, ""),
    ("'[!a]' x 40 + '*'", "[!a]" * 40 + "*", "b" * N, ""),
    ("'{a,b}*' x 33 + 'cc'", "{a,b}*" * 33 + "cc", "a" * N, ""),
    ("'*{a,b}*' x 28 + 'cc'", "*{a,b}*" * 28 + "cc", "a" * N, ""),
    ("'?{a,b}' x 33 + 'c'", "?{a,b}" * 33 + "c", "ab" * (N // 2), ""),
    ("filepath.Match '*a' x 99 + '*b'", "*a" * 99 + "*b", "a" * N, "PATH"),
]

PYTHON_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from compiler.argocd.glob import match, path_match
case = json.loads(sys.stdin.read())
start = time.perf_counter()
if case["path"]:
    found = path_match(case["p"], case["t"])
else:
    found = match(case["p"], case["t"], case["sep"])
print(json.dumps({"s": time.perf_counter() - start, "m": found}))
"""

GO_PROGRAM = """package main

import (
\t"bufio"
\t"encoding/json"
\t"fmt"
\t"os"
\t"path/filepath"
\t"time"

\t"github.com/gobwas/glob"
)

func main() {
\tin := bufio.NewScanner(os.Stdin)
\tin.Buffer(make([]byte, 1<<20), 1<<26)
\tfor in.Scan() {
\t\tvar c struct {
\t\t\tP, T, Sep string
\t\t\tPath      bool
\t\t}
\t\tif err := json.Unmarshal(in.Bytes(), &c); err != nil {
\t\t\tpanic(err)
\t\t}
\t\tstart := time.Now()
\t\tfound := false
\t\tif c.Path {
\t\t\tfound, _ = filepath.Match(c.P, c.T)
\t\t} else if g, err := glob.Compile(c.P, []rune(c.Sep)...); err == nil {
\t\t\tfound = g.Match(c.T)
\t\t}
\t\tfmt.Printf("{\\"s\\": %.6f, \\"m\\": %v}\\n", time.Since(start).Seconds(), found)
\t}
}
"""


def build_go(gobwas: Path, build: Path) -> Path | None:
    """The Go timing program with gobwas v0.2.3; None without Go or the mirror."""
    if shutil.which("go") is None or not gobwas.is_dir():
        return None
    archive = subprocess.run(
        ["git", "-C", str(gobwas), "archive", "v0.2.3"], capture_output=True, check=True
    )
    (build / "gobwas").mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(build / "gobwas")], input=archive.stdout, check=True)
    (build / "gobwas" / "go.mod").write_text("module github.com/gobwas/glob\n\ngo 1.19\n")
    (build / "go.mod").write_text(
        "module timing\n\ngo 1.19\n\nrequire github.com/gobwas/glob v0.2.3\n\n"
        "replace github.com/gobwas/glob => ./gobwas\n"
    )
    (build / "main.go").write_text(GO_PROGRAM)
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOSUMDB="off")
    binary = build / "timing"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=build, check=True, env=env)
    return binary


def run_once(command: list[str], case: dict[str, object], timeout: float) -> float | None:
    """Seconds the match took inside the child (None: killed at the timeout)."""
    try:
        out = subprocess.run(
            command,
            input=json.dumps(case),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return float(json.loads(out.stdout)["s"])


def median(command: list[str], case: dict[str, object], repeat: int, timeout: float) -> str:
    samples = []
    for _ in range(repeat):
        took = run_once(command, case, timeout)
        if took is None:
            return f">{timeout:.0f} s"
        samples.append(took)
    return f"{statistics.median(samples):.4f} s"


def _seconds(text: str) -> float | None:
    return None if text.startswith(">") else float(text.split(maxsplit=1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--gobwas", type=Path, default=Path("/work/.mirror/gobwas+glob/repo"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="argocd-glob-bench-") as temporary:
        go = build_go(args.gobwas, Path(temporary))
        python = [sys.executable, "-c", PYTHON_CHILD, str(ROOT)]
        print(f"{'case':34} {'python':>12} {'go':>12} {'ratio':>8}")
        for name, pattern, text, separators in CASES:
            path = separators == "PATH"
            case = {"p": pattern, "t": text, "sep": "" if path else separators, "path": path}
            py = median(python, case, args.repeat, args.timeout)
            go_case = {"P": pattern, "T": text, "Sep": case["sep"], "Path": path}
            gos = median([str(go)], go_case, args.repeat, args.timeout) if go else "n/a"
            py_s, go_s = _seconds(py), _seconds(gos) if go else None
            ratio = f"{py_s / go_s:.0f}x" if py_s is not None and go_s else "-"
            print(f"{name:34} {py:>12} {gos:>12} {ratio:>8}", flush=True)


if __name__ == "__main__":
    main()
