"""Locks a forked child can take: each one made here is released anew in every child process.

Why: ``fedgate serve`` reviews a large request body in a child forked from the worker at
request time (``webhook/shell/forklane.py``). Only the forking thread lives on in the child;
a lock another thread held at that instant stays held there for ever, and the child's review
would wait on it until it is killed at the request's deadline. The review's state is already
written for concurrent readers (a review thread may look at any instant), so what a child sees
is what a review thread could see; locks are the one thing a thread that no longer exists can
keep. Every lock on the review's path (memos, lazily made parsers and programs) is made by
``lock()`` and so re-made in the child (``tests/webhook/test_forklane.py`` holds that no
other lock is made in the review's packages). What such a lock guards is a cache: a child
that finds an entry half made makes it again.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any

_LOCKS: weakref.WeakSet[Any] = weakref.WeakSet()


def lock() -> threading.Lock:
    """A ``threading.Lock`` that every forked child finds released."""
    made = threading.Lock()
    _LOCKS.add(made)
    return made


def _release_in_child() -> None:
    for held in list(_LOCKS):
        held._at_fork_reinit()  # CPython's own way (logging, threading do the same)


os.register_at_fork(after_in_child=_release_in_child)
