"""Source rewrites for the few Kubernetes constructs cel-expr-python cannot run as written.

cel-expr-python cannot hand an optional back from a Python function, nor run cel-cpp's
``cel.@mapInsert`` (the helper behind ``transformMap`` and ``transformMapEntry``). Each such call
is rewritten, before compiling, into CEL that cel-expr runs with the same result:

- ``F.validate(s)`` -> ``F.fedgateFormatValidate(s)[?0]``: the function returns ``[]`` (valid)
  or ``[messages]``, and ``[?0]`` makes ``optional.none()`` or ``optional.of(messages)``;
- ``format.named(n)`` -> ``format.fedgateFormatNamed(n)[?0]``, the same way;
- ``e.transformMap(k, v, [filter,] t)`` -> ``e.transformList(k, v, [filter,] [dyn(k),
  dyn(t)]).fedgateMapOfPairs()``; ``transformMapEntry(k, v, [filter,] m)`` ->
  ``transformList(k, v, [filter,] m).fedgateMergeEntries()`` (a repeated key is an error, as
  cel-go's ``insert failed: key ... already exists``);
- ``e.exists_one(k, v, p)`` (three arguments) -> ``e.existsOne(k, v, p)``, the name cel-go
  also accepts;
- ``s.substring(...)`` -> ``s.fedgateSubstring(...)``, cel-go's (``library.substring``):
  cel-cpp's refuses an end equal to the size when the start is not 0 or the end (``'abc'.
  substring(1, 3)`` was an error, cel-go's is ``'bc'``);
- ``optional.ofNonZeroValue(x)`` -> ``cel.bind(fedgateNonZero, x, <a timestamp ? compared
  with Go's zero time, year 1 : optional.ofNonZeroValue(fedgateNonZero)>)``: cel-cpp takes the
  Unix epoch for a timestamp's zero value, cel-go (``Timestamp.IsZeroValue``: Go's
  ``time.Time.IsZero``) the first instant of year 1;
- ``e.getMilliseconds()`` -> ``e.fedgateGetMilliseconds()`` (``library.duration_milliseconds``
  / ``timestamp_milliseconds``): cel-go's of a duration is the whole duration in milliseconds,
  cel-cpp's the component (the zoned form ``getMilliseconds(tz)`` is a timestamp's only);
- ``s.split(...)`` -> ``s.fedgateSplit(...)``, Go's ``strings.SplitN`` (``library.split``:
  ``''.split('')`` is ``[]``, cel-cpp's ``['']``);
- ``string(x)`` -> ``cel.bind(fedgateString, x, <a double, duration or timestamp ?
  fedgateGoString(fedgateString, string(fedgateString)) : string(fedgateString)>)``: cel-go
  writes ``+Inf``, ``-1.5s``, ``...00.5Z`` where cel-cpp writes ``inf``, ``-1.500s``,
  ``...00.500Z`` (``library.go_string`` makes cel-go's of cel-cpp's text, exact to the
  nanosecond);
- in an expression that calls ``string()`` or ``format()``, ``timestamp(s)`` of a string ->
  ``timestamp(fedgateUtcOffset(s))``, which fails where ``s`` has an offset other than UTC's:
  cel-go keeps that offset and writes it, cel-expr's timestamps are UTC only (a literal in UTC
  is left as it is, a string that is not one as well);
- ``s.format(a)`` -> ``s.fedgateFormat(cel.bind(fedgateFormatArgs, a, [fedgateFormatArgs,
  fedgateFormatArgs.map(fedgateFormatArg, <string(fedgateFormatArg) of a timestamp or a
  duration, size(fedgateFormatArg) of a map, else ''>)]))``: cel-go's formatter
  (``stringformat``), not cel-cpp's; the strings carry the nanoseconds a Python datetime or
  timedelta would lose, the size tells a map whose keys ``true`` and ``1`` Python merged.

Where a rewrite names a value once to read it several times, it binds it as ``[x].map(v,
body)[0]``, written ``cel.bind(v, x, body)`` above: cel-cpp's ``cel.bind`` read a
stale slot after a comprehension that stopped early (``['p', 'q'].exists(x, x != 'z') ?
cel.bind(a, 1, a) : 0`` was ``'q'``), a one-item ``map`` does not.

Calls are found on the text with string literals and comments blanked, so a literal or a
comment is never rewritten. The internal names cannot be written by a rule (``INTERNAL``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from webhook.engine.cel import nanorder, typeparam
from webhook.engine.cel.paths import STRING_LITERAL

_NON_ZERO = "fedgateNonZero"
"""The variable ``optional.ofNonZeroValue``'s rewrite binds its argument to."""
_STRING = "fedgateString"
"""The variable ``string()``'s rewrite binds its argument to."""
_TIMESTAMP = "fedgateTimestamp"
"""The variable ``timestamp()``'s rewrite binds its argument to."""
_INT = "fedgateInt"
"""The variable ``int()``'s rewrite binds its argument to."""
_GLOBAL = ("string", "timestamp", "int")
"""Rewritten global functions (the others are member calls, or ``optional.``'s)."""

