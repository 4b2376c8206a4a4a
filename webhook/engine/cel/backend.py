"""The interface the engine uses for CEL, and the choice between the two engines.

- ``cel-expr`` (default): Google's cel-cpp through cel-expr-python, about 0.3 ms for 20
  VAP-style expressions. It returns evaluation errors as values of type ERROR: every result is
  checked here, so a failing rule never reads as a pass.
- ``cel-python``: the pure-Python ``celpy``, about 90x slower, selectable with
  ``FEDGATE_CEL_BACKEND`` / ``--cel-backend``; a conformance test holds both to the same
  decisions on every shipped rule.

A Backend compiles once (per worker process: neither engine's environment may be shared across
threads while compiling) and evaluates many times; one activation per request serves every
expression of every rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

VARIABLES = (
    "object",
    "oldObject",
    "request",
    "params",
    "tenant",
    "clusters",
    "cluster",
    "namespaceObject",
    "variables",
)
BACKENDS = ("cel-expr", "cel-python")
DEFAULT_BACKEND = "cel-expr"


class CelCompileError(ValueError):
    """An expression does not compile; the message says where."""


class CelEvalError(RuntimeError):
    """An expression could not be evaluated for this request (missing field, type error...)."""


class Backend(Protocol):
    name: str

    @property
    def homogeneous(self) -> set[str]:
        """sha256 (hex) of expressions known to pass the compile-time checks fedgate adds to
        the engine's (Kubernetes' homogeneous literals): a memo a command keeps between runs."""

    def compile(self, expression: str) -> Any:
        """A program for ``expression``; raises CelCompileError."""

    def activation(self, variables: Mapping[str, Any]) -> Any:
        """One request's variables, converted once for every program."""

    def evaluate(self, program: Any, activation: Any) -> Any:
        """The plain Python result; raises CelEvalError."""


def make_backend(name: str = DEFAULT_BACKEND) -> Backend:
    """A fresh backend (compile every program of a bundle with one, per process)."""
    if name == "cel-expr":
        from webhook.engine.cel.celexpr import CelExprBackend  # noqa: PLC0415 - load one engine

        return CelExprBackend()
    if name == "cel-python":
        from webhook.engine.cel.celpython import CelPythonBackend  # noqa: PLC0415

        return CelPythonBackend()
    raise ValueError(f"unknown CEL backend {name!r}; choose one of {', '.join(BACKENDS)}")
