"""Conversions of a value cel-go types by the lists extension's unresolved element type
(``webhook/engine/cel/typeparam.py``) against Kubernetes' own CEL: the oracle (k8s.io/apiserver
v0.34.3) answers expressions mixing ``reverse``/``distinct``/``slice``/``flatten``/``first``/
``last``, what keeps their element type (indexes, ``filter``, ``map(x, x)``, ``sort``, list
literals, conditionals, comprehension variables) and the conversions, over lists of every
scalar, and both backends must answer as it does or fail where it fails (a failure fedgate
chooses where cel-go's binding is not followed says so: ``failing closed``, as does the
cost bound's refusal)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles.build import Conversation
from tests.oracles.differential import compare
from webhook.engine.cel.backend import Backend
from webhook.engine.cel.engines import make_backend

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

LISTS = {
    "b": [True, False],
    "s": ["1", "a"],
    "i": [1, 2],
    "d": [1.5, 2.0],
    "n": [[True], [False]],  # a list of lists (max() of a mixed list is another matter)
}
VARIABLES = {"object": {**LISTS, "spec": {"replicas": 3}}}
SOURCES = [
    "{l}.reverse()",
    "{l}.distinct()",
    "{l}.slice(0, 1)",
    "{l}.sort()",
    "{l}.filter(x, true)",
    "{l}.map(x, x)",
    "{l}.sortBy(x, x)",
    "[{l}[0]]",
    "lists.range(2)",
]
"""Lists made of a list: ``{l}`` is a variable's list or another of these."""
ELEMENTS = [
    *("{l}[0]", "{l}[1]", "(true ? {l}[0] : {l}[1])", "[{l}[0]][0]", "{l}.first().value()"),
    *("{l}.last().value()", "{l}.max()"),
]
CONVERSIONS = ["string", "int", "uint", "double", "bool", "bytes"]
FLAT = "object.n.flatten()"


@st.composite
def lists(draw: st.DrawFn, depth: int = 2) -> str:
    base = draw(st.sampled_from([*(f"object.{name}" for name in LISTS if name != "n"), FLAT]))
    for _ in range(draw(st.integers(0, depth))):
        base = draw(st.sampled_from(SOURCES)).format(l=base)
    return base


@st.composite
def expressions(draw: st.DrawFn) -> str:
    element = draw(st.sampled_from(ELEMENTS)).format(l=draw(lists()))
    conversion = draw(st.sampled_from(CONVERSIONS))
    shape = draw(
        st.sampled_from(
            [
                "{c}({e})",
                "{c}(dyn({e}))",
                "[{c}({e}), string(object.spec.replicas)]",
                "{l}.map(x, {c}(x))",
                "{l}.exists(x, {c}(x) == {c}(x))",
                "type({e}) == bool",
                "{c}({e}) == {c}({e})",
                "{l}.exists(x, x == {e} && {c}(x) != '')",
            ]
        )
    )
    return shape.format(c=conversion, e=element, l=draw(lists()))


@pytest.fixture(scope="module")
def backends() -> dict[str, Backend]:
    return {name: make_backend(name) for name in ("cel-expr", "cel-python")}


def _agree(expression: str, kubernetes_cel: Conversation, backends: dict[str, Backend]) -> None:
    case: dict[str, Any] = {"expr": expression, "vars": VARIABLES}
    answer = kubernetes_cel.ask(case)
    for name, engine in backends.items():
        verdict = compare(engine, case, answer)
        if verdict.outcome != "mismatch" or "compile" in answer:
            continue  # same, or stricter upstream: Kubernetes refuses it at policy creation
        assert verdict.ours[0] != "value", (name, expression, verdict.ours, answer)
        assert re.search("fail(ing|s) closed", str(verdict.ours[1])), (name, expression, verdict)


@settings(
    max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(expression=expressions())
def test_conversions_of_an_unresolved_element_type_as_kubernetes(
    expression: str, kubernetes_cel: Conversation, backends: dict[str, Backend]
) -> None:
    _agree(expression, kubernetes_cel, backends)
