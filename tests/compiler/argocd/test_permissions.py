"""Argo CD's AppProject rules as compile replays them.

Tables ported from argoproj/argo-cd pkg/apis/application/v1alpha1/types_test.go (commit
37ee0097): TestAppProject_IsDestinationPermitted, TestAppProject_IsNegatedDestinationPermitted,
TestAppProject_IsGroupKindPermitted, TestAppProject_IsSourcePermitted and TestGlobMatch.
"""

from __future__ import annotations

from typing import Any

import pytest

from compiler.argocd.permissions import (
    Cluster,
    application_refusals,
    destination_permitted,
    glob_match,
    group_kind_permitted,
    source_permitted,
    sync_refusal,
)

K8S = "https://kubernetes.default.svc"
EKS = "https://eks-cluster-endpoint.ap-southeast-1.eks.amazonaws.com"


def _dest(server: str = "", namespace: str = "", name: str = "") -> dict[str, str]:
    return {"server": server, "namespace": namespace, "name": name}


def _project(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "proj"}, "spec": spec}


DESTINATIONS = [
    ("server and namespace match", [_dest(K8S, "default")], _dest(K8S, "default"), True),
    ("namespace does not match", [_dest(K8S, "default")], _dest(K8S, "kube-system"), False),
    (
        "server does not match",
        [_dest("https://my-cluster", "default")],
        _dest(K8S, "default"),
        False,
    ),
    ("wildcard namespace", [_dest(K8S, "*")], _dest(K8S, "kube-system"), True),
    ("wildcard server", [_dest("https://*.default.svc", "default")], _dest(K8S, "default"), True),
    (
        "wildcard server mismatch",
        [_dest("https://team1-*", "default")],
        _dest("https://test2-dev-cluster", "default"),
        False,
    ),
    ("namespace prefix", [_dest(K8S, "test-*")], _dest(K8S, "test-foo"), True),
    ("namespace without prefix", [_dest(K8S, "test-*")], _dest(K8S, "test"), False),
    ("wildcards", [_dest("*", "*")], _dest(K8S, "test"), True),
    ("name", [_dest("", "*", "test")], _dest("", "test", "test"), True),
    ("other name", [_dest("", "*", "test2")], _dest("", "test", "test"), False),
    (
        "negated namespace with multiple values",
        [
            _dest(K8S, "!{kube-system,argocd}", "host-cluster"),
            _dest(EKS, "*", "destination-cluster-01"),
        ],
        _dest(EKS, "kube-system"),
        True,
    ),
    # TestAppProject_IsNegatedDestinationPermitted
    ("neg 1", [_dest("!" + K8S, "default")], _dest(K8S, "default"), False),
    ("neg 2", [_dest(K8S, "!default")], _dest(K8S, "kube-system"), True),
    ("neg 3", [_dest("!https://my-cluster", "default")], _dest(K8S, "default"), True),
    ("neg 4", [_dest("!" + K8S, "*")], _dest(K8S, "kube-system"), False),
    ("neg 5", [_dest("!https://*.default.svc", "default")], _dest(K8S, "default"), False),
    (
        "neg 6",
        [_dest("!https://team1-*", "default")],
        _dest("https://test2-dev-cluster", "default"),
        True,
    ),
    ("neg 7", [_dest(K8S, "!test-*")], _dest(K8S, "test-foo"), False),
    ("neg 8", [_dest(K8S, "!test-*")], _dest(K8S, "test"), True),
    ("neg 9", [_dest("", "*", "!test")], _dest("", "test", "test"), False),
    ("neg 10", [_dest("", "*", "!test2")], _dest("", "test", "test"), True),
    (
        "neg 11",
        [_dest("*", "kube-system"), _dest("*", "!kube-system")],
        _dest(K8S, "kube-system"),
        False,
    ),
    ("neg 12", [_dest("*", "*"), _dest("*", "!kube-system")], _dest(K8S, "kube-system"), False),
    ("neg 13", [_dest(K8S, "*"), _dest("!" + K8S, "*")], _dest(K8S, "kube-system"), False),
    (
        "neg 14",
        [_dest("*", "*"), _dest("!" + K8S, "kube-system")],
        _dest(K8S, "kube-system"),
        False,
    ),
    (
        "neg 15",
        [_dest("*", "*"), _dest("!" + K8S, "kube-system"), _dest("*", "!kube-system")],
        _dest(K8S, "kube-system"),
        False,
    ),
    (
        "neg 16",
        [_dest("*", "*"), _dest("!" + K8S, "kube-system"), _dest("*", "!kube-system")],
        _dest(K8S, "default"),
        True,
    ),
    (
        "neg 17",
        [_dest("*", "*"), _dest("!" + K8S, "kube-system"), _dest("*", "!kube-system")],
        _dest("https://test-dev-cluster", "kube-system"),
        False,
    ),
    ("neg 18", [_dest("", "*", "test"), _dest("", "*", "!test")], _dest("", "test", "test"), False),
    (
        "neg 19",
        [_dest("*", "test"), _dest("!https://test-server", "other")],
        _dest("https://test-server", "test"),
        True,
    ),
    (
        "neg 20",
        [_dest("*", "*"), _dest("https://test-server", "!other")],
        _dest("https://other-test-server", "other"),
        True,
    ),
    # Argo CD refuses an Application without a namespace against fedgate's project.
    (
        "no namespace against a namespaced project",
        [_dest("", "platform-demo", "karmada-apiserver")],
        _dest("", "", "karmada-apiserver"),
        False,
    ),
]


