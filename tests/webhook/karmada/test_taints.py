"""Karmada v1.18.2's own tables for taints, tolerations and the taint manager's decisions.

Each case names its upstream Go file and test; the ``id`` is the upstream case name. Times are
seconds on the test's clock (Go's fixed time is 0 here).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webhook.bundle.model import Cluster
from webhook.karmada.taints import (
    Taint,
    add_taints,
    condition_matches,
    failed_cluster_taints,
    matching_tolerations,
    need_eviction,
    policy_taints,
    purge_mode,
    remove_taints,
    tolerates,
)

TAINT_MANAGER_TEST = "pkg/controllers/cluster/taint_manager_test.go"
POLICY_CONTROLLER_TEST = "pkg/controllers/taint/clustertaintpolicy_controller_test.go"


def exists(key: str, seconds: int | None = None) -> dict[str, Any]:
    toleration: dict[str, Any] = {"key": key, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        toleration["tolerationSeconds"] = seconds
    return toleration


def no_execute(key: str, added: float) -> Taint:
    return Taint(key, "NoExecute", "", added)


# TestNoExecuteTaintManager_needEvictionWithCurrentTime: the cases a static plan can hold (the
# annotation-parsing and missing-cluster cases concern objects fedgate builds itself).
# (taints, tolerations, evict now, seconds until due; None is Go's -1: never).
@pytest.mark.parametrize(
    ("taints", "tolerations", "evict", "wait"),
    [
        pytest.param(
            [Taint("test-key", "NoSchedule", "", -1)],
            [],
            False,
            None,
            id="cluster has no NoExecute taints",
        ),
        pytest.param(
            [no_execute("test-key", -1)], [], True, 0, id="taint not tolerated - immediate eviction"
        ),
        pytest.param(
            [no_execute("test-key", -1)],
            [exists("test-key", 0)],
            True,
            0,
            id="taint tolerated with zero toleration seconds - immediate eviction",
        ),
        pytest.param(
            [no_execute("test-key", -1)],
            [exists("test-key", 60)],
            False,
            59,
            id="taint tolerated with positive toleration seconds - wait for toleration time",
        ),
        pytest.param(
            [no_execute("test-key", -1)],
            [exists("test-key")],
            False,
            None,
            id="taint tolerated forever - no eviction",
        ),
        pytest.param(
            [no_execute("tolerated-key", 1), no_execute("not-tolerated-key", -1)],
            [exists("tolerated-key", 30)],
            True,
            0,
            id="multiple taints with mixed tolerations",
        ),
        pytest.param(
            [no_execute("test-key", -2)],
            [exists("test-key", 1)],
            True,
            0,
            id="toleration time expired - immediate eviction",
        ),
    ],
)
def test_need_eviction_with_current_time(
    taints: list[Taint], tolerations: list[dict[str, Any]], evict: bool, wait: float | None
) -> None:
    assert need_eviction(taints, tolerations, 0) == (evict, wait), TAINT_MANAGER_TEST


# Test_enqueueBinding: skip (never), immediate, delayed. The two fail-safe cases (no or invalid
# applied-placement annotation) do not arise: the plan reads the policy itself.
@pytest.mark.parametrize(
    ("taints", "tolerations", "action"),
    [
        pytest.param([], [], "skip", id="no taints - skip"),
        pytest.param(
            [no_execute("test-key", -1)], [], "immediate", id="no tolerations - immediate eviction"
        ),
        pytest.param(
            [no_execute("test-key", -1)],
            [exists("test-key", 60)],
            "delayed",
            id="finite tolerationSeconds unexpired - delayed eviction",
        ),
        pytest.param(
            [no_execute("test-key", -1)],
            [exists("test-key")],
            "skip",
            id="infinite toleration (no tolerationSeconds) - skip",
        ),
        pytest.param(
            [no_execute("tolerated-key", -1), no_execute("not-tolerated-key", -1)],
            [exists("tolerated-key")],
            "immediate",
            id="multiple taints - one not tolerated - immediate",
        ),
        pytest.param(
            [no_execute("key1", -1), no_execute("key2", -1)],
            [exists("key1"), exists("key2")],
            "skip",
            id="multiple taints - all tolerated indefinitely - skip",
        ),
        pytest.param(
            [no_execute("key1", -1), no_execute("key2", -1)],
            [exists("key1"), exists("key2", 120)],
            "delayed",
            id="multiple taints - one tolerated with finite seconds - delayed",
        ),
    ],
)
def test_enqueue_binding(
    taints: list[Taint], tolerations: list[dict[str, Any]], action: str
) -> None:
    evict, wait = need_eviction(taints, tolerations, 0)
    got = "immediate" if evict else "skip" if wait is None else "delayed"
    assert got == action, TAINT_MANAGER_TEST


# Test_getPurgeMode: (the policy's spec.failover, --no-execute-taint-eviction-purge-mode).
@pytest.mark.parametrize(
    ("failover", "default", "expected"),
    [
        pytest.param(
            None,
            "",
            "Gracefully",
            id="failover spec is nil, global config is empty, should default to Gracefully",
        ),
        pytest.param(
            None, "Directly", "Directly", id="failover spec is nil, global config is Directly"
        ),
        pytest.param(
            None, "Gracefully", "Gracefully", id="failover spec is nil, global config is Gracefully"
        ),
        pytest.param(
            {},
            "Directly",
            "Directly",
            id="failover spec is present, but cluster is nil, should fallback to global config",
        ),
        pytest.param(
            {"cluster": {"purgeMode": ""}},
            "Directly",
            "Gracefully",
            id="failover spec is present, PurgeMode is empty, should be Gracefully",
        ),
        pytest.param(
            {"cluster": {"purgeMode": "Directly"}},
            "Gracefully",
            "Directly",
            id="failover spec is present, PurgeMode is Directly",
        ),
        pytest.param(
            {"cluster": {"purgeMode": "Gracefully"}},
            "Directly",
            "Gracefully",
            id="failover spec is present, PurgeMode is Gracefully",
        ),
    ],
)
def test_get_purge_mode(failover: Any, default: str, expected: str) -> None:
    assert purge_mode(failover, default) == expected, TAINT_MANAGER_TEST


def test_application_failover_does_not_set_the_cluster_purge_mode() -> None:
    """``failover.application`` is for an Unhealthy copy; a cluster failure reads only
    ``failover.cluster``, else the controller's flag (taint_manager.go getPurgeMode)."""
    failover = {"application": {"purgeMode": "Directly", "decisionConditions": {}}}
    assert purge_mode(failover, "Gracefully") == "Gracefully"


