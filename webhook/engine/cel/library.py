"""The Kubernetes CEL library functions, defined once for both engines and the proofs.

Neither engine ships the Kubernetes libraries. Here, on plain Python values:

- Quantity (``apiserver/pkg/cel/library/quantity.go``): ``quantity(string)`` makes an exact
  ``Quantity`` (a Fraction), with ``isLessThan``, ``isGreaterThan``, ``compareTo``, ``add``,
  ``sub``, ``sign``, ``asApproximateFloat``, ``asInteger``, ``isInteger``; and
  ``isQuantity(string)``. As in Kubernetes there is no ``<`` or ``+`` on a Quantity, and no
  ``mul``, ``div`` or ``divInt`` (proposed in kubernetes/kubernetes#135995, not merged).
- the lists library (``isSorted``, ``sum``, ``min``, ``max``, ``indexOf``, ``lastIndexOf``;
  not ``includes``, which a later Kubernetes added: 1.34 refuses it), the regex library
  (``find``, ``findAll``, RE2) and cel-go's sets extension (``sets.contains``,
  ``sets.equivalent``, ``sets.intersects``).
- for cel-python, which has no strings extension, cel-go's string functions (code-point
  offsets, -1 when absent); cel-expr has its own.
- the format library (``formatlib``): ``format.<name>()``, ``format.named()``, ``validate()``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import pairwise
from typing import Any, cast

import re2  # type: ignore[import-untyped]

from webhook.base.quantity import QuantityError, parse_quantity
from webhook.engine.cel import formatlib, netlib, quantitylib, semverlib, urllib_go
from webhook.engine.cel.values import INT64_MAX, INT64_MIN

UINT64_MAX = 2**64 - 1


class LibraryError(ValueError):
    """A library function was called with a value it cannot take."""


class Uint(int):
    """A CEL uint among plain values, where a backend can tell one (cel-python): the list
    functions hand it back as they got it, typed as a uint."""


class _Dec:
    """An ``inf.Dec`` as Kubernetes' Quantities share it: ``add`` and ``sub`` of a Quantity
    held big write their result here, and the result holds the same one."""

    __slots__ = ("form",)

    def __init__(self, form: quantitylib.Form) -> None:
        self.form = form


class Quantity:
    """Kubernetes' Quantity as CEL sees it: an exact value. Equal when the values are
    (``quantity('1') == quantity('1000m')``, as ``Quantity.Equal``); no ``<``: compare with
    ``compareTo``, ``isLessThan``, ``isGreaterThan``.

    Where its form is known (cel-python) it is what cel-go hands the library, a pointer:
    ``compareTo``, ``isLessThan`` and ``isGreaterThan`` turn an int64 form they are called on
    into the big one when the other is big (``AsDec``), and ``add``/``sub`` of one held big
    write the result into its ``inf.Dec``, which the result shares (``_Dec``). A value read
    again (a comprehension's variable, ``cel.bind``) answers as it does in Kubernetes."""

    __slots__ = ("_approximate", "_dec", "_small", "_value")

    def __init__(self, value: Fraction, form: quantitylib.Form | None = None) -> None:
        self._value = value
        self._small = form if form is not None and not form.big else None
        self._dec = _Dec(form) if form is not None and form.big else None
        self._approximate = float(value) if form is None else None

    @classmethod
    def _sharing(cls, dec: _Dec) -> Quantity:
        shared = cls(dec.form.value)
        shared._approximate, shared._dec = None, dec
        return shared

    @property
    def form(self) -> quantitylib.Form | None:
        """How Kubernetes holds it (``quantitylib``), which ``isInteger``, ``asInteger`` and
        ``asApproximateFloat`` read; None where it is not known (cel-expr carries the value
        alone: a message is equal to another by its text), and they answer by the value."""
        return self._dec.form if self._dec is not None else self._small

    @property
    def value(self) -> Fraction:
        form = self.form
        return self._value if form is None else form.value

    @property
    def approximate(self) -> float:
        """``float(value)``: rounding keeps order, so where two differ, so do the exact
        values, the same way round; comparing them first spares most Fraction comparisons."""
        return self._approximate if self._approximate is not None else float(self.value)

    def as_dec(self) -> None:
        """``Quantity.AsDec``: an int64 form becomes the big one (the same digits)."""
        if self._small is not None:
            small = self._small
            self._dec, self._small = _Dec(quantitylib.Form(True, small.digits, small.power)), None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Quantity({self.value!r}, {self.form!r})"

    @property
    def text(self) -> str:
        """The exact value as one string (how the cel-expr message carries it)."""
        return str(self.value)


_QUANTITY_FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"


def quantity(text: str) -> Quantity:
    """A fresh Quantity (each call: cel-go's ``quantity()`` makes a new one, which ``add`` and
    ``compareTo`` may change)."""
    form = _parsed(text)
    return Quantity(form.value, form)


@lru_cache(maxsize=4096)  # the same few quantities recur in every request
def _parsed(text: str) -> quantitylib.Form:
    try:
        parse_quantity(text, as_kubernetes=True)
    except QuantityError:
        raise LibraryError(_quantity_error(text)) from None
    try:
        form = quantitylib.parse(text)  # its value rounded up to a nano, a binary one capped
    except quantitylib.FormError:  # no digits where inf.Dec must read some ('Ei', '.Ei')
        raise LibraryError("unable to parse numeric part of quantity") from None
    return form


def _quantity_error(text: str) -> str:
    """resource.ParseQuantity's three errors (apimachinery quantity.go): the text outside its
    regular expression, a number with more than one point, or a suffix it does not know."""
    found = re.fullmatch(_QUANTITY_FORMAT[1:-1], text)
    if found is None:
        return f"quantities must match the regular expression '{_QUANTITY_FORMAT}'"
    if found.group(1).count(".") > 1:
        return "unable to parse numeric part of quantity"
    return "unable to parse quantity's suffix"


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text, as_kubernetes=True)
        quantitylib.parse(text)
    except (QuantityError, quantitylib.FormError):
        return False
    return True


