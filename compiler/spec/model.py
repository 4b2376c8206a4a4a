"""The app spec (``fedgate.dev/v1alpha1`` ``App``) as frozen values.

Every field is documented in the app spec reference (docs/app-spec.md); the loader
(``load.py``) is the only code that sees the user's raw YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from webhook.base.yamlsource import Document

API_VERSION = "fedgate.dev/v1alpha1"
KIND = "App"

ReplicaMode = Literal["Divided", "Duplicated"]
Owner = Literal["git", "federated-hpa", "member-hpa"]
Purge = Literal["graceful", "direct", "never"]

PURGE_MODES: Mapping[str, str] = {"graceful": "Gracefully", "direct": "Directly", "never": "Never"}
"""``spec.failover.purge`` -> Karmada v1.18 ``purgeMode`` (the new spellings, not the aliases)."""


@dataclass(frozen=True)
class ClusterTarget:
    """A set of clusters by name or by labels (exactly one of the two is set)."""

    names: tuple[str, ...] = ()
    labels: Mapping[str, str] | None = None

    def affinity(self) -> dict[str, Any]:
        """The Karmada ClusterAffinity selecting these clusters."""
        if self.labels is not None:
            return {"labelSelector": {"matchLabels": dict(sorted(self.labels.items()))}}
        return {"clusterNames": list(self.names)}


@dataclass(frozen=True)
class Placement:
    """Where an app runs: the clusters it targets and how its replicas are spread over them."""

    target: ClusterTarget
    replicas: ReplicaMode = "Duplicated"
    weights: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Plaintext:
    """A raw RFC 6902 operation applied by Karmada's plaintext overrider."""

    path: str
    operator: Literal["add", "remove", "replace"]
    value: Any = None


@dataclass(frozen=True)
class Override:
    """Per-cluster differences, rendered into one OverridePolicy rule."""

    target: ClusterTarget | None
    image_registry: str | None = None
    image_tag: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    plaintext: tuple[Plaintext, ...] = ()


@dataclass(frozen=True)
class Autoscaling:
    """Who owns the replicas (git, or an autoscaler within bounds) and the autoscaler's target."""

    owner: Owner = "git"
    min_replicas: int = 1
    max_replicas: int | None = None
    target_cpu_utilization: int = 80


@dataclass(frozen=True)
class Failover:
    """What Karmada does when a cluster fails: purge mode and how long the workload tolerates it."""

    purge: Purge = "graceful"
    toleration_seconds: int = 300
    grace_period_seconds: int | None = None

    @property
    def purge_mode(self) -> str:
        return PURGE_MODES[self.purge]


@dataclass(frozen=True)
class Resources:
    """The container's resource requests and limits, as Kubernetes quantities."""

    requests: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AppSpec:
    """One application, as its team wrote it. ``origin`` locates errors found after loading."""

    name: str
    namespace: str
    tenant: str
    image: str
    replicas: int | None
    placement: Placement
    ports: tuple[int, ...] = ()
    resources: Resources = field(default_factory=Resources)
    readiness_probe: Mapping[str, Any] | None = None
    liveness_probe: Mapping[str, Any] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    config_maps: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    overrides: tuple[Override, ...] = ()
    autoscaling: Autoscaling = field(default_factory=Autoscaling)
    failover: Failover | None = None
    stateful: bool = False
    labels: Mapping[str, str] = field(default_factory=dict)
    origin: Document | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)
