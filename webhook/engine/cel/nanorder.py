"""cel-go's ordering of a NaN, for cel-expr: ``<``, ``<=``, ``>``, ``>=`` with a NaN operand are
an error there ("NaN values cannot be ordered"), false in cel-cpp, whose standard comparisons
Python cannot replace.

A NaN comes only from double arithmetic, conversions (``double('NaN')``) and functions
(``math.*``, a list's ``min()``...), or from a variable bound to such a value (a comprehension's,
``cel.bind``'s, ``variables``): the request's JSON carries none. So an ordering is rewritten,
before compiling, only where an operand may hold one (``may_be_nan``): ``a < b`` becomes
``[a].map(fedgateLeft, [b].map(fedgateRight, fedgateLeft != fedgateLeft || fedgateRight !=
fedgateRight ? fedgateUnordered() : fedgateLeft < fedgateRight)[0])[0]`` (a one-item ``map``
binds each operand once, as ``rewrite`` binds) (a NaN is
the one value not equal to itself; ``fedgateUnordered()`` fails with cel-go's message). An
operand that is a literal, a path into a request variable or into a comprehension variable bound
to one (``object.spec.rules.all(r, r[f] <= 3)``: ``data_variables``), or an int or string
function's result (``size()``, ``indexOf()``...) cannot be a NaN: such an ordering, most of them,
is left as it is and costs nothing more.
"""

from __future__ import annotations

import re
from typing import Any

from webhook.engine.cel import grammar
from webhook.engine.cel.backend import VARIABLES
from webhook.engine.cel.library import LibraryError
from webhook.engine.cel.paths import STRING_LITERAL

LEFT, RIGHT, UNORDERED = "fedgateLeft", "fedgateRight", "fedgateUnordered"
INTERNAL = {LEFT: "<", RIGHT: "<", UNORDERED: "<"}
"""Internal names -> what a rule author wrote (an ordering)."""

_ORDERINGS = {"relation_lt": "<", "relation_le": "<=", "relation_gt": ">", "relation_ge": ">="}
_PASS_THROUGH = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication"}
    | {"unary", "member", "primary", "paren_expr"}
)
_NOT_DOUBLE = frozenset(
    {"size", "int", "uint", "string", "bool", "bytes", "timestamp", "duration", "type"}
    | {"indexOf", "lastIndexOf", "charAt", "lowerAscii", "upperAscii", "trim", "substring"}
    | {"replace", "join", "compareTo", "getFullYear", "getMonth", "getDate", "getDayOfMonth"}
    | {"getDayOfWeek", "getDayOfYear", "getHours", "getMinutes", "getSeconds"}
    | {"getMilliseconds", "matches", "startsWith", "endsWith", "contains", "has", "all"}
    | {"exists", "exists_one", "existsOne", "isSorted", "isLessThan", "isGreaterThan"}
    | {"isInteger", "asInteger", "sign"}
)
"""Functions whose result is never a double (so never a NaN)."""
_ROOTS = tuple(name for name in VARIABLES if name != "variables")
"""The request's variables (``variables.x`` may be a computed NaN: not one)."""
_STEPS = r"(?:\s*\??\.\s*\w+|\s*\[\??[^\[\]]*\])*\s*"
"""Field selections and indexes (by anything: an index into data gives data or an error)."""
_MACROS = frozenset(
    {"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList"}
    | {"transformMap", "transformMapEntry", "sortBy"}
)
"""Comprehensions: each binds its first argument(s) to a key, an index or an item of its
receiver."""
_ITEM = r"""(?:'\s*'|"\s*"|-?\d+)"""
_PLAIN_LIST = re.compile(rf"\s*\[\s*(?:{_ITEM}(?:\s*,\s*{_ITEM})*\s*,?)?\s*\]\s*")
"""A list literal of (masked) strings and ints: its items are never a NaN."""


def _path(roots: tuple[str, ...] | frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in sorted(roots))
    return re.compile(rf"\s*(?:{names})\b{_STEPS}")


_PATH = _path(_ROOTS)
"""A path into a request variable."""


def data_variables(tree: Any, masked: str) -> frozenset[str]:
    """The comprehension variables bound, wherever the name is bound, to what the request
    carries: a key, index or item of a path into a request variable, of a path into another
    such variable, or of a list literal of strings and ints. Such a value is never a NaN."""
    bindings: dict[str, list[Any]] = {}  # name -> the receivers it is bound over
    for node in tree.iter_subtrees():
        if node.data != "member_dot_arg" or str(node.children[1]) not in _MACROS:
            continue
        arguments = node.children[2].children if len(node.children) > 2 else []
        for argument in arguments[:-1]:
            name = masked[argument.meta.start_pos : argument.meta.end_pos].strip()
            if name.isidentifier():
                bindings.setdefault(name, []).append(node.children[0])
    known: frozenset[str] = frozenset()
    while True:
        path = _path(_ROOTS + tuple(known))
        found = frozenset(
            name
            for name, receivers in bindings.items()
            if all(_holds_data(r, masked, path) for r in receivers)
        )
        if found == known:
            return known
        known = found


