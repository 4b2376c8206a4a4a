"""The target rules without an index of the synced tree: a tenant's write about other objects
cannot be judged and is denied with what to do; git's and the platform team's are judged on
what they carry (the retain rule reads git's target-ownership annotation then)."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from webhook.bundle.index import TreeIndex, key_of
from webhook.bundle.model import Bundle
from webhook.engine.context import Review
from webhook.engine.decision import Decision
from webhook.engine.identity import identify
from webhook.engine.request import AdmissionRequest
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.engine.targets.member_copies import check_override_effects
from webhook.engine.targets.selection import selected_templates
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import propagate

ALICE = {"username": "alice@example.com", "groups": ["team-a"]}
PAT = {"username": "pat@example.com", "groups": ["platform-admins"]}
GIT = {"username": "system:serviceaccount:kube-system:argocd-manager", "groups": []}

OVERRIDE = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "OverridePolicy",
    "metadata": {
        "name": "web-frontend",
        "namespace": "platform-demo",
        "annotations": {
            "fedgate.dev/target-ownership": '{"":"git","/spec/replicas":"federated-hpa"}'
        },
    },
    "spec": {
        "resourceSelectors": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web-frontend"}
        ],
        "overrideRules": [
            {
                "overriders": {
                    "plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 3}]
                }
            }
        ],
    },
}
SCALER = {
    "apiVersion": "autoscaling.karmada.io/v1alpha1",
    "kind": "FederatedHPA",
    "metadata": {"name": "x", "namespace": "platform-demo"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}},
}


@pytest.fixture(scope="module")
def blind(bundle: Bundle) -> Bundle:
    return replace(bundle, index=None)


def _rules(bundle: Bundle, obj: dict[str, Any], user: dict[str, Any]) -> dict[str, str]:
    decision = review(sync_request(obj, None, bundle, user=user), bundle)
    return {v.rule: v.message for v in decision.violations}


def test_a_tenant_override_is_denied_without_an_index(blind: Bundle) -> None:
    unannotated = {**OVERRIDE, "metadata": {"name": "mine", "namespace": "platform-demo"}}
    found = _rules(blind, unannotated, ALICE)
    assert found["overrides.member-copies"].startswith(
        "the webhook's bundle carries no index of the synced tree, so what this override does "
        "cannot be judged"
    )


def test_git_is_judged_on_what_it_carries_without_an_index(blind: Bundle) -> None:
    found = _rules(blind, OVERRIDE, GIT)
    assert set(found) == {"retain.override-owned-field"}
    assert found["retain.override-owned-field"].startswith(
        "this override writes /spec/replicas of the selected object, which its ledger gives "
        "to federated-hpa"
    )


def test_with_the_index_git_s_word_on_its_target_is_not_needed(bundle: Bundle) -> None:
    unannotated = {**OVERRIDE, "metadata": {"name": "web-frontend", "namespace": "platform-demo"}}
    found = _rules(bundle, unannotated, GIT)
    assert "which Git's ledger gives to federated-hpa" in found["retain.override-owned-field"]


@pytest.mark.parametrize(("user", "denied"), [(ALICE, True), (PAT, False), (GIT, False)])
def test_an_autoscaler_without_an_index(blind: Bundle, user: dict[str, Any], denied: bool) -> None:
    assert ("ownership.autoscaler-target" in _rules(blind, SCALER, user)) is denied


def test_a_tenant_policy_without_an_index(blind: Bundle) -> None:
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "mine", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}],
            "placement": {"clusterAffinity": {"clusterNames": ["cluster-a"]}},
        },
    }
    assert "tenancy.takeover" in _rules(blind, policy, ALICE)


def test_an_override_for_a_cluster_the_template_does_not_go_to_yet(bundle: Bundle) -> None:
    """orders-db runs on cluster-a only; an override of its image for cluster-b applies the
    day Git adds cluster-b, so it is judged as if the template went there."""
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "later", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "orders-db"}
            ],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["cluster-b"]},
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "docker.io"}
                        ]
                    },
                }
            ],
        },
    }
    assert bundle.index is not None
    placed = propagate(
        bundle.index.get(("apps", "Deployment", "platform-demo", "orders-db")) or {},
        Policies.of(bundle.index.policies("platform-demo")),
        bundle.clusters,
    )
    assert set(placed.copies) == {"cluster-a"}
    found = _rules(bundle, override, GIT)
    assert found["registry-allowed"].startswith(
        "in cluster-b, Deployment platform-demo/orders-db would get: image docker.io/"
    )


def test_a_member_copy_is_reviewed_by_the_reviewer_the_context_carries(bundle: Bundle) -> None:
    """The rule reaches ``review`` only through ``Review.reviewer`` (no import of the engine that
    calls it); without one it raises, which ``review`` turns into a fail-closed error."""
    override = copy.deepcopy(OVERRIDE)
    override["metadata"].pop("annotations")
    override["spec"]["overrideRules"][0]["overriders"] = {
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "docker.io"}]
    }
    request = sync_request(override, None, bundle, user=GIT)
    rule = next(r for r in bundle.rules if r.id == "overrides.member-copies")
    seen: list[tuple[str, str | None]] = []

    def spy(write: AdmissionRequest, _: Bundle, **where: Any) -> Decision:
        seen.append((write.kind.kind, where["cluster"]))
        return Decision(allowed=True)

    identity = identify(request.user, bundle)
    context = Review(request, bundle, identity, None, reviewer=spy)
    assert list(check_override_effects(context, rule)) == []
    assert seen and {kind for kind, _ in seen} == {"Deployment"}
    assert all(cluster for _, cluster in seen)
    with pytest.raises(RuntimeError, match="reviewer"):
        list(check_override_effects(Review(request, bundle, identity, None), rule))


def test_a_template_mounting_a_claim_is_stateful_whatever_its_labels(bundle: Bundle) -> None:
    """stateful-purge keys on what the template is: demo-http mounting a claim in Git's tree
    makes its policy's graceful failover a violation, with no label on either."""
    assert bundle.index is not None
    key = ("apps", "Deployment", "platform-demo", "demo-http")
    template = copy.deepcopy(dict(bundle.index.get(key) or {}))
    template["spec"]["template"]["spec"]["volumes"] = [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}
    ]
    objects = [template if key_of(o) == key else o for o in bundle.index.objects.values()]
    with_claim = replace(bundle, index=TreeIndex.of(objects))
    policy = copy.deepcopy(
        dict(
            bundle.index.get(
                ("policy.karmada.io", "PropagationPolicy", "platform-demo", "demo-http")
            )
            or {}
        )
    )
    policy["spec"]["failover"] = {
        "application": {"purgeMode": "Gracefully", "decisionConditions": {"tolerationSeconds": 60}}
    }
    assert "stateful-purge.targets" not in _rules(bundle, copy.deepcopy(policy), GIT)
    found = _rules(with_claim, policy, GIT)
    assert found["stateful-purge.targets"].startswith(
        "it fails over Deployment platform-demo/demo-http, which is stateful, with purgeMode "
        "Gracefully"
    )


def test_a_policy_whose_kind_is_not_a_string_selects_in_its_namespace(bundle: Bundle) -> None:
    """An object whose kind is null crashed the takeover rule (the property test of odd
    objects found it); it is read as a namespaced policy."""
    assert bundle.index is not None
    policy = {"kind": None, "metadata": {"namespace": "platform-demo"}}
    templates = selected_templates(bundle.index, policy)
    assert templates and all(key_of(t)[2] == "platform-demo" for t in templates)
