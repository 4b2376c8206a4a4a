"""The portable backend: cel-python (``celpy``), pure Python."""

from __future__ import annotations

import datetime
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from decimal import Decimal
from typing import Any

import celpy
import lark
from celpy import InterpretedRunner, celtypes
from celpy.adapter import json_to_cel
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, Evaluator, base_functions

from webhook.engine.budget import BudgetExceeded
from webhook.engine.budget import check as check_budget
from webhook.engine.cel import (
    bound,
    comprehensions,
    cost,
    library,
    mathlib,
    netlib,
    overloads,
    rewrite,
    sharing,
    stringformat,
    timelib,
    typeparam,
)
from webhook.engine.cel.backend import CelCompileError
from webhook.engine.cel.backend import CelEvalError as EvalError
from webhook.engine.cel.celexpr import CelExprBackend
from webhook.engine.cel.paths import STRING_LITERAL

# ---- CEL's own semantics where celpy departs from them (measured: ``true <= 50`` was true,
# ``string(true)`` was 'True', ``1 == 1.0`` an error, ``has()`` of a field of a string false)


def _kind(value: Any) -> str:
    """The CEL kind that decides which overload applies (``overloads.kind``, with int, uint
    and double one kind: a number; a bool is never one). celpy hands back plain Python values
    too (``'a' + 'b'`` is a str, ``[1] + [2]`` a list)."""
    kind = overloads.kind(value)
    return "number" if kind in _NUMBER_KINDS else kind


_NUMBER_KINDS = frozenset({"int", "uint", "double"})


