"""The WSGI app served by gunicorn's asyncio worker: requests are read whole, then answered.

Why (slow clients): gunicorn's threaded worker hands a connection to a thread as soon as
a byte arrives, and the thread then blocks on the TLS handshake and on the headers; ten clients
sending headers at a byte a second, or fifty that never finish the handshake, held every
thread and the webhook answered nobody. The asyncio worker (gunicorn's ``asgi`` worker class)
does the handshake and reads headers and body on its event loop, where a slow client holds a
few kilobytes and no thread. This adapter waits, on the loop, for the whole body (at most
``max_body_bytes``: over it, 413, before or while reading, chunked or not), and only then runs
the WSGI app off the loop, in one of two lanes: a body of at most ``heavy_body_bytes`` on
``executor`` (``--threads`` threads), a larger one on ``heavy_executor`` (one thread), so a
burst of large reviews queues behind itself, never in front of the small ones. Without an
executor (tests) the app runs inline. With ``forked``, a large POST to ``forked_path`` is
judged in a child process instead (``webhook/shell/forklane.py``): off the worker's GIL, and
killed at its deadline.

Bounds: the bodies a worker holds at once (read, queued or under review) share one budget of
``budget_bytes`` (at least twice ``max_body_bytes``), of which large bodies may take three
quarters; a body that does not fit is answered 503 at once, from its Content-Length before it
is read (or as soon as a chunked one passes it), and the API server applies its
failurePolicy. A request is answered within ``review_seconds`` of its headers (the API
server's timeout counts the upload too): past it the loop answers with ``on_overtime``
(fedgate's: a denial, never an allow) and the work is dropped if it has not started (a
Python thread cannot be stopped: one already running finishes and its answer is discarded).

Deadlines: gunicorn's ASGI protocol bounds the TLS handshake (asyncio's 60 s), idle keep-alive
connections (``keepalive``) and each wait for body data (``timeout``); the whole body must also
arrive within ``body_seconds`` of the headers.
"""

from __future__ import annotations

import asyncio
import heapq
import io
import itertools
import math
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Answer = tuple[str, list[tuple[str, str]], bytes]
Forked = Callable[[dict[str, Any], bytes, "Deadline | None"], Awaitable[Answer | None]]
"""Reviews a large body in a child process (``webhook/shell/heavy.py``): its answer, or None
once its deadline passed first."""

DEADLINE = "fedgate.deadline"
"""The environ key holding the request's ``Deadline`` (when it runs with a time budget)."""
BODY = "fedgate.body"
"""The environ key holding the request body, for ``on_overtime``."""


class Deadline:
    """When a request's answer is due, and who gives it: exactly one of the review (on its
    thread, in time) and the event loop (past the time) ``claim``s the answer, and the other
    gives none, so the answer sent and the audit line written are the same decision."""

    REVIEW = "review"
    LOOP = "loop"

    def __init__(self, arrived: float, seconds: float) -> None:
        self.arrived = arrived
        self.at = arrived + seconds
        self._lock = threading.Lock()
        self._winner: str | None = None

    def passed(self) -> bool:
        return time.monotonic() > self.at

    def claim(self, who: str) -> bool:
        """Whether ``who`` gives the answer (the first to ask does)."""
        with self._lock:
            if self._winner is None:
                self._winner = who
            return self._winner == who


class BodyTooLarge(Exception):
    pass


class OverBudget(Exception):
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


def overtime_status(environ: dict[str, Any]) -> Answer:
    """503 "review exceeded its time budget": the answer to a request that carries no uid."""
    body = _status(503, "review exceeded its time budget")
    return "503 Service Unavailable", [("Content-Type", "application/json")], body


class BodyBudget:
    """Bytes of request bodies one worker holds at once; used on the event loop only.

    Large bodies (over ``large`` bytes, or of unknown length) may take three quarters of it:
    the rest stays for small ones, so stalled large bodies cannot keep the small reviews out.
    """

    def __init__(self, limit: int, large: int) -> None:
        self.limit = limit
        self.large = large
        self.large_limit = limit - limit // 4
        self.held = 0
        self.held_large = 0

    def is_large(self, size: int | None) -> bool:
        return size is None or size > self.large

    def take(self, size: int, large: bool) -> bool:
        if self.held + size > self.limit:
            return False
        if large and self.held_large + size > self.large_limit:
            return False
        self.held += size
        self.held_large += size if large else 0
        return True

    def give(self, size: int, large: bool) -> None:
        self.held -= size
        self.held_large -= size if large else 0


@dataclass
class _Held:
    """One request: when its headers arrived, and the budget it holds."""

    arrived: float
    large: bool
    size: int = 0


