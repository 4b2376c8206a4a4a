"""The control plane's own writers (Karmada's components, kube-controller-manager) as
AdmissionReviews in this folder: what each writes as its job passes, what is no component's job
is denied; through review() and through the live webhook (real gunicorn, real TLS, 127.0.0.1).
On 8a7614c every lock-out here was denied and every component's write outside its job allowed;
the guards (tests.yaml says which) held there too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import POLICIES
from tests.webhook.server import Server, assert_answers_as_expected, serving
from webhook.bundle.model import Bundle
from webhook.suites import Case, load_suite, run_case

HERE = Path(__file__).resolve().parent
CASES = load_suite(HERE / "tests.yaml")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("controlplane"), POLICIES) as running:
        yield running


def test_every_request_file_is_a_case() -> None:
    assert {p.name for p in HERE.glob("*.json")} == {f"{c.name}.json" for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_review(case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_through_the_webhook(server: Server, case: Case) -> None:
    assert_answers_as_expected(server, case)
