"""What a plan changes against git HEAD, as ``terraform plan`` counts it: each app and each
hand-written template added, changed or removed, the member clusters whose copy changes, and
the counts of the one-line summary.

Pure: both sides' plans in, the changes out. The "before" side is git HEAD's rendered tree
planned the same way as the working tree (``compiler/commands/baseline.py`` reads it): the
spec git HEAD had for an app, every policy of HEAD's version of each changed file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from compiler.plan.core import RESOURCES, AppPlan, TenantBill, workload_bill
from compiler.plan.members import MemberViolation
from compiler.plan.tree import TemplateResult
from webhook.bundle.index import key_of
from webhook.karmada.detector import COP, OP, PP, meta_str, policy_ref, selectors

Action = Literal["add", "change", "remove", "none"]
SYMBOLS: Mapping[Action, str] = {"add": "+", "change": "~", "remove": "-", "none": " "}
FileAction = Literal["add", "change", "remove"]


def _copies_app(plan: AppPlan | None) -> Mapping[str, Any]:
    return plan.clusters if plan is not None else {}


def _copies_template(result: TemplateResult | None) -> Mapping[str, Any]:
    if result is None:
        return {}
    return {c: m.object for c, m in result.plan.copies.items() if m.object is not None}


def _differing(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, ...]:
    """The clusters whose copy is not the same on both sides (gained, lost or changed)."""
    return tuple(sorted(c for c in {*before, *after} if before.get(c) != after.get(c)))


def _violations(found: Mapping[str, Sequence[MemberViolation]]) -> list[MemberViolation]:
    return [v for vs in found.values() for v in vs]


@dataclass(frozen=True)
class AppChange:
    """One app on both sides. ``before`` is None for an app git HEAD does not have, and for
    one whose HEAD spec could not be planned (``known`` is False then)."""

    namespace: str
    name: str
    action: Action
    after: AppPlan | None = None
    before: AppPlan | None = None
    known: bool = True
    files: Mapping[str, FileAction] = field(default_factory=dict)
    """The app's rendered files that differ from HEAD (path in the tree -> what happens)."""

    @property
    def tenant(self) -> str | None:
        side = self.after or self.before
        return side.tenant if side is not None else None

    @property
    def clusters(self) -> tuple[str, ...]:
        """The member clusters whose copy of the Deployment changes (every cluster the known
        side reaches, when the other side is not known)."""
        if self.action == "none":
            return ()
        if not self.known:
            return tuple(sorted(_copies_app(self.after)))
        return _differing(_copies_app(self.before), _copies_app(self.after))

    @property
    def violations(self) -> list[MemberViolation]:
        return _violations(self.after.violations) if self.after is not None else []


@dataclass(frozen=True)
class TemplateChange:
    """One hand-written template on both sides (``before`` None: HEAD does not have it)."""

    identity: tuple[str, str, str, str]
    action: Action
    after: TemplateResult | None = None
    before: TemplateResult | None = None

    @property
    def clusters(self) -> tuple[str, ...]:
        if self.action == "none":
            return ()
        return _differing(_copies_template(self.before), _copies_template(self.after))

    @property
    def violations(self) -> list[MemberViolation]:
        return _violations(self.after.violations) if self.after is not None else []


def app_action(
    after: AppPlan | None,
    before: AppPlan | None,
    files: Mapping[str, FileAction],
    known: bool,
    *,
    others_at_head: bool = False,
) -> Action:
    """add: HEAD has none of its files; remove: the working tree has none; change: a file
    differs, or (a policy elsewhere changed) what a member receives differs.
    ``others_at_head``: the app has files that did not change, so HEAD has the app even when
    every changed file is new (its first override, say)."""
    if after is None:
        return "remove"
    if files and all(a == "add" for a in files.values()) and not others_at_head:
        return "add"
    if files or not known:
        return "change"
    return "change" if _differing(_copies_app(before), _copies_app(after)) else "none"


def template_action(
    after: TemplateResult | None, before: TemplateResult | None, edited: bool
) -> Action:
    """``edited``: the object itself differs from HEAD's (not only its file's bytes)."""
    if before is None:
        return "add" if after is not None else "none"
    if after is None:
        return "remove"
    if edited:
        return "change"
    return "change" if _differing(_copies_template(before), _copies_template(after)) else "none"


@dataclass(frozen=True, order=True)
class PolicyChange:
    """A hand-written Karmada policy added, changed or removed (fedgate's own policies show in
    their app's block)."""

    kind: str
    namespace: str
    name: str
    action: FileAction
    file: str

    @property
    def label(self) -> str:
        return f"{self.kind} {'/'.join(p for p in (self.namespace, self.name) if p)}"


def policy_changes(
    before: Iterable[tuple[str, Mapping[str, Any]]], after: Iterable[tuple[str, Mapping[str, Any]]]
) -> list[PolicyChange]:
    """The policies that differ between ``before`` and ``after``, each (file, policy)."""
    old = {policy_ref(p): (f, p) for f, p in before}
    new = {policy_ref(p): (f, p) for f, p in after}
    found = []
    for ref in sorted({*old, *new}):
        if ref not in old:
            found.append(PolicyChange(*ref, "add", new[ref][0]))
        elif ref not in new:
            found.append(PolicyChange(*ref, "remove", old[ref][0]))
        elif old[ref][1] != new[ref][1]:
            found.append(PolicyChange(*ref, "change", new[ref][0]))
    return found


