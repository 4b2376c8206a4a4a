"""Karmada's own override-manager test tables (``cases/overridemanager.yaml``, ported from
karmada-io/karmada v1.18.0 pkg/util/overridemanager/*_test.go) through the pure functions."""

from __future__ import annotations

import pytest

from tests.webhook.karmada.tables import (
    OverrideCase,
    check,
    override_cases,
    run_overriders,
    run_pure,
)


@pytest.mark.parametrize("case", override_cases())
def test_override_manager(case: OverrideCase) -> None:
    try:
        result, applied, rules = run_pure(case)
    except Exception:
        if not case.error:
            raise
        return
    check(case, result, applied, rules)


@pytest.mark.parametrize("case", [c for c in override_cases() if c.values[0].bare])
def test_bare_overriders(case: OverrideCase) -> None:
    check(case, run_overriders(case))
