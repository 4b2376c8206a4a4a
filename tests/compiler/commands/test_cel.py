"""``fedgate cel export --out`` where a file cannot go: the user's path is named, and no
temporary file is left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, no_traceback, platform

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process


def test_export_into_a_directory_names_it_and_leaves_nothing(tmp_path: Path) -> None:
    """`cel export --out apps` said "fedgate: .apps.tmp: is a directory" and left a 5 KB
    `.apps.tmp` beside the specs."""
    repo = platform(tmp_path)
    before = sorted(p.name for p in repo.iterdir())
    result = fedgate("cel", "export", "--out", "apps", cwd=repo)
    no_traceback(result)
    assert result.returncode == 2
    assert result.stderr == (
        "fedgate: --out apps is a directory; give a file, or - for standard output\n"
    )
    assert sorted(p.name for p in repo.iterdir()) == before


def test_export_into_a_missing_directory_names_the_file(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    result = fedgate("cel", "export", "--out", "deploy/vaps.yaml", "--output", "json", cwd=repo)
    no_traceback(result)
    assert result.returncode == 1
    assert json.loads(result.stdout)["errors"][0]["message"] == (
        "deploy/vaps.yaml: no such file or directory"
    )
    assert not (repo / "deploy").exists()