TYPED = {
    "sum": ("double", "uint", "duration"),
    "min": ("uint", "duration", "timestamp"),
    "max": ("uint", "duration", "timestamp"),
}
"""Kubernetes' list functions whose answer depends on the list's static element type (the zero
of an empty ``sum()``) or is an element handed back from Python, which cel-expr converts by the
implementation's declared type (a uint, a duration, a timestamp): the element types for which
``celexpr`` calls ``typed_name(name, element)`` instead, declared for that type alone."""


def typed_name(name: str, element: str) -> str:
    """``sum`` of a ``list(double)`` -> ``fedgateSumOfDouble``."""
    return f"fedgate{name.capitalize()}Of{element.capitalize()}"


INT_PROBE = "fedgateProbeOfInt"
"""A function of a ``list(int)`` returning dyn, declared for the checker alone: a call renamed
to it compiles where the list is a ``list(int)`` or a ``list(dyn)``."""

INTERNAL = {
    INT_PROBE: "sum",
    "fedgateFormatValidate": "validate",
    "fedgateFormatNamed": "named",
    "fedgateMapOfPairs": "transformMap",
    "fedgateMergeEntries": "transformMapEntry",
    "fedgateSubstring": "substring",
    _NON_ZERO: "ofNonZeroValue",
    **{typed_name(name, element): name for name, elements in TYPED.items() for element in elements},
    "fedgateGetMilliseconds": "getMilliseconds",
    "fedgateSplit": "split",
    "fedgateGoString": "string",
    _STRING: "string",
    "fedgateUtcOffset": "timestamp",
    _TIMESTAMP: "timestamp",
    "fedgateRangeCount": "lists.range",
    "fedgateFlattenDepth": "flatten",
    _INT: "int",
    "fedgateIntOfBool": "int",
    typeparam.BOUND: "the converted value",
    typeparam.UNRESOLVED: "conversion",
    **nanorder.INTERNAL,
    "fedgateFormatArgs": "format",
    "fedgateFormatArg": "format",
    "fedgateFormat": "format",
}
"""Internal function name -> the name a rule author wrote (errors are worded with it)."""

_TYPED_CALL = re.compile(r"\.\s*(?P<name>sum|min|max)\s*\(\s*\)")


def typed_call_sites(expression: str) -> list[tuple[int, int, str]]:
    """Where ``.sum()``, ``.min()`` and ``.max()`` are called in ``expression`` (outside
    literals and comments), last first: (start, end) of the name, and the name."""
    if not any(name in expression for name in TYPED):
        return []
    found = _TYPED_CALL.finditer(blanked(expression))
    return sorted(((m.start("name"), m.end("name"), m.group("name")) for m in found), reverse=True)


