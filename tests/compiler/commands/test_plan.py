"""``fedgate plan`` reads like ``terraform plan``, through the installed entry point in a real
git repository: only what changes against git HEAD (``--all`` for everything), before -> after,
denials highlighted, quantities for people, lines within 100 columns, one summary line, and
``--detailed-exitcode``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from compiler.plan.columns import WIDTH, columns
from tests.compiler.commands.entry import fedgate, git, no_traceback, platform
from tests.compiler.plan.manifests import BANNER, MIRROR
from tests.compiler.plan.test_failover import deployment, policy
from tests.compiler.plan.test_failover_capacity import DYNAMIC
from tests.conftest import EXAMPLES, POLICIES

pytestmark = pytest.mark.slow  # runs the fedgate command line and git as processes

APPS = 7


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example platform repository, compiled and committed: git HEAD."""
    repository = platform(tmp_path)
    assert fedgate("compile", cwd=repository).returncode == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-qm", "init")
    return repository


def edit(repo: Path, spec: str, old: str, new: str) -> None:
    path = repo / "apps" / spec
    text = path.read_text()
    assert old in text, (spec, old)
    path.write_text(text.replace(old, new))


def plan(repo: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = fedgate("plan", *args, cwd=repo, env=env)
    no_traceback(result)
    return result.returncode, result.stdout


def headers(text: str) -> list[str]:
    """The first line of each block: ``~ namespace/name`` (symbol and name)."""
    found = (re.match(r"([+~ -]) ([a-zA-Z0-9]\S*)", line) for line in text.splitlines())
    return [f"{m[1]} {m[2]}" for m in found if m]


def test_nothing_changed_says_so_in_one_summary_line(repo: Path) -> None:
    code, text = plan(repo)
    assert code == 0
    assert text == (
        "No changes: the rendered tree plans as it does at git HEAD.\n"
        "Plan: 0 apps to add, 0 to change, 0 to remove; no cluster affected; 0 denies.\n"
    )


def test_only_the_changed_app_is_shown_with_before_and_after(repo: Path) -> None:
    edit(repo, "status-page.yaml", "replicas: 2", "replicas: 3")
    code, text = plan(repo)
    assert code == 0, text
    assert headers(text) == ["~ platform-demo/status-page"]
    assert "    placement    cluster-a 2 -> 3, cluster-b 2 -> 3\n" in text
    assert "    cluster-a    2 -> 3 x registry.example.com/platform/status-page:2.3.1\n" in text
    assert "    bill         cluster-a cpu 0.2 -> 0.3, memory 256Mi -> 384Mi\n" in text
    assert "    files        changed deployment.yaml\n" in text
    assert "tenant team-a: cpu 3.9 -> 4.1 of 20, memory 5Gi -> 5.25Gi of 40Gi\n" in text
    assert "team-b" not in text  # an unaffected tenant is not listed
    assert text.splitlines()[-1] == (
        "Plan: 0 apps to add, 1 to change, 0 to remove; clusters affected: cluster-a, "
        "cluster-b; 0 denies."
    )
    assert "replicas: 3" not in text  # the diff only with --diff
    code, everything = plan(repo, "--all")
    assert code == 0
    assert len(headers(everything)) == APPS
    assert "~ platform-demo/status-page" in headers(everything)
    assert "  payments/checkout" in headers(everything)  # unchanged: no symbol
    assert "tenant team-b: cpu 4 of 40, memory 7.5Gi of 80Gi\n" in everything
    assert everything.splitlines()[-1] == text.splitlines()[-1]


def test_added_changed_and_removed_apps_and_templates(repo: Path) -> None:
    new = (repo / "apps" / "status-page.yaml").read_text()
    (repo / "apps" / "status-two.yaml").write_text(
        new.replace("name: status-page", "name: status-two").replace(
            "status-page-config", "status-two-config"
        )
    )
    (repo / "apps" / "orders-db.yaml").unlink()
    edit(repo, "checkout.yaml", "checkout:1.8.0", "checkout:1.9.0")
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "banner.yaml").write_text(
        BANNER.replace("CLUSTERS", "cluster-a")
    )
    code, text = plan(repo, "--detailed-exitcode")
    assert code == 2, text
    assert headers(text) == [
        "~ payments/checkout",
        "- platform-demo/orders-db",
        "+ platform-demo/status-two",
        "+ ConfigMap",
    ]
    assert "    cluster-c    2 x registry.example.com/payments/checkout:1.9.0\n" in text
    assert "                 (was registry.example.com/payments/checkout:1.8.0)\n" in text
    assert "    files        removed deployment.yaml, propagationpolicy.yaml\n" in text
    assert "  + PropagationPolicy platform-demo/banner  (rendered/platform/banner.yaml)\n" in text
    # status-two adds 2 x 100m and 2 x 128Mi per cluster, orders-db leaves with 1 and 2Gi
    assert "tenant team-a: cpu 3.9 -> 3.3 of 20, memory 5Gi -> 3.5Gi of 40Gi\n" in text
    assert text.splitlines()[-1] == (
        "Plan: 1 app to add, 1 to change, 1 to remove; 1 template changed; 3 clusters "
        "affected; 0 denies."
    )
    report = json.loads(plan(repo, "--output", "json")[1])
    actions = {(a["name"], a["action"]) for a in report["changes"]["apps"]}
    assert actions == {("checkout", "change"), ("orders-db", "remove"), ("status-two", "add")}
    assert report["summary"]["apps"] == {"add": 1, "change": 1, "remove": 1}
    assert report["summary"]["changes"] is True
    assert [t["name"] for t in report["changes"]["templates"]] == ["banner"]
    # the JSON contract is kept: the same keys, only added to
    assert list(report)[:5] == ["apps", "tenants", "diff", "templates", "errors"]
    # each tenant's bill (the quota rule's) with its ceiling beside it, as docs/plan.md lists
    tenant_keys = ["tenant", "used", "quota", "left", "handWritten", "ceiling"]
    assert {tuple(t) for t in report["tenants"]} == {(*tenant_keys, "usedBefore", "ceilingBefore")}
    assert all(list(a)[9:11] == ["bill", "ceiling"] for a in report["apps"])
    befores = [c["before"] for c in report["changes"]["apps"] if c["before"] is not None]
    assert befores and all(list(b) == ["placement", "bill", "ceiling", "clusters"] for b in befores)
    assert "payments/checkout/deployment.yaml" in report["diff"]


