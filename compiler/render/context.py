"""What the render steps share: the app, its resolved placement, the objects so far, and claims.

Each step adds objects and claims the fields it gives to a writer other than git; the ledger
step turns the claims into each object's ``fedgate.dev/ownership`` annotation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compiler.spec.model import AppSpec

__all__ = ["KARMADA_CLAIM_FIELDS", "Rendering"]
from webhook.base.ledger import KARMADA_CLAIM_FIELDS, KARMADA_COMMON_FIELDS
from webhook.bundle.model import Bundle

MANAGED_BY = "fedgate"
STATEFUL_LABEL = "fedgate.dev/stateful"
TENANT_LABEL = "fedgate.dev/tenant"
NAME_LABEL = "app.kubernetes.io/name"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas"


@dataclass
class Rendering:
    """The state of one app's render; steps read ``app`` and add to ``objects`` and ``claims``."""

    app: AppSpec
    bundle: Bundle
    candidates: tuple[str, ...]
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    claims: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, kind: str, obj: dict[str, Any], *claims: tuple[str, str]) -> None:
        """Add an object; git owns all of it but ``claims`` (pointer, owner) and Karmada's."""
        self.objects[kind] = obj
        ledger = {"": "git", **{p: "karmada" for p in KARMADA_COMMON_FIELDS}}
        self.claims[kind] = ledger
        for path, owner in claims:
            self.claim(kind, path, owner)

    def claim(self, kind: str, path: str, owner: str) -> None:
        self.claims[kind][path] = owner

    def metadata(
        self, name: str | None = None, *, extra_labels: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """The metadata every rendered object carries (the ledger annotation comes last)."""
        labels = {
            NAME_LABEL: self.app.name,
            MANAGED_BY_LABEL: MANAGED_BY,
            TENANT_LABEL: self.app.tenant,
            **(extra_labels or {}),
        }
        if self.app.stateful:
            labels[STATEFUL_LABEL] = "true"
        return {
            "name": name or self.app.name,
            "namespace": self.app.namespace,
            "labels": dict(sorted(labels.items())),
        }

    def selector(self, api_version: str, kind: str, name: str | None = None) -> dict[str, str]:
        """An explicit resource selector, namespace filled in as Karmada's webhook would."""
        return {
            "apiVersion": api_version,
            "kind": kind,
            "namespace": self.app.namespace,
            "name": name or self.app.name,
        }
