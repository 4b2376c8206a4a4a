"""Comparing fedgate's CEL answers with the Kubernetes oracle's: one canonical, typed form."""

from __future__ import annotations

import base64
import json
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webhook.engine.cel.backend import Backend
from webhook.engine.cel.evaluate import run

CANNOT = "cel-python cannot run"
"""How cel-python names a construct it refuses at load (failing closed, never answering)."""


def _double(bits: float) -> list[Any]:
    if math.isnan(bits):
        return ["double", "nan"]
    return ["double", struct.pack(">d", bits).hex()]


def ours(value: Any) -> list[Any]:
    """fedgate's plain result in the oracle's tagged form (opaque values by class only)."""
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, str):
        return ["string", value]
    if isinstance(value, bytes | bytearray):
        return ["bytes", base64.b64encode(bytes(value)).decode()]
    if isinstance(value, list):
        return ["list", [ours(v) for v in value]]
    if isinstance(value, dict):
        return ["map", sorted(([ours(k), ours(v)] for k, v in value.items()), key=json.dumps)]
    return ["opaque"]


def theirs(value: list[Any]) -> list[Any]:
    """The oracle's tagged value, with what a Python result cannot tell apart made alike: a
    uint is an int, a type, optional or library object is opaque."""
    kind = value[0]
    if kind == "uint":
        return ["int", value[1]]
    if kind == "double":
        (number,) = struct.unpack(">d", bytes.fromhex(value[1].rjust(16, "0")))
        return _double(number)
    if kind == "list":
        return ["list", [theirs(v) for v in value[1]]]
    if kind == "map":
        return ["map", sorted(([theirs(k), theirs(v)] for k, v in value[1]), key=json.dumps)]
    if kind in ("type", "opaque", "optional"):
        return ["opaque"]
    return value


@dataclass(frozen=True)
class Verdict:
    """One case: ``same``, ``refused`` (fedgate fails closed on a construct it names) or
    ``mismatch``, with both answers for the report."""

    outcome: str
    ours: Any
    theirs: Any


def compare(backend: Backend, case: Mapping[str, Any], answer: Mapping[str, Any]) -> Verdict:
    done = run(backend, case["expr"], case.get("vars", {}))
    if "compile" in answer:
        their: Any = ("compile", answer["compile"])
    elif "error" in answer:
        their = ("error", answer["error"])
    else:
        their = ("value", theirs(answer["value"]))
    if done.stage == "value":
        mine: Any = ("value", ours(done.value))
    else:
        mine = ({"eval": "error"}.get(done.stage, done.stage), done.error)
    if mine[0] == "value" and their[0] == "value":
        return Verdict("same" if mine[1] == their[1] else "mismatch", mine, their)
    if mine[0] == their[0]:
        return Verdict("same", mine, their)
    if mine[0] == "input" or (mine[0] == "compile" and CANNOT in str(mine[1])):
        return Verdict("refused", mine, their)
    return Verdict("mismatch", mine, their)


def without_nulls(value: Any) -> Any:
    """``value`` with the null map entries dropped, as the API server's decoding into a
    built-in kind's Go type leaves it (a null field is absent there): the object a
    ValidatingAdmissionPolicy sees for a Pod. CEL itself keeps nulls (``cel.values``)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value
