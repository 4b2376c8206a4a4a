"""One engine, four enforcement points: a staged rule takes its binding's action at the point the
shell names, and its violation says what it does once enforced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import POLICIES
from tests.webhook.engine.staged import LATEST, staged_policies
from webhook.base.errors import BundleError
from webhook.bundle.export import export
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.enforcement import Point, strongest, weaker
from webhook.engine.request import AdmissionRequest, parse_review
from webhook.engine.review import review
from webhook.suites import load_suite, run_case

MESSAGE = (
    "image registry.example.com/platform/demo-http:latest is not pinned: give it a tag other "
    "than latest, or a digest"
)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    return load_bundle(staged_policies(tmp_path_factory.mktemp("staged")))


@pytest.fixture(scope="module")
def latest() -> AdmissionRequest:
    return parse_review(json.loads(LATEST.read_text()), require_uid=False)


@pytest.mark.parametrize(
    ("point", "allowed", "action", "enforced", "warnings", "audit"),
    [
        pytest.param(
            "webhook",
            True,
            "audit",
            "deny",
            (),
            (("image-tag", f"{MESSAGE} (staged: deny once enforced)"),),
            id="webhook-audits",
        ),
        pytest.param(
            "check",
            True,
            "warn",
            "deny",
            (f"image-tag: {MESSAGE} (staged: deny once enforced)",),
            (),
            id="check-warns",
        ),
        pytest.param("plan", False, "deny", None, (), (), id="plan-denies"),
        pytest.param("audit", False, "deny", None, (), (), id="audit-denies"),
    ],
)
def test_the_point_chooses_the_action(  # noqa: PLR0917 - one table row
    staged: Bundle,
    latest: AdmissionRequest,
    point: Point,
    allowed: bool,
    action: str,
    enforced: str | None,
    warnings: tuple[str, ...],
    audit: tuple[tuple[str, str], ...],
) -> None:
    decision = review(latest, staged, point=point)
    [violation] = decision.violations
    assert (decision.allowed, violation.action, violation.enforced) == (allowed, action, enforced)
    assert (decision.warnings, decision.audit) == (warnings, audit)
    assert violation.status == ("warn" if action == "warn" else "fail")


def test_the_decision_json_says_what_a_staged_rule_does_once_enforced(
    staged: Bundle, bundle: Bundle, latest: AdmissionRequest
) -> None:
    [staged_json] = review(latest, staged, point="webhook").as_json()["violations"]
    assert (staged_json["action"], staged_json["enforced"]) == ("audit", "deny")
    [plain_json] = review(latest, bundle, point="check").as_json()["violations"]
    assert "enforced" not in plain_json  # an enforced rule's JSON is what it always was


@pytest.mark.parametrize("point", ["webhook", "check", "plan", "audit"])
def test_a_plain_action_is_the_same_at_every_point(
    bundle: Bundle, latest: AdmissionRequest, point: Point
) -> None:
    assert review(latest, bundle, point=point) == review(latest, bundle)


def test_break_glass_keeps_the_staged_note(staged: Bundle) -> None:
    document = json.loads(LATEST.read_text())
    document["request"]["userInfo"] = {"username": "oncall", "groups": ["fedgate:break-glass"]}
    decision = review(parse_review(document, require_uid=False), staged, point="check")
    assert decision.allowed
    assert f"image-tag: {MESSAGE} (staged: deny once enforced)" in decision.warnings


def test_the_vap_export_carries_the_webhooks_action(staged: Bundle, bundle: Bundle) -> None:
    """The policy runs in the API server in the webhook's place: Kubernetes' Audit there."""

    def actions(of: Bundle) -> list[str]:
        [binding] = [
            o
            for o in export(of).objects
            if o["kind"] == "ValidatingAdmissionPolicyBinding"
            and o["metadata"]["name"] == "image-tag"
        ]
        return list(binding["spec"]["validationActions"])

    assert (actions(staged), actions(bundle)) == (["Audit"], ["Deny"])


@pytest.mark.parametrize(
    ("actions", "expected"),
    [
        pytest.param(("audit", "warn"), "warn", id="warn-over-audit"),
        pytest.param(("warn", "deny", "audit"), "deny", id="deny-over-all"),
        pytest.param((), "audit", id="none"),
    ],
)
def test_strongest(actions: tuple[str, ...], expected: str) -> None:
    assert strongest(actions) == expected  # type: ignore[arg-type]
    assert not weaker(expected, expected)  # type: ignore[arg-type]


def test_a_staged_rules_own_suite_judges_it_as_enforced(staged: Bundle) -> None:
    """Staging a rule does not break its tests: a case names a point to test the rollout."""
    cases = load_suite(POLICIES / "rules" / "image-tag" / "tests.yaml")
    assert [r.problems for r in (run_case(c, staged) for c in cases) if r.problems] == []


def test_a_suite_case_can_name_its_point(staged: Bundle, tmp_path: Path) -> None:
    suite = tmp_path / "tests.yaml"
    cases = [
        {"name": f"at {point}", "point": point, "expect": expect}
        for point, expect in (
            ("webhook", {"allowed": True, "rules": ["image-tag"]}),
            ("check", {"allowed": True, "warnings": ["staged: deny once enforced"]}),
            ("plan", {"allowed": False, "rules": ["image-tag"]}),
        )
    ]
    for case in cases:
        case["request"] = str(LATEST)
    suite.write_text(json.dumps({"cases": cases}))
    results = [run_case(c, staged) for c in load_suite(suite)]
    assert [(r.case.point, r.problems) for r in results] == [
        ("webhook", ()),
        ("check", ()),
        ("plan", ()),
    ]


def test_an_unknown_point_in_a_suite_is_named(tmp_path: Path) -> None:
    suite = tmp_path / "tests.yaml"
    suite.write_text(
        f"cases:\n  - name: x\n    request: {LATEST}\n    point: gator\n"
        "    expect: {allowed: true}\n"
    )
    with pytest.raises(BundleError) as raised:
        load_suite(suite)
    assert f"{suite}:4: cases[0].point: 'gator' is not one of webhook, check, plan, audit" in str(
        raised.value
    )
