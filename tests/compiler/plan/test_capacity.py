"""Each cluster's requests before and after a change of placement, against its allocatable."""

from __future__ import annotations

from fractions import Fraction

from compiler.plan.capacity import Move, amount, loads
from webhook.bundle.model import Allocatable, Cluster

POD = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "spec": {
        "template": {
            "spec": {
                "containers": [{"name": "a", "resources": {"requests": {"cpu": "250m"}}}],
                "initContainers": [
                    {
                        "name": "s",
                        "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "50m"}},
                    }
                ],
            }
        }
    },
}
CLUSTERS = {
    "a": Cluster("a", {}),
    "b": Cluster("b", {}, allocatable=Allocatable(cpu=Fraction(1), pods=3)),
}


def test_a_move_is_billed_per_pod_as_the_scheduler_counts_it() -> None:
    """250m and a 50m sidecar make 300m a pod (quota.per_pod, Kubernetes' PodRequests)."""
    [b] = loads([Move("Deployment x/web", POD, {"a": 2, "b": 1}, {"b": 3})], CLUSTERS, ["b"])
    assert (b.before["cpu"], b.after["cpu"]) == (Fraction(3, 10), Fraction(9, 10))
    assert (b.before["pods"], b.after["pods"]) == (1, 3)
    assert b.over() == []
    assert b.added_by == {"Deployment x/web": {"cpu": Fraction(3, 5), "memory": 0, "pods": 2}}


def test_over_the_declared_allocatable() -> None:
    [b] = loads([Move("Deployment x/web", POD, {"a": 4}, {"b": 4})], CLUSTERS, ["b"])
    assert b.over() == ["cpu", "pods"]
    assert (amount("cpu", b.after["cpu"]), amount("pods", b.after["pods"])) == ("1200m", "4")


def test_a_template_without_pods_requests_nothing() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap"}
    [a] = loads([Move("ConfigMap x/c", config, {"a": None}, {"a": None})], CLUSTERS, ["a"])
    assert (a.before, a.after, a.allocatable) == ({}, {}, {})
