"""A binding's action: one for every enforcement point, or one per point (Gatekeeper's shape)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.schema import Checker
from webhook.base.yamlsource import Document, parse_single
from webhook.bundle.load_actions import binding_actions
from webhook.bundle.rules import Match, Rule
from webhook.engine.enforcement import POINTS

FILE = "policies/rules/image-tag/binding.yaml"


def _read(text: str) -> tuple[tuple[str, dict[str, str]], list[str]]:
    """(action, every point's action) and the rendered findings."""
    checker = Checker(parse_single(text, FILE))
    action, scoped = binding_actions(checker)
    rule = Rule("r", "", action, Match(frozenset()), scoped_actions=scoped)
    return (action, {p: rule.action_at(p) for p in POINTS}), [f.render() for f in checker.findings]


EVERYWHERE = {p: "deny" for p in POINTS}


@pytest.mark.parametrize(
    ("text", "action", "at"),
    [
        pytest.param("action: warn\n", "warn", {p: "warn" for p in POINTS}, id="plain-string"),
        pytest.param("{}\n", "deny", EVERYWHERE, id="absent-is-deny"),
        pytest.param(
            "action: scoped\n"
            "scopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: check}]\n"
            "  - action: audit\n"
            "    enforcementPoints: [{name: webhook}]\n"
            "  - action: deny\n"
            "    enforcementPoints: [{name: '*'}]\n",
            "deny",
            {"webhook": "audit", "check": "warn", "plan": "deny", "audit": "deny"},
            id="rollout-step",
        ),
        pytest.param(
            "action: scoped\n"
            "scopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: check}, {name: plan}, {name: webhook}]\n"
            "  - action: audit\n"
            "    enforcementPoints: [{name: audit}]\n",
            "warn",
            {"webhook": "warn", "check": "warn", "plan": "warn", "audit": "audit"},
            id="every-point-named-strongest-is-warn",
        ),
        pytest.param(
            "action: scoped\n"
            "scopedEnforcementActions:\n"
            "  - {action: audit, enforcementPoints: [{name: '*'}]}\n",
            "audit",
            {p: "audit" for p in POINTS},
            id="star-alone",
        ),
    ],
)
def test_binding_shapes(text: str, action: str, at: dict[str, str]) -> None:
    assert _read(text) == ((action, at), [])


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        pytest.param(
            "action: block\n",
            [f"{FILE}:1: action: 'block' is not one of deny, warn, audit, scoped"],
            id="unknown-action",
        ),
        pytest.param(
            "action: scoped\n",
            [
                f"{FILE}:1: action: action: scoped needs scopedEnforcementActions, a non-empty "
                "list of {action, enforcementPoints: [{name: webhook | check | plan | audit | "
                "'*'}]}"
            ],
            id="scoped-without-list",
        ),
        pytest.param(
            "action: deny\nscopedEnforcementActions:\n"
            "  - {action: warn, enforcementPoints: [{name: check}]}\n",
            [
                f"{FILE}:2: scopedEnforcementActions: is read only with action: scoped (as "
                "Gatekeeper's enforcementAction: scoped); set action: scoped or remove "
                "scopedEnforcementActions"
            ],
            id="list-without-scoped",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: check}]\n",
            [
                f"{FILE}:2: scopedEnforcementActions: no action for webhook, plan, audit: name "
                "them in an entry's enforcementPoints, or add an entry for every other point "
                "(name: '*')"
            ],
            id="point-left-without-action",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: validation.gatekeeper.sh}]\n"
            "  - action: deny\n"
            "    enforcementPoints: [{name: '*'}]\n",
            [
                f"{FILE}:4: scopedEnforcementActions[0].enforcementPoints[0].name: "
                "'validation.gatekeeper.sh' is Gatekeeper's; fedgate calls it webhook (the "
                "points are webhook, check, plan, audit, or '*' for every other one)"
            ],
            id="gatekeeper-point-name",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: pre-commit}]\n"
            "  - action: deny\n"
            "    enforcementPoints: [{name: '*'}]\n",
            [
                f"{FILE}:4: scopedEnforcementActions[0].enforcementPoints[0].name: unknown "
                "enforcement point 'pre-commit': the points are webhook, check, plan, audit, "
                "or '*' for every other one"
            ],
            id="unknown-point",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n"
            "  - action: warn\n"
            "    enforcementPoints: [{name: check}]\n"
            "  - action: deny\n"
            "    enforcementPoints: [{name: check}, {name: '*'}]\n",
            [
                f"{FILE}:6: scopedEnforcementActions[1].enforcementPoints[0].name: check "
                "already has an action (scopedEnforcementActions[0]): one action a point"
            ],
            id="point-named-twice",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n"
            "  - action: block\n"
            "    enforcementPoints: [check]\n",
            [
                f"{FILE}:3: scopedEnforcementActions[0].action: 'block' is not one of deny, "
                "warn, audit",
                f"{FILE}:4: scopedEnforcementActions[0].enforcementPoints[0]: must be a mapping "
                "{name: POINT}, as Gatekeeper's",
            ],
            id="entry-action-and-bare-point",
        ),
        pytest.param(
            "action: scoped\nscopedEnforcementActions:\n  - {action: warn, points: [check]}\n",
            [
                f"{FILE}:3: scopedEnforcementActions[0].points: unknown key 'points'; known keys: "
                "action, enforcementPoints",
                f"{FILE}:3: scopedEnforcementActions[0]: enforcementPoints is required",
            ],
            id="entry-typo",
        ),
    ],
)
def test_binding_errors_name_file_line_and_field(text: str, errors: list[str]) -> None:
    assert _read(text)[1] == errors