@dataclass(frozen=True)
class Summary:
    """The counts of the summary line."""

    apps: Mapping[Action, int]
    templates: Mapping[Action, int]
    clusters: tuple[str, ...]
    denies: int
    warnings: int
    policies: int = 0
    """Hand-written Karmada policies added, changed or removed."""
    files: int = 0
    """Other rendered files that differ from HEAD (the Argo CD pieces, ...)."""
    invalid: int = 0

    @property
    def changes(self) -> bool:
        """Anything differs from HEAD: what ``--detailed-exitcode`` reports as exit 2."""
        counted = (*self.apps.items(), *self.templates.items())
        moved = any(n for action, n in counted if action != "none")
        return moved or bool(self.policies) or bool(self.files)

    def as_json(self) -> dict[str, Any]:
        return {
            "apps": {a: self.apps.get(a, 0) for a in ("add", "change", "remove")},
            "templates": {a: self.templates.get(a, 0) for a in ("add", "change", "remove")},
            "policies": self.policies,
            "otherFiles": self.files,
            "clustersAffected": list(self.clusters),
            "denies": self.denies,
            "warnings": self.warnings,
            "invalid": self.invalid,
            "changes": self.changes,
        }


def _count(actions: Iterable[Action]) -> dict[Action, int]:
    counted: dict[Action, int] = {}
    for action in actions:
        counted[action] = counted.get(action, 0) + 1
    return counted


def summarize(
    apps: Sequence[AppChange],
    templates: Sequence[TemplateChange],
    *,
    policies: int = 0,
    files: int = 0,
    invalid: int = 0,
) -> Summary:
    every: list[AppChange | TemplateChange] = [*apps, *templates]
    violations = [v for c in every for v in c.violations]
    return Summary(
        apps=_count(a.action for a in apps),
        templates=_count(t.action for t in templates),
        clusters=tuple(sorted({c for x in every for c in x.clusters})),
        denies=sum(1 for v in violations if v.denies),
        warnings=sum(1 for v in violations if v.violation.action == "warn"),
        policies=policies,
        files=files,
        invalid=invalid,
    )


def _selects(selector: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """apiVersion and kind equal; namespace and name equal where the selector names them."""
    if selector.get("apiVersion") != obj.get("apiVersion") or selector.get("kind") != obj.get(
        "kind"
    ):
        return False
    return all(
        not selector.get(key) or selector.get(key) == meta_str(obj, key)
        for key in ("namespace", "name")
    )


def may_select(policy: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """Whether the Karmada ``policy`` may select ``obj``: its scope and a resource selector's
    apiVersion, kind, namespace and name. Labels are not looked at (an override earlier in
    Karmada's order can change them), so a yes may be wrong, a no never is: a wrong yes costs
    a second plan of ``obj``, not a wrong report."""
    kind, namespace, _ = policy_ref(policy)
    if kind in (PP, OP) and namespace != meta_str(obj, "namespace"):
        return False
    found = selectors(policy)
    if not found:
        return kind in (OP, COP)  # an override policy without selectors selects everything
    return any(isinstance(s, Mapping) and _selects(s, obj) for s in found)


def _bill(plan: AppPlan | None, resource: str, ceiling: bool) -> Fraction:
    if plan is None:
        return Fraction(0)
    amounts = plan.ceiling if ceiling else plan.bill
    return sum((b.get(resource, Fraction(0)) for b in amounts.values()), Fraction(0))


def _workload_bill(
    result: TemplateResult | None, resource: str, bill: TenantBill | None, ceiling: bool
) -> Fraction:
    """A hand-written template's bill (``ceiling``: its ceiling): the one ``bill`` summed (the
    quota rule's) when it is today's; else ``workload_bill`` (HEAD's side, planned without
    today's tree)."""
    if result is None:
        return Fraction(0)
    kept = (bill.workload_ceilings if ceiling else bill.workloads) if bill is not None else {}
    summed = kept.get(key_of(result.plan.template))
    found = summed if summed is not None else workload_bill(result.plan)
    return found.get(resource, Fraction(0))


def tenant_before(
    bill: TenantBill,
    apps: Sequence[AppChange],
    templates: Sequence[TemplateChange] = (),
    namespaces: Iterable[str] = (),
    *,
    ceiling: bool = False,
) -> Mapping[str, Fraction] | None:
    """What the tenant used at HEAD (``ceiling``: its ceiling at HEAD): today's, each changed
    app's bill swapped for its bill at HEAD, and each changed hand-written template of its
    ``namespaces`` likewise; None when one of its changed apps (or a removed app of unknown
    tenant) has a HEAD side that is not known."""
    used = dict(bill.ceiling if ceiling else bill.used)
    for change in apps:
        if change.action == "none" or change.tenant not in (bill.tenant, None):
            continue
        if not change.known:
            return None
        for resource in RESOURCES:
            now = used.get(resource, Fraction(0)) - _bill(change.after, resource, ceiling)
            used[resource] = now + _bill(change.before, resource, ceiling)
    owned = set(namespaces)
    for template in templates:
        if template.action == "none" or template.identity[2] not in owned:
            continue
        for resource in RESOURCES:
            after = _workload_bill(template.after, resource, bill, ceiling)
            before = _workload_bill(template.before, resource, None, ceiling)
            used[resource] = used.get(resource, Fraction(0)) - after + before
    return used
