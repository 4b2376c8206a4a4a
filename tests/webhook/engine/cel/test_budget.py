"""A rule plus a hostile object cannot buy unbounded CPU: both backends stop an evaluation
past 10,000 comprehension iterations and fail it, naming the budget (cel-expr-python's
runtime has that budget; cel-python counts its macro bodies against the same). Kubernetes
stops at its cost limit instead (PerCallLimit, 1,000,000), so a long cheap loop it runs
fails closed here."""

from __future__ import annotations

import pytest

from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.evaluate import run

NESTED = "object.l.all(x, object.l.all(y, true))"


@pytest.mark.parametrize("name", ["cel-expr", "cel-python"])
@pytest.mark.parametrize(
    ("expression", "items"),
    [
        pytest.param(NESTED, 3000, id="nested-over-3000-items"),
        pytest.param("object.l.map(x, x + 1).size() > 0", 20000, id="map-over-20000-items"),
    ],
)
def test_an_evaluation_past_the_budget_fails_naming_it(
    name: str, expression: str, items: int
) -> None:
    done = run(make_backend(name), expression, {"object": {"l": list(range(items))}})
    assert done.stage == "eval"
    assert "budget exceeded" in done.error.lower()


@pytest.mark.parametrize("name", ["cel-expr", "cel-python"])
def test_an_evaluation_within_the_budget_answers(name: str) -> None:
    done = run(make_backend(name), NESTED, {"object": {"l": list(range(90))}})
    assert (done.stage, done.value) == ("value", True)
