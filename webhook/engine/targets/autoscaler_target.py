"""``ownership.autoscaler-target``: an autoscaler may scale only what its target's ledger gives
to it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.ledger import owner_of
from webhook.base.values import is_mapping
from webhook.bundle.index import Key, TreeIndex, group_of, key_of
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index, ledger_of
from webhook.engine.decision import Violation
from webhook.engine.targets.selection import (
    no_index,
    show_key,
    spec_of,
    trusted_writer,
    unknown_target,
)

SCALERS = {
    "FederatedHPA": "federated-hpa",
    "CronFederatedHPA": "cron-federated-hpa",
    "HorizontalPodAutoscaler": "member-hpa",
}
"""The ledger owner each autoscaler kind acts as (no ledger names a CronFederatedHPA; a
HorizontalPodAutoscaler template becomes each member's HPA)."""


MEMBER_RETAINED = frozenset({("apps", "Deployment")})
"""The kinds whose replicas Karmada keeps as the member has them (with the retain-replicas
label): its default retention interpreter registers the replicas retention for Deployments
only (karmada v1.18.2 pkg/resourceinterpreter/default/native/retain.go). A member HPA on any
other kind fights Karmada, which writes the template's replicas back."""


def _scale_target(scaler: Mapping[str, Any], namespace: str) -> Key | None:
    """What an autoscaler scales, as an index key; None without a scaleTargetRef."""
    ref = spec_of(scaler).get("scaleTargetRef")
    if not is_mapping(ref):
        return None
    return (
        group_of(str(ref.get("apiVersion", ""))),
        str(ref.get("kind", "")),
        namespace,
        str(ref.get("name", "")),
    )


def _git_scalers(index: TreeIndex, namespace: str) -> Mapping[Key, tuple[Key, ...]]:
    """Git's autoscalers of one namespace, by what they scale."""
    found: dict[Key, list[Key]] = {}
    for obj in index.templates(namespace):
        target = _scale_target(obj, namespace) if obj.get("kind") in SCALERS else None
        if target is not None:
            found.setdefault(target, []).append(key_of(obj))
    return {target: tuple(scalers) for target, scalers in found.items()}


def check_autoscaler_target(review: Review, rule: Rule) -> Iterator[Violation]:
    scaler = review.request.object
    if not is_mapping(scaler):
        return
    key = _scale_target(scaler, review.request.namespace)
    if key is None:
        return
    if scaler.get("kind") == "HorizontalPodAutoscaler" and key[:2] not in MEMBER_RETAINED:
        yield review.violation(
            rule,
            f"a member HorizontalPodAutoscaler would scale each member's {key[1]} {key[3]}, and "
            f"Karmada keeps the members' replicas only for a Deployment: it would write the "
            f"{key[1]}'s replicas back from the template, fighting the HPA; scale it with a "
            "FederatedHPA, or keep the replicas in Git",
            pointer="/spec/scaleTargetRef",
            owner="karmada",
        )
    index = cross_index(review)
    trusted = trusted_writer(review)
    if index is None:
        if not trusted:
            yield no_index(review, rule, f"what this {scaler.get('kind')} scales")
        return
    target = index.get(key)
    if target is None:
        if not trusted:
            yield unknown_target(review, rule, key, "/spec/scaleTargetRef")
        return
    namespace = review.request.namespace
    scalers = review.bundle.memo("git-scalers", namespace, lambda: _git_scalers(index, namespace))
    others = [k for k in scalers.get(key, ()) if k != key_of(scaler)]
    if others and not trusted:
        yield review.violation(
            rule,
            f"{show_key(key)} is scaled by {', '.join(show_key(k) for k in others)} from Git: one "
            "template, one autoscaler (a second one would fight it over the replicas); change "
            "the autoscaling in Git",
            pointer="/spec/scaleTargetRef",
        )
    acting = SCALERS.get(str(scaler.get("kind")), "")
    ledger = ledger_of(index.ledgered(key))  # Git's ledger, never a live object's words
    pointers = (
        ("/spec/minReplicas", "/spec/maxReplicas")
        if key[1] == "FederatedHPA"
        else ("/spec/replicas",)
    )
    for pointer in pointers:
        found = owner_of(pointer, ledger) if ledger is not None else ("git", "")
        owner = found[0] if found else "git"
        if owner != acting:
            yield review.violation(
                rule,
                f"this {scaler.get('kind')} would write {pointer} of {show_key(key)}, which "
                f"Git's ledger gives to {owner}: two writers may not claim one field"
                + (
                    "; let an autoscaler own it with spec.autoscaling.owner in the app spec"
                    if owner == "git"
                    else ""
                ),
                pointer="/spec/scaleTargetRef",
                owner=owner,
            )
