"""Karmada's typed conversion of a workload before the image overrider reads its containers
(``webhook/karmada/typed.py``): the cases the override oracle found or holds, by name. Each
row was answered by Karmada v1.18.2's override manager (``tests/oracles/karmada``) with an
image overrider on the object: ``None`` the override applies, else it fails."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from webhook.bundle.model import Cluster
from webhook.karmada.overridemanager import apply_overrides
from webhook.karmada.overriders import OverrideError
from webhook.karmada.typed import conversion_error


def deployment(**spec: Any) -> dict[str, Any]:
    pod = {"containers": [{"name": "app", "image": "nginx:1"}]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "w", "namespace": "n"},
        "spec": {"replicas": 1, "template": {"spec": pod}, **spec},
    }


def with_pod(**fields: Any) -> dict[str, Any]:
    obj = deployment()
    obj["spec"]["template"]["spec"].update(fields)
    return obj


ROWS: dict[str, tuple[dict[str, Any], bool]] = {
    "replicas-a-list-fails": (deployment(replicas=[1]), False),
    "replicas-an-integral-float-converts": (deployment(replicas=2.0), True),
    "replicas-a-fraction-fails": (deployment(replicas=1.5), False),
    "replicas-past-int32-wraps-silently": (deployment(replicas=2**40), True),
    "replicas-a-string-fails": (deployment(replicas="1"), False),
    "label-value-a-number-fails": (
        {**deployment(), "metadata": {"name": "w", "labels": {"a": 1}}},
        False,
    ),
    "labels-a-list-fails": ({**deployment(), "metadata": {"labels": ["a"]}}, False),
    "creation-timestamp-rfc3339-converts": (
        {**deployment(), "metadata": {"creationTimestamp": "2026-12-02T10:00:00Z"}},
        True,
    ),
    "creation-timestamp-month-13-fails": (
        {**deployment(), "metadata": {"creationTimestamp": "2026-13-02T10:00:00Z"}},
        False,
    ),
    "max-surge-a-percent-converts": (
        deployment(strategy={"rollingUpdate": {"maxSurge": "25%"}}),
        True,
    ),
    "max-surge-a-fraction-fails": (
        deployment(strategy={"rollingUpdate": {"maxSurge": 2.5}}),
        False,
    ),
    "probe-port-past-int32-fails": (
        with_pod(
            containers=[
                {"name": "a", "image": "nginx", "livenessProbe": {"httpGet": {"port": 2**31}}}
            ]
        ),
        False,
    ),
    "cpu-limit-a-bool-fails": (
        with_pod(
            containers=[{"name": "a", "image": "nginx", "resources": {"limits": {"cpu": True}}}]
        ),
        False,
    ),
    "cpu-limit-spaced-converts": (
        with_pod(
            containers=[{"name": "a", "image": "nginx", "resources": {"limits": {"cpu": " 1 "}}}]
        ),
        True,
    ),
    "cpu-limit-a-number-converts": (
        with_pod(
            containers=[{"name": "a", "image": "nginx", "resources": {"limits": {"cpu": 1.5}}}]
        ),
        True,
    ),
    "affinity-a-number-fails": (with_pod(affinity=1.5), False),
    "node-terms-an-object-fails": (
        with_pod(
            affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{}]}}
        ),
        False,
    ),
    "null-image-reads-as-empty": (with_pod(containers=[{"name": "a", "image": None}]), True),
    "unknown-field-ignored": (deployment(somethingNew={"x": [1]}), True),
    "container-port-a-string-fails": (
        with_pod(containers=[{"name": "a", "image": "nginx", "ports": [{"containerPort": "80"}]}]),
        False,
    ),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_typed_conversion_as_karmada(name: str) -> None:
    obj, converts = ROWS[name]
    assert (conversion_error(obj) is None) == converts


def policy(obj: dict[str, Any]) -> dict[str, Any]:
    """A ClusterOverridePolicy with one image overrider, selecting ``obj``."""
    item = {"component": "Tag", "operator": "replace", "value": "2"}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "p"},
        "spec": {
            "resourceSelectors": [{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}],
            "overrideRules": [{"overriders": {"imageOverrider": [item]}}],
        },
    }


@pytest.mark.parametrize("name", list(ROWS))
def test_the_image_overrider_fails_where_the_conversion_does(name: str) -> None:
    obj, converts = ROWS[name]
    try:
        apply_overrides(copy.deepcopy(obj), [policy(obj)], [], Cluster("member1", {}))
    except OverrideError as exc:
        assert not converts or "from unstructured object" not in str(exc)
    else:
        assert converts
