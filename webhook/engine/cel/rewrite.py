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

Calls are found on the text with string literals and comments blanked, so a literal or a
comment is never rewritten. The internal names cannot be written by a rule (``INTERNAL``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webhook.engine.cel.paths import STRING_LITERAL

_NON_ZERO = "fedgateNonZero"
"""The variable ``optional.ofNonZeroValue``'s rewrite binds its argument to."""

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
    r"transformMap|exists_one|substring|ofNonZeroValue)\s*\("
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
    words = ("validate", "named", "transformMap", "exists_one", "substring", "ofNonZeroValue")
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