def test_a_policy_change_shows_every_app_it_reaches(repo: Path) -> None:
    """No app spec changed: a hand-written ClusterOverridePolicy changes what team-a's clusters
    receive, so team-a's apps change and team-b's do not."""
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "mirror.yaml").write_text(
        MIRROR.replace("REGISTRY", "mirror.example.cn")
    )
    code, text = plan(repo)
    assert code == 0, text
    assert headers(text) == [
        "~ platform-demo/demo-http",
        "~ platform-demo/orders-db",
        "~ platform-demo/status-page",
        "~ platform-demo/web-frontend",
    ]
    assert "                 (was registry.example.com/platform/status-page:2.3.1)\n" in text
    assert "                 overrides ClusterOverridePolicy eu-mirror (was none)\n" in text
    assert "  + ClusterOverridePolicy eu-mirror  (rendered/platform/mirror.yaml)\n" in text


def test_a_deny_is_highlighted_counted_and_fails(repo: Path) -> None:
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "mirror.yaml").write_text(
        MIRROR.replace("REGISTRY", "docker.io")
    )
    code, text = plan(repo, "--detailed-exitcode", "--color", "always")
    assert code == 1  # a denial wins over "changes present"
    deny = "\x1b[1m\x1b[31m    deny   [registry-allowed] in cluster-a: image docker.io/platform/"
    assert deny in text
    summary = text.splitlines()[-1]
    assert summary.startswith("\x1b[1m\x1b[31mPlan: ") and summary.endswith(" 6 denies.\x1b[0m")
    # committed, nothing changes any more, and the denied apps are still shown
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a mirror Argo CD will not be allowed to sync")
    code, text = plan(repo)
    assert code == 1
    assert headers(text)[0] == "  platform-demo/demo-http"
    assert "payments/" not in text
    assert text.splitlines()[-1] == (
        "Plan: 0 apps to add, 0 to change, 0 to remove; no cluster affected; 6 denies."
    )


