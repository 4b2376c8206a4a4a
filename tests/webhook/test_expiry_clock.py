"""The reviews' shared deadline timer (``asgi._Expiry``) on a loop whose clock the test moves:
deadlines at many times (the same time, earlier than the armed one, later), answers in any
order, against what a timer per waiter would do. A waiter is settled by the timer only once its
time has passed, is never left waiting once the loop has run the timers due, never twice; one
timer is armed while any waiter waits; the heap holds at most about twice the waiters."""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.shell.asgi import _Expiry


class Handle:
    def __init__(self, when: float, callback: Any) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """The two things _Expiry asks of a loop: its time, and a callback at a time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, int, Handle]] = []
        self.order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Any) -> Handle:
        handle = Handle(when, callback)
        heapq.heappush(self.timers, (when, next(self.order), handle))
        return handle

    def advance(self, to: float) -> None:
        self.now = max(self.now, to)
        while self.timers and self.timers[0][0] <= self.now:
            _, _, handle = heapq.heappop(self.timers)
            if not handle.cancelled:
                handle.callback()

    def live_timers(self) -> int:
        return sum(1 for *_, h in self.timers if not h.cancelled)


class Waiter:
    def __init__(self) -> None:
        self.result: Any = "waiting"

    def done(self) -> bool:
        return self.result != "waiting"

    def set_result(self, value: Any) -> None:
        assert not self.done(), "settled twice"
        self.result = value


STEP = st.one_of(
    st.tuples(st.just("watch"), st.integers(0, 40)),
    st.tuples(st.just("forget"), st.integers(0, 10_000)),
    st.tuples(st.just("advance"), st.integers(0, 40)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(STEP, max_size=400))
def test_the_shared_timer_settles_as_a_timer_per_waiter_would(steps: list[tuple[str, int]]) -> None:
    clock = Clock()
    expiry = _Expiry(clock)  # type: ignore[arg-type]
    watched: list[tuple[float, Waiter, Any, list[bool]]] = []
    for op, n in steps:
        if op == "watch":
            waiter = Waiter()
            when = clock.now + n / 4
            watched.append((when, waiter, expiry.watch(when, waiter), [False]))  # type: ignore[arg-type]
        elif op == "forget" and watched:
            when, waiter, slot, forgotten = watched[n % len(watched)]
            if not waiter.done():
                waiter.set_result("answer")
            expiry.forget(slot)
            forgotten[0] = True
        elif op == "advance":
            clock.advance(clock.now + n / 4)
            for when, waiter, _, forgotten in watched:  # the loop ran every timer due by now
                assert waiter.done() or forgotten[0] or when > clock.now
        for when, waiter, _, _ in watched:
            if waiter.result is None:
                assert when <= clock.now  # never before its time
        live = [w for _, w, _, _ in watched if not w.done()]
        assert clock.live_timers() == 1 if live else clock.live_timers() <= 1
        assert len(expiry._heap) <= 2 * len(live) + 102
        assert expiry._emptied == sum(1 for entry in expiry._heap if not entry[2])
