"""A review's budget: cooperative cancellation the shell arms and the engine checks.

A Python thread cannot be stopped from outside: a review past its time budget used to run
to its end on its pool thread (its answer dropped), so a rule plus a hostile object could
hold a thread for seconds after the denial was sent. Now the shell (``webhook/shell/app.py``) gives
``review`` a ``Budget`` made from its clock (the request's deadline), and the engine
``check``s it where work can grow with the request: per rule, per overrider applied, per
member copy reviewed, and inside CEL evaluation (each comprehension iteration on cel-python,
between expressions on cel-expr). Past it ``check`` raises ``BudgetExceeded``, which no rule's
error handling absorbs: the review stops there, the shell denies the request with the reason,
and the thread is free.

Pure: no clock here. ``expired`` is the shell's (a fake in tests); without a budget (the
commands, ``fedgate check``...) nothing is ever checked. The budget in force is held in a
context variable for the review's thread, so the nested reviews of member copies and the CEL
engines see the same one without every signature carrying it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class BudgetExceeded(Exception):
    """The review ran past its budget: it stops, and the request is denied with ``reason``.
    Not a CEL evaluation error, nor any rule's: nothing on the way may turn it into a
    rule's result."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Budget:
    """``check()`` raises ``BudgetExceeded`` once ``expired()`` says so. ``checks`` counts
    the calls (tests count the loop points a review passes without a clock)."""

    def __init__(self, expired: Callable[[], bool], reason: str = "review exceeded its budget"):
        self.expired = expired
        self.reason = reason
        self.checks = 0
        self.spent = False

    def check(self) -> None:
        self.checks += 1
        if self.spent or self.expired():
            self.spent = True  # once past, always past (a fake clock may not move on)
            raise BudgetExceeded(self.reason)


_CURRENT: ContextVar[Budget | None] = ContextVar("fedgate_review_budget", default=None)


def current() -> Budget | None:
    """The budget of the review running on this thread, if it has one."""
    return _CURRENT.get()


def check() -> None:
    """``check()`` the budget in force, if any: the call every loop point makes."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.check()


@contextmanager
def spending(budget: Budget | None) -> Iterator[None]:
    """``budget`` in force for the block; None keeps the one already in force (a nested
    review of a member copy spends its outer review's budget)."""
    if budget is None:
        yield
        return
    token = _CURRENT.set(budget)
    try:
        yield
    finally:
        _CURRENT.reset(token)
