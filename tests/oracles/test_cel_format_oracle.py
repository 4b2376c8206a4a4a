"""``<string>.format(<list>)`` against the API server (the ``cel/`` oracle): cel-go's legacy
formatter, which cel-expr runs as ``webhook/engine/cel/stringformat.py``. Generated a seed (the
fixed one and a fresh one): doubles of every kind under ``%s``, ``%f``, ``%.Nf``, ``%e``,
``%.Ne`` (random bits, decimals, halves, the extremes), and every CEL value under every verb
(strings with escapes, bytes, ints and uints, types, timestamps and durations to the
nanosecond, lists and maps nested), passed through ``dyn()`` so that Kubernetes' compile-time
check of the format leaves them to the evaluation. Each case answers as Kubernetes, or fails
closed naming what fedgate cannot tell (a timestamp inside a list, a map whose keys Python
merged), or Kubernetes refused it at compile time."""

from __future__ import annotations

import math
import random
import struct
from collections import Counter
from collections.abc import Callable

import pytest

from tests.oracles.build import ask, oracle
from tests.oracles.differential import compare
from tests.oracles.isolated import each_isolated
from tests.oracles.seeds import FIXED_SEED, fresh_seed
from webhook.engine.cel.engines import make_backend

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

_SPECIAL = [0.5, 1.5, 2.5, 0.125, 1e21, 1e20, 123456.0, 1234567.0, 1e-5, 1e-4, 0.0001234]
_SPECIAL += [999999.5, 9.5, 0.05, 5e-324, 1.7976931348623157e308, -0.0, 0.0]
_CHARS = ["a", "é", "\\n", "\\t", "\\x01", "\\u200b", "\\u00a0", '"', "\\'", "\\\\"]
_CHARS += ["\\U0001F600", "\\u0085", "\\x7f", " ", "\\u2028", "\\uFFFD", "\\u00ad", "%"]
_TYPES = ["int", "uint", "string", "type(1.0)", "type([])", "type({})", "type(null)", "bool"]
_TYPES += ["bytes", "type(type)", "google.protobuf.Duration", "list", "map", "type(timestamp(0))"]


class _Cases:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def double(self) -> str:
        r = self.rng
        kind = r.random()
        if kind < 0.3:
            x = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
        elif kind < 0.6:
            x = r.choice([1, -1]) * r.randint(0, 10 ** r.randint(0, 12)) / 10 ** r.randint(0, 8)
        elif kind < 0.8:
            x = r.uniform(-1e6, 1e6) * 10.0 ** r.randint(-30, 30)
        else:
            x = r.choice(_SPECIAL)
        if math.isnan(x):
            return "double('nan')"
        if x in (float("inf"), float("-inf")):
            return f"double('{'-' if x < 0 else ''}inf')"
        return f"double('{x!r}')"

    def number(self) -> str:
        r = self.rng
        clause = r.choice(["%s", "%f", "%e", f"%.{r.randint(0, 20)}f", f"%.{r.randint(0, 20)}e"])
        if r.random() < 0.2:
            return f"'%s'.format([[{self.double()}, {self.double()}]])"
        return f"'{clause}'.format([{self.double()}])"

    def string(self) -> str:
        return "'" + "".join(self.rng.choice(_CHARS) for _ in range(self.rng.randint(0, 4))) + "'"

    def timestamp(self) -> str:
        seconds = self.rng.randint(-62135596800, 253402300799)
        nanos = self.rng.choice([0, self.rng.randint(0, 999999999)])
        return f"(timestamp(int({seconds})) + duration('{nanos}ns'))"

    def duration(self) -> str:
        r = self.rng
        amount = r.randint(0, 10 ** r.randint(0, 19)) if r.random() < 0.5 else r.randint(0, 10**6)
        return f"duration('{r.choice(['', '-'])}{amount}{r.choice(['ns', 'us', 'ms', 's', 'h'])}')"

    def value(self, depth: int = 0) -> str:
        r = self.rng
        makers: list[Callable[[], str]] = [
            lambda: str(r.randint(-(2**63), 2**63 - 1)),
            lambda: f"{r.randint(0, 2**64 - 1)}u",
            self.string,
            lambda: r.choice(["true", "false"]),
            lambda: "b" + self.string(),
            lambda: "b'\\xff\\xfe'",
            lambda: "null",
            lambda: r.choice(_TYPES),
            self.timestamp,
            self.duration,
            self.double,
        ]
        if depth < 2:
            makers += [self.list_of(depth), self.map_of(depth)]
        return r.choice(makers)()

    def list_of(self, depth: int) -> Callable[[], str]:
        count = self.rng.randint(0, 3)
        return lambda: "[" + ", ".join(self.value(depth + 1) for _ in range(count)) + "]"

    def map_of(self, depth: int) -> Callable[[], str]:
        r = self.rng

        def make() -> str:
            keys = [self.string(), str(r.randint(-5, 5)), f"{r.randint(0, 5)}u", "true", "false"]
            chosen = list(dict.fromkeys(r.choice(keys) for _ in range(r.randint(0, 3))))
            return "{" + ", ".join(f"{k}: {self.value(depth + 1)}" for k in chosen) + "}"

        return make

    def any_value(self) -> str:
        r = self.rng
        count = r.randint(0, 3)
        verbs = ["%s", "%s", "%s", "%d", "%x", "%X", "%o", "%b", "%.2s", "%f", "%e"]
        text = r.choice(["", "x ", "%% "]) + " ".join(r.choice(verbs) for _ in range(count))
        values = ", ".join(f"dyn({self.value()})" for _ in range(count))
        return f"'{text}'.format(dyn([{values}]))"


@pytest.mark.parametrize("seed", [FIXED_SEED, fresh_seed()], ids=["fixed-seed", "fresh-seed"])
def test_format_answers_as_kubernetes(seed: int) -> None:
    made = _Cases(seed)
    expressions = [made.number() for _ in range(1500)] + [made.any_value() for _ in range(1500)]
    answers = ask(oracle("cel"), [{"expr": e} for e in expressions])
    engine = make_backend("cel-expr")
    counts: Counter[str] = Counter()
    wrong = []
    verdicts = each_isolated(
        lambda pair: compare(engine, {"expr": pair[0]}, pair[1]),
        list(zip(expressions, answers, strict=True)),
    )
    for expression, verdict in zip(expressions, verdicts, strict=True):
        outcome = verdict.outcome
        if outcome == "mismatch" and verdict.theirs[0] == "compile":
            outcome = "stricter-upstream"
        elif outcome == "mismatch" and "not formatted by fedgate" in str(verdict.ours[1]):
            outcome = "closed"
        elif outcome == "mismatch" and "duplicate key" in str(verdict.ours[1]):
            outcome = "closed"  # a map literal repeating a key made of two spellings (1, 1u)
        counts[outcome] += 1
        if outcome == "mismatch":
            wrong.append((expression, verdict.ours, verdict.theirs))
    print(f"seed {seed}: {dict(counts)}")
    assert counts["same"] > len(expressions) * 9 // 10, counts
    assert not wrong, f"seed {seed}: {len(wrong)} differ, e.g. {wrong[:3]}"
