"""``webhook/karmada/validation.py``: what Karmada v1.18.0's API refuses of its own policies
(the CRD schema's required fields and enums, karmada-webhook's pkg/util/validation), row by
row, each naming the check that decides it."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.karmada.validation import refusals

API = "policy.karmada.io/v1alpha1"
DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]


def _override(rules: Any = None, *, namespace: str | None = None, **spec: Any) -> dict[str, Any]:
    metadata = {"name": "o", **({"namespace": namespace} if namespace else {})}
    kind = "OverridePolicy" if namespace else "ClusterOverridePolicy"
    body = {**spec, **({"overrideRules": rules} if rules is not None else {})}
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": body}


def _rule(overriders: dict[str, Any], target: Any = None) -> dict[str, Any]:
    return {"overriders": overriders, **({"targetCluster": target} if target else {})}


def _propagation(placement: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "PropagationPolicy",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"resourceSelectors": DEPLOYMENTS, "placement": placement, **spec},
    }


def _fields(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {"fieldSelector": {"matchExpressions": list(expressions)}}


LABELS = {"labelsOverrider": [{"operator": "add", "value": {"a": "b"}}]}

STORED = [
    pytest.param(_override([_rule(LABELS)]), id="a plain rule"),
    pytest.param(_override([_rule({})]), id="a rule of empty overriders"),
    pytest.param(_override(targetCluster={"clusterNames": ["a"]}, overriders=LABELS), id="old"),
    pytest.param(
        _override([_rule(LABELS, _fields({"key": "zone", "operator": "NotIn", "values": ["z"]}))]),
        id="zone NotIn",
    ),
    pytest.param(
        _override(
            [
                _rule(
                    LABELS,
                    {"labelSelector": {"matchExpressions": [{"key": "n", "operator": "Gt"}]}},
                )
            ]
        ),
        id="a label selector is not looked at",
    ),
    pytest.param(
        _override([_rule({"plaintext": [{"operator": "remove", "path": "/spec/x"}]})]),
        id="plaintext remove",
    ),
    pytest.param(
        _override(
            [_rule(LABELS)],
            namespace="default",
            resourceSelectors=[{**DEPLOYMENTS[0], "namespace": "default"}],
        ),
        id="a selector in the policy's namespace",
    ),
    pytest.param(
        _override([_rule(LABELS)], namespace="default", resourceSelectors=DEPLOYMENTS),
        id="a selector without a namespace (the mutating webhook sets it)",
    ),
    pytest.param(
        _override([_rule(LABELS)], resourceSelectors=[{**DEPLOYMENTS[0], "namespace": "x"}]),
        id="a ClusterOverridePolicy selector may name any namespace",
    ),
    pytest.param(
        _propagation(
            {"clusterAffinity": _fields({"key": "region", "operator": "In", "values": ["r"]})}
        ),
        id="placement by region In",
    ),
    pytest.param(
        _propagation(
            {}, suspension={"dispatching": False, "dispatchingOnClusters": {"clusterNames": ["a"]}}
        ),
        id="dispatchingOnClusters alone",
    ),
]

REFUSED = [
    # the CRD schema
    pytest.param(_override([{}]), "overriders", id="CRD: a rule without overriders"),
    pytest.param(
        _override([_rule({"labelsOverrider": [{"value": {"a": "b"}}]})]),
        "operator is required",
        id="CRD: labelsOverrider operator required",
    ),
    pytest.param(
        _override([_rule({"labelsOverrider": [{"operator": "Add", "value": {}}]})]),
        "not one of",
        id="CRD: operator enum is case-sensitive",
    ),
    pytest.param(
        _override([_rule({"labelsOverrider": [{"operator": "add"}]})]),
        "value is required",
        id="CRD: labelsOverrider value required",
    ),
    pytest.param(
        _override([_rule({"imageOverrider": [{"component": "registry", "operator": "add"}]})]),
        "component",
        id="CRD: image component enum",
    ),
    pytest.param(
        _override([_rule({"commandOverrider": [{"containerName": "c", "operator": "replace"}]})]),
        "not one of add, remove",
        id="CRD: command operator add or remove only",
    ),
    pytest.param(
        _override([_rule({"argsOverrider": [{"operator": "add"}]})]),
        "containerName",
        id="CRD: args containerName required",
    ),
    pytest.param(
        _override([_rule({"plaintext": [{"operator": "add", "value": 1}]})]),
        "path",
        id="CRD: plaintext path required",
    ),
    pytest.param(
        _override(
            targetCluster=None, overriders={"plaintext": [{"path": "/x", "operator": "move"}]}
        ),
        "not one of",
        id="CRD: the deprecated form's overriders too",
    ),
    pytest.param(
        {
            "apiVersion": API,
            "kind": "ClusterPropagationPolicy",
            "metadata": {"name": "c"},
            "spec": {"resourceSelectors": [], "placement": {}},
        },
        "at least one",
        id="CRD: resourceSelectors minItems 1",
    ),
    # karmada-webhook: ValidateOverrideSpec
    pytest.param(
        _override([], targetCluster={"clusterNames": ["a"]}),
        "can't co-exist",
        id="webhook: targetCluster beside an (empty) overrideRules",
    ),
    pytest.param(
        _override([_rule(LABELS)], overriders=LABELS),
        "can't co-exist",
        id="webhook: overriders beside overrideRules",
    ),
    pytest.param(
        _override([_rule({"labelsOverrider": [{"operator": "add", "value": {"a": "b c"}}]})]),
        "invalid label",
        id="webhook: ValidateLabels",
    ),
    pytest.param(
        _override([_rule({"annotationsOverrider": [{"operator": "add", "value": {"a b": "x"}}]})]),
        "annotation key",
        id="webhook: ValidateAnnotations",
    ),
    pytest.param(
        _override(
            [
                _rule(
                    {
                        "imageOverrider": [
                            {
                                "component": "Tag",
                                "operator": "remove",
                                "predicate": {"path": "spec/x"},
                            }
                        ]
                    }
                )
            ]
        ),
        "JSON pointer",
        id="webhook: image predicate path",
    ),
    pytest.param(
        _override([_rule({"fieldOverrider": [{"fieldPath": "/data/x"}]})]),
        "either JSON or YAML",
        id="webhook: fieldOverrider with neither form",
    ),
    pytest.param(
        _override(
            [
                _rule(
                    {
                        "fieldOverrider": [
                            {
                                "fieldPath": "/data/x",
                                "json": [{"subPath": "/a", "operator": "replace"}],
                            }
                        ]
                    }
                )
            ]
        ),
        "value is required",
        id="webhook: fieldOverrider replace without a value",
    ),
    pytest.param(
        _override(
            [
                _rule(
                    {
                        "fieldOverrider": [
                            {
                                "fieldPath": "/data/x",
                                "yaml": [{"subPath": "/a", "operator": "remove", "value": 1}],
                            }
                        ]
                    }
                )
            ]
        ),
        "not allowed",
        id="webhook: fieldOverrider remove with a value",
    ),
    pytest.param(
        _override([_rule(LABELS, _fields({"key": "region", "operator": "Exists"}))]),
        "must be In or NotIn",
        id="webhook: a rule's fieldSelector operator",
    ),
    pytest.param(
        _override([_rule(LABELS, _fields({"key": "name", "operator": "In", "values": ["a"]}))]),
        "must be provider, region, or zone",
        id="webhook: a rule's fieldSelector key",
    ),
    pytest.param(
        _override(
            [_rule(LABELS)],
            namespace="default",
            resourceSelectors=[{**DEPLOYMENTS[0], "namespace": "x"}],
        ),
        "namespace of resource selector",
        id="webhook: an OverridePolicy selector in another namespace",
    ),
    # karmada-webhook: ValidatePropagationSpec
    pytest.param(
        _propagation(
            {"clusterAffinity": _fields({"key": "zone", "operator": "Gt", "values": ["1"]})}
        ),
        "must be In or NotIn",
        id="webhook: placement fieldSelector operator",
    ),
    pytest.param(
        _propagation({"clusterAffinity": {}, "clusterAffinities": []}),
        "cannot co-exist",
        id="webhook: clusterAffinity beside clusterAffinities",
    ),
    pytest.param(
        _propagation(
            {}, suspension={"dispatching": True, "dispatchingOnClusters": {"clusterNames": ["a"]}}
        ),
        "cannot co-exist",
        id="webhook: dispatching beside dispatchingOnClusters",
    ),
]


@pytest.mark.parametrize("policy", STORED)
def test_stored(policy: dict[str, Any]) -> None:
    assert refusals(policy) == []


@pytest.mark.parametrize(("policy", "why"), REFUSED)
def test_refused(policy: dict[str, Any], why: str) -> None:
    found = refusals(policy)
    assert found and any(why in message for _, message in found), found
