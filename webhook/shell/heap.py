"""A worker's heap after large request bodies: glibc's malloc told to give memory back.

A worker that held seventy 7 MiB bodies (stalled clients, until their deadline) kept its
resident memory at 525 MiB after they closed: glibc raises its mmap threshold each time a large
block is freed (up to 32 MiB), after which large blocks come from the heap, and the heap's free
pages stay with the process. Two knobs, both through ctypes and both no-ops off glibc: the
threshold is pinned at ``MMAP_THRESHOLD`` (every larger block is its own mapping, unmapped when
freed), and after a large body is released ``malloc_trim`` returns the heap's free pages, at
most once per ``TRIM_SECONDS``.
"""

from __future__ import annotations

import asyncio
import ctypes
import time
from typing import Any

M_MMAP_THRESHOLD = -3
"""mallopt's parameter number (malloc.h)."""
MMAP_THRESHOLD = 1024 * 1024
"""Blocks of at least this many bytes get a mapping of their own, returned when freed."""
TRIM_SECONDS = 1.0


def _glibc() -> Any | None:
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt  # noqa: B018 - present on glibc only
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def pin_mmap_threshold() -> bool:
    """Keep every block of ``MMAP_THRESHOLD`` bytes or more out of the heap (True when glibc
    took the setting)."""
    return _LIBC is not None and bool(_LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def trim() -> None:
    """Return the heap's free pages to the system now."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class HeapTrimmer:
    """``released(size)`` after a request's body is let go: once one of at least ``large``
    bytes was, trims the heap on the event loop, at most once per ``TRIM_SECONDS``."""

    def __init__(self, large: int) -> None:
        self.large = large
        self._scheduled = False
        self._last = float("-inf")

    def released(self, size: int) -> None:
        if size < self.large or self._scheduled or _LIBC is None:
            return
        self._scheduled = True
        wait = max(0.0, self._last + TRIM_SECONDS - time.monotonic())
        asyncio.get_running_loop().call_later(wait, self._trim)

    def _trim(self) -> None:
        self._scheduled = False
        self._last = time.monotonic()
        trim()
