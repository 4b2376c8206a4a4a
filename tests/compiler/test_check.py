"""`fedgate check` in a real git repository: what changed against HEAD, reviewed as Argo CD's
writes (CREATE, UPDATE with the committed version, DELETE for what is gone)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.compiler.test_examples import run
from tests.conftest import EXAMPLES, POLICIES
from tests.shiftleft.test_precommit import git


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLES / "apps", tmp_path / "apps")
    shutil.copytree(POLICIES, tmp_path / "policies")
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert run(["compile"])[0] == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def check(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, _ = run(["check", "--output", "json", *args])
    return code, json.loads(out)


def test_nothing_changed(repo: Path) -> None:
    code, report = check()
    assert (code, report["ok"], report["reviews"]) == (0, True, [])
    code, report = check("--all")
    assert code == 0 and len(report["reviews"]) == 19  # every Karmada manifest, not Argo CD's
    assert {r["operation"] for r in report["reviews"]} == {"UPDATE"}


def test_changes_are_reviewed_as_updates_and_deletes(repo: Path) -> None:
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    (repo / "apps" / "checkout.yaml").unlink()
    assert run(["compile"])[0] == 0
    code, report = check()
    assert code == 0, report
    operations = {(r["file"].split("rendered/")[1], r["operation"]) for r in report["reviews"]}
    assert operations == {
        ("platform-demo/status-page/deployment.yaml", "UPDATE"),
        ("payments/checkout/deployment.yaml", "DELETE"),
        ("payments/checkout/overridepolicy.yaml", "DELETE"),
        ("payments/checkout/propagationpolicy.yaml", "DELETE"),
    }


def test_a_stale_tree_fails(repo: Path) -> None:
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    code, report = check()
    assert code == 1 and not report["ok"]
    assert report["stale"]["stale"] == ["platform-demo/status-page/deployment.yaml"]


def test_an_update_admission_would_deny_fails(repo: Path) -> None:
    """A committed export carries Karmada's claim label; the render drops it: Argo CD's UPDATE
    would remove a field Karmada owns, and the webhook would deny it."""
    path = repo / "rendered" / "platform-demo" / "demo-http" / "deployment.yaml"
    fresh = path.read_text()
    path.write_text(
        fresh.replace(
            "    app.kubernetes.io/managed-by: fedgate\n",
            "    app.kubernetes.io/managed-by: fedgate\n"
            "    propagationpolicy.karmada.io/permanent-id: 0d8a5a63\n",
        )
    )
    git(repo, "commit", "-qam", "an export committed by mistake")
    path.write_text(fresh)
    code, report = check()
    assert code == 1
    [denied] = [r for r in report["reviews"] if not r["allowed"]]
    assert denied["operation"] == "UPDATE"
    assert denied["violations"][0]["message"].startswith(
        "/metadata/labels/propagationpolicy.karmada.io~1permanent-id is owned by karmada"
    )


def test_files_narrow_the_review(repo: Path) -> None:
    code, report = check("--all", "apps/demo-http.yaml")
    assert code == 0
    assert len(report["reviews"]) == 19  # --all wins
    code, report = check("apps/demo-http.yaml")
    assert sorted(r["file"].rsplit("/", 1)[1] for r in report["reviews"]) == [
        "deployment.yaml",
        "overridepolicy.yaml",
        "propagationpolicy.yaml",
    ]