@pytest.mark.parametrize(
    ("at", "staged"),
    [
        pytest.param({"check": "warn"}, {"check": "deny"}, id="warn-in-check"),
        pytest.param(
            {"check": "warn", "webhook": "audit"},
            {"check": "deny", "webhook": "deny"},
            id="two-steps",
        ),
        pytest.param({}, {}, id="enforced-everywhere"),
    ],
)
def test_a_rule_is_staged_where_its_action_is_weaker_than_its_strongest(
    at: dict[str, str], staged: dict[str, str]
) -> None:
    scoped = tuple((p, at.get(p, "deny")) for p in POINTS)
    rule = Rule("r", "", "deny", Match(frozenset()), scoped_actions=scoped)  # type: ignore[arg-type]
    assert rule.enforced == "deny"
    assert {p: a for p in POINTS if (a := rule.staged_at(p))} == staged


NAMES = st.sampled_from([*POINTS, "*", "validation.gatekeeper.sh", "x", ""])
ACTION_VALUES = st.sampled_from(["deny", "warn", "audit", "scoped", "dryrun", ""]) | st.none()
ENTRY = st.fixed_dictionaries(
    {},
    optional={
        "action": ACTION_VALUES | st.integers(),
        "enforcementPoints": st.lists(
            st.fixed_dictionaries({"name": NAMES}) | NAMES | st.none(), max_size=4
        )
        | st.none()
        | NAMES,
        "extra": st.booleans(),
    },
)
BINDING = st.fixed_dictionaries(
    {},
    optional={
        "action": ACTION_VALUES | st.lists(NAMES, max_size=2),
        "scopedEnforcementActions": st.lists(ENTRY, max_size=4) | ENTRY | NAMES | st.none(),
    },
)


@given(BINDING)
def test_any_binding_gives_every_point_an_action_or_says_why_not(data: dict[str, object]) -> None:
    checker = Checker(Document(FILE, data, {}))
    action, scoped = binding_actions(checker)
    assert action in ("deny", "warn", "audit")
    if checker.findings:
        assert scoped == ()
        assert all(f.render().startswith(f"{FILE}:") for f in checker.findings)
    elif scoped:
        assert [p for p, _ in scoped] == list(POINTS)
        assert action == max((a for _, a in scoped), key=["audit", "warn", "deny"].index)