@pytest.mark.parametrize(
    ("destinations", "wanted", "expected"),
    [pytest.param(d, w, e, id=name) for name, d, w, e in DESTINATIONS],
)
def test_destination_permitted(
    destinations: list[dict[str, str]], wanted: dict[str, str], expected: bool
) -> None:
    project = _project(destinations=destinations)
    cluster = Cluster(name=wanted["name"], server=wanted["server"])
    assert destination_permitted(project, cluster, wanted["namespace"]) is expected


def _kinds(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"group": g, "kind": k} for g, k in pairs]


GROUP_KINDS = [
    (
        {
            "namespaceResourceWhitelist": [],
            "namespaceResourceBlacklist": _kinds(("apps", "Deployment")),
        },
        ("apps", "ReplicaSet", "", True),
        False,
    ),
    (
        {
            "namespaceResourceWhitelist": [],
            "namespaceResourceBlacklist": _kinds(("apps", "Deployment")),
        },
        ("apps", "Deployment", "", True),
        False,
    ),
    (
        {
            "namespaceResourceWhitelist": _kinds(("apps", "ReplicaSet")),
            "namespaceResourceBlacklist": _kinds(("apps", "Deployment")),
        },
        ("apps", "ReplicaSet", "", True),
        True,
    ),
    (
        {
            "namespaceResourceWhitelist": _kinds(("apps", "ReplicaSet")),
            "namespaceResourceBlacklist": _kinds(("apps", "Deployment")),
        },
        ("apps", "Action", "", True),
        False,
    ),
    ({"clusterResourceBlacklist": _kinds(("", "Namespace"))}, ("", "Namespace", "", False), False),
    (
        {
            "clusterResourceWhitelist": _kinds(("*", "*")),
            "clusterResourceBlacklist": _kinds(("*", "*")),
        },
        ("", "Namespace", "", False),
        False,
    ),
    (
        {
            "clusterResourceWhitelist": _kinds(("*", "*")),
            "clusterResourceBlacklist": _kinds(("*", "*")),
        },
        ("apps", "Action", "", True),
        True,
    ),
    (
        {"clusterResourceWhitelist": [], "namespaceResourceWhitelist": _kinds(("*", "*"))},
        ("", "Namespace", "", False),
        False,
    ),
    (
        {"clusterResourceWhitelist": [], "namespaceResourceWhitelist": _kinds(("*", "*"))},
        ("apps", "Action", "", True),
        True,
    ),
    ({}, ("", "Namespace", "", False), False),
    ({}, ("apps", "Action", "", True), True),
    (
        {"clusterResourceWhitelist": [{"group": "", "kind": "Namespace", "name": "team1-*"}]},
        ("", "Namespace", "other-namespace", False),
        False,
    ),
    (
        {"clusterResourceWhitelist": [{"group": "", "kind": "Namespace", "name": "team1-*"}]},
        ("", "Namespace", "team1-namespace", False),
        True,
    ),
]


@pytest.mark.parametrize(
    ("spec", "resource", "expected"),
    [pytest.param(s, r, e, id=f"{i}:{r[1]}") for i, (s, r, e) in enumerate(GROUP_KINDS)],
)
def test_group_kind_permitted(
    spec: dict[str, Any], resource: tuple[str, str, str, bool], expected: bool
) -> None:
    group, kind, name, namespaced = resource
    assert group_kind_permitted(_project(**spec), group, kind, name, namespaced=namespaced) is (
        expected
    )


