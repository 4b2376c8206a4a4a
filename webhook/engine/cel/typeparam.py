"""Conversions of a value cel-go types by the lists extension's unresolved type parameter.

cel-go's ``reverse``, ``distinct``, ``slice``, ``flatten``, ``first`` and ``last`` take and
give ``list(T)``; of a list the checker cannot type (a request's field, ``dyn``) ``T`` stays a
free type variable. A later call with an argument typed ``T`` binds it to the first overload
that accepts it (``checker.resolveOverload``), and a function with one binding per overload
(the conversions ``string()``, ``int()``, ...) is then planned with only the overloads the
checker kept: ``string(object.l.reverse()[0])`` binds ``T`` to ``string`` (the identity
overload comes first) and fails for ``[true]`` ("no such overload: string(bool)"), where the
same ``string(object.l[0])`` answers. ``sort()`` of ``list(T)`` binds ``T`` to ``int`` (its
first overload), so a conversion after it keeps ``int``'s overload.

``checked`` follows ``T`` through the expression in the checker's order (what keeps ``T``:
indexes, ``value()``, ``filter``/``map(x, x)``/``sortBy``, list literals, conditionals of it
alone, comprehension variables) and wraps each conversion of a value typed ``T`` so that it
only takes a value of the type ``T`` is bound to: exact where ``T`` is still free (the
identity) or bound by ``sort()``; where ``T`` met anything else fedgate does not follow
(arithmetic, ``==``, a mixed literal...), the conversion always fails, closed, saying why.
A conversion of anything else is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from webhook.engine.cel import grammar
from webhook.engine.cel.paths import STRING_LITERAL

CONVERSIONS = ("string", "int", "uint", "double", "bytes", "bool", "timestamp", "duration")
_TYPE_NAMES = {
    **{name: name for name in CONVERSIONS},
    "timestamp": "google.protobuf.Timestamp",
    "duration": "google.protobuf.Duration",
}
"""A conversion's identity type, as CEL's ``type()`` names it."""
_SOURCES = frozenset({"reverse", "distinct", "slice", "flatten", "first", "last"})
"""The lists extension's functions of ``list(T)``."""
_KEEPS = frozenset({"value", "orValue"})
_BINDS_INT = frozenset({"sort", "sum", "min", "max", "isSorted"})
"""Member functions whose first overload (``list(int)``) binds a free ``T``."""
_MACROS = frozenset(
    {"all", "exists", "exists_one", "existsOne", "map", "filter", "sortBy", "transformList"}
)
_BOOL_RESULTS = frozenset(
    {"all", "exists", "exists_one", "existsOne", "isSorted", "startsWith", "endsWith"}
    | {"contains", "matches", "isQuantity", "isURL", "isIP", "isCIDR", "isSemver"}
)
"""Member functions whose result is a bool whatever ``T`` is bound to."""
_INT_RESULTS = frozenset({"size", "indexOf", "lastIndexOf"})
_STRINGS_RESULTS = frozenset({"split", "findAll"})
"""Member functions whose result is a list of strings."""
_SCALARS = frozenset({"int", "uint", "double", "string", "bytes", "bool"})

BOUND = "fedgateTypeParam"
"""The variable a wrapped conversion binds its argument to."""
UNRESOLVED = "fedgateUnresolved"
"""The function a wrapped conversion calls for a value of another type (it fails)."""

_WORDS = re.compile(r"\b(reverse|distinct|slice|flatten|first|last)\s*\(")
_CONVERSION_WORDS = re.compile(
    r"\b(string|int|uint|double|bytes|bool|timestamp|duration|sum|min|max|isSorted)\s*\("
)

DYN = "dyn"
UNKNOWN = "?"
"""A static type cel-go gives that fedgate does not follow: every conversion of it fails."""
FREE = "free"


@dataclass(frozen=True)
class Var:
    """A type variable ``T`` made by one call of a lists function."""

    id: int


@dataclass(frozen=True)
class ListOf:
    elem: Any


@dataclass(frozen=True)
class Wrap:
    """A conversion to wrap: its argument's span and what it takes (None: nothing)."""

    start: int
    end: int
    conversion: str
    accepts: str | None
    receiver: bool = False
    """A list function's receiver (its first element checked), not a conversion's argument."""


