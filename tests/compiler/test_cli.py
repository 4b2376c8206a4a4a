"""The command line: exit codes, --help, --check, JSON output."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate
from tests.conftest import EXAMPLES, POLICIES, ROOT
from tests.helpers import run


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"])[0] == 0
    assert "fedgate compile apps --out rendered" in capsys.readouterr().out
    assert run(["compile", "--help"])[0] == 0
    assert "--check" in capsys.readouterr().out


def test_usage_errors_exit_2() -> None:
    assert run(["compile", "--output", "xml"])[0] == 2
    code, _, err = run(["nonsense"])
    assert code == 2
    assert "invalid choice" in err


def test_check_then_compile_then_check(tmp_path: Path) -> None:
    apps, out = str(EXAMPLES / "apps"), str(tmp_path / "rendered")
    code, stdout, _ = run(["compile", apps, "--out", out, "--check"])
    assert code == 1
    assert "missing" in stdout and "run `fedgate compile" in stdout
    assert not (tmp_path / "rendered").exists()  # --check writes nothing
    assert run(["compile", apps, "--out", out])[0] == 0
    code, stdout, _ = run(["compile", apps, "--out", out, "--check"])
    assert (code, stdout.strip()) == (0, f"{out}/ is up to date (25 files; bundle policies)")


def test_removed_app_is_pruned(tmp_path: Path) -> None:
    apps = tmp_path / "apps"
    shutil.copytree(EXAMPLES / "apps", apps)
    out = str(tmp_path / "rendered")
    run(["compile", str(apps), "--out", out])
    (apps / "checkout.yaml").unlink()
    code, stdout, _ = run(["compile", str(apps), "--out", out])
    assert code == 0
    assert "removed  " in stdout and "3 removed" in stdout
    assert not (tmp_path / "rendered" / "payments" / "checkout").exists()


def test_json_output(tmp_path: Path) -> None:
    code, stdout, _ = run(
        ["compile", str(EXAMPLES / "apps"), "--out", str(tmp_path), "--output", "json"]
    )
    report = json.loads(stdout)
    assert code == 0 and report["ok"]
    demo = next(a for a in report["apps"] if a["name"] == "demo-http")
    assert demo["clusters"] == ["cluster-a", "cluster-b"]
    code, stdout, _ = run(
        [
            "compile",
            str(EXAMPLES / "bad" / "two-writers.yaml"),
            "--out",
            str(tmp_path),
            "--output",
            "json",
        ]
    )
    assert code == 1
    [error] = json.loads(stdout)["errors"]
    assert (error["line"], error["path"]) == (16, "spec.overrides[0].plaintext[0].path")
    assert error["rule"] == "retain.override-owned-field"  # its own field, not in the message
    assert error["message"].startswith("this override writes /spec/replicas")


@pytest.mark.slow
def test_console_script_and_module_entry_agree(tmp_path: Path) -> None:
    fedgate = Path(sys.executable).with_name("fedgate")
    for command in ([str(fedgate)], [sys.executable, "-m", "compiler"]):
        result = subprocess.run(
            [*command, "compile", "examples/apps", "--out", str(tmp_path / command[-1][-8:])],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert "compiled 7 apps into 25 files" in result.stdout


@pytest.mark.slow
def test_version_and_help_alone(tmp_path: Path) -> None:
    version = fedgate("--version", cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"fedgate {metadata.version('fedgate')}\n")
    alone = fedgate(cwd=tmp_path)
    assert alone.returncode == 0 and alone.stderr == ""
    assert alone.stdout.startswith("usage: fedgate [-h] [--version] COMMAND ...")
    assert "fedgate init" in alone.stdout and "completion" in alone.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["compile", "--bogus"],
            "fedgate: error: unrecognized arguments: --bogus",
            id="unknown-option",
        ),
        pytest.param(
            ["serve", "--workers", "x"],
            "fedgate serve: error: argument --workers: invalid int value: 'x'",
            id="bad-value",
        ),
    ],
)
def test_usage_errors_are_json_when_asked(tmp_path: Path, args: list[str], message: str) -> None:
    result = fedgate(*args, "--output", "json", cwd=tmp_path)
    assert result.returncode == 2
    assert json.loads(result.stdout) == {
        "ok": False,
        "errors": [
            {
                "file": None,
                "line": None,
                "column": None,
                "path": "",
                "rule": None,
                "message": message,
            }
        ],
    }
    assert result.stderr.splitlines()[-1] == message


@pytest.mark.slow
def test_serve_takes_zero_threads_and_refuses_fewer(tmp_path: Path) -> None:
    result = fedgate("serve", "--threads", "-1", "--policies", str(POLICIES), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "fedgate: --threads must be 0 (reviews on the event loop) or more\n"
    usage = fedgate("serve", "--help", cwd=tmp_path).stdout
    assert "0 reviews the others on the event loop" in usage


@pytest.mark.slow
def test_serve_refuses_a_negative_worker_memory_ceiling_and_says_what_it_is(tmp_path: Path) -> None:
    result = fedgate(
        "serve", "--worker-memory-mib", "-1", "--policies", str(POLICIES), cwd=tmp_path
    )
    assert result.returncode == 2
    assert (
        result.stderr == "fedgate: --worker-memory-mib must be 0 (no ceiling) or a number of MiB\n"
    )
    usage = " ".join(fedgate("serve", "--help", cwd=tmp_path).stdout.split())
    assert "replace a worker whose own memory (its private pages) passes MIB" in usage


@pytest.mark.slow
def test_spec_errors_in_json_name_the_rule_apart(tmp_path: Path) -> None:
    result = fedgate(
        "compile",
        "examples/bad/two-writers.yaml",
        "--out",
        str(tmp_path),
        "--output",
        "json",
        cwd=ROOT,
    )
    assert result.returncode == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error == {
        "file": "examples/bad/two-writers.yaml",
        "line": 16,
        "column": None,
        "path": "spec.overrides[0].plaintext[0].path",
        "rule": "retain.override-owned-field",
        "message": "this override writes /spec/replicas of the selected object, which its ledger "
        "gives to federated-hpa; two writers may not claim one field: bound replicas with "
        "spec.autoscaling instead (in platform-demo/fought-over/overridepolicy.yaml)",
    }
