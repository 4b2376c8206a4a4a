"""The default backend: cel-expr-python (Google's cel-cpp)."""

from __future__ import annotations

import ctypes
import datetime
import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import timedelta
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]
from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import (  # type: ignore[import-untyped]
    ext_bindings,
    ext_math,
    ext_optional,
    ext_strings,
)

from webhook.engine.budget import check as check_budget
from webhook.engine.budget import current as current_budget
from webhook.engine.cel import grammar, library, nanorder, rewrite, stringformat, typeparam
from webhook.engine.cel.backend import VARIABLES, CelCompileError, CelEvalError

QUANTITY = "kubernetes.Quantity"


def _descriptors() -> Any:
    """A descriptor pool with one message type per Kubernetes opaque CEL type
    (``library.OPAQUE_TYPES``: ``kubernetes.Quantity``, ``net.IP``, ``net.CIDR``), each holding
    the value's text: cel-expr-python cannot hold a Python object. A message type, unlike a
    double or a string, has no ``<`` or ``+``, its own ``type()``, and two are equal when their
    text is: the exact value, so ``quantity('1') == quantity('1000m')``."""
    from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: PLC0415

    pool = descriptor_pool.DescriptorPool()
    packages: dict[str, Any] = {}
    for name in library.OPAQUE_TYPES:
        package, _, message_name = name.rpartition(".")
        if package not in packages:
            packages[package] = descriptor_pb2.FileDescriptorProto(
                name=f"fedgate_{package}.proto", package=package, syntax="proto3"
            )
        message = packages[package].message_type.add(name=message_name)
        message.field.add(
            name="value",
            number=1,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        )
    for proto in packages.values():
        pool.Add(proto)
    return pool


