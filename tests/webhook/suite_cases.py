"""The policy suites of the repository (policies/rules/*/tests.yaml, examples/requests/tests.yaml)
and their cases, loaded once for the tests that walk them."""

from __future__ import annotations

from tests.conftest import EXAMPLES, POLICIES
from webhook.suites import find_suites, load_suite

SUITES = [*find_suites(POLICIES), *find_suites(EXAMPLES / "requests")]
CASES = [case for suite in SUITES for case in load_suite(suite)]
