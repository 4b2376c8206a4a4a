"""Upstream code as an oracle: the small Go programs beside this file, built once per machine.

Each folder here (``cel/``, ``karmada/``, ``glob/``, ``podsecurity/``) is a Go module that
depends on the upstream modules by version (go.sum committed) and answers JSON lines on stdin
with JSON lines (``ask`` a batch, or a ``Conversation`` one line at a time). ``oracle``
builds one into ``$FEDGATE_ORACLE_CACHE`` (default ``~/.cache/fedgate-oracles``) under a name
keyed by a hash of its go.mod, go.sum, sources and the Go version, holding a file lock so that
concurrent test runs build it once; the Go module cache and build cache are Go's own (shared).
Where no ``go`` is found the tests that need an oracle are skipped, saying so.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import select
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
GO_CANDIDATES = ("/usr/local/go/bin/go",)
BUILD_TIMEOUT = 1800
"""Seconds a cold build may take (downloading the modules on a small, busy machine)."""


def go_binary() -> str | None:
    """The Go toolchain: ``$FEDGATE_GO``, ``go`` on the PATH, or /usr/local/go/bin/go."""
    named = os.environ.get("FEDGATE_GO") or shutil.which("go")
    if named:
        return named
    return next((c for c in GO_CANDIDATES if os.access(c, os.X_OK)), None)


def cache_root() -> Path:
    return Path(os.environ.get("FEDGATE_ORACLE_CACHE") or Path.home() / ".cache/fedgate-oracles")


def _key(module: Path, go: str) -> str:
    digest = hashlib.sha256()
    version = subprocess.run([go, "version"], capture_output=True, text=True, check=True).stdout
    digest.update(version.encode())
    for path in sorted(module.rglob("*")):
        if path.is_file() and (path.suffix == ".go" or path.name in ("go.mod", "go.sum")):
            digest.update(str(path.relative_to(module)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def oracle(name: str) -> Path:
    """The built oracle ``name`` (a folder beside this file); skips the test without Go."""
    go = go_binary()
    if go is None:
        pytest.skip(f"no Go toolchain (go on PATH, FEDGATE_GO): the {name} oracle cannot be built")
    module = HERE / name
    target = cache_root() / f"{name}-{_key(module, go)}" / name
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building it: wait, then reuse
        if not target.exists():
            partial = target.with_name(f".{name}.partial")
            # The live federation's flags (tests/e2e/build.py): Go keys its build cache by them,
            # so the Kubernetes and Karmada packages compiled here are reused by `make e2e`.
            env = {
                **os.environ,
                "GOTOOLCHAIN": "local",
                "GOFLAGS": "-mod=readonly",
                "CGO_ENABLED": "0",
            }
            done = subprocess.run(
                ["nice", "-n", "10", go, "build", "-trimpath", "-o", str(partial), "."],
                cwd=module,
                env=env,
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"building the {name} oracle failed:\n{done.stderr}")
            partial.replace(target)
    return target


def ask(binary: Path, requests: Iterable[Any], args: Sequence[str] = ()) -> list[Any]:
    """One oracle process for the whole batch: one JSON answer per request, in order."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    done = subprocess.run(
        [str(binary), *args], input=text.encode(), capture_output=True, timeout=600, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{binary.name} oracle failed: {done.stderr.decode(errors='replace')}")
    answers = [json.loads(line) for line in done.stdout.decode().split("\n") if line]
    assert len(answers) == text.count("\n"), "the oracle answered fewer lines than it was asked"
    return answers


class Conversation:
    """One oracle process answering one request at a time, for a test that asks as it draws
    (hypothesis): ``ask`` waits at most ``timeout`` seconds for each answer; ``close`` ends
    the process it started (by its pid, killing it if it does not stop within seconds)."""

    def __init__(self, binary: Path, args: Sequence[str] = (), timeout: float = 60) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen(
            [str(binary), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def ask(self, request: Any) -> Any:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        stdin.flush()
        ready, _, _ = select.select([stdout], [], [], self.timeout)
        if not ready:
            raise RuntimeError(f"the oracle did not answer within {self.timeout} s")
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the oracle stopped (exit {self.process.poll()})")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> Conversation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
