"""An upper bound of one CEL evaluation's Kubernetes cost, from the sizes of the variables it
is given: which engine may run it (``routed.py``) and whether a proof may answer for it.

cel-expr cannot count cost (cel-cpp has no tracker). Before an evaluation, ``Plan.bound``
walks the expression once with the sizes of what it reads: the variables' values (a string's
length, a list's, a map's), literals by their text, and what each function can make of them.
Each step is charged as ``cost.py`` charges it, by the largest size its operands can have: a
comprehension costs its range, ``size x body`` and its macro's steps; a size-proportional
function its formula on the operands' largest sizes. It follows cel-go's expansions of the
macros cel-python has not (two-variable comprehensions, ``cel.bind``, ``sortBy``, ``optMap``),
optional syntax read as its plain form (``without_optional_syntax``), the optional, math and
format libraries and ``format()``. Where the walk cannot bound a construct (an unknown
function, ``lists.range`` of a count it has no top for, ``flatten`` to a computed depth,
``format()`` of a computed format string) the answer is None: unbounded.

Two walks, the second only when the first does not fit: ``static`` with every variable standing
for any value whose JSON is at most the activation's size (one walk per expression and size
bucket, cached), then ``exact`` with the variables' own values (their lengths, and for a
comprehension the largest of its items). The exact walk reads a value only where the
expression reads it: either side of a conditional of two request values (``Either``), a short
list's items and a small map's entries one by one; a longer one is summarised whole, once per
activation. A plan keeps its recent exact walks with what each read (``Sizes.replays``), and a
proof's plans their joint answer (``Plans``): a request that reads alike gets it back.

Pure: no engine here, nothing evaluated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from webhook.base import forksafe
from webhook.engine.cel import cost


class Unbounded(Exception):
    """A construct the walk does not follow: no bound."""


@dataclass(frozen=True)
class Bound:
    """At most ``cost`` (Kubernetes' count) and ``iterations`` comprehension bodies run."""

    cost: int
    iterations: int


_NO_VALUE = object()
NO_VALUE = _NO_VALUE
"""What a place without a value answers: unlike any answer."""


class Shape:
    """What a value can be, as far as cost goes: ``size`` bounds its ``size()`` (a string's
    code points, a list's items, a map's entries; 1 for a scalar), ``weight`` its Kubernetes
    traversal cost; ``item()`` is a shape of each element (a map's keys and values), ``field``
    of a map's entry by name. ``value``: the value itself when one constant (an int literal)."""

    size: int
    value: Any = _NO_VALUE
    top: int | None = None
    """An int's largest value, where the walk knows one (a literal, a ``size()``)."""
    text: str | None = None
    """A string literal's source text (quotes and all)."""

    @property
    def weight(self) -> int:
        raise NotImplementedError

    def item(self) -> Shape:
        raise NotImplementedError

    def field(self, name: str) -> Shape:
        raise NotImplementedError

    def index(self, key: Shape) -> Shape:
        return self.item()


class Abstract(Shape):
    """A bound of values: ``items`` (None: scalars) and ``fields`` by name (others: ``items``)."""

    def __init__(
        self,
        size: int,
        items: Shape | None = None,
        fields: Mapping[str, Shape] | None = None,
        weight: int | None = None,
        *,
        value: Any = _NO_VALUE,
        top: int | None = None,
        text: str | None = None,
    ) -> None:
        self.size = max(size, 1)
        self._items = items
        self._fields = fields or {}
        self._weight = weight
        self.value = value
        self.top = value if top is None and isinstance(value, int) else top
        self.text = text

    @property
    def weight(self) -> int:
        if self._weight is None:  # a list of ``size`` items, or a map of as many pairs
            self._weight = self.size * 2 * (self._items.weight if self._items else 1)
        return self._weight

    def item(self) -> Shape:
        return self._items if self._items is not None else SMALL

    def field(self, name: str) -> Shape:
        found = self._fields.get(name)
        return found if found is not None else self.item()


class _Any(Shape):
    """Any value whose JSON is at most ``size`` bytes, and so is every part of it."""

    def __init__(self, size: int) -> None:
        self.size = max(size, 1)

    @property
    def weight(self) -> int:
        return self.size

    def item(self) -> Shape:
        return self

    def field(self, name: str) -> Shape:
        return self


SMALL = Abstract(1, weight=1)
"""A scalar (a bool, a number, null, an error): size 1."""
OPAQUE = Abstract(17, weight=17)
"""An IP (16 bytes), a CIDR (17), a Quantity, a semver: Kubernetes' ``Size()`` at most 17."""


class Known(Shape):
    """A value the evaluation will be given: its own sizes, its items' largest. Every answer it
    gives the walk is written down in ``log`` with the value's ``path`` from its variable (an
    exact walk's trace, which ``Sizes.replays`` checks against another activation)."""

    def __init__(self, value: Any, sizes: Sizes, path: Path, log: Log) -> None:
        self._value, self._sizes, self._path, self._log = value, sizes, path, log
        self._size: tuple[int, int | None] | None = None

    def _sized(self) -> tuple[int, int | None]:
        """The value's size and int value, written down when the walk first reads either (a
        value the walk only passes through, ``object.spec``, asks nothing of the request)."""
        if self._size is None:
            self._size = _answer(self._value, "size", None, self._sizes)
            self._log.append(((self._path, "size", None), self._size))
        return self._size

    @property
    def size(self) -> int:  # type: ignore[override]
        return self._sized()[0]

    @property
    def value(self) -> Any:
        number = self._sized()[1]
        return _NO_VALUE if number is None else number

    @property
    def top(self) -> int | None:  # type: ignore[override]
        return self._sized()[1]

    @property
    def weight(self) -> int:
        if _container(self._value):
            return self.summary().weight
        found: int = _answer(self._value, "weight", None, self._sizes)
        self._log.append(((self._path, "weight", None), found))
        return found

    def item(self) -> Shape:
        """Each of a short list's items as itself, a small map's keys (by their text) and
        values as themselves (their ``Either``: a pod's one container, its requests, are read
        where the walk reads them, not summarised whole), else the summary's item."""
        few = _answer(self._value, "few", None, self._sizes)
        self._log.append(((self._path, "few", None), few))
        if type(few) is tuple:
            keys = [summary(key, self._sizes.memo) for key in few]
            return join_all([*keys, *(self._child(("field", key), True) for key in few)])
        if few:
            return join_all([self._child(("index", at), "child") for at in range(few)])
        return self.summary().item()

    def summary(self) -> Shape:
        """``summary`` of the value (its fingerprint written down)."""
        made = summary(self._value, self._sizes.memo)
        self._log.append(((self._path, "summary", None), _interned(self._sizes.fingerprint(made))))
        return made

    def _child(self, step: tuple[str, Any], answer: Any) -> Shape:
        self._log.append(((self._path, *step), answer))
        if answer is not True and answer != "child":
            return SMALL if answer != "item" else self.item()
        child = self._value[step[1]]
        return Known(child, self._sizes, (*self._path, step), self._log)

    def field(self, name: str) -> Shape:  # a field of a scalar or a list: an error (SMALL)
        return self._child(("field", name), _answer(self._value, "field", name, self._sizes))

    def index(self, key: Shape) -> Shape:
        wanted = key.value
        return self._child(("index", wanted), _answer(self._value, "index", wanted, self._sizes))


class Either(Shape):
    """The values of any of ``parts``, at least one of them a ``Known``: ``join`` of a request's
    own values, which answers each question with the parts' answers joined when it is asked
    (``[kind == 'Pod' ? object.spec : object.spec.template.spec]`` reads the containers of
    either, and summarising both whole specs to join them cost more than the rest of the walk).
    Every answer is at least each part's, so a bound of the whole bounds each part's values."""

    def __init__(self, parts: Sequence[Shape]) -> None:
        self._parts = tuple(parts)

    @property
    def size(self) -> int:  # type: ignore[override]
        return max(p.size for p in self._parts)

    @property
    def value(self) -> Any:
        values = {id(p.value): p.value for p in self._parts}
        return self._parts[0].value if len(values) == 1 else _NO_VALUE

    @property
    def top(self) -> int | None:  # type: ignore[override]
        tops = [p.top for p in self._parts]
        return None if None in tops else max(t for t in tops if t is not None)

    @property
    def text(self) -> str | None:  # type: ignore[override]
        texts = {p.text for p in self._parts}
        return texts.pop() if len(texts) == 1 else None

    @property
    def weight(self) -> int:
        return max(p.weight for p in self._parts)

    def item(self) -> Shape:
        return join_all([p.item() for p in self._parts])

    def field(self, name: str) -> Shape:
        return join_all([p.field(name) for p in self._parts])

    def index(self, key: Shape) -> Shape:
        return join_all([p.index(key) for p in self._parts])


_PARTS = 16
"""At most this many parts in an ``Either``; past it, they are joined by their summaries (short
lists of short lists, each read item by item, would otherwise multiply their parts)."""


def _either(a: Shape, b: Shape) -> Shape:
    parts: list[Shape] = []
    for one in (a, b):
        for part in one._parts if isinstance(one, Either) else (one,):
            if all(part is not kept for kept in parts):
                parts.append(part)
    if len(parts) > _PARTS:
        return join_all([_summarised(p) for p in parts])
    return parts[0] if len(parts) == 1 else Either(parts)


def _summarised(shape: Shape) -> Shape:
    """``shape`` with no ``Known`` or ``Either`` in it at its top (their summaries joined)."""
    if isinstance(shape, Known):
        return shape.summary()
    if isinstance(shape, Either):
        return join_all([_summarised(p) for p in shape._parts])
    return shape


Path = tuple[Any, ...]
"""A value's place in the activation: its variable's name, then ``("field", name)`` and
``("index", key)`` steps."""
Question = tuple[Path, str, Any]
"""(a value's path, what is asked of it, the question's argument: a field's name, a key)."""
Log = list[tuple[Question, Any]]
"""What an exact walk asked of the activation, and the answers."""


class Place:
    """A path, interned (``asked``): its value is found once per activation, by identity."""

    __slots__ = ("key", "kind", "parent")

    def __init__(self, parent: Place | None, kind: str, key: Any) -> None:
        self.parent, self.kind, self.key = parent, kind, key


class Asked:
    """One question, interned (``asked``): a kept walk's questions are looked up in each
    activation's answers by identity, not by hashing their paths again at every request."""

    __slots__ = ("argument", "kind", "place", "question")

    def __init__(self, question: Question) -> None:
        self.question = question
        path, self.kind, self.argument = question
        self.place = _place(path) if path else None


_PLACES: dict[Path, Place] = {}


def _place(path: Path) -> Place:
    found = _PLACES.get(path)
    if found is None:
        if len(path) == 1:
            found = Place(None, "variable", path[0])
        else:
            found = Place(_place(path[:-1]), *path[-1])
        _PLACES[path] = found
    return found


Trace = tuple[tuple[Asked, Any], ...]
"""A kept walk's questions, each once, with its activation's answers (``Sizes.replays``)."""
_ASKED: dict[Question, Asked] = {}


def asked(question: Question) -> Asked:
    """The one ``Asked`` of ``question`` (another after the table is cleared: that question is
    then answered once more per activation, nothing else)."""
    found = _ASKED.get(question)
    if found is None:
        if len(_ASKED) > 65536:
            _ASKED.clear()
            _PLACES.clear()
        found = _ASKED[question] = Asked(question)
    return found


def traced(log: Log) -> Trace:
    """``log``'s questions, each once (one answer per activation), interned."""
    return tuple((asked(question), answer) for question, answer in dict(log).items())


_INTERNED: dict[Any, Any] = {}
"""Summaries' fingerprints seen lately, one object each: a request's equal fingerprint is then
the very object a kept walk holds, and comparing them costs nothing."""


def _interned(fingerprint: Any) -> Any:
    if len(_INTERNED) > 4096:
        _INTERNED.clear()  # only speed is lost: equal fingerprints still compare equal
    return _INTERNED.setdefault(fingerprint, fingerprint)


def _answer(value: Any, question: str, argument: Any, sizes: Sizes) -> Any:
    """What ``Known`` tells the walk of ``value``: its size and int value; its summary's
    fingerprint; whether it has a field; what ``[key]`` of it gives (a child, SMALL, or the
    shape of any item)."""
    if question == "field":  # the most asked
        return isinstance(value, dict) and argument in value
    if question == "size":
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        return cost.size(value), number
    if question == "few":  # a list's length, a map's keys (all strings), or 0: summarised
        if isinstance(value, dict):
            few = 0 < len(value) <= _FEW and all(type(key) is str for key in value)
            return tuple(value) if few else 0
        few = isinstance(value, list | tuple) and 0 < len(value) <= _FEW
        return len(value) if few else 0
    if question == "weight":
        return cost.traversal(value)
    if question == "summary":
        return _interned(sizes.fingerprint(summary(value, sizes.memo)))
    if isinstance(value, dict) and isinstance(argument, str | int):
        return "child" if argument in value else "small"
    if isinstance(value, list) and isinstance(argument, int) and not isinstance(argument, bool):
        return "child" if 0 <= argument < len(value) else "small"
    return "item"


def answer_of(value: Any, question: str, argument: Any, sizes: Sizes) -> Any:
    """``_answer`` of a value found at a question's place; NO_VALUE (unlike any answer) where
    there is no such value or the answer is too deep to find."""
    if value is _NO_VALUE:
        return _NO_VALUE
    try:
        return _answer(value, question, argument, sizes)
    except RecursionError:
        return _NO_VALUE


def child_of(holder: Any, kind: str, key: Any, sizes: Sizes) -> Any:
    """The value at ``holder``'s ``kind`` ``key`` (a field, an index) as the walk reads it,
    NO_VALUE where it has none."""
    if holder is not _NO_VALUE and _answer(holder, kind, key, sizes) in (True, "child"):
        return holder[key]
    return _NO_VALUE


def summary(value: Any, memo: dict[int, Shape]) -> Shape:
    """``value`` as an Abstract shape: its sizes, its items' largest (memoized by identity
    for the activation's life)."""
    found = memo.get(id(value))
    if found is not None:
        return found
    if isinstance(value, dict):
        fields: dict[str, Shape] = {}
        parts: list[Shape] = []
        weight = 0
        for key, item in value.items():
            one, shape = summary(key, memo), summary(item, memo)
            parts += (one, shape)
            weight += one.weight + shape.weight
            if isinstance(key, str):
                fields[key] = shape
        made: Shape = Abstract(len(value), join_all(parts) if parts else None, fields, weight)
    elif isinstance(value, list | tuple) and not any(map(_container, value)):
        made = _scalars(value)
    elif isinstance(value, list | tuple):
        shapes = [summary(item, memo) for item in value]
        made = Abstract(
            len(value),
            join_all(shapes) if shapes else None,
            weight=sum(s.weight for s in shapes),
        )
    else:
        made = Abstract(cost.size(value), weight=cost.traversal(value))
    if isinstance(value, dict | list | tuple):
        memo[id(value)] = made
    return made


def _container(value: Any) -> bool:
    return isinstance(value, dict | list | tuple)


_UNIT_SCALARS = frozenset({int, float, bool, type(None)})
"""Scalars of size 1 and traversal 1 (``cost.size``, ``cost.traversal``)."""


def _scalars(values: list[Any] | tuple[Any, ...]) -> Shape:
    """``summary`` of a list of scalars without a shape per item: the join of scalars' shapes
    is their largest size and weight, the list's weight their sum (a list of 9,000 numbers
    is one set of their types, not 9,000 shapes joined)."""
    if not values:
        return Abstract(0, weight=0)
    if set(map(type, values)) <= _UNIT_SCALARS:
        return Abstract(len(values), Abstract(1, weight=1), weight=len(values))
    weights = list(map(cost.traversal, values))
    item = Abstract(max(map(cost.size, values)), weight=max(weights))
    return Abstract(len(values), item, weight=sum(weights))


def join(a: Shape, b: Shape) -> Shape:
    """A shape of both ``a``'s values and ``b``'s."""
    if a is b or b is SMALL:
        return a
    if a is SMALL:
        return b
    if isinstance(a, Known | Either) or isinstance(b, Known | Either):
        return _either(a, b)
    if isinstance(a, _Any) and a.size >= b.size and isinstance(b, Abstract | _Any) and not _deep(b):
        return a
    fields: dict[str, Shape] = {}
    for one in (a, b):
        for name, shape in getattr(one, "_fields", {}).items():
            fields[name] = join(fields[name], shape) if name in fields else shape
    if isinstance(a, _Any) or isinstance(b, _Any):
        fields = {}  # an _Any's field is itself: the items' join covers every field
    items = None if _scalar(a) and _scalar(b) else join(a.item(), b.item())
    top = None if a.top is None or b.top is None else max(a.top, b.top)
    return Abstract(max(a.size, b.size), items, fields, max(a.weight, b.weight), top=top)


def _scalar(shape: Shape) -> bool:
    return isinstance(shape, Abstract) and shape._items is None and not shape._fields


def _deep(shape: Shape) -> bool:
    """Whether ``shape`` has parts that may be larger than itself (made by the expression)."""
    return isinstance(shape, Abstract) and shape._items is not None


def join_all(shapes: Sequence[Shape]) -> Shape:
    made = shapes[0]
    for shape in shapes[1:]:
        made = join(made, shape)
    return made


# ---- what a call costs and returns, by its operands' largest sizes


def _ceil(value: float) -> int:
    return math.ceil(value)


_TRAVERSED = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})