def _as_int64(q: Quantity) -> int | None:
    """``AsInt64``: by the form where it is known (``1000m``, ``1.0`` and a 19-digit number
    are not integers in Kubernetes), else a whole number within int64."""
    if q.form is not None:
        return quantitylib.as_int64(q.form)
    whole = q.value.denominator == 1 and INT64_MIN <= q.value.numerator <= INT64_MAX
    return q.value.numerator if whole else None


def is_integer(q: Quantity) -> bool:
    """Kubernetes' ``isInteger``: ``AsInt64`` succeeds."""
    return _as_int64(q) is not None


def as_integer(q: Quantity) -> int:
    value = _as_int64(q)
    if value is None:
        raise LibraryError("cannot convert value to integer")
    return value


def as_approximate_float(q: Quantity) -> float:
    """``AsApproximateFloat64``: the digits' float times Go's ``Pow10`` where the form is
    known, else the value's nearest float."""
    return q.approximate if q.form is None else quantitylib.approximate_float(q.form)


def compare_to(a: Quantity | semverlib.Semver, b: Quantity | semverlib.Semver) -> int:
    """``compareTo`` of two Quantities or two Semvers (the one name serves both libraries,
    as in Kubernetes)."""
    if isinstance(a, semverlib.Semver) and isinstance(b, semverlib.Semver):
        return semverlib.compare(a, b)
    if not (isinstance(a, Quantity) and isinstance(b, Quantity)):
        raise LibraryError("no such overload: compare two quantities or two semvers")
    if a.form is not None and b.form is not None:  # Quantity.Cmp: both int64, or AsDec
        if a.form.big or b.form.big:
            a.as_dec()
        elif a.form.power == b.form.power:  # digits x one power of ten: the digits' order
            return (a.form.digits > b.form.digits) - (a.form.digits < b.form.digits)
        return (a.value > b.value) - (a.value < b.value)
    if a.approximate != b.approximate:
        return 1 if a.approximate > b.approximate else -1
    return (a.value > b.value) - (a.value < b.value)


def is_less_than(a: Quantity | semverlib.Semver, b: Quantity | semverlib.Semver) -> bool:
    return compare_to(a, b) < 0


