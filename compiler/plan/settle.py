"""The failover plan's view of the federation before the failure: the templates divided by
capacity (Aggregated, dynamic weights) or placed under spread constraints get the clusters and
replicas Karmada's scheduler gives them (``bycapacity.py``, ``spreadgroups.py``), where the
everyday plan shows the most each cluster can get and every candidate.

Pure. The templates with a fixed division take their room first; then the others, in the
tree's order, each against the room the ones before it left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from compiler.manifests import Manifest
from compiler.plan.bycapacity import Room, request, strategy
from compiler.plan.spreadgroups import active, group
from webhook.bundle.model import Cluster
from webhook.karmada.dynamic import scale_up
from webhook.karmada.propagation import TemplatePlan

Planned = tuple[Manifest, TemplatePlan]
Identity = tuple[str, str, str, str]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def placement_of(plan: TemplatePlan, policies: Mapping[Any, Any]) -> Mapping[str, Any]:
    """The claiming policy's ``spec.placement`` (empty when nothing claims the template)."""
    if plan.policy is None:
        return {}
    policy = _mapping(policies.get(plan.policy))
    return _mapping(_mapping(policy.get("spec")).get("placement"))


@dataclass(frozen=True)
class Settled:
    plans: list[Planned]
    exact: set[Identity]
    """Divided by capacity from the declared room (no upper bound left)."""
    spread: set[Identity]
    """Placed by the spread-constraint selection."""
    room: Room
    """Each declaring cluster's room with everything placed: the clusters before a failure."""


def settle(
    plans: Sequence[Planned], policies: Mapping[Any, Any], clusters: Mapping[str, Cluster]
) -> Settled:
    room = Room.of(clusters)
    later: list[int] = []
    for index, (_, plan) in enumerate(plans):
        placement = placement_of(plan, policies)
        dynamic = strategy(placement) is not None and plan.replicas is not None
        if dynamic or active(placement):
            later.append(index)
            continue
        room.take(plan.placement, request(plan.template))
    out = list(plans)
    exact: set[Identity] = set()
    spread: set[Identity] = set()
    for index in later:
        manifest, plan = plans[index]
        placement = placement_of(plan, policies)
        if active(placement):
            found = group(plan, placement, clusters, room)
            if found.placement is None:
                continue  # the scheduler fails: the everyday plan's placement stays
            spread.add(manifest.identity)
            if found.exact and strategy(placement) is not None:
                exact.add(manifest.identity)
            new = replace(plan, placement=found.placement, alternative=found.alternative)
        else:
            divided = _by_room(plan, placement, room)
            if divided is None:
                continue
            exact.add(manifest.identity)
            new = divided
        out[index] = (manifest, new)
        room.take(new.placement, request(plan.template))
    return Settled(out, exact, spread, room)


def _by_room(plan: TemplatePlan, placement: Mapping[str, Any], room: Room) -> TemplatePlan | None:
    """A first schedule divided by the room of the candidates (None: one declares none, or
    the room is too small and Karmada's scheduler fails)."""
    kind = strategy(placement)
    one = request(plan.template)
    available = room.replicas(plan.placement, one)
    if available is None or kind is None or plan.replicas is None:
        return None
    result = scale_up(kind, plan.replicas.count, available)
    if result.replicas is None:
        return None
    alternative = dict(result.alternative) if result.alternative is not None else None
    return replace(plan, placement=dict(result.replicas), alternative=alternative)
