"""Helpers the tests share, not tests themselves: the ``fedgate`` command line run in process,
and git with a fixed identity. Test modules and fixtures import them from here, never from
another test module."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

from compiler.cli import main

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
"""Who commits in a test repository (a machine without a git identity commits too)."""


def run(args: list[str]) -> tuple[int, str, str]:
    """``fedgate ARGS`` in this process: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    code = main(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def git(
    cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd`` with the test identity, bounded in time."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=check,
        env={**os.environ, **(env or {}), **GIT_ENV},
    )
