"""The everyday plan (``plan --tree``, and the repository's hand-written templates) divides
Aggregated and dynamic-weight templates, and places spread-constrained ones, as Karmada's
scheduler does where every candidate declares its ``allocatable``, by the same division
``plan --fail`` starts from; where one declares none, the upper bound stays and says so."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.argocd.manifests import ManifestSet
from compiler.plan.tree import TemplateResult, plan_templates, plan_tree, policies_of
from tests.compiler.plan.test_failover import deployment, manifests, policy, run
from tests.compiler.plan.test_failover_capacity import AGGREGATED, CASES, DYNAMIC, THREE, sized
from tests.compiler.plan.test_failover_spread import ONE_REGION
from webhook.bundle.model import Bundle


def planned(bundle: Bundle, *texts: str) -> dict[str, TemplateResult]:
    """``plan --tree`` of the texts, by template name."""
    result = plan_tree(ManifestSet(tuple(manifests(*texts))), bundle)
    return {t.manifest.identity[3]: t for t in result.templates}


def replicas_of(result: TemplateResult) -> dict[str, Any]:
    """Each member copy's ``spec.replicas``."""
    return {
        c: m.object["spec"]["replicas"]
        for c, m in result.plan.copies.items()
        if m.object is not None
    }


@pytest.mark.parametrize(
    ("placement", "replicas", "cpus", "before"),
    [pytest.param(*case[1:5], id=case[0]) for case in CASES],
)
def test_the_everyday_plan_divides_as_plan_fail_starts(
    bundle: Bundle,
    placement: str,
    replicas: int,
    cpus: tuple[int, int, int],
    before: dict[str, int],
) -> None:
    """The placement and every member copy's replicas are Karmada's division by the room (500m
    a replica), the one ``plan --fail`` shows before the failure."""
    world = sized(bundle, cluster_a=cpus[0], cluster_b=cpus[1], cluster_c=cpus[2])
    texts = (deployment("web", replicas, cpu="500m"), policy("web", placement))
    web = planned(world, *texts)["web"]
    assert dict(web.plan.placement) == before
    assert replicas_of(web) == before
    [failing] = run(world, texts).templates
    assert dict(failing.before) == before
    assert any(
        n.startswith("divided ") and "by the room the clusters declare" in n for n in web.plan.notes
    )
    assert not any("the most it can get" in n for n in web.plan.notes)


def test_the_room_note_says_how_much_room_each_cluster_had(bundle: Bundle) -> None:
    world = sized(bundle, cluster_a=4, cluster_b=2, cluster_c=1)
    web = planned(world, deployment("web", 6, cpu="500m"), policy("web", DYNAMIC))["web"]
    assert (
        "divided DynamicWeight by the room the clusters declare (allocatable minus what the tree "
        "requests there): cluster-a 8, cluster-b 4, cluster-c 2 replicas"
    ) in web.plan.notes


def test_a_cluster_without_allocatable_keeps_the_bound_and_is_named(bundle: Bundle) -> None:
    world = sized(bundle, cluster_a=4, cluster_b=2, cluster_c=None)
    web = planned(world, deployment("web", 6, cpu="500m"), policy("web", AGGREGATED))["web"]
    assert dict(web.plan.placement) == {"cluster-a": 6, "cluster-b": 6, "cluster-c": 6}
    assert (
        "replicas are divided by each cluster's free capacity (Aggregated), which fedgate counts "
        "only when every candidate declares its allocatable (clusters.yaml) and cluster-c does "
        "not: each cluster is shown with the whole count, the most it can get"
    ) in web.plan.notes


def test_too_little_room_places_it_nowhere(bundle: Bundle) -> None:
    """Room for 7 of 10 replicas on the three clusters: Karmada's scheduler fails."""
    world = sized(bundle, cluster_a=2, cluster_b=1, cluster_c=1)
    web = planned(world, deployment("web", 10, cpu="500m"), policy("web", AGGREGATED))["web"]
    assert (dict(web.plan.placement), dict(web.plan.copies)) == ({}, {})
    assert (
        "the candidates have room for 8 of its 10 replicas: Karmada's scheduler fails (not "
        "enough available replicas) and places it nowhere"
    ) in web.plan.notes


def test_templates_take_their_room_in_the_trees_order(bundle: Bundle) -> None:
    """Two Aggregated templates of 6 (500m each), 4 cpus on each cluster: the first (in the
    tree's order, not the plan's) fills cluster-a, the second finds it full."""
    world = sized(bundle, cluster_a=4, cluster_b=4, cluster_c=4)
    texts = (
        deployment("zeta", 8, cpu="500m") + "---\n" + policy("zeta", AGGREGATED),
        deployment("alpha", 8, cpu="500m") + "---\n" + policy("alpha", AGGREGATED),
    )
    found = planned(world, *texts)
    assert dict(found["zeta"].plan.placement) == {"cluster-a": 8}
    assert dict(found["alpha"].plan.placement) == {"cluster-b": 8}


