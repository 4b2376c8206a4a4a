"""How Karmada v1.18 divides replicas by static weight: Webster (Sainte-Lague), UID tie-break.

See ``reference/karmada-v1.18/division.md``: each replica goes to the cluster with the largest
``weight / (2 * seats + 1)``; ties go to fewer seats, then by name, smaller first when the
template UID's FNV-1a-32 hash is even (or the UID is unknown), larger first when odd. Zero-seat
clusters are dropped from the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction


def webster(
    total: int, weights: Mapping[str, int], *, larger_names_first: bool = False
) -> dict[str, int]:
    """Seats per cluster (zero-seat clusters left out), in name order."""
    seats = {name: 0 for name, weight in weights.items() if weight > 0}
    if not seats:
        return {}
    order = sorted(seats, reverse=larger_names_first)
    rank = {name: i for i, name in enumerate(order)}
    for _ in range(total):
        best = max(
            seats,
            key=lambda c: (Fraction(weights[c], 2 * seats[c] + 1), -seats[c], -rank[c]),
        )
        seats[best] += 1
    return {name: seats[name] for name in sorted(seats) if seats[name] > 0}


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
