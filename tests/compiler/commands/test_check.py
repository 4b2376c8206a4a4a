"""``fedgate check``'s summary counts what it says: changed manifests, or all with --all."""

from __future__ import annotations

from pathlib import Path

from tests.compiler.commands.entry import fedgate, git, platform


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
