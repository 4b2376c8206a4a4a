"""What a workload requests at least (``webhook/engine/quota.py``), by kind, and the pods that
fit a quota (the rule's fast path) held to the plain sums."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.base.quantity import parse_quantity
from webhook.bundle.index import TreeIndex
from webhook.bundle.model import Bundle, Quota, Tenant
from webhook.engine.quota import (
    _requests_key,
    fit,
    floors,
    member_pods,
    per_pod,
    requested,
    unreadable,
)


def _pod(cpu: str, *, init: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "250m"}}},
        ]
    }
    if init is not None:
        spec["initContainers"] = [{"name": "i", "resources": {"requests": {"cpu": init}}}]
    return spec


def _requests(cpu: str) -> dict[str, Any]:
    return {"resources": {"requests": {"cpu": cpu}}}


@pytest.mark.parametrize(
    ("obj", "cpu", "memory"),
    [
        pytest.param(
            {"kind": "Deployment", "spec": {"replicas": 3, "template": {"spec": _pod("1")}}},
            Fraction(15, 4),
            3 * 2**30,
            id="replicas x the containers' sum",
        ),
        pytest.param(
            {"kind": "StatefulSet", "spec": {"template": {"spec": _pod("1")}}},
            Fraction(5, 4),
            2**30,
            id="replicas absent: one",
        ),
        pytest.param(
            {"kind": "Pod", "spec": _pod("1", init="4")},
            Fraction(4),
            2**30,
            id="the larger init container",
        ),
        pytest.param(
            {
                "kind": "CronJob",
                "spec": {
                    "jobTemplate": {"spec": {"parallelism": 4, "template": {"spec": _pod("1")}}}
                },
            },
            Fraction(5),
            4 * 2**30,
            id="a CronJob's parallelism",
        ),
        pytest.param(
            {"kind": "DaemonSet", "spec": {"template": {"spec": _pod("lots")}}},
            Fraction(1, 4),
            2**30,
            id="an unreadable quantity counts nothing in the bill (the rule denies it)",
        ),
        pytest.param(
            {
                "kind": "Deployment",
                "spec": {
                    "replicas": 2,
                    "template": {
                        "spec": {
                            **_pod("1", init="4"),
                            "initContainers": [
                                {"name": "s1", "restartPolicy": "Always", **_requests("8")},
                                {"name": "i", **_requests("4")},
                                {"name": "s2", "restartPolicy": "Always", **_requests("8")},
                            ],
                        }
                    },
                },
            },
            2 * (Fraction(5, 4) + 16),
            2 * 2**30,
            id="sidecars run alongside the containers (red team: counted as one init container)",
        ),
        pytest.param(
            {
                "kind": "Pod",
                "spec": {
                    "containers": [{"name": "a", **_requests("100m")}],
                    "initContainers": [
                        {"name": "s", "restartPolicy": "Always", **_requests("1")},
                        {"name": "i", **_requests("6")},
                    ],
                },
            },
            Fraction(7),
            0,
            id="an init container runs beside the sidecars started before it",
        ),
        pytest.param(
            {
                "kind": "Deployment",
                "spec": {
                    "replicas": 50,
                    "template": {"spec": {**_pod("100m"), "resources": {"requests": {"cpu": "1"}}}},
                },
            },
            Fraction(50),
            50 * 2**30,
            id="pod-level requests (Kubernetes 1.32+) above the containers' sum",
        ),
        pytest.param(
            {
                "kind": "Deployment",
                "spec": {
                    "replicas": 10,
                    "template": {"spec": {**_pod("100m"), "overhead": {"cpu": "500m"}}},
                },
            },
            Fraction(10) * (Fraction(7, 20) + Fraction(1, 2)),
            10 * 2**30,
            id="the RuntimeClass's overhead",
        ),
        pytest.param(
            {"kind": "Job", "spec": {"parallelism": True, "template": {"spec": _pod("1")}}},
            Fraction(5, 4),
            2**30,
            id="a count that is not an integer is one",
        ),
    ],
)
def test_requested(obj: dict[str, Any], cpu: Fraction, memory: int) -> None:
    assert requested(obj) == {"cpu": cpu, "memory": Fraction(memory)}


def test_a_kind_without_a_pod_template_requests_nothing() -> None:
    assert requested({"kind": "ConfigMap", "data": {}}) == {}


QUANTITIES = st.sampled_from(["0", "1m", "250m", "1", "1.5", "64", "3e2", "512Mi", "1Gi", "7"])


@settings(max_examples=300, deadline=None)
@given(
    cpu=QUANTITIES,
    init=st.one_of(st.none(), QUANTITIES),
    count=st.integers(0, 5_000),
    limit=st.one_of(st.none(), QUANTITIES),
    others=QUANTITIES,
)
def test_the_pods_that_fit_agree_with_the_sums(
    cpu: str, init: str | None, count: int, limit: str | None, others: str
) -> None:
    """The fast path (how many pods fit, worked out once per template) against the plain sum
    the rule states: Git's other templates plus requests times pods, against the quota."""
    spec: dict[str, Any] = {"containers": [{"resources": {"requests": {"cpu": cpu}}}]}
    if init is not None:
        spec["initContainers"] = [{"resources": {"requests": {"cpu": init}}}]
    quota = Quota(cpu=None if limit is None else parse_quantity(limit))
    tenant = Tenant("t", ("ns",), (), frozenset(), {}, (), quota)
    found = fit(per_pod(spec), tenant, {"cpu": parse_quantity(others)})
    amount = requested({"kind": "Pod", "spec": spec})["cpu"] * count
    most = found.with_git["cpu"]
    if quota.cpu is None:
        assert most is None and found.whole["cpu"] is None
        return
    # a write whose pods request nothing raises no bill: the rule passes it (amount > 0)
    raised = amount > 0
    assert (raised and most is not None and count > most) == (
        raised and parse_quantity(others) + amount > quota.cpu
    )
    whole = found.whole["cpu"]
    assert (raised and whole is not None and count > whole) == (raised and amount > quota.cpu)


