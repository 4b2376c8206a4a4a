"""A memo table bounded in bytes, for values worked out from what requests carry.

Keys come from requests (ledger texts, usernames, kinds), so a table keyed by them must not grow
with what a client sends: a distinct 110 KiB ledger per request once grew a worker by 750 MiB in
20 s. Each entry is charged an estimate of its size (``cost``: the key's size, times
``VALUE_FACTOR`` for the value built from it, plus ``ENTRY_OVERHEAD``); a key costing more than
``max_entry`` is computed but not kept, and an insert that would pass ``budget`` empties the
table first. Hits take no lock and do no bookkeeping; emptying is amortised over the inserts
that filled the table, and what was dropped is simply computed again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from webhook.base import forksafe

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

ENTRY_OVERHEAD = 256
"""Bytes charged per entry for the dict slot, the key tuple and the value's own objects."""
VALUE_FACTOR = 4
"""A value costs this many times its key's size (a parsed ledger: about 4x its JSON)."""


def cost(key: Any) -> int:
    """Estimated bytes of an entry keyed by ``key``: ``ENTRY_OVERHEAD`` plus ``VALUE_FACTOR``
    times the key's size (``_size``)."""
    return ENTRY_OVERHEAD + VALUE_FACTOR * _size(key)


OBJECT_BYTES = 24
"""What each string or bytes of a key is charged on top of its length, and each tuple (at
least a quarter of what CPython holds for the object and the reference to it: 49 bytes for an
empty string, 40 for an empty tuple, plus 8 for the reference)."""
REFERENCE_BYTES = 8
"""What each other member of a key (None, a boolean, a type) is charged: a reference."""


def _size(part: Any) -> int:
    """A key's size, each member charged at least a quarter of the bytes CPython holds for it
    (so ``cost`` is at least the key's own bytes): a size by the strings' lengths alone charged
    an empty string, a tuple or a number as next to nothing, and a selector of 20,000 empty
    label values was kept for 600 bytes while its key held 160 KB (a 4 MiB table could have
    grown past a gigabyte)."""
    if isinstance(part, str | bytes):
        return OBJECT_BYTES + len(part)
    if isinstance(part, tuple):
        return OBJECT_BYTES + sum(_size(inner) for inner in part)
    if isinstance(part, int):  # 28 bytes, and 4 more per 30 bits past the first 30
        return 2 * REFERENCE_BYTES + part.bit_length() // 8
    return REFERENCE_BYTES


class Memo(Generic[K, V]):
    """``compute()`` once per key while it fits; see the module docstring for the bounds."""

    def __init__(self, budget: int, max_entry: int) -> None:
        self.budget = budget
        self.max_entry = max_entry
        self._values: dict[K, V] = {}
        self._used = 0
        self._lock = forksafe.lock()

    def get(self, key: K, compute: Callable[[], V], weight: Callable[[V], int] | None = None) -> V:
        """``weight``: bytes to charge for a value whose size is not its key's (a tuple of
        references to what a memo does not own), on top of the key's ``cost``."""
        try:
            return self._values[key]
        except KeyError:
            pass
        value = compute()
        charge = cost(key) + (weight(value) if weight is not None else 0)
        if charge <= self.max_entry:
            with self._lock:
                if self._used + charge > self.budget:
                    self._values.clear()
                    self._used = 0
                if key not in self._values:
                    self._values[key] = value
                    self._used += charge
        return value

    @property
    def used(self) -> int:
        """Bytes charged to the entries held now."""
        return self._used

    def __len__(self) -> int:
        return len(self._values)
