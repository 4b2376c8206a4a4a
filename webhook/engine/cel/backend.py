"""The interface the engine uses for CEL: what a backend does, its errors and the variables
a rule may read. A leaf: each engine (``celexpr.py``, ``celpython.py``) implements it, and
``engines.py`` chooses one.

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
