"""The real pre-commit framework runs fedgate's hook from this repository in a real git repo.

A good change commits; a stale rendered tree, a spec error and a tenant-scope violation each
block the commit with their message; fixing it lets the commit through. The hook is installed
the way pre-commit installs it (`pip install .` of this repository, at a commit of the working
tree), so this also proves the package ships what it needs (the default bundle included).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, POLICIES, ROOT
from tests.helpers import git
from tests.webhook.exception_files import LEGACY_EXCEPTION

pytestmark = pytest.mark.slow  # git and the real pre-commit framework

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
FEDGATE = Path(sys.executable).with_name("fedgate")


def hook_repository(tmp: Path) -> tuple[Path, str]:
    """This working tree (committed or not) as a git repository pre-commit can install."""
    listed = git(ROOT, "ls-files", "-co", "--exclude-standard", "-z").stdout.split("\0")
    target = tmp / "fedgate"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-qm", "fedgate under test")
    return target, git(target, "rev-parse", "HEAD").stdout.strip()


def install_hooks(repo: Path, cache: Path) -> dict[str, str]:
    """`git init` and `pre-commit install` in ``repo``; the environment that uses ``cache``."""
    git(repo, "init", "-q")
    env = {**os.environ, "PRE_COMMIT_HOME": str(cache)}
    subprocess.run(
        [str(PRE_COMMIT), "install"],
        cwd=repo,
        check=True,
        timeout=120,
        env=env,
        capture_output=True,
    )
    return env


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This working tree as a hook repository, and its commit."""
    if shutil.which("git") is None or not PRE_COMMIT.exists():
        pytest.skip("git or the pre-commit framework is not installed")
    return hook_repository(tmp_path_factory.mktemp("hooks"))


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory, hooks: tuple[Path, str]) -> Path:
    tmp = tmp_path_factory.mktemp("precommit")
    hooks_repo, rev = hooks
    repo = tmp / "platform"
    shutil.copytree(EXAMPLES / "apps", repo / "apps")
    shutil.copytree(POLICIES, repo / "policies")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_repo}\n    rev: {rev}\n    hooks:\n      - id: fedgate-check\n"
    )
    install_hooks(repo, tmp / "cache")
    subprocess.run(
        [str(FEDGATE), "compile"], cwd=repo, check=True, timeout=120, capture_output=True
    )
    os.environ["PRE_COMMIT_HOME"] = str(tmp / "cache")
    return repo


def commit(
    repo: Path, message: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return git(repo, "commit", "-m", message, check=False, env=env)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_a_good_change_commits(platform: Path) -> None:
    result = commit(platform, "the example apps")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "fedgate check" in result.stdout + result.stderr


def test_a_stale_tree_is_refused_then_fixed(platform: Path) -> None:
    edit(platform / "apps" / "status-page.yaml", "replicas: 2", "replicas: 3")
    result = commit(platform, "more replicas, not rendered")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "stale    rendered/platform-demo/status-page/deployment.yaml" in output
    assert "is not what the specs render" in output
    subprocess.run(
        [str(FEDGATE), "compile"], cwd=platform, check=True, timeout=120, capture_output=True
    )
    result = commit(platform, "more replicas, rendered")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_spec_error_is_refused(platform: Path) -> None:
    spec = platform / "apps" / "checkout.yaml"
    edit(spec, "  replicas: 4", "  replcas: 4")
    result = commit(platform, "a typo")
    assert result.returncode != 0
    assert (
        "apps/checkout.yaml:11: spec.replcas: unknown key 'replcas': did you mean 'replicas'?"
    ) in result.stdout + result.stderr
    git(platform, "reset", "-q", "--hard", "HEAD")
    assert "replicas: 4" in spec.read_text()


def test_a_tenant_scope_violation_is_refused_then_fixed(platform: Path) -> None:
    spec = platform / "apps" / "status-page.yaml"
    edit(spec, "clusterLabels: {residency: eu}", "clusters: [cluster-a, cluster-c]")
    subprocess.run(
        [str(FEDGATE), "compile"], cwd=platform, check=False, timeout=120, capture_output=True
    )
    result = commit(platform, "team-a on cluster-c")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert (
        "[tenancy.placement-scope] the placement can select cluster-c, outside tenant team-a's"
        in output
    )
    edit(spec, "clusters: [cluster-a, cluster-c]", "clusters: [cluster-a, cluster-b]")
    subprocess.run(
        [str(FEDGATE), "compile"], cwd=platform, check=True, timeout=120, capture_output=True
    )
    result = commit(platform, "on the EU clusters, by name")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_hand_written_policy_is_refused(platform: Path) -> None:
    """A hand-written PropagationPolicy beside fedgate's files sends every Secret of
    platform-demo to cluster-c. The team-a Application syncs it ({platform-demo/*}: ``*``
    crosses ``/``), so the hook reviews it as the webhook will."""
    sneaky = platform / "rendered" / "platform-demo" / "extra" / "sneaky-pp.yaml"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
        "metadata: {name: sneaky, namespace: platform-demo}\n"
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: Secret}]\n"
        "  placement: {clusterAffinity: {clusterNames: [cluster-c]}}\n"
    )
    result = commit(platform, "every Secret to cluster-c")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert (
        "DENIED  CREATE policy.karmada.io/v1alpha1 PropagationPolicy platform-demo/sneaky" in output
    )
    assert "Secret (by label) would go to cluster-c" in output
    git(platform, "reset", "-q", "HEAD")
    shutil.rmtree(sneaky.parent)


