"""The live chain of a template lined up with its plan (compiler/plan/livechain.py): a federation
that did what the plan says shows no difference, and each way reality can leave the plan is
named. The live side is built here from the plan itself and then provoked, one change a case;
tests/e2e runs ``fedgate trace`` against a real federation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from compiler.argocd.manifests import read_tree
from compiler.plan.livechain import binding_name, chain, claim, render
from compiler.plan.tree import plan_template, policies_of
from tests.conftest import ROOT
from webhook.bundle.model import Bundle
from webhook.karmada.propagation import TemplatePlan

TREE = ROOT / "tests" / "golden" / "examples"
PERMANENT = "0b8c5a4e-1111-2222-3333-444455556666"


def _plan(bundle: Bundle, name: str) -> tuple[dict[str, Any], dict[str, Any], TemplatePlan]:
    manifests = read_tree(TREE).manifests
    policies = policies_of(m.object for m in manifests)
    [template] = [m for m in manifests if m.identity[1] == "Deployment" and m.identity[3] == name]
    plan = plan_template(template, policies, bundle).plan
    assert plan.policy is not None
    kind, namespace, policy_name = plan.policy
    [policy] = [
        copy.deepcopy(dict(m.object))
        for m in manifests
        if m.identity[1:] == (kind, namespace, policy_name)
    ]
    return copy.deepcopy(dict(template.object)), policy, plan


def _healthy(bundle: Bundle, name: str) -> dict[str, Any]:
    """The live chain of a federation that did exactly what the plan says."""
    template, policy, plan = _plan(bundle, name)
    _, namespace, policy_name = plan.policy or ("", "", "")
    prefix = "propagationpolicy.karmada.io"
    template["metadata"].setdefault("labels", {})[f"{prefix}/permanent-id"] = PERMANENT
    template["metadata"].setdefault("annotations", {}).update(
        {f"{prefix}/name": policy_name, f"{prefix}/namespace": namespace}
    )
    policy["metadata"].setdefault("labels", {})[f"{prefix}/permanent-id"] = PERMANENT
    clusters = [{"name": c, "replicas": r} for c, r in sorted(plan.placement.items())]
    binding = {
        "metadata": {"name": binding_name("Deployment", name), "namespace": namespace},
        "spec": {"clusters": clusters},
    }
    works = {
        c: {
            "metadata": {"name": f"{name}-{c}"},
            "status": {"conditions": [{"type": "Applied", "status": "True"}]},
        }
        for c in plan.copies
    }
    live = {}
    for cluster, member in plan.copies.items():
        obj = copy.deepcopy(member.object or {})
        obj["status"] = {"readyReplicas": obj["spec"].get("replicas")}
        live[cluster] = obj
    return {
        "template": template,
        "policy": policy,
        "binding": binding,
        "works": works,
        "live": live,
        "plan": plan,
    }


def test_a_federation_that_did_what_the_plan_says_shows_no_difference(bundle: Bundle) -> None:
    parts = _healthy(bundle, "demo-http")
    result = chain(**parts)
    assert result.differences == ()
    assert len(result.members) >= 2 and all(m.applied for m in result.members)
    assert render(result)[-1] == "as planned: no difference"
    assert result.as_json()["policy"]["found"] is True
    assert claim(parts["template"]) == (
        "PropagationPolicy",
        "platform-demo",
        result.predicted[2] if result.predicted else "",
        PERMANENT,
    )


def _first(parts: dict[str, Any], key: str) -> str:
    return sorted(parts[key])[0]


def _edit_image(parts: dict[str, Any]) -> None:
    member = parts["live"][_first(parts, "live")]
    member["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/x:9"


def _scale(parts: dict[str, Any]) -> None:
    parts["live"][_first(parts, "live")]["spec"]["replicas"] = 99


def _delete_member(parts: dict[str, Any]) -> None:
    del parts["live"][_first(parts, "live")]


def _unapplied(parts: dict[str, Any]) -> None:
    parts["works"][_first(parts, "works")]["status"]["conditions"][0]["status"] = "False"


def _no_work(parts: dict[str, Any]) -> None:
    del parts["works"][_first(parts, "works")]


def _rescheduled(parts: dict[str, Any]) -> None:
    parts["binding"]["spec"]["clusters"][0]["replicas"] += 1


def _policy_gone(parts: dict[str, Any]) -> None:
    parts["policy"] = None


def _policy_replaced(parts: dict[str, Any]) -> None:
    parts["policy"]["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] = "other"


def _no_binding(parts: dict[str, Any]) -> None:
    parts["binding"] = None


def _stray(parts: dict[str, Any]) -> None:
    parts["live"]["cluster-z"] = copy.deepcopy(parts["live"][_first(parts, "live")])


@pytest.mark.parametrize(
    ("provoke", "said"),
    [
        (_edit_image, "the member runs images"),
        (_scale, "the member runs 99 replicas, scheduled"),
        (_delete_member, "the member has no such object"),
        (_unapplied, "not applied"),
        (_no_work, "no Work in karmada-es-"),
        (_rescheduled, "replicas, plan"),
        (_policy_gone, "which does not exist"),
        (_policy_replaced, "permanent-id differs"),
        (_no_binding, "no ResourceBinding"),
        (_stray, "cluster-z: the member runs it, neither scheduled nor planned"),
    ],
    ids=lambda v: v.__name__.strip("_") if callable(v) else "",
)
def test_each_way_reality_leaves_the_plan_is_named(
    bundle: Bundle, provoke: Callable[[dict[str, Any]], None], said: str
) -> None:
    parts = _healthy(bundle, "demo-http")
    provoke(parts)
    result = chain(**parts)
    assert any(said in d for d in result.differences), result.differences
    assert any(said in line for line in render(result))
    assert result.as_json()["differences"] == list(result.differences)


def test_a_template_nothing_claimed_says_so(bundle: Bundle) -> None:
    parts = _healthy(bundle, "demo-http")
    labels = parts["template"]["metadata"]["labels"]
    del labels["propagationpolicy.karmada.io/permanent-id"]
    parts.update(policy=None, binding=None, works={}, live={})
    result = chain(**parts)
    assert result.claimed is None
    assert result.differences[0].startswith("no policy claimed it; plan: PropagationPolicy")
    assert "  policy    none claimed it" in render(result)


def test_a_member_s_own_replicas_are_not_compared_where_karmada_retains_them(
    bundle: Bundle,
) -> None:
    """A template labelled retain-replicas leaves each member's count to its member HPA:
    Karmada never writes it back, so trace does not call it a difference; images still are."""
    parts = _healthy(bundle, "demo-http")
    parts["template"]["metadata"]["labels"]["resourcetemplate.karmada.io/retain-replicas"] = "true"
    _scale(parts)
    assert chain(**parts).differences == ()
    _edit_image(parts)
    assert any("the member runs images" in d for d in chain(**parts).differences)
