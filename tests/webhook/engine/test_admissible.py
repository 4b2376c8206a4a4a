"""Requests the API server never sends are denied, for every writer, before any rule."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES
from webhook.bundle.model import Bundle
from webhook.engine.admissible import every_problem, known_kind_names, problems
from webhook.engine.request import AdmissionRequest, GroupVersionKind, UserInfo, parse_review
from webhook.engine.review import UNEXPECTED, review

REQUESTS = EXAMPLES / "requests"


def _load(name: str) -> dict[str, Any]:
    return json.loads((REQUESTS / name).read_text())


def _edit(name: str, **changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(_load(name))
    for key, value in changes.items():
        target = document["request"]
        *path, last = key.split("__")
        for part in path:
            target = target[part]
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return document


UPDATE = "deployment-update-by-argocd-allowed.json"
DELETE = "deployment-prune-by-argocd-allowed.json"
CREATE = "propagationpolicy-create-allowed.json"
NAMESPACE_CONTROLLER = "deployment-delete-by-namespace-controller-allowed.json"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param(
            _edit(UPDATE, oldObject=None),
            "UPDATE request carries the object as it was",
            id="update-without-old",
        ),
        pytest.param(
            _edit(DELETE, oldObject=None),
            "DELETE request carries the object as it was",
            id="delete-without-old",
        ),
        pytest.param(
            _edit(NAMESPACE_CONTROLLER, oldObject=None),
            "DELETE request carries",
            id="even-for-the-namespace-controller",
        ),
        pytest.param(
            _edit(CREATE, object=None),
            "CREATE request carries the object written",
            id="create-without-object",
        ),
        pytest.param(_edit(UPDATE, operation="CONNECT"), "CONNECT is not judged", id="connect"),
        pytest.param(
            _edit(UPDATE, subResource="exec"),
            "subresource 'exec' is not one fedgate judges",
            id="unknown-subresource",
        ),
        pytest.param(
            _edit(UPDATE, kind__kind="deployment"),
            "kind apps/deployment is not how the API server spells apps/Deployment",
            id="kind-lowercase",
        ),
        pytest.param(
            _edit(UPDATE, kind__group="Apps"), "API group 'Apps' is not lowercase", id="group-case"
        ),
        pytest.param(
            _edit(CREATE, kind__kind="PROPAGATIONPOLICY"),
            "is not how the API server spells policy.karmada.io/PropagationPolicy",
            id="kind-uppercase",
        ),
        pytest.param(
            _edit(UPDATE, kind__kind="ConfigMap", kind__group="", kind__version="v1"),
            "request.object is a 'Deployment', not the 'ConfigMap'",
            id="kind-not-the-object-s",
        ),
        pytest.param(
            _edit(UPDATE, namespace=None),
            "Deployment lives in a namespace, and the request names none",
            id="namespace-empty",
        ),
        pytest.param(
            _edit(UPDATE, namespace="payments"),
            "request.object is in namespace 'platform-demo', and the request names 'payments'",
            id="namespace-other",
        ),
        pytest.param(
            _edit("clusterpropagationpolicy-by-platform-allowed.json", namespace="platform-demo"),
            "is cluster-wide, and the request names namespace platform-demo",
            id="cluster-wide-with-namespace",
        ),
    ],
)
def test_what_the_api_server_never_sends_is_denied(
    bundle: Bundle, document: dict[str, Any], message: str
) -> None:
    decision = review(parse_review(document), bundle)
    assert not decision.allowed
    assert {v.rule for v in decision.violations} == {UNEXPECTED}
    assert any(message in v.message for v in decision.violations), decision.violations


@pytest.mark.parametrize(
    "name", sorted(p.name for p in REQUESTS.glob("*.json")), ids=lambda n: n.removesuffix(".json")
)
def test_every_example_is_what_the_api_server_sends(bundle: Bundle, name: str) -> None:
    assert problems(parse_review(_load(name)), bundle) == []


def test_metric_kinds_are_the_known_ones(bundle: Bundle) -> None:
    kinds = known_kind_names(bundle)
    assert {"Deployment", "PropagationPolicy", "Scale", "ClusterPropagationPolicy"} <= kinds
    assert "deployment" not in kinds


KIND_NAMES = st.sampled_from(
    ["Deployment", "deployment", "PropagationPolicy", "ClusterPropagationPolicy", "Namespace", ""]
)
GROUPS = st.sampled_from(["apps", "Apps", "policy.karmada.io", "", "Policy.Karmada.io"])
OBJECTS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "kind": st.one_of(KIND_NAMES, st.none(), st.integers(0, 1)),
            "apiVersion": st.sampled_from(["apps/v1", "v1", "policy.karmada.io/v1alpha1", 1]),
            "metadata": st.one_of(
                st.none(),
                st.just([]),
                st.fixed_dictionaries(
                    {}, optional={"namespace": st.sampled_from(["a", "b", "", 5, None])}
                ),
            ),
        },
    ),
)


@settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # about 2 s
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT", "create"]),
            st.sampled_from(["", "status", "scale", "exec", "Status"]),
            GROUPS,
            KIND_NAMES,
            st.sampled_from(["a", "b", ""]),
            OBJECTS,
            OBJECTS,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_shape_memo_answers_as_every_check_does(
    bundle: Bundle, run: list[tuple[Any, ...]]
) -> None:
    """``problems`` keeps what depends on a request's shape per bundle: for requests of one
    shape and different objects and namespaces, and shapes differing in case alone, the
    same problems in the same order as every check run each time."""
    fresh = replace(bundle)  # its own memo tables: the run's requests meet in them
    for operation, sub, group, kind, namespace, obj, old in [*run, *run]:
        request = AdmissionRequest(
            uid="u",
            kind=GroupVersionKind(group, "v1", kind),
            resource="things",
            sub_resource=sub,
            name="x",
            namespace=namespace,
            operation=operation,
            user=UserInfo("alice", ()),
            object=obj,
            old_object=old,
        )
        assert problems(request, fresh) == list(every_problem(request, fresh))
