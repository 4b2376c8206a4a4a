"""``propagate(..., members=False)``, the placement without member copies that ``plan --fail``
asks for, against the whole path: the same placement, tie and notes on Karmada's own e2e trees
(``cases/e2e.yaml``)."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.plan.tree import is_template, policies_of
from tests.webhook.karmada.tables import e2e_cases, e2e_clusters
from webhook.karmada.propagation import propagate


@pytest.mark.parametrize("row", e2e_cases())
def test_placement_only_agrees_with_the_whole_path(row: dict[str, Any]) -> None:
    clusters = e2e_clusters(row)
    objects = [o for o in row["objects"] if isinstance(o, dict)]
    policies = policies_of(objects)
    for obj in (o for o in objects if is_template(o)):
        whole = propagate(obj, policies, clusters)
        placed = propagate(obj, policies, clusters, members=False)
        assert placed.copies == {}
        assert (placed.policy, dict(placed.placement), placed.alternative, placed.notes) == (
            whole.policy,
            dict(whole.placement),
            whole.alternative,
            whole.notes,
        )
        assert (placed.replicas, placed.suspended) == (whole.replicas, whole.suspended)
