"""Shared fixtures: the repository, the default bundle, and the upstream reference data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ROOT / "policies"
EXAMPLES = ROOT / "examples"
REFERENCE = ROOT.parent / "shared" / "reference"


@pytest.fixture(scope="session")
def bundle() -> Bundle:
    return load_bundle(POLICIES)


@pytest.fixture(scope="session")
def reference() -> Path:
    """../shared/reference (real upstream CRDs and payloads); skipped when not beside the repo."""
    if not REFERENCE.is_dir():
        pytest.skip(f"{REFERENCE} is absent: the upstream reference data is not beside this clone")
    return REFERENCE


@pytest.fixture
def policies_copy(tmp_path: Path) -> Path:
    """A copy of policies/ at ``tmp_path / "policies"``, for a test to edit."""
    shutil.copytree(POLICIES, tmp_path / "policies")
    return tmp_path / "policies"


@pytest.fixture
def platform_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A platform repository made from examples/ (apps/, policies/, rendered/, an empty/
    directory), compiled and committed, as the working directory."""
    from tests.helpers import git, run  # noqa: PLC0415 - only this fixture needs the CLI

    shutil.copytree(EXAMPLES / "apps", tmp_path / "apps")
    shutil.copytree(POLICIES, tmp_path / "policies")
    (tmp_path / "empty").mkdir()
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert run(["compile"])[0] == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "init")
    return tmp_path
