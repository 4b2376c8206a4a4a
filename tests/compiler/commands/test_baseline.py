"""git HEAD's side of plan: the shortcut that plans an untouched app again only when a changed
policy may select it is held to the slow path (plan every app on both sides) by property
tests over random policies, including odd types where Karmada expects strings or lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from compiler.commands.baseline import Before, TreeChanges, app_changes, tree_changes
from compiler.commands.compile import compile_with_bundle
from compiler.compile.core import Compiled
from compiler.plan.changes import app_action, may_select
from compiler.plan.core import plan, plan_app
from compiler.plan.tree import policies_of
from tests.conftest import EXAMPLES, POLICIES
from webhook.bundle.model import Bundle
from webhook.karmada.overridemanager import implicit_priority
from webhook.karmada.selector import ImplicitPriority, selectors_priority

NAMES = ["checkout", "demo-http", "status-page", "web-frontend", "nope"]
NAMESPACES = ["payments", "platform-demo", "other"]
ODD: st.SearchStrategy[Any] = st.sampled_from([None, 5, True, [], {}, "", "x" * 300])
LABELS = st.one_of(
    st.dictionaries(
        st.sampled_from(["fedgate.dev/tenant", "app.kubernetes.io/name", "zone"]),
        st.sampled_from(["team-a", "team-b", "status-page", "eu", "b"]),
        max_size=2,
    ),
    ODD,
)
SELECTOR = st.fixed_dictionaries(
    {
        "apiVersion": st.one_of(st.sampled_from(["apps/v1", "v1"]), ODD),
        "kind": st.one_of(st.sampled_from(["Deployment", "ConfigMap"]), ODD),
    },
    optional={
        "name": st.one_of(st.sampled_from(NAMES), ODD),
        "namespace": st.one_of(st.sampled_from(NAMESPACES), ODD),
        "labelSelector": st.one_of(st.builds(lambda m: {"matchLabels": m}, LABELS), ODD),
    },
)
OVERRIDERS = st.sampled_from(
    [
        {"imageOverrider": [{"component": "Registry", "operator": "replace", "value": "m.io"}]},
        {"labelsOverrider": [{"operator": "add", "value": {"zone": "b"}}]},
        {"labelsOverrider": [{"operator": "add", "value": {"fedgate.dev/tenant": "team-b"}}]},
        {"argsOverrider": [{"containerName": "status-page", "operator": "add", "value": ["-v"]}]},
        {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 9}]},
    ]
)
RULE = st.fixed_dictionaries(
    {"overriders": OVERRIDERS},
    optional={
        "targetCluster": st.builds(
            lambda names: {"clusterNames": names},
            st.lists(st.sampled_from(["cluster-a", "cluster-b", "cluster-c"]), max_size=2),
        )
    },
)


@st.composite
def policies(draw: st.DrawFn, name: str) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["OverridePolicy", "ClusterOverridePolicy", "PropagationPolicy", "OverridePolicy"]
        )
    )
    metadata: dict[str, Any] = {"name": name}
    if kind != "ClusterOverridePolicy":
        metadata["namespace"] = draw(st.sampled_from(NAMESPACES))
    spec: dict[str, Any] = {}
    if draw(st.booleans()):
        spec["resourceSelectors"] = draw(st.one_of(st.lists(SELECTOR, max_size=2), ODD))
    if kind == "PropagationPolicy":
        spec["placement"] = {"clusterAffinity": {"clusterNames": ["cluster-a"]}}
        spec["priority"] = draw(st.integers(-1, 5))
    else:
        spec["overrideRules"] = draw(st.lists(RULE, min_size=1, max_size=2))
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": spec,
    }


@pytest.fixture(scope="module")
def world() -> tuple[Compiled, Bundle, list[dict[str, Any]]]:
    compiled, bundle = compile_with_bundle([EXAMPLES / "apps"], POLICIES)
    objects = [o for r in compiled.rendered for o in r.objects]
    return compiled, bundle, objects


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(kept=policies("kept"), changed=policies("changed"), removed=st.booleans())
def test_the_shortcut_finds_every_app_a_changed_policy_changes(
    world: tuple[Compiled, Bundle, list[dict[str, Any]]],
    kept: dict[str, Any],
    changed: dict[str, Any],
    removed: bool,
) -> None:
    """A hand-written policy added (or removed) beside another that stays: the apps the
    shortcut finds changed are exactly those whose copies differ when every app is planned
    on both sides."""
    compiled, bundle, objects = world
    with_it = policies_of([*objects, kept, changed])
    without = policies_of([*objects, kept])
    after_policies, before_policies = (without, with_it) if removed else (with_it, without)
    after = plan(compiled.rendered, bundle, after_policies).apps
    changes = TreeChanges(files={"platform/p.yaml": "remove" if removed else "add"})
    before = Before(before_policies, (changed,), bundle)
    fast = {
        (c.namespace, c.name): c.action for c in app_changes(after, compiled, changes, before, None)
    }
    renders = {r.app.key: r for r in compiled.rendered}
    slow = {
        (a.namespace, a.name): app_action(
            a, plan_app(renders[(a.namespace, a.name)], bundle, before_policies), {}, True
        )
        for a in after
    }
    assert fast == slow
    event(f"{sum(a == 'change' for a in slow.values())} apps changed")


@settings(max_examples=300, deadline=None)
@given(
    policy=policies("p"),
    labels=LABELS,
    name=st.sampled_from(NAMES),
    namespace=st.sampled_from(NAMESPACES),
    kind=st.sampled_from([("apps/v1", "Deployment"), ("v1", "ConfigMap")]),
)
def test_a_no_from_may_select_is_a_no_from_karmada(
    policy: dict[str, Any], labels: Any, name: str, namespace: str, kind: tuple[str, str]
) -> None:
    """Where may_select says no, Karmada's own matching (the override manager's and the
    detector's selector priority) says no too, whatever the labels."""
    obj = {
        "apiVersion": kind[0],
        "kind": kind[1],
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
    }
    if may_select(policy, obj):
        return
    scope = policy["metadata"].get("namespace")
    if policy["kind"] in ("PropagationPolicy", "OverridePolicy") and scope != namespace:
        return  # another namespace's policy: Karmada never looks at it for this object
    if policy["kind"] == "PropagationPolicy":
        found = policy["spec"].get("resourceSelectors")
        assert selectors_priority(obj, found if isinstance(found, list) else []) == (
            ImplicitPriority.MISMATCH
        )
    else:
        assert implicit_priority(policy, obj) == ImplicitPriority.MISMATCH


def test_without_a_repository_every_file_is_new(tmp_path: Path) -> None:
    (tmp_path / "platform").mkdir()
    (tmp_path / "platform" / "banner.yaml").write_text("kind: ConfigMap\n")
    changes = tree_changes(
        None, tmp_path, {"ns/app/deployment.yaml": b"x"}, ["platform/banner.yaml"]
    )
    assert changes.files == {"ns/app/deployment.yaml": "add", "platform/banner.yaml": "add"}
    assert changes.app_files() == {("ns", "app"): {"ns/app/deployment.yaml": "add"}}
    assert changes.hand_written() == ["platform/banner.yaml"]
    assert changes.now["platform/banner.yaml"] == b"kind: ConfigMap\n" and not changes.head