@dataclass
class _Checker:
    """The walk: ``T``'s bindings (``FREE``, a type name or ``UNKNOWN``) and what to wrap."""

    bindings: dict[int, str] = field(default_factory=dict)
    wraps: list[Wrap] = field(default_factory=list)
    scopes: list[dict[str, Any]] = field(default_factory=list)

    def fresh(self) -> Var:
        var = Var(len(self.bindings))
        self.bindings[var.id] = FREE
        return var

    def spoil(self, kind: Any) -> None:
        """Every ``T`` in ``kind`` met something fedgate does not follow."""
        if isinstance(kind, Var):
            self.bindings[kind.id] = UNKNOWN
        elif isinstance(kind, ListOf):
            self.spoil(kind.elem)

    def resolved(self, kind: Any) -> Any:
        if isinstance(kind, Var):
            binding = self.bindings[kind.id]
            return kind if binding == FREE else binding
        return kind

    # -- the tree ----------------------------------------------------------------------

    def walk(self, tree: Any) -> Any:
        import lark  # noqa: PLC0415 - only an expression that needs it parses

        if isinstance(tree, lark.Token):
            return DYN
        rule = tree.data
        kids = tree.children
        if rule == "expr":
            if len(kids) == 1:
                return self.walk(kids[0])
            self.walk(kids[0])
            return self._join([self.walk(kids[1]), self.walk(kids[2])])
        if rule in ("conditionalor", "conditionaland"):
            if len(kids) == 1:
                return self.walk(kids[0])
            for kid in kids:
                self.spoil(self.walk(kid))
            return "bool"
        if rule in ("relation", "addition", "multiplication", "unary"):
            return self._operator(rule, kids)
        if rule in ("member", "primary", "paren_expr"):
            return self.walk(kids[0])
        if rule == "literal":
            return _literal_type(kids[0])
        if rule == "ident":
            name = str(kids[0])
            if name in _BOOL_WORDS:
                return "bool"
            for scope in reversed(self.scopes):
                if name in scope:
                    return scope[name]
            return DYN
        if rule == "member_dot":  # a field of a T: dyn in cel-go
            target = self.resolved(self.walk(kids[0]))
            if target == UNKNOWN:
                return UNKNOWN
            self.spoil(target)
            return DYN
        if rule == "member_index":
            target = self.resolved(self.walk(kids[0]))
            self.spoil(self.walk(kids[1]))
            if isinstance(target, ListOf):
                return target.elem
            return self._opaque([target], DYN)
        if rule == "list_lit":
            items = [self.walk(e) for e in kids[0].children] if kids else []
            return ListOf(self._join(items) if items else self.fresh())
        if rule == "map_lit":
            return self._opaque([self.walk(k) for k in kids[0].children] if kids else [], "map")
        if rule == "member_object":
            self.walk(kids[0])
            return DYN
        if rule == "ident_arg":
            return self._global(tree, str(kids[0]), kids[1].children if len(kids) > 1 else [])
        if rule == "dot_ident_arg":
            return self._opaque([self.walk(a) for a in kids[1].children] if len(kids) > 1 else [])
        if rule == "member_dot_arg":
            args = kids[2].children if len(kids) > 2 else []
            return self._member(kids[0], str(kids[1]), args)
        return self._opaque([self.walk(kid) for kid in kids])

    def _opaque(self, kinds: list[Any], otherwise: Any = DYN) -> Any:
        """What a call fedgate does not follow gives: of an argument typed by a ``T``, a type
        cel-go knows and fedgate does not (``T`` bound by the call's first overload)."""
        typed = any(_typed_by_t(k) for k in kinds)
        for kind in kinds:
            self.spoil(kind)
        return UNKNOWN if typed else otherwise

    def _operator(self, rule: str, kids: list[Any]) -> Any:
        """An operator's type: ``(A, A)`` or the first overload of ``(k, k)`` keeps or binds
        a ``T``; anything else about a ``T`` is not followed."""
        if rule in ("relation", "addition", "multiplication"):
            if len(kids) == 1:
                return self.walk(kids[0])
            left = self.resolved(self.walk(kids[0].children[0]))
            right = self.resolved(self.walk(kids[1]))
            if kids[0].data != "relation_in":  # (A, A), or the first overload of (k, k)
                if isinstance(left, Var) and right in _SCALARS:
                    self.bindings[left.id] = left = right
                elif isinstance(right, Var) and left in _SCALARS:
                    self.bindings[right.id] = right = left
                if left == right and (left in _SCALARS or isinstance(left, Var)):
                    return "bool" if rule == "relation" else left
            self.spoil(left)
            self.spoil(right)
            if rule == "relation":
                return "bool"
            return self._arithmetic(left, right)
        if len(kids) == 1:  # unary
            return self.walk(kids[0])
        inner = self.walk(kids[1])
        self.spoil(inner)
        if kids[0].data == "unary_not":
            return "bool"
        return self._arithmetic(inner)

    def _join(self, kinds: list[Any]) -> Any:
        """A list literal's or a conditional's type: one type kept, else ``dyn`` (cel-go
        binds a ``T`` to the other type: not followed)."""
        if all(k == kinds[0] for k in kinds):
            return kinds[0]
        return self._opaque(kinds)

    def _arithmetic(self, *kinds: Any) -> Any:
        if any(_typed_by_t(self.resolved(k)) for k in kinds):
            return UNKNOWN  # the first overload's result type: not followed
        return DYN

    def _global(self, tree: Any, name: str, args: list[Any]) -> Any:
        kinds = [self.walk(a) for a in args]
        if name in CONVERSIONS and len(args) == 1:
            kind = kinds[0]
            binding = self.bindings[kind.id] if isinstance(kind, Var) else kind
            if binding == FREE:  # the identity overload binds it
                self.bindings[kind.id] = name
                self._wrap(args[0], name, name)
            elif binding == UNKNOWN:
                self._wrap(args[0], name, None)
            elif isinstance(kind, Var):
                self._wrap(args[0], name, binding if binding in _TYPE_NAMES else None)
            return name
        if name in ("dyn", "type"):
            return DYN
        if name == "size":
            self._opaque(kinds)
            return "int"
        return self._opaque(kinds)

    def _wrap(self, arg: Any, conversion: str, accepts: str | None) -> None:
        start, end = _span(arg)
        self.wraps.append(Wrap(start, end, conversion, accepts))

    def _member(self, target_tree: Any, name: str, args: list[Any]) -> Any:
        if name in _MACROS and args and _is_ident(args[0]):
            return self._macro(target_tree, name, args)
        if name == "range" and _ident_name(target_tree) == "lists":
            self._opaque([self.walk(a) for a in args])
            return ListOf("int")
        target = self.resolved(self.walk(target_tree))
        kinds = [self.walk(a) for a in args]
        if name in _SOURCES:
            for kind in kinds:
                self.spoil(kind)
            if isinstance(target, ListOf):
                elem = self.resolved(target.elem)
                if name == "flatten":
                    if args:
                        return ListOf(DYN)
                    if isinstance(elem, ListOf):
                        return elem
                    self.spoil(elem)
                    return ListOf(self.fresh())
                return elem if name in ("first", "last") else target
            if target == UNKNOWN:
                return UNKNOWN if name in ("first", "last") else ListOf(UNKNOWN)
            self.spoil(target)
            if name == "flatten" and args:
                return ListOf(DYN)
            var = self.fresh()
            return var if name in ("first", "last") else ListOf(var)
        if name == "hasValue":
            return "bool"
        if name in _KEEPS and not (name == "orValue" and self.resolved(kinds[0]) != target):
            return target
        if name in _BINDS_INT and not args and isinstance(target, ListOf):
            elem = self.resolved(target.elem)
            if isinstance(elem, Var):
                self.bindings[elem.id] = "int"
                elem = "int"
            if name != "sort" and (elem == UNKNOWN or isinstance(target.elem, Var)):
                # one binding per overload: only the bound type's runs (its first element)
                start, end = _span(target_tree)
                accepts = elem if elem in _TYPE_NAMES else None
                self.wraps.append(Wrap(start, end, name, accepts, receiver=True))
            if name == "sort":
                return target
            return "bool" if name == "isSorted" else self.resolved(target.elem)
        result = self._opaque([target, *kinds])
        if name in _STRINGS_RESULTS:
            return ListOf("string")
        if name in _BOOL_RESULTS:
            return "bool"
        if name in _INT_RESULTS:
            return "int"
        return result

    def _macro(self, target_tree: Any, name: str, args: list[Any]) -> Any:
        target = self.resolved(self.walk(target_tree))
        names = [str(_ident_name(a)) for a in args[:-1] if _is_ident(a)]
        elem = target.elem if isinstance(target, ListOf) else DYN
        if not isinstance(target, ListOf):
            self.spoil(target)
        if len(names) > 1:  # (index, value) over a list, (key, value) over a map
            scope = {names[0]: "int" if isinstance(target, ListOf) else DYN, names[1]: elem}
        else:
            scope = {names[0]: elem}
        self.scopes.append(scope)
        try:
            bodies = [self.walk(a) for a in args[len(names) :]]
        finally:
            self.scopes.pop()
        if name in ("filter", "sortBy"):
            key = self.resolved(bodies[-1])
            if name == "sortBy" and isinstance(key, Var):
                self.bindings[key.id] = "int"  # @sortByAssociatedKeys' first overload
            else:
                self.spoil(bodies[-1])
            if isinstance(target, ListOf):
                return target
            opaque = self._opaque([target])  # cel-go's filter of a dyn is a list(dyn)
            return ListOf(DYN) if name == "filter" and opaque == DYN else opaque
        if name in ("map", "transformList"):  # a list of the transform's values
            for body in bodies[:-1]:
                self.spoil(body)
            return ListOf(bodies[-1])
        for body in bodies:
            self.spoil(body)
        return "bool"


