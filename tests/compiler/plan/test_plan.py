"""fedgate plan on the example apps: golden text and JSON, and the arithmetic behind them.

Regenerate with `make golden` (FEDGATE_REGENERATE_GOLDEN=1); review the diff.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from compiler.cli import main
from compiler.commands.compile import compile_paths
from compiler.plan.changes import AppChange, summarize
from compiler.plan.core import Plan, plan
from compiler.plan.jsonview import as_json
from compiler.plan.text import finish, report
from compiler.render.pipeline import render_app
from compiler.spec.load import parse_specs
from tests.compiler.plan.golden import matches_golden
from tests.compiler.plan.manifests import BANNER, HUB, MIRROR
from tests.conftest import EXAMPLES, POLICIES
from webhook.bundle.model import Bundle


@pytest.fixture(scope="module")
def example_plan(bundle: Bundle) -> Plan:
    return plan(compile_paths([EXAMPLES / "apps"], POLICIES).rendered, bundle)


def test_text_golden(example_plan: Plan) -> None:
    """``plan --all`` of the examples with nothing changed: every app as it plans."""
    apps = [AppChange(a.namespace, a.name, "none", a, a) for a in example_plan.apps]
    lines = report(
        apps,
        [],
        [(t, None, None) for t in example_plan.tenants],
        summarize(apps, []),
        everything=True,
    )
    matches_golden("plan.txt", "\n".join(finish(lines, color=False)) + "\n")


def test_json_golden(example_plan: Plan) -> None:
    matches_golden("plan.json", json.dumps(as_json(example_plan, {}), indent=2) + "\n")


def test_the_seeds_example(example_plan: Plan) -> None:
    demo = next(a for a in example_plan.apps if a.name == "demo-http")
    assert demo.placement == {"cluster-a": 4, "cluster-b": 2}
    assert demo.alternatives == ()
    images = {
        c: o["spec"]["template"]["spec"]["containers"][0]["image"] for c, o in demo.clusters.items()
    }
    assert images == {
        "cluster-a": "registry.example.com/platform/demo-http:1.0",
        "cluster-b": "mirror.example.cn/platform/demo-http:1.0",
    }
    assert (
        demo.clusters["cluster-b"]["metadata"]["annotations"]["ingress.example.com/class"]
        == "internal"
    )
    assert {c: o["spec"]["replicas"] for c, o in demo.clusters.items()} == demo.placement


def test_a_tie_shows_both_outcomes(example_plan: Plan) -> None:
    search = next(a for a in example_plan.apps if a.name == "search-api")
    assert search.placement == {"cluster-a": 2, "cluster-b": 2, "cluster-c": 1}
    assert search.alternatives == ({"cluster-a": 1, "cluster-b": 2, "cluster-c": 2},)
    assert search.clusters["cluster-c"]["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "REGION", "value": "us"}
    ]


def test_zero_replica_clusters_receive_nothing(example_plan: Plan) -> None:
    orders = next(a for a in example_plan.apps if a.name == "orders-db")
    assert orders.placement == {"cluster-a": 1}
    assert set(orders.clusters) == {"cluster-a"}


def test_the_bill_against_quota(example_plan: Plan) -> None:
    team_a = next(t for t in example_plan.tenants if t.tenant == "team-a")
    web = next(a for a in example_plan.apps if a.name == "web-frontend")
    # the FederatedHPA keeps 2 replicas at least, divided 1 + 1, x 500m: as the quota rule bills
    assert web.bill["cluster-a"]["cpu"] == Fraction(1, 2)
    assert team_a.left("cpu") == team_a.quota["cpu"] - team_a.used["cpu"]  # type: ignore[operator]


def test_rules_judge_each_clusters_copy(bundle: Bundle) -> None:
    """A rule can speak of one cluster: the engine sees each member's copy with `cluster`."""
    spec = (
        (EXAMPLES / "apps" / "demo-http.yaml")
        .read_text()
        .replace("imageRegistry: mirror.example.cn", "imageRegistry: docker.io")
    )
    [app] = parse_specs(spec, "demo.yaml")
    result = plan([render_app(app, bundle, ("cluster-a", "cluster-b"))], bundle)
    [demo] = result.apps
    assert "cluster-a" not in demo.violations
    assert [v.violation.rule for v in demo.violations["cluster-b"]] == ["registry-allowed"]
    [found] = demo.violations["cluster-b"]
    assert (found.override, found.override_rule) == ("OverridePolicy platform-demo/demo-http", 0)


