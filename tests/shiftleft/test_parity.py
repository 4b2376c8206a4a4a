"""Parity: the check path (the request fedgate check builds) and the webhook path (the request
the API server sends, over HTTPS to fedgate serve) give every example the same Decision."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.server import Server, serving
from webhook.bundle.model import Bundle
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.shell.response import review_response

pytestmark = pytest.mark.slow  # starts fedgate serve

REQUESTS = sorted((EXAMPLES / "requests").glob("*.json"))
WRITES = [p for p in REQUESTS if not json.loads(p.read_text())["request"].get("subResource")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("parity"), POLICIES, workers=1) as running:
        yield running


def test_subresource_requests_are_the_only_ones_left_out() -> None:
    """A scale request carries a Scale, not a manifest: no git write becomes one."""
    left_out = {p.name for p in REQUESTS} - {p.name for p in WRITES}
    assert left_out == {"scale-by-federatedhpa-allowed.json", "scale-by-tenant-denied.json"}


@pytest.mark.parametrize("path", WRITES, ids=[p.stem for p in WRITES])
def test_check_path_and_webhook_path_agree(path: Path, server: Server, bundle: Bundle) -> None:
    document: dict[str, Any] = json.loads(path.read_text())
    sent = document["request"]
    built = sync_request(sent.get("object"), sent.get("oldObject"), bundle, user=sent["userInfo"])
    assert (built.operation, built.kind, built.resource, built.namespace, built.name) == (
        sent["operation"],
        built.kind.__class__(**sent["kind"]),
        sent["resource"]["resource"],
        sent.get("namespace", ""),
        sent.get("name", ""),
    )
    decision = review(built, bundle)
    status, answer = server.review(document)
    assert status == 200 and isinstance(answer, dict)
    expected = review_response(sent["uid"], decision)["response"]
    assert answer["response"] == expected
