"""cel-go's overloads by argument type (``overloads.py``): what cel-python refuses before a
call, as cel-go fails on a ``dyn`` value of a type no overload takes."""

from __future__ import annotations

from typing import Any

import pytest
from celpy import celtypes

from webhook.engine.cel import overloads, timelib
from webhook.engine.cel.backend import CelEvalError
from webhook.engine.cel.celpython import CelPythonBackend

STRING, INT, UINT = celtypes.StringType("ab"), celtypes.IntType(3), celtypes.UintType(0)
LIST, MAP = celtypes.ListType([INT]), celtypes.MapType({STRING: INT})


@pytest.mark.parametrize(
    ("name", "args", "refused"),
    [
        ("sort", [MAP], "no such overload: sort(map)"),
        ("sort", [LIST], None),
        ("bytes", [LIST], "no such overload: bytes(list)"),
        ("bytes", [STRING], None),
        ("_%_", [UINT, celtypes.BoolType(True)], "no such overload: _%_(uint, bool)"),
        ("_%_", [UINT, UINT], None),
        ("_+_", [timelib.Duration(1), timelib.Timestamp(0)], None),
        ("_*_", [timelib.Duration(1), INT], "no such overload: _*_(duration, int)"),
        ("indexOf", [LIST, STRING], None),
        ("indexOf", [MAP, STRING], "no such overload: indexOf(map, string)"),
        ("sets.contains", [STRING, STRING], "no such overload: sets.contains(string, string)"),
        ("string", [LIST], "no such overload: string(list)"),
        ("size", [celtypes.NullType()], "no such overload: size(null)"),
        ("size", [MAP], None),
        ("ip", [INT], None),  # not checked here: the library function refuses
    ],
)
def test_a_call_no_overload_takes_is_refused(
    name: str, args: list[Any], refused: str | None
) -> None:
    assert overloads.refusal(name, args) == refused


@pytest.mark.parametrize(
    "expression",
    [
        "object.m.sort()",
        "object.m.isSorted()",
        "bytes(object.l)",
        "object.s.min()",
        "0u % object.b",
        "object.b + 1",
        "sets.intersects(object.m, object.m)",
        "quantity(object.i)",
    ],
)
def test_cel_python_fails_as_cel_go(expression: str) -> None:
    backend = CelPythonBackend()
    variables = {"object": {"m": {"a": 1}, "l": [2, 1], "s": "ab", "b": True, "i": 3}}
    with pytest.raises(CelEvalError, match="no such overload"):
        backend.evaluate(backend.compile(expression), backend.activation(variables))