@pytest.mark.parametrize(
    ("change", "plain", "detailed"),
    [
        pytest.param(False, 0, 0, id="no-changes"),
        pytest.param(True, 0, 2, id="changes-present"),
    ],
)
def test_detailed_exitcode(repo: Path, change: bool, plain: int, detailed: int) -> None:
    if change:
        edit(repo, "status-page.yaml", "replicas: 2", "replicas: 3")
    assert plan(repo)[0] == plain
    for args in (["--detailed-exitcode"], ["--detailed-exitcode", "--output", "json"]):
        result = fedgate("plan", *args, cwd=repo)
        assert (result.returncode, result.stderr) == (detailed, "")  # 2: not a usage error
        assert (
            "Plan: " in result.stdout or json.loads(result.stdout)["summary"]["changes"] is change
        )


def test_every_line_fits_100_columns_and_cannot_drive_the_terminal(repo: Path) -> None:
    """Long names, a long image, a label value with an escape sequence and a wide-character
    message: wrapped, escaped, cut (a diff line), never wider than 100 columns."""
    long_name = "search-api-with-a-name-as-long-as-a-label-value-may-be-abcdefgh"  # 63
    spec = (EXAMPLES / "apps" / "search-api.yaml").read_text()
    (repo / "apps" / "long.yaml").write_text(
        spec.replace("name: search-api", f"name: {long_name}")
        .replace("search-api:0.9.2", "search-api:" + "0" * 120)
        .replace("search-api-config", "long-config")
    )
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "labels.yaml").write_text(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\n"
        "metadata: {name: zone, namespace: payments}\nspec:\n"
        "  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: checkout}]\n"
        "  overrideRules:\n    - targetCluster: {clusterNames: [cluster-a]}\n"
        "      overriders:\n        labelsOverrider:\n"
        '          - {operator: add, value: {zone: "a\\e[2K\\e[1Aé日本"}}\n'
    )
    code, text = plan(repo, "--all", "--diff")
    assert code == 0, text
    lines = text.splitlines()
    assert max(columns(line) for line in lines) <= WIDTH
    assert "\x1b" not in text  # not a terminal: no colour, and the label's escapes escaped
    assert "zone=a\\x1b[2K\\x1b[1Aé日本" in text
    assert any(line.endswith("...") and "fedgate.dev/ownership" in line for line in lines)
    assert f"+ payments/{long_name}" in headers(text)
    coloured = plan(repo, "--all", "--color", "always")[1]
    ours = re.sub(r"\x1b\[(0|1|31|32|33|36)m", "", coloured)
    assert "\x1b" not in ours  # only fedgate's own colours reach the terminal
    assert max(columns(line) for line in ours.splitlines()) <= WIDTH


def test_apps_narrow_the_plan_and_nothing_else_shows_as_removed(repo: Path) -> None:
    (repo / "apps" / "orders-db.yaml").unlink()
    edit(repo, "checkout.yaml", "replicas: 4", "replicas: 2")
    code, text = plan(repo, "apps/checkout.yaml")
    assert code == 0
    assert headers(text) == ["~ payments/checkout"]
    assert "Plan: 0 apps to add, 1 to change, 0 to remove;" in text


def test_tree_refuses_the_options_that_compare_with_head(repo: Path) -> None:
    result = fedgate("plan", "--tree", "rendered", "--detailed-exitcode", cwd=repo)
    assert result.returncode == 2
    assert "--detailed-exitcode: not with --tree" in result.stderr
    assert result.stdout == ""


