"""The adapter between gunicorn's asyncio worker and the WSGI app: whole bodies, bounded."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest

from webhook.asgi import WsgiOnAsgi


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
