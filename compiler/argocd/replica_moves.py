"""Apps whose ``/spec/replicas`` moves from git to an autoscaler, and what to clear first.

Argo CD syncs with client-side apply by default: the live Deployment keeps the last manifest
Argo CD applied in ``kubectl.kubernetes.io/last-applied-configuration``. When Git stops writing
``spec.replicas`` (the app moves from ``owner: git`` to an HPA), the next apply sees replicas in
that annotation and not in the new manifest, and deletes the field: the Deployment drops to one
replica until the autoscaler scales it back. Argo CD from v2.7.18, v2.8.15, v2.9.11, v2.10.6 and
v2.11.0 carries the live value of an ignored field into what it applies (argo-cd #17693), which
avoids it; older ones do not, and a manual sync without ``RespectIgnoreDifferences`` never does.
So every such move is reported, whatever the version, with the command that clears it: setting
the annotation to the newly rendered file, which has no replicas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from webhook.base import ledger

REPLICAS = "/spec/replicas"


@dataclass(frozen=True)
class ReplicaMove:
    """A Deployment whose replicas change owner (git to an autoscaler, or back)."""

    path: str
    """The Deployment's file, relative to the rendered tree."""
    namespace: str
    name: str
    old_owner: str
    new_owner: str

    def message(self, tree: str, context: str = "karmada-apiserver") -> str:
        return (
            f"{self.namespace}/{self.name}: /spec/replicas moves from {self.old_owner} to "
            f"{self.new_owner}. Before Argo CD syncs this, clear the replicas the live "
            "Deployment remembers in kubectl.kubernetes.io/last-applied-configuration, or a "
            "sync with client-side apply resets them (always with Argo CD before v2.7.18, "
            "v2.8.15, v2.9.11, v2.10.6, v2.11.0; with any version on a manual sync without "
            "RespectIgnoreDifferences): as break-glass (fedgate gives the annotation to git), "
            f"kubectl --context {context} apply set-last-applied -f {tree}/{self.path}"
        )


def _load(data: bytes) -> Mapping[str, Any] | None:
    try:
        value = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    return value if isinstance(value, Mapping) else None


def replicas_owner(obj: Mapping[str, Any]) -> str | None:
    """Who owns ``/spec/replicas`` by the object's ledger (None without a readable ledger)."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    text = annotations.get(ledger.ANNOTATION) if isinstance(annotations, Mapping) else None
    if not isinstance(text, str):
        return None
    try:
        owners = ledger.decode(text)
    except ledger.LedgerError:
        return None
    found = ledger.owner_of(REPLICAS, owners)
    return found[0] if found else None


def replica_moves(old: Mapping[str, bytes], new: Mapping[str, bytes]) -> list[ReplicaMove]:
    """Deployments present in both trees whose replicas were git's and are now an autoscaler's."""
    moves = []
    for path, data in sorted(new.items()):
        if not path.endswith("/deployment.yaml") or path not in old:
            continue
        before, after = _load(old[path]), _load(data)
        if before is None or after is None or after.get("kind") != "Deployment":
            continue
        old_owner, new_owner = replicas_owner(before), replicas_owner(after)
        if old_owner == "git" and new_owner not in (None, "git"):
            metadata = after.get("metadata") or {}
            moves.append(
                ReplicaMove(
                    path,
                    str(metadata.get("namespace", "")),
                    str(metadata.get("name", "")),
                    old_owner,
                    str(new_owner),
                )
            )
    return moves