def is_greater_than(a: Quantity | semverlib.Semver, b: Quantity | semverlib.Semver) -> bool:
    return compare_to(a, b) > 0


def sign(q: Quantity) -> int:
    return (q.value > 0) - (q.value < 0)


def _operand(value: Quantity | int) -> Quantity:
    if isinstance(value, Quantity):
        return value
    return Quantity(Fraction(value), quantitylib.of_int(value))


def add(a: Quantity, b: Quantity | int) -> Quantity:
    other = _operand(b)
    if a.form is None or other.form is None:
        return Quantity(a.value + other.value)
    return _held(a, quantitylib.add(a.form, other.form))


def sub(a: Quantity, b: Quantity | int) -> Quantity:
    other = _operand(b)
    if a.form is None or other.form is None:
        if other.value == INT64_MIN:  # Go negates its digits, -(-2^63) wraps to -2^63,
            raise LibraryError(  # where both are int64 forms: the form is not known here
                "fedgate cannot subtract -9223372036854775808 from a quantity on cel-expr "
                "(Kubernetes' int64 negation wraps there)"
            )
        return Quantity(a.value - other.value)
    return _held(a, quantitylib.sub(a.form, other.form))


def _held(a: Quantity, form: quantitylib.Form) -> Quantity:
    """The result of ``add``/``sub`` on ``a``: Kubernetes copies ``a``, whose ``inf.Dec`` the
    copy shares, and writes a big result into it (``a`` changes too); else a fresh one."""
    dec = a._dec
    if dec is None:
        return Quantity(form.value, form)
    dec.form = form
    return Quantity._sharing(dec)


QUANTITY_MEMBERS: dict[str, tuple[Callable[..., object], str, str]] = {
    "isLessThan": (is_less_than, "quantity", "bool"),
    "isGreaterThan": (is_greater_than, "quantity", "bool"),
    "compareTo": (compare_to, "quantity", "int"),
    "add": (add, "quantity", "quantity"),
    "sub": (sub, "quantity", "quantity"),
}
"""Binary member functions of a Quantity: name -> (implementation, operand, result). ``add``
and ``sub`` also take an int (the same implementation)."""

QUANTITY_UNARY: dict[str, tuple[Callable[..., object], str]] = {
    "asApproximateFloat": (as_approximate_float, "double"),
    "asInteger": (as_integer, "int"),
    "isInteger": (is_integer, "bool"),
    "sign": (sign, "int"),
}
"""Member functions of a Quantity without operands: name -> (implementation, result)."""