_CALL = re.compile(
    r"(?P<format>\bformat\s*\.\s*)?\.?\s*\b(?P<name>validate|named|transformMapEntry|"
    r"transformMap|exists_one|substring|ofNonZeroValue|getMilliseconds|split|string|timestamp|int|range|flatten|format|bind)\s*\("
)
_COMMENT = re.compile(r"//[^\n]*")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class _Call:
    """A function call found in an expression: where its name, arguments and parenthesis are."""

    name: str
    name_start: int
    name_end: int
    close: int  # index of the closing parenthesis
    arguments: list[tuple[int, int]]  # (start, end) of each argument


def blanked(expression: str) -> str:
    """The expression with every string literal's and comment's characters turned to spaces
    (the quotes kept), so positions stay those of the expression."""

    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("//"):
            return " " * len(text)
        return text[0] + " " * (len(text) - 2) + text[-1]

    masked = STRING_LITERAL.sub(blank, expression)
    return _COMMENT.sub(blank, masked)


def _calls(masked: str) -> list[_Call]:
    found = []
    for match in _CALL.finditer(masked):
        name = match.group("name")
        before = masked[: match.start("name")].rstrip()
        if name == "named":
            if match.group("format") is None:
                continue
        elif (name in _GLOBAL) == before.endswith("."):
            continue  # a global function of a member's name, or a member of a global's
        open_at = match.end() - 1
        arguments, close = _arguments(masked, open_at)
        if close < 0:
            continue  # unbalanced: the compiler will say where
        found.append(_Call(name, match.start("name"), match.end("name"), close, arguments))
    return found


def _arguments(masked: str, open_at: int) -> tuple[list[tuple[int, int]], int]:
    depth, start, arguments = 0, open_at + 1, []
    for index in range(open_at, len(masked)):
        char = masked[index]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                if masked[start:index].strip():
                    arguments.append((start, index))
                return arguments, index
        elif char == "," and depth == 1:
            arguments.append((start, index))
            start = index + 1
    return [], -1


def uses_internal_name(expression: str) -> str | None:
    """An internal name written in the expression itself (outside literals), if any."""
    masked = blanked(expression)
    for name in INTERNAL:
        if re.search(rf"\b{name}\b", masked):
            return name
    return None


def rewrite(expression: str, check_orderings: Callable[[str], str] = nanorder.checked) -> str:
    """The expression with every construct above rewritten (unchanged when it has none), its
    conversions of a value typed by the lists extension's unresolved element type as cel-go's
    (``typeparam``) and its orderings of what may be a NaN cel-go's first
    (``check_orderings``: ``nanorder.checked``, or a memo of it)."""
    expression = check_orderings(typeparam.checked(expression))
    words = (
        "validate",
        "named",
        "transformMap",
        "exists_one",
        "substring",
        "ofNonZeroValue",
        "getMilliseconds",
        "split",
        "string",
        "timestamp",
        "int",
        "range",
        "flatten",
        "format",
        "bind",
    )
    if not any(word in expression for word in words):
        return expression
    masked = blanked(expression)
    shows_timestamps = re.search(r"(?<![\w.])string\s*\(|\bformat\s*\(", masked) is not None
    while True:  # one call at a time: a rewritten call no longer matches, nested ones shift
        for call in _calls(blanked(expression)):  # a call left as it is is left again
            edits = _edits(expression, call, shows_timestamps)
            if edits:
                break
        else:
            return expression
        for start, end, text in sorted(edits, reverse=True):  # distinct positions
            expression = expression[:start] + text + expression[end:]


