"""Proving in Python that a CEL expression is true, without handing the object to an engine.

An admission rule mostly reads a few fields and compares them; the engine's cost is mostly in
converting the object into its own values (cel-expr: ~3,000 instructions per map entry, and
~11,000 per call back into Python for ``quantity``), not in the comparisons. For the part of
CEL the rules use, ``compile_proof`` translates the expression into one Python function over
the variables as they arrived (JSON values: dict, list, str, int, float, bool, None), and
``Proof.holds`` says whether the expression is certainly ``true``.

The contract is one-sided. ``holds`` returns True only when CEL evaluates the expression to
``true``; every other outcome (false, an error, a type CEL would convert or compare across, an
int outside int64, a value the translation is not sure of) is "not proven", and the engine
evaluates the expression as before: it alone words failures, reports errors and evaluates
messages. So that a True can be trusted, every operation takes exactly the operand types of
CEL's standard overloads (Python's ``True`` is not the int 1 here, ``1`` is not ``1.0``,
``'1'`` is not ``1``) and anything else raises ``Undecided``; ``&&``, ``||``, ``?:``, ``all``
and ``exists`` stop early only where CEL's result no longer depends on the rest (``false && x``
is false even when ``x`` is an error). Expressions outside the subset (arithmetic, ``map``,
``filter``, ``matches``, map literals, escapes in string literals, ...) get no proof at all
and always go to the engine.

Supported: literals (int, double, bool, null, strings without escapes, lists), the
variables, field selection, ``[]`` on maps and lists, ``has()``, ``!``, unary ``-``, ``&&``,
``||``, ``?:``, ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``all`` and ``exists``
over lists and maps, ``size``, ``string``, ``startsWith``, ``endsWith``, ``contains``,
``indexOf``, ``lastIndexOf`` (one argument), ``quantity``, ``isQuantity`` and the Quantity
member functions of ``library``.

Why generated source and not a tree of closures: a closure call per node costs more than
cel-expr's conversion saves (measured: 243k instructions for the six validations a Deployment
meets, against 186k for cel-expr); one function with the type tests inline costs a fraction.
The source is built only from the parser's tokens: field names are CEL identifiers, literals
go through ``repr``, so no text of the expression is ever executed as Python.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from lark import Token, Tree
from lark.exceptions import LarkError

from webhook.engine.cel import library

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class Undecided(Exception):
    """The translation cannot be sure what CEL would say: the engine decides."""


class Unsupported(Exception):
    """The expression uses CEL outside the subset: it gets no proof."""


@dataclass(frozen=True)
class Proof:
    """A translated expression: ``holds(variables)`` is True only when CEL says ``true``."""

    expression: str
    variables: frozenset[str]
    """The top-level variables the expression reads (``object``, ``tenant``, ...)."""
    source: str
    """The Python the expression became (for tests and for reading)."""
    _run: Callable[[dict[str, Any]], Any]

    def holds(self, variables: dict[str, Any]) -> bool:
        try:
            return self._run(variables) is True
        except Exception:  # Undecided, or anything unforeseen: not proven, never proven wrong
            return False


def compile_proof(expression: str, variables: Iterable[str]) -> Proof | None:
    """The proof of ``expression`` over the declared ``variables``; None outside the subset."""
    from celpy.celparser import CELParser  # noqa: PLC0415 - the parser is only needed here

    try:
        tree = CELParser().parse(expression)
        translator = _Translator(frozenset(variables))
        source = "\n".join(translator.function(tree))
        namespace: dict[str, Any] = dict(_RUNTIME)
        exec(compile(source, "<cel proof>", "exec"), namespace)  # built from tokens: see above
    except (Unsupported, LarkError, ValueError, RecursionError, SyntaxError, MemoryError):
        return None
    return Proof(expression, frozenset(translator.reads), source, namespace["proof"])


_WRAPPERS = frozenset(
    {
        *("expr", "conditionalor", "conditionaland", "relation", "addition"),
        *("multiplication", "unary", "member", "primary"),
    }
)


def _unwrap(tree: Any) -> Any:
    """The node below a chain of single-child precedence nodes."""
    while (
        isinstance(tree, Tree)
        and tree.data in _WRAPPERS
        and len(tree.children) == 1
        and isinstance(tree.children[0], Tree)
    ):
        tree = tree.children[0]
    return tree


# ---- what the generated code calls: exact CEL overloads, Undecided for anything else


def _undecided() -> Any:
    raise Undecided


def _int64(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise Undecided("an int outside int64")
    return value


def _equal(a: Any, b: Any) -> bool:
    """CEL ``==`` on two scalars of one type; anything else (lists, maps, int against double,
    a value against null) is the engine's to decide."""
    kind = type(a)
    if kind is not type(b):
        raise Undecided("== across types")
    if kind is str or kind is bool or kind is float or a is None:
        return bool(a == b)
    if kind is int:
        return _int64(a) == _int64(b)
    raise Undecided("== on a container")


