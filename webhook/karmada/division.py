"""How Karmada v1.18 divides replicas by static weight: Webster (Sainte-Lague), UID tie-break.

(Moved here from ``compiler/division.py``: the webhook's simulation of Karmada needs it too.)

See ``reference/karmada-v1.18/division.md``: each replica goes to the cluster with the largest
``weight / (2 * seats + 1)`` (in float64, as Karmada computes it); ties go to fewer seats, then
by name, smaller first when the template UID's FNV-1a-32 hash is even (or the UID is unknown),
larger first when odd. Zero-seat clusters are dropped from the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SEQUENTIAL_LIMIT = 4096
"""Up to this many replicas the seats are handed out one by one, as Karmada does; above it
they are counted directly (the same result: a property test holds the two together)."""


def webster(
    total: int, weights: Mapping[str, int], *, larger_names_first: bool = False
) -> dict[str, int]:
    """Seats per cluster (zero-seat clusters left out), in name order."""
    positive = {name: weight for name, weight in weights.items() if weight > 0}
    if not positive:
        return {}
    order = sorted(positive, reverse=larger_names_first)
    rank = {name: i for i, name in enumerate(order)}
    if total > SEQUENTIAL_LIMIT:
        seats = _counted(total, positive, rank)
    else:
        seats = _sequential(total, positive, rank)
    return {name: seats[name] for name in sorted(seats) if seats[name] > 0}


def priority(weight: int, seats: int) -> float:
    """A cluster's claim to its next seat, ``weight / (2 * seats + 1)``, as Karmada's
    ``WebsterPriorityQueue`` computes it: in float64, so weights past 2**53 that differ only
    in their last units tie (and the tie-break decides)."""
    return float(weight) / (2 * seats + 1)


def _sequential(total: int, weights: Mapping[str, int], rank: Mapping[str, int]) -> dict[str, int]:
    """Karmada's loop: each seat to the largest priority, ties to fewer seats, then to the
    better rank."""
    seats = dict.fromkeys(weights, 0)
    for _ in range(total):
        best = max(
            seats,
            key=lambda c: (priority(weights[c], seats[c]), -seats[c], -rank[c]),
        )
        seats[best] += 1
    return seats


def _count(weight: int, value: float, limit: int, *, strictly: bool) -> int:
    """How many of a cluster's first ``limit`` priorities (decreasing with the seats) are
    above ``value`` (``strictly``) or at least ``value``."""
    low, high = 0, limit
    while low < high:  # the first seat count whose priority is no longer counted
        middle = (low + high) // 2
        got = priority(weight, middle)
        if got > value or (not strictly and got == value):
            low = middle + 1
        else:
            high = middle
    return low


def _counted(total: int, weights: Mapping[str, int], rank: Mapping[str, int]) -> dict[str, int]:
    """The same seats without the loop. The loop merges each cluster's decreasing priorities
    in one order (priority, then fewer seats, then rank), so after ``total`` steps it holds the
    ``total`` greatest: every priority above the smallest one taken, and of those equal to it,
    the first in that order."""

    def reached(value: float) -> bool:
        return sum(_count(w, value, total, strictly=False) for w in weights.values()) >= total

    threshold = 0.0
    for weight in weights.values():  # per cluster, the largest of its priorities still reached
        low, high = 0, total
        while low < high:
            middle = (low + high) // 2
            if reached(priority(weight, middle)):
                high = middle
            else:
                low = middle + 1
        threshold = max(threshold, priority(weight, low))
    seats = {name: _count(w, threshold, total, strictly=True) for name, w in weights.items()}
    tied = sorted(
        (seats[name], rank[name], name)
        for name, w in weights.items()
        if priority(w, seats[name]) == threshold
    )
    for _, _, name in tied[: total - sum(seats.values())]:
        seats[name] += 1
    return seats


def fnv1a32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def larger_names_first(uid: str) -> bool:
    """Karmada's tie-break direction for a template UID (odd FNV-1a-32 hash: larger names win)."""
    return bool(uid) and fnv1a32(uid.encode()) & 1 == 1


@dataclass(frozen=True)
class Division:
    """The outcome with ties to smaller names, and the other one when the UID could change it."""

    replicas: Mapping[str, int]
    alternative: Mapping[str, int] | None = None


def divide(total: int, weights: Mapping[str, int]) -> Division:
    """Both tie-break outcomes; ``alternative`` is None when they agree."""
    smaller_first = webster(total, weights)
    larger_first = webster(total, weights, larger_names_first=True)
    return Division(smaller_first, None if larger_first == smaller_first else larger_first)
