"""Work run in a child forked from the worker at request time: off the worker's GIL, killable.

Why: a 2.5 MiB request takes 0.3-1.3 s of Python to read and review. On a thread of the worker
it held the GIL against the event loop and the small reviews' threads (their p99 two to four
times the floor's beside one such review a second), a review past its deadline could not be
stopped (a Python thread runs on), and the heap it grew stayed with the worker. A child forked
now has the worker's compiled bundle and live index copy-on-write: nothing is sent to it (the
body is in its memory too), it runs the pure work, writes the result to a pipe and leaves with
``os._exit``; past the deadline the worker SIGKILLs it. Its memory goes back to the system when
it exits.

The child touches nothing another thread might hold: it runs only ``work`` (the review, whose
locks are made by ``webhook.base.forksafe`` and so released in the child), resets the worker's
signal handlers (a signal to the child must not run the worker's handlers or wake its loop),
closes every descriptor but its pipe (a listening socket held by a child would keep taking
connections nobody accepts), runs at a lower CPU priority (``NICE``) and dies with the worker
(``PR_SET_PDEATHSIG``). Metrics, logs and
the audit line are the worker's, from the returned result. Should the child hang anyway (a lock
of a library it reached that no test knew of), the deadline kills it and the request is answered
as a deadline answers.

At most ``children`` children per worker; a request that finds them all busy waits for one
until its deadline, then gets the deadline's answer. A child is counted until it is reaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import os
import pickle
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Emit = Callable[[Any], None]
"""What ``work`` may call, once, with a first result (say, the request's uid and who sent it)
that the worker keeps should the child be killed before the final one."""

EARLY, FINAL = b"E", b"F"
_HEADER = struct.Struct("!cI")
_SIGNALS = tuple(
    getattr(signal, f"SIG{name}")
    for name in ["TERM", "INT", "QUIT", "HUP", "USR1", "USR2", "WINCH", "ABRT", "CHLD", "ALRM"]
    if hasattr(signal, f"SIG{name}")
)
_PR_SET_PDEATHSIG = 1
NICE = 10
"""How much lower the child's CPU priority is than the worker's: off the GIL, a large review
would otherwise take a core from the small reviews as an equal (on 2 cores, a burst of large
reviews slowed the small ones more than the GIL did); it is bounded by its deadline anyway."""


def _prctl() -> Any | None:
    """glibc's prctl, looked up now: the child must not dlopen (the loader's lock)."""
    try:
        return ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """How a child's work ended: ``result`` when it finished, else ``ended`` says why not
    (``queued``: no child was free before the deadline; ``killed``: past the deadline;
    ``died``: the child ended without a result, or could not be made)."""

    result: T | None = None
    early: Any = None
    ended: str = "finished"


class ForkLane:
    """Runs ``work`` in forked children, at most ``children`` at once; see the module."""

    def __init__(self, children: int = 1) -> None:
        self.children = children
        self.running: set[int] = set()
        """The children forked and not yet reaped."""
        self._slots: asyncio.Semaphore | None = None

    async def run(self, work: Callable[[Emit], T], until: float | None) -> Outcome[T]:
        """``work(emit)``'s result, from a child; ``until``: the deadline (``time.monotonic``),
        past which the child is killed; None: no deadline."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.children)
        left = None if until is None else max(until - time.monotonic(), 0.0)
        try:
            async with asyncio.timeout(left):  # a cancelled acquire leaves the slot free
                await self._slots.acquire()
        except TimeoutError:
            return Outcome(ended="queued")
        try:
            pid, read = _fork(work)
        except OSError:  # no process to be had (memory, process limit): no answer from one
            self._slots.release()
            return Outcome(ended="died")
        except BaseException:
            self._slots.release()
            raise
        self.running.add(pid)
        try:
            return await _collect(read, until)
        finally:
            self._reap(pid)

    def _reap(self, pid: int) -> None:
        """Kill ``pid`` if it still runs, and reap it as soon as it is gone; its slot is free
        then, not before."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # done with it, whatever it was doing
        loop = asyncio.get_running_loop()
        try:
            handle = os.pidfd_open(pid)
        except (OSError, AttributeError):  # no pidfd (old kernel): the exit of a killed
            with contextlib.suppress(ChildProcessError):  # process is quick: waited for here
                os.waitpid(pid, 0)
            self._gone(pid)
            return

        def reaped() -> None:
            loop.remove_reader(handle)
            os.close(handle)
            os.waitpid(pid, 0)  # exited: no wait
            self._gone(pid)

        loop.add_reader(handle, reaped)

    def _gone(self, pid: int) -> None:
        self.running.discard(pid)
        assert self._slots is not None
        self._slots.release()


def _fork(work: Callable[[Emit], Any]) -> tuple[int, int]:
    read, write = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        _child(work, read, write)
    os.close(write)
    os.set_blocking(read, False)
    return pid, read


def _child(work: Callable[[Emit], Any], read: int, write: int) -> None:  # pragma: no cover
    """In the child: never returns, never raises into the worker's code it was forked from."""
    code = 70
    try:
        os.close(read)
        parent = os.getppid()
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the worker died before the setting took
            os._exit(code)
        signal.set_wakeup_fd(-1)  # the worker's loop is woken by its own signals only
        for number in _SIGNALS:
            signal.signal(number, signal.SIG_DFL)
        os.closerange(3, write)
        os.closerange(write + 1, os.sysconf("SC_OPEN_MAX"))
        gc.disable()  # the child is short-lived: its memory goes back at once when it exits
        os.nice(NICE)  # the worker's small reviews first, where both want a core

        def emit(value: Any) -> None:
            _send(write, EARLY, value)

        result = work(emit)
        _send(write, FINAL, result)
        code = 0
    except BaseException:  # no log here (its lock): the worker sees no result
        pass
    finally:
        os._exit(code)


def _send(descriptor: int, tag: bytes, value: Any) -> None:  # pragma: no cover - the child's
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(tag, len(data)) + data)
    while view:
        view = view[os.write(descriptor, view) :]


async def _collect(read: int, until: float | None) -> Outcome[Any]:
    """The child's frames off ``read`` until it closes, or until the deadline."""
    loop = asyncio.get_running_loop()
    closed: asyncio.Future[None] = loop.create_future()
    frames = _Frames()

    def readable() -> None:
        try:
            chunk = os.read(read, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            frames.feed(chunk)
        elif not closed.done():
            closed.set_result(None)

    loop.add_reader(read, readable)
    try:
        left = None if until is None else max(until - time.monotonic(), 0.0)
        try:
            await asyncio.wait_for(closed, left)
        except TimeoutError:
            return Outcome(early=frames.early, ended="killed")
    finally:
        loop.remove_reader(read)
        os.close(read)
    if frames.final is _NOTHING:
        return Outcome(early=frames.early, ended="died")
    return Outcome(result=frames.final, early=frames.early)


_NOTHING = object()


class _Frames:
    """The child's messages, each a tag, a length and a pickle."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.early: Any = None
        self.final: Any = _NOTHING

    def feed(self, chunk: bytes) -> None:
        self.buffer += chunk
        while len(self.buffer) >= _HEADER.size:
            tag, size = _HEADER.unpack_from(self.buffer)
            end = _HEADER.size + size
            if len(self.buffer) < end:
                return
            value = pickle.loads(self.buffer[_HEADER.size : end])  # our own child's
            del self.buffer[:end]
            if tag == EARLY:
                self.early = value
            else:
                self.final = value
