"""The federation as Karmada's scheduler places it by the clusters' declared room: the
templates divided by capacity (Aggregated, dynamic weights) or placed under spread constraints
get the clusters and replicas the scheduler gives them (``bycapacity.py``,
``spreadgroups.py``), where ``propagate`` alone shows the most each cluster can get and every
candidate. The one division of both the everyday plan (``exact.py``) and the failover plan's
view before the failure.

Pure. The templates with a fixed division take their room first; then the others, in the
tree's order, each against the room the ones before it left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from compiler.argocd.manifests import Manifest
from compiler.plan.bycapacity import Room, request, room_note, strategy
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
    guessed: set[Identity] = field(default_factory=set)
    """Placed by the spread-constraint selection with room a candidate does not declare."""
    notes: dict[Identity, tuple[str, ...]] = field(default_factory=dict)
    """Why each template of ``exact`` or ``spread`` is placed so (the room, the groups)."""
    failed: dict[Identity, tuple[str, ...]] = field(default_factory=dict)
    """Templates Karmada's scheduler fails to place with the room every candidate declares,
    and why (their plan keeps the everyday placement)."""


def _later(plan: TemplatePlan, placement: Mapping[str, Any]) -> bool:
    """Placed by the clusters' room: divided by capacity (a workload), or spread constraints."""
    workload = plan.replicas is not None and plan.replicas.workload
    return (strategy(placement) is not None and workload) or active(placement)


def needs_room(plans: Sequence[Planned], policies: Mapping[Any, Any]) -> bool:
    """Whether any of ``plans`` is placed by the clusters' room (else ``settle`` changes none)."""
    return any(_later(plan, placement_of(plan, policies)) for _, plan in plans)


def settle(
    plans: Sequence[Planned], policies: Mapping[Any, Any], clusters: Mapping[str, Cluster]
) -> Settled:
    room = Room.of(clusters)
    later: list[int] = []
    for index, (_, plan) in enumerate(plans):
        if _later(plan, placement_of(plan, policies)):
            later.append(index)
    out = list(plans)
    exact: set[Identity] = set()
    spread: set[Identity] = set()
    guessed: set[Identity] = set()
    notes: dict[Identity, tuple[str, ...]] = {}
    failed: dict[Identity, tuple[str, ...]] = {}
    if not later:  # nothing placed by room: no need to count it
        return Settled(out, exact, spread, room)
    for index, (_, plan) in enumerate(plans):
        if index not in later:
            room.take(plan.placement, request(plan.template))
    for index in later:
        manifest, plan = plans[index]
        placement = placement_of(plan, policies)
        if active(placement):
            found = group(plan, placement, clusters, room)
            if found.guessed:
                guessed.add(manifest.identity)
            if found.placement is None:
                if not found.guessed:
                    failed[manifest.identity] = found.notes
                continue  # the scheduler fails: the everyday plan's placement stays
            spread.add(manifest.identity)
            if found.exact and strategy(placement) is not None:
                exact.add(manifest.identity)
            notes[manifest.identity] = found.notes
            new = replace(plan, placement=found.placement, alternative=found.alternative)
        else:
            divided = _by_room(plan, placement, room)
            if divided is None:
                continue
            if divided.placement is None:
                failed[manifest.identity] = divided.notes
                continue
            exact.add(manifest.identity)
            notes[manifest.identity] = divided.notes
            new = replace(plan, placement=divided.placement, alternative=divided.alternative)
        out[index] = (manifest, new)
        room.take(new.placement, request(plan.template))
    return Settled(out, exact, spread, room, guessed, notes, failed)


@dataclass(frozen=True)
class _Division:
    placement: dict[str, int | None] | None
    """None: the scheduler fails for want of room."""
    alternative: dict[str, int | None] | None
    notes: tuple[str, ...]


def _by_room(plan: TemplatePlan, placement: Mapping[str, Any], room: Room) -> _Division | None:
    """A first schedule divided by the room of the candidates (None: one declares none)."""
    kind = strategy(placement)
    one = request(plan.template)
    available = room.replicas(plan.placement, one)
    if available is None or kind is None or plan.replicas is None:
        return None
    result = scale_up(kind, plan.replicas.count, available)
    why = room_note(kind, available)
    if result.replicas is None:
        return _Division(
            None,
            None,
            (
                why,
                f"the candidates have room for {result.available} of its "
                f"{plan.replicas.count} replicas: Karmada's scheduler fails (not enough "
                "available replicas) and places it nowhere",
            ),
        )
    alternative: dict[str, int | None] | None = None
    if result.alternative is not None:
        alternative = dict(result.alternative)
    return _Division(dict(result.replicas), alternative, (why,))
