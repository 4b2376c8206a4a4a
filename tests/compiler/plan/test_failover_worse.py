"""``plan --base REF``'s failover section: every single-cluster failure planned on the base and
on the change, and what the change makes worse, as a table of (base, change) -> findings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from compiler.plan.failoverworse import worse, worse_json, worse_lines
from compiler.plan.text import finish
from tests.compiler.plan.test_failover import (
    NOT_READY,
    ON,
    ONE_ON_A,
    TWO,
    deployment,
    manifests,
    policy,
    toleration,
)
from webhook.bundle.model import Bundle, ControlPlane

ONLY_A = "    clusterAffinity: {clusterNames: [cluster-a]}"
GRACEFUL = "  failover: {cluster: {purgeMode: Gracefully}}\n"
DIRECT = "  failover: {cluster: {purgeMode: Directly}}\n"
FOREVER = (
    "    clusterTolerations: [{key: cluster.karmada.io/not-ready, operator: Exists,"
    " effect: NoExecute}]"
)
WEB_TWO = (deployment("web", 2), policy("web", TWO))
WEB_ONLY_A = (deployment("web", 2), policy("web", ONLY_A))
WEB_HALVES = (deployment("web", 2), policy("web", ONE_ON_A))
"""One replica on cluster-a, one on cluster-b."""
DB_DIRECT = (deployment("db", 1, stateful=True), policy("db", ONE_ON_A, DIRECT))
DB_GRACEFUL = (deployment("db", 1, stateful=True), policy("db", ONE_ON_A, GRACEFUL))


def autoscaled(least: int) -> str:
    """A FederatedHPA on web (no policy propagates it: only its minReplicas matters here)."""
    return f"""\
apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: {{name: web, namespace: payments}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
  minReplicas: {least}
  maxReplicas: 10
"""


# (id, base, change, control plane, expected: (failed cluster, rule, action) per regression)
CASES: list[tuple[str, tuple[str, ...], tuple[str, ...], ControlPlane, list[tuple[str, ...]]]] = [
    ("nothing changes", WEB_TWO, WEB_TWO, ON, []),
    (
        "narrowed to one cluster: nowhere to go when it fails",
        WEB_TWO,
        WEB_ONLY_A,
        ON,
        [("cluster-a", "failover.nowhere", "warn")],
    ),
    (
        "narrowed, eviction off: the app runs nowhere while cluster-a is down",
        WEB_TWO,
        WEB_ONLY_A,
        ControlPlane(),
        [("cluster-a", "failover.unplaceable", "warn")],
    ),
    (
        "a new app on one cluster, eviction off",
        (),
        WEB_ONLY_A,
        ControlPlane(),
        [("cluster-a", "failover.unplaceable", "warn")],
    ),
    ("it ran nowhere at the base either", WEB_ONLY_A, WEB_ONLY_A, ControlPlane(), []),
    (
        "a stateful app switched from Directly to Gracefully: a split brain that denies",
        DB_DIRECT,
        DB_GRACEFUL,
        ON,
        [("cluster-a", "failover.split-brain", "deny")],
    ),
    ("switched back: better, not worse", DB_GRACEFUL, DB_DIRECT, ON, []),
    (
        "a toleration without seconds: the app is no longer moved off either cluster",
        WEB_TWO,
        (deployment("web", 2), policy("web", f"{TWO}\n{FOREVER}")),
        ON,
        [("cluster-a", "failover.lost", "warn"), ("cluster-b", "failover.lost", "warn")],
    ),
    (
        "a toleration with seconds still evicts: not worse here",
        WEB_TWO,
        (
            deployment("web", 2),
            policy("web", f"{TWO}\n{toleration('cluster.karmada.io/not-ready', 60)}"),
        ),
        ON,
        [],
    ),
    ("an app removed is no regression", WEB_ONLY_A, (), ControlPlane(), []),
    (
        "minReplicas raised above what one cluster runs while the other is down",
        (*WEB_HALVES, autoscaled(1)),
        (*WEB_HALVES, autoscaled(2)),
        ControlPlane(),
        [
            ("cluster-a", "failover.under-minimum", "warn"),
            ("cluster-b", "failover.under-minimum", "warn"),
        ],
    ),
    (
        "minReplicas that one cluster holds",
        (*WEB_HALVES, autoscaled(2)),
        (*WEB_HALVES, autoscaled(1)),
        ControlPlane(),
        [],
    ),
]


@pytest.mark.parametrize(
    ("base", "change", "settings", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_what_a_change_makes_worse(
    bundle: Bundle,
    base: tuple[str, ...],
    change: tuple[str, ...],
    settings: ControlPlane,
    expected: list[tuple[str, ...]],
) -> None:
    world = replace(bundle, karmada=replace(settings, taint_policies=(NOT_READY,)))
    found = worse(manifests(*base), manifests(*change), world)
    assert [(*w.failed, w.finding.rule, w.finding.action) for w in found] == expected


def test_the_section_names_the_failure_rule_and_app(bundle: Bundle) -> None:
    world = replace(bundle, karmada=replace(ON, taint_policies=(NOT_READY,)))
    found = worse(manifests(*DB_DIRECT), manifests(*DB_GRACEFUL), world)
    text = "\n".join(finish(worse_lines(found, "origin/main"), color=False))
    assert text.startswith("If a cluster fails, worse than at origin/main:\n")
    assert "deny   if cluster-a fails: [failover.split-brain] Deployment payments/db is" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    document: dict[str, Any] = dict(worse_json(found, "origin/main"))
    [entry] = document["worse"]
    assert entry["failed"] == ["cluster-a"]
    assert entry["template"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "payments",
        "name": "db",
    }
    assert worse_lines([], "origin/main") == []
