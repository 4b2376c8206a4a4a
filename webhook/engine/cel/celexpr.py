"""The default backend: cel-expr-python (Google's cel-cpp)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import ext_math, ext_optional, ext_strings  # type: ignore[import-untyped]

from webhook.engine.cel import library
from webhook.engine.cel.backend import VARIABLES, CelCompileError, CelEvalError

QUANTITY = "kubernetes.Quantity"


def _descriptors() -> Any:
    """A descriptor pool with the message types that stand for Kubernetes' opaque CEL types
    (cel-expr-python cannot hold a Python object): ``kubernetes.Quantity`` carries its exact
    value as text. A message type, unlike a double, has no ``<`` or ``+``, and two are equal
    when their fields are: the exact value, so ``quantity('1') == quantity('1000m')``."""
    from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: PLC0415

    proto = descriptor_pb2.FileDescriptorProto(
        name="fedgate_kubernetes_cel.proto", package="kubernetes", syntax="proto3"
    )
    message = proto.message_type.add(name="Quantity")
    message.field.add(
        name="value",
        number=1,
        type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
        label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return pool


class _Quantities:
    """Quantities across the boundary: a message in CEL, a ``library.Quantity`` in Python."""

    def __init__(self, pool: Any) -> None:
        from google.protobuf import message_factory  # noqa: PLC0415

        self.message = message_factory.GetMessageClass(pool.FindMessageTypeByName(QUANTITY))

    def out(self, value: library.Quantity) -> Any:
        return self.message(value=value.text)

    @staticmethod
    @lru_cache(maxsize=4096)
    def _parse(text: str) -> library.Quantity:
        return library.Quantity(Fraction(text))

    def into(self, message: Any) -> library.Quantity:
        return self._parse(message.value)

    def wrap(self, impl: Callable[..., Any], result: str) -> Callable[..., Any]:
        """``impl`` on library values; its result as CEL takes it."""

        def call(*args: Any) -> Any:
            value = impl(*(self.into(a) if isinstance(a, self.message) else a for a in args))
            return self.out(value) if result == "quantity" else value

        return call


def _declarations(quantities: _Quantities) -> list[Any]:
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
                    impl=quantities.wrap(library.quantity, "quantity"),
                )
            ],
        ),
        cel.FunctionDecl(
            "isQuantity",
            [cel.Overload("is_quantity_string", t.BOOL, [string], impl=library.is_quantity)],
        ),
    ]
    for name, (impl, operand, result) in library.QUANTITY_MEMBERS.items():
        operands = [operand, "int"] if name in ("add", "sub") else [operand]
        functions.append(
            cel.FunctionDecl(
                name,
                [
                    cel.Overload(
                        f"quantity_{name}_{kind}",
                        types[result],
                        [quantity, types[kind]],
                        is_member=True,
                        impl=quantities.wrap(impl, result),
                    )
                    for kind in operands
                ],
            )
        )
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
                        impl=quantities.wrap(impl, result),
                    )
                ],
            )
        )
    return [*functions, *_kubernetes_declarations()]


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


class CelExprBackend:
    name = "cel-expr"

    def __init__(self) -> None:
        pool = _descriptors()
        self._env = cel.NewEnv(
            descriptor_pool=pool,
            variables={name: cel.Type.DYN for name in VARIABLES},
            extensions=[ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_math.ExtMath()],
            functions=_declarations(_Quantities(pool)),
        )

    def compile(self, expression: str) -> Any:
        try:
            return self._env.compile(expression)
        except RuntimeError as exc:
            raise CelCompileError(_clean(str(exc))) from None

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
