"""``fedgate bundle``: the webhook's ConfigMap with the index of the synced tree, through the
installed entry point; the webhook then judges a tenant's override with it (it knows the
targets from Git)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

from tests.compiler.commands.entry import fedgate, no_traceback, platform
from webhook.bundle.index import parse_index
from webhook.bundle.load import load_bundle
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process


def _mounted(configmap: str, into: Path) -> Path:
    """The ConfigMap as the kubelet mounts it: every key a file."""
    document = yaml.safe_load(configmap)
    into.mkdir()
    for key, text in document["data"].items():
        (into / key).write_text(text)
    for key, data in document.get("binaryData", {}).items():
        (into / key).write_bytes(base64.b64decode(data))
    return into


def test_the_configmap_carries_every_synced_object_and_nothing_else(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    (repo / "policies" / "index.json").unlink()  # a platform's own policies carry no index
    assert fedgate("compile", cwd=repo).returncode == 0
    extra = repo / "rendered" / "platform-demo" / "extra"
    extra.mkdir()
    (extra / "config.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo-config, namespace: platform-demo}\n"
    )
    (repo / "rendered" / "stray.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray, namespace: default}\n"
    )
    result = fedgate("bundle", cwd=repo)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "objects of rendered/ in the index (1 no Application syncs left out)" in result.stderr
    mounted = _mounted(result.stdout, tmp_path / "mounted")
    assert sorted(p.name for p in mounted.iterdir() if p.name.startswith("index")) == [
        "index.json.gz"
    ]
    index, findings = parse_index((mounted / "index.json.gz").read_bytes(), "index.json.gz")
    assert findings == [] and index is not None
    kinds = {key[1] for key in index.objects}
    assert {"Deployment", "PropagationPolicy", "OverridePolicy", "ConfigMap"} <= kinds
    assert "Application" not in kinds and "AppProject" not in kinds
    assert ("", "ConfigMap", "default", "stray") not in index.objects
    # The bundle the webhook loads from it judges a tenant's override by its effect.
    bundle = load_bundle(mounted)
    assert bundle.index is not None
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "mine", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "demo-http"}
            ],
            "overrideRules": [
                {
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Tag", "operator": "replace", "value": "latest"}
                        ]
                    }
                }
            ],
        },
    }
    alice = {"username": "alice@example.com", "groups": ["team-a"]}
    decision = review(sync_request(override, None, bundle, user=alice), bundle)
    assert not decision.allowed
    assert {"image-tag", "ownership.field-owner"} <= {v.rule for v in decision.violations}


def test_without_a_tree_it_says_what_to_do(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    result = fedgate("bundle", "--output", "json", cwd=repo)
    no_traceback(result)
    assert result.returncode == 2
    assert (
        "rendered is not a directory: give the rendered tree with --tree, or --no-index"
        in (json.loads(result.stdout)["errors"][0]["message"])
    )
    plain = fedgate("bundle", "--no-index", "--out", "cm.yaml", cwd=repo)
    assert plain.returncode == 0, plain.stderr
    assert "binaryData" not in (repo / "cm.yaml").read_text()


def test_the_index_holds_each_item_of_a_list_and_no_hand_written_application(
    tmp_path: Path,
) -> None:
    """Argo CD applies the items of a list (``IsList()``), not the list: the index held one
    ConfigMap. An Application written by hand into the Argo CD folder (which the root
    Application does not read) made the files it names count as synced."""
    repo = platform(tmp_path)
    (repo / "policies" / "index.json").unlink()
    assert fedgate("compile", cwd=repo).returncode == 0
    (repo / "rendered" / "platform-demo" / "listed.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: decoy, namespace: platform-demo}\n"
        "items:\n"
        "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: one, namespace: platform-demo}}\n"
        "  - {apiVersion: v1, kind: Secret, metadata: {name: two, namespace: platform-demo}}\n"
    )
    stray = repo / "rendered" / "stray"
    stray.mkdir()
    (stray / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray, namespace: stray}\n"
    )
    (repo / "rendered" / "argocd" / "mine.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
        "metadata: {name: mine, namespace: argocd}\n"
        "spec:\n  project: default\n"
        "  source: {repoURL: 'https://git.example.com/platform/federation.git',"
        " path: rendered, directory: {recurse: true, include: 'stray/*'}}\n"
        "  destination: {name: karmada-apiserver, namespace: stray}\n"
    )
    result = fedgate("bundle", cwd=repo)
    assert result.returncode == 0, result.stderr
    mounted = _mounted(result.stdout, tmp_path / "mounted")
    index, _ = parse_index((mounted / "index.json.gz").read_bytes(), "index.json.gz")
    assert index is not None
    names = {(key[1], key[3]) for key in index.objects if key[2] in ("platform-demo", "stray")}
    assert {("ConfigMap", "one"), ("Secret", "two")} <= names
    assert ("ConfigMap", "decoy") not in names
    assert ("ConfigMap", "stray") not in names
