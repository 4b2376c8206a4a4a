from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import POLICIES
from tests.webhook.bundle.texts import build_from_texts, bundle_files
from webhook.base.errors import BundleError
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle


def test_default_bundle_is_the_example_world(bundle: Bundle) -> None:
    assert list(bundle.clusters) == ["cluster-a", "cluster-b", "cluster-c"]
    assert bundle.clusters["cluster-c"].labels == {
        "region": "us-east",
        "residency": "us",
        "provider": "aws",
    }
    team_a, team_b = bundle.tenants["team-a"], bundle.tenants["team-b"]
    assert team_a.clusters == {"cluster-a", "cluster-b"}
    assert team_b.data_clusters("Secret") == {"cluster-a", "cluster-b"}
    assert team_b.data_clusters("ConfigMap") == {"cluster-a", "cluster-b", "cluster-c"}
    assert bundle.tenant_of_namespace("payments") is team_b
    assert team_a.quota.cpu == 20
    assert [w.name for w in bundle.writers] == [
        "system",
        "karmada",
        "git",
        "break-glass",
        "platform",
    ]


def test_every_error_is_reported_at_once_with_its_place() -> None:
    tenants = """\
tenants:
  - name: team-a
    namespaces: [platform-demo]
    clusters: [cluster-a, cluster-z]
    quota: {cpu: lots}
    registires: [x]
  - name: team-a
    namespaces: [platform-demo]
    clusters: [cluster-a]
"""
    with pytest.raises(BundleError) as caught:
        build_from_texts(bundle_files(tenants=tenants))
    assert [f.render() for f in caught.value.findings] == [
        "policies/tenants.yaml:4: tenants[0].clusters[1]: unknown cluster 'cluster-z'; "
        "the inventory has cluster-a, cluster-b, cluster-c",
        "policies/tenants.yaml:5: tenants[0].quota.cpu: 'lots' is not a quantity "
        "(examples: 250m, 1, 1.5, 512Mi, 2Gi, 1e3)",
        "policies/tenants.yaml:6: tenants[0].registires: unknown key 'registires': "
        "did you mean 'registries'?",
        "policies/tenants.yaml:7: tenants[1].name: 'team-a' is defined twice",
        "policies/tenants.yaml:8: tenants[1].namespaces[0]: namespace 'platform-demo' "
        "already belongs to 'team-a'",
    ]


def test_required_writers() -> None:
    with pytest.raises(BundleError, match="writer 'git' is required"):
        build_from_texts(
            bundle_files(writers="writers:\n  - name: karmada\n    usernamePrefixes: ['system:']\n")
        )


def test_missing_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "clusters.yaml").write_text("clusters: []\n")
    with pytest.raises(BundleError) as caught:
        load_bundle(tmp_path)
    assert [f.message for f in caught.value.findings] == [
        "missing: a bundle needs tenants.yaml",
        "missing: a bundle needs writers.yaml",
    ]


@pytest.mark.parametrize(
    ("selector", "reason"),
    [
        pytest.param("{matchExpressions: [{key: tier, operator: In}]}", "needs at least one value"),
        pytest.param(
            "{matchExpressions: [{key: tier, operator: Gt, values: ['1']}]}",
            "'Gt' is not a valid label selector operator",
        ),
        pytest.param("{matchExpressions: [{key: /tier, operator: Exists}]}", "invalid label key"),
        pytest.param("{matchLabels: {'/tier': web}}", "the prefix must be a DNS subdomain"),
    ],
)
def test_an_object_selector_kubernetes_refuses_is_a_load_error_not_a_rule_matching_nothing(
    tmp_path: Path, selector: str, reason: str
) -> None:
    """A rule binding's objectSelector decides whether the rule applies: one the API server
    would refuse to build (and Karmada's selector library reads as matching nothing) would
    leave the rule silently applying to nothing. It is refused where it is written."""
    shutil.copytree(POLICIES, tmp_path / "policies")
    binding = tmp_path / "policies" / "rules" / "max-replicas" / "binding.yaml"
    binding.write_text(
        binding.read_text(encoding="utf-8") + f"  objectSelector: {selector}\n", encoding="utf-8"
    )
    with pytest.raises(BundleError) as caught:
        load_bundle(tmp_path / "policies")
    [finding] = [f.render() for f in caught.value.findings]
    assert "max-replicas/binding.yaml:11: match.objectSelector" in finding, finding
    assert reason in finding, finding