_SAME_ITEMS = frozenset({"filter", "sort", "sortBy", "distinct", "reverse", "slice"})
"""Functions whose result holds some of the receiver's own items."""


def _holds_data(node: Any, masked: str, path: re.Pattern[str]) -> bool:
    """Whether ``node``'s items are the request's: a path, a list literal of strings and
    ints, or a filter (sort, slice...) of either."""
    while getattr(node, "data", None) in _PASS_THROUGH and len(node.children) == 1:
        node = node.children[0]
    if getattr(node, "data", None) == "member_dot_arg" and str(node.children[1]) in _SAME_ITEMS:
        return _holds_data(node.children[0], masked, path)
    if getattr(node.meta, "empty", True):
        return False
    text = masked[node.meta.start_pos : node.meta.end_pos]
    return bool(path.fullmatch(text) or _PLAIN_LIST.fullmatch(text))


_NUMBER = re.compile(r"\s*-?\s*(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)[uU]?\s*")
_WORDS = ("<", ">")


def checked(expression: str) -> str:
    """The expression with every ordering an operand of which may be a NaN made cel-go's
    (unchanged when it has none, or does not parse: the compiler words that)."""
    if not any(word in expression for word in _WORDS):
        return expression
    while True:
        masked = _BOOLS.sub(_bool_word, STRING_LITERAL.sub(_blank, expression))
        try:
            tree = grammar.parse(masked)
        except Exception:
            return expression
        found = _first_unchecked(tree, masked)
        if found is None:
            return expression
        (start, end), (a, b), (c, d), symbol = found
        left, right = expression[a:b], expression[c:d]
        checked = (
            f"{LEFT} != {LEFT} || {RIGHT} != {RIGHT} ? {UNORDERED}() : {LEFT} {symbol} {RIGHT}"
        )
        inner = f"[{right}].map({RIGHT}, {checked})[0]"
        expression = f"{expression[:start]}[{left}].map({LEFT}, {inner})[0]{expression[end:]}"


_BOOLS = re.compile(r"\b(?:true|false)\b")
_BOOL_WORDS = {"true": "tru_", "false": "fals_"}
"""``true`` and ``false`` as identifiers of their length: the shared parser's lexer callback
makes them literals without a position, and an ordering's operands are cut by position."""


def _bool_word(match: re.Match[str]) -> str:
    return _BOOL_WORDS[match.group(0)]


def _blank(match: re.Match[str]) -> str:
    text = match.group(0)
    return text[0] + " " * (len(text) - 2) + text[-1]


_Span = tuple[int, int]


def _first_unchecked(tree: Any, masked: str) -> tuple[_Span, _Span, _Span, str] | None:
    data = _path(_ROOTS + tuple(data_variables(tree, masked)))
    for node in tree.iter_subtrees_topdown():
        if node.data != "relation" or len(node.children) != 2:
            continue
        operator, right = node.children
        if getattr(operator, "data", None) not in _ORDERINGS:
            continue
        left = operator.children[0]
        if any(getattr(n.meta, "empty", True) for n in (node, left, right)):
            continue  # no positions to rewrite at
        if masked[left.meta.start_pos : left.meta.end_pos].strip() == LEFT:
            continue  # an ordering this module wrote
        if not (may_be_nan(left, masked, data) or may_be_nan(right, masked, data)):
            continue
        return (
            (node.meta.start_pos, node.meta.end_pos),
            (left.meta.start_pos, left.meta.end_pos),
            (right.meta.start_pos, right.meta.end_pos),
            _ORDERINGS[operator.data],
        )
    return None


def may_be_nan(node: Any, masked: str, paths: re.Pattern[str] = _PATH) -> bool:
    """Whether the operand may evaluate to a NaN (conservative: true unless it is a literal,
    a path (``paths``: into a request variable, or a comprehension variable bound to one), or
    a call of a function that never returns a double)."""
    while getattr(node, "data", None) in _PASS_THROUGH and len(node.children) == 1:
        node = node.children[0]
    data = getattr(node, "data", None)
    if data == "literal":
        return False
    if data in ("member_dot_arg", "ident_arg", "dot_ident_arg"):
        name = next(str(c) for c in node.children if getattr(c, "type", None) == "IDENT")
        if data == "member_dot_arg":
            name = str(node.children[1])
        return name not in _NOT_DOUBLE
    text = masked[node.meta.start_pos : node.meta.end_pos]
    return not (
        paths.fullmatch(text) or _NUMBER.fullmatch(text) or text.strip() in _BOOL_WORDS.values()
    )


def unordered() -> bool:
    """``fedgateUnordered()``: an ordering met a NaN."""
    raise LibraryError("NaN values cannot be ordered")