def condition(kind: str, op: str, *values: str) -> dict[str, Any]:
    return {"conditionType": kind, "operator": op, "statusValues": list(values)}


# TestConditionMatches (clustertaintpolicy_controller_test.go).
@pytest.mark.parametrize(
    ("conditions", "match", "expected"),
    [
        pytest.param({"Ready": "True"}, [], False, id="empty match conditions"),
        pytest.param(
            {"Ready": "True"}, [condition("Ready", "In", "True")], True, id="match: operator is In"
        ),
        pytest.param(
            {"Ready": "False"},
            [condition("Ready", "In", "True")],
            False,
            id="don't match: operator is In",
        ),
        pytest.param(
            {"Ready": "False"},
            [condition("Ready", "NotIn", "True", "Unknown")],
            True,
            id="match: operator is NotIn",
        ),
        pytest.param(
            {"Ready": "False"},
            [condition("Ready", "NotIn", "False")],
            False,
            id="don't match: operator is NotIn",
        ),
        pytest.param(
            {"Ready": "Unknown", "NetworkReady": "False", "StorageReady": "True"},
            [
                condition("Ready", "In", "False", "Unknown"),
                condition("NetworkReady", "NotIn", "True"),
            ],
            True,
            id="match: multiple conditions",
        ),
        pytest.param(
            {"Ready": "True", "NetworkReady": "False", "StorageReady": "True"},
            [
                condition("Ready", "In", "False", "Unknown"),
                condition("NetworkReady", "NotIn", "True"),
            ],
            False,
            id="don't match: multiple conditions",
        ),
    ],
)
def test_condition_matches(
    conditions: dict[str, str], match: list[dict[str, Any]], expected: bool
) -> None:
    assert condition_matches(conditions, match) is expected, POLICY_CONTROLLER_TEST