def test_outside_git_every_app_is_new(tmp_path: Path) -> None:
    repository = tmp_path / "fresh"
    shutil.copytree(EXAMPLES / "apps", repository / "apps")
    shutil.copytree(POLICIES, repository / "policies")
    code, text = plan(repository)
    assert code == 0
    assert len(headers(text)) == APPS and all(h.startswith("+ ") for h in headers(text))
    assert text.splitlines()[-1].startswith("Plan: 7 apps to add, 0 to change, 0 to remove;")


HOSTILE = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: hostile, namespace: platform-demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: status-page}]
  overrideRules:
    - targetCluster: {clusterNames: [cluster-a]}
      overriders:
        plaintext:
          - {path: /spec/template/spec/containers, operator: replace, value: "x\\e[2J"}
          - {path: /metadata/labels, operator: replace, value: [1, 2]}
          - {path: /spec/replicas, operator: replace, value: {a: b}}
    - targetCluster: {clusterNames: [cluster-b]}
      overriders:
        plaintext:
          - {path: /metadata/labels, operator: replace, value: {1: "\\u009b31m", true: x}}
          - {path: /spec/template/spec/containers/0/args, operator: add, value: notalist}
"""


def test_a_hand_written_override_cannot_crash_or_hide_the_report(repo: Path) -> None:
    """Whoever writes a file in the synced tree controls what a member's copy looks like:
    containers, labels, replicas of any type. The rules fail closed on it, plan shows it."""
    (repo / "rendered" / "platform").mkdir()
    (repo / "rendered" / "platform" / "hostile.yaml").write_text(HOSTILE)
    code, text = plan(repo)
    assert code == 1, text  # the rules cannot evaluate cluster-a's copy: denied
    assert "    cluster-a    2 -> {'a': 'b'} x no image (was registry.example.com/" in text
    assert "                 labels 1=\\x9b31m, true=x (was none)\n" in text
    assert "                 args notalist (was none)\n" in text
    assert "\x1b" not in text and "\x9b" not in text
    # each validation that reads cluster-a's containers (a string now) fails closed: image-tag,
    # registry-allowed, resource-requests' two, nine of pod-security-baseline's; max-replicas
    # on the map replicas
    denies = [line for line in text.splitlines() if line.startswith("    deny ")]
    assert len(denies) == 14 and all("in cluster-a" in line for line in denies), denies
    assert text.splitlines()[-1].endswith("; 14 denies.")


def test_an_app_moved_to_another_spec_file_keeps_its_before(repo: Path) -> None:
    text = (repo / "apps" / "checkout.yaml").read_text()
    (repo / "apps" / "checkout.yaml").unlink()
    (repo / "apps" / "payments").mkdir()
    (repo / "apps" / "payments" / "shop.yaml").write_text(text.replace(":1.8.0", ":1.9.0"))
    code, text = plan(repo)
    assert code == 0, text
    assert headers(text) == ["~ payments/checkout"]
    assert "                 (was registry.example.com/payments/checkout:1.8.0)\n" in text


def test_a_head_spec_today_s_bundle_refuses_is_said_not_guessed(repo: Path) -> None:
    """cluster-c leaves the inventory; checkout leaves it, search-api goes: their HEAD specs
    name cluster-c, cannot be planned with today's bundle, and plan says so."""
    clusters = repo / "policies" / "clusters.yaml"
    text = clusters.read_text()
    clusters.write_text(text[: text.index("  - name: cluster-c")])
    tenants = repo / "policies" / "tenants.yaml"
    tenants.write_text(tenants.read_text().replace(", cluster-c]", "]"))
    edit(repo, "checkout.yaml", "clusters: [cluster-a, cluster-c]", "clusters: [cluster-a]")
    edit(repo, "checkout.yaml", "weights: {cluster-a: 1, cluster-c: 1}", "weights: {cluster-a: 1}")
    edit(repo, "checkout.yaml", "    - clusters: [cluster-c]", "    - clusters: [cluster-a]")
    (repo / "apps" / "search-api.yaml").unlink()
    code, text = plan(repo)
    assert code == 0, text
    assert headers(text) == ["~ payments/checkout", "- payments/search-api"]
    note = "    note         git HEAD's spec of this app cannot be planned with today's bundle\n"
    assert text.count(note) == 2
    assert "    placement    cluster-a 4\n" in text  # no before -> after it cannot know
    assert "tenant team-b: cpu 3 of 40, memory 5Gi of 80Gi\n" in text


