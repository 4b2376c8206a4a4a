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
  ``time.Time.IsZero``) the first instant of year 1.
- ``s.format(a)`` -> ``s.fedgateFormat(cel.bind(fedgateFormatArgs, a, [fedgateFormatArgs,
  fedgateFormatArgs.map(fedgateFormatArg, <string(fedgateFormatArg) of a timestamp or a
  duration, size(fedgateFormatArg) of a map, else ''>)]))``: cel-go's formatter
  (``stringformat``), not cel-cpp's; the strings carry the nanoseconds a Python datetime or
  timedelta would lose, the size tells a map whose keys ``true`` and ``1`` Python merged.

Calls are found on the text with string literals and comments blanked, so a literal or a
comment is never rewritten. The internal names cannot be written by a rule (``INTERNAL``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webhook.engine.cel.paths import STRING_LITERAL

_NON_ZERO = "fedgateNonZero"
"""The variable ``optional.ofNonZeroValue``'s rewrite binds its argument to."""

INTERNAL = {
    "fedgateFormatValidate": "validate",
    "fedgateFormatNamed": "named",
    "fedgateMapOfPairs": "transformMap",
    "fedgateMergeEntries": "transformMapEntry",
    "fedgateSubstring": "substring",
    _NON_ZERO: "ofNonZeroValue",
    "fedgateFormatArgs": "format",
    "fedgateFormatArg": "format",
    "fedgateFormat": "format",
}
"""Internal function name -> the name a rule author wrote (errors are worded with it)."""

_CALL = re.compile(
    r"(?P<format>\bformat\s*\.\s*)?\.?\s*\b(?P<name>validate|named|transformMapEntry|"
    r"transformMap|exists_one|substring|ofNonZeroValue|format)\s*\("
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
        elif not before.endswith("."):
            continue  # a global function of that name, not the member call
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


def rewrite(expression: str) -> str:
    """The expression with every construct above rewritten (unchanged when it has none)."""
    words = (
        *("validate", "named", "transformMap", "exists_one", "substring", "ofNonZeroValue"),
        "format",
    )
    if not any(word in expression for word in words):
        return expression
    done: set[int] = set()  # name positions of calls left as they are (wrong arity)
    while True:  # one call at a time: a rewritten call no longer matches, nested ones shift
        calls = [c for c in _calls(blanked(expression)) if c.name_start not in done]
        if not calls:
            return expression
        edits = _edits(expression, calls[0])
        if not edits:
            done.add(calls[0].name_start)
        for start, end, text in sorted(edits, reverse=True):  # distinct positions
            expression = expression[:start] + text + expression[end:]


def _edits(expression: str, call: _Call) -> list[tuple[int, int, str]]:
    after = call.close + 1
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
    return [
        (namespace.start(), start, f"cel.bind({value}, "),
        (
            end,
            call.close + 1,
            f", type({value}) == google.protobuf.Timestamp ? (dyn({value}) == {_GO_ZERO_TIME}"
            f" ? optional.none() : optional.of({value})) : optional.ofNonZeroValue({value}))",
        ),
    ]


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
        (start, start, f"cel.bind({_FORMAT_ARGS}, "),
        (end, end, f", [{_FORMAT_ARGS}, {exact}])"),
    ]
