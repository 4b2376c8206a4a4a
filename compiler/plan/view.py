"""The plan as a reviewer reads it: the JSON document of ``fedgate plan --output json`` turned
into rows (apps, denials, tenants' bills, other changes) that the markdown and HTML views draw.

Pure: the document in, rows out. Both views are drawn from the very document ``--output json``
prints, so every number on a page is one of the JSON plan's (a test reads them back).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from compiler.plan.changes import SYMBOLS, Summary
from compiler.plan.text import cores, memory, summary_line
from webhook.base.quantity import parse_quantity

RESOURCES = ("cpu", "memory")
CEILING = "ceiling (autoscalers' maximum)"
"""The heading of the tenants' ceiling: what their apps may grow to (the quota counts the bill)."""


@dataclass(frozen=True)
class Denial:
    """One rule's verdict on one member's copy (deny first, then warn)."""

    app: str
    cluster: str
    rule: str
    action: str
    message: str
    enforced: str = ""
    """What a staged rule does once enforced (empty: it is enforced here already)."""


@dataclass(frozen=True)
class Copy:
    """What one member runs of an app: replicas and images, now and at HEAD."""

    cluster: str
    replicas: int | None
    images: tuple[str, ...]
    before_replicas: int | None = None
    before_images: tuple[str, ...] | None = None
    overrides: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.before_images is not None and (
            self.replicas != self.before_replicas or self.images != self.before_images
        )


@dataclass(frozen=True)
class AppRow:
    """One app as the plan shows it."""

    key: str
    action: str
    tenant: str | None
    mode: str | None
    copies: tuple[Copy, ...]
    removed_from: tuple[str, ...] = ()
    """Clusters that ran a copy at HEAD and receive none now."""
    denials: tuple[Denial, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)
    objects: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """Per cluster: the member's object now."""
    before_objects: Mapping[str, Any] | None = field(default=None, repr=False)
    """Per cluster: the member's object at git HEAD (None: not known)."""

    def diffs(self) -> dict[str, str]:
        """Per cluster: the unified diff of the member's object, HEAD to now (computed when a
        view draws the detail: a long plan shows only some)."""
        if self.before_objects is None or self.action == "none":
            return {}
        found = {}
        for cluster in sorted({*self.objects, *self.before_objects}):
            diff = _member_diff(
                self.before_objects.get(cluster), self.objects.get(cluster), cluster, self.key
            )
            if diff:
                found[cluster] = diff
        return found

    @property
    def symbol(self) -> str:
        return symbol(self.action)

    def placement(self) -> str:
        """``cluster-a 2 -> 3, cluster-b 2``."""
        parts = []
        for copy in self.copies:
            now = "all" if copy.replicas is None else str(copy.replicas)
            if copy.before_images is not None and copy.before_replicas != copy.replicas:
                then = "none" if copy.before_replicas is None else str(copy.before_replicas)
                parts.append(f"{copy.cluster} {then} -> {now}")
            else:
                parts.append(f"{copy.cluster} {now}")
        parts += [f"{c} (removed)" for c in self.removed_from]
        return ", ".join(parts) or "no cluster"


@dataclass(frozen=True)
class Usage:
    """One resource of one tenant: used now, at HEAD (None: not known), and the quota."""

    resource: str
    used: Fraction
    before: Fraction | None
    quota: Fraction | None
    ceiling: Fraction | None = None
    """At the autoscalers' maximum (None: the document has no ceiling)."""
    ceiling_before: Fraction | None = None

    def text(self, value: Fraction) -> str:
        return cores(value) if self.resource == "cpu" else memory(value)

    def describe_ceiling(self) -> str:
        """``cpu 7.9 -> 8.1`` (empty without a ceiling)."""
        if self.ceiling is None:
            return ""
        now = self.text(self.ceiling)
        was = self.text(self.ceiling_before) if self.ceiling_before is not None else None
        return f"{self.resource} " + (now if was is None or was == now else f"{was} -> {now}")

    @property
    def over(self) -> bool:
        return self.quota is not None and self.used > self.quota

    def describe(self) -> str:
        """``7.9 -> 8.1 of 20`` (``OVER QUOTA`` when over)."""
        now = self.text(self.used)
        was = self.text(self.before) if self.before is not None else None
        shown = now if was is None or was == now else f"{was} -> {now}"
        if self.quota is None:
            return f"{shown} (no quota)"
        return f"{shown} of {self.text(self.quota)}" + (" OVER QUOTA" if self.over else "")


@dataclass(frozen=True)
class TenantRow:
    tenant: str
    usage: tuple[Usage, ...]

    @property
    def changed(self) -> bool:
        return any(u.before is not None and u.before != u.used for u in self.usage)

    @property
    def over(self) -> bool:
        return any(u.over for u in self.usage)

    def ceiling(self) -> str:
        """``cpu 7.9 -> 8.1, memory 9Gi``: the tenant's apps at the autoscalers' maximum."""
        return ", ".join(t for t in (u.describe_ceiling() for u in self.usage) if t)


