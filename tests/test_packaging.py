"""pyproject.toml lists every package by hand (the bundle ships as compiler.default_policies):
a package missing from the list would be missing from the wheel pre-commit installs."""

from __future__ import annotations

import tomllib

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