def call_cost(function: str, args: Sequence[Shape], result: Shape) -> int:
    """At least what ``cost.call_cost`` charges for any values of these shapes: the largest of
    every formula that can apply."""
    if function in cost.FREE:
        return 0
    sizes = [a.size for a in args]
    first = sizes[0] if sizes else 1
    second = sizes[1] if len(sizes) > 1 else 1
    costs = [1]
    if function in ("slice", "lists.range", "reverse"):
        costs.append(result.size + 1 + cost.LIST_CREATE)
    if function == "flatten":
        depth = args[1].value if len(args) > 1 else 1
        if not isinstance(depth, int):
            raise Unbounded("flatten() to a computed depth")
        costs.append(max(depth, 1) * first + 1 + cost.LIST_CREATE)
    if function.startswith("sets.") and len(args) == 2:
        costs.append(1 + 2 * first * second)
    if function in ("distinct", "sort", "sortBy"):
        count = second if function == "sortBy" and len(args) > 1 else first
        costs.append(int(count * count * (2.0 + cost.STRING_TRAVERSAL)) + 1 + cost.LIST_CREATE)
    if function in _TRAVERSED and args:
        costs.append(args[0].weight)
    if function == "join":
        costs.append(_ceil(result.size * 2 * cost.STRING_TRAVERSAL))
    if function in ("replace", "split", "ip.isCanonical"):
        costs.append(_ceil(first * 2 * cost.STRING_TRAVERSAL))
    if function in ("find", "findAll", "matches") and len(args) >= 2:
        costs.append(_ceil((1 + first) * cost.STRING_TRAVERSAL) * _ceil(second * cost.REGEX_LENGTH))
    if function in ("containsIP", "containsCIDR") and len(args) >= 2:
        costs.append(
            _ceil(2 * first * cost.STRING_TRAVERSAL)
            + _ceil(first * cost.STRING_TRAVERSAL)
            + 1
            + _ceil(second * cost.STRING_TRAVERSAL)
        )
    if function in _ONCE:
        costs.append(_ceil(first * cost.STRING_TRAVERSAL))
    if function == "validate" and len(args) >= 2:  # Kubernetes' CallCost: the format's regex
        regex = args[0].regex if isinstance(args[0], Format) else FORMAT_REGEX_MAX
        costs.append(_ceil((1 + second) * cost.STRING_TRAVERSAL) * _ceil(regex * cost.REGEX_LENGTH))
    if function == "check":
        raise Unbounded("an authorizer check")
    if function == "_in_" and len(args) == 2:
        costs.append(second)
    if function in _PAIRWISE and len(args) == 2:
        costs.append(_ceil(min(first, second) * cost.STRING_TRAVERSAL))
    if function == "_+_" and len(args) == 2:
        costs.append(_ceil((first + second) * cost.STRING_TRAVERSAL))
    if function == "contains" and len(args) == 2:
        costs.append(_ceil(first * cost.STRING_TRAVERSAL) * _ceil(second * cost.STRING_TRAVERSAL))
    return max(costs)


