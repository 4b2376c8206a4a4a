"""A held-back set of further requests of the classes the writers' review found (the control
plane locked out of its own writes; harmful writes let through), each an AdmissionReview in
heldback/ as its real writer sends it, with the decision upstream's code calls for (Karmada
v1.18.2, Kubernetes, Argo CD): through review() with the example bundle. Of its 65 requests,
5 were answered wrong on f418d91, all Karmada's scheduler and descheduler writing more of a
binding than their code does (heldback/tests.yaml's second section)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.bundle.model import Bundle
from webhook.suites import Case, load_suite, run_case

HERE = Path(__file__).resolve().parent / "heldback"
CASES = load_suite(HERE / "tests.yaml")


def test_every_request_file_is_a_case() -> None:
    assert {p.name for p in HERE.glob("*.json")} == {f"{c.name}.json" for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_review(case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)
