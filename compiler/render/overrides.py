"""Step 4: the OverridePolicy, one rule per ``spec.overrides`` entry, in the spec's order.

A plaintext override may only write fields git owns: writing a field the ledger gives to an
autoscaler or to Karmada would make two writers fight over it.
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


def _check_ownership(r: Rendering, index: int, override: Override) -> None:
    for op_index, op in enumerate(override.plaintext):
        owner, owning = r.owner(workload.KIND, op.path)
        if owner != "git":
            r.report(
                ("spec", "overrides", index, "plaintext", op_index, "path"),
                f"{op.path} is owned by {owner} (ledger entry {owning}); two writers may not "
                "claim one field, so no override may write it"
                + (
                    ": bound replicas with spec.autoscaling instead"
                    if owning == "/spec/replicas"
                    else ""
                ),
            )


def render(r: Rendering) -> None:
    if not r.app.overrides:
        return
    rules = []
    for index, override in enumerate(r.app.overrides):
        _check_ownership(r, index, override)
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
