"""The default backend: cel-expr-python (Google's cel-cpp)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import ext_math, ext_optional, ext_strings  # type: ignore[import-untyped]

from webhook.engine.cel import library
from webhook.engine.cel.backend import VARIABLES, CelCompileError, CelEvalError

_TYPES = {"bool": cel.Type.BOOL, "int": cel.Type.INT, "double": cel.Type.DOUBLE}


def _declarations() -> list[Any]:
    double, string = cel.Type.DOUBLE, cel.Type.STRING
    functions = [
        cel.FunctionDecl(
            "quantity", [cel.Overload("quantity_string", double, [string], impl=library.quantity)]
        ),
        cel.FunctionDecl(
            "isQuantity",
            [cel.Overload("isQuantity_string", cel.Type.BOOL, [string], impl=library.is_quantity)],
        ),
    ]
    for name, (impl, result) in library.MEMBER_FUNCTIONS.items():
        functions.append(
            cel.FunctionDecl(
                name,
                [
                    cel.Overload(
                        f"{name}_double_double",
                        _TYPES[result],
                        [double, double],
                        is_member=True,
                        impl=impl,
                    )
                ],
            )
        )
    for name, (impl, result) in library.UNARY_MEMBER_FUNCTIONS.items():
        functions.append(
            cel.FunctionDecl(
                name,
                [
                    cel.Overload(
                        f"{name}_double", _TYPES[result], [double], is_member=True, impl=impl
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
        self._env = cel.NewEnv(
            variables={name: cel.Type.DYN for name in VARIABLES},
            extensions=[ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_math.ExtMath()],
            functions=_declarations(),
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
