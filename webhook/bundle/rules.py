"""Rules as data: what a rule matches, what it checks, what happens when it fails.

Every rule lives in its own folder under ``policies/rules/<id>/`` (gatekeeper-library style):
``rule.yaml`` (what it checks: CEL validations, or the name of a built-in check),
``binding.yaml`` (what it matches, its parameters, its action) and ``tests.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from webhook.engine.affinity import label_selector_matches
from webhook.engine.decision import Action
from webhook.engine.request import AdmissionRequest
from webhook.values import is_mapping

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
        if self.object_selector is None:
            return True
        metadata = (request.current or {}).get("metadata")
        labels = metadata.get("labels") if is_mapping(metadata) else None
        return label_selector_matches(self.object_selector, labels if is_mapping(labels) else {})


@dataclass(frozen=True)
class Validation:
    """One CEL check: true passes; false fails with ``message`` (or ``message_expression``)."""

    expression: str
    message: str
    message_expression: str | None = None


@dataclass(frozen=True)
class Rule:
    """A rule with its binding. Exactly one of ``builtin`` and ``validations`` is set."""

    id: str
    description: str
    action: Action
    match: Match
    failure_policy: FailurePolicy = "Fail"
    builtin: str | None = None
    validations: tuple[Validation, ...] = ()
    match_conditions: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    folder: str = ""