def test_a_condition_the_cluster_lacks_matches_neither_in_nor_not_in() -> None:
    """Go's loop over the cluster's conditions never sets ``match`` for a missing type."""
    assert not condition_matches({"Ready": "False"}, [condition("NetworkReady", "NotIn", "True")])


# TestAddTaintsOnCluster: (taints on the cluster, taints to add, expected); now = 0, the taints
# already there were added a minute ago.
@pytest.mark.parametrize(
    ("current", "wanted", "expected"),
    [
        pytest.param(
            [],
            [Taint("key1", "NoSchedule", "value1")],
            [Taint("key1", "NoSchedule", "value1", 0)],
            id="add new taint",
        ),
        pytest.param(
            [Taint("key1", "NoSchedule", "value1", -60)],
            [Taint("key1", "NoSchedule", "value1")],
            [Taint("key1", "NoSchedule", "value1", -60)],
            id="add the existing taint, don't update TimeAdded",
        ),
        pytest.param(
            [Taint("key2", "PreferNoSchedule", "value2", -60)],
            [Taint("key1", "NoSchedule", "value1"), Taint("key3", "NoExecute", "value3")],
            [
                Taint("key2", "PreferNoSchedule", "value2", -60),
                Taint("key1", "NoSchedule", "value1", 0),
                Taint("key3", "NoExecute", "value3", 0),
            ],
            id="add multi taints",
        ),
    ],
)
def test_add_taints_on_cluster(
    current: list[Taint], wanted: list[Taint], expected: list[Taint]
) -> None:
    assert add_taints(current, wanted, 0) == expected, POLICY_CONTROLLER_TEST


# TestRemoveTaintsOnCluster.
@pytest.mark.parametrize(
    ("current", "unwanted", "expected"),
    [
        pytest.param(
            [Taint("key1", "NoSchedule", "", -60)],
            [Taint("key1", "NoSchedule")],
            [],
            id="remove a taint",
        ),
        pytest.param(
            [Taint("key1", "NoSchedule", "", -60), Taint("key2", "NoExecute", "", 0)],
            [Taint("key1", "NoSchedule"), Taint("key2", "NoExecute")],
            [],
            id="remove multiple matched taints",
        ),
        pytest.param(
            [Taint("key1", "NoSchedule", "", -60)],
            [Taint("key2", "NoExecute")],
            [Taint("key1", "NoSchedule", "", -60)],
            id="no matched taints",
        ),
    ],
)
def test_remove_taints_on_cluster(
    current: list[Taint], unwanted: list[Taint], expected: list[Taint]
) -> None:
    assert remove_taints(current, unwanted) == expected, POLICY_CONTROLLER_TEST