def _typed_by_t(kind: Any) -> bool:
    """Whether ``kind`` is (or holds) a free ``T`` or a type fedgate does not follow."""
    if isinstance(kind, Var) or kind == UNKNOWN:
        return True
    if isinstance(kind, ListOf):
        return _typed_by_t(kind.elem)
    return False


def _is_ident(tree: Any) -> bool:
    return _ident_name(tree) is not None


def _ident_name(tree: Any) -> str | None:
    import lark  # noqa: PLC0415

    while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data != "ident":
        tree = tree.children[0]
    if isinstance(tree, lark.Tree) and tree.data == "ident":
        return str(tree.children[0])
    return None


def _literal_type(token: Any) -> str:
    return {
        "UINT_LIT": "uint",
        "FLOAT_LIT": "double",
        "INT_LIT": "int",
        "MLSTRING_LIT": "string",
        "STRING_LIT": "string",
        "BYTES_LIT": "bytes",
        "BOOL_LIT": "bool",
        "NULL_LIT": "null",
    }.get(token.type, DYN)


def _span(tree: Any) -> tuple[int, int]:
    return tree.meta.start_pos, tree.meta.end_pos


_BOOLS = re.compile(r"\b(?:true|false)\b")
_BOOL_WORDS = frozenset({"tru_", "fals_"})
"""``true`` and ``false`` as ``_parsable`` spells them."""
_OPTIONAL = re.compile(r"\[\s*\?|\.\s*\?|\{\s*\?|,\s*\?")