@pytest.mark.parametrize(
    ("repos", "url", "expected"),
    [
        pytest.param(["*"], "https://github.com/argoproj/test", True, id="star"),
        pytest.param(
            ["https://github.com/argoproj/*"], "https://github.com/argoproj/test", True, id="prefix"
        ),
        pytest.param(
            ["https://github.com/argoproj/*"], "https://github.com/other/test", False, id="other"
        ),
        pytest.param(
            ["https://github.com/argoproj/*"], "https://github.com/argoproj/a/b", False, id="slash"
        ),
        pytest.param(
            ["https://github.com/argoproj/**"], "https://github.com/argoproj/a/b", True, id="super"
        ),
        pytest.param(
            ["https://GitHub.com/Argoproj/Test.git"],
            "https://github.com/argoproj/test",
            True,
            id="normalized",
        ),
        pytest.param(
            ["git@github.com:argoproj/test.git"], "git@github.com:argoproj/test", True, id="ssh"
        ),
        pytest.param(
            ["!https://github.com/argoproj/test", "*"],
            "https://github.com/argoproj/test",
            False,
            id="deny",
        ),
        pytest.param(
            ["!https://github.com/argoproj/test", "*"],
            "https://github.com/argoproj/ok",
            True,
            id="deny other",
        ),
    ],
)
def test_source_permitted(repos: list[str], url: str, expected: bool) -> None:
    assert source_permitted(_project(sourceRepos=repos), url) is expected


@pytest.mark.parametrize(
    ("pattern", "value", "negation", "expected"),
    [
        ("foo", "foo", False, True),
        ("foo*", "foobar", False, True),
        ("foo*", "bar", False, False),
        ("*", "anything", False, True),
        ("!foo", "foo", True, False),
        ("!foo", "bar", True, True),
        ("!foo", "foo", False, False),
        ("!foo", "!foo", False, True),
    ],
)
def test_argocd_glob_match(pattern: str, value: str, negation: bool, expected: bool) -> None:
    assert glob_match(pattern, value, allow_negation=negation) is expected


def _application(namespace: str | None) -> dict[str, Any]:
    destination = {"name": "karmada-apiserver"}
    if namespace is not None:
        destination["namespace"] = namespace
    return {
        "metadata": {"name": "fedgate-team-a"},
        "spec": {
            "project": "team-a",
            "source": {"repoURL": "https://git.example.com/platform/federation.git"},
            "destination": destination,
        },
    }


TEAM_A = {
    "metadata": {"name": "team-a"},
    "spec": {
        "sourceRepos": ["https://git.example.com/platform/federation.git"],
        "destinations": [{"name": "karmada-apiserver", "namespace": "platform-demo"}],
        "clusterResourceWhitelist": [],
        "namespaceResourceWhitelist": _kinds(("apps", "Deployment")),
    },
}


def test_an_application_without_a_destination_namespace_is_refused_with_argocds_words() -> None:
    assert application_refusals(_application(None), TEAM_A) == [
        "application destination server 'karmada-apiserver' and namespace '' do not match any "
        "of the allowed destinations in project 'team-a'"
    ]
    assert application_refusals(_application("platform-demo"), TEAM_A) == []


@pytest.mark.parametrize(
    ("obj", "namespaced", "expected"),
    [
        pytest.param(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"namespace": "platform-demo"},
            },
            True,
            None,
            id="deployment in its namespace",
        ),
        pytest.param(
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"namespace": "payments"}},
            True,
            "namespace payments is not permitted in project 'team-a'",
            id="other namespace",
        ),
        pytest.param(
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "metadata": {"namespace": "platform-demo"},
            },
            True,
            "resource apps:StatefulSet is not permitted in project team-a",
            id="kind not whitelisted",
        ),
        pytest.param(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterPropagationPolicy",
                "metadata": {},
            },
            False,
            "resource policy.karmada.io:ClusterPropagationPolicy is not permitted in project "
            "team-a",
            id="cluster-scoped",
        ),
    ],
)
def test_sync_refusal(obj: dict[str, Any], namespaced: bool, expected: str | None) -> None:
    cluster = Cluster(name="karmada-apiserver")
    assert sync_refusal(TEAM_A, cluster, obj, namespaced=namespaced) == expected


PANICKING_PROJECT = {
    "metadata": {"name": "team-a"},
    "spec": {
        "sourceRepos": ["https://git.example.com/platform/federation.git"],
        # gobwas compiles '?{' to a Row ending in Nothing, which slices past a 1-rune text
        "destinations": [{"name": "karmada-apiserver", "namespace": "?{"}],
    },
}
CRASH = (
    "Argo CD would crash on the pattern '?{' (matching 'a', gobwas/glob panics: runtime error: "
    "slice bounds out of range [:2] with length 1), so it would never reconcile the Application"
)


def test_a_project_glob_argo_cd_would_crash_on_is_a_refusal() -> None:
    assert application_refusals(_application("a"), PANICKING_PROJECT) == [CRASH]
    assert application_refusals(_application("ab"), PANICKING_PROJECT) == [
        "application destination server 'karmada-apiserver' and namespace 'ab' do not match any "
        "of the allowed destinations in project 'team-a'"
    ]


def test_a_synced_object_whose_namespace_crashes_argo_cd_is_refused() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "a"}}
    cluster = Cluster(name="karmada-apiserver")
    assert sync_refusal(PANICKING_PROJECT, cluster, obj, namespaced=True) == CRASH