@pytest.mark.slow
def test_cli_json_and_diff(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    fedgate = str(Path(sys.executable).with_name("fedgate"))

    def sh(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env, check=True
        )

    shutil.copytree(EXAMPLES / "apps", tmp_path / "apps")
    shutil.copytree(POLICIES, tmp_path / "policies")
    sh("git", "init", "-q")
    sh(fedgate, "compile")
    sh("git", "add", "-A")
    sh("git", "commit", "-qm", "init")
    spec = tmp_path / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    report = json.loads(sh(fedgate, "plan", "--output", "json").stdout)
    assert list(report["diff"]) == ["platform-demo/status-page/deployment.yaml"]
    assert (
        "-  replicas: 2\n+  replicas: 3\n"
        in report["diff"]["platform-demo/status-page/deployment.yaml"]
    )
    status = next(a for a in report["apps"] if a["name"] == "status-page")
    assert status["placement"] == {"cluster-a": 3, "cluster-b": 3}
    text = sh(fedgate, "plan", "--diff", "--color", "always").stdout
    assert "\033[32m    +  replicas: 3\033[0m" in text


def cli(args: list[str]) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    code = main([*args, "--output", "json"] if args[0] == "plan" else args, stdout=out, stderr=err)
    return code, json.loads(out.getvalue()) if args[0] == "plan" else {}


ALL_APPS = [
    "checkout",
    "demo-http",
    "orders-db",
    "payments-api",
    "search-api",
    "status-page",
    "web-frontend",
]


@pytest.mark.slow
def test_plan_is_right_with_a_warm_or_cold_cache(platform_repo: Path) -> None:
    """Plan was empty with a warm compile cache, and missed the edited app after an
    edit. Every app, whatever the cache holds."""
    cold = cli(["plan"])[1]  # the compile above warmed the cache: this is a warm run
    assert sorted(a["name"] for a in cold["apps"]) == ALL_APPS
    spec = platform_repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    _, edited = cli(["plan"])
    assert sorted(a["name"] for a in edited["apps"]) == ALL_APPS
    status = next(a for a in edited["apps"] if a["name"] == "status-page")
    assert status["placement"] == {"cluster-a": 3, "cluster-b": 3}
    shutil.rmtree(platform_repo / ".git" / "fedgate")
    _, emptied = cli(["plan"])
    assert edited["apps"] == emptied["apps"] and edited["tenants"] == emptied["tenants"]


@pytest.mark.slow
def test_a_subset_plans_and_diffs_only_itself_but_bills_whole_tenants(platform_repo: Path) -> None:
    _, whole = cli(["plan"])
    code, subset = cli(["plan", "apps/checkout.yaml", "apps/search-api.yaml"])
    assert code == 0
    assert [a["name"] for a in subset["apps"]] == ["checkout", "search-api"]
    assert subset["diff"] == {}  # nothing else shows as deleted
    assert subset["tenants"] == whole["tenants"]
    spec = platform_repo / "apps" / "checkout.yaml"
    spec.write_text(spec.read_text().replace("replicas: 4", "replicas: 2"))
    _, changed = cli(["plan", "apps/checkout.yaml"])
    assert list(changed["diff"]) == ["payments/checkout/deployment.yaml"]


@pytest.mark.slow
def test_a_subset_shows_what_a_changed_hand_written_policy_does_to_it(
    platform_repo: Path,
) -> None:
    """A regional ClusterOverridePolicy (not committed yet) moves team-a's images to the mirror
    in the EU clusters. The whole plan shows status-page changed; `plan apps/status-page.yaml`
    showed the new images but said "No changes" (its before side did not know the policy had
    changed)."""
    (platform_repo / "rendered" / "platform").mkdir()
    (platform_repo / "rendered" / "platform" / "regional.yaml").write_text(
        MIRROR.replace("REGISTRY", "mirror.example.cn")
    )
    _, whole = cli(["plan"])
    [status] = [c for c in whole["changes"]["apps"] if c["name"] == "status-page"]
    assert status["action"] == "change"
    code, subset = cli(["plan", "apps/status-page.yaml"])
    assert code == 0
    assert subset["changes"]["apps"] == [status]
    assert subset["summary"]["apps"] == {"add": 0, "change": 1, "remove": 0}
    assert subset["diff"] == {} and subset["changes"]["policies"] == []  # only the subset shows
    assert subset["tenants"] == whole["tenants"]


@pytest.mark.slow
def test_a_hand_written_file_of_the_argo_cd_folder_is_not_a_karmada_template(
    platform_repo: Path,
) -> None:
    """rendered/argocd/ is synced by the root Application to Argo CD's own cluster, not to
    Karmada (check leaves it out): a platform Application there was planned as a resource
    template that "stays in the control plane"."""
    (platform_repo / "rendered" / "argocd" / "platform.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
        "metadata: {name: platform, namespace: argocd}\n"
        "spec:\n  project: default\n"
        "  source: {repoURL: https://git.example.com/platform/federation.git, path: platform}\n"
        "  destination: {name: karmada-apiserver}\n"
    )
    code, report = cli(["plan"])
    assert code == 0
    assert report["templates"] == [] and report["changes"]["templates"] == []
    assert report["changes"]["files"] == {"argocd/platform.yaml": "add"}


EU_MIRROR = (
    MIRROR.replace("REGISTRY", "mirror.example.cn")
    + "---\n"
    + BANNER.replace("CLUSTERS", "cluster-a")
)


@pytest.mark.slow
def test_plan_covers_hand_written_templates_and_policies(platform_repo: Path) -> None:
    """A regional ClusterOverridePolicy shows in each app's member Deployments; a hand-written
    ConfigMap is planned as a template."""
    (platform_repo / "rendered" / "platform").mkdir()
    (platform_repo / "rendered" / "platform" / "regional.yaml").write_text(EU_MIRROR)
    code, report = cli(["plan"])
    assert code == 0, report["apps"]
    status = next(a for a in report["apps"] if a["name"] == "status-page")
    images = {
        c: o["spec"]["template"]["spec"]["containers"][0]["image"]
        for c, o in status["clusters"].items()
    }
    assert images == {
        "cluster-a": "mirror.example.cn/platform/status-page:2.3.1",
        "cluster-b": "mirror.example.cn/platform/status-page:2.3.1",
    }
    assert status["overrides"]["cluster-a"] == ["ClusterOverridePolicy eu-mirror"]
    [banner] = report["templates"]
    assert (banner["kind"], banner["name"], banner["placement"]) == (
        "ConfigMap",
        "banner",
        {"cluster-a": None},
    )
    assert banner["policy"] == {
        "kind": "PropagationPolicy",
        "namespace": "platform-demo",
        "name": "banner",
    }


REVIEW = HUB + "---\n" + BANNER.replace("CLUSTERS", "cluster-a, cluster-b")


@pytest.mark.slow
def test_a_pull_request_golden(tmp_path: Path) -> None:
    """``fedgate plan`` as a reviewer reads it, through the installed entry point: an app
    added, one changed (and denied in one cluster by a hand-written override), one removed,
    one with a warning, a hand-written template and policies, against git HEAD."""
    from tests.compiler.commands.entry import fedgate, git, platform  # noqa: PLC0415

    repo = platform(tmp_path)
    binding = repo / "policies" / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", "action: warn"))
    assert fedgate("compile", cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    apps = repo / "apps"
    status = (apps / "status-page.yaml").read_text()
    (apps / "status-page.yaml").write_text(status.replace("replicas: 2", "replicas: 3"))
    (apps / "status-two.yaml").write_text(
        status.replace("name: status-page", "name: status-two").replace(
            "status-page-config", "status-two-config"
        )
    )
    (apps / "orders-db.yaml").unlink()
    checkout = (apps / "checkout.yaml").read_text()
    (apps / "checkout.yaml").write_text(
        checkout.replace("checkout:1.8.0", "checkout:latest").replace("USD", "EUR")
    )
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "review.yaml").write_text(REVIEW)
    result = fedgate("plan", cwd=repo)
    assert result.returncode == 1, result.stderr  # a member copy is denied
    matches_golden("plan-changes.txt", result.stdout)


BATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: platform-demo}
spec:
  replicas: 50
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers:
        - name: batch
          image: registry.example.com/platform/batch:1.0
          resources: {requests: {cpu: "1", memory: 64Mi}}
