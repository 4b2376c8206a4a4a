"""The WSGI app served by gunicorn's asyncio worker: requests are read whole, then answered.

Why (issue 15, finding 8): gunicorn's threaded worker hands a connection to a thread as soon as
a byte arrives, and the thread then blocks on the TLS handshake and on the headers; ten clients
sending headers at a byte a second, or fifty that never finish the handshake, held every
thread and the webhook answered nobody. The asyncio worker (gunicorn's ``asgi`` worker class)
does the handshake and reads headers and body on its event loop, where a slow client holds a
few kilobytes and no thread. This adapter waits, on the loop, for the whole body (at most
``max_body_bytes``: over it, 413, before or while reading, chunked or not), and only then runs
the WSGI app, on ``executor`` (a few threads) or inline without one. With threads the loop keeps
reading and writing TLS (which releases the GIL) while a review runs, and a long review never
delays a probe by more than the interpreter's switch interval: measured side by side, both the
allow-all floor and fedgate answered more requests per second that way than inline.

Deadlines: gunicorn's ASGI protocol bounds the TLS handshake (asyncio's 60 s), idle keep-alive
connections (``keepalive``) and each wait for body data (``timeout``); the whole body must also
arrive within ``body_seconds`` of the headers.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import Executor
from typing import Any

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyTooLarge(Exception):
    pass


def _status(code: int, message: str) -> bytes:
    """A metav1.Status body, as the Flask app answers its own 4xx."""
    return orjson.dumps(
        {
            "apiVersion": "v1",
            "kind": "Status",
            "status": "Failure",
            "code": code,
            "message": message,
        }
    )


class WsgiOnAsgi:
    """An ASGI app running ``wsgi`` (on ``executor``, else inline) once a request's body is in."""

    def __init__(
        self,
        wsgi: WsgiApp,
        max_body_bytes: int,
        body_seconds: float = 10.0,
        on_refused: Callable[[str], None] | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.wsgi = wsgi
        self.executor = executor
        self.max_body_bytes = max_body_bytes
        self.body_seconds = body_seconds
        self.on_refused = on_refused or (lambda reason: None)
        self.too_large = _status(
            413,
            f"the body is larger than the {max_body_bytes} bytes the webhook accepts "
            "(FEDGATE_MAX_BODY_BYTES)",
        )
        self.too_slow = _status(
            408, f"the body did not arrive within {body_seconds:g} s of the headers"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body_bytes:
            self.on_refused("too-large")
            await _answer(send, 413, self.too_large)
            return
        try:
            body = await asyncio.wait_for(self._body(receive), self.body_seconds)
        except BodyTooLarge:  # chunked, or more than its Content-Length said
            self.on_refused("too-large")
            await _answer(send, 413, self.too_large)
            return
        except TimeoutError:
            self.on_refused("too-slow")
            await _answer(send, 408, self.too_slow)
            return
        if body is None:
            return  # the client went away
        await self._respond(scope, body, send)

    async def _body(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _respond(self, scope: Scope, body: bytes, send: Send) -> None:
        environ = _environ(scope, body)
        if self.executor is None:
            status, headers, content = self._call(environ)
        else:
            loop = asyncio.get_running_loop()
            status, headers, content = await loop.run_in_executor(
                self.executor, self._call, environ
            )
        await send(
            {
                "type": "http.response.start",
                "status": int(status.split(" ", 1)[0]),
                "headers": [
                    (name.lower().encode("latin-1"), value.encode("latin-1"))
                    for name, value in headers
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})

    def _call(self, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], _: Any = None) -> Any:
            started[:] = [status, headers]
            return lambda data: None  # the legacy write(); Flask does not use it

        result = self.wsgi(environ, start_response)
        try:
            content = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return started[0], started[1], content


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """The WSGI environ of one ASGI HTTP request whose whole body is ``body``."""
    server = scope.get("server") or ("127.0.0.1", 0)
    client = scope.get("client") or ("", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", ""),
        "PATH_INFO": scope["path"],
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
        elif name != "CONTENT_LENGTH":
            key = f"HTTP_{name}"
            environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


async def _answer(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
