"""``fedgate init``: `git init && fedgate init && fedgate compile && git commit` works, with the
hook run by the real pre-commit framework; init never overwrites; the shift-left guide shows what
it writes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler.commands.init import HOOKS
from tests.compiler.commands.entry import BIN, environment, fedgate, git, no_traceback
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # git and the real pre-commit framework

PRE_COMMIT = BIN / "pre-commit"


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=repo, env=environment(env), check=True, timeout=60)
    return subprocess.run(
        ["git", "commit", "-m", message],
        cwd=repo,
        env=environment(env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_init_compile_commit_runs_the_hook(tmp_path: Path) -> None:
    if shutil.which("git") is None or not PRE_COMMIT.exists():
        pytest.skip("git or the pre-commit framework is not installed")
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    repo = tmp_path / "platform"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "https://git.example.com/acme/federation.git")
    created = fedgate("init", cwd=repo, env=env)
    assert created.returncode == 0, created.stderr
    assert "pre-commit hook: installed (pre-commit install)" in created.stdout
    assert (repo / ".git" / "hooks" / "pre-commit").is_file()
    assert (
        "repoURL: https://git.example.com/acme/federation.git"
        in (repo / "policies" / "argocd.yaml").read_text()
    )
    compiled = fedgate("compile", cwd=repo, env=env)
    assert compiled.returncode == 0, compiled.stderr
    assert (repo / "rendered" / "argocd" / "team-a-application.yaml").is_file()
    first = commit(repo, env, "a fedgate platform repository")
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"fedgate check\.+Passed", first.stdout + first.stderr), first.stderr
    spec = repo / "apps" / "hello.yaml"
    spec.write_text(spec.read_text().replace("replicas: 4", "replicas: 5"))
    stale = commit(repo, env, "more replicas, not rendered")
    assert stale.returncode != 0
    assert "stale    rendered/platform-demo/hello/deployment.yaml" in stale.stdout + stale.stderr
    assert fedgate("compile", cwd=repo, env=env).returncode == 0
    assert commit(repo, env, "more replicas").returncode == 0


def test_init_overwrites_nothing_and_adds_no_example_to_a_repository_with_apps(
    tmp_path: Path,
) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "hello.yaml").write_text("mine\n")
    (tmp_path / "apps" / "shop.yaml").write_text("also mine\n")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    result = fedgate("init", "--no-hook", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "apps" / "hello.yaml").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "apps").iterdir()) == ["hello.yaml", "shop.yaml"]
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert (tmp_path / "policies" / "clusters.yaml").is_file()
    assert "kept apps/: it has app specs already" in result.stdout
    assert "kept .pre-commit-config.yaml: it exists" in result.stdout
    assert "      - id: fedgate-check" in result.stdout  # the hook to paste into their config


def test_init_refuses_half_a_bundle_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "clusters.yaml").write_text("mine\n")
    result = fedgate("init", "--no-hook", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.startswith("fedgate: ")
    assert "policies/clusters.yaml already exist; init writes a whole policy bundle" in (
        result.stderr
    )
    assert (tmp_path / "policies" / "clusters.yaml").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policies"]


def test_the_missing_bundle_hint_works_in_an_existing_app_repository(tmp_path: Path) -> None:
    """check without a bundle says "Run `fedgate init`"; init then refused a repository that
    had its own pre-commit config or app specs, so the hint led nowhere."""
    git(tmp_path, "init", "-q")
    (tmp_path / "apps").mkdir()
    spec = (ROOT / "examples" / "apps" / "web-frontend.yaml").read_text()
    (tmp_path / "apps" / "web-frontend.yaml").write_text(spec)
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    before = fedgate("check", cwd=tmp_path)
    assert before.returncode != 0
    assert "Run `fedgate init` to write one" in before.stderr
    assert fedgate("init", "--no-hook", cwd=tmp_path).returncode == 0
    compiled = fedgate("compile", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "rendered" / "platform-demo" / "web-frontend").is_dir()
    assert not (tmp_path / "rendered" / "platform-demo" / "hello").exists()


def test_init_outside_git_says_how_to_get_the_hook(tmp_path: Path) -> None:
    result = fedgate("init", "new", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "pre-commit hook: not installed: not a git repository yet" in result.stdout
    assert "next: cd new && fedgate compile" in result.stdout
    compiled = fedgate("compile", cwd=tmp_path / "new")
    assert compiled.returncode == 0, compiled.stderr
    assert compiled.stderr == ""  # the example app compiles without a warning


def test_the_shift_left_guide_shows_what_init_writes() -> None:
    guide = (ROOT / "docs" / "shift-left.md").read_text()
    assert f"```yaml\n{HOOKS}```" in guide


def test_the_scaffolded_bundle_passes_its_own_tests(tmp_path: Path) -> None:
    """init writes the rules' tests; those about overrides, autoscalers and policies are
    written against the example tree's index, so init writes that index too (without it,
    `fedgate init && fedgate test` failed 33 of 146 cases)."""
    assert fedgate("init", "--no-hook", cwd=tmp_path).returncode == 0
    assert (tmp_path / "policies" / "index.json").is_file()
    result = fedgate("test", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 0, result.stdout
    assert re.search(r"suites: \d+ passed, 0 failed", result.stdout), result.stdout


def test_init_inside_a_platform_repository_is_refused(tmp_path: Path) -> None:
    """`cd apps && fedgate init` in a repository init had set up wrote a second platform into
    apps/ (apps/policies/, apps/apps/): the next compile read the bundle as specs."""
    git(tmp_path, "init", "-q")
    assert fedgate("init", "--no-hook", cwd=tmp_path).returncode == 0
    before = sorted(
        str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if ".git" not in p.parts
    )
    result = fedgate("init", "--no-hook", cwd=tmp_path / "apps")
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr == (
        f"fedgate: . is inside the platform repository {tmp_path} (it has policies/); run "
        "`fedgate init` at the root of a new repository, or give --policies, --apps and "
        "--out to the commands to use another layout\n"
    )
    after = sorted(
        str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if ".git" not in p.parts
    )
    assert after == before
    assert fedgate("compile", cwd=tmp_path).returncode == 0
