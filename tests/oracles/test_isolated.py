"""Cases run in forked children: a crash by a signal names its case and the run goes on."""

from __future__ import annotations

import faulthandler
import os
import signal

import pytest

from tests.oracles.isolated import EngineCrashed, each_isolated

_seen: list[int] = []


def _die() -> None:
    faulthandler.disable()  # the child dies quietly: no traceback in the test log
    os.kill(os.getpid(), signal.SIGSEGV)


def _square_dying_on_13(case: int) -> int:
    if case == 13:
        _die()
    return case * case


def _dying_on_the_third_seven(case: int) -> int:
    """Dies only after two earlier sevens in the same process: a crash that needs history."""
    _seen.append(case)
    if case == 7 and _seen.count(7) == 3:
        _die()
    return case


def test_the_results_come_back_in_order_across_chunks() -> None:
    assert each_isolated(_square_dying_on_13, list(range(12)), chunk=5) == [
        n * n for n in range(12)
    ]


def test_a_case_that_kills_its_process_is_named_and_the_caller_lives() -> None:
    with pytest.raises(EngineCrashed, match=r"died \(SIGSEGV\) on case 13: 13$"):
        each_isolated(_square_dying_on_13, list(range(20)), chunk=8)


def test_a_crash_that_needs_the_cases_before_it_names_the_case_and_its_prefix() -> None:
    cases = [1, 7, 2, 7, 3, 7, 4]
    with pytest.raises(EngineCrashed, match=r"on case 5 after cases 0-4 \(alone it lives\): 7$"):
        each_isolated(_dying_on_the_third_seven, cases, chunk=10)
    assert _seen == []  # the children's history never reached the caller


def test_a_python_error_is_raised_in_the_caller_with_its_own_trace() -> None:
    def fail_on_two(case: int) -> int:
        if case == 2:
            raise ValueError("two")
        return case

    with pytest.raises(ValueError, match="two"):
        each_isolated(fail_on_two, [1, 2, 3])