def _edits(expression: str, call: _Call, shows_timestamps: bool) -> list[tuple[int, int, str]]:
    after = call.close + 1
    if call.name == "getMilliseconds":
        if call.arguments:
            return []  # the zoned form: a timestamp's, the same in cel-cpp
        return [(call.name_start, call.name_end, "fedgateGetMilliseconds")]
    if call.name == "split":
        return [(call.name_start, call.name_end, "fedgateSplit")]
    if call.name in ("range", "flatten"):
        return _checked_argument(expression, call)
    if call.name == "int":
        return _int(expression, call)
    if call.name == "string":
        return _string(expression, call)
    if call.name == "timestamp":
        return _timestamp(expression, call) if shows_timestamps else []
    if call.name == "validate":
        return [(call.name_start, call.name_end, "fedgateFormatValidate"), (after, after, "[?0]")]
    if call.name == "named":
        return [(call.name_start, call.name_end, "fedgateFormatNamed"), (after, after, "[?0]")]
    if call.name == "substring":
        return [(call.name_start, call.name_end, "fedgateSubstring")]
    if call.name == "ofNonZeroValue":
        return _non_zero(expression, call)
    if call.name == "format":
        return _format(call)
    if call.name == "bind":
        return _bind(expression, call)
    if call.name == "exists_one":
        if len(call.arguments) != 3:
            return []
        return [(call.name_start, call.name_end, "existsOne")]
    if len(call.arguments) not in (3, 4):
        return []  # the compiler words the arity error
    edits = [(call.name_start, call.name_end, "transformList")]
    if call.name == "transformMap":
        key = expression[slice(*call.arguments[0])].strip()
        start, end = call.arguments[-1]
        edits += [
            (start, start, f" [dyn({key}), dyn("),
            (end, end, ")]"),
            (after, after, ".fedgateMapOfPairs()"),
        ]
    else:
        edits.append((after, after, ".fedgateMergeEntries()"))
    return edits


_CEL_NAMESPACE = re.compile(r"(?<![\w.])cel\s*\.\s*$")


