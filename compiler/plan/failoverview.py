"""The failover plan as a reviewer reads it: the JSON document of ``plan --fail --output json``
(or the ``failover`` part of ``plan --base REF``'s) turned into rows that the markdown and HTML
views draw.

Pure: the document in, rows out. Both views draw the very numbers ``--output json`` prints (a
test reads them back from the page).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compiler.plan.failovertext import duration
from compiler.plan.text import _counts

RESOURCES = ("cpu", "memory", "pods")


@dataclass(frozen=True)
class Eviction:
    """One failed cluster's decision on one template."""

    cluster: str
    evicted: bool
    reason: str
    purge: str | None
    queue: tuple[float, float] | None
    """When the taint manager's queue takes it: (earliest, latest) seconds after the taint."""


@dataclass(frozen=True)
class TemplateRow:
    key: str
    """``Kind namespace/name``."""
    tenant: str | None
    stateful: bool
    before: Mapping[str, int | None]
    after: Mapping[str, int | None]
    alternative: Mapping[str, int | None] | None
    by_capacity: bool
    evictions: tuple[Eviction, ...]
    twice: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def evicted(self) -> bool:
        return any(e.evicted for e in self.evictions)

    def placement(self) -> str:
        """``cluster-a 2 -> 0, cluster-b 2 -> 4``."""
        return _counts(self.after, self.before) if self.evicted else _counts(self.before, None)


@dataclass(frozen=True)
class LoadRow:
    """One cluster left: each resource's request before and after, against its allocatable."""

    cluster: str
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    allocatable: Mapping[str, Any]
    over: tuple[str, ...]
    tight: tuple[str, ...] = ()
    """The resources taken into the cluster's failoverHeadroom."""


@dataclass(frozen=True)
class FindingRow:
    rule: str
    action: str
    message: str
    subject: str
    """The template (``Kind namespace/name``) or the cluster the finding is about."""
    failed: str = ""
    """The failed clusters it comes from (in the everyday plan's worse-than-base section)."""


@dataclass(frozen=True)
class FailoverView:
    failed: tuple[str, ...]
    summary: str
    evictions: str
    """The control plane in one sentence: evicting, or what keeps it from it."""
    templates: tuple[TemplateRow, ...]
    loads: tuple[LoadRow, ...]
    storm: tuple[str, ...]
    findings: tuple[FindingRow, ...]
    notes: tuple[str, ...]

    @property
    def denies(self) -> int:
        return sum(1 for f in self.findings if f.action == "deny")


def subject(template: Mapping[str, Any] | None, cluster: str | None = None) -> str:
    """``Kind namespace/name`` of a JSON template reference (else the cluster, else blank)."""
    if template is None:
        return cluster or ""
    where = (
        f"{template['namespace']}/{template['name']}"
        if template.get("namespace")
        else template["name"]
    )
    return f"{template['kind']} {where}"


def _template(t: Mapping[str, Any]) -> TemplateRow:
    evictions = []
    for e in t.get("evictions", ()):
        queue = e.get("queueSeconds")
        evictions.append(
            Eviction(
                str(e["cluster"]),
                bool(e["evicted"]),
                str(e["reason"]),
                e.get("purgeMode"),
                (float(queue["earliest"]), float(queue["latest"])) if queue else None,
            )
        )
    return TemplateRow(
        subject(t),
        t.get("tenant"),
        bool(t.get("stateful")),
        dict(t.get("placementBefore", {})),
        dict(t.get("placementAfter", {})),
        t.get("placementAlternative"),
        bool(t.get("byCapacity")),
        tuple(evictions),
        tuple(t.get("twice", ())),
        tuple(t.get("notes", ())),
    )


def _storm(q: Mapping[str, Any]) -> str:
    return (
        f"{q['items']} {q['queue']}{'s' if q['items'] != 1 else ''}, {q['workers']} workers at "
        f"{q['ratePerWorker']:g}/s each ({q['throughput']:g}/s): the last is taken about "
        f"{duration(q['seconds'])} after the taint"
    )


def failover_view(document: Mapping[str, Any]) -> FailoverView:
    """The rows of a ``plan --fail`` JSON document."""
    control = document.get("controlPlane", {})
    off = control.get("offReason")
    evictions = (
        f"none: {off}"
        if off
        else "on (Failover gate, taint manager, NoExecute eviction); purge mode "
        f"{control.get('noExecuteTaintEvictionPurgeMode', 'Gracefully')} unless a policy sets "
        "failover.cluster"
    )
    findings = tuple(
        FindingRow(
            str(f["rule"]),
            str(f["action"]),
            str(f["message"]),
            subject(f.get("template"), f.get("cluster")),
        )
        for f in document.get("findings", ())
    )
    findings = tuple(sorted(findings, key=lambda f: f.action != "deny"))
    return FailoverView(
        failed=tuple(document.get("failed", ())),
        summary=str(document.get("summary", "")),
        evictions=evictions,
        templates=tuple(_template(t) for t in document.get("templates", ())),
        loads=tuple(
            LoadRow(
                str(c["cluster"]),
                dict(c.get("before", {})),
                dict(c.get("after", {})),
                dict(c.get("allocatable", {})),
                tuple(c.get("over", ())),
                tuple(c.get("intoHeadroom", ())),
            )
            for c in document.get("capacity", ())
        ),
        storm=tuple(_storm(q) for q in document.get("storm", ())),
        findings=findings,
        notes=tuple(document.get("notes", ())),
    )


def worse_rows(document: Mapping[str, Any]) -> tuple[FindingRow, ...]:
    """The everyday plan's ``failover.worse``: each single-cluster failure the change makes
    worse than at the base, deny first."""
    found = (document.get("failover") or {}).get("worse", ())
    rows = [
        FindingRow(
            str(w["rule"]),
            str(w["action"]),
            str(w["message"]),
            subject(w.get("template"), w.get("cluster")),
            ", ".join(w.get("failed", ())),
        )
        for w in found
    ]
    return tuple(sorted(rows, key=lambda f: f.action != "deny"))


def load_text(row: LoadRow, resource: str) -> str:
    """``2.1 -> 4.8 of 64`` (as the JSON writes the amounts)."""
    before, after = row.before.get(resource, 0), row.after.get(resource, 0)
    text = str(before) if before == after else f"{before} -> {after}"
    cap = row.allocatable.get(resource)
    return text + (f" of {cap}" if cap is not None else "")
