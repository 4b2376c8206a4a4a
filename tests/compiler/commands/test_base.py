"""``check --base REF`` and ``plan --base REF``: the pull-request gate judges the whole
difference between a branch and where it left its target, commits made with --no-verify
included; the shift-left guide's GitHub Actions and GitLab CI recipes run as written."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.compiler.commands.entry import environment, fedgate, git, no_traceback, platform
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs the fedgate command line and git as processes

LEAK = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: billing-everywhere, namespace: payments}
spec:
  resourceSelectors:
    - {apiVersion: v1, kind: Secret}
  placement:
    clusterAffinity: {clusterNames: [cluster-c]}
"""


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CI clone: origin has main (the example platform, then an app added after the branch
    left it); the checked-out branch adds, with --no-verify, a hand-written policy that sends
    every Secret of team-b to cluster-c, outside its data scope."""
    work = platform(tmp_path_factory.mktemp("base"))
    git(work, "checkout", "-qb", "main")
    assert fedgate("compile", cwd=work).returncode == 0
    git(work, "add", "-A")
    git(work, "commit", "-qm", "platform")
    git(work, "checkout", "-qb", "leak")
    folder = work / "rendered" / "payments" / "billing-leak"
    folder.mkdir()
    (folder / "propagationpolicy.yaml").write_text(LEAK)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "billing everywhere", "--no-verify")
    git(work, "checkout", "-q", "main")
    spec = work / "apps" / "status-page.yaml"
    text = spec.read_text()
    (work / "apps" / "status-two.yaml").write_text(
        text.replace("name: status-page", "name: status-two").replace(
            "status-page-config", "status-two-config"
        )
    )
    assert fedgate("compile", cwd=work).returncode == 0
    git(work, "add", "-A")
    git(work, "commit", "-qm", "an app on main after the branch left it")
    origin = work.parent / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(origin)], check=True)
    checkout = work.parent / "checkout"
    subprocess.run(
        ["git", "clone", "-q", "--branch", "leak", str(origin), str(checkout)],
        check=True,
        env=environment(),
    )
    return checkout


def test_head_sees_nothing_and_base_denies_the_branch(clone: Path) -> None:
    quiet = fedgate("check", cwd=clone)
    assert quiet.returncode == 0, quiet.stdout  # the hook's view: HEAD has the leak already
    assert "0 changed manifests reviewed" in quiet.stdout
    gate = fedgate("check", "--base", "origin/main", cwd=clone)
    no_traceback(gate)
    assert gate.returncode == 1, gate.stdout
    assert "DENIED  CREATE policy.karmada.io/v1alpha1 PropagationPolicy payments/billing" in (
        gate.stdout
    )
    assert "tenancy.data-scope" in gate.stdout
    assert "status-two" not in gate.stdout  # main's own later commit is not the branch's
    plan = fedgate("plan", "--base", "origin/main", cwd=clone)
    no_traceback(plan)
    assert re.match(r"Changes against origin/main \(merge base [0-9a-f]{12}\)", plan.stdout)
    assert "+ PropagationPolicy payments/billing-everywhere" in plan.stdout
    assert "status-two" not in plan.stdout
    assert "No changes" in fedgate("plan", cwd=clone).stdout


@pytest.mark.parametrize(
    ("base", "message"),
    [
        pytest.param("origin/nope", "--base origin/nope: not a commit this clone has; fetch it"),
        pytest.param("--all", "--base '--all': give a branch, tag or commit"),
    ],
)
def test_a_base_git_cannot_give_is_refused(clone: Path, base: str, message: str) -> None:
    for command in ("check", "plan"):
        result = fedgate(command, f"--base={base}", cwd=clone)
        no_traceback(result)
        assert result.returncode == 2
        assert message in result.stderr


def recipe_commands(fence_start: str) -> list[str]:
    """The ``fedgate`` lines of the shift-left guide's recipe that opens with ``fence_start``."""
    guide = (ROOT / "docs" / "shift-left.md").read_text()
    block = guide[guide.index(fence_start) :]
    block = block[: block.index("```")]
    found = [
        line.split("run:", 1)[-1].strip().lstrip("- ").strip()
        for line in block.splitlines()
        if "fedgate check" in line or "fedgate plan" in line
    ]
    assert len(found) == 2, found
    return found


@pytest.mark.parametrize(
    ("fence", "variables"),
    [
        pytest.param("name: fedgate\non: pull_request", {"${{ github.base_ref }}": "main"}),
        pytest.param(
            "fedgate:\n  image: python:3.11", {"$CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
        ),
    ],
    ids=["github-actions", "gitlab-ci"],
)  # fmt: skip
def test_the_guides_recipes_run_as_written(
    clone: Path, fence: str, variables: dict[str, str]
) -> None:
    check, plan = recipe_commands(fence)
    for name, value in variables.items():
        check, plan = check.replace(name, value), plan.replace(name, value)
    gated = subprocess.run(
        ["bash", "-c", check], cwd=clone, env=environment(), capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert gated.returncode == 1, gated.stdout + gated.stderr
    assert "tenancy.data-scope" in gated.stdout
    planned = subprocess.run(
        ["bash", "-c", plan], cwd=clone, env=environment(), capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    comment = (clone / "plan.md").read_text()
    assert "PropagationPolicy payments/billing-everywhere" in comment
    (clone / "plan.md").unlink()
