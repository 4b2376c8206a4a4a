"""gobwas/glob v0.2.3 ``syntax/ast/ast.go`` and ``parser.go``: the tree of a pattern.

The parser pulls tokens one at a time and stops at the first end of input, so what follows a
NUL is never read. An unclosed ``{`` is closed by the end of the pattern; ``,`` and ``}`` only
count inside ``{...}`` (the lexer decides).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.argocd.gobwas.gostr import decode_rune
from compiler.argocd.gobwas.lexer import Lexer, TokenType


class GlobSyntaxError(ValueError):
    """A pattern gobwas/glob refuses to compile (its ``Compile`` returns this error)."""


class Kind(enum.Enum):
    NOTHING = "Nothing"
    PATTERN = "Pattern"
    LIST = "List"
    RANGE = "Range"
    TEXT = "Text"
    ANY = "Any"
    SUPER = "Super"
    SINGLE = "Single"
    ANY_OF = "AnyOf"


@dataclass(frozen=True)
class ListValue:
    """``ast.List``: the characters of ``[...]`` and whether it is negated (``[!...]``)."""

    chars: bytes
    negated: bool


@dataclass(frozen=True)
class RangeValue:
    """``ast.Range``: the runes of ``[lo-hi]`` and whether it is negated."""

    lo: int
    hi: int
    negated: bool


@dataclass(frozen=True)
class TextValue:
    """``ast.Text``: literal text."""

    text: bytes


NodeValue = ListValue | RangeValue | TextValue | None


@dataclass(eq=False)
class Node:
    """``ast.Node``; equality (``Equal``, and ``reflect.DeepEqual`` as the compiler uses it)
    is structural: kind, value and children."""

    kind: Kind
    value: NodeValue = None
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None

    def equal(self, other: Node) -> bool:
        return (
            self.kind == other.kind
            and self.value == other.value
            and len(self.children) == len(other.children)
            and all(a.equal(b) for a, b in zip(self.children, other.children, strict=True))
        )


def new_node(kind: Kind, value: NodeValue = None, *children: Node) -> Node:
    """``NewNode``: also re-parents the children, as Go's ``Insert`` does."""
    node = Node(kind, value)
    insert(node, *children)
    return node


def insert(parent: Node, *children: Node) -> None:
    parent.children.extend(children)
    for child in children:
        child.parent = parent


_ParseFn = Callable[[Node, Lexer], tuple["_ParseFn | None", Node]]


def parse(lexer: Lexer) -> Node:
    """``Parse``: the root Pattern node, or GlobSyntaxError."""
    root = new_node(Kind.PATTERN)
    parser: _ParseFn | None = _parser_main
    tree = root
    while parser is not None:
        parser, tree = parser(tree, lexer)
    return root


def _parser_main(tree: Node, lexer: Lexer) -> tuple[_ParseFn | None, Node]:
    token = lexer.next()
    kind = token.type
    if kind == TokenType.EOF:
        return None, tree
    if kind == TokenType.ERROR:
        raise GlobSyntaxError(token.raw.decode())
    if kind == TokenType.TEXT:
        insert(tree, new_node(Kind.TEXT, TextValue(token.raw)))
    elif kind in _LEAVES:
        insert(tree, new_node(_LEAVES[kind]))
    elif kind == TokenType.RANGE_OPEN:
        return _parser_range, tree
    elif kind == TokenType.TERMS_OPEN:
        alternatives = new_node(Kind.ANY_OF)
        insert(tree, alternatives)
        first = new_node(Kind.PATTERN)
        insert(alternatives, first)
        return _parser_main, first
    elif kind == TokenType.SEPARATOR:
        assert tree.parent is not None  # the lexer emits separators only inside terms
        alternative = new_node(Kind.PATTERN)
        insert(tree.parent, alternative)
        return _parser_main, alternative
    elif kind == TokenType.TERMS_CLOSE:
        assert tree.parent is not None and tree.parent.parent is not None
        return _parser_main, tree.parent.parent
    else:
        raise GlobSyntaxError(f"unexpected token: {kind.value}<{token.raw!r}>")
    return _parser_main, tree


_LEAVES = {TokenType.ANY: Kind.ANY, TokenType.SUPER: Kind.SUPER, TokenType.SINGLE: Kind.SINGLE}


def _one_rune(raw: bytes) -> int:
    r, width = decode_rune(raw)
    if len(raw) > width:
        raise GlobSyntaxError("unexpected length of lo character")
    return r


def _parser_range(tree: Node, lexer: Lexer) -> tuple[_ParseFn | None, Node]:
    negated, lo, hi, chars = False, 0, 0, b""
    while True:
        token = lexer.next()
        kind = token.type
        if kind == TokenType.EOF:
            raise GlobSyntaxError("unexpected end")
        if kind == TokenType.ERROR:
            raise GlobSyntaxError(token.raw.decode())
        if kind == TokenType.NOT:
            negated = True
        elif kind == TokenType.RANGE_LO:
            lo = _one_rune(token.raw)
        elif kind == TokenType.RANGE_HI:
            hi = _one_rune(token.raw)
            if hi < lo:
                raise GlobSyntaxError(f"hi character {chr(hi)!r} should be greater than lo")
        elif kind == TokenType.TEXT:
            chars = token.raw
        elif kind == TokenType.RANGE_CLOSE:
            is_range = lo != 0 and hi != 0
            if bool(chars) == is_range:
                raise GlobSyntaxError("could not parse range")
            value = RangeValue(lo, hi, negated) if is_range else ListValue(chars, negated)
            insert(tree, new_node(Kind.RANGE if is_range else Kind.LIST, value))
            return _parser_main, tree
