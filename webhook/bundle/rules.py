"""Rules as data: what a rule matches, what it checks, what happens when it fails.

Every rule lives in its own folder under ``policies/rules/<id>/`` (gatekeeper-library style):
``rule.yaml`` (what it checks: CEL validations, or the name of a built-in check),
``binding.yaml`` (what it matches, its parameters, its action) and ``tests.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from webhook.base.labels import labels_match
from webhook.base.values import is_mapping
from webhook.engine.decision import Action
from webhook.engine.enforcement import POINTS, Point, strongest, weaker
from webhook.engine.request import AdmissionRequest

FailurePolicy = Literal["Fail", "Ignore"]
Scope = Literal["tenant", "any"]


@dataclass(frozen=True)
class Match:
    """Which requests a rule sees: kinds as (API group, kind), operations, subresources, scope,
    and the labels of the object (``objectSelector``, as a webhook's or a VAP's).

    ``("*", "*")`` matches every kind; ``scope: tenant`` only namespaces a tenant owns. The
    object selector is checked on the object (the old object for DELETE) in Python, so a rule
    for a few labelled objects costs nothing on the rest (no CEL activation is built).
    """

    kinds: frozenset[tuple[str, str]]
    operations: frozenset[str] = frozenset({"CREATE", "UPDATE"})
    sub_resources: frozenset[str] = frozenset({""})
    scope: Scope = "tenant"
    object_selector: Mapping[str, Any] | None = None

    def applies(
        self, group: str, kind: str, operation: str, sub_resource: str, in_tenant_namespace: bool
    ) -> bool:
        """Everything but the object selector: the same for every request of this shape."""
        return (
            operation in self.operations
            and sub_resource in self.sub_resources
            and (self.scope == "any" or in_tenant_namespace)
            and bool({(group, kind), ("*", kind), (group, "*"), ("*", "*")} & self.kinds)
        )

    def selects(self, request: AdmissionRequest) -> bool:
        """The object selector holds (always, without one)."""
        return object_selected(self.object_selector, request)


def object_selected(selector: Mapping[str, Any] | None, request: AdmissionRequest) -> bool:
    """A label selector holds on the object (the old object for DELETE); None holds always."""
    if selector is None:
        return True
    metadata = (request.current or {}).get("metadata")
    labels = metadata.get("labels") if is_mapping(metadata) else None
    return labels_match(selector, labels if is_mapping(labels) else {})


@dataclass(frozen=True)
class Validation:
    """One CEL check: true passes; false fails with ``message`` (or ``message_expression``).
    ``reason``: a ValidatingAdmissionPolicy's (Unauthorized, Forbidden, Invalid,
    RequestEntityTooLarge), kept for the export."""

    expression: str
    message: str
    message_expression: str | None = None
    reason: str | None = None


class RuleMatch(Protocol):
    """What the engine asks of a rule's match: fedgate's ``Match`` and a
    ValidatingAdmissionPolicy's (``bundle.vap.ResourceMatch``)."""

    @property
    def kinds(self) -> frozenset[tuple[str, str]]:
        """The (API group, kind) pairs it names, ``("*", "*")`` for any: the bundle's index."""
        ...

    def applies(
        self, group: str, kind: str, operation: str, sub_resource: str, in_tenant_namespace: bool
    ) -> bool: ...

    def selects(self, request: AdmissionRequest) -> bool: ...


class ParamSource(Protocol):
    """Where a ValidatingAdmissionPolicy binding's params come from, per request."""

    def resolve(self, request: AdmissionRequest) -> list[Mapping[str, Any]] | None:
        """The param objects to evaluate with (each in turn); None when none is found and
        the binding says Deny; [] when none is found and it says Allow."""
        ...


@dataclass(frozen=True)
class Rule:
    """A rule with its binding. Exactly one of ``builtin`` and ``validations`` is set."""

    id: str
    description: str
    action: Action
    match: RuleMatch
    failure_policy: FailurePolicy = "Fail"
    builtin: str | None = None
    validations: tuple[Validation, ...] = ()
    match_conditions: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    folder: str = ""
    variables: tuple[tuple[str, str], ...] = ()
    """A ValidatingAdmissionPolicy's ``variables``: (name, expression), in order."""
    param_source: ParamSource | None = None
    """A ValidatingAdmissionPolicy binding's params, resolved per request (``params`` is then
    unused)."""
    audit_annotations: tuple[tuple[str, str], ...] = ()
    """A ValidatingAdmissionPolicy's ``auditAnnotations``: (key, valueExpression)."""
    scoped_actions: tuple[tuple[Point, Action], ...] = ()
    """The binding's action per enforcement point (``action: scoped``); a point not named here
    takes ``action``, which is then the strongest of them (what a shell that names no point,
    such as the VAP export of old, must assume)."""
    source: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """Where it came from, as written: the policy and binding objects of an imported VAP."""

    def action_at(self, point: Point | None) -> Action:
        """The action this rule takes at ``point``; None: once enforced (its strongest)."""
        if point is None:
            return self.enforced
        for named, action in self.scoped_actions:
            if named == point:
                return action
        return self.action

    @property
    def enforced(self) -> Action:
        """The strongest action the rule takes anywhere: what it does once fully rolled out."""
        if not self.scoped_actions:
            return self.action
        return strongest(self.action_at(p) for p in POINTS)

    def staged_at(self, point: Point | None) -> Action | None:
        """The action the rule takes once enforced, where that is stronger than its action at
        ``point`` (the rule is staged there); None where it is already enforced."""
        if point is None or not self.scoped_actions:
            return None
        enforced = self.enforced
        return enforced if weaker(self.action_at(point), enforced) else None