# Kubernetes' Toleration.ToleratesTaint (staging/src/k8s.io/api/core/v1/toleration.go), as
# Karmada calls it with comparison operators off.
@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [
        pytest.param(
            {"operator": "Exists"}, Taint("any", "NoExecute"), True, id="empty-key-exists"
        ),
        pytest.param(
            {"key": "k", "operator": "Exists"}, Taint("k", "NoSchedule"), True, id="any-effect"
        ),
        pytest.param(
            {"key": "k", "operator": "Exists", "effect": "NoSchedule"},
            Taint("k", "NoExecute"),
            False,
            id="other-effect",
        ),
        pytest.param({"key": "k", "value": "v"}, Taint("k", "NoExecute", "v"), True, id="equal"),
        pytest.param(
            {"key": "k", "value": "v"}, Taint("k", "NoExecute", "w"), False, id="equal-other-value"
        ),
        pytest.param({"key": "k"}, Taint("k", "NoExecute"), True, id="equal-empty-values"),
        pytest.param(
            {"key": "k", "operator": "Gt", "value": "1"},
            Taint("k", "NoExecute", "2"),
            False,
            id="comparison-operators-off",
        ),
        pytest.param({"key": "j", "operator": "Exists"}, Taint("k", "NoExecute"), False, id="key"),
    ],
)
def test_tolerates(toleration: dict[str, Any], taint: Taint, expected: bool) -> None:
    assert tolerates(toleration, taint) is expected


def test_matching_tolerations_takes_the_first_toleration_per_taint() -> None:
    taints = [no_execute("a", 0)]
    tolerations = [exists("a"), exists("a", 10)]
    assert matching_tolerations(taints, tolerations) == (True, [exists("a")])
    # the first match tolerates forever: the later, timed one is not consulted (helper/taint.go)
    assert need_eviction(taints, tolerations, 0) == (False, None)


