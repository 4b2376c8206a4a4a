"""Exceptions in review(): what they lift, on which day, for which writes, and what never."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from tests.conftest import EXAMPLES
from webhook.bundle.model import Bundle, PolicyException
from webhook.engine.decision import ExceptionUse
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

EXPIRES = date(2026, 12, 31)
BEFORE = date(2026, 12, 30)
LATEST = "deployment-latest-tag-denied"
LATEST_MESSAGE = (
    "image registry.example.com/platform/demo-http:latest is not pinned: give it a tag other "
    "than latest, or a digest"
)


def _request(name: str, **changes: Any) -> Any:
    body = json.loads((EXAMPLES / "requests" / f"{name}.json").read_text())
    body["request"].update(changes)
    return parse_review(body)


def _exception(**fields: Any) -> PolicyException:
    given: dict[str, Any] = {
        "name": "legacy-demo",
        "rules": frozenset({"image-tag"}),
        "namespaces": frozenset({"platform-demo"}),
        "expires": EXPIRES,
        "reason": "the vendor image has no tag yet",
        "owner": "platform@example.com",
    }
    return PolicyException(**{**given, **fields})


def _with(bundle: Bundle, *exceptions: PolicyException) -> Bundle:
    return replace(bundle, exceptions=exceptions)


@pytest.mark.parametrize(
    ("exception", "today", "cluster", "lifted"),
    [
        pytest.param(_exception(), BEFORE, None, True, id="in force"),
        pytest.param(_exception(), date(2026, 1, 1), None, True, id="months before"),
        pytest.param(_exception(), EXPIRES, None, False, id="on the day it expires"),
        pytest.param(_exception(), date(2027, 1, 1), None, False, id="past its date"),
        pytest.param(_exception(), None, None, False, id="no day given: nothing lifted"),
        pytest.param(
            _exception(rules=frozenset({"registry-allowed"})), BEFORE, None, False, id="other rule"
        ),
        pytest.param(
            _exception(namespaces=frozenset({"payments"})), BEFORE, None, False, id="other ns"
        ),
        pytest.param(
            _exception(kinds=frozenset({("apps", "Deployment")})), BEFORE, None, True, id="kind"
        ),
        pytest.param(
            _exception(kinds=frozenset({("apps", "StatefulSet")})),
            BEFORE,
            None,
            False,
            id="other kind",
        ),
        pytest.param(
            _exception(kinds=frozenset({("*", "Deployment")})), BEFORE, None, True, id="any group"
        ),
        pytest.param(_exception(names=frozenset({"demo-http"})), BEFORE, None, True, id="name"),
        pytest.param(
            _exception(names=frozenset({"billing"})), BEFORE, None, False, id="other name"
        ),
        pytest.param(
            _exception(object_selector={"matchLabels": {"app.kubernetes.io/name": "demo-http"}}),
            BEFORE,
            None,
            True,
            id="label selector",
        ),
        pytest.param(
            _exception(object_selector={"matchLabels": {"legacy": "true"}}),
            BEFORE,
            None,
            False,
            id="label selector not met",
        ),
        pytest.param(_exception(writers=frozenset({"git"})), BEFORE, None, True, id="writer"),
        pytest.param(
            _exception(writers=frozenset({"tenant"})), BEFORE, None, False, id="other writer"
        ),
        pytest.param(
            _exception(clusters=frozenset({"cluster-b"})),
            BEFORE,
            None,
            False,
            id="clusters: not the write at admission",
        ),
        pytest.param(
            _exception(clusters=frozenset({"cluster-b"})),
            BEFORE,
            "cluster-b",
            True,
            id="clusters: that member's copy",
        ),
        pytest.param(
            _exception(clusters=frozenset({"cluster-b"})),
            BEFORE,
            "cluster-a",
            False,
            id="clusters: another member's copy",
        ),
    ],
)
def test_what_an_exception_lifts(
    bundle: Bundle,
    exception: PolicyException,
    today: date | None,
    cluster: str | None,
    lifted: bool,
) -> None:
    decision = review(_request(LATEST), _with(bundle, exception), cluster=cluster, today=today)
    assert decision.allowed is lifted
    if lifted:
        assert decision.violations == ()
        assert decision.exceptions == (
            ExceptionUse(
                "legacy-demo",
                "image-tag",
                "2026-12-31",
                "platform@example.com",
                message=LATEST_MESSAGE,
            ),
        )
    else:
        assert [v.rule for v in decision.violations] == ["image-tag"]
        assert decision.exceptions == ()


def test_a_lifted_decision_says_so_everywhere(bundle: Bundle) -> None:
    decision = review(_request(LATEST), _with(bundle, _exception()), today=BEFORE)
    assert decision.as_json()["exceptions"] == [
        {
            "exception": "legacy-demo",
            "rule": "image-tag",
            "expires": "2026-12-31",
            "owner": "platform@example.com",
            "pointer": "",
            "message": LATEST_MESSAGE,
        }
    ]
    assert decision.warnings == (
        "exception legacy-demo (owner platform@example.com, expires 2026-12-31) lifts "
        f"image-tag: {LATEST_MESSAGE}",
    )
    assert decision.audit == (("exception", "legacy-demo lifted image-tag"),)


def test_an_expired_exception_says_why_the_rule_is_back(bundle: Bundle) -> None:
    decision = review(_request(LATEST), _with(bundle, _exception()), today=EXPIRES)
    assert not decision.allowed
    assert decision.warnings == (
        "exception legacy-demo expired on 2026-12-31: it no longer lifts image-tag",
    )


def test_the_bundles_day_is_used_when_review_is_given_none(bundle: Bundle) -> None:
    judged = replace(bundle, exceptions=(_exception(),), today=BEFORE)
    assert review(_request(LATEST), judged).allowed
    assert not review(_request(LATEST), judged, today=EXPIRES).allowed


def test_a_protected_rule_is_never_lifted_even_if_an_exception_names_it(bundle: Bundle) -> None:
    """The loader refuses such an exception; the engine does not rely on it."""
    forged = _exception(
        rules=frozenset({"ownership.field-owner"}), namespaces=frozenset({"platform-demo"})
    )
    decision = review(
        _request("deployment-replicas-by-argocd-denied"), _with(bundle, forged), today=BEFORE
    )
    assert not decision.allowed
    assert "ownership.field-owner" in {v.rule for v in decision.denials}
    assert decision.exceptions == ()


def test_nothing_a_writer_puts_on_the_object_becomes_an_exception(bundle: Bundle) -> None:
    """Exceptions come from the bundle only: an annotation or label naming one is just data."""
    body = json.loads((EXAMPLES / "requests" / f"{LATEST}.json").read_text())
    metadata = body["request"]["object"]["metadata"]
    metadata["annotations"]["fedgate.dev/exception"] = "legacy-demo"
    metadata["labels"]["fedgate.dev/exception"] = "legacy-demo"
    decision = review(parse_review(body), bundle, today=BEFORE)
    assert not decision.allowed
    assert decision.exceptions == ()


def test_break_glass_keeps_the_exceptions_it_met(bundle: Bundle) -> None:
    request = _request(LATEST, userInfo={"username": "oncall", "groups": ["fedgate:break-glass"]})
    decision = review(request, _with(bundle, _exception()), today=BEFORE)
    assert decision.allowed
    assert [u.rule for u in decision.exceptions] == ["image-tag"]
    assert "image-tag" not in {v.rule for v in decision.violations}  # the exception's, not a bypass
    assert any(w.startswith("exception legacy-demo") for w in decision.warnings)


def test_an_override_s_decision_lists_what_exceptions_lifted_on_member_copies(
    bundle: Bundle,
) -> None:
    """Git's override tags orders-db :latest on cluster-b; an exception for that copy lets it
    through, and the override's own decision says so."""
    latest = {"component": "Tag", "operator": "replace", "value": "latest"}
    on_b = {"targetCluster": {"clusterNames": ["cluster-b"]}}
    selector = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "orders-db"}
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "orders-db-latest", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": [selector],
            "overrideRules": [{**on_b, "overriders": {"imageOverrider": [latest]}}],
        },
    }
    request = sync_request(override, None, bundle)
    assert "image-tag" in {v.rule for v in review(request, bundle, today=BEFORE).violations}
    excepted = _with(
        bundle, _exception(names=frozenset({"orders-db"}), clusters=frozenset({"cluster-b"}))
    )
    decision = review(request, excepted, today=BEFORE)
    assert "image-tag" not in {v.rule for v in decision.violations}
    assert [(u.exception, u.rule) for u in decision.exceptions] == [("legacy-demo", "image-tag")]