def test_an_unreadable_file_of_the_tree_is_said_without_errno(tmp_path: Path) -> None:
    """`plan --tree DIR` with a dangling symbolic link printed Python's
    "[Errno 2] No such file or directory: '...'"."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    result = fedgate("plan", "--tree", "tree", "--example-policies", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert "[Errno" not in result.stdout + result.stderr
    assert (
        f"gone.yaml: cannot read: a symbolic link to {tmp_path / 'nowhere.yaml'}, which does "
        "not exist" in " ".join(result.stdout.split())  # plan wraps lines at 100 columns
    )


def test_an_app_s_first_override_is_a_change_with_its_before(repo: Path) -> None:
    """Only overridepolicy.yaml is new, so HEAD has the app: plan said '+', 'Plan: 1 app to
    add', the tenant's bill rising from 0 and JSON 'action': 'add', 'before': null."""
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(
        spec.read_text() + "  overrides:\n    - clusters: [cluster-b]\n      labels: {tier: gold}\n"
    )
    assert fedgate("compile", cwd=repo).returncode == 0
    code, text = plan(repo)
    assert code == 0, text
    assert headers(text) == ["~ platform-demo/status-page"]
    assert "                 labels tier=gold (was none)\n" in text
    assert "    files        added overridepolicy.yaml\n" in text
    assert "tenant team-a: cpu 3.9 of 20, memory 5Gi of 40Gi\n" in text
    assert text.splitlines()[-1].startswith("Plan: 0 apps to add, 1 to change, 0 to remove;")
    result = fedgate("plan", "--output", "json", cwd=repo)
    (app,) = [a for a in json.loads(result.stdout)["changes"]["apps"] if a["name"] == "status-page"]
    assert app["action"] == "change"
    assert app["before"] is not None


ROOM_DIVIDED = deployment("web", 6, cpu="250m") + "---\n" + policy("web", DYNAMIC)
"""A hand-written dynamic-weight Deployment of 6 replicas, 250m each, on the three clusters."""


def test_a_dynamic_weight_template_is_divided_by_the_declared_room_on_both_sides(
    repo: Path,
) -> None:
    """Every cluster declares 4 cpus: after the example apps, cluster-a has room for none of
    the 250m replicas, cluster-b for 7, cluster-c for 13; both sides of the change are
    divided by that room (HEAD's as the working tree's), not shown as the most each can get."""
    clusters = repo / "policies" / "clusters.yaml"
    text = clusters.read_text()
    for name in ("cluster-a", "cluster-b", "cluster-c"):
        text = text.replace(
            f"  - name: {name}\n",
            f'  - name: {name}\n    allocatable: {{cpu: "4", memory: 64Gi, pods: 110}}\n',
        )
    clusters.write_text(text)
    (repo / "rendered" / "platform").mkdir()
    web = repo / "rendered" / "platform" / "web.yaml"
    web.write_text(ROOM_DIVIDED)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a dynamic-weight template")
    web.write_text(ROOM_DIVIDED.replace("replicas: 6", "replicas: 9"))
    code, text = plan(repo)
    assert code == 0, text
    assert "    placement    cluster-b 2 -> 3, cluster-c 4 -> 6\n" in text
    assert (
        "    note         divided DynamicWeight by the room the clusters declare (allocatable "
        "minus what the\n                 tree requests there): cluster-a 0, cluster-b 7, "
        "cluster-c 13 replicas\n"
    ) in text
    assert "cluster-a    " not in text.split("~ Deployment payments/web")[1]
