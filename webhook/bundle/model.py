"""The policy bundle as frozen values; ``load.py`` builds it from ``policies/`` and validates it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

DATA_KINDS = ("ConfigMap", "PersistentVolumeClaim", "Secret")
"""Kinds of tenant data whose placement the bundle scopes (``tenants[].dataScope``)."""

LEDGER_OWNERS = ("git", "karmada", "federated-hpa", "member-hpa", "platform")
"""Who may own a field in an ownership ledger. ``federated-hpa`` acts through the karmada writer
(the controller-manager runs it); ``member-hpa`` writes only in member clusters, so nobody may
write its fields on the federation."""


@dataclass(frozen=True)
class Cluster:
    """A member cluster as Karmada selects it: labels, and the fields a fieldSelector reads."""

    name: str
    labels: Mapping[str, str]
    provider: str | None = None
    region: str | None = None
    zone: str | None = None

    def field(self, key: str) -> str | None:
        """The value of a ClusterAffinity fieldSelector key (provider, region or zone)."""
        return {"provider": self.provider, "region": self.region, "zone": self.zone}.get(key)


@dataclass(frozen=True)
class Quota:
    """Requested resources a tenant may hold across all clusters (None: unlimited)."""

    cpu: Fraction | None = None
    memory: Fraction | None = None


@dataclass(frozen=True)
class Tenant:
    """An application team: where it may run, where its data may go, what it may pull and use."""

    name: str
    namespaces: tuple[str, ...]
    groups: tuple[str, ...]
    clusters: frozenset[str]
    data_scope: Mapping[str, frozenset[str]]
    registries: tuple[str, ...]
    quota: Quota = field(default_factory=Quota)
    max_replicas_per_app: int | None = None

    def data_clusters(self, kind: str) -> frozenset[str]:
        """Clusters that may receive this tenant's data of ``kind`` (its clusters if unscoped)."""
        return self.data_scope.get(kind, self.clusters)


@dataclass(frozen=True)
class Writer:
    """An identity class of the API server's ``userInfo``: matched by name, prefix or group."""

    name: str
    usernames: frozenset[str] = frozenset()
    username_prefixes: tuple[str, ...] = ()
    groups: frozenset[str] = frozenset()

    def matches(self, username: str, groups: frozenset[str] | tuple[str, ...]) -> bool:
        return (
            username in self.usernames
            or any(username.startswith(prefix) for prefix in self.username_prefixes)
            or not self.groups.isdisjoint(groups)
        )


@dataclass(frozen=True)
class Bundle:
    """Everything the compiler and the engine know of the platform; built once, never mutated."""

    clusters: Mapping[str, Cluster]
    tenants: Mapping[str, Tenant]
    writers: tuple[Writer, ...]
    source: str = "<memory>"

    def tenant_of_namespace(self, namespace: str) -> Tenant | None:
        for tenant in self.tenants.values():
            if namespace in tenant.namespaces:
                return tenant
        return None

    def writer(self, name: str) -> Writer | None:
        return next((w for w in self.writers if w.name == name), None)
