"""Shared fixtures: the repository, the default bundle, and the upstream reference data."""

from __future__ import annotations

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
