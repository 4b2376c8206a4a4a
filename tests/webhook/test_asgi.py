"""The adapter between gunicorn's asyncio worker and the WSGI app: whole bodies, bounded."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.shell.asgi import BODY, Deadline, WsgiOnAsgi, _Expiry


def _echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    body = environ["wsgi.input"].read()
    start_response("201 Created", [("Content-Type", "text/plain"), ("X-Seen", str(len(body)))])
    info = {
        "method": environ["REQUEST_METHOD"],
        "path": environ["PATH_INFO"],
        "type": environ.get("CONTENT_TYPE"),
        "length": environ["CONTENT_LENGTH"],
        "custom": environ.get("HTTP_X_CUSTOM"),
        "body": body.decode(),
    }
    return [orjson.dumps(info)]


def _serve(
    app: WsgiOnAsgi, chunks: list[bytes], headers: list[tuple[bytes, bytes]] | None = None
) -> list[dict[str, Any]]:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/validate",
        "headers": headers or [(b"content-type", b"application/json"), (b"x-custom", b"a")],
        "scheme": "https",
    }
    messages = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
        for index, chunk in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(3600)  # a client that stopped sending
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    return sent


@pytest.mark.parametrize("executor", [None, ThreadPoolExecutor(2)], ids=["inline", "threads"])
def test_the_whole_body_reaches_the_app(executor: ThreadPoolExecutor | None) -> None:
    sent = _serve(WsgiOnAsgi(_echo, 100, executor=executor), [b'{"a":', b"1}"])
    assert sent[0]["status"] == 201
    assert (b"x-seen", b"7") in sent[0]["headers"]
    assert orjson.loads(sent[1]["body"]) == {
        "method": "POST",
        "path": "/validate",
        "type": "application/json",
        "length": "7",
        "custom": "a",
        "body": '{"a":1}',
    }


def test_a_declared_length_over_the_limit_is_413_before_reading() -> None:
    sent = _serve(WsgiOnAsgi(_echo, 10), [], headers=[(b"content-length", b"11")])
    assert sent[0]["status"] == 413
    assert "larger than the 10 bytes" in orjson.loads(sent[1]["body"])["message"]


def test_a_body_growing_past_the_limit_is_413() -> None:
    refused: list[str] = []
    app = WsgiOnAsgi(_echo, 10, on_refused=refused.append)
    sent = _serve(app, [b"123456", b"789012"])  # chunked: no length to check first
    assert sent[0]["status"] == 413 and refused == ["too-large"]


def test_a_body_that_stops_arriving_is_408() -> None:
    refused: list[str] = []
    app = WsgiOnAsgi(_echo, 100, body_seconds=0.2, on_refused=refused.append)
    sent = _serve_stalled(app)
    assert sent[0]["status"] == 408 and refused == ["too-slow"]
    assert "within 0.2 s of the headers" in orjson.loads(sent[1]["body"])["message"]


def _serve_stalled(app: WsgiOnAsgi) -> list[dict[str, Any]]:
    """A body announced as continuing, then nothing more."""
    scope = {"type": "http", "method": "POST", "path": "/validate", "headers": []}
    first = [{"type": "http.request", "body": b"{", "more_body": True}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if first:
            return first.pop()
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    return sent


async def _call(app: WsgiOnAsgi, body: bytes, length: int | None = None) -> list[dict[str, Any]]:
    """``body`` with a Content-Length of ``length``; when that is longer, the rest never comes."""
    length = len(body) if length is None else length
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % length)]
    scope = {"type": "http", "method": "POST", "path": "/validate", "headers": headers}
    messages = [{"type": "http.request", "body": body, "more_body": length > len(body)}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(3600)  # a client that stopped sending
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(dict(message))

    await app(scope, receive, send)
    return sent


def test_bodies_over_the_budget_are_503_before_reading_and_small_ones_keep_their_share() -> None:
    refused: list[str] = []
    app = WsgiOnAsgi(_echo, 100, budget_bytes=400, heavy_body_bytes=10, on_refused=refused.append)

    async def scenario() -> list[int]:
        stalled = [asyncio.ensure_future(_call(app, b"x" * 99, 100)) for _ in range(3)]
        await asyncio.sleep(0.05)  # three large bodies held: 300 of the large share's 300
        held = app.budget.held
        over = await _call(app, b"x" * 50)  # large: no room in the large share
        small = await _call(app, b"x" * 10)  # small: its share is free
        for task in stalled:
            task.cancel()
        await asyncio.gather(*stalled, return_exceptions=True)
        return [held, over[0]["status"], small[0]["status"], app.budget.held]

    held, over, small, after = asyncio.run(scenario())
    assert (held, over, small, after) == (300, 503, 201, 0)
    assert refused == ["busy"]


def test_a_chunked_body_takes_budget_as_it_comes() -> None:
    app = WsgiOnAsgi(_echo, 100, budget_bytes=200, heavy_body_bytes=10)
    app.budget.take(140, large=True)  # 150 is the large share: 10 bytes left
    sent = _serve(app, [b"12345", b"678901"])  # chunked (no length): 11 bytes
    assert sent[0]["status"] == 503
    assert app.budget.held == 140


def _slow(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    time.sleep(0.3)
    return _echo(environ, start_response)


def test_a_review_past_its_deadline_gets_the_overtime_answer_and_queued_work_is_dropped() -> None:
    pool = ThreadPoolExecutor(1)
    started: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        started.append(environ["wsgi.input"].read().decode())
        return _slow(environ, start_response)

    def overtime(environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
        return "200 OK", [("Content-Type", "application/json")], b"late:" + environ[BODY]

    adapter = WsgiOnAsgi(app, 100, executor=pool, review_seconds=0.1, on_overtime=overtime)

    async def scenario() -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(_call(adapter, b"first"), _call(adapter, b"second")))

    first, second = asyncio.run(scenario())
    pool.shutdown(wait=True)
    assert [first[1]["body"], second[1]["body"]] == [b"late:first", b"late:second"]
    assert started == ["first"]  # the second never ran: it was still queued at its deadline


def test_on_the_loop_a_review_gets_its_deadline_and_one_waiting_past_it_is_not_started() -> None:
    """``--threads 0``: the review runs on the loop, so the deadline is the review's alone to
    keep (the view's budget); a request that waited behind a slow one past its own deadline
    gets the overtime answer without its review starting."""
    started: list[str] = []
    deadlines: list[Deadline] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        started.append(environ["wsgi.input"].read().decode())
        deadlines.append(environ["fedgate.deadline"])
        assert environ[BODY] == started[-1].encode()
        return _slow(environ, start_response)

    def overtime(environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
        return "200 OK", [("Content-Type", "application/json")], b"late:" + environ[BODY]

    adapter = WsgiOnAsgi(app, 100, review_seconds=0.1, on_overtime=overtime)

    async def arrive(body: bytes) -> list[dict[str, Any]]:
        """Headers now, the body after one turn of the loop: both requests have arrived
        before the first review starts."""
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await asyncio.sleep(0)
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(dict(message))

        scope = {"type": "http", "method": "POST", "path": "/v", "headers": headers}
        await adapter(scope, receive, send)
        return sent

    async def scenario() -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(arrive(b"first"), arrive(b"second")))

    first, second = asyncio.run(scenario())
    assert first[0]["status"] == 201  # its own answer: nothing else could answer it meanwhile
    assert second[1]["body"] == b"late:second"
    assert started == ["first"]
    assert deadlines[0].at - deadlines[0].arrived == pytest.approx(0.1)


def test_large_bodies_go_to_their_own_lane() -> None:
    lanes: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        lanes.append(threading.current_thread().name.split("_")[0])
        return _echo(environ, start_response)

    small = ThreadPoolExecutor(1, thread_name_prefix="small")
    heavy = ThreadPoolExecutor(1, thread_name_prefix="heavy")
    adapter = WsgiOnAsgi(app, 100, executor=small, heavy_executor=heavy, heavy_body_bytes=10)

    async def scenario() -> None:
        await _call(adapter, b"x" * 10)
        await _call(adapter, b"x" * 11)

    asyncio.run(scenario())
    assert lanes == ["small", "heavy"]


def test_one_answer_per_deadline_whoever_asks_first() -> None:
    deadline = Deadline(time.monotonic(), 60)
    assert not deadline.passed()
    assert deadline.claim(Deadline.REVIEW) and deadline.claim(Deadline.REVIEW)
    assert not deadline.claim(Deadline.LOOP)
    late = Deadline(time.monotonic() - 2, 1)
    assert late.passed() and late.claim(Deadline.LOOP) and not late.claim(Deadline.REVIEW)


def test_a_review_that_claimed_its_answer_is_waited_for_past_the_deadline() -> None:
    """The loop's timer can fire after the review has finished and claimed its answer (the
    result is still on its way to the loop): that answer is sent, not the overtime one."""
    pool = ThreadPoolExecutor(1)

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        assert environ["fedgate.deadline"].claim(Deadline.REVIEW)
        time.sleep(0.3)  # claimed, then slow to hand the answer over
        return _echo(environ, start_response)

    def overtime(environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
        raise AssertionError("the review claimed the answer")

    adapter = WsgiOnAsgi(app, 100, executor=pool, review_seconds=0.1, on_overtime=overtime)
    sent = asyncio.run(_call(adapter, b"x"))
    pool.shutdown(wait=True)
    assert sent[0]["status"] == 201


def test_a_request_cancelled_while_its_review_runs_or_waits_leaves_the_review_to_finish() -> None:
    """gunicorn cancels a request's task when its client has been gone a while: the review
    under way, and the one queued behind it, still run to their end (and their audit lines),
    as under ``asyncio.shield``; only the answer is not sent."""
    pool = ThreadPoolExecutor(1)
    finished: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        time.sleep(0.2)
        finished.append(environ["wsgi.input"].read().decode())
        return _echo(environ, start_response)

    adapter = WsgiOnAsgi(app, 100, executor=pool, review_seconds=30.0)

    async def scenario() -> None:
        tasks = [asyncio.create_task(_call(adapter, body)) for body in (b"running", b"queued")]
        await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    pool.shutdown(wait=True)
    assert finished == ["running", "queued"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), max_size=260))
def test_the_shared_deadline_timer_settles_exactly_the_waiters_past_their_time(
    steps: list[tuple[bool, bool, bool]],
) -> None:
    """``_Expiry`` (one timer for every request's deadline, instead of an ``asyncio.timeout``
    each) against what a timeout per waiter would do: after a turn of the loop, a waiter whose
    time has passed and that was not forgotten is settled with None (the loop's answer), no
    other ever is; the emptied slots it counts are the ones on its heap, whatever the order."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        expiry = _Expiry(loop)
        watched: list[tuple[asyncio.Future[Any], list[Any], bool]] = []
        for past, forget_one, turn in steps:
            waiter: asyncio.Future[Any] = loop.create_future()
            when = loop.time() - 1 if past else loop.time() + 3600
            watched.append((waiter, expiry.watch(when, waiter), past))
            if forget_one:  # one answered in time (or gone): the oldest still waiting
                for other, slot, _ in watched:
                    if not other.done():
                        other.set_result(("200 OK", [], b""))
                        expiry.forget(slot)
                        break
            if turn:
                await asyncio.sleep(0)
            heap = expiry._heap
            assert expiry._emptied == sum(1 for entry in heap if not entry[2])
        for _ in range(2):  # a turn runs the timers that came due after the ready callbacks
            await asyncio.sleep(0)
        for waiter, _, past in watched:
            if waiter.done() and waiter.result() is None:
                assert past  # settled by the timer: its time had passed
            else:
                assert not past or waiter.result() is not None  # answered, or not yet due
        assert all(
            waiter.done() for waiter, _, past in watched if past
        )  # no waiter past its time is left waiting

    asyncio.run(scenario())


def test_requests_answered_in_time_do_not_pile_up_on_the_deadline_heap() -> None:
    adapter = WsgiOnAsgi(_echo, 100, executor=ThreadPoolExecutor(1), review_seconds=3600.0)

    async def scenario() -> int:
        for _ in range(500):
            assert (await _call(adapter, b"x"))[0]["status"] == 201
        assert adapter._expiry is not None
        return len(adapter._expiry._heap)

    assert asyncio.run(scenario()) <= 202
