"""A binding's ``action``: one for every enforcement point, or one per point (``scoped``).

The per-point shape is Gatekeeper's (``enforcementAction: scoped`` with
``scopedEnforcementActions``), so a Gatekeeper user reads it at sight and a constraint's maps
onto it entry for entry; fedgate's binding calls the key ``action`` as before, and its points
are its own places (``webhook``, ``check``, ``plan``, ``audit``)::

    action: scoped
    scopedEnforcementActions:
      - action: warn
        enforcementPoints: [{name: check}]
      - action: audit
        enforcementPoints: [{name: webhook}]
      - action: deny
        enforcementPoints: [{name: "*"}]      # every point not named above

Unlike Gatekeeper, where a point no entry names does not enforce the constraint at all, every
point here must get an action (named, or through ``"*"``): a rule silently off at one place is
a bypass nobody chose. A point named twice is an error rather than two actions at once.
"""

from __future__ import annotations

from typing import cast

from webhook.base.schema import Checker
from webhook.engine.decision import Action
from webhook.engine.enforcement import EVERY_POINT, GATEKEEPER_POINTS, POINTS, Point, strongest

ACTIONS: tuple[Action, ...] = ("deny", "warn", "audit")
SCOPED = "scoped"
SCOPED_KEY = "scopedEnforcementActions"
ENTRY_KEYS = ("action", "enforcementPoints")


def binding_actions(binding: Checker) -> tuple[Action, tuple[tuple[Point, Action], ...]]:
    """(the action, the actions per point) of a binding; every problem reported on ``binding``.

    A plain action gives no per-point actions; a scoped one gives every point's, and its action
    is the strongest of them."""
    action = binding.choice(("action",), (*ACTIONS, SCOPED), default="deny")
    scoped = binding.get((SCOPED_KEY,))
    if action != SCOPED:
        if scoped is not None:
            binding.report(
                (SCOPED_KEY,),
                f"is read only with action: scoped (as Gatekeeper's enforcementAction: scoped); "
                f"set action: scoped or remove {SCOPED_KEY}",
            )
        return cast(Action, action or "deny"), ()
    if not isinstance(scoped, list) or not scoped:
        binding.report(
            (SCOPED_KEY,) if scoped is not None else ("action",),
            f"action: scoped needs {SCOPED_KEY}, a non-empty list of "
            "{action, enforcementPoints: [{name: webhook | check | plan | audit | '*'}]}",
        )
        return "deny", ()
    named: dict[str, tuple[Action, int]] = {}
    reported = len(binding.findings)
    for index in range(len(scoped)):
        _entry(binding, index, named)
    if len(binding.findings) > reported:
        return "deny", ()
    fallback = named.pop(EVERY_POINT, None)
    missing = [p for p in POINTS if p not in named]
    if missing and fallback is None:
        binding.report(
            (SCOPED_KEY,),
            f"no action for {', '.join(missing)}: name {'it' if len(missing) == 1 else 'them'} "
            f"in an entry's enforcementPoints, or add an entry for every other point "
            f"(name: '*')",
        )
        return "deny", ()
    actions = tuple(
        (point, named[point][0] if point in named else cast(tuple[Action, int], fallback)[0])
        for point in POINTS
    )
    return strongest(a for _, a in actions), actions


def _entry(binding: Checker, index: int, named: dict[str, tuple[Action, int]]) -> None:
    """One ``scopedEnforcementActions`` entry, its points added to ``named``."""
    path: tuple[str | int, ...] = (SCOPED_KEY, index)
    binding.mapping(path, ENTRY_KEYS, required=ENTRY_KEYS)
    action = binding.choice((*path, "action"), ACTIONS)
    points = binding.get((*path, "enforcementPoints"))
    if points is None:
        return
    if not isinstance(points, list) or not points:
        binding.report((*path, "enforcementPoints"), "must be a non-empty list of {name: POINT}")
        return
    for at in range(len(points)):
        where = (*path, "enforcementPoints", at)
        if not isinstance(points[at], dict):
            binding.report(where, "must be a mapping {name: POINT}, as Gatekeeper's")
            continue
        binding.mapping(where, ("name",), required=("name",))
        name = binding.string((*where, "name"))
        if name is None:
            continue
        if name not in (*POINTS, EVERY_POINT):
            binding.report((*where, "name"), _unknown_point(name))
        elif name in named:
            first = named[name][1]
            binding.report(
                (*where, "name"),
                f"{name} already has an action ({SCOPED_KEY}[{first}]): one action a point",
            )
        elif action is not None:
            named[name] = (cast(Action, action), index)


def _unknown_point(name: str) -> str:
    known = f"the points are {', '.join(POINTS)}, or '*' for every other one"
    if name in GATEKEEPER_POINTS:
        return f"{name!r} is Gatekeeper's; fedgate calls it {GATEKEEPER_POINTS[name]} ({known})"
    return f"unknown enforcement point {name!r}: {known}"
