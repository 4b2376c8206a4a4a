"""The plan's golden files (tests/golden/plan/), compared or, under `make golden`, rewritten."""

from __future__ import annotations

import os

from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "plan"


def matches_golden(name: str, text: str) -> None:
    """``text`` is tests/golden/plan/NAME; FEDGATE_REGENERATE_GOLDEN=1 writes it there first."""
    path = GOLDEN / name
    if os.environ.get("FEDGATE_REGENERATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{path} differs; run `make golden` and review"
