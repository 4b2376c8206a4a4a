"""How Karmada v1.18 divides replicas by static weight: Webster (Sainte-Lague), UID tie-break.

(Moved here from ``compiler/division.py``: the webhook's simulation of Karmada needs it too.)

See ``reference/karmada-v1.18/division.md``: each replica goes to the cluster with the largest
``weight / (2 * seats + 1)``; ties go to fewer seats, then by name, smaller first when the
template UID's FNV-1a-32 hash is even (or the UID is unknown), larger first when odd. Zero-seat
clusters are dropped from the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

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


def _sequential(total: int, weights: Mapping[str, int], rank: Mapping[str, int]) -> dict[str, int]:
    """Karmada's loop: each seat to the largest ``w / (2s + 1)``, ties to fewer seats, then
    to the better rank."""
    seats = dict.fromkeys(weights, 0)
    for _ in range(total):
        best = max(
            seats,
            key=lambda c: (Fraction(weights[c], 2 * seats[c] + 1), -seats[c], -rank[c]),
        )
        seats[best] += 1
    return seats


def _above(weight: int, value: Fraction) -> int:
    """How many of a cluster's seat values ``weight / (2s + 1)`` exceed ``value``."""
    return max(0, math.ceil((weight / value - 1) / 2))


def _at_least(weight: int, value: Fraction) -> int:
    """How many of a cluster's seat values are at least ``value``."""
    bound = (weight / value - 1) / 2
    return math.floor(bound) + 1 if bound >= 0 else 0


def _counted(total: int, weights: Mapping[str, int], rank: Mapping[str, int]) -> dict[str, int]:
    """The same seats without the loop. The loop merges each cluster's decreasing seat values
    ``w / (2s + 1)`` in one order (value, then fewer seats, then rank), so after ``total``
    steps it holds the ``total`` greatest: every value above the smallest one taken, and of the
    values equal to it, the first in that order."""

    def reached(value: Fraction) -> bool:
        return sum(_at_least(w, value) for w in weights.values()) >= total

    threshold = Fraction(0)
    for weight in weights.values():  # per cluster, the largest of its values still reached
        low, high = 0, total
        while low < high:
            middle = (low + high) // 2
            if reached(Fraction(weight, 2 * middle + 1)):
                high = middle
            else:
                low = middle + 1
        threshold = max(threshold, Fraction(weight, 2 * low + 1))
    seats = {name: _above(w, threshold) for name, w in weights.items()}
    tied = sorted(
        (seats[name], rank[name], name)
        for name, w in weights.items()
        if (w / threshold - 1) / 2 == seats[name]
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