CLUSTER = Cluster("member1", {"region": "eu"}, region="eu")
NOT_READY_POLICY = {
    "name": "not-ready",
    "addOnConditions": [condition("Ready", "In", "False", "Unknown")],
    "removeOnConditions": [condition("Ready", "In", "True")],
    "taints": [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
}


def test_a_failed_cluster_without_taint_policies_gets_only_the_schedule_taint() -> None:
    """cluster_controller.go adds ``not-ready:NoSchedule``; nothing NoExecute, nothing evicted."""
    taints = failed_cluster_taints(CLUSTER, [], 0)
    assert [t.describe() for t in taints] == ["cluster.karmada.io/not-ready:NoSchedule"]
    assert need_eviction(taints, [], 0) == (False, None)


def test_a_taint_policy_adds_its_no_execute_taint_when_ready_is_false() -> None:
    taints = failed_cluster_taints(CLUSTER, [NOT_READY_POLICY], 0)
    assert [t.describe() for t in taints] == [
        "cluster.karmada.io/not-ready:NoSchedule",
        "cluster.karmada.io/not-ready:NoExecute",
    ]
    assert need_eviction(taints, [], 0) == (True, 0)


@pytest.mark.parametrize(
    ("target", "tainted"),
    [
        pytest.param({"clusterNames": ["member1"]}, True, id="targeted-by-name"),
        pytest.param({"clusterNames": ["member2"]}, False, id="another-cluster"),
        pytest.param({"labelSelector": {"matchLabels": {"region": "eu"}}}, True, id="by-label"),
    ],
)
def test_target_clusters_select_the_clusters_a_policy_taints(
    target: dict[str, Any], tainted: bool
) -> None:
    policy = {**NOT_READY_POLICY, "targetClusters": target}
    taints = policy_taints(CLUSTER, {"Ready": "False"}, [policy])
    assert any(t.effect == "NoExecute" for t in taints) is tainted


def test_add_then_remove_in_one_policy_leaves_no_taint() -> None:
    """AddOnConditions are evaluated before RemoveOnConditions (clustertaint_types.go)."""
    policy = {**NOT_READY_POLICY, "removeOnConditions": [condition("Ready", "In", "False")]}
    assert policy_taints(CLUSTER, {"Ready": "False"}, [policy]) == []


JUNK: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["key", "effect", "operator", "statusValues"]), inner)
    ),
    max_leaves=6,
)
POLICY_KEYS = st.sampled_from(
    ["targetClusters", "addOnConditions", "removeOnConditions", "taints", "name"]
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared, busy machine
@given(st.lists(st.dictionaries(POLICY_KEYS, JUNK, max_size=5), max_size=3))
def test_any_tree_taint_policy_is_read_without_failing(policies: list[dict[str, Any]]) -> None:
    """ClusterTaintPolicies read from a tree are not validated first: whatever they hold, the
    failed cluster's taints come out (Karmada's API would refuse the malformed ones)."""
    taints = failed_cluster_taints(CLUSTER, policies, 0)
    assert taints[0].describe() == "cluster.karmada.io/not-ready:NoSchedule"
    assert all(isinstance(t, Taint) for t in taints)


# test/e2e/suites/base/clustertaintpolicy_test.go, "Taint cluster with ClusterTaintPolicy": each
# It sets the target cluster's conditions step by step and waits for the taints; here each
# step is one reconcile of the ClusterTaintPolicy controller from the taints the last left.
CLUSTERTAINTPOLICY_E2E = "test/e2e/suites/base/clustertaintpolicy_test.go"
NETWORK = [Taint("testing/network-not-ready", "NoSchedule")]


def _e2e_policy(
    add: list[dict[str, Any]], remove: list[dict[str, Any]], taints: list[Taint]
) -> Any:
    return {
        "name": "e2e",
        "targetClusters": {"clusterNames": ["member1"]},
        "addOnConditions": add,
        "removeOnConditions": remove,
        "taints": [{"key": t.key, "effect": t.effect} for t in taints],
    }


NO_SCHEDULE = ("testing/network-not-ready", "NoSchedule")
NO_EXECUTE = ("testing/network-not-ready", "NoExecute")
ALL = ("testing/all-not-ready", "NoSchedule")


@pytest.mark.parametrize(
    ("policy", "steps"),
    [
        pytest.param(
            _e2e_policy(
                [condition("NetworkReady", "In", "False", "Unknown")],
                [condition("NetworkReady", "In", "True")],
                NETWORK,
            ),
            [({"NetworkReady": "False"}, [NO_SCHEDULE]), ({"NetworkReady": "True"}, [])],
            id="One condition match / taint should be added and removed upon single condition "
            "match",
        ),
        pytest.param(
            _e2e_policy(
                [
                    condition("NetworkReady", "In", "False", "Unknown"),
                    condition("StorageReady", "In", "False", "Unknown"),
                ],
                [
                    condition("NetworkReady", "In", "True"),
                    condition("StorageReady", "In", "True"),
                ],
                [Taint(*ALL)],
            ),
            [
                ({"NetworkReady": "False"}, []),
                ({"NetworkReady": "False", "StorageReady": "False"}, [ALL]),
                ({"NetworkReady": "True", "StorageReady": "False"}, [ALL]),
                ({"NetworkReady": "True", "StorageReady": "True"}, []),
            ],
            id="Multi conditions match / taint should be added and removed upon multi "
            "conditions match",
        ),
        pytest.param(
            _e2e_policy(
                [condition("NetworkReady", "In", "False", "Unknown")],
                [condition("NetworkReady", "In", "True")],
                [Taint(*NO_SCHEDULE), Taint(*NO_EXECUTE)],
            ),
            [
                ({"NetworkReady": "False"}, [NO_SCHEDULE, NO_EXECUTE]),
                ({"NetworkReady": "True"}, []),
            ],
            id="Control with multiple taints / multiple taints should be added and removed upon "
            "conditions match",
        ),
    ],
)
def test_cluster_taint_policy_e2e(
    policy: Any, steps: list[tuple[dict[str, str], list[tuple[str, str]]]]
) -> None:
    taints: list[Taint] = []
    for now, (conditions, expected) in enumerate(steps):
        taints = policy_taints(CLUSTER, conditions, [policy], taints, now)
        assert [(t.key, t.effect) for t in taints] == expected, CLUSTERTAINTPOLICY_E2E
