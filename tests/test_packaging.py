"""pyproject.toml lists every package by hand (the bundle ships as compiler.default_policies):
a package missing from the list would be missing from the wheel pre-commit installs."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


def test_every_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for root in ("compiler", "webhook")
        for init in (ROOT / root).rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"]["compiler.default_policies"] == "policies"


@pytest.mark.slow
def test_the_wheel_builds_without_warnings_and_ships_every_policy_file(tmp_path: Path) -> None:
    """setuptools warned at every install (a license table it deprecates, policies/rules read as a
    package nobody listed), and make demo printed those warnings; the wheel must still carry the
    whole default bundle."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr
    (wheel,) = tmp_path.glob("fedgate-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    policies = ROOT / "policies"
    expected = {
        "compiler/default_policies/" + path.relative_to(policies).as_posix()
        for path in policies.rglob("*")
        if path.is_file() and path.suffix in {".yaml", ".json"}
    }
    assert expected, "no policy files found"
    assert expected <= shipped, sorted(expected - shipped)
