"""Replicas as Karmada's default interpreter reads and writes them (karmada v1.18.0
pkg/resourceinterpreter/default/native/replica.go, revisereplica.go; helper.ApplyReplica)."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.karmada.interpreter import (
    InterpretError,
    Replicas,
    api_server_defaults,
    get_replicas,
    revise_replicas,
)


def _workload(api_version: str, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w"}, "spec": spec}


POD_WITH_REQUESTS = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            _workload("apps/v1", "Deployment", {"replicas": 3}), Replicas(3, False), id="deployment"
        ),
        pytest.param(
            _workload("apps/v1", "Deployment", {}), Replicas(0, False), id="absent-is-zero"
        ),
        pytest.param(
            _workload(
                "apps/v1", "StatefulSet", {"replicas": 2, "template": {"spec": POD_WITH_REQUESTS}}
            ),
            Replicas(2, True),
            id="statefulset-with-requests",
        ),
        pytest.param(
            _workload(
                "apps/v1", "ReplicaSet", {"replicas": 0, "template": {"spec": {"nodeSelector": {}}}}
            ),
            Replicas(0, True),
            id="an-empty-node-selector-is-a-requirement",
        ),
        pytest.param(
            _workload("batch/v1", "Job", {"parallelism": 5, "completions": 2}),
            Replicas(2, False),
            id="job-at-most-completions",
        ),
        pytest.param(
            _workload("batch/v1", "Job", {"parallelism": 5}),
            Replicas(5, False),
            id="job-parallelism",
        ),
        pytest.param(
            _workload("v1", "Pod", POD_WITH_REQUESTS), Replicas(1, True), id="a-pod-is-one"
        ),
        pytest.param(_workload("apps/v1", "DaemonSet", {}), None, id="daemonset-is-copied-whole"),
        pytest.param(_workload("v1", "ConfigMap", {}), None, id="configmap"),
        pytest.param(
            _workload("example.com/v1", "Deployment", {"replicas": 3}), None, id="kind-and-version"
        ),
        pytest.param(
            _workload(
                "apps/v1",
                "Deployment",
                {
                    "replicas": 1,
                    "template": {"spec": {"containers": [{"resources": {"limits": {"cpu": "0"}}}]}},
                },
            ),
            Replicas(1, False),
            id="zero-limits-are-no-requirement",
        ),
    ],
)
def test_get_replicas(obj: dict[str, Any], expected: Replicas | None) -> None:
    assert get_replicas(obj) == expected


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param({"replicas": "3"}, id="string"),
        pytest.param({"replicas": True}, id="bool"),
        pytest.param({"replicas": 2**31}, id="over-int32"),
        pytest.param(
            {"template": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}},
            id="bad-quantity",
        ),
    ],
)
def test_typed_conversion_failures(spec: dict[str, Any]) -> None:
    with pytest.raises(InterpretError):
        get_replicas(_workload("apps/v1", "Deployment", spec))


def test_revise_writes_only_a_field_the_template_has() -> None:
    assert revise_replicas(_workload("apps/v1", "Deployment", {"replicas": 6}), 2)["spec"] == {
        "replicas": 2
    }
    assert revise_replicas(_workload("apps/v1", "Deployment", {}), 2)["spec"] == {}
    assert revise_replicas(_workload("batch/v1", "Job", {"parallelism": 4}), 1)["spec"] == {
        "parallelism": 1
    }
    assert revise_replicas(_workload("v1", "Pod", {"replicas": 4}), 1)["spec"] == {"replicas": 4}


def test_the_api_server_defaults_replicas() -> None:
    defaulted, note = api_server_defaults(_workload("apps/v1", "Deployment", {}))
    assert defaulted["spec"] == {"replicas": 1} and note is not None
    defaulted, note = api_server_defaults(_workload("batch/v1", "Job", {}))
    assert defaulted["spec"] == {"parallelism": 1, "completions": 1}
    original = _workload("apps/v1", "Deployment", {"replicas": 0})
    assert api_server_defaults(original) == (original, None)
