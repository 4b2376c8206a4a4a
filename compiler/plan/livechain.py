"""The live chain of one resource template, side by side with what ``fedgate plan`` predicts.

Karmada turns a template into: the policy that claimed it (its ``permanent-id`` label on the
template, the policy's name in an annotation), a ResourceBinding (the scheduler's clusters and
replicas), one Work per cluster in ``karmada-es-<cluster>`` (applied or not), and each member's
own object (replicas, ready replicas where the member reports them, images). ``fedgate trace``
fetches that chain (``commands/trace.py``); this module lines it up with the plan of the same
template and names every difference, so a user sees where reality left the plan: the
scheduler chose other clusters, a Work is not applied, a member's object was edited by hand.

Pure: objects and a plan in, a :class:`Chain` out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webhook.karmada.propagation import TemplatePlan

CLAIMS = (
    ("PropagationPolicy", "propagationpolicy.karmada.io"),
    ("ClusterPropagationPolicy", "clusterpropagationpolicy.karmada.io"),
)
"""The two claims Karmada's detector writes on a template: a label ``<prefix>/permanent-id``
(the policy's own label of that name) and annotations ``<prefix>/name`` (and ``/namespace``)."""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _metadata(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return _mapping((obj or {}).get("metadata"))


def binding_name(kind: str, name: str) -> str:
    """``names.GenerateBindingName`` (karmada v1.18 pkg/util/names)."""
    return (name.replace(":", ".") + "-" + kind).lower()


def claim(template: Mapping[str, Any]) -> tuple[str, str, str, str] | None:
    """(kind, namespace, name, permanent-id) of the policy that claimed ``template``, as
    Karmada's detector marked it; None when nothing claimed it."""
    labels = _mapping(_metadata(template).get("labels"))
    annotations = _mapping(_metadata(template).get("annotations"))
    for kind, prefix in CLAIMS:
        permanent = labels.get(f"{prefix}/permanent-id")
        if permanent:
            return (
                kind,
                str(annotations.get(f"{prefix}/namespace") or ""),
                str(annotations.get(f"{prefix}/name") or ""),
                str(permanent),
            )
    return None


def replicas_of(obj: Mapping[str, Any] | None) -> int | None:
    value = _mapping((obj or {}).get("spec")).get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def images_of(obj: Mapping[str, Any] | None) -> dict[str, str]:
    """container name -> image, containers and init containers of the pod template."""
    spec = _mapping(_mapping(_mapping((obj or {}).get("spec")).get("template")).get("spec"))
    found = {}
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if isinstance(container, Mapping):
                found[str(container.get("name"))] = str(container.get("image"))
    return found


def _applied(work: Mapping[str, Any] | None) -> bool | None:
    if work is None:
        return None
    conditions = _mapping(work.get("status")).get("conditions") or []
    return any(
        isinstance(c, Mapping) and c.get("type") == "Applied" and c.get("status") == "True"
        for c in conditions
    )


@dataclass(frozen=True)
class Member:
    """One cluster of the chain: scheduled, dispatched, running, and planned."""

    cluster: str
    scheduled: int | None = None
    """The binding's replicas for the cluster (None: not scheduled there, or not divided)."""
    in_binding: bool = False
    work: str | None = None
    applied: bool | None = None
    live: Mapping[str, Any] | None = None
    planned: Mapping[str, Any] | None = None
    in_plan: bool = False

    def as_json(self) -> dict[str, Any]:
        status = _mapping((self.live or {}).get("status"))
        return {
            "cluster": self.cluster,
            "scheduled": self.scheduled if self.in_binding else None,
            "work": self.work,
            "applied": self.applied,
            "live": None
            if self.live is None
            else {
                "replicas": replicas_of(self.live),
                "readyReplicas": status.get("readyReplicas"),
                "images": images_of(self.live),
            },
            "planned": None
            if not self.in_plan
            else {"replicas": replicas_of(self.planned), "images": images_of(self.planned)},
        }


@dataclass(frozen=True)
class Chain:
    """The template, its claim, its binding, each cluster; and how it differs from the plan."""

    template: Mapping[str, Any]
    claimed: tuple[str, str, str, str] | None
    policy: Mapping[str, Any] | None
    binding: Mapping[str, Any] | None
    members: tuple[Member, ...]
    predicted: tuple[str, str, str] | None
    """(kind, namespace, name) of the policy the plan says claims the template."""
    differences: tuple[str, ...] = field(default=())

    def as_json(self) -> dict[str, Any]:
        metadata = _metadata(self.template)
        return {
            "template": {
                "apiVersion": self.template.get("apiVersion"),
                "kind": self.template.get("kind"),
                "namespace": metadata.get("namespace"),
                "name": metadata.get("name"),
                "replicas": replicas_of(self.template),
            },
            "policy": None
            if self.claimed is None
            else {
                "kind": self.claimed[0],
                "namespace": self.claimed[1] or None,
                "name": self.claimed[2],
                "permanentId": self.claimed[3],
                "found": self.policy is not None,
            },
            "predictedPolicy": None
            if self.predicted is None
            else dict(zip(("kind", "namespace", "name"), self.predicted, strict=True)),
            "binding": None if self.binding is None else _metadata(self.binding).get("name"),
            "clusters": [m.as_json() for m in self.members],
            "differences": list(self.differences),
        }


def _scheduled(binding: Mapping[str, Any] | None) -> dict[str, int | None]:
    found: dict[str, int | None] = {}
    for target in _mapping((binding or {}).get("spec")).get("clusters") or []:
        if isinstance(target, Mapping) and isinstance(target.get("name"), str):
            replicas = target.get("replicas")
            found[target["name"]] = replicas if isinstance(replicas, int) else None
    return found


def _claim_differences(
    claimed: tuple[str, str, str, str] | None,
    policy: Mapping[str, Any] | None,
    predicted: tuple[str, str, str] | None,
) -> list[str]:
    if claimed is None:
        return [] if predicted is None else [f"no policy claimed it; plan: {' '.join(predicted)}"]
    kind, namespace, name, permanent = claimed
    named = f"{kind} {'/'.join(p for p in (namespace, name) if p)}"
    found = []
    if policy is None:
        found.append(f"claimed by {named}, which does not exist (deleted since?)")
    else:
        labels = _mapping(_metadata(policy).get("labels"))
        prefix = dict(CLAIMS)[kind]
        if labels.get(f"{prefix}/permanent-id") != permanent:
            found.append(f"{named} is not the policy that claimed it (permanent-id differs)")
    if predicted is None:
        found.append(f"claimed by {named}; plan: no policy propagates it")
    elif predicted != (kind, namespace, name):
        found.append(f"claimed by {named}; plan: {predicted[0]} {'/'.join(predicted[1:])}")
    return found


RETAIN_REPLICAS = "resourcetemplate.karmada.io/retain-replicas"
"""A template so labelled keeps each member's own ``spec.replicas`` (a member HPA owns them):
Karmada does not write them back, so a member's count is not compared with the binding's."""


def _member_differences(
    member: Member, planned: Mapping[str, int | None] | None, *, retained: bool = False
) -> list[str]:
    where = member.cluster
    if not member.in_binding:
        return [f"{where}: planned, not scheduled"] if member.in_plan else []
    found = []
    if member.in_plan and planned is not None and planned.get(where) != member.scheduled:
        found.append(f"{where}: scheduled {member.scheduled} replicas, plan {planned.get(where)}")
    if not member.in_plan:
        found.append(f"{where}: scheduled, not planned")
    if member.work is None:
        found.append(f"{where}: no Work in karmada-es-{where}")
    elif not member.applied:
        found.append(f"{where}: Work {member.work} not applied")
    if member.live is None:
        found.append(f"{where}: the member has no such object")
        return found
    if (
        not retained
        and member.scheduled is not None
        and replicas_of(member.live) != member.scheduled
    ):
        found.append(
            f"{where}: the member runs {replicas_of(member.live)} replicas, "
            f"scheduled {member.scheduled}"
        )
    if member.in_plan and images_of(member.live) != images_of(member.planned):
        found.append(
            f"{where}: the member runs images {images_of(member.live)}, "
            f"plan {images_of(member.planned)}"
        )
    return found


def chain(
    template: Mapping[str, Any],
    *,
    policy: Mapping[str, Any] | None,
    binding: Mapping[str, Any] | None,
    works: Mapping[str, Mapping[str, Any]],
    live: Mapping[str, Mapping[str, Any]],
    plan: TemplatePlan | None,
    unreachable: Mapping[str, str] | None = None,
) -> Chain:
    """Line the live chain up with ``plan``: ``policy`` the claiming policy as fetched (None:
    not found), ``works`` and ``live`` by cluster (absent: none there), ``unreachable`` the
    members that could not be asked, with why (nothing is said of their objects)."""
    unreachable = unreachable or {}
    labels = _mapping(_metadata(template).get("labels"))
    retained = labels.get(RETAIN_REPLICAS) == "true"
    claimed = claim(template)
    scheduled = _scheduled(binding)
    placements = (
        [] if plan is None else [p for p in (plan.placement, plan.alternative) if p is not None]
    )
    copies = {} if plan is None else {c: m.object for c, m in plan.copies.items()}
    clusters = sorted({*scheduled, *copies, *live})
    members = tuple(
        Member(
            cluster=cluster,
            scheduled=scheduled.get(cluster),
            in_binding=cluster in scheduled,
            work=str(_metadata(works[cluster]).get("name")) if cluster in works else None,
            applied=_applied(works.get(cluster)),
            live=live.get(cluster),
            planned=copies.get(cluster),
            in_plan=cluster in copies,
        )
        for cluster in clusters
    )
    differences = _claim_differences(claimed, policy, None if plan is None else plan.policy)
    if binding is None and claimed is not None:
        differences.append("no ResourceBinding (the detector has not made it yet?)")
    # the binding's division is held to the plan's (any of its tie outcomes)
    division = next(iter([p for p in placements if dict(p) == scheduled] + placements), None)
    for member in members:
        if member.cluster in unreachable:
            differences.append(
                f"{member.cluster}: the member could not be asked: {unreachable[member.cluster]}"
            )
            continue
        differences.extend(_member_differences(member, division, retained=retained))
    for cluster in sorted(set(live) - set(scheduled) - set(copies)):
        differences.append(f"{cluster}: the member runs it, neither scheduled nor planned")
    return Chain(
        template,
        claimed,
        policy,
        binding,
        members,
        None if plan is None else plan.policy,
        tuple(dict.fromkeys(differences)),
    )


def render(result: Chain) -> Sequence[str]:
    """The chain as a user reads it: one line per link, a table of clusters, the differences."""
    metadata = _metadata(result.template)
    where = "/".join(p for p in (metadata.get("namespace"), metadata.get("name")) if p)
    lines = [f"{result.template.get('kind')} {where} (replicas {replicas_of(result.template)})"]
    if result.claimed is None:
        lines.append("  policy    none claimed it")
    else:
        kind, namespace, name, permanent = result.claimed
        found = "" if result.policy is not None else "  (not found)"
        named = "/".join(p for p in (namespace, name) if p)
        lines.append(f"  policy    {kind} {named}, permanent-id {permanent}{found}")
    binding = _metadata(result.binding).get("name") if result.binding is not None else None
    lines.append(f"  binding   {binding or 'none'}")
    lines.append("  cluster        scheduled  work     member (ready)  images / plan")
    for member in result.members:
        status = _mapping((member.live or {}).get("status"))
        live = (
            "-"
            if member.live is None
            else f"{replicas_of(member.live)} ({status.get('readyReplicas', '?')})"
        )
        work = "-" if member.work is None else ("applied" if member.applied else "pending")
        scheduled = "-" if not member.in_binding else str(member.scheduled)
        images = ", ".join(images_of(member.live).values()) or "-"
        plan = (
            "not planned"
            if not member.in_plan
            else f"{replicas_of(member.planned)} x {', '.join(images_of(member.planned).values())}"
        )
        lines.append(
            f"  {member.cluster:<14} {scheduled:<10} {work:<8} {live:<15} {images} / {plan}"
        )
    if result.differences:
        lines.append("differences:")
        lines.extend(f"  ! {d}" for d in result.differences)
    else:
        lines.append("as planned: no difference")
    return lines
