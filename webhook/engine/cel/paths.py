"""Which fields of its variables a set of CEL expressions reads, and values narrowed to them.

The engine hands CEL only these paths: cel-expr converts a variable whole on its first access
(about 5,800 instructions per map entry) and inspects every variable it is given. A scan of
the expression text, not of a parsed AST: it may keep more than is read, never less.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from webhook.engine.cel.backend import VARIABLES

PathTree = dict[str, "PathTree | None"]
"""The fields of a variable some expression reads: each key maps to the fields read below it,
or to None where the whole value below is needed."""

_CHAIN = re.compile(
    rf"(?<![\w.])({'|'.join(VARIABLES)})\b((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)(\s*\()?"
)
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STRING_LITERAL = re.compile(
    "|".join(
        (
            r"[rR]'''[\s\S]*?'''",  # raw strings process no escapes
            r'[rR]"""[\s\S]*?"""',
            r"[rR]'[^'\n]*'",
            r'[rR]"[^"\n]*"',
            r"'''(?:[^\\]|\\[\s\S])*?'''",
            r'"""(?:[^\\]|\\[\s\S])*?"""',
            r"'(?:[^'\\\n]|\\.)*'",
            r'"(?:[^"\\\n]|\\.)*"',
        )
    )
)
"""A CEL string literal (raw or not, quoted or triple-quoted): its words are not names."""


def read_paths(expressions: Sequence[str]) -> dict[str, PathTree | None]:
    """The variables the expressions name, each with the field paths they read below it; None
    when one of them uses the variable in a way this scan does not follow (whole, indexed,
    ``.?``), so all of it is needed. A variable no expression names is absent.

    A path is a plain ``.field`` chain after the variable's name; a last segment followed by
    ``(`` is a method or macro, not a field, and everything below the chain's end is kept.
    The macros that only test or map items (``all``, ``exists``, ``exists_one``, ``map``) are
    followed into their bodies: ``containers.all(c, c.image != '')`` reads ``image`` of each
    item (``[]`` in the tree), where ``filter``, which hands the items on, keeps them whole.
    String literals are skipped; a name that is not the variable (a comprehension variable
    shadowing it) can only add paths, never hide one.
    """
    trees: dict[str, PathTree | None] = {}
    for expression in expressions:
        text = STRING_LITERAL.sub("''", expression)
        for match in _CHAIN.finditer(text):
            name, chain, call = match.groups()
            segments = _SEGMENT.findall(chain)
            macro = segments.pop() if call and segments else None
            tree = trees.setdefault(name, {})
            if not segments:
                trees[name] = None
            elif tree is not None:
                items = _item_paths(text, match.end(), macro) if macro in _ITERATING else None
                if items is None:
                    _insert(tree, segments)
                else:
                    _insert(tree, [*segments, ITEMS], whole=False)
                    for item in items:
                        _insert(tree, [*segments, ITEMS, *item])
    return trees


ITEMS = "[]"
"""In a PathTree: the paths read of each item of a list (a map iterated keeps all its keys)."""

_ITERATING = ("all", "exists", "exists_one", "map")
_IDENTIFIER = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\Z")


def _item_paths(text: str, start: int, macro: str | None) -> list[list[str]] | None:
    """The paths the body of the macro whose arguments begin at ``start`` reads of its
    iteration variable; None when it uses an item whole, or the call is not the one-variable
    form this follows."""
    arguments = _arguments(text, start)
    if arguments is None or len(arguments) not in (2, 3):
        return None
    variable = _IDENTIFIER.match(arguments[0])
    if variable is None or (
        len(arguments) == 3 and (macro != "map" or _IDENTIFIER.match(arguments[1]))
    ):
        return None  # two-variable comprehensions: not followed
    uses = re.compile(rf"(?<![\w.]){variable[1]}\b((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)(\s*\()?")
    paths: list[list[str]] = []
    for body in arguments[1:]:
        for use in uses.finditer(body):
            segments = _SEGMENT.findall(use[1])
            if use[2] and segments:
                segments.pop()
            if not segments:
                return None
            paths.append(segments)
    return paths


def _arguments(text: str, start: int) -> list[str] | None:
    """The top-level, comma-separated arguments from ``start`` to the closing parenthesis
    (string literals already blanked); None when it does not close."""
    depth, begin, found = 0, start, []
    for index in range(start, len(text)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                found.append(text[begin:index])
                return found
            depth -= 1
        elif char == "," and depth == 0:
            found.append(text[begin:index])
            begin = index + 1
    return None


def _insert(tree: PathTree, segments: list[str], *, whole: bool = True) -> None:
    """Add a path: what is below it is needed whole, or (``whole=False``) only as far as other
    paths say (an empty node keeps a list's length)."""
    node = tree
    for segment in segments[:-1]:
        below = node.setdefault(segment, {})
        if below is None:
            return  # already whole from here
        node = below
    if whole:
        node[segments[-1]] = None
    else:
        node.setdefault(segments[-1], {})


def narrowed(value: Any, tree: PathTree | None) -> Any:
    """``value`` with only the paths in ``tree``: a map keeps the keys the tree names, a list
    iterated by a macro keeps every item narrowed to the item paths (a map iterated keeps every
    key, its keys being the items); anything else is kept whole."""
    if tree is None:
        return value
    kind = type(value)
    if kind is dict:
        if ITEMS in tree:
            return value
        kept = {}
        for key, below in tree.items():  # a loop, not a comprehension: this runs per request
            if key in value:
                kept[key] = value[key] if below is None else narrowed(value[key], below)
        return kept
    if kind is list and ITEMS in tree:
        items = tree[ITEMS]
        return value if items is None else [narrowed(item, items) for item in value]
    return value
