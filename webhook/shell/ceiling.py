"""A worker's memory ceiling: the master replaces a worker whose own memory passed it.

Memory a worker never gives back: cel-expr-python 0.1.3 keeps a reference to each argument and
to the result of every call of a library function fedgate implements in Python (``url()``,
``ip()``, ``find()``, ``format()``, ``split()``, ``sum()``, a malformed ``quantity()``...), so
those values stay in the worker for good; a rule calling one on request data grows its worker
by about that data per request (docs/webhook.md, "A worker's memory ceiling"). Handing the
references back by hand is not safe: the binding reads an argument after the call returns, and
counts no reference for a null inside a list. At the pod's memory limit the kernel kills the
largest process, a worker, with the requests under way in it.

With a ceiling (``fedgate serve --worker-memory-mib``), every ``LOOK_SECONDS`` the master reads
each serving worker's own memory: its private pages (``/proc/PID/smaps_rollup``), not the pages
it still shares with the master since the fork. A worker past the ceiling is retired as a
reload retires workers: a new one starts, and once it serves the old one takes no new
connection and finishes the requests under way. One at a time, none while a reload is under
way, and at most one per ``pace_seconds``: a ceiling below what the bundle and the live index
need would otherwise replace workers as fast as they start. Where workers begin at
``FRESH_SHARE`` of the ceiling or more (the least any was seen holding at its first look), none
is replaced for memory (a new one would hold as much): that is logged, once per worker, naming
the flag to raise.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

LOG = logging.getLogger("fedgate.webhook")

MIB = 1024 * 1024
LOOK_SECONDS = 2.0
"""How often the master reads its workers' memory (a read of smaps_rollup: about a millisecond
for a worker of 200 MiB)."""
FRESH_SHARE = 0.8
"""Where workers begin at this share of the ceiling or more (the least any held at its first
look), none is replaced for memory."""
PRIVATE_FIELDS = ("Private_Clean:", "Private_Dirty:")


def own_memory_bytes(pid: int) -> int | None:
    """The process's private resident memory, bytes (its pages no other process maps); None
    where the kernel does not say (the process is gone, or no /proc)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    total, found = 0, 0
    for line in text.splitlines():
        if line.startswith(PRIVATE_FIELDS):
            parts = line.split()
            if len(parts) != 3 or parts[2] != "kB" or not parts[1].isdigit():
                return None
            total += int(parts[1]) * 1024
            found += 1
    return total if found == len(PRIVATE_FIELDS) else None


@dataclass
class MemoryCeiling:
    """Which serving worker to replace for its memory, at most one per look; ``mib`` 0: none."""

    mib: int
    pace_seconds: float
    """The least time between two replacements (``Settings.worker_pace_seconds``)."""
    measure: Callable[[int], int | None] = own_memory_bytes
    next_look: float = 0.0
    not_before: float = float("-inf")
    """No replacement before this time (the pace, or a pause after one that failed)."""
    first_seen: dict[int, int] = field(default_factory=dict)
    """pid -> its own memory, bytes, at the first look that found it serving."""
    fresh: float = float("inf")
    """The least any worker held at its first look, bytes: what a new worker needs. A first
    look can come late (none is taken while a replacement is under way) and find a worker
    already grown, so each worker is judged by the least, not by its own."""
    told: set[int] = field(default_factory=set)
    """Workers logged as born past the ceiling, or as unreadable (once each)."""

    def grown(self, pids: Iterable[int], now: float) -> int | None:
        """The worker among ``pids`` (all serving) to replace now, if any: the first past the
        ceiling that was well under it when first seen, once the pace allows."""
        if self.mib <= 0 or now < self.next_look:
            return None
        self.next_look = now + LOOK_SECONDS
        serving = list(pids)
        for gone in set(self.first_seen) - set(serving):
            del self.first_seen[gone]
        self.told &= set(serving)
        ceiling = self.mib * MIB
        for pid in serving:
            held = self.measure(pid)
            if held is None:
                self._tell_once(
                    pid,
                    "cannot read worker %s's memory (/proc/%s/smaps_rollup): the memory ceiling "
                    "is not enforced for it",
                    pid,
                    pid,
                )
                continue
            first = self.first_seen.setdefault(pid, held)
            self.fresh = min(self.fresh, first)
            if held <= ceiling:
                continue
            if self.fresh >= FRESH_SHARE * ceiling:
                self._tell_once(
                    pid,
                    "workers begin at %d MiB of their own or more, %d%% of the ceiling of %d MiB; "
                    "worker %s holds %d MiB and is not replaced for memory (a new worker would "
                    "need as much for this bundle and live index): raise --worker-memory-mib",
                    self.fresh // MIB,
                    100 * self.fresh // ceiling,
                    self.mib,
                    pid,
                    held // MIB,
                )
                continue
            if now < self.not_before:
                continue
            LOG.warning(
                "worker %s holds %d MiB of its own (%d MiB when first seen serving), past its "
                "ceiling of %d MiB: a new worker replaces it; it finishes its requests under way",
                pid,
                held // MIB,
                first // MIB,
                self.mib,
            )
            self.not_before = now + self.pace_seconds
            return pid
        return None

    def pause(self, now: float, seconds: float) -> None:
        """No replacement for ``seconds`` (the last one's new worker never served)."""
        self.not_before = max(self.not_before, now + seconds)

    def _tell_once(self, pid: int, message: str, *args: object) -> None:
        if pid not in self.told:
            self.told.add(pid)
            LOG.error(message, *args)
