"""cel-go's ``<string>.format(<list>)`` as Kubernetes runs it, on plain Python values.

Kubernetes 1.34 enables cel-go's strings extension at version 2 (apiserver
pkg/cel/environment/base.go), whose ``format()`` is the legacy formatter of cel-go v0.26.0
ext/formatting.go (``parseFormatString``, ``stringFormatter``), with the locale ``en_US``:

- ``%s``: ``FormatString`` (a double as Go's ``%g``, a duration as its seconds, a list or a
  map as CEL literals: strings Go-quoted, doubles ``%.6f``, timestamps ``timestamp("...")``);
- ``%d``, ``%b``, ``%o``, ``%x``, ``%X``: Go's fmt on int64/uint64 (and bytes and strings for
  hex, bools for binary);
- ``%f`` and ``%e`` through golang.org/x/text's message printer (v0.23.0, ``en``): ``%.Nf``
  with thousands separators, its fraction digits at least ``N % 256`` (uint8) and at most
  ``N`` (int16); ``%.Ne`` is written ``%Ne`` by cel-go, a *width* of N runes, the precision
  staying 6 (``3.140000`` U+00D7 ``10⁰⁰``: a times sign, a superscript exponent of at least
  two digits);
- a precision after ``.`` is read for every verb and ignored but by ``%f``.

Where fedgate cannot be exact it fails closed, naming the construct (``FormatError``): a
``%f`` precision beyond int16, a ``%e`` width beyond 1000, a timestamp or duration not handed
over with its exact text (cel-expr gives Python microseconds), a type it cannot name.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

DEFAULT_PRECISION = 6


class FormatError(ValueError):
    """The call fails: cel-go's error (or fedgate failing closed, saying so)."""


@dataclass(frozen=True)
class Timestamp:
    """A CEL timestamp, exactly: seconds since the epoch and nanoseconds."""

    seconds: int
    nanos: int


@dataclass(frozen=True)
class Duration:
    """A CEL duration, exactly, in nanoseconds; ``text``: cel-go's own string of it where that
    is not exact (``Seconds()``, a float64: ``-2975007us`` is ``-2.9750069999999997s``)."""

    nanos: int
    text: str | None = None


@dataclass(frozen=True)
class TypeName:
    """A CEL type value, by cel-go's ``TypeName()``."""

    name: str


_TIMESTAMP_TEXT = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z")
_DURATION_TEXT = re.compile(r"(-?)(\d+)(?:\.(\d+))?s")


