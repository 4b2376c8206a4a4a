"""A review past its budget stops, and its thread is free again: the engine checks the budget
the shell gives it per rule, per overrider, per member copy and inside CEL evaluation, and
raises ``BudgetExceeded`` (never a rule's result). Most tests count checks with a fake
clock; one measures the thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.webhook.engine.custom_rules import HOSTILE_RULE, MATCH, bundle_with, hostile
from webhook.bundle.model import Bundle
from webhook.engine.budget import Budget, BudgetExceeded, spending
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.karmada.overriders import apply_overriders
from webhook.shell.app import OVERTIME, create_app
from webhook.shell.asgi import DEADLINE, Deadline
from webhook.shell.settings import Settings


@pytest.fixture(scope="module", params=["cel-python", "cel-expr"])
def hostile_bundle(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Bundle:
    return bundle_with(
        tmp_path_factory.mktemp("budget"), HOSTILE_RULE, f"action: deny\n{MATCH}", request.param
    )


def after(checks: int) -> Callable[[], bool]:
    """A fake clock's deadline: passed once ``checks`` checks were made."""
    counter = iter(range(10**9))
    return lambda: next(counter) >= checks


def test_every_rule_is_a_check_and_an_unspent_budget_changes_nothing(
    hostile_bundle: Bundle,
) -> None:
    request = sync_request(hostile(3), None, hostile_bundle)
    budget = Budget(lambda: False)
    decision = review(request, hostile_bundle, budget=budget)
    assert decision == review(request, hostile_bundle)
    assert [v.rule for v in decision.violations] == []
    assert budget.checks > 3  # the review, each rule, each CEL evaluation


def test_a_spent_budget_stops_the_review_before_any_rule(hostile_bundle: Bundle) -> None:
    budget = Budget(lambda: True, "spent")
    with pytest.raises(BudgetExceeded, match="spent"):
        review(sync_request(hostile(3), None, hostile_bundle), hostile_bundle, budget=budget)
    assert budget.checks == 1


def test_cel_python_checks_the_budget_at_each_iteration(tmp_path: Path) -> None:
    bundle = bundle_with(tmp_path, HOSTILE_RULE, f"action: deny\n{MATCH}", "cel-python")
    request = sync_request(hostile(50), None, bundle)
    unspent = Budget(lambda: False)
    review(request, bundle, budget=unspent)
    assert unspent.checks >= 50  # one per item at least
    budget = Budget(after(unspent.checks - 10))
    with pytest.raises(BudgetExceeded):
        review(request, bundle, budget=budget)
    assert budget.spent and budget.checks == unspent.checks - 9


def test_each_overrider_is_a_check() -> None:
    overriders = {
        "labelsOverrider": [{"operator": "add", "value": {f"k{i}": "v"}} for i in range(100)],
        "plaintext": [
            {"path": f"/metadata/labels/p{i}", "operator": "add", "value": "x"} for i in range(100)
        ],
    }
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {}}}
    unspent = Budget(lambda: False)
    with spending(unspent):
        apply_overriders(obj, overriders)
    assert unspent.checks >= 200  # each overrider (a labels overrider is also a patch)
    budget = Budget(after(150))
    with spending(budget), pytest.raises(BudgetExceeded):
        apply_overriders(obj, overriders)
    assert budget.checks == 151


def test_a_budget_is_in_force_only_for_its_review(hostile_bundle: Bundle) -> None:
    request = sync_request(hostile(3), None, hostile_bundle)
    with pytest.raises(BudgetExceeded):
        review(request, hostile_bundle, budget=Budget(lambda: True))
    assert review(request, hostile_bundle).allowed  # none left behind on this thread


def test_a_hostile_review_past_50_ms_frees_its_thread(tmp_path: Path) -> None:
    """About 25 s of CPU without a budget; with 50 ms it stops within a bound, and a small
    review on the same one-thread pool right after is not queued behind it. Bounds are loose
    (a shared 2-core machine): a thread held to the end would miss them by seconds."""
    bundle = bundle_with(tmp_path, HOSTILE_RULE, f"action: deny\n{MATCH}", "cel-python")
    one_item = sync_request(hostile(1), None, bundle)
    started = time.perf_counter()
    review(one_item, bundle)
    per_item = time.perf_counter() - started
    assert per_item * 5000 > 5.0  # what the hostile request would cost unbounded
    with ThreadPoolExecutor(1) as pool:
        started = time.perf_counter()
        deadline = started + 0.05
        budget = Budget(lambda: time.perf_counter() > deadline)
        heavy = pool.submit(
            review, sync_request(hostile(5000), None, bundle), bundle, budget=budget
        )
        with pytest.raises(BudgetExceeded):
            heavy.result(timeout=30)
        stopped = time.perf_counter() - started
        small = pool.submit(review, sync_request(hostile(0), None, bundle), bundle)
        assert small.result(timeout=30).allowed
        after_small = time.perf_counter() - started
    assert stopped < 2.0, stopped
    assert after_small < 4.0, after_small


def test_the_webhook_denies_a_review_past_its_deadline_and_stops_it(tmp_path: Path) -> None:
    bundle = bundle_with(tmp_path, HOSTILE_RULE, f"action: deny\n{MATCH}", "cel-python")
    app = create_app(bundle, Settings(audit_log=False))
    body = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {**sync_request(hostile(5000), None, bundle).raw, "uid": "hostile"},
    }
    started = time.monotonic()
    response = app.test_client().post(
        "/validate", json=body, environ_base={DEADLINE: Deadline(started, 0.05)}
    )
    elapsed = time.monotonic() - started
    answer = response.get_json()["response"]
    assert (answer["uid"], answer["allowed"]) == ("hostile", False)
    assert answer["status"]["message"] == OVERTIME
    assert elapsed < 5.0, elapsed  # the review stopped (25 s unbounded), not only its answer