@dataclass(frozen=True)
class ExceptionRow:
    """One exception of the bundle as the plan shows it (``exceptions`` of the JSON)."""

    name: str
    rules: tuple[str, ...]
    namespaces: tuple[str, ...]
    owner: str
    expires: str
    days_left: int
    status: str

    @property
    def left(self) -> str:
        if self.status == "expired":
            return f"expired {self.expires}: lifts nothing, remove it"
        days = "last day" if self.days_left == 1 else f"{self.days_left} days left"
        return f"until {self.expires} ({days})"


def _exception_row(data: Mapping[str, Any]) -> ExceptionRow:
    return ExceptionRow(
        name=str(data.get("name", "")),
        rules=tuple(data.get("rules", ())),
        namespaces=tuple(data.get("namespaces", ())),
        owner=str(data.get("owner", "")),
        expires=str(data.get("expires", "")),
        days_left=int(data.get("daysLeft", 0)),
        status=str(data.get("status", "")),
    )


@dataclass(frozen=True)
class View:
    """Everything a reviewer is shown, in the order they are shown it."""

    summary: str
    denies: int
    changes: bool
    apps: tuple[AppRow, ...]
    tenants: tuple[TenantRow, ...]
    others: tuple[tuple[str, str], ...]
    """Other changes: (symbol, what): templates, hand-written policies, other files."""
    errors: tuple[str, ...]
    exceptions: tuple[ExceptionRow, ...] = ()
    """The bundle's exceptions on the plan's day: what each lifts, where, and for how long."""

    @property
    def denials(self) -> list[Denial]:
        return [d for a in self.apps for d in a.denials]

    @property
    def staged(self) -> list[Denial]:
        """The objections of staged rules: what they would do once enforced, strongest first."""
        found = [d for d in self.denials if d.enforced]
        return sorted(found, key=lambda d: (d.enforced != "deny", d.app, d.cluster, d.rule))


def symbol(action: str) -> str:
    """``+``, ``~``, ``-`` for an action the JSON names (a blank for anything else)."""
    return next((s for a, s in SYMBOLS.items() if a == action), " ")