_GO_SPACE = frozenset(
    "\t\n\v\f\r \u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
"""Go's unicode.IsSpace (strings.TrimSpace), which is not Python's str.isspace."""
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def char_at(text: str, index: int) -> str:
    if not 0 <= index <= len(text):
        raise LibraryError(f"index out of range: {index}")
    return text[index : index + 1]


def index_of(text: str | list[object], other: object, offset: int = 0) -> int:
    """cel-go's ``indexOf`` of a string, or Kubernetes' of a list (CEL equality)."""
    if isinstance(text, list):
        return list_index_of(text, other)
    if not isinstance(other, str):
        raise LibraryError("no such overload: indexOf() of a string takes a string")
    if not 0 <= offset <= len(text):
        raise LibraryError(f"index out of range: {offset}")
    return text.find(other, offset)


def last_index_of(text: str | list[object], other: object, offset: int | None = None) -> int:
    if isinstance(text, list):
        return list_last_index_of(text, other)
    if not isinstance(other, str):
        raise LibraryError("no such overload: lastIndexOf() of a string takes a string")
    if offset is None:
        return text.rfind(other)
    if not 0 <= offset <= len(text):
        raise LibraryError(f"index out of range: {offset}")
    return text.rfind(other, 0, offset + len(other))


def split(text: str, separator: str, limit: int = -1) -> list[str]:
    """Go's strings.SplitN: a limit of 0 gives [], a negative one every part; an empty
    separator splits between characters."""
    if limit == 0:
        return []
    if separator == "":
        parts = list(text)
        return (
            parts if limit < 0 or limit >= len(parts) else [*parts[: limit - 1], text[limit - 1 :]]
        )
    return text.split(separator) if limit < 0 else text.split(separator, limit - 1)


def duration_milliseconds(value: timedelta) -> int:
    """cel-go's ``getMilliseconds()`` of a duration: the whole duration in milliseconds,
    truncated toward zero (cel-cpp's is the milliseconds component). cel-expr hands a duration
    over truncated toward zero to the microsecond, which keeps the milliseconds exact."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    return micros // 1000 if micros >= 0 else -(-micros // 1000)


def timestamp_milliseconds(value: datetime) -> int:
    """``getMilliseconds()`` of a timestamp (no time zone): the milliseconds component, in
    UTC, as in cel-go and cel-cpp (cel-expr hands a timestamp over floored to the
    microsecond)."""
    return value.microsecond // 1000


def go_string(value: object, cpp: str) -> str:
    """cel-go's ``string()`` of a double, a duration or a timestamp, given the value and
    cel-cpp's ``string()`` of it (``cpp``, exact to the nanosecond where the value handed to
    Python is not): a non-finite double is ``+Inf``, ``-Inf`` or ``NaN`` (cel-cpp: ``inf``,
    ``-inf``, ``nan``); a duration is Go's ``FormatFloat(d.Seconds(), 'f', -1, 64) + "s"``
    (``-1.5s``, cel-cpp ``-1.500s``); a timestamp is RFC 3339 with the fraction's trailing
    zeros dropped (``.5Z``, cel-cpp ``.500Z``)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        return cpp
    if isinstance(value, timedelta):
        return _go_duration(cpp)
    if isinstance(value, datetime):
        return _GO_FRACTION.sub(lambda m: m.group(1).rstrip("0").rstrip("."), cpp, count=1)
    return cpp


_GO_FRACTION = re.compile(r"(\.\d+)(?=Z|[+-]\d\d:\d\d$)")


def _go_duration(cpp: str) -> str:
    nanos = int(Decimal(cpp.removesuffix("s")) * 1_000_000_000)
    whole, part = abs(nanos) // 1_000_000_000, abs(nanos) % 1_000_000_000
    sign = -1 if nanos < 0 else 1
    seconds = float(sign * whole) + float(sign * part) / 1e9  # Go's Duration.Seconds()
    if seconds == 0:
        return "0s"
    return format(Decimal(repr(seconds)).normalize(), "f") + "s"


_RFC3339_OFFSET = re.compile(r"([+-])(\d\d):(\d\d)$")


def utc_offset(text: str) -> str:
    """``text`` when it has no offset other than UTC's; an error otherwise. cel-go's
    ``string()`` of a timestamp parsed with an offset keeps the offset; cel-expr's timestamps
    are UTC only, so an expression that can show a timestamp as a string fails closed
    where one is parsed with another offset."""
    found = _RFC3339_OFFSET.search(text)
    if found is not None and found.group(2, 3) != ("00", "00"):
        raise LibraryError(
            f"timestamp({text!r}): fedgate keeps timestamps in UTC and cannot write this one with"
            " its offset as Kubernetes' string() does; give it in UTC (Z)"
        )
    return text