def _parsable(expression: str) -> str:
    """The expression with its optional syntax's ``?`` blanked (``a[?0]`` read as ``a[0]``,
    ``a.?f`` as ``a.f``) and ``true``/``false`` as identifiers ``tru_``/``fals_``: the same
    positions, the types this module follows the same."""
    masked = STRING_LITERAL.sub(lambda m: " " * len(m.group(0)), expression)
    out = list(expression)
    for match in _OPTIONAL.finditer(masked):
        out[match.end() - 1] = " "
    for match in _BOOLS.finditer(masked):  # a literal the lexer callback makes has no position
        out[match.end() - 1] = "_"
    return "".join(out)


def wraps(expression: str) -> list[Wrap]:
    """The conversions of ``expression`` to wrap (none when it cannot be parsed: the
    compiler words that)."""
    if not _WORDS.search(expression) or not _CONVERSION_WORDS.search(expression):
        return []
    import lark  # noqa: PLC0415

    try:
        tree = grammar.parse(_parsable(expression))
    except lark.exceptions.LarkError:
        return []
    checker = _Checker()
    checker.walk(tree)
    return checker.wraps


def checked(expression: str) -> str:
    """``expression`` with each conversion of a value typed ``T`` wrapped: ``string(a)`` ->
    ``string([a].map(fedgateTypeParam, type(fedgateTypeParam) == string ?
    dyn(fedgateTypeParam) : dyn(fedgateUnresolved('string', fedgateTypeParam)))[0])`` (a
    one-item ``map`` binds it, as ``rewrite`` binds), or
    ``string(dyn(fedgateUnresolved('string?', dyn(a))))`` where fedgate does not know
    ``T``'s type."""
    edits: list[tuple[int, int, str]] = []
    for wrap in wraps(expression):
        if wrap.accepts is None and not wrap.receiver:
            edits += [
                (wrap.start, wrap.start, f"dyn({UNRESOLVED}('{wrap.conversion}?', dyn("),
                (wrap.end, wrap.end, ")))"),
            ]
            continue
        edits += [
            (wrap.start, wrap.start, "["),
            (wrap.end, wrap.end, f"].map({BOUND}, {_checked_body(wrap)})[0]"),
        ]
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        expression = expression[:start] + text + expression[end:]
    return expression


def _checked_body(wrap: Wrap) -> str:
    """What a wrapped value, bound to ``BOUND``, is replaced with: itself where it is of the
    type ``T`` is bound to (a list function's receiver: empty, or its first element of that
    type, as cel-go's type guard checks it), else a failure."""
    value = f"{BOUND}[0]" if wrap.receiver else BOUND
    closed = "?" if wrap.accepts is None else ""
    failure = f"dyn({UNRESOLVED}('{wrap.conversion}{closed}', {value}))"
    accepted = "false" if wrap.accepts is None else f"type({value}) == {_TYPE_NAMES[wrap.accepts]}"
    if wrap.receiver:
        return f"size({BOUND}) == 0 || {accepted} ? {BOUND} : {failure}"
    return f"{accepted} ? dyn({BOUND}) : {failure}"
