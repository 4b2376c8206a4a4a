"""One CEL expression over given variables, as a rule would see them: ``fedgate cel eval``.

Pure: the shell reads the files. The variables go through what review() does to them (a null
is kept, as Kubernetes' admission CEL keeps it; a value no engine represents is an error
naming the field), so an expression gives here what it gives in a rule.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webhook.engine.cel import library
from webhook.engine.cel.backend import VARIABLES, Backend, CelCompileError, CelEvalError
from webhook.engine.cel.values import problems

TIMINGS = 5
"""Evaluations timed after the first (the median is reported)."""


@dataclass(frozen=True)
class Outcome:
    """A value (as JSON, with its CEL type) or an error; and how long evaluating took."""

    value: Any = None
    type: str = ""
    error: str | None = None
    microseconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "error": self.error}


@dataclass(frozen=True)
class Run:
    """What one evaluation came to, before any timing: the plain value, or the stage that
    stopped it (``input``: a variable no engine represents; ``compile``; ``eval``) and why."""

    stage: str
    value: Any = None
    error: str | None = None
    program: Any = None
    activation: Any = None


def run(backend: Backend, expression: str, variables: Mapping[str, Any]) -> Run:
    """``expression`` over ``variables`` (only CEL's variables: object, oldObject, request,
    params, tenant, clusters, cluster, namespaceObject), once."""
    unknown = sorted(set(variables) - set(VARIABLES))
    if unknown:
        names = ", ".join(unknown)
        return Run("input", error=f"unknown variable {names}: use {', '.join(VARIABLES)}")
    found = [
        f"{where} {why}"
        for name, value in variables.items()
        for where, why in problems(value, name)
    ]
    if found:
        return Run("input", error="; ".join(found))
    try:
        program = backend.compile(expression)
    except CelCompileError as exc:
        return Run("compile", error=f"does not compile: {exc}")
    activation = backend.activation(dict(variables))
    try:
        value = backend.evaluate(program, activation)
    except CelEvalError as exc:
        return Run("eval", error=str(exc))
    return Run("value", value, None, program, activation)


def evaluate(backend: Backend, expression: str, variables: Mapping[str, Any]) -> Outcome:
    """``expression`` over ``variables``: its value as JSON and the median of warm runs."""
    done = run(backend, expression, variables)
    if done.stage != "value":
        return Outcome(error=done.error)
    samples = []
    for _ in range(TIMINGS):  # warm, as a rule evaluates in the webhook
        start = time.perf_counter_ns()
        backend.evaluate(done.program, done.activation)
        samples.append((time.perf_counter_ns() - start) / 1000)
    elapsed = statistics.median(samples)
    plain, kind = as_json(done.value)
    return Outcome(plain, kind, None, elapsed)


def as_json(value: Any) -> tuple[Any, str]:
    """A result as JSON and the name of its CEL type (an opaque value as its text)."""
    if value is None:
        return None, "null_type"
    if isinstance(value, bool):
        return value, "bool"
    if isinstance(value, int):
        return value, "int"
    if isinstance(value, float):
        return value, "double"
    if isinstance(value, str):
        return value, "string"
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace"), "bytes"
    if isinstance(value, list):
        return [as_json(v)[0] for v in value], "list"
    if isinstance(value, dict):
        return {str(k): as_json(v)[0] for k, v in value.items()}, "map"
    for name, (kind, _) in library.OPAQUE_TYPES.items():
        if isinstance(value, kind):
            return _text(value), name
    descriptor = getattr(value, "DESCRIPTOR", None)  # cel-expr: an opaque value's message
    if descriptor is not None and descriptor.full_name in library.OPAQUE_TYPES:
        read = library.OPAQUE_TYPES[descriptor.full_name][1]
        return _text(read(value.value)), descriptor.full_name
    return str(value), type(value).__name__


def _text(value: Any) -> str:
    if isinstance(value, library.Quantity):
        whole = value.value.denominator == 1
        return str(value.value.numerator) if whole else str(float(value.value))
    return str(value.text)
