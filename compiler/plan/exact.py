"""The everyday plan's placements made exact by the clusters' declared room: the templates
divided by capacity (Aggregated, ``dynamicWeight: AvailableReplicas``) or placed under spread
constraints get the clusters and replicas Karmada's scheduler gives them, as ``plan --fail``
sees the federation before a failure (the one division: ``settle.py``).

Pure. Where a candidate declares no ``allocatable``, the template keeps the upper bound (each
candidate with the whole count) and its note says why; where the room every candidate declares
is too small, Karmada's scheduler fails and the template is placed nowhere, as the note says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from compiler.argocd.manifests import Manifest
from compiler.plan.settle import Planned, Settled, needs_room, placement_of, settle
from webhook.bundle.model import Bundle
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import TemplatePlan, propagate
from webhook.karmada.scheduler import Placement, candidates

GUESSED = (
    "spread constraints: the scheduler picks among the candidates by the room each has, which "
    "fedgate counts only when every candidate declares its allocatable (clusters.yaml): each "
    "candidate is shown, the most the constraints can pick"
)


def exact(
    planned: Sequence[Planned],
    policies: Policies,
    bundle: Bundle,
    context: Sequence[Planned] = (),
) -> list[Planned]:
    """``planned`` (as ``propagate`` placed them, with their member copies), each template
    placed by the room replaced by the scheduler's choice; ``context``: the other templates
    synced with them, which take room first (in their order) but are not returned."""
    if not needs_room(planned, policies.by_ref):
        return list(planned)
    settled = settle([*context, *planned], policies.by_ref, bundle.clusters)
    after = settled.plans[len(context) :]
    return [
        (manifest, _placed(manifest, (before, placed), settled, policies, bundle))
        for (manifest, before), (_, placed) in zip(planned, after, strict=True)
    ]


def _placed(
    manifest: Manifest,
    plans: tuple[TemplatePlan, TemplatePlan],
    settled: Settled,
    policies: Policies,
    bundle: Bundle,
) -> TemplatePlan:
    """The template as the scheduler places it by the room (``plans``: as ``propagate`` placed
    it, and as ``settle`` did)."""
    before, after = plans
    identity = manifest.identity
    if identity in settled.guessed:  # a guess: the everyday plan keeps the bound
        return replace(before, notes=(*before.notes, GUESSED))
    if identity in settled.failed:
        chosen: Mapping[str, int | None] = {}
        alternative = None
        why = settled.failed[identity]
    elif identity in settled.exact or identity in settled.spread:
        chosen, alternative, why = after.placement, after.alternative, settled.notes[identity]
    else:
        return before
    spec = placement_of(before, policies.by_ref)
    _, affinity_notes = candidates(spec, bundle.clusters)
    placed = Placement(chosen, alternative, (*affinity_notes, *why))
    return propagate(manifest.object, policies, bundle.clusters, placed=placed)
