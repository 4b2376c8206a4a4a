"""The harness's stand-in for the members' rollouts (``rollouts.py``) reads health as Karmada's
interpreter does (pkg/resourceinterpreter/default/native/healthy.go at v1.18.2) and writes the
status that interpreter calls healthy."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.rollouts import finished, healthy


def _deployment(generation: int = 2, replicas: int | None = 3, **status: int) -> dict[str, Any]:
    spec = {} if replicas is None else {"replicas": replicas}
    return {
        "kind": "Deployment",
        "metadata": {"name": "x", "namespace": "n", "generation": generation},
        "spec": spec,
        "status": status,
    }


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (_deployment(), False),  # no status: no controller ever wrote it
        (_deployment(observedGeneration=1, updatedReplicas=3, availableReplicas=3), False),
        (_deployment(observedGeneration=2, updatedReplicas=2, availableReplicas=2), False),
        (_deployment(observedGeneration=2, updatedReplicas=3, availableReplicas=2), False),
        (_deployment(observedGeneration=2, updatedReplicas=3, availableReplicas=3), True),
        # spec.replicas unset: only available against updated counts
        (_deployment(replicas=None, observedGeneration=2), True),
    ],
)
def test_health_is_karmadas(item: dict[str, Any], expected: bool) -> None:
    assert healthy(item) is expected


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet"])
def test_a_finished_rollout_is_healthy(kind: str) -> None:
    item = {**_deployment(generation=7, replicas=5), "kind": kind}
    item["status"] = finished(item)
    assert healthy(item)
    assert item["status"]["observedGeneration"] == 7
