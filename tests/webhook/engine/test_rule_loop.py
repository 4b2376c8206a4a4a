"""The review's rule-loop shortcuts against the paths they skip: the same Decision, whatever comes.

- ``review._violations`` builds the CEL activations (and runs the CEL fast paths) only when a
  CEL rule can be among the matched ones: the "applicable-rules" memo says whether any is, and
  a write judged on its own fields, Karmada's scale-target marker or a conflict-resolution
  annotation keeps built-in rules alone. ``generator_loop`` below is the loop before that,
  kept here as the slow path: the activations and the fast paths on every review.
- ``ownership._handover`` asks whether the write changes the ledger by identity first (one
  text parses to one ``Ledger``) before ``==``, which copies both into dicts;
  ``handover_by_equality`` is the slow path.

Both run on the same requests (``turned``'s examples), with the shipped
bundle, its built-in rules alone, its CEL rules alone or no rules at all, and with one rule
broken in the ways a check can break (yielding a violation and then raising, raising at once).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES
from tests.webhook.engine.turned import requests
from webhook.base.ledger import ANNOTATION, ANNOTATION_POINTER, Ledger, owner_of
from webhook.bundle.model import Bundle
from webhook.bundle.rules import Rule
from webhook.engine import celrules, ownership, retain
from webhook.engine import review as review_module
from webhook.engine.budget import BudgetExceeded
from webhook.engine.budget import current as current_budget
from webhook.engine.builtins import BUILTINS
from webhook.engine.context import Review
from webhook.engine.decision import Decision, Violation
from webhook.engine.ownfields import own_fields_only
from webhook.engine.registration import ANNOTATION_RULES, annotation_only
from webhook.engine.request import parse_review
from webhook.engine.review import MARKER_RULES, WRITER_RULES, review


def generator_loop(context: Review, faults: list[str]) -> Iterator[Violation]:
    """The rule loop as it was: the CEL activations and fast paths on every review."""
    bundle = context.bundle
    request = context.request
    runtime = bundle.cel_runtime
    activations = celrules.Activations(context, runtime) if runtime is not None else None
    matched = [
        rule
        for rule, always in review_module._applicable(bundle, request, context.tenant is not None)[
            0
        ]
        if always or rule.match.selects(request)
    ]
    if own_fields_only(request, context.identity):
        matched = [r for r in matched if r.builtin in WRITER_RULES]
    elif retain.marks_scale_target(context):
        matched = [r for r in matched if r.builtin in MARKER_RULES]
    if annotation_only(request, context.point):
        matched = [r for r in matched if r.builtin in ANNOTATION_RULES]
    refused: dict[str, str] = {}
    passed: set[str] = set()
    budget = current_budget()
    if activations is not None and runtime is not None:
        try:
            refused, passed = review_module._fast_paths(matched, activations, runtime)
        except BudgetExceeded:
            raise
        except Exception as exc:
            refused, passed = {}, set()
            faults.append(f"fast-path: {type(exc).__name__}: {exc}"[:300])
    for rule in matched:
        if rule.id in passed:
            continue
        if budget is not None:
            budget.check()
        try:
            if rule.id in refused:
                yield celrules.refused(context, rule, refused[rule.id])
            elif rule.builtin is not None:
                yield from BUILTINS[rule.builtin][0](context, rule)
            elif activations is not None and runtime is not None:
                yield from celrules.evaluate(
                    context, rule, bundle.compiled[rule.id], runtime.backend, activations
                )
        except BudgetExceeded:
            raise
        except Exception as exc:
            yield review_module._internal_error(context, rule, exc)


def handover_by_equality(review: Review, ledger: Mapping[str, str]) -> Mapping[str, str] | None:
    """``ownership._handover`` as it was: ``==`` alone, and the owner looked up first."""
    new_ledger = review.new_ledger
    found = owner_of(ANNOTATION_POINTER, ledger)
    if new_ledger is None or new_ledger == ledger or found is None:
        return None
    return new_ledger if ownership.may_write(review, found[0]) else None


def yields_then_breaks(context: Review, rule: Rule) -> Iterator[Violation]:
    yield context.violation(rule, "said before breaking")
    raise ValueError("broke after one violation")


def breaks_at_once(context: Review, rule: Rule) -> Iterator[Violation]:
    raise RuntimeError("broke at once")


BREAKAGES = ["none", "yields-then-breaks", "breaks-at-once"]
BROKEN_RULES = ["tenancy.conflict-overwrite", "ownership.field-owner", "tenancy.placement-scope"]
RULE_SETS = ["all", "built-in", "cel", "none"]


def _judged(bundle: Bundle, rule_set: str) -> Bundle:
    """A copy of ``bundle`` holding ``rule_set``'s rules, without memos (``replace`` copies
    none)."""
    keep = {
        "all": lambda r: True,
        "built-in": lambda r: r.builtin is not None,
        "cel": lambda r: r.builtin is None,
        "none": lambda r: False,
    }[rule_set]
    return replace(bundle, rules=tuple(r for r in bundle.rules if keep(r)), _rules_by_kind={})


@st.composite
def ledger_writes(draw: st.DrawFn) -> dict[str, Any]:
    """``turned``'s requests, the new object's ledger sometimes handing a field over
    (an entry removed or given to another owner) in the same write: what ``_handover`` is
    asked about."""
    document = draw(requests())
    new = document["request"].get("object")
    annotations = (new or {}).get("metadata", {}).get("annotations")
    text = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if isinstance(text, str) and draw(st.booleans()):
        assert isinstance(annotations, dict)
        owners = json.loads(text)
        pointer = draw(st.sampled_from(sorted({*owners, "/spec/replicas", "/spec"})))
        if draw(st.booleans()):
            owners.pop(pointer, None)
        else:
            owners[pointer] = draw(st.sampled_from(["git", "federated-hpa", "platform"]))
        annotations[ANNOTATION] = json.dumps(owners)
    return document


def _decide(bundle: Bundle, document: dict[str, Any]) -> Decision | str:
    try:
        return review(parse_review(copy.deepcopy(document)), bundle)
    except Exception as exc:  # the same refusal, if any
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=ledger_writes(),
    rule_set=st.sampled_from(RULE_SETS),
    rule_id=st.sampled_from(BROKEN_RULES),
    breakage=st.sampled_from(BREAKAGES),
)
def test_the_shortcuts_decide_as_the_paths_they_skip(
    bundle: Bundle, document: dict[str, Any], rule_set: str, rule_id: str, breakage: str
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        if breakage != "none":
            check = yields_then_breaks if breakage == "yields-then-breaks" else breaks_at_once
            patch.setitem(BUILTINS, rule_id, (check, BUILTINS[rule_id][1]))
        fast = _decide(_judged(bundle, rule_set), document)
        patch.setattr(review_module, "_violations", lambda c, f: list(generator_loop(c, f)))
        patch.setattr(ownership, "_handover", handover_by_equality)
        slow = _decide(_judged(bundle, rule_set), document)
    assert fast == slow


@settings(max_examples=100, deadline=None)
@given(
    owners=st.dictionaries(
        st.sampled_from(["", "/spec", "/spec/replicas", "/metadata/labels/a", ANNOTATION_POINTER]),
        st.sampled_from(["git", "karmada", "platform", "member-hpa"]),
    )
)
def test_a_ledger_equals_itself_as_a_mapping(owners: dict[str, str]) -> None:
    """What the identity test in ``_handover`` stands in for: ``==`` of a ledger and itself."""
    ledger = Ledger(owners)
    assert ledger == ledger  # noqa: PLR0124
    assert ledger == Ledger(dict(owners))


def test_a_broken_rule_keeps_what_it_said_and_fails_closed(
    bundle: Bundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a check yielded before it broke stands beside the error that denies the request."""
    rule_id = "tenancy.conflict-overwrite"
    monkeypatch.setitem(BUILTINS, rule_id, (yields_then_breaks, BUILTINS[rule_id][1]))
    judged = _judged(bundle, "all")
    document = {
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": "u",
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "operation": "CREATE",
            "namespace": "team-a",
            "name": "c",
            "userInfo": {"username": "alice@example.com", "groups": ["team-a"]},
            "object": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "team-a"},
            },
        },
    }
    decision = review(parse_review(document), judged)
    mine = [v for v in decision.violations if v.rule == rule_id]
    assert not decision.allowed
    assert sorted(v.status for v in mine) == ["error", "fail"]


def test_a_handover_in_the_write_is_judged_as_by_equality(bundle: Bundle) -> None:
    """Argo CD changing the replicas in the very write whose ledger takes them back from the
    FederatedHPA: allowed through the handover, on both paths."""
    document = json.loads(
        (EXAMPLES / "requests" / "deployment-replicas-by-argocd-denied.json").read_text()
    )
    annotations = document["request"]["object"]["metadata"]["annotations"]
    owners = json.loads(annotations[ANNOTATION])
    owners.pop("/spec/replicas")
    annotations[ANNOTATION] = json.dumps(owners)
    fast = _decide(_judged(bundle, "all"), document)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ownership, "_handover", handover_by_equality)
        slow = _decide(_judged(bundle, "all"), document)
    assert isinstance(fast, Decision)
    assert fast.allowed
    assert fast == slow