_ONCE = frozenset(
    {
        *("url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey"),
        *("cidr", "isIP", "isCIDR", "ip", "quantity", "isQuantity", "semver", "isSemver"),
        *("startsWith", "endsWith", "bytes", "quote", "strings.quote", "format"),
    }
)
_PAIRWISE = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"})

_MATH = (
    *("greatest", "least", "ceil", "floor", "round", "trunc", "abs", "sign", "sqrt"),
    *("isInf", "isNaN", "isFinite", "bitAnd", "bitOr", "bitXor", "bitNot", "bitShiftLeft"),
    *("bitShiftRight",),
)
"""cel-go's math extension: every function's result is a number or a bool, at cost 1 (it
has no cost tracker of its own)."""

_NAN_ORDERING = frozenset({"greatest", "least"})
"""Left to cel-python, which answers as cel-go: with a NaN among the numbers cel-cpp answers
one where cel-go's ``Compare`` fails ("NaN values cannot be ordered")."""

FORMAT_REGEX = {
    **dict.fromkeys(("dns1123Label", "dns1035Label", "dns1123LabelPrefix"), 30),
    **dict.fromkeys(("dns1035LabelPrefix",), 30),
    **dict.fromkeys(("dns1123Subdomain", "qualifiedName", "dns1123SubdomainPrefix"), 60),
    "labelValue": 40,
    "uri": 1103,
    "uuid": 70,
    "byte": 84,
    "date": 71,
    "datetime": 71,
}
"""Kubernetes' format library (pkg/cel/library/format.go): each format's ``MaxRegexSize``,
which ``<Format>.validate(s)`` is charged by (``CallCost``), as a regex of that length."""
FORMAT_REGEX_MAX = max(FORMAT_REGEX.values())
"""A format not known until the evaluation (``format.named(n)``): the longest."""
FORMAT_MESSAGES = 4
"""At most this many messages from one ``validate`` (Kubernetes' validators give one or two)."""


