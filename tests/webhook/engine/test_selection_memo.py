"""The templates a policy selects are worked out once per index for each scope and selectors
(``selection.selection_key``): the memo against the scan it skips, on adversarial selectors.

The key must tell apart what the scan tells apart: ``1``, ``1.0`` and ``true`` (equal in
Python, not to the selector code), a missing field and a null one (the same to it), selectors
that are not objects (they match nothing) and no selectors at all (which select everything),
the scope of a cluster-wide kind. Hypothesis draws both the index and a run of policies from
small pools, so that policies that differ only so meet in one memo table.
"""

from __future__ import annotations

import copy
import json
import math
from contextlib import ExitStack
from dataclasses import replace
from datetime import date
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from webhook.base.values import NotJson, json_key
from webhook.bundle.index import MEMO_TABLE_BYTES, TreeIndex
from webhook.bundle.model import Bundle
from webhook.engine.request import AdmissionRequest, GroupVersionKind, UserInfo
from webhook.engine.review import review
from webhook.engine.targets import selection, stateful_purge
from webhook.engine.targets.selection import REFERENCE_BYTES, scan_templates, selected_templates
from webhook.engine.targets.stateful_purge import stateful_found, stateful_scan

ODD = st.sampled_from([None, 1, 1.0, True, False, 0, "", [], {}, ["apps/v1"], {"a": "b"}])
API_VERSIONS = st.sampled_from(["v1", "apps/v1", "apps/v2"])
KINDS = st.sampled_from(["Deployment", "ConfigMap", "StatefulSet", "PersistentVolumeClaim"])
NAMESPACES = st.sampled_from(["platform-demo", "b", ""])
NAMES = st.sampled_from(["x", "y", "1"])
LABEL_VALUES = st.one_of(st.sampled_from(["x", "y", "true", "True"]), ODD)
LABELS = st.dictionaries(st.sampled_from(["app", "tier", "fedgate.dev/stateful"]), LABEL_VALUES)
LABEL_SELECTORS = st.one_of(
    ODD,
    st.fixed_dictionaries({"matchLabels": LABELS}),
    st.fixed_dictionaries(
        {
            "matchExpressions": st.lists(
                st.fixed_dictionaries(
                    {
                        "key": st.one_of(st.sampled_from(["app", "tier"]), ODD),
                        "operator": st.sampled_from(["In", "NotIn", "Exists", "Bad", 1]),
                        "values": st.one_of(st.lists(LABEL_VALUES, max_size=2), ODD),
                    }
                ),
                max_size=2,
            )
        }
    ),
)
SELECTOR_FIELDS = {
    "apiVersion": st.one_of(API_VERSIONS, ODD),
    "kind": st.one_of(KINDS, ODD),
    "namespace": st.one_of(NAMESPACES, ODD),
    "name": st.one_of(NAMES, ODD),
    "labelSelector": LABEL_SELECTORS,
    "other": ODD,
}
SELECTORS = st.one_of(
    st.fixed_dictionaries({}, optional=SELECTOR_FIELDS),  # type: ignore[arg-type]
    ODD,
)


@st.composite
def templates(draw: st.DrawFn) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": draw(NAMES), "labels": draw(LABELS)}
    namespace = draw(NAMESPACES)
    if namespace:
        metadata["namespace"] = namespace
    template: dict[str, Any] = {
        "apiVersion": draw(API_VERSIONS),
        "kind": draw(KINDS),
        "metadata": metadata,
    }
    if draw(st.booleans()):
        volumes = [{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}]
        template["spec"] = {"template": {"spec": {"containers": [], "volumes": volumes}}}
    return template


@st.composite
def policies(draw: st.DrawFn) -> dict[str, Any]:
    policy: dict[str, Any] = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": draw(st.sampled_from(["PropagationPolicy", "ClusterPropagationPolicy", None, 5])),
        "metadata": {"name": "p", "namespace": draw(st.one_of(NAMESPACES, ODD))},
    }
    spec = draw(
        st.one_of(
            st.fixed_dictionaries({"resourceSelectors": st.lists(SELECTORS, max_size=4)}),
            st.fixed_dictionaries({"resourceSelectors": ODD}),
            st.just({}),
        )
    )
    policy["spec"] = spec
    return policy


def _ids(found: list[Any]) -> list[int]:
    return [id(t) for t in found]


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # about 4 s
@given(st.lists(templates(), max_size=8), st.lists(policies(), min_size=1, max_size=6))
def test_the_memo_answers_as_the_scan_does(
    objects: list[dict[str, Any]], run: list[dict[str, Any]]
) -> None:
    index = TreeIndex.of(objects)
    for policy in [*run, *run]:  # each twice: the second from the memo
        assert _ids(selected_templates(index, policy)) == _ids(scan_templates(index, policy))
        assert stateful_found(index, policy) == stateful_scan(index, policy)


def test_equal_in_python_is_not_the_same_selector() -> None:
    """``1 == 1.0 == True`` in Python, yet a selector naming ``1`` is not one naming ``true``:
    the first answer must not stand for the second."""
    index = TreeIndex.of(
        [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}}]
    )

    def policy(name: Any, labels: Any = None) -> dict[str, Any]:
        selector = {"apiVersion": "v1", "kind": "ConfigMap", "name": name}
        if labels is not None:
            selector = {"apiVersion": "v1", "kind": "ConfigMap", "labelSelector": labels}
        return {
            "kind": "PropagationPolicy",
            "metadata": {"namespace": "a"},
            "spec": {"resourceSelectors": [selector]},
        }

    for first, second in [
        (policy("c"), policy(1)),
        (policy(None, {"matchLabels": {}}), policy(None, {"matchLabels": []})),
        (policy(None, {"matchExpressions": []}), policy(None, {"matchExpressions": {}})),
    ]:
        assert _ids(selected_templates(index, first)) == _ids(scan_templates(index, first))
        assert _ids(selected_templates(index, second)) == _ids(scan_templates(index, second))
    no_selectors = {"kind": "PropagationPolicy", "metadata": {"namespace": "a"}, "spec": {}}
    only_odd = {**no_selectors, "spec": {"resourceSelectors": [5]}}
    assert len(selected_templates(index, no_selectors)) == 1
    assert selected_templates(index, only_odd) == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)  # well under a second
