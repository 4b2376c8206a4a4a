"""helm, built from its Go module (``tests/deploy/gomod/helm``) into the cache the live
federation's programs use (``$FEDGATE_E2E_CACHE``, default ``~/.cache/fedgate-e2e``), keyed by
version: ``python -m tests.deploy.helm`` builds it; the chart tests call ``helm_binary()``."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MODULE = Path(__file__).resolve().parent / "gomod" / "helm"
PACKAGE = "helm.sh/helm/v3/cmd/helm"


class Unavailable(Exception):
    """helm cannot be built here (no Go): the tests skip, saying so."""


def cache_root() -> Path:
    return Path(os.environ.get("FEDGATE_E2E_CACHE", Path.home() / ".cache" / "fedgate-e2e"))


def version() -> str:
    found = re.search(r"^require helm\.sh/helm/v3 (v\S+)$", (MODULE / "go.mod").read_text(), re.M)
    if found is None:
        raise RuntimeError(f"{MODULE / 'go.mod'} pins no helm.sh/helm/v3 version")
    return found[1]


def helm_binary() -> Path:
    """The cached helm, built first when missing (under a lock: test runs may race)."""
    target = cache_root() / f"helm-{version()}" / "helm"
    if target.is_file():
        return target
    go = shutil.which("go")
    if go is None:
        raise Unavailable("Go is not installed: helm is built from its Go module")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            return target
        partial = target.with_suffix(".partial")
        env = {**os.environ, "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
        result = subprocess.run(
            [go, "build", "-trimpath", "-o", str(partial), PACKAGE],
            cwd=MODULE,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"go build {PACKAGE} failed:\n{result.stderr[-4000:]}")
        partial.replace(target)
    return target


if __name__ == "__main__":
    try:
        print(helm_binary())
    except Unavailable as exc:
        sys.exit(f"not built: {exc}")