def substring(text: str, start: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if not 0 <= start <= end <= len(text):
        raise LibraryError(f"index out of range: substring({start}, {end}) of {len(text)}")
    return text[start:end]


def trim(text: str) -> str:
    begin, finish = 0, len(text)
    while begin < finish and text[begin] in _GO_SPACE:
        begin += 1
    while finish > begin and text[finish - 1] in _GO_SPACE:
        finish -= 1
    return text[begin:finish]


def join(items: list[object], separator: str = "") -> str:
    if not all(isinstance(item, str) for item in items):
        raise LibraryError("no such overload: join() of a list that is not all strings")
    return separator.join(cast(list[str], items))


STRING_FUNCTIONS: dict[str, tuple[Callable[..., object], str]] = {
    "indexOf": (index_of, "int"),
    "lastIndexOf": (last_index_of, "int"),
    "charAt": (char_at, "string"),
    "lowerAscii": (lambda text: text.translate(_ASCII_LOWER), "string"),
    "upperAscii": (lambda text: text.translate(_ASCII_UPPER), "string"),
    "replace": (lambda text, old, new, n=-1: text.replace(old, new, n), "string"),
    "split": (split, "list"),
    "substring": (substring, "string"),
    "trim": (trim, "string"),
    "join": (join, "string"),
}
"""cel-go's strings extension at Kubernetes 1.34's version 2 (no ``reverse()`` of a string: it
came with version 3), for cel-python: cel-expr has its own. Offsets count code points, as in
cel-go."""


# ---- Kubernetes' lists library (apiserver/pkg/cel/library/lists.go), cel-go's sets extension
# (ext/sets.go) and Kubernetes' regex library (library/regex.go), on plain Python values


def _cel_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, timedelta):  # celpy's types, or cel-python's exact ones
        return "timedelta"
    if isinstance(value, bytes):  # celpy's BytesType too
        return "bytes"
    if isinstance(value, datetime):
        return "datetime"
    return type(value).__name__


def _comparable(items: list[object]) -> list[object]:
    """The items, when CEL orders them: one kind (numbers across int, uint and double),
    bool, number, string or bytes."""
    kinds = {_cel_kind(item) for item in items}
    if len(kinds) > 1 or not kinds <= {"bool", "number", "str", "bytes", "timedelta", "datetime"}:
        raise LibraryError(f"no such overload: the list holds {', '.join(sorted(kinds))}")
    return items


def is_sorted(items: list[object]) -> bool:
    ordered = _comparable(items)
    # cel-go stops only where a pair compares greater: a NaN compares as neither
    return not any(a > b for a, b in pairwise(ordered))  # type: ignore[operator]


def list_sum(items: list[object]) -> object:
    if not items:
        return 0  # Kubernetes gives the zero of the element type; a list seen empty is int
    kinds = {_cel_kind(item) for item in items}
    if kinds == {"timedelta"}:
        return sum(cast(list[timedelta], items), timedelta(0))
    if kinds != {"number"} or len({type(item) for item in items}) > 1:
        raise LibraryError("no such overload: sum() adds ints, uints, doubles or durations")
    if isinstance(items[0], float):
        return sum(cast(list[float], items))
    numbers = cast(list[int], items)
    # a plain int beyond int64 can only be a uint (cel-expr hands uints over as ints)
    unsigned = isinstance(items[0], Uint) or any(n > INT64_MAX for n in numbers)
    total = 0
    for number in numbers:  # cel-go adds one at a time: an overflow on the way is an error
        total += number
        if unsigned and total > UINT64_MAX:
            raise LibraryError("unsigned integer overflow")
        if not unsigned and not INT64_MIN <= total <= INT64_MAX:
            raise LibraryError("integer overflow")
    return Uint(total) if isinstance(items[0], Uint) else total


def list_min(items: list[object]) -> object:
    if not items:
        raise LibraryError("min called on empty list")
    return min(_comparable(items))  # type: ignore[type-var]


def list_max(items: list[object]) -> object:
    if not items:
        raise LibraryError("max called on empty list")
    return max(_comparable(items))  # type: ignore[type-var]


def cel_equal(a: object, b: object) -> bool:
    """cel-go's heterogeneous equality on plain values (what Kubernetes' lists library and
    the sets extension use): numbers across int, uint and double (an integer against a double
    as float64); bool is not a number; lists and maps element by element."""
    kind = _cel_kind(a)
    if kind != _cel_kind(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            any(cel_equal(k, j) and cel_equal(v, b[j]) for j in b) for k, v in a.items()
        )
    if isinstance(a, float) != isinstance(b, float) and kind == "number":
        # cel-go's Int.Equal(Double) and Uint.Equal(Double) compare float64(the integer)
        # with the double (compareDoubleInt), not the exact values: -9223372036854775807
        # equals -9.223372036854776e18 there. Go's conversion rounds to nearest even, as
        # Python's float() does; a NaN equals nothing.
        return float(cast(int, a)) == b if isinstance(b, float) else a == float(cast(int, b))
    return bool(a == b)


