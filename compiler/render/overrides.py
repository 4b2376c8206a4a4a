"""Step 4: the OverridePolicy, one rule per ``spec.overrides`` entry, in the spec's order.

Whether an override writes a field someone other than git owns is the rule engine's
``retain.override-owned-field``, which compile runs on this object like on every other.
"""

from __future__ import annotations

from typing import Any

from compiler.render import workload
from compiler.render.context import Rendering
from compiler.spec.model import Override

KIND = "OverridePolicy"


def _overriders(r: Rendering, override: Override) -> dict[str, Any]:
    overriders: dict[str, Any] = {}
    image = []
    if override.image_registry:
        image.append(
            {"component": "Registry", "operator": "replace", "value": override.image_registry}
        )
    if override.image_tag:
        image.append({"component": "Tag", "operator": "replace", "value": override.image_tag})
    if image:
        overriders["imageOverrider"] = image
    if override.args:
        overriders["argsOverrider"] = [
            {"containerName": r.app.name, "operator": "add", "value": list(override.args)}
        ]
    if override.labels:
        overriders["labelsOverrider"] = [{"operator": "add", "value": dict(override.labels)}]
    if override.annotations:
        overriders["annotationsOverrider"] = [
            {"operator": "add", "value": dict(override.annotations)}
        ]
    if override.plaintext:
        overriders["plaintext"] = [
            {"path": op.path, "operator": op.operator}
            | ({} if op.operator == "remove" else {"value": op.value})
            for op in override.plaintext
        ]
    return overriders


def render(r: Rendering) -> None:
    if not r.app.overrides:
        return
    rules = []
    for override in r.app.overrides:
        rule: dict[str, Any] = {}
        if override.target is not None:
            rule["targetCluster"] = override.target.affinity()
        rule["overriders"] = _overriders(r, override)
        rules.append(rule)
    r.add(
        KIND,
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": KIND,
            "metadata": r.metadata(),
            "spec": {
                "resourceSelectors": [r.selector("apps/v1", workload.KIND)],
                "overrideRules": rules,
            },
        },
    )
