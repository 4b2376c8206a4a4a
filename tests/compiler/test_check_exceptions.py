"""`fedgate compile`, `check` and `plan` honour policies/exceptions/ as the webhook does, on the
day --today gives (never the wall clock here); check warns before an exception expires, lists
the expired, and refuses a file outside policies/exceptions/ that claims to be one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from compiler.commands.bundle import configmap
from tests.conftest import EXAMPLES, POLICIES, ROOT
from tests.helpers import git, run
from tests.webhook.exception_files import LEGACY_EXCEPTION as EXCEPTION
from tests.webhook.exception_files import LIFTED


@pytest.fixture
def legacy(platform_repo: Path) -> Path:
    """The example repository with demo-http on :latest and an exception for it until
    2026-12-31, compiled on a day it is in force."""
    spec = platform_repo / "apps" / "demo-http.yaml"
    spec.write_text(spec.read_text().replace("demo-http:1.0", "demo-http:latest"))
    (platform_repo / "policies" / "exceptions").mkdir()
    (platform_repo / "policies" / "exceptions" / "legacy-demo.yaml").write_text(EXCEPTION)
    code, out, err = run(["compile", "--today", "2026-12-20"])
    assert code == 0, out + err
    return platform_repo


@pytest.mark.slow
def test_without_the_exception_latest_does_not_compile(platform_repo: Path) -> None:
    spec = platform_repo / "apps" / "demo-http.yaml"
    spec.write_text(spec.read_text().replace("demo-http:1.0", "demo-http:latest"))
    code, _, err = run(["compile", "--today", "2026-12-20"])
    assert code == 1
    assert "[image-tag]" in err


@pytest.mark.slow
def test_check_admits_what_the_exception_lifts_and_warns_before_it_expires(
    legacy: Path,
) -> None:
    code, out, err = run(["check", "--today", "2026-12-20"])
    assert code == 0, out + err
    assert (
        "policies/exceptions/legacy-demo.yaml:1: exception legacy-demo expires on 2026-12-31 "
        "(11 days left): image-tag in platform-demo is enforced from that day; owner "
        "platform@example.com"
    ) in out
    assert LIFTED in out


@pytest.mark.slow
def test_check_says_nothing_of_an_exception_far_from_its_date(legacy: Path) -> None:
    code, out, _ = run(["check", "--today", "2026-12-01"])
    assert code == 0 and "expires on" not in out
    code, out, _ = run(["check", "--today", "2026-12-01", "--expiry-warning", "30"])
    assert code == 0 and "(30 days left)" in out


@pytest.mark.slow
def test_check_denies_once_the_exception_expired_and_lists_it(legacy: Path) -> None:
    code, out, err = run(["check", "--today", "2026-12-31"])
    assert code == 1
    assert "[image-tag]" in out + err
    assert (
        "policies/exceptions/legacy-demo.yaml:1: exception legacy-demo expired on 2026-12-31: "
        "it lifts nothing (image-tag in platform-demo); remove the file (owner "
        "platform@example.com)"
    ) in err


@pytest.mark.slow
def test_check_json_lists_every_exception_with_its_days(legacy: Path) -> None:
    code, out, _ = run(["check", "--today", "2026-12-20", "--output", "json"])
    assert code == 0
    (listed,) = json.loads(out)["exceptions"]
    assert listed["name"] == "legacy-demo"
    assert (listed["daysLeft"], listed["status"]) == (11, "expiring")


@pytest.mark.slow
def test_plan_honours_the_exception_on_its_day(legacy: Path) -> None:
    code, out, err = run(["plan", "apps/demo-http.yaml", "--today", "2026-12-20"])
    assert code == 0, out + err
    code, out, err = run(["plan", "apps/demo-http.yaml", "--today", "2027-01-01"])
    assert code == 1
    assert "[image-tag]" in out + err


@pytest.mark.slow
def test_plan_lists_each_exception_with_its_days_in_every_output(legacy: Path) -> None:
    """What an exception costs, in the plan a reviewer reads: which rules it lifts where, whose
    it is and how long it has; an expired one is said to lift nothing."""
    code, out, err = run(["plan", "apps/demo-http.yaml", "--today", "2026-12-20"])
    assert code == 0, out + err
    assert (
        "legacy-demo: image-tag in platform-demo; owner platform@example.com; until 2026-12-31 "
        "(11 days left)"
    ) in " ".join(out.split())  # the line is wrapped to the terminal's width
    code, out, _ = run(["plan", "apps/demo-http.yaml", "--today", "2026-12-20", "--output", "json"])
    (listed,) = json.loads(out)["exceptions"]
    assert (listed["name"], listed["daysLeft"], listed["status"]) == ("legacy-demo", 11, "expiring")
    code, out, _ = run(
        ["plan", "apps/demo-http.yaml", "--today", "2026-12-20", "--output", "markdown"]
    )
    assert "| legacy-demo | image-tag | platform-demo | platform@example.com |" in out
    assert "until 2026-12-31 (11 days left)" in out
    code, out, _ = run(["plan", "apps/demo-http.yaml", "--today", "2026-12-20", "--output", "html"])
    assert '<h2 id="exceptions">Exceptions</h2>' in out and "legacy-demo" in out
    code, out, err = run(
        ["plan", "--today", "2026-12-20", "--tree", "rendered", "--output", "json"]
    )
    assert "exceptions" not in json.loads(out)  # --tree plans a tree, not the repository's change


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "text", "line"),
    [
        pytest.param("apps/legacy-demo.yaml", EXCEPTION, 2, id="beside the app specs"),
        pytest.param("teams/team-a/exception.yaml", EXCEPTION, 2, id="a tenant's folder"),
        pytest.param(
            "rendered/platform-demo/exception.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" + EXCEPTION,
            6,
            id="the rendered tree, second document",
        ),
        pytest.param(
            "policies/exceptions/nested/legacy-demo.yaml",
            EXCEPTION,
            2,
            id="a subfolder of exceptions, which is not read",
        ),
        pytest.param(
            "apps/claim.json",
            json.dumps({"apiVersion": "fedgate.dev/v1alpha1", "kind": "PolicyException"}),
            1,
            id="json",
        ),
    ],
)
def test_check_refuses_an_exception_outside_the_platforms_folder(
    platform_repo: Path, where: str, text: str, line: int
) -> None:
    path = platform_repo / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    for args in (["check"], ["check", where]):
        code, out, err = run([*args, "--today", "2026-12-20"])
        assert code == 1
        assert (
            f"{where}:{line}: an exception (fedgate.dev/v1alpha1 PolicyException) outside "
            "policies/exceptions/: exceptions belong to the platform team and are read only "
            "from there, so this one lifts nothing"
        ) in out + err


@pytest.fixture
def excepting_policies(tmp_path: Path) -> Path:
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    (policies / "exceptions").mkdir()
    (policies / "exceptions" / "legacy-demo.yaml").write_text(EXCEPTION)
    return policies


def test_review_prints_the_decision_an_exception_made(excepting_policies: Path) -> None:
    request = str(EXAMPLES / "requests" / "deployment-latest-tag-denied.json")
    args = ["review", request, "--policies", str(excepting_policies), "--output", "json"]
    code, out, _ = run([*args, "--today", "2026-12-20"])
    decision = json.loads(out)
    assert code == 0 and decision["allowed"] is True
    assert [(u["exception"], u["rule"]) for u in decision["exceptions"]] == [
        ("legacy-demo", "image-tag")
    ]
    code, out, _ = run([*args, "--today", "2026-12-31"])
    assert code == 1 and "exceptions" not in json.loads(out)


def test_the_bundle_configmap_carries_the_exceptions(excepting_policies: Path) -> None:
    text = configmap(excepting_policies, None).decode()
    assert "exceptions__legacy-demo.yaml: |" in text


@pytest.mark.slow
def test_check_all_finds_a_claim_committed_without_the_hook(platform_repo: Path) -> None:
    """A plain check looks at what changed since the base (CI's --base covers a branch whole);
    --all at every file, for one committed with --no-verify."""
    (platform_repo / "teams").mkdir()
    (platform_repo / "teams" / "exception.yaml").write_text(EXCEPTION)
    git(platform_repo, "add", "-A")
    git(platform_repo, "commit", "-qm", "slipped past the hook")
    code, out, err = run(["check", "--all", "--today", "2026-12-20"])
    assert code == 1
    assert "teams/exception.yaml:2: an exception" in out + err
    code, out, err = run(["check", "--base", "HEAD~1", "--today", "2026-12-20"])
    assert code == 1
    assert "teams/exception.yaml:2: an exception" in out + err


REPORT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy-report, namespace: payments}
spec:
  replicas: 1
  selector: {matchLabels: {app: legacy-report}}
  template:
    metadata: {labels: {app: legacy-report}}
    spec:
      containers:
        - name: report
          image: registry.example.com/payments/report:latest
          resources: {requests: {cpu: 100m, memory: 64Mi}}
"""


@pytest.mark.slow
def test_the_day_an_exception_expires_check_judges_every_manifest_again(
    platform_repo: Path,
) -> None:
    """A hand-written manifest unchanged since it was committed is not reviewed by a plain
    check, but the day its exception expires it is: the webhook denies it at the next sync."""
    folder = platform_repo / "rendered" / "payments" / "legacy-report"
    folder.mkdir(parents=True)
    (folder / "deployment.yaml").write_text(REPORT)
    (platform_repo / "policies" / "exceptions").mkdir()
    (platform_repo / "policies" / "exceptions" / "legacy-report.yaml").write_text(
        "apiVersion: fedgate.dev/v1alpha1\nkind: PolicyException\n"
        "metadata: {name: legacy-report}\nspec:\n  rules: [image-tag]\n"
        "  match: {namespaces: [payments], names: [legacy-report]}\n"
        "  reason: rebuilt nightly as latest\n  owner: payments@example.com\n"
        "  expires: 2026-12-31\n"
    )
    code, out, err = run(["check", "--today", "2026-12-20"])
    assert code == 0, out + err
    git(platform_repo, "add", "-A")
    git(platform_repo, "commit", "-qm", "the report, excepted")
    code, out, _ = run(["check", "--today", "2026-12-30"])
    assert code == 0 and "1 changed manifest" not in out
    code, out, _ = run(["check", "--today", "2026-12-31"])
    assert code == 1
    assert "DENIED  UPDATE apps/v1 Deployment payments/legacy-report" in out
    assert "would be DENIED" in out


@pytest.mark.slow
def test_a_day_that_is_not_a_date_is_a_usage_error(
    platform_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(["check", "--today", "tomorrow"])
    assert code == 2 and "'tomorrow' is not a date (YYYY-MM-DD)" in err
    monkeypatch.setenv("FEDGATE_TODAY", "tomorrow")
    code, _, err = run(["check"])
    assert code == 2 and "FEDGATE_TODAY='tomorrow' is not a date (YYYY-MM-DD)" in err


@pytest.fixture
def live_latest(tmp_path: Path) -> Path:
    """demo-http as it runs in the federation, its image turned to :latest by hand."""
    golden = ROOT / "tests" / "golden" / "examples" / "platform-demo" / "demo-http"
    live = yaml.safe_load((golden / "deployment.yaml").read_text())
    live["spec"]["template"]["spec"]["containers"][0]["image"] = (
        "registry.example.com/platform/demo-http:latest"
    )
    objects = tmp_path / "live.yaml"
    objects.write_text(yaml.safe_dump(live))
    return objects


def test_audit_lists_what_each_exception_lets_through_and_its_days(
    excepting_policies: Path, live_latest: Path
) -> None:
    args = ["audit", str(live_latest), "--policies", str(excepting_policies)]
    code, out, _ = run([*args, "--today", "2026-12-20"])
    assert code == 0, out
    assert (
        "EXCPT legacy-demo (platform-demo; 11 days left; owner platform@example.com): lets "
        "through 1 objection\n      platform-demo/Deployment/demo-http  image-tag: image "
        "registry.example.com/platform/demo-http:latest is not pinned"
    ) in out
    code, out, _ = run([*args, "--today", "2026-12-20", "--output", "json"])
    (lifted,) = json.loads(out)["exceptions"]
    assert (lifted["exception"], lifted["rule"], lifted["tenant"]) == (
        "legacy-demo",
        "image-tag",
        "team-a",
    )
    code, out, _ = run([*args, "--today", "2026-12-31"])
    assert code == 1
    assert (
        "EXCPT legacy-demo (platform-demo; expired; owner platform@example.com): lets through "
        "0 objections"
    ) in out


def test_a_policy_report_shows_a_lifted_objection_as_skip(
    excepting_policies: Path, live_latest: Path
) -> None:
    args = ["audit", str(live_latest), "--policies", str(excepting_policies)]
    code, out, _ = run([*args, "--today", "2026-12-20", "--output", "policyreport"])
    assert code == 0
    (report,) = list(yaml.safe_load_all(out))
    skipped = [r for r in report["results"] if r["result"] == "skip"]
    assert [(r["rule"], r["properties"]["exception"]) for r in skipped] == [
        ("image-tag", "legacy-demo")
    ]
    assert report["summary"]["skip"] == 1