def _dig(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _pod(obj: Any) -> Any:
    kind = _dig(obj, "kind")
    if kind == "Pod":
        return _dig(obj, "spec")
    if kind == "CronJob":
        return _dig(obj, "spec", "jobTemplate", "spec", "template", "spec")
    return _dig(obj, "spec", "template", "spec")


def images(obj: Any) -> tuple[str, ...]:
    """Every container's image of a member's object, init containers first."""
    pod = _pod(obj)
    found = []
    for group in ("initContainers", "containers"):
        containers = _dig(pod, group)
        for container in containers if isinstance(containers, list) else ():
            image = _dig(container, "image")
            found.append(str(image) if image is not None else "no image")
    return tuple(found)


def replicas(obj: Any) -> int | None:
    value = _dig(obj, "spec", "replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _member_diff(before: Any, after: Any, cluster: str, key: str) -> str:
    import difflib  # noqa: PLC0415 - only the views that show diffs need it

    import yaml  # noqa: PLC0415

    def lines(obj: Any) -> list[str]:
        if obj is None:
            return []
        text = yaml.safe_dump(obj, sort_keys=True, default_flow_style=False)
        return text.splitlines(keepends=True)

    return "".join(
        difflib.unified_diff(
            lines(before), lines(after), f"{cluster}: {key} (HEAD)", f"{cluster}: {key} (now)"
        )
    )


def _app_row(app: Mapping[str, Any] | None, change: Mapping[str, Any] | None, key: str) -> AppRow:
    before = change.get("before") if change is not None else None
    before_clusters: Mapping[str, Any] | None = None
    if isinstance(before, Mapping) and isinstance(before.get("clusters"), Mapping):
        before_clusters = before["clusters"]
    clusters: Mapping[str, Any] = app.get("clusters", {}) if app is not None else {}
    overrides = app.get("overrides", {}) if app is not None else {}
    copies = []
    for cluster, obj in sorted(clusters.items()):
        old = before_clusters.get(cluster) if before_clusters is not None else None
        known = before_clusters is not None
        copies.append(
            Copy(
                cluster=cluster,
                replicas=replicas(obj),
                images=images(obj),
                before_replicas=replicas(old) if old is not None else None,
                before_images=(images(old) if old is not None else ()) if known else None,
                overrides=tuple(overrides.get(cluster, ())),
            )
        )
    removed = tuple(sorted(set(before_clusters or {}) - set(clusters)))
    denials = []
    violations = app.get("violations", {}) if app is not None else {}
    for cluster, found in sorted(violations.items()):
        for violation in found:
            denials.append(
                Denial(
                    key,
                    cluster,
                    str(violation.get("rule", "")),
                    str(violation.get("action", "deny")),
                    str(violation.get("message", "")),
                    str(violation.get("enforced") or ""),
                )
            )
    denials.sort(key=lambda d: (d.action != "deny", d.cluster, d.rule))
    return AppRow(
        key=key,
        action=str(change.get("action", "none")) if change is not None else "none",
        tenant=app.get("tenant") if app is not None else None,
        mode=app.get("mode") if app is not None else None,
        copies=tuple(copies),
        removed_from=removed,
        denials=tuple(denials),
        files=dict(change.get("files", {})) if change is not None else {},
        objects=clusters,
        before_objects=before_clusters,
    )


def _amount(found: Any, resource: str) -> Fraction | None:
    """``found[resource]`` parsed (None when ``found`` is not a mapping or lacks it)."""
    value = found.get(resource) if isinstance(found, Mapping) else None
    return parse_quantity(value) if value is not None else None


def _tenant_row(tenant: Mapping[str, Any]) -> TenantRow:
    usage = []
    for resource in RESOURCES:
        usage.append(
            Usage(
                resource,
                parse_quantity(tenant.get("used", {}).get(resource, "0")),
                _amount(tenant.get("usedBefore"), resource),
                _amount(tenant.get("quota"), resource),
                _amount(tenant.get("ceiling"), resource),
                _amount(tenant.get("ceilingBefore"), resource),
            )
        )
    return TenantRow(str(tenant["tenant"]), tuple(usage))


def _summary(found: Mapping[str, Any]) -> Summary:
    return Summary(
        apps=dict(found.get("apps", {})),
        templates=dict(found.get("templates", {})),
        clusters=tuple(found.get("clustersAffected", ())),
        denies=int(found.get("denies", 0)),
        warnings=int(found.get("warnings", 0)),
        policies=int(found.get("policies", 0)),
        files=int(found.get("otherFiles", 0)),
        invalid=int(found.get("invalid", 0)),
    )


def view(document: Mapping[str, Any], *, everything: bool = False) -> View:
    """The rows of a plan document. Shown: every app that changes or has a copy denied (or
    that a staged rule would deny once enforced), every
    tenant whose bill changes or is over quota (``everything``: all of them)."""
    changes = document.get("changes", {})
    changed = {f"{c['namespace']}/{c['name']}": c for c in changes.get("apps", ())}
    apps = {f"{a['namespace']}/{a['name']}": a for a in document.get("apps", ())}
    rows = []
    for key in sorted({*apps, *changed}):
        row = _app_row(apps.get(key), changed.get(key), key)
        if (
            everything
            or row.action != "none"
            or any("deny" in (d.action, d.enforced) for d in row.denials)
        ):
            rows.append(row)
    tenants = [_tenant_row(t) for t in document.get("tenants", ())]
    touched = {r.tenant for r in rows if r.action != "none"}
    shown = [t for t in tenants if everything or t.tenant in touched or t.changed or t.over]
    others: list[tuple[str, str]] = []
    for t in changes.get("templates", ()):
        where = f"{t['namespace']}/{t['name']}" if t.get("namespace") else t["name"]
        others.append((symbol(t["action"]), f"{t['kind']} {where}"))
    for p in changes.get("policies", ()):
        where = f"{p['namespace']}/{p['name']}" if p.get("namespace") else p["name"]
        others.append((symbol(p["action"]), f"{p['kind']} {where} ({p['file']})"))
    app_files = {f for c in changed.values() for f in c.get("files", {})}
    app_files |= {p.get("file") for p in changes.get("policies", ())}
    for path, action in sorted(changes.get("files", {}).items()):
        if path not in app_files:
            others.append((symbol(action), path))
    summary = _summary(document.get("summary", {}))
    errors = tuple(
        f"{e.get('file', '')}:{e.get('line') or ''}: {e.get('message', '')}"
        for e in document.get("errors", ())
    )
    return View(
        summary=summary_line(summary).text,
        denies=summary.denies,
        changes=summary.changes,
        apps=tuple(rows),
        tenants=tuple(shown),
        others=tuple(others),
        errors=errors,
        exceptions=tuple(_exception_row(e) for e in document.get("exceptions", ())),
    )


def share(usage: Usage) -> Fraction | None:
    """The part of the quota used (None without a quota, or a quota of 0)."""
    if usage.quota is None or usage.quota == 0:
        return None
    return usage.used / usage.quota


def bars(rows: Sequence[AppRow]) -> int:
    """The largest replica count of any copy shown, now or at HEAD (1 at least): the scale of
    the placement charts."""
    counts = [c.replicas or 0 for r in rows for c in r.copies]
    counts += [c.before_replicas or 0 for r in rows for c in r.copies]
    return max([1, *counts])
