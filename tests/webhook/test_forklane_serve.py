"""Large bodies judged in forked children inside the real `fedgate serve` (gunicorn, TLS,
127.0.0.1): the worker's memory stays where it started, no child is left behind, and the
answers are the worker's own (``FEDGATE_HEAVY_CHILDREN=0`` reviews them on its thread)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.webhook_heavy import heavy_override_document as heavy_override
from tests.conftest import POLICIES
from tests.webhook.load import children as _children
from tests.webhook.load import rss_mib as _rss_mib
from tests.webhook.load import small as _small
from tests.webhook.server import serving

pytestmark = pytest.mark.slow  # starts fedgate serve


def test_twenty_large_reviews_leave_the_worker_where_it_started(tmp_path: Path) -> None:
    """A large review's heap is the child's, returned to the system when it exits: before,
    the worker parsed every 2.5 MiB body itself and kept what its heap grew to."""
    heavy = json.dumps(heavy_override("heavy", overriders=20_000)).encode()
    with serving(tmp_path, POLICIES, workers=1, env={"FEDGATE_REVIEW_SECONDS": "20"}) as server:
        (worker,) = server.workers()
        server.review(_small("warm"))
        status, first = server.request("POST", "/validate", heavy)
        assert status == 200 and isinstance(first, dict)
        time.sleep(1.5)  # the heap trim after a large body runs at most once a second
        start = _rss_mib(worker)
        answers = [server.request("POST", "/validate", heavy) for _ in range(20)]
        time.sleep(1.5)
        after = _rss_mib(worker)
        assert _children(worker) == []
    assert all(answer == (status, first) for answer in answers)
    assert after - start < 16, (start, after)


def test_large_answers_are_the_same_with_and_without_children(tmp_path: Path) -> None:
    bodies = [heavy_override("plaintext", overriders=4_000), heavy_override("image", 4_000)]
    rule = bodies[1]["request"]["object"]["spec"]["overrideRules"][0]
    rule["overriders"]["imageOverrider"] = [
        {"component": "Registry", "operator": "replace", "value": "docker.io"}
    ]
    answers = {}
    for children in ("1", "0"):
        env = {"FEDGATE_HEAVY_CHILDREN": children, "FEDGATE_REVIEW_SECONDS": "20"}
        (tmp_path / children).mkdir()
        with serving(tmp_path / children, POLICIES, workers=1, env=env) as server:
            with ThreadPoolExecutor(4) as pool:
                answers[children] = list(pool.map(server.review, bodies))
            lines = [json.loads(x) for x in server.output().splitlines() if x.startswith("{")]
        assert sorted(line["uid"] for line in lines) == ["image", "plaintext"]
    assert answers["1"] == answers["0"]
    assert [status for status, _ in answers["1"]] == [200, 200]
