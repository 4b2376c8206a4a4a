"""Both CEL backends give identical decisions on every shipped rule and every suite case, and so
do proofs (``engine.cel.proof``) against the engine alone."""

from __future__ import annotations

import pytest

from tests.conftest import POLICIES
from tests.webhook.engine.essence import essence
from tests.webhook.suite_cases import CASES
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.suites import Case, run_case


@pytest.fixture(scope="module")
def portable() -> Bundle:
    """cel-python evaluating every expression: no proof stands in for it."""
    return load_bundle(POLICIES, "cel-python", proofs=False)


@pytest.fixture(scope="module")
def engine_only() -> Bundle:
    return load_bundle(POLICIES, proofs=False)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite.split('/')[-2]}:{c.name}" for c in CASES])
def test_same_decision_on_both_backends(case: Case, bundle: Bundle, portable: Bundle) -> None:
    request = parse_review(case.review, require_uid=False)
    assert essence(review(request, bundle)) == essence(review(request, portable))
    assert run_case(case, portable).passed


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite.split('/')[-2]}:{c.name}" for c in CASES])
def test_proofs_change_no_decision(case: Case, bundle: Bundle, engine_only: Bundle) -> None:
    request = parse_review(case.review, require_uid=False)
    assert review(request, bundle) == review(request, engine_only)


def test_proofs_are_on_by_default_and_off_when_asked(bundle: Bundle, engine_only: Bundle) -> None:
    assert bundle.cel_runtime is not None and bundle.cel_runtime.proofs
    assert engine_only.cel_runtime is not None and not engine_only.cel_runtime.proofs


def test_the_default_backend_is_cel_expr(bundle: Bundle, portable: Bundle) -> None:
    assert bundle.backend is not None and bundle.backend.name == "cel-expr"
    assert portable.backend is not None and portable.backend.name == "cel-python"
