"""cel-go's math extension (ext/math.go, v0.26.0) on cel-python's values.

fedgate's CEL environment has ``math.*`` beside Kubernetes' (the API server's 1.34 environment
does not: such a rule is "stricter-upstream" in docs/oracles.md); cel-python runs it as cel-go
does, each function a call of cost 1 (cel-go has no cost tracker for them): ``greatest`` and
``least`` over ints, uints and doubles mixed (an int against a double as float64, the first of
equal ones kept), ``ceil``, ``floor``, ``round`` (half away from zero), ``trunc`` keeping a
negative zero, ``abs`` (of the least int64 an overflow), ``sign``, ``isInf``, ``isNaN``,
``isFinite``, ``sqrt`` and the bitwise functions on int64 and uint64 (a shift of 64 or more is
0, a negative one an error; an int shifted right is shifted as a uint).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

_INT = celtypes.IntType
_UINT = celtypes.UintType
_DOUBLE = celtypes.DoubleType
_BITS = 64
_MASK = (1 << _BITS) - 1


def _int(value: int) -> Any:
    """``value`` wrapped to int64, as Go's arithmetic wraps."""
    value &= _MASK
    return _INT(value - (1 << _BITS) if value >> (_BITS - 1) else value)


def _double(value: float) -> Any:
    return _DOUBLE(value)


def _whole(rounding: Callable[[float], float]) -> Callable[[Any], Any]:
    """A double rounded to a whole double, an infinity and NaN kept, a zero signed as its
    operand (Go's ``math.Ceil(-0.5)`` is ``-0``)."""

    def run(value: Any) -> Any:
        if not isinstance(value, _DOUBLE):
            return _no_overload(value)
        number = float(value)
        if not math.isfinite(number):
            return value
        result = float(rounding(number))
        return _double(math.copysign(0.0, number) if result == 0 else result)

    return run


def _round(number: float) -> float:
    """Go's ``math.Round``: half away from zero (Python's ``round`` is half to even)."""
    whole = math.trunc(number)
    if abs(number - whole) >= 0.5:
        whole += int(math.copysign(1, number))
    return float(whole)


def _no_overload(*values: Any) -> CELEvalError:
    kinds = ", ".join(type(v).__name__ for v in values)
    return CELEvalError(f"no such overload: math function of ({kinds})")


def _abs(value: Any) -> Any:
    if isinstance(value, _DOUBLE):
        return _double(math.fabs(float(value)))
    if isinstance(value, _UINT):
        return value
    if isinstance(value, _INT) and not isinstance(value, bool):
        if int(value) == -(1 << (_BITS - 1)):
            return CELEvalError("integer overflow")
        return _INT(abs(int(value)))
    return _no_overload(value)


def _sign(value: Any) -> Any:
    if isinstance(value, _DOUBLE):
        number = float(value)
        if math.isnan(number):
            return value
        return _double(1.0 if number > 0 else -1.0 if number < 0 else 0.0)
    if isinstance(value, _UINT):
        return _UINT(1 if value else 0)
    if isinstance(value, _INT):
        return _INT((value > 0) - (value < 0))
    return _no_overload(value)


def _double_test(test: Callable[[float], bool]) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        if not isinstance(value, _DOUBLE):
            return _no_overload(value)
        return celtypes.BoolType(test(float(value)))

    return run


def _sqrt(value: Any) -> Any:
    if not isinstance(value, _DOUBLE | _INT | _UINT) or isinstance(value, celtypes.BoolType):
        return CELEvalError("no such overload: sqrt")
    number = float(value)
    return _double(math.sqrt(number) if number >= 0 else math.nan)


def _bitwise(operation: Callable[[int, int], int]) -> Callable[[Any, Any], Any]:
    def run(first: Any, second: Any) -> Any:
        if type(first) is type(second) and isinstance(first, _INT | _UINT):
            result = operation(int(first), int(second))
            return _UINT(result & _MASK) if isinstance(first, _UINT) else _int(result)
        return _no_overload(first, second)

    return run


def _bit_not(value: Any) -> Any:
    if isinstance(value, _UINT):
        return _UINT(_MASK ^ int(value))
    if isinstance(value, _INT):
        return _INT(~int(value))
    return _no_overload(value)


def _shift(*, left: bool) -> Callable[[Any, Any], Any]:
    name = "math.bitShiftLeft" if left else "math.bitShiftRight"

    def run(value: Any, bits: Any) -> Any:
        if not isinstance(value, _INT | _UINT) or not isinstance(bits, _INT):
            return _no_overload(value, bits)
        if bits < 0:
            return CELEvalError(f"{name}() negative offset: {int(bits)}")
        if bits >= _BITS:
            return _UINT(0) if isinstance(value, _UINT) else _INT(0)
        unsigned = int(value) & _MASK
        shifted = (unsigned << int(bits)) & _MASK if left else unsigned >> int(bits)
        return _UINT(shifted) if isinstance(value, _UINT) else _int(shifted)

    return run


def _compare(first: Any, second: Any) -> int | CELEvalError:
    """cel-go's ``Compare`` of two numbers: by value, an int or uint against a double as
    float64; a NaN or another type cannot be ordered."""
    numbers = (_INT, _UINT, _DOUBLE)
    if not (isinstance(first, numbers) and isinstance(second, numbers)):
        return _no_overload(first, second)
    a: float | int = int(first) if not isinstance(first, _DOUBLE) else float(first)
    b: float | int = int(second) if not isinstance(second, _DOUBLE) else float(second)
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return CELEvalError("NaN values cannot be ordered")
    return (a > b) - (a < b)


def _extreme(*, greatest: bool) -> Callable[..., Any]:
    """``math.greatest`` / ``math.least`` of one number, a list, or several numbers: the first
    of the equal extremes."""
    name = "math.@max" if greatest else "math.@min"

    def run(*args: Any) -> Any:
        values = list(args[0]) if len(args) == 1 and isinstance(args[0], list) else list(args)
        if not values:
            return CELEvalError(f"{name}(list) argument must not be empty")
        best = values[0]
        for value in values[1:]:
            order = _compare(best, value)
            if isinstance(order, CELEvalError):
                return order
            if order == (-1 if greatest else 1):
                best = value
        if not isinstance(best, _INT | _UINT | _DOUBLE) or isinstance(best, celtypes.BoolType):
            return CELEvalError(f"no such overload: {name}")
        return best

    return run


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "greatest": _extreme(greatest=True),
    "least": _extreme(greatest=False),
    "ceil": _whole(math.ceil),
    "floor": _whole(math.floor),
    "round": _whole(_round),
    "trunc": _whole(math.trunc),
    "abs": _abs,
    "sign": _sign,
    "isInf": _double_test(math.isinf),
    "isNaN": _double_test(math.isnan),
    "isFinite": _double_test(math.isfinite),
    "sqrt": _sqrt,
    "bitAnd": _bitwise(lambda a, b: a & b),
    "bitOr": _bitwise(lambda a, b: a | b),
    "bitXor": _bitwise(lambda a, b: a ^ b),
    "bitNot": _bit_not,
    "bitShiftLeft": _shift(left=True),
    "bitShiftRight": _shift(left=False),
}
"""``math.<name>``'s implementation, on celpy's values (an error for a type it has no overload
for: the checker lets a ``dyn`` through)."""