CONTAINERS = st.lists(
    st.fixed_dictionaries(
        {
            "resources": st.fixed_dictionaries(
                {"requests": st.fixed_dictionaries({"cpu": QUANTITIES})}
            )
        },
        optional={"restartPolicy": st.sampled_from(["Always", "Never", 3])},
    ),
    max_size=3,
)
POD_SPECS = st.fixed_dictionaries(
    {"containers": CONTAINERS},
    optional={
        "initContainers": CONTAINERS,
        "resources": st.fixed_dictionaries(
            {"requests": st.fixed_dictionaries({"cpu": QUANTITIES})}
        ),
        "overhead": st.fixed_dictionaries({"cpu": st.one_of(QUANTITIES, st.just(["1"]))}),
    },
)


@settings(max_examples=500, deadline=None)
@given(first=POD_SPECS, other=POD_SPECS, names=st.booleans())
def test_the_memo_key_tells_apart_what_per_pod_reads(
    first: dict[str, Any], other: dict[str, Any], names: bool
) -> None:
    """The rule memoizes fit() by _requests_key (the fast path): a pod spec that differs from
    another only in what the key holds (pod-level requests, overhead, a sidecar's restartPolicy,
    names) bills alike when the keys agree, and differently keyed when it does not."""
    second = {k: v for k, v in first.items() if k not in ("resources", "overhead")}
    second.update({k: other[k] for k in ("resources", "overhead") if k in other})
    if names:
        second["containers"] = [{**c, "name": "x"} for c in second["containers"]]
    if "initContainers" in other and len(other["initContainers"]) == len(
        first.get("initContainers", ())
    ):
        second["initContainers"] = other["initContainers"]
    key = _requests_key(first)
    if key is not None and key == _requests_key(second):
        assert per_pod(first) == per_pod(second)


@pytest.mark.parametrize(
    ("spec", "found"),
    [
        pytest.param(_pod("1"), None, id="plain quantities"),
        pytest.param(_pod("0" * 70 + "64"), "0" * 70 + "64", id="longer than 64 characters"),
        pytest.param(_pod("0.64e32"), "0.64e32", id="an exponent past 30"),
        pytest.param(
            {**_pod("1"), "overhead": {"cpu": ["1"]}}, ["1"], id="an overhead not a quantity"
        ),
        pytest.param(
            {**_pod("1"), "resources": {"requests": {"memory": "lots"}}}, "lots", id="pod-level"
        ),
        pytest.param({**_pod("1"), "overhead": {"cpu": 1}}, None, id="a number is a quantity"),
    ],
)
def test_what_the_bill_cannot_read(spec: dict[str, Any], found: Any) -> None:
    assert unreadable(spec) == found


KEYED = ("namespace", "name")
SCALED = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["apps/v1", "batch/v1"]),
        "kind": st.sampled_from(["Deployment", "StatefulSet"]),
        "metadata": st.fixed_dictionaries(
            {"namespace": st.just("team-a"), "name": st.sampled_from(["web", "api"])},
            optional={"labels": st.dictionaries(st.sampled_from(["app", "x"]), st.just("v"))},
        ),
        "spec": st.fixed_dictionaries({}, optional={"replicas": st.integers(0, 9)}),
    }
)
SCALERS = st.lists(
    st.fixed_dictionaries(
        {
            "apiVersion": st.sampled_from(["autoscaling.karmada.io/v1alpha1", "autoscaling/v2"]),
            "kind": st.sampled_from(["FederatedHPA", "HorizontalPodAutoscaler", "Deployment"]),
            "metadata": st.fixed_dictionaries(
                {"namespace": st.just("team-a"), "name": st.sampled_from(["s1", "s2", "s3"])}
            ),
            "spec": st.fixed_dictionaries(
                {
                    "scaleTargetRef": st.fixed_dictionaries(
                        {
                            "apiVersion": st.sampled_from(["apps/v1", "batch/v1"]),
                            "kind": st.sampled_from(["Deployment", "StatefulSet"]),
                            "name": st.sampled_from(["web", "api"]),
                        }
                    ),
                },
                optional={"minReplicas": st.one_of(st.integers(-1, 12), st.just("3"))},
            ),
        }
    ),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(scalers=SCALERS, objects=st.lists(SCALED, min_size=1, max_size=6))
def test_member_pods_memoized_floors_count_as_each_scan(
    bundle: Bundle, scalers: list[dict[str, Any]], objects: list[dict[str, Any]]
) -> None:
    """member_pods keeps Git's autoscalers' floors per template key for the bundle (the fast
    path): templates one after another, of the same keys with other replicas, labels and
    specs, count as many pods as each with a bundle of its own, which scans the autoscalers."""
    index = TreeIndex.of(scalers)
    shared = replace(bundle, index=index)
    for obj in objects:
        alone = replace(bundle, index=index)
        assert member_pods(obj, shared, index) == member_pods(obj, alone, index)
        bare = {**obj, "spec": {}, "metadata": {k: obj["metadata"][k] for k in KEYED}}
        assert floors(obj, index) == floors(bare, index)  # what the memo's key holds