def _ordered(a: Any, b: Any) -> tuple[Any, Any]:
    """The operands of ``<`` and friends: two ints, two doubles or two strings."""
    kind = type(a)
    if kind is not type(b) or (kind is not int and kind is not float and kind is not str):
        raise Undecided("ordering across types")
    if kind is int:
        _int64(a), _int64(b)
    return a, b


def _less(a: Any, b: Any) -> bool:
    a, b = _ordered(a, b)
    return bool(a < b)


def _at_most(a: Any, b: Any) -> bool:
    a, b = _ordered(a, b)
    return bool(a <= b)


def _in(element: Any, container: Any) -> bool:
    """CEL ``in``: a key of a map (strings only here), or an element equal to one of a list's."""
    if type(container) is dict:
        return _text(element) in container
    if type(container) is list:
        return any(_equal(element, item) for item in container)
    raise Undecided("in on a scalar")


def _index(value: Any, key: Any) -> Any:
    if type(value) is dict and type(key) is str and key in value:
        return value[key]
    if type(value) is list and type(key) is int and 0 <= key < len(value):
        return value[key]
    raise Undecided("no such key or index")


def _negate(value: Any) -> Any:
    if type(value) is int:
        return _int64(-_int64(value))
    if type(value) is float:
        return -value
    raise Undecided("negating a non-number")


def _size(value: Any) -> int:
    if type(value) is str or type(value) is list or type(value) is dict:
        return len(value)
    raise Undecided("size of a scalar")