class _Opaque:
    """Opaque values across the boundary: a message in CEL, a library value in Python."""

    def __init__(self, pool: Any) -> None:
        from google.protobuf import message_factory  # noqa: PLC0415

        self.messages: dict[type, Any] = {}  # library class -> message class
        self.readers: dict[Any, Callable[[str], object]] = {}  # message class -> reader
        for name, (kind, read) in library.OPAQUE_TYPES.items():
            message = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
            self.messages[kind] = message
            self.readers[message] = lru_cache(maxsize=4096)(read)

    def into(self, value: Any) -> Any:
        read = self.readers.get(type(value))
        return value if read is None else read(value.value)

    def out(self, value: Any) -> Any:
        if isinstance(value, list):  # format.named's list of one NamedFormat
            return [self.out(item) for item in value]
        message = self.messages.get(type(value))
        return value if message is None else self._message(message, value.text)

    @staticmethod
    @lru_cache(maxsize=4096)  # the engine copies a message it is given: one serves every call
    def _message(message: Any, text: str) -> Any:
        return message(value=text)

    def wrap(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        """``impl`` on library values; its result as CEL takes it."""

        def call(*args: Any) -> Any:
            check_budget()  # the review's budget, inside an evaluation that calls Python
            return self.out(impl(*(self.into(a) for a in args)))

        return call


def _decl(name: str, overloads: list[Any]) -> tuple[str, Any]:
    """A function declaration, with its name (cel-expr's declaration does not tell it)."""
    return name, cel.FunctionDecl(name, overloads)


def _declarations(quantities: _Opaque) -> list[tuple[str, Any]]:
    t = cel.Type
    quantity, string = t(QUANTITY), t.STRING
    types = {"bool": t.BOOL, "int": t.INT, "double": t.DOUBLE, "quantity": quantity}
    functions = [
        _decl(
            "quantity",
            [
                cel.Overload(
                    "string_to_quantity",
                    quantity,
                    [string],
                    impl=quantities.wrap(library.quantity),
                )
            ],
        ),
        _decl(
            "isQuantity",
            [cel.Overload("is_quantity_string", t.BOOL, [string], impl=library.is_quantity)],
        ),
    ]
    semver = t("kubernetes.Semver")
    for name, (impl, operand, result) in library.QUANTITY_MEMBERS.items():
        operands = [operand, "int"] if name in ("add", "sub") else [operand]
        overloads = [
            cel.Overload(
                f"quantity_{name}_{kind}",
                types[result],
                [quantity, types[kind]],
                is_member=True,
                impl=quantities.wrap(impl),
            )
            for kind in operands
        ]
        if name in library.SEMVER_COMPARISONS:  # the same implementation: one per runtime
            overloads.append(  # signature, and both are messages at run time
                cel.Overload(f"semver_{name}", types[result], [semver, semver], is_member=True)
            )
        functions.append(_decl(name, overloads))
    for name, (impl, result) in library.QUANTITY_UNARY.items():
        functions.append(
            _decl(
                name,
                [
                    cel.Overload(
                        f"quantity_{name}",
                        types[result],
                        [quantity],
                        is_member=True,
                        impl=quantities.wrap(impl),
                    )
                ],
            )
        )
    return [*functions, *_kubernetes_declarations(), *_net_declarations(quantities)]


def _net_declarations(opaque: _Opaque) -> list[tuple[str, Any]]:
    """Kubernetes' IP, CIDR and URL libraries, overloads as ``library.OPAQUE_FUNCTIONS``
    declares."""
    functions = []
    for name, (impl, overloads) in library.OPAQUE_FUNCTIONS.items():
        declared, runtime = [], set()
        for parameters, result in overloads:
            member = bool(parameters) and parameters[0] in library.OPAQUE_TYPES
            overload_id = "_".join(
                [name.replace(".", "_"), *(_signature_id(p) for p in parameters)]
            )
            # every opaque type is a message at run time: one implementation serves the
            # overloads that only the type checker tells apart (string() of an IP or a CIDR)
            kinds = tuple("message" if p in library.OPAQUE_TYPES else p for p in parameters)
            declared.append(
                cel.Overload(
                    overload_id,
                    _type(result),
                    [_type(p) for p in parameters],
                    is_member=member and name != "string",
                    **({} if kinds in runtime else {"impl": opaque.wrap(impl)}),
                )
            )
            runtime.add(kinds)
        if name == "string":
            declared = [*_string_overloads(), *declared]
        functions.append(_decl(name, declared))
    return functions


def _unchanged(expression: str) -> str:
    return expression


def _type(signature: str) -> Any:
    """A cel-expr type from the signatures of ``library`` (``list(T)``, ``map(K, V)``, a
    scalar, or an opaque type's name)."""
    t = cel.Type
    scalars = {"string": t.STRING, "bool": t.BOOL, "int": t.INT, "dyn": t.DYN}
    if signature in scalars:
        return scalars[signature]
    if signature.startswith("list(") and signature.endswith(")"):
        return t.List(_type(signature[5:-1]))
    if signature.startswith("map(") and signature.endswith(")"):
        key, _, value = signature[4:-1].partition(", ")
        return t.Map(_type(key), _type(value))
    return t(signature)


def _signature_id(signature: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", signature).strip("_")


def _member_with_an_int(
    name: str, overload_id: str, result: Any, parameters: list[Any], impl: Callable[..., Any]
) -> tuple[str, Any]:
    """A member function of ``parameters``, and of those and an int after them (one Python
    implementation, its last parameter optional)."""
    return _decl(
        name,
        [
            cel.Overload(overload_id, result, parameters, is_member=True, impl=impl),
            cel.Overload(
                f"{overload_id}_int", result, [*parameters, cel.Type.INT], is_member=True, impl=impl
            ),
        ],
    )


def _kubernetes_declarations() -> list[tuple[str, Any]]:
    """Kubernetes' lists and regex libraries and cel-go's sets extension (``library``), with
    Kubernetes' overloads (one per element type). cel-expr runs one implementation per
    runtime signature, and every ``list(T)`` is a list at run time: the first overload
    carries the one Python implementation, and returns dyn where the result is an element
    (its declared type converts the result)."""
    t = cel.Type
    comparable = [t.BYTES, t.INT, t.UINT, t.DOUBLE, t.BOOL, t.DURATION, t.TIMESTAMP, t.STRING]
    summable = [t.DURATION, t.INT, t.UINT, t.DOUBLE]
    members: dict[str, tuple[list[Any], bool]] = {  # name: (element types, returns one)
        "isSorted": (comparable, False),
        "sum": (summable, True),
        "min": (comparable, True),
        "max": (comparable, True),
    }
    functions = []
    for name, (elements, returns_element) in members.items():
        impl = library.LIST_FUNCTIONS[name][0]
        functions.append(
            _decl(
                name,
                [
                    cel.Overload(
                        f"list_{element.name().lower()}_{name}",
                        (t.DYN if i == 0 else element) if returns_element else t.BOOL,
                        [t.List(element)],
                        is_member=True,
                        **({"impl": impl} if i == 0 else {}),
                    )
                    for i, element in enumerate(elements)
                ],
            )
        )
    functions += _typed_declarations()
    elements = [*comparable, t.List(t.DYN), t.Map(t.DYN, t.DYN)]  # sets take any element
    for name, impl in library.SETS_FUNCTIONS.items():
        functions.append(
            _decl(
                name,
                [
                    cel.Overload(
                        f"{name.replace('.', '_')}_{_signature_id(element.name().lower())}",
                        t.BOOL,
                        [t.List(element), t.List(element)],
                        **({"impl": impl} if i == 0 else {}),
                    )
                    for i, element in enumerate(elements)
                ],
            )
        )
    dyns = t.List(t.DYN)
    any_members: dict[str, tuple[Callable[..., object], list[Any], Any, bool]] = {
        # Kubernetes' list.indexOf(A) merge with the strings extension's indexOf(string)
        "indexOf": (library.list_index_of, [dyns, t.DYN], t.INT, True),
        "lastIndexOf": (library.list_last_index_of, [dyns, t.DYN], t.INT, True),
        "fedgateMapOfPairs": (library.map_of_pairs, [dyns], t.Map(t.DYN, t.DYN), True),
        "fedgateMergeEntries": (library.merge_entries, [dyns], t.Map(t.DYN, t.DYN), True),
        # what ``rewrite`` makes of ``string()`` of a double, a duration or a timestamp
        "fedgateGoString": (library.go_string, [t.DYN, t.STRING], t.STRING, False),
    }
    for name, (function, parameters, result, member) in any_members.items():
        overload = f"list_{name}"
        functions.append(
            _decl(
                name,
                [cel.Overload(overload, result, parameters, is_member=member, impl=function)],
            )
        )
    string, strings = t.STRING, t.List(t.STRING)
    functions += [
        _member_with_an_int(  # what ``rewrite`` makes of ``substring``: cel-go's
            "fedgateSubstring",
            "string_fedgate_substring_int",
            string,
            [string, t.INT],
            library.substring,
        ),
        _decl(
            "fedgateFormat",  # what ``rewrite`` makes of ``format``: cel-go's formatter
            [
                cel.Overload(
                    "string_fedgate_format_list",
                    string,
                    [string, dyns],
                    is_member=True,
                    impl=_format,
                )
            ],
        ),
        _decl(
            "fedgateGetMilliseconds",  # what ``rewrite`` makes of ``getMilliseconds()``
            [
                cel.Overload(
                    "duration_fedgate_get_milliseconds",
                    t.INT,
                    [t.DURATION],
                    is_member=True,
                    impl=library.duration_milliseconds,
                ),
                cel.Overload(
                    "timestamp_fedgate_get_milliseconds",
                    t.INT,
                    [t.TIMESTAMP],
                    is_member=True,
                    impl=library.timestamp_milliseconds,
                ),
            ],
        ),
        _member_with_an_int(  # what ``rewrite`` makes of ``split``: Go's strings.SplitN
            "fedgateSplit", "string_fedgate_split_string", strings, [string, string], library.split
        ),
        _decl(
            "fedgateUnordered",  # what ``nanorder`` calls where an ordering meets a NaN
            [cel.Overload("fedgate_unordered", t.BOOL, [], impl=nanorder.unordered)],
        ),
        _decl(
            "fedgateRangeCount",  # what ``rewrite`` puts around ``lists.range``'s count
            [cel.Overload("fedgate_range_count_int", t.INT, [t.INT], impl=library.range_count)],
        ),
        _decl(
            "fedgateFlattenDepth",  # what ``rewrite`` puts around ``flatten``'s depth
            [cel.Overload("fedgate_flatten_depth_int", t.INT, [t.INT], impl=library.flatten_depth)],
        ),
        _decl(
            "fedgateIntOfBool",  # what ``rewrite`` calls for ``int()`` of a bool
            [cel.Overload("fedgate_int_of_bool", t.INT, [], impl=library.int_of_bool)],
        ),
        _decl(
            typeparam.UNRESOLVED,  # what ``typeparam`` calls for a conversion cel-go lacks
            [
                cel.Overload(
                    "fedgate_unresolved_string_dyn",
                    t.BOOL,  # never: it fails (cel-expr-python's functions return no dyn)
                    [string, t.DYN],
                    impl=library.unresolved_conversion,
                )
            ],
        ),
        _decl(
            "fedgateUtcOffset",  # what ``rewrite`` puts around ``timestamp()``'s string
            [cel.Overload("fedgate_utc_offset_string", string, [string], impl=library.utc_offset)],
        ),
        _decl(
            "find",
            [
                cel.Overload(
                    "string_find_string",
                    string,
                    [string, string],
                    is_member=True,
                    impl=library.regex_find,
                )
            ],
        ),
        _member_with_an_int(
            "findAll", "string_find_all_string", strings, [string, string], library.regex_find_all
        ),
    ]
    return functions


def _typed_declarations() -> list[tuple[str, Any]]:
    """``rewrite.TYPED``'s internal functions: one overload each, ``list(T) -> T``, whose
    declared result converts what Python hands back to a T (0 to a uint, a timedelta to a
    duration), and ``sum()`` of an empty list is the zero of T, as Kubernetes'
    ``zeroValuesOfSummableTypes``."""
    t = cel.Type
    kinds = {"double": t.DOUBLE, "uint": t.UINT, "duration": t.DURATION, "timestamp": t.TIMESTAMP}
    zeros: dict[str, object] = {"double": 0.0, "uint": 0, "duration": timedelta(0)}
    probe = cel.Overload("list_int_fedgate_probe", t.DYN, [t.List(t.INT)], is_member=True)
    functions = [_decl(rewrite.INT_PROBE, [probe])]
    for name, elements in rewrite.TYPED.items():
        impl = library.LIST_FUNCTIONS[name][0]
        for element in elements:
            internal = rewrite.typed_name(name, element)
            # min() and max() of an empty list fail whatever its type
            typed = _summing(impl, zeros[element], element) if name == "sum" else impl
            functions.append(
                _decl(
                    internal,
                    [
                        cel.Overload(
                            f"list_{element}_{internal}",
                            kinds[element],
                            [t.List(kinds[element])],
                            is_member=True,
                            impl=typed,
                        )
                    ],
                )
            )
    return functions


def _summing(impl: Callable[..., object], zero: object, element: str) -> Callable[..., object]:
    """``sum()`` of a ``list(element)``: the zero when empty; uints told apart from ints (the
    overflow is a uint's)."""
    if element == "uint":
        return lambda items: impl([library.Uint(i) for i in items]) if items else zero
    return lambda items: impl(items) if items else zero


_TYPE_NAMES = {
    "INT": "int",
    "UINT": "uint",
    "DOUBLE": "double",
    "BOOL": "bool",
    "STRING": "string",
    "BYTES": "bytes",
    "LIST": "list",
    "MAP": "map",
    "NULL": "null_type",
    "TYPE": "type",
    "TIMESTAMP": "google.protobuf.Timestamp",
    "DURATION": "google.protobuf.Duration",
}
"""cel-expr's type names -> cel-go's ``TypeName()``."""


def _format_value(value: Any, nested: bool = False) -> Any:
    """A ``format()`` argument as ``stringformat`` takes it: a type by cel-go's name (one it
    cannot name fails closed), the rest as it is. A map inside a list or a map fails closed
    unless its keys are strings: Python's dict has merged keys CEL tells apart (``true`` and
    ``1``, ``1u`` and ``1``), and only the size of a top-level map is checked."""
    if isinstance(value, list):
        return [_format_value(item, nested=True) for item in value]
    if isinstance(value, dict):
        if nested and not all(isinstance(key, str) for key in value):
            raise stringformat.FormatError(
                "format(): a map inside a list or map with keys other than strings is not "
                "formatted by fedgate (Python merges the keys true and 1, 1u and 1)"
            )
        return {key: _format_value(item, nested=True) for key, item in value.items()}
    if isinstance(value, cel.Type):
        name = str(value.name())
        base = name.partition("<")[0]
        if base in _TYPE_NAMES:
            return stringformat.TypeName(_TYPE_NAMES[base])
        if value.is_message() and "." in name:
            return stringformat.TypeName(name)
        raise stringformat.FormatError(f"format(): fedgate cannot name the type {name}")
    return value


def _format(text: str, packed: list[Any]) -> str:
    """cel-go's ``format()``: ``packed`` is ``[arguments, exact]`` (``rewrite``), each
    top-level timestamp and duration read back from its exact text, a map's size checked."""
    check_budget()
    arguments, texts = packed
    if not isinstance(arguments, list):
        raise stringformat.FormatError("no such overload: format() takes a list")
    values: list[Any] = []
    for value, exact in zip(arguments, texts, strict=True):
        if isinstance(value, datetime.datetime):
            values.append(stringformat.timestamp_of(exact))
        elif isinstance(value, datetime.timedelta):
            values.append(stringformat.duration_of(exact))
        elif isinstance(value, dict) and str(len(value)) != exact:
            raise stringformat.FormatError(
                "format(): a map with keys Python cannot tell apart (true and 1) is not "
                "formatted by fedgate"
            )
        else:
            values.append(_format_value(value))
    return stringformat.format_string(text, values)


_ORDERINGS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}
_ORDERING_EXCLUDED = (
    "stdlib:\n  exclude_functions:\n"
    + "".join(f"    - name: {name}\n" for name in [*_ORDERINGS, "string"])
    + "extensions:\n  - name: two-var-comprehensions\n  - name: lists\n"
)
"""cel-expr's standard <, <=, >, >= leave out int against double; Kubernetes enables
cross-type numeric comparisons (``5 < 10.0`` compiles). They are declared again below with
those overloads; cel-expr's runtime already compares across numeric types. And cel-cpp's
two-variable comprehensions (``all(i, v, ...)``, ``exists``, ``existsOne``, ``transformList``)
and lists extension (``sort``, ``sortBy``, ``distinct``, ``flatten``, ``slice``, ``reverse``,
``lists.range``), which Kubernetes enables from cel-go."""


def _string_overloads() -> list[Any]:
    """The standard ``string()`` conversions, declared again beside Kubernetes' ``string()``
    of an IP and a CIDR (cel-expr cannot add overloads to a standard function; its runtime
    keeps the standard implementations)."""
    t = cel.Type
    kinds = [t.BOOL, t.INT, t.UINT, t.DOUBLE, t.BYTES, t.STRING, t.TIMESTAMP, t.DURATION]
    return [cel.Overload(f"{k.name().lower()}_to_string", t.STRING, [k]) for k in kinds]


def _ordering_declarations() -> list[Any]:
    t = cel.Type
    same = [t.INT, t.UINT, t.DOUBLE, t.STRING, t.BOOL, t.BYTES, t.TIMESTAMP, t.DURATION]
    numbers = [t.INT, t.UINT, t.DOUBLE]
    pairs = [(a, a) for a in same] + [(a, b) for a in numbers for b in numbers if a != b]
    return [
        cel.FunctionDecl(
            operator,
            [
                cel.Overload(f"{name}_{a.name().lower()}_{b.name().lower()}", t.BOOL, [a, b])
                for a, b in pairs
            ],
        )
        for operator, name in _ORDERINGS.items()
    ]


def _format_arguments(tree: Any) -> set[int]:
    """The nodes inside the arguments of ``format()``: cel-go's homogeneous-literal check
    exempts them (the strings extension's ``'%d %s'.format([1, 'abc'])`` compiles)."""
    exempt: set[int] = set()
    for node in tree.iter_subtrees():
        if node.data == "member_dot_arg" and str(node.children[1]) == "format":
            exempt.update(id(inner) for inner in node.children[2].iter_subtrees())
    return exempt


def _literal_elements(node: Any) -> list[list[Any]]:
    """The element lists of a list or map literal node: its items; a map's keys and values."""
    if node.data == "list_lit" and node.children and node.children[0] is not None:
        return [list(node.children[0].children)]
    if node.data == "map_lit" and node.children and node.children[0] is not None:
        inits = node.children[0].children
        return [inits[0::2], inits[1::2]]
    return []


_Type = tuple[str, tuple[Any, ...]]
_OPEN_TYPES = frozenset({"dyn", "null", "null_type", "error"})


def _parse_type(name: str) -> _Type:
    """``list<list<int>>`` as ``('list', (('list', (('int', ()),)),))``."""
    head, _, rest = name.partition("<")
    if not rest:
        return head.strip(), ()
    parameters, depth, start = [], 0, 0
    body = rest[:-1]
    for index, char in enumerate(body):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parameters.append(_parse_type(body[start:index]))
            start = index + 1
    parameters.append(_parse_type(body[start:]))
    return head.strip(), tuple(parameters)


def _compatible(a: _Type, b: _Type) -> bool:
    """cel-go's assignability for literal elements: dyn (and null) go with anything; else the
    same type, parameters alike (``[[1], [2.0]]`` mixes list(int) and list(double))."""
    if a[0] in _OPEN_TYPES or b[0] in _OPEN_TYPES:
        return True
    return (
        a[0] == b[0]
        and len(a[1]) == len(b[1])
        and all(_compatible(x, y) for x, y in zip(a[1], b[1], strict=True))
    )


def _shown(kind: _Type) -> str:
    if not kind[1]:
        return kind[0]
    return f"{kind[0]}({', '.join(_shown(k) for k in kind[1])})"


_EMPTY_LITERAL = re.compile(r"(?<![\w.\s])\s*(\[\s*\]|\{\s*\})")


def _empty_literals_as_dyn(text: str) -> str:
    """An element's text with each empty list or map literal inside it read as ``dyn``. cel-go
    leaves such a literal's element type unresolved, and so what is made of it (``[].sortBy(x,
    string(x))``, ``[].sort()``: dyn in Kubernetes); cel-cpp's checker binds it to whatever
    an overload offers first (``list(bool)``, ``list(int)``), which made a literal holding
    ``[].sortBy(x, string(x)).max()`` and a string look mixed where Kubernetes compiles it.
    An element that is itself ``[]`` or ``{}`` keeps its own type (a list, a map)."""
    masked = rewrite.blanked(text)
    if masked.strip() in ("[]", "{}") or ("[" not in masked and "{" not in masked):
        return text
    spans = [found.span(1) for found in _EMPTY_LITERAL.finditer(masked)]
    for start, end in reversed(spans):
        text = text[:start] + "dyn(" + text[start:end] + ")" + text[end:]
    return text


_CONSTANT_PATTERN = re.compile(
    r"\.\s*(?P<name>find|findAll|matches)\s*\(\s*(?P<literal>[rR]?(?:'[^']*'|\"[^\"]*\"))\s*[,)]"
)
"""A member call whose pattern is one string literal (in the text with literals blanked)."""

_MERGED = (
    "indexOf",
    "lastIndexOf",
    "fedgateMapOfPairs",
    "fedgateMergeEntries",
    "fedgateGoString",
    typeparam.UNRESOLVED,
)
"""Names the strings extension already declares, and functions taking dyn (cel-expr
runs a dyn parameter only when an extension declares it)."""


class CelExprBackend:
    name = "cel-expr"

    def __init__(self) -> None:
        pool = _descriptors()
        declarations = _declarations(_Opaque(pool))
        self._env = cel.NewEnv(
            descriptor_pool=pool,
            config=cel.NewEnvConfigFromYaml(_ORDERING_EXCLUDED),
            variables={name: cel.Type.DYN for name in VARIABLES},
            extensions=[
                ext_strings.ExtStrings(2),  # Kubernetes 1.34's version: no reverse() of a string
                ext_optional.ExtOptional(),
                ext_math.ExtMath(),
                ext_bindings.ExtBindings(),
                # an extension, not ``functions``: its overloads merge with the standard
                # ``string()`` and the strings extension's ``indexOf`` / ``lastIndexOf``
                cel.CelExtension("kubernetes", [d for n, d in declarations if n in _MERGED]),
            ],
            functions=[
                *(d for n, d in declarations if n not in _MERGED),
                *_ordering_declarations(),
            ],
        )
        self.homogeneous: set[str] = set()
        """sha256 (hex) of expressions whose aggregate literals were found homogeneous:
        ``_mixed_literal`` (a parse with lark and a compile per element) is not run again
        for them; and, prefixed ``orderings:``, of those whose orderings ``nanorder`` left as
        they were (it parses with lark). A command fills it from an earlier run of the same
        code and engine (``compiler.compile.incremental``). Each memo holds only checks that
        found nothing, so it can only skip work that would change nothing."""

    def compile(self, expression: str) -> Any:
        internal = rewrite.uses_internal_name(expression)
        if internal is not None:
            raise CelCompileError(f"undeclared reference to '{internal}'")
        try:
            program = self._env.compile(
                rewrite.rewrite(self.typed(expression), self._orderings_checked)
            )
        except RuntimeError as exc:
            raise CelCompileError(_clean(str(exc))) from None
        mixed = self._mixed_literal(expression)
        if mixed is not None:
            raise CelCompileError(mixed)
        self._check_constant_patterns(expression)
        return program

    def typed(self, expression: str, names: tuple[str, ...] = tuple(rewrite.TYPED)) -> str:
        """``expression`` with each call of ``names`` (``sum()``, ``min()``, ``max()``) whose
        list is statically a ``list(T)`` of ``rewrite.TYPED`` calling T's internal function.
        The checker tells the type: the call renamed compiles only for that T, or for a
        ``list(dyn)`` (which also compiles as a ``list(int)``: left as it is, as the int's
        are)."""
        for start, end, name in rewrite.typed_call_sites(expression):
            if name not in names or self._compiles(
                expression[:start] + rewrite.INT_PROBE + expression[end:]
            ):
                continue  # a list(int) or list(dyn): the untyped call answers as Kubernetes
            for element in rewrite.TYPED[name]:
                typed = expression[:start] + rewrite.typed_name(name, element) + expression[end:]
                if self._compiles(typed):
                    expression = typed
                    break
        return expression

    def _orderings_checked(self, expression: str) -> str:
        """``nanorder.checked(expression)`` (a parse with lark where it has an ordering),
        remembered in ``homogeneous`` where it changes nothing, the usual case."""
        if "<" not in expression and ">" not in expression:
            return expression
        key = "orderings:" + hashlib.sha256(expression.encode()).hexdigest()
        if key in self.homogeneous:
            return expression
        checked = nanorder.checked(expression)
        if checked == expression:
            self.homogeneous.add(key)
        return checked

    def _compiles(self, expression: str) -> bool:
        try:  # the orderings' NaN check changes no type: not made for a probe
            self._env.compile(rewrite.rewrite(expression, _unchanged))
        except RuntimeError:
            return False
        return True

    def _check_constant_patterns(self, expression: str) -> None:
        """Kubernetes compiles a constant pattern of ``find``, ``findAll`` and ``matches`` when
        the program is built: an invalid one is a compile error there, so here too."""
        if not any(name in expression for name in ("find", "matches")):
            return
        masked = rewrite.blanked(expression)
        for found in _CONSTANT_PATTERN.finditer(masked):
            literal = expression[found.start("literal") : found.end("literal")]
            try:
                pattern = self._env.compile(literal).eval().plain_value()
                re2.compile(pattern)
            except re2.error as exc:
                reason = exc.args[0] if exc.args else exc
                if isinstance(reason, bytes):
                    reason = reason.decode("utf-8", "replace")
                raise CelCompileError(
                    f"invalid regular expression {pattern!r} in {found.group('name')}(): {reason}"
                ) from None
            except RuntimeError:
                continue  # not a plain literal after all: the engine judges it when it runs

    def _mixed_literal(self, expression: str) -> str | None:
        """Kubernetes compiles with homogeneous aggregate literals: ``[1, 'a']`` and
        ``{'a': 1, 'b': 'x'}`` do not compile; cel-expr would accept them. An element's type
        is what it compiles to on its own (dyn when it reads a comprehension's variable or
        the data: dyn goes with anything, as in cel-go)."""
        if "[" not in expression and "{" not in expression:
            return None
        key = hashlib.sha256(expression.encode()).hexdigest()
        if key in self.homogeneous:
            return None
        found = self._first_mixed_literal(expression)
        if found is None:
            self.homogeneous.add(key)
        return found

    def _first_mixed_literal(self, expression: str) -> str | None:
        try:
            tree = grammar.parse(expression)
        except Exception:
            return None
        exempt = _format_arguments(tree)
        for node in tree.iter_subtrees():
            if id(node) in exempt:
                continue
            for elements in _literal_elements(node):
                kinds = [self._type_of(expression, element) for element in elements]
                for i, first in enumerate(kinds):
                    other = next((k for k in kinds[i + 1 :] if not _compatible(first, k)), None)
                    if other is not None:
                        shown = ", ".join(sorted({_shown(first), _shown(other)}))
                        return (
                            f"mixed types in one literal ({shown}): Kubernetes refuses it at "
                            "compile time; convert the elements to one type"
                        )
        return None

    def _type_of(self, expression: str, element: Any) -> _Type:
        text = _empty_literals_as_dyn(expression[element.meta.start_pos : element.meta.end_pos])
        try:
            kind = self._env.compile(rewrite.rewrite(text)).return_type()
        except RuntimeError:
            return ("dyn", ())  # a comprehension variable, or an element that needs context
        return _parse_type(str(kind.name()).lower())

    def activation(self, variables: Mapping[str, Any]) -> Any:
        return self._env.Activation(dict(variables))

    def evaluate(self, program: Any, activation: Any) -> Any:
        check_budget()  # the review's budget, between expressions (cel-cpp cannot be stopped)
        try:
            value = program.eval(activation)
        except Exception as exc:  # the engine raises for errors in Python-side functions
            spent = current_budget()
            if spent is not None and spent.spent:  # a Python-side function found it spent
                spent.check()
            raise CelEvalError(_clean(str(exc))) from None
        try:
            plain = value.plain_value()
        except TypeError:  # a value Python cannot hold (an optional, a type...): not a result
            raise CelEvalError(
                "the result is not a value a rule can return (an optional?)"
            ) from None
        if plain is None or isinstance(plain, list | dict):
            _give_back_none_references(plain)
        if plain is True or plain is False:  # what rules return: never an error (the type
            return plain  # test costs as much again as the evaluation of a simple rule)
        if value.type() == cel.Type.ERROR:  # errors come back as values: never read as a pass
            raise CelEvalError(_clean(str(value.value())))
        return plain


_INCREF = ctypes.pythonapi.Py_IncRef
_INCREF.argtypes = [ctypes.py_object]
_INCREF.restype = None


def _give_back_none_references(plain: Any) -> None:
    """cel-expr-python 0.1.3's ``plain_value()`` hands out each CEL null as Python's None
    without counting the reference: every null in a result takes one from None, and when
    they run out the interpreter aborts (``none_dealloc``), in a long webhook process or at
    the exit of a test run. Each None in the result is given its reference back."""
    if plain is None:
        _INCREF(None)
    elif isinstance(plain, list):
        for item in plain:
            _give_back_none_references(item)
    elif isinstance(plain, dict):
        for key, item in plain.items():
            _give_back_none_references(key)
            _give_back_none_references(item)


_MISSING_KEY = re.compile(r'Key not found in map : "?(.*?)"?$')


def _clean(message: str) -> str:
    message = message.replace("INVALID_ARGUMENT: ", "").replace(" [INVALID_ARGUMENT]", "")
    message = _MISSING_KEY.sub(r"no such key: \1", message.replace("NOT_FOUND: ", ""))
    for internal, written in rewrite.INTERNAL.items():
        message = message.replace(internal, written)
    return message.strip()
