"""``fedgate test`` refuses a malformed suite instead of passing it with no cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, no_traceback
from tests.conftest import POLICIES

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        pytest.param(
            "cases: 5\n",
            [
                "suite/tests.yaml:1: cases: must be a list of cases "
                "({name, request or operation, ...})"
            ],
            id="cases-a-number",
        ),
        pytest.param(
            '"abc"\n', ["suite/tests.yaml:1: must be a mapping, not a string"], id="string"
        ),
        pytest.param(
            "{a: 1}\n",
            [
                "suite/tests.yaml:1: cases is required",
                "suite/tests.yaml:1: a: unknown key 'a'; known keys: cases, objects, users, world",
            ],
            id="mapping",
        ),
        pytest.param(
            "world: ours\ncases: [{name: x, expect: {allowed: true}}]\n",
            ["suite/tests.yaml:1: world: 'ours' is not one of own, example"],
            id="unknown-world",
        ),
        pytest.param("true\n", ["suite/tests.yaml:1: must be a mapping, not a boolean"], id="bool"),
        pytest.param(
            "cases: []\n",
            ["suite/tests.yaml:1: cases: lists no case: a suite must test something"],
            id="no-case",
        ),
        pytest.param(
            "objects: 5\ncases: [{name: x, expect: {allowed: true}}]\n",
            ["suite/tests.yaml:1: objects: must be a mapping, not a number"],
            id="objects-a-number",
        ),
    ],
)
def test_a_malformed_suite_is_an_error(tmp_path: Path, text: str, messages: list[str]) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "tests.yaml").write_text(text)
    result = fedgate("test", "suite", "--policies", str(POLICIES), cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.splitlines()[:-1] == messages
    assert "passed" not in result.stdout


def test_a_malformed_fixtures_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "fixtures.yaml").write_text("objects: [1\n")
    (tmp_path / "suite" / "tests.yaml").write_text("cases: [{name: x, expect: {allowed: true}}]\n")
    result = fedgate("test", "suite", "--policies", str(POLICIES), cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.startswith("suite/fixtures.yaml:2:1: not valid YAML")


def test_an_empty_directory_is_an_error_in_json_too(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = fedgate("test", "empty", "--policies", str(POLICIES), "--output", "json", cwd=tmp_path)
    assert result.returncode == 2
    assert json.loads(result.stdout)["errors"][0]["message"] == "no tests.yaml under empty"


def test_one_suite_is_one_suite(tmp_path: Path) -> None:
    suite = POLICIES / "rules" / "image-tag" / "tests.yaml"
    result = fedgate("test", str(suite), "--policies", str(POLICIES), cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("1 suite: ")


OWN_CLUSTERS = """\
clusters:
  - {name: eu-1, labels: {region: eu, residency: eu}, provider: aws, region: eu-west}
  - {name: eu-2, labels: {region: eu, residency: eu}, provider: gcp, region: eu-central}
  - {name: us-1, labels: {region: us, residency: us}, provider: aws, region: us-east}
  - {name: us-2, labels: {region: us, residency: us}, provider: gcp, region: us-west}
"""
OWN_TENANTS = """\
tenants:
  - {name: shop, namespaces: [shop], groups: [shop], clusters: [eu-1, eu-2],
     registries: [ghcr.io/acme/shop/], quota: {cpu: "8", memory: 16Gi}}
  - {name: ledger, namespaces: [ledger], groups: [ledger], clusters: [us-1, us-2],
     registries: [ghcr.io/acme/ledger/], quota: {cpu: "8", memory: 16Gi}}
  - {name: search, namespaces: [search], groups: [search], clusters: [eu-1, us-1],
     registries: [ghcr.io/acme/search/], quota: {cpu: "8", memory: 16Gi}}
"""
OWN_SUITE = """\
cases:
  - name: shop runs on its own clusters
    user: {username: ann, groups: [shop]}
    object:
      apiVersion: policy.karmada.io/v1alpha1
      kind: PropagationPolicy
      metadata: {name: web, namespace: shop}
      spec:
        resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
        placement: {clusterAffinity: {clusterNames: [eu-1, eu-2]}}
    expect: {allowed: true}
  - name: not on the ledger's
    user: {username: ann, groups: [shop]}
    object:
      apiVersion: policy.karmada.io/v1alpha1
      kind: PropagationPolicy
      metadata: {name: web, namespace: shop}
      spec:
        resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
        placement: {clusterAffinity: {clusterNames: [us-1]}}
    expect: {allowed: false, rules: [tenancy.placement-scope]}
"""


def test_describing_your_own_world_keeps_the_shipped_suites_meaningful(tmp_path: Path) -> None:
    """After init and one's own clusters and tenants (four clusters in two regions, three
    tenants), fedgate test reported 72 passed and 128 failed: the shipped suites are written
    against the example world. They say so (world: example) and run with the bundle's rules
    in that world; a suite of one's own runs against one's own world."""
    assert fedgate("init", "--no-hook", cwd=tmp_path).returncode == 0
    (tmp_path / "policies" / "clusters.yaml").write_text(OWN_CLUSTERS)
    (tmp_path / "policies" / "tenants.yaml").write_text(OWN_TENANTS)
    own = tmp_path / "policies" / "rules" / "tenancy.placement-scope" / "ours" / "tests.yaml"
    own.parent.mkdir()
    own.write_text(OWN_SUITE)
    result = fedgate("test", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 0, result.stdout
    assert " 0 failed" in result.stdout
    broken = tmp_path / "policies" / "rules" / "registry-allowed" / "rule.yaml"
    broken.write_text(broken.read_text().replace("c.image.startsWith(r)", "true", 1))
    weakened = fedgate("test", cwd=tmp_path)
    assert weakened.returncode == 1  # the example-world suites still test the rules' logic
    assert "FAIL policies/rules/registry-allowed/tests.yaml" in weakened.stdout
