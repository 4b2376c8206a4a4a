"""Large bodies judged in a child forked from the worker: the same answer as the worker's own
review, killed at the deadline with no zombie left, at most N children, locks released."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES, POLICIES, ROOT
from webhook.base import forksafe
from webhook.bundle.load import load_bundle
from webhook.engine.request import parse_review
from webhook.shell import heavy
from webhook.shell.app import create_app, overtime_answer
from webhook.shell.asgi import WsgiOnAsgi
from webhook.shell.forklane import Emit, ForkLane
from webhook.shell.heavy import HeavyReview
from webhook.shell.settings import Settings

REQUESTS = EXAMPLES / "requests"
THRESHOLD = 16 * 1024
"""The heavy-body threshold of the differential tests: small enough that a request of a few
hundred overriders crosses it."""


def _gone(pid: int) -> bool:
    """Reaped: no child of ours, not even a zombie, has this id."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


async def _settled(lane: ForkLane) -> None:
    for _ in range(200):
        if not lane.running:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"children not reaped: {lane.running}")


def test_the_childs_result_and_its_early_message_come_back_and_it_is_reaped() -> None:
    lane = ForkLane(1)
    seen: list[int] = []

    def work(emit: Emit) -> dict[str, Any]:
        emit({"uid": "early"})
        return {"pid": os.getpid(), "sum": sum(range(1000))}

    async def main() -> None:
        outcome = await lane.run(work, time.monotonic() + 10)
        assert outcome.ended == "finished"
        assert outcome.early == {"uid": "early"}
        assert outcome.result is not None and outcome.result["sum"] == 499500
        seen.append(outcome.result["pid"])
        await _settled(lane)

    asyncio.run(main())
    assert seen[0] != os.getpid()
    assert _gone(seen[0])


def test_a_child_past_its_deadline_is_killed_and_reaped_with_its_early_message() -> None:
    lane = ForkLane(1)
    pids: list[int] = []

    def slow(emit: Emit) -> None:
        emit(os.getpid())
        time.sleep(30)  # a review that would not stop

    async def main() -> None:
        started = time.monotonic()
        outcome = await lane.run(slow, started + 0.3)
        assert outcome.ended == "killed"
        assert time.monotonic() - started < 2
        pids.append(outcome.early)
        await _settled(lane)

    asyncio.run(main())
    assert _gone(pids[0])


def test_a_child_that_dies_says_so() -> None:
    lane = ForkLane(1)

    def dies(emit: Emit) -> None:
        os._exit(3)

    async def main() -> None:
        outcome = await lane.run(dies, time.monotonic() + 10)
        assert outcome.ended == "died" and outcome.result is None
        await _settled(lane)

    asyncio.run(main())


def test_no_process_to_be_had_is_an_ending_without_a_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lane = ForkLane(1)

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    async def main() -> None:
        with monkeypatch.context() as patched:
            patched.setattr(os, "fork", refused)
            outcome = await lane.run(lambda emit: 1, time.monotonic() + 10)
        assert outcome.ended == "died"
        again = await lane.run(lambda emit: 2, time.monotonic() + 10)  # its slot was freed
        assert again.result == 2
        await _settled(lane)

    asyncio.run(main())


def test_at_most_n_children_run_and_the_others_wait_until_their_deadline() -> None:
    lane = ForkLane(2)
    most: list[int] = []

    def work(emit: Emit) -> int:
        time.sleep(0.3)
        return os.getpid()

    async def watch(stop: asyncio.Event) -> None:
        while not stop.is_set():
            most.append(len(lane.running))
            await asyncio.sleep(0.01)

    async def main() -> list[Any]:
        stop = asyncio.Event()
        watcher = asyncio.ensure_future(watch(stop))
        now = time.monotonic()
        outcomes = await asyncio.gather(
            lane.run(work, now + 10),
            lane.run(work, now + 10),
            lane.run(work, now + 10),  # waits for a free child, then runs
            lane.run(work, now + 0.1),  # waits past its deadline: never forked
        )
        await _settled(lane)
        stop.set()
        await watcher
        return list(outcomes)

    outcomes = asyncio.run(main())
    assert [o.ended for o in outcomes] == ["finished", "finished", "finished", "queued"]
    assert max(most) == 2


def test_a_review_lock_held_by_another_thread_at_the_fork_is_free_in_the_child() -> None:
    held = forksafe.lock()
    plain = threading.Lock()
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with held, plain:
            taken.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    taken.wait(10)

    def work(emit: Emit) -> tuple[bool, bool]:
        return held.acquire(timeout=1), plain.acquire(timeout=0.2)

    try:
        outcome = asyncio.run(ForkLane(1).run(work, time.monotonic() + 10))
    finally:
        release.set()
        thread.join()
    assert outcome.result == (True, False)  # a plain lock would have hung the review


REVIEW_PACKAGES = ("webhook/base", "webhook/bundle", "webhook/engine", "webhook/karmada")


def test_every_lock_on_the_reviews_path_is_released_in_a_forked_child() -> None:
    """A child forked at request time runs the review; a plain lock some thread held at the
    fork would hang it, so every lock in the review's packages comes from ``forksafe.lock``."""
    made = re.compile(r"threading\.(R?Lock|Condition|Semaphore|BoundedSemaphore)\(")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in REVIEW_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "forksafe.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if made.search(line)
    ]
    assert found == []


