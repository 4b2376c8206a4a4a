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

import sys
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

HELD = ("apiVersion", "kind", "metadata", "spec")
"""The top-level fields of an object the index holds; ``status`` and any other are not. What
reads an index object, and what it reads (a reader of another field adds it here, and
``tests/webhook/engine/test_projection.py`` compares its decisions on the whole objects and on
these):

- the index itself (``bundle/index.py``): apiVersion, kind, metadata.name and namespace;
- the cross-object rules (``engine/targets``, ``engine/quota.py``, ``engine/retain.py``):
  labels, annotations (ownership ledgers, of Git's objects only), a policy's spec (selectors,
  placement, overriders), a template's spec (replicas, its pod template: requests, what an
  override rewrites in a member copy), an autoscaler's spec (its target, its bounds);
- Karmada's propagation and overrides simulated on a template (``karmada/propagation.py``,
  ``karmada/overridemanager.py``): the template's metadata and spec; Karmada's own policies
  and overriders act on those, never on ``status`` (it aggregates status, it does not
  propagate it). Karmada's typed conversion of a template (``karmada/typed.py``) fails on a
  ``status`` of the wrong types, but the API server stores the built-in kinds' status typed,
  so no object it sends fails there;
- the background audit (``shell/background.py``, ``fedgate audit``): every rule, on the object
  as held. Admission rules judge what a writer writes: a template's ``status`` is the API
  server's and Karmada's, not a writer's, so no rule of ``policies/`` reads it."""
DROPPED_METADATA = ("managedFields",)
"""Metadata no rule reads and the API server keeps on every object (each field's manager): not
held, and the largest part of an object written by server-side apply."""
DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
"""Annotations no rule reads: kubectl's copy of the whole object as last applied (a second copy
of the spec, as text, on every object kubectl or Argo CD's client-side apply wrote)."""
INTERNED_CHARS = 64
"""String values up to this long are interned as the index takes them: the API server's
defaults (``IfNotPresent``, ``/dev/termination-log``, ``25%``), namespaces, label values and
images repeat across objects, and one copy serves them all (orjson already shares keys)."""


def lean(obj: Mapping[str, Any], watched: Watched) -> dict[str, Any]:
    """``obj`` as the index holds it: the fields of ``HELD`` only, apiVersion and kind set (a
    list's items may lack them), without the metadata of ``DROPPED_METADATA`` and the
    annotations of ``DROPPED_ANNOTATIONS``, short strings interned."""
    held: dict[str, Any] = {k: _interned(obj[k]) for k in HELD if k in obj}
    held["apiVersion"], held["kind"] = watched.api_version, watched.kind
    metadata = held.get("metadata")
    if isinstance(metadata, dict):
        kept = {k: v for k, v in metadata.items() if k not in DROPPED_METADATA}
        annotations = kept.get("annotations")
        if isinstance(annotations, dict) and any(a in annotations for a in DROPPED_ANNOTATIONS):
            kept["annotations"] = {
                k: v for k, v in annotations.items() if k not in DROPPED_ANNOTATIONS
            }
        held["metadata"] = kept
    return held


def _interned(value: Any) -> Any:
    """``value`` with its short strings interned, in place (the caller's parse, held as is)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if len(item) <= INTERNED_CHARS:
                    value[key] = sys.intern(item)
            elif isinstance(item, dict | list):
                _interned(item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, str):
                if len(item) <= INTERNED_CHARS:
                    value[i] = sys.intern(item)
            elif isinstance(item, dict | list):
                _interned(item)
    return value


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
