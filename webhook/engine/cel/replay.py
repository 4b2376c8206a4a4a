"""A proof's cost check on each request: its plans' joint answer (``Plans``), replayed from a
recent request that reads alike, by a function made for each kept trace.

``bound.Sizes.replays`` answers a kept walk's questions through its general look-ups: a
place's value found by identity in a table, then a dispatch on the question's kind, once per
question and request (a Deployment review's 65 questions, about 30 us of its CPU). A kept
trace of ``Plans`` is also made into one Python function (``replayer``) that reads the
request's places in a row, as the proofs' own translation does (``proof.py``), and compares
each answer as ``replays`` would: the same answer on every activation (a hypothesis test holds
them together), in a fraction of the time. The source is built from the trace's shape only
(place kinds, question kinds, counters): every key, argument and answer is a constant handed
in by position, so no text of a rule or a request is ever executed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from webhook.engine.cel import cost
from webhook.engine.cel.bound import (
    BUCKET_ASKED,
    NO_VALUE,
    TRACES,
    Asked,
    Place,
    Plan,
    Sizes,
    Trace,
    answer_of,
    asked,
    child_of,
    fits,
)

Replayer = Callable[[Sizes], bool]


def replayer(trace: Trace) -> Replayer:
    """A function answering ``sizes.replays(trace)`` for any ``sizes``, without its tables:
    each place read once, a field and a size inline, every other question by the same helpers."""
    constants: list[Any] = []
    names: dict[Place, str] = {}
    lines = ["def replay(sizes):", "    variables = sizes.variables"]

    def constant(value: Any) -> str:
        constants.append(value)
        return f"C[{len(constants) - 1}]"

    def name(place: Place) -> str:
        found = names.get(place)
        if found is not None:
            return found
        if place.parent is None:
            value = f"variables.get({constant(place.key)}, NO)"
        else:
            holder = name(place.parent)
            key = constant(place.key)
            if place.kind == "field":  # child_of's field, inline
                test = f"isinstance({holder}, dict) and {key} in {holder}"
                value = f"{holder}[{key}] if {test} else NO"
            else:
                value = f"child_of({holder}, {constant(place.kind)}, {key}, sizes)"
        found = names[place] = f"p{len(names)}"
        lines.append(f"    {found} = {value}")
        return found

    for question, answer in trace:
        expected = constant(answer)
        kind, place = question.kind, question.place
        if kind == "variable" and place is None:
            found = f"({constant(question.argument)} in variables)"
        elif kind == "field" and place is not None:
            value, argument = name(place), constant(question.argument)
            test = f"isinstance({value}, dict) and {argument} in {value}"
            found = f"(NO if {value} is NO else {test})"
        elif kind == "size" and place is not None:  # _answer's size, inline
            value = name(place)
            number = (
                f"{value} if isinstance({value}, int) and not isinstance({value}, bool) else None"
            )
            found = f"(NO if {value} is NO else (size({value}), {number}))"
        elif place is not None and kind != "bucket":
            value = name(place)
            found = f"answer_of({value}, {constant(kind)}, {constant(question.argument)}, sizes)"
        else:  # the static bucket: Sizes' own answer
            found = f"sizes.answer({constant(question)})"
        lines.append(f"    if {found} != {expected}:")
        lines.append("        return False")
    lines.append("    return True")
    namespace: dict[str, Any] = {
        "C": tuple(constants),
        "NO": NO_VALUE,
        "answer_of": answer_of,
        "child_of": child_of,
        "size": cost.size,
    }
    exec(compile("\n".join(lines), "<cost replay>", "exec"), namespace)  # constants by position
    made: Replayer = namespace["replay"]
    return made


class Plans(tuple[Plan | None, ...]):
    """One proof's plans, with the answers ``plans_fit`` gave on recent activations and what
    each read of its activation (all its plans' traces, and the static bucket) made into a
    ``replayer``: an activation that answers those alike gets the same answer from one replay,
    not one per plan (a Deployment's proofs read mostly the same dozen places)."""

    _kept: tuple[tuple[Replayer, bool, Trace], ...] = ()

    def fit(self, sizes: Sizes) -> bool:
        return self.traced_fit(sizes)[0]

    def traced_fit(self, sizes: Sizes) -> tuple[bool, Trace | None]:
        """``fit``, with what it read of ``sizes`` (None: not to replay)."""
        kept = self._kept
        for replays, found, read in kept:
            if replays(sizes):
                return found, read
        made, trace = _plans_fit(self, sizes)
        if trace is not None:  # one assignment: thread-safe
            self._kept = ((replayer(trace), made, trace), *kept[: TRACES - 1])
        return made, trace


class Together:
    """Several proofs' plans on one activation (a review's proofs without params), answered
    by one replay of the union of what each read: a request answering all of it alike gets
    every answer back (each ``Plans``' answer depends on nothing else), where each proof's
    replay would answer again the questions they share (a Deployment's five: 121 answers
    compared, 65 of them distinct)."""

    def __init__(self, plans: Sequence[Plans]) -> None:
        self.plans = tuple(plans)
        self._kept: tuple[tuple[Replayer, tuple[bool, ...]], ...] = ()

    def fit(self, variables: Mapping[str, Any]) -> tuple[bool, ...]:
        """``plans_fit`` of each proof's plans on ``variables``, in order."""
        sizes = sizes_of(variables)
        kept = self._kept
        for replays, found in kept:
            if replays(sizes):
                return found
        answers: list[bool] = []
        read: dict[Asked, Any] = {}
        replayable = True
        for plans in self.plans:
            made, trace = plans.traced_fit(sizes)
            answers.append(made)
            if trace is None:
                replayable = False
            else:
                read.update(trace)  # this activation's answers: the same where traces share
        found = tuple(answers)
        if replayable:  # one assignment: thread-safe
            self._kept = ((replayer(tuple(read.items())), found), *kept[: TRACES - 1])
        return found


def plans_fit(plans: Sequence[Plan | None], variables: Mapping[str, Any]) -> bool:
    """Whether the API server would finish every one of these expressions (a proof's) on
    ``variables``: each bound within the per-call limit, and all together within the smaller
    of the budgets (matchConditions'). ``Plans`` answer from a recent activation's answer
    where this one reads alike."""
    sizes = sizes_of(variables)
    if isinstance(plans, Plans):
        return plans.fit(sizes)
    return _plans_fit(plans, sizes)[0]


def _plans_fit(plans: Sequence[Plan | None], sizes: Sizes) -> tuple[bool, Trace | None]:
    """``plans_fit``, with everything it read of ``sizes`` (None: not to replay)."""
    read: dict[Asked, Any] = {asked(BUCKET_ASKED): sizes.answer(asked(BUCKET_ASKED))}
    replayable = True
    total = 0
    for one in plans:
        if one is None:
            return False, tuple(read.items())
        found, trace = one.traced_bound(sizes, cost.PER_CALL_LIMIT)
        if trace is None:
            replayable = False
        else:
            read.update(trace)
        if found is None or not fits(found, cost.PER_CALL_LIMIT):
            return False, tuple(read.items()) if replayable else None
        total += found.cost
    return total <= cost.MATCH_CONDITIONS_BUDGET, tuple(read.items()) if replayable else None


_LAST = threading.local()


def sizes_of(variables: Mapping[str, Any]) -> Sizes:
    """``Sizes`` of ``variables``, kept for the next call on this thread with the same dict
    (the proofs of one request's rules share their variables)."""
    last = getattr(_LAST, "pair", None)
    if last is not None and last[0] is variables:
        found: Sizes = last[1]
        return found
    made = Sizes(variables)
    _LAST.pair = (variables, made)
    return made