def test_the_synced_context_takes_its_room_first(bundle: Bundle) -> None:
    """The repository's plan counts fedgate's own manifests first: a Duplicated app asking
    for 2 cpus on each cluster leaves room for 4 replicas of 500m on each."""
    world = sized(bundle, cluster_a=4, cluster_b=4, cluster_c=4)
    context = manifests(deployment("app", 1, cpu="2") + "---\n" + policy("app", THREE))
    shown = manifests(deployment("web", 6, cpu="500m"), policy("web", AGGREGATED))
    policies = policies_of(m.object for m in (*context, *shown))
    [web] = plan_templates(shown, policies, world, context)
    assert dict(web.plan.placement) == {"cluster-a": 3, "cluster-b": 3}
    [alone] = plan_templates(shown, policies, world)
    assert dict(alone.plan.placement) == {"cluster-a": 6}


def test_a_template_without_replicas_goes_to_every_candidate(bundle: Bundle) -> None:
    """Not a workload (IsWorkload false): Karmada assigns every candidate, room or not."""
    world = sized(bundle, cluster_a=1, cluster_b=1, cluster_c=1)
    config = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: payments}
data: {a: b}
"""
    aggregated = policy("web", AGGREGATED).replace(
        "apps/v1, kind: Deployment", "v1, kind: ConfigMap"
    )
    web = planned(world, config, aggregated)["web"]
    assert dict(web.plan.placement) == dict.fromkeys(["cluster-a", "cluster-b", "cluster-c"])


def test_spread_constraints_pick_by_the_declared_room(bundle: Bundle) -> None:
    """One region of three (a cluster each), Duplicated: eu-central (cluster-b, first by name)
    has no room for the 2 replicas, so the scheduler scores it lowest and picks eu-west."""
    world = sized(bundle, cluster_a=1, cluster_b=0, cluster_c=4)
    texts = (deployment("web", 2, cpu="500m"), policy("web", f"{THREE}\n{ONE_REGION}"))
    web = planned(world, *texts)["web"]
    assert dict(web.plan.placement) == {"cluster-a": 2}
    assert replicas_of(web) == {"cluster-a": 2}
    assert "spread constraints: the scheduler picks cluster-a" in web.plan.notes


def test_spread_constraints_without_room_show_every_candidate(bundle: Bundle) -> None:
    web = planned(bundle, deployment("web", 2), policy("web", f"{THREE}\n{ONE_REGION}"))["web"]
    assert dict(web.plan.placement) == {"cluster-a": 2, "cluster-b": 2, "cluster-c": 2}
    assert any(
        n.startswith("spread constraints: the scheduler picks among the candidates by the room")
        for n in web.plan.notes
    )


CPUS = st.one_of(st.none(), st.integers(min_value=0, max_value=6))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cpus=st.tuples(CPUS, CPUS, CPUS),
    replicas=st.integers(min_value=1, max_value=24),
    aggregated=st.booleans(),
)
def test_the_division_holds_the_replicas_within_the_room(
    bundle: Bundle, cpus: tuple[int | None, ...], replicas: int, aggregated: bool
) -> None:
    """Every cluster declaring: the replicas all placed, none above a cluster's room (500m a
    replica), the copies carrying them, and the same division plan --fail starts from; or
    nowhere when the room is too small. One not declaring: each candidate with the whole
    count."""
    world = sized(bundle, cluster_a=cpus[0], cluster_b=cpus[1], cluster_c=cpus[2])
    texts = (
        deployment("web", replicas, cpu="500m"),
        policy("web", AGGREGATED if aggregated else DYNAMIC),
    )
    web = planned(world, *texts)["web"]
    placement = dict(web.plan.placement)
    if None in cpus:
        assert placement == dict.fromkeys(["cluster-a", "cluster-b", "cluster-c"], replicas)
        return
    assert replicas_of(web) == placement
    rooms = dict(zip(["cluster-a", "cluster-b", "cluster-c"], (2 * c for c in cpus), strict=True))
    if sum(rooms.values()) < replicas:
        assert placement == {}
        return
    assert sum(placement.values()) == replicas
    assert all(n <= rooms[c] for c, n in placement.items())
    failing = run(world, texts).templates
    if failing:
        assert dict(failing[0].before) == placement
