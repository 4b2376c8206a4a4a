"""Where a rule is enforced, and how hard: the enforcement points and the order of actions.

One engine runs at four places (the enforcement points), and a rule's binding may give each
its own action, so a rule is rolled out in steps: ``warn`` in pre-commit while the webhook
only ``audit``s, then ``deny`` everywhere. The shell says which point it is (data handed to
``review``); the engine never guesses it.

- ``webhook``: the admission webhook (``fedgate serve``) and what runs in the API server in
  its place (the exported ValidatingAdmissionPolicies), and ``fedgate review`` by default.
- ``check``: ``fedgate check``, the pre-commit hook and ``fedgate compile``.
- ``plan``: ``fedgate plan`` (what the reviewer of a pull request is shown).
- ``audit``: judging live objects after the fact (``fedgate audit``).

A rule is *staged* at a point where its action is weaker than its strongest anywhere: its
violations there carry the action that applied and the one it takes once enforced.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from webhook.engine.decision import Action

Point = Literal["webhook", "check", "plan", "audit"]
POINTS: tuple[Point, ...] = ("webhook", "check", "plan", "audit")
EVERY_POINT = "*"
"""The name, in a binding's ``enforcementPoints``, of every point no other entry names."""
GATEKEEPER_POINTS: dict[str, Point] = {
    "validation.gatekeeper.sh": "webhook",
    "vap.k8s.io": "webhook",
    "gator.gatekeeper.sh": "check",
    "audit.gatekeeper.sh": "audit",
}
"""Gatekeeper's enforcement points and fedgate's of the same place (for an imported
constraint, and for the hint when a binding names one of Gatekeeper's)."""

STRENGTH: dict[Action, int] = {"audit": 0, "warn": 1, "deny": 2}
"""``audit`` records, ``warn`` tells the writer, ``deny`` refuses."""


def strongest(actions: Iterable[Action]) -> Action:
    """The strongest of ``actions`` (``audit`` of none)."""
    return max(actions, key=STRENGTH.__getitem__, default="audit")


def weaker(action: Action, than: Action) -> bool:
    return STRENGTH[action] < STRENGTH[than]