class WsgiOnAsgi:
    """An ASGI app running ``wsgi`` (in a lane, else inline) once a request's body is in."""

    def __init__(
        self,
        wsgi: WsgiApp,
        max_body_bytes: int,
        body_seconds: float = 10.0,
        on_refused: Callable[[str], None] | None = None,
        executor: Executor | None = None,
        *,
        heavy_executor: Executor | None = None,
        heavy_body_bytes: int | None = None,
        budget_bytes: int | None = None,
        review_seconds: float | None = None,
        on_overtime: Callable[[dict[str, Any]], Answer] = overtime_status,
        on_released: Callable[[int], None] | None = None,
        forked: Forked | None = None,
        forked_path: str = "/validate",
    ) -> None:
        self.wsgi = wsgi
        self.forked = forked
        self.forked_path = forked_path
        self.executor = executor
        self.heavy_executor = heavy_executor or executor
        self.heavy_body_bytes = max_body_bytes if heavy_body_bytes is None else heavy_body_bytes
        self.max_body_bytes = max_body_bytes
        self.budget = BodyBudget(max(budget_bytes or 0, 2 * max_body_bytes), self.heavy_body_bytes)
        self.body_seconds = body_seconds
        self.review_seconds = review_seconds
        self.on_overtime = on_overtime
        self._expiry: _Expiry | None = None
        self.on_refused = on_refused or (lambda reason: None)
        self.on_released = on_released or (lambda size: None)
        self.too_large = _status(
            413,
            f"the body is larger than the {max_body_bytes} bytes the webhook accepts "
            "(FEDGATE_MAX_BODY_BYTES)",
        )
        self.too_slow = _status(
            408, f"the body did not arrive within {body_seconds:g} s of the headers"
        )
        self.too_busy = _status(
            503,
            f"the webhook already holds its {self.budget.limit} bytes of request bodies "
            "(FEDGATE_BUFFERED_BODY_BYTES); retry",
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
        arrived = time.monotonic()
        held = _Held(arrived, large=self.budget.is_large(length))  # until its answer is sent
        try:
            await self._serve(scope, receive, send, length, held)
        finally:
            if held.size:
                self.budget.give(held.size, held.large)
                self.on_released(held.size)

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, length: int | None, held: _Held
    ) -> None:
        if length is not None:
            if not self.budget.take(length, held.large):
                self.on_refused("busy")
                await _answer(send, 503, self.too_busy)
                return
            held.size = length
        try:  # a timeout, not wait_for: that wraps the read in a task of its own (a loop turn)
            async with asyncio.timeout(self.body_seconds):
                body = await self._body(receive, held)
        except BodyTooLarge:  # chunked, or more than its Content-Length said
            self.on_refused("too-large")
            await _answer(send, 413, self.too_large)
            return
        except OverBudget:
            self.on_refused("busy")
            await _answer(send, 503, self.too_busy)
            return
        except TimeoutError:
            self.on_refused("too-slow")
            await _answer(send, 408, self.too_slow)
            return
        if body is None:
            return  # the client went away
        await self._respond(scope, body, send, held.arrived)

    async def _body(self, receive: Receive, held: _Held) -> bytes | None:
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
            if size > held.size:  # chunked: reserved as it comes
                if not self.budget.take(size - held.size, held.large):
                    raise OverBudget
                held.size = size
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _respond(self, scope: Scope, body: bytes, send: Send, arrived: float) -> None:
        environ = _environ(scope, body)
        large = len(body) > self.heavy_body_bytes
        executor = self.heavy_executor if large else self.executor
        if (
            large
            and self.forked is not None
            and environ["REQUEST_METHOD"] == "POST"
            and environ["PATH_INFO"] == self.forked_path
        ):
            status, headers, content = await self._in_child(environ, body, arrived)
        elif executor is None:
            status, headers, content = self._on_loop(environ, body, arrived)
        else:
            status, headers, content = await self._off_loop(executor, environ, body, arrived)
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

    async def _in_child(self, environ: dict[str, Any], body: bytes, arrived: float) -> Answer:
        """A large body's answer from ``forked`` (a child process judges it), or the deadline's
        answer when the deadline passed first."""
        assert self.forked is not None
        deadline = self._give_deadline(environ, body, arrived)
        answer = await self.forked(environ, body, deadline)
        if answer is not None:
            return answer
        assert deadline is not None  # without one, nothing is ever past it
        deadline.claim(Deadline.LOOP)
        self.on_refused("overtime")
        return self.on_overtime(environ)

    def _on_loop(self, environ: dict[str, Any], body: bytes, arrived: float) -> Answer:
        """The review on the event loop (no executor): nothing else on this worker runs until
        it ends, so it stops itself at the deadline (the view's budget, as on a thread) and
        nothing is left for the loop to answer."""
        self._give_deadline(environ, body, arrived)
        return self._call(environ)

    def _give_deadline(
        self, environ: dict[str, Any], body: bytes, arrived: float
    ) -> Deadline | None:
        """The request's deadline (and its body, for an overtime answer) in ``environ``, when
        reviews have a time budget."""
        if self.review_seconds is None:
            return None
        deadline = environ[DEADLINE] = Deadline(arrived, self.review_seconds)
        environ[BODY] = body
        return deadline

    async def _off_loop(
        self, executor: Executor, environ: dict[str, Any], body: bytes, arrived: float
    ) -> Answer:
        loop = asyncio.get_running_loop()
        deadline = self._give_deadline(environ, body, arrived)
        if deadline is None:
            return await loop.run_in_executor(executor, self._call, environ)
        work = executor.submit(self._call, environ)
        waiter = _waiter(loop, work)
        expiry = self._expiry
        if expiry is None or expiry.loop is not loop:
            expiry = self._expiry = _Expiry(loop)
        slot = expiry.watch(loop.time() + max(deadline.at - time.monotonic(), 0.0), waiter)
        try:
            answer = await waiter
        finally:
            expiry.forget(slot)
        if answer is not None:
            return answer
        if not deadline.claim(Deadline.LOOP):
            late = await _waiter(loop, work)  # the review answered in time: on its way
            assert late is not None  # watched by no expiry
            return late
        work.cancel()  # never runs if still queued
        self.on_refused("overtime")
        return self.on_overtime(environ)

    def _call(self, environ: dict[str, Any]) -> Answer:
        deadline = environ.get(DEADLINE)
        if deadline is not None and deadline.passed():  # not worth starting
            if deadline.claim(Deadline.REVIEW):
                self.on_refused("overtime")
                return self.on_overtime(environ)
            return overtime_status(environ)  # the loop answered: this one is dropped
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