def list_index_of(items: list[object], item: object) -> int:
    """The first position of ``item`` (CEL equality), -1 when absent."""
    return next((i for i, x in enumerate(items) if cel_equal(x, item)), -1)


def list_last_index_of(items: list[object], item: object) -> int:
    return next((i for i in range(len(items) - 1, -1, -1) if cel_equal(items[i], item)), -1)


def map_of_pairs(pairs: list[list[object]]) -> dict[object, object]:
    """``transformMap``'s result from the ``[key, value]`` pairs fedgate's rewrite makes."""
    return {pair[0]: pair[1] for pair in pairs}


def merge_entries(entries: list[dict[object, object]]) -> dict[object, object]:
    """``transformMapEntry``'s result: the maps merged; a key met twice (CEL equality, so
    ``1`` and ``1.0`` are one key) is an error, as cel-go's ``cel.@mapInsert``."""
    merged: dict[object, object] = {}
    for entry in entries:
        for key, value in entry.items():
            if any(cel_equal(key, seen) for seen in merged):
                shown = "true" if key is True else "false" if key is False else key
                raise LibraryError(f"insert failed: key {shown} already exists")
            merged[key] = value
    return merged


def sets_contains(items: list[object], other: list[object]) -> bool:
    return all(any(cel_equal(x, y) for y in items) for x in other)


def sets_equivalent(items: list[object], other: list[object]) -> bool:
    return sets_contains(items, other) and sets_contains(other, items)


def sets_intersects(items: list[object], other: list[object]) -> bool:
    return any(cel_equal(x, y) for x in items for y in other)


@lru_cache(maxsize=256)  # a rule's patterns are few; Kubernetes compiles constant ones once
def _pattern(pattern: str) -> Any:
    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise LibraryError(f"invalid regex {pattern!r}: {exc}") from None


def regex_find(text: str, pattern: str) -> str:
    """The first match of an RE2 ``pattern`` in ``text``, '' when none (Kubernetes' find)."""
    found = _pattern(pattern).search(text)
    return str(found.group(0)) if found else ""


def regex_find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    """Every match, or the first ``limit`` (Go's FindAllString: a negative limit is all)."""
    if limit == 0:
        return []
    found, end = [], -1
    for match in _pattern(pattern).finditer(text):
        if match.start() == match.end() == end:
            continue  # Go ignores an empty match abutting the preceding match; Python keeps it
        found.append(match.group(0))
        end = match.end()
    return found if limit < 0 else found[:limit]


# ---- cel-go's lists extension (ext/lists.go), for cel-python: cel-expr has its own


def lists_range(n: int) -> list[int]:
    return list(range(_an_int(n, "lists.range")))


def range_count(n: int) -> int:
    """``lists.range``'s count as cel-go takes it: an int (cel-cpp's also took a bool behind
    ``dyn()``), a negative one as none (cel-go's ``[]``; cel-cpp failed)."""
    return max(_an_int(n, "lists.range"), 0)


def flatten_depth(depth: int) -> int:
    """``flatten``'s depth: an int only (cel-cpp's also took a double or a bool behind
    ``dyn()``, where cel-go fails)."""
    return _an_int(depth, "flatten")


def _an_int(value: object, function: str) -> int:
    """``value`` when it is an int (cel-expr hands a Python function whatever the dyn held)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise LibraryError(f"no such overload: {function}({_cel_kind(value)})")
    return value


def int_of_bool() -> int:
    """``int()`` of a bool: none in Kubernetes (cel-cpp has one)."""
    raise LibraryError("no such overload: int(bool)")


_CEL_TYPE_NAMES = (
    (bool, "bool"),
    (int, "int"),
    (float, "double"),
    (str, "string"),
    (bytes, "bytes"),
    (list, "list"),
    (dict, "map"),
    (datetime, "google.protobuf.Timestamp"),
    (timedelta, "google.protobuf.Duration"),
)


def unresolved_conversion(conversion: str, value: object) -> object:
    """A conversion of a value cel-go types by the lists extension's unresolved ``T``, of a
    value of another type than ``T``'s (``typeparam``): cel-go kept no overload for it.
    ``conversion`` ends in ``?`` where fedgate does not know ``T``'s type (failing closed)."""
    kind = next((name for cls, name in _CEL_TYPE_NAMES if isinstance(value, cls)), "dyn")
    name = conversion.rstrip("?")
    message = f"no such overload: {name}({kind})"
    if conversion.endswith("?"):
        message += (
            f" (fedgate cannot tell which {name}() overload cel-go keeps for a value typed by"
            " the lists extension's unresolved element type: failing closed)"
        )
    raise LibraryError(message)


