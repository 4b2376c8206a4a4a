"""Variations of Karmada's cases (``cases/variations.yaml``: odd selector operators, overriders
without an operator, override policies across namespaces, rules aimed at clusters by label and
field, claims, suspension), each deciding by the Karmada v1.18.0 code it names, through the
pure functions (``webhook.karmada.propagation.propagate``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.karmada.tables import (
    Observed,
    check_variation,
    policy_label,
    variation_cases,
    variation_clusters,
)
from webhook.karmada.detector import Policies, meta_str
from webhook.karmada.propagation import propagate
from webhook.karmada.validation import refusals


def _key(obj: dict[str, Any]) -> str:
    namespace = meta_str(obj, "namespace")
    return f"{obj['kind']} {namespace + '/' if namespace else ''}{meta_str(obj, 'name')}"


@pytest.mark.parametrize("row", variation_cases())
def test_variation(row: dict[str, Any]) -> None:
    objects = row["objects"]
    written = [o for o in objects if Policies.is_policy(o)]
    refused = [policy_label(p) for p in written if refusals(p)]
    assert sorted(refused) == sorted(row.get("refused", []))
    policies = Policies.of(written)
    templates = {_key(o): o for o in objects if not Policies.is_policy(o)}
    clusters = variation_clusters()
    for key, want in row["expect"].items():
        plan = propagate(templates[key], policies, clusters)
        seen = Observed(
            policy=plan.policy[2] if plan.policy else None,
            placement=tuple(plan.placement),
            clusters={c: m.object for c, m in plan.copies.items() if m.object is not None},
            overrides={c: m.overrides for c, m in plan.copies.items() if m.object is not None},
            suspended=plan.suspended,
        )
        check_variation(want, seen, key)
