"""Tests on JSON values that the hot paths share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, with the exact test for dict first: JSON and YAML give
    dicts, and the ABC check alone costs five times this whole call (321 against 59 ns here),
    which a review of a PropagationPolicy paid 18 times."""
    return type(value) is dict or isinstance(value, Mapping)