def test_a_hand_written_json_policy_is_refused(platform: Path) -> None:
    """Argo CD syncs ``.json`` manifests too (and ``.yml``): the hook must run for a commit
    that adds only one. With ``types: [yaml]`` pre-commit skipped it ("no files to check") and
    the policy the webhook denies was committed."""
    sneaky = platform / "rendered" / "platform-demo" / "extra" / "sneaky.json"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text(
        '{"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",\n'
        ' "metadata": {"name": "sneaky", "namespace": "platform-demo"},\n'
        ' "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Secret"}],\n'
        '          "placement": {"clusterAffinity": {"clusterNames": ["cluster-c"]}}}}\n'
    )
    result = commit(platform, "every Secret to cluster-c, in JSON")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Secret (by label) would go to cluster-c" in output
    git(platform, "reset", "-q", "HEAD")
    shutil.rmtree(sneaky.parent)


def test_a_commit_that_only_removes_a_rendered_file_is_refused(platform: Path) -> None:
    """pre-commit never passes a deleted file to a hook, so a commit that only removes files
    ran no hook at all and committed a stale tree (Argo CD would prune the policy)."""
    git(platform, "rm", "-q", "rendered/platform-demo/status-page/propagationpolicy.yaml")
    result = git(platform, "commit", "-m", "no policy", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "missing  rendered/platform-demo/status-page/propagationpolicy.yaml" in output
    git(platform, "reset", "-q", "--hard", "HEAD")


def test_a_hand_edit_of_a_rendered_file_is_refused(platform: Path) -> None:
    """Replicas written by hand into the Deployment a FederatedHPA scales."""
    path = platform / "rendered" / "platform-demo" / "web-frontend" / "deployment.yaml"
    edit(path, "spec:\n  selector:", "spec:\n  replicas: 8\n  selector:")
    result = commit(platform, "eight replicas by hand")
    assert result.returncode != 0
    assert (
        "stale    rendered/platform-demo/web-frontend/deployment.yaml: edited by hand at "
        "/spec/replicas (owned by federated-hpa)"
    ) in result.stdout + result.stderr
    git(platform, "reset", "-q", "--hard", "HEAD")


def test_a_source_override_file_is_refused(platform: Path) -> None:
    """Argo CD merges ``.argocd-source-<app>.yaml`` into the Application's source: this one
    would narrow team-a's include to one app and prune the rest."""
    override = platform / "rendered" / ".argocd-source-fedgate-team-a.yaml"
    override.write_text('directory:\n  include: "{platform-demo/demo-http/*}"\n')
    result = commit(platform, "only demo-http")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert (
        "error: rendered/.argocd-source-fedgate-team-a.yaml: Argo CD's repo server merges this "
        "file into the source of Argo CD Application fedgate-team-a"
    ) in output
    git(platform, "reset", "-q", "HEAD")
    override.unlink()


def test_a_removed_rule_is_refused_until_the_change_acknowledges_it(platform: Path) -> None:
    shutil.rmtree(platform / "policies" / "rules" / "image-tag")
    result = commit(platform, "no more tag rule")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "error: rule image-tag is weakened against git HEAD: removed" in output
    (platform / "policies" / "weakenings.yaml").write_text(
        "- {rule: image-tag, reason: the registry pins tags itself}\n"
    )
    result = commit(platform, "no more tag rule, on purpose")
    assert result.returncode == 0, result.stdout + result.stderr


def guide_block(first_line: str) -> str:
    """The YAML block of the shift-left guide (docs/shift-left.md) that starts with
    ``first_line``, as written."""
    guide = (ROOT / "docs" / "shift-left.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", guide, re.DOTALL)
    [block] = [b for b in blocks if b.startswith(first_line)]
    return str(block)


def test_the_guides_hook_repository_configuration_works_as_written(
    hooks: tuple[Path, str], tmp_path: Path
) -> None:
    """The guide's block with only repo: and rev: pointed at a local copy of fedgate (a test
    cannot reach the URL a user's copy lives at); its args move specs, tree and bundle."""
    hooks_repo, rev = hooks
    config = guide_block("# .pre-commit-config.yaml: fedgate as a hook repository")
    config = re.sub(r"(?m)^(  - repo: )\S+", rf"\g<1>{hooks_repo}", config, count=1)
    config = re.sub(r"(?m)^(    rev: )\S+", rf"\g<1>{rev}", config, count=1)
    repo = tmp_path / "platform"
    shutil.copytree(EXAMPLES / "apps", repo / "teams")
    shutil.copytree(POLICIES, repo / "platform" / "policies")
    (repo / ".pre-commit-config.yaml").write_text(config)
    env = install_hooks(repo, hooks_repo.parent / "cache")
    first = commit(repo, "the apps, not yet rendered", env)
    assert first.returncode != 0  # the compile hook rendered the tree: review and add it
    assert (repo / "deploy" / "rendered" / "payments" / "checkout" / "deployment.yaml").is_file()
    second = commit(repo, "the apps, rendered", env)
    assert second.returncode == 0, second.stdout + second.stderr
    output = second.stdout + second.stderr
    assert re.search(r"fedgate check \(.*\)\.+Passed", output), output
    assert re.search(r"fedgate compile \(.*\)\.+Passed", output), output


def test_an_exception_commits_a_legacy_app_until_it_expires(platform: Path) -> None:
    """The hook judges exceptions on FEDGATE_TODAY (a commit passes no flags): in force, the
    app pulling from Docker Hub commits; from its date, a change that reaches the app is
    refused and the hook names the expired exception. (registry-allowed: an earlier test here
    removes image-tag.)"""
    edit(platform / "apps" / "demo-http.yaml", "registry.example.com/platform/", "docker.io/")
    (platform / "policies" / "exceptions").mkdir()
    (platform / "policies" / "exceptions" / "legacy-demo.yaml").write_text(
        LEGACY_EXCEPTION.replace("image-tag", "registry-allowed")
    )
    in_force = {"FEDGATE_TODAY": "2026-12-20"}
    subprocess.run(
        [str(FEDGATE), "compile"],
        cwd=platform,
        check=True,
        timeout=120,
        capture_output=True,
        env={**os.environ, **in_force},
    )
    result = commit(platform, "demo-http from Docker Hub until the mirror has it", in_force)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"fedgate check \(.*\)\.+Passed", output), output  # quiet when it passes
    edit(platform / "policies" / "exceptions" / "legacy-demo.yaml", "4.0", "4.1")
    result = commit(platform, "the vendor slipped", {"FEDGATE_TODAY": "2026-12-31"})
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "[registry-allowed]" in output
    assert "exception legacy-demo expired on 2026-12-31: it lifts nothing" in output
    git(platform, "reset", "-q", "--hard", "HEAD")


def test_a_tenants_own_exception_is_refused(platform: Path) -> None:
    """A tenant cannot grant itself an exception: one beside the app specs is refused."""
    (platform / "apps" / "my-exception.yaml").write_text(LEGACY_EXCEPTION)
    result = commit(platform, "team-a lifts image-tag for itself")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert (
        "apps/my-exception.yaml:2: an exception (fedgate.dev/v1alpha1 PolicyException) outside "
        "policies/exceptions/"
    ) in output
    (platform / "apps" / "my-exception.yaml").unlink()
    git(platform, "reset", "-q", "--hard", "HEAD")
