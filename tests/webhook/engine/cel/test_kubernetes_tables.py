"""Kubernetes' own CEL test tables (``kubernetes_tables``) on both backends, and the CEL
guide's table of them (docs/cel.md), which is this run's count.

cel-expr gives Kubernetes' value or error on every case but ``KNOWN_GAPS``; cel-python gives the
same or refuses the expression when the bundle loads (naming what it cannot run), never an
evaluation error or another value.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.webhook.engine.cel import kubernetes_tables
from tests.webhook.engine.cel.kubernetes_tables import CASES, Case, outcome
from webhook.engine.cel import Backend
from webhook.engine.cel.engines import make_backend

KNOWN_GAPS = {
    "{'null_field': dyn(null)}.?null_field.?nested": "cel-cpp: .? on null is an error",
    "{'zero_field': dyn(0)}.?zero_field.?invalid": "cel-cpp: .? on an int is an error",
    "{0: dyn(0)}[?0].?invalid": "cel-cpp: .? on an int is an error",
    "{true: dyn(0)}[?true].?invalid": "cel-cpp: .? on an int is an error",
}
"""Where cel-cpp (cel-expr) is not cel-go: ``.?field`` on a value that has no fields fails the
evaluation where cel-go gives ``optional.none()`` (a rule reading so fails closed where
Kubernetes has a value). (cel-cpp's zero timestamp for ``optional.ofNonZeroValue``, the Unix
epoch, is rewritten to Go's year 1: ``webhook/engine/cel/rewrite.py``.)"""

GUIDE = Path(__file__).parents[4] / "docs" / "cel.md"
_TABLE = re.compile(r"(<!-- kubernetes-tables -->\n)(.*?)(\n<!-- /kubernetes-tables -->)", re.S)


@pytest.fixture(scope="module")
def cel_expr() -> Backend:
    return make_backend("cel-expr")


@pytest.fixture(scope="module")
def cel_python() -> Backend:
    return make_backend("cel-python")


def _id(case: Case) -> str:
    return f"{case.library}: {case.expression[:80]}"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_cel_expr_gives_what_kubernetes_gives(cel_expr: Backend, case: Case) -> None:
    result = outcome(cel_expr, case)
    if case.expression in KNOWN_GAPS:
        assert result.startswith("fail"), f"no longer a gap: {case.expression}"
        return
    assert result == "pass"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_cel_python_gives_the_same_or_refuses_at_load(cel_python: Backend, case: Case) -> None:
    result = outcome(cel_python, case)
    assert result == "pass" or result.startswith("refused: cel-python")


def test_the_guides_table_is_this_run() -> None:
    """The CEL guide's table is ``python -m tests.webhook.engine.cel.kubernetes_tables``;
    FEDGATE_REGENERATE_DOCS=1 writes it."""
    table = kubernetes_tables.table()
    text = GUIDE.read_text(encoding="utf-8")
    found = _TABLE.search(text)
    assert found is not None, "docs/cel.md has no <!-- kubernetes-tables --> block"
    if os.environ.get("FEDGATE_REGENERATE_DOCS") == "1":
        GUIDE.write_text(_TABLE.sub(lambda m: m.group(1) + table + m.group(3), text), "utf-8")
        return
    assert found.group(2) == table


def test_the_known_gaps_are_cases() -> None:
    expressions = {case.expression for case in CASES}
    assert set(KNOWN_GAPS) <= expressions
