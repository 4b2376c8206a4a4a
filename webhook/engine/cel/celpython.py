"""The portable backend: cel-python (``celpy``), pure Python."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import celpy
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError

from webhook.engine.cel import library
from webhook.engine.cel.backend import CelCompileError
from webhook.engine.cel.backend import CelEvalError as EvalError

_RESULT = {"bool": celtypes.BoolType, "int": celtypes.IntType, "double": celtypes.DoubleType}


def _wrap(impl: Callable[..., Any], result: type) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            return result(impl(*(_plain(a) for a in args)))
        except (library.LibraryError, TypeError, ValueError) as exc:
            return CELEvalError(str(exc), type(exc), None)

    return call


def _plain(value: Any) -> Any:
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.DoubleType | celtypes.IntType):
        return float(value)
    return value


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _wrap(library.quantity, celtypes.DoubleType),
    "isQuantity": _wrap(library.is_quantity, celtypes.BoolType),
    **{n: _wrap(f, _RESULT[r]) for n, (f, r) in library.MEMBER_FUNCTIONS.items()},
    **{n: _wrap(f, _RESULT[r]) for n, (f, r) in library.UNARY_MEMBER_FUNCTIONS.items()},
    **{n: _wrap(f, _RESULT[r]) for n, (f, r) in library.STRING_FUNCTIONS.items()},
}


class CelPythonBackend:
    name = "cel-python"

    def __init__(self) -> None:
        self._env = celpy.Environment()

    def compile(self, expression: str) -> Any:
        try:
            ast = self._env.compile(expression)
            return self._env.program(ast, functions=FUNCTIONS)
        except CELParseError as exc:
            raise CelCompileError(str(exc).strip()) from None

    def activation(self, variables: Mapping[str, Any]) -> Any:
        return {name: json_to_cel(value) for name, value in variables.items()}

    def evaluate(self, program: Any, activation: Any) -> Any:
        try:
            value = program.evaluate(activation)
        except CELEvalError as exc:
            raise EvalError(_short(exc.args[0] if exc.args else exc)) from None
        except Exception as exc:  # celpy raises plain Python errors for some type mismatches
            raise EvalError(_short(f"{type(exc).__name__}: {exc}")) from None
        if isinstance(value, CELEvalError):
            raise EvalError(_short(value.args[0] if value.args else value))
        return _to_python(value)


def _short(message: object) -> str:
    """celpy puts the whole activation into some messages: keep the first useful part."""
    text = str(message).split(" (in activation")[0]
    return text if len(text) <= 300 else text[:297] + "..."


def _to_python(value: Any) -> Any:
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, celtypes.IntType | celtypes.UintType):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.ListType):
        return [_to_python(v) for v in value]
    if isinstance(value, celtypes.MapType):
        return {_to_python(k): _to_python(v) for k, v in value.items()}
    if value is None or isinstance(value, celtypes.NullType):
        return None
    return value
