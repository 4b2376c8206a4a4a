"""Harmful writes a tenant (or Git) could make that the rules let through, each an
AdmissionReview in writes/ with the decision a correct platform must give (Karmada's detector
and defaulting, Kubernetes' defaulting): through review() with the example bundle. Every deny
in writes/tests.yaml was allowed on 8a7614c; the allowed cases are the legitimate writes beside
them (Argo CD creating its own template, a tenant's own policy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.bundle.model import Bundle
from webhook.suites import Case, load_suite, run_case

HERE = Path(__file__).resolve().parent / "writes"
CASES = load_suite(HERE / "tests.yaml")


def test_every_request_file_is_a_case() -> None:
    assert {p.name for p in HERE.glob("*.json")} == {f"{c.name}.json" for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_review(case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)