def list_slice(items: list[object], start: int, end: int) -> list[object]:
    where = f"cannot slice({start}, {end})"
    if start < 0 or end < 0:
        raise LibraryError(f"{where}, negative indexes not supported")
    if start > end:
        raise LibraryError(f"{where}, start index must be less than or equal to end index")
    if len(items) < end:
        raise LibraryError(f"{where}, list is length {len(items)}")
    return items[start:end]


def list_flatten(items: list[object], depth: int = 1) -> list[object]:
    depth = _an_int(depth, "flatten")
    if depth < 0:
        raise LibraryError("level must be non-negative")
    flat: list[object] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            flat += list_flatten(item, depth - 1)
        else:
            flat.append(item)
    return flat


def list_sort(items: list[object]) -> list[object]:
    """Comparable elements of one type (an int and a double are two types here, as in cel-go)."""
    if not items:
        return items
    kinds = {
        _cel_kind(item) if isinstance(item, timedelta | datetime | bytes) else type(item)
        for item in items
    }
    allowed = {bool, int, Uint, float, str, "bytes", "timedelta", "datetime"}
    if not kinds <= allowed or len(kinds) > 1:
        raise LibraryError(
            "list elements must have the same type"
            if len(kinds) > 1
            else "list elements must be comparable"
        )
    return sorted(items)  # type: ignore[type-var]


def list_distinct(items: list[object]) -> list[object]:
    unique: list[object] = []
    for item in items:
        if not any(cel_equal(item, seen) for seen in unique):
            unique.append(item)
    return unique


def list_reverse(items: list[object]) -> list[object]:
    """The lists extension's ``reverse()``: of a list only (Kubernetes 1.34's strings extension
    has none of a string, and fails ``dyn('ab').reverse()``)."""
    if not isinstance(items, list):
        kind = "string" if isinstance(items, str) else _cel_kind(items)
        raise LibraryError(f"no such overload: reverse({kind})")
    return items[::-1]


LISTS_EXTENSION: dict[str, Callable[..., object]] = {
    "lists.range": lists_range,
    "reverse": list_reverse,
    "slice": list_slice,
    "flatten": list_flatten,
    "sort": list_sort,
    "distinct": list_distinct,
}
"""cel-go's lists extension but ``sortBy`` (a macro)."""

LIST_FUNCTIONS: dict[str, tuple[Callable[..., object], int]] = {
    "isSorted": (is_sorted, 1),
    "sum": (list_sum, 1),
    "min": (list_min, 1),
    "max": (list_max, 1),
}
"""Member functions of Kubernetes' lists library: name -> (implementation, arguments)."""

SETS_FUNCTIONS: dict[str, Callable[..., bool]] = {
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
}
"""cel-go's sets extension, as Kubernetes enables it: (list, list) -> bool."""


# ---- Kubernetes' IP, CIDR and URL libraries (``netlib``, ``urllib_go``), and every opaque
# type in one place

OPAQUE_TYPES: dict[str, tuple[type, Callable[[str], object]]] = {
    "kubernetes.Quantity": (Quantity, lambda text: Quantity(Fraction(text))),
    "net.IP": (netlib.IP, lambda text: netlib.IP(netlib.parse_address(text))),
    "net.CIDR": (netlib.CIDR, netlib.parse_cidr),
    "kubernetes.URL": (urllib_go.URL, urllib_go.parse),
    "kubernetes.Semver": (semverlib.Semver, semverlib.parse),
    "kubernetes.NamedFormat": (formatlib.NamedFormat, formatlib.NamedFormat),
}
"""CEL type name -> (the Python class, how its ``text`` is read back): Kubernetes' opaque
types, which cel-expr carries as messages of that name holding the text."""