@given(JSON, JSON)
def test_a_json_key_is_equal_only_for_the_same_json(a: Any, b: Any) -> None:
    same = json.dumps(a) == json.dumps(b)
    assert (json_key(a) == json_key(b)) == same
    hash(json_key(a))


@pytest.mark.parametrize(
    "value", [(1, 2), date(2026, 1, 1), {1: "a"}, {"a": ("b",)}, [b"x"], {"a": {2.0: 1}}]
)
def test_a_json_key_refuses_what_is_not_json(value: Any) -> None:
    with pytest.raises(NotJson):
        json_key(value)


def test_floats_are_keyed_by_their_text() -> None:
    """-0.0 == 0.0 in Python, yet prints otherwise; every NaN reads alike."""
    assert json_key(-0.0) != json_key(0.0)
    assert json_key(float("nan")) == json_key(-math.nan)
    assert json_key(1.0) != json_key(1) != json_key(True)


GIT = {"username": "system:serviceaccount:kube-system:argocd-manager", "groups": []}
ALICE = {"username": "alice@example.com", "groups": ["team-a"]}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # about 5 s
@given(
    st.lists(templates(), max_size=6),
    st.lists(policies(), min_size=1, max_size=3),
    st.sampled_from(["Gracefully", "Directly", "Never"]),
    st.sampled_from([GIT, ALICE]),
)
def test_a_review_decides_as_without_the_memo(
    bundle: Bundle,
    objects: list[dict[str, Any]],
    run: list[dict[str, Any]],
    purge: str,
    user: dict[str, Any],
) -> None:
    """Whole reviews of PropagationPolicies with a failover, against the shipped index with
    drawn templates added: the same Decision with the memo and with every key refused (the
    scan alone)."""
    assert bundle.index is not None
    bundle = replace(bundle, index=TreeIndex.of([*bundle.index.objects.values(), *objects]))
    for drawn in run:
        policy = copy.deepcopy(drawn)
        if isinstance(policy.get("spec"), dict):
            policy["spec"]["failover"] = {"application": {"purgeMode": purge}}
            policy["spec"]["placement"] = {"clusterAffinity": {"clusterNames": ["cluster-a"]}}
        policy["metadata"]["namespace"] = "platform-demo"
        policy["kind"] = "PropagationPolicy"

        def request(policy: dict[str, Any] = policy) -> AdmissionRequest:  # a fresh object
            return AdmissionRequest(
                uid="u",
                kind=GroupVersionKind("policy.karmada.io", "v1alpha1", "PropagationPolicy"),
                resource="propagationpolicies",
                operation="CREATE",
                user=UserInfo(user["username"], tuple(user["groups"])),
                namespace="platform-demo",
                name="p",
                object=copy.deepcopy(policy),
            )

        memoised = [review(request(), bundle) for _ in range(2)]
        with ExitStack() as stack:
            for module in (selection, stateful_purge):
                stack.enter_context(mock.patch.object(module, "selection_key", lambda _: None))
            scanned = review(request(), bundle)
        event(str(sorted({v.rule for v in scanned.violations} & {"stateful-purge.targets"})))
        assert memoised[0] == scanned
        assert memoised[1] == scanned


def _config_maps_where(expression: dict[str, Any]) -> dict[str, Any]:
    """A PropagationPolicy of namespace a selecting its ConfigMaps by one label requirement."""
    selector = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "labelSelector": {"matchExpressions": [expression]},
    }
    return {
        "kind": "PropagationPolicy",
        "metadata": {"namespace": "a"},
        "spec": {"resourceSelectors": [selector]},
    }


def test_a_policy_selecting_many_templates_is_charged_for_them() -> None:
    """Policies differing in what selects nothing less (a requirement no template has) each
    keep every template of the namespace: the table is charged a reference per template, so
    its bound holds however many such policies come."""
    index = TreeIndex.of(
        [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"c{i}", "namespace": "a"},
            }
            for i in range(2_000)
        ]
    )
    for n in range(300):
        policy = _config_maps_where({"key": f"k{n}", "operator": "DoesNotExist"})
        assert len(selected_templates(index, policy)) == 2_000
    table = index._memo["selected-templates"]
    assert table.used <= MEMO_TABLE_BYTES
    assert len(table) * 2_000 * REFERENCE_BYTES <= table.used  # every kept answer charged
    assert len(table) < 300  # emptied on the way: 300 answers would pass the bound


def test_a_selector_of_many_empty_values_is_charged_what_its_key_holds() -> None:
    """A requirement of 20,000 empty label values (a valid LabelSelector, 60 KB of body) makes
    a key holding 160 KB of references: it is charged for them, so it is not kept, where a
    charge by the strings' lengths alone (600 bytes) let each such policy stay."""
    index = TreeIndex.of(
        [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}}]
    )
    for n in range(20):
        policy = _config_maps_where({"key": f"k{n}", "operator": "NotIn", "values": [""] * 20_000})
        assert selected_templates(index, policy) == scan_templates(index, policy)
    table = index._memo["selected-templates"]
    assert len(table) == 0 and table.used == 0
