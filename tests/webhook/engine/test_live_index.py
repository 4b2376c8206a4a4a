"""The cross-object rules on a live index (``bundle/live.py``): objects created by hand are
seen, ownership ledgers stay Git's whatever the live copy says, and a stale index fails closed
for tenants, saying why, while Git's and the platform's writes are judged on what they carry."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from tests.webhook.livecase import hand_made, policy
from webhook.bundle.index import Key
from webhook.bundle.live import live_index
from webhook.bundle.model import Bundle
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

ALICE = {"username": "alice@example.com", "groups": ["team-a"]}
PAT = {"username": "pat@example.com", "groups": ["platform-admins"]}
GIT = {"username": "system:serviceaccount:kube-system:argocd-manager", "groups": []}
ORDERS_DB: Key = ("apps", "Deployment", "platform-demo", "orders-db")
STALE = "its watch of PropagationPolicy has been down for 31 s, more than 30 s: refused"


def rules(bundle: Bundle, obj: dict[str, Any], user: dict[str, Any]) -> dict[str, str]:
    decision = review(sync_request(obj, None, bundle, user=user), bundle)
    return {v.rule: v.message for v in decision.violations}


def test_a_policy_created_by_hand_is_seen_by_the_takeover_rule(bundle: Bundle) -> None:
    first = policy("by-hand", "hand-made")
    second = policy("mine-too", "hand-made")
    assert "tenancy.takeover" not in rules(bundle, second, ALICE)  # Git's index: unknown
    live = replace(bundle, index=live_index(bundle.index, [hand_made("hand-made"), first]))
    assert rules(live, second, ALICE)["tenancy.takeover"].startswith(
        "this policy selects Deployment platform-demo/hand-made, which PropagationPolicy "
        "platform-demo/by-hand (made outside Git) propagates"
    )


def test_a_forged_live_ledger_does_not_change_who_owns_a_field(bundle: Bundle) -> None:
    """The live copy of Git's orders-db says an autoscaler owns its replicas; Git's ledger says
    git does: a FederatedHPA on it is refused, as on Git's index alone."""
    assert bundle.index is not None
    forged = copy.deepcopy(dict(bundle.index.objects[ORDERS_DB]))
    forged["metadata"]["annotations"]["fedgate.dev/ownership"] = (
        '{"":"git","/spec/replicas":"federated-hpa"}'
    )
    scaler = {
        "apiVersion": "autoscaling.karmada.io/v1alpha1",
        "kind": "FederatedHPA",
        "metadata": {"name": "x", "namespace": "platform-demo"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "orders-db"},
            "minReplicas": 1,
            "maxReplicas": 3,
        },
    }
    live = replace(bundle, index=live_index(bundle.index, [forged]))
    assert (
        "which Git's ledger gives to git" in rules(live, scaler, PAT)["ownership.autoscaler-target"]
    )


@pytest.mark.parametrize(("user", "denied"), [(ALICE, True), (PAT, False), (GIT, False)])
def test_a_stale_index_fails_closed_for_tenants(
    bundle: Bundle, user: dict[str, Any], denied: bool
) -> None:
    stale = replace(bundle, index=live_index(bundle.index, [], stale=STALE))
    found = rules(stale, policy("mine", "orders-db"), user)
    assert ("tenancy.takeover" in found) is denied
    if denied:
        assert found["tenancy.takeover"].startswith(
            f"the webhook's live index of the Karmada API server is stale ({STALE}), so which "
            "templates this policy would take cannot be judged"
        )


@pytest.mark.parametrize(("user", "denied"), [(ALICE, True), (GIT, False)])
def test_a_stale_index_cannot_count_a_tenant_s_quota(
    bundle: Bundle, user: dict[str, Any], denied: bool
) -> None:
    stale = replace(bundle, index=live_index(bundle.index, [], stale=STALE))
    found = rules(stale, hand_made("new-app"), user)
    assert ("tenancy.quota" in found) is denied
    assert "tenancy.quota" not in rules(bundle, hand_made("new-app"), user)
