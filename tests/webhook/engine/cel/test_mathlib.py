"""cel-python runs cel-go's math extension and ``cel.bind`` (fedgate's environment has them;
Kubernetes 1.34's does not), each as cel-go's ext/math.go and ext/bindings.go define it
(v0.26.0; the values are the functions' documented examples and Go's float rules), and the
same as cel-expr (cel-cpp's) answers."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.oracles.celgen import Generator
from tests.oracles.seeds import FIXED_SEED, fresh_seed
from webhook.engine.cel.backend import CelCompileError, CelEvalError
from webhook.engine.cel.celpython import CelPythonBackend
from webhook.engine.cel.engines import make_backend

VARIABLES = {"object": {"i": -7, "d": -2.5, "l": [3, 1.5, 2], "n": 2**53 + 1, "z": -0.3}}
FAILS = CelEvalError
PYTHON = CelPythonBackend()
EXPR = make_backend("cel-expr")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("math.greatest(1, 2.5, 2u)", 2.5),
        ("math.greatest(object.l)", 3),
        ("math.least(object.l)", 1.5),
        ("math.least(1, 1.0)", 1),
        ("math.greatest(1.0, 1)", 1.0),
        ("math.greatest(dyn(object.n), 9007199254740992.0)", 2**53 + 1),
        ("math.greatest(object.i, object.i, object.d)", -2.5),
        ("math.least(dyn('a'), 1)", FAILS),
        ("math.greatest(double('NaN'), 1.0)", FAILS),
        ("math.ceil(object.d)", -2.0),
        ("math.floor(object.d)", -3.0),
        ("math.round(object.d)", -3.0),
        ("math.round(2.5)", 3.0),
        ("math.round(0.49999999999999994)", 0.0),
        ("math.trunc(object.z)", -0.0),
        ("math.ceil(double('inf'))", math.inf),
        ("math.abs(object.i)", 7),
        ("math.abs(-9223372036854775807 - 1)", FAILS),
        ("math.abs(3u)", 3),
        ("math.sign(object.d)", -1.0),
        ("math.sign(-0.0)", 0.0),
        ("math.isInf(1.0/0.0) && math.isNaN(0.0/0.0) && math.isFinite(object.d)", True),
        ("math.sqrt(81)", 9.0),
        ("math.bitAnd(-3, -5)", -7),
        ("math.bitNot(0u)", 2**64 - 1),
        ("math.bitShiftLeft(1, 63)", -(2**63)),
        ("math.bitShiftLeft(1u, 200)", 0),
        ("math.bitShiftRight(-1024, 2)", 4611686018427387648),
        ("math.bitShiftRight(1, -1)", FAILS),
        ("cel.bind(x, object.l, x.size() + x.size())", 6),
        ("cel.bind(x, 1 / 0, x > 0)", FAILS),
        ("cel.bind(a, 1, cel.bind(b, a + 1, a + b))", 3),
    ],
)
@pytest.mark.parametrize("engine", [PYTHON, EXPR], ids=["cel-python", "cel-expr"])
def test_answers_as_cel_go(engine: Any, expression: str, expected: Any) -> None:
    activation = engine.activation(VARIABLES)
    if expected is FAILS:
        with pytest.raises(CelEvalError):
            engine.evaluate(engine.compile(expression), activation)
        return
    answer = engine.evaluate(engine.compile(expression), activation)
    assert (answer, type(answer)) == (expected, type(expected))
    if isinstance(expected, float):
        assert math.copysign(1, answer) == math.copysign(1, expected)  # -0.0 is not 0.0


@pytest.mark.parametrize(
    ("expression", "cel_go"),
    [
        ("math.abs(object.i)", 3),  # object, .i, the call
        ("math.greatest(object.i, object.d, 1)", 15),  # 4 reads, the list built, the call
        ("math.greatest(1, 2, 3)", 1),  # a constant list
        ("cel.bind(x, object.l, x.size() + x.size())", 7),  # init 2, body 5
    ],
)
def test_cost_is_cel_gos_plan(expression: str, cel_go: int) -> None:
    _, counted = PYTHON.measure(PYTHON.compile(expression), PYTHON.activation(VARIABLES))
    assert counted == cel_go


def _canonical(value: Any) -> Any:
    """A value as CEL sees it, whatever Python type a backend gives it: bytes as bytes (celpy's
    BytesType, cel-expr's bytearray), a map's entries in one order (CEL's maps have none)."""
    if isinstance(value, bytes | bytearray):
        return ("bytes", bytes(value))
    if isinstance(value, dict):
        return ("map", sorted(((repr(_canonical(k)), _canonical(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value


def _outcome(engine: Any, case: dict[str, Any]) -> tuple[str, str]:
    try:
        program = engine.compile(case["expr"])
    except CelCompileError:
        return ("compile", "")
    try:
        value = engine.evaluate(program, engine.activation(case.get("vars", {})))
        return ("value", repr(_canonical(value)))
    except CelEvalError:
        return ("error", "")


@pytest.mark.parametrize("seed", [FIXED_SEED, fresh_seed()], ids=["fixed-seed", "fresh-seed"])
def test_generated_math_answers_as_cel_expr(seed: int) -> None:
    """No oracle has Kubernetes' answer (its environment has no ``math``): the generated
    expressions that call it are held to cel-expr's, value or failure (cel-python may refuse
    one for another construct)."""
    generator = Generator(seed)
    cases = [c for c in (generator.case() for _ in range(3000)) if "math." in c["expr"]]
    differ, compared = [], 0
    for case in cases:
        ours = _outcome(PYTHON, case)
        if ours[0] == "compile":
            continue
        compared += 1
        if ours != (theirs := _outcome(EXPR, case)):
            differ.append((case["expr"], ours, theirs))
    assert compared > 50, compared
    assert not differ, f"seed {seed}: {differ[:3]}"


@pytest.mark.parametrize("engine", [PYTHON, EXPR], ids=["cel-python", "cel-expr"])
def test_an_unused_binding_that_fails(engine: Any) -> None:
    """cel-go binds lazily: ``cel.bind(x, 1 / 0, true)`` is true. cel-python too; cel-expr
    binds as a one-item map (cel-cpp's ``cel.bind`` read a stale slot after a comprehension
    that stopped early), which evaluates ``1 / 0`` at once: an error where cel-go answers,
    closed, never another value."""
    program = engine.compile("cel.bind(x, 1 / 0, true)")
    if engine.name == "cel-python":
        assert engine.evaluate(program, engine.activation(VARIABLES)) is True
    else:
        with pytest.raises(CelEvalError):
            engine.evaluate(program, engine.activation(VARIABLES))
