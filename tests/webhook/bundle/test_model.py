"""The bundle's per-bundle memo: computed once per key, never carried into a changed bundle."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from webhook.bundle.model import MEMO_ENTRY_BYTES, MEMO_TABLE_BYTES, Bundle
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request


def test_memo_computes_once_per_key(bundle: Bundle) -> None:
    calls: list[str] = []
    fresh = replace(bundle)

    def upper(key: str) -> str:
        calls.append(key)
        return key.upper()

    answers = [fresh.memo("test", key, partial(upper, key)) for key in ("a", "b", "a", "a")]
    assert (answers, calls) == (["A", "B", "A", "A"], ["a", "b"])


def test_memo_is_bounded_in_bytes(bundle: Bundle) -> None:
    """Keys come from requests: many distinct large ones never hold more than the budget."""
    fresh = replace(bundle)
    for index in range(400):
        key = (f"{index:08d}" + "x" * 100_000, "alice")
        assert fresh.memo("bounded", key, partial(len, key[0])) == 100_008
        assert fresh._memo["bounded"].used <= MEMO_TABLE_BYTES
    huge = "y" * MEMO_ENTRY_BYTES
    assert fresh.memo("bounded", huge, partial(len, huge)) == MEMO_ENTRY_BYTES
    assert huge not in fresh._memo["bounded"]._values  # computed, not kept


def test_a_changed_bundle_does_not_reuse_the_old_one_s_answers(bundle: Bundle) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "platform-demo"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:latest"}]}}},
    }
    request = sync_request(deployment, None, bundle)
    assert not review(request, bundle).allowed  # memoizes the rules this request meets
    without_rules = replace(bundle, rules=(), _rules_by_kind={})
    assert review(request, without_rules).allowed
