"""An adversarial review's attacks on the webhook (the ledger, the status subresource, requests
the API server never sends, the targets, the kinds), each an AdmissionReview in this folder:
through review() and through the live webhook (real gunicorn, real TLS, 127.0.0.1). On the
main branch before the first change 22 of the first 25 cases got the opposite decision and one
a different set of rules; of the 33 cases "Cover the kinds" added, all 28 findings fail on
806f5b7 (its code and bundle) and the 5 guards pass there too (tests.yaml says which)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import POLICIES
from tests.webhook.server import Server, assert_answers_as_expected, serving
from webhook.base.errors import RequestError
from webhook.bundle.model import Bundle
from webhook.suites import Case, load_suite, run_case

HERE = Path(__file__).resolve().parent
CASES = load_suite(HERE / "tests.yaml")
DUPLICATE = HERE / "duplicate-username.json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("attacks"), POLICIES) as running:
        yield running


def test_every_request_file_is_a_case() -> None:
    files = {p.name for p in HERE.glob("*.json")} - {DUPLICATE.name}
    assert files == {f"{c.name}.json" for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_review(case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_the_webhook(server: Server, case: Case) -> None:
    assert_answers_as_expected(server, case)


def test_a_repeated_key_is_refused_offline() -> None:
    """`fedgate review` reads JSON with orjson semantics (the last key wins): it refuses."""
    from compiler.commands.review import read_review  # noqa: PLC0415 - the CLI's reader

    with pytest.raises(
        RequestError,
        match=r"duplicate-username.json:21: request.userInfo.username: duplicate key "
        r"\(a key given twice is refused\)",
    ):
        read_review(str(DUPLICATE))


@pytest.mark.slow
def test_a_repeated_key_is_denied_by_the_webhook(server: Server) -> None:
    """The second username is git's: judged as the last key, the UPDATE was allowed."""
    status, body = server.request("POST", "/validate", DUPLICATE.read_bytes())
    assert status == 200 and isinstance(body, dict), body
    assert body["response"]["allowed"] is False
    assert "gives the same key twice" in body["response"]["status"]["message"]
    assert body["response"]["uid"] == json.loads(DUPLICATE.read_text())["request"]["uid"]
