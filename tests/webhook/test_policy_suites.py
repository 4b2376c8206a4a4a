"""Every policy suite (policies/rules/*/tests.yaml, examples/requests/tests.yaml), case by case.

`fedgate test` runs the same suites with the same runner (webhook/suites.py).
"""

from __future__ import annotations

import pytest

from tests.conftest import POLICIES
from tests.webhook.suite_cases import CASES
from webhook.bundle.model import Bundle
from webhook.suites import Case, run_case


def test_every_rule_has_a_suite() -> None:
    rules = sorted(p.parent.name for p in (POLICIES / "rules").glob("*/rule.yaml"))
    with_tests = sorted(p.parent.name for p in (POLICIES / "rules").glob("*/tests.yaml"))
    assert rules == with_tests


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite.split('/')[-2]}:{c.name}" for c in CASES])
def test_case(case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)
