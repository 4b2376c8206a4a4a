"""``sortBy`` over lists past Go's insertion-sort size, with many equal keys, against the API
server (the ``cel/`` oracle): where pdqsort leaves items of equal keys, and the cost, as
cel-python answers (``webhook/engine/cel/gosort.py``). Random shapes a seed (the fixed one and
a fresh one): few distinct keys, sorted, reversed, organ-pipe, nearly sorted, all equal."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.oracles.build import ask, oracle
from tests.oracles.seeds import FIXED_SEED, fresh_seed
from webhook.engine.cel.celpython import CelPythonBackend

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

EXPRESSION = "object.l.sortBy(e, e.k).map(e, e.i)"


def _keys(rng: random.Random, n: int) -> list[int]:
    shape = rng.choice(["random", "few", "sorted", "reversed", "organ", "equal", "nearly"])
    if shape == "random":
        return [rng.randint(0, n) for _ in range(n)]
    if shape == "few":
        return [rng.randint(0, 3) for _ in range(n)]
    if shape in ("sorted", "reversed"):
        return sorted((rng.randint(0, 5) for _ in range(n)), reverse=shape == "reversed")
    if shape == "organ":
        return [min(i, n - i) for i in range(n)]
    if shape == "equal":
        return [1] * n
    keys = list(range(n))
    for _ in range(3):
        i, j = rng.randrange(n), rng.randrange(n)
        keys[i], keys[j] = keys[j], keys[i]
    return keys


@pytest.mark.parametrize("seed", [FIXED_SEED, fresh_seed()], ids=["fixed-seed", "fresh-seed"])
def test_sort_by_orders_equal_keys_as_the_api_server(seed: int) -> None:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for _ in range(150):
        n = rng.choice([2, 12, 13, 20, 49, 50, 51, 64, 129, 300, 700])
        items = [{"i": i, "k": k} for i, k in enumerate(_keys(rng, n))]
        cases.append({"expr": EXPRESSION, "vars": {"object": {"l": items}}})
    answers = ask(oracle("cel"), cases)
    engine = CelPythonBackend()
    program = engine.compile(EXPRESSION)
    wrong = []
    for case, answer in zip(cases, answers, strict=True):
        value, cost = engine.measure(program, engine.activation(case["vars"]))
        theirs = [int(item[1]) for item in answer["value"][1]]
        if (value, cost) != (theirs, answer["cost"]):
            wrong.append((len(theirs), value, theirs))
    assert not wrong, f"seed {seed}: {len(wrong)} of {len(cases)} differ, e.g. {wrong[:1]}"
