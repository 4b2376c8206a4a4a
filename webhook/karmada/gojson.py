"""Go's text of JSON and of numbers, as the libraries Karmada's overriders use write them.

``json_loads`` keeps each number's and string's text, ``json_dumps`` writes compact JSON as
``encoding/json`` does (HTML characters escaped), ``go_json_float`` and ``go_yaml_float`` are
``encoding/json``'s and ``strconv.FormatFloat``'s float text. ``encoding.py`` writes YAML with
them and ``goyaml.py`` reads YAML into them; this module needs neither.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import math
import re
from collections.abc import Mapping
from typing import Any


class EncodingError(ValueError):
    """Text a fieldOverrider cannot read or write (Karmada's override fails)."""


class RawNumber(str):
    """A JSON number kept as the text it was written as (json-patch never reformats it)."""

    __slots__ = ()


_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_GO_ESCAPE = re.compile("[<>&\u2028\u2029]")


class RawString(str):
    """A JSON string value kept with the text it was written as: json-patch v5 writes a value
    no operation touched back as written (``"caf\\u00e9"`` stays so), only escaping HTML
    characters as ``encoding/json`` compacts it."""

    raw: str


class _Decoder(json.JSONDecoder):
    """``json.loads`` with numbers kept as text and string values as RawString (the pure
    Python scanner: the C one cannot hand back a string's text)."""

    def __init__(self) -> None:
        super().__init__(parse_int=RawNumber, parse_float=RawNumber, parse_constant=_nan)
        self.parse_string = self._raw_string
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]

    def _raw_string(self, text: str, end: int, strict: bool) -> tuple[RawString, int]:
        value, after = json.decoder.scanstring(text, end, strict)  # type: ignore[attr-defined]
        found = RawString(value)
        found.raw = text[end - 1 : after]
        return found, after


def json_loads(text: str) -> Any:
    """Parse JSON keeping each number's text (``1.0`` stays ``1.0``) and each string value's
    (keys are read as text: json-patch writes the keys of what it walks through anew)."""
    try:
        return _Decoder().decode(text)
    except json.JSONDecodeError as exc:
        raise EncodingError(f"not valid JSON: {exc}") from None


def _nan(text: str) -> Any:
    raise EncodingError(f"not valid JSON: {text}")


def _go_string(value: str) -> str:
    return _GO_ESCAPE.sub(lambda m: _GO_ESCAPES[m[0]], json.dumps(value, ensure_ascii=False))


def json_dumps(value: Any) -> str:
    """Compact JSON as Go's ``encoding/json`` writes it (HTML characters escaped)."""
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, RawString):
        return _GO_ESCAPE.sub(lambda m: _GO_ESCAPES[m[0]], value.raw)
    if isinstance(value, str):
        return _go_string(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_json_float(value)
    if isinstance(value, Mapping):
        items = (f"{_go_string(str(k))}:{json_dumps(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_dumps(v) for v in value) + "]"
    raise EncodingError(f"cannot write {type(value).__name__} as JSON")


def go_json_float(value: float) -> str:
    """``encoding/json``'s float64: shortest digits, exponent form outside [1e-6, 1e21)."""
    if math.isnan(value) or math.isinf(value):
        raise EncodingError(f"unsupported value: {value}")
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, exponent = _shortest(abs(value))
    sign = "-" if value < 0 else ""
    if 1e-6 <= abs(value) < 1e21:
        return sign + _fixed(digits, exponent)
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent)}"


def _fixed(digits: str, exponent: int) -> str:
    """Shortest ``digits`` with decimal ``exponent`` in positional notation."""
    if exponent < 0:
        return f"0.{'0' * (-exponent - 1)}{digits}"
    if exponent + 1 >= len(digits):
        return digits + "0" * (exponent + 1 - len(digits))
    return f"{digits[: exponent + 1]}.{digits[exponent + 1 :]}"


def go_yaml_float(value: float) -> str:
    """go-yaml v2's ``strconv.FormatFloat(f, 'g', -1, 64)``: shortest digits, exponent form
    when the exponent is below -4 or at least 6."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, exponent = _shortest(abs(value))
    sign = "-" if value < 0 else ""
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return sign + _fixed(digits, exponent)


def _shortest(value: float) -> tuple[str, int]:
    """The shortest round-trip decimal digits of a positive ``value``, and its exponent."""
    significand, _, power = f"{value!r}".partition("e")
    whole, _, fraction = significand.partition(".")
    digits = (whole + fraction).lstrip("0")
    exponent = (int(power) if power else 0) + len(whole) - 1
    exponent -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    return digits.rstrip("0") or "0", exponent
