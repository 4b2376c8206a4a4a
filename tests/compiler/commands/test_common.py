"""Where the commands work: the repository root from any subdirectory, outputs that cannot be
written, the CEL backend setting and the policy bundle, through the installed entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, no_traceback, platform
from tests.conftest import POLICIES

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repository = platform(tmp_path)
    (repository / "apps" / "team-b").mkdir()
    (repository / "apps" / "checkout.yaml").rename(repository / "apps" / "team-b" / "checkout.yaml")
    return repository


@pytest.mark.parametrize("command", ["compile", "plan", "check"])
def test_commands_find_the_repository_root_from_a_subdirectory(repo: Path, command: str) -> None:
    if command != "compile":
        assert fedgate("compile", cwd=repo).returncode == 0
    result = fedgate(command, cwd=repo / "apps" / "team-b")
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert (repo / "rendered" / "payments" / "checkout" / "deployment.yaml").is_file()
    assert not (repo / "apps" / "team-b" / "rendered").exists()


def test_compile_of_a_subdirectory_writes_the_root_tree(repo: Path) -> None:
    result = fedgate("compile", ".", cwd=repo / "apps" / "team-b")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^compiled 1 app into \d+ files in \.\./\.\./rendered/", result.stdout, re.M)
    assert not (repo / "apps" / "team-b" / "rendered").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["compile", "--out", "apps"],
            "the app specs apps are inside the rendered tree apps",
            id="out-is-the-specs",
        ),
        pytest.param(
            ["compile", "--out", "apps/rendered"],
            "--out apps/rendered is inside the app specs apps",
            id="out-inside-the-specs",
        ),
        pytest.param(
            ["compile", "rendered/payments", "--out", "rendered"],
            "the app specs rendered/payments are inside the rendered tree rendered",
            id="specs-inside-the-out",
        ),
        pytest.param(
            ["plan", "--out", "apps/x"],
            "--out apps/x is inside the app specs apps",
            id="plan-too",
        ),
    ],
)
def test_an_output_overlapping_the_specs_is_refused(
    repo: Path, args: list[str], message: str
) -> None:
    (repo / "rendered" / "payments").mkdir(parents=True)
    result = fedgate(*args, cwd=repo)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"fedgate: {message}")
    assert not (repo / "apps" / "rendered").exists() and not (repo / "apps" / "x").exists()


@pytest.mark.parametrize("command", ["compile", "check", "plan"])
def test_an_output_that_is_a_file_is_one_clear_line(repo: Path, command: str) -> None:
    (repo / "notadir").write_text("")
    result = fedgate(command, "--out", "notadir", cwd=repo)
    no_traceback(result)
    assert result.returncode == 2
    assert result.stderr == (
        "fedgate: --out notadir is a file; the rendered tree must be a directory\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["compile"],
        ["compile", "--check"],
        ["check"],
        ["plan"],
        ["review", "request.json"],
        ["test"],
        ["serve", "--bind", "127.0.0.1:1"],
    ],
    ids="-".join,
)
def test_an_unknown_cel_backend_is_refused_by_every_command(repo: Path, args: list[str]) -> None:
    (repo / "request.json").write_text("{}")
    result = fedgate(*args, cwd=repo, env={"FEDGATE_CEL_BACKEND": "bogus"}, timeout=30)
    no_traceback(result)
    assert result.returncode == 2
    assert "FEDGATE_CEL_BACKEND='bogus' is not one of cel-expr, cel-python" in result.stderr
    assert not (repo / "rendered").exists()


def test_without_a_bundle_nothing_silently_uses_the_example(tmp_path: Path) -> None:
    repo = platform(tmp_path, policies=False)
    for args in (["compile"], ["compile", "--check"], ["check"], ["plan"], ["test"]):
        result = fedgate(*args, cwd=repo)
        assert result.returncode == 2, args
        assert result.stderr.startswith("fedgate: no policy bundle: there is no policies/ in")
        assert "fedgate init" in result.stderr and "--example-policies" in result.stderr
    assert not (repo / "rendered").exists()
    tried = fedgate("compile", "--example-policies", cwd=repo)
    assert tried.returncode == 0, tried.stderr
    assert "example bundle" in tried.stdout


def test_fedgate_policies_is_honoured_and_checked(tmp_path: Path) -> None:
    repo = platform(tmp_path, policies=False)
    missing = fedgate("compile", cwd=repo, env={"FEDGATE_POLICIES": "nonexist"})
    assert (missing.returncode, missing.stderr) == (
        2,
        "fedgate: FEDGATE_POLICIES=nonexist: no such directory\n",
    )
    used = fedgate("compile", cwd=repo, env={"FEDGATE_POLICIES": str(POLICIES)})
    assert used.returncode == 0, used.stderr
    assert f"bundle {POLICIES}" in used.stdout
    report = json.loads(
        fedgate(
            "check", "--output", "json", cwd=repo, env={"FEDGATE_POLICIES": str(POLICIES)}
        ).stdout
    )
    assert report["policies"] == str(POLICIES)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        pytest.param("nonexist", "fedgate: --policies nonexist: no such directory\n", id="missing"),
        pytest.param(
            "apps/demo-http.yaml",
            "fedgate: --policies apps/demo-http.yaml: a file; the bundle is a directory "
            "(holding clusters.yaml, tenants.yaml, writers.yaml and rules/)\n",
            id="a-file",
        ),
    ],
)
def test_a_wrong_policies_option_is_said_once(repo: Path, given: str, message: str) -> None:
    for command in ("compile", "check", "test"):
        result = fedgate(command, "--policies", given, cwd=repo)
        assert (result.returncode, result.stderr) == (2, message)


def test_without_specs_the_commands_say_where_they_looked(tmp_path: Path) -> None:
    repo = platform(tmp_path, apps=False)
    for command in ("compile", "check", "plan"):
        result = fedgate(command, cwd=repo)
        assert (result.returncode, result.stdout) == (2, ""), command
        assert result.stderr == (
            f"fedgate: no app specs: there is no apps/ in the repository {repo}; give the spec "
            "files or directories (APPS or --apps DIR), or run `fedgate init` to start a "
            "platform repository\n"
        )


def test_an_empty_cel_backend_variable_means_unset(repo: Path) -> None:
    result = fedgate("compile", cwd=repo, env={"FEDGATE_CEL_BACKEND": ""})
    assert result.returncode == 0, result.stderr
    served = fedgate("serve", "--bind", "nonsense", cwd=repo, env={"FEDGATE_CEL_BACKEND": ""})
    assert served.stderr.startswith("fedgate: --bind nonsense: give HOST:PORT")


def test_bundle_errors_name_the_files_as_the_user_reaches_them(tmp_path: Path) -> None:
    """A mistake in the repository's policies/ was reported with the absolute path
    (/home/.../platform/policies/tenants.yaml:17: ...) while spec errors said apps/x.yaml."""
    repo = platform(tmp_path)
    tenants = repo / "policies" / "tenants.yaml"
    tenants.write_text(tenants.read_text().replace("registries:", "registires:", 1))
    for where, shown in ((repo, "policies"), (repo / "apps", "../policies")):
        result = fedgate("compile", cwd=where)
        no_traceback(result)
        assert result.returncode == 1
        assert result.stderr.startswith(f"{shown}/tenants.yaml:"), result.stderr
        assert str(tmp_path) not in result.stderr