def _waiter(loop: asyncio.AbstractEventLoop, work: Future[Answer]) -> asyncio.Future[Answer | None]:
    """A loop future settled with ``work``'s outcome (or with None by ``_Expiry`` at the
    deadline). Cancelling it (the client gone) leaves ``work`` alone, as
    ``shield(wrap_future(work))`` would, with one future and one callback instead of three and
    four."""
    waiter: asyncio.Future[Answer | None] = loop.create_future()

    def settle(done: Future[Answer]) -> None:  # on the review's thread
        if not loop.is_closed():
            loop.call_soon_threadsafe(_settle, waiter, done)

    work.add_done_callback(settle)
    return waiter


def _settle(waiter: asyncio.Future[Answer | None], done: Future[Answer]) -> None:
    if waiter.done():  # cancelled, or past its deadline, meanwhile
        return
    if done.cancelled():
        waiter.cancel()
        return
    error = done.exception()
    if error is not None:
        waiter.set_exception(error)
    else:
        waiter.set_result(done.result())


_Slot = list["asyncio.Future[Answer | None]"]


class _Expiry:
    """The reviews' deadlines on one event loop, behind one timer: a heap of plain
    ``(when, order, slot)`` tuples (compared in C) and one ``call_at`` handle for the earliest,
    instead of an ``asyncio.timeout`` per request (its Timeout, its TimerHandle pushed on the
    loop's heap with Python comparisons, and cancelled again by nearly every request). At its
    time a waiter still waiting is settled with None: the loop's answer. A request answered in
    time empties its slot; emptied slots leave the heap at its head, or all at once when they
    are over half of it, as the loop's own cancelled timers do."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[tuple[float, int, _Slot]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._armed = math.inf
        self._emptied = 0

    def watch(self, when: float, waiter: asyncio.Future[Answer | None]) -> _Slot:
        slot = [waiter]
        heapq.heappush(self._heap, (when, next(self._order), slot))
        if when < self._armed:
            if self._timer is not None:
                self._timer.cancel()
            self._arm(when)
        return slot

    def forget(self, slot: _Slot) -> None:
        """``slot``'s request no longer waits (answered, or gone)."""
        if not slot:  # settled by ``_expire``, which took it off the heap
            return
        slot.clear()
        self._emptied += 1
        if self._emptied > 100 and 2 * self._emptied > len(self._heap):
            self._heap = [entry for entry in self._heap if entry[2]]
            heapq.heapify(self._heap)
            self._emptied = 0

    def _arm(self, when: float) -> None:
        self._armed = when
        self._timer = self.loop.call_at(when, self._expire)

    def _expire(self) -> None:
        heap = self._heap
        due = max(self.loop.time(), self._armed)  # the loop runs a timer within its resolution
        while heap and (heap[0][0] <= due or not heap[0][2]):
            _, _, slot = heapq.heappop(heap)
            if not slot:
                self._emptied -= 1
            else:
                if not slot[0].done():
                    slot[0].set_result(None)
                slot.clear()
        self._timer, self._armed = None, math.inf
        if heap:
            self._arm(heap[0][0])


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
