"""No silent wipe: emptying a tenant or the whole tree, the way Argo CD
would then prune it from the federation, needs --allow-empty in compile, the CMP and check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.compile.wipe import Wipe, wipes
from tests.helpers import run
from webhook.bundle.model import Bundle


def _files(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in (repo / "rendered").rglob("*")
        if p.is_file()
    }


@pytest.mark.slow
def test_an_empty_apps_directory_writes_nothing(platform_repo: Path) -> None:
    repo = platform_repo
    before = _files(repo)
    code, _, err = run(["compile", "empty"])
    assert code == 1
    assert "this deletes every workload of every tenant: 7 apps" in err
    assert "pass --allow-empty" in err and "nothing was written" in err
    assert _files(repo) == before


@pytest.mark.slow
def test_emptying_one_tenant_is_refused_and_allowed_on_request(platform_repo: Path) -> None:
    repo = platform_repo
    for name in ("checkout", "payments-api", "search-api"):
        (repo / "apps" / f"{name}.yaml").unlink()
    code, _, err = run(["compile"])
    assert code == 1
    assert (
        "every workload of tenant team-b: 3 apps (payments/checkout, payments/payments-api" in err
    )
    code, out, _ = run(["compile", "--allow-empty"])
    assert code == 0 and "9 removed" in out
    assert not (repo / "rendered" / "payments").exists()
    # The tenant keeps its Application, which prunes what it had.
    assert (repo / "rendered" / "argocd" / "team-b-application.yaml").exists()


@pytest.mark.slow
def test_removing_some_apps_of_a_tenant_needs_no_flag(platform_repo: Path) -> None:
    repo = platform_repo
    (repo / "apps" / "checkout.yaml").unlink()
    assert run(["compile"])[0] == 0


@pytest.mark.slow
@pytest.mark.usefixtures("platform_repo")
def test_the_plugin_refuses_to_print_nothing() -> None:
    code, out, err = run(["compile", "empty", "--out", "-"])
    assert (code, out) == (1, "")
    assert "printing nothing would make an Argo CD sync with prune delete every workload" in err
    code, out, _ = run(["compile", "empty", "--out", "-", "--allow-empty"])
    assert (code, out) == (0, "")
    code, out, _ = run(["compile", "--out", "-"])
    assert code == 0 and out.count("\nkind: Deployment\n") == 7


@pytest.mark.slow
def test_check_reports_the_deletion_and_fails(platform_repo: Path) -> None:
    repo = platform_repo
    for name in ("checkout", "payments-api", "search-api"):
        (repo / "apps" / f"{name}.yaml").unlink()
    assert run(["compile", "--allow-empty"])[0] == 0
    code, out, _ = run(["check"])
    assert code == 1
    assert "DELETES every workload of tenant team-b" in out
    code, out, _ = run(["check", "--output", "json"])
    report = json.loads(out)
    assert (code, report["ok"]) == (1, False)
    assert report["deletes"] == [
        {
            "tenant": "team-b",
            "apps": ["payments/checkout", "payments/payments-api", "payments/search-api"],
            "manifests": 9,
        }
    ]
    assert run(["check", "--allow-empty"])[0] == 0


def test_hand_written_files_do_not_count_as_kept_workloads(bundle: Bundle) -> None:
    """Only fedgate's own files (its manifest) are compared: a hand-written file of a tenant
    that stays does not hide that every rendered workload goes."""
    old = ["payments/a/deployment.yaml", "payments/a/propagationpolicy.yaml", "argocd/x.yaml"]
    assert wipes(old, ["argocd/x.yaml"], bundle) == [Wipe(None, ("payments/a",), 2)]
    assert wipes(old, ["platform-demo/b/deployment.yaml", "argocd/x.yaml"], bundle) == [
        Wipe("team-b", ("payments/a",), 2)
    ]
    assert wipes([], [], bundle) == []
