"""``plan --fail`` with spread constraints by region: the scheduler's choice of regions before
the failure and again among the clusters left (the example bundle's clusters are each in a
region of their own: cluster-a eu-west, cluster-b eu-central, cluster-c us-east)."""

from __future__ import annotations

from tests.compiler.plan.test_failover import TWO, deployment, only, policy, run, toleration
from tests.compiler.plan.test_failover_capacity import THREE, sized
from webhook.bundle.model import Bundle

ONE_REGION = """    spreadConstraints:
      - {spreadByField: region, minGroups: 1, maxGroups: 1}"""
TWO_REGIONS_DYNAMIC = f"""{THREE}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {{dynamicWeight: AvailableReplicas}}
    spreadConstraints:
      - {{spreadByField: region, minGroups: 2, maxGroups: 2}}
      - {{spreadByField: cluster, minGroups: 2, maxGroups: 2}}"""


def test_duplicated_in_one_region_moves_to_another_region(bundle: Bundle) -> None:
    """Three regions of one cluster each, equal: the first by name (eu-central, cluster-b)
    runs it; when cluster-b fails, the scheduler picks eu-west."""
    result = run(
        bundle, (deployment("web", 2), policy("web", f"{THREE}\n{ONE_REGION}")), ("cluster-b",)
    )
    template = only(result)
    assert dict(template.before) == {"cluster-b": 2}
    assert dict(template.after) == {"cluster-a": 2}
    assert "spread constraints: the scheduler picks cluster-a" in template.notes
    assert not any("not simulated" in n for n in template.notes)


def test_a_failure_elsewhere_leaves_the_chosen_region_alone(bundle: Bundle) -> None:
    result = run(bundle, (deployment("web", 2), policy("web", f"{THREE}\n{ONE_REGION}")))
    assert result.templates == ()  # cluster-a ran none of it


def test_two_regions_by_room_then_the_region_left_and_another(bundle: Bundle) -> None:
    """Dynamic weights over two regions: eu-west and eu-central have room for 3 replicas each
    (of 6 over 2 regions), us-east for 2: the first two; when cluster-a fails, cluster-b keeps
    its 2 (ClusterLocality) and us-east joins, each taking what its room allows."""
    world = sized(bundle, cluster_a=4, cluster_b=2, cluster_c=1)
    result = run(world, (deployment("web", 6, cpu="500m"), policy("web", TWO_REGIONS_DYNAMIC)))
    template = only(result)
    assert dict(template.before) == {"cluster-a": 4, "cluster-b": 2}
    assert dict(template.after) == {"cluster-b": 4, "cluster-c": 2}
    assert template.by_capacity is False


def test_too_few_regions_left_fails_the_scheduler(bundle: Bundle) -> None:
    two = """    clusterAffinity: {clusterNames: [cluster-a, cluster-b]}
    spreadConstraints:
      - {spreadByField: region, minGroups: 2, maxGroups: 2}"""
    template = only(run(bundle, (deployment("web", 2), policy("web", two))))
    assert dict(template.before) == {"cluster-a": 2, "cluster-b": 2}
    assert dict(template.after) == {"cluster-b": 2}
    assert (
        "Karmada's scheduler fails: the number of feasible regions is less than the region "
        "minGroups" in template.notes
    )


# karmada v1.18.2 test/e2e/suites/base/failover_test.go, "cluster failover testing" /
# Context "Cluster failover testing with nil failover behavior" / It "deployment failover
# testing", with the e2e's spread constraint (by cluster, minGroups = maxGroups = 1): the
# binding runs on one of its two clusters; tainted, it moves whole to the other ("the current
# cluster should be overwritten to another available cluster", minGroups clusters in all).
def test_e2e_nil_failover_behavior_with_the_spread_by_cluster(bundle: Bundle) -> None:
    spread = """    spreadConstraints:
      - {spreadByField: cluster, minGroups: 1, maxGroups: 1}"""
    placement = f"{TWO}\n{toleration('cluster.karmada.io/not-ready', 2)}\n{spread}"
    template = only(run(bundle, (deployment("web", 3), policy("web", placement))))
    assert dict(template.before) == {"cluster-a": 3}  # of two equal clusters, the first by name
    [eviction] = template.evictions
    assert (eviction.evicted, eviction.due, eviction.purge) == (True, 2, "Gracefully")
    assert dict(template.after) == {"cluster-b": 3}
