"""An affinity by names alone is read without ``cluster_matches`` per cluster
(``selector.names_only``): against the scan it skips, on adversarial affinities (label and
field selectors present, null or absent, zones, exclusions, names of odd types), and the
placement's candidates (``tenancy.candidates``) with it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.bundle.model import DATA_KINDS, Bundle, Cluster, Tenant
from webhook.engine.context import Review
from webhook.engine.identity import identify
from webhook.engine.request import AdmissionRequest, GroupVersionKind, UserInfo
from webhook.engine.tenancy import affinities, candidates, check_propagate_deps, deps_scope
from webhook.karmada.selector import (
    candidate_clusters,
    names_only,
    scan_clusters,
    unknown_cluster_names,
)

CLUSTERS = {
    "a": Cluster("a", {"region": "eu", "tier": "1"}, provider="aws", region="eu", zone="z1"),
    "b": Cluster("b", {"region": "us"}, provider="gcp", region="us", zones=("z1", "z2")),
    "c": Cluster("c", {}, provider=None, region=None),
    "1": Cluster("1", {"tier": "true"}, provider="aws"),
    "key-d": Cluster("d", {}),  # a key that is not its name: the key is what is returned
}
ODD = st.sampled_from([None, 1, 1.0, True, False, "", [], {}, ["a"], {"a": "b"}])
NAMES = st.lists(
    st.one_of(st.sampled_from(["a", "b", "c", "1", "d", "key-d", "x"]), ODD), max_size=3
)
VALUES = st.one_of(st.lists(st.one_of(st.sampled_from(["eu", "us", "z1", "z2", "aws"]), ODD)), ODD)
EXPRESSIONS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "key": st.one_of(st.sampled_from(["region", "provider", "zone", "tier"]), ODD),
                "operator": st.one_of(
                    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt"]), ODD
                ),
            },
            optional={"values": VALUES},
        ),
        ODD,
    ),
    max_size=3,
)
LABEL_SELECTORS = st.one_of(
    ODD,
    st.fixed_dictionaries(
        {},
        optional={
            "matchLabels": st.dictionaries(
                st.sampled_from(["region", "tier"]),
                st.one_of(st.sampled_from(["eu", "us", "1", "true"]), ODD),
            ),
            "matchExpressions": EXPRESSIONS,
        },
    ),
)
AFFINITY = st.fixed_dictionaries(
    {},
    optional={
        "clusterNames": st.one_of(NAMES, ODD),
        "exclude": st.one_of(NAMES, ODD),
        "labelSelector": st.one_of(st.none(), LABEL_SELECTORS),
        "fieldSelector": st.one_of(
            st.none(), ODD, st.fixed_dictionaries({"matchExpressions": EXPRESSIONS})
        ),
        "affinityName": st.sampled_from(["x", "y"]),
    },
)
TERMS = st.one_of(
    AFFINITY,
    st.fixed_dictionaries({}, optional={"overflowAffinities": st.lists(st.one_of(AFFINITY, ODD))}),
    ODD,
)
SPECS = st.one_of(
    st.fixed_dictionaries({"placement": st.fixed_dictionaries({"clusterAffinity": AFFINITY})}),
    st.fixed_dictionaries(
        {
            "placement": st.fixed_dictionaries(
                {"clusterAffinities": st.one_of(st.lists(TERMS, max_size=3), ODD)}
            )
        }
    ),
    st.fixed_dictionaries({"placement": ODD}),
)


def _outcome(read: Any, affinity: dict[str, Any]) -> tuple[str, ...] | str:
    try:
        return read(affinity, CLUSTERS)  # type: ignore[no-any-return]
    except Exception as exc:  # the same failure either way
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=1000, deadline=None)  # about 2 s
@given(AFFINITY)
def test_an_affinity_reads_as_the_scan_does(affinity: dict[str, Any]) -> None:
    assert _outcome(candidate_clusters, affinity) == _outcome(scan_clusters, affinity)


@settings(max_examples=300, deadline=None)  # about 1 s
@given(SPECS)
def test_a_placement_s_candidates_are_the_scan_s(spec: dict[str, Any]) -> None:
    """``tenancy.candidates``, which the audit line and three rules read, against every term
    scanned."""
    terms = affinities(spec)
    bundle = Bundle(clusters=CLUSTERS, tenants={}, writers=())
    scanned: set[str] = set()
    for term in terms or ():
        scanned.update(scan_clusters(term, CLUSTERS))
    expected = tuple(CLUSTERS) if terms is None else tuple(sorted(scanned))
    assert candidates(spec, bundle) == expected


def test_names_alone_as_karmada_reads_them() -> None:
    """Exclude wins; empty names select every cluster; names that are not a list, none."""
    assert names_only({"clusterNames": ["a", "b", "x"], "exclude": ["b"]}, CLUSTERS) == ("a",)
    assert names_only({"exclude": ["a", "b"]}, CLUSTERS) == ("1", "c", "key-d")
    assert names_only({"clusterNames": "a"}, CLUSTERS) == ()
    assert names_only({"clusterNames": ["d"], "exclude": "d"}, CLUSTERS) == ("key-d",)
    assert names_only({"clusterNames": [1, True, None]}, CLUSTERS) == ()


@settings(max_examples=500, deadline=None)  # well under a second
@given(AFFINITY)
def test_unknown_names_against_the_inventory_as_a_set(affinity: dict[str, Any]) -> None:
    """The inventory's mapping is asked directly, as the set of its names was."""

    def outcome(clusters: Any) -> tuple[str, ...] | str:
        try:
            return unknown_cluster_names(affinity, clusters)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    assert outcome(CLUSTERS) == outcome(set(CLUSTERS)) == outcome(list(CLUSTERS))


def _policy_review(bundle: Bundle, tenant: Tenant, names: list[str]) -> list[str]:
    request = AdmissionRequest(
        uid="u",
        kind=GroupVersionKind("policy.karmada.io", "v1alpha1", "PropagationPolicy"),
        resource="propagationpolicies",
        operation="CREATE",
        user=UserInfo("alice", ()),
        namespace=tenant.namespaces[0] if tenant.namespaces else "x",
        object={
            "spec": {
                "propagateDeps": True,
                "placement": {"clusterAffinity": {"clusterNames": names}},
            }
        },
    )
    context = Review(request, bundle, identify(request.user, bundle, tenant), tenant)
    rule = next(r for r in bundle.rules if r.builtin == "tenancy.propagate-deps")
    return [v.message for v in check_propagate_deps(context, rule)]


def test_a_tenant_s_dependency_scope_is_kept_per_bundle(bundle: Bundle) -> None:
    """Kept for the bundle's own tenants; a tenant of the same name that is not the bundle's
    (a test's, a member copy's) is worked out afresh, never answered for by the other."""
    fresh = replace(bundle)
    for tenant in fresh.tenants.values():
        for names in (["cluster-a"], ["cluster-c"], list(fresh.clusters)):
            expected = sorted(c for c in names if c not in deps_scope(tenant))
            first = _policy_review(fresh, tenant, names)
            assert first == _policy_review(fresh, tenant, names)
            assert bool(first) == bool(expected)
            narrowed = replace(tenant, data_scope={k: frozenset() for k in DATA_KINDS})
            assert _policy_review(fresh, narrowed, names)  # nothing is in its scope