def timestamp_of(text: str) -> Timestamp:
    """A timestamp from its RFC 3339 text in UTC (as ``string()`` writes it)."""
    found = _TIMESTAMP_TEXT.fullmatch(text)
    if found is None:
        raise FormatError(f"format(): cannot read the timestamp {text!r}")
    whole = datetime.strptime(found.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    seconds = (whole - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(seconds=1)
    return Timestamp(seconds, int((found.group(2) or "").ljust(9, "0")))


def duration_of(text: str) -> Duration:
    """A duration from its text in seconds (``-1.5s``, as ``string()`` writes it). A fraction
    past nine digits is cel-go's float64 of the seconds, not a count of nanoseconds: the text
    is kept as it is, and is what ``format()`` writes."""
    found = _DURATION_TEXT.fullmatch(text)
    if found is None:
        raise FormatError(f"format(): cannot read the duration {text!r}")
    fraction = found.group(3) or ""
    sign = -1 if found.group(1) else 1
    if len(fraction) > 9:
        nanos = round(Decimal(found.group(2) + "." + fraction) * 10**9)
        return Duration(sign * nanos, text)
    return Duration(sign * (int(found.group(2)) * 10**9 + int(fraction.ljust(9, "0"))))


# ---- Go's number formatting


def _shortest(x: float) -> tuple[list[int], int]:
    """The shortest digits that read back as ``abs(x)`` and the decimal point's position
    (value = 0.d1d2... x 10**point), as strconv's shortest; no digits for zero."""
    _, digits, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    if digits == (0,):
        return [], 0
    assert isinstance(exponent, int)
    return list(digits), len(digits) + exponent


def go_g(x: float) -> str:
    """Go's ``fmt.Sprintf("%g", x)`` (strconv's shortest 'g')."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    digits, point = _shortest(x)
    count = len(digits)
    exp = point - 1
    if digits and (exp < -4 or exp >= 6):
        text = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if count > 1 else "")
        shown = abs(exp)
        return f"{sign}{text}e{'-' if exp < 0 else '+'}{shown:02d}"
    return sign + _fixed_shortest(digits, point)


def _fixed_shortest(digits: list[int], point: int) -> str:
    if not digits:
        return "0"
    text = "".join(map(str, digits))
    if point <= 0:
        return "0." + "0" * -point + text
    if point >= len(digits):
        return text + "0" * (point - len(digits))
    return text[:point] + "." + text[point:]


def go_f_shortest(x: float) -> str:
    """strconv.FormatFloat(x, 'f', -1, 64) of a finite x."""
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    return sign + _fixed_shortest(*_shortest(x))


def go_fixed(x: float, precision: int) -> str:
    """Go's ``fmt.Sprintf("%.<precision>f", x)`` (plain fmt, no locale)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    return f"{x:.{precision}f}"  # both round the exact binary value half to even


_TIMES = "\u00d7"
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _group(integer: str) -> str:
    """en's grouping: a comma every three digits of the integer part."""
    head = len(integer) % 3 or 3
    return ",".join([integer[:head]] + [integer[i : i + 3] for i in range(head, len(integer), 3)])


def locale_fixed(x: float, precision: int) -> str:
    """x/text's ``Sprintf("%.<precision>f", x)`` for en: sign when x < 0 (not for -0.0),
    grouped integer part, fraction rounded at ``precision`` digits, trailing zeros dropped down
    to ``uint8(precision)`` digits."""
    if precision > 32767:
        raise FormatError(f"format(): a %f precision of {precision} is not supported by fedgate")
    if math.isnan(x):
        return "NaN"
    sign = "-" if x < 0 else ""
    if math.isinf(x):
        return sign + "∞"
    text = f"{abs(x):.{precision}f}"
    integer, _, fraction = text.partition(".")
    least = precision % 256
    fraction = fraction.rstrip("0")
    fraction += "0" * (least - len(fraction))
    return sign + _group(integer) + ("." + fraction if fraction else "")


def locale_scientific(x: float, width: int) -> str:
    """x/text's ``Sprintf("%<width>e", x)`` for en: seven significant digits (half to even),
    ``d.dddddd`` U+00D7 ``10ⁿⁿ``, padded with spaces before to ``width`` runes."""
    if width > 1000:
        raise FormatError(f"format(): a %e width of {width} is not supported by fedgate")
    sign = "-" if x < 0 else ""
    if math.isnan(x):
        text = "NaN"
    elif math.isinf(x):
        text = sign + "∞"
    else:
        mantissa, _, exponent = f"{abs(x):.6e}".partition("e")
        power = int(exponent)
        shown = f"{abs(power):02d}".translate(_SUPERSCRIPT)
        text = f"{sign}{mantissa}{_TIMES}10{'⁻' if power < 0 else ''}{shown}"
    return text.rjust(width)


# ---- Go's %q (strconv.Quote)

_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def go_quote(text: str) -> str:
    """strconv.Quote: printable runes as they are (Go's unicode.IsPrint, Python's
    isprintable), the rest escaped."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


# ---- CEL values as cel-go writes them


_KINDS: tuple[tuple[Any, str], ...] = (
    (bool, "bool"),
    (int, "int"),
    (float, "double"),
    (str, "string"),
    (bytes | bytearray, "bytes"),
    (list, "list"),
    (dict, "map"),
    (Timestamp | datetime, "google.protobuf.Timestamp"),
    (Duration | timedelta, "google.protobuf.Duration"),
    (TypeName, "type"),
)
"""Python types -> cel-go's type names (bool before int: a bool is an int in Python)."""


def _kind(value: Any) -> str:
    """cel-go's type name of a plain value."""
    if value is None:
        return "null_type"
    return next((name for kinds, name in _KINDS if isinstance(value, kinds)), type(value).__name__)


def _inexact(value: Any) -> FormatError:
    return FormatError(
        "format(): a timestamp or duration inside a list or map is not formatted by fedgate "
        "(its nanoseconds are not known)"
    )


def _bytes_text(value: bytes | bytearray) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(
            'error during formatting: could not convert argument "invalid UTF-8 in bytes, '
            'cannot convert to string" to string'
        ) from None


def _timestamp_text(value: Timestamp) -> str:
    """Go's RFC3339Nano of a UTC time: trailing zeros of the fraction dropped."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=value.seconds)
    fraction = f"{value.nanos:09d}".rstrip("0")
    return moment.isoformat()[:19] + ("." + fraction if fraction else "") + "Z"


def _duration_text(value: Duration) -> str:
    """cel-go's string of a duration: ``Duration.Seconds()`` (a float64), shortest 'f'."""
    if value.text is not None:
        return value.text
    seconds = int(value.nanos / 10**9) if value.nanos >= 0 else -(-value.nanos // 10**9)
    nanos = value.nanos - seconds * 10**9
    return go_f_shortest(float(seconds) + float(nanos) / 1e9) + "s"


def _string_clause_error(kind: str) -> FormatError:
    return FormatError(
        "error during formatting: string clause can only be used on strings, bools, bytes, "
        f"ints, doubles, maps, lists, types, durations, and timestamps, was given {kind}"
    )


def format_string_value(value: Any) -> str:
    """``FormatString``: what ``%s`` writes."""
    if isinstance(value, list):
        return _list(value)
    if isinstance(value, dict):
        return _map(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_g(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return _bytes_text(value)
    if isinstance(value, Timestamp):
        return _timestamp_text(value)
    if isinstance(value, Duration):
        return _duration_text(value)
    if isinstance(value, TypeName):
        return value.name
    if isinstance(value, datetime | timedelta):
        raise _inexact(value)
    raise _string_clause_error(_kind(value))


def _member(value: Any) -> str:
    """A list element or map value: ``clauseForType`` then ``quoteForCEL``."""
    if isinstance(value, bool) or value is None or isinstance(value, TypeName):
        return format_string_value(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bytes | bytearray):
        return "b" + go_quote(_bytes_text(value))
    if isinstance(value, float):
        text = go_fixed(value, DEFAULT_PRECISION)
        return go_quote(text) if math.isinf(value) or math.isnan(value) else text
    if isinstance(value, Timestamp):
        return f'timestamp("{_timestamp_text(value)}")'
    if isinstance(value, Duration):
        return f'duration("{_duration_text(value)}")'
    if isinstance(value, list):
        return _list(value)
    if isinstance(value, dict):
        return _map(value)
    if isinstance(value, datetime | timedelta):
        raise _inexact(value)
    raise FormatError(f"error during formatting: no formatting function for {_kind(value)}")


def _list(items: list[Any]) -> str:
    return "[" + ", ".join(_member(item) for item in items) + "]"


def _map(entries: dict[Any, Any]) -> str:
    pairs = []
    for key, value in entries.items():
        if isinstance(key, bool):
            shown = "true" if key else "false"
        elif isinstance(key, int):
            shown = str(key)
        elif isinstance(key, str):
            shown = go_quote(key)
        else:
            raise FormatError(
                f"error during formatting: no formatting function for map key of type {_kind(key)}"
            )
        pairs.append((shown, _member(value)))
    pairs.sort(key=lambda pair: pair[0].encode("utf-8", "surrogatepass"))  # stable, by bytes
    return "{" + ", ".join(f"{key}:{value}" for key, value in pairs) + "}"


# ---- the clauses


def _decimal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise FormatError(
        f"error during formatting: decimal clause can only be used on integers, was given "
        f"{_kind(value)}"
    )


def _as_double(value: Any, clause: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.lower().replace("infinity", "inf"))
    raise FormatError(
        f"error during formatting: {clause} clause can only be used on doubles, was given "
        f"{_kind(value)}"
    )


def _binary(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return format(value, "b")
    raise FormatError(
        "error during formatting: only integers and bools can be formatted as binary, was "
        f"given {_kind(value)}"
    )


def _hex(value: Any, upper: bool) -> str:
    if isinstance(value, str):
        text = value.encode("utf-8", "surrogatepass").hex()
    elif isinstance(value, bytes | bytearray):
        text = bytes(value).hex()
    elif isinstance(value, int) and not isinstance(value, bool):
        text = format(value, "x")
    else:
        raise FormatError(
            "error during formatting: only integers, byte buffers, and strings can be "
            f"formatted as hex, was given {_kind(value)}"
        )
    return text.upper() if upper else text


def _octal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return format(value, "o")
    raise FormatError(
        f"error during formatting: octal clause can only be used on integers, was given "
        f"{_kind(value)}"
    )


_INT64_MAX = 2**63 - 1


def _clause(text: str, at: int, value: Any) -> tuple[int, str]:
    """The clause after the '%' at ``at - 1``: (where it ends, what it writes)."""
    precision: int | None = None
    if text[at] == ".":
        end = at + 1
        while end < len(text) and text[end].isascii() and text[end].isdigit():
            end += 1
        if end >= len(text):
            raise FormatError(
                "could not parse formatting clause: error while parsing precision: could not "
                "find end of precision specifier"
            )
        if end == at + 1 or int(text[at + 1 : end]) > _INT64_MAX:
            raise FormatError(
                "could not parse formatting clause: error while parsing precision: error while "
                "converting precision to integer"
            )
        precision = int(text[at + 1 : end])
        at = end
    verb = text[at]
    if verb == "s":
        written = format_string_value(value)
    elif verb == "d":
        written = _decimal(value)
    elif verb == "f":
        written = locale_fixed(
            _as_double(value, "fixed-point"), DEFAULT_PRECISION if precision is None else precision
        )
    elif verb == "e":
        written = locale_scientific(
            _as_double(value, "scientific"), DEFAULT_PRECISION if precision is None else precision
        )
    elif verb == "b":
        written = _binary(value)
    elif verb in "xX":
        written = _hex(value, verb == "X")
    elif verb == "o":
        written = _octal(value)
    else:
        raise FormatError(
            f'could not parse formatting clause: unrecognized formatting clause "{verb}"'
        )
    return at + 1, written


def format_string(text: str, args: list[Any]) -> str:
    """``text.format(args)``: cel-go's ``parseFormatString`` with ``stringFormatter``."""
    out: list[str] = []
    index = argument = 0
    while index < len(text):
        char = text[index]
        if char != "%":
            out.append(char)
            index += 1
            continue
        if index + 1 < len(text) and text[index + 1] == "%":
            out.append("%")
            index += 2
            continue
        if argument >= len(args):
            raise FormatError(f"index {argument} out of range")
        if index + 1 >= len(text):
            raise FormatError("unexpected end of string")
        index, written = _clause(text, index + 1, args[argument])
        out.append(written)
        argument += 1
    return "".join(out)