"""
"""The red-team note's hand-written 50 x 1 CPU Deployment in team-a's namespace."""


@pytest.mark.slow
def test_a_hand_written_workload_is_on_its_tenants_bill(platform_repo: Path) -> None:
    """Plan left team-a at 3.9 of 20 CPU while check denies the Deployment on
    tenancy.quota. The bill is the same warm or cold, whole or for a subset of another tenant."""
    _, before = cli(["plan"])
    team_a = next(t for t in before["tenants"] if t["tenant"] == "team-a")
    assert team_a["handWritten"] == {} and team_a["used"]["cpu"] == "3900m"
    (platform_repo / "rendered" / "platform-demo" / "extra").mkdir()
    (platform_repo / "rendered" / "platform-demo" / "extra" / "batch.yaml").write_text(BATCH)
    _, whole = cli(["plan"])
    team_a = next(t for t in whole["tenants"] if t["tenant"] == "team-a")
    assert team_a["handWritten"] == {"cpu": "50", "memory": "3200Mi"}
    assert (team_a["used"]["cpu"], team_a["left"]["cpu"]) == ("53900m", "-33900m")
    assert next(t for t in whole["tenants"] if t["tenant"] == "team-b")["handWritten"] == {}
    _, subset = cli(["plan", "apps/checkout.yaml"])

    def bills(plan: dict[str, Any]) -> list[dict[str, Any]]:
        """The bills, without HEAD's side: that of a subset compares only its apps."""
        before = ("usedBefore", "ceilingBefore")
        return [{k: v for k, v in t.items() if k not in before} for t in plan["tenants"]]

    assert bills(subset) == bills(whole)
    shutil.rmtree(platform_repo / ".git" / "fedgate")
    assert cli(["plan"])[1]["tenants"] == whole["tenants"]
    out = io.StringIO()
    main(["plan", "apps/checkout.yaml"], stdout=out, stderr=io.StringIO())
    assert "tenant team-a: cpu 53.9 of 20 OVER QUOTA" in out.getvalue()
    out = io.StringIO()
    main(["plan"], stdout=out, stderr=io.StringIO())  # HEAD did not have the Deployment
    assert "tenant team-a: cpu 3.9 -> 53.9 of 20 OVER QUOTA" in out.getvalue()
    checked = io.StringIO()
    assert main(["check"], stdout=checked, stderr=io.StringIO()) == 1
    assert "tenancy.quota" in checked.getvalue()