# The differential: a body judged in a child answers as the worker's own review does.

BUNDLE = load_bundle(POLICIES)
OVERRIDE = json.loads((REQUESTS / "overridepolicy-create-allowed.json").read_text())
DEPLOYMENT = json.loads((REQUESTS / "deployment-replicas-by-federatedhpa-allowed.json").read_text())


def _override(uid: str, overriders: int, image: str) -> dict[str, Any]:
    document = json.loads(json.dumps(OVERRIDE))
    document["request"]["uid"] = uid
    rule = document["request"]["object"]["spec"]["overrideRules"][0]
    rule["overriders"] = {
        "plaintext": [
            {"path": f"/metadata/labels/k{i}", "operator": "replace", "value": "x" * 8}
            for i in range(overriders)
        ],
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": image}],
    }
    return document


def _deployment(uid: str, size: int, image: str) -> dict[str, Any]:
    document = json.loads(json.dumps(DEPLOYMENT))
    document["request"]["uid"] = uid
    annotations = document["request"]["object"]["metadata"].setdefault("annotations", {})
    annotations["pad"] = "p" * max(size - len(orjson.dumps(document)), 0)
    containers = document["request"]["object"]["spec"]["template"]["spec"]["containers"]
    containers[0]["image"] = image
    return document


def _body(kind: str, size: int, image: str) -> tuple[bytes, bytes]:
    """A request body of about ``size`` bytes, and its content type."""
    if kind == "override":
        return orjson.dumps(_override("u-1", size // 80, image)), b"application/json"
    if kind == "deployment":
        return orjson.dumps(_deployment("u-1", size, image)), b"application/json"
    if kind == "duplicate-keys":
        text = orjson.dumps(_deployment("u-1", size, image))
        return text[:-1] + b',"kind":"AdmissionReview"}', b"application/json"
    if kind == "not-json":
        return b"{" + b" " * size, b"application/json"
    if kind == "not-a-review":
        return orjson.dumps({"pad": "p" * size}), b"application/json"
    return orjson.dumps(_deployment("u-1", size, image)), b"text/plain"


def _answer(
    forked: bool, body: bytes, content_type: bytes, seconds: float = 30.0
) -> tuple[int, list[Any], bytes]:
    settings = Settings(heavy_body_bytes=THRESHOLD, audit_log=False)
    app = create_app(bundle=BUNDLE, settings=settings)
    state = app.extensions["fedgate"]
    served = WsgiOnAsgi(
        app,
        settings.max_body_bytes,
        heavy_body_bytes=THRESHOLD,
        review_seconds=seconds if forked else None,
        forked=HeavyReview(state, ForkLane(1)) if forked else None,
        on_overtime=lambda environ: overtime_answer(state, environ),
    )
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/validate",
        "headers": [(b"content-type", content_type)],
        "scheme": "https",
    }
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(served(scope, receive, send))
    return sent[0]["status"], sorted(sent[0]["headers"]), sent[1]["body"]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    kind=st.sampled_from(
        ["override", "deployment", "duplicate-keys", "not-json", "not-a-review", "text"]
    ),
    size=st.integers(THRESHOLD - 3000, THRESHOLD + 3000) | st.integers(THRESHOLD, 4 * THRESHOLD),
    image=st.sampled_from(["registry.example.com", "docker.io", ""]),
)
def test_a_body_judged_in_a_child_gets_the_workers_own_answer(
    kind: str, size: int, image: str
) -> None:
    body, content_type = _body(kind, size, image)
    assert _answer(True, body, content_type) == _answer(False, body, content_type)


@pytest.mark.parametrize("kind", ["override", "deployment", "not-json", "text"])
def test_the_differential_crosses_the_threshold(kind: str) -> None:
    """The property's bodies fall on both sides of the threshold, for every kind of answer."""
    small, _ = _body(kind, THRESHOLD - 3000, "docker.io")
    large, _ = _body(kind, 4 * THRESHOLD, "docker.io")
    assert len(small) < THRESHOLD < len(large)


def test_a_child_past_the_budget_gives_the_deadlines_answer_with_the_uid() -> None:
    body = orjson.dumps(_override("too-long", 30_000, "registry.example.com"))
    started = time.monotonic()
    status, _, content = _answer(True, body, b"application/json", seconds=0.05)
    assert time.monotonic() - started < 2  # killed, or stopped by its budget: not run to its end
    response = orjson.loads(content)["response"]
    assert status == 200 and response["uid"] == "too-long" and response["allowed"] is False
    assert response["status"]["message"] == "review exceeded its time budget"


def test_a_child_that_dies_denies_the_request_it_had_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child killed from outside (the OOM killer) leaves no answer: a denial, never an allow."""

    def dies(*args: Any, **kwargs: Any) -> Any:
        kwargs["parsed"](None)  # the request read...
        os._exit(9)  # ...then gone

    monkeypatch.setattr(heavy, "slim_admission", lambda admission: _admission("dying"))
    monkeypatch.setattr(heavy, "judge", dies)
    body = orjson.dumps(_override("dying", 300, "registry.example.com"))
    status, _, content = _answer(True, body, b"application/json")
    response = orjson.loads(content)["response"]
    assert status == 200 and response["uid"] == "dying" and response["allowed"] is False
    assert "ended without an answer" in response["status"]["message"]


def _admission(uid: str) -> Any:
    return parse_review(_override(uid, 1, "registry.example.com"))