class Format(Abstract):
    """One of Kubernetes' formats (``format.dns1123Label()``...): its regex's length."""

    def __init__(self, regex: int) -> None:
        super().__init__(1, weight=1)
        self.regex = regex


def rendered(shape: Shape) -> int:
    """At most how many characters ``string()`` or ``format()``'s ``%s`` makes of a value of
    ``shape`` (a string escaped at worst 6 to a character, a number at most 32, a list or a
    map its items each with a separator and quotes)."""
    if isinstance(shape, Either):
        return max(map(rendered, shape._parts))
    if isinstance(shape, Known):
        shape = shape.summary()
    if isinstance(shape, _Any):
        return 6 * shape.size + 32
    if _scalar(shape):
        return 6 * shape.size + 32
    return shape.size * (rendered(shape.item()) * 2 + 4) + 2


_SCALAR_RESULTS = frozenset(
    {
        *_PAIRWISE,
        *("_in_", "!_", "-_", "_-_", "_*_", "_/_", "_%_", "size", "int", "uint", "double"),
        *("bool", "type", "duration", "timestamp", "contains", "startsWith", "endsWith"),
        *("matches", "isSorted", "sum", "indexOf", "lastIndexOf"),
        *("sets.contains", "sets.equivalent", "sets.intersects", "isQuantity", "isIP"),
        *("isCIDR", "isURL", "isSemver", "compareTo", "isLessThan", "isGreaterThan", "sign"),
        *("asInteger", "asApproximateFloat", "isInteger", "family", "isUnspecified"),
        *("isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"),
        *("prefixLength", "containsIP", "containsCIDR", "ip.isCanonical", "major", "minor"),
        *("patch", "add", "sub", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear"),
        *("getFullYear", "getHours", "getMilliseconds", "getMinutes", "getMonth"),
        *("getSeconds", "hasValue", "optional.none"),
        *(f"math.{name}" for name in _MATH),
    }
)
"""Functions whose result is a bool, a number, a type, a duration, a timestamp or a
Quantity: size 1."""
_PART_OF_FIRST = frozenset(
    {
        *("lowerAscii", "upperAscii", "trim", "reverse", "distinct", "sort", "slice"),
        *("substring", "charAt", "find", "getScheme", "getHost", "getHostname", "getPort"),
        *("getEscapedPath",),
    }
)
"""Functions whose result is no larger than their first operand, and made of its parts."""
_OPAQUE_RESULTS = frozenset({"quantity", "semver", "url", "ip", "cidr", "masked"})


def call_result(function: str, args: Sequence[Shape]) -> Shape:
    """A shape of what ``function`` can return on operands of these shapes."""
    first = args[0] if args else SMALL
    if function == "size":
        return Abstract(1, weight=1, top=first.size)
    if function == "_%_" and len(args) == 2 and type(args[1].value) is int and args[1].value:
        return Abstract(1, weight=1, top=abs(args[1].value) - 1)  # |a % b| < |b|, as in Go
    if function in _SCALAR_RESULTS:
        return SMALL
    if function in ("optional.of", "optional.ofNonZeroValue", "value"):
        return first
    if function in ("orValue", "or") and len(args) == 2:
        return join(first, args[1])
    if function.startswith("format.") and not args:
        return Format(FORMAT_REGEX.get(function.removeprefix("format."), FORMAT_REGEX_MAX))
    if function == "format.named":
        name = first.text[1:-1] if first.text and first.text[:1] in "'\"" else None
        return Format(FORMAT_REGEX.get(name or "", FORMAT_REGEX_MAX))
    if function == "validate" and len(args) == 2:  # messages may quote the string (uri)
        return Abstract(FORMAT_MESSAGES, Abstract(10 * args[1].size + 1024))
    if function == "format" and len(args) == 2:
        if first.text is None:
            raise Unbounded("format() of a computed format string")
        widest = max(map(int, re.findall(r"\d+", first.text)), default=0)
        return Abstract(first.size + (rendered(args[1]) + widest) * max(args[1].size, 1))
    if function in _PART_OF_FIRST:
        return first
    if function in _OPAQUE_RESULTS:
        return Abstract(max(first.size, OPAQUE.size), weight=1)
    if function == "dyn":
        return first
    if function == "string":
        return Abstract(max(first.size, 64))
    if function in ("bytes", "quote", "strings.quote"):
        return Abstract(first.size * 6 + 2)
    if function == "_+_" and len(args) == 2:
        second = args[1]
        items = None if _scalar(first) and _scalar(second) else join(first.item(), second.item())
        top = None if first.top is None or second.top is None else first.top + second.top
        return Abstract(
            first.size + second.size, items, weight=first.weight + second.weight, top=top
        )
    if function == "replace" and len(args) >= 3:
        new = args[2].size
        return Abstract(first.size * (1 + new) + new)
    if function in ("split", "findAll"):
        return Abstract(first.size + 1, Abstract(first.size))
    if function == "join" and args:
        separator = args[1].size if len(args) > 1 else 0
        text = first.item()
        return Abstract(first.size * (text.size + separator))
    if function == "getQuery":
        return Abstract(first.size, Abstract(first.size, Abstract(first.size)))
    if function in ("min", "max") and len(args) == 1:
        return first.item()
    if function == "flatten" and args:
        depth = args[1].value if len(args) > 1 else 1
        if not isinstance(depth, int):
            raise Unbounded("flatten() to a computed depth")
        size, item, items = first.size, first.item(), first.item()
        for _ in range(max(depth, 1)):
            size *= max(item.size, 1)
            item = item.item()
            items = join(items, item)
        return Abstract(size, items)
    if function == "lists.range" and args:
        if first.top is None:
            raise Unbounded("lists.range() of a computed count")
        return Abstract(first.top, SMALL)
    raise Unbounded(f"{function}()")


# ---- the walk


_MACROS = {"all": 4, "exists": 4, "exists_one": 2, "map": 12, "filter": 13}
"""Per iteration, at least what ``cost.macro_cost`` charges besides the bodies."""
_NAMESPACES = frozenset(
    {"sets", "lists", "strings", "math", "base64", "optional", "cel", "format", "ip"}
)
_TWO_VARIABLES = {
    "all": 4,
    "exists": 4,
    "exists_one": 2,
    "existsOne": 2,
    "transformList": 13,
    "transformMap": 13,
    "transformMapEntry": 13,
}
"""Per iteration, at least what cel-go's expansion charges besides the bodies (as
``_MACROS``; ``transformList`` as ``map`` or ``filter``'s, ``transformMap`` reads the
accumulator and the key and calls ``cel.@mapInsert``)."""
_OPT_MAP = 2 * cost.SELECT + 3 + cost.LIST_CREATE
"""``optMap``'s expansion besides its target and body: ``hasValue()``, ``value()``,
``optional.of()`` or ``optional.none()``, and the bind's empty range."""
RELATIONS = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_gt": "_>_",
    "relation_ge": "_>=_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "_in_",
}
_ARITHMETIC = {
    "addition_add": "_+_",
    "addition_sub": "_-_",
    "multiplication_mul": "_*_",
    "multiplication_div": "_/_",
    "multiplication_mod": "_%_",
}


