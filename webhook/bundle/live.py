"""The live index: what the Karmada API server holds, in the shape of the Git index.

``fedgate serve --kubeconfig`` lists and watches the kinds of ``WATCHED``
(``webhook/shell/watch.py``, the shell) and hands what it holds to ``live_index``, which builds
the same ``TreeIndex`` the bundle's ``index.json`` gives, so the engine judges cross-object
rules the same way on either. Pure: objects in, an index out.

- For a watched kind the API server is the truth: an object created by hand is known, a policy
  Argo CD added since the last ``fedgate bundle`` is known, one pruned is gone. Git's objects
  of kinds not watched (Services, ConfigMaps, ...) stay as the bundle has them.
- Ownership ledgers come from Git only (``TreeIndex.ledgers``): the rules that ask who owns a
  field read ``TreeIndex.ledgered``, which is the bundle's object of that key, never the live
  one. A live object's ``fedgate.dev/ownership`` annotation is its last writer's words, and the
  API server's copy may have been written where fedgate was not asked (before the webhook was
  registered, in a namespace its ``namespaceSelector`` leaves out, through a configuration
  edited meanwhile); nothing on the object tells those writes apart from the ones fedgate
  admitted. Git's ledger reached fedgate through the bundle, which only the platform team
  publishes: no writer of the Karmada API server can change it. An object Git does not hold
  has no ledger the index vouches for, exactly as without a live index (the request's own
  ``oldObject`` is then read, as today, and there fedgate is the one admitting the write).
- ``stale``: the watch has been down longer than the bound ``serve`` was given; the rules that
  need other objects' facts then deny, saying so (``engine/context.py: cross_index``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from webhook.bundle.index import TreeIndex


@dataclass(frozen=True)
class Watched:
    """One kind the live index lists and watches."""

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        """The collection's path on the API server, across every namespace."""
        return self.path_in("")

    def path_in(self, namespace: str) -> str:
        """The collection's path in ``namespace`` (every namespace: ``""``, or cluster-scoped)."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        where = f"/namespaces/{namespace}" if namespace and self.namespaced else ""
        return f"{base}{where}/{self.resource}"


WATCHED = (
    Watched("apps", "v1", "deployments", "Deployment"),
    Watched("apps", "v1", "statefulsets", "StatefulSet"),
    Watched("apps", "v1", "daemonsets", "DaemonSet"),
    Watched("batch", "v1", "jobs", "Job"),
    Watched("batch", "v1", "cronjobs", "CronJob"),
    Watched("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler"),
    Watched("policy.karmada.io", "v1alpha1", "propagationpolicies", "PropagationPolicy"),
    Watched(
        "policy.karmada.io",
        "v1alpha1",
        "clusterpropagationpolicies",
        "ClusterPropagationPolicy",
        namespaced=False,
    ),
    Watched("policy.karmada.io", "v1alpha1", "overridepolicies", "OverridePolicy"),
    Watched(
        "policy.karmada.io",
        "v1alpha1",
        "clusteroverridepolicies",
        "ClusterOverridePolicy",
        namespaced=False,
    ),
    Watched("autoscaling.karmada.io", "v1alpha1", "federatedhpas", "FederatedHPA"),
    Watched("autoscaling.karmada.io", "v1alpha1", "cronfederatedhpas", "CronFederatedHPA"),
    Watched("", "v1", "namespaces", "Namespace", namespaced=False),
)
"""What the cross-object rules read: the resource templates of the workload kinds (and the
HorizontalPodAutoscaler templates an autoscaler rule asks about), Karmada's four policy kinds,
its two autoscalers, and Namespaces."""

DROPPED_METADATA = ("managedFields",)
"""Metadata no rule reads and the API server keeps on every object: not held (memory)."""


def lean(obj: Mapping[str, Any], watched: Watched) -> dict[str, Any]:
    """``obj`` as the index holds it: apiVersion and kind set (a list's items may lack them),
    without the metadata of ``DROPPED_METADATA``."""
    held = dict(obj)
    held["apiVersion"], held["kind"] = watched.api_version, watched.kind
    metadata = held.get("metadata")
    if isinstance(metadata, dict) and any(k in metadata for k in DROPPED_METADATA):
        held["metadata"] = {k: v for k, v in metadata.items() if k not in DROPPED_METADATA}
    return held


def live_index(
    git: TreeIndex | None,
    live: Iterable[Mapping[str, Any]],
    *,
    watched: Iterable[Watched] = WATCHED,
    stale: str | None = None,
) -> TreeIndex:
    """The index the engine judges with: the live objects of the watched kinds, Git's of the
    others, ledgers from Git only, ``stale`` when the watch cannot be trusted."""
    kinds = {(w.group, w.kind) for w in watched}
    git_objects = git.objects if git is not None else {}
    kept = [o for k, o in git_objects.items() if (k[0], k[1]) not in kinds]
    ledgers = (git.ledgers if git.ledgers is not None else git.objects) if git else {}
    digest = f"{git.digest}+live" if git is not None and git.digest else "live"
    return TreeIndex.of([*kept, *live], digest, ledgers=ledgers, stale=stale)
