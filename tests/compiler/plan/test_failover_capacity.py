"""``plan --fail`` with Aggregated and dynamic-weight divisions made exact by the clusters'
declared ``allocatable``: the division before the failure (a first schedule) and where the
lost replicas go (``dynamicScaleUp`` over the room the clusters left have), as a table."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from compiler.plan.failovertext import as_json
from tests.compiler.plan.test_failover import STATIC, deployment, only, policy, run
from tests.conftest import POLICIES
from webhook.base.errors import BundleError
from webhook.base.yamlsource import parse_single
from webhook.bundle.load import BUNDLE_FILES, build_bundle
from webhook.bundle.model import Allocatable, Bundle

THREE = "    clusterAffinity: {clusterNames: [cluster-a, cluster-b, cluster-c]}"
AGGREGATED = f"""{THREE}
    replicaScheduling: {{replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}"""
DYNAMIC = f"""{THREE}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {{dynamicWeight: AvailableReplicas}}"""


def sized(bundle: Bundle, **cpu: int | None) -> Bundle:
    """The bundle with each named cluster declaring that many cpus and 110 pods (None: no
    allocatable declared)."""
    clusters = dict(bundle.clusters)
    for name, cores in cpu.items():
        cluster = name.replace("_", "-")
        allocatable = Allocatable(cpu=Fraction(cores), pods=110) if cores is not None else None
        clusters[cluster] = replace(clusters[cluster], allocatable=allocatable)
    return replace(bundle, clusters=clusters)


# (id, placement, replicas, cpus of cluster-a/b/c, before, after): 500m a replica
CASES = [
    (
        "aggregated: all on cluster-a, then as few clusters as hold them",
        AGGREGATED,
        6,
        (4, 2, 1),
        {"cluster-a": 6},
        {"cluster-b": 4, "cluster-c": 2},
    ),
    (
        "dynamic weights: by room, then the lost ones by the room left",
        DYNAMIC,
        6,
        (4, 2, 1),
        {"cluster-a": 3, "cluster-b": 2, "cluster-c": 1},
        {"cluster-b": 4, "cluster-c": 2},
    ),
    (
        "aggregated, too little room left: the scheduler fails, the binding keeps cluster-b's",
        AGGREGATED,
        10,
        (4, 2, 1),
        {"cluster-a": 7, "cluster-b": 3},
        {"cluster-b": 3},
    ),
]


@pytest.mark.parametrize(
    ("placement", "replicas", "cpus", "expected"),
    [pytest.param(*case[1:4], case[4:], id=case[0]) for case in CASES],
)
def test_divided_by_the_declared_room(
    bundle: Bundle,
    placement: str,
    replicas: int,
    cpus: tuple[int, int, int],
    expected: tuple[dict[str, int], dict[str, int]],
) -> None:
    before, after = expected
    world = sized(bundle, cluster_a=cpus[0], cluster_b=cpus[1], cluster_c=cpus[2])
    result = run(world, (deployment("web", replicas, cpu="500m"), policy("web", placement)))
    template = only(result)
    assert (dict(template.before), dict(template.after)) == (before, after)
    assert template.by_capacity is False
    assert any(
        n.startswith("divided ") and "by the room the clusters left" in n for n in template.notes
    )
    assert not any("not counted in the clusters' loads" in n for n in result.notes)
    load = {x.cluster: x for x in result.loads}["cluster-b"]
    assert load.after["cpu"] == Fraction(after["cluster-b"], 2)


def test_the_scheduler_failing_is_said(bundle: Bundle) -> None:
    world = sized(bundle, cluster_a=4, cluster_b=2, cluster_c=1)
    result = run(world, (deployment("web", 10, cpu="500m"), policy("web", AGGREGATED)))
    assert (
        "the clusters left have room for 3 of the 7 replicas lost: Karmada's scheduler fails"
        in " ".join(only(result).notes)
    )


def test_a_cluster_without_allocatable_keeps_the_upper_bound(bundle: Bundle) -> None:
    world = sized(bundle, cluster_a=4, cluster_b=2, cluster_c=None)
    result = run(world, (deployment("web", 6, cpu="500m"), policy("web", AGGREGATED)))
    template = only(result)
    assert template.by_capacity is True
    assert dict(template.before) == {"cluster-a": 6, "cluster-b": 6, "cluster-c": 6}
    assert dict(template.after) == {"cluster-b": 6, "cluster-c": 6}
    assert any("not counted in the clusters' loads" in n for n in result.notes)


def test_a_fixed_division_takes_its_room_first(bundle: Bundle) -> None:
    """A Duplicated app requests 1 cpu on each cluster: the Aggregated one finds room for 6
    replicas on each, not 8, so it takes two clusters (the first two by name, room being
    equal) and Webster halves the 8."""
    world = sized(bundle, cluster_a=4, cluster_b=4, cluster_c=4)
    fixed = deployment("fixed", 1, cpu="1") + "---\n" + policy("fixed", THREE)
    objects = (fixed, deployment("web", 8, cpu="500m"), policy("web", AGGREGATED))
    result = run(world, objects)
    web = next(t for t in result.templates if t.identity[3] == "web")
    assert dict(web.before) == {"cluster-a": 4, "cluster-b": 4}


def test_a_cluster_pushed_into_its_headroom_is_warned(bundle: Bundle) -> None:
    """cluster-b keeps half its 1.5 cpu free (failoverHeadroom: 50); cluster-a's failure
    brings it from 500m to 1000m requested: inside the capacity, into the headroom."""
    clusters = dict(bundle.clusters)
    clusters["cluster-b"] = replace(
        clusters["cluster-b"],
        allocatable=Allocatable(cpu=Fraction(3, 2), pods=110),
        failover_headroom=50,
    )
    result = run(
        replace(bundle, clusters=clusters),
        (deployment("web", 8, cpu="250m"), policy("web", STATIC)),
    )
    [finding] = result.findings
    assert (finding.rule, finding.action, finding.cluster) == (
        "failover.headroom",
        "warn",
        "cluster-b",
    )
    assert finding.message.startswith(
        "cluster-b would have 500m cpu of its 1500m free after the failover, under the 50% its "
        "failoverHeadroom keeps; moved here: Deployment payments/web"
    )
    assert not result.denied
    load = as_json(result)["capacity"][0]
    assert (load["cluster"], load["headroomPercent"], load["intoHeadroom"]) == (
        "cluster-b",
        50,
        ["cpu"],
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (20, None),
        (100, "clusters[0].failoverHeadroom: must be at most 99, not 100"),
        ("20%", "clusters[0].failoverHeadroom: must be a whole number, not a string"),
    ],
)
def test_failover_headroom_is_read_and_checked(value: object, message: str | None) -> None:
    text = (POLICIES / "clusters.yaml").read_text()
    text = text.replace(
        "    region: eu-west\n", f"    region: eu-west\n    failoverHeadroom: {value}\n"
    )
    files = {name: (POLICIES / name).read_text() for name in BUNDLE_FILES}
    files["clusters.yaml"] = text
    documents = {name: parse_single(t, f"policies/{name}") for name, t in files.items()}
    if message is None:
        assert build_bundle(documents).clusters["cluster-a"].failover_headroom == value
        return
    with pytest.raises(BundleError) as caught:
        build_bundle(documents)
    assert message in str(caught.value)
