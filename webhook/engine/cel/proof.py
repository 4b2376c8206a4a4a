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
over lists and maps, ``size``, ``dyn``, ``string``, ``startsWith``, ``endsWith``, ``contains``,
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lark import Token, Tree
from lark.exceptions import LarkError

from webhook.engine.cel import grammar, library
from webhook.engine.cel.bound import Plan, beneath
from webhook.engine.cel.replay import Plans, Together, plans_fit
from webhook.engine.cel.values import INT64_MAX, INT64_MIN


class Undecided(Exception):
    """The translation cannot be sure what CEL would say: the engine decides."""


class Unsupported(Exception):
    """The expression uses CEL outside the subset: it gets no proof."""


@dataclass(frozen=True)
class Proof:
    """Translated expressions: ``holds(variables)`` is True only when CEL says ``true`` of
    every one of them."""

    expressions: tuple[str, ...]
    variables: frozenset[str]
    """The top-level variables the expressions read (``object``, ``tenant``, ...)."""
    source: str
    """The Python they became (for tests and for reading)."""
    _run: Callable[[dict[str, Any]], Any]
    plans: tuple[Plan | None, ...] = ()
    """The expressions' cost bounds: a proof answers only where the API server would finish
    every expression within its cost limits (``replay.plans_fit``); elsewhere the engine
    decides, and may stop where the API server stops."""

    def holds(self, variables: dict[str, Any], fits: bool | None = None) -> bool:
        """``fits``: ``plans_fit`` of its plans on ``variables`` where it is known already
        (``fit_together``); None: found here."""
        if self.plans and not (plans_fit(self.plans, variables) if fits is None else fits):
            return False
        try:
            return self._run(variables) is True
        except Exception:  # Undecided, or anything unforeseen: not proven, never proven wrong
            return False


def fit_together(proofs: Sequence[Proof], variables: dict[str, Any]) -> tuple[bool, ...]:
    """``plans_fit`` of these proofs' plans (each a ``Plans``) on one activation, in order,
    answered together (``replay.Together``, kept per tuple of proofs): each proof's
    ``holds(variables, fits)`` then answers without a replay of its own."""
    key = tuple(map(id, proofs))
    kept = _TOGETHER.get(key)
    if kept is None or any(a is not b for a, b in zip(kept[0], proofs, strict=True)):
        if len(_TOGETHER) > 256:
            _TOGETHER.clear()  # only speed is lost
        plans = [p.plans for p in proofs if isinstance(p.plans, Plans)]
        if len(plans) != len(proofs):
            raise ValueError("fit_together: a proof without its Plans")
        kept = _TOGETHER[key] = (tuple(proofs), Together(plans))
    return kept[1].fit(variables)


_TOGETHER: dict[tuple[int, ...], tuple[tuple[Proof, ...], Together]] = {}
"""By the proofs' ids, with the proofs (kept alive: an id is not another's while here)."""


def compile_proof(
    expressions: str | Sequence[str],
    variables: Iterable[str],
    faults: list[str] | None = None,
) -> Proof | None:
    """One proof that every expression is true, over the declared ``variables`` (one function
    for a rule's conditions and validations: one call per rule); None when any expression is
    outside the subset. A failure that is not one of those (a bug of the translation) is
    appended to ``faults`` too, so it is seen rather than taken for 'outside the subset'."""
    texts = (expressions,) if isinstance(expressions, str) else tuple(expressions)
    try:
        trees = [grammar.parse(text) for text in texts]
        translator = _Translator(frozenset(variables))
        source = "\n".join(translator.function(trees))
        namespace: dict[str, Any] = dict(_RUNTIME)
        exec(compile(source, "<cel proof>", "exec"), namespace)  # built from tokens: see above
    except (Unsupported, LarkError, RecursionError):  # outside the subset, unparsable, too deep
        return None  # no proof, and the engine stays authoritative
    except Exception as exc:  # a translation that fails: no proof either, but a bug to see
        if faults is not None:
            faults.append(f"proof: {type(exc).__name__}: {exc}"[:300])
        return None
    plans = Plans(Plan(tree) for tree in trees)
    return Proof(texts, frozenset(translator.reads), source, namespace["proof"], plans)


_WRAPPERS = frozenset(
    {
        *("expr", "conditionalor", "conditionaland", "relation", "addition"),
        *("multiplication", "unary", "member", "primary"),
    }
)


