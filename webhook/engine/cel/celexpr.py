"""The default backend: cel-expr-python (Google's cel-cpp)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import (  # type: ignore[import-untyped]
    ext_bindings,
    ext_math,
    ext_optional,
    ext_strings,
)

from webhook.engine.cel import library
from webhook.engine.cel.backend import VARIABLES, CelCompileError, CelEvalError
from webhook.engine.cel.paths import STRING_LITERAL

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
        message = self.messages.get(type(value))
        return value if message is None else self._message(message, value.text)

    @staticmethod
    @lru_cache(maxsize=4096)  # the engine copies a message it is given: one serves every call
    def _message(message: Any, text: str) -> Any:
        return message(value=text)

    def wrap(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        """``impl`` on library values; its result as CEL takes it."""

        def call(*args: Any) -> Any:
            return self.out(impl(*(self.into(a) for a in args)))

        return call


def _declarations(quantities: _Opaque) -> list[Any]:
    t = cel.Type
    quantity, string = t(QUANTITY), t.STRING
    types = {"bool": t.BOOL, "int": t.INT, "double": t.DOUBLE, "quantity": quantity}
    functions = [
        cel.FunctionDecl(
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
        cel.FunctionDecl(
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
        functions.append(cel.FunctionDecl(name, overloads))
    for name, (impl, result) in library.QUANTITY_UNARY.items():
        functions.append(
            cel.FunctionDecl(
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


def _net_declarations(opaque: _Opaque) -> list[Any]:
    """Kubernetes' IP, CIDR and URL libraries, overloads as ``library.OPAQUE_FUNCTIONS``
    declares."""
    t = cel.Type
    types = {
        "string": t.STRING,
        "bool": t.BOOL,
        "int": t.INT,
        "map(string, list(string))": t.Map(t.STRING, t.List(t.STRING)),
    }
    functions = []
    for name, (impl, overloads) in library.OPAQUE_FUNCTIONS.items():
        declared = []
        for parameters, result in overloads:
            kinds = [types.get(p) or t(p) for p in parameters]
            member = parameters[0] in library.OPAQUE_TYPES
            overload_id = "_".join(
                [name.replace(".", "_"), *(p.replace(".", "_") for p in parameters)]
            )
            declared.append(
                cel.Overload(
                    overload_id,
                    types.get(result) or t(result),
                    kinds,
                    is_member=member,
                    impl=opaque.wrap(impl),
                )
            )
        functions.append(cel.FunctionDecl(name, declared))
    return functions


def _kubernetes_declarations() -> list[Any]:
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
            cel.FunctionDecl(
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
    for name, impl in library.SETS_FUNCTIONS.items():
        functions.append(
            cel.FunctionDecl(
                name,
                [
                    cel.Overload(
                        f"{name.replace('.', '_')}_{element.name().lower()}",
                        t.BOOL,
                        [t.List(element), t.List(element)],
                        **({"impl": impl} if i == 0 else {}),
                    )
                    for i, element in enumerate(comparable)
                ],
            )
        )
    string, strings = t.STRING, t.List(t.STRING)
    functions += [
        cel.FunctionDecl(
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
        cel.FunctionDecl(
            "findAll",
            [
                cel.Overload(
                    "string_find_all_string",
                    strings,
                    [string, string],
                    is_member=True,
                    impl=library.regex_find_all,
                ),
                cel.Overload(
                    "string_find_all_string_int",
                    strings,
                    [string, string, t.INT],
                    is_member=True,
                    impl=library.regex_find_all,
                ),
            ],
        ),
    ]
    return functions


_ORDERINGS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}
_ORDERING_EXCLUDED = (
    "stdlib:\n  exclude_functions:\n"
    + "".join(f"    - name: {name}\n" for name in _ORDERINGS)
    + "extensions:\n  - name: two-var-comprehensions\n  - name: lists\n"
)
"""cel-expr's standard <, <=, >, >= leave out int against double; Kubernetes enables
cross-type numeric comparisons (``5 < 10.0`` compiles). They are declared again below with
those overloads; cel-expr's runtime already compares across numeric types. And cel-cpp's
two-variable comprehensions (``all(i, v, ...)``, ``exists``, ``existsOne``, ``transformList``)
and lists extension (``sort``, ``sortBy``, ``distinct``, ``flatten``, ``slice``, ``reverse``,
``lists.range``), which Kubernetes enables from cel-go."""


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


def _literal_elements(node: Any) -> list[list[Any]]:
    """The element lists of a list or map literal node: its items; a map's keys and values."""
    if node.data == "list_lit" and node.children and node.children[0] is not None:
        return [list(node.children[0].children)]
    if node.data == "map_lit" and node.children and node.children[0] is not None:
        inits = node.children[0].children
        return [inits[0::2], inits[1::2]]
    return []


