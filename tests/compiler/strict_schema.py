"""A CRD's structural schema made strict for jsonschema: unknown fields rejected, int-or-string
understood (what the API server does that jsonschema does not)."""

from __future__ import annotations

from typing import Any


def strict(schema: Any) -> Any:
    """The structural schema with unknown fields rejected and int-or-string understood."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items() if not k.startswith("x-kubernetes-")}
    if schema.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if (
        schema.get("type") == "object"
        and "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out