def _unwrap(tree: Any) -> Any:
    """The node below a chain of single-child precedence nodes."""
    return beneath(tree, _WRAPPERS)


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
    if kind is str or kind is bool or kind is float or a is None or kind is library.Quantity:
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


def _unequal(a: Any, b: Any) -> bool:
    return not _equal(a, b)


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


_QUANTITY_COMPARISONS = ("isLessThan", "isGreaterThan", "compareTo")
"""The Quantity member functions with a Quantity operand and a plain result (``add``, ``sub``
and ``mul`` make Quantities: the engine's)."""

_RUNTIME: dict[str, Any] = {
    "__builtins__": {
        "type": type,
        **{kind.__name__: kind for kind in (dict, list, str, int, float, bool)},
    },
    "_u": _undecided,
    "_equal": _equal,
    "_unequal": _unequal,
    "_less": _less,
    "_at_most": _at_most,
    "_in": _in,
    "_index": _index,
    "_negate": _negate,
    "_size": _size,
    "_string": _string,
    "_quantity": library.quantity,  # raises LibraryError: holds() reads any error as unproven
    "_is_quantity": library.is_quantity,
    "_Quantity": library.Quantity,
    **{f"_m_{name}": library.QUANTITY_MEMBERS[name][0] for name in _QUANTITY_COMPARISONS},
    **{f"_m_{name}": impl for name, (impl, _) in library.QUANTITY_UNARY.items()},
}
_STRING_METHODS = {
    "startsWith": "startswith",
    "endsWith": "endswith",
    "indexOf": "find",
    "lastIndexOf": "rfind",
}


Code = tuple[str, str | None]
"""Generated Python for one CEL node, and its CEL type when it is certain: ``bool``, ``int``
(always within int64), ``double``, ``string``, ``null``, ``list:<element type>`` (a list
literal; ``list:`` when its elements differ); None when only the data will tell (a field, a
comprehension variable over data)."""

_PYTHON_TYPES = {
    "bool": "bool",
    "int": "int",
    "double": "float",
    "string": "str",
    "quantity": "_Quantity",
}
_INT_RANGE = f"{INT64_MIN} <= {{0}} <= {INT64_MAX}"