_MISSING_AT_RUN_TIME = re.compile(r"\.\s*(transformMap|transformMapEntry)\s*\(")
"""Declared by cel-cpp's two-variable comprehensions, but their runtime helper
(``cel.@mapInsert``) is missing from cel-expr-python: refused when compiling, not found when a
request comes."""


class CelExprBackend:
    name = "cel-expr"

    def __init__(self) -> None:
        pool = _descriptors()
        self._env = cel.NewEnv(
            descriptor_pool=pool,
            config=cel.NewEnvConfigFromYaml(_ORDERING_EXCLUDED),
            variables={name: cel.Type.DYN for name in VARIABLES},
            extensions=[
                ext_strings.ExtStrings(),
                ext_optional.ExtOptional(),
                ext_math.ExtMath(),
                ext_bindings.ExtBindings(),
            ],
            functions=[*_declarations(_Opaque(pool)), *_ordering_declarations()],
        )

    def compile(self, expression: str) -> Any:
        try:
            program = self._env.compile(expression)
        except RuntimeError as exc:
            raise CelCompileError(_clean(str(exc))) from None
        mixed = self._mixed_literal(expression)
        if mixed is not None:
            raise CelCompileError(mixed)
        missing = _MISSING_AT_RUN_TIME.search(STRING_LITERAL.sub("''", expression))
        if missing is not None:
            raise CelCompileError(
                f"{missing.group(1)}() is not available in fedgate's engine yet (cel-expr-python "
                "compiles it but cannot run it): write the rule without it"
            )
        return program

    def _mixed_literal(self, expression: str) -> str | None:
        """Kubernetes compiles with homogeneous aggregate literals: ``[1, 'a']`` and
        ``{'a': 1, 'b': 'x'}`` do not compile; cel-expr would accept them. An element's type
        is what it compiles to on its own (dyn when it reads a comprehension's variable or
        the data: dyn goes with anything, as in cel-go)."""
        if "[" not in expression and "{" not in expression:
            return None
        from celpy.celparser import CELParser  # noqa: PLC0415 - the parser, only for literals

        try:
            tree = CELParser().parse(expression)
        except Exception:
            return None
        for node in tree.iter_subtrees():
            groups = _literal_elements(node)
            for elements in groups:
                kinds = {self._type_of(expression, element) for element in elements} - {"dyn"}
                if len(kinds) > 1:
                    return (
                        f"mixed types in one literal ({', '.join(sorted(kinds))}): Kubernetes "
                        "refuses it at compile time; convert the elements to one type"
                    )
        return None

    def _type_of(self, expression: str, element: Any) -> str:
        text = expression[element.meta.start_pos : element.meta.end_pos]
        try:
            kind = self._env.compile(text).return_type()
        except RuntimeError:
            return "dyn"  # a comprehension variable, or an element that needs its context
        name = str(kind.name()).lower()
        if name.startswith("list"):
            return "list"
        if name.startswith("map"):
            return "map"
        return "dyn" if name in ("dyn", "null_type", "error") else name

    def activation(self, variables: Mapping[str, Any]) -> Any:
        return self._env.Activation(dict(variables))

    def evaluate(self, program: Any, activation: Any) -> Any:
        try:
            value = program.eval(activation)
        except Exception as exc:  # the engine raises for errors in Python-side functions
            raise CelEvalError(_clean(str(exc))) from None
        try:
            plain = value.plain_value()
        except TypeError:  # a value Python cannot hold (an optional, a type...): not a result
            raise CelEvalError(
                "the result is not a value a rule can return (an optional?)"
            ) from None
        if plain is True or plain is False:  # what rules return: never an error (the type
            return plain  # test costs as much again as the evaluation of a simple rule)
        if value.type() == cel.Type.ERROR:  # errors come back as values: never read as a pass
            raise CelEvalError(_clean(str(value.value())))
        return plain


def _clean(message: str) -> str:
    return message.replace("INVALID_ARGUMENT: ", "").replace(" [INVALID_ARGUMENT]", "").strip()
