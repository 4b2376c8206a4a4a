"""Compile judges every rendered object as Argo CD's first sync, and every member's copy as
Karmada builds it: one verdict with check and plan."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.compile.admission import admit
from compiler.render.pipeline import render_app
from compiler.spec.load import parse_specs
from tests.conftest import EXAMPLES
from tests.helpers import run
from webhook.bundle.model import Bundle

LATEST_FOR_CLUSTER_B = (
    (EXAMPLES / "apps" / "demo-http.yaml")
    .read_text()
    .replace(
        "      imageRegistry: mirror.example.cn\n",
        "      imageRegistry: mirror.example.cn\n      imageTag: latest\n",
    )
)


@pytest.fixture(scope="module")
def compiling(bundle: Bundle) -> Bundle:
    """The bundle as compile loads it: without the index (compile has the tree itself)."""
    return replace(bundle, index=None)


def test_a_member_copy_the_rules_deny_is_a_compile_error(compiling: Bundle) -> None:
    bundle = compiling
    [app] = parse_specs(LATEST_FOR_CLUSTER_B, "apps/demo-http.yaml")
    rendered = render_app(app, bundle, ("cluster-a", "cluster-b"))
    [error] = admit([rendered], bundle).errors
    assert (error.path, error.rule) == ("spec.overrides[0]", "image-tag")
    assert error.message == (
        "in cluster-b: image mirror.example.cn/platform/demo-http:latest is not "
        "pinned: give it a tag other than latest, or a digest (set by OverridePolicy "
        "platform-demo/demo-http rule 0 at /spec/template/spec/containers/0/image) "
        "(in platform-demo/demo-http/deployment.yaml)"
    )


def test_a_template_violation_is_reported_once_not_per_cluster(compiling: Bundle) -> None:
    bundle = compiling
    """The template's own review already says it; its member copies would say it again."""
    spec = (EXAMPLES / "apps" / "demo-http.yaml").read_text().replace("demo-http:1.0", "demo-http")
    [app] = parse_specs(spec, "apps/demo-http.yaml")
    errors = admit([render_app(app, bundle, ("cluster-a", "cluster-b"))], bundle).errors
    assert [e.rule for e in errors] == ["image-tag"]
    assert "in cluster-" not in errors[0].message


@pytest.mark.slow
def test_compile_check_and_plan_agree_on_a_per_cluster_latest(platform_repo: Path) -> None:
    """The :latest tag cluster-b gets from an override fails all three (exit 1),
    naming the cluster, the override and the spec field."""
    (platform_repo / "apps" / "demo-http.yaml").write_text(LATEST_FOR_CLUSTER_B)
    code, _, err = run(["compile"])
    assert (
        code == 1 and "apps/demo-http.yaml:21: spec.overrides[0]: [image-tag] in cluster-b" in err
    )
    code, _, err = run(["check"])
    assert code == 1 and "[image-tag] in cluster-b" in err
    code, _, err = run(["plan", "--output", "json"])
    assert code == 1 and "[image-tag] in cluster-b" in err