class _Translator:
    """CEL parse tree -> one Python function. Every operand is evaluated once, into a fresh
    temporary (``_tN``), and type-tested where CEL's overloads require a type and the type is
    not already certain from what produced it (a comparison gives a bool, ``size`` an int...).

    Field selection is a plain subscript: on JSON values, ``x['f']`` raises unless ``x`` is a
    map with the key (a list, a string, a number, a bool and null all refuse a string
    subscript), which is CEL's rule. A comprehension becomes a local function with a loop."""

    def __init__(self, variables: frozenset[str]) -> None:
        self.variables = variables
        self.reads: set[str] = set()
        self.bound: list[tuple[str, str | None]] = []  # comprehension variables, their types
        self.blocks: list[list[str]] = [[]]  # the local functions of each enclosing function
        self._names = itertools.count()

    def function(self, trees: Sequence[Any]) -> list[str]:
        """The source of ``proof(scope)``: True when every tree is true, False when one is
        false, Undecided otherwise (left to right, as the engine would find a failure)."""
        if not trees:
            raise Unsupported("nothing to prove")
        body = " and ".join(self.typed(tree, "bool") for tree in trees)
        return [
            "def proof(scope):",
            *(f"    v_{name} = scope[{name!r}]" for name in sorted(self.reads)),
            *(f"    {line}" for line in self.blocks[0]),
            f"    return {body}",
        ]

    def temporary(self) -> str:
        return f"_t{next(self._names)}"

    def node(self, tree: Any) -> Code:
        tree = _unwrap(tree)
        if not isinstance(tree, Tree):
            raise Unsupported(repr(tree))
        handler = getattr(self, f"_{tree.data}", None)
        if handler is None:
            raise Unsupported(str(tree.data))
        code: Code = handler(tree.children)
        return code

    def typed(self, tree: Any, kind: str) -> str:
        """The operand as a value of CEL type ``kind``, or Undecided."""
        return self.coerce(self.node(tree), kind)

    def coerce(self, generated: Code, kind: str) -> str:
        code, known = generated
        if known == kind:
            return code
        value = self.temporary()
        if kind == "bool":
            return f"({value} if ({value} := {code}) is True or {value} is False else _u())"
        test = f"type({value} := {code}) is {_PYTHON_TYPES[kind]}"
        if kind == "int":
            test += " and " + _INT_RANGE.format(value)
        return f"({value} if {test} else _u())"

    def condition(self, tree: Any) -> tuple[str, str | None]:
        """(a Python test that the operand is true, the temporary that holds it when it must
        still be told from false: None when it is certainly a bool)."""
        code, known = self.node(tree)
        if known == "bool":
            return code, None
        value = self.temporary()
        return f"({value} := {code}) is True", value

    @staticmethod
    def unless_false(value: str | None, result: str) -> str:
        """``result`` when the operand in ``value`` was false (it was not true); Undecided when
        it was not a bool at all."""
        return result if value is None else f"({result} if {value} is False else _u())"

    # ---- operators, loosest first

    def _expr(self, children: list[Any]) -> Code:
        test, value = self.condition(children[0])
        (then, then_kind), (other, other_kind) = self.node(children[1]), self.node(children[2])
        code = f"({then} if {test} else {self.unless_false(value, other)})"
        return code, then_kind if then_kind == other_kind else None

    def _conditionalor(self, children: list[Any]) -> Code:
        test, value = self.condition(children[0])
        right = self.typed(children[1], "bool")
        return f"(True if {test} else {self.unless_false(value, right)})", "bool"

    def _conditionaland(self, children: list[Any]) -> Code:
        test, value = self.condition(children[0])
        right = self.typed(children[1], "bool")
        return f"({right} if {test} else {self.unless_false(value, 'False')})", "bool"

    def _relation(self, children: list[Any]) -> Code:
        operator, right_tree = children
        left_tree, kind = operator.children[0], operator.data
        if kind == "relation_in":
            return self._in(left_tree, right_tree), "bool"
        if kind in ("relation_gt", "relation_ge"):  # a > b is b < a; CEL evaluates both anyway
            left_tree, right_tree = right_tree, left_tree
        python = {
            "relation_eq": "==",
            "relation_ne": "!=",
            "relation_lt": "<",
            "relation_gt": "<",
            "relation_le": "<=",
            "relation_ge": "<=",
        }.get(kind)
        if python is None:
            raise Unsupported(str(kind))
        helper = {"==": "_equal", "!=": "_unequal", "<": "_less", "<=": "_at_most"}[python]
        left, right = self.node(left_tree), self.node(right_tree)
        allowed = ("string", "int", "double") + (("bool",) if python in ("==", "!=") else ())
        if left[1] == right[1] and left[1] in allowed:
            return f"({left[0]} {python} {right[0]})", "bool"
        if right[1] in allowed and left[1] is None:  # one side certain: test the other's type
            return f"({self.coerce(left, right[1])} {python} {right[0]})", "bool"
        if left[1] in allowed and right[1] is None:
            return f"({left[0]} {python} {self.coerce(right, left[1])})", "bool"
        return f"{helper}({left[0]}, {right[0]})", "bool"

    def _in(self, element_tree: Any, container_tree: Any) -> str:
        (element, element_kind), (container, _) = (
            self.node(element_tree),
            self.node(container_tree),
        )
        if element_kind != "string":
            return f"_in({element}, {container})"
        value = self.temporary()
        return (
            f"({element} in {value} if type({value} := {container}) is dict "
            f"else _in({element}, {value}))"
        )

    def _unary(self, children: list[Any]) -> Code:
        operator, operand = children
        if operator.data == "unary_not":
            test, value = self.condition(operand)
            if value is None:
                return f"(not {test})", "bool"
            return f"(False if {test} else {self.unless_false(value, 'True')})", "bool"
        if operator.data == "unary_neg":
            code, kind = self.node(operand)
            return f"_negate({code})", kind if kind in ("int", "double") else None
        raise Unsupported(str(operator.data))

    # ---- members and calls

    def _member_dot(self, children: list[Any]) -> Code:
        target, _ = self.node(children[0])
        return f"{target}[{str(children[1])!r}]", None

    def _member_index(self, children: list[Any]) -> Code:
        (target, _), (index, index_kind) = self.node(children[0]), self.node(children[1])
        if index_kind == "string":  # a map's key; a list or a string refuses it
            value = self.temporary()
            return f"({value}[{index}] if type({value} := {target}) is dict else _u())", None
        return f"_index({target}, {index})", None

    def _member_dot_arg(self, children: list[Any]) -> Code:
        target_tree, method = children[0], str(children[1])
        arguments = children[2].children if len(children) > 2 and children[2] is not None else []
        if method in ("all", "exists"):
            return self._comprehension(method, target_tree, arguments), "bool"
        if method == "size" and not arguments:
            return f"_size({self.node(target_tree)[0]})", "int"
        if (method in _STRING_METHODS or method == "contains") and len(arguments) == 1:
            text, other = self.typed(target_tree, "string"), self.typed(arguments[0], "string")
            if method == "contains":
                return f"({other} in {text})", "bool"
            kind = "bool" if method in ("startsWith", "endsWith") else "int"
            return f"{text}.{_STRING_METHODS[method]}({other})", kind
        if method in _QUANTITY_COMPARISONS and len(arguments) == 1:
            left = self.typed(target_tree, "quantity")
            right = self.typed(arguments[0], "quantity")
            return f"_m_{method}({left}, {right})", library.QUANTITY_MEMBERS[method][2]
        if method in library.QUANTITY_UNARY and not arguments:
            result = library.QUANTITY_UNARY[method][1]  # an int result is within int64
            return f"_m_{method}({self.typed(target_tree, 'quantity')})", result
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
        target, target_kind = self.node(target_tree)
        element = (
            target_kind[len("list:") :] if target_kind and target_kind.startswith("list:") else None
        )
        self.bound.append((name, element))
        self.blocks.append([])
        try:
            predicate = self.typed(arguments[1], "bool")
        finally:
            self.bound.pop()
            nested = self.blocks.pop()
        function = f"_c{next(self._names)}"
        stop = f"if not {predicate}:" if macro == "all" else f"if {predicate}:"
        self.blocks[-1].extend(
            [
                f"def {function}(items):",
                *(f"    {line}" for line in nested),
                "    if type(items) is not list and type(items) is not dict:",
                "        _u()",
                f"    for v_{name} in items:",
                f"        {stop}",
                f"            return {macro == 'exists'}",
                f"    return {macro == 'all'}",
            ]
        )
        return f"{function}({target})"

    def _ident_arg(self, children: list[Any]) -> Code:
        function = str(children[0])
        arguments = children[1].children if len(children) > 1 and children[1] is not None else []
        if function == "has":
            return self._has(arguments), "bool"
        if len(arguments) != 1:
            raise Unsupported(f"function {function} with {len(arguments)} arguments")
        if function == "dyn":  # the identity at run time; only the type checker reads it
            return self.node(arguments[0])[0], None
        if function == "string":
            code, kind = self.node(arguments[0])
            if kind == "string":
                return code, "string"
            value = self.temporary()
            return f"({value} if type({value} := {code}) is str else _string({value}))", "string"
        if function == "quantity":
            return f"_quantity({self.typed(arguments[0], 'string')})", "quantity"
        if function == "isQuantity":
            return f"_is_quantity({self.typed(arguments[0], 'string')})", "bool"
        if function == "size":
            return f"_size({self.node(arguments[0])[0]})", "int"
        raise Unsupported(f"function {function}")

    def _has(self, arguments: list[Any]) -> str:
        selection = _unwrap(arguments[0]) if len(arguments) == 1 else None
        if not (isinstance(selection, Tree) and selection.data == "member_dot"):
            raise Unsupported("has() of something other than a field selection")
        target, _ = self.node(selection.children[0])
        name, value = repr(str(selection.children[1])), self.temporary()
        return f"({name} in {value} if type({value} := {target}) is dict else _u())"

    # ---- primaries

    def _ident(self, children: list[Any]) -> Code:
        name = str(children[0])
        for bound, kind in reversed(self.bound):  # the innermost comprehension's, if any
            if bound == name:
                return f"v_{name}", kind
        if name not in self.variables:
            raise Unsupported(f"unknown identifier {name}")
        self.reads.add(name)
        return f"v_{name}", None

    def _paren_expr(self, children: list[Any]) -> Code:
        return self.node(children[0])

    def _list_lit(self, children: list[Any]) -> Code:
        items = [self.node(c) for c in children[0].children] if children and children[0] else []
        kinds = {kind for _, kind in items}
        element = kinds.pop() if len(kinds) == 1 else None
        return f"[{', '.join(code for code, _ in items)}]", f"list:{element or ''}"

    def _literal(self, children: list[Any]) -> Code:
        value = _literal(children[0])
        kind = {bool: "bool", int: "int", float: "double", str: "string"}.get(type(value), "null")
        return repr(value), kind


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