STAGED_IMAGE_TAG = """action: scoped
scopedEnforcementActions:
  - {action: warn, enforcementPoints: [{name: check}, {name: plan}]}
  - {action: audit, enforcementPoints: [{name: webhook}]}
  - {action: deny, enforcementPoints: [{name: audit}]}"""


@pytest.mark.slow
def test_a_staged_rule_golden(tmp_path: Path) -> None:
    """``fedgate plan`` (text and markdown) while image-tag is rolled out in steps: the app it
    warns of now is listed with the deny it gets once enforced."""
    from tests.compiler.commands.entry import fedgate, git, platform  # noqa: PLC0415

    repo = platform(tmp_path)
    binding = repo / "policies" / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", STAGED_IMAGE_TAG))
    assert fedgate("compile", cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "stage image-tag")
    checkout = repo / "apps" / "checkout.yaml"
    checkout.write_text(checkout.read_text().replace("checkout:1.8.0", "checkout:latest"))
    assert fedgate("compile", cwd=repo).returncode == 0
    text = fedgate("plan", cwd=repo)
    assert text.returncode == 0, text.stderr  # staged: the plan only warns
    matches_golden("plan-staged.txt", text.stdout)
    comment = fedgate("plan", "--output", "markdown", cwd=repo)
    assert comment.returncode == 0, comment.stderr
    matches_golden("plan-staged.md", comment.stdout)