OPAQUE_FUNCTIONS: dict[str, tuple[Callable[..., object], list[tuple[list[str], str]]]] = {
    "ip": (
        lambda value: netlib.ip(value) if isinstance(value, str) else netlib.cidr_ip(value),
        [(["string"], "net.IP"), (["net.CIDR"], "net.IP")],
    ),
    "isIP": (netlib.is_ip, [(["string"], "bool")]),
    "ip.isCanonical": (netlib.ip_is_canonical, [(["string"], "bool")]),
    "family": (netlib.family, [(["net.IP"], "int")]),
    "isUnspecified": (netlib.is_unspecified, [(["net.IP"], "bool")]),
    "isLoopback": (netlib.is_loopback, [(["net.IP"], "bool")]),
    "isLinkLocalMulticast": (netlib.is_link_local_multicast, [(["net.IP"], "bool")]),
    "isLinkLocalUnicast": (netlib.is_link_local_unicast, [(["net.IP"], "bool")]),
    "isGlobalUnicast": (netlib.is_global_unicast, [(["net.IP"], "bool")]),
    "cidr": (netlib.cidr, [(["string"], "net.CIDR")]),
    "isCIDR": (netlib.is_cidr, [(["string"], "bool")]),
    "containsIP": (
        netlib.contains_ip,
        [(["net.CIDR", "string"], "bool"), (["net.CIDR", "net.IP"], "bool")],
    ),
    "containsCIDR": (
        netlib.contains_cidr,
        [(["net.CIDR", "string"], "bool"), (["net.CIDR", "net.CIDR"], "bool")],
    ),
    "masked": (netlib.masked, [(["net.CIDR"], "net.CIDR")]),
    "prefixLength": (netlib.prefix_length, [(["net.CIDR"], "int")]),
    "url": (urllib_go.parse, [(["string"], "kubernetes.URL")]),
    "isURL": (urllib_go.is_url, [(["string"], "bool")]),
    "getScheme": (lambda u: u.scheme, [(["kubernetes.URL"], "string")]),
    "getHost": (lambda u: u.host, [(["kubernetes.URL"], "string")]),
    "getHostname": (urllib_go.hostname, [(["kubernetes.URL"], "string")]),
    "getPort": (urllib_go.port, [(["kubernetes.URL"], "string")]),
    "getEscapedPath": (urllib_go.escaped_path, [(["kubernetes.URL"], "string")]),
    "getQuery": (urllib_go.query, [(["kubernetes.URL"], "map(string, list(string))")]),
    "semver": (
        semverlib.semver,
        [(["string"], "kubernetes.Semver"), (["string", "bool"], "kubernetes.Semver")],
    ),
    "isSemver": (semverlib.is_semver, [(["string"], "bool"), (["string", "bool"], "bool")]),
    "major": (lambda v: v.major, [(["kubernetes.Semver"], "int")]),
    "minor": (lambda v: v.minor, [(["kubernetes.Semver"], "int")]),
    "patch": (lambda v: v.patch, [(["kubernetes.Semver"], "int")]),
    "string": (netlib.to_string, [(["net.IP"], "string"), (["net.CIDR"], "string")]),
    **{
        f"format.{name}": (
            lambda name=name: formatlib.NamedFormat(name),
            [([], "kubernetes.NamedFormat")],
        )
        for name in formatlib.FORMATS
    },
    "format.fedgateFormatNamed": (
        formatlib.named,
        [(["string"], "list(kubernetes.NamedFormat)")],
    ),
    "fedgateFormatValidate": (
        formatlib.validate,
        [(["kubernetes.NamedFormat", "string"], "list(list(string))")],
    ),
}
"""name -> (implementation, overloads as (parameter types, result type)); a first parameter
of an opaque type makes a member function, as Kubernetes declares them. ``isLessThan``,
``isGreaterThan`` and ``compareTo`` of Semvers share the Quantity implementations."""
SEMVER_COMPARISONS = ("isLessThan", "isGreaterThan", "compareTo")
"""The Quantity comparisons that Semvers have too."""
