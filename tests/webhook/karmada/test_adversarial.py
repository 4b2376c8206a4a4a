"""What an author controls cannot break the simulation: random (odd-typed, deep, huge)
templates and policies give a plan or a located failure, never another exception, in bounded
time. The webhook judges members with this code: an exception there would be a 500."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.bundle.model import Bundle
from webhook.karmada.detector import Policies
from webhook.karmada.overriders import OverrideError, apply_overriders
from webhook.karmada.propagation import propagate

_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["add", "remove", "replace", "Registry", "Tag", "Repository", "/spec", "-"]),
)
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["path", "value", "operator", "component", "name", "x"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=25,
)
_OVERRIDER_KEYS = st.sampled_from(
    [
        "imageOverrider",
        "commandOverrider",
        "argsOverrider",
        "labelsOverrider",
        "annotationsOverrider",
        "fieldOverrider",
        "plaintext",
    ]
)


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "payments", "labels": {"a": "b"}},
        "spec": {
            "replicas": 3,
            "template": {
                "spec": {"containers": [{"name": "web", "image": "r.io/p/web:1", "args": ["-v"]}]}
            },
        },
    }


@given(st.dictionaries(_OVERRIDER_KEYS, st.lists(_JSON, max_size=3), max_size=4))
@settings(max_examples=500, deadline=2000)
def test_random_overriders_apply_or_fail_cleanly(overriders: dict[str, Any]) -> None:
    try:
        result = apply_overriders(_deployment(), overriders)
    except OverrideError:
        return
    assert isinstance(result, dict) and isinstance(result.get("kind"), str)


@given(
    spec=st.dictionaries(
        st.sampled_from(["replicas", "template", "parallelism", "x"]), _JSON, max_size=3
    ),
    policy_spec=st.dictionaries(
        st.sampled_from(
            ["resourceSelectors", "placement", "overrideRules", "priority", "overriders"]
        ),
        _JSON,
        max_size=4,
    ),
    kind=st.sampled_from(
        ["PropagationPolicy", "ClusterPropagationPolicy", "OverridePolicy", "ClusterOverridePolicy"]
    ),
)
@settings(max_examples=300, deadline=2000)
def test_random_templates_and_policies_plan_or_fail_cleanly(
    spec: dict[str, Any], policy_spec: dict[str, Any], kind: str, bundle: Bundle
) -> None:
    template = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "payments"},
        "spec": spec,
    }
    placing = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "all"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "placement": {},
        },
    }
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": "random", "namespace": "payments"},
        "spec": policy_spec,
    }
    plan = propagate(template, Policies.of([placing, policy]), bundle.clusters)
    for member in plan.copies.values():
        assert (member.object is None) == (member.error is not None)


def test_a_huge_replica_count_is_planned_quickly(bundle: Bundle) -> None:
    template = _deployment()
    template["spec"]["replicas"] = 2**31 - 1
    placing = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "payments"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "placement": {"replicaScheduling": {}},
        },
    }
    plan = propagate(template, Policies.of([placing]), bundle.clusters)
    assert sum(n or 0 for n in plan.placement.values()) == 2**31 - 1
