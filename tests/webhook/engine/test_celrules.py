"""CEL rules beyond the shipped ones: matchConditions, params, failurePolicy, bad results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webhook.engine.custom_rules import DEPLOYMENT, MATCH, bundle_with
from webhook.base.errors import BundleError
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.cel.paths import PathTree, narrowed, read_paths
from webhook.engine.request import AdmissionRequest, parse_request
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_match_conditions_and_params(tmp_path: Path, backend: str) -> None:
    bundle = bundle_with(
        tmp_path,
        "matchConditions: [\"object.metadata.labels.tier == 'gold'\"]\n"
        "validations:\n  - expression: object.spec.replicas >= params.minimum\n"
        "    message: too few replicas for gold\n",
        f"action: deny\nparams: {{minimum: 5}}\n{MATCH}",
        backend,
    )
    decision = review(sync_request(DEPLOYMENT, None, bundle), bundle)
    assert [(v.rule, v.message) for v in decision.violations] == [
        ("custom", "too few replicas for gold")
    ]
    silver = {**DEPLOYMENT, "metadata": {**DEPLOYMENT["metadata"], "labels": {"tier": "silver"}}}
    assert review(sync_request(silver, None, bundle), bundle).allowed


@pytest.mark.parametrize(
    ("expression", "failure_policy", "allowed", "status"),
    [
        pytest.param("object.spec.nothing == 1", "Fail", False, "error", id="error-fails-closed"),
        pytest.param("object.spec.nothing == 1", "Ignore", True, "error", id="error-ignored"),
        pytest.param("'not a boolean'", "Fail", False, "error", id="not-a-boolean"),
    ],
)
def test_evaluation_errors(
    tmp_path: Path, expression: str, failure_policy: str, allowed: bool, status: str
) -> None:
    bundle = bundle_with(
        tmp_path,
        f'validations:\n  - expression: "{expression}"\n    message: m\n',
        f"action: deny\nfailurePolicy: {failure_policy}\n{MATCH}",
    )
    decision = review(sync_request(DEPLOYMENT, None, bundle), bundle)
    [violation] = decision.violations
    assert (decision.allowed, violation.status) == (allowed, status)


def test_a_rule_that_does_not_compile_is_located(tmp_path: Path) -> None:
    with pytest.raises(BundleError) as caught:
        bundle_with(
            tmp_path,
            "validations:\n  - expression: 'object.spec.('\n    message: m\n",
            f"action: deny\n{MATCH}",
        )
    [finding] = caught.value.findings
    assert finding.file.endswith("rules/custom/rule.yaml")
    assert (finding.line, finding.path) == (4, "validations[0].expression")


def test_object_selector_skips_other_objects(tmp_path: Path) -> None:
    bundle = bundle_with(
        tmp_path,
        "validations:\n  - expression: 'false'\n    message: never\n",
        f"action: deny\n{MATCH}  objectSelector: {{matchLabels: {{tier: platinum}}}}\n",
    )
    assert review(sync_request(DEPLOYMENT, None, bundle), bundle).allowed


@pytest.mark.parametrize(
    ("expressions", "variable", "paths"),
    [
        pytest.param(
            ["object.spec.replicas > 1", "object.kind == 'X'"],
            "object",
            {"spec": {"replicas": None}, "kind": None},
            id="fields",
        ),
        pytest.param(
            ["has(object.metadata.labels)"], "object", {"metadata": {"labels": None}}, id="has"
        ),
        pytest.param(
            ["object.spec.template.spec.containers.all(c, c.image != '')"],
            "object",
            {"spec": {"template": {"spec": {"containers": {"[]": {"image": None}}}}}},
            id="macro-reads-fields-of-items",
        ),
        pytest.param(
            [
                "object.spec.c.exists(x, has(x.a.b) && x.a.b.startsWith('q'))",
                "object.spec.c.map(y, y.d).all(v, v > 1)",
                "object.spec.c.all(z, true)",
            ],
            "object",
            {"spec": {"c": {"[]": {"a": {"b": None}, "d": None}}}},
            id="macros-merge",
        ),
        pytest.param(
            ["object.spec.c.exists_one(x, x == 'a')"],
            "object",
            {"spec": {"c": None}},
            id="an-item-used-whole",
        ),
        pytest.param(
            ["object.spec.c.all(x, x.a > 0)", "size(object.spec.c) > 1"],
            "object",
            {"spec": {"c": None}},
            id="the-list-used-whole",
        ),
        pytest.param(
            ["object.spec.c.filter(x, x.a > 0)[0].b == 1"],
            "object",
            {"spec": {"c": None}},
            id="filter-hands-items-on",
        ),
        pytest.param(
            ["object.spec.c.all(i, x, x.a > 0)"],
            "object",
            {"spec": {"c": None}},
            id="two-variable-form",
        ),
        pytest.param(
            ["object.spec.c.map(x, x.a > 0, x.b)"],
            "object",
            {"spec": {"c": {"[]": {"a": None, "b": None}}}},
            id="map-with-a-filter",
        ),
        pytest.param(
            ["object.spec.c.all(x, x.e.all(y, y.f != x.g))"],
            "object",
            {"spec": {"c": {"[]": {"e": None, "g": None}}}},
            id="nested-macro-keeps-what-it-ranges-over",
        ),
        pytest.param(
            ["object.metadata.name.startsWith('a')", "object.metadata.labels['x'] == 'y'"],
            "object",
            {"metadata": {"name": None, "labels": None}},
            id="method-and-index-keep-what-is-below",
        ),
        pytest.param(
            ["object.spec.replicas > 0", "size(object.spec) > 0"],
            "object",
            {"spec": None},
            id="a-shorter-path-keeps-all-below",
        ),
        pytest.param(
            ["object . spec\n  . replicas > 1"], "object", {"spec": {"replicas": None}}, id="spaces"
        ),
        pytest.param(["object == oldObject"], "object", None, id="whole-object"),
        pytest.param(["object.?spec.orValue({})"], "object", None, id="optional-field"),
        pytest.param(["[1].all(object, object > 0)"], "object", None, id="shadowed-name"),
        pytest.param(
            ["'the tenant ' + tenant.name + \" and it's object\" + r'\\' + object.kind"],
            "tenant",
            {"name": None},
            id="words-in-strings-are-not-names",
        ),
        pytest.param(["oldObject.spec == null"], "object", "absent", id="not-named"),
        pytest.param(["oldObject.spec == null"], "oldObject", {"spec": None}, id="old-object"),
        pytest.param(["request.object.kind == 'x'"], "object", "absent", id="a-field-named-object"),
        pytest.param(
            ["request.object.kind == 'x'"],
            "request",
            {"object": {"kind": None}},
            id="request",
        ),
        pytest.param(
            ["tenant.registries.exists(r, r == '')", "has(tenant.maxReplicasPerApp)"],
            "tenant",
            {"registries": None, "maxReplicasPerApp": None},
            id="tenant",
        ),
    ],
)
def test_read_paths(expressions: list[str], variable: str, paths: PathTree | str | None) -> None:
    assert read_paths(expressions).get(variable, "absent") == paths


@pytest.mark.parametrize(
    ("value", "paths", "seen"),
    [
        ({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": None}}, {"a": {"b": 1}}),
        (
            {"l": [{"a": 1, "b": 2}, {"b": 3}, 4]},
            {"l": {"[]": {"a": None}}},
            {"l": [{"a": 1}, {}, 4]},
        ),
        ({"m": {"k1": {"a": 1}, "k2": 2}}, {"m": {"[]": {}}}, {"m": {"k1": {"a": 1}, "k2": 2}}),
        ({"a": [{"b": 1}], "d": 3}, {"a": {"b": None}}, {"a": [{"b": 1}]}),
        ({"a": 1}, {"x": None}, {}),
        ({"a": 1}, None, {"a": 1}),
        (None, {"a": None}, None),
    ],
)
def test_narrowed(value: object, paths: PathTree | None, seen: object) -> None:
    assert narrowed(value, paths) == seen


def test_rules_see_only_the_fields_they_read(tmp_path: Path) -> None:
    bundle = bundle_with(
        tmp_path,
        'validations:\n  - expression: "!has(object.status)"\n    message: m\n',
        f"action: deny\n{MATCH}",
    )
    assert bundle.cel_runtime is not None
    paths = bundle.cel_runtime.read_paths["object"]
    assert paths is not None and "status" in paths  # read, so handed to the engine
    with_status = {**DEPLOYMENT, "status": {"replicas": 1}}
    assert not review(sync_request(with_status, None, bundle), bundle).allowed


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
@pytest.mark.parametrize("proofs", [True, False])
def test_a_null_field_is_present_as_in_kubernetes_admission(
    tmp_path: Path, backend: str, proofs: bool
) -> None:
    """A ValidatingAdmissionPolicy sees the object as sent (objectToResolveVal in
    apiserver/pkg/admission/plugin/cel): a field set to null is there, and is null."""
    policies = tmp_path / "policies"
    bundle_with(
        tmp_path,
        'validations:\n  - expression: >-\n      has(object.spec.paused) && "paused" in '
        "object.spec\n        && object.spec.paused == null && object.spec.size() == 3\n"
        "    message: paused\n",
        f"action: deny\n{MATCH}",
        backend,
    )
    bundle = load_bundle(policies, backend, proofs=proofs)
    paused = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "paused": None}}
    assert len(paused["spec"]) == 3
    assert review(_as_sent(paused, bundle), bundle).allowed
    paused["spec"]["paused"] = False
    assert not review(_as_sent(paused, bundle), bundle).allowed


def _as_sent(obj: dict[str, Any], bundle: Bundle) -> AdmissionRequest:
    """The CREATE of ``obj`` exactly as given (nulls and all), as an API server sends a kind
    that keeps them (``sync_request`` reviews a write from git as it will be stored)."""
    request = sync_request(obj, None, bundle)
    return parse_request({**request.raw, "object": obj})


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_a_null_written_in_git_is_reviewed_as_the_api_server_stores_it(
    tmp_path: Path, backend: str
) -> None:
    """YAML's ``paused:`` with no value is a null, which decoding a Deployment drops: the
    review of the git write sees no such field, as admission will."""
    bundle_with(
        tmp_path,
        'validations:\n  - expression: "!has(object.spec.paused)"\n    message: paused\n',
        f"action: deny\n{MATCH}",
        backend,
    )
    bundle = load_bundle(tmp_path / "policies", backend)
    paused = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "paused": None}}
    request = sync_request(
        paused, {**paused, "metadata": {**paused["metadata"], "x": None}}, bundle
    )
    assert "paused" not in request.object["spec"]
    assert "x" not in request.old_object["metadata"]
    assert review(request, bundle).allowed


def test_params_no_engine_represents_are_refused_when_the_bundle_loads(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"params: params.limit 18446744073709551616 is outside"):
        bundle_with(
            tmp_path,
            "validations:\n  - expression: object.spec.replicas <= params.limit\n    message: m\n",
            f"action: deny\nparams: {{limit: 18446744073709551616}}\n{MATCH}",
        )


@pytest.mark.parametrize(
    ("expression", "construct"),
    [
        pytest.param("strings.quote('a').size() == 3", "strings.quote()", id="strings-quote"),
        pytest.param("optional.of(1).hasValue()", "optional.of()", id="optional"),
        pytest.param("object.?spec.hasValue()", "parser cannot read this", id="optional-syntax"),
    ],
)
def test_cel_python_refuses_what_it_cannot_run_when_the_bundle_loads(
    tmp_path: Path, expression: str, construct: str
) -> None:
    rule = f"validations:\n  - expression: {expression!r}\n    message: m\n"
    bundle_with(tmp_path / "expr", rule, f"action: deny\n{MATCH}")  # cel-expr runs it
    with pytest.raises(BundleError) as caught:
        bundle_with(tmp_path / "python", rule, f"action: deny\n{MATCH}", "cel-python")
    text = str(caught.value)
    assert "rules/custom/rule.yaml:4: validations[0].expression: cel-python" in text
    assert construct in text
