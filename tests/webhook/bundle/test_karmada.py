"""``policies/karmada.yaml`` (the control plane's failover settings) and the clusters'
``allocatable``: v1.18's defaults, every error at once, and any input handled."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.plan.failover import off_switch
from tests.conftest import POLICIES
from webhook.base.errors import BundleError
from webhook.base.yamlsource import parse_single
from webhook.bundle.load import BUNDLE_FILES, build_bundle, bundle_from_source
from webhook.bundle.model import Allocatable, Bundle, ControlPlane
from webhook.bundle.source import BundleSource


def _build(**overrides: str) -> Bundle:
    files = {name: (POLICIES / name).read_text() for name in BUNDLE_FILES}
    files.update({f"{k}.yaml": v for k, v in overrides.items()})
    return build_bundle(
        {name: parse_single(text, f"policies/{name}") for name, text in files.items()}
    )


def test_without_karmada_yaml_v118_defaults_hold(bundle: Bundle) -> None:
    """karmada v1.18.2: Failover gate off (pkg/features/features.go), --enable-taint-manager
    true, --enable-no-execute-taint-eviction false, --no-execute-taint-eviction-purge-mode
    Gracefully, --resource-eviction-rate 0.5 (cluster_failover.go), --graceful-eviction-timeout
    10m, --cluster-failure-threshold 30s, --cluster-status-update-frequency 10s, rate limiter
    10 qps / 100 (options.go, ratelimiterflag.go)."""
    assert bundle.karmada == ControlPlane()
    settings_ = bundle.karmada
    assert (settings_.failover_gate, settings_.enable_taint_manager) == (False, True)
    assert settings_.enable_no_execute_taint_eviction is False
    assert (settings_.purge_mode, settings_.resource_eviction_rate) == ("Gracefully", 0.5)
    assert settings_.graceful_eviction_timeout == 600
    assert (settings_.cluster_failure_threshold, settings_.cluster_status_update_frequency) == (
        30,
        10,
    )
    assert off_switch(settings_) is not None


def test_a_full_karmada_yaml() -> None:
    text = """\
controllerManager:
  featureGates: {Failover: true}
  enableTaintManager: true
  enableNoExecuteTaintEviction: true
  noExecuteTaintEvictionPurgeMode: Directly
  resourceEvictionRate: 2
  gracefulEvictionTimeout: 1h30m
  clusterFailureThreshold: 45
  clusterStatusUpdateFrequency: 5s
  rateLimiterQPS: 50
  rateLimiterBucketSize: 500
clusterTaintPolicies:
  - name: not-ready
    targetClusters: {clusterNames: [cluster-a]}
    addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False"]}]
    taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
"""
    settings_ = _build(karmada=text).karmada
    assert off_switch(settings_) is None and settings_.purge_mode == "Directly"
    assert settings_.resource_eviction_rate == 2.0
    assert settings_.graceful_eviction_timeout == 5400
    assert (settings_.cluster_failure_threshold, settings_.cluster_status_update_frequency) == (
        45,
        5,
    )
    assert (settings_.rate_limiter_qps, settings_.rate_limiter_bucket_size) == (50, 500)
    [policy] = settings_.taint_policies
    assert policy["name"] == "not-ready"


def test_every_error_of_karmada_yaml_at_once() -> None:
    text = """\
controllerManager:
  featureGates: {Failover: yes please, GracefulEviction: true}
  resourceEvictionRate: fast
  clusterFailureThreshold: 10 minutes
clusterTaintPolicies:
  - name: Bad_Name
    targetClusters: {clusterNames: [cluster-z]}
    addOnConditions: [{conditionType: Ready, operator: Maybe, statusValues: ["False"]}]
    taints: [{key: k, effect: NoRun}, {key: j}]
  - taints: []
"""
    with pytest.raises(BundleError) as caught:
        _build(karmada=text)
    messages = str(caught.value)
    for expected in (
        "controllerManager.featureGates.Failover: must be true or false",
        "controllerManager.featureGates.GracefulEviction: unknown key 'GracefulEviction'",
        "controllerManager.resourceEvictionRate: must be a number of evictions a second",
        "controllerManager.clusterFailureThreshold: '10 minutes' is not a duration",
        "clusterTaintPolicies[0].name: 'Bad_Name' is not valid",
        "clusterTaintPolicies[0].targetClusters.clusterNames[0]: unknown cluster 'cluster-z'",
        "clusterTaintPolicies[0].addOnConditions[0].operator: 'Maybe' is not one of In, NotIn",
        "clusterTaintPolicies[0].taints[0].effect: 'NoRun' is not one of",
        "clusterTaintPolicies[0].taints[1]: effect is required",
        "clusterTaintPolicies[1]: name is required",
        "clusterTaintPolicies[1].taints: must be a non-empty list",
    ):
        assert expected in messages, expected


def test_allocatable_per_cluster() -> None:
    clusters = (
        (POLICIES / "clusters.yaml")
        .read_text()
        .replace(
            "    region: eu-west\n",
            "    region: eu-west\n    allocatable: {cpu: '64', memory: 256Gi, pods: 330}\n",
        )
    )
    bundle = _build(clusters=clusters)
    assert bundle.clusters["cluster-a"].allocatable == Allocatable(
        Fraction(64), Fraction(256 * 2**30), 330
    )
    assert bundle.clusters["cluster-b"].allocatable is None


def test_bad_allocatable() -> None:
    clusters = (
        (POLICIES / "clusters.yaml")
        .read_text()
        .replace(
            "    region: eu-west\n",
            "    region: eu-west\n    allocatable: {cpu: lots, pods: -1, gpu: 1}\n",
        )
    )
    with pytest.raises(BundleError) as caught:
        _build(clusters=clusters)
    messages = str(caught.value)
    assert "clusters[0].allocatable.cpu:" in messages
    assert "clusters[0].allocatable.pods: must be at least 0, not -1" in messages
    assert "clusters[0].allocatable.gpu: unknown key 'gpu'" in messages


VALUES: Any = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "10m", "Directly", "In", "NoExecute", "Ready", "cluster-a", "x y"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "controllerManager",
                    "clusterTaintPolicies",
                    "featureGates",
                    "Failover",
                    "resourceEvictionRate",
                    "gracefulEvictionTimeout",
                    "name",
                    "taints",
                    "key",
                    "effect",
                    "addOnConditions",
                    "operator",
                    "statusValues",
                    "targetClusters",
                    "clusterNames",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_any_karmada_yaml_loads_or_fails_with_findings(document: Any) -> None:
    """Input handling: whatever the file holds, the loader answers with a bundle or a
    BundleError naming places, never another exception."""
    files = {name: (POLICIES / name).read_text() for name in BUNDLE_FILES}
    files["karmada.yaml"] = yaml.safe_dump(document)
    try:
        bundle = bundle_from_source(BundleSource("policies", files))
    except BundleError as exc:
        assert exc.findings
        assert all(f.file == "policies/karmada.yaml" for f in exc.findings)
    else:
        assert isinstance(bundle.karmada, ControlPlane)
