"""Argo CD's globs and Go's path matching, the Python port against the Go code, every run.

The glob oracle (``glob/``: github.com/gobwas/glob v0.2.3, the version argo-cd requires, and
Go's path/filepath.Match) answers 5,000 patterns and texts a run from the recorded oracle's
seeded pools (odd atoms, unicode, broken classes and braces, separators): the same seed every
run and a fresh one, printed so that a failure can be replayed with ``FEDGATE_ORACLE_SEED``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from compiler.argocd.glob import GlobPanic, match, path_match, valid
from tests.compiler.argocd.go_oracle.generate import glob_pattern, path_case, text_for
from tests.oracles.build import ask, oracle
from tests.oracles.seeds import seeds

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

CASES = 5000

Case = dict[str, Any]


def cases(seed: int, count: int) -> list[Case]:
    rng = random.Random(seed)
    made: list[Case] = []
    while len(made) < count:
        if rng.random() < 0.6:
            pattern = glob_pattern(rng, rng.randint(0, 8))
            separators = rng.choice(["", "", "/", "/", ".", "/.", ",", "é", "😀/"])
            made.append(
                {"op": "glob", "p": pattern, "t": text_for(rng, pattern), "sep": separators}
            )
        else:
            case = path_case(rng)
            made.append({"op": "path", "p": case["p"], "t": case["t"]})
    return made


def port(case: Case) -> Case:
    if case["op"] == "path":
        return {"m": path_match(case["p"], case["t"])}
    try:
        return {
            "m": match(case["p"], case["t"], case["sep"]),
            "err": not valid(case["p"], case["sep"]),
        }
    except GlobPanic as panic:
        return {"panic": panic.reason}


def go(case: Case, answer: Case) -> Case:
    if "panic" in answer:
        return {"panic": answer["panic"]}
    if case["op"] == "path":
        return {"m": answer["m"]}
    return {"m": answer["m"], "err": bool(answer.get("err"))}


@pytest.mark.parametrize("seed", seeds(), ids=["fixed-seed", "fresh-seed"])
def test_globs_and_paths_answer_as_go(seed: int) -> None:
    made = cases(seed, CASES)
    answers = ask(oracle("glob"), made)
    compared = [
        (case, go(case, answer), port(case)) for case, answer in zip(made, answers, strict=True)
    ]
    wrong = [c for c in compared if c[1] != c[2]]
    assert len(compared) == CASES
    assert sum(c[0]["op"] == "glob" for c in compared) > CASES // 2
    assert not wrong, f"seed {seed}: {len(wrong)} of {CASES} differ from Go, e.g. {wrong[:3]}"
