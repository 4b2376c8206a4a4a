"""Generated cases run in forked children, so that a native engine's crash is a finding.

cel-expr is C++ behind pybind11: a fault in it (a segfault, an abort) takes the whole test
process down, and with it the captured output, the seed and every test after it. Here the
cases go to a forked child a chunk at a time; where a child dies by a signal, its chunk is run
again a case per child, and the test fails naming the case that kills the engine. A fork
copies the parent's heap as it is, so a crash that hangs on what ran before (the engine's
caches, the allocator's state) is met again in the children that replay it.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import TypeVar

Case = TypeVar("Case")
Result = TypeVar("Result")

CHUNK = 500
"""Cases per child: a fork of the test process costs a few milliseconds."""


class EngineCrashed(AssertionError):
    """A case whose evaluation killed the process it ran in, by a signal."""

    def __init__(self, signal_number: int, where: str) -> None:
        try:
            name = signal.Signals(signal_number).name
        except ValueError:
            name = f"signal {signal_number}"
        super().__init__(f"the engine died ({name}) {where}")
        self.signal_number = signal_number


def _in_a_child(work: Callable[[Case], Result], cases: Sequence[Case]) -> list[Result] | int:
    """``work`` of each case in a forked child: the results, or the signal that killed it."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test run
        status = 0
        try:
            os.close(reader)
            with os.fdopen(writer, "wb") as out:
                pickle.dump([work(case) for case in cases], out)
        except BaseException:  # reported by the exit status; the parent replays the work
            status = 1
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader, "rb") as answer:
        data = answer.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status)
    if os.WEXITSTATUS(status) != 0:  # a Python error: the parent meets it again, with its trace
        return [work(case) for case in cases]
    results: list[Result] = pickle.loads(data)  # our own child's pickle
    return results


def each_isolated(
    work: Callable[[Case], Result], cases: Sequence[Case], chunk: int = CHUNK
) -> list[Result]:
    """``[work(case) for case in cases]``, the work done in forked children; raises
    ``EngineCrashed`` naming the first case whose evaluation dies by a signal."""
    results: list[Result] = []
    for start in range(0, len(cases), chunk):
        part = cases[start : start + chunk]
        done = _in_a_child(work, part)
        if isinstance(done, list):
            results.extend(done)
            continue
        raise EngineCrashed(done, _culprit(work, part, start))
    return results


def _culprit(work: Callable[[Case], Result], part: Sequence[Case], start: int) -> str:
    """Which case of a chunk that died kills the engine: alone, one child each; else the
    shortest prefix of the chunk that still dies ends with it."""
    for n, case in enumerate(part):
        if isinstance(_in_a_child(work, [case]), int):
            return f"on case {start + n}: {case!r}"
    if not isinstance(_in_a_child(work, part), int):
        return f"once, on one of cases {start}-{start + len(part) - 1}, and not again"
    low, high = 1, len(part)  # part[:high] dies
    while low < high:
        middle = (low + high) // 2
        if isinstance(_in_a_child(work, part[:middle]), int):
            high = middle
        else:
            low = middle + 1
    return (
        f"on case {start + high - 1} after cases {start}-{start + high - 2} "
        f"(alone it lives): {part[high - 1]!r}"
    )