@dataclass(frozen=True)
class _Out:
    shape: Shape
    cost: int
    iterations: int


class _Walk:
    def __init__(self, variables: Callable[[str], Shape | None]) -> None:
        self.variables = variables

    def visit(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        method = getattr(self, "_" + tree.data, None)
        if method is None:
            if len(tree.children) == 1 and not isinstance(tree.children[0], str):
                return self.visit(tree.children[0], scope)
            raise Unbounded(tree.data)
        out: _Out = method(tree, scope)
        return out

    def _expr(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        if len(tree.children) == 1:
            return self.visit(tree.children[0], scope)
        condition, yes, no = (self.visit(c, scope) for c in tree.children)
        return _Out(
            join(yes.shape, no.shape),
            condition.cost + max(yes.cost, no.cost),
            condition.iterations + max(yes.iterations, no.iterations),
        )

    def _logic(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        if len(tree.children) == 1:
            return self.visit(tree.children[0], scope)
        left, right = (self.visit(c, scope) for c in tree.children)
        return _Out(SMALL, left.cost + right.cost, left.iterations + right.iterations)

    _conditionalor = _logic
    _conditionaland = _logic

    def _binary(self, tree: Any, scope: Mapping[str, Shape], names: Mapping[str, str]) -> _Out:
        if len(tree.children) == 1:
            return self.visit(tree.children[0], scope)
        operator, operand = tree.children
        function = names[operator.data]
        return self._call(function, [operator.children[0], operand], scope)

    def _relation(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        return self._binary(tree, scope, RELATIONS)

    def _addition(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        return self._binary(tree, scope, _ARITHMETIC)

    _multiplication = _addition

    def _unary(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        if len(tree.children) == 1:
            return self.visit(tree.children[0], scope)
        operand = self.visit(tree.children[1], scope)
        return _Out(SMALL, operand.cost + 1, operand.iterations)

    def _call(self, function: str, operands: Sequence[Any], scope: Mapping[str, Shape]) -> _Out:
        outs = [self.visit(o, scope) for o in operands]
        return self._apply(function, outs)

    @staticmethod
    def _apply(function: str, outs: Sequence[_Out]) -> _Out:
        shapes = [o.shape for o in outs]
        result = call_result(function, shapes)
        spent = sum(o.cost for o in outs) + call_cost(function, shapes, result)
        return _Out(result, spent, sum(o.iterations for o in outs))

    def _member_dot(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        target = self.visit(tree.children[0], scope)
        return _Out(target.shape.field(str(tree.children[1])), target.cost + 1, target.iterations)

    def _member_index(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        target, key = (self.visit(c, scope) for c in tree.children)
        return _Out(
            target.shape.index(key.shape),
            target.cost + key.cost + 1,
            target.iterations + key.iterations,
        )

    def _member_dot_arg(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        method = str(tree.children[1])
        arguments = list(tree.children[2].children) if len(tree.children) > 2 else []
        namespace = _identifier(tree.children[0])
        names = [_identifier(a) for a in arguments]
        if namespace in _NAMESPACES and namespace not in scope:
            if f"{namespace}.{method}" == "cel.bind" and len(arguments) == 3 and names[0]:
                return self._bind(names[0], arguments[1], arguments[2], scope)
            if namespace == "math" and method in _NAN_ORDERING:
                raise Unbounded(f"math.{method}(): cel-expr orders NaN, which cel-go refuses")
            out = self._call(f"{namespace}.{method}", arguments, scope)
            if namespace == "math" and len(arguments) > 1:  # the arguments made one list
                return _Out(out.shape, out.cost + cost.LIST_CREATE, out.iterations)
            return out
        two = method in _TWO_VARIABLES and len(arguments) in (3, 4) and names[0] and names[1]
        if two and (len(arguments) == 3 or method.startswith("transform")):
            return self._two(method, tree.children[0], names[:2], arguments[2:], scope)
        if method in _MACROS and arguments and names[0] is not None:
            return self._macro(method, tree.children[0], arguments, scope)
        if method == "sortBy" and len(arguments) == 2 and names[0]:
            return self._sort_by(tree.children[0], names[0], arguments[1], scope)
        if method in ("optMap", "optFlatMap") and len(arguments) == 2 and names[0]:
            target = self.visit(tree.children[0], scope)
            body = self.visit(arguments[1], {**scope, names[0]: target.shape})
            return _Out(  # o.hasValue() ? optional.of(cel.bind(x, o.value(), body)) : none
                body.shape,
                2 * target.cost + body.cost + _OPT_MAP,
                2 * target.iterations + body.iterations,
            )
        return self._call(method, [tree.children[0], *arguments], scope)

    def _macro(
        self, macro: str, target_tree: Any, arguments: Sequence[Any], scope: Mapping[str, Shape]
    ) -> _Out:
        if len(arguments) not in (2, 3) or (len(arguments) == 3 and macro != "map"):
            raise Unbounded(f"{macro}() with two variables")
        target = self.visit(target_tree, scope)
        name = _identifier(arguments[0])
        assert name is not None
        count, item = target.shape.size, target.shape.item()
        inner = {**scope, name: item}
        bodies = [self.visit(body, inner) for body in arguments[1:]]
        body_cost = sum(b.cost for b in bodies)
        body_iterations = sum(b.iterations for b in bodies)
        spent = target.cost + count * (body_cost + _MACROS[macro]) + _MACROS[macro] + 2
        iterations = target.iterations + count * (len(bodies) + body_iterations)
        if macro == "map":
            shape: Shape = Abstract(count, bodies[-1].shape)
        elif macro == "filter":
            shape = Abstract(count, item)
        else:
            shape = SMALL
        return _Out(shape, spent, iterations)

    def _bind(self, name: str, init: Any, body: Any, scope: Mapping[str, Shape]) -> _Out:
        """``cel.bind(name, init, body)``: cel-go's comprehension over ``[]`` whose
        accumulator is ``init`` and whose result is ``body``."""
        value = self.visit(init, scope)
        result = self.visit(body, {**scope, name: value.shape})
        return _Out(
            result.shape,
            value.cost + result.cost + cost.LIST_CREATE,
            value.iterations + result.iterations,
        )

    def _two(
        self,
        macro: str,
        target_tree: Any,
        names: Sequence[str | None],
        bodies_trees: Sequence[Any],
        scope: Mapping[str, Shape],
    ) -> _Out:
        """cel-go's two-variable comprehensions (ext/comprehensions.go): over a list, an index
        and an item; over a map, a key and its value; each step charged as ``map``'s at most
        (``cel.@mapInsert`` is a call of cost 1), and a map made first for ``transformMap``."""
        target = self.visit(target_tree, scope)
        count, item = target.shape.size, target.shape.item()
        inner = {**scope, **{str(n): item for n in names}}
        bodies = [self.visit(body, inner) for body in bodies_trees]
        step = _TWO_VARIABLES[macro]
        body_cost = sum(b.cost for b in bodies)
        spent = target.cost + count * (body_cost + step) + step + 2
        if macro.startswith("transformMap"):
            spent += cost.MAP_CREATE
        iterations = target.iterations + count * (len(bodies) + sum(b.iterations for b in bodies))
        last = bodies[-1].shape
        shape: Shape = SMALL
        if macro == "transformList":
            shape = Abstract(count, last)
        elif macro == "transformMap":
            shape = Abstract(count, join(item, last))
        elif macro == "transformMapEntry":
            shape = Abstract(count * last.size, last.item())
        return _Out(shape, spent, iterations)

    def _sort_by(self, target_tree: Any, name: str, key: Any, scope: Mapping[str, Shape]) -> _Out:
        """``l.sortBy(x, key)``: cel-go's ``cel.bind(@input, l, @input.@sortByAssociatedKeys(
        @input.map(x, key)))``, the sort charged on the keys' list (ext/lists.go)."""
        target = self.visit(target_tree, scope)
        count, item = target.shape.size, target.shape.item()
        keys = self.visit(key, {**scope, name: item})
        listed = Abstract(count, keys.shape)
        spent = (
            target.cost
            + cost.LIST_CREATE  # the bind's empty range
            + count * (keys.cost + _MACROS["map"])
            + _MACROS["map"]
            + 2
            + 2  # the input read twice
            + call_cost("sortBy", [target.shape, listed], target.shape)
        )
        return _Out(target.shape, spent, target.iterations + count * (1 + keys.iterations))

    def _primary(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        return self.visit(tree.children[0], scope)

    def _paren_expr(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        return self.visit(tree.children[0], scope)

    def _ident(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        name = str(tree.children[0])
        if name in scope:
            return _Out(scope[name], 1, 0)
        found = self.variables(name)
        return _Out(found if found is not None else SMALL, 1, 0)

    def _ident_arg(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        name = str(tree.children[0])
        arguments = list(tree.children[1].children) if len(tree.children) > 1 else []
        if name == "has":
            if len(arguments) != 1:
                raise Unbounded("has() of many")
            inner = self.visit(arguments[0], scope)
            return _Out(SMALL, inner.cost + 1, inner.iterations)
        out = self._call(name, arguments, scope)
        if name == "dyn":  # a variable read and a call in cel-go's plan
            return _Out(out.shape, out.cost + 1, out.iterations)
        return out

    def _list_lit(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        outs = [self.visit(c, scope) for c in tree.children[0].children] if tree.children else []
        items = join_all([o.shape for o in outs]) if outs else None
        return _Out(
            Abstract(len(outs), items),
            sum(o.cost for o in outs) + cost.LIST_CREATE,
            sum(o.iterations for o in outs),
        )

    def _map_lit(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        outs = [self.visit(c, scope) for c in tree.children[0].children] if tree.children else []
        items = join_all([o.shape for o in outs]) if outs else None
        return _Out(
            Abstract(len(outs) // 2, items),
            sum(o.cost for o in outs) + cost.MAP_CREATE,
            sum(o.iterations for o in outs),
        )

    def _literal(self, tree: Any, scope: Mapping[str, Shape]) -> _Out:
        token = tree.children[0]
        text, kind = str(token), token.type
        if kind in ("INT_LIT", "UINT_LIT"):
            digits = text.rstrip("uU")
            negative = digits.startswith("-")
            number = int(digits.lstrip("-"), 0)
            return _Out(Abstract(1, weight=1, value=-number if negative else number), 0, 0)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return _Out(Abstract(len(text), weight=len(text), text=text), 0, 0)
        if kind == "BYTES_LIT":  # a non-ASCII character is up to 4 bytes
            return _Out(Abstract(4 * len(text), weight=4 * len(text)), 0, 0)
        return _Out(SMALL, 0, 0)


def _identifier(tree: Any) -> str | None:
    """The name a tree is, below its precedence levels (None: not a bare name)."""
    while not isinstance(tree, str) and len(tree.children) == 1 and tree.data != "ident":
        tree = tree.children[0]
    if isinstance(tree, str) or tree.data != "ident":
        return None
    return str(tree.children[0])


# ---- plans: an expression's bound, per activation


class Sizes:
    """One activation's variables as the walks read them: the JSON size of the whole (None:
    not JSON) and the summaries of its values (memoized)."""

    def __init__(self, variables: Mapping[str, Any]) -> None:
        self.variables = variables
        self.memo: dict[int, Shape] = {}
        self._prints: dict[int, tuple[Shape, Any]] = {}
        self._answers: dict[Asked, Any] = {}
        self._values: dict[Place, Any] = {}
        try:
            self.total: int | None = len(orjson.dumps(dict(variables)))
        except TypeError:  # an opaque value (a Quantity of the bundle's variables...)
            self.total = None

    def known(self, name: str, log: Log | None = None) -> Shape | None:
        log = [] if log is None else log
        log.append((((), "variable", name), name in self.variables))
        if name not in self.variables:
            return None
        return Known(self.variables[name], self, (name,), log)

    def fingerprint(self, shape: Shape) -> Any:
        """Everything the walk can read of a summary's shape, as one comparable value (kept
        per shape, with the shape: a scalar's summary is made anew each time, and its id must
        not be another's while this activation lives)."""
        kept = self._prints.get(id(shape))
        if kept is not None:
            return kept[1]
        found: Any
        if shape is SMALL:
            found = ("SMALL",)
        elif type(shape) is Abstract:
            items = None if shape._items is None else self.fingerprint(shape._items)
            fields = tuple((name, self.fingerprint(f)) for name, f in shape._fields.items())
            value = "none" if shape.value is _NO_VALUE else ("value", shape.value)
            found = (shape.size, shape.weight, shape.top, value, shape.text, items, fields)
        else:  # not made by ``summary``: never the same as another activation's
            found = (object(),)
        self._prints[id(shape)] = (shape, found)
        return found

    def replays(self, log: Trace) -> bool:
        """Whether this activation answers every question of an exact walk's ``log`` as the
        walk's own activation did: then the walk, which reads nothing else of it, would give
        the same bound here. Each answer is found once per activation (the plans of one
        request's proofs ask mostly the same)."""
        answers = self._answers
        for question, answer in log:
            found = answers.get(question, _NO_VALUE)
            if found is _NO_VALUE:
                found = answers[question] = self._ask(question)
            if found != answer:
                return False
        return True

    def answer(self, question: Asked) -> Any:
        """This activation's answer to ``question`` (found once)."""
        found = self._answers.get(question, _NO_VALUE)
        if found is _NO_VALUE:
            found = self._answers[question] = self._ask(question)
        return found

    def _ask(self, question: Asked) -> Any:
        asked = question.kind
        if asked == "field":  # the most asked: a field of a value found before (its parent's)
            place = question.place
            assert place is not None
            value = self._values.get(place, _NO_VALUE)
            if value is _NO_VALUE:
                value = self._at(place)
                if value is _NO_VALUE:
                    return _NO_VALUE
            return isinstance(value, dict) and question.argument in value
        if asked == "variable":
            return question.argument in self.variables
        if asked == "bucket":
            return None if self.total is None else _bucket(self.total)
        assert question.place is not None
        return answer_of(self._at(question.place), asked, question.argument, self)

    def _at(self, place: Place) -> Any:
        found = self._values.get(place, _NO_VALUE)
        if found is _NO_VALUE:
            if place.parent is None:
                found = self.variables.get(place.key, _NO_VALUE)
            else:
                found = child_of(self._at(place.parent), place.kind, place.key, self)
            self._values[place] = found
        return found


_FEW = 4
"""A list of at most this many items is read item by item (``Known.item``), a longer one by
its summary (a pass over its values, once per activation)."""
TRACES = 8
"""Exact walks kept per plan, newest first (the requests of a kind mostly share their sizes
where a rule reads them: one Deployment's containers, a policy's placement)."""
_BUCKET = 1024
"""Static bounds are made for JSON sizes rounded up to a multiple of this."""
ITERATIONS = 10_000
"""Comprehension bodies one evaluation may run on either engine (``celpython.ITERATION_BUDGET``,
cel-cpp's own budget): past it the engines fail each with its own message."""


def _bucket(total: int) -> int:
    return -(-max(total, 1) // _BUCKET) * _BUCKET


BUCKET_ASKED = ((), "bucket", None)
"""The question of an activation's static bucket (``Plan.static``; None: not JSON)."""


def fits(bound: Bound | None, within: int, iterations: int = ITERATIONS) -> bool:
    """Whether ``bound`` says the evaluation stays within ``within`` and ``iterations``."""
    return bound is not None and bound.cost <= within and bound.iterations <= iterations


class Plan:
    """One expression's parse, bounded against any activation; None from ``plan`` when it
    does not parse."""

    def __init__(self, tree: Any) -> None:
        self._tree = collapsed(tree)
        self._static: dict[int, Bound | None] = {}
        self._exacts: tuple[tuple[Trace, Bound], ...] = ()
        self._lock = forksafe.lock()

    def bound(self, sizes: Sizes, within: int, iterations: int = ITERATIONS) -> Bound | None:
        """A bound of the evaluation's cost on ``sizes``' activation: the static one when it
        is within ``within`` and ``iterations``, else the exact one; None: unbounded."""
        return self.traced_bound(sizes, within, iterations)[0]

    def traced_bound(
        self, sizes: Sizes, within: int, iterations: int = ITERATIONS
    ) -> tuple[Bound | None, Trace | None]:
        """``bound``, with what it read of the activation besides its static bucket (an
        exact walk's trace; () for the static bound; None: a walk not kept, not to replay)."""
        if sizes.total is not None:
            static = self.static(sizes.total)
            if fits(static, within, iterations):
                return static, ()
        return self._exact(sizes)

    def static(self, total: int) -> Bound | None:
        """The bound for any variables whose JSON together is at most ``total`` bytes (made
        once per expression and 1 KiB bucket)."""
        bucket = _bucket(total)
        if bucket in self._static:
            return self._static[bucket]
        found = self._walk(lambda name: _Any(bucket))
        with self._lock:
            self._static[bucket] = found
        return found

    def exact(self, sizes: Sizes) -> Bound | None:
        """The bound for these variables' own sizes: a recent exact walk's when ``sizes``
        answers all it asked as its own activation did (``Sizes.replays``: the same sizes
        where the walk read them, whatever else differs), else a walk of its own."""
        return self._exact(sizes)[0]

    def _exact(self, sizes: Sizes) -> tuple[Bound | None, Trace | None]:
        kept = self._exacts
        for at, (trace, found) in enumerate(kept):
            if sizes.replays(trace):
                if at:  # the most recently matched first
                    with self._lock:
                        others = (e for e in self._exacts if e is not kept[at])
                        self._exacts = (kept[at], *others)[:TRACES]
                return found, trace
        log: Log = []
        made = self._walk(lambda name: sizes.known(name, log))
        if made is None:  # None may be a RecursionError of this call's stack: not kept
            return None, None
        once = traced(log)
        with self._lock:
            self._exacts = ((once, made), *self._exacts[: TRACES - 1])
        return made, once

    def _walk(self, variables: Callable[[str], Shape | None]) -> Bound | None:
        return walk(self._tree, variables)


def walk(tree: Any, variables: Callable[[str], Shape | None]) -> Bound | None:
    """The bound of the expression parsed as ``tree`` (collapsed or not: the same bound) with
    ``variables`` giving each variable's shape; None: unbounded."""
    try:
        out = _Walk(variables).visit(tree, {})
    except (Unbounded, RecursionError, ValueError, AttributeError, IndexError):
        return None
    return Bound(out.cost, out.iterations)


_PASS_THROUGH = frozenset(
    {
        *("expr", "conditionalor", "conditionaland", "relation", "addition"),
        *("multiplication", "unary", "member", "primary", "paren_expr"),
    }
)
"""The parse's precedence levels (and parentheses): with one child, the walk visits that child
and nothing else (``_Walk.visit``, ``_logic``, ``_binary``, ``_unary``, ``_primary``...)."""


def beneath(node: Any, levels: frozenset[str]) -> Any:
    """The node below ``node``'s chain of single-child parse nodes named in ``levels``."""
    from lark import Tree  # noqa: PLC0415 - lark, only when parses are read

    while (
        isinstance(node, Tree)
        and node.data in levels
        and len(node.children) == 1
        and isinstance(node.children[0], Tree)
    ):
        node = node.children[0]
    return node


def collapsed(tree: Any) -> Any:
    """``tree`` without its single-child precedence levels, which the walk passes through: an
    expression's parse is mostly such chains (nine levels above each operand), so the walk of
    the collapsed tree visits a fraction of the nodes and gives the same bound. The tree given
    is left as it is (the proof's translation reads it too)."""
    from lark import Tree  # noqa: PLC0415 - lark, only when plans are made

    def build(node: Any) -> Any:
        node = beneath(node, _PASS_THROUGH)
        if not isinstance(node, Tree):
            return node
        return Tree(node.data, [build(child) for child in node.children])

    try:
        return build(tree)
    except RecursionError:  # too deep to rebuild: walked as parsed (and found unbounded there)
        return tree


def plan(expression: str) -> Plan | None:
    """``expression``'s plan (None: it does not parse with the shared parser)."""
    from webhook.engine.cel import grammar  # noqa: PLC0415 - lark, only when plans are made

    try:
        return Plan(grammar.parse(without_optional_syntax(expression)))
    except Exception:  # lark's errors, or a tree too deep: no bound
        return None


OPTIONAL_MARK = re.compile(r"([.\[{,]\s*)\?")
"""A ``?`` that makes a selection, an index, a list element or a map entry optional (after
``.``, ``[``, ``{`` or ``,``; a conditional's ``?`` follows an operand)."""


def without_optional_syntax(expression: str) -> str:
    """``expression`` with optional syntax made plain (``a.?b`` -> ``a.b``, ``a[?k]`` ->
    ``a[k]``, ``[?x]`` -> ``[x]``, ``{?k: v}`` -> ``{k: v}``), which the shared parser reads:
    each costs as its plain form in cel-go (a qualifier, or an element of a list or a map
    made) and gives at most its values; literals and comments are left alone."""
    if "?" not in expression:
        return expression
    from webhook.engine.cel.rewrite import blanked  # noqa: PLC0415 - only for optionals

    masked = blanked(expression)
    marks = [m.end() - 1 for m in OPTIONAL_MARK.finditer(masked)]
    if not marks:
        return expression
    chars = list(expression)
    for at in marks:
        chars[at] = " "
    return "".join(chars)