def _bind(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """A rule's ``cel.bind(v, init, body)`` -> ``[init].map(v, body)[0]`` (see the module:
    cel-cpp's ``cel.bind`` read a stale slot); left as it is when not ``cel.``'s."""
    namespace = _CEL_NAMESPACE.search(blanked(expression)[: call.name_start])
    if namespace is None or len(call.arguments) != 3:
        return []
    name, init, body = (expression[slice(*argument)] for argument in call.arguments)
    return [(namespace.start(), call.close + 1, f"[{init}].map({name.strip()}, {body})[0]")]


_OPTIONAL_NAMESPACE = re.compile(r"\boptional\s*\.\s*$")
_GO_ZERO_TIME = "timestamp('0001-01-01T00:00:00Z')"


def _non_zero(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """``optional.ofNonZeroValue(x)`` with a timestamp's zero value cel-go's; left as it is
    when it is the rewrite's own call (its argument the bound variable) or not
    ``optional.``'s."""
    namespace = _OPTIONAL_NAMESPACE.search(blanked(expression)[: call.name_start])
    if namespace is None or len(call.arguments) != 1:
        return []
    start, end = call.arguments[0]
    if expression[start:end].strip() == _NON_ZERO:
        return []
    value = _NON_ZERO
    return _bound(
        (namespace.start(), start, end, call.close + 1),
        value,
        f"type({value}) == google.protobuf.Timestamp ? (dyn({value}) == {_GO_ZERO_TIME}"
        f" ? optional.none() : optional.of({value})) : optional.ofNonZeroValue({value})",
    )


def _bound(spans: tuple[int, int, int, int], value: str, body: str) -> list[tuple[int, int, str]]:
    """The edits making a call (from ``spans[0]`` to ``spans[3]``, its argument from
    ``spans[1]`` to ``spans[2]``) ``body`` with ``value`` bound to the argument (a one-item
    ``map``: see the module)."""
    call_start, start, end, after = spans
    return [(call_start, start, "["), (end, after, f"].map({value}, {body})[0]")]


_TIMES = "google.protobuf.Duration, google.protobuf.Timestamp"


def _string(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """``string(x)`` with cel-go's spelling of a double, a duration and a timestamp; left as
    it is when it is the rewrite's own call (its argument the bound variable)."""
    if len(call.arguments) != 1:
        return []
    start, end = call.arguments[0]
    if expression[start:end].strip() == _STRING:
        return []
    value = _STRING
    return _bound(
        (call.name_start, start, end, call.close + 1),
        value,
        f"type({value}) in [double, {_TIMES}] ? fedgateGoString(dyn({value}),"
        f" string({value})) : string({value})",
    )


_UTC_LITERAL = re.compile(
    r"""\s*(?P<quote>['"])\d{4}-\d\d-\d\dT[\d:.]+(?:[Zz]|[+-]00:00)(?P=quote)\s*"""
)
"""A string literal of a timestamp in UTC (no escapes, no offset to keep)."""
_INT_LITERAL = re.compile(r"\s*-?\s*\d+u?\s*")


def _timestamp(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """``timestamp(s)`` failing where ``s`` has an offset other than UTC's; left as it is
    when its argument is a literal in UTC or a number, or it is the rewrite's own call."""
    if len(call.arguments) != 1:
        return []
    start, end = call.arguments[0]
    argument = expression[start:end]
    if (
        argument.strip() == _TIMESTAMP
        or argument.strip().startswith("fedgateUtcOffset(")
        or _UTC_LITERAL.fullmatch(argument)
        or _INT_LITERAL.fullmatch(argument)
    ):
        return []
    if STRING_LITERAL.fullmatch(argument.strip()):
        return [(start, start, "fedgateUtcOffset("), (end, end, ")")]
    value = _TIMESTAMP
    return _bound(
        (call.name_start, start, end, call.close + 1),
        value,
        f"type({value}) == string ? timestamp(fedgateUtcOffset(dyn({value}))) : timestamp({value})",
    )


_LISTS_NAMESPACE = re.compile(r"\blists\s*\.\s*$")
_ARGUMENT_CHECKS = {"range": "fedgateRangeCount", "flatten": "fedgateFlattenDepth"}


def _checked_argument(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """``lists.range(n)`` -> ``lists.range(fedgateRangeCount(n))`` and ``l.flatten(d)`` ->
    ``l.flatten(fedgateFlattenDepth(d))``: the count or depth an int, as cel-go takes it (a
    negative count none); left as it is when already checked, or not ``lists.``'s range."""
    if len(call.arguments) != 1:
        return []
    if call.name == "range" and not _LISTS_NAMESPACE.search(blanked(expression)[: call.name_start]):
        return []
    check = _ARGUMENT_CHECKS[call.name]
    start, end = call.arguments[0]
    if expression[start:end].strip().startswith(f"{check}("):
        return []
    return [(start, start, f"{check}("), (end, end, ")")]


def _int(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    """``int(x)`` failing for a bool, as Kubernetes' (cel-cpp has ``int(bool)``); left as it
    is when its argument is a literal number or string, or it is the rewrite's own call."""
    if len(call.arguments) != 1:
        return []
    start, end = call.arguments[0]
    argument = expression[start:end]
    if argument.strip() == _INT or STRING_LITERAL.fullmatch(argument.strip()):
        return []
    if re.fullmatch(r"\s*-?\s*[\d.eE+-]+u?\s*", argument):
        return []
    value = _INT
    return _bound(
        (call.name_start, start, end, call.close + 1),
        value,
        f"type({value}) == bool ? fedgateIntOfBool() : int({value})",
    )


_FORMAT_ARGS, _FORMAT_ARG = "fedgateFormatArgs", "fedgateFormatArg"


def _format(call: _Call) -> list[tuple[int, int, str]]:
    """``s.format(a)`` as cel-go's formatter, handed ``a`` and the exact text of each
    timestamp and duration in it; left as it is with another number of arguments."""
    if len(call.arguments) != 1:
        return []
    start, end = call.arguments[0]
    exact = (
        f"{_FORMAT_ARGS}.map({_FORMAT_ARG}, type({_FORMAT_ARG}) == google.protobuf.Timestamp"
        f" || type({_FORMAT_ARG}) == google.protobuf.Duration ? string(dyn({_FORMAT_ARG}))"
        f" : type({_FORMAT_ARG}) == map ? string(size(dyn({_FORMAT_ARG}))) : '')"
    )
    return [
        (call.name_start, call.name_end, "fedgateFormat"),
        (start, start, "["),
        (end, end, f"].map({_FORMAT_ARGS}, [{_FORMAT_ARGS}, {exact}])[0]"),
    ]