def cel_equal(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality (cel-go and cel-cpp at run time): numbers compare by
    value across int, uint and double; lists and maps element by element; values of
    different kinds are unequal (``true == 1`` is false)."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "list":
        if len(a) != len(b):
            return False
        last = getattr(_LAST_LISTS, "pair", None)
        if last is not None and last[0] is a and last[1] is b:
            answer: bool = last[2]
            return answer
        same = _same_type_equality(a, b)
        if same is not None:
            answer = all(map(same, a, b))
        else:
            answer = all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
        if len(a) >= _REMEMBERED_LENGTH:
            _LAST_LISTS.pair = (a, b, answer)
        return answer
    if kind == "map":
        if len(a) != len(b):
            return False
        for key, value in a.items():
            match = next((k for k in b if cel_equal(k, key)), _ABSENT)
            if match is _ABSENT or not cel_equal(value, b[match]):
                return False
        return True
    if kind == "null":
        return True
    if kind == "number":  # celpy's own int == double raises: compare the exact values
        return _number(a) == _number(b)
    return bool(a == b)


_LAST_LISTS = threading.local()
"""The last two long lists compared on this thread, and their equality: CEL's values do not
change, so the same two lists compared again (a comparison in a comprehension's body, once per
item) give the same answer without another pass over their items. The pair is held, so their
ids cannot be taken by other lists."""
_REMEMBERED_LENGTH = 64
"""Lists shorter than this are compared again: a pass over them costs less than remembering."""


_SCALAR_EQUALITY: dict[type, Callable[[Any, Any], Any]] = {
    celtypes.IntType: int.__eq__,
    celtypes.UintType: int.__eq__,
    celtypes.BoolType: int.__eq__,
    celtypes.DoubleType: float.__eq__,
    celtypes.StringType: str.__eq__,
    celtypes.BytesType: bytes.__eq__,
}
"""CEL's equality of two values of one of these types is their Python type's own (a NaN is
unequal to itself in both), without the checks across types."""


def _same_type_equality(a: Sequence[Any], b: Sequence[Any]) -> Callable[[Any, Any], Any] | None:
    """The one equality that compares two lists item by item when every item of both is of
    one scalar type (a list compared with a list many times over costs Kubernetes 0.1 an
    item: counting it should not cost Python 2 microseconds an item); else None."""
    kinds = set(map(type, a))
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    equality = _SCALAR_EQUALITY.get(kind)
    if equality is None or set(map(type, b)) != kinds:
        return None
    return equality


def _number(value: Any) -> int | float:
    return float(value) if isinstance(value, float) else int(value)


_ABSENT = object()
_ORDERED = frozenset({"bool", "number", "string", "bytes", "timestamp", "duration"})


def _ordering(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    def ordered(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if isinstance(b, CELEvalError):
            return b
        kind = _kind(a)
        if kind != _kind(b) or kind not in _ORDERED:
            return CELEvalError(f"no such overload: {kind} and {_kind(b)} are not ordered")
        if kind == "number":
            x, y = _number(a), _number(b)
            if any(isinstance(v, float) and math.isnan(v) for v in (x, y)):
                return CELEvalError("NaN values cannot be ordered")  # cel-go's, not false
            if isinstance(x, float) != isinstance(y, float):  # cel-go compares an int with a
                x, y = float(x), float(y)  # double as float64(int): 2^63-1 < 2^63 is false
            return celtypes.BoolType(compare(x, y))
        return celtypes.BoolType(compare(a, b))

    return ordered


def _equality(negate: bool) -> Callable[[Any, Any], Any]:
    def equal(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if isinstance(b, CELEvalError):
            return b
        return celtypes.BoolType(cel_equal(a, b) is not negate)

    return equal


def _in(item: Any, container: Any) -> Any:
    if isinstance(item, CELEvalError):
        return item
    if isinstance(container, celtypes.MapType | celtypes.ListType):
        return celtypes.BoolType(any(cel_equal(item, c) for c in container))
    if isinstance(container, CELEvalError):
        return container
    return CELEvalError(f"no such overload: in on a {_kind(container)}")


def _string(value: Any) -> Any:
    if value is None:  # celpy wrote 'None'
        return CELEvalError("no such overload: string(null)")
    if isinstance(value, celtypes.BoolType):
        return celtypes.StringType("true" if value else "false")
    if isinstance(value, netlib.IP | netlib.CIDR):  # Kubernetes' string() of an IP or CIDR
        return celtypes.StringType(netlib.to_string(value))
    if isinstance(value, float):
        return celtypes.StringType(go_double(float(value)))
    if isinstance(value, timelib.Duration):
        return celtypes.StringType(timelib.format_duration(value))
    if isinstance(value, timelib.Timestamp):
        return celtypes.StringType(timelib.format_timestamp(value))
    return celtypes.StringType(value)


def go_double(value: float) -> str:
    """cel-go's ``string()`` of a double: Go's ``strconv.FormatFloat(value, 'g', -1, 64)``,
    the shortest digits that read back as the value, with an exponent (``1e+06``) from 10^6 or
    below 10^-4, ``+Inf``, ``-Inf`` and ``NaN`` (Python wrote ``1000000.0``, ``1.0``, ``inf``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    shortest = Decimal(repr(abs(value))).normalize()
    _, digits_tuple, exponent = shortest.as_tuple()
    digits = "".join(map(str, digits_tuple))
    point = len(digits) + int(exponent)  # the value is 0.<digits> * 10^point
    if not -4 <= point - 1 < 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = point - 1
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _index(target: Any, key: Any) -> Any:
    """``target[key]`` on a list or a map only (celpy also indexed strings and bytes)."""
    for operand in (target, key):
        if isinstance(operand, CELEvalError):
            return operand
    if not isinstance(target, celtypes.ListType | celtypes.MapType):
        return CELEvalError(f"no such overload: index of a {_kind(target)}")
    if isinstance(target, celtypes.ListType) and (
        not isinstance(key, celtypes.IntType | celtypes.UintType) or not -1 < int(key) < len(target)
    ):
        return CELEvalError(f"index out of range or not an int: {key}")
    return base_functions["_[_]"](target, key)


def _logical(*, conjunction: bool) -> Callable[[Any, Any], Any]:
    """CEL's ``&&`` / ``||``: the deciding bool wins over an error or a value of another type
    on either side; else an error, and a non-bool operand is one (celpy handed it back)."""
    deciding = not conjunction

    def run(a: Any, b: Any) -> Any:
        if any(isinstance(v, celtypes.BoolType) and bool(v) is deciding for v in (a, b)):
            return celtypes.BoolType(deciding)
        for value in (a, b):
            if isinstance(value, CELEvalError):
                return value
            if not isinstance(value, celtypes.BoolType):
                return CELEvalError(f"no such overload: {_kind(value)} in && or ||")
        return celtypes.BoolType(not deciding)

    return run


def _numeric_kind(value: Any) -> str | None:
    for kind, name in ((celtypes.BoolType, None), (celtypes.UintType, "uint")):
        if isinstance(value, kind):
            return name
    if isinstance(value, celtypes.IntType):
        return "int"
    return "double" if isinstance(value, celtypes.DoubleType) else None


def _arithmetic(name: str) -> Callable[[Any, Any], Any]:
    """celpy's ``+ - * / %``, refusing operands no overload of cel-go takes
    (``overloads.py``: an int, a uint and a double mixed, ``0u % 2`` among them, a bool). A
    double's sum, difference or product comes back from celpy as a plain Python float: it is
    made a CEL double again, so that ``uint()`` and ``int()`` range-check it
    (``uint(1e-300 * -1.5)`` is an overflow in CEL; celpy truncated the float to 0); a sum of
    strings, bytes or lists the same way. An
    operand's error is the result, as cel-go's."""
    run = base_functions[name]

    def checked(a: Any, b: Any) -> Any:
        for operand in (a, b):
            if isinstance(operand, CELEvalError):
                return operand  # celpy's own message named the rule, not the error
        refused = overloads.refusal(name, (a, b))
        if refused is not None:
            return CELEvalError(refused)
        if name in _TIME_ARITHMETIC and _timed(a, b):
            return _time_call(_TIME_ARITHMETIC[name], a, b)
        if name == "_/_" and _numeric_kind(a) == "double" and float(b) == 0.0:
            return celtypes.DoubleType(_ieee_division_by_zero(float(a), float(b)))
        result = run(a, b)
        for plain, kind in _PLAIN_RESULTS:
            if isinstance(result, plain) and not isinstance(result, kind):
                return kind(result)
        return result

    return checked


_TIME_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "_+_": timelib.add,
    "_-_": timelib.subtract,
}


def _timed(*values: Any) -> bool:
    return any(isinstance(v, celtypes.DurationType | celtypes.TimestampType) for v in values)


def _time_call(function: Callable[..., Any], *args: Any) -> Any:
    """A ``timelib`` function on celpy's values: its failure as a CEL error."""
    for arg in args:
        if isinstance(arg, CELEvalError):
            return arg
    try:
        value = function(*args)
    except (timelib.TimeError, TypeError) as exc:
        return CELEvalError(str(exc))
    return celtypes.IntType(value) if type(value) is int else value


def _negation(value: Any) -> Any:
    """``-x``: a duration's as cel-go negates it (``-duration`` of int64's least overflows)."""
    if isinstance(value, celtypes.DurationType):
        return _time_call(timelib.negate, value)
    return base_functions["-_"](value)


def _time_conversion(name: str) -> Callable[[Any], Any]:
    """``duration()`` and ``timestamp()``: of a string (Go's parse), an int (nanoseconds,
    Unix seconds) or a value of the type; nothing else."""
    kind = timelib.Duration if name == "duration" else timelib.Timestamp
    of_string = timelib.parse_duration if name == "duration" else timelib.parse_timestamp
    of_int = timelib.Duration if name == "duration" else timelib.timestamp_of_seconds

    def convert(value: Any) -> Any:
        if isinstance(value, CELEvalError | kind):
            return value
        if isinstance(value, celtypes.StringType | str):
            return _time_call(of_string, str(value))
        if isinstance(value, celtypes.IntType) and not isinstance(value, celtypes.BoolType):
            return _time_call(of_int, int(value))
        return CELEvalError(f"no such overload: {name}({_kind(value)})")

    return convert


def _type(value: Any) -> Any:
    """``type()``: celpy's, a duration's and a timestamp's being celpy's types."""
    for kind in (celtypes.DurationType, celtypes.TimestampType):
        if isinstance(value, kind):
            return kind
    return base_functions["type"](value)


_PLAIN_RESULTS: tuple[tuple[type, type], ...] = (
    (float, celtypes.DoubleType),
    (str, celtypes.StringType),
    (bytes, celtypes.BytesType),
    (list, celtypes.ListType),
)
"""The plain Python values celpy's ``+`` can hand back, each with the CEL type it is made
again (``('a' + 'b').contains('b')`` had no overload on a plain str)."""


def _ieee_division_by_zero(dividend: float, zero: float) -> float:
    """IEEE 754's ``x / ±0.0``, as cel-go divides: NaN for 0 or NaN, else an infinity signed
    by both operands (celpy's ``3.14 / -0.0`` was +inf)."""
    if dividend == 0.0 or math.isnan(dividend):
        return math.nan
    return math.copysign(math.inf, dividend) * math.copysign(1.0, zero)


def _overloaded(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` refusing arguments none of cel-go's overloads of ``name`` takes
    (``overloads.py``); an argument's error is the result, as cel-go's."""

    def call(*args: Any) -> Any:
        for arg in args:
            if isinstance(arg, CELEvalError):
                return arg
        refused = overloads.refusal(name, args)
        if refused is not None:
            return CELEvalError(refused)
        return function(*args)

    return call


def _conversion(name: str, refused: tuple[type, ...]) -> Callable[[Any], Any]:
    """celpy's conversion ``name()``, refusing the types CEL has no overload for (a bool to
    a number, a number to a bool: celpy converted them, bools being Python ints; a null:
    celpy's ``int(null)`` was 0)."""

    def convert(value: Any) -> Any:
        if value is None or isinstance(value, refused):
            return CELEvalError(f"no such overload: {name}({_kind(value)})")
        if _timed(value):
            if name != "int":
                return CELEvalError(f"no such overload: {name}({_kind(value)})")
            whole = value.nanos if isinstance(value, timelib.Duration) else value.seconds
            return celtypes.IntType(whole)
        convertible = _CONVERTIBLE.get(name)
        if convertible and isinstance(value, celtypes.DoubleType) and not convertible(value):
            return CELEvalError(f"{name}() of {value}: out of range")
        if name == "bool" and isinstance(value, celtypes.StringType):
            if value not in _BOOLS:
                return CELEvalError(f"type conversion error from string {value!r} to bool")
            return celtypes.BoolType(value in _BOOLS[:6])
        return base_functions[name](value)

    return convert


_NUMBERS = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)
_CONVERTIBLE: dict[str, Callable[[float], bool]] = {
    "int": lambda v: -(2.0**63) < v < 2.0**63,
    "uint": lambda v: 0 <= v < 2.0**64,
}
"""The doubles cel-go converts (doubleToInt64Checked: -2^63 and 2^63 themselves overflow)."""
_BOOLS = ("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False")
"""The strings cel-go's bool() reads (strconv.ParseBool): the first six are true."""

OPERATORS: dict[str, Callable[..., Any]] = {
    "bool": _overloaded("bool", _conversion("bool", (*_NUMBERS, celtypes.BytesType))),
    **{n: _overloaded(n, _conversion(n, (celtypes.BoolType,))) for n in ("int", "uint", "double")},
    **{name: _arithmetic(name) for name in ("_+_", "_-_", "_*_", "_/_", "_%_")},
    "_[_]": _index,
    "_&&_": _logical(conjunction=True),
    "_||_": _logical(conjunction=False),
    "_<_": _ordering(lambda a, b: a < b),
    "_<=_": _ordering(lambda a, b: a <= b),
    "_>_": _ordering(lambda a, b: a > b),
    "_>=_": _ordering(lambda a, b: a >= b),
    "_==_": _equality(negate=False),
    "_!=_": _equality(negate=True),
    "_in_": _in,
    "string": _overloaded("string", _string),
    "bytes": _overloaded("bytes", base_functions["bytes"]),
    "-_": _negation,
    "duration": _time_conversion("duration"),
    "timestamp": _time_conversion("timestamp"),
    "type": _type,
}


def _library(impl: Callable[..., Any]) -> Callable[..., Any]:
    """A ``library`` function on plain values, its result back as celpy's."""

    def call(*args: Any) -> Any:
        for arg in args:
            if isinstance(arg, CELEvalError):
                return arg
        try:
            result = impl(*(_to_library(a) for a in args))
            return _from_library(result)
        except (library.LibraryError, TypeError, ValueError) as exc:
            return CELEvalError(str(exc), type(exc), None)

    return call


_OPAQUE = tuple(kind for kind, _ in library.OPAQUE_TYPES.values())
_KEPT = (*_OPAQUE, celtypes.DurationType, celtypes.TimestampType, celtypes.BytesType)
"""A library function's results handed back as they are (json_to_cel knows no others)."""


def _from_library(value: Any) -> Any:
    """A library function's plain result as celpy's values, a duration, a timestamp or an
    opaque value kept as it is, also inside a list (json_to_cel made a duration microseconds)."""
    if isinstance(value, library.Uint):
        return celtypes.UintType(value)
    if isinstance(value, _KEPT):
        return value
    if isinstance(value, list) and _holds_kept(value):
        return celtypes.ListType([_from_library(item) for item in value])
    return json_to_cel(value)


def _holds_kept(items: list[Any]) -> bool:
    return any(
        isinstance(i, (*_KEPT, library.Uint)) or (isinstance(i, list) and _holds_kept(i))
        for i in items
    )


_NAMESPACED: dict[str, Callable[..., Any]] = {
    **library.SETS_FUNCTIONS,
    "lists.range": library.lists_range,
    "ip.isCanonical": library.OPAQUE_FUNCTIONS["ip.isCanonical"][0],
}
"""Functions whose names have a dot: celpy reads ``sets.contains(a, b)`` as a method of a
variable ``sets``."""

_PLAIN_NAMES = {
    name
    for name in library.OPAQUE_FUNCTIONS
    if "." not in name and name != "string" and name not in rewrite.INTERNAL
}
"""The IP, CIDR, URL and semver functions celpy calls by name (``string()`` is the operator's;
``format.*`` and ``validate`` return optionals, which celpy has not: refused at load)."""


def _getter(name: str) -> Callable[..., Any]:
    """The getter ``name`` of a timestamp (in its zone or one named) or a duration, as
    cel-go's (``timelib.get``); on anything else no overload."""

    def get(value: Any, *zone: Any) -> Any:
        return _time_call(lambda *args: timelib.get(name, *args), value, *zone)

    return get


_CELPY_TYPE_NAMES: dict[Any, str] = {
    celtypes.BoolType: "bool",
    celtypes.IntType: "int",
    celtypes.UintType: "uint",
    celtypes.DoubleType: "double",
    celtypes.StringType: "string",
    celtypes.BytesType: "bytes",
    celtypes.ListType: "list",
    celtypes.MapType: "map",
    celtypes.NullType: "null_type",
    type(None): "null_type",
    celtypes.TypeType: "type",
    celtypes.TimestampType: "google.protobuf.Timestamp",
    celtypes.DurationType: "google.protobuf.Duration",
}
"""celpy's type values -> cel-go's ``TypeName()``."""
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _format_value(value: Any) -> Any:
    """A ``format()`` argument (after ``_to_library``) as ``stringformat`` takes it:
    timestamps and durations to the nanosecond (``timelib``), types by cel-go's name."""
    if isinstance(value, list):
        return [_format_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _format_value(item) for key, item in value.items()}
    if isinstance(value, timelib.Timestamp):
        if value.offset:
            raise stringformat.FormatError(
                "format(): fedgate does not format a timestamp in an offset other than UTC's"
            )
        return stringformat.Timestamp(value.seconds, value.nanos)
    if isinstance(value, timelib.Duration):
        return stringformat.Duration(value.nanos)
    if isinstance(value, datetime.datetime):
        elapsed = value - _EPOCH
        return stringformat.Timestamp(
            elapsed.days * 86_400 + elapsed.seconds, elapsed.microseconds * 1000
        )
    if isinstance(value, datetime.timedelta):
        return stringformat.Duration(value // datetime.timedelta(microseconds=1) * 1000)
    if isinstance(value, type):
        if value in _CELPY_TYPE_NAMES:
            return stringformat.TypeName(_CELPY_TYPE_NAMES[value])
        raise stringformat.FormatError(f"format(): fedgate cannot name the type {value}")
    return value


def _format(text: str, arguments: list[Any]) -> str:
    """cel-go's ``format()`` (``stringformat``), as cel-expr runs it."""
    if not isinstance(arguments, list):
        raise stringformat.FormatError("no such overload: format() takes a list")
    return stringformat.format_string(text, [_format_value(a) for a in arguments])


_CHECKED = {
    **{n: base_functions[n] for n in ("contains", "startsWith", "endsWith", "matches")},
    "size": base_functions["size"],
    **{n: _library(f) for n, (f, _) in library.LIST_FUNCTIONS.items()},
    **{n: _library(f) for n, (f, _) in library.STRING_FUNCTIONS.items()},
    "find": _library(library.regex_find),
    "findAll": _library(library.regex_find_all),
    "quantity": _library(library.quantity),
    "isQuantity": _library(library.is_quantity),
    **{n: _library(f) for n, f in library.LISTS_EXTENSION.items() if "." not in n},
}
"""Functions whose arguments are checked against cel-go's overloads before they run."""

FUNCTIONS: dict[str, Callable[..., Any]] = {
    **OPERATORS,
    **{name: _getter(name) for name in timelib.GETTERS},
    **{n: _library(f) for n, f in library.SETS_FUNCTIONS.items()},
    **{n: _library(f) for n, (f, _, _) in library.QUANTITY_MEMBERS.items()},
    **{n: _library(f) for n, (f, _) in library.QUANTITY_UNARY.items()},
    **{n: _library(f) for n, (f, _) in library.OPAQUE_FUNCTIONS.items() if n in _PLAIN_NAMES},
    **{n: _overloaded(n, f) for n, f in _CHECKED.items()},
    "format": _library(_format),
    typeparam.UNRESOLVED: _library(library.unresolved_conversion),
}


_TYPE_NAMES = {
    "string": celtypes.StringType,
    "bytes": celtypes.BytesType,
    "bool": celtypes.BoolType,
    "int": celtypes.IntType,
    "uint": celtypes.UintType,
    "double": celtypes.DoubleType,
}


_TYPE_IDENTS = frozenset(
    {*_TYPE_NAMES, "bytes", "list", "map", "null_type", "type", "timestamp", "duration"}
)
"""CEL's type names, which read as types where no variable has the name."""


ITERATION_BUDGET = 10_000
"""Macro-body evaluations (comprehension iterations) one evaluation may run, the budget
cel-expr-python's runtime has: past it the evaluation stops and fails (closed), so a rule
plus a hostile object cannot buy minutes of CPU (100 x 100 nested iterations took 4 s in
celpy, 300 x 300 more than two minutes).
Kubernetes has no such budget: it stops an evaluation at its cost limit (PerCallLimit), which
cel-python counts too (``cost.py``); this budget is stricter for long cheap loops."""


class _OverBudget(Exception):  # not a CELEvalError: no macro may absorb it
    """The evaluation ran past ``ITERATION_BUDGET`` or Kubernetes' ``PER_CALL_LIMIT``: it
    stops there, failing."""


_COST: ContextVar[list[int] | None] = ContextVar("fedgate_cel_cost", default=None)
"""The running evaluation's cost so far (``cost.py``), one counter per evaluation."""
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
"""cel-go's message when an evaluation passes its cost limit."""


def _charge(amount: int) -> None:
    counter = _COST.get()
    if counter is None or not amount:
        return
    counter[0] += amount
    if counter[0] > cost.PER_CALL_LIMIT:
        raise _OverBudget(f"{COST_EXCEEDED} (Kubernetes' per-expression {cost.PER_CALL_LIMIT:,})")


def _costed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` charging the evaluation its Kubernetes cost (``cost.call_cost``)."""

    def call(*args: Any) -> Any:
        try:
            result = function(*args)
        except Exception:  # a call that fails is charged as cel-go charges it: it ran
            _charge(cost.call_cost(name, args, None))
            raise
        _charge(cost.call_cost(name, args, result))
        return result

    call.__wrapped__ = function  # type: ignore[attr-defined]
    return call


_OPAQUE_NAMES = frozenset(name.rsplit(".", 1)[1] for name in library.OPAQUE_TYPES)
"""The last parts of the opaque types' names: a field of another name is no type (a field
selection in a comprehension's body is not unwrapped to find out)."""


_PASS_THROUGH = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication"}
    | {"unary", "member"}
)
"""celpy's levels whose method, on a single operand, is that operand's value."""


class _Evaluator(Evaluator):
    """celpy's evaluator with cel-go's ``has()``: on a map, whether it has the key; an error
    inside the operand is that error; on a list, an error; on anything else (a string, a
    number, a bool...) false, as cel-go's presence test answers."""

    def macro_has_eval(self, exprlist: lark.Tree[Any]) -> Any:
        selection = _unwrap(exprlist.children[0]) if exprlist.children else None
        if not (isinstance(selection, lark.Tree) and selection.data == "member_dot"):
            return CELEvalError("has() takes a field selection, e.g. has(object.spec)")
        target = self.visit(selection.children[0])
        if isinstance(target, CELEvalError):
            return target
        if isinstance(target, celtypes.MapType):
            return celtypes.BoolType(celtypes.StringType(str(selection.children[1])) in target)
        if isinstance(target, list):
            return CELEvalError("unsupported index type 'string' in list (has() of a list's field)")
        return celtypes.BoolType(False)

    def conditionaland(self, tree: lark.Tree[Any]) -> Any:
        if len(tree.children) != 2:
            return super().conditionaland(tree)
        return self._short_circuit(tree, "_&&_", deciding=False)

    def conditionalor(self, tree: lark.Tree[Any]) -> Any:
        if len(tree.children) != 2:
            return super().conditionalor(tree)
        return self._short_circuit(tree, "_||_", deciding=True)

    def _short_circuit(self, tree: lark.Tree[Any], operator: str, *, deciding: bool) -> Any:
        """``a && b`` / ``a || b`` as cel-go's ``evalAnd`` / ``evalOr`` run it: left to right,
        stopping at the deciding bool (celpy evaluated both sides, so a side effect cel-go
        never runs, a shared Quantity changed through cel-go's pointer, ran, and was charged)."""
        left = self.visit(tree.children[0])
        if isinstance(left, celtypes.BoolType) and bool(left) is deciding:
            return celtypes.BoolType(deciding)
        right = self.visit(tree.children[1])
        return self.activation.resolve_function(operator)(left, right)

    def mapinits(self, tree: lark.Tree[Any]) -> Any:
        """A map literal as cel-go builds it: keys and values in order, the first error is
        the map's value; a key computed twice keeps its last value (celpy raised on it and
        kept an error as a value)."""
        built = celtypes.MapType()
        kinds: dict[Any, str] = {}
        children = tree.children
        for key_tree, value_tree in zip(children[0::2], children[1::2], strict=True):
            key = self.visit(key_tree)
            if isinstance(key, CELEvalError):
                return key
            value = self.visit(value_tree)
            if isinstance(value, CELEvalError):
                return value
            if isinstance(key, list | dict):  # cel-go keys its map by the list's identity
                return CELEvalError(f"Invalid map key type: {_kind(key)}")
            kind = type(key).__name__
            if kinds.get(key, kind) != kind:  # 1 and 1.0: two keys in cel-go, one in Python
                return CELEvalError(f"Invalid map key type: {kind} beside an equal {kinds[key]}")
            kinds[key] = kind
            built[key] = value
        return built

    def member_dot(self, tree: lark.Tree[Any]) -> Any:
        """``net.IP``, ``net.CIDR``, ``kubernetes.Quantity``...: the opaque types by name, as
        ``type(ip('::1')) == net.IP`` compares them (celpy read ``net`` as a variable)."""
        target = _unwrap(tree.children[0]) if tree.children[1] in _OPAQUE_NAMES else None
        if isinstance(target, lark.Tree) and target.data == "ident":
            opaque = library.OPAQUE_TYPES.get(f"{target.children[0]}.{tree.children[1]}")
            if opaque is not None:
                return opaque[0]
        _charge(cost.SELECT)
        return super().member_dot(tree)

    def primary(self, tree: lark.Tree[Any]) -> Any:
        """A variable read costs 1, a list or map built at run time 10 or 30 (a literal of
        constants is one constant in cel-go's plan: nothing)."""
        child = tree.children[0] if len(tree.children) == 1 else None
        if isinstance(child, lark.Tree):
            if child.data == "ident":
                if not self._type_name(str(child.children[0])):
                    _charge(cost.SELECT)
            elif child.data == "ident_arg" and str(child.children[0]) == "dyn":
                _charge(1)  # a call in cel-go's plan
            elif child.data in _BUILT and child.children and _constant(child) is None:
                _charge(_BUILT[child.data])
        return super().primary(tree)

    def _type_name(self, name: str) -> bool:
        """Whether ``name`` is a type (``int`` in ``type(x) == int``): a constant in cel-go's
        plan, not a variable read."""
        if name not in _TYPE_IDENTS:
            return False
        try:
            return isinstance(self.ident_value(name), type)
        except KeyError:
            return False

    def ident_value(self, name: str, root_scope: bool = False) -> Any:
        """``string``, ``int``... as values are the types (``type(s) == string``): fedgate's
        conversions had taken the names, and ``type('x') == string`` was false. The name is
        resolved as celpy's ``Activation.resolve_variable`` resolves it, without its
        ``typing.cast`` of a Union built at every read (a fifth of a comprehension's time)."""
        activation = self.activation
        try:
            found: Any = activation.identifiers.resolve_name(activation.package, name).value
        except KeyError:
            found = activation.functions[name]
        found = getattr(found, "__wrapped__", found)  # a name, not a call: not charged
        if name in _TYPE_NAMES and found is OPERATORS.get(name):
            return _TYPE_NAMES[name]
        if found is _type:  # ``type`` the name is the type of types (``type(int) == type``)
            return celtypes.TypeType
        return found

    def _visit_tree(self, tree: lark.Tree[Any]) -> Any:
        """Below a precedence level of one operand (``a.b`` is an expr of a conditionalor of
        ... of a member), celpy's method only hands on its child's value: the child is
        visited at once, not through the eight levels, at every item of a comprehension's
        body. (lark's ``Interpreter`` visits every child through this method.)"""
        children = tree.children
        while len(children) == 1 and tree.data in _PASS_THROUGH:
            child = children[0]
            if not isinstance(child, lark.Tree):
                break
            tree, children = child, child.children
        return super()._visit_tree(tree)

    def relation(self, tree: lark.Tree[Any]) -> Any:
        """celpy's ``relation`` without its ``typing.cast`` of generics built at every
        comparison (a quarter of a comparison's time in a comprehension's body)."""
        if len(tree.children) != 2:
            return super().relation(tree)
        operator = tree.children[0]
        assert isinstance(operator, lark.Tree)
        function = self.activation.resolve_function(bound.RELATIONS[operator.data])
        operands: Any = self.visit_children(tree)  # [[left], right]
        (left, *_), right = operands
        try:
            return function(left, right)
        except TypeError as error:
            failed = CELEvalError(
                f"found no matching overload for {operator.data!r} "
                f"applied to '({type(left)}, {type(right)})'",
                error.__class__,
                error.args,
                tree=tree,
            )
            failed.__cause__ = error
            return failed

    budget: list[int] | None = None
    """Iterations left, shared by an evaluation and its macro bodies (None: not a body)."""
    counted = False

    def sub_evaluator(self, ast: lark.Tree[Any]) -> Evaluator:
        """Macro bodies are evaluated with these rules too (celpy built its own class), and
        each evaluation of one counts against the evaluation's ``ITERATION_BUDGET``."""
        nested = _Evaluator(ast, activation=self.activation)
        nested.budget, nested.counted = self.budget, True
        return nested

    def evaluate(self, context: Any = None) -> Any:
        if self.counted and self.budget is not None:
            check_budget()  # the review's budget, at each iteration (``budget.py``)
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise _OverBudget(
                    f"iteration budget exceeded: more than {ITERATION_BUDGET} comprehension "
                    "iterations in one evaluation"
                )
        return super().evaluate(context)

    def function_eval(self, name_token: Any, exprlist: Any = None) -> Any:
        """A call with a failed argument is charged as cel-go charges it (celpy skips it)."""
        arguments = exprlist if isinstance(exprlist, list) else [exprlist]  # or its error
        if any(isinstance(v, CELEvalError) for v in arguments):
            _charge(cost.call_cost(str(name_token), arguments, None))
        return super().function_eval(name_token, exprlist)

    def method_eval(self, target: Any, method_ident: Any, exprlist: Any = None) -> Any:
        """``function_eval``'s charge, for a method."""
        arguments = [target, *(exprlist if isinstance(exprlist, list) else [exprlist])]
        if any(isinstance(v, CELEvalError) for v in arguments):
            _charge(cost.call_cost(str(method_ident), arguments, None))
        return super().method_eval(target, method_ident, exprlist)

    def member_dot_arg(self, tree: lark.Tree[Any]) -> Any:
        """The macros range over lists and maps only (celpy ranged over a string's
        characters, and raised on a number)."""
        method = str(tree.children[1])
        arguments = tree.children[2].children if len(tree.children) > 2 and tree.children[2] else []
        target_tree = _unwrap(tree.children[0])
        if (  # sets.contains(a, b): celpy reads ``sets`` as a variable
            isinstance(target_tree, lark.Tree)
            and target_tree.data == "ident"
            and f"{target_tree.children[0]}.{method}" in _NAMESPACED
        ):
            values = [self.visit(a) for a in arguments]
            qualified = f"{target_tree.children[0]}.{method}"
            result = _overloaded(qualified, _library(_NAMESPACED[qualified]))(*values)
            _charge(cost.call_cost(qualified, values, result))
            return result
        namespace = (
            str(target_tree.children[0])
            if isinstance(target_tree, lark.Tree) and target_tree.data == "ident"
            else None
        )
        if namespace == "math" and method in mathlib.FUNCTIONS:
            return self._math(method, arguments)
        if namespace == "cel" and method == "bind" and len(arguments) == 3:
            return self._bind(arguments)
        if method in ("min", "max") and not arguments:  # Kubernetes' lists, not celpy's macro
            items = self.visit(tree.children[0])
            result = FUNCTIONS[method](items)
            _charge(cost.call_cost(method, [items], result))
            return result
        if method == "map" and len(arguments) == 3:
            return self._map_filter(tree.children[0], arguments)
        if method in ("all", "exists") and len(arguments) in (2, 3):
            return self._quantified(tree.children[0], arguments, every=method == "all")
        if method in ("exists_one", "existsOne") and len(arguments) in (2, 3):
            return self._fold(method, tree.children[0], arguments, variables=len(arguments) - 1)
        if method == "sortBy" and len(arguments) == 2:
            return self._sort_by(tree.children[0], arguments)
        if method in comprehensions.TRANSFORMS and len(arguments) in (3, 4):
            return self._fold(method, tree.children[0], arguments, variables=2)
        if method in _MACROS:
            counter = _COST.get()
            before = counter[0] if counter is not None else 0
            target = self.visit(tree.children[0])
            if not isinstance(target, list | dict | CELEvalError):  # celpy's list + list: a list
                return CELEvalError(f"no such overload: {method}() over a {_kind(target)}")
            if counter is not None:  # celpy evaluates the range again: charged once
                counter[0] = before
            try:  # celpy raises a body's error: it is the macro's value, which || may absorb
                result = super().member_dot_arg(tree)
            except CELEvalError as exc:
                return exc
            if isinstance(target, list | dict):
                kept = len(result) if isinstance(result, list) else len(target)
                folded = method == "map" and _constant(arguments[-1]) is not None
                _charge(cost.macro_cost(method, len(target), kept, folded=folded))
            return result
        return super().member_dot_arg(tree)

    def _quantified(self, target_tree: Any, arguments: list[Any], *, every: bool) -> Any:
        """``all`` and ``exists`` as cel-go runs them: item by item, stopping at the first
        deciding one (a false for ``all``, a true for ``exists``), which wins over an error
        of another item; else the first error; else the answer (celpy evaluated every item,
        so an evaluation past the deciding one could fail or cost what Kubernetes does not)."""
        target = self.visit(target_tree)
        if isinstance(target, CELEvalError):
            return target
        method = "all" if every else "exists"
        if not isinstance(target, list | dict):
            return CELEvalError(f"no such overload: {method}() over a {_kind(target)}")
        names = _variables(arguments[:-1])
        if names is None:
            return CELEvalError(f"{method}() needs a variable name")
        body = self.sub_evaluator(arguments[-1])
        deciding = not every
        error: Any = None
        ranged = comprehensions.items(target, len(names) == 2)
        for done, (first, second) in enumerate(ranged, start=1):
            variables = comprehensions.bindings(names, first, second)
            value: Any = comprehensions.evaluate(body.evaluate, variables)
            if isinstance(value, CELEvalError) or _kind(value) != "bool":
                if error is None:
                    error = (
                        value
                        if isinstance(value, CELEvalError)
                        else CELEvalError(f"no such overload: {method}()'s predicate is not a bool")
                    )
                continue
            if bool(value) is deciding:
                _charge(cost.macro_cost(method, done, done, early=done < len(target)))
                return celtypes.BoolType(deciding)
        _charge(cost.macro_cost(method, len(target), len(target)))
        return error if error is not None else celtypes.BoolType(not deciding)

    def _fold(self, method: str, target_tree: Any, arguments: list[Any], variables: int) -> Any:
        """``exists_one`` and cel-go's two-variable macros, as cel-go's expansion runs them
        (``comprehensions.py``)."""
        target = self.visit(target_tree)
        if isinstance(target, CELEvalError):
            return target
        if not isinstance(target, list | dict):
            return CELEvalError(f"no such overload: {method}() over a {_kind(target)}")
        names = _variables(arguments[:variables])
        if names is None:
            return CELEvalError(f"{method}() needs a variable name")
        bodies = [self.sub_evaluator(body).evaluate for body in arguments[variables:]]
        if method in comprehensions.TRANSFORMS:
            folded = method == "transformList" and _constant(arguments[-1]) is not None
            return comprehensions.transform(
                method, target, names, bodies, charge=_charge, equal=cel_equal, folded=folded
            )
        return comprehensions.exists_one(target, names, bodies[0], _charge)

    def _math(self, method: str, arguments: list[Any]) -> Any:
        """``math.<method>(...)`` (``mathlib.py``): a call of cost 1; ``greatest`` and
        ``least`` of three or more arguments are of a list cel-go builds (10) unless every
        argument is a constant."""
        values = [self.visit(argument) for argument in arguments]
        built = len(arguments) > 2 and any(_constant(a) is None for a in arguments)
        _charge(1 + (cost.LIST_CREATE if built else 0))
        failed = next((v for v in values if isinstance(v, CELEvalError)), None)
        return failed if failed is not None else mathlib.FUNCTIONS[method](*values)

    def _bind(self, arguments: list[Any]) -> Any:
        """``cel.bind(name, init, body)``: cel-go's comprehension over an empty list whose
        accumulator is ``init`` and whose result is ``body``; it costs what they cost (an
        error of ``init`` is the variable's value: ``body`` may not read it)."""
        names = _variables(arguments[:1])
        if names is None:
            return CELEvalError("cel.bind() needs a variable name")
        value = self.visit(arguments[1])
        body = _Evaluator(arguments[2], activation=self.activation)
        body.budget = self.budget  # a scope, not an iteration: not counted as one
        return comprehensions.evaluate(body.evaluate, {names[0]: value})

    def _sort_by(self, target_tree: Any, arguments: list[Any]) -> Any:
        """The lists extension's ``sortBy(x, key)`` as cel-go expands it: the list bound once,
        its keys made by ``map(x, key)`` (the first error is the value), then
        ``@sortByAssociatedKeys``: 1 where cel-go's checker types the keys ``dyn`` (a
        selection from the item of a list selected from ``object`` or ``params``: no overload
        is chosen, no tracker charges), else its n^2 tracker (wherever fedgate cannot tell,
        so this count may be higher than cel-go's, never lower)."""
        target = self.visit(target_tree)
        _charge(2 * cost.SELECT)  # the bound list, read by map() and by the sorting call
        if isinstance(target, CELEvalError):
            _charge(1)  # the sorting call, of the error (as the API server counts it)
            return target
        if not isinstance(target, list | dict):  # a map's keys are mapped, then refused
            return CELEvalError(f"no such overload: sortBy() over a {_kind(target)}")
        names = _variables(arguments[:1])
        if names is None:
            return CELEvalError("sortBy() needs a variable name")
        body = self.sub_evaluator(arguments[1]).evaluate
        keys = [comprehensions.evaluate(body, {names[0]: item}) for item in target]
        folded = _constant(arguments[1]) is not None
        _charge(cost.macro_cost("map", len(keys), len(keys), folded=folded))
        if isinstance(target, dict):
            _charge(1)
            return CELEvalError("no such overload: sortBy() over a map")
        failed = next((key for key in keys if isinstance(key, CELEvalError)), None)
        if failed is not None:
            return failed
        result = comprehensions.sort_by(target, keys)
        dyn = _rooted(target_tree, _DYN_VARIABLES) and _rooted(arguments[1], {names[0]})
        _charge(1 if dyn else cost.call_cost("sortBy", [target, keys], result))
        return result

    def _map_filter(self, target_tree: Any, arguments: list[Any]) -> Any:
        """``list.map(x, keep, make)``: CEL's map with a filter (celpy has only two
        arguments)."""
        target = self.visit(target_tree)
        if isinstance(target, CELEvalError):
            return target
        if not isinstance(target, list | dict):
            return CELEvalError(f"no such overload: map() over a {_kind(target)}")
        variable = _unwrap(arguments[0])
        if not (isinstance(variable, lark.Tree) and variable.data == "ident"):
            return CELEvalError("map() needs a variable name")
        name = str(variable.children[0])
        keep, make = self.sub_evaluator(arguments[1]), self.sub_evaluator(arguments[2])
        found = []
        for item in target:
            try:
                chosen: Any = keep.evaluate({name: item})
                if isinstance(chosen, CELEvalError):
                    return chosen
                if _kind(chosen) != "bool":
                    return CELEvalError("no such overload: map()'s filter is not a bool")
                if chosen:
                    found.append(make.evaluate({name: item}))
            except CELEvalError as exc:
                return exc
        for value in found:
            if isinstance(value, CELEvalError):
                return value
        folded = _constant(arguments[2]) is not None
        _charge(cost.macro_cost("map_filter", len(target), len(found), folded=folded))
        return celtypes.ListType(found)


_DYN_VARIABLES = frozenset({"object", "oldObject", "params"})
"""The variables the API server declares ``dyn`` (a ValidatingAdmissionPolicy's object and
params: ``request`` and ``namespaceObject`` have types)."""


def _rooted(tree: Any, roots: set[str] | frozenset[str]) -> bool:
    """Whether ``tree`` is one of ``roots`` or a chain of field selections and indexes on one:
    its type is then ``dyn`` in cel-go's checker, where one of ``roots`` is."""
    node = _unwrap(tree)
    while isinstance(node, lark.Tree) and node.data in ("member_dot", "member_index", "primary"):
        node = _unwrap(node.children[0])
    return isinstance(node, lark.Tree) and node.data == "ident" and node.children[0] in roots


def _variables(trees: list[Any]) -> list[str] | None:
    """The names a macro's first arguments bind, each an identifier (else None)."""
    names = []
    for tree in trees:
        variable = _unwrap(tree)
        if not (isinstance(variable, lark.Tree) and variable.data == "ident"):
            return None
        names.append(str(variable.children[0]))
    return names


_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_NAMESPACED_MACROS = frozenset({"cel.bind", *(f"math.{name}" for name in mathlib.FUNCTIONS)})
"""Namespaced functions and macros the evaluator runs itself (``member_dot_arg``)."""
_BUILT = {"list_lit": cost.LIST_CREATE, "map_lit": cost.MAP_CREATE}
_NAMESPACES = ("optional", "strings", "math", "base64", "lists", "format")
"""Namespaced functions cel-python has none of: named in full when refused."""


_KNOWN = frozenset(
    {*base_functions, *FUNCTIONS, *_MACROS, "has", "dyn", "min", "max", "size", "type"}
    | comprehensions.TWO_VARIABLE
    | comprehensions.TRANSFORMS
    | {"sortBy"}
    | {rewrite.typed_name("sum", element) for element in rewrite.TYPED["sum"]}
)


def _unsupported(ast: Any) -> set[str]:
    """The functions and methods an expression calls that cel-python has no implementation
    of (cel-expr's type checker knows them: the string extensions, optionals...)."""
    found = set()
    for node in ast.iter_subtrees():
        if node.data == "ident_arg":
            name = str(node.children[0])
        elif node.data == "member_dot_arg":
            name = str(node.children[1])
            target = _unwrap(node.children[0])
            if isinstance(target, lark.Tree) and target.data == "ident":
                qualified = f"{target.children[0]}.{name}"
                if qualified in _NAMESPACED or qualified in _NAMESPACED_MACROS:
                    continue
                if str(target.children[0]) in _NAMESPACES:
                    name = qualified
        else:
            continue
        if name not in _KNOWN:
            found.add(f"{name}()")
    return found


_BAD_ESCAPE = re.compile(r"\\\\|(\\[?X`])")
"""Escapes celpy reads wrongly (``\\?``, ``\\X4A``, ``\\```: kept as written); ``\\\\`` is
matched first so that an escaped backslash is skipped."""


def _inexact(ast: Any) -> set[str]:
    """Constructs celpy runs without an error and with a value unlike CEL's: refused."""
    found = set()
    for token in ast.scan_values(lambda v: isinstance(v, lark.Token)):
        text, kind = str(token), token.type
        raw = text[-1] in "'\"" and "r" in text[: text.find(text[-1])].lower()
        literal = kind in ("STRING_LIT", "MLSTRING_LIT", "BYTES_LIT", "MLBYTES_LIT")
        if literal and not raw and any(m.group(1) for m in _BAD_ESCAPE.finditer(text)):
            found.add("the escapes \\?, \\X and \\` in literals")
        if kind.startswith("ML") and "\n" in text:
            found.add("a line break inside a triple-quoted literal")
        if "BYTES" in kind and (raw or kind.startswith("ML")) and not text.isascii():
            found.add("a raw or triple-quoted bytes literal with a non-ASCII character")
    for node in ast.iter_subtrees():
        if node.data == "map_lit" and node.children and node.children[0] is not None:
            entries = node.children[0].children
            keys = [_literal(key) for key in entries[0::2]]
            constant = [key for key in keys if key is not None]
            if len(set(constant)) < len(constant):
                found.add("a map literal with a repeated key")
    return found


_LEVELS = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication"}
    | {"unary", "member", "primary"}
)


def _constant(tree: Any) -> str | None:
    """The text of a constant (a literal, or a list or map literal of constants), else None."""
    while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data in _LEVELS:
        tree = tree.children[0]
    if isinstance(tree, lark.Tree) and tree.data in ("list_lit", "map_lit"):
        items = tree.children[0].children if tree.children and tree.children[0] else []
        parts = [_constant(item) for item in items]
        return None if None in parts else f"{tree.data}({', '.join(map(str, parts))})"
    return _literal(tree)


def _literal(tree: Any) -> str | None:
    """The text of a literal an expression is (below CEL's precedence levels), else None."""
    while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data in _LEVELS:
        tree = tree.children[0]
    if isinstance(tree, lark.Tree) and tree.data == "literal":
        return str(tree.children[0])
    return None


def _unwrap(tree: Any) -> Any:
    """The node below a chain of single-child nodes (CEL's precedence levels)."""
    while (
        isinstance(tree, lark.Tree)
        and tree.data not in ("member_dot", "ident")
        and len(tree.children) == 1
    ):
        tree = tree.children[0]
    return tree


class _Runner(InterpretedRunner):
    def evaluate(self, context: Any) -> Any:
        evaluator = _Evaluator(ast=self.ast, activation=self.new_activation())
        evaluator.budget = [ITERATION_BUDGET]
        counter, token = _COST.get(), None  # ``measure``'s, else this evaluation's own
        if counter is None:
            counter = [0]
            token = _COST.set(counter)
        start = counter[0]
        try:
            value = evaluator.evaluate(context)
        finally:  # a failed evaluation spends what it ran, too
            if token is not None:
                _COST.reset(token)
            within = cost.spend(counter[0] - start)  # the policy's validations together
        if not within:
            raise _OverBudget(cost.OUT_OF_BUDGET)
        return value


def _typed_sum(element: str) -> Callable[..., Any]:
    """``sum()`` of a list whose static type is ``list(element)`` (``rewrite.TYPED``, told by
    cel-expr's checker): an empty one is that type's zero, as Kubernetes'
    ``zeroValuesOfSummableTypes``."""
    zero = {
        "double": celtypes.DoubleType(0.0),
        "uint": celtypes.UintType(0),
        "duration": timelib.Duration(0),
    }[element]
    summed = _library(library.list_sum)

    def call(items: Any) -> Any:
        return zero if isinstance(items, list) and not items else summed(items)

    return call


_TYPED_SUMS = {rewrite.typed_name("sum", e): _typed_sum(e) for e in rewrite.TYPED["sum"]}

COSTED_FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: _costed(rewrite.INTERNAL.get(name, name), function)
    for name, function in {**base_functions, **FUNCTIONS, **_TYPED_SUMS}.items()
}
"""Every function and operator, charging its Kubernetes cost as it runs."""


class CelPythonBackend:
    """celpy evaluates; cel-expr's type checker compiles first, so an expression Kubernetes
    would refuse (a Quantity compared with ``<``, ``1 == 1.0``...) is refused when the bundle
    loads on both backends alike, not found at evaluation."""

    name = "cel-python"

    def __init__(self) -> None:
        self._env = celpy.Environment(runner_class=_Runner)
        self._checker = CelExprBackend()

    @property
    def homogeneous(self) -> set[str]:
        """The checker's memo of expressions with homogeneous literals (``CelExprBackend``)."""
        return self._checker.homogeneous

    def compile(self, expression: str) -> Any:
        self._checker.compile(expression)  # raises CelCompileError
        if sharing.changes_a_quantity_in_place(expression):
            raise CelCompileError(sharing.CHANGED_IN_PLACE)
        expression = self._checker.typed(expression, ("sum",))  # the checker's static types
        try:
            ast = self._env.compile(_without_trailing_commas(typeparam.checked(expression)))
        except CELParseError as exc:
            raise CelCompileError(
                "cel-python's parser cannot read this (cel-expr's can: optional syntax .? or "
                f"[?...]?): {str(exc).strip()}"
            ) from None
        missing = sorted(_unsupported(ast) | _inexact(ast))
        if missing:
            raise CelCompileError(
                f"cel-python cannot run {', '.join(missing)}; "
                "use the cel-expr backend or write the rule without it"
            )
        return self._env.program(ast, functions=COSTED_FUNCTIONS)

    def activation(self, variables: Mapping[str, Any]) -> Any:
        return {name: _to_cel(value) for name, value in variables.items()}

    def measure(self, program: Any, activation: Any) -> tuple[Any, int]:
        """``evaluate``'s value (or its ``CelEvalError``) and the evaluation's Kubernetes cost
        as fedgate counts it (``cost.py``)."""
        counter = [0]
        token = _COST.set(counter)
        try:
            return self.evaluate(program, activation), counter[0]
        except EvalError as exc:
            return exc, counter[0]
        finally:
            _COST.reset(token)

    def evaluate(self, program: Any, activation: Any) -> Any:
        check_budget()
        try:
            value = program.evaluate(activation)
        except BudgetExceeded:
            raise
        except CELEvalError as exc:
            raise EvalError(_short(exc.args[0] if exc.args else exc)) from None
        except _OverBudget as exc:
            raise EvalError(str(exc)) from None
        except Exception as exc:  # celpy raises plain Python errors for some type mismatches
            raise EvalError(_short(f"{type(exc).__name__}: {exc}")) from None
        if isinstance(value, CELEvalError):
            raise EvalError(_short(value.args[0] if value.args else value))
        return _to_python(value)


_CELPY_SCALARS = comprehensions.SCALARS


_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def _without_trailing_commas(expression: str) -> str:
    """CEL allows ``[1, 2,]`` and ``{'a': 1,}``; celpy's grammar does not. Outside string
    literals, a comma before a closing bracket is dropped (it means nothing)."""
    if "," not in expression:
        return expression
    parts, last = [], 0
    for literal in STRING_LITERAL.finditer(expression):
        parts.append(_TRAILING_COMMA.sub(r"\1", expression[last : literal.start()]))
        parts.append(literal.group(0))
        last = literal.end()
    parts.append(_TRAILING_COMMA.sub(r"\1", expression[last:]))
    return "".join(parts)


def _to_cel(value: Any) -> Any:
    """JSON as celpy's values; an opaque library value (a variable's Quantity) and a value
    already celpy's as they are (json_to_cel would make celpy's bool an int)."""
    if type(value) is int and -(2**63) <= value < 2**63:  # celpy's IntType(value), whose
        return int.__new__(celtypes.IntType, value)  # range check wraps a function each time
    if isinstance(value, (*_OPAQUE, *_CELPY_SCALARS)):
        return value
    if isinstance(value, dict):
        return celtypes.MapType({_to_cel(k): _to_cel(v) for k, v in value.items()})
    if isinstance(value, list):
        return celtypes.ListType([_to_cel(v) for v in value])
    return json_to_cel(value)


def _short(message: object) -> str:
    """celpy puts the whole activation into some messages: keep the first useful part."""
    text = str(message).split(" (in activation")[0]
    return text if len(text) <= 300 else text[:297] + "..."


def _to_library(value: Any) -> Any:
    """celpy's value as ``library`` takes it: plain values, a uint as ``library.Uint`` (so a
    list function hands a uint back typed as one)."""
    if isinstance(value, celtypes.UintType):
        return library.Uint(value)
    if isinstance(value, list):
        return [_to_library(v) for v in value]
    if isinstance(value, dict):
        return {_to_library(k): _to_library(v) for k, v in value.items()}
    return _to_python(value)


def _to_python(value: Any) -> Any:
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, celtypes.IntType | celtypes.UintType):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, list):  # a ListType, or the plain list celpy's list + list makes
        return [_to_python(v) for v in value]
    if isinstance(value, dict):
        return {_to_python(k): _to_python(v) for k, v in value.items()}
    if value is None or isinstance(value, celtypes.NullType):
        return None
    return value