def _string(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is int:
        return str(_int64(value))
    if kind is bool:
        return "true" if value else "false"
    raise Undecided("string() of this type")  # doubles: CEL's formatting is the engine's


def _text(value: Any) -> str:
    if type(value) is not str:
        raise Undecided("not a string")
    return str(value)


def _double(value: Any) -> float:
    if type(value) is not float:
        raise Undecided("not a double")
    return float(value)


def _items(value: Any) -> Any:
    """What a comprehension ranges over: a list's elements, a map's keys."""
    if type(value) is list or type(value) is dict:
        return value
    raise Undecided("a comprehension over a scalar")


_RUNTIME: dict[str, Any] = {
    "__builtins__": {"type": type, "dict": dict, "list": list, "str": str, "float": float},
    "_u": _undecided,
    "_equal": _equal,
    "_less": _less,
    "_at_most": _at_most,
    "_in": _in,
    "_index": _index,
    "_negate": _negate,
    "_size": _size,
    "_string": _string,
    "_double": _double,
    "_quantity": library.quantity,  # raises LibraryError: holds() reads any error as unproven
    "_is_quantity": library.is_quantity,
    **{f"_m_{name}": impl for name, (impl, _) in library.MEMBER_FUNCTIONS.items()},
    **{f"_m_{name}": impl for name, (impl, _) in library.UNARY_MEMBER_FUNCTIONS.items()},
}
_STRING_METHODS = {
    "startsWith": "startswith",
    "endsWith": "endswith",
    "indexOf": "find",
    "lastIndexOf": "rfind",
}


class _Translator:
    """CEL parse tree -> one Python function. Every operand is evaluated once, into a fresh
    temporary (``_tN``), and type-tested inline where CEL's overloads require a type; the
    common case (a string, a map, a double) is tested in place and anything else goes to the
    exact helper above. A comprehension becomes a local function with a ``for`` loop."""

    def __init__(self, variables: frozenset[str]) -> None:
        self.variables = variables
        self.reads: set[str] = set()
        self.bound: list[str] = []  # comprehension variables in scope
        self.blocks: list[list[str]] = [[]]  # the local functions of each enclosing function
        self._names = itertools.count()

    def function(self, tree: Any) -> list[str]:
        """The source of ``proof(scope)``, which returns the value of ``tree``."""
        body = self.node(tree)
        return [
            "def proof(scope):",
            *(f"    v_{name} = scope[{name!r}]" for name in sorted(self.reads)),
            *(f"    {line}" for line in self.blocks[0]),
            f"    return {body}",
        ]

    def temporary(self) -> str:
        return f"_t{next(self._names)}"

    def node(self, tree: Any) -> str:
        tree = _unwrap(tree)
        if not isinstance(tree, Tree):
            raise Unsupported(repr(tree))
        handler = getattr(self, f"_{tree.data}", None)
        if handler is None:
            raise Unsupported(str(tree.data))
        code: str = handler(tree.children)
        return code

    def boolean(self, tree: Any) -> tuple[str, str]:
        """(the test that the operand is true, its temporary): true, false, or Undecided."""
        value = self.temporary()
        return f"({value} := {self.node(tree)}) is True", value

    def checked_bool(self, tree: Any) -> str:
        value = self.temporary()
        return f"({value} if ({value} := {self.node(tree)}) is True or {value} is False else _u())"

    def pair(self, left_tree: Any, right_tree: Any) -> tuple[str, str, str, str]:
        """Both operands evaluated, left first: (the test that their types are the same, the
        type's temporary, left's temporary, right's temporary)."""
        left, right, kind = self.temporary(), self.temporary(), self.temporary()
        same = (
            f"({kind} := type({left} := {self.node(left_tree)})) "
            f"is type({right} := {self.node(right_tree)})"
        )
        return same, kind, left, right

    # ---- operators, loosest first

    def _expr(self, children: list[Any]) -> str:
        condition, value = self.boolean(children[0])
        then, otherwise = self.node(children[1]), self.node(children[2])
        return f"({then} if {condition} else {otherwise} if {value} is False else _u())"

    def _conditionalor(self, children: list[Any]) -> str:
        left, value = self.boolean(children[0])
        right = self.checked_bool(children[1])
        return f"(True if {left} else {right} if {value} is False else _u())"

    def _conditionaland(self, children: list[Any]) -> str:
        left, value = self.boolean(children[0])
        right = self.checked_bool(children[1])
        return f"({right} if {left} else False if {value} is False else _u())"

    def _relation(self, children: list[Any]) -> str:
        operator, right_tree = children
        left_tree, kind = operator.children[0], operator.data
        if kind == "relation_in":
            return self._in(left_tree, right_tree)
        if kind in ("relation_gt", "relation_ge"):  # a > b is b < a; CEL evaluates both anyway
            left_tree, right_tree = right_tree, left_tree
        same, type_, left, right = self.pair(left_tree, right_tree)
        if kind in ("relation_eq", "relation_ne"):
            test = f"({left} == {right} if {same} and {type_} is str else _equal({left}, {right}))"
            return test if kind == "relation_eq" else f"(not {test})"
        helper, python = {
            "relation_lt": ("_less", "<"),
            "relation_gt": ("_less", "<"),
            "relation_le": ("_at_most", "<="),
            "relation_ge": ("_at_most", "<="),
        }.get(kind, ("", ""))
        if not helper:
            raise Unsupported(str(kind))
        return (
            f"({left} {python} {right} if {same} and ({type_} is float or {type_} is str) "
            f"else {helper}({left}, {right}))"
        )

    def _in(self, element_tree: Any, container_tree: Any) -> str:
        element, container = self.temporary(), self.temporary()
        return (
            f"({element} in {container} if type({element} := {self.node(element_tree)}) is str "
            f"and type({container} := {self.node(container_tree)}) is dict "
            f"else _in({self.node(element_tree)}, {self.node(container_tree)}))"
        )  # the operands are pure: evaluating them again on the rare path changes nothing

    def _unary(self, children: list[Any]) -> str:
        operator, operand = children
        if operator.data == "unary_not":
            test, value = self.boolean(operand)
            return f"(False if {test} else True if {value} is False else _u())"
        if operator.data == "unary_neg":
            return f"_negate({self.node(operand)})"
        raise Unsupported(str(operator.data))

    # ---- members and calls

    def _member_dot(self, children: list[Any]) -> str:
        target, name = self.node(children[0]), repr(str(children[1]))
        value = self.temporary()
        return (
            f"({value}[{name}] if type({value} := {target}) is dict and {name} in {value} "
            "else _u())"
        )

    def _member_index(self, children: list[Any]) -> str:
        value, key = self.temporary(), self.temporary()
        target, index = self.node(children[0]), self.node(children[1])
        return (
            f"({value}[{key}] if (type({value} := {target}) is dict) "
            f"& (type({key} := {index}) is str) and {key} in {value} "
            f"else _index({value}, {key}))"
        )  # & (not and): both are evaluated, so the rare path has both

    def _member_dot_arg(self, children: list[Any]) -> str:
        target_tree, method = children[0], str(children[1])
        arguments = children[2].children if len(children) > 2 and children[2] is not None else []
        if method in ("all", "exists"):
            return self._comprehension(method, target_tree, arguments)
        target = self.node(target_tree)
        calls = [self.node(a) for a in arguments]
        if method == "size" and not calls:
            return f"_size({target})"
        if (method in _STRING_METHODS or method == "contains") and len(calls) == 1:
            text, other = self.temporary(), self.temporary()
            call = (
                f"{other} in {text}"
                if method == "contains"
                else f"{text}.{_STRING_METHODS[method]}({other})"
            )
            return (
                f"({call} if type({text} := {target}) is str "
                f"and type({other} := {calls[0]}) is str else _u())"
            )
        if method in library.MEMBER_FUNCTIONS and len(calls) == 1:
            return f"_m_{method}(_double({target}), _double({calls[0]}))"
        if method in library.UNARY_MEMBER_FUNCTIONS and not calls:
            return f"_m_{method}(_double({target}))"
        raise Unsupported(f"method {method}")

    def _comprehension(self, macro: str, target_tree: Any, arguments: list[Any]) -> str:
        """``all``: false on the first false, true when every element gives true; ``exists``:
        true on the first true, false when every element gives false. A map gives its keys.
        Anything else (an error, a non-bool, a scalar to range over) is Undecided."""
        if len(arguments) != 2:
            raise Unsupported(f"{macro} with {len(arguments)} arguments")
        variable = _unwrap(arguments[0])
        if not (isinstance(variable, Tree) and variable.data == "ident"):
            raise Unsupported(f"{macro} over a non-identifier")
        name = str(variable.children[0])
        target = self.node(target_tree)
        self.bound.append(name)
        self.blocks.append([])
        try:
            predicate = self.node(arguments[1])
        finally:
            self.bound.pop()
            nested = self.blocks.pop()
        function, stop = f"_c{next(self._names)}", "False" if macro == "all" else "True"
        self.blocks[-1].extend(
            [
                f"def {function}(items):",
                *(f"    {line}" for line in nested),
                "    if type(items) is not list and type(items) is not dict:",
                "        _u()",
                f"    for v_{name} in items:",
                f"        if (result := {predicate}) is {stop}:",
                f"            return {stop}",
                "        if result is not True and result is not False:",
                "            _u()",
                f"    return not {stop}",
            ]
        )
        return f"{function}({target})"

    def _ident_arg(self, children: list[Any]) -> str:
        function = str(children[0])
        arguments = children[1].children if len(children) > 1 and children[1] is not None else []
        if function == "has":
            return self._has(arguments)
        if len(arguments) != 1:
            raise Unsupported(f"function {function} with {len(arguments)} arguments")
        argument, value = self.node(arguments[0]), self.temporary()
        if function == "string":
            return f"({value} if type({value} := {argument}) is str else _string({value}))"
        if function in ("quantity", "isQuantity"):
            call = "_quantity" if function == "quantity" else "_is_quantity"
            return f"({call}({value}) if type({value} := {argument}) is str else _u())"
        if function == "size":
            return f"_size({argument})"
        raise Unsupported(f"function {function}")

    def _has(self, arguments: list[Any]) -> str:
        selection = _unwrap(arguments[0]) if len(arguments) == 1 else None
        if not (isinstance(selection, Tree) and selection.data == "member_dot"):
            raise Unsupported("has() of something other than a field selection")
        target, name = self.node(selection.children[0]), repr(str(selection.children[1]))
        value = self.temporary()
        return f"({name} in {value} if type({value} := {target}) is dict else _u())"

    # ---- primaries

    def _ident(self, children: list[Any]) -> str:
        name = str(children[0])
        if name not in self.bound:
            if name not in self.variables:
                raise Unsupported(f"unknown identifier {name}")
            self.reads.add(name)
        return f"v_{name}"

    def _paren_expr(self, children: list[Any]) -> str:
        return self.node(children[0])

    def _list_lit(self, children: list[Any]) -> str:
        items = [self.node(c) for c in children[0].children] if children and children[0] else []
        return f"[{', '.join(items)}]"

    def _literal(self, children: list[Any]) -> str:
        return repr(_literal(children[0]))


def _literal(token: Token) -> Any:
    kind, text = token.type, str(token)
    if kind == "INT_LIT":
        return _int_literal(text)
    if kind == "FLOAT_LIT":
        return float(text)
    if kind == "BOOL_LIT":
        return text == "true"
    if kind == "NULL_LIT":
        return None
    if kind == "STRING_LIT":
        raw = text[:1] in ("r", "R")
        body = text[2:-1] if raw else text[1:-1]
        if not raw and "\\" in body:
            raise Unsupported("a string literal with escapes")
        return body
    raise Unsupported(f"a {kind} literal")


def _int_literal(text: str) -> int:
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 10)
    value = -value if negative else value
    if value < INT64_MIN or value > INT64_MAX:
        raise Unsupported("an int literal outside int64")
    return value
