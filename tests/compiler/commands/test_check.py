"""``fedgate check``'s summary counts what it says: changed manifests, or all with --all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, git, no_traceback, platform

pytestmark = pytest.mark.slow  # runs the fedgate command line and git as processes


def test_the_summary_names_what_was_reviewed(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    for spec in (repo / "apps").glob("*.yaml"):
        if spec.name != "status-page.yaml":
            spec.unlink()
    assert fedgate("compile", cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one app")
    unchanged = fedgate("check", cwd=repo)
    assert unchanged.returncode == 0, unchanged.stdout
    assert unchanged.stdout.endswith(
        "fedgate check: 1 app; rendered/ up to date; 0 changed manifests reviewed as Argo CD's "
        "writes: would all be admitted\n"
    )
    everything = fedgate("check", "--all", cwd=repo)
    assert everything.stdout.endswith(
        "fedgate check: 1 app; rendered/ up to date; 2 manifests reviewed as Argo CD's writes: "
        "would all be admitted\n"
    )
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    assert fedgate("compile", cwd=repo).returncode == 0
    one = fedgate("check", cwd=repo)
    assert "; 1 changed manifest reviewed as Argo CD's writes" in one.stdout


def test_a_file_that_is_not_there_is_an_error_not_a_pass(tmp_path: Path) -> None:
    """`fedgate check apps/helo.yaml` (a typo) reviewed nothing and said "would all be
    admitted", exit 0; a removed file git HEAD still has is a change to review (a DELETE)."""
    repo = platform(tmp_path)
    assert fedgate("compile", cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the example apps")
    typo = fedgate("check", "apps/status-pag.yaml", cwd=repo)
    no_traceback(typo)
    assert typo.returncode == 2, typo.stdout
    assert typo.stderr == (
        "fedgate: apps/status-pag.yaml: no such file, here or in git HEAD; FILES are the spec "
        "or rendered files that changed\n"
    )
    as_json = fedgate("check", "apps/status-pag.yaml", "--output", "json", cwd=repo)
    assert json.loads(as_json.stdout)["errors"][0]["message"].startswith("apps/status-pag.yaml:")
    removed = repo / "apps" / "status-page.yaml"
    removed.unlink()
    deleted = fedgate("check", "--allow-empty", str(removed.relative_to(repo)), cwd=repo)
    no_traceback(deleted)
    assert "no such file" not in deleted.stderr
    assert "rendered/ STALE" in deleted.stdout
