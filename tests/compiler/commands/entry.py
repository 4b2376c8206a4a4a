"""Run the installed ``fedgate`` console script (.venv/bin/fedgate) as a user would.

Every first-use test goes through the real entry point, in a real directory, with an
environment free of the caller's FEDGATE_* settings.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import EXAMPLES, POLICIES
from tests.helpers import GIT_ENV

FEDGATE = Path(sys.executable).with_name("fedgate")
BIN = FEDGATE.parent


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without FEDGATE_* and colour settings, fedgate on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("FEDGATE_") and k not in ("NO_COLOR", "FORCE_COLOR")
    }
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(GIT_ENV)
    env.update(extra or {})
    return env


def fedgate(
    *args: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``fedgate ARGS`` in ``cwd``; never raises on a non-zero exit."""
    return subprocess.run(
        [str(FEDGATE), *args],
        cwd=cwd,
        env=environment(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def platform(tmp: Path, *, apps: bool = True, policies: bool = True) -> Path:
    """A platform repository: git, the example apps under apps/ and the bundle in policies/."""
    repo = tmp / "platform"
    repo.mkdir()
    git(repo, "init", "-q")
    if apps:
        shutil.copytree(EXAMPLES / "apps", repo / "apps")
    if policies:
        shutil.copytree(POLICIES, repo / "policies")
    return repo


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
