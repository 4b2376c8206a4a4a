"""Overrides applied as Karmada applies them: every overrider and operator, and the order.

Karmada's own test tables are ported in ``test_karmada_tables.py``; these are fedgate's cases."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from webhook.bundle.model import Bundle
from webhook.karmada.imageparser import override_image, parse
from webhook.karmada.overridemanager import apply_overrides, ordered
from webhook.karmada.overriders import OverrideError, apply_overriders


@pytest.mark.parametrize(
    ("image", "component", "operator", "value", "expected"),
    [
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Registry",
            "replace",
            "mirror.example.cn",
            "mirror.example.cn/team/app:1.0",
            id="registry-replace",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Registry",
            "add",
            ".cn",
            "registry.example.com.cn/team/app:1.0",
            id="registry-add-appends",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Registry",
            "remove",
            "",
            "team/app:1.0",
            id="registry-remove",
        ),
        pytest.param(
            "nginx:1.27",
            "Registry",
            "add",
            "docker.io",
            "docker.io/nginx:1.27",
            id="registry-add-to-none",
        ),
        pytest.param(
            "library/nginx:1.27",
            "Registry",
            "replace",
            "mirror.io",
            "mirror.io/library/nginx:1.27",
            id="a-first-segment-without-dot-or-colon-is-no-host",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Repository",
            "replace",
            "other/app",
            "registry.example.com/other/app:1.0",
            id="repository-replace",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Repository",
            "add",
            "-debug",
            "registry.example.com/team/app-debug:1.0",
            id="repository-add",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Tag",
            "replace",
            "2.0",
            "registry.example.com/team/app:2.0",
            id="tag-replace",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Tag",
            "add",
            "-us",
            "registry.example.com/team/app:1.0-us",
            id="tag-add-appends",
        ),
        pytest.param(
            "registry.example.com/team/app:1.0",
            "Tag",
            "remove",
            "",
            "registry.example.com/team/app",
            id="tag-remove",
        ),
        pytest.param(
            "registry.example.com:5000/app@sha256:" + "a" * 64,
            "Tag",
            "replace",
            "v1",
            "registry.example.com:5000/app:v1",
            id="tag-replaces-a-digest",
        ),
        pytest.param(
            "app:1",
            "Tag",
            "replace",
            "sha256:" + "b" * 64,
            "app@sha256:" + "b" * 64,
            id="a-digest-replaces-a-tag",
        ),
    ],
)
def test_image_overrider(
    image: str, component: str, operator: str, value: str, expected: str
) -> None:
    assert override_image(image, component, operator, value) == expected


def test_image_reference_round_trip() -> None:
    for image in ("app", "app:1", "host:5000/a/b:1", "h/a@sha256:" + "c" * 64):
        assert str(parse(image)) == image


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "labels": {"app": "web"},
            "annotations": {"a": "1"},
        },
        "spec": {
            "replicas": 3,
            "template": {
                "spec": {
                    "initContainers": [{"name": "init", "image": "registry.example.com/t/init:1"}],
                    "containers": [
                        {
                            "name": "web",
                            "image": "registry.example.com/t/web:1",
                            "args": ["--a"],
                            "command": ["serve"],
                        },
                        {"name": "side", "image": "registry.example.com/t/side:1"},
                    ],
                }
            },
        },
    }


@pytest.mark.parametrize(
    ("overriders", "check"),
    [
        pytest.param(
            {"imageOverrider": [{"component": "Registry", "operator": "replace", "value": "m.io"}]},
            lambda o: (
                [c["image"] for c in o["spec"]["template"]["spec"]["containers"]]
                == ["m.io/t/web:1", "m.io/t/side:1"]
                and o["spec"]["template"]["spec"]["initContainers"][0]["image"]
                == "registry.example.com/t/init:1"
            ),
            id="image-not-init-containers",
        ),
        pytest.param(
            {
                "imageOverrider": [
                    {
                        "predicate": {"path": "/spec/template/spec/initContainers/0/image"},
                        "component": "Tag",
                        "operator": "replace",
                        "value": "2",
                    }
                ]
            },
            lambda o: (
                o["spec"]["template"]["spec"]["initContainers"][0]["image"]
                == "registry.example.com/t/init:2"
            ),
            id="image-predicate",
        ),
        pytest.param(
            {"commandOverrider": [{"containerName": "web", "operator": "add", "value": ["--x"]}]},
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["command"] == ["serve", "--x"],
            id="command-add",
        ),
        pytest.param(
            {"argsOverrider": [{"containerName": "web", "operator": "remove", "value": ["--a"]}]},
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["args"] == [],
            id="args-remove",
        ),
        pytest.param(
            {"argsOverrider": [{"containerName": "side", "operator": "add", "value": ["--y"]}]},
            lambda o: o["spec"]["template"]["spec"]["containers"][1]["args"] == ["--y"],
            id="args-add-where-none",
        ),
        pytest.param(
            {"labelsOverrider": [{"operator": "add", "value": {"zone": "us"}}]},
            lambda o: o["metadata"]["labels"] == {"app": "web", "zone": "us"},
            id="labels-add",
        ),
        pytest.param(
            {"labelsOverrider": [{"operator": "replace", "value": {"app": "x", "missing": "y"}}]},
            lambda o: o["metadata"]["labels"] == {"app": "x"},
            id="labels-replace-skips-missing",
        ),
        pytest.param(
            {"annotationsOverrider": [{"operator": "remove", "value": {"a": "", "b": ""}}]},
            lambda o: o["metadata"]["annotations"] == {},
            id="annotations-remove",
        ),
        pytest.param(
            {"annotationsOverrider": [{"operator": "add", "value": {"example.com/class": "x"}}]},
            lambda o: o["metadata"]["annotations"]["example.com/class"] == "x",
            id="annotations-key-with-slash",
        ),
        pytest.param(
            {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 1}]},
            lambda o: o["spec"]["replicas"] == 1,
            id="plaintext-replace",
        ),
        pytest.param(
            {"plaintext": [{"path": "/metadata/labels/app", "operator": "remove"}]},
            lambda o: "app" not in o["metadata"]["labels"],
            id="plaintext-remove",
        ),
        pytest.param(
            {
                "plaintext": [
                    {
                        "path": "/spec/template/spec/containers/0/args/-",
                        "operator": "add",
                        "value": "--z",
                    }
                ]
            },
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["args"] == ["--a", "--z"],
            id="plaintext-add-append",
        ),
        pytest.param(
            {
                "plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 9}],
                "imageOverrider": [{"component": "Tag", "operator": "replace", "value": "7"}],
            },
            lambda o: (
                o["spec"]["replicas"] == 9
                and o["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":7")
            ),
            id="order-image-before-plaintext",
        ),
    ],
)
def test_overriders(overriders: dict[str, Any], check: Any) -> None:
    original = deployment()
    result = apply_overriders(copy.deepcopy(original), overriders)
    assert check(result)


def test_a_plaintext_replace_of_a_missing_path_fails() -> None:
    with pytest.raises(OverrideError, match="doc is missing key: /spec/paused"):
        apply_overriders(
            deployment(),
            {"plaintext": [{"path": "/spec/paused", "operator": "replace", "value": True}]},
        )


def _policy(
    kind: str, name: str, selectors: list[dict[str, Any]], tag: str, cluster: str | None = None
) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "overriders": {
            "imageOverrider": [{"component": "Tag", "operator": "replace", "value": tag}]
        }
    }
    if cluster:
        rule["targetCluster"] = {"clusterNames": [cluster]}
    metadata = {"name": name} | ({"namespace": "ns"} if kind == "OverridePolicy" else {})
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": selectors, "overrideRules": [rule]},
    }


def test_karmada_order_later_and_more_specific_policies_win(bundle: Bundle) -> None:
    by_name = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]
    by_label = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
    policies = [
        _policy("OverridePolicy", "a-by-name", by_name, "name"),
        _policy("OverridePolicy", "b-by-label", by_label, "label"),
        _policy("OverridePolicy", "c-all", [], "all"),
        _policy("ClusterOverridePolicy", "z-cluster", by_name, "cluster"),
        _policy("OverridePolicy", "d-elsewhere", by_name, "c-only", cluster="cluster-c"),
    ]
    obj = deployment()
    cluster_policies = [p for p in policies if p["kind"] == "ClusterOverridePolicy"]
    namespaced = [p for p in policies if p["kind"] == "OverridePolicy"]
    assert [p["metadata"]["name"] for p in ordered(namespaced, obj)] == [
        "c-all",
        "b-by-label",
        "a-by-name",
        "d-elsewhere",
    ]
    a = apply_overrides(obj, cluster_policies, namespaced, bundle.clusters["cluster-a"])
    assert a.object["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "registry.example.com/t/web:name"
    )
    assert a.applied == (
        "ClusterOverridePolicy z-cluster",
        "OverridePolicy ns/c-all",
        "OverridePolicy ns/b-by-label",
        "OverridePolicy ns/a-by-name",
    )
    c = apply_overrides(obj, cluster_policies, namespaced, bundle.clusters["cluster-c"])
    assert c.object["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "registry.example.com/t/web:c-only"
    )
