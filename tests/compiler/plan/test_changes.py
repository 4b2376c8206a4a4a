"""What a plan changes against git HEAD: actions, the clusters affected, which policies can
reach an object, the tenants' use at HEAD."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from compiler.plan.changes import (
    AppChange,
    FileAction,
    app_action,
    may_select,
    policy_changes,
    summarize,
    tenant_before,
)
from compiler.plan.core import AppPlan, TenantBill

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"tier": "front"}},
}


def app(
    copies: dict[str, int], *, image: str = "r/web:1", tenant: str = "t", cpu: int = 1
) -> AppPlan:
    return AppPlan(
        namespace="shop",
        name="web",
        tenant=tenant,
        mode="Divided",
        owner="git",
        placement=dict(copies),
        clusters={c: {"spec": {"replicas": n, "image": image}} for c, n in copies.items()},
        bill={c: {"cpu": Fraction(cpu * n)} for c, n in copies.items()},
    )


@pytest.mark.parametrize(
    ("after", "before", "files", "known", "action"),
    [
        pytest.param(app({"a": 1}), None, {"x/deployment.yaml": "add"}, True, "add", id="new"),
        pytest.param(None, app({"a": 1}), {"x/d.yaml": "remove"}, True, "remove", id="gone"),
        pytest.param(
            app({"a": 2}), app({"a": 1}), {"x/d.yaml": "change"}, True, "change", id="edit"
        ),
        pytest.param(
            app({"a": 1}), app({"a": 1}), {"x/hpa.yaml": "add", "x/d.yaml": "change"}, True,
            "change", id="a-file-added-to-an-app",
        ),
        pytest.param(
            app({"a": 1}), None, {"x/d.yaml": "change"}, False, "change", id="head-unknown"
        ),
        pytest.param(app({"a": 1}), app({"a": 1}), {}, True, "none", id="untouched"),
        pytest.param(
            app({"a": 1}, image="mirror/web:1"), app({"a": 1}), {}, True, "change",
            id="a-policy-elsewhere-changed-the-copy",
        ),
    ],
)  # fmt: skip
def test_app_action(
    after: AppPlan | None,
    before: AppPlan | None,
    files: dict[str, FileAction],
    known: bool,
    action: str,
) -> None:
    assert app_action(after, before, files, known) == action


def test_an_app_s_first_override_is_a_change_not_an_add() -> None:
    """Only the OverridePolicy file is new; the Deployment did not change, so HEAD has the app
    (plan said '+ shop/storefront', 'Plan: 1 app to add')."""
    files: dict[str, FileAction] = {"x/overridepolicy.yaml": "add"}
    after, before = app({"a": 1}, image="mirror/web:1"), app({"a": 1})
    assert app_action(after, before, files, True, others_at_head=True) == "change"
    assert app_action(after, None, files, True, others_at_head=False) == "add"


def test_clusters_affected_are_those_whose_copy_changes() -> None:
    change = AppChange(
        "shop", "web", "change", app({"a": 2, "b": 1}), app({"a": 1, "b": 1, "c": 1})
    )
    assert change.clusters == ("a", "c")
    unknown = AppChange("shop", "web", "change", app({"a": 2, "b": 1}), None, known=False)
    assert unknown.clusters == ("a", "b")  # every cluster it reaches: it may have changed
    assert AppChange("shop", "web", "none", app({"a": 1}), app({"a": 1})).clusters == ()
    removed = AppChange("shop", "web", "remove", None, app({"b": 3}))
    assert removed.clusters == ("b",)
    total = summarize([change, removed], [])
    assert total.clusters == ("a", "b", "c")
    assert total.apps == {"change": 1, "remove": 1} and total.changes


def policy(kind: str, selectors: list[Any] | None, namespace: str = "shop") -> dict[str, Any]:
    metadata = {"name": "p"} | (
        {"namespace": namespace} if kind.startswith(("Prop", "Over")) else {}
    )
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {} if selectors is None else {"resourceSelectors": selectors},
    }


DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment"}


@pytest.mark.parametrize(
    ("policy_object", "selects"),
    [
        pytest.param(policy("OverridePolicy", None), True, id="override-without-selectors"),
        pytest.param(policy("ClusterOverridePolicy", None), True, id="cluster-override-all"),
        pytest.param(policy("PropagationPolicy", None), False, id="propagation-needs-selectors"),
        pytest.param(policy("OverridePolicy", None, "other"), False, id="another-namespace"),
        pytest.param(policy("PropagationPolicy", [DEPLOY | {"name": "web"}]), True, id="by-name"),
        pytest.param(
            policy("PropagationPolicy", [DEPLOY | {"name": "api"}]), False, id="other-name"
        ),
        pytest.param(
            policy("ClusterPropagationPolicy", [DEPLOY | {"namespace": "shop"}]), True,
            id="cluster-policy-namespace",
        ),
        pytest.param(
            policy("ClusterOverridePolicy", [DEPLOY | {"namespace": "other"}]), False,
            id="cluster-policy-other-namespace",
        ),
        pytest.param(
            policy("OverridePolicy", [DEPLOY | {"labelSelector": {"matchLabels": {"x": "y"}}}]),
            True, id="labels-not-looked-at-an-override-may-set-them",
        ),
        pytest.param(
            policy("OverridePolicy", [{"apiVersion": "v1", "kind": "ConfigMap"}]), False,
            id="another-kind",
        ),
        pytest.param(policy("OverridePolicy", ["junk", 5]), False, id="odd-selectors"),
    ],
)  # fmt: skip
def test_may_select_is_never_wrong_about_a_no(policy_object: dict[str, Any], selects: bool) -> None:
    assert may_select(policy_object, DEPLOYMENT) is selects


def test_the_tenant_at_head_swaps_each_changed_apps_bill() -> None:
    bill = TenantBill("t", {"cpu": Fraction(10)}, {"cpu": Fraction(20), "memory": None})
    grown = AppChange("shop", "web", "change", app({"a": 3}), app({"a": 1}))  # 3 cpu, was 1
    added = AppChange("shop", "new", "add", app({"a": 2}), None)
    removed = AppChange("shop", "old", "remove", None, app({"b": 4}))
    elsewhere = AppChange("shop", "x", "add", app({"a": 5}, tenant="u"), None)
    before = tenant_before(bill, [grown, added, removed, elsewhere])
    assert before is not None and before["cpu"] == 10 - 3 + 1 - 2 + 4
    unknown = AppChange("shop", "web", "change", app({"a": 3}), None, known=False)
    assert tenant_before(bill, [unknown]) is None
    assert tenant_before(bill, [AppChange("s", "n", "none", app({"a": 1}), None)]) == bill.used


def test_policy_changes() -> None:
    old = policy("ClusterOverridePolicy", None) | {"metadata": {"name": "mirror"}}
    new = old | {"spec": {"overrideRules": []}}
    gone = policy("PropagationPolicy", [DEPLOY])
    found = policy_changes([("a.yaml", old), ("b.yaml", gone)], [("a.yaml", new)])
    assert [(p.label, p.action, p.file) for p in found] == [
        ("ClusterOverridePolicy mirror", "change", "a.yaml"),
        ("PropagationPolicy shop/p", "remove", "b.yaml"),
    ]
    assert policy_changes([("a.yaml", old)], [("a.yaml", old)]) == []
